"""Transpose sinking rules of elementwise ops: unary ops and activations
(forward and backward), numpy-broadcasting ops (forward and backward; PRelu
forward only)."""

from __future__ import annotations

from xdsl.ir import SSAValue
from xmo.dialects.ov.base import OVOp
from xmo.passes.transpose_sinking.engine import (
    BackwardPlan,
    Sinker,
    Skip,
    backward_rule,
    data_only,
    forward_rule,
    same_rank_out,
)
from xmo.passes.transpose_sinking.permutations import Perm, rank

#: one data input (0), the result has its shape
UNARY = frozenset(
    "ov." + n
    for n in (
        "Abs Acos Acosh Asin Asinh Atan Atanh BitwiseNot Ceiling Clamp Convert Cos "
        "Cosh Elu Erf Exp Floor Gelu Gelu_opset2 HSigmoid HSwish Identity IsFinite "
        "IsInf IsNaN Log LogicalNot Mish Negative Relu Round Sigmoid Sign Sin Sinh "
        "SoftPlus SoftSign Sqrt Tan Tanh"
    ).split()
)
#: data input 0 plus scalar parameter inputs that stay as they are
UNARY_WITH_PARAMS = frozenset(
    {"ov.HardSigmoid", "ov.Selu", "ov.Swish", "ov.ConvertLike"}
)
#: every input broadcasts numpy-style to the result
ELTWISE = frozenset(
    "ov." + n
    for n in (
        "Add Subtract Multiply Divide Maximum Minimum Power SquaredDifference FloorMod "
        "Mod Equal NotEqual Less LessEqual Greater GreaterEqual LogicalAnd LogicalOr "
        "LogicalXor Xor_opset1 BitwiseAnd BitwiseOr BitwiseXor BitwiseLeftShift "
        "BitwiseRightShift Select FakeQuantize PRelu"
    ).split()
)


@forward_rule(*UNARY, *UNARY_WITH_PARAMS)
def unary_forward(s: Sinker, op: OVOp, t: OVOp, p: Perm) -> bool:
    x = data_only(op, t)
    same_rank_out(op, len(p))
    new = s.rebuild(op, [x, *op.operands[1:]], fallback_perm=p)
    return s.finish(op, new, [p], t)


@forward_rule(*ELTWISE)
def eltwise_forward(s: Sinker, op: OVOp, t: OVOp, p: Perm) -> bool:
    if "auto_broadcast" in {a.name for a in op.OV_ATTRS} and op.attr("auto_broadcast") not in (
        "numpy", "none"
    ):
        raise Skip("only numpy broadcasting")
    n = len(p)
    same_rank_out(op, n)
    tv = t.results[0]
    if op.name == "ov.PRelu":
        data_only(op, t)
    operands: list[SSAValue] = []
    allow_reuse = op not in s.strict
    reused = False
    for i, v in enumerate(op.operands):
        if v is tv:
            operands.append(t.operands[0])
            continue
        u, r = s.adapt(v, p, op, allow_reuse=allow_reuse,
                       channel_slope=(op.name == "ov.PRelu" and i == 1))
        reused |= r
        operands.append(u)
    new = s.rebuild(op, operands, fallback_perm=p)
    return s.finish(op, new, [p], t, strict=reused)


@backward_rule(*UNARY, *UNARY_WITH_PARAMS)
def unary_backward(op: OVOp, q: Perm) -> BackwardPlan | None:
    return BackwardPlan([(0, q)], {}) if rank(op.operands[0]) == len(q) else None


@backward_rule(*(ELTWISE - {"ov.PRelu"}))
def eltwise_backward(op: OVOp, q: Perm) -> BackwardPlan | None:
    if op.attr("auto_broadcast") not in ("numpy", "none"):
        return None
    n = len(q)
    if any((r := rank(a)) is None or r > n for a in op.operands):
        return None
    return BackwardPlan([(j, q) for j in range(len(op.operands))], {})
