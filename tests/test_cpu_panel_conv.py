"""CPU backend: dense f32 convolutions on the packed-panel micro-kernel
(kernels/panel_conv.py): ``panel_conv`` (im2col columns packed into panels
per task) and ``packed_filters_conv`` (filters packed once, windows
gathered channels-last) against the numpy reference (conv_paths.numpy_conv)
on one and two threads; ``convolution._plan``'s routing to them
(``dense_conv_plan``) and the fused epilogue applied in their tasks,
against the unfused schedule."""

from __future__ import annotations

import math

import numpy as np
import pytest
from xdsl.dialects.builtin import ModuleOp

from conv_paths import numpy_conv
from xmo import compile_model
from xmo.backends.cpu import threads
from xmo.backends.cpu.fusion import EpilogueKernel
from xmo.backends.cpu.kernels import convolution as conv
from xmo.backends.cpu.kernels import panel_conv as pc
from xmo.backends.cpu.kernels.packed import pack
from xmo.dialects.ov import ConstantOp, ParameterOp, ResultOp, op_class
from xmo.dialects.ov.base import tensor

pytestmark = pytest.mark.skipif(pc.panel_conv_kernels() is None, reason="numba missing")

RNG = np.random.default_rng(31)

# (x shape, w shape [M, C, Kh, Kw], strides, dilations, pads_begin, pads_end)
GEOMETRIES = [
    ((1, 3, 7, 9), (5, 3, 3, 3), (1, 1), (1, 1), (1, 1), (1, 1)),
    ((2, 8, 11, 13), (17, 8, 3, 3), (2, 2), (1, 1), (1, 1), (1, 1)),   # batch 2, stride 2
    ((1, 16, 12, 12), (9, 16, 3, 3), (1, 1), (2, 2), (2, 2), (2, 2)),  # dilated
    ((1, 5, 10, 10), (7, 5, 5, 3), (1, 2), (1, 1), (2, 1), (0, 1)),    # 5x3, mixed strides, asymmetric pads
    ((2, 6, 9, 8), (11, 6, 2, 2), (1, 1), (1, 1), (0, 0), (0, 0)),     # 2x2 unpadded
    ((1, 4, 13, 9), (3, 4, 3, 3), (3, 1), (1, 3), (1, 0), (0, 2)),     # odd strides, dilation along one axis
    ((1, 12, 31, 29), (20, 12, 3, 3), (1, 1), (1, 1), (1, 1), (1, 1)),  # > one block of panels, 29-wide rows
    ((1, 4, 9, 9), (6, 4, 3, 3), (1, 1), (1, 1), (1, 1), (-1, -1)),    # negative pads_end (a crop)
    ((1, 64, 9, 9), (37, 64, 3, 3), (1, 1), (1, 1), (1, 1), (1, 1)),   # few panels: tasks split the filters
]


def _ref(monkeypatch, x, w, s, d, pb, pe):
    return numpy_conv(monkeypatch, x, w[None], s, d, pb, pe)


def _close(got, want):
    scale = max(1.0, float(np.abs(want).max()))
    np.testing.assert_allclose(got, want, rtol=0, atol=1e-5 * scale)


@pytest.mark.parametrize("geometry", GEOMETRIES, ids=range(len(GEOMETRIES)))
def test_both_forms_match_numpy(geometry, nthreads, monkeypatch):
    xs, ws, s, d, pb, pe = geometry
    x = RNG.standard_normal(xs).astype(np.float32)
    w = RNG.standard_normal(ws).astype(np.float32)
    want = _ref(monkeypatch, x, w, s, d, pb, pe)
    out_dims = want.shape[2:]
    wm = np.ascontiguousarray(w.reshape(ws[0], -1))
    got = pc.panel_conv(x, wm, ws[2:], s, d, pb, out_dims)
    assert got.flags.c_contiguous and got.dtype == np.float32
    _close(got, want)
    # the filters' rows packed in tiles (as dense_conv_plan binds them): the same sums
    tiled = pc.panel_conv(x, wm, ws[2:], s, d, pb, out_dims, tiles=pc.panel_kernels().pack_tiles(wm))
    np.testing.assert_array_equal(tiled, got)
    got = pc.packed_filters_conv(x, pack(pc.filters_rows(w)), ws[2:], s, d, pb, out_dims)
    assert got.flags.c_contiguous and got.dtype == np.float32
    _close(got, want)


@pytest.mark.parametrize("xs,ws,stride", [
    ((2, 24, 20, 19), (40, 24, 1, 1), 1),   # pointwise: each map one row of pixels
    ((1, 16, 13, 12), (33, 16, 1, 1), 2),   # strided 1x1
])
def test_panel_conv_pointwise(xs, ws, stride, nthreads, monkeypatch):
    x = RNG.standard_normal(xs).astype(np.float32)
    w = RNG.standard_normal(ws).astype(np.float32)
    s = (stride, stride)
    want = _ref(monkeypatch, x, w, s, (1, 1), (0, 0), (0, 0))
    got = pc.panel_conv(x, np.ascontiguousarray(w.reshape(ws[0], -1)), (1, 1), s, (1, 1),
                        (0, 0), want.shape[2:])
    _close(got, want)


def test_panel_conv_in_ranges_of_output_channels(monkeypatch):
    """Maps of few panels per task split the output channels (every task
    packs the image's panels), the epilogue over each task's rows."""
    threads.set_threads(2)
    monkeypatch.setattr(pc, "MIN_TASK_PANELS", 1 << 20)
    monkeypatch.setattr(pc, "SPLIT_MACS", 0)
    try:
        x = RNG.standard_normal((1, 8, 10, 9)).astype(np.float32)
        w = RNG.standard_normal((37, 8, 3, 3)).astype(np.float32)
        want = _ref(monkeypatch, x, w, (1, 1), (1, 1), (1, 1), (1, 1))
        wm = np.ascontiguousarray(w.reshape(37, -1))
        relu = (np.empty(0, np.float32), np.empty(0, np.float32), 0,
                np.array([2.0, 0.0, 0.0, 0.0, 0.0]))
        tasks = pc._tasks(pc.panel_conv_kernels(), x, (3, 3, 1, 1, 1, 1, 1, 1), 9, wm,
                          np.empty((1, 37, 90), np.float32), relu)
        assert [t[1][9:11] for t in tasks] == [(0, 16), (16, 37)]
        _close(pc.panel_conv(x, wm, (3, 3), (1, 1), (1, 1), (1, 1), (10, 9)), want)
        _close(pc.panel_conv(x, wm, (3, 3), (1, 1), (1, 1), (1, 1), (10, 9), relu),
               np.maximum(want, 0))
    finally:
        threads.set_threads(None)


def test_non_contiguous_input(monkeypatch):
    x = RNG.standard_normal((1, 10, 12, 14)).astype(np.float32)[:, ::2]
    w = RNG.standard_normal((7, 5, 3, 3)).astype(np.float32)
    want = _ref(monkeypatch, x, w, (1, 1), (1, 1), (1, 1), (1, 1))
    run = pc.dense_conv_plan(x, w, (1, 1), (1, 1), (1, 1), want.shape[2:])
    _close(run(x), want)


def test_routing(monkeypatch):
    """Maps of PANEL_MIN_PIXELS outputs or more pack panels, smaller ones
    the filters; f64, 1x1 kernels, negative leading pads and per-column
    epilogue constants are not taken."""
    calls: list[str] = []
    for name in ("panel_conv", "packed_filters_conv"):
        real = getattr(pc, name)
        monkeypatch.setattr(pc, name, lambda *a, _r=real, _n=name, **k: calls.append(_n) or _r(*a, **k))
    w = RNG.standard_normal((4, 3, 3, 3)).astype(np.float32)
    side = math.isqrt(pc.PANEL_MIN_PIXELS) + 1
    big = np.zeros((1, 3, side, side), np.float32)
    pc.dense_conv_plan(big, w, (1, 1), (1, 1), (1, 1), (side, side))(big)
    small = np.zeros((1, 3, 8, 8), np.float32)
    pc.dense_conv_plan(small, w, (1, 1), (1, 1), (1, 1), (8, 8))(small)
    assert calls == ["panel_conv", "packed_filters_conv"]
    assert pc.dense_conv_plan(small.astype(np.float64), w.astype(np.float64), (1, 1), (1, 1),
                              (1, 1), (8, 8)) is None
    assert pc.dense_conv_plan(small, w[:, :, :1, :1], (1, 1), (1, 1), (0, 0), (8, 8)) is None
    assert pc.dense_conv_plan(small, w, (1, 1), (1, 1), (-1, 1), (6, 8)) is None
    per_column = (np.ones(64, np.float32), np.zeros(0, np.float32), 0, np.zeros(5))
    assert pc.dense_conv_plan(small, w, (1, 1), (1, 1), (1, 1), (8, 8), per_column) is None


def _act(act: str, x, t):
    attrs = {"Gelu": {"approximation_mode": "ERF"}, "Clamp": {"min": -0.5, "max": 0.7}}.get(act, {})
    return op_class(act).make([x], attrs, result_types=[t], name="act")


def _conv_module(shape, cout, k, stride, act, bias_shape=None) -> ModuleOp:
    """act(Conv(x, w) + bias), a k x k kernel with 'same' padding."""
    n, c, h, w = shape
    x = ParameterOp.new("f32", list(shape), name="x")
    wc = ConstantOp.from_array((RNG.standard_normal((cout, c, k, k)) * 0.3).astype(np.float32))
    p = k // 2
    ho, wo = (h + 2 * p - k) // stride + 1, (w + 2 * p - k) // stride + 1
    t = tensor("f32", [n, cout, ho, wo])
    cv = op_class("Convolution").make(
        [x, wc], {"strides": [stride, stride], "dilations": [1, 1], "pads_begin": [p, p],
                  "pads_end": [p, p]}, result_types=[t], name="conv")
    bc = ConstantOp.from_array(
        RNG.standard_normal(bias_shape or (1, cout, 1, 1)).astype(np.float32))
    last = op_class("Add").make([cv, bc], {}, result_types=[t], name="bias")
    ops = [x, wc, bc, cv, last]
    if act is not None:
        last = _act(act, last, t)
        ops.append(last)
    return ModuleOp([*ops, ResultOp.new(last.results[0])])


@pytest.fixture
def epis(monkeypatch):
    """The epilogues handed to the two forms (None: called without)."""
    seen: list[tuple[str, object]] = []
    for name in ("panel_conv", "packed_filters_conv"):
        real = getattr(pc, name)

        def spy(*args, _real=real, _name=name, **kwargs):
            seen.append((_name, args[7] if len(args) > 7 else kwargs.get("epi")))
            return _real(*args, **kwargs)

        monkeypatch.setattr(pc, name, spy)
    return seen


@pytest.mark.parametrize("shape,stride,form,act", [
    (shape, stride, form, act)
    for shape, stride, form in [((2, 6, 30, 27), 1, "panel_conv"),            # 810 pixels: panels
                                ((2, 8, 9, 11), 2, "packed_filters_conv")]  # 30: packed filters
    for act in ["Relu", "Swish", "HSwish", "Sigmoid", "Gelu", "Clamp"]
] + [((2, 6, 30, 27), 1, "panel_conv", None)])  # bias alone
def test_fused_epilogue_in_the_tasks(act, shape, stride, form, epis):
    """A fused Conv + bias + activation step on two threads: the chosen form
    takes the epilogue (both images), equal to the unfused schedule."""
    threads.set_threads(2)
    try:
        model = compile_model(_conv_module(shape, 13, 3, stride, act), threads=2)
        (step,) = model._steps
        assert isinstance(step.kernel, EpilogueKernel)
        x = RNG.standard_normal(shape).astype(np.float32) * 2
        for _ in range(3):
            got = model([x])[0].copy()
        want = model([x], observer=lambda op, outs: None)[0]
    finally:
        threads.set_threads(None)
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)
    assert {name for name, _ in epis} == {form}
    assert any(e is not None for _, e in epis)


def test_per_position_bias_keeps_the_separate_pass(epis):
    """Constants along the map (one per column): the blocked form and the
    separate epilogue pass, not the panel forms."""
    shape = (1, 6, 30, 27)
    model = compile_model(_conv_module(shape, 13, 3, 1, "Relu", bias_shape=(1, 1, 30, 27)),
                          threads=2)
    x = RNG.standard_normal(shape).astype(np.float32)
    for _ in range(3):
        got = model([x])[0].copy()
    want = model([x], observer=lambda op, outs: None)[0]
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)
    assert all(e is None for _, e in epis)


def test_plan_routes_dense_f32_convolutions(monkeypatch):
    """convolution._plan takes the panel forms for f32 single-group
    convolutions of several taps, not for f64, grouped or pointwise ones."""
    taken: list[bool] = []
    real = conv.dense_conv_plan

    def spy(*args, **kwargs):
        run = real(*args, **kwargs)
        taken.append(run is not None)
        return run

    monkeypatch.setattr(conv, "dense_conv_plan", spy)

    class Node:  # the attributes _plan reads
        def __init__(self, attrs):
            self.attrs = attrs
            self.cache = {}

        def attr(self, name, default=None):
            return self.attrs.get(name, default)

    attrs = {"strides": [1, 1], "dilations": [1, 1], "pads_begin": [1, 1], "pads_end": [1, 1]}
    x = RNG.standard_normal((1, 8, 12, 12)).astype(np.float32)
    w = RNG.standard_normal((16, 8, 3, 3)).astype(np.float32)
    run = conv._plan(Node(attrs), x, w, False)
    np.testing.assert_allclose(run(x), _ref(monkeypatch, x, w, (1, 1), (1, 1), (1, 1), (1, 1)),
                               rtol=1e-5, atol=1e-4)
    assert taken == [True]
    conv._plan(Node(attrs), x.astype(np.float64), w.astype(np.float64), False)
    assert taken == [True, False]
