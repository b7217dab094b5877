"""The numba row kernels (last-axis Softmax and MVN) against numpy formulas."""

from __future__ import annotations

import numpy as np
import pytest





@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_softmax_rows(rk, dtype):
    x = np.random.default_rng(0).normal(size=(7, 33)).astype(dtype) * 5
    x[3, 4] = np.nan
    out = np.empty_like(x)
    rk.softmax(x, out)
    e = np.exp(x - x.max(axis=1, keepdims=True))
    ref = e / e.sum(axis=1, keepdims=True)
    np.testing.assert_allclose(out, ref, rtol=1e-6 if dtype == np.float32 else 1e-13)
    assert np.isnan(out[3]).all() and not np.isnan(np.delete(out, 3, axis=0)).any()


@pytest.mark.parametrize("inside", [True, False])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_mvn_rows(rk, dtype, inside):
    x = (np.random.default_rng(1).normal(size=(5, 48)) * 3 + 2).astype(dtype)
    eps = 1e-3
    out = np.empty_like(x)
    rk.mvn(x, eps, inside, out)
    y = x - x.mean(axis=1, keepdims=True)
    var = (y * y).mean(axis=1, keepdims=True)
    ref = y / (np.sqrt(var + eps) if inside else np.sqrt(var) + eps)
    np.testing.assert_allclose(out, ref, rtol=1e-5 if dtype == np.float32 else 1e-12, atol=1e-6)


@pytest.mark.parametrize("n", [1, 7, 64, 1500])
def test_softmax_rows_f32_long_and_infinite(rk, n):
    """f32 rows (the vectorised exponential): long rows, -inf entries (exact
    zeros), rows with +inf or all -inf (NaN, as the formula gives)."""
    x = (np.random.default_rng(2).normal(size=(6, n)) * 20).astype(np.float32)
    x[1, 0] = -np.inf
    x[2, -1] = 80.0  # exp(80 - max) on the other side of the range
    x[4, :] = -np.inf
    x[5, 0] = np.inf
    out = np.empty_like(x)
    rk.softmax(x, out)
    with np.errstate(invalid="ignore"):
        e = np.exp((x - x.max(axis=1, keepdims=True)).astype(np.float64))
        ref = e / e.sum(axis=1, keepdims=True)
    np.testing.assert_allclose(out[:4], ref[:4], rtol=1e-6, atol=1e-30)
    assert np.isnan(out[4]).all() and np.isnan(out[5, 0])
    if n > 1:
        assert out[1, 0] == 0.0



def test_row_max_f32_integer_keys():
    """The f32 row maximum on integer keys: exact on ordinary rows, NaN when
    a NaN of either sign is there, -inf for an empty row, -0.0 below 0.0;
    the Softmax row kernel gives a NaN row for a negative NaN too."""
    from xmo.backends.cpu.kernels import rows_jit

    rng = np.random.default_rng(3)
    def row_max(row):
        return rows_jit.row_max_f32(row.reshape(1, -1).view(np.int32), 0)

    for n in (1, 5, 17, 100, 1000):
        x = (rng.standard_normal((20, n)) * 100).astype(np.float32)
        keys = x.view(np.int32)
        assert [rows_jit.row_max_f32(keys, r) for r in range(20)] == list(x.max(axis=1))
    neg_nan = np.array([1.0, np.nan, 3.0], np.float32)
    neg_nan.view(np.int32)[1] |= np.int32(-2**31)
    cases = {(-np.inf, -np.inf): -np.inf, (-3.0, -2.0): -2.0, (np.inf, 1.0): np.inf,
             (-np.inf, -1e30): -1e30, (-1e-45, -2e-45): -1e-45}
    for row, want in cases.items():
        assert row_max(np.array(row, np.float32)) == np.float32(want)
    assert row_max(np.zeros(0, np.float32)) == -np.inf
    zero = row_max(np.array([-0.0, 0.0, -0.0], np.float32))
    assert zero == 0 and not np.signbit(zero)
    assert np.isnan(row_max(np.array([np.nan, 1.0], np.float32)))
    assert np.isnan(row_max(neg_nan))
    out = np.empty((1, 3), np.float32)
    rows_jit.softmax(neg_nan.reshape(1, 3), out)
    assert np.isnan(out).all()


def test_row_kernels_tiny_rows(rk):
    """Many short rows (attention rows of 8-64, a few hundred of them: the
    kernels loop over the rows inside one call, in blocks): Softmax (the row
    kernel, f32 and f64, and attention's) against the formula, with NaN,
    +inf and all -inf rows; bias_act's affine part with constants per
    column and per row (numpy's roundings exactly) and Relu / Gelu after it."""
    from xmo.backends.cpu.kernels import attention_jit
    from xmo.backends.cpu.kernels.rows import ACT_GELU_ERF, ACT_NONE, ACT_RELU

    rng = np.random.default_rng(5)
    for rows, n in ((1, 1), (3, 8), (48, 12), (200, 12), (24, 32), (130, 17), (300, 64), (5, 700)):
        for dtype in (np.float32, np.float64):
            x = (rng.standard_normal((rows, n)) * 6).astype(dtype)
            if rows > 3:
                x[1, n // 2] = np.nan
                x[2, 0] = np.inf
                x[3] = -np.inf
            bad = np.zeros(rows, bool)
            bad[1:4] = rows > 3
            out = np.empty_like(x)
            rk.softmax_rows(x, out, dtype == np.float32)
            with np.errstate(invalid="ignore"):
                e = np.exp((x - x.max(axis=1, keepdims=True)).astype(np.float64))
                ref = e / e.sum(axis=1, keepdims=True)
            tol = 1e-6 if dtype == np.float32 else 1e-13
            np.testing.assert_allclose(out[~bad], ref[~bad], rtol=tol, atol=1e-30)
            assert np.isnan(out[bad]).all()
            if dtype == np.float32:
                s = x * np.float32(0.5)
                attention_jit.softmax_rows(s, np.float32(2.0))
                np.testing.assert_allclose(s[~bad], ref[~bad], rtol=2e-5, atol=1e-30)
                assert np.isnan(s[bad]).all()
            for period in (0, 3):
                size = n if period == 0 else period
                a = rng.standard_normal(size).astype(dtype)
                b = rng.standard_normal(size).astype(dtype)
                shape = (1, n) if period == 0 else (-1, 1)
                ca = a.reshape(shape) if period == 0 else np.resize(a, rows).reshape(shape)
                cb = b.reshape(shape) if period == 0 else np.resize(b, rows).reshape(shape)
                want = x * ca + cb
                for act in (ACT_NONE, ACT_RELU):
                    y = np.empty_like(x)
                    prm = np.array([act, 0, 0, dtype == np.float32, np.finfo(dtype).tiny])
                    rk.bias_act(x.reshape(-1), y.reshape(-1), a, b, period, prm, n, 0, rows)
                    np.testing.assert_array_equal(y, want if act == ACT_NONE else np.where(want < 0, 0, want))
            if dtype == np.float32:
                y = x.copy()
                none = np.empty(0, dtype)
                prm = np.array([ACT_GELU_ERF, 0, 0, 1, np.finfo(dtype).tiny])
                rk.bias_act(y.reshape(-1), y.reshape(-1), none, b, 3, prm, n, 0, rows)
                v = (x + np.resize(b, rows).reshape(-1, 1)).astype(np.float64)
                from math import erf
                with np.errstate(invalid="ignore"):
                    ref = 0.5 * v * (1 + np.vectorize(erf)(v / np.sqrt(2)))
                np.testing.assert_allclose(y, ref, rtol=2e-6, atol=1e-6)  # (the formula cancels in the tail)

def test_erf_rows_exact_to_f32_rounding():
    import math

    from xmo.backends.cpu.kernels.activations import erf

    z = np.concatenate([np.linspace(-6, 6, 200_001, dtype=np.float32),
                        np.array([np.inf, -np.inf, np.nan, 0.0, -0.0, 1e-30], np.float32)])
    got = erf(z)
    assert got.dtype == np.float32
    ref = np.array([math.erf(float(v)) for v in z[:-6:7]])
    assert np.abs(got[:-6:7] - ref).max() <= 6e-8  # half an ulp below 1 is 3e-8
    np.testing.assert_array_equal(got[-6:-4], [1, -1])
    assert np.isnan(got[-4]) and got[-3] == 0 and np.signbit(got[-2]) and got[-1] == np.float32(1.1283792e-30)
    # f64 keeps math.erf
    np.testing.assert_allclose(erf(z[:-6:1000].astype(np.float64)), [math.erf(float(v)) for v in z[:-6:1000]],
                               rtol=1e-15, atol=1e-16)


def test_bias_act_rows_split_over_threads(rk):
    from xmo.backends.cpu import threads
    from xmo.backends.cpu.kernels.rows import ACT_GELU_ERF, ACT_NONE, run_rows

    x = np.random.default_rng(2).normal(size=(300, 257)).astype(np.float32)
    a = np.random.default_rng(3).normal(size=257).astype(np.float32)
    b = np.random.default_rng(4).normal(size=257).astype(np.float32)
    none = np.empty(0, np.float32)
    try:
        threads.set_threads(2)
        y = x.copy()
        run_rows(rk.bias_act, 300, 257, y.reshape(-1), y.reshape(-1), a, b, 0, np.array([ACT_NONE, 0, 0, 1, 1e-38]), 257)
        np.testing.assert_array_equal(y, x * a + b)  # the same f32 roundings as numpy
        y = x.copy()
        run_rows(rk.bias_act, 300, 257, y.reshape(-1), y.reshape(-1), none, none, 0, np.array([ACT_GELU_ERF, 0, 0, 1, 1e-38]), 257)
    finally:
        threads.set_threads(None)
    import math

    want = np.array([0.5 * v * (1 + math.erf(v / math.sqrt(2))) for v in x.astype(np.float64).ravel()])
    np.testing.assert_allclose(y.ravel(), want, rtol=1e-6, atol=1e-7)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_transpose_block_whole_blocks_and_edges(rk, dtype):
    """``rows_jit.transpose_block`` (8x8 blocks by ``transpose8``'s shuffles,
    the edges one value at a time) against numpy's transpose, at offsets and
    strides inside larger arrays (the rest left alone)."""
    import numba

    from xmo.backends.cpu.kernels import rows_jit

    @numba.njit
    def run(src, s0, ss, dst, d0, ds, nr, nc):
        rows_jit.transpose_block(src, s0, ss, dst, d0, ds, nr, nc)

    rng = np.random.default_rng(4)
    for nr, nc in [(8, 8), (16, 24), (1, 1), (7, 9), (13, 21), (40, 3), (9, 64)]:
        ss, ds = nc + 5, nr + 3
        src = rng.standard_normal(3 + nr * ss).astype(dtype)
        dst = np.full(2 + nc * ds, -7, dtype)
        run(src, 3, ss, dst, 2, ds, nr, nc)
        block = src[3:3 + nr * ss].reshape(nr, ss)[:, :nc]
        got = dst[2:2 + nc * ds].reshape(nc, ds)
        np.testing.assert_array_equal(got[:, :nr], block.T)
        assert (got[:, nr:] == -7).all() and (dst[:2] == -7).all()


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("period", [0, 5])
def test_bias_act_cols_is_bias_act_on_the_block(rk, dtype, period):
    """``bias_act_cols`` (the epilogue of a block of a product's output, in
    place) gives bit for bit what ``bias_act`` gives on the block copied out,
    for every activation, constants per column (the block's columns) and per
    row, rows longer and shorter than one chunk; nothing outside the block
    changes."""
    from xmo.backends.cpu.kernels import rows

    rng = np.random.default_rng(7)
    acts = [v for k, v in vars(rows).items() if k.startswith("ACT_")]
    assert len(acts) == 13
    for (nrows, ld), (j0, j1), (r0, r1) in [((9, 700), (3, 650), (2, 9)), ((40, 64), (32, 45), (0, 40)),
                                           ((6, 1030), (0, 1030), (1, 3))]:
        x = (rng.standard_normal((nrows, ld)) * 4).astype(dtype)
        x[r0, j0] = np.nan
        cols = ld if period == 0 else period
        a = rng.standard_normal(cols).astype(dtype)
        b = rng.standard_normal(cols).astype(dtype)
        ab = (a[j0:j1], b[j0:j1]) if period == 0 else (a, b)
        for act in acts:
            if act == rows.ACT_GELU_ERF and dtype == np.float64:
                continue  # the plans give Gelu no f64 rows
            prm = np.array([act, 0.75, 1.25, dtype == np.float32, np.finfo(dtype).tiny])
            block = x[:, j0:j1].copy()
            rk.bias_act(block.reshape(-1), block.reshape(-1), *ab, period, prm, j1 - j0, r0, r1)
            got = x.copy()
            rk.bias_act_cols(got.reshape(-1), ld, j0, j1, r0, r1, a, b, period, prm)
            want = x.copy()
            want[r0:r1, j0:j1] = block[r0:r1]
            np.testing.assert_array_equal(got, want, err_msg=f"act {act}")
