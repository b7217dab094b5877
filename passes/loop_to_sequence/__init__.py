"""``ov-loop-to-sequence``: recurrent loops -> ``LSTMSequence`` / ``GRUSequence`` /
``RNNSequence``.

A recurrent layer that a framework runs as a loop (a Keras ``LSTM`` / ``GRU``
/ ``SimpleRNN`` in a TensorFlow while loop, a cell written as an ONNX Scan
or Loop) arrives as an ``ov.TensorIterator`` or ``ov.Loop`` whose body
applies one cell per time step. This pass replaces such an op with the one
Sequence op OpenVINO has for the cell (one layer instead of a loop and its
body), with the weights rearranged into OpenVINO's gate order and layout:

1. :mod:`.loop` reads the op as a recurrent loop: which input is the
   sequence and how it is walked (a time step per iteration, forwards or
   backwards), which carried values are states, what each output is, and
   that it runs once per time step (:func:`~.loop.recurrent_loop`);
2. :mod:`.cell` recognises the cell on the body's dataflow, whatever the
   operand order, the MatMul layout, the bias placement and the ops cutting
   the gates (:func:`~.cell.match_cell`), and gives its weights;
   :mod:`.plan` puts both together (:func:`~.plan.plan`);
3. :mod:`.emit` builds the Sequence op and the values standing for the
   loop's outputs (:func:`~.emit.build_sequence`);
4. :mod:`.bidirectional` then merges a forward and a reverse Sequence op of
   the same kind on the same input into one bidirectional op (Keras'
   ``Bidirectional``).

Anything else stays a loop: another activation, an extra op in the cell,
clipping, a condition that may stop the loop early, a step that is not one
time step in order, an output the Sequence op does not give. The pass
runs in the middle phase after constant folding (the body's weights are
constants by then) and before the fusions (which would rewrite the cell's
ops).
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Operation, SSAValue
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import PatternRewriter, PatternRewriteWalker, RewritePattern
from xdsl.rewriter import InsertPoint

from xmo.context import weight_store
from xmo.dialects.ov.base import OVOp, constant_value_of, dims_of
from xmo.dialects.ov.ops import TransposeOp
from xmo.dialects.ov.control_ops import LoopOp, TensorIteratorOp, graph_blocks
from xmo.dialects.ov.weights import WeightStore
from xmo.passes.loop_to_sequence.bidirectional import MergeDirections
from xmo.passes.loop_to_sequence.emit import build_sequence
from xmo.passes.loop_to_sequence.plan import is_recurrent, plan
from xmo.passes.loop_to_sequence.probe import adds_unit_axis, is_reversal, removes_unit_axis
from xmo.passes.ov_dce import OVDeadCodeEliminationPass
from xmo.passes.to_ov.builder import Builder, NotConvertible


@dataclass(frozen=True)
class LoopToSequence(RewritePattern):
    """A recurrent ``ov.Loop`` / ``ov.TensorIterator`` -> its Sequence op."""

    store: WeightStore

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter) -> None:
        if not isinstance(op, LoopOp | TensorIteratorOp):
            return
        found = plan(op)
        if found is None:
            return
        name = op.get_friendly_name() or op.name
        try:
            rep = build_sequence(Builder(self.store, name), found)
        except NotConvertible:
            return  # shape inference refused a new op: the loop stays
        if rep is None:
            return
        rep.sequence.set_friendly_name(name)
        rewriter.insert(rep.ops, InsertPoint.before(op))
        for k, v in rep.values.items():
            _add_names(v, op.get_tensor_names(k))
            rewriter.replace_all_uses_with(op.results[k], v)
        rewriter.erase(op)
        created = set(rep.ops)
        for v in rep.values.values():
            _cancel_inverses(rewriter, v, created)


def _add_names(v: SSAValue, names: list[str]) -> None:
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


def _cancel_inverses(rewriter: PatternRewriter, v: SSAValue, created: set[Operation]) -> None:
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
        _add_names(y, outer.get_tensor_names(0))
        rewriter.replace_all_uses_with(outer.results[0], y)
        rewriter.erase(outer)
        cancelled = True
    if not v.uses:
        _add_names(y, inner.get_tensor_names(0))
        rewriter.erase(inner)
    if cancelled:
        _cancel_inverses(rewriter, y, created)


@dataclass(frozen=True)
class OVLoopToSequencePass(ModulePass):
    """Recurrent loops -> Sequence ops (see the module docstring)."""

    name = "ov-loop-to-sequence"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        if not any(isinstance(o, LoopOp | TensorIteratorOp)
                   for block in graph_blocks(op) for o in block.ops):
            return  # no loop: no walk (most models)
        store = weight_store(ctx)
        walker = PatternRewriteWalker(LoopToSequence(store), apply_recursively=False)
        if walker.rewrite_module(op):
            PatternRewriteWalker(MergeDirections(store), apply_recursively=False).rewrite_module(op)
            OVDeadCodeEliminationPass().apply(ctx, op)


__all__ = ["LoopToSequence", "OVLoopToSequencePass", "is_recurrent", "plan"]
