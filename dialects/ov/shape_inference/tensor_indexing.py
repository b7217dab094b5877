"""Result types of indexing ops without inference elsewhere: GatherElements,
ScatterElementsUpdate, ScatterNDUpdate, NonZero, OneHot, ReverseSequence,
Unique."""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.ir import Attribute
from xmo.dialects.ov.base import DYN, InferContext, shape_infer
from xmo.dialects.ov.shape_inference._helpers import (
    const_scalar,
    etype_attr,
    fmt_shape,
    merge_dim,
    normalize_axis,
    require_integer,
    result,
    same_etype,
)


@shape_infer("ov.GatherElements")
def infer_gather_elements(ctx: InferContext) -> Sequence[Attribute]:
    t = ctx.etype(0)
    require_integer(ctx, 1, "indices")
    data, idx = ctx.shape(0), ctx.shape(1)
    if data is not None and idx is not None:
        if len(data) != len(idx):
            raise ctx.error(
                f"data {fmt_shape(data)} and indices {fmt_shape(idx)} must have the same rank"
            )
        axis = normalize_axis(ctx, ctx.attr("axis"), len(data))
        out = [
            d if i == axis else merge_dim(ctx, d, x, f"dimension {i}")
            for i, (d, x) in enumerate(zip(data, idx))
        ]
        # indices define the output; a static data dim fills a dynamic index
        # dim (OpenVINO requires equal dims outside the axis)
        out[axis] = idx[axis]
        return [result(t, out)]
    return [result(t, idx if idx is not None else data)]


@shape_infer("ov.ScatterElementsUpdate", "ov.ScatterNDUpdate")
def infer_scatter_update(ctx: InferContext) -> Sequence[Attribute]:
    t = same_etype(ctx, (0, 2), "data and updates")
    require_integer(ctx, 1, "indices")
    return [result(t, ctx.shape(0))]


@shape_infer("ov.NonZero")
def infer_non_zero(ctx: InferContext) -> Sequence[Attribute]:
    out_t = etype_attr(ctx, "output_type", {"i32", "i64"})
    rank = ctx.rank(0)
    return [result(out_t, [DYN if rank is None else rank, DYN])]


@shape_infer("ov.OneHot")
def infer_one_hot(ctx: InferContext) -> Sequence[Attribute]:
    require_integer(ctx, 0, "indices")
    require_integer(ctx, 1, "depth")
    t = same_etype(ctx, (2, 3), "on_value and off_value")
    idx = ctx.shape(0)
    if idx is None:
        return [result(t, None)]
    depth = const_scalar(ctx, 1)
    d = DYN if depth is None else int(depth)
    if d < DYN:
        raise ctx.error(f"depth must not be negative, got {d}")
    axis = normalize_axis(ctx, ctx.attr("axis"), len(idx) + 1)
    return [result(t, idx[:axis] + [d] + idx[axis:])]


@shape_infer("ov.ReverseSequence")
def infer_reverse_sequence(ctx: InferContext) -> Sequence[Attribute]:
    require_integer(ctx, 1, "seq_lengths")
    data = ctx.shape(0)
    if data is None:
        return [result(ctx.etype(0), None)]
    out = list(data)
    b = normalize_axis(ctx, ctx.attr("batch_axis"), len(data), "batch_axis")
    normalize_axis(ctx, ctx.attr("seq_axis"), len(data), "seq_axis")
    s = ctx.shape(1)
    if s is not None and len(s) == 1:
        out[b] = merge_dim(ctx, out[b], s[0], "batch dimension and seq_lengths")
    return [result(ctx.etype(0), out)]


@shape_infer("ov.Unique")
def infer_unique(ctx: InferContext) -> Sequence[Attribute]:
    t = ctx.etype(0)
    it = etype_attr(ctx, "index_element_type", {"i32", "i64"})
    ct = etype_attr(ctx, "count_element_type", {"i32", "i64"})
    data = ctx.shape(0)
    if ctx.num_inputs > 1:
        a = const_scalar(ctx, 1)
        if data is None or a is None:
            return [result(t, None), result(it, [DYN]), result(it, [DYN]), result(ct, [DYN])]
        axis = normalize_axis(ctx, a, len(data))
        out = list(data)
        out[axis] = DYN
        return [result(t, out), result(it, [DYN]), result(it, [data[axis]]), result(ct, [DYN])]
    n = DYN
    if data is not None and all(d >= 0 for d in data):
        n = 1
        for d in data:
            n *= d
    return [result(t, [DYN]), result(it, [DYN]), result(it, [n]), result(ct, [DYN])]
