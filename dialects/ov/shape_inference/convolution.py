"""Convolution, GroupConvolution, ConvolutionBackpropData."""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.ir import Attribute

from xmo.dialects.ov.base import DYN, InferContext, shape_infer
from xmo.dialects.ov.shape_inference._helpers import (
    attr_list,
    const_ints,
    dim_mul,
    fmt_shape,
    merge_dim,
    result,
    same_etype,
    spatial_rank,
    vector_length,
    window_attr,
    window_output_shape,
)

_WINDOW_ATTRS = ("strides", "dilations", "pads_begin", "pads_end")


def _nspatial(ctx: InferContext, filter_extra: int, extra_attrs: Sequence[str] = ()) -> int | None:
    """Spatial rank from data rank, filter rank or attribute lengths."""
    dr, fr = ctx.rank(0), ctx.rank(1)
    cands: list[int | None] = [
        None if dr is None else dr - 2,
        None if fr is None else fr - filter_extra,
    ]
    for name in (*_WINDOW_ATTRS, *extra_attrs):
        v = attr_list(ctx, name)
        if v:
            cands.append(len(v))
    n = spatial_rank(ctx, *cands)
    if n is not None and n < 1:
        raise ctx.error(
            f"data {fmt_shape(ctx.shape(0))} and filters {fmt_shape(ctx.shape(1))} "
            "need at least one spatial dimension"
        )
    return n


def _padded(ctx: InferContext, i: int, rank: int) -> list[int]:
    s = ctx.shape(i)
    return [DYN] * rank if s is None else s


@shape_infer("ov.Convolution", "ov.GroupConvolution")
def infer_convolution(ctx: InferContext) -> Sequence[Attribute]:
    t = same_etype(ctx, (0, 1), "data and filters")
    grouped = ctx.op_name == "ov.GroupConvolution"
    extra = 3 if grouped else 2
    n = _nspatial(ctx, extra)
    if n is None:
        return [result(t, None)]
    data = _padded(ctx, 0, n + 2)
    filt = _padded(ctx, 1, n + extra)
    if grouped:
        groups, out_per_group, in_per_group = filt[0], filt[1], filt[2]
        merge_dim(ctx, data[1], dim_mul(groups, in_per_group),
                  "input channels vs groups * filter input channels")
        if data[1] >= 0 and groups > 0 and data[1] % groups:
            raise ctx.error(f"input channels {data[1]} are not divisible by {groups} groups")
        out_ch = dim_mul(groups, out_per_group)
    else:
        merge_dim(ctx, data[1], filt[1], "input channels vs filter input channels")
        out_ch = filt[0]
    spatial = window_output_shape(ctx, data[2:], filt[extra:])
    return [result(t, [data[0], out_ch, *spatial])]


@shape_infer("ov.ConvolutionBackpropData")
def infer_convolution_backprop(ctx: InferContext) -> Sequence[Attribute]:
    t = same_etype(ctx, (0, 1), "data and filters")
    extra_attrs = ["output_padding"]
    has_out_shape = ctx.num_inputs > 2
    out_len = vector_length(ctx, 2) if has_out_shape else None
    n = _nspatial(ctx, 2, extra_attrs)
    if n is None:
        n = out_len
    elif out_len is not None and out_len != n:
        raise ctx.error(f"output_shape has {out_len} values for {n} spatial dims")
    if n is None:
        return [result(t, None)]
    data = _padded(ctx, 0, n + 2)
    filt = _padded(ctx, 1, n + 2)
    merge_dim(ctx, data[1], filt[0], "input channels vs filter input channels")
    if has_out_shape:
        spatial = const_ints(ctx, 2) or [DYN] * n
    else:
        strides = window_attr(ctx, "strides", n, 1)
        dil = window_attr(ctx, "dilations", n, 1)
        pb = window_attr(ctx, "pads_begin", n, 0)
        pe = window_attr(ctx, "pads_end", n, 0)
        op = window_attr(ctx, "output_padding", n, 0)
        if str(ctx.attrs.get("auto_pad", "explicit")).lower() not in ("explicit", "notset"):
            pb = pe = [0] * n
        spatial = []
        for i in range(n):
            d, k = data[2 + i], filt[2 + i]
            if d < 0 or k < 0:
                spatial.append(DYN)
                continue
            v = strides[i] * (d - 1) + dil[i] * (k - 1) + 1 - pb[i] - pe[i] + op[i]
            if v < 0:
                raise ctx.error(f"spatial output dimension {i} would be negative ({v})")
            spatial.append(v)
    return [result(t, [data[0], filt[1], *spatial])]


