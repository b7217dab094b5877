"""CPU backend: every kernel family against the OpenVINO runtime, the numba FFT
against numpy.fft, and the executor (names, liveness, errors, registry).

Each kernel case builds one op twice from the same description: an ``ov`` module
(``op_class(type).make``) run by :mod:`xmo.backends.cpu`, and an OpenVINO graph
built with the opset16 node factory, compiled on CPU in f32.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pytest
from xdsl.dialects.builtin import ModuleOp

from xmo import compile_model
from xmo.backends.cpu import (
    CompiledModel,
    InputError,
    KernelError,
    KernelNotFoundError,
    kernel_for,
    register_kernel,
)
from xmo.backends.cpu.fft import fft2d
from xmo.context import weight_store
from xmo.dialects.ov import ConstantOp, ParameterOp, ResultOp, op_class
from xmo.dialects.ov import element_types as et
from xmo.dialects.ov.base import tensor

ov = pytest.importorskip("openvino")
ops16 = pytest.importorskip("openvino.opset16")
from openvino.utils.node_factory import NodeFactory  # noqa: E402

F32 = {"INFERENCE_PRECISION_HINT": "f32"}
_CORE = ov.Core()
_NF = NodeFactory("opset16")
RNG = np.random.default_rng(1234)


class C:
    """An input that is a Constant in both graphs (parameters otherwise)."""

    def __init__(self, value: Any, dtype: Any = None) -> None:
        self.a = np.asarray(value, dtype=dtype)


def i64(v: Any) -> C:
    return C(v, np.int64)


def f32(*shape: int, lo: float = -3.0, hi: float = 3.0) -> np.ndarray:
    return RNG.uniform(lo, hi, size=shape).astype(np.float32)


def ints_(*shape: int, lo: int = -10, hi: int = 10, dtype: Any = np.int32) -> np.ndarray:
    return RNG.integers(lo, hi, size=shape).astype(dtype)


def _ov_type(node: Any, i: int) -> Any:
    ps = node.get_output_partial_shape(i)
    dims = [d.get_length() if d.is_static else -1 for d in ps]
    return tensor(node.get_output_element_type(i).get_type_name(), dims)


def build_and_run(
    op_type: str, inputs: list[Any], attrs: dict[str, Any] | None = None
) -> tuple[list[np.ndarray], list[np.ndarray], list[Any]]:
    """(xmo outputs, OpenVINO outputs, declared result types) for one op."""
    attrs = dict(attrs or {})
    ov_params, ov_values, feeds = [], [], []
    xmo_ops: list[Any] = []
    xmo_values = []
    for v in inputs:
        if isinstance(v, C):
            ov_values.append(ops16.constant(v.a).output(0))
            c = ConstantOp.from_array(v.a)
            xmo_ops.append(c)
            xmo_values.append(c.results[0])
        else:
            v = np.asarray(v)
            p = ops16.parameter(list(v.shape), dtype=v.dtype)
            ov_params.append(p)
            ov_values.append(p.output(0))
            feeds.append(v)
            xp = ParameterOp.new(et.from_numpy(v.dtype), list(v.shape))
            xmo_ops.append(xp)
            xmo_values.append(xp.results[0])
    node = _NF.create(op_type, ov_values, attrs)
    n_out = node.get_output_size()
    rtypes = [_ov_type(node, i) for i in range(n_out)]
    model = ov.Model([node.output(i) for i in range(n_out)], ov_params)
    compiled = _CORE.compile_model(model, "CPU", F32)
    req = compiled.create_infer_request()
    req.infer({i: a for i, a in enumerate(feeds)})
    ref = [np.array(req.get_output_tensor(i).data) for i in range(n_out)]

    op = op_class(op_type).make(xmo_values, attrs, result_types=rtypes)
    xmo_ops.append(op)
    xmo_ops += [ResultOp.new(r) for r in op.results]
    compiled_xmo = CompiledModel(ModuleOp(xmo_ops))
    got = list(compiled_xmo(feeds))  # step by step
    # the generated function (kernels' plans, views) computes the same
    for i, (a, b) in enumerate(zip(got, compiled_xmo(feeds))):
        assert a.dtype == b.dtype and a.shape == b.shape, f"output {i}: generated run differs"
        np.testing.assert_array_equal(a, b, err_msg=f"output {i}: generated run differs")
    return got, ref, rtypes


def check(op_type: str, inputs: list[Any], attrs: dict[str, Any] | None = None,
          rtol: float = 1e-4, atol: float = 1e-5, fold: bool = False) -> None:
    """Compare with OpenVINO; ``fold``: all inputs constant, so OpenVINO's reference
    implementation (constant folding) answers instead of the CPU plugin."""
    if fold:
        inputs = [v if isinstance(v, C) else C(v) for v in inputs]
    got, ref, rtypes = build_and_run(op_type, inputs, attrs)
    assert len(got) == len(ref)
    for i, (g, r, t) in enumerate(zip(got, ref, rtypes)):
        want = et.numpy_dtype(et.from_xdsl(t.get_element_type()))
        assert g.dtype == want, f"output {i}: dtype {g.dtype}, declared {want}"
        assert g.shape == r.shape, f"output {i}: shape {g.shape} vs OpenVINO {r.shape}"
        if g.dtype.kind == "f":
            np.testing.assert_allclose(g, r.astype(g.dtype), rtol=rtol, atol=atol,
                                       err_msg=f"output {i}")
        else:
            np.testing.assert_array_equal(g, r.astype(g.dtype), err_msg=f"output {i}")


def case(op_type: str, inputs: list[Any], attrs: dict[str, Any] | None = None,
         id: str = "", **kw: Any) -> Any:
    return pytest.param(op_type, inputs, attrs or {}, kw, id=id or op_type)


def _run_cases(op_type, inputs, attrs, kw):
    check(op_type, inputs, attrs, **kw)


# ---------------------------------------------------------------------------
# Elementwise
# ---------------------------------------------------------------------------

_A, _B = f32(2, 3, 4), f32(3, 1, lo=0.5, hi=2.0)
_IA, _IB = ints_(2, 3, 4), ints_(4, lo=1, hi=6) * np.array([1, -1, 1, -1], np.int32)

ELEMENTWISE = [
    *[case(t, [_A, _B], id=f"{t}-bcast") for t in (
        "Add", "Subtract", "Multiply", "Divide", "Maximum", "Minimum",
        "SquaredDifference", "FloorMod", "Mod", "Equal", "NotEqual", "Less",
        "LessEqual", "Greater", "GreaterEqual")],
    case("Power", [f32(2, 3, lo=0.1, hi=3), f32(2, 3, lo=-2, hi=2)], id="Power"),
    case("Add", [_A, f32(2, 3, 4)], {"auto_broadcast": "none"}, id="Add-none"),
    *[case(t, [_IA, _IB], id=f"{t}-i32") for t in (
        "Add", "Subtract", "Multiply", "FloorMod", "Mod", "Maximum", "Less")],
    # the CPU plugin truncates whatever m_pythondiv says; the reference floors
    case("Divide", [_IA, _IB], {"m_pythondiv": True}, id="Divide-i32-python", fold=True),
    case("Divide", [_IA, _IB], {"m_pythondiv": False}, id="Divide-i32-trunc"),
    *[case(t, [RNG.random((3, 4)) > 0.5, RNG.random((4,)) > 0.5], id=t)
      for t in ("LogicalAnd", "LogicalOr", "LogicalXor")],
    case("LogicalNot", [RNG.random((3, 4)) > 0.5]),
    case("Select", [RNG.random((3, 1)) > 0.5, f32(3, 4), f32(4)]),
    case("Convert", [f32(3, 4)], {"destination_type": "i32"}, id="Convert-f32-i32"),
    case("FakeQuantize", [f32(2, 3, 4), C(np.float32(-1)), C(np.float32(1.5)),
                          C(np.float32(0)), C(np.float32(2))], {"levels": 16},
         id="FakeQuantize"),
    case("IsInf", [np.array([1, np.inf, -np.inf, np.nan], np.float32)],
         {"detect_negative": False, "detect_positive": True}, id="IsInf"),
    case("IsNaN", [np.array([1, np.inf, -np.inf, np.nan], np.float32)], id="IsNaN"),
    case("IsFinite", [np.array([1, np.inf, -np.inf, np.nan], np.float32)], id="IsFinite"),
    case("Convert", [ints_(3, 4)], {"destination_type": "f32"}, id="Convert-i32-f32"),
    case("Convert", [f32(3, 4)], {"destination_type": "boolean"}, id="Convert-f32-bool"),
]


@pytest.mark.parametrize("op_type,inputs,attrs,kw", ELEMENTWISE)
def test_elementwise(op_type, inputs, attrs, kw):
    _run_cases(op_type, inputs, attrs, kw)


# ---------------------------------------------------------------------------
# Unary math and activations
# ---------------------------------------------------------------------------

_X = f32(2, 3, 5)
_UNARY = ["Relu", "Sigmoid", "Tanh", "Exp", "Abs", "Negative", "Floor", "Ceiling",
          "Sign", "Sin", "Cos", "Tan", "Atan", "Sinh", "Cosh", "Asinh", "Erf",
          "Swish", "HSwish", "HSigmoid", "Mish", "SoftPlus", "SoftSign"]

ACTIVATIONS = [
    *[case(t, [_X]) for t in _UNARY],
    *[case(t, [f32(2, 3, lo=0.1, hi=5)]) for t in ("Log", "Sqrt", "Acosh")],
    *[case(t, [f32(2, 3, lo=-0.9, hi=0.9)]) for t in ("Asin", "Acos", "Atanh")],
    case("Round", [np.array([-2.5, -1.5, -0.5, 0.5, 1.5, 2.5, 1.2], np.float32)],
         {"mode": "half_to_even"}, id="Round-even"),
    case("Round", [np.array([-2.5, -1.5, -0.5, 0.5, 1.5, 2.5, 1.2], np.float32)],
         {"mode": "half_away_from_zero"}, id="Round-away"),
    case("Gelu", [_X], {"approximation_mode": "ERF"}, id="Gelu-erf"),
    case("Gelu", [_X], {"approximation_mode": "TANH"}, id="Gelu-tanh"),
    case("Swish", [_X, C(np.float32(0.7))], id="Swish-beta"),
    case("Elu", [_X], {"alpha": 0.5}),
    case("Selu", [_X, C([1.67], np.float32), C([1.05], np.float32)]),
    case("PRelu", [f32(2, 3, 4, 4), C([0.1, 0.2, 0.3], np.float32)], id="PRelu-channel"),
    case("PRelu", [f32(2, 3), C([0.25], np.float32)], id="PRelu-scalar"),
    case("Clamp", [_X], {"min": -1.0, "max": 0.5}),
    case("Clamp", [ints_(3, 4)], {"min": -2.5, "max": 3.5}, id="Clamp-int"),
    case("HardSigmoid", [_X, C(np.float32(0.2)), C(np.float32(0.5))]),
    case("Softmax", [_X], {"axis": 1}),
    case("Softmax", [_X], {"axis": -1}, id="Softmax-neg-axis"),
    case("LogSoftmax", [_X], {"axis": 2}),
]


@pytest.mark.parametrize("op_type,inputs,attrs,kw", ACTIVATIONS)
def test_activations(op_type, inputs, attrs, kw):
    _run_cases(op_type, inputs, attrs, kw)


def test_erf_accuracy():
    from xmo.backends.cpu.kernels.activations import erf

    x = np.linspace(-6, 6, 2001)
    ref = np.array([math.erf(v) for v in x])
    assert np.max(np.abs(erf(x) - ref)) < 1e-12
    assert np.max(np.abs(erf(x.astype(np.float32)) - ref)) < 1e-7


# ---------------------------------------------------------------------------
# Convolutions
# ---------------------------------------------------------------------------


def _conv_attrs(s=(1, 1), d=(1, 1), pb=(0, 0), pe=(0, 0), auto_pad="explicit", **kw):
    return {"strides": list(s), "dilations": list(d), "pads_begin": list(pb),
            "pads_end": list(pe), "auto_pad": auto_pad, **kw}


CONVOLUTIONS = [
    case("Convolution", [f32(2, 3, 9, 8), C(f32(4, 3, 3, 3))], _conv_attrs(), id="conv-basic"),
    case("Convolution", [f32(1, 3, 10, 9), C(f32(5, 3, 3, 2))],
         _conv_attrs(s=(2, 1), d=(1, 2), pb=(1, 0), pe=(2, 1)), id="conv-stride-dil-pad"),
    *[case("Convolution", [f32(1, 2, 7, 8), C(f32(3, 2, 3, 4))],
           _conv_attrs(s=(2, 2), auto_pad=m), id=f"conv-{m}")
      for m in ("same_upper", "same_lower", "valid")],
    case("Convolution", [f32(2, 3, 12), C(f32(4, 3, 3))],
         {"strides": [2], "dilations": [1], "pads_begin": [1], "pads_end": [1],
          "auto_pad": "explicit"}, id="conv-1d"),
    case("Convolution", [f32(1, 2, 5, 6, 4), C(f32(3, 2, 2, 3, 2))],
         {"strides": [1, 2, 1], "dilations": [1, 1, 1], "pads_begin": [0, 1, 0],
          "pads_end": [1, 1, 0], "auto_pad": "explicit"}, id="conv-3d"),
    case("GroupConvolution", [f32(2, 6, 8, 8), C(f32(3, 2, 2, 3, 3))],
         _conv_attrs(pb=(1, 1), pe=(1, 1)), id="groupconv"),
    case("GroupConvolution", [f32(1, 4, 9, 9), C(f32(4, 1, 1, 3, 3))],
         _conv_attrs(s=(2, 2), auto_pad="same_upper"), id="groupconv-depthwise"),
    case("ConvolutionBackpropData", [f32(1, 3, 5, 6), C(f32(3, 2, 3, 3))],
         _conv_attrs(s=(2, 2), pb=(1, 1), pe=(1, 1)), id="deconv-stride2"),
    case("ConvolutionBackpropData", [f32(2, 3, 4, 5), C(f32(3, 4, 3, 2))],
         _conv_attrs(s=(2, 1), d=(1, 2), pb=(0, 1), pe=(1, 0), output_padding=[1, 0]),
         id="deconv-outpad-dil"),
    case("ConvolutionBackpropData", [f32(1, 2, 5, 5), C(f32(2, 3, 3, 3)), i64([9, 10])],
         _conv_attrs(s=(2, 2)), id="deconv-output-shape"),
    *[case("ConvolutionBackpropData", [f32(1, 2, 5, 4), C(f32(2, 3, 3, 3))],
           _conv_attrs(s=(2, 2), auto_pad=m), id=f"deconv-{m}")
      for m in ("same_upper", "same_lower", "valid")],
    case("GroupConvolutionBackpropData", [f32(1, 4, 4, 4), C(f32(2, 2, 3, 3, 3))],
         _conv_attrs(s=(2, 2), pb=(1, 1), pe=(0, 0)), id="group-deconv"),
]


@pytest.mark.parametrize("op_type,inputs,attrs,kw", CONVOLUTIONS)
def test_convolutions(op_type, inputs, attrs, kw):
    _run_cases(op_type, inputs, attrs, kw)


# ---------------------------------------------------------------------------
# Pooling
# ---------------------------------------------------------------------------


def _pool(k=(2, 2), s=(2, 2), pb=(0, 0), pe=(0, 0), **kw):
    a = {"kernel": list(k), "strides": list(s), "pads_begin": list(pb),
         "pads_end": list(pe), "dilations": [1] * len(k)}
    a.update(kw)
    return a


POOLING = [
    case("MaxPool", [f32(2, 3, 8, 8)], _pool(), id="max-2x2"),
    case("MaxPool", [f32(1, 2, 9, 7)], _pool(k=(3, 3), s=(2, 2), pb=(1, 1), pe=(1, 1)),
         id="max-pad"),
    case("MaxPool", [f32(1, 2, 9, 8)], _pool(k=(3, 2), s=(2, 2), rounding_type="ceil"),
         id="max-ceil"),
    case("MaxPool", [f32(1, 2, 9, 8)], _pool(k=(3, 3), s=(2, 2), rounding_type="ceil_torch",
                                             pb=(1, 1), pe=(1, 1)), id="max-ceil-torch"),
    case("MaxPool", [f32(1, 2, 9, 9)], _pool(k=(3, 3), s=(1, 1), dilations=[2, 2]),
         id="max-dilated"),
    case("MaxPool", [f32(2, 3, 7, 6)], _pool(k=(3, 3), s=(2, 2), auto_pad="same_upper",
                                             axis=2), id="max-same-axis2"),
    case("MaxPool", [f32(2, 3, 7, 6)], _pool(k=(3, 3), s=(2, 2), auto_pad="same_lower",
                                             axis=1, index_element_type="i32"),
         id="max-same-lower-axis1"),
    case("MaxPool", [f32(2, 3, 10)], _pool(k=(3,), s=(2,), pb=(1,), pe=(1,)), id="max-1d"),
    case("AvgPool", [f32(2, 3, 8, 8)], _pool(**{"exclude-pad": False}), id="avg-2x2"),
    case("AvgPool", [f32(1, 2, 9, 7)], _pool(k=(3, 3), s=(2, 2), pb=(1, 1), pe=(1, 1),
                                             **{"exclude-pad": True}), id="avg-exclude"),
    case("AvgPool", [f32(1, 2, 9, 7)], _pool(k=(3, 3), s=(2, 2), pb=(1, 1), pe=(1, 1),
                                             **{"exclude-pad": False}), id="avg-include"),
    case("AvgPool", [f32(1, 2, 9, 8)], _pool(k=(3, 3), s=(2, 2), rounding_type="ceil",
                                             **{"exclude-pad": True}), id="avg-ceil"),
    case("AvgPool", [f32(1, 2, 9, 8)], _pool(k=(3, 3), s=(2, 2), rounding_type="ceil",
                                             pb=(1, 1), pe=(1, 1), **{"exclude-pad": False}),
         id="avg-ceil-include"),
    case("AvgPool", [f32(1, 2, 7, 6)], _pool(k=(3, 3), s=(2, 2), auto_pad="same_upper",
                                             **{"exclude-pad": True}), id="avg-same"),
]


@pytest.mark.parametrize("op_type,inputs,attrs,kw", POOLING)
def test_pooling(op_type, inputs, attrs, kw):
    _run_cases(op_type, inputs, attrs, kw)


# ---------------------------------------------------------------------------
# MatMul, Einsum
# ---------------------------------------------------------------------------

MATMUL = [
    case("MatMul", [f32(2, 3, 4), f32(4, 5)], id="matmul-bcast"),
    case("MatMul", [f32(4, 3), f32(2, 5, 4)], {"transpose_a": True, "transpose_b": True},
         id="matmul-transposed"),
    case("MatMul", [f32(4), f32(2, 4, 3)], id="matmul-1d-a"),
    case("MatMul", [f32(2, 3, 4), C(f32(4))], id="matmul-1d-b"),
    case("MatMul", [ints_(3, 4), ints_(4, 2)], id="matmul-int"),
    case("Einsum", [f32(2, 3, 4), f32(2, 4, 5)], {"equation": "bij,bjk->bik"}, id="einsum-bmm"),
    case("Einsum", [f32(3, 3)], {"equation": "ii->i"}, id="einsum-diag"),
    case("Einsum", [f32(2, 3, 4), f32(4, 2)], {"equation": "...j,jk->...k"},
         id="einsum-ellipsis"),
]


@pytest.mark.parametrize("op_type,inputs,attrs,kw", MATMUL)
def test_matmul(op_type, inputs, attrs, kw):
    _run_cases(op_type, inputs, attrs, kw)


# ---------------------------------------------------------------------------
# Shape manipulation
# ---------------------------------------------------------------------------

_S = f32(2, 3, 4)

SHAPE_OPS = [
    case("Reshape", [_S, i64([4, -1])], {"special_zero": False}, id="reshape"),
    case("Reshape", [_S, i64([0, -1, 2])], {"special_zero": True}, id="reshape-zero"),
    case("Transpose", [_S, i64([2, 0, 1])], id="transpose"),
    case("Transpose", [_S, i64([])], id="transpose-empty"),
    case("Concat", [_S, f32(2, 5, 4), f32(2, 1, 4)], {"axis": 1}, id="concat"),
    case("Concat", [ints_(2, 3), ints_(2, 2)], {"axis": -1}, id="concat-neg-int"),
    case("Split", [f32(2, 6, 3), i64(1)], {"num_splits": 3}, id="split"),
    case("VariadicSplit", [f32(2, 7, 3), i64(-2), i64([2, -1, 1])], id="variadic-split"),
    case("Squeeze", [f32(1, 3, 1, 2), i64([0, 2])], id="squeeze-axes"),
    case("Squeeze", [f32(1, 3, 1, 2)], id="squeeze-all"),
    case("Squeeze", [f32(1, 3, 1, 2), i64([1, 2])], {"allow_axis_skip": True},
         id="squeeze-skip"),
    case("Unsqueeze", [f32(3, 2), i64([0, -1])], id="unsqueeze"),
    case("ShapeOf", [_S], {"output_type": "i64"}, id="shapeof-i64"),
    case("Roll", [_S, i64([1, -2]), i64([0, 2])], id="roll"),
    case("ShuffleChannels", [f32(2, 6, 3)], {"axis": 1, "group": 3}, id="shuffle-channels"),
    case("ShapeOf", [_S], {"output_type": "i32"}, id="shapeof-i32"),
    *[case("DepthToSpace", [f32(2, 8, 3, 2)], {"block_size": 2, "mode": m}, id=f"d2s-{m}")
      for m in ("blocks_first", "depth_first")],
    case("DepthToSpace", [f32(1, 16, 2, 3, 2)], {"block_size": 2, "mode": "depth_first"},
         id="d2s-3d"),
    *[case("SpaceToDepth", [f32(2, 3, 4, 6)], {"block_size": 2, "mode": m}, id=f"s2d-{m}")
      for m in ("blocks_first", "depth_first")],
]


@pytest.mark.parametrize("op_type,inputs,attrs,kw", SHAPE_OPS)
def test_shape_ops(op_type, inputs, attrs, kw):
    _run_cases(op_type, inputs, attrs, kw)


# ---------------------------------------------------------------------------
# Indexing
# ---------------------------------------------------------------------------

_D = f32(3, 4, 5)
# 2 batches x 6 boxes (some corners swapped), 2 classes with distinct scores
_NMS_BOXES = np.float32([[[0, 0, 1, 1], [0, 0.1, 1, 1.1], [1, 1, 0, 0], [0, 10, 1, 11],
                          [0, 10.1, 1, 11.1], [0, 100, 1, 101]]] * 2)
_NMS_SCORES = np.float32([[[0.9, 0.75, 0.6, 0.95, 0.5, 0.3], [0.1, 0.2, 0.35, 0.4, 0.55, 0.65]],
                          [[0.33, 0.76, 0.61, 0.96, 0.51, 0.91], [0.02, 0.22, 0.32, 0.42, 0.52, 0.62]]])
# many overlapping boxes (the vectorised greedy selection), 3 classes, one batch
_NMS_XY = RNG.uniform(0, 60, (1, 400, 2))
_NMS_MANY = np.concatenate([_NMS_XY, _NMS_XY + RNG.uniform(1, 12, (1, 400, 2))], -1).astype(np.float32)
_NMS_MANY_SCORES = RNG.random((1, 3, 400)).astype(np.float32)
# ROIs (x1, y1, x2, y2 at spatial_scale 0.5 on a 10 x 12 map): inside, across
# the border, outside, reversed corners, smaller than a cell
_ROIS = np.float32([[2, 3, 14, 15], [-6, -4, 10, 8], [20, 16, 30, 26], [30, 18, 40, 30],
                    [12, 9, 4, 2], [7, 7, 7.5, 8]])
_ROI_BATCH = i64([0, 1, 1, 0, 1, 0])

INDEXING = [
    case("Gather", [_D, i64([[0, 2], [-1, 1]]), i64(1)], id="gather"),
    case("Gather", [_D, C([2, 0, 4], np.int32), i64(-1)], id="gather-last-axis"),
    case("Gather", [f32(2, 4, 5), i64([[0, 3], [1, 1]]), i64(1)], {"batch_dims": 1},
         id="gather-batch"),
    case("Gather", [f32(2, 3, 4, 5), i64([[1, 0], [2, 2]]), i64(2)], {"batch_dims": 1},
         id="gather-batch-axis2"),
    case("GatherND", [_D, i64([[0, 1], [2, 3]])], id="gathernd"),
    case("GatherND", [_D, i64([[[0, 1, 2]], [[2, -1, 0]]])], id="gathernd-full"),
    case("GatherND", [f32(2, 3, 4), i64([[[1], [0]], [[2], [1]]])], {"batch_dims": 1},
         id="gathernd-batch"),
    case("GatherElements", [_D, i64(RNG.integers(0, 4, (3, 2, 5)))], {"axis": 1},
         id="gather-elements"),
    case("ScatterUpdate", [_D, i64([[2, 0]]), f32(3, 1, 2, 5), i64(1)], id="scatter-update"),
    case("ScatterNDUpdate", [_D, i64([[0, 1], [2, 3]]), f32(2, 5)], id="scatternd"),
    case("ScatterNDUpdate", [_D, i64([[0], [0], [2]]), f32(3, 4, 5)], {"reduction": "sum"},
         id="scatternd-sum"),
    case("ScatterNDUpdate", [_D, i64([[1, 1, 1], [1, 1, 1]]), f32(2)], {"reduction": "max"},
         id="scatternd-max"),
    case("ScatterElementsUpdate", [_D, i64([[[0, 1, 2, 0, 1]]]), f32(1, 1, 5), i64(1)],
         id="scatter-elements"),
    *[case("ScatterElementsUpdate",
           [_D, i64([[[0, 0, 2, 0, 1]], [[1, 1, 1, 3, 3]]]), f32(2, 1, 5), i64(1)],
           {"reduction": r, "use_init_val": u}, id=f"scatter-elements-{r}-{u}")
      for r, u in (("sum", True), ("prod", False), ("max", True), ("min", False),
                   ("mean", True), ("mean", False))],
    case("StridedSlice", [_D, i64([0, 1, 0]), i64([2, -1, 5]), i64([1, 2, 1])],
         {"begin_mask": [0, 0, 1], "end_mask": [0, 0, 1], "new_axis_mask": [],
          "shrink_axis_mask": [], "ellipsis_mask": []}, id="strided-slice"),
    case("StridedSlice", [_D, i64([1, 0, 3]), i64([2, 0, 0]), i64([1, 1, -1])],
         {"begin_mask": [0, 0, 0], "end_mask": [0, 1, 1], "new_axis_mask": [0, 1, 0],
          "shrink_axis_mask": [1, 0, 0], "ellipsis_mask": []}, id="strided-slice-masks",
         fold=True),  # the CPU plugin returns garbage here
    case("StridedSlice", [f32(2, 3, 4, 5), i64([0, 1]), i64([0, 3]), i64([1, 1])],
         {"begin_mask": [0, 0], "end_mask": [0, 0], "new_axis_mask": [0, 0],
          "shrink_axis_mask": [0, 0], "ellipsis_mask": [1, 0]}, id="strided-slice-ellipsis"),
    case("Slice", [_D, i64([1, -1]), i64([3, 0]), i64([1, -2]), i64([1, 2])], id="slice"),
    case("Slice", [_D, i64([0, 0, 0]), i64([2, 100, 5]), i64([1, 1, 3])], id="slice-noaxes"),
    *[case("Bucketize", [np.float32([[-2, -1, 0], [0.5, 1, 3]]), C([-1, 0, 1], np.float32)],
           {"output_type": "i32", "with_right_bound": right}, id=f"bucketize-right-{right}")
      for right in (True, False)],
    *[case("NonMaxSuppression",
           [_NMS_BOXES, _NMS_SCORES, i64(3), C(np.float32(0.4)), C(np.float32(0.05)),
            C(np.float32(sigma))],
           {"box_encoding": "corner", "sort_result_descending": desc, "output_type": "i64"},
           id=f"nms-desc-{desc}-sigma-{sigma}")
      for desc in (True, False) for sigma in (0.0, 0.5)],
    *[case("NonMaxSuppression",
           [_NMS_MANY, _NMS_MANY_SCORES, i64(max_out), C(np.float32(0.3)), C(np.float32(0.2))],
           {"box_encoding": "corner", "sort_result_descending": True, "output_type": "i64"},
           id=f"nms-many-boxes-max-{max_out}")
      for max_out in (40, 1000)],
    *[case("ROIAlign", [f32(2, 3, 10, 12), _ROIS, _ROI_BATCH],
           {"pooled_h": 3, "pooled_w": 2, "sampling_ratio": ratio, "spatial_scale": 0.5,
            "mode": mode, "aligned_mode": aligned},
           id=f"roi-align-{mode}-{aligned}-ratio-{ratio}")
      for mode in ("avg", "max") for aligned in ("asymmetric", "half_pixel_for_nn", "half_pixel")
      for ratio in (0, 2)],
]


@pytest.mark.parametrize("op_type,inputs,attrs,kw", INDEXING)
def test_indexing(op_type, inputs, attrs, kw):
    _run_cases(op_type, inputs, attrs, kw)


# ---------------------------------------------------------------------------
# Generation
# ---------------------------------------------------------------------------

GENERATION = [
    *[case("Pad", [f32(2, 3, 4), i64([0, 1, 2]), i64([1, 2, 0])], {"pad_mode": m},
           id=f"pad-{m}") for m in ("edge", "reflect", "symmetric")],
    case("Pad", [f32(2, 3, 4), i64([0, 1, 2]), i64([1, 0, 1]), C(np.float32(1.5))],
         {"pad_mode": "constant"}, id="pad-constant"),
    case("Pad", [f32(2, 3, 4), i64([0, -1, 2]), i64([1, 0, -2])], {"pad_mode": "constant"},
         id="pad-negative"),
    case("Broadcast", [f32(3, 1), i64([2, 3, 4])], {"mode": "numpy"}, id="broadcast-numpy"),
    case("Broadcast", [f32(3, 1), i64([2, 1, 4])], {"mode": "bidirectional"},
         id="broadcast-bidir"),
    case("Broadcast", [f32(3), i64([2, 3, 4]), i64([1])], {"mode": "explicit"},
         id="broadcast-explicit"),
    case("Tile", [f32(2, 3), i64([2, 1, 3])], id="tile"),
    case("Range", [C(np.float32(0.5)), C(np.float32(4)), C(np.float32(0.75))],
         {"output_type": "f32"}, id="range-f32"),
    case("Range", [C(np.int32(10)), C(np.int32(-3)), C(np.int32(-3))],
         {"output_type": "i32"}, id="range-i32"),
    case("OneHot", [i64([[0, 2], [1, -1]]), i64(3), C(np.float32(5)), C(np.float32(-1))],
         {"axis": -1, "negative_indices_mode": "ignore_negative"}, id="onehot"),
    case("OneHot", [i64([[0, 2], [1, -1]]), i64(3), C(np.float32(5)), C(np.float32(-1))],
         {"axis": 1, "negative_indices_mode": "normalize"}, id="onehot-axis1-normalize"),
    case("NonZero", [C(np.array([[0, 1.5, 0], [2, 0, 3]], np.float32))],
         {"output_type": "i64"}, id="nonzero"),
]


@pytest.mark.parametrize("op_type,inputs,attrs,kw", GENERATION)
def test_generation(op_type, inputs, attrs, kw):
    _run_cases(op_type, inputs, attrs, kw)


# ---------------------------------------------------------------------------
# Reductions, TopK, CumSum
# ---------------------------------------------------------------------------

_R = f32(2, 3, 4, lo=0.2, hi=2.0)
_BOOL = RNG.random((2, 3, 4)) > 0.3

REDUCTIONS = [
    *[case(t, [_R, i64([1, -1])], {"keep_dims": k}, id=f"{t}-{k}")
      for t in ("ReduceSum", "ReduceMean", "ReduceMax", "ReduceMin", "ReduceProd",
                "ReduceL1", "ReduceL2") for k in (False, True)],
    case("ReduceSum", [ints_(2, 3, 4), i64([0])], id="ReduceSum-int"),
    case("ReduceLogicalAnd", [_BOOL, i64([2])], id="ReduceLogicalAnd"),
    case("ReduceLogicalOr", [_BOOL, i64([0, 2])], {"keep_dims": True}, id="ReduceLogicalOr"),
    *[case("TopK", [f32(3, 7), i64(3)], {"axis": 1, "mode": m, "sort": s,
                                          "index_element_type": "i32"}, id=f"topk-{m}-{s}")
      for m in ("max", "min") for s in ("value", "index")],
    case("TopK", [np.array([[1, 3, 3, 2, 3, 1]], np.float32), i64(4)],
         {"axis": -1, "mode": "max", "sort": "value", "stable": True,
          "index_element_type": "i64"}, id="topk-stable-ties"),
    *[case("CumSum", [f32(3, 4), i64(1)], {"exclusive": e, "reverse": r},
           id=f"cumsum-{e}-{r}") for e in (False, True) for r in (False, True)],
    case("CumSum", [ints_(3, 4), i64(-2)], id="cumsum-int"),
]


@pytest.mark.parametrize("op_type,inputs,attrs,kw", REDUCTIONS)
def test_reductions(op_type, inputs, attrs, kw):
    _run_cases(op_type, inputs, attrs, kw)


# ---------------------------------------------------------------------------
# Interpolate
# ---------------------------------------------------------------------------


def _interp(mode, ctm="half_pixel", nearest="round_prefer_floor", calc="sizes", **kw):
    return {"mode": mode, "shape_calculation_mode": calc,
            "coordinate_transformation_mode": ctm, "nearest_mode": nearest,
            "antialias": False, "pads_begin": [0, 0, 0, 0], "pads_end": [0, 0, 0, 0],
            "cube_coeff": -0.75, **kw}


_IMG = f32(1, 2, 5, 6)
INTERPOLATE = [
    *[case("Interpolate", [_IMG, i64([9, 4]), i64([2, 3])], _interp("nearest", nearest=n),
           id=f"nearest-{n}")
      for n in ("round_prefer_floor", "round_prefer_ceil", "floor", "ceil", "simple")],
    *[case("Interpolate", [_IMG, i64([8, 13]), i64([2, 3])], _interp("nearest", ctm=c),
           id=f"nearest-{c}")
      for c in ("asymmetric", "align_corners", "tf_half_pixel_for_nn", "pytorch_half_pixel")],
    *[case("Interpolate", [_IMG, i64([9, 4]), i64([2, 3])], _interp("linear_onnx", ctm=c),
           id=f"linear_onnx-{c}")
      for c in ("half_pixel", "align_corners", "asymmetric", "pytorch_half_pixel")],
    *[case("Interpolate", [_IMG, i64([9, 4]), i64([2, 3])], _interp("cubic", ctm=c),
           id=f"cubic-{c}") for c in ("half_pixel", "align_corners", "asymmetric")],
    case("Interpolate", [_IMG, i64([10, 12]), i64([2, 3])], _interp("linear"), id="linear-up"),
    case("Interpolate", [_IMG, i64([3, 4]), i64([2, 3])], _interp("linear"), id="linear-down"),
    case("Interpolate", [f32(1, 1, 12, 10), i64([5, 4]), i64([2, 3])],
         _interp("linear", antialias=True), id="linear-antialias",
         fold=True),  # the CPU plugin ignores antialias; the reference honors it
    case("Interpolate", [_IMG, C([1.5, 0.5], np.float32), i64([2, 3])],
         _interp("linear_onnx", calc="scales"), id="linear_onnx-scales"),
    case("Interpolate", [_IMG, C([2.0, 1.5], np.float32), i64([2, 3])],
         _interp("nearest", calc="scales", ctm="asymmetric", nearest="floor"),
         id="nearest-scales"),
    case("Interpolate", [_IMG, i64([9, 10]), i64([2, 3])],
         _interp("linear_onnx", pads_begin=[0, 0, 1, 0], pads_end=[0, 0, 0, 2]), id="pads"),
    case("Interpolate", [_IMG, i64([1, 2, 7, 8])], _interp("cubic"), id="cubic-no-axes"),
]


@pytest.mark.parametrize("op_type,inputs,attrs,kw", INTERPOLATE)
def test_interpolate(op_type, inputs, attrs, kw):
    _run_cases(op_type, inputs, attrs, kw)


# ---------------------------------------------------------------------------
# Normalization
# ---------------------------------------------------------------------------

NORMALIZATION = [
    case("MVN", [f32(2, 3, 4, 5), i64([2, 3])],
         {"normalize_variance": True, "eps": 1e-5, "eps_mode": "inside_sqrt"}, id="mvn-inside"),
    case("MVN", [f32(2, 3, 4, 5), i64([1, 2, 3])],
         {"normalize_variance": True, "eps": 1e-3, "eps_mode": "outside_sqrt"},
         id="mvn-outside"),
    case("MVN", [f32(2, 3, 4), i64([-1])],
         {"normalize_variance": False, "eps": 1e-5, "eps_mode": "inside_sqrt"},
         id="mvn-mean-only"),
    case("NormalizeL2", [f32(2, 3, 4), i64([1])], {"eps": 1e-6, "eps_mode": "add"},
         id="l2-add"),
    case("NormalizeL2", [f32(2, 3, 4), i64([1, 2])], {"eps": 1e-6, "eps_mode": "max"},
         id="l2-max"),
    case("GroupNormalization", [f32(2, 6, 3, 4), C(f32(6)), C(f32(6))],
         {"num_groups": 3, "epsilon": 1e-5}, id="groupnorm"),
    case("BatchNormInference",
         [f32(2, 3, 4, 4), C(f32(3)), C(f32(3)), C(f32(3)), C(f32(3, lo=0.5, hi=2))],
         {"epsilon": 1e-5}, id="batchnorm"),
]


@pytest.mark.parametrize("op_type,inputs,attrs,kw", NORMALIZATION)
def test_normalization(op_type, inputs, attrs, kw):
    _run_cases(op_type, inputs, attrs, kw)


# ---------------------------------------------------------------------------
# DFT family
# ---------------------------------------------------------------------------

DFT = [
    case("DFT", [f32(2, 8, 6, 2), i64([1, 2])], id="dft-2d-inner", rtol=1e-4, atol=1e-4),
    case("IDFT", [f32(2, 8, 6, 2), i64([-2, -1])], id="idft-2d-inner", atol=1e-4),
    case("DFT", [f32(2, 8, 6, 2), i64([0])], id="dft-axis0", atol=1e-4),
    case("DFT", [f32(3, 8, 6, 2), i64([1, 2]), i64([5, -1])], id="dft-signal-size",
         atol=1e-4),
    case("RDFT", [f32(2, 8, 6), i64([1, 2])], id="rdft", atol=1e-4),
    # the CPU plugin rejects signal sizes larger than the input, and -1 in IRDFT
    case("RDFT", [f32(4, 6), i64([0]), i64([3])], id="rdft-signal-size", atol=1e-4),
    case("IRDFT", [f32(2, 8, 4, 2), i64([1, 2]), i64([6, 5])], id="irdft-signal-size",
         atol=1e-4),
    case("IRDFT", [f32(2, 8, 4, 2), i64([2]), i64([7])], id="irdft-signal-size-1d",
         atol=1e-4),
]


@pytest.mark.parametrize("op_type,inputs,attrs,kw", DFT)
def test_dft(op_type, inputs, attrs, kw):
    _run_cases(op_type, inputs, attrs, kw)


def _fft2d_check(x: np.ndarray, inverse: bool, rtol: float) -> None:
    """fft2d(x) against numpy (complex128) on the [..., H, W, 2] layout."""
    z = x[..., 0].astype(np.complex128) + 1j * x[..., 1]
    ref = np.fft.ifft2(z) if inverse else np.fft.fft2(z)
    y = fft2d(x, inverse)
    assert y.shape == x.shape and y.dtype == x.dtype
    got = y[..., 0] + 1j * y[..., 1]
    assert np.max(np.abs(got - ref)) <= rtol * np.max(np.abs(ref))
    np.testing.assert_allclose(got, ref, rtol=rtol, atol=rtol * np.abs(ref).mean())


# 64, 256: radix-4; 100 = 4*5*5, 96 = 2^5*3: mixed radix; 97 (prime): Bluestein
@pytest.mark.parametrize("shape", [(64, 64), (100, 100), (96, 96), (97, 97), (256, 256),
                                   (64, 100), (100, 64)], ids=lambda s: f"{s[0]}x{s[1]}")
@pytest.mark.parametrize("inverse", [False, True], ids=["fwd", "inv"])
def test_fft2d_matches_numpy(shape, inverse):
    x = np.random.default_rng(shape[0] * 1000 + shape[1]).standard_normal(
        (2, *shape, 2)).astype(np.float32)
    _fft2d_check(x, inverse, 1e-4)


@pytest.mark.parametrize("lead", [(), (1,), (3,), (2, 3), (5, 1, 2)], ids=str)
@pytest.mark.parametrize("inverse", [False, True], ids=["fwd", "inv"])
def test_fft2d_batch_shapes(lead, inverse):
    # single plane and < / >= one plane per core take different parallel paths
    x = np.random.default_rng(len(lead)).standard_normal((*lead, 24, 40, 2)).astype(np.float32)
    _fft2d_check(x, inverse, 1e-4)


@pytest.mark.parametrize("shape", [(12, 20), (7, 11), (97, 96), (1, 1), (2, 3), (53, 106),
                                   (49, 111)], ids=lambda s: f"{s[0]}x{s[1]}")
@pytest.mark.parametrize("inverse", [False, True], ids=["fwd", "inv"])
def test_fft2d_float64_odd_sizes(shape, inverse):
    # 7, 11, 49 = 7*7: generic prime radix; 53, 97, 111 = 3*37: Bluestein
    x = np.random.default_rng(0).standard_normal((2, 3, *shape, 2))
    _fft2d_check(x, inverse, 1e-9)


def test_fft2d_rectangular_and_batch_dims():
    x = np.random.default_rng(0).standard_normal((2, 3, 12, 20, 2))
    z = x[..., 0] + 1j * x[..., 1]
    y = fft2d(x, False)
    assert y.dtype == np.float64
    np.testing.assert_allclose(y[..., 0] + 1j * y[..., 1], np.fft.fft2(z), atol=1e-9)


def test_fft2d_roundtrip_and_errors():
    x = np.random.default_rng(7).standard_normal((3, 96, 97, 2)).astype(np.float32)
    back = fft2d(fft2d(x, False), True)
    np.testing.assert_allclose(back, x, atol=1e-5)
    # non-contiguous input, non-float dtype
    xt = np.random.default_rng(8).standard_normal((64, 2, 100, 2)).astype(np.float32)
    xt = xt.transpose(1, 0, 2, 3)
    _fft2d_check(xt, False, 1e-4)
    xi = np.arange(2 * 6 * 10 * 2).reshape(2, 6, 10, 2)
    y = fft2d(xi, False)
    assert y.dtype == np.float64
    z = xi[..., 0] + 1j * xi[..., 1]
    np.testing.assert_allclose(y[..., 0] + 1j * y[..., 1], np.fft.fft2(z), atol=1e-8)
    with pytest.raises(ValueError):
        fft2d(np.zeros((4, 4, 3), np.float32))
    with pytest.raises(ValueError):
        fft2d(np.zeros((4, 2), np.float32))


# ---------------------------------------------------------------------------
# Executor: graphs, names, liveness, errors
# ---------------------------------------------------------------------------


def _two_layer(ctx: Any = None) -> ModuleOp:
    x = ParameterOp.new("f32", [2, 4], name="data", tensor_names=["data:0", "input"])
    store = weight_store(ctx) if ctx is not None else None
    w = ConstantOp.from_array(np.arange(12, dtype=np.float32).reshape(4, 3) / 10, store=store)
    y = ParameterOp.new("f32", [-1, 3], name="bias")
    mm = op_class("MatMul").make([x, w], {}, result_types=[tensor("f32", [2, 3])], name="mm")
    add = op_class("Add").make([mm, y], {}, result_types=[tensor("f32", [2, 3])],
                               name="add", tensor_names=[["sum"]])
    relu = op_class("Relu").make([add], {}, result_types=[tensor("f32", [2, 3])], name="relu")
    r0 = ResultOp.new(relu.results[0], name="out0")
    r1 = ResultOp.new(add.results[0])
    return ModuleOp([x, w, y, mm, add, relu, r0, r1])


def test_graph_inputs_by_name_and_position(ctx):
    model = compile_model(_two_layer(ctx))
    a = np.arange(8, dtype=np.float32).reshape(2, 4)
    b = np.ones((2, 3), np.float32)
    want_sum = a @ (np.arange(12, dtype=np.float32).reshape(4, 3) / 10) + b
    for feed in ([a, b], {"data": a, "bias": b}, {"input": a, "bias": b}, {0: a, 1: b}):
        out = model(feed)
        assert len(out) == 2
        np.testing.assert_allclose(out[1], want_sum, rtol=1e-6)
        np.testing.assert_allclose(out["sum"], want_sum, rtol=1e-6)
        np.testing.assert_allclose(out["out0"], np.maximum(want_sum, 0), rtol=1e-6)
        np.testing.assert_allclose(out["relu"], out[0])
    assert model.input_names == ["data:0", "bias"]
    assert model.inputs[0].names == ("data:0", "input", "data")
    assert model.output_names[1] == "sum"
    assert [n.name for n in model.schedule] == ["mm", "add", "relu"]
    # dynamic batch of the second input
    with pytest.raises(InputError, match="shape"):
        model([a, np.ones((2, 4), np.float32)])


def test_intermediates_are_freed():
    model = compile_model(_two_layer())
    steps = model._steps
    # the MatMul result (slot of mm) is freed right after Add, its last user
    mm_out = steps[0].outs[0]
    assert mm_out in steps[1].free
    # model outputs and constants are never freed
    assert not any(s in st.free for st in steps for s in model._results)
    assert not any(s in st.free for st in steps for s in model._consts)


def test_input_errors():
    model = compile_model(_two_layer())
    a = np.zeros((2, 4), np.float32)
    b = np.zeros((2, 3), np.float32)
    with pytest.raises(InputError, match="element type float64"):
        model([a.astype(np.float64), b])
    with pytest.raises(InputError, match=r"shape \[3, 4\].*\[2,4\]"):
        model([np.zeros((3, 4), np.float32), b])
    with pytest.raises(InputError, match="2 inputs, got 1"):
        model([a])
    with pytest.raises(InputError, match="no input named 'nope'"):
        model({"nope": a, "bias": b})
    with pytest.raises(InputError, match="missing"):
        model({"data": a})
    # Python lists are converted to the declared element type
    out = model([a.tolist(), b.tolist()])
    assert out[0].dtype == np.float32
    with pytest.raises(KeyError, match="no output named"):
        out["nope"]


def test_missing_kernel_names_op_and_friendly_name():
    x = ParameterOp.new("f32", [2, 3])
    ctc = op_class("CTCGreedyDecoder")
    op = ctc.make([x, x], {}, result_types=[tensor("f32", [2, 3])], name="decoder_7")
    module = ModuleOp([x, op, ResultOp.new(op.results[0])])
    with pytest.raises(KernelNotFoundError, match=r"CTCGreedyDecoder.*'decoder_7'"):
        CompiledModel(module)


def test_user_kernel_registration():
    x = ParameterOp.new("f32", [3])
    op = op_class("Relu").make([x], {}, result_types=[tensor("f32", [3])], name="r")
    module = ModuleOp([x, op, ResultOp.new(op.results[0])])
    with pytest.raises(ValueError, match="already registered"):
        register_kernel("ov.Relu")(lambda node, v: v)
    saved = kernel_for("ov.Relu")
    try:
        @register_kernel("ov.Relu", override=True)
        def leaky(node, v):
            return np.where(v > 0, v, 0.5 * v)

        out = CompiledModel(module)([np.array([-2.0, 0.0, 3.0], np.float32)])
        np.testing.assert_array_equal(out[0], [-1.0, 0.0, 3.0])
    finally:
        register_kernel("ov.Relu", override=True)(saved)


def test_kernel_failure_names_the_op():
    x = ParameterOp.new("f32", [4])
    # declared shape disagrees with what the kernel computes
    op = op_class("Relu").make([x], {}, result_types=[tensor("f32", [5])], name="bad")
    module = ModuleOp([x, op, ResultOp.new(op.results[0])])
    with pytest.raises(KernelError, match=r"Relu.*'bad'.*shape \[4\]"):
        CompiledModel(module)([np.zeros(4, np.float32)])


def test_compile_mlir_file(tmp_path, ctx):
    from xdsl.printer import Printer
    import io

    module = _two_layer(ctx)
    buf = io.StringIO()
    Printer(stream=buf).print_op(module)
    path = tmp_path / "m.mlir"
    path.write_text(buf.getvalue())
    model = compile_model(path)
    a = np.ones((2, 4), np.float32)
    b = np.zeros((1, 3), np.float32)
    np.testing.assert_allclose(model([a, b])[1], compile_model(module)([a, b])[1])
    with pytest.raises(Exception, match="no such file"):
        compile_model(tmp_path / "m.onnx")


def test_compile_ir_file_matches_openvino(tmp_path, ctx):
    from xmo.backends.ir import serialize

    module = _two_layer(ctx)
    xml = tmp_path / "m.xml"
    serialize(module, xml, verify=False)
    model = compile_model(xml)
    a = np.random.default_rng(0).standard_normal((2, 4)).astype(np.float32)
    b = np.ones((2, 3), np.float32)
    out = model({"data": a, "bias": b})
    compiled = _CORE.compile_model(str(xml), "CPU", F32)
    ref = compiled([a, b])
    np.testing.assert_allclose(out["sum"], ref[compiled.outputs[1]], rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(out[0], ref[compiled.outputs[0]], rtol=1e-5, atol=1e-6)


# ---------------------------------------------------------------------------
# Sampling, recurrent sequences, Unique, Col2Im, LRN, fast convolution paths
# ---------------------------------------------------------------------------

_H = 5


def _rnn_inputs(gates: int, dirs: int, b: int = 3, t: int = 4, i: int = 3,
                states: int = 1, bias: int | None = None, lengths=(4, 2, 3)) -> list[Any]:
    return [f32(b, t, i), *[f32(b, dirs, _H) for _ in range(states)],
            C(np.array(lengths, np.int32)), C(f32(dirs, gates * _H, i, lo=-1, hi=1)),
            C(f32(dirs, gates * _H, _H, lo=-1, hi=1)),
            C(f32(dirs, (bias or gates) * _H, lo=-1, hi=1))]


def _rnn_attrs(kind: str, direction: str, **kw: Any) -> dict[str, Any]:
    acts = {"rnn": ["tanh"], "gru": ["sigmoid", "tanh"], "lstm": ["sigmoid", "tanh", "tanh"]}
    return {"direction": direction, "hidden_size": _H, "activations": acts[kind],
            "activations_alpha": [], "activations_beta": [], "clip": 0.0, **kw}


NEW_KERNELS = [
    *[case("GridSample", [f32(2, 3, 5, 6), f32(2, 4, 3, 2, lo=-1.3, hi=1.3)],
           {"mode": m, "padding_mode": p, "align_corners": a}, id=f"gridsample-{m}-{p}-{a}",
           atol=1e-4)
      for m in ("bilinear", "nearest", "bicubic") for p in ("zeros", "border", "reflection")
      for a in (False, True)],
    *[case("RNNSequence", _rnn_inputs(1, 2 if d == "bidirectional" else 1),
           _rnn_attrs("rnn", d), id=f"rnn-{d}", atol=1e-4)
      for d in ("forward", "reverse", "bidirectional")],
    case("RNNSequence", _rnn_inputs(1, 1), _rnn_attrs("rnn", "forward", activations=["relu"],
                                                      clip=1.5),
         id="rnn-relu-clip", atol=1e-4),
    *[case("GRUSequence", _rnn_inputs(3, 2 if d == "bidirectional" else 1,
                                      bias=4 if lbr else 3),
           _rnn_attrs("gru", d, linear_before_reset=lbr),
           id=f"gru-{d}-lbr{int(lbr)}", atol=1e-4)
      for d in ("forward", "reverse", "bidirectional") for lbr in (False, True)],
    *[case("LSTMSequence", _rnn_inputs(4, 2 if d == "bidirectional" else 1, states=2),
           _rnn_attrs("lstm", d), id=f"lstm-{d}", atol=1e-4)
      for d in ("forward", "reverse", "bidirectional")],
    case("LSTMSequence", _rnn_inputs(4, 1, states=2), _rnn_attrs("lstm", "forward", clip=0.7),
         id="lstm-clip", atol=1e-4),
    case("ReverseSequence", [f32(3, 5, 2), C(np.array([5, 1, 3], np.int64))],
         {"batch_axis": 0, "seq_axis": 1}, id="reverse-seq"),
    case("ReverseSequence", [f32(4, 3, 2), C(np.array([2, 4, 1], np.int32))],
         {"batch_axis": 1, "seq_axis": 0}, id="reverse-seq-swapped"),
    case("Unique", [ints_(12, lo=0, hi=5)], {"sorted": True}, id="unique-sorted"),
    case("Unique", [ints_(12, lo=0, hi=5)], {"sorted": False}, id="unique-unsorted"),
    case("Unique", [ints_(4, 3, lo=0, hi=2), i64(0)], {"sorted": True}, id="unique-axis"),
    case("Col2Im", [f32(2, 3 * 4, 12), i64([4, 5]), i64([2, 2])],
         {"strides": [1, 1], "dilations": [1, 1], "pads_begin": [0, 0], "pads_end": [0, 0]},
         id="col2im"),
    case("Col2Im", [f32(2 * 6, 12), i64([5, 5]), i64([2, 3])],
         {"strides": [2, 1], "dilations": [1, 1], "pads_begin": [1, 0], "pads_end": [0, 1]},
         id="col2im-unbatched-pads"),
    case("LRN", [f32(2, 6, 4, 4), i64([1])], {"alpha": 1e-2, "beta": 0.75, "bias": 1.0,
                                              "size": 3}, id="lrn-channels"),
    case("LRN", [f32(1, 3, 5, 5), i64([2, 3])], {"alpha": 1e-2, "beta": 0.5, "bias": 2.0,
                                                 "size": 3}, id="lrn-spatial"),
    case("ReduceMin", [np.zeros((0, 3), np.int32), i64([0])], {"keep_dims": False},
         id="reducemin-empty-int", fold=True),
    case("GroupConvolution", [f32(1, 4, 9, 9), C(f32(4, 2, 1, 3, 3))],
         _conv_attrs(pb=(1, 1), pe=(1, 1), d=(2, 1)), id="groupconv-depthwise-multiplier"),
    case("Convolution", [f32(2, 6, 7, 9), C(f32(5, 6, 1, 1))], _conv_attrs(s=(2, 3)),
         id="conv-1x1-strided"),
    case("MaxPool", [f32(1, 3, 9, 9)], _pool(k=(3, 3), s=(2, 2), rounding_type="ceil"),
         id="maxpool-ceil-values"),
]


@pytest.mark.parametrize("op_type,inputs,attrs,kw", NEW_KERNELS)
def test_new_kernels(op_type, inputs, attrs, kw):
    _run_cases(op_type, inputs, attrs, kw)


@pytest.mark.parametrize("dest", ["f8e4m3", "f8e5m2", "i4", "u4", "f4e2m1", "bf16"])
def test_convert_small_types(dest):
    """Convert to f8 / packed / bf16 element types, decoded like the OpenVINO runtime's."""
    import ml_dtypes

    x = np.array([1e6, -1e6, np.inf, 0.3, -2.5, 2.5, 3.5, 7.6, -8.7, 20, -0.0, 500, 0.1],
                 np.float32)
    p = ops16.parameter([x.size], np.float32)
    compiled = _CORE.compile_model(ov.Model([ops16.convert(p, dest)], [p]), "CPU", F32)
    req = compiled.create_infer_request()
    req.infer({0: x})
    raw = np.array(req.get_output_tensor(0).data).view(np.uint8).reshape(-1)
    ml = {"f8e4m3": "float8_e4m3fn", "f8e5m2": "float8_e5m2", "i4": "int4", "u4": "uint4",
          "f4e2m1": "float4_e2m1fn", "bf16": "bfloat16"}[dest]
    if dest in et.PACKED_BITS:
        codes = np.stack([raw & 15, raw >> 4], axis=1).reshape(-1)[: x.size]
        ref = (((codes.astype(np.int8) << 4) >> 4) if dest == "i4" else codes).astype(np.float32)
        if dest == "f4e2m1":
            ref = codes.astype(np.uint8).view(ml_dtypes.float4_e2m1fn).astype(np.float32)
    else:
        ref = raw.view(getattr(ml_dtypes, ml)).astype(np.float32)
    xp = ParameterOp.new("f32", [x.size])
    conv = op_class("Convert").make([xp.results[0]], {"destination_type": dest},
                                    result_types=[tensor(dest, [x.size])])
    got = CompiledModel(ModuleOp([xp, conv, ResultOp.new(conv.results[0])]))([x])[0]
    np.testing.assert_array_equal(np.asarray(got).astype(np.float32), ref)


def test_bf16_inputs_accepted():
    import ml_dtypes

    xp = ParameterOp.new("bf16", [4])
    neg = op_class("Negative").make([xp.results[0]], {}, result_types=[tensor("bf16", [4])])
    model = CompiledModel(ModuleOp([xp, neg, ResultOp.new(neg.results[0])]))
    x = np.array([1.5, -2.25, 3.0, 0.1], ml_dtypes.bfloat16)
    out = model([x])[0]
    assert out.dtype == ml_dtypes.bfloat16
    np.testing.assert_array_equal(out.astype(np.float32), -x.astype(np.float32))
    np.testing.assert_array_equal(model([x.astype(np.float32)])[0], out)


def test_reduce_max_of_empty_float_is_minus_inf():
    """ONNX semantics (OpenVINO's reference answers -FLT_MAX instead)."""
    from xmo.backends.cpu import evaluate_op

    c = ConstantOp.from_array(np.zeros((2, 0, 3), np.float32))
    ax = ConstantOp.from_array(np.array([1], np.int64))
    for op_type, want in (("ReduceMax", -np.inf), ("ReduceMin", np.inf)):
        op = op_class(op_type).make([c.results[0], ax.results[0]], {"keep_dims": True},
                                    result_types=[tensor("f32", [2, 1, 3])])
        (out,) = evaluate_op(op, [np.zeros((2, 0, 3), np.float32), np.array([1])])
        np.testing.assert_array_equal(out, np.full((2, 1, 3), want, np.float32))


# ---------------------------------------------------------------------------
# Executor: fused x*a+b chains, constant folding; stride-1 tap-GEMM and
# numba direct (depthwise, small grouped) convolutions
# ---------------------------------------------------------------------------


def _bn_chain(shared: bool = False) -> tuple[ModuleOp, list[np.ndarray]]:
    """x -> Relu -> Subtract/Divide/Multiply/Add with per-channel constants
    (a decomposed BatchNormalization); ``shared``: the Relu result is also added
    to the chain's result (so it must not be updated in place)."""
    t = tensor("f32", [2, 3, 4, 5])
    cs = [RNG.uniform(0.5, 2.0, size=(1, 3, 1, 1)).astype(np.float32) for _ in range(4)]
    x = ParameterOp.new("f32", [2, 3, 4, 5], name="x")
    consts = [ConstantOp.from_array(c) for c in cs]
    relu = op_class("Relu").make([x], {}, result_types=[t], name="relu")
    prev, chain = relu, []
    for kind, c in zip(("Subtract", "Divide", "Multiply", "Add"), consts):
        last = kind == "Add"
        prev = op_class(kind).make([prev, c], {}, result_types=[t], name=f"bn_{kind.lower()}",
                                   tensor_names=[["bn_out"]] if last else None)
        chain.append(prev)
    body = [x, *consts, relu, *chain]
    out = chain[-1]
    if shared:
        out = op_class("Add").make([chain[-1], relu], {}, result_types=[t], name="sum")
        body.append(out)
    return ModuleOp([*body, ResultOp.new(out.results[0], name="y")]), cs


@pytest.mark.parametrize("shared", [False, True])
def test_affine_chain_fused_in_place(shared):
    module, (c0, c1, c2, c3) = _bn_chain(shared)
    model = compile_model(module)
    kinds = [s.node.type for s in model._steps]
    assert kinds.count("Subtract") == kinds.count("Divide") == kinds.count("Multiply") == 0
    assert [n.name for n in model.schedule][:5] == [
        "relu", "bn_subtract", "bn_divide", "bn_multiply", "bn_add"]
    x = f32(2, 3, 4, 5)
    x0 = x.copy()
    r = np.maximum(x, 0)
    want = (r - c0) / c1 * c2 + c3 + (r if shared else 0)
    for _ in range(2):
        out = model([x])
        np.testing.assert_allclose(out[0], want, rtol=1e-5, atol=1e-6)
    np.testing.assert_array_equal(x, x0)  # the caller's input is never updated
    if not shared:
        assert out["bn_out"] is out[0]
    # with an observer every op runs unfused and is observed with its own result
    seen: dict[str, np.ndarray] = {}
    out2 = model([x], observer=lambda op, outs: seen.__setitem__(op.get_friendly_name(), outs[0]))
    assert {"relu", "bn_subtract", "bn_divide", "bn_multiply", "bn_add"} <= set(seen)
    np.testing.assert_allclose(seen["bn_subtract"], r - c0, rtol=1e-6)
    np.testing.assert_allclose(out2[0], want, rtol=1e-5, atol=1e-6)


def test_affine_chain_on_a_parameter_keeps_the_input():
    t = tensor("f32", [1, 2, 3])
    x = ParameterOp.new("f32", [1, 2, 3], name="x")
    c = ConstantOp.from_array(np.array([[[2.0], [3.0]]], np.float32))
    mul = op_class("Multiply").make([x, c], {}, result_types=[t], name="m")
    sub = op_class("Subtract").make([c, mul], {}, result_types=[t], name="s")
    model = compile_model(ModuleOp([x, c, mul, sub, ResultOp.new(sub.results[0])]))
    a = f32(1, 2, 3)
    a0 = a.copy()
    cc = np.array([[[2.0], [3.0]]], np.float32)
    np.testing.assert_allclose(model([a])[0], cc - a * cc, rtol=1e-6)
    np.testing.assert_array_equal(a, a0)
    assert len(model._steps) == 1


def test_constant_subgraph_folded():
    t = tensor("f32", [2, 3])
    x = ParameterOp.new("f32", [2, 3], name="x")
    s = ConstantOp.from_array(np.array(1.5, np.float32))
    shape = ConstantOp.from_array(np.array([2, 3], np.int64))
    bc = op_class("Broadcast").make([s, shape], {"mode": "numpy"}, result_types=[t], name="bc")
    mul = op_class("Multiply").make([x, bc], {}, result_types=[t], name="m")
    model = compile_model(ModuleOp([x, s, shape, bc, mul, ResultOp.new(mul.results[0])]))
    assert "Broadcast" not in [st.node.type for st in model._steps]
    assert "Broadcast" in [n.type for n in model.schedule]
    a = f32(2, 3)
    np.testing.assert_allclose(model([a])[0], a * 1.5, rtol=1e-6)
    seen = []
    model([a], observer=lambda op, outs: seen.append(op.get_friendly_name()))
    assert seen == ["bc", "m"]


FAST_CONVOLUTIONS = [
    # 2*Cout <= Cin, stride 1: tap-GEMM path
    case("Convolution", [f32(2, 8, 7, 9), C(f32(3, 8, 3, 3))],
         _conv_attrs(pb=(1, 1), pe=(1, 1)), id="conv-tapgemm"),
    case("Convolution", [f32(1, 10, 9, 8), C(f32(4, 10, 3, 2))],
         _conv_attrs(d=(2, 1), pb=(2, 0), pe=(1, 1)), id="conv-tapgemm-dil-asym"),
    case("Convolution", [f32(1, 6, 6, 6), C(f32(2, 6, 5, 5))],
         _conv_attrs(), id="conv-tapgemm-valid"),
    # taps that read only padding skipped (valid-tap GEMMs)
    case("Convolution", [f32(1, 8, 6, 7), C(f32(4, 8, 3, 3))],
         _conv_attrs(d=(4, 5), pb=(4, 5), pe=(4, 5)), id="conv-validtaps-dilated"),
    case("Convolution", [f32(2, 3, 5, 5), C(f32(6, 3, 3, 3))],
         _conv_attrs(s=(2, 2), d=(3, 3), pb=(3, 3), pe=(3, 3)), id="conv-validtaps-stride"),
    case("Convolution", [f32(1, 4, 4, 4), C(f32(5, 4, 3, 3))],
         _conv_attrs(d=(8, 8), pb=(8, 8), pe=(8, 8)), id="conv-validtaps-center-only"),
    # depthwise (numba kernel)
    case("GroupConvolution", [f32(2, 6, 8, 7), C(f32(6, 1, 1, 3, 3))],
         _conv_attrs(d=(2, 1), pb=(2, 1), pe=(2, 1)), id="depthwise-dil"),
    case("GroupConvolution", [f32(1, 5, 9, 9), C(f32(5, 1, 1, 3, 3))],
         _conv_attrs(s=(2, 2), pb=(1, 1), pe=(1, 1)), id="depthwise-stride2"),
    # depthwise on a large map (depthwise kernel)
    case("GroupConvolution", [f32(1, 8, 180, 181), C(f32(8, 1, 1, 3, 3))],
         _conv_attrs(s=(2, 2), pb=(1, 1), pe=(1, 1)), id="depthwise-large"),
    # direct kernel: depthwise with a channel multiplier, small grouped maps
    case("GroupConvolution", [f32(1, 4, 6, 5), C(f32(4, 3, 1, 5, 5))],
         _conv_attrs(auto_pad="same_upper"), id="depthwise-multiplier-direct"),
    case("GroupConvolution", [f32(2, 6, 7, 6), C(f32(2, 2, 3, 3, 2))],
         _conv_attrs(s=(2, 1), d=(1, 2), pb=(2, 1), pe=(0, 3)), id="grouped-direct"),
    # depthwise kernel on wide rows; small-group kernel (kernels/grouped.py) on larger maps
    case("GroupConvolution", [f32(2, 5, 9, 23), C(f32(5, 1, 1, 3, 3))],
         _conv_attrs(pb=(1, 1), pe=(1, 1)), id="depthwise-flat"),
    case("GroupConvolution", [f32(1, 6, 22, 21), C(f32(2, 3, 3, 3, 3))],
         _conv_attrs(s=(1, 2), d=(2, 1), pb=(2, 1), pe=(1, 1)), id="grouped-flat"),
    # one-pass im2col (strided, small maps); patch embedding (stride == kernel)
    case("Convolution", [f32(1, 3, 11, 10), C(f32(4, 3, 3, 3))],
         _conv_attrs(s=(2, 2), pb=(1, 0), pe=(0, 1)), id="conv-im2col-strided"),
    case("GroupConvolution", [f32(1, 8, 7, 6), C(f32(2, 3, 4, 3, 3))],
         _conv_attrs(pb=(1, 1), pe=(1, 1)), id="grouped-im2col-small"),
    case("Convolution", [f32(2, 3, 17, 19), C(f32(4, 3, 4, 5))],
         _conv_attrs(s=(4, 5)), id="conv-patches"),
]


def _matches_numpy_path(monkeypatch, conv, x, w, dims, s, d, pb, pe):
    """``grouped_conv`` as it runs equals its numpy path (numba kernels off)."""
    from conv_paths import numba_convolutions_off

    got = conv.grouped_conv(x, w, s, d, pb, pe)
    numba_convolutions_off(monkeypatch)  # as without numba
    assert not conv.direct_eligible(x, w, dims, pb)
    want = conv.grouped_conv(x, w, s, d, pb, pe)
    assert got.shape == want.shape and got.dtype == want.dtype
    np.testing.assert_allclose(got, want, rtol=1e-5 if x.dtype == np.float32 else 1e-12, atol=1e-6)


@pytest.mark.parametrize("xs,ws,s,d,pb,pe", [
    ((2, 6, 7, 5), (6, 1, 1, 3, 3), (1, 1), (1, 1), (1, 1), (1, 1)),
    ((1, 4, 9, 8), (2, 3, 2, 5, 3), (2, 3), (2, 1), (3, 0), (-1, 2)),
    ((1, 3, 4, 4), (3, 2, 1, 7, 7), (1, 1), (1, 1), (3, 3), (3, 3)),
    ((1, 16, 5, 6), (16, 1, 1, 3, 3), (1, 1), (2, 1), (2, 0), (1, 1)),
])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_direct_grouped_conv_matches_numpy_path(xs, ws, s, d, pb, pe, dtype, monkeypatch):
    """The numba direct kernel sums each output's terms in the order of the
    numpy tap / im2col paths (equal up to BLAS summation order)."""
    from xmo.backends.cpu.kernels import convolution as conv

    x = f32(*xs).astype(dtype)
    w = f32(*ws).astype(dtype)
    dims = conv.conv_out_dims(xs[2:], ws[3:], s, d, pb, pe)
    assert conv.direct_eligible(x, w, dims, pb)
    _matches_numpy_path(monkeypatch, conv, x, w, dims, s, d, pb, pe)


@pytest.mark.parametrize("xs,ws,s,d,pb,pe", [
    ((1, 8, 6, 7), (4, 8, 3, 3), (1, 1), (4, 5), (4, 5), (4, 5)),
    ((2, 3, 5, 5), (6, 3, 3, 3), (2, 2), (3, 3), (3, 3), (3, 3)),
    ((1, 4, 9, 8), (3, 4, 3, 2), (2, 1), (3, 4), (-1, 5), (6, -2)),
    ((1, 4, 4, 4), (5, 4, 3, 3), (1, 1), (8, 8), (8, 8), (8, 8)),
])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_valid_tap_conv_matches_gemm_paths(xs, ws, s, d, pb, pe, dtype, monkeypatch):
    """Skipping the taps (and parts of taps) that read padding gives the
    im2col / tap-GEMM results."""
    from xmo.backends.cpu.kernels import convolution as conv

    x = f32(*xs).astype(dtype)
    w = f32(*ws).astype(dtype)[None]
    dims = conv.conv_out_dims(xs[2:], ws[2:], s, d, pb, pe)
    assert conv.valid_taps_pay(xs[2:], dims, ws, s, d, pb, pe)
    got = conv.grouped_conv(x, w, s, d, pb, pe)
    monkeypatch.setattr(conv, "VALID_TAPS_MAX_SHARE", -1.0)
    assert not conv.valid_taps_pay(xs[2:], dims, ws, s, d, pb, pe)
    want = conv.grouped_conv(x, w, s, d, pb, pe)
    assert got.shape == want.shape and got.dtype == want.dtype
    np.testing.assert_allclose(got, want, rtol=1e-5 if dtype == np.float32 else 1e-12, atol=1e-6)


@pytest.mark.parametrize("xs,k,s,d,pb,pe", [
    ((2, 5, 9, 11), (3, 3), (1, 1), (1, 1), (1, 1), (1, 1)),
    ((1, 3, 10, 9), (3, 5), (2, 3), (2, 1), (3, -1), (1, 4)),
    ((1, 4, 6, 6), (7, 7), (1, 2), (1, 1), (3, 3), (3, 3)),
])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_depthwise_kernel_matches_numpy_path(xs, k, s, d, pb, pe, dtype, monkeypatch):
    """The depthwise kernel (larger maps; here forced, its channels split over
    tasks) gives the numpy tap path's results."""
    from xmo.backends.cpu.kernels import convolution as conv, depthwise

    x = f32(*xs).astype(dtype)
    w = f32(xs[1], 1, 1, *k).astype(dtype)
    dims = conv.conv_out_dims(xs[2:], k, s, d, pb, pe)
    monkeypatch.setattr(depthwise, "DEPTHWISE_MIN_PIXELS", 0)
    monkeypatch.setattr(depthwise, "DEPTHWISE_MIN_PIXELS_MULTIPLIER", 0)
    monkeypatch.setattr(depthwise, "DEPTHWISE_MAX_EXTRA_COLUMNS", 1e9)
    monkeypatch.setattr(depthwise, "MACS_PER_TASK", 1)
    assert depthwise.depthwise_preferred(x, w, dims, pb)
    _matches_numpy_path(monkeypatch, conv, x, w, dims, s, d, pb, pe)


@pytest.mark.parametrize("op_type,inputs,attrs,kw", FAST_CONVOLUTIONS)
def test_fast_convolutions(op_type, inputs, attrs, kw):
    _run_cases(op_type, inputs, attrs, kw)


def test_custom_fft_op_runs_on_the_numba_kernel():
    """An extension-defined ``ov.FFT`` op (attribute ``inverse``) gets the
    built-in kernel: forward and inverse 2-D transforms over [..., H, W, 2]."""
    from typing import ClassVar

    from xdsl.dialects.builtin import ModuleOp

    from xmo import compile_model
    from xmo.dialects.ov import ParameterOp, ResultOp
    from xmo.dialects.attr_spec import AttrSpec
    from xmo.dialects.ov.base import OVOp, ov_op

    @ov_op
    class FFTOp(OVOp):
        name = "ov.FFT"
        OV_TYPE: ClassVar[str] = "FFT"
        OV_VERSION: ClassVar[str] = "fft_test"
        OV_INPUTS: ClassVar[tuple[str, ...]] = ("data",)
        OV_OUTPUTS: ClassVar[tuple[str, ...]] = ("output",)
        OV_ATTRS: ClassVar[tuple[AttrSpec, ...]] = (AttrSpec("inverse", "bool", False),)

    rng = np.random.default_rng(3)
    x = rng.standard_normal((2, 12, 20, 2)).astype(np.float32)
    z = x[..., 0] + 1j * x[..., 1]
    for inverse, ref in ((False, np.fft.fft2(z)), (True, np.fft.ifft2(z))):
        p = ParameterOp.new("f32", [2, 12, 20, 2], name="x")
        f = FFTOp.make([p], {"inverse": inverse}, result_types=[p.results[0].type])
        got = compile_model(ModuleOp([p, f, ResultOp.new(f.results[0])]))([x])[0]
        np.testing.assert_allclose(got[..., 0] + 1j * got[..., 1], ref, rtol=1e-4, atol=1e-4)
