"""The CPU backend's blocked im2col+GEMM convolution and numba MaxPool
against their numpy paths, and the near misses that must not take them."""

from __future__ import annotations

import numpy as np
import pytest

from xmo.backends.cpu import threads
from xmo.backends.cpu.kernels import convolution as conv
from xmo.backends.cpu.kernels import pooling

from conv_paths import numpy_conv

RNG = np.random.default_rng(31)
TOL = {np.float32: dict(rtol=1e-5, atol=1e-4), np.float64: dict(rtol=1e-12, atol=1e-11)}


def _numpy_conv(monkeypatch, x, w, s, d, pb, pe):
    """``grouped_conv`` with every numba kernel off: the window views' GEMM."""
    return numpy_conv(monkeypatch, x, w, s, d, pb, pe, valid_taps=False)


# x, w [1, M, C, Kh, Kw], strides, dilations, pads_begin, pads_end
BLOCKED = [
    ((1, 3, 23, 21), (1, 8, 3, 7, 7), (2, 2), (1, 1), (3, 3), (3, 3)),  # stem-like
    ((2, 5, 13, 11), (1, 7, 5, 3, 3), (1, 1), (1, 1), (1, 1), (1, 1)),  # batch 2
    ((1, 4, 17, 15), (1, 6, 4, 3, 2), (2, 3), (2, 1), (2, 0), (1, 2)),  # odd strides, dilation
    ((1, 3, 9, 10), (1, 4, 3, 3, 3), (1, 2), (1, 1), (5, 4), (6, 3)),  # pads past the kernel
    ((1, 6, 12, 13), (1, 5, 6, 3, 3), (1, 1), (2, 2), (0, 1), (-1, -2)),  # cropping end pads
    ((2, 2, 8, 31), (1, 3, 2, 2, 5), (3, 1), (1, 3), (0, 2), (0, 0)),
]


@pytest.mark.parametrize("xs,ws,s,d,pb,pe", BLOCKED)
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("block_bytes", [1, 1 << 20])
def test_blocked_conv_matches_numpy_path(xs, ws, s, d, pb, pe, dtype, block_bytes, monkeypatch):
    """Row blocks of one output row each (``block_bytes`` 1) or of the whole
    map, split over two threads, give the numpy path's results in a fresh
    C-contiguous array."""
    x = RNG.uniform(-2, 2, xs).astype(dtype)
    w = RNG.uniform(-2, 2, ws).astype(dtype)
    dims = conv.conv_out_dims(xs[2:], ws[3:], s, d, pb, pe)
    monkeypatch.setattr(conv, "BLOCK_MIN_COLUMNS", 1)
    monkeypatch.setattr(conv, "BLOCK_BYTES", block_bytes)
    old = threads.threads()
    threads.set_threads(2)
    try:
        assert conv.blocked_eligible(x, w, dims, pb)
        assert not conv.tap_gemm_preferred(w.shape, s, xs[2:], dims, pb, pe)
        got = conv.blocked_conv(x, w.reshape(ws[1], -1), ws[3:], s, d, pb, dims)
        via = conv.grouped_conv(x, w, s, d, pb, pe)
    finally:
        threads.set_threads(old)
    want = _numpy_conv(monkeypatch, x, w, s, d, pb, pe)
    for out in (got, via):
        assert out.shape == want.shape and out.dtype == want.dtype
        assert out.flags.c_contiguous and out.flags.owndata
        np.testing.assert_allclose(out, want, **TOL[dtype])
    assert not np.shares_memory(got, x)


def test_tap_gemm_only_on_large_maps():
    """Few output channels at stride 1 take the tap-GEMM while its padded map
    is close to the output map; small maps take the im2col GEMM."""
    w = (1, 32, 64, 3, 3)
    assert conv.tap_gemm_preferred(w, (1, 1), (56, 56), (56, 56), (1, 1), (1, 1))
    assert not conv.tap_gemm_preferred(w, (1, 1), (14, 14), (14, 14), (1, 1), (1, 1))
    assert not conv.tap_gemm_preferred(w, (2, 2), (56, 56), (28, 28), (1, 1), (1, 1))
    assert not conv.tap_gemm_preferred((1, 64, 64, 3, 3), (1, 1), (56, 56), (56, 56),
                                       (1, 1), (1, 1))  # as many outputs as inputs


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_tap_gemm_matches_numpy_path(dtype, monkeypatch):
    x = RNG.uniform(-2, 2, (2, 8, 40, 41)).astype(dtype)
    w = RNG.uniform(-2, 2, (1, 3, 8, 3, 3)).astype(dtype)
    args = ((1, 1), (1, 2), (1, 2), (1, 2))
    assert conv.tap_gemm_preferred(w.shape, (1, 1), (40, 41), (40, 41), (1, 2), (1, 2))
    np.testing.assert_allclose(conv.grouped_conv(x, w, *args),
                               _numpy_conv(monkeypatch, x, w, *args), **TOL[dtype])


def test_blocked_near_misses(monkeypatch):
    f32 = np.float32
    x = np.zeros((1, 8, 40, 40), f32)
    w = np.zeros((1, 8, 8, 3, 3), f32)
    dims = (40, 40)
    assert conv.blocked_eligible(x, w, dims, (1, 1))
    assert not conv.blocked_eligible(x, np.zeros((2, 4, 4, 3, 3), f32), dims, (1, 1))  # groups
    assert not conv.blocked_eligible(x, np.zeros((1, 8, 8, 1, 1), f32), dims, (0, 0))  # 1x1
    assert not conv.blocked_eligible(x, w, dims, (-1, 1))  # cropping leading pads
    assert not conv.blocked_eligible(x.astype(np.int32), w.astype(np.int32), dims, (1, 1))
    assert not conv.blocked_eligible(x, w.astype(np.float64), dims, (1, 1))  # mixed dtypes
    assert not conv.blocked_eligible(np.zeros((1, 8, 40), f32), np.zeros((1, 8, 8, 3), f32),
                                     (40,), (1,))  # 1-D
    monkeypatch.setattr(conv, "BLOCK_MIN_COLUMNS", 1601)
    assert not conv.blocked_eligible(x, w, dims, (1, 1))  # few columns: one split GEMM
    monkeypatch.setattr(conv, "_blocked", False)
    monkeypatch.setattr(conv, "BLOCK_MIN_COLUMNS", 1)
    assert not conv.blocked_eligible(x, w, dims, (1, 1))  # no numba


class _Node:
    """The attributes :class:`pooling._Geometry` reads."""

    def __init__(self, **attrs):
        self.attrs = attrs

    def attr(self, name, default=None):
        return self.attrs.get(name, default)


POOLS = [
    dict(kernel=[3, 3], strides=[2, 2], pads_begin=[1, 1], pads_end=[1, 1]),  # resnet
    dict(kernel=[2, 2], strides=[2, 2]),
    dict(kernel=[3, 2], strides=[2, 2], rounding_type="ceil"),
    dict(kernel=[3, 3], strides=[2, 2], rounding_type="ceil_torch", pads_begin=[1, 1],
         pads_end=[1, 1]),
    dict(kernel=[3, 3], strides=[1, 2], dilations=[2, 3], pads_begin=[2, 1], pads_end=[0, 2]),
    dict(kernel=[3, 3], strides=[2, 2], auto_pad="same_lower"),
    dict(kernel=[2, 3], strides=[3, 1], pads_begin=[1, 2], pads_end=[2, 2],
         rounding_type="ceil"),  # a window of end padding only: -inf
    dict(kernel=[2, 1], strides=[2, 1]),  # crnn: the input rows read in place
    dict(kernel=[2, 1], strides=[2, 1], pads_begin=[0, 1], pads_end=[1, 1]),  # -inf columns
    dict(kernel=[3, 3], strides=[1, 1], pads_begin=[1, 1], pads_end=[1, 1]),  # stride 1
]


@pytest.mark.parametrize("attrs", POOLS)
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("shape", [(2, 3, 9, 11), (1, 5, 12, 7), (1, 2, 5, 75)])
def test_max_pool_kernel_matches_numpy_path(attrs, dtype, shape, monkeypatch):
    """Values (NaN and -inf inputs included), split over two threads."""
    x = RNG.uniform(-3, 3, shape).astype(dtype)
    x[0, 0, 1, 2] = np.nan
    x[0, -1, 3, 3] = -np.inf
    node = _Node(**attrs)
    g = pooling._Geometry(node, x)
    monkeypatch.setattr(pooling, "POOL_TAPS_PER_TASK", 1)
    old = threads.threads()
    threads.set_threads(2)
    try:
        got = pooling.max_pool_2d(x, g)
    finally:
        threads.set_threads(old)
    want = g.reduce(x, -np.inf, np.maximum)
    assert got.dtype == x.dtype and got.flags.c_contiguous
    np.testing.assert_array_equal(got, want)
    with monkeypatch.context() as m:  # the kernel op picks it, the numpy path without numba
        m.setattr(pooling, "_pool", False)
        np.testing.assert_array_equal(pooling._max_pool(node, x, with_indices=False), want)
    np.testing.assert_array_equal(pooling._max_pool(node, x, with_indices=False), want)


def test_max_pool_near_misses():
    """Integer, 1-D and 3-D pools and pools with indices keep the numpy path."""
    node = _Node(kernel=[2, 2], strides=[2, 2])
    xi = RNG.integers(-9, 9, (1, 2, 6, 6)).astype(np.int32)
    got = pooling._max_pool(node, xi, with_indices=False)
    assert got.dtype == np.int32
    np.testing.assert_array_equal(got, xi.reshape(1, 2, 3, 2, 3, 2).max(axis=(3, 5)))
    x3 = RNG.uniform(size=(1, 2, 4, 4, 4)).astype(np.float32)
    node3 = _Node(kernel=[2, 2, 2], strides=[2, 2, 2])
    np.testing.assert_array_equal(pooling._max_pool(node3, x3, with_indices=False),
                                  x3.reshape(1, 2, 2, 2, 2, 2, 2, 2).max(axis=(3, 5, 7)))
