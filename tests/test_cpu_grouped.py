"""The small-group convolution kernel (kernels/grouped.py): against the numpy
im2col path (group widths 2-32, strides, pads, dilations, batch 2, odd maps,
f32/f64), its task split, its fused epilogue against the two-step result, and
the near misses that must not take it."""

from __future__ import annotations

import numpy as np
import pytest

from xmo.backends.cpu.kernels import convolution as conv
from xmo.backends.cpu.kernels import grouped
from xmo.backends.cpu.kernels.rows import ACT_NONE, ACT_RELU, ACT_SWISH, row_kernels

from conv_paths import numpy_conv

pytest.importorskip("numba")

RNG = np.random.default_rng(30)
TOL = {np.float32: dict(rtol=1e-5, atol=1e-5), np.float64: dict(rtol=1e-12, atol=1e-12)}


def _arrays(xs, ws, dtype):
    return (RNG.uniform(-2, 2, xs).astype(dtype), RNG.uniform(-2, 2, ws).astype(dtype))


def _numpy_path(monkeypatch, x, w, s, d, pb, pe):
    """``grouped_conv`` with every numba kernel and the patch form off."""
    return numpy_conv(monkeypatch, x, w, s, d, pb, pe)


# x, w [G, Mg, Cg, Kh, Kw], strides, dilations, pads_begin, pads_end
CASES = [
    ((1, 16, 14, 14), (2, 8, 8, 3, 3), (1, 1), (1, 1), (1, 1), (1, 1)),  # RegNet width 8
    ((2, 16, 15, 13), (2, 8, 8, 3, 3), (2, 2), (1, 1), (1, 1), (1, 1)),  # batch 2, odd map, s2
    ((1, 8, 22, 21), (4, 2, 2, 3, 3), (1, 2), (2, 1), (2, 1), (1, 1)),  # width 2, dilated
    ((1, 12, 17, 19), (3, 6, 4, 3, 3), (2, 1), (1, 1), (0, 1), (1, 0)),  # Mg 6: a partial block
    ((1, 32, 9, 11), (2, 16, 16, 3, 3), (1, 1), (1, 1), (1, 1), (1, 1)),  # width 16
    ((1, 64, 12, 10), (2, 32, 32, 3, 3), (1, 1), (1, 1), (1, 1), (1, 1)),  # width 32
    ((1, 9, 15, 17), (3, 4, 3, 5, 3), (3, 2), (1, 2), (2, 0), (2, 2)),  # stride 3, 5x3
    ((2, 8, 12, 10), (2, 5, 4, 2, 4), (1, 1), (1, 3), (0, 2), (1, 0)),  # 2x4, Mg 5
    ((1, 8, 10, 9), (4, 2, 2, 1, 1), (2, 2), (1, 1), (0, 0), (0, 0)),  # 1x1, strided
    ((1, 12, 7, 7), (3, 4, 4, 3, 3), (1, 1), (2, 2), (3, 3), (3, 3)),  # pads past the kernel
    ((1, 8, 40, 38), (4, 2, 2, 3, 3), (1, 1), (1, 1), (1, 1), (1, 1)),  # 4 blocks of rows
    ((1, 16, 70, 66), (2, 8, 8, 3, 3), (2, 2), (1, 1), (1, 0), (0, 1)),  # 3 blocks, s2
]


@pytest.mark.parametrize("xs,ws,s,d,pb,pe", CASES)
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_small_group_conv_matches_numpy_path(xs, ws, s, d, pb, pe, dtype, monkeypatch):
    x, w = _arrays(xs, ws, dtype)
    dims = conv.conv_out_dims(xs[2:], ws[3:], s, d, pb, pe)
    monkeypatch.setattr(grouped, "MACS_PER_TASK", 1)  # groups split over tasks
    assert grouped.small_group_preferred(x, w, dims, pb)
    got = conv.grouped_conv(x, w, s, d, pb, pe)
    want = _numpy_path(monkeypatch, x, w, s, d, pb, pe)
    assert got.shape == want.shape and got.dtype == want.dtype and got.flags.c_contiguous
    np.testing.assert_allclose(got, want, **TOL[dtype])


def test_split_is_exact(monkeypatch):
    """(image, group) pairs split across tasks give the one-task result bit
    for bit."""
    x, w = _arrays((2, 24, 13, 12), (3, 8, 8, 3, 3), np.float32)
    dims = conv.conv_out_dims((13, 12), (3, 3), (2, 2), (1, 1), (1, 1), (1, 1))
    monkeypatch.setattr(grouped, "MACS_PER_TASK", 10**12)
    whole = grouped.small_group_conv(x, w, (2, 2), (1, 1), (1, 1), dims)
    monkeypatch.setattr(grouped, "MACS_PER_TASK", 1)
    np.testing.assert_array_equal(grouped.small_group_conv(x, w, (2, 2), (1, 1), (1, 1), dims),
                                  whole)


def _prm(act, dtype, p0=0.0):
    return np.array([act, p0, 0.0, dtype == np.float32, np.finfo(dtype).tiny], np.float64)


@pytest.mark.parametrize("act,scale,bias", [
    (ACT_RELU, False, True),  # Conv + bias + Relu
    (ACT_SWISH, True, True),  # scale, bias, Swish
    (ACT_NONE, True, False),  # scale only
    (ACT_RELU, False, False),  # activation only
])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_epilogue_matches_two_steps(act, scale, bias, dtype, monkeypatch):
    """``epi`` on each finished group equals the convolution followed by
    ``bias_act`` over the whole output (per-channel constants: period C)."""
    n, c = 2, 24
    x, w = _arrays((n, c, 11, 13), (3, 8, 8, 3, 3), dtype)
    dims = conv.conv_out_dims((11, 13), (3, 3), (1, 1), (1, 1), (1, 1), (1, 1))
    none = np.empty(0, dtype)
    a = RNG.uniform(0.5, 1.5, c).astype(dtype) if scale else none
    b = RNG.uniform(-1, 1, c).astype(dtype) if bias else none
    prm = _prm(act, dtype, 1.0)
    monkeypatch.setattr(grouped, "MACS_PER_TASK", 1)
    got = grouped.small_group_conv(x, w, (1, 1), (1, 1), (1, 1), dims, (a, b, c, prm))
    want = grouped.small_group_conv(x, w, (1, 1), (1, 1), (1, 1), dims)
    flat = want.reshape(-1)
    hw = dims[0] * dims[1]
    row_kernels().bias_act(flat, flat, a, b, c, prm, hw, 0, n * c)
    np.testing.assert_array_equal(got, want)


def test_near_misses():
    f32 = np.float32
    x = np.zeros((1, 8, 40, 40), f32)
    dims = (40, 40)
    gw = np.zeros((4, 2, 2, 3, 3), f32)
    assert grouped.small_group_preferred(x, gw, dims, (1, 1))
    assert grouped.small_group_preferred(x, gw, (4, 4), (1, 1))
    assert not grouped.small_group_preferred(x, gw, (3, 5), (1, 1))  # tiny map: direct kernel
    dw = np.zeros((8, 1, 1, 3, 3), f32)
    assert not grouped.small_group_preferred(x, dw, dims, (1, 1))  # depthwise: its own kernel
    assert not grouped.small_group_preferred(x, gw, dims, (-1, 1))  # cropping pads
    assert not grouped.small_group_preferred(x.astype(np.float16), gw.astype(np.float16), dims,
                                             (1, 1))
    assert not grouped.small_group_preferred(x, gw.astype(np.float64), dims, (1, 1))
    assert not grouped.small_group_preferred(x, np.zeros((1, 4, 8, 3, 3), f32), dims, (1, 1))
    big = np.zeros((1, 64, 40, 40), f32)
    assert grouped.small_group_preferred(big, np.zeros((2, 32, 32, 3, 3), f32), (10, 10), (1, 1))
    assert not grouped.small_group_preferred(big, np.zeros((2, 32, 32, 3, 3), f32), (9, 9), (1, 1))
    wider = np.zeros((1, 66, 40, 40), f32)
    assert not grouped.small_group_preferred(wider, np.zeros((2, 33, 33, 3, 3), f32), dims, (1, 1))
    assert not grouped.small_group_preferred(np.zeros((1, 8, 40), f32),
                                             np.zeros((4, 2, 2, 3), f32), (40,), (1,))  # 1-D
