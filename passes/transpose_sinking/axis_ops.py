"""Transpose sinking rules of ops along an axis that keep the shape (or, TopK,
the rank): Softmax, LogSoftmax, TopK, CumSum, Roll, Reverse. Forward: the
axis (axes, mask) is remapped."""

from __future__ import annotations

from xmo.dialects.ov.base import OVOp, constant_value_of
from xmo.passes.transpose_sinking.engine import (
    Sinker,
    Skip,
    axes_operand,
    data_only,
    forward_rule,
    norm_axis,
)
from xmo.passes.transpose_sinking.permutations import Perm, inverse


@forward_rule("ov.Softmax", "ov.LogSoftmax", "ov.Softmax_opset1")
def softmax_forward(s: Sinker, op: OVOp, t: OVOp, p: Perm) -> bool:
    x = data_only(op, t)
    axis = p[norm_axis(op.attr("axis"), len(p))]
    new = s.rebuild(op, [x], {"axis": axis}, fallback_perm=p)
    return s.finish(op, new, [p], t)


@forward_rule("ov.TopK")
def topk_forward(s: Sinker, op: OVOp, t: OVOp, p: Perm) -> bool:
    x = data_only(op, t)
    axis = p[norm_axis(op.attr("axis"), len(p))]
    new = s.rebuild(op, [x, op.operands[1]], {"axis": axis})
    return s.finish(op, new, [p, p], t)


@forward_rule("ov.CumSum")
def cumsum_forward(s: Sinker, op: OVOp, t: OVOp, p: Perm) -> bool:
    x = data_only(op, t)
    axes_v, _ = axes_operand(s, op, 1, p)
    new = s.rebuild(op, [x, axes_v])
    return s.finish(op, new, [p], t)


@forward_rule("ov.Roll")
def roll_forward(s: Sinker, op: OVOp, t: OVOp, p: Perm) -> bool:
    x = data_only(op, t)
    axes_v, _ = axes_operand(s, op, 2, p)
    new = s.rebuild(op, [x, op.operands[1], axes_v], fallback_perm=p)
    return s.finish(op, new, [p], t)


@forward_rule("ov.Reverse_opset1")
def reverse_forward(s: Sinker, op: OVOp, t: OVOp, p: Perm) -> bool:
    x = data_only(op, t)
    n = len(p)
    if op.attr("mode") == "index":
        axes_v, _ = axes_operand(s, op, 1, p)
    else:
        mask = constant_value_of(op.operands[1])
        if mask is None or mask.size != n:
            raise Skip("mask not constant")
        inv = list(inverse(p))
        axes_v = s.rebuilt_const(op.operands[1], lambda a: a.reshape(-1)[inv], op)
        assert axes_v is not None
    new = s.rebuild(op, [x, axes_v], fallback_perm=p)
    return s.finish(op, new, [p], t)
