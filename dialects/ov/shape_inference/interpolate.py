"""Interpolate (opset11: sizes or scales, optional axes)."""

from __future__ import annotations

import math
from collections.abc import Sequence

from xdsl.ir import Attribute

from xmo.dialects.ov import element_types as et
from xmo.dialects.ov.base import DYN, InferContext, shape_infer
from xmo.dialects.ov.shape_inference._helpers import (
    attr_list,
    const_floats,
    const_ints,
    normalize_axes,
    require_etype,
    require_integer,
    result,
    vector_length,
)

#: Added before flooring scaled sizes so that e.g. 3 * (1/3) gives 1.
_SCALE_EPS = 1e-5


@shape_infer("ov.Interpolate")
def infer_interpolate(ctx: InferContext) -> Sequence[Attribute]:
    t = ctx.etype(0)
    mode = str(ctx.attr("shape_calculation_mode")).lower()
    if mode == "sizes":
        require_integer(ctx, 1, "sizes")
    elif mode == "scales":
        require_etype(ctx, 1, et.FLOAT_TYPES, "scales")
    else:
        raise ctx.error(f"unknown shape_calculation_mode '{mode}'")
    if ctx.num_inputs > 2:
        require_integer(ctx, 2, "axes")
    data = ctx.shape(0)
    if data is None:
        return [result(t, None)]
    r = len(data)
    pb = [int(v) for v in attr_list(ctx, "pads_begin")]
    pe = [int(v) for v in attr_list(ctx, "pads_end")]
    pb += [0] * (r - len(pb))
    pe += [0] * (r - len(pe))
    padded = [d + pb[i] + pe[i] if d >= 0 else DYN for i, d in enumerate(data)]
    if ctx.num_inputs > 2:
        raw = const_ints(ctx, 2)
        if raw is None:
            return [result(t, [DYN] * r)]
        if any(a < 0 for a in raw):
            raise ctx.error(f"axes {raw} must not be negative (opset11)")
        axes = normalize_axes(ctx, raw, r, unique=True)
    else:
        axes = list(range(r))
    n = vector_length(ctx, 1)
    if n is not None and n != len(axes):
        raise ctx.error(f"{mode} has {n} values for {len(axes)} axes")
    out = list(padded)
    values = const_ints(ctx, 1) if mode == "sizes" else const_floats(ctx, 1)
    for i, a in enumerate(axes):
        if values is None:
            out[a] = DYN
        elif mode == "sizes":
            out[a] = values[i]
        else:
            out[a] = DYN if padded[a] < 0 else math.floor(padded[a] * values[i] + _SCALE_EPS)
    return [result(t, out)]
