"""The CPU backend's depthwise kernel (kernels/depthwise.py) and the direct
kernel's channel blocks against the numpy tap / im2col path, and the near
misses that must not take the depthwise kernel."""

from __future__ import annotations

import numpy as np
import pytest

from xmo.backends.cpu import threads
from xmo.backends.cpu.kernels import convolution as conv
from xmo.backends.cpu.kernels import depthwise
from xmo.backends.cpu.kernels import grouped

from conv_paths import numba_convolutions_off, numpy_conv

RNG = np.random.default_rng(2029)
TOL = {np.float32: dict(rtol=1e-5, atol=1e-5), np.float64: dict(rtol=1e-12, atol=1e-12)}


def _numpy_path(monkeypatch, x, w, s, d, pb, pe):
    """``grouped_conv`` with every numba kernel off (as without numba)."""
    with monkeypatch.context() as m:
        numba_convolutions_off(m)
        assert not depthwise.depthwise_eligible(x, w, pb)
        return conv.grouped_conv(x, w, s, d, pb, pe)


# x, w [G, Mg, 1, Kh, Kw], strides, dilations, pads_begin, pads_end
DEPTHWISE = [
    ((1, 5, 13, 17), (5, 1, 1, 3, 3), (1, 1), (1, 1), (1, 1), (1, 1)),
    ((2, 3, 15, 14), (3, 1, 1, 3, 3), (2, 2), (1, 1), (1, 1), (1, 1)),  # batch 2, stride 2
    ((1, 4, 17, 19), (4, 1, 1, 5, 5), (2, 2), (1, 1), (2, 1), (1, 2)),  # asymmetric pads
    ((1, 3, 14, 16), (3, 2, 1, 3, 3), (1, 2), (2, 1), (2, 1), (0, 3)),  # multiplier, dilation
    ((1, 2, 21, 20), (2, 1, 1, 7, 7), (1, 1), (1, 1), (3, 3), (3, 3)),  # 7x7
    ((1, 3, 19, 23), (3, 1, 1, 7, 7), (2, 2), (1, 2), (3, 2), (2, 7)),
    ((2, 2, 16, 15), (2, 3, 1, 2, 4), (3, 2), (1, 1), (0, 2), (1, 0)),  # generic taps, stride 3
    ((1, 3, 12, 13), (3, 1, 1, 1, 1), (2, 2), (1, 1), (0, 0), (0, 0)),  # 1x1
    ((1, 3, 14, 15), (3, 1, 1, 3, 3), (1, 1), (1, 1), (-1, 0), (1, -2)),  # cropping pads
    ((2, 3, 13, 11), (3, 1, 1, 5, 5), (1, 1), (1, 1), (2, 2), (2, 2)),  # batch 2, 5x5, odd
    ((2, 2, 17, 15), (2, 1, 1, 7, 7), (2, 2), (2, 2), (6, 5), (6, 6)),  # 7x7 s2 dilated
    ((1, 3, 15, 17), (3, 1, 1, 3, 3), (2, 2), (2, 2), (2, 2), (2, 2)),  # 3x3 s2 dilated
    ((1, 2, 16, 16), (2, 1, 1, 3, 3), (2, 2), (1, 1), (0, 0), (1, 1)),  # s2, even column phase
    ((1, 2, 16, 17), (2, 1, 1, 5, 5), (2, 1), (1, 1), (1, 2), (2, 1)),  # row stride only
    ((1, 2, 9, 4), (2, 1, 1, 3, 3), (2, 2), (1, 1), (3, 3), (3, 3)),  # pads wider than the input
    ((1, 2, 40, 61), (2, 1, 1, 3, 3), (1, 1), (1, 1), (1, 1), (1, 1)),  # several row blocks
    ((2, 2, 44, 70), (2, 1, 1, 5, 5), (2, 2), (1, 1), (2, 2), (2, 2)),
    ((1, 2, 50, 45), (2, 2, 1, 7, 7), (1, 1), (1, 1), (3, 3), (3, 3)),
]


@pytest.mark.parametrize("xs,ws,s,d,pb,pe", DEPTHWISE)
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_depthwise_kernel_matches_numpy_path(xs, ws, s, d, pb, pe, dtype, monkeypatch):
    x = RNG.uniform(-2, 2, xs).astype(dtype)
    w = RNG.uniform(-2, 2, ws).astype(dtype)
    dims = conv.conv_out_dims(xs[2:], ws[3:], s, d, pb, pe)
    monkeypatch.setattr(depthwise, "DEPTHWISE_MIN_PIXELS", 0)
    monkeypatch.setattr(depthwise, "DEPTHWISE_MIN_PIXELS_MULTIPLIER", 0)
    monkeypatch.setattr(depthwise, "DEPTHWISE_MAX_EXTRA_COLUMNS", 1e9)
    assert depthwise.depthwise_preferred(x, w, dims, pb, s, d)
    got = depthwise.depthwise_conv(x, depthwise.depthwise_weights(w), ws[1], s, d, pb, dims)
    want = _numpy_path(monkeypatch, x, w, s, d, pb, pe)
    assert got.shape == want.shape and got.dtype == want.dtype and got.flags.c_contiguous
    np.testing.assert_allclose(got, want, **TOL[dtype])
    if min(pb) >= 0:  # the route grouped_conv takes
        np.testing.assert_array_equal(conv.grouped_conv(x, w, s, d, pb, pe), got)


# the intrinsics' edges (session 31): stride-2 rows of whole half vectors, of
# a masked tail, of both; unit-stride row copies with and without a tail;
# the unrolled 3x3 / 5x5 tap sums and the tap loop (7x7, 3x5); channel
# counts not a multiple of 16, two images, dilations, asymmetric pads
EXACT = [
    ((2, 19, 23, 75), (19, 1, 1, 3, 3), (2, 2), (1, 1), (1, 1), (1, 1)),
    ((1, 17, 20, 32), (17, 1, 1, 3, 3), (2, 2), (1, 1), (0, 0), (1, 1)),
    ((1, 18, 15, 33), (18, 1, 1, 5, 5), (2, 2), (1, 1), (2, 1), (2, 2)),
    ((2, 21, 30, 37), (21, 1, 1, 5, 5), (1, 1), (2, 2), (4, 4), (4, 4)),
    ((1, 20, 9, 64), (20, 1, 1, 3, 3), (1, 1), (1, 1), (1, 1), (1, 1)),
    ((1, 5, 16, 16), (5, 1, 1, 7, 7), (1, 1), (1, 1), (3, 3), (3, 3)),
    ((1, 23, 14, 40), (23, 1, 1, 7, 7), (2, 2), (1, 1), (3, 3), (3, 2)),
    ((1, 6, 11, 29), (6, 2, 1, 3, 5), (1, 2), (2, 1), (1, 2), (1, 2)),
    ((2, 33, 7, 7), (33, 1, 1, 5, 5), (1, 1), (1, 1), (2, 2), (2, 2)),
    # the vector groups' last group: 5 vectors (above), 4 + 7, 4 + 4 + 6
    ((1, 9, 11, 11), (9, 1, 1, 5, 5), (1, 1), (1, 1), (2, 2), (2, 2)),
    ((1, 9, 14, 14), (9, 1, 1, 3, 3), (1, 1), (1, 1), (1, 1), (1, 1)),
]


@pytest.mark.parametrize("xs,ws,s,d,pb,pe", EXACT)
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("nthreads", [1, 2])
def test_depthwise_kernel_is_exact(xs, ws, s, d, pb, pe, dtype, nthreads, monkeypatch):
    """Bit for bit the numpy tap path (each output summed in tap order from
    zero, multiply then add), on one and two threads; small maps forced onto
    it (they run the tiny-map kernel)."""
    x = RNG.uniform(-2, 2, xs).astype(dtype)
    w = RNG.uniform(-2, 2, ws).astype(dtype)
    dims = conv.conv_out_dims(xs[2:], ws[3:], s, d, pb, pe)
    monkeypatch.setattr(depthwise, "DEPTHWISE_MIN_PIXELS", 0)
    monkeypatch.setattr(depthwise, "DEPTHWISE_MIN_PIXELS_MULTIPLIER", 0)
    assert depthwise.depthwise_preferred(x, w, dims, pb, s, d)
    want = numpy_conv(monkeypatch, x, w, s, d, pb, pe)
    monkeypatch.setattr(depthwise, "MACS_PER_TASK", 1)
    old = threads.threads()
    threads.set_threads(nthreads)
    try:
        got = conv.grouped_conv(x, w, s, d, pb, pe)
    finally:
        threads.set_threads(old)
    np.testing.assert_array_equal(got, want)


def test_depthwise_split_is_exact(monkeypatch):
    """Channels split across tasks give the whole-run result bit for bit."""
    x = RNG.uniform(-2, 2, (2, 7, 20, 18)).astype(np.float32)
    w = depthwise.depthwise_weights(RNG.uniform(-2, 2, (7, 2, 1, 3, 3)).astype(np.float32))
    dims = conv.conv_out_dims((20, 18), (3, 3), (2, 2), (1, 1), (1, 1), (1, 1))
    whole = depthwise.depthwise_conv(x, w, 2, (2, 2), (1, 1), (1, 1), dims)
    monkeypatch.setattr(depthwise, "MACS_PER_TASK", 1)
    old = threads.threads()
    threads.set_threads(2)
    try:
        split = depthwise.depthwise_conv(x, w, 2, (2, 2), (1, 1), (1, 1), dims)
    finally:
        threads.set_threads(old)
    np.testing.assert_array_equal(split, whole)


@pytest.mark.parametrize("tiny", [True, False])
@pytest.mark.parametrize("xs,ws,s,pb,pe", [
    ((1, 130, 6, 7), (130, 1, 1, 5, 5), (1, 1), (2, 2), (2, 2)),  # one partial block
    ((2, 290, 5, 5), (290, 1, 1, 3, 3), (2, 2), (1, 0), (1, 2)),
    ((1, 90, 4, 3), (45, 3, 2, 3, 3), (1, 1), (1, 1), (1, 1)),  # blocks cut through groups
    # the second image after a partial block: the padding re-zeroed for the full width
    ((2, 160, 6, 6), (160, 1, 1, 3, 3), (1, 1), (1, 1), (1, 1)),
])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_direct_channel_blocks_match_numpy_path(xs, ws, s, pb, pe, dtype, tiny, monkeypatch):
    """The direct kernel's channel blocks (``tiny``: depthwise ones on the
    tiny-map kernel, its blocks of channels)."""
    x = RNG.uniform(-2, 2, xs).astype(dtype)
    w = RNG.uniform(-2, 2, ws).astype(dtype)
    dims = conv.conv_out_dims(xs[2:], ws[3:], s, (1, 1), pb, pe)
    monkeypatch.setattr(conv, "DIRECT_MAX_GROUPED_PIXELS", 1 << 20)
    if not tiny:
        monkeypatch.setattr(depthwise, "TINY_MAX_PIXELS", 0)
        monkeypatch.setattr(depthwise, "TINY_MAX_PIXELS_MULTIPLIER", 0)
    assert depthwise.tiny_preferred(x, w, dims, pb) == (tiny and ws[2] == 1)
    assert conv.direct_eligible(x, w, dims, pb)
    assert not depthwise.depthwise_preferred(x, w, dims, pb)  # small map
    got = conv.grouped_conv(x, w, s, (1, 1), pb, pe)
    want = _numpy_path(monkeypatch, x, w, s, (1, 1), pb, pe)
    assert got.shape == want.shape and got.dtype == want.dtype
    np.testing.assert_allclose(got, want, **TOL[dtype])


# the tiny-map kernel (channels innermost): 2x2 and 4x4 maps of the small
# CNNs, channel counts not a multiple of 16 (a partial vector), several
# blocks of channels (9x9 padded planes: 96 a block), two images, multiplier,
# dilation, asymmetric and cropping pads, stride 3, generic taps
TINY = [
    ((1, 144, 2, 2), (144, 1, 1, 5, 5), (1, 1), (1, 1), (2, 2), (2, 2)),
    ((1, 64, 4, 4), (64, 1, 1, 5, 5), (1, 1), (1, 1), (2, 2), (2, 2)),
    ((1, 72, 4, 4), (72, 1, 1, 5, 5), (2, 2), (1, 1), (2, 2), (2, 2)),
    ((1, 24, 8, 8), (24, 1, 1, 5, 5), (2, 2), (1, 1), (2, 2), (2, 2)),
    ((2, 19, 5, 6), (19, 1, 1, 3, 3), (1, 2), (1, 1), (1, 0), (2, 1)),
    ((1, 7, 6, 5), (7, 3, 1, 3, 3), (1, 1), (2, 1), (2, 1), (1, 2)),
    ((1, 300, 5, 5), (300, 1, 1, 5, 5), (1, 1), (1, 1), (2, 2), (2, 2)),
    ((2, 33, 9, 8), (33, 1, 1, 2, 4), (3, 2), (1, 1), (0, 2), (1, 0)),
    ((1, 17, 7, 7), (17, 1, 1, 3, 3), (1, 1), (1, 1), (-1, 0), (1, -2)),
    ((1, 20, 7, 7), (20, 1, 1, 3, 3), (1, 1), (5, 5), (5, 5), (5, 5)),  # 17-wide rows
    # 7x7 and 10x10 maps: blocks of at least 4 vectors of channels, partial
    # transpose tiles (49 and 100 pixels; 200 and 70 channels), input rows
    # wider than a tile
    ((1, 200, 7, 7), (200, 1, 1, 5, 5), (1, 1), (1, 1), (2, 2), (2, 2)),
    ((1, 70, 20, 19), (70, 1, 1, 5, 5), (2, 2), (1, 1), (2, 2), (2, 2)),
]


@pytest.mark.parametrize("xs,ws,s,d,pb,pe", TINY)
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("nthreads", [1, 2])
def test_tiny_kernel_is_exact(xs, ws, s, d, pb, pe, dtype, nthreads, monkeypatch):
    """Bit for bit the numpy tap path, whole and split into channel ranges
    (on one and two threads)."""
    x = RNG.uniform(-2, 2, xs).astype(dtype)
    w = RNG.uniform(-2, 2, ws).astype(dtype)
    dims = conv.conv_out_dims(xs[2:], ws[3:], s, d, pb, pe)
    want = numpy_conv(monkeypatch, x, w, s, d, pb, pe)
    assert depthwise.tiny_preferred(x, w, dims, pb)
    assert not depthwise.depthwise_preferred(x, w, dims, pb, s, d)
    got = depthwise.tiny_depthwise_plan(x, w, s, d, pb, dims)(x)
    assert got.shape == want.shape and got.dtype == want.dtype and got.flags.c_contiguous
    np.testing.assert_array_equal(got, want)
    if min(pb) >= 0:  # the route grouped_conv takes
        np.testing.assert_array_equal(conv.grouped_conv(x, w, s, d, pb, pe), want)
    monkeypatch.setattr(depthwise, "MACS_PER_TASK", 1)
    old = threads.threads()
    threads.set_threads(nthreads)
    try:
        split = depthwise.tiny_depthwise_plan(x, w, s, d, pb, dims)(x[:, :, ::-1][:, :, ::-1])
    finally:
        threads.set_threads(old)
    np.testing.assert_array_equal(split, want)  # a non-contiguous input too


def test_depthwise_near_misses():
    f32 = np.float32
    x = np.zeros((1, 8, 20, 20), f32)
    dw = np.zeros((8, 1, 1, 3, 3), f32)
    assert depthwise.depthwise_preferred(x, dw, (20, 20), (1, 1))
    assert depthwise.depthwise_preferred(x, dw, (11, 10), (1, 1))
    assert not depthwise.depthwise_preferred(x, dw, (10, 10), (1, 1))  # small map: tiny
    assert not depthwise.depthwise_preferred(x, dw, (7, 7), (1, 1))
    assert depthwise.tiny_preferred(x, dw, (6, 8), (1, 1))
    assert depthwise.tiny_preferred(x, dw, (7, 7), (1, 1))
    assert depthwise.tiny_preferred(x, dw, (10, 10), (1, 1))
    assert not depthwise.tiny_preferred(x, dw, (10, 11), (1, 1))
    dm = np.zeros((8, 2, 1, 3, 3), f32)  # a channel multiplier: phase planes from 7x7
    assert depthwise.depthwise_preferred(x, dm, (7, 7), (1, 1))
    assert not depthwise.depthwise_preferred(x, dm, (6, 8), (1, 1))
    assert depthwise.tiny_preferred(x, dm, (8, 8), (1, 1))
    assert not depthwise.tiny_preferred(x, dm, (8, 9), (1, 1))
    assert not depthwise.tiny_preferred(x, np.zeros((4, 2, 2, 3, 3), f32), (4, 4), (1, 1))
    assert not depthwise.tiny_preferred(x, dw.astype(np.float64), (4, 4), (1, 1))
    dw5 = np.zeros((8, 1, 1, 5, 5), f32)
    assert depthwise.depthwise_preferred(x, dw5, (14, 14), (2, 2))
    assert not depthwise.depthwise_preferred(x, dw5, (4, 4), (2, 2))  # 5x5 on 4x4: direct
    dw7 = np.zeros((8, 1, 1, 7, 7), f32)
    assert depthwise.depthwise_preferred(x, dw7, (14, 14), (3, 3))
    # 7x7 on an 11x11 map: 17-wide phase-plane rows for 11 outputs
    assert depthwise.depthwise_preferred(x, dw7, (11, 11), (3, 3))
    assert depthwise.depthwise_preferred(x, dw5, (11, 11), (2, 2), (2, 2), (1, 1))  # stride 2
    assert depthwise.depthwise_preferred(x, dw5, (14, 14), (4, 4), (1, 1), (2, 2))  # dilated
    # 3x3 dilated 7 on an 11x11 map: 25-wide rows for 11 outputs: not the phase planes
    assert not depthwise.depthwise_preferred(x, dw, (11, 11), (7, 7), (1, 1), (7, 7))
    assert not depthwise.depthwise_preferred(x, np.zeros((4, 2, 2, 3, 3), f32), (20, 20), (1, 1))
    assert not depthwise.depthwise_preferred(x, np.zeros((1, 8, 8, 3, 3), f32), (20, 20), (1, 1))
    assert not depthwise.depthwise_preferred(x.astype(np.float16), dw.astype(np.float16),
                                             (20, 20), (1, 1))
    assert not depthwise.depthwise_preferred(x, dw.astype(np.float64), (20, 20), (1, 1))
    assert not depthwise.depthwise_preferred(np.zeros((1, 8, 20), f32), np.zeros((8, 1, 1, 3), f32),
                                             (20,), (1,))  # 1-D
    assert not grouped.small_group_preferred(x, dw, (20, 20), (1, 1))  # depthwise: not grouped


# act code, p0 (rows.ACT_*): none (affine only), Relu, Swish (beta 1), Gelu
EPILOGUES = [(0, 0.0), (2, 0.0), (5, 1.0), (1, 0.0)]


@pytest.mark.parametrize("act,p0", EPILOGUES)
@pytest.mark.parametrize("affine", ["scale_bias", "bias", "none"])  # none + act 0: a copy
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("split", [False, True])
def test_depthwise_epilogue_matches_two_steps(act, p0, affine, dtype, split, monkeypatch):
    """``epi``: the kernel applies bias_act to each finished channel, as
    depthwise_conv then bias_act over the whole output would."""
    from xmo.backends.cpu.kernels import rows_jit

    x = RNG.uniform(-3, 3, (2, 5, 19, 16)).astype(dtype)
    w = depthwise.depthwise_weights(RNG.uniform(-1, 1, (5, 2, 1, 3, 3)).astype(dtype))
    cout = 10
    dims = conv.conv_out_dims((19, 16), (3, 3), (2, 1), (1, 1), (1, 1), (1, 1))
    none = np.empty(0, dtype)
    a = RNG.uniform(0.5, 2, cout).astype(dtype) if affine == "scale_bias" else none
    b = RNG.uniform(-1, 1, cout).astype(dtype) if affine != "none" else none
    prm = np.array([act, p0, 0.0, dtype == np.float32, np.finfo(dtype).tiny], np.float64)
    args = (x, w, 2, (2, 1), (1, 1), (1, 1), dims)
    want = depthwise.depthwise_conv(*args)
    n = dims[0] * dims[1]
    w1 = want.reshape(-1)
    rows_jit.bias_act(w1, w1, a, b, cout, prm, n, 0, want.size // n)
    old = threads.threads()
    if split:
        monkeypatch.setattr(depthwise, "MACS_PER_TASK", 1)
        threads.set_threads(2)
    try:
        got = depthwise.depthwise_conv(*args, epi=(a, b, cout, prm))
    finally:
        threads.set_threads(old)
    np.testing.assert_array_equal(got, want)


def test_depthwise_image_tasks_with_epilogue(monkeypatch):
    """More images than tasks: whole-image ranges, each with its epilogue
    rows; bit for bit the one-task result then bias_act."""
    from xmo.backends.cpu.kernels import rows_jit

    x = RNG.uniform(-2, 2, (3, 4, 12, 13)).astype(np.float32)
    w = depthwise.depthwise_weights(RNG.uniform(-1, 1, (4, 1, 1, 5, 5)).astype(np.float32))
    dims = conv.conv_out_dims((12, 13), (5, 5), (1, 1), (1, 1), (2, 2), (2, 2))
    b = RNG.uniform(-1, 1, 4).astype(np.float32)
    prm = np.array([5, 1.0, 0.0, 1.0, np.finfo(np.float32).tiny], np.float64)
    epi = (np.empty(0, np.float32), b, 4, prm)
    want = depthwise.depthwise_conv(x, w, 1, (1, 1), (1, 1), (2, 2), dims)
    n = dims[0] * dims[1]
    rows_jit.bias_act(want.reshape(-1), want.reshape(-1), *epi, n, 0, 12)
    monkeypatch.setattr(depthwise, "MACS_PER_TASK", 1)
    monkeypatch.setattr(depthwise, "TASKS_PER_THREAD", 1)
    old = threads.threads()
    threads.set_threads(2)
    try:
        got = depthwise.depthwise_conv(x, w, 1, (1, 1), (1, 1), (2, 2), dims, epi=epi)
    finally:
        threads.set_threads(old)
    np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("act,p0", EPILOGUES)
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("split", [False, True])
def test_tiny_epilogue_matches_two_steps(act, p0, dtype, split, monkeypatch):
    """The tiny-map kernel's epilogue: bias_act over each task's output
    channels, as over the whole output after it."""
    from xmo.backends.cpu.kernels import rows_jit

    x = RNG.uniform(-3, 3, (2, 40, 4, 4)).astype(dtype)
    w = RNG.uniform(-1, 1, (40, 1, 1, 5, 5)).astype(dtype)
    dims = conv.conv_out_dims((4, 4), (5, 5), (1, 1), (1, 1), (2, 2), (2, 2))
    a = RNG.uniform(0.5, 2, 40).astype(dtype)
    b = RNG.uniform(-1, 1, 40).astype(dtype)
    prm = np.array([act, p0, 0.0, dtype == np.float32, np.finfo(dtype).tiny], np.float64)
    want = depthwise.tiny_depthwise_plan(x, w, (1, 1), (1, 1), (2, 2), dims)(x)
    w1 = want.reshape(-1)
    rows_jit.bias_act(w1, w1, a, b, 40, prm, 16, 0, 80)
    old = threads.threads()
    if split:
        monkeypatch.setattr(depthwise, "MACS_PER_TASK", 1)
        threads.set_threads(2)
    try:
        got = depthwise.tiny_depthwise_plan(x, w, (1, 1), (1, 1), (2, 2), dims, (a, b, 40, prm))(x)
    finally:
        threads.set_threads(old)
    np.testing.assert_array_equal(got, want)
