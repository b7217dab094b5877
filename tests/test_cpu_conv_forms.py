"""The CPU backend's convolution forms against its numpy im2col path: the
one-pass numba im2col, the patch-embedding form,
and the near misses that must not take them."""

from __future__ import annotations

import numpy as np
import pytest

from xmo.backends.cpu.kernels import convolution as conv
from xmo.backends.cpu.kernels import grouped

from conv_paths import numpy_conv

RNG = np.random.default_rng(29)
TOL = {np.float32: dict(rtol=1e-5, atol=1e-5), np.float64: dict(rtol=1e-12, atol=1e-12)}


def _arrays(xs, ws, dtype):
    return (RNG.uniform(-2, 2, xs).astype(dtype), RNG.uniform(-2, 2, ws).astype(dtype))


def _numpy_path(monkeypatch, x, w, s, d, pb, pe):
    """``grouped_conv`` with every numba kernel and the patch form off."""
    return numpy_conv(monkeypatch, x, w, s, d, pb, pe)


def _check(got, want, dtype):
    assert got.shape == want.shape and got.dtype == want.dtype
    assert got.flags.c_contiguous
    np.testing.assert_allclose(got, want, **TOL[dtype])


IM2COL = [
    ((1, 3, 11, 10), (1, 4, 3, 3, 3), (2, 2), (1, 1), (1, 0), (0, 1)),
    ((2, 3, 16, 15), (1, 5, 3, 3, 3), (2, 2), (1, 1), (1, 1), (1, 1)),
    ((1, 8, 7, 6), (2, 3, 4, 3, 3), (1, 1), (1, 1), (1, 1), (1, 1)),
    ((1, 6, 13, 12), (3, 2, 2, 3, 2), (3, 2), (2, 3), (4, 0), (-2, 3)),
    ((2, 4, 9, 9), (1, 3, 4, 5, 5), (2, 1), (1, 1), (6, 6), (6, 6)),
]


@pytest.mark.parametrize("xs,ws,s,d,pb,pe", IM2COL)
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_im2col_matches_numpy_path(xs, ws, s, d, pb, pe, dtype, monkeypatch):
    """The one-pass numba im2col (padding written as zeros, pads larger than
    the kernel, negative trailing pads) gives the window views' matrix."""
    x, w = _arrays(xs, ws, dtype)
    dims = conv.conv_out_dims(xs[2:], ws[3:], s, d, pb, pe)
    assert conv.im2col_eligible(x, pb)
    cols = conv.im2col(x, ws[3:], s, d, pb, dims)
    want = conv.window_views(conv._pad_crop(x, pb, pe), ws[3:], s, d, dims)
    np.testing.assert_array_equal(cols, want.reshape(cols.shape))
    monkeypatch.setattr(conv, "VALID_TAPS_MAX_SHARE", -1.0)  # the GEMM paths only
    monkeypatch.setattr(conv, "DIRECT_MAX_GROUPED_PIXELS", 0)
    monkeypatch.setattr(grouped, "GROUP_MAX_CHANNELS", 0)
    _check(conv.grouped_conv(x, w, s, d, pb, pe), _numpy_path(monkeypatch, x, w, s, d, pb, pe),
           dtype)


PATCHES = [
    ((2, 3, 16, 16), (1, 4, 3, 4, 4)),
    ((1, 3, 17, 19), (1, 5, 3, 4, 5)),  # the rows / columns past the last patch dropped
    ((2, 6, 9, 8), (3, 2, 2, 3, 2)),  # grouped
    ((1, 2, 6, 7), (1, 3, 2, 6, 1)),
]


@pytest.mark.parametrize("xs,ws", PATCHES)
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_patches_match_numpy_path(xs, ws, dtype, monkeypatch):
    x, w = _arrays(xs, ws, dtype)
    k = ws[3:]
    assert conv.patch_eligible(xs, k, k, (1, 1), (0, 0), (0, 0))
    _check(conv.grouped_conv(x, w, k, (1, 1), (0, 0), (0, 0)),
           _numpy_path(monkeypatch, x, w, k, (1, 1), (0, 0), (0, 0)), dtype)


@pytest.mark.parametrize("shape,k,s,d,pb,pe", [
    ((1, 3, 16, 16), (4, 4), (4, 4), (1, 1), (1, 0), (0, 0)),  # padded
    ((1, 3, 16, 16), (4, 4), (4, 4), (2, 1), (0, 0), (0, 0)),  # dilated
    ((1, 3, 16, 16), (4, 4), (2, 2), (1, 1), (0, 0), (0, 0)),  # overlapping windows
    ((1, 3, 16, 16), (4, 4), (4, 4), (1, 1), (0, 0), (0, -1)),  # cropped
    ((1, 3, 16, 16), (1, 1), (1, 1), (1, 1), (0, 0), (0, 0)),  # pointwise
    ((1, 3, 16), (4,), (4,), (1,), (0,), (0,)),  # 1-D
])
def test_patch_near_misses(shape, k, s, d, pb, pe):
    assert not conv.patch_eligible(shape, k, s, d, pb, pe)


def test_im2col_near_misses():
    f32 = np.float32
    x = np.zeros((1, 8, 40, 40), f32)
    assert conv.im2col_eligible(x, (1, 1))
    assert not conv.im2col_eligible(x, (-1, 0))  # cropping pads: the numpy path
    assert not conv.im2col_eligible(x.astype(np.int32), (1, 1))
    assert not conv.im2col_eligible(np.zeros((1, 8, 40), f32), (1,))  # 1-D


@pytest.mark.parametrize("xs,ws,s,d,p", [
    ((1, 8, 7, 9), (1, 3, 8, 3, 3), (1, 1), (1, 1), (1, 1)),  # tap-GEMM
    ((1, 8, 30, 31), (1, 3, 8, 3, 3), (1, 1), (1, 1), (1, 1)),  # tap-GEMM (a large map)
    ((1, 8, 6, 7), (1, 4, 8, 3, 3), (1, 1), (4, 5), (4, 5)),  # valid taps
    ((1, 4, 9, 30), (4, 1, 1, 3, 3), (1, 1), (1, 1), (1, 1)),  # flat
    ((1, 4, 9, 9), (4, 1, 1, 3, 3), (2, 2), (1, 1), (1, 1)),  # direct
    ((1, 3, 12, 12), (1, 4, 3, 3, 3), (2, 2), (1, 1), (1, 1)),  # im2col
    ((1, 3, 12, 12), (1, 4, 3, 4, 4), (4, 4), (1, 1), (0, 0)),  # patches
    ((1, 6, 7, 9), (1, 5, 6, 1, 1), (2, 3), (1, 1), (0, 0)),  # strided pointwise
])
def test_every_form_returns_a_fresh_contiguous_array(xs, ws, s, d, p):
    """Fused bias / activation epilogues run in a convolution's result."""
    x, w = _arrays(xs, ws, np.float32)
    out = conv.grouped_conv(x, w, s, d, p, p)
    assert out.flags.c_contiguous and out.flags.owndata or out.base is not None and \
        out.base.flags.c_contiguous and out.base.size == out.size
    assert not np.shares_memory(out, x) and not np.shares_memory(out, w)
