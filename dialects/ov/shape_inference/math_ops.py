"""Result types of the math / activation / normalization / quantization ops the
ONNX converters of the ``math`` families emit and that had no inference yet:
trigonometric unaries, Sign, Round, SoftSign, Selu, HardSigmoid, IsInf/IsNaN/
IsFinite, bitwise ops and shifts, CumSum, Roll, Bucketize, LRN,
GroupNormalization, FakeQuantize, FakeConvert, Identity, ConvertLike.
"""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.ir import Attribute

from xmo.dialects.ov import element_types as et
from xmo.dialects.ov.base import InferContext, shape_infer
from xmo.dialects.ov.shape_inference._helpers import (
    broadcast_shapes,
    etype_attr,
    fmt_shape,
    merge_dim,
    require_etype,
    require_integer,
    require_rank,
    result,
    same_etype,
)

_SAME_TYPE_UNARY = (
    "Sin", "Cos", "Tan", "Asin", "Acos", "Atan", "Sinh", "Cosh", "Asinh", "Acosh",
    "Atanh", "Sign", "Round", "SoftSign", "Identity",
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


@shape_infer("ov.CumSum")
def infer_cumsum(ctx: InferContext) -> Sequence[Attribute]:
    if ctx.num_inputs > 1:
        require_integer(ctx, 1, "axis")
        require_rank(ctx, 1, (0,), "axis")
    return [result(ctx.etype(0), ctx.shape(0))]


@shape_infer("ov.Roll")
def infer_roll(ctx: InferContext) -> Sequence[Attribute]:
    for i, what in ((1, "shift"), (2, "axes")):
        require_integer(ctx, i, what)
        require_rank(ctx, i, (0, 1), what)
    return [result(ctx.etype(0), ctx.shape(0))]


@shape_infer("ov.Bucketize")
def infer_bucketize(ctx: InferContext) -> Sequence[Attribute]:
    require_rank(ctx, 1, (1,), "buckets")
    return [result(etype_attr(ctx, "output_type", ("i32", "i64")), ctx.shape(0))]


@shape_infer("ov.LRN")
def infer_lrn(ctx: InferContext) -> Sequence[Attribute]:
    require_etype(ctx, 0, et.FLOAT_TYPES, "data")
    require_integer(ctx, 1, "axes")
    require_rank(ctx, 1, (1,), "axes")
    return [result(ctx.etype(0), ctx.shape(0))]


@shape_infer("ov.GroupNormalization")
def infer_group_norm(ctx: InferContext) -> Sequence[Attribute]:
    t = same_etype(ctx, (0, 1, 2))
    require_etype(ctx, 0, et.FLOAT_TYPES, "data")
    groups = int(ctx.attr("num_groups"))
    if groups <= 0:
        raise ctx.error(f"num_groups must be positive, got {groups}")
    data = ctx.shape(0)
    if data is not None and len(data) < 2:
        raise ctx.error(f"data must have rank 2 or more, got {fmt_shape(data)}")
    channels = -1 if data is None else data[1]
    if channels >= 0 and channels % groups:
        raise ctx.error(f"{channels} channels are not divisible into {groups} groups")
    for i, name in ((1, "scale"), (2, "bias")):
        require_rank(ctx, i, (1,), name)
        s = ctx.shape(i)
        if s is not None:
            channels = merge_dim(ctx, channels, s[0], f"{name} size vs data channels")
    return [result(t, ctx.shape(0))]


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
