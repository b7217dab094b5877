"""MatMul (numpy matmul semantics with transpose_a / transpose_b) and
ScaledDotProductAttention."""

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


@shape_infer("ov.MatMul")
def infer_matmul(ctx: InferContext) -> Sequence[Attribute]:
    t = same_etype(ctx, (0, 1), "matrix operands")
    a, b = ctx.shape(0), ctx.shape(1)
    if a is None or b is None:
        # Rank unknown: 1-D operands drop dims, so the output rank is unknown.
        return [result(t, None)]
    if len(a) == 0 or len(b) == 0:
        raise ctx.error("MatMul operands must not be scalars")
    a, b = list(a), list(b)
    a_vec, b_vec = len(a) == 1, len(b) == 1
    if a_vec:
        a = [1, a[0]]
    elif ctx.attr("transpose_a"):
        a[-2], a[-1] = a[-1], a[-2]
    if b_vec:
        b = [b[0], 1]
    elif ctx.attr("transpose_b"):
        b[-2], b[-1] = b[-1], b[-2]
    merge_dim(ctx, a[-1], b[-2],
              f"inner dimensions of {fmt_shape(ctx.shape(0))} x {fmt_shape(ctx.shape(1))}")
    batch = broadcast_numpy(ctx, a[:-2], b[:-2])
    assert batch is not None
    out = [*batch, a[-2], b[-1]]
    if b_vec:
        out.pop(-1)
    if a_vec:
        out.pop(-1 if b_vec else -2)
    return [result(t, out)]




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
