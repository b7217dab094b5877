"""Transpose sinking rules of ops that resize axes: Pad, Tile, Interpolate-4/11.
Forward: per-axis pads, repeats and axes are remapped. Backward (Pad with
constant pads): ``T(Pad(x), q)`` -> ``Pad(T(x, q))`` with the pads in ``q``'s
order."""

from __future__ import annotations

from xmo.dialects.ov.base import OVOp, dims_of
from xmo.passes.transpose_sinking.engine import (
    BackwardPlan,
    Sinker,
    Skip,
    axes_operand,
    backward_rule,
    data_only,
    forward_rule,
)
from xmo.passes.transpose_sinking.permutations import Perm, const_ints, scatter


@forward_rule("ov.Pad", "ov.Pad_opset1")
def pad_forward(s: Sinker, op: OVOp, t: OVOp, p: Perm) -> bool:
    x = data_only(op, t)
    n = len(p)
    pads = []
    for port in (1, 2):
        vals = const_ints(op.operands[port])
        if vals is None or len(vals) != n:
            raise Skip("pads are not constant")
        pads.append(s.int_const_like(op.operands[port], scatter(p, vals, 0), op))
    new = s.rebuild(op, [x, *pads, *op.operands[3:]], fallback_perm=p)
    return s.finish(op, new, [p], t)


@backward_rule("ov.Pad", "ov.Pad_opset1")
def pad_backward(op: OVOp, q: Perm) -> BackwardPlan | None:
    n = len(q)
    pads = [const_ints(op.operands[port]) for port in (1, 2)]
    if any(v is None or len(v) != n for v in pads):
        return None
    return BackwardPlan([(0, q)], {port: [v[i] for i in q] for port, v in zip((1, 2), pads)})


@forward_rule("ov.Tile")
def tile_forward(s: Sinker, op: OVOp, t: OVOp, p: Perm) -> bool:
    x = data_only(op, t)
    n = len(p)
    reps = const_ints(op.operands[1])
    if reps is None or len(reps) > n:
        raise Skip("repeats not constant or longer than the rank")
    full = [1] * (n - len(reps)) + reps
    new = s.rebuild(op, [x, s.int_const_like(op.operands[1], scatter(p, full, 1), op)])
    return s.finish(op, new, [p], t)


@forward_rule("ov.Interpolate", "ov.Interpolate_opset4")
def interpolate_forward(s: Sinker, op: OVOp, t: OVOp, p: Perm) -> bool:
    x = data_only(op, t)
    n = len(p)
    axes_port = 2 if op.name == "ov.Interpolate" else 3
    if len(op.operands) > axes_port:
        axes_v, _ = axes_operand(s, op, axes_port, p)
    else:
        d = dims_of(op.operands[1].type)
        if d is None or len(d) != 1 or d[0] != n:
            raise Skip("Interpolate without axes")
        axes_v = s.shared_const(list(p), (n,))
    updates = {}
    for attr in ("pads_begin", "pads_end"):
        vals = [int(v) for v in op.attr(attr)]
        if any(vals):
            if len(vals) > n:
                raise Skip("Interpolate pads longer than the rank")
            updates[attr] = scatter(p, vals + [0] * (n - len(vals)), 0)
    new = s.rebuild(op, [x, *op.operands[1:axes_port], axes_v], updates, fallback_perm=p)
    return s.finish(op, new, [p], t)
