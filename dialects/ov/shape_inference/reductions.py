"""Reductions over axes (ReduceSum, ReduceMean, ...), TopK and CumSum."""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.ir import Attribute

from xmo.dialects.ov.base import DYN, InferContext, shape_infer
from xmo.dialects.ov.shape_inference._helpers import (
    const_ints,
    const_scalar,
    etype_attr,
    fmt_shape,
    normalize_axes,
    normalize_axis,
    require_integer,
    require_rank,
    result,
    vector_length,
)

_REDUCE = ("ReduceSum", "ReduceMean", "ReduceMax", "ReduceMin", "ReduceProd", "ReduceL2",
           "ReduceL1", "ReduceLogicalAnd", "ReduceLogicalOr")


@shape_infer(*(f"ov.{n}" for n in _REDUCE))
def infer_reduce(ctx: InferContext) -> Sequence[Attribute]:
    t = ctx.etype(0)
    require_integer(ctx, 1, "axes")
    s = ctx.shape(1)
    if s is not None and len(s) > 1:
        raise ctx.error(f"axes must be a scalar or 1-D, got shape {fmt_shape(s)}")
    keep = bool(ctx.attr("keep_dims"))
    data = ctx.shape(0)
    if data is None:
        return [result(t, None)]
    raw = const_ints(ctx, 1)
    if raw is None:
        if keep:
            return [result(t, [DYN] * len(data))]
        # Unknown axes may repeat: only a single axis fixes the output rank.
        n = vector_length(ctx, 1)
        if n == 0:
            return [result(t, data)]
        if n == 1 and len(data) > 0:
            return [result(t, [DYN] * (len(data) - 1))]
        return [result(t, None)]
    axes = set(normalize_axes(ctx, raw, len(data)))
    if keep:
        return [result(t, [1 if i in axes else d for i, d in enumerate(data)])]
    return [result(t, [d for i, d in enumerate(data) if i not in axes])]


@shape_infer("ov.TopK")
def infer_topk(ctx: InferContext) -> Sequence[Attribute]:
    t = ctx.etype(0)
    require_integer(ctx, 1, "k")
    ks = ctx.shape(1)
    if ks is not None and not (len(ks) == 0 or ks == [1]):
        raise ctx.error(f"k must be a scalar, got shape {fmt_shape(ks)}")
    idx_t = etype_attr(ctx, "index_element_type", ("i32", "i64"))
    if str(ctx.attr("mode")) not in ("max", "min"):
        raise ctx.error(f"unknown mode '{ctx.attr('mode')}'")
    if str(ctx.attr("sort")) not in ("value", "index", "none"):
        raise ctx.error(f"unknown sort '{ctx.attr('sort')}'")
    data = ctx.shape(0)
    if data is None:
        return [result(t, None), result(idx_t, None)]
    if len(data) == 0:
        raise ctx.error("data must have rank 1 or more")
    axis = normalize_axis(ctx, ctx.attr("axis"), len(data))
    k = const_scalar(ctx, 1)
    if k is not None and k < 0:
        raise ctx.error(f"k must not be negative, got {k}")
    out = list(data)
    out[axis] = DYN if k is None else int(k)
    return [result(t, out), result(idx_t, out)]


@shape_infer("ov.CumSum")
def infer_cumsum(ctx: InferContext) -> Sequence[Attribute]:
    if ctx.num_inputs > 1:
        require_integer(ctx, 1, "axis")
        require_rank(ctx, 1, (0,), "axis")
    return [result(ctx.etype(0), ctx.shape(0))]
