"""The model's ops that undo the layout of a loop's replacement read the
Sequence op's own values.

A loop's sequence output is time major (``[T, B, H]``), maybe in reverse time
order, and its last state may be a list of one (``[1, B, H]``): the values
:mod:`.emit` builds for them Transpose, reverse or Unsqueeze what the
Sequence op gives. Models often undo exactly that right after the loop
(Keras transposes the sequence back to batch major, its ``Bidirectional``
reverses the backward layer's output again, TensorFlow cuts the last output
out of a list of one): :func:`cancel_inverses` lets such consumers read the
value before the op they undo.
"""

from __future__ import annotations

from xdsl.ir import Operation, SSAValue
from xdsl.pattern_rewriter import PatternRewriter

from xmo.dialects.ov.base import OVOp, constant_value_of, dims_of
from xmo.dialects.ov.ops import TransposeOp
from xmo.passes.loop_to_sequence.probe import adds_unit_axis, is_reversal, removes_unit_axis


def add_names(v: SSAValue, names: list[str]) -> None:
    """Add ``names`` to the tensor names of ``v``."""
    owner = v.owner
    if names and isinstance(owner, OVOp):
        owner.set_tensor_names(v.index, [*owner.get_tensor_names(v.index), *names])  # type: ignore[attr-defined]


def _order(op: Operation) -> list[int] | None:
    perm = constant_value_of(op.operands[1]) if isinstance(op, TransposeOp) else None
    return None if perm is None else [int(p) for p in perm.reshape(-1)]


def _inverts(outer: Operation, inner: Operation) -> bool:
    """Whether ``outer(inner(y))`` is ``y``: two Transposes whose orders
    compose to the identity, two reversals of one axis, a unit axis added
    and removed."""
    p, q = _order(inner), _order(outer)
    if p is not None:
        return q is not None and len(q) == len(p) and all(p[q[i]] == i for i in range(len(p)))
    dims = dims_of(inner.results[0].type)
    if dims is None:
        return False
    const = constant_value_of
    return any(
        (is_reversal(inner, a, const) and is_reversal(outer, a, const))
        or (adds_unit_axis(inner, a, const) and removes_unit_axis(outer, a, const))
        for a in range(len(dims))
    )


def cancel_inverses(rewriter: PatternRewriter, v: SSAValue, created: set[Operation]) -> None:
    """Consumers undoing the op making ``v`` (one of the ops ``created``)
    read that op's input instead: the loop's output made time major,
    reversed in time or given a unit axis, and turned back by the model
    (Keras transposes the sequence back to batch major, its Bidirectional
    reverses the backward layer's output again, TensorFlow cuts the last
    output out of a list of one). The consumers' tensor names go to the
    input's producer; the op goes when nothing else reads it; then the same
    for the input."""
    inner = v.owner
    if inner not in created or not isinstance(inner, OVOp) or not inner.operands:
        return
    y = inner.operands[0]
    cancelled = False
    for use in list(v.uses):
        outer = use.operation
        if use.index != 0 or not isinstance(outer, OVOp) or not _inverts(outer, inner):
            continue
        add_names(y, outer.get_tensor_names(0))
        rewriter.replace_all_uses_with(outer.results[0], y)
        rewriter.erase(outer)
        cancelled = True
    if not v.uses:
        add_names(y, inner.get_tensor_names(0))
        rewriter.erase(inner)
    if cancelled:
        cancel_inverses(rewriter, y, created)


__all__ = ["add_names", "cancel_inverses"]
