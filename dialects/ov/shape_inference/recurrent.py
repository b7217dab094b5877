"""Sequence ops: ReverseSequence."""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.ir import Attribute

from xmo.dialects.ov.base import InferContext, shape_infer
from xmo.dialects.ov.shape_inference._helpers import (
    merge_dim,
    normalize_axis,
    require_integer,
    result,
)


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
