"""Transpose sinking rules of ops that select along axes: Slice-8,
StridedSlice (without new-axis/shrink/ellipsis masks), Gather-8 (0-D or 1-D
indices, batch_dims 0). Forward: axes, bounds and masks are remapped."""

from __future__ import annotations

from collections.abc import Sequence

from xmo.dialects.ov.base import DYN, OVOp, dims_of
from xmo.passes.transpose_sinking.engine import (
    Sinker,
    Skip,
    axes_operand,
    data_only,
    forward_rule,
    norm_axis,
)
from xmo.passes.transpose_sinking.permutations import (
    Perm,
    const_ints,
    order_after_removing,
    rank,
    scatter,
)


@forward_rule("ov.Slice")
def slice_forward(s: Sinker, op: OVOp, t: OVOp, p: Perm) -> bool:
    x = data_only(op, t)
    if len(op.operands) > 4:
        axes_v, _ = axes_operand(s, op, 4, p)
    else:
        d = dims_of(op.operands[1].type)
        if d is None or len(d) != 1 or d[0] == DYN:
            raise Skip("Slice without axes and start of unknown length")
        axes_v = s.shared_const([p[i] for i in range(d[0])], (d[0],))
    new = s.rebuild(op, [x, *op.operands[1:4], axes_v])
    return s.finish(op, new, [p], t)


@forward_rule("ov.StridedSlice")
def strided_slice_forward(s: Sinker, op: OVOp, t: OVOp, p: Perm) -> bool:
    x = data_only(op, t)
    n = len(p)
    for m in ("new_axis_mask", "shrink_axis_mask", "ellipsis_mask"):
        if any(op.attr(m)):
            raise Skip(f"StridedSlice with {m}")
    begin, end = const_ints(op.operands[1]), const_ints(op.operands[2])
    strides = const_ints(op.operands[3]) if len(op.operands) > 3 else None
    if begin is None or end is None or (len(op.operands) > 3 and strides is None):
        raise Skip("StridedSlice bounds not constant")
    k = len(begin)
    if len(end) != k or k > n or (strides is not None and len(strides) != k):
        raise Skip("StridedSlice bounds longer than the rank")
    strides = strides if strides is not None else [1] * k

    def full(vals: Sequence[int], fill: int) -> list[int]:
        return [vals[i] if i < len(vals) else fill for i in range(n)]

    bm = [int(b) for b in op.attr("begin_mask")]
    em = [int(b) for b in op.attr("end_mask")]
    new_bm = scatter(p, [bm[i] if i < len(bm) else 0 for i in range(k)] + [1] * (n - k), 1)
    new_em = scatter(p, [em[i] if i < len(em) else 0 for i in range(k)] + [1] * (n - k), 1)
    ops_ = [
        s.int_const_like(op.operands[1], scatter(p, full(begin, 0), 0), op),
        s.int_const_like(op.operands[2], scatter(p, full(end, 0), 0), op),
    ]
    if len(op.operands) > 3:
        ops_.append(s.int_const_like(op.operands[3], scatter(p, full(strides, 1), 1), op))
    else:
        ops_.append(s.shared_const(scatter(p, full(strides, 1), 1), (n,)))
    new = s.rebuild(op, [x, *ops_], {"begin_mask": new_bm, "end_mask": new_em})
    return s.finish(op, new, [p], t)


@forward_rule("ov.Gather")
def gather_forward(s: Sinker, op: OVOp, t: OVOp, p: Perm) -> bool:
    x = data_only(op, t)
    n = len(p)
    if op.attr("batch_dims") != 0:
        raise Skip("Gather with batch_dims")
    axis = const_ints(op.operands[2])
    ir = rank(op.operands[1])
    if axis is None or len(axis) != 1 or ir not in (0, 1):
        raise Skip("Gather axis not constant or indices not 0-D/1-D")
    a = norm_axis(axis[0], n)
    axis_v = s.int_const_like(op.operands[2], [p[a]], op)
    new = s.rebuild(op, [x, op.operands[1], axis_v])
    q = p if ir == 1 else order_after_removing(p, {a})
    return s.finish(op, new, [q], t)
