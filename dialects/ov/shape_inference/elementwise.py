"""Elementwise binary ops (arithmetic, comparison, logical), Select and Convert."""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.ir import Attribute

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

