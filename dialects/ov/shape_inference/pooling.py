"""MaxPool (opset14) and AvgPool (opset16)."""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.ir import Attribute

from xmo.dialects.ov.base import DYN, InferContext, shape_infer
from xmo.dialects.ov.shape_inference._helpers import (
    attr_list,
    etype_attr,
    result,
    spatial_rank,
    window_output_shape,
)

_ROUNDING = ("floor", "ceil", "ceil_torch")


def _pool_shape(ctx: InferContext) -> list[int] | None:
    kernel = [int(k) for k in attr_list(ctx, "kernel")]
    if not kernel:
        raise ctx.error("attribute kernel must not be empty")
    if any(k <= 0 for k in kernel):
        raise ctx.error(f"kernel {kernel} must be positive")
    rounding = str(ctx.attrs.get("rounding_type", "floor")).lower()
    if rounding not in _ROUNDING:
        raise ctx.error(f"unknown rounding_type '{rounding}'")
    r = ctx.rank(0)
    n = spatial_rank(ctx, None if r is None else r - 2, len(kernel))
    assert n is not None
    if n < 1:
        raise ctx.error(f"data must have rank 3 or more, got {r}")
    data = ctx.shape(0) or [DYN] * (n + 2)
    return [data[0], data[1], *window_output_shape(ctx, data[2:], kernel, rounding)]


@shape_infer("ov.MaxPool")
def infer_max_pool(ctx: InferContext) -> Sequence[Attribute]:
    shape = _pool_shape(ctx)
    idx = etype_attr(ctx, "index_element_type", ("i32", "i64"))
    return [result(ctx.etype(0), shape), result(idx, shape)]


@shape_infer("ov.AvgPool")
def infer_avg_pool(ctx: InferContext) -> Sequence[Attribute]:
    return [result(ctx.etype(0), _pool_shape(ctx))]
