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
   loop's outputs (:func:`~.emit.build_sequence`); :mod:`.cancel` then lets
   the model's ops that undo their layout read the Sequence op's own
   (Keras transposes the sequence back to batch major...);
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
from xdsl.ir import Operation
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import PatternRewriter, PatternRewriteWalker, RewritePattern
from xdsl.rewriter import InsertPoint

from xmo.context import weight_store
from xmo.dialects.ov.control_ops import LoopOp, TensorIteratorOp, graph_blocks
from xmo.dialects.ov.weights import WeightStore
from xmo.passes.loop_to_sequence.bidirectional import MergeDirections
from xmo.passes.loop_to_sequence.cancel import add_names, cancel_inverses
from xmo.passes.loop_to_sequence.emit import build_sequence
from xmo.passes.loop_to_sequence.plan import is_recurrent, plan
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
        b = Builder(self.store, name)
        try:
            rep = build_sequence(b, found)
        except NotConvertible:
            rep = None  # shape inference refused a new op
        if rep is None:
            b.rollback()  # the loop stays
            return
        rep.sequence.set_friendly_name(name)
        rewriter.insert(rep.ops, InsertPoint.before(op))
        for k, v in rep.values.items():
            add_names(v, op.get_tensor_names(k))
            rewriter.replace_all_uses_with(op.results[k], v)
        rewriter.erase(op)
        created = set(rep.ops)
        for v in rep.values.values():
            cancel_inverses(rewriter, v, created)


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
