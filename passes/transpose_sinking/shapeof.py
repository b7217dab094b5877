"""Transpose sinking rule of ShapeOf: ``ShapeOf(T(x, P))`` becomes
``Gather(ShapeOf(x), P, 0)``, so shape sub-graphs stay dynamic and the model
stays reshapeable."""

from __future__ import annotations

from xmo.dialects.ov import op_class
from xmo.dialects.ov.base import OVOp, tensor
from xmo.passes.transpose_sinking.engine import Sinker, data_only, forward_rule
from xmo.passes.transpose_sinking.permutations import Perm


@forward_rule("ov.ShapeOf", "ov.ShapeOf_opset1")
def shapeof_forward(s: Sinker, op: OVOp, t: OVOp, p: Perm) -> bool:
    x = data_only(op, t)
    n = len(p)
    new = s.rebuild(op, [x], result_types=[tensor(op.results[0].type.get_element_type(), [n])])  # type: ignore[attr-defined]
    g = op_class("Gather").make(
        [new.results[0], s.shared_const(list(p), (n,)), s.shared_const([0], ())]
    )
    s.insert(g, op)
    name = op.get_friendly_name()
    if name is not None:
        g.set_friendly_name(name)
        new.set_friendly_name(s.moved.get(op, name) + "/sunk")
        s.moved[new] = s.moved.get(op, name)
    if op.get_tensor_names(0):
        g.set_tensor_names(0, op.get_tensor_names(0))
    op.results[0].replace_all_uses_with(g.results[0])
    s.erase(op)
    return True
