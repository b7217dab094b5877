"""Transpose sinking rules of Squeeze and Unsqueeze (forward: the order that
is left after removing / inserting axes; backward: the order the input
needs, Unsqueeze with new axes)."""

from __future__ import annotations

from xdsl.ir import SSAValue
from xmo.dialects.ov.base import DYN, OVOp, dims_of, tensor
from xmo.passes.transpose_sinking.engine import (
    BackwardPlan,
    Sinker,
    Skip,
    backward_rule,
    data_only,
    forward_rule,
    norm_axis,
)
from xmo.passes.transpose_sinking.permutations import (
    Perm,
    const_ints,
    order_after_removing,
    rank,
)


@forward_rule("ov.Unsqueeze")
def unsqueeze_forward(s: Sinker, op: OVOp, t: OVOp, p: Perm) -> bool:
    x = data_only(op, t)
    axes = const_ints(op.operands[1])
    m = rank(op.results[0])
    if axes is None or m is None:
        raise Skip("axes not constant")
    new_axes = sorted({norm_axis(a, m) for a in axes})
    kept = [j for j in range(m) if j not in new_axes]
    q = list(range(m))
    for i in range(len(p)):
        q[kept[i]] = kept[p[i]]
    new = s.rebuild(op, [x, op.operands[1]])
    return s.finish(op, new, [tuple(q)], t)


@forward_rule("ov.Squeeze", "ov.Squeeze_opset1")
def squeeze_forward(s: Sinker, op: OVOp, t: OVOp, p: Perm) -> bool:
    x = data_only(op, t)
    n = len(p)
    dims = dims_of(t.results[0].type)
    assert dims is not None
    axes = const_ints(op.operands[1]) if len(op.operands) > 1 else None
    if len(op.operands) > 1 and axes is None:
        raise Skip("axes not constant")
    axes_v: list[SSAValue] = []
    if axes:
        removed = {norm_axis(a, n) for a in axes}
        if op.name == "ov.Squeeze" and op.attr("allow_axis_skip") and any(
            dims[a] != 1 for a in removed
        ):
            raise Skip("allow_axis_skip with dims not known to be 1")
        axes_v = [s.int_const_like(op.operands[1], sorted(p[a] for a in removed), op)]
    else:  # no (or empty) axes: every dim of size 1 goes
        axes_v = list(op.operands[1:])
        if any(d == DYN for d in dims):
            raise Skip("squeeze without axes on dynamic dims")
        removed = {i for i, d in enumerate(dims) if d == 1}
    xdims = dims_of(x.type)
    assert xdims is not None
    rtypes = None
    if op.name == "ov.Squeeze_opset1":
        gone = {p[a] for a in removed}
        rtypes = [tensor(x.type.get_element_type(),  # type: ignore[attr-defined]
                         [d for i, d in enumerate(xdims) if i not in gone])]
    new = s.rebuild(op, [x, *axes_v], result_types=rtypes)
    return s.finish(op, new, [order_after_removing(p, removed)], t)


@backward_rule("ov.Unsqueeze")
def unsqueeze_backward(op: OVOp, q: Perm) -> BackwardPlan | None:
    n = len(q)
    axes = const_ints(op.operands[1])
    if axes is None or any(not -n <= a < n for a in axes):
        return None
    new_axes = {a % n for a in axes}
    kept = [j for j in range(n) if j not in new_axes]
    kept_out = [j for j in range(n) if q[j] not in new_axes]
    inner = tuple(kept.index(q[j]) for j in kept_out)
    return BackwardPlan([(0, inner)], {1: sorted(j for j in range(n) if q[j] in new_axes)})


@backward_rule("ov.Squeeze")
def squeeze_backward(op: OVOp, q: Perm) -> BackwardPlan | None:
    if len(op.operands) != 2 or op.attr("allow_axis_skip"):
        return None
    n = len(q)
    axes = const_ints(op.operands[1])
    m = rank(op.operands[0])
    if not axes or m is None or any(not -m <= a < m for a in axes):
        return None
    gone = {a % m for a in axes}
    kept = [d for d in range(m) if d not in gone]
    inner = list(range(m))
    for j in range(n):
        inner[kept[j]] = kept[q[j]]
    return BackwardPlan([(0, tuple(inner))], {})
