"""Transpose sinking rules of Reshape. A Transpose that moves only
dimensions of size 1 (the others keep their order) does not move data: it is
a reshape.

* Absorb: ``T(Reshape(x, s), q)`` (the Reshape read by nothing else)
  becomes ``Reshape(x, s')`` with the target elements in the order ``q``: a
  constant target is permuted, a ``Concat`` of one-element pieces (TF's
  dynamic-batch target ``[N, 1, 1, C]`` of a squeeze-excite block, ``N`` read
  from ``ShapeOf``) gets its pieces reordered. The size-1 dimensions are read
  from the result type and from the target's constant elements.
* Absorb: ``T(Unsqueeze(x, axes), q)`` (read by nothing else) becomes
  ``Unsqueeze(x, axes')`` when ``x``'s dims keep their order; otherwise it and
  ``T(Squeeze(x, axes), q)`` become one ``Reshape(x, target)`` with a constant target:
  static dims as they are, a dynamic dim that stays at its index in ``x`` as
  0 (``special_zero``), one other dynamic dim as -1 (Keras' Conv1D on a
  one-channel waveform: ``[N, T, 1] -> [N, 1, 1, T]``).
* Forward: ``Reshape(T(x, p), s)`` becomes ``Reshape(x, s)``.

With ``special_zero`` a 0 (or an element not known to be nonzero) copies the
input dimension at its own position, so such an element may not move (and a
forward rule needs a constant target without zeros).
"""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.ir import SSAValue
from xmo.dialects.ov import op_class
from xmo.dialects.ov.base import DYN, OVOp, dims_of
from xmo.graph.rt_info import copy_runtime_info
from xmo.passes.transpose_sinking.engine import (
    Sinker,
    Skip,
    absorb_rule,
    data_only,
    forward_rule,
    norm_axis,
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
    return _finish_absorb(s, op, t, new)


def _finish_absorb(s: Sinker, op: OVOp, t: OVOp, new: OVOp) -> bool:
    """``new`` replaces ``t = T(op(...))``: ``op``'s (original) friendly name,
    ``t``'s tensor names, the runtime info of both."""
    name = op.get_friendly_name()
    if name is not None:
        new.set_friendly_name(s.moved.get(op, name))
    new.set_tensor_names(0, t.get_tensor_names(0))
    copy_runtime_info([op, t], new)
    t.results[0].replace_all_uses_with(new.results[0])
    s.erase(t)
    return True


def static_reshape_target(out_dims: Sequence[int], src: Sequence[int | None]) -> list[int] | None:
    """A constant Reshape target giving ``out_dims`` when output dim ``j`` is
    input dim ``src[j]`` (None: a new dim of size 1): static dims as they are,
    a dynamic dim read at its own index as 0 (``special_zero``), one other
    dynamic dim as -1; None when that does not pin the shape."""
    target: list[int] = []
    for j, d in enumerate(out_dims):
        if d > 0:
            target.append(d)
        elif d == DYN and src[j] == j:
            target.append(0)
        elif d == DYN and -1 not in target:
            target.append(-1)
        else:
            return None
    return target


@absorb_rule("ov.Unsqueeze", "ov.Squeeze")
def unsqueeze_squeeze_absorb(s: Sinker, op: OVOp, t: OVOp, q: Perm) -> bool:
    x = op.operands[0]
    mid, xdims = dims_of(op.results[0].type), dims_of(x.type)
    axes = const_ints(op.operands[1]) if len(op.operands) > 1 else None
    if mid is None or xdims is None or not axes or len(mid) != len(q):
        raise Skip("shapes or axes unknown")
    if op.name == "ov.Unsqueeze":
        new_axes = {norm_axis(a, len(mid)) for a in axes}
        kept = [i for i in range(len(mid)) if i not in new_axes]
        src_mid: list[int | None] = [None] * len(mid)
        for k, i in enumerate(kept):
            src_mid[i] = k
    else:
        if op.attr("allow_axis_skip"):
            raise Skip("allow_axis_skip")
        gone = {norm_axis(a, len(xdims)) for a in axes}
        src_mid = [i for i in range(len(xdims)) if i not in gone]
    if not moves_only_unit_dims(mid, q):
        raise Skip("the Transpose moves dimensions that may differ from 1")
    src = [src_mid[i] for i in q]
    kept = [k for k in src if k is not None]
    if op.name == "ov.Unsqueeze" and kept == sorted(kept):
        # x's dims keep their order: still an Unsqueeze, with other new axes
        axes_v = s.int_const_like(op.operands[1], [j for j, k in enumerate(src) if k is None], op)
        return _finish_absorb(s, op, t, s.rebuild(op, [x, axes_v]))
    target = static_reshape_target([mid[i] for i in q], src)
    if target is None:
        raise Skip("no constant Reshape target")
    shape = s.shared_const(target, (len(target),))
    new = op_class("Reshape").make([x, shape], {"special_zero": 0 in target})
    s.insert(new, op)
    return _finish_absorb(s, op, t, new)


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


__all__ = ["moves_only_unit_dims", "static_reshape_target"]
