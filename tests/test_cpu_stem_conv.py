"""The CPU backend's stem convolution kernel (one group, few filter taps over
few input channels, straight from the input) against the numpy im2col path,
through the kernel, ``grouped_conv`` and a compiled model; and the near misses
that must not take it."""

from __future__ import annotations

import numpy as np
import pytest

from xmo.backends.cpu import threads
from xmo.backends.cpu.kernels import convolution as conv
from xmo.backends.cpu.kernels.rows import row_kernels

from conv_paths import numpy_conv

RNG = np.random.default_rng(30)
TOL = {np.float32: dict(rtol=1e-5, atol=1e-5), np.float64: dict(rtol=1e-12, atol=1e-12)}


def _numpy_path(monkeypatch, x, w, s, d, pb, pe):
    """``grouped_conv`` with every numba kernel and the patch form off."""
    return numpy_conv(monkeypatch, x, w, s, d, pb, pe, valid_taps=False)


# x, w [1, M, C, Kh, Kw], strides, dilations, pads_begin, pads_end
STEMS = [
    ((1, 3, 23, 21), (1, 8, 3, 3, 3), (2, 2), (1, 1), (1, 1), (1, 1)),  # a stem: 27 taps
    ((2, 3, 17, 18), (1, 6, 3, 3, 3), (2, 2), (1, 1), (1, 1), (0, 1)),  # batch 2, 6 channels
    ((1, 1, 12, 31), (1, 5, 1, 3, 3), (1, 1), (1, 1), (1, 1), (1, 1)),  # one input channel
    ((1, 2, 15, 14), (1, 7, 2, 2, 5), (3, 1), (1, 3), (0, 2), (0, 0)),  # dilated, 20 taps
    ((1, 4, 11, 13), (1, 3, 4, 3, 2), (1, 3), (2, 1), (2, 0), (1, 2)),  # odd strides, 24 taps
    ((1, 3, 9, 10), (1, 4, 3, 3, 3), (1, 2), (1, 1), (5, 4), (6, 3)),  # pads past the kernel
    ((1, 2, 12, 13), (1, 9, 2, 3, 3), (1, 1), (2, 2), (0, 1), (-1, -2)),  # cropping end pads
    ((1, 3, 16, 16), (1, 4, 3, 2, 2), (2, 2), (1, 1), (0, 0), (0, 0)),  # a small patch form
    ((1, 1, 7, 9), (1, 2, 1, 1, 2), (1, 1), (1, 1), (0, 0), (0, 0)),  # two taps
    ((1, 1, 7, 9), (1, 3, 1, 1, 3), (1, 1), (1, 1), (0, 1), (0, 1)),  # three taps
    ((1, 3, 30, 29), (1, 8, 3, 7, 7), (2, 2), (1, 1), (3, 3), (3, 2)),  # a 7x7 stem: 147 taps
    ((1, 2, 19, 17), (1, 5, 2, 5, 5), (1, 2), (1, 1), (2, 1), (2, 2)),  # 50 taps on 2 channels
]


@pytest.mark.parametrize("xs,ws,s,d,pb,pe", STEMS)
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("block", [1, 40, 1024])
def test_stem_conv_matches_numpy_path(xs, ws, s, d, pb, pe, dtype, block, monkeypatch):
    """Blocks of one output row (``block`` 1), of a few rows (``block`` 40:
    the planes' padding kept from block to block) or of the whole map, split
    over two threads: the kernel, ``grouped_conv`` and its plan give the
    numpy path's results in a fresh C-contiguous array."""
    x = RNG.uniform(-2, 2, xs).astype(dtype)
    w = RNG.uniform(-2, 2, ws).astype(dtype)
    dims = conv.conv_out_dims(xs[2:], ws[3:], s, d, pb, pe)
    monkeypatch.setattr(conv, "STEM_BLOCK_VALUES", block)
    monkeypatch.setattr(conv, "DIRECT_MACS_PER_TASK", 1)
    monkeypatch.setattr(conv, "VALID_TAPS_MAX_SHARE", -1.0)  # large pads: not the valid taps
    old = threads.threads()
    threads.set_threads(2)
    try:
        assert conv.stem_eligible(x, w, pb, s)
        ws_ = conv.stem_weights(w[0].reshape(ws[1], -1))
        assert ws_.shape[0] % 4 == 0 and not ws_[ws[1]:].any()
        got = conv.stem_conv(x, ws_, ws[1], ws[3:], s, d, pb, dims)
        via = conv.grouped_conv(x, w, s, d, pb, pe)
    finally:
        threads.set_threads(old)
    want = _numpy_path(monkeypatch, x, w, s, d, pb, pe)
    for out in (got, via):
        assert out.shape == want.shape and out.dtype == want.dtype
        assert out.flags.c_contiguous and out.flags.owndata
        np.testing.assert_allclose(out, want, **TOL[dtype])


def test_stem_conv_in_a_model(tmp_path):
    """An ONNX stem convolution (3x3, stride 2, 3 -> 6 channels, with bias
    and Relu: a fused epilogue on the kernel's fresh output) compiled and
    run on two threads matches numpy."""
    onnx = pytest.importorskip("onnx")
    from onnx import TensorProto, helper, numpy_helper

    import xmo

    w = RNG.uniform(-1, 1, (6, 3, 3, 3)).astype(np.float32)
    bias = RNG.uniform(-1, 1, 6).astype(np.float32)
    graph = helper.make_graph(
        [helper.make_node("Conv", ["x", "w", "b"], ["c"], strides=[2, 2], pads=[1, 1, 1, 1]),
         helper.make_node("Relu", ["c"], ["y"])],
        "stem", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 3, 19, 20])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)],
        [numpy_helper.from_array(w, "w"), numpy_helper.from_array(bias, "b")])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
    model.ir_version = 8
    x = RNG.uniform(-2, 2, (2, 3, 19, 20)).astype(np.float32)
    path = tmp_path / "stem.onnx"
    onnx.save(model, str(path))
    old = threads.threads()
    try:
        got = np.asarray(xmo.compile_model(str(path), threads=2)({"x": x})[0])
    finally:
        threads.set_threads(old)
    xp = np.pad(x, ((0, 0), (0, 0), (1, 1), (1, 1)))
    cols = np.lib.stride_tricks.sliding_window_view(xp, (3, 3), axis=(2, 3))[:, :, ::2, ::2]
    want = np.maximum(np.einsum("ncyxij,mcij->nmyx", cols, w) + bias[:, None, None], 0)
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)


def test_stem_near_misses(monkeypatch):
    f32 = np.float32
    x = np.zeros((1, 3, 40, 40), f32)
    w = np.zeros((1, 16, 3, 3, 3), f32)
    assert conv.stem_eligible(x, w, (1, 1))
    w7 = np.zeros((1, 16, 3, 7, 7), f32)
    assert not conv.stem_eligible(x, w7, (3, 3))  # 147 taps, strides unknown
    assert conv.stem_eligible(x, w7, (3, 3), (2, 2))  # a 7x7 stem on 3 channels
    assert not conv.stem_eligible(x, w7, (0, 0), (7, 7))  # a patch embedding: the patch GEMM
    assert not conv.stem_eligible(x, np.zeros((1, 16, 3, 10, 10), f32), (1, 1), (2, 2))  # 300
    assert not conv.stem_eligible(np.zeros((1, 4, 40, 40), f32),
                                  np.zeros((1, 16, 4, 5, 5), f32), (2, 2), (2, 2))  # 4 channels
    assert not conv.stem_eligible(np.zeros((1, 8, 40, 40), f32),
                                  np.zeros((1, 16, 8, 3, 3), f32), (1, 1), (1, 1))  # 72 taps
    assert not conv.stem_eligible(x, np.zeros((1, 16, 3, 1, 1), f32), (0, 0))  # 1x1
    assert not conv.stem_eligible(np.zeros((1, 6, 40, 40), f32),
                                  np.zeros((2, 8, 3, 3, 3), f32), (1, 1))  # groups
    assert not conv.stem_eligible(x, w, (-1, 1))  # cropping leading pads
    assert not conv.stem_eligible(x.astype(np.int32), w.astype(np.int32), (1, 1))
    assert not conv.stem_eligible(x, w.astype(np.float64), (1, 1))  # mixed dtypes
    assert not conv.stem_eligible(np.zeros((1, 3, 40), f32), np.zeros((1, 16, 3, 3), f32),
                                  (1,))  # 1-D
    monkeypatch.setattr(conv, "_stem", False)
    assert not conv.stem_eligible(x, w, (1, 1))  # no numba


# fused epilogues (rows_jit.bias_act's prm: act, p0, p1, fast, tiny): Relu,
# Swish (beta 1), HSwish
EPI_ACTS = {"Relu": (2.0, 0.0, 0.0), "Swish": (5.0, 1.0, 0.0), "HSwish": (6.0, 0.0, 0.0)}


def _epi(act, m, dtype, constants):
    # the fast f32 Sigmoid form for f32 only (as the fusion's plans give it)
    prm = np.array([*EPI_ACTS[act], 1.0 if dtype == np.float32 else 0.0,
                    np.finfo(np.float32).tiny])
    if not constants:
        none = np.empty(0, dtype)
        return none, none, 0, prm
    return (RNG.uniform(0.5, 1.5, m).astype(dtype), RNG.uniform(-1, 1, m).astype(dtype), m, prm)


def _numpy_epi(y, epi):
    """The epilogue in numpy (f64): act(y * a + b), a and b per channel."""
    a, b, period, prm = epi
    v = y.astype(np.float64)
    if period:
        v = v * a[None, :, None, None].astype(np.float64) + b[None, :, None, None]
    act = prm[0]
    if act == 2:
        return np.maximum(v, 0)
    if act == 5:
        return v / (1 + np.exp(-v))
    return v * np.clip(v + 3, 0, 6) / 6


@pytest.mark.parametrize("act", sorted(EPI_ACTS))
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("block", [1, 40, 1024])
@pytest.mark.parametrize("constants", [True, False])
def test_stem_conv_applies_the_epilogue_in_its_tasks(act, dtype, block, constants, monkeypatch):
    """Batch 2, 6 output channels (padded filters), two threads, blocks of
    one row, a few rows (the planes' padding kept from block to block) or
    the whole map: the epilogue applied by each task over its rows equals
    the unfused kernel followed by ``bias_act`` over the whole output, bit
    for bit, and numpy's convolution and epilogue."""
    x = RNG.uniform(-2, 2, (2, 3, 23, 21)).astype(dtype)
    w = RNG.uniform(-1, 1, (1, 6, 3, 3, 3)).astype(dtype)
    s, d, pb, pe = (2, 2), (1, 1), (1, 1), (1, 1)
    dims = conv.conv_out_dims(x.shape[2:], (3, 3), s, d, pb, pe)
    epi = _epi(act, 6, dtype, constants)
    assert conv.stem_epi_fits(epi)
    monkeypatch.setattr(conv, "STEM_BLOCK_VALUES", block)
    monkeypatch.setattr(conv, "DIRECT_MACS_PER_TASK", 1)
    ws = conv.stem_weights(w[0].reshape(6, -1))
    old = threads.threads()
    threads.set_threads(2)
    try:
        got = conv.stem_conv(x, ws, 6, (3, 3), s, d, pb, dims, epi)
        plain = conv.stem_conv(x, ws, 6, (3, 3), s, d, pb, dims)
    finally:
        threads.set_threads(old)
    o1 = plain.reshape(-1)
    hw = dims[0] * dims[1]
    row_kernels().bias_act(o1, o1, *epi, hw, 0, 2 * 6)
    np.testing.assert_array_equal(got, plain)
    want = _numpy_epi(_numpy_path(monkeypatch, x, w, s, d, pb, pe), epi)
    np.testing.assert_allclose(got, want, **TOL[dtype])


def test_stem_epilogue_near_misses():
    f32 = np.float32
    prm = np.array([2.0, 0.0, 0.0, 1.0, 0.0])
    assert not conv.stem_epi_fits(None)
    # per-column constants (one value per output pixel): not per channel
    assert not conv.stem_epi_fits((np.ones(5, f32), np.ones(5, f32), 0, prm))
    assert conv.stem_epi_fits((np.empty(0, f32), np.ones(4, f32), 4, prm))


def test_patch_embedding_applies_the_epilogue_in_its_gemm_tasks(tmp_path, monkeypatch):
    """An ONNX 4x4 stride-4 convolution (a patch embedding, 3 -> 64
    channels on 128x128) with bias and Relu on two threads: the GEMM in
    ranges of output channels with the epilogue in each task
    (``pointwise_epi``), matching numpy."""
    onnx = pytest.importorskip("onnx")
    from onnx import TensorProto, helper, numpy_helper

    import xmo

    seen = []
    real = conv.pointwise_epi

    def spy(wm, x, epi):
        seen.append(wm.shape)
        return real(wm, x, epi)

    monkeypatch.setattr(conv, "pointwise_epi", spy)
    w = RNG.uniform(-1, 1, (64, 3, 4, 4)).astype(np.float32)
    bias = RNG.uniform(-1, 1, 64).astype(np.float32)
    graph = helper.make_graph(
        [helper.make_node("Conv", ["x", "w", "b"], ["c"], strides=[4, 4], kernel_shape=[4, 4]),
         helper.make_node("Relu", ["c"], ["y"])],
        "patches", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 3, 128, 130])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)],
        [numpy_helper.from_array(w, "w"), numpy_helper.from_array(bias, "b")])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
    model.ir_version = 8
    path = tmp_path / "patches.onnx"
    onnx.save(model, str(path))
    x = RNG.uniform(-2, 2, (1, 3, 128, 130)).astype(np.float32)
    old = threads.threads()
    try:
        compiled = xmo.compile_model(str(path), threads=2)
        for _ in range(3):  # the planned run is made at the second
            got = np.asarray(compiled({"x": x})[0])
    finally:
        threads.set_threads(old)
    assert seen and seen[0] == (64, 48)
    cols = x[:, :, :128, :128].reshape(1, 3, 32, 4, 32, 4)
    want = np.maximum(np.einsum("ncyixj,mcij->nmyx", cols.astype(np.float64), w)
                      + bias[:, None, None], 0)
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)
