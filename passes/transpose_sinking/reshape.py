"""Transpose sinking rules of Reshape. A Transpose that moves only
dimensions of size 1 (the others keep their order) does not move data: it is
a reshape.

* Absorb: ``T(Reshape(x, s), q)`` (the Reshape read by nothing else)
  becomes ``Reshape(x, s')`` with the target elements in the order ``q``: a
  constant target is permuted, a ``Concat`` of one-element pieces (TF's
  dynamic-batch target ``[N, 1, 1, C]`` of a squeeze-excite block, ``N`` read
  from ``ShapeOf``) gets its pieces reordered. The size-1 dimensions are read
  from the result type and from the target's constant elements.
* Forward: ``Reshape(T(x, p), s)`` becomes ``Reshape(x, s)``.

With ``special_zero`` a 0 (or an element not known to be nonzero) copies the
input dimension at its own position, so such an element may not move (and a
forward rule needs a constant target without zeros).
"""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.ir import SSAValue
from xmo.dialects.ov.base import DYN, OVOp, dims_of
from xmo.graph.rt_info import copy_runtime_info
from xmo.passes.transpose_sinking.engine import (
    Sinker,
    Skip,
    absorb_rule,
    data_only,
    forward_rule,
)
from xmo.passes.transpose_sinking.permutations import Perm, const_ints


def moves_only_unit_dims(dims: Sequence[int], p: Perm) -> bool:
    """Whether ``Transpose(x, p)`` of ``x`` with ``dims`` keeps the order of
    every dimension that may differ from 1 (unknown ones included)."""
    kept = [p[j] for j in range(len(p)) if dims[p[j]] != 1]
    return kept == sorted(kept)


def _concat_pieces(v: SSAValue) -> list[SSAValue] | None:
    """The inputs of a ``Concat`` building ``v`` from one-element 1-D pieces."""
    c = v.owner
    if not isinstance(c, OVOp) or c.name != "ov.Concat" or c.attr("axis") not in (0, -1):
        return None
    for a in c.operands:
        if dims_of(a.type) != [1]:
            return None
    return list(c.operands)


def _target_elements(v: SSAValue) -> list[int | None] | None:
    """The target's elements (None where not constant); None when its length
    is unknown or it is neither a constant nor a Concat of one-element pieces."""
    vals = const_ints(v)
    if vals is not None:
        return list(vals)
    pieces = _concat_pieces(v)
    if pieces is None:
        return None
    out: list[int | None] = []
    for a in pieces:
        c = const_ints(a)
        out.append(None if c is None else c[0])
    return out


def _out_dims(op: OVOp, elems: Sequence[int | None]) -> list[int] | None:
    dims = dims_of(op.results[0].type)
    if dims is None or len(dims) != len(elems):
        return None
    special = bool(op.attr("special_zero"))
    out = []
    for d, e in zip(dims, elems):
        if d == DYN and e is not None and (e > 0 or (e == 0 and not special)):
            d = e
        out.append(d)
    return out


@absorb_rule("ov.Reshape")
def reshape_absorb(s: Sinker, op: OVOp, t: OVOp, q: Perm) -> bool:
    target = op.operands[1]
    elems = _target_elements(target)
    if elems is None or len(elems) != len(q):
        raise Skip("Reshape target of unknown elements")
    dims = _out_dims(op, elems)
    if dims is None or not moves_only_unit_dims(dims, q):
        raise Skip("the Transpose moves dimensions that may differ from 1")
    if op.attr("special_zero") and any(
        (elems[q[j]] is None or elems[q[j]] == 0) and q[j] != j for j in range(len(q))
    ):
        raise Skip("special_zero: an element that may be 0 would move")
    if const_ints(target) is not None:
        new_target = s.int_const_like(target, [elems[i] for i in q], op)  # type: ignore[misc]
    else:
        pieces = _concat_pieces(target)
        assert pieces is not None and isinstance(target.owner, OVOp)
        concat = s.rebuild(target.owner, [pieces[i] for i in q], at=op)
        cname = target.owner.get_friendly_name()
        if cname is not None and target.has_one_use():
            concat.set_friendly_name(cname)
        new_target = concat.results[0]
    new = s.rebuild(op, [op.operands[0], new_target])
    name = op.get_friendly_name()
    if name is not None:
        new.set_friendly_name(name)
    new.set_tensor_names(0, t.get_tensor_names(0))
    copy_runtime_info([op, t], new)
    t.results[0].replace_all_uses_with(new.results[0])
    s.erase(t)
    return True


@forward_rule("ov.Reshape")
def reshape_forward(s: Sinker, op: OVOp, t: OVOp, p: Perm) -> bool:
    x = data_only(op, t)
    dims = dims_of(x.type)
    if dims is None or not moves_only_unit_dims(dims, p):
        raise Skip("the Transpose moves dimensions that may differ from 1")
    if op.attr("special_zero"):
        elems = const_ints(op.operands[1])
        if elems is None or 0 in elems:
            raise Skip("special_zero with a target that may hold 0")
    new = s.rebuild(op, [x, op.operands[1]])
    return s.finish(op, new, [None], t)


__all__ = ["moves_only_unit_dims"]
