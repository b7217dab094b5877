"""Result type inference of ``ov`` ops, checked against OpenVINO's own.

Every case builds the op twice from the same inputs and attributes: once with
OpenVINO's Python API (``NodeFactory("opset16")`` over ``opset16.parameter`` /
``opset16.constant`` inputs) and once as an :class:`InferContext` handed to the
function registered for ``ov.<Type>``. Element types and partial shapes must
agree (OpenVINO's bounded dims such as ``1..10`` count as dynamic).

To add a case, append a ``case(...)`` to ``CASES``: ``P(shape, etype)`` is a
parameter (``None`` shape = dynamic rank, ``-1`` = dynamic dim), ``C(array)``
a constant input.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pytest

ov = pytest.importorskip("openvino")
ops = pytest.importorskip("openvino.opset16")
from openvino.utils.node_factory import NodeFactory  # noqa: E402

from xmo.dialects.ov import element_types as et  # noqa: E402
from xmo.dialects.ov.base import (  # noqa: E402
    dims_of,
    InferContext,
    ShapeInferenceError,
    inference_for,
    tensor,
)

FACTORY = NodeFactory("opset16")


# ---------------------------------------------------------------------------
# Case description
# ---------------------------------------------------------------------------


@dataclass(frozen=True)
class P:
    """A Parameter input."""

    shape: list[int] | None
    etype: str = "f32"


@dataclass(frozen=True)
class C:
    """A Constant input."""

    value: Any
    dtype: Any = None

    def array(self) -> np.ndarray:
        return np.array(self.value, dtype=self.dtype if self.dtype is not None else None)


def I64(v: Any) -> C:  # noqa: N802
    return C(v, np.int64)


def I32(v: Any) -> C:  # noqa: N802
    return C(v, np.int32)


def F32(v: Any) -> C:  # noqa: N802
    return C(v, np.float32)


@dataclass
class Case:
    op: str
    inputs: list[P | C]
    attrs: dict[str, Any] = field(default_factory=dict)
    id: str = ""


def case(op: str, inputs: list[P | C], attrs: dict[str, Any] | None = None, id: str = "") -> Any:
    c = Case(op, inputs, attrs or {}, id)
    return pytest.param(c, id=f"{op}-{id}" if id else op)


# ---------------------------------------------------------------------------
# Comparison machinery
# ---------------------------------------------------------------------------


def _ov_input(x: P | C) -> Any:
    if isinstance(x, P):
        ps = ov.PartialShape.dynamic() if x.shape is None else ov.PartialShape(x.shape)
        return ops.parameter(ps, getattr(ov.Type, x.etype))
    return ops.constant(x.array())


def _ov_shape(ps: Any) -> list[int] | None:
    if ps.rank.is_dynamic:
        return None
    return [d.get_length() if d.is_static else -1 for d in ps]


def _our_shape(t: Any) -> list[int] | None:
    return dims_of(t)


def _py_attr(v: Any) -> Any:
    if isinstance(v, list):
        return tuple(v)
    return v


def build_ov(c: Case) -> Any:
    inputs = [_ov_input(x).output(0) for x in c.inputs]
    return FACTORY.create(c.op, inputs, c.attrs)


def build_ctx(c: Case, attrs: dict[str, Any], num_outputs: int | None) -> InferContext:
    types, consts = [], {}
    for i, x in enumerate(c.inputs):
        if isinstance(x, P):
            types.append(tensor(x.etype, x.shape))
        else:
            a = x.array()
            consts[i] = a
            types.append(tensor(et.from_numpy(a.dtype), list(a.shape)))
    return InferContext(f"ov.{c.op}", types, attrs, lambda i: consts.get(i), num_outputs)


def infer(
    c: Case, attrs: dict[str, Any] | None = None, num_outputs: int | None = None
) -> list[Any]:
    fn = inference_for(f"ov.{c.op}")
    assert fn is not None, f"no shape inference registered for ov.{c.op}"
    if attrs is None:
        attrs = {k: _py_attr(v) for k, v in FACTORY.create(c.op).get_attributes().items()}
        attrs.update({k: _py_attr(v) for k, v in c.attrs.items()})
    return list(fn(build_ctx(c, attrs, num_outputs)))


# ---------------------------------------------------------------------------
# The table
# ---------------------------------------------------------------------------

_BINARY_ARITH = ["Add", "Subtract", "Multiply", "Divide", "Power", "Maximum", "Minimum",
                 "SquaredDifference", "FloorMod", "Mod"]
_COMPARE = ["Equal", "NotEqual", "Less", "Greater", "LessEqual", "GreaterEqual"]
_LOGICAL = ["LogicalAnd", "LogicalOr", "LogicalXor"]
_UNARY = ["Relu", "Sigmoid", "Tanh", "Exp", "Log", "Sqrt", "Abs", "Negative", "Floor",
          "Ceiling", "Erf", "HSwish", "HSigmoid", "Mish", "SoftPlus", "Swish"]

CASES: list[Any] = []

for _op in _BINARY_ARITH + _COMPARE:
    CASES += [
        case(_op, [P([2, 3, 4]), P([3, 1])], id="static-broadcast"),
        case(_op, [P([-1, 3, 1]), P([1, 5])], id="dyn-dim"),
        case(_op, [P([-1, 1, 4]), P([-1, 7, 1])], id="dyn-dims-both"),
        case(_op, [P(None, "i32"), P([2, 3], "i32")], id="dyn-rank"),
        case(_op, [P([2, 3], "i32"), P([2, 3], "i32")], {"auto_broadcast": "none"}, id="none"),
    ]
CASES += [
    case("Add", [P([2, 3, 4], "i32"), P([2, 3], "i32")], {"auto_broadcast": "pdpd"}, id="pdpd"),
    case("Add", [P([-1, 3, 4]), P([-1, 1])], {"auto_broadcast": "pdpd"}, id="pdpd-dyn"),
    case("Multiply", [P([2, 3, 4]), P([])], {"auto_broadcast": "pdpd"}, id="pdpd-scalar"),
    case("Add", [P([]), P([2, 3])], id="scalar"),
    case("Add", [P([2, -1]), P([-1, -1, 3])], id="dyn-vs-static"),
]
for _op in _LOGICAL:
    CASES += [
        case(_op, [P([2, 3, 4], "boolean"), P([3, 1], "boolean")], id="static"),
        case(_op, [P([-1, 3], "boolean"), P([4, 1, 3], "boolean")], id="dyn-dim"),
        case(_op, [P(None, "boolean"), P([3], "boolean")], id="dyn-rank"),
    ]
CASES += [
    case("LogicalNot", [P([2, 3], "boolean")], id="static"),
    case("LogicalNot", [P([-1, 3], "boolean")], id="dyn-dim"),
    case("LogicalNot", [P(None, "boolean")], id="dyn-rank"),
]
for _op in _UNARY:
    CASES += [
        case(_op, [P([2, 3, 4])], id="static"),
        case(_op, [P([-1, 3], "f16")], id="dyn-dim"),
        case(_op, [P(None)], id="dyn-rank"),
    ]
CASES += [
    case("Swish", [P([2, -1]), F32(1.5)], id="beta"),
    case("HSwish", [P([2, 3], "i32")], id="int"),
    case("Clamp", [P([2, 3])], {"min": -1.0, "max": 6.0}, id="static"),
    case("Clamp", [P([-1, 3], "i32")], {"min": 0.0, "max": 6.0}, id="dyn-dim"),
    case("Clamp", [P(None)], {"min": 0.0, "max": 1.0}, id="dyn-rank"),
    case("Gelu", [P([2, 3])], {"approximation_mode": "TANH"}, id="static-tanh"),
    case("Gelu", [P([-1, 3])], {"approximation_mode": "ERF"}, id="dyn-dim"),
    case("Gelu", [P(None)], id="dyn-rank"),
    case("Elu", [P([2, 3])], {"alpha": 0.5}, id="static"),
    case("Elu", [P([-1, 3])], {"alpha": 1.0}, id="dyn-dim"),
    case("Elu", [P(None)], {"alpha": 1.0}, id="dyn-rank"),
    case("PRelu", [P([1, 3, 4, 4]), P([3])], id="static"),
    case("PRelu", [P([-1, 3, -1]), P([1])], id="dyn-dim"),
    case("PRelu", [P(None), P([1])], id="dyn-rank"),
    case("Softmax", [P([2, 3, 4])], {"axis": 1}, id="static"),
    case("Softmax", [P([-1, 3])], {"axis": -1}, id="dyn-dim-neg-axis"),
    case("Softmax", [P(None)], {"axis": 5}, id="dyn-rank"),
    case("Softmax", [P([])], {"axis": -1}, id="scalar"),
    case("LogSoftmax", [P([2, 3, 4])], {"axis": 2}, id="static"),
    case("LogSoftmax", [P([-1, 3])], {"axis": -2}, id="dyn-dim-neg-axis"),
    case("LogSoftmax", [P(None)], {"axis": 0}, id="dyn-rank"),
    # --- Convert / Select ----------------------------------------------------
    case("Convert", [P([2, 3])], {"destination_type": "i32"}, id="static"),
    case("Convert", [P([-1, 3], "i64")], {"destination_type": "f16"}, id="dyn-dim"),
    case("Convert", [P(None, "u8")], {"destination_type": "boolean"}, id="dyn-rank"),
    case("Select", [P([2, 1], "boolean"), P([1, 3]), P([2, 3])], id="static"),
    case("Select", [P([-1, 1, 4], "boolean"), P([3, 1]), P([-1])], id="dyn-dim"),
    case("Select", [P(None, "boolean"), P([2, 3], "i32"), P([2, 3], "i32")], id="dyn-rank"),
    case("Select", [P([2, 3], "boolean"), P([2, 3]), P([2, 3])],
         {"auto_broadcast": "none"}, id="none"),
    # --- Convolution family -------------------------------------------------
    case("Convolution", [P([1, 3, 10, 12]), P([8, 3, 3, 3])],
         {"strides": [2, 2], "pads_begin": [1, 1], "pads_end": [1, 1], "dilations": [1, 1]},
         id="static"),
    case("Convolution", [P([-1, 3, -1, 12]), P([8, 3, 3, 5])],
         {"strides": [1, 2], "pads_begin": [0, 2], "pads_end": [0, 1], "dilations": [2, 1]},
         id="dyn-dim"),
    case("Convolution", [P(None), P([8, 3, 3, 3])],
         {"strides": [1, 1], "pads_begin": [0, 0], "pads_end": [0, 0], "dilations": [1, 1]},
         id="dyn-rank-data"),
    case("Convolution", [P([1, 3, 11, 12]), P([8, 3, 3, 3])],
         {"strides": [2, 2], "pads_begin": [0, 0], "pads_end": [0, 0], "dilations": [1, 1],
          "auto_pad": "same_upper"}, id="same-upper"),
    case("Convolution", [P([1, 3, 11, 12]), P([8, 3, 3, 3])],
         {"strides": [3, 2], "pads_begin": [5, 5], "pads_end": [5, 5], "dilations": [1, 2],
          "auto_pad": "valid"}, id="valid"),
    case("Convolution", [P([2, 4, 9]), P([6, 4, 2])],
         {"strides": [2], "pads_begin": [0], "pads_end": [0], "dilations": [1],
          "auto_pad": "same_lower"}, id="1d-same-lower"),
    case("GroupConvolution", [P([1, 6, 10, 10]), P([2, 4, 3, 3, 3])],
         {"strides": [1, 1], "pads_begin": [1, 1], "pads_end": [1, 1], "dilations": [1, 1]},
         id="static"),
    case("GroupConvolution", [P([-1, -1, 10, -1]), P([3, 2, 1, 3, 3])],
         {"strides": [2, 2], "pads_begin": [0, 0], "pads_end": [0, 0], "dilations": [1, 1]},
         id="dyn-dim"),
    case("GroupConvolution", [P(None), P([3, 2, 1, 3, 3])],
         {"strides": [2, 2], "pads_begin": [0, 0], "pads_end": [0, 0], "dilations": [1, 1],
          "auto_pad": "same_upper"}, id="dyn-rank"),
    case("ConvolutionBackpropData", [P([1, 3, 5, 5]), P([3, 4, 3, 3])],
         {"strides": [2, 2], "pads_begin": [1, 1], "pads_end": [1, 1], "dilations": [1, 1]},
         id="static"),
    case("ConvolutionBackpropData", [P([1, 3, -1, 5]), P([3, 4, 3, 3])],
         {"strides": [2, 2], "pads_begin": [1, 0], "pads_end": [1, 0], "dilations": [1, 2],
          "output_padding": [1, 1]}, id="dyn-dim-output-padding"),
    case("ConvolutionBackpropData", [P([1, 3, 5, 5]), P([3, 4, 3, 3]), I64([9, 10])],
         {"strides": [2, 2], "pads_begin": [0, 0], "pads_end": [0, 0], "dilations": [1, 1],
          "auto_pad": "same_upper"}, id="const-output-shape"),
    case("ConvolutionBackpropData", [P([1, 3, 5, 5]), P([3, 4, 3, 3]), P([2], "i64")],
         {"strides": [2, 2], "pads_begin": [0, 0], "pads_end": [0, 0], "dilations": [1, 1]},
         id="param-output-shape"),
    case("ConvolutionBackpropData", [P([1, 3, 5, 5]), P([3, 4, 3, 3])],
         {"strides": [2, 2], "pads_begin": [1, 1], "pads_end": [1, 1], "dilations": [1, 1],
          "auto_pad": "valid"}, id="valid"),
    case("ConvolutionBackpropData", [P(None), P([3, 4, 3])],
         {"strides": [2], "pads_begin": [0], "pads_end": [0], "dilations": [1]},
         id="dyn-rank"),
    # --- Pooling --------------------------------------------------------------
    case("MaxPool", [P([1, 3, 10, 10])],
         {"kernel": [3, 3], "strides": [2, 2], "pads_begin": [0, 0], "pads_end": [0, 0],
          "dilations": [1, 1]}, id="static"),
    case("MaxPool", [P([-1, 3, -1, 10])],
         {"kernel": [2, 2], "strides": [3, 3], "pads_begin": [1, 1], "pads_end": [1, 1],
          "dilations": [1, 1], "rounding_type": "ceil", "index_element_type": "i32"},
         id="dyn-dim-ceil-i32"),
    case("MaxPool", [P([1, 3, 10, 10])],
         {"kernel": [2, 2], "strides": [3, 3], "pads_begin": [1, 1], "pads_end": [1, 1],
          "dilations": [1, 1], "rounding_type": "ceil_torch"}, id="ceil-torch"),
    case("MaxPool", [P([1, 3, 11, 10])],
         {"kernel": [3, 2], "strides": [2, 2], "pads_begin": [0, 0], "pads_end": [0, 0],
          "dilations": [2, 1], "auto_pad": "same_lower"}, id="same-lower-dilated"),
    case("MaxPool", [P(None)],
         {"kernel": [2, 2], "strides": [2, 2], "pads_begin": [0, 0], "pads_end": [0, 0],
          "dilations": [1, 1]}, id="dyn-rank"),
    case("AvgPool", [P([1, 3, 10, 10])],
         {"kernel": [3, 3], "strides": [2, 2], "pads_begin": [1, 1], "pads_end": [1, 1],
          "exclude-pad": False}, id="static"),
    case("AvgPool", [P([2, -1, -1, 7])],
         {"kernel": [2, 2], "strides": [2, 2], "pads_begin": [0, 0], "pads_end": [0, 0],
          "rounding_type": "ceil"}, id="dyn-dim-ceil"),
    case("AvgPool", [P([1, 3, 10, 9, 8])],
         {"kernel": [3, 3, 3], "strides": [2, 2, 2], "pads_begin": [0, 0, 0],
          "pads_end": [0, 0, 0], "auto_pad": "valid"}, id="3d-valid"),
    case("AvgPool", [P(None)],
         {"kernel": [2], "strides": [1], "pads_begin": [0], "pads_end": [0]}, id="dyn-rank"),
    # --- MatMul ---------------------------------------------------------------
    case("MatMul", [P([2, 3, 4]), P([4, 5])], id="static"),
    case("MatMul", [P([-1, 1, 3, 4]), P([7, 5, 4])], {"transpose_b": True}, id="dyn-dim-tb"),
    case("MatMul", [P([4, 3]), P([4, 5])], {"transpose_a": True}, id="ta"),
    case("MatMul", [P([4]), P([2, 4, 5])], id="1d-a"),
    case("MatMul", [P([2, 3, 4]), P([4])], {"transpose_b": True}, id="1d-b"),
    case("MatMul", [P([4]), P([-1])], id="1d-both"),
    case("MatMul", [P(None), P([4, 5])], id="dyn-rank"),
    case("MatMul", [P([3]), P([2, -1, 3, 5])], id="1d-a-batched"),
    case("MatMul", [P([-1, 1, 2, 3]), P([-1, 3, 5])], id="dyn-batch"),
    # --- Reshape --------------------------------------------------------------
    case("Reshape", [P([2, 3, 4]), I64([6, -1])], id="static"),
    case("Reshape", [P([-1, 3, 4]), I64([0, -1])], {"special_zero": True}, id="dyn-special-zero"),
    case("Reshape", [P([2, 3, 4]), I64([0, 2, -1])], {"special_zero": True}, id="special-zero"),
    case("Reshape", [P([2, 3, 4]), P([3], "i64")], id="param-target"),
    case("Reshape", [P(None), I64([2, -1])], id="dyn-rank"),
    case("Reshape", [P([2, 3]), I32([3, 2])], id="i32-target"),
    case("Reshape", [P([2, -1]), I64([0, -1, 2])], {"special_zero": True}, id="dyn-copied"),
    case("Reshape", [P([-1, 3]), I64([3, -1])], id="dyn-minus-one"),
    case("Reshape", [P([2, 0, 3]), I64([0, -1, 3])], id="zero-elements"),
    case("Reshape", [P([2, 0, 3]), I64([-1, 0])], {"special_zero": True}, id="zero-copied"),
    case("Reshape", [P([1]), C(np.array([], np.int64))], id="to-scalar"),
    # --- Transpose -------------------------------------------------------------
    case("Transpose", [P([2, 3, 4]), I64([2, 0, 1])], id="static"),
    case("Transpose", [P([-1, 3, 4]), I64([1, 2, 0])], id="dyn-dim"),
    case("Transpose", [P([2, 3, 4]), C(np.array([], np.int64))], id="empty-order"),
    case("Transpose", [P([2, 3, 4]), P([3], "i64")], id="param-order"),
    case("Transpose", [P(None), I64([1, 0])], id="dyn-rank"),
    # --- Concat ----------------------------------------------------------------
    case("Concat", [P([2, 3]), P([2, 5]), P([2, 1])], {"axis": 1}, id="static"),
    case("Concat", [P([-1, 3]), P([2, -1])], {"axis": -1}, id="dyn-dim-neg-axis"),
    case("Concat", [P(None), P([2, 3])], {"axis": 0}, id="dyn-rank"),
    # --- Split / VariadicSplit ---------------------------------------------------
    case("Split", [P([2, 6, 4]), I64(1)], {"num_splits": 3}, id="static"),
    case("Split", [P([-1, 6, -1]), I64(-1)], {"num_splits": 2}, id="dyn-dim"),
    case("Split", [P([2, 6, 4]), P([], "i64")], {"num_splits": 2}, id="param-axis"),
    case("Split", [P(None), I64(0)], {"num_splits": 2}, id="dyn-rank"),
    case("VariadicSplit", [P([2, 10, 4]), I64(1), I64([2, -1, 3])], id="static"),
    case("VariadicSplit", [P([-1, -1, 4]), I64(1), I64([2, -1, 3])], id="dyn-dim"),
    case("VariadicSplit", [P([2, 10, 4]), I64(-1), P([2], "i64")], id="param-lengths"),
    case("VariadicSplit", [P(None), I64(1), I64([1, 2])], id="dyn-rank"),
    # --- Squeeze / Unsqueeze -------------------------------------------------------
    case("Squeeze", [P([1, 3, 1, 4])], id="static-no-axes"),
    case("Squeeze", [P([1, 3, 1, -1])], id="dyn-no-axes"),
    case("Squeeze", [P([1, 3, 1, -1]), I64([0, -2])], id="axes"),
    case("Squeeze", [P([1, 3, 1, -1]), I64([3])], id="dyn-axis"),
    case("Squeeze", [P([1, 3, 1, -1]), I64([3])], {"allow_axis_skip": True}, id="dyn-axis-skip"),
    case("Squeeze", [P([1, 3, 1, 4]), I64([1])], id="non-one-axis"),
    case("Squeeze", [P([1, 3, 1, 4]), P([1], "i64")], id="param-axes"),
    case("Squeeze", [P(None), I64([0])], id="dyn-rank"),
    case("Unsqueeze", [P([3, 4]), I64([0, 3])], id="static"),
    case("Unsqueeze", [P([-1, 4]), I64([-1])], id="dyn-dim-neg"),
    case("Unsqueeze", [P([3, 4]), P([2], "i64")], id="param-axes"),
    case("Unsqueeze", [P(None), I64([0])], id="dyn-rank"),
    # --- Gather / GatherND / ScatterUpdate ------------------------------------------
    case("Gather", [P([3, 4, 5]), P([2, 7], "i64"), I64(1)], id="static"),
    case("Gather", [P([-1, 4, 5]), P([-1], "i32"), I64(-1)], id="dyn-dim-neg-axis"),
    case("Gather", [P([3, 4, 5]), P([3, 7], "i64"), I64(2)], {"batch_dims": 1}, id="batch"),
    case("Gather", [P([3, 4, 5]), P([3, 7], "i64"), I64(1)], {"batch_dims": -1}, id="neg-batch"),
    case("Gather", [P([3, 4, 5]), P([3, 7], "i64"), P([], "i64")], {"batch_dims": 1},
         id="param-axis"),
    case("Gather", [P(None), P([2], "i64"), I64(0)], id="dyn-rank"),
    case("Gather", [P([3, 4]), I64(2), I64(0)], id="scalar-index"),
    case("GatherND", [P([3, 4, 5]), P([2, 2], "i64")], id="static"),
    case("GatherND", [P([-1, 4, 5]), P([-1, 7, 1], "i32")], id="dyn-dim"),
    case("GatherND", [P([3, 4, 5, 6]), P([3, 2, 2], "i64")], {"batch_dims": 1}, id="batch"),
    case("GatherND", [P([3, 4, 5]), P([2, -1], "i64")], id="dyn-k"),
    case("GatherND", [P(None), P([2, 1], "i64")], id="dyn-rank"),
    case("ScatterUpdate", [P([5, 4]), P([2], "i64"), P([2, 4]), I64(0)], id="static"),
    case("ScatterUpdate", [P([-1, 4]), P([-1], "i32"), P([-1, 4]), I64(-2)], id="dyn-dim"),
    case("ScatterUpdate", [P(None), P([2], "i64"), P(None), P([], "i64")], id="dyn-rank"),
    # --- StridedSlice -----------------------------------------------------------------
    case("StridedSlice", [P([10, 8, 6]), I64([1, 0, 2]), I64([7, 8, -1]), I64([2, 1, 1])],
         {"begin_mask": [0, 1, 0], "end_mask": [0, 1, 0]}, id="static"),
    case("StridedSlice", [P([-1, 8, 6]), I64([0, 1]), I64([5, -1]), I64([1, 2])],
         {"begin_mask": [0, 0], "end_mask": [0, 0]}, id="dyn-dim-partial"),
    case("StridedSlice", [P([10, 8, 6]), I64([0, 0, 0]), I64([0, 0, 0]), I64([1, 1, 1])],
         {"begin_mask": [1, 1, 1], "end_mask": [1, 1, 1], "new_axis_mask": [1, 0, 0],
          "shrink_axis_mask": [0, 1, 0]}, id="new-axis-shrink"),
    case("StridedSlice", [P([10, 8, 6, 5]), I64([0, 0, 1]), I64([0, 0, 3]), I64([1, 1, 1])],
         {"begin_mask": [0, 0, 0], "end_mask": [0, 0, 0], "ellipsis_mask": [0, 1, 0],
          "shrink_axis_mask": [1, 0, 0]}, id="ellipsis"),
    case("StridedSlice", [P([10, 8]), I64([9, -1]), I64([0, 0]), I64([-3, -1])],
         {"begin_mask": [0, 0], "end_mask": [0, 1]}, id="negative-stride"),
    case("StridedSlice", [P([10, 8]), I64([2]), I64([5])],
         {"begin_mask": [0], "end_mask": [0]}, id="no-stride"),
    case("StridedSlice", [P([10, 8]), P([2], "i64"), P([2], "i64"), I64([1, 1])],
         {"begin_mask": [0, 1], "end_mask": [0, 1]}, id="param-begin-end"),
    case("StridedSlice", [P([10, 8]), I64([0, 0, 0]), I64([1, 1, 1]), I64([1, 1, 1])],
         {"begin_mask": [1, 0, 1], "end_mask": [1, 0, 1], "new_axis_mask": [0, 1, 0]},
         id="new-axis-middle"),
    case("StridedSlice", [P([10, 8, 7]), I64([0, 0, 0]), I64([0, 0, 0]), I64([1, 1, 1])],
         {"begin_mask": [1, 1, 1], "end_mask": [1, 1, 1], "ellipsis_mask": [0, 1, 0],
          "new_axis_mask": [0, 0, 1]}, id="ellipsis-new-axis"),
    case("StridedSlice", [P([10, 8, 7]), I64([-1, 0]), I64([0, 0]), I64([1, 1])],
         {"begin_mask": [0, 1], "end_mask": [0, 1], "shrink_axis_mask": [1, 0]},
         id="shrink-negative"),
    case("StridedSlice", [P([10, 8, 7]), I64([-20, 3]), I64([100, -100]), I64([1, -1])],
         {"begin_mask": [0, 0], "end_mask": [0, 0]}, id="clamped"),
    case("StridedSlice", [P([10, 8]), P([2], "i64"), I64([5, 5]), I64([1, 1])],
         {"begin_mask": [0, 0], "end_mask": [0, 0], "shrink_axis_mask": [0, 1]},
         id="param-begin-shrink"),
    case("StridedSlice", [P(None), I64([0]), I64([1]), I64([1])],
         {"begin_mask": [0], "end_mask": [0]}, id="dyn-rank"),
    # --- Slice ----------------------------------------------------------------------
    case("Slice", [P([10, 8, 6]), I64([1, 0]), I64([7, 100]), I64([2, 3])], id="static"),
    case("Slice", [P([-1, 8, 6]), I64([1]), I64([-1]), I64([1]), I64([-2])], id="dyn-dim-axes"),
    case("Slice", [P([10, 8, 6]), I64([-1, 5]), I64([-100, 1]), I64([-2, -1]), I64([2, 0])],
         id="negative-steps"),
    case("Slice", [P([10, 8, 6]), P([1], "i64"), I64([3]), I64([1]), I64([1])],
         id="param-start"),
    case("Slice", [P(None), I64([0]), I64([1]), I64([1])], id="dyn-rank"),
    case("Slice", [P([10, 8]), I64([-3]), I64([np.iinfo(np.int64).min]), I64([-1]), I64([1])],
         id="int64-min-stop"),
    case("Slice", [P([10, 8]), I64([1, 1]), I64([5, 5]), I64([1, 1]), P([2], "i64")],
         id="param-axes"),
    # --- Pad ----------------------------------------------------------------------
    case("Pad", [P([2, 3, 4]), I64([0, 1, 2]), I64([1, 1, 0])], id="static"),
    case("Pad", [P([-1, 3]), I64([1, -1]), I64([1, -1])], id="dyn-dim-negative"),
    case("Pad", [P([2, 3]), I64([1, 2]), I64([0, 1]), F32(0.5)], id="value"),
    case("Pad", [P([4, 5]), I64([1, 2]), I64([3, 4])], {"pad_mode": "reflect"}, id="reflect"),
    case("Pad", [P([4, 5]), P([2], "i64"), I64([3, 4])], {"pad_mode": "edge"}, id="param-pads"),
    case("Pad", [P(None), I64([1, 2]), I64([3, 4])], {"pad_mode": "symmetric"}, id="dyn-rank"),
    # --- Broadcast / Tile ---------------------------------------------------------
    case("Broadcast", [P([3, 1]), I64([2, 3, 4])], id="numpy-static"),
    case("Broadcast", [P([-1, 1]), I64([2, 3, 4])], id="numpy-dyn-dim"),
    case("Broadcast", [P([3, 1]), P([3], "i64")], id="numpy-param"),
    case("Broadcast", [P([3, 1, 5]), I64([4, 1])], {"mode": "bidirectional"}, id="bidirectional"),
    case("Broadcast", [P([-1, 1]), I64([1, 4])], {"mode": "bidirectional"}, id="bidir-dyn"),
    case("Broadcast", [P([3, 1]), P([3], "i64")], {"mode": "bidirectional"}, id="bidir-param"),
    case("Broadcast", [P([3]), I64([2, 3, 4]), I64([1])], {"mode": "explicit"}, id="explicit"),
    case("Broadcast", [P([-1, 4]), I64([3, 5, 4]), I64([0, 2])], {"mode": "explicit"},
         id="explicit-dyn"),
    case("Broadcast", [P(None), I64([2, 3])], id="dyn-rank"),
    case("Tile", [P([2, 3]), I64([2, 2])], id="static"),
    case("Tile", [P([-1, 3]), I64([3, 1, 2])], id="dyn-dim-more-repeats"),
    case("Tile", [P([2, 3, 4]), I64([2])], id="fewer-repeats"),
    case("Tile", [P([2, 3]), P([3], "i64")], id="param-repeats"),
    case("Tile", [P(None), I64([2, 2])], id="dyn-rank"),
    # --- ShapeOf / Range -------------------------------------------------------------
    case("ShapeOf", [P([2, 3, 4])], {"output_type": "i64"}, id="static"),
    case("ShapeOf", [P([-1, 3])], {"output_type": "i32"}, id="dyn-dim-i32"),
    case("ShapeOf", [P(None)], {"output_type": "i64"}, id="dyn-rank"),
    case("Range", [I64(0), I64(10), I64(3)], {"output_type": "i64"}, id="static"),
    case("Range", [I32(10), I32(0), I32(-3)], {"output_type": "i32"}, id="negative-step"),
    case("Range", [F32(0.5), F32(5.0), F32(1.5)], {"output_type": "f32"}, id="float"),
    case("Range", [F32(0.5), F32(5.0), F32(1.5)], {"output_type": "i32"}, id="float-to-int"),
    case("Range", [I64(0), P([], "i64"), I64(1)], {"output_type": "i64"}, id="param-stop"),
    case("Range", [I64(5), I64(0), I64(1)], {"output_type": "f32"}, id="empty"),
    case("Range", [F32(0.5), F32(-5.0), F32(-1.7)], {"output_type": "i64"}, id="float-neg-to-int"),
    # --- Reductions ---------------------------------------------------------------------
]
for _op in ["ReduceSum", "ReduceMean", "ReduceMax", "ReduceMin", "ReduceProd", "ReduceL2"]:
    CASES += [
        case(_op, [P([2, 3, 4]), I64([1])], id="static"),
        case(_op, [P([-1, 3, 4]), I64([0, -1])], {"keep_dims": True}, id="dyn-dim-keep"),
        case(_op, [P([2, 3, 4]), P([1], "i64")], id="param-axis"),
        case(_op, [P([2, 3, 4]), P([2], "i64")], id="param-axes"),
        case(_op, [P([2, 3, 4]), P([2], "i64")], {"keep_dims": True}, id="param-axes-keep"),
        case(_op, [P(None), I64([0])], id="dyn-rank"),
    ]
CASES += [
    case("TopK", [P([3, 10]), I64(4)],
         {"axis": 1, "mode": "max", "sort": "value", "index_element_type": "i32"}, id="static"),
    case("TopK", [P([-1, -1]), I32(4)],
         {"axis": -1, "mode": "min", "sort": "index", "index_element_type": "i64"},
         id="dyn-dim"),
    case("TopK", [P([3, 5]), P([], "i64")],
         {"axis": 0, "mode": "max", "sort": "none", "index_element_type": "i64"},
         id="param-k"),
    case("TopK", [P(None), I64(2)],
         {"axis": 0, "mode": "max", "sort": "none", "index_element_type": "i32"},
         id="dyn-rank"),
    # --- Normalization -------------------------------------------------------------
    case("MVN", [P([2, 3, 4, 5]), I64([2, 3])],
         {"eps": 1e-5, "normalize_variance": True, "eps_mode": "INSIDE_SQRT"}, id="static"),
    case("MVN", [P([-1, 3, -1]), I64([-1])],
         {"eps": 1e-5, "normalize_variance": False, "eps_mode": "OUTSIDE_SQRT"}, id="dyn-dim"),
    case("MVN", [P(None), I64([1])],
         {"eps": 1e-5, "normalize_variance": True, "eps_mode": "INSIDE_SQRT"}, id="dyn-rank"),
    case("NormalizeL2", [P([2, 3, 4]), I64([1])], {"eps": 1e-6, "eps_mode": "add"}, id="static"),
    case("NormalizeL2", [P([-1, 3]), I64([-1])], {"eps": 1e-6, "eps_mode": "max"}, id="dyn-dim"),
    case("NormalizeL2", [P(None), P([1], "i64")], {"eps": 1e-6, "eps_mode": "add"},
         id="dyn-rank"),
    case("BatchNormInference", [P([2, 3, 4, 4]), P([3]), P([3]), P([3]), P([3])],
         {"epsilon": 1e-5}, id="static"),
    case("BatchNormInference", [P([-1, -1, 4]), P([3]), P([-1]), P([3]), P([-1])],
         {"epsilon": 1e-5}, id="dyn-dim-channels-from-gamma"),
    case("BatchNormInference", [P(None), P([3]), P([3]), P([3]), P([3])],
         {"epsilon": 1e-5}, id="dyn-rank"),
    # --- DepthToSpace / SpaceToDepth ---------------------------------------------------
    case("DepthToSpace", [P([1, 8, 3, 4])], {"block_size": 2, "mode": "blocks_first"},
         id="static"),
    case("DepthToSpace", [P([-1, 27, -1, 2, 2])], {"block_size": 3, "mode": "depth_first"},
         id="dyn-dim-3d"),
    case("DepthToSpace", [P(None)], {"block_size": 2, "mode": "blocks_first"}, id="dyn-rank"),
    case("SpaceToDepth", [P([1, 2, 4, 6])], {"block_size": 2, "mode": "blocks_first"},
         id="static"),
    case("SpaceToDepth", [P([-1, 3, -1, 9])], {"block_size": 3, "mode": "depth_first"},
         id="dyn-dim"),
    case("SpaceToDepth", [P(None)], {"block_size": 2, "mode": "blocks_first"}, id="dyn-rank"),
    # --- Interpolate --------------------------------------------------------------------
    case("Interpolate", [P([1, 3, 10, 10]), I64([20, 30]), I64([2, 3])],
         {"shape_calculation_mode": "sizes"}, id="sizes-axes"),
    case("Interpolate", [P([1, 3, 10, 10]), F32([0.333333, 0.7]), I64([2, 3])],
         {"shape_calculation_mode": "scales"}, id="scales-axes"),
    case("Interpolate", [P([1, 3, 10, 10]), F32([1.0, 1.0, 2.0, 0.5])],
         {"shape_calculation_mode": "scales", "pads_begin": [0, 0, 1, 1]},
         id="scales-pads"),
    case("Interpolate", [P([-1, 3, -1, 10]), F32([2.0, 2.0]), I64([2, 3])],
         {"shape_calculation_mode": "scales"}, id="dyn-dim-scales"),
    case("Interpolate", [P([-1, 3, 10, 10]), I64([5, 7]), I64([2, 3])],
         {"shape_calculation_mode": "sizes"}, id="dyn-dim-sizes"),
    case("Interpolate", [P([1, 3, 10, 10]), P([2], "i64"), I64([2, 3])],
         {"shape_calculation_mode": "sizes"}, id="param-sizes"),
    case("Interpolate", [P(None), I64([5, 7]), I64([2, 3])],
         {"shape_calculation_mode": "sizes"}, id="dyn-rank"),
    # --- FFT -------------------------------------------------------------------------------
]
for _op in ["DFT", "IDFT"]:
    CASES += [
        case(_op, [P([4, 16, 10, 2]), I64([1, 2])], id="static"),
        case(_op, [P([-1, 16, -1, 2]), I64([-1])], id="dyn-dim"),
        case(_op, [P([4, 16, 10, 2]), I64([1, 2]), I64([20, -1])], id="signal-size"),
        case(_op, [P([4, 16, 10, 2]), I64([0]), P([1], "i64")], id="param-signal-size"),
        case(_op, [P(None), I64([0])], id="dyn-rank"),
        case(_op, [P([4, 16, -1, -1]), I64([1])], id="dyn-complex-dim"),
    ]
CASES += [
    case("RDFT", [P([4, 16, 10]), I64([1, 2])], id="static"),
    case("RDFT", [P([-1, 16, -1]), I64([-2])], id="dyn-dim"),
    case("RDFT", [P([4, 16, 10]), I64([1, 2]), I64([-1, 7])], id="signal-size"),
    case("RDFT", [P([4, 16, 10]), P([1], "i64")], id="param-axes"),
    case("RDFT", [P(None), I64([0])], id="dyn-rank"),
    case("IRDFT", [P([4, 16, 6, 2]), I64([1, 2])], id="static"),
    case("IRDFT", [P([-1, 16, -1, 2]), I64([0, 1])], id="dyn-dim"),
    case("IRDFT", [P([4, 16, 6, 2]), I64([1, 2]), I64([-1, 9])], id="signal-size"),
    case("IRDFT", [P([4, 16, 6, 2]), I64([2, 1]), I64([5, -1])], id="signal-size-last-auto"),
    case("IRDFT", [P(None), I64([0])], id="dyn-rank"),
]


@pytest.mark.parametrize("c", CASES)
def test_matches_openvino(c: Case) -> None:
    node = build_ov(c)
    ours = infer(c, num_outputs=node.get_output_size())
    assert len(ours) == node.get_output_size()
    for i, t in enumerate(ours):
        want_shape = _ov_shape(node.get_output_partial_shape(i))
        want_type = node.get_output_element_type(i).get_type_name()
        got_type = et.from_xdsl(t.get_element_type())
        assert (got_type, _our_shape(t)) == (want_type, want_shape), f"output {i}"


def test_every_op_has_three_cases() -> None:
    counts: dict[str, int] = {}
    for p in CASES:
        counts[p.values[0].op] = counts.get(p.values[0].op, 0) + 1
    assert all(n >= 3 for n in counts.values()), {k: n for k, n in counts.items() if n < 3}


# ---------------------------------------------------------------------------
# Invalid inputs: both OpenVINO and xmo reject them
# ---------------------------------------------------------------------------

ERROR_CASES = [
    (case("Add", [P([2, 3]), P([4, 3])]), "cannot be broadcast"),
    (case("Multiply", [P([-1, 3]), P([2, 5, 4])]), "cannot be broadcast"),
    (case("Add", [P([2, 3]), P([2, 3], "i32")]), "same element type"),
    (case("Add", [P([2, 3]), P([3])], {"auto_broadcast": "none"}), "different ranks"),
    (case("Select", [P([2], "boolean"), P([3]), P([3])]), "cannot be broadcast"),
    (case("LogicalAnd", [P([2]), P([2])]), "must be boolean"),
    (case("Softmax", [P([2, 3])], {"axis": 2}), "out of range"),
    (case("Concat", [P([2, 3]), P([2, 3, 1])], {"axis": 0}), "rank"),
    (case("Concat", [P([2, 3]), P([4, 4])], {"axis": 0}), "do not match"),
    (case("MatMul", [P([2, 3]), P([4, 5])]), "do not match"),
    (case("Reshape", [P([2, 3]), I64([4, 2])]), "cannot reshape"),
    (case("Reshape", [P([2, 3]), I64([-1, -1])]), "more than one -1"),
    (case("Convolution", [P([1, 3, 5, 5]), P([8, 4, 3, 3])],
          {"strides": [1, 1], "pads_begin": [0, 0], "pads_end": [0, 0], "dilations": [1, 1]}),
     "channels"),
    (case("Convolution", [P([1, 3, 2, 2]), P([8, 3, 3, 3])],
          {"strides": [1, 1], "pads_begin": [0, 0], "pads_end": [0, 0], "dilations": [1, 1]}),
     "larger than"),
    (case("Split", [P([2, 5]), I64(1)], {"num_splits": 2}), "not divisible"),
    (case("VariadicSplit", [P([2, 5]), I64(1), I64([2, 2])]), "add up"),
    (case("Gather", [P([2, 5]), P([3], "i64"), I64(2)]), "out of range"),
    (case("Transpose", [P([2, 5]), I64([0, 0])]), "permutation"),
    (case("Unsqueeze", [P([2, 5]), I64([3])]), "out of range"),
    (case("ReduceSum", [P([2, 5]), I64([2])]), "out of range"),
    (case("DepthToSpace", [P([1, 6, 2, 2])], {"block_size": 2, "mode": "blocks_first"}),
     "not divisible"),
    (case("Swish", [P([2]), F32([1.0])]), "scalar"),
    (case("Add", [P([2, 3, 4]), P([3, 4])], {"auto_broadcast": "pdpd"}), "pdpd"),
    (case("Squeeze", [P([1, 3, 1]), I64([5])]), "out of range"),
    (case("GatherND", [P([3, 4]), P([3, 3], "i64")]), "exceeds the data rank"),
    (case("Interpolate", [P([1, 3, 4, 4]), I64([8]), I64([-1])],
          {"shape_calculation_mode": "sizes"}), "must not be negative"),
    (case("Pad", [P([2, 3]), I64([1]), I64([1])]), "values for data of rank"),
    (case("BatchNormInference", [P([2, 3, 4]), P([4]), P([3]), P([3]), P([3])],
          {"epsilon": 1e-5}), "gamma"),
]


@pytest.mark.parametrize(("c", "message"), [
    pytest.param(p.values[0], m, id=p.id) for p, m in ERROR_CASES
])
def test_rejects_invalid_inputs(c: Case, message: str) -> None:
    with pytest.raises(Exception):  # noqa: B017  (OpenVINO raises its own kinds)
        build_ov(c)
    with pytest.raises(ShapeInferenceError, match=message) as info:
        infer(c)
    assert str(info.value).startswith(f"ov.{c.op}: ")


# Inputs OpenVINO accepts (with a guessed or meaningless result) but xmo
# rejects on purpose: the opset specification calls them invalid.
STRICTER_CASES = [
    (case("MVN", [P([2, 3, 4]), I64([3])],
          {"eps": 1e-5, "normalize_variance": True, "eps_mode": "INSIDE_SQRT"}), "out of range"),
    (case("MVN", [P([2, 3, 4]), I64([1, 1])],
          {"eps": 1e-5, "normalize_variance": True, "eps_mode": "INSIDE_SQRT"}), "repeat"),
    (case("Pad", [P([2, 3]), I64([-3, 0]), I64([0, 0])]), "negative"),
    (case("VariadicSplit", [P([2, 6]), I64(1), I64([2, 5, -1])]), "add up"),
    (case("LogicalNot", [P([2])]), "must be boolean"),
]


@pytest.mark.parametrize(("c", "message"), [
    pytest.param(p.values[0], m, id=p.id) for p, m in STRICTER_CASES
])
def test_rejects_what_the_spec_forbids(c: Case, message: str) -> None:
    build_ov(c)  # OpenVINO accepts these
    with pytest.raises(ShapeInferenceError, match=message):
        infer(c)


def test_transpose_order_length_gives_rank() -> None:
    """OpenVINO leaves the rank dynamic here; the order's length fixes it."""
    c = Case("Transpose", [P(None), P([3], "i64")])
    assert [_our_shape(t) for t in infer(c)] == [[-1, -1, -1]]


@pytest.mark.parametrize(("c", "ours", "openvino"), [
    (Case("RDFT", [P([4, 16, 10]), I64([1, 2]), P([2], "i64")]), [4, -1, -1, 2], [4, 16, -1, 2]),
    (Case("IRDFT", [P([4, 16, 6, 2]), I64([1, 2]), P([2], "i64")]), [4, -1, -1], [4, 16, -1]),
])
def test_unknown_signal_size_makes_every_axis_dynamic(c: Case, ours: list[int],
                                                      openvino: list[int]) -> None:
    """A non-constant signal_size may resize every listed axis, not only the last.

    OpenVINO keeps the other axes static here; xmo does not guess.
    """
    node = build_ov(c)
    assert _ov_shape(node.get_output_partial_shape(0)) == openvino
    assert [_our_shape(t) for t in infer(c)] == [ours]


def test_error_message_names_shapes() -> None:
    c = Case("Add", [P([2, 3]), P([4, 3])])
    with pytest.raises(ShapeInferenceError) as info:
        infer(c)
    assert "[2,3]" in str(info.value) and "[4,3]" in str(info.value)


def test_variadic_split_outputs_from_context() -> None:
    """Non-constant split_lengths of unknown length: the op's result count decides."""
    c = Case("VariadicSplit", [P([2, 10]), I64(1), P([-1], "i64")])
    ours = infer(c, num_outputs=3)
    assert [_our_shape(t) for t in ours] == [[2, -1]] * 3
