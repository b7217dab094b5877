"""Normalizations: MVN, NormalizeL2, BatchNormInference, LRN, GroupNormalization."""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.ir import Attribute

from xmo.dialects.ov import element_types as et
from xmo.dialects.ov.base import InferContext, shape_infer
from xmo.dialects.ov.shape_inference._helpers import (
    const_ints,
    fmt_shape,
    merge_dim,
    normalize_axes,
    require_etype,
    require_integer,
    require_rank,
    result,
    same_etype,
)


def _check_axes(ctx: InferContext) -> None:
    require_integer(ctx, 1, "axes")
    require_rank(ctx, 1, (0, 1), "axes")
    axes = const_ints(ctx, 1)
    r = ctx.rank(0)
    if axes is not None and r is not None:
        normalize_axes(ctx, axes, r, unique=True)


@shape_infer("ov.MVN")
def infer_mvn(ctx: InferContext) -> Sequence[Attribute]:
    require_etype(ctx, 0, et.FLOAT_TYPES, "data")
    mode = str(ctx.attr("eps_mode")).upper()
    if mode not in ("INSIDE_SQRT", "OUTSIDE_SQRT"):
        raise ctx.error(f"unknown eps_mode '{ctx.attr('eps_mode')}'")
    _check_axes(ctx)
    return [result(ctx.etype(0), ctx.shape(0))]


@shape_infer("ov.NormalizeL2")
def infer_normalize_l2(ctx: InferContext) -> Sequence[Attribute]:
    require_etype(ctx, 0, et.FLOAT_TYPES, "data")
    if str(ctx.attr("eps_mode")).lower() not in ("add", "max"):
        raise ctx.error(f"unknown eps_mode '{ctx.attr('eps_mode')}'")
    _check_axes(ctx)
    return [result(ctx.etype(0), ctx.shape(0))]


@shape_infer("ov.BatchNormInference")
def infer_batch_norm(ctx: InferContext) -> Sequence[Attribute]:
    if ctx.num_inputs != 5:
        raise ctx.error(
            f"expected 5 inputs (data, gamma, beta, mean, variance), got {ctx.num_inputs}"
        )
    t = same_etype(ctx, range(5))
    require_etype(ctx, 0, et.FLOAT_TYPES, "data")
    data = ctx.shape(0)
    if data is not None and len(data) < 2:
        raise ctx.error(f"data must have rank 2 or more, got {fmt_shape(data)}")
    channels = -1 if data is None else data[1]
    for i, name in enumerate(("gamma", "beta", "mean", "variance"), start=1):
        require_rank(ctx, i, (1,), name)
        s = ctx.shape(i)
        if s is not None:
            channels = merge_dim(ctx, channels, s[0], f"{name} size vs data channels")
    if data is None:
        return [result(t, None)]
    out = list(data)
    out[1] = channels
    return [result(t, out)]


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
