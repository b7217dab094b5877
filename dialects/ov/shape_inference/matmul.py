"""MatMul (numpy matmul semantics with transpose_a / transpose_b)."""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.ir import Attribute

from xmo.dialects.ov.base import InferContext, shape_infer
from xmo.dialects.ov.shape_inference._helpers import (
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
