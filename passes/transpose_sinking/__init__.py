"""``ov-transpose-sinking``: move Transposes through layout-agnostic ops until
they cancel, merge, fold into constants, or reach an op that needs a layout.

A framework frontend that keeps the source layout (TensorFlow's NHWC) emits
``Transpose(x, [0,3,1,2]) -> NCHW op -> Transpose(y, [0,2,3,1])`` around every
layout-sensitive op. This pass removes the Transposes inside the graph, so
that ideally one remains after each NHWC input and one before each NHWC
output (plus unavoidable ones, e.g. before a flattening Reshape).

Only the ops of the module's top-level block are rewritten; a Transpose is
handled when its order is an ``ov.Constant`` and its input has a static rank.
The pass is a no-op on a module without Transposes.

Rules, applied from a worklist of Transposes until nothing changes:

* **Cleanup.** A Transpose with an identity order disappears; ``T(T(x, P1), P2)``
  becomes ``T(x, P1[P2])`` (or ``x``); a Transpose of a Constant folds into a
  transposed Constant (no data grows: a single-use constant folds at any
  size, a shared one up to 1 MiB); two Transposes with the same input and
  order merge (CSE). Nothing else is constant-folded: run ``ov-constant-fold``
  for that (note that it folds ``ShapeOf`` of static shapes, and only folds
  results within its size guard).
* **Forward sinking.** ``op(T(x, P), ...)`` becomes ``T(op'(x, ...), Q)`` when
  ``op`` is layout agnostic: ``op'`` has its axis-like attributes and inputs
  remapped through ``P``, and ``Q`` is ``P`` (or, when the rank changes, the
  order that is left; none when that is the identity). Handled: unary
  elementwise ops and activations (Relu, Clamp, Sigmoid, Tanh, Elu, Exp, Sqrt,
  Abs, Negative, Convert, Erf, Gelu, HSwish, SoftPlus, Floor, Ceiling,
  LogicalNot, ... and Swish/HardSigmoid/Selu with their scalar parameters,
  ConvertLike); numpy-broadcasting elementwise ops (Add, Subtract, Multiply,
  Divide, Maximum, Minimum, Power, SquaredDifference, FloorMod, Mod,
  comparisons, logical and bitwise ops, Select, FakeQuantize, PRelu with a
  constant slope -- a 1-D slope matching dim 1 is read per channel, as
  OpenVINO does); Concat; ReduceSum/Mean/Max/Min/Prod/L1/L2/LogicalAnd/
  LogicalOr (``keep_dims=false`` leaves a smaller-rank Transpose or none);
  Softmax, LogSoftmax; MVN-6, NormalizeL2; CumSum; Reverse; Roll; Pad; Tile;
  Split, VariadicSplit (one Transpose per output); TopK-11; Squeeze,
  Unsqueeze; Slice-8; StridedSlice without new-axis/shrink/ellipsis masks;
  Interpolate-4/11; Gather-8 with a 0-D or 1-D index and batch_dims 0 (any
  axis); ``ShapeOf(T(x, P))`` becomes ``Gather(ShapeOf(x), P, 0)`` so shape
  sub-graphs stay dynamic and the model stays reshapeable; ``Reshape(T(x,
  P))`` reads ``x`` when ``P`` moves only dims of size 1.
* **Absorbing.** A Transpose that moves only dims of size 1 (the others keep
  their order) moves no data: after a Reshape read by nothing else it goes
  into the Reshape's target (a constant permuted, a ``Concat`` of one-element
  pieces reordered: Keras' squeeze-excite ``[N, 1, 1, C]`` with ``N`` from
  ``ShapeOf``), after an Unsqueeze / Squeeze read by nothing else the two
  become one Reshape with a constant target (Keras' Conv1D ExpandDims on a
  one-channel input). Tried before the Transpose is offered to its consumers.

  The other inputs of an elementwise op or Concat must be: constants (also
  behind single-use Converts, e.g. decompressed f16 weights: unsqueezed to the
  full rank and transposed), scalars or all-ones shapes (kept as they are),
  Transposes with the same order (their input is used), or -- once per op --
  a value ``v`` for which ``Transpose(v, inverse(P))`` costs no Transpose: it
  exists already (the NHWC shortcut of a residual block feeding the next
  conv), it merges with a Transpose above, or backward sinking will cancel it
  within a few ops (e.g. the Unsqueeze branch of a squeeze-excite block).
* **Multiple consumers.** A Transpose sinks into every consumer that allows
  it (each gets its own Transpose after it) and dies when no consumer is
  left. Non-transpose work is never duplicated. (Clones that end up stuck
  before different barriers can leave more Transposes than before: rare,
  and backward sinking usually merges them again.)
* **Backward sinking** (option ``backward``, default on). ``T(op(...), Q)``
  where ``op`` is an elementwise op, Squeeze, Unsqueeze or a Pad with
  constant pads whose only consumer is this Transpose becomes
  ``op'(T(a, Q'), ...)`` when that lowers the number of Transposes -- the new
  input Transposes merge with Transposes above, reuse existing ones, or
  themselves move up and cancel (looking up to 4 ops ahead) -- or when it
  brings the Transpose to a graph input read by nothing else, through ops
  forward sinking did not move (a TF stem's Rescaling and ZeroPadding2D: the
  layout then changes at the input, as in OpenVINO's conversion, and the zero
  Pad enters the convolution). Ops built by backward sinking are never sunk forward (nor backward)
  again, so a Transpose cannot move back and forth; a step cap bounds the
  work in any case.

Names (OpenVINO conventions; tensor names belong to values):

* The value that stands in for an op's original output -- the new Transpose
  after a sunk op -- gets the output's tensor names and the op's friendly
  name (``<name>:<i>`` for output ``i > 0``); the moved op gets
  ``<name>/sunk``. When that Transpose vanishes later (sunk further,
  cancelled), the moved op gets its original friendly name back at the end
  of the pass (unless some other op holds it by then).
* A Transpose that cancels to nothing passes its tensor names to the value
  that replaces it; a merged or folded Transpose's replacement takes its
  friendly and tensor names. After backward sinking the moved op keeps its
  friendly name and takes the Transpose's tensor names.
* Tensor names of an intermediate layout that no longer exists are dropped
  (only values consumed by Results are guaranteed to keep them).
* rt_info: a rebuilt op keeps its rt_info; new Transposes take the rt_info of
  the Transpose they come from.

Deliberately not handled: layout-sensitive ops (convolutions, pooling,
BatchNorm, DepthToSpace, ...), Reshapes that move data between dims, MatMul, Broadcast, LRN (OpenVINO's CPU
plugin supports only its NCHW axes), GatherElements/Scatter*, StridedSlice
with new-axis/shrink/ellipsis masks, PRelu with a non-constant slope, Concat
or elementwise ops whose other input is a raw NHWC value (a Transpose there
would only move the cost), backward sinking through Concat/reductions, and ops
in nested regions.

The package
-----------

One module per op family, over a small engine (as OpenVINO splits its
``ts_*`` transformations):

| module | rules |
| --- | --- |
| this package | the pass :class:`OVTransposeSinkingPass`; imports the rule modules |
| :mod:`.engine` | the worklist, transactions, rule registry, clean-up (identity, merge, fold, CSE), backward sinking driver, :func:`toposort` |
| :mod:`.permutations` | permutation algebra (``compose``, ``inverse``, ...) and ``transpose_order`` |
| :mod:`.elementwise` | unary ops and activations, broadcasting ops (forward and backward) |
| :mod:`.concat_split` | Concat, Split, VariadicSplit |
| :mod:`.reductions` | Reduce*, MVN, NormalizeL2 |
| :mod:`.axis_ops` | Softmax, LogSoftmax, TopK, CumSum, Roll, Reverse |
| :mod:`.pad_tile` | Pad, Tile, Interpolate |
| :mod:`.squeeze` | Squeeze, Unsqueeze (forward and backward) |
| :mod:`.reshape` | Reshape (forward, absorbing); Unsqueeze / Squeeze absorbing a Transpose of size-1 dims |
| :mod:`.slices` | Slice, StridedSlice, Gather |
| :mod:`.shapeof` | ShapeOf |

Why a worklist algorithm and not rules written as ``RewritePattern`` classes
under xDSL's ``PatternRewriteWalker``: the rewrites are not independent
local patterns.

* *Transactions.* A rule builds the moved op (its result types come from
  shape inference of the new operands), new constants and Transposes, and
  only then knows whether the rewrite is valid; when it is not, everything
  it built is rolled back. xDSL's rewriter has no rollback.
* *Global state.* Ops built by backward sinking are never sunk forward again
  (else a Transpose moves back and forth), ops that reused an inverse
  Transpose may not do it twice, moved ops get their friendly names back at
  the end, Transpose orders are shared constants, and a step budget bounds
  the work: state across all rewrites of the pass.
* *Lookahead.* Whether a value may take an inverse Transpose, and whether a
  backward move pays, depends on a cost computed up to four ops ahead.
* *Phases and order.* A Transpose is the unit of work: it sinks into all of
  its consumers at once; forward sinking runs to a fixed point before
  backward sinking, in rounds. The processing order decides which Transpose
  survives a merge and which names the results get, i.e. the exact IR.

How it runs: each round puts every Transpose of the block on a FIFO
worklist (block order). A Transpose taken from it is erased when unused,
dropped when its order is the identity, merged into the Transpose feeding
it, folded into a Constant, absorbed by its producer (the absorb rule of
the producer's op name, when the producer has no other reader), or merged
with a twin (same input and order); otherwise it is offered to each of its consumers in use order, to the
forward rule registered for the consumer's op name. Transposes a successful
rule built go to the back of the worklist. Then the backward phase offers
every Transpose (block order) whose input has one use to the backward rule
of the producer's op name; it runs only when the move lowers the number of
Transposes. Rounds repeat while backward sinking changes something (at
most ``max_rounds``). Finally moved ops get their names back and the block
is sorted topologically.

How a rule plugs in: a rule module decorates

* ``@forward_rule("ov.Op", ...)`` a function ``(sinker, op, t, p) -> bool``:
  ``t = Transpose(x, p)`` feeds ``op``. It builds ``op'`` on ``x`` with
  ``sinker.rebuild`` (remapping axis attributes and inputs through ``p``,
  new constants with ``sinker.int_const_like`` / ``shared_const``, other
  inputs through ``sinker.adapt``) and ends with
  ``sinker.finish(op, new, [order after each output], t)``. It declines by
  raising :class:`~.engine.Skip`, which rolls back what it built;
* ``@backward_rule("ov.Op", ...)`` a function ``(op, q) -> BackwardPlan | None``:
  the order each data input needs when ``T(op(...), q)`` moves above ``op``;
* ``@absorb_rule("ov.Op", ...)`` a function ``(sinker, op, t, q) -> bool``:
  ``t = Transpose(op(...), q)``, ``op`` read only by ``t``, disappears into a
  rebuilt ``op`` (raise ``Skip`` to decline);

and is imported below. One rule per op name and direction (a second one is
an error at import); the registration order does not matter. Any exception
from a rule other than ``Skip`` (or the ``VerifyException`` of shape
inference rejecting an op the rule built) is a bug and propagates.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.passes import ModulePass
from xmo.context import weight_store

# rule modules: importing them registers their rules with the engine
from xmo.passes.transpose_sinking import (  # noqa: F401
    axis_ops,
    concat_split,
    elementwise,
    pad_tile,
    reductions,
    reshape,
    shapeof,
    slices,
    squeeze,
)
from xmo.passes.transpose_sinking.engine import sink_transposes

__all__ = ["OVTransposeSinkingPass", "sink_transposes"]


@dataclass(frozen=True)
class OVTransposeSinkingPass(ModulePass):
    """Sink Transposes through layout-agnostic ops (see the package docstring)."""

    name = "ov-transpose-sinking"
    backward: bool = True
    max_rounds: int = 8

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        sink_transposes(op, weight_store(ctx), self.backward, self.max_rounds)
