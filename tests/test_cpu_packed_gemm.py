"""The packed-panel f32 product (kernels/packed.py, kernels/gemm_jit.py)."""

from __future__ import annotations

import numpy as np
import pytest

from xmo.backends.cpu import threads
from xmo.backends.cpu.kernels import packed
from xmo.backends.cpu.kernels.packed import PackedMatrix, pack, pack_rows, panel_kernels

pytestmark = pytest.mark.skipif(panel_kernels() is None, reason="numba missing")

RNG = np.random.default_rng(7)


@pytest.fixture
def thread_count():
    """``threads.set_threads`` for the test; the count before put back after."""
    before = threads.threads()
    yield threads.set_threads
    threads.set_threads(before)


def _check(m: int, k: int, n: int) -> np.ndarray:
    a = RNG.standard_normal((m, k)).astype(np.float32)
    b = RNG.standard_normal((k, n)).astype(np.float32)
    got = pack(b).matmul(a)
    ref = a.astype(np.float64) @ b.astype(np.float64)
    # f32 sums of k products: each a chain of fused multiply-adds
    bound = 4 * k * np.finfo(np.float32).eps * (np.abs(a).astype(np.float64) @ np.abs(b))
    assert got.shape == (m, n) and got.dtype == np.float32
    assert np.all(np.abs(got - ref) <= bound + 1e-30), (m, k, n)
    return got


# tile-height remainders (1..MR-1 rows), panels past N's end, K in one
# chunk and in several (KC = 256: a chunked K from 513), split in rows or
# in panels over the threads
@pytest.mark.parametrize("m,k,n", [
    (1, 1, 1), (3, 5, 7), (8, 32, 32), (9, 33, 31), (17, 100, 65), (64, 64, 64),
    (197, 192, 192), (5, 300, 1000), (3, 1000, 70), (21, 1300, 97), (49, 600, 512),
    (300, 520, 40),
])
def test_product_matches_f64(nthreads, m, k, n):
    _check(m, k, n)


def test_strided_operands_and_output(nthreads):
    m, k, n = 13, 700, 45
    a = RNG.standard_normal((m, k + 3)).astype(np.float32)[:, :k]
    b = RNG.standard_normal((k, n)).astype(np.float32)
    pm = pack(b)
    want = pm.matmul(np.ascontiguousarray(a))
    out = np.full((m, n + 5), 7.0, np.float32)
    pm.matmul(a, out[:, :n])
    assert np.array_equal(out[:, :n], want)
    assert np.all(out[:, n:] == 7.0)  # nothing written past the view's columns


def test_same_result_on_any_thread_count(thread_count):
    a = RNG.standard_normal((100, 600)).astype(np.float32)
    b = RNG.standard_normal((600, 300)).astype(np.float32)
    pm = pack(b)
    thread_count(1)
    one = pm.matmul(a)
    thread_count(2)
    two = pm.matmul(a)
    assert np.array_equal(one, two)  # each sum is one chain in k order


def test_special_values_propagate():
    a = np.ones((9, 40), np.float32)
    b = np.ones((40, 33), np.float32)
    a[2, 5] = np.nan
    b[7, 30] = np.inf
    got = pack(b).matmul(a)
    assert np.isnan(got[2]).all()
    assert np.isinf(got[np.arange(9) != 2, 30]).all()
    assert (got[np.arange(9) != 2][:, :30] == 40).all()


def test_pack_refuses_what_it_does_not_multiply():
    assert pack(np.ones((3, 4), np.float64)) is None
    assert pack(np.ones((3, 4, 5), np.float32)) is None
    assert pack(np.ones((0, 4), np.float32)) is None
    pm = pack(np.ones((4, 6), np.float32))
    assert isinstance(pm, PackedMatrix) and pm.nbytes >= 4 * 6 * 4
    with pytest.raises(ValueError, match=r"\[M, 4\]"):
        pm.matmul(np.ones((2, 5), np.float32))
    with pytest.raises(ValueError, match="f32"):
        pm.matmul(np.ones((2, 4), np.float64))


def test_matrix_vector_product_of_a_large_matrix_splits_in_panels(monkeypatch, thread_count):
    """One row times a matrix of at least ``SPLIT_BYTES`` packed (lowered
    here): panel ranges on every thread, the same values as one call."""
    from xmo.backends.cpu.kernels import packed

    a = RNG.standard_normal((1, 300)).astype(np.float32)
    b = RNG.standard_normal((300, 200)).astype(np.float32)
    pm = pack(b)
    thread_count(2)
    whole = pm.matmul(a)
    assert len(pm.tasks(a, np.empty((1, 200), np.float32))) == 1
    monkeypatch.setattr(packed, "SPLIT_BYTES", pm.nbytes)
    tasks = pm.tasks(a, np.empty((1, 200), np.float32))
    p = pm.panels.shape[0]  # 7 panels of 32 columns with AVX-512, 13 of 16 else
    assert [t[1][5:] for t in tasks] == [(0, p // 2), (p // 2, p)]
    split = pm.matmul(a)
    assert np.array_equal(split, whole)


# the same shapes' left operand packed in tiles (gemm_jit.pack_tiles, as
# panel_conv binds its filters): the same sums bit for bit, whole and in row
# ranges starting at tile bounds
@pytest.mark.parametrize("m,k,n", [(1, 3, 5), (9, 33, 31), (17, 100, 65), (49, 600, 512), (21, 1300, 97)])
def test_left_operand_packed_in_tiles(m, k, n):
    jit = panel_kernels()
    a = RNG.standard_normal((m, k)).astype(np.float32)
    panels = pack(RNG.standard_normal((k, n)).astype(np.float32)).panels
    tiles = jit.pack_tiles(a)
    assert tiles.shape == (-(-m // jit.MR), k, jit.MR)
    assert np.array_equal(tiles.transpose(0, 2, 1).reshape(-1, k)[:m], a)
    assert not tiles.transpose(0, 2, 1).reshape(-1, k)[m:].any()  # zero rows past M
    p = panels.shape[0]
    want = np.full((m, n), np.nan, np.float32)
    jit.gemm_panels(a, panels, want, 0, m, 0, p)
    got = np.full((m, n), np.nan, np.float32)
    jit.gemm_panels(tiles, panels, got, 0, m, 0, p)
    np.testing.assert_array_equal(got, want)
    cut = min(m, jit.MR)  # two row ranges, the second from a tile bound
    got = np.full((m, n), np.nan, np.float32)
    jit.gemm_panels(tiles, panels, got, cut, m, 0, p)
    jit.gemm_panels(tiles, panels, got, 0, cut, 0, p)
    np.testing.assert_array_equal(got, want)


def test_tiles_share_the_packing_budget(monkeypatch):
    """``pack_rows`` declines what ``pack`` would (not f32 2-D, empty, over
    the budget); live tiles count until freed; a convolution plan whose
    filters are declined reads them in place (the same values)."""
    from xmo.backends.cpu.kernels import panel_conv as pc

    assert pack_rows(np.ones((3, 4), np.float64)) is None
    assert pack_rows(np.ones((0, 4), np.float32)) is None
    before = packed.live_packed_bytes()
    rows = pack_rows(np.ones((9, 5), np.float32))
    mr = panel_kernels().MR
    assert packed.live_packed_bytes() - before == 4 * 5 * 2 * mr and rows.tiles.shape == (2, 5, mr)
    del rows
    assert packed.live_packed_bytes() == before
    x = RNG.standard_normal((1, 4, 30, 30)).astype(np.float32)
    w = RNG.standard_normal((6, 4, 3, 3)).astype(np.float32)
    tiled = pc.dense_conv_plan(x, w, (1, 1), (1, 1), (1, 1), (30, 30))(x)
    monkeypatch.setattr(packed, "MAX_PACKED_BYTES", 64)
    assert pack_rows(np.ones((9, 5), np.float32)) is None
    np.testing.assert_array_equal(pc.dense_conv_plan(x, w, (1, 1), (1, 1), (1, 1), (30, 30))(x), tiled)
