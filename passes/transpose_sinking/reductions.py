"""Transpose sinking rules of reductions (``keep_dims=false`` leaves a
smaller-rank Transpose or none) and of the normalizations over axes (MVN-6,
NormalizeL2): forward, the axes are remapped."""

from __future__ import annotations

from xmo.dialects.ov.base import OVOp
from xmo.passes.transpose_sinking.engine import Sinker, axes_operand, data_only, forward_rule
from xmo.passes.transpose_sinking.permutations import Perm, order_after_removing

REDUCTIONS = frozenset(
    "ov." + n
    for n in (
        "ReduceSum ReduceMean ReduceMax ReduceMin ReduceProd ReduceL1 ReduceL2 "
        "ReduceLogicalAnd ReduceLogicalOr"
    ).split()
)


@forward_rule(*REDUCTIONS)
def reduce_forward(s: Sinker, op: OVOp, t: OVOp, p: Perm) -> bool:
    x = data_only(op, t)
    axes_v, axes = axes_operand(s, op, 1, p)
    new = s.rebuild(op, [x, axes_v])
    q = p if op.attr("keep_dims") else order_after_removing(p, set(axes))
    return s.finish(op, new, [q], t)


@forward_rule("ov.MVN", "ov.NormalizeL2")
def normalize_forward(s: Sinker, op: OVOp, t: OVOp, p: Perm) -> bool:
    x = data_only(op, t)
    axes_v, _ = axes_operand(s, op, 1, p)
    new = s.rebuild(op, [x, axes_v, *op.operands[2:]])
    return s.finish(op, new, [p], t)
