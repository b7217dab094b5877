"""A forward and a reverse Sequence op on one input -> one bidirectional op.

Keras' ``Bidirectional`` runs its layer twice on the same input, once
backwards; after :class:`~xmo.passes.loop_to_sequence.LoopToSequence` that
is two Sequence ops of one kind reading the same ``X`` (the same value, or
the same computation of it: each loop may have transposed it on its own),
one ``forward`` and one ``reverse``. :class:`MergeDirections` makes them one ``bidirectional``
op (OpenVINO runs both directions in one primitive): the weights and the
initial states stacked along the direction axis (forward first), the
outputs split back along it, so every consumer sees the values it saw.

They merge when everything but the direction is the same (attributes,
sequence lengths -- the same value, equal constants or the same
computation), both have one direction, and the second does not depend on
the first. The merged op takes the second one's place; what uses the first
one's results in between moves after it.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from xdsl.ir import Operation, SSAValue
from xdsl.pattern_rewriter import PatternRewriter, RewritePattern
from xdsl.rewriter import InsertPoint

from xmo.dialects.ov.base import OVOp, constant_value_of, dims_of, tensor
from xmo.dialects.ov import element_types as et
from xmo.dialects.ov.ops import GRUSequenceOp, LSTMSequenceOp, RNNSequenceOp
from xmo.dialects.ov.weights import WeightStore
from xmo.passes.to_ov.builder import Builder, NotConvertible

SEQUENCE_OPS = (LSTMSequenceOp, GRUSequenceOp, RNNSequenceOp)


def _attrs_but_direction(op: OVOp) -> dict:
    attrs = op.attr_values()
    attrs.pop("direction", None)
    return attrs


def _equivalent(a: SSAValue, b: SSAValue, depth: int = 8) -> bool:
    """Whether ``a`` and ``b`` are the same value, equal constants, or the
    same pure computation of equivalent values."""
    if a is b:
        return True
    if a.type != b.type or depth == 0:
        return False
    ca, cb = constant_value_of(a), constant_value_of(b)
    if ca is not None or cb is not None:
        return ca is not None and cb is not None and np.array_equal(ca, cb)
    oa, ob = a.owner, b.owner
    if not (isinstance(oa, OVOp) and isinstance(ob, OVOp)) or oa.name != ob.name:
        return False
    if oa.regions or ob.regions or a.index != b.index:  # type: ignore[attr-defined]
        return False
    pa = {k: v for k, v in oa.properties.items() if k not in ("friendly_name", "tensor_names")}
    pb = {k: v for k, v in ob.properties.items() if k not in ("friendly_name", "tensor_names")}
    if pa != pb or len(oa.operands) != len(ob.operands):
        return False
    return all(_equivalent(x, y, depth - 1) for x, y in zip(oa.operands, ob.operands))


def _stacked(b: Builder, a: SSAValue, c: SSAValue) -> SSAValue:
    """``a`` and ``c`` ([1, ...] / [B, 1, ...]) stacked along the direction axis."""
    ca, cc = constant_value_of(a), constant_value_of(c)
    if ca is not None and cc is not None:
        etype = et.of_tensor_type(a.type)
        return b.const(np.concatenate([ca, cc], axis=0), etype)
    return b.concat([a, c], 1)


def _dependents_between(first: Operation, second: Operation) -> list[Operation] | None:
    """The ops after ``first`` and before ``second`` that use its results
    (directly or not), in order; None when ``second`` is one of them."""
    found: set[Operation] = {first}
    out: list[Operation] = []
    op = first.next_op
    while op is not None and op is not second:
        if any(isinstance(v.owner, Operation) and v.owner in found for v in op.operands):
            found.add(op)
            out.append(op)
        op = op.next_op
    if op is None or any(isinstance(v.owner, Operation) and v.owner in found
                         for v in second.operands):
        return None
    return out


@dataclass(frozen=True)
class MergeDirections(RewritePattern):
    """A forward Sequence op and a reverse one on the same input -> one
    bidirectional op (see the module docstring)."""

    store: WeightStore

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter) -> None:
        if not isinstance(op, SEQUENCE_OPS) or op.attr("direction") != "forward":
            return
        other = self._partner(op)
        if other is None:
            return
        first, second = (op, other) if op.is_before_in_block(other) else (other, op)
        between = _dependents_between(first, second)
        if between is None:
            return  # the second depends on the first
        b = Builder(self.store, op.get_friendly_name() or op.name)
        n_states = 2 if isinstance(op, LSTMSequenceOp) else 1
        attrs = op.attr_values()
        attrs["direction"] = "bidirectional"
        types = []
        for r in op.results:
            dims = dims_of(r.type)
            assert dims is not None
            dims[1] = 2
            types.append(tensor(et.of_tensor_type(r.type) or "f32", dims))
        try:
            states = [b.concat([op.operands[1 + k], other.operands[1 + k]], 1)
                      for k in range(n_states)]
            weights = [_stacked(b, op.operands[k], other.operands[k])
                       for k in range(2 + n_states, 5 + n_states)]
            merged = b.op(op.OV_TYPE, [op.operands[0], *states, op.operands[1 + n_states],
                                       *weights], attrs, result_types=types)
            halves = [b.op("Split", [r, b.i64(1)], {"num_splits": 2}, num_outputs=2)
                      for r in merged.results]
        except NotConvertible:
            b.rollback()
            return
        merged.set_friendly_name(op.get_friendly_name())
        rewriter.insert(b.ops, InsertPoint.before(second))
        # what consumes the first one moves after the merged op
        block = second.parent_block()
        assert block is not None
        anchor = second
        for dep in between:
            block.detach_op(dep)
            block.insert_op_after(dep, anchor)
            anchor = dep
        for k, split in enumerate(halves):
            rewriter.replace_all_uses_with(op.results[k], split.results[0])
            rewriter.replace_all_uses_with(other.results[k], split.results[1])
        rewriter.erase(op)
        rewriter.erase(other)

    @staticmethod
    def _partner(op: OVOp) -> OVOp | None:
        """The reverse op of ``op``'s kind in ``op``'s block, on the same input,
        that can merge with it."""
        n_states = 2 if isinstance(op, LSTMSequenceOp) else 1
        for w in op.operands[2 + n_states:]:
            dims = dims_of(w.type)
            if dims is None or dims[0] != 1:
                return None
        block = op.parent_block()
        if block is None:
            return None
        for other in block.ops:
            if other is op or other.name != op.name:
                continue
            assert isinstance(other, OVOp)
            if other.attr("direction") != "reverse":
                continue
            if _attrs_but_direction(op) != _attrs_but_direction(other):
                continue
            if any(w.type != v.type for w, v in zip(op.operands[2 + n_states:],
                                                    other.operands[2 + n_states:])):
                continue
            if not (_equivalent(op.operands[0], other.operands[0])
                    and _equivalent(op.operands[1 + n_states], other.operands[1 + n_states])):
                continue
            return other
        return None


__all__ = ["MergeDirections", "SEQUENCE_OPS"]
