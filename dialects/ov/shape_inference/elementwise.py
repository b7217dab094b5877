"""Elementwise ops: binary arithmetic, comparison, logical and bitwise ops,
Select, Convert, ConvertLike, Identity, IsInf / IsNaN / IsFinite, FakeQuantize,
FakeConvert."""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.ir import Attribute

from xmo.dialects.ov import element_types as et
from xmo.dialects.ov.base import InferContext, shape_infer
from xmo.dialects.ov.shape_inference._helpers import (
    broadcast_shapes,
    etype_attr,
    require_etype,
    result,
    same_etype,
)

_ARITHMETIC = (
    "Add", "Subtract", "Multiply", "Divide", "Power", "Maximum", "Minimum",
    "SquaredDifference", "FloorMod", "Mod",
)  # fmt: skip
_COMPARISON = ("Equal", "NotEqual", "Less", "Greater", "LessEqual", "GreaterEqual")
_LOGICAL = ("LogicalAnd", "LogicalOr", "LogicalXor")


def _binary_shape(ctx: InferContext):
    if ctx.num_inputs != 2:
        raise ctx.error(f"expected 2 inputs, got {ctx.num_inputs}")
    mode = ctx.attrs.get("auto_broadcast", "numpy")
    return broadcast_shapes(ctx, mode, ctx.shape(0), ctx.shape(1))


@shape_infer(*(f"ov.{n}" for n in _ARITHMETIC))
def infer_arithmetic(ctx: InferContext) -> Sequence[Attribute]:
    t = same_etype(ctx, (0, 1))
    if t == "boolean":
        raise ctx.error("arithmetic on boolean inputs is not supported")
    return [result(t, _binary_shape(ctx))]


@shape_infer(*(f"ov.{n}" for n in _COMPARISON))
def infer_comparison(ctx: InferContext) -> Sequence[Attribute]:
    same_etype(ctx, (0, 1))
    return [result("boolean", _binary_shape(ctx))]


@shape_infer(*(f"ov.{n}" for n in _LOGICAL))
def infer_logical(ctx: InferContext) -> Sequence[Attribute]:
    for i in (0, 1):
        require_etype(ctx, i, {"boolean"}, "logical operand")
    return [result("boolean", _binary_shape(ctx))]


@shape_infer("ov.LogicalNot")
def infer_logical_not(ctx: InferContext) -> Sequence[Attribute]:
    require_etype(ctx, 0, {"boolean"}, "logical operand")
    return [result("boolean", ctx.shape(0))]


@shape_infer("ov.Select")
def infer_select(ctx: InferContext) -> Sequence[Attribute]:
    require_etype(ctx, 0, {"boolean"}, "condition")
    t = same_etype(ctx, (1, 2), "then and else")
    mode = ctx.attrs.get("auto_broadcast", "numpy")
    shape = broadcast_shapes(ctx, mode, ctx.shape(1), ctx.shape(2))
    shape = broadcast_shapes(ctx, mode, shape, ctx.shape(0))
    return [result(t, shape)]


@shape_infer("ov.Convert")
def infer_convert(ctx: InferContext) -> Sequence[Attribute]:
    return [result(etype_attr(ctx, "destination_type"), ctx.shape(0))]


@shape_infer("ov.IsInf", "ov.IsNaN", "ov.IsFinite")
def infer_float_class(ctx: InferContext) -> Sequence[Attribute]:
    require_etype(ctx, 0, et.FLOAT_TYPES, "data")
    return [result("boolean", ctx.shape(0))]



_BITWISE = ("BitwiseAnd", "BitwiseOr", "BitwiseXor", "BitwiseLeftShift", "BitwiseRightShift")



@shape_infer(*(f"ov.{n}" for n in _BITWISE))
def infer_bitwise(ctx: InferContext) -> Sequence[Attribute]:
    if ctx.num_inputs != 2:
        raise ctx.error(f"expected 2 inputs, got {ctx.num_inputs}")
    t = same_etype(ctx, (0, 1))
    allowed = et.INTEGER_TYPES | ({"boolean"} if "Shift" not in ctx.op_name else set())
    require_etype(ctx, 0, allowed, "operand")
    mode = ctx.attrs.get("auto_broadcast", "numpy")
    return [result(t, broadcast_shapes(ctx, mode, ctx.shape(0), ctx.shape(1)))]



@shape_infer("ov.BitwiseNot")
def infer_bitwise_not(ctx: InferContext) -> Sequence[Attribute]:
    require_etype(ctx, 0, et.INTEGER_TYPES | {"boolean"}, "operand")
    return [result(ctx.etype(0), ctx.shape(0))]



@shape_infer("ov.FakeQuantize")
def infer_fake_quantize(ctx: InferContext) -> Sequence[Attribute]:
    if ctx.num_inputs != 5:
        raise ctx.error(f"expected 5 inputs, got {ctx.num_inputs}")
    t = same_etype(ctx, range(5))
    require_etype(ctx, 0, et.FLOAT_TYPES, "data")
    if int(ctx.attr("levels")) < 2:
        raise ctx.error(f"levels must be 2 or more, got {ctx.attr('levels')}")
    mode = ctx.attrs.get("auto_broadcast", "numpy")
    shape = ctx.shape(0)
    for i in range(1, 5):
        shape = broadcast_shapes(ctx, mode, shape, ctx.shape(i))
    return [result(t, shape)]



@shape_infer("ov.FakeConvert")
def infer_fake_convert(ctx: InferContext) -> Sequence[Attribute]:
    require_etype(ctx, 0, et.FLOAT_TYPES, "data")
    return [result(ctx.etype(0), ctx.shape(0))]



@shape_infer("ov.ConvertLike")
def infer_convert_like(ctx: InferContext) -> Sequence[Attribute]:
    return [result(ctx.etype(1), ctx.shape(0))]



@shape_infer("ov.Identity")
def infer_identity(ctx: InferContext) -> Sequence[Attribute]:
    if ctx.num_inputs != 1:
        raise ctx.error(f"expected 1 input, got {ctx.num_inputs}")
    return [result(ctx.etype(0), ctx.shape(0))]
