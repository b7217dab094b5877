"""ScaledDotProductAttention."""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.ir import Attribute

from xmo.dialects.ov.base import InferContext, shape_infer
from xmo.dialects.ov.shape_inference._helpers import (
    broadcast_into,
    broadcast_numpy,
    fmt_shape,
    merge_dim,
    result,
    same_etype,
)


@shape_infer("ov.ScaledDotProductAttention")
def infer_sdpa(ctx: InferContext) -> Sequence[Attribute]:
    """query [N, ..., L, E], key [N, ..., S, E], value [N, ..., S, Ev] ->
    [N, ..., L, Ev] (batch dims broadcast numpy-style); the mask broadcasts
    to [N, ..., L, S], the scale is a scalar."""
    t = same_etype(ctx, (0, 1, 2), "query, key and value")
    q, k, v = ctx.shape(0), ctx.shape(1), ctx.shape(2)
    for i, s in enumerate((q, k, v)):
        if s is not None and len(s) < 2:
            raise ctx.error(f"input {i} must have rank >= 2, got {fmt_shape(s)}")
    if ctx.num_inputs > 3 and ctx.etype(3) not in (t, "boolean"):
        raise ctx.error(f"attention_mask must be boolean or {t}, got {ctx.etype(3)}")
    if ctx.num_inputs > 4:
        if ctx.etype(4) != t:
            raise ctx.error(f"scale must be {t}, got {ctx.etype(4)}")
        scale = ctx.shape(4)
        if scale is not None and any(d != 1 for d in scale):
            raise ctx.error(f"scale must be a scalar, got {fmt_shape(scale)}")
    if q is None or k is None or v is None:
        return [result(t, None)]
    merge_dim(ctx, q[-1], k[-1], f"embedding dims of query {fmt_shape(q)} and key {fmt_shape(k)}")
    s_len = merge_dim(ctx, k[-2], v[-2], f"source lengths of key {fmt_shape(k)} and value {fmt_shape(v)}")
    batch = broadcast_numpy(ctx, q[:-2], k[:-2], v[:-2])
    assert batch is not None
    if ctx.num_inputs > 3 and not ctx.attr("causal"):
        broadcast_into(ctx, [*batch, q[-2], s_len], ctx.shape(3))
    return [result(t, [*batch, q[-2], v[-1]])]
