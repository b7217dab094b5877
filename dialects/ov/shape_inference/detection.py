"""Detection and search ops: Bucketize."""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.ir import Attribute

from xmo.dialects.ov.base import InferContext, shape_infer
from xmo.dialects.ov.shape_inference._helpers import (
    etype_attr,
    require_rank,
    result,
)


@shape_infer("ov.Bucketize")
def infer_bucketize(ctx: InferContext) -> Sequence[Attribute]:
    require_rank(ctx, 1, (1,), "buckets")
    return [result(etype_attr(ctx, "output_type", ("i32", "i64")), ctx.shape(0))]
