"""Gathering, scattering and slicing: Gather, GatherND, GatherElements,
ScatterUpdate, ScatterElementsUpdate, ScatterNDUpdate, StridedSlice, Slice."""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.ir import Attribute

from xmo.dialects.ov.base import DYN, InferContext, shape_infer
from xmo.dialects.ov.shape_inference._helpers import (
    attr_list,
    const_ints,
    const_scalar,
    fmt_shape,
    merge_dim,
    normalize_axes,
    normalize_axis,
    require_integer,
    result,
    same_etype,
    vector_length,
)


def _batch_dims(ctx: InferContext, indices_rank: int | None) -> int | None:
    bd = int(ctx.attr("batch_dims"))
    if bd < 0:
        if indices_rank is None:
            return None
        bd += indices_rank
        if bd < 0:
            raise ctx.error(f"batch_dims {ctx.attr('batch_dims')} is out of range for "
                            f"indices of rank {indices_rank}")
    return bd


def _merged_batch(ctx: InferContext, data: list[int], idx: list[int], bd: int) -> list[int]:
    if bd > len(data) or bd > len(idx):
        raise ctx.error(
            f"batch_dims {bd} exceeds the rank of data {fmt_shape(data)} or "
            f"indices {fmt_shape(idx)}"
        )
    return [merge_dim(ctx, a, b, f"batch dimension {i}") for i, (a, b) in
            enumerate(zip(data[:bd], idx[:bd]))]


@shape_infer("ov.Gather")
def infer_gather(ctx: InferContext) -> Sequence[Attribute]:
    t = ctx.etype(0)
    require_integer(ctx, 1, "indices")
    require_integer(ctx, 2, "axis")
    data, idx = ctx.shape(0), ctx.shape(1)
    bd = _batch_dims(ctx, None if idx is None else len(idx))
    if data is None or idx is None or bd is None:
        return [result(t, None)]
    batch = _merged_batch(ctx, data, idx, bd)
    a = const_scalar(ctx, 2)
    if a is None:
        rank = len(data) + len(idx) - 1 - bd
        return [result(t, batch + [DYN] * (rank - bd))]
    axis = normalize_axis(ctx, a, len(data))
    if bd > axis:
        raise ctx.error(f"batch_dims {bd} must not exceed axis {axis}")
    out = batch + data[bd:axis] + idx[bd:] + data[axis + 1:]
    return [result(t, out)]


@shape_infer("ov.GatherND")
def infer_gather_nd(ctx: InferContext) -> Sequence[Attribute]:
    t = ctx.etype(0)
    require_integer(ctx, 1, "indices")
    data, idx = ctx.shape(0), ctx.shape(1)
    bd = int(ctx.attr("batch_dims"))
    if bd < 0:
        raise ctx.error(f"batch_dims must not be negative, got {bd}")
    if idx is not None and len(idx) == 0:
        raise ctx.error("indices must have rank 1 or more")
    if data is None or idx is None or idx[-1] < 0:
        return [result(t, None)]
    if len(idx) <= bd:
        raise ctx.error(f"indices {fmt_shape(idx)} must have rank greater than batch_dims {bd}")
    k = idx[-1]
    if bd + k > len(data):
        raise ctx.error(
            f"indices last dimension {k} plus batch_dims {bd} exceeds the data rank "
            f"{len(data)}"
        )
    batch = _merged_batch(ctx, data, idx, bd)
    return [result(t, batch + idx[bd:-1] + data[bd + k:])]


@shape_infer("ov.ScatterUpdate")
def infer_scatter_update(ctx: InferContext) -> Sequence[Attribute]:
    t = same_etype(ctx, (0, 2), "data and updates")
    require_integer(ctx, 1, "indices")
    require_integer(ctx, 3, "axis")
    data = ctx.shape(0)
    a = const_scalar(ctx, 3)
    if a is not None:
        normalize_axis(ctx, a, None if data is None else len(data))
    return [result(t, data)]


def _slice_len(ctx: InferContext, d: int, b: int | None, e: int | None, s: int) -> int:
    """Length of python ``slice(b, e, s)`` over a dimension of size ``d``."""
    if s == 0:
        raise ctx.error("slice step must not be zero")
    if d < 0:
        return DYN
    return len(range(*slice(b, e, s).indices(d)))


def _mask(ctx: InferContext, name: str) -> list[int]:
    return [int(v) for v in attr_list(ctx, name)]


@shape_infer("ov.StridedSlice")
def infer_strided_slice(ctx: InferContext) -> Sequence[Attribute]:
    t = ctx.etype(0)
    for i in range(1, ctx.num_inputs):
        require_integer(ctx, i, ("begin", "end", "stride")[i - 1])
    data = ctx.shape(0)
    begin, end = const_ints(ctx, 1), const_ints(ctx, 2)
    stride = const_ints(ctx, 3) if ctx.num_inputs > 3 else None
    lens = {vector_length(ctx, i) for i in range(1, ctx.num_inputs)} - {None}
    if len(lens) > 1:
        raise ctx.error(f"begin, end and stride have different lengths {sorted(lens)}")
    if not lens or data is None:
        return [result(t, None)]
    n = lens.pop()
    if ctx.num_inputs <= 3:
        stride = [1] * n
    masks = {m: _mask(ctx, m) for m in
             ("begin_mask", "end_mask", "new_axis_mask", "shrink_axis_mask", "ellipsis_mask")}

    def bit(name: str, i: int) -> bool:
        m = masks[name]
        return i < len(m) and m[i] != 0

    ellipses = [i for i in range(n) if bit("ellipsis_mask", i) and not bit("new_axis_mask", i)]
    if len(ellipses) > 1:
        raise ctx.error("ellipsis_mask has more than one set bit")
    consuming = sum(
        1 for i in range(n) if not bit("new_axis_mask", i) and not bit("ellipsis_mask", i)
    )
    r = len(data)
    if consuming > r:
        raise ctx.error(f"{consuming} sliced dimensions for data of rank {r}")
    out: list[int] = []
    j = 0
    for i in range(n):
        if bit("new_axis_mask", i):
            out.append(1)
            continue
        if bit("ellipsis_mask", i):
            k = r - consuming
            out += data[j:j + k]
            j += k
            continue
        d = data[j]
        j += 1
        s = None if stride is None else stride[i]
        if s == 0:
            raise ctx.error("stride must not be zero")
        if bit("shrink_axis_mask", i):
            if begin is not None and d >= 0 and not -d <= begin[i] < d:
                raise ctx.error(f"shrink index {begin[i]} is out of range for dimension {d}")
            continue
        b = None if bit("begin_mask", i) else (None if begin is None else begin[i])
        e = None if bit("end_mask", i) else (None if end is None else end[i])
        known_b = bit("begin_mask", i) or begin is not None
        known_e = bit("end_mask", i) or end is not None
        if s is None or not known_b or not known_e:
            out.append(DYN)
        else:
            out.append(_slice_len(ctx, d, b, e, s))
    out += data[j:]
    return [result(t, out)]


@shape_infer("ov.Slice")
def infer_slice(ctx: InferContext) -> Sequence[Attribute]:
    t = ctx.etype(0)
    for i in range(1, ctx.num_inputs):
        require_integer(ctx, i, ("start", "stop", "step", "axes")[i - 1])
    data = ctx.shape(0)
    lens = {vector_length(ctx, i) for i in range(1, ctx.num_inputs)} - {None}
    if len(lens) > 1:
        raise ctx.error(f"start, stop, step and axes have different lengths {sorted(lens)}")
    if data is None:
        return [result(t, None)]
    start, stop, step = const_ints(ctx, 1), const_ints(ctx, 2), const_ints(ctx, 3)
    if step is not None and 0 in step:
        raise ctx.error("step must not be zero")
    if ctx.num_inputs > 4:
        raw = const_ints(ctx, 4)
        if raw is None:
            return [result(t, [DYN] * len(data))]
        axes = normalize_axes(ctx, raw, len(data), unique=True)
    else:
        n = lens.pop() if lens else None
        if n is None:
            return [result(t, [DYN] * len(data))]
        if n > len(data):
            raise ctx.error(f"{n} sliced axes for data of rank {len(data)}")
        axes = list(range(n))
    out = list(data)
    for i, a in enumerate(axes):
        if start is None or stop is None or step is None:
            out[a] = DYN
        else:
            out[a] = _slice_len(ctx, data[a], start[i], stop[i], step[i])
    return [result(t, out)]


@shape_infer("ov.GatherElements")
def infer_gather_elements(ctx: InferContext) -> Sequence[Attribute]:
    t = ctx.etype(0)
    require_integer(ctx, 1, "indices")
    data, idx = ctx.shape(0), ctx.shape(1)
    if data is not None and idx is not None:
        if len(data) != len(idx):
            raise ctx.error(
                f"data {fmt_shape(data)} and indices {fmt_shape(idx)} must have the same rank"
            )
        axis = normalize_axis(ctx, ctx.attr("axis"), len(data))
        out = [
            d if i == axis else merge_dim(ctx, d, x, f"dimension {i}")
            for i, (d, x) in enumerate(zip(data, idx))
        ]
        # indices define the output; a static data dim fills a dynamic index
        # dim (OpenVINO requires equal dims outside the axis)
        out[axis] = idx[axis]
        return [result(t, out)]
    return [result(t, idx if idx is not None else data)]



@shape_infer("ov.ScatterElementsUpdate", "ov.ScatterNDUpdate")
def infer_scatter_update(ctx: InferContext) -> Sequence[Attribute]:
    t = same_etype(ctx, (0, 2), "data and updates")
    require_integer(ctx, 1, "indices")
    return [result(t, ctx.shape(0))]
