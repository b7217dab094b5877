"""The CPU backend's blocked ScaledDotProductAttention kernel against the
plain formula: masks (boolean, additive, broadcast rows / heads), causal
(L < S, L > S), grouped-query broadcasting, explicit scale, f16 / f64, row
blocks and batch blocks, the helper pool on one and two threads."""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import pytest

from xmo.backends.cpu import threads
from xmo.backends.cpu.kernels import attention
from xmo.backends.cpu.registry import kernel_for


def _node(causal: bool = False) -> SimpleNamespace:
    attrs = {"causal": causal}
    return SimpleNamespace(attr=lambda name, default=None: attrs.get(name, default))


def _reference(q, k, v, mask=None, scale=None, causal=False):
    q, k, v = (x.astype(np.float64) for x in (q, k, v))
    scale = 1 / np.sqrt(q.shape[-1]) if scale is None else scale
    w = np.matmul(q, np.swapaxes(k, -1, -2)) * scale
    if causal:
        w = w + np.triu(np.full(w.shape[-2:], -np.inf), k=1)
    elif mask is not None:
        w = w + (np.where(mask, 0.0, -np.inf) if mask.dtype == np.bool_ else mask)
    w = np.exp(w - w.max(axis=-1, keepdims=True))
    return np.matmul(w / w.sum(axis=-1, keepdims=True), v)


def _rand(rng, shape, dtype=np.float32):
    return rng.standard_normal(shape).astype(dtype)


@pytest.fixture
def small_blocks(monkeypatch):
    """Blocks of a few rows and no parallel threshold: many tasks on tiny
    inputs, the softmax by numpy (the numba call: ``jit_blocks``)."""
    monkeypatch.setattr(attention, "BLOCK_SCORES", 40)
    monkeypatch.setattr(attention, "PARALLEL_MIN_WORK", 0)
    monkeypatch.setattr(attention, "EXP_ROWS_MIN", 1 << 30)


def _check(q, k, v, *extra, causal=False, rtol=1e-5, atol=1e-6):
    got = kernel_for("ov.ScaledDotProductAttention")(_node(causal), q, k, v, *extra)
    mask = extra[0] if extra else None
    scale = float(np.asarray(extra[1]).reshape(-1)[0]) if len(extra) > 1 else None
    want = _reference(q, k, v, mask, scale, causal)
    assert got.dtype == q.dtype and got.shape == want.shape
    np.testing.assert_allclose(got.astype(np.float64), want, rtol=rtol, atol=atol)
    return got


CASES = {
    "plain": ([2, 3, 9, 8], [2, 3, 11, 8], [2, 3, 11, 5], None),
    "bool_mask_heads_broadcast": ([2, 3, 9, 8], [2, 3, 11, 8], [2, 3, 11, 8], [2, 1, 9, 11]),
    "float_mask_row_broadcast": ([2, 3, 9, 8], [2, 3, 11, 8], [2, 3, 11, 8], [2, 1, 1, 11]),
    "float_mask_2d": ([1, 4, 7, 8], [1, 4, 7, 8], [1, 4, 7, 8], [7, 7]),
    "gqa": ([2, 2, 3, 9, 8], [2, 2, 1, 11, 8], [2, 2, 1, 11, 6], None),
    "shared_kv_3d": ([4, 10, 8], [1, 12, 8], [1, 12, 8], None),
}


@pytest.mark.parametrize("case", list(CASES))
def test_sdpa_matches_formula(case, nthreads, small_blocks):
    rng = np.random.default_rng(0)
    sq, sk, sv, sm = CASES[case]
    q, k, v = _rand(rng, sq), _rand(rng, sk), _rand(rng, sv)
    extra = ()
    if sm is not None:
        if case.startswith("bool"):
            mask = rng.random(sm) > 0.3
            mask[..., 0] = True  # no fully masked row
        else:
            mask = _rand(rng, sm)
        extra = (mask,)
    _check(q, k, v, *extra)


@pytest.mark.parametrize("l_len,s_len", [(9, 9), (5, 12), (12, 5)])
def test_sdpa_causal(l_len, s_len, nthreads, small_blocks):
    rng = np.random.default_rng(1)
    q, k, v = _rand(rng, [2, 3, l_len, 8]), _rand(rng, [2, 3, s_len, 8]), _rand(rng, [2, 3, s_len, 8])
    junk = np.full((l_len, s_len), -1e9, np.float32)  # causal ignores the mask
    _check(q, k, v, junk, np.float32(0.3), causal=True)
    _check(q, k, v, causal=True)


def test_sdpa_explicit_scale_and_dtypes(small_blocks):
    rng = np.random.default_rng(2)
    q, k, v = _rand(rng, [1, 2, 6, 4]), _rand(rng, [1, 2, 7, 4]), _rand(rng, [1, 2, 7, 4])
    mask = _rand(rng, [1, 1, 6, 7])
    _check(q, k, v, mask, np.array([0.7], np.float32))
    _check(*(x.astype(np.float64) for x in (q, k, v)), mask.astype(np.float64), rtol=1e-12, atol=1e-13)
    _check(*(x.astype(np.float16) for x in (q, k, v)), mask.astype(np.float16), rtol=2e-3, atol=2e-3)


def test_sdpa_default_blocks_large_rows(nthreads):
    """Rows longer than a block (several row blocks per head) on the pool."""
    rng = np.random.default_rng(3)
    q, k, v = _rand(rng, [1, 2, 300, 16]), _rand(rng, [1, 2, 1400, 16]), _rand(rng, [1, 2, 1400, 16])
    mask = rng.random([1, 1, 1, 1400]) > 0.1
    mask[..., 0] = True
    _check(q, k, v, mask)


def test_sdpa_fully_masked_row_is_nan_and_empty_shapes(small_blocks):
    rng = np.random.default_rng(4)
    q, k, v = _rand(rng, [1, 1, 3, 4]), _rand(rng, [1, 1, 5, 4]), _rand(rng, [1, 1, 5, 4])
    mask = np.ones((3, 5), np.bool_)
    mask[1] = False
    with np.errstate(invalid="ignore"):
        got = kernel_for("ov.ScaledDotProductAttention")(_node(), q, k, v, mask)
        want = _reference(q, k, v, mask)
    assert np.isnan(got[0, 0, 1]).all() and np.isnan(want[0, 0, 1]).all()
    np.testing.assert_allclose(got[0, 0, [0, 2]], want[0, 0, [0, 2]], rtol=1e-5, atol=1e-6)
    empty = kernel_for("ov.ScaledDotProductAttention")(_node(), q[:, :, :0], k, v)
    assert empty.shape == (1, 1, 0, 4)


def test_blas_on_one_thread_and_run_tasks_runs_all(nthreads):
    from threadpoolctl import threadpool_info

    assert {i["num_threads"] for i in threadpool_info() if i["user_api"] == "blas"} == {1}
    done: list[int] = []
    threads.run_tasks([(done.append, (i,)) for i in range(7)])
    assert sorted(done) == list(range(7))


@pytest.mark.parametrize("value", [0.0, 1.5, -np.inf])
def test_sdpa_one_element_mask(value):
    """A scalar float mask (what converters pass with an explicit scale) and a
    [1, 1, 1, 1] one that raises the rank of 3-D inputs."""
    rng = np.random.default_rng(5)
    q, k, v = _rand(rng, [3, 5, 4]), _rand(rng, [3, 6, 4]), _rand(rng, [3, 6, 4])
    with np.errstate(invalid="ignore"):
        for mask in (np.float32(value), np.full((1, 1, 1, 1), value, np.float32)):
            got = kernel_for("ov.ScaledDotProductAttention")(_node(), q, k, v, mask, np.float32(0.4))
            want = _reference(q, k, v, mask, 0.4)
            assert got.shape == want.shape
            np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)


# --- the f32 softmax as one numba call (attention_jit.softmax_rows) and K^T / V
# copied C-ordered when a head takes several row blocks


@pytest.fixture
def jit_blocks(monkeypatch):
    """Blocks of 512 scores (several row blocks per head: K^T and V copied),
    the numba pass from one score on, no parallel threshold."""
    pytest.importorskip("numba")
    monkeypatch.setattr(attention, "BLOCK_SCORES", 512)
    monkeypatch.setattr(attention, "EXP_ROWS_MIN", 1)
    monkeypatch.setattr(attention, "PARALLEL_MIN_WORK", 0)


@pytest.mark.parametrize("case", list(CASES))
def test_sdpa_jit_softmax_matches_formula(case, nthreads, jit_blocks):
    rng = np.random.default_rng(10)
    sq, sk, sv, sm = CASES[case]
    # odd sizes, and rows long enough for several blocks
    sq, sk, sv = sq[:-2] + [37, sq[-1]], sk[:-2] + [53, sk[-1]], sv[:-2] + [53, sv[-1]]
    q, k, v = _rand(rng, sq), _rand(rng, sk), _rand(rng, sv)
    extra = ()
    if sm is not None:
        sm = [37 if d == 9 or (d == 7 and len(sm) == 2 and not i) else 53 if d in (11, 7) else d
              for i, d in enumerate(sm)]
        mask = rng.random(sm) > 0.3 if case.startswith("bool") else _rand(rng, sm)
        if mask.dtype == np.bool_:
            mask[..., 0] = True
        extra = (mask,)
    _check(q, k, v, *extra)


@pytest.mark.parametrize("l_len,s_len", [(37, 37), (20, 53), (53, 20)])
def test_sdpa_jit_softmax_causal_batch2(l_len, s_len, nthreads, jit_blocks):
    rng = np.random.default_rng(11)
    # K and V as transposed views of one projection (as models feed them)
    kv = _rand(rng, [2, s_len, 2, 3, 16])
    k, v = kv[:, :, 0].transpose(0, 2, 1, 3), kv[:, :, 1].transpose(0, 2, 1, 3)
    q = _rand(rng, [2, 3, l_len, 16])
    _check(q, k, v, causal=True)
    _check(q, k, v, np.float32(0.0), np.float32(0.2))
    _check(*(x.astype(np.float64) for x in (q, k, v)), causal=True, rtol=1e-12, atol=1e-13)


def test_sdpa_jit_softmax_masked_and_nan_rows(jit_blocks):
    rng = np.random.default_rng(12)
    q, k, v = _rand(rng, [1, 2, 9, 8]), _rand(rng, [1, 2, 70, 8]), _rand(rng, [1, 2, 70, 8])
    mask = rng.random((9, 70)) > 0.5
    mask[:, 0] = True
    mask[4] = False  # a fully masked row: NaN
    q[0, 1, 6, 2] = np.nan  # a NaN score row: NaN
    with np.errstate(invalid="ignore"):
        got = kernel_for("ov.ScaledDotProductAttention")(_node(), q, k, v, mask)
        want = _reference(q, k, v, mask)
    nan = np.isnan(want)
    assert nan[0, :, 4].all() and nan[0, 1, 6].all() and nan.sum() == 3 * 8
    np.testing.assert_array_equal(np.isnan(got), nan)
    np.testing.assert_allclose(got[~nan], want[~nan], rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("n", [1, 7, 16, 33, 200])
def test_softmax_rows_accuracy(n):
    attention_jit = pytest.importorskip("xmo.backends.cpu.kernels.attention_jit")
    rng = np.random.default_rng(n)
    s = (rng.standard_normal((5, n)) * 20).astype(np.float32)
    s[1, 1::2] = -np.inf  # masked scores: exactly 0
    s[2, 0] = -200.0  # far below the maximum: 0 (f32 underflow)
    s[2, -1] = 50.0
    # the differences in f32 (as written), their exponentials and softmax in f64
    with np.errstate(invalid="ignore"):
        want = np.exp((s - s.max(axis=1, keepdims=True)).astype(np.float64))
    want /= want.sum(axis=1, keepdims=True)
    got = s.copy()
    attention_jit.softmax_rows(got, np.float32(1.0))
    np.testing.assert_allclose(got, want, rtol=2e-6, atol=1e-37)
    assert (got[1, 1::2] == 0).all() and (got.argmax(axis=1) == s.argmax(axis=1)).all()


def test_softmax_rows_nan_and_inf_rows():
    """The maximum on integer keys: a NaN of either sign, a +inf score and a
    fully masked row give NaN rows; -0.0 and 0.0 are equal."""
    attention_jit = pytest.importorskip("xmo.backends.cpu.kernels.attention_jit")
    s = np.zeros((6, 40), np.float32)
    s[0, 3] = np.nan
    s[1, 5] = -np.nan
    s[1].view(np.int32)[5] |= np.int32(-2**31)  # a NaN with its sign bit set
    s[2, 7] = np.inf
    s[3] = -np.inf
    s[4, ::2] = -0.0
    s[5, :20] = -np.inf
    got = s.copy()
    with np.errstate(invalid="ignore"):
        attention_jit.softmax_rows(got, np.float32(0.5))
    assert np.isnan(got[:4]).all()
    np.testing.assert_allclose(got[4], 1 / 40, rtol=1e-6)
    assert (got[5, :20] == 0).all()
    np.testing.assert_allclose(got[5, 20:], 1 / 20, rtol=1e-6)


# --- small f32 problems as one block over all heads (attention._small)


@pytest.fixture
def small_kernel(monkeypatch):
    """f32 problems of one block on the calling thread by
    :func:`attention._small`; yields the list of its calls' output shapes
    (the route taken)."""
    pytest.importorskip("numba")
    monkeypatch.setattr(attention, "PARALLEL_MIN_WORK", 1 << 40)
    calls: list[tuple[int, ...]] = []
    small = attention._small

    def spy(*args):
        calls.append(args[-1].shape)
        small(*args)

    monkeypatch.setattr(attention, "_small", spy)
    return calls


@pytest.mark.parametrize("case", list(CASES))
def test_sdpa_small_matches_formula(case, small_kernel):
    """The formula's cases (masks broadcast over heads and rows, a 2-D mask,
    grouped-query heads, shared K/V) and vit / whisper_encoder's tiny heads
    within the blocked path's bounds of the f64 formula, and the blocked
    path's values (the same products and softmax; bit for bit on one block)."""
    rng = np.random.default_rng(20)
    sq, sk, sv, sm = CASES[case]
    q, k, v = _rand(rng, sq), _rand(rng, sk), _rand(rng, sv)
    extra = ()
    if sm is not None:
        mask = rng.random(sm) > 0.3 if case.startswith("bool") else _rand(rng, sm)
        if mask.dtype == np.bool_:
            mask[..., 0] = True
        extra = (mask,)
    got = _check(q, k, v, *extra)
    assert len(small_kernel) == 1
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(attention, "BLOCK_SCORES", 40)  # blocks of a few rows
        blocked = kernel_for("ov.ScaledDotProductAttention")(_node(), q, k, v, *extra)
    np.testing.assert_allclose(got, blocked, rtol=1e-6, atol=1e-7)
    for shape in ([2, 4, 17, 8], [1, 8, 50, 8]):
        _check(_rand(rng, shape), _rand(rng, shape), _rand(rng, shape))
    assert len(small_kernel) == 3


@pytest.mark.parametrize("l_len,s_len", [(9, 9), (5, 12), (12, 5)])
def test_sdpa_small_causal_scale_shift(l_len, s_len, small_kernel):
    """Causal (L < S, L > S; the mask ignored), an explicit scale with a
    float mask broadcast over keys, scalar shifts (zero: folded), K and V as
    transposed views of one projection, the batch of K/V broadcast; f64
    stays off it, f16 runs on it in f32."""
    rng = np.random.default_rng(21)
    kv = _rand(rng, [2, s_len, 2, 3, 8])
    k, v = kv[:, :, 0].transpose(0, 2, 1, 3), kv[:, :, 1].transpose(0, 2, 1, 3)
    q = _rand(rng, [2, 3, l_len, 8])
    junk = np.full((l_len, s_len), -1e9, np.float32)
    _check(q, k, v, junk, np.float32(0.3), causal=True)
    _check(q, k, v, causal=True)
    _check(q, k, v, _rand(rng, [1, 1, l_len, 1]), np.array([0.7], np.float32))
    _check(q, k, v, np.float32(0.0), np.float32(0.2))
    _check(q, k[:1], v[:1], np.float32(1.5))
    assert len(small_kernel) == 5
    _check(*(x.astype(np.float64) for x in (q, k, v)), causal=True, rtol=1e-12, atol=1e-13)
    _check(*(x.astype(np.float16) for x in (q, k, v)), causal=True, rtol=2e-3, atol=2e-3)
    assert len(small_kernel) == 6


def test_sdpa_small_nan_rows(small_kernel):
    """A fully masked row and a NaN score row give NaN rows, as the formula."""
    rng = np.random.default_rng(22)
    q, k, v = _rand(rng, [1, 2, 9, 8]), _rand(rng, [1, 2, 70, 8]), _rand(rng, [1, 2, 70, 8])
    mask = rng.random((9, 70)) > 0.5
    mask[:, 0] = True
    mask[4] = False
    q[0, 1, 6, 2] = np.nan
    with np.errstate(invalid="ignore"):
        got = kernel_for("ov.ScaledDotProductAttention")(_node(), q, k, v, mask)
        want = _reference(q, k, v, mask)
    nan = np.isnan(want)
    assert nan.sum() == 3 * 8
    np.testing.assert_array_equal(np.isnan(got), nan)
    np.testing.assert_allclose(got[~nan], want[~nan], rtol=1e-5, atol=1e-6)
    assert len(small_kernel) == 1
