"""Ops that rearrange dimensions: Reshape, Transpose, Squeeze, Unsqueeze, Concat,
Split, VariadicSplit, DepthToSpace, SpaceToDepth, Roll, ShapeOf."""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.ir import Attribute

from xmo.dialects.ov.base import DYN, InferContext, shape_infer
from xmo.dialects.ov.shape_inference._helpers import (
    all_static,
    const_ints,
    const_scalar,
    etype_attr,
    fmt_shape,
    merge_dim,
    normalize_axes,
    normalize_axis,
    num_elements,
    require_integer,
    require_rank,
    result,
    same_etype,
    vector_length,
)


# ---------------------------------------------------------------------------
# Reshape
# ---------------------------------------------------------------------------


@shape_infer("ov.Reshape")
def infer_reshape(ctx: InferContext) -> Sequence[Attribute]:
    t = ctx.etype(0)
    require_integer(ctx, 1, "target shape")
    data = ctx.shape(0)
    target = const_ints(ctx, 1)
    if target is None:
        n = vector_length(ctx, 1)
        return [result(t, None if n is None else [DYN] * n)]
    special_zero = bool(ctx.attr("special_zero"))
    out: list[int] = []
    infer_at: int | None = None
    for i, v in enumerate(target):
        if v == -1:
            if infer_at is not None:
                raise ctx.error(f"target shape {target} has more than one -1")
            infer_at = i
            out.append(DYN)
        elif v == 0 and special_zero:
            if data is None:
                out.append(DYN)
            elif i >= len(data):
                raise ctx.error(
                    f"special_zero copies dimension {i}, but the input {fmt_shape(data)} "
                    f"has rank {len(data)}"
                )
            else:
                out.append(data[i])
        elif v < 0:
            raise ctx.error(f"target shape {target} has negative value {v}")
        else:
            out.append(v)
    total = DYN if data is None else num_elements(data)
    if infer_at is not None:
        # An input dim copied by special_zero cancels out of the element
        # count, so the -1 stays computable even when that dim is dynamic.
        copied = {i for i, v in enumerate(target) if v == 0 and special_zero}
        if data is not None:
            total = num_elements([d for i, d in enumerate(data) if i not in copied])
        others = num_elements([d for i, d in enumerate(out) if i != infer_at and i not in copied])
        if total >= 0 and others >= 0:
            if others == 0:
                if total != 0:
                    raise ctx.error(f"cannot infer -1 in {target}: other dims have 0 elements")
                out[infer_at] = 1  # 0 elements either way; OpenVINO picks 1
            elif total % others:
                raise ctx.error(
                    f"cannot reshape {fmt_shape(data)} ({total} elements) to {target}"
                )
            else:
                out[infer_at] = total // others
    elif total >= 0 and all_static(out) and num_elements(out) != total:
        raise ctx.error(
            f"cannot reshape {fmt_shape(data)} ({total} elements) to "
            f"{fmt_shape(out)} ({num_elements(out)} elements)"
        )
    return [result(t, out)]


# ---------------------------------------------------------------------------
# Transpose
# ---------------------------------------------------------------------------


@shape_infer("ov.Transpose")
def infer_transpose(ctx: InferContext) -> Sequence[Attribute]:
    t = ctx.etype(0)
    data = ctx.shape(0)
    order = const_ints(ctx, 1) if ctx.num_inputs > 1 else []
    if order is None:
        if data is not None:
            return [result(t, [DYN] * len(data))]
        n = vector_length(ctx, 1)
        return [result(t, None if n is None else [DYN] * n)]
    if data is None:
        return [result(t, [DYN] * len(order) if order else None)]
    r = len(data)
    if not order:
        return [result(t, data[::-1])]
    if sorted(order) != list(range(r)):
        raise ctx.error(f"order {order} is not a permutation of the {r} input axes")
    return [result(t, [data[i] for i in order])]


# ---------------------------------------------------------------------------
# Squeeze / Unsqueeze
# ---------------------------------------------------------------------------


@shape_infer("ov.Squeeze")
def infer_squeeze(ctx: InferContext) -> Sequence[Attribute]:
    t = ctx.etype(0)
    data = ctx.shape(0)
    if ctx.num_inputs > 1:
        axes = const_ints(ctx, 1)
        if axes is None or data is None:
            return [result(t, None)]
    else:
        axes = None
    if data is None:
        return [result(t, None)]
    if not axes:
        if any(d < 0 for d in data):
            return [result(t, None)]
        return [result(t, [d for d in data if d != 1])]
    skip = bool(ctx.attrs.get("allow_axis_skip", False))
    drop = set()
    for a in normalize_axes(ctx, axes, len(data)):
        d = data[a]
        if d == 1:
            drop.add(a)
        elif d < 0:
            if skip:
                return [result(t, None)]
            drop.add(a)
        # a static dimension other than 1 is left in place
    return [result(t, [d for i, d in enumerate(data) if i not in drop])]


@shape_infer("ov.Unsqueeze")
def infer_unsqueeze(ctx: InferContext) -> Sequence[Attribute]:
    t = ctx.etype(0)
    data = ctx.shape(0)
    axes = const_ints(ctx, 1)
    if axes is None or data is None:
        return [result(t, None)]
    raw = list(dict.fromkeys(axes))
    out_rank = len(data) + len(raw)
    norm = normalize_axes(ctx, raw, out_rank, unique=True)
    out: list[int] = []
    it = iter(data)
    for i in range(out_rank):
        out.append(1 if i in norm else next(it))
    return [result(t, out)]


# ---------------------------------------------------------------------------
# Concat / Split / VariadicSplit
# ---------------------------------------------------------------------------


@shape_infer("ov.Concat")
def infer_concat(ctx: InferContext) -> Sequence[Attribute]:
    if ctx.num_inputs == 0:
        raise ctx.error("needs at least one input")
    t = same_etype(ctx, range(ctx.num_inputs))
    shapes = [ctx.shape(i) for i in range(ctx.num_inputs)]
    ranked = [s for s in shapes if s is not None]
    if not ranked:
        return [result(t, None)]
    r = len(ranked[0])
    if r == 0:
        raise ctx.error("cannot concatenate scalars")
    axis = normalize_axis(ctx, ctx.attr("axis"), r)
    out = list(ranked[0])
    out[axis] = 0
    for i, s in enumerate(shapes):
        if s is None:
            out[axis] = DYN
            continue
        if len(s) != r:
            raise ctx.error(
                f"input {i} has rank {len(s)}, expected {r} ({fmt_shape(s)} vs "
                f"{fmt_shape(ranked[0])})"
            )
        for j, d in enumerate(s):
            if j == axis:
                out[j] = DYN if out[j] < 0 or d < 0 else out[j] + d
            else:
                out[j] = merge_dim(ctx, out[j], d, f"input {i} dimension {j}")
    return [result(t, out)]


def _split_axis(ctx: InferContext) -> int | None:
    """Normalized constant axis (input 1) of Split / VariadicSplit, else None."""
    require_integer(ctx, 1, "axis")
    s = ctx.shape(1)
    if s is not None and not (len(s) == 0 or s == [1]):
        raise ctx.error(f"axis must be a scalar, got shape {fmt_shape(s)}")
    a = const_scalar(ctx, 1)
    if a is None:
        return None
    return normalize_axis(ctx, a, ctx.rank(0))


@shape_infer("ov.Split")
def infer_split(ctx: InferContext) -> Sequence[Attribute]:
    t = ctx.etype(0)
    n = int(ctx.attr("num_splits"))
    if n <= 0:
        raise ctx.error(f"num_splits must be positive, got {n}")
    data = ctx.shape(0)
    axis = _split_axis(ctx)
    if data is None:
        return [result(t, None)] * n
    out = list(data)
    if axis is None:
        out = [DYN] * len(data)
    elif data[axis] >= 0:
        if data[axis] % n:
            raise ctx.error(f"dimension {axis} ({data[axis]}) is not divisible by {n} splits")
        out[axis] = data[axis] // n
    return [result(t, out)] * n


@shape_infer("ov.VariadicSplit")
def infer_variadic_split(ctx: InferContext) -> Sequence[Attribute]:
    t = ctx.etype(0)
    data = ctx.shape(0)
    axis = _split_axis(ctx)
    require_integer(ctx, 2, "split_lengths")
    lengths = const_ints(ctx, 2)
    n = len(lengths) if lengths is not None else vector_length(ctx, 2)
    if n is None:
        n = ctx.num_outputs
    if n is None:
        raise ctx.error("the number of outputs is unknown (split_lengths is not constant)")
    if data is None:
        return [result(t, None)] * n
    if axis is None:
        return [result(t, [DYN] * len(data))] * n
    if lengths is None:
        out = list(data)
        out[axis] = DYN
        return [result(t, out)] * n
    if sum(1 for v in lengths if v == -1) > 1:
        raise ctx.error(f"split_lengths {lengths} has more than one -1")
    if any(v < -1 for v in lengths):
        raise ctx.error(f"split_lengths {lengths} has a negative length")
    dim = data[axis]
    known = sum(v for v in lengths if v != -1)
    if dim >= 0:
        if (-1 in lengths and known > dim) or (-1 not in lengths and known != dim):
            raise ctx.error(
                f"split_lengths {lengths} do not add up to dimension {axis} ({dim})"
            )
    results = []
    for v in lengths:
        out = list(data)
        out[axis] = (dim - known if dim >= 0 else DYN) if v == -1 else v
        results.append(result(t, out))
    return results


# ---------------------------------------------------------------------------
# DepthToSpace / SpaceToDepth
# ---------------------------------------------------------------------------


def _block_op_prepare(ctx: InferContext) -> tuple[list[int] | None, int]:
    bs = int(ctx.attr("block_size"))
    if bs <= 0:
        raise ctx.error(f"block_size must be positive, got {bs}")
    if str(ctx.attr("mode")) not in ("blocks_first", "depth_first"):
        raise ctx.error(f"unknown mode '{ctx.attr('mode')}'")
    data = ctx.shape(0)
    if data is not None and len(data) < 3:
        raise ctx.error(f"data must have rank 3 or more, got {fmt_shape(data)}")
    return data, bs


@shape_infer("ov.DepthToSpace")
def infer_depth_to_space(ctx: InferContext) -> Sequence[Attribute]:
    data, bs = _block_op_prepare(ctx)
    if data is None:
        return [result(ctx.etype(0), None)]
    div = bs ** (len(data) - 2)
    c = data[1]
    if c >= 0 and c % div:
        raise ctx.error(f"channels {c} are not divisible by block_size^{len(data) - 2} = {div}")
    out = [data[0], c // div if c >= 0 else DYN]
    out += [d * bs if d >= 0 else DYN for d in data[2:]]
    return [result(ctx.etype(0), out)]


@shape_infer("ov.SpaceToDepth")
def infer_space_to_depth(ctx: InferContext) -> Sequence[Attribute]:
    data, bs = _block_op_prepare(ctx)
    if data is None:
        return [result(ctx.etype(0), None)]
    for i, d in enumerate(data[2:]):
        if d >= 0 and d % bs:
            raise ctx.error(f"spatial dimension {i + 2} ({d}) is not divisible by block_size {bs}")
    c = data[1]
    out = [data[0], c * bs ** (len(data) - 2) if c >= 0 else DYN]
    out += [d // bs if d >= 0 else DYN for d in data[2:]]
    return [result(ctx.etype(0), out)]


@shape_infer("ov.Roll")
def infer_roll(ctx: InferContext) -> Sequence[Attribute]:
    for i, what in ((1, "shift"), (2, "axes")):
        require_integer(ctx, i, what)
        require_rank(ctx, i, (0, 1), what)
    return [result(ctx.etype(0), ctx.shape(0))]


@shape_infer("ov.ShapeOf")
def infer_shape_of(ctx: InferContext) -> Sequence[Attribute]:
    out_t = etype_attr(ctx, "output_type", ("i32", "i64"))
    r = ctx.rank(0)
    return [result(out_t, [DYN if r is None else r])]
