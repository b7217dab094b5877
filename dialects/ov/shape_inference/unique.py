"""Unique: unique elements or slices, their indices and counts."""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.ir import Attribute

from xmo.dialects.ov.base import DYN, InferContext, shape_infer
from xmo.dialects.ov.shape_inference._helpers import (
    const_scalar,
    etype_attr,
    normalize_axis,
    result,
)


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
