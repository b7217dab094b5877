"""Unary math and activations (trigonometric, Sign, Round, SoftSign, Selu,
HardSigmoid, ...) and other shape-preserving ops (Softmax, PRelu, ...)."""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.ir import Attribute

from xmo.dialects.ov import element_types as et
from xmo.dialects.ov.base import InferContext, shape_infer
from xmo.dialects.ov.shape_inference._helpers import (
    fmt_shape,
    normalize_axis,
    require_etype,
    result,
    same_etype,
)

_UNARY = (
    "Relu", "Sigmoid", "Tanh", "Exp", "Log", "Sqrt", "Abs", "Negative", "Floor",
    "Ceiling", "Clamp", "Erf", "Gelu", "HSwish", "HSigmoid", "Mish", "SoftPlus",
    "Elu",
)  # fmt: skip
_FLOAT_ONLY = {"ov.Mish", "ov.SoftPlus"}


@shape_infer(*(f"ov.{n}" for n in _UNARY))
def infer_unary(ctx: InferContext) -> Sequence[Attribute]:
    if ctx.op_name in _FLOAT_ONLY:
        require_etype(ctx, 0, et.FLOAT_TYPES, "input")
    if ctx.op_name == "ov.Clamp" and float(ctx.attr("min")) > float(ctx.attr("max")):
        raise ctx.error(f"min {ctx.attr('min')} is greater than max {ctx.attr('max')}")
    return [result(ctx.etype(0), ctx.shape(0))]


@shape_infer("ov.Swish")
def infer_swish(ctx: InferContext) -> Sequence[Attribute]:
    t = ctx.etype(0)
    if ctx.num_inputs > 1:
        same_etype(ctx, (0, 1), "input and beta")
        s = ctx.shape(1)
        if s is not None and len(s) != 0:
            raise ctx.error(f"beta must be a scalar, got shape {fmt_shape(s)}")
    return [result(t, ctx.shape(0))]


@shape_infer("ov.PRelu")
def infer_prelu(ctx: InferContext) -> Sequence[Attribute]:
    t = same_etype(ctx, (0, 1), "data and slope")
    return [result(t, ctx.shape(0))]


@shape_infer("ov.Softmax", "ov.LogSoftmax")
def infer_softmax(ctx: InferContext) -> Sequence[Attribute]:
    r = ctx.rank(0)
    # a scalar is normalized along its one implicit axis
    normalize_axis(ctx, ctx.attr("axis"), None if r is None else max(r, 1))
    return [result(ctx.etype(0), ctx.shape(0))]


_SAME_TYPE_UNARY = (
    "Sin", "Cos", "Tan", "Asin", "Acos", "Atan", "Sinh", "Cosh", "Asinh", "Acosh",
    "Atanh", "Sign", "Round", "SoftSign",
)  # fmt: skip



@shape_infer(*(f"ov.{n}" for n in _SAME_TYPE_UNARY))
def infer_same_type_unary(ctx: InferContext) -> Sequence[Attribute]:
    if ctx.num_inputs != 1:
        raise ctx.error(f"expected 1 input, got {ctx.num_inputs}")
    if ctx.op_name == "ov.Round" and str(ctx.attr("mode")) not in ("half_to_even", "half_away_from_zero"):
        raise ctx.error(f"unknown mode '{ctx.attr('mode')}'")
    return [result(ctx.etype(0), ctx.shape(0))]



@shape_infer("ov.Selu", "ov.HardSigmoid")
def infer_param_activation(ctx: InferContext) -> Sequence[Attribute]:
    if ctx.num_inputs != 3:
        raise ctx.error(f"expected 3 inputs, got {ctx.num_inputs}")
    t = same_etype(ctx, (0, 1, 2))
    require_etype(ctx, 0, et.FLOAT_TYPES, "data")
    for i in (1, 2):
        s = ctx.shape(i)
        if s is not None and not (len(s) == 0 or s == [1]):
            raise ctx.error(f"input {i} must be a scalar or of shape [1], got {fmt_shape(s)}")
    return [result(t, ctx.shape(0))]
