"""Ops whose output shape comes from shape-like inputs or values: Broadcast,
Tile, Pad, Range, OneHot, NonZero."""

from __future__ import annotations

import math
from collections.abc import Sequence

from xdsl.ir import Attribute

from xmo.dialects.ov import element_types as et
from xmo.dialects.ov.base import DYN, InferContext, shape_infer
from xmo.dialects.ov.shape_inference._helpers import (
    broadcast_into,
    broadcast_numpy,
    const_ints,
    const_scalar,
    etype_attr,
    fmt_shape,
    normalize_axes,
    normalize_axis,
    require_integer,
    result,
    same_etype,
    vector_length,
)


# ---------------------------------------------------------------------------
# Broadcast / Tile
# ---------------------------------------------------------------------------


@shape_infer("ov.Broadcast")
def infer_broadcast(ctx: InferContext) -> Sequence[Attribute]:
    t = ctx.etype(0)
    require_integer(ctx, 1, "target_shape")
    mode = str(ctx.attr("mode")).lower()
    data = ctx.shape(0)
    target = const_ints(ctx, 1)
    if target is not None and any(v < 0 for v in target):
        raise ctx.error(f"target_shape {target} has negative values")
    n = len(target) if target is not None else vector_length(ctx, 1)
    if mode == "numpy":
        if target is None:
            return [result(t, None if n is None else [DYN] * n)]
        return [result(t, broadcast_into(ctx, target, data))]
    if mode == "bidirectional":
        if n is None:
            return [result(t, None)]
        return [result(t, broadcast_numpy(ctx, data, target or [DYN] * n))]
    if mode == "explicit":
        if ctx.num_inputs < 3:
            raise ctx.error("explicit mode needs the axes_mapping input")
        require_integer(ctx, 2, "axes_mapping")
        if n is None:
            return [result(t, None)]
        out = target if target is not None else [DYN] * n
        mapping = const_ints(ctx, 2)
        if mapping is not None and data is not None:
            if len(mapping) != len(data):
                raise ctx.error(
                    f"axes_mapping {mapping} has {len(mapping)} values for data "
                    f"{fmt_shape(data)}"
                )
            axes = normalize_axes(ctx, mapping, len(out), "axes_mapping")
            if axes != sorted(axes):
                raise ctx.error(f"axes_mapping {mapping} must be increasing")
            for d, a in zip(data, axes):
                if d != 1 and d >= 0 and out[a] >= 0 and d != out[a]:
                    raise ctx.error(
                        f"data dimension {d} cannot broadcast to target dimension "
                        f"{out[a]} (axis {a})"
                    )
        return [result(t, out)]
    raise ctx.error(f"unsupported broadcast mode '{mode}'")


@shape_infer("ov.Tile")
def infer_tile(ctx: InferContext) -> Sequence[Attribute]:
    t = ctx.etype(0)
    require_integer(ctx, 1, "repeats")
    data = ctx.shape(0)
    reps = const_ints(ctx, 1)
    if data is None:
        return [result(t, None)]
    if reps is None:
        n = vector_length(ctx, 1)
        return [result(t, None if n is None else [DYN] * max(n, len(data)))]
    if any(r < 0 for r in reps):
        raise ctx.error(f"repeats {reps} must not be negative")
    r = max(len(data), len(reps))
    d = [1] * (r - len(data)) + list(data)
    rp = [1] * (r - len(reps)) + reps
    return [result(t, [x * y if x >= 0 else (0 if y == 0 else DYN) for x, y in zip(d, rp)])]


# ---------------------------------------------------------------------------
# Pad
# ---------------------------------------------------------------------------


@shape_infer("ov.Pad")
def infer_pad(ctx: InferContext) -> Sequence[Attribute]:
    t = ctx.etype(0)
    require_integer(ctx, 1, "pads_begin")
    require_integer(ctx, 2, "pads_end")
    if ctx.num_inputs > 3:
        same_etype(ctx, (0, 3), "data and pad_value")
    mode = str(ctx.attr("pad_mode")).lower()
    if mode not in ("constant", "edge", "reflect", "symmetric"):
        raise ctx.error(f"unknown pad_mode '{mode}'")
    data = ctx.shape(0)
    pb, pe = const_ints(ctx, 1), const_ints(ctx, 2)
    n1, n2 = vector_length(ctx, 1), vector_length(ctx, 2)
    if n1 is not None and n2 is not None and n1 != n2:
        raise ctx.error(f"pads_begin has {n1} values, pads_end {n2}")
    if data is None:
        return [result(t, None)]
    for name, n in (("pads_begin", n1), ("pads_end", n2)):
        if n is not None and n != len(data):
            raise ctx.error(f"{name} has {n} values for data of rank {len(data)}")
    out = []
    for i, d in enumerate(data):
        b = None if pb is None else pb[i]
        e = None if pe is None else pe[i]
        if b is None or e is None or d < 0:
            out.append(DYN)
            continue
        limit = {"reflect": d - 1, "symmetric": d}.get(mode)
        if limit is not None and (b > limit or e > limit):
            raise ctx.error(
                f"{mode} padding of dimension {i} ({d}) by ({b}, {e}) exceeds {limit}"
            )
        v = d + b + e
        if v < 0:
            raise ctx.error(f"padding makes dimension {i} negative ({d} + {b} + {e})")
        out.append(v)
    return [result(t, out)]


# ---------------------------------------------------------------------------
# Range
# ---------------------------------------------------------------------------


@shape_infer("ov.Range")
def infer_range(ctx: InferContext) -> Sequence[Attribute]:
    out_t = etype_attr(ctx, "output_type")
    for i, name in enumerate(("start", "stop", "step")):
        s = ctx.shape(i)
        if s is not None and not (len(s) == 0 or s == [1]):
            raise ctx.error(f"{name} must be a scalar, got shape {fmt_shape(s)}")
    vals = [const_scalar(ctx, i) for i in range(3)]
    if any(v is None for v in vals):
        return [result(out_t, [DYN])]
    if out_t in et.INTEGER_TYPES:
        start, stop, step = (int(v) for v in vals)  # truncates toward zero
    else:
        start, stop, step = (float(v) for v in vals)
    if step == 0:
        raise ctx.error("step must not be zero")
    if isinstance(step, int):
        n = max(-((start - stop) // step), 0)  # exact ceil for int64 ranges
    else:
        n = max(math.ceil((stop - start) / step), 0)
    return [result(out_t, [n])]


@shape_infer("ov.NonZero")
def infer_non_zero(ctx: InferContext) -> Sequence[Attribute]:
    out_t = etype_attr(ctx, "output_type", {"i32", "i64"})
    rank = ctx.rank(0)
    return [result(out_t, [DYN if rank is None else rank, DYN])]



@shape_infer("ov.OneHot")
def infer_one_hot(ctx: InferContext) -> Sequence[Attribute]:
    require_integer(ctx, 0, "indices")
    require_integer(ctx, 1, "depth")
    t = same_etype(ctx, (2, 3), "on_value and off_value")
    idx = ctx.shape(0)
    if idx is None:
        return [result(t, None)]
    depth = const_scalar(ctx, 1)
    d = DYN if depth is None else int(depth)
    if d < DYN:
        raise ctx.error(f"depth must not be negative, got {d}")
    axis = normalize_axis(ctx, ctx.attr("axis"), len(idx) + 1)
    return [result(t, idx[:axis] + [d] + idx[axis:])]
