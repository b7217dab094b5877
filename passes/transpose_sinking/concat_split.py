"""Transpose sinking rules of Concat, Split and VariadicSplit (forward: the
axis is remapped; a Split gets one Transpose per output)."""

from __future__ import annotations

from xdsl.ir import SSAValue
from xmo.dialects.ov.base import OVOp
from xmo.passes.transpose_sinking.engine import (
    Sinker,
    Skip,
    data_only,
    forward_rule,
    norm_axis,
    same_rank_out,
)
from xmo.passes.transpose_sinking.permutations import Perm, const_ints, rank


@forward_rule("ov.Concat")
def concat_forward(s: Sinker, op: OVOp, t: OVOp, p: Perm) -> bool:
    n = len(p)
    same_rank_out(op, n)
    tv = t.results[0]
    operands: list[SSAValue] = []
    reused = False
    for v in op.operands:
        if v is tv:
            operands.append(t.operands[0])
            continue
        if rank(v) != n:
            raise Skip("Concat input of another rank")
        u, r = s.adapt(v, p, op, allow_reuse=op not in s.strict)
        reused |= r
        operands.append(u)
    axis = p[norm_axis(op.attr("axis"), n)]
    new = s.rebuild(op, operands, {"axis": axis})
    return s.finish(op, new, [p], t, strict=reused)


@forward_rule("ov.Split", "ov.VariadicSplit")
def split_forward(s: Sinker, op: OVOp, t: OVOp, p: Perm) -> bool:
    x = data_only(op, t)
    axis = const_ints(op.operands[1])
    if axis is None or len(axis) != 1:
        raise Skip("split axis not constant")
    axis_v = s.int_const_like(op.operands[1], [p[norm_axis(axis[0], len(p))]], op)
    new = s.rebuild(op, [x, axis_v, *op.operands[2:]])
    return s.finish(op, new, [p] * len(op.results), t)
