"""The fast Interpolate path of the CPU backend (issue #18): nearest and 2-tap
linear resizes of the last two axes on ``interpolate_jit`` from per-axis
tables a plan keeps (``interpolate.resize_route``). Each against the generic
f64 path (:func:`~xmo.backends.cpu.kernels.interpolate.interpolate`, itself
checked against OpenVINO in test_cpu_backend.py) and, for the models' cases,
a direct numpy formula: every coordinate_transformation_mode and nearest_mode,
f32 and f64, odd sizes, up- and downsampling, both the kernel (first run) and
the plan (later runs); the cases that stay on the generic path; sizes that are
not constants."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from xdsl.dialects.builtin import ModuleOp

from xmo.backends.cpu import CompiledModel
from xmo.backends.cpu.kernels import interpolate as interpolate_module
from xmo.backends.cpu.kernels._common import jit_module
from xmo.backends.cpu.kernels.interpolate import interpolate, resize_route
from xmo.backends.cpu.node import KernelNode
from xmo.dialects.ov import ConstantOp, ParameterOp, ResultOp, op_class
from xmo.dialects.ov.base import tensor

pytestmark = pytest.mark.skipif(jit_module("interpolate_jit") is None, reason="numba missing")

RNG = np.random.default_rng(32)
ETYPE = {np.float32: "f32", np.float64: "f64"}
CTMS = ("half_pixel", "pytorch_half_pixel", "asymmetric", "tf_half_pixel_for_nn", "align_corners")
NEAREST = ("round_prefer_floor", "round_prefer_ceil", "floor", "ceil", "simple")
#: f32 fast results vs the f64 truth: within this many f32 ulp of max |x|
ULPS = 4


def _attrs(mode: str, ctm: str = "half_pixel", nearest: str = "round_prefer_floor",
           calc: str = "sizes", **kw: Any) -> dict[str, Any]:
    return {"mode": mode, "shape_calculation_mode": calc, "coordinate_transformation_mode": ctm,
            "nearest_mode": nearest, "antialias": False, "pads_begin": [], "pads_end": [],
            "cube_coeff": -0.75, **kw}


def _model(shape: list[int], out: list[int], values: list[Any], axes: list[int] | None,
           attrs: dict[str, Any], etype: str, kind: str = "Interpolate") -> tuple[CompiledModel, Any]:
    x = ParameterOp.new(etype, shape, name="x")
    dt = np.int64 if attrs["shape_calculation_mode"] == "sizes" else np.float32
    if kind == "Interpolate":
        params = [ConstantOp.from_array(np.array(values, dt))]
    else:  # opset4: sizes and scales
        params = [ConstantOp.from_array(np.array(values[0], np.int64)),
                  ConstantOp.from_array(np.array(values[1], np.float32))]
    ops = [x, *params]
    if axes is not None:
        ops.append(ConstantOp.from_array(np.array(axes, np.int64)))
    cls = op_class("Interpolate") if kind == "Interpolate" else op_class("Interpolate", "opset4")
    r = cls.make(ops, attrs, result_types=[tensor(etype, out)], name="resize")
    return CompiledModel(ModuleOp([*ops, r, ResultOp.new(r.results[0])]), threads=2), r


def _runs(model: CompiledModel, x: np.ndarray) -> list[np.ndarray]:
    """The first run (the kernel), then two of the generated function (the plan)."""
    return [np.array(model([x])[0]) for _ in range(3)]


def _check(got: list[np.ndarray], x: np.ndarray, op: Any, sizes: Any, scales: Any,
           axes: list[int], exact: bool) -> None:
    node = KernelNode(op)
    want = interpolate(node, x, sizes, scales, axes)  # the generic path, as before
    truth = interpolate(node, x.astype(np.float64), sizes, scales, axes)
    for g in got:
        assert g.dtype == x.dtype and g.shape == want.shape
        np.testing.assert_array_equal(g, got[0])
        if exact:
            np.testing.assert_array_equal(g, want)
        else:
            tol = ULPS * np.finfo(x.dtype).eps * max(1.0, float(np.abs(x).max()))
            assert np.abs(g.astype(np.float64) - truth).max() <= tol
            assert np.abs(g.astype(np.float64) - want).max() <= tol


SHAPES = [
    pytest.param((2, 3, 5, 7), (11, 3), id="5x7-11x3"),
    pytest.param((1, 2, 9, 4), (3, 13), id="9x4-3x13"),
    pytest.param((1, 4, 1, 1), (4, 6), id="1x1-4x6"),
    pytest.param((1, 2, 6, 6), (6, 6), id="same"),
    pytest.param((1, 3, 20, 20), (320, 320), id="x16"),
    pytest.param((1, 2, 33, 17), (8, 5), id="down"),
]


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("shape,size", SHAPES)
@pytest.mark.parametrize("ctm", CTMS)
@pytest.mark.parametrize("mode", ["linear_onnx", "linear"])
def test_linear(mode: str, ctm: str, shape: tuple[int, ...], size: tuple[int, int],
                dtype: Any) -> None:
    x = RNG.standard_normal(shape).astype(dtype)
    out = [*shape[:2], *size]
    model, op = _model(list(shape), out, list(size), [2, 3], _attrs(mode, ctm), ETYPE[dtype])
    assert resize_route(KernelNode(op), x.shape, x.dtype, size, None, [2, 3]) is not None
    _check(_runs(model, x), x, op, list(size), None, [2, 3], exact=False)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("shape,size", SHAPES)
@pytest.mark.parametrize("nearest", NEAREST)
@pytest.mark.parametrize("ctm", CTMS)
def test_nearest(ctm: str, nearest: str, shape: tuple[int, ...], size: tuple[int, int],
                 dtype: Any) -> None:
    x = RNG.standard_normal(shape).astype(dtype)
    out = [*shape[:2], *size]
    model, op = _model(list(shape), out, list(size), [2, 3], _attrs("nearest", ctm, nearest),
                       ETYPE[dtype])
    assert resize_route(KernelNode(op), x.shape, x.dtype, size, None, [2, 3]) is not None
    _check(_runs(model, x), x, op, list(size), None, [2, 3], exact=True)


@pytest.mark.parametrize("mode", ["nearest", "linear_onnx", "linear"])
@pytest.mark.parametrize("scales", [(2.0, 2.0), (1.5, 0.5), (0.6, 3.0)])
def test_scales(mode: str, scales: tuple[float, float]) -> None:
    shape = (1, 5, 10, 7)
    size = [int(np.floor(d * s + 1e-5)) for d, s in zip(shape[2:], scales)]
    x = RNG.standard_normal(shape).astype(np.float32)
    attrs = _attrs(mode, "asymmetric", "floor", calc="scales")
    model, op = _model(list(shape), [1, 5, *size], list(scales), [2, 3], attrs, "f32")
    as_f32 = [float(np.float32(s)) for s in scales]  # what the kernel reads
    _check(_runs(model, x), x, op, None, as_f32, [2, 3], exact=mode == "nearest")


@pytest.mark.parametrize("mode", ["nearest", "linear_onnx"])
def test_all_axes_and_other_ranks(mode: str) -> None:
    """Axes naming the unchanged leading dims too; rank 3 and rank 2 inputs."""
    for shape, size, axes in [((2, 3, 5, 7), (2, 3, 9, 4), [0, 1, 2, 3]),
                              ((3, 5, 7), (3, 10, 3), [0, 1, 2]),
                              ((6, 5), (4, 11), None)]:
        x = RNG.standard_normal(shape).astype(np.float32)
        model, op = _model(list(shape), list(size), list(size), axes, _attrs(mode), "f32")
        ax = list(range(len(shape))) if axes is None else axes
        assert resize_route(KernelNode(op), x.shape, x.dtype, size, None, ax) is not None
        _check(_runs(model, x), x, op, list(size), None, ax, exact=mode == "nearest")


def test_opset4() -> None:
    shape, size = (1, 4, 6, 5), (13, 9)
    x = RNG.standard_normal(shape).astype(np.float32)
    model, op = _model(list(shape), [1, 4, *size], [list(size), [13 / 6, 9 / 5]], [2, 3],
                       _attrs("linear_onnx"), "f32", kind="opset4")
    _check(_runs(model, x), x, op, list(size), None, [2, 3], exact=False)


def _bilinear_half_pixel(x: np.ndarray, oh: int, ow: int) -> np.ndarray:
    """ONNX Resize linear, half_pixel, written directly (f64)."""
    def taps(n_in: int, n_out: int):
        c = np.clip((np.arange(n_out) + 0.5) * n_in / n_out - 0.5, 0, n_in - 1)
        i0 = np.floor(c).astype(int)
        i1 = np.minimum(i0 + 1, n_in - 1)
        return i0, i1, c - i0
    y0, y1, ty = taps(x.shape[-2], oh)
    x0, x1, tx = taps(x.shape[-1], ow)
    v = x.astype(np.float64)
    rows = v[..., y0, :] * (1 - ty)[:, None] + v[..., y1, :] * ty[:, None]
    return rows[..., x0] * (1 - tx) + rows[..., x1] * tx


def test_models_cases_vs_formula() -> None:
    """DeepLabV3's two Resize steps and picodet's nearest x2, against numpy formulas."""
    for shape, size in [((1, 256, 1, 1), (20, 20)), ((1, 21, 20, 20), (320, 320))]:
        x = RNG.standard_normal(shape).astype(np.float32)
        model, op = _model(list(shape), [*shape[:2], *size], [*shape[:2], *size], [0, 1, 2, 3],
                           _attrs("linear_onnx", nearest="floor"), "f32")
        want = _bilinear_half_pixel(x, *size)
        for g in _runs(model, x):
            assert np.abs(g - want).max() <= ULPS * np.finfo(np.float32).eps * np.abs(x).max()
    x = RNG.standard_normal((1, 96, 10, 10)).astype(np.float32)
    model, op = _model([1, 96, 10, 10], [1, 96, 20, 20], [2.0, 2.0], [2, 3],
                       _attrs("nearest", "asymmetric", "floor", calc="scales"), "f32")
    for g in _runs(model, x):
        np.testing.assert_array_equal(g, x.repeat(2, axis=2).repeat(2, axis=3))


@pytest.mark.parametrize("case", ["cubic", "antialias", "pads", "int", "f16", "leading-axis"])
def test_generic_cases(case: str) -> None:
    """What the fast path declines runs the generic path, unchanged."""
    shape, size, axes, dtype = (1, 3, 12, 10), [5, 4], [2, 3], np.float32
    attrs = _attrs("linear_onnx")
    if case == "cubic":
        attrs = _attrs("cubic")
    elif case == "antialias":
        attrs = _attrs("linear", antialias=True)
    elif case == "pads":
        attrs = _attrs("linear_onnx", pads_begin=[0, 0, 1, 0], pads_end=[0, 0, 0, 2])
    elif case == "int":
        dtype = np.int32
        attrs = _attrs("nearest")
    elif case == "f16":
        dtype = np.float16
    else:
        size, axes = [5, 4], [1, 2]
    etype = {np.float32: "f32", np.int32: "i32", np.float16: "f16"}[dtype]
    x = (RNG.standard_normal(shape) * 10).astype(dtype)
    out = list(shape)
    for a, s in zip(axes, size):
        out[a] = s
    if case == "pads":
        out = [1, 3, 5, 4]
    model, op = _model(list(shape), out, size, axes, attrs, etype)
    node = KernelNode(op)
    assert resize_route(node, x.shape, x.dtype, size, None, axes) is None
    want = interpolate(node, x, size, None, axes)
    for g in _runs(model, x):
        np.testing.assert_array_equal(g, want)


def test_dynamic_sizes() -> None:
    """Sizes from a parameter: no plan, the kernel's route follows the sizes."""
    x = ParameterOp.new("f32", [1, 2, 6, 5], name="x")
    sz = ParameterOp.new("i64", [2], name="sizes")
    ax = ConstantOp.from_array(np.array([2, 3], np.int64))
    r = op_class("Interpolate").make([x, sz, ax], _attrs("linear_onnx"),
                                     result_types=[tensor("f32", [1, 2, -1, -1])], name="resize")
    model = CompiledModel(ModuleOp([x, sz, ax, r, ResultOp.new(r.results[0])]), threads=2)
    node = KernelNode(r)
    xv = RNG.standard_normal((1, 2, 6, 5)).astype(np.float32)
    tol = ULPS * np.finfo(np.float32).eps * np.abs(xv).max()
    for size in [(7, 9), (3, 2), (7, 9), (12, 10), (12, 10)]:
        got = np.array(model([xv, np.array(size, np.int64)])[0])
        want = interpolate(node, xv, list(size), None, [2, 3])
        assert got.shape == want.shape == (1, 2, *size)
        assert np.abs(got - want).max() <= tol


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_threads_blocks_streams(monkeypatch: pytest.MonkeyPatch, dtype: Any) -> None:
    """Maps cut into tasks over planes, and over rows with fewer planes than
    tasks; linear tasks in blocks of a few output rows, their rows written
    with non-temporal stores (rows of any length and alignment)."""
    monkeypatch.setattr(interpolate_module, "TASK_ELEMENTS", 1000)
    monkeypatch.setattr(interpolate_module, "SCRATCH_ELEMENTS", 300)
    monkeypatch.setattr(interpolate_module, "STREAM_BYTES", 0)
    for shape, size in [((1, 9, 40, 30), (50, 41)), ((1, 3, 30, 40), (61, 50)),
                        ((1, 2, 50, 40), (13, 20)), ((2, 2, 7, 3), (9, 5)),
                        ((1, 1, 20, 20), (40, 160))]:
        x = RNG.standard_normal(shape).astype(dtype)
        for mode in ("nearest", "linear_onnx"):
            model, op = _model(list(shape), [*shape[:2], *size], list(size), [2, 3],
                               _attrs(mode), ETYPE[dtype])
            _check(_runs(model, x), x, op, list(size), None, [2, 3], exact=mode == "nearest")


def test_leading_axis_near_identity() -> None:
    """A leading axis whose indices start as 0, 1, 2... but which shrinks
    (scale 0.99 on 5: 4 outputs) is no unchanged axis: the generic path."""
    shape = (5, 3, 6, 4)
    x = RNG.standard_normal(shape).astype(np.float32)
    attrs = _attrs("nearest", "asymmetric", "floor", calc="scales")
    model, op = _model(list(shape), [4, 3, 12, 8], [0.99, 2.0, 2.0], [0, 2, 3], attrs, "f32")
    scales = [float(np.float32(s)) for s in (0.99, 2.0, 2.0)]
    assert resize_route(KernelNode(op), shape, x.dtype, None, scales, [0, 2, 3]) is None
    _check(_runs(model, x), x, op, None, scales, [0, 2, 3], exact=True)
