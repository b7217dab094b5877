"""``ov-fuse-linear``: fold constant affine chains into convolution and MatMul weights.

Frameworks spell a batch normalization after a convolution in several ways
(ONNX BatchNormalization, TensorFlow FusedBatchNorm, Keras' Mul/Sub/AddV2
chain, a bias Add before or after it). After constant folding they all reduce
to Multiply / Add by constants; this pass (OpenVINO's "linear ops fusion"
family) folds them with one xDSL ``RewritePattern`` per rewrite:

* :class:`BatchNormToScaleShift`: ``BatchNormInference(conv(x), consts)`` ->
  ``Add(Multiply(conv, s), t)`` (only when the producer is a fusible
  convolution, so the Multiply folds);
* :class:`MultiplyChain`: ``Multiply(Multiply(x, c1), c2)`` -> ``Multiply(x, c1*c2)``;
  :class:`AddChain`: ``Add(Add(x, c1), c2)`` -> ``Add(x, c1+c2)``;
* :class:`MultiplyBeforeAdd`: ``Multiply(Add(x, c1), c2)`` ->
  ``Add(Multiply(x, c2), c1*c2)`` (the Multiply moves towards the producer,
  where it can fold);
* :class:`MultiplyIntoConvolution`: ``Multiply(conv(x, W), c)`` with ``c``
  constant per output channel -> ``conv(x, W*c)`` for Convolution,
  GroupConvolution and ConvolutionBackpropData;
  :class:`MultiplyIntoMatMul`: ``Multiply(MatMul(x, W), c)`` with ``c``
  constant per output column -> ``MatMul(x, W*c)``;
* :class:`PadIntoConvolution`: ``Convolution(Pad(x, zeros), W)`` with
  spatial-only constant zero padding -> the padding goes into the
  convolution's ``pads_begin``/``pads_end`` (also GroupConvolution).

Only float constants of the same element type are combined; every rewrite
checks that the replacement has exactly the type of what it replaces (and
leaves the IR untouched when it has not), and intermediate values must have
no other user. Names follow OpenVINO's rule: the op standing in for the last
replaced op takes its friendly name, tensor names and runtime info; a
Multiply this pass created has no name of its own to give, so an op replacing
it keeps the name it was built with.

How the patterns are run: a ``PatternRewriteWalker`` visits the ops of the
module once, in SSA order (``apply_recursively=False``), and the first
pattern that acts on an op wins. It does not visit the ops the rewrites
create; a rewrite that creates a Multiply which may fold further (the scale
of a batch norm, a moved or merged Multiply) tries the Multiply rewrites on
it at once (:meth:`LinearRewrite.fold_further`). The walker's recursive mode
would visit those too, but it would also revisit every op a rewrite touched
and walk the whole module again until nothing changes: a fixpoint this pass
does not need (SSA order already brings every producer's rewrite first) and
that could fold chains the single walk leaves. New constants are made
through the context's weight store (large weights stay numpy buffers).

The rewrites are plain xDSL patterns, not the transformation API's
``MatcherPass``es (:mod:`xmo.passes.transformations`, which run on the same
walker): they test constant values, element types and use counts, which
that API's pattern language would only wrap, and on the light CNNs this pass
makes hundreds of rewrites per model, where the ``Graph``/``Node`` layer and
its finalization (topological re-sort, pending type inference) would cost
time for nothing.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np
from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Operation, SSAValue
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import (
    GreedyRewritePatternApplier,
    PatternRewriter,
    PatternRewriteWalker,
    RewritePattern,
    op_type_rewrite_pattern,
)
from xdsl.rewriter import InsertPoint

from xmo.context import weight_store
from xmo.dialects.ov import ConstantOp
from xmo.dialects.ov import element_types as et
from xmo.dialects.ov.base import OVOp, ShapeInferenceError, constant_value_of, dims_of
from xmo.dialects.ov.ops import (
    AddOp,
    BatchNormInferenceOp,
    BatchNormInferenceOpset1Op,
    ConvolutionBackpropDataOp,
    ConvolutionOp,
    GroupConvolutionOp,
    MatMulOp,
    MultiplyOp,
    PadOp,
    PadOpset1Op,
)
from xmo.dialects.ov.weights import WeightStore
from xmo.passes.ov_dce import OVDeadCodeEliminationPass
from xmo.passes.pattern_dispatch import OpTypeDispatch

#: convolutions whose weights take a per-output-channel scale
_CONVOLUTIONS = (ConvolutionOp, GroupConvolutionOp, ConvolutionBackpropDataOp)
_FLOATS = ("f32", "f16", "f64")
_NUMPY = {"auto_broadcast": "numpy"}


def _etype(v: SSAValue) -> str | None:
    return et.of_tensor_type(v.type)


def _const_operand(op: Operation) -> tuple[SSAValue, np.ndarray] | None:
    """(other operand, constant value) of a binary op with one constant input."""
    a, b = op.operands[0], op.operands[1]
    cb = constant_value_of(b)
    if cb is not None:
        return a, cb
    ca = constant_value_of(a)
    if ca is not None:
        return b, ca
    return None


def _float_const_operand(op: OVOp) -> tuple[SSAValue, np.ndarray, str] | None:
    """(other operand, constant, element type) of a numpy-broadcast binary op
    with a constant input, when the op and the other operand have the same
    float element type."""
    etype = _etype(op.results[0])
    if etype not in _FLOATS or op.attr("auto_broadcast") != "numpy":
        return None
    found = _const_operand(op)
    if found is None or _etype(found[0]) != etype:
        return None
    return found[0], found[1], etype


def _scaled_input(
    op: MultiplyOp, producers: type[OVOp] | tuple[type[OVOp], ...]
) -> tuple[SSAValue, np.ndarray, str, OVOp] | None:
    """What every Multiply rewrite starts from: ``Multiply(x, c)`` with a float
    constant ``c`` and ``x`` made by one of ``producers`` and used by this
    Multiply alone; (x, c, element type, x's producer)."""
    a, b = op.operands
    if not isinstance(a.owner, producers) and not isinstance(b.owner, producers):
        return None  # the quick test: no operand comes from such a producer
    found = _float_const_operand(op)
    if found is None:
        return None
    x, c, etype = found
    producer = x.owner
    if not isinstance(producer, producers) or not x.has_one_use():
        return None
    return x, c, etype, producer


def _channel_scale(c: np.ndarray, rank: int, channels: int, axis: int) -> np.ndarray | None:
    """``c`` as a ``[channels]`` vector when it broadcasts only along ``axis`` of a
    rank-``rank`` tensor (scalars included), else None."""
    if c.ndim > rank:
        return None
    shape = (1,) * (rank - c.ndim) + c.shape
    if any(d != 1 for i, d in enumerate(shape) if i != axis):
        return None
    if shape[axis] not in (1, channels):
        return None
    return np.broadcast_to(c.reshape(-1), (channels,))


def _scaled(w: np.ndarray, scale: np.ndarray) -> np.ndarray:
    """``w * scale`` computed in f32 for f16/f32 weights (as OpenVINO folds
    it; one pass over the weights, no f64 copy of them), in f64 otherwise."""
    calc = np.result_type(w.dtype, np.float32)
    scale = np.asarray(scale, calc)
    if w.size > 1 and not any(w.strides) and scale.size and (scale == scale.flat[0]).all():
        # a splat (a broadcast view) times one value: a splat again, not made
        one = np.multiply(w.reshape(-1)[:1], scale.reshape(-1)[:1], dtype=calc)
        return np.broadcast_to(one.reshape(()), np.broadcast_shapes(w.shape, scale.shape))
    return np.multiply(w, scale, dtype=calc)


def _build(cls: type[OVOp], inputs: Sequence[SSAValue | Operation],
           attrs: dict[str, object], like: Operation | None = None) -> OVOp | None:
    """A new, not yet inserted ``cls`` op; None when shape inference refuses
    its inputs or (given ``like``) its result type is not ``like``'s."""
    try:
        new = cls.make(inputs, attrs)
    except ShapeInferenceError:
        return None
    if like is not None and new.results[0].type != like.results[0].type:
        new.erase()
        return None
    return new


@dataclass(eq=False)
class FuseLinearRun:
    """What the rewrites of one run of the pass share."""

    store: WeightStore
    """where new constants go"""
    created: set[Operation] = field(default_factory=set)
    """Multiplies this pass created, while the Multiply rewrites try them: an
    op replacing one keeps its own name"""
    multiply: RewritePattern = field(init=False)
    """the Multiply rewrites, in order (:func:`fuse_linear_patterns` sets it)"""


@dataclass(frozen=True)
class LinearRewrite(RewritePattern):
    """Base of the patterns of ``ov-fuse-linear``."""

    run: FuseLinearRun

    def constant(self, arr: np.ndarray, etype: str, name: str | None = None) -> ConstantOp:
        """A new (not yet inserted) constant of ``arr`` as ``etype``."""
        arr = arr.astype(et.numpy_dtype(etype), copy=False)
        if arr.size <= 1 or any(arr.strides):  # a splat view stays one (not made)
            arr = np.ascontiguousarray(arr)  # (which makes a 0-d array 1-d)
        return ConstantOp.from_array(
            arr, etype,
            store=self.run.store, name=name,
        )

    def stand_in(self, rewriter: PatternRewriter, old: OVOp, new_ops: Sequence[OVOp],
                 dead: Sequence[OVOp] = ()) -> None:
        """The last of ``new_ops`` replaces ``old`` (inserted before it with the
        others); it takes ``old``'s names and runtime info; then the ``dead``
        producers go when nothing else uses them. (Not ``rewriter.replace``,
        which would give ``old``'s SSA name hint to every new op.)"""
        new = new_ops[-1]
        if old not in self.run.created:
            new.set_friendly_name(old.get_friendly_name())
        names = old.get_tensor_names(0)
        if names:
            new.set_tensor_names(0, names)
        for k, v in old.get_rt_info().items():
            new.set_rt_info(k, v)
        rewriter.insert(new_ops, InsertPoint.before(old))
        rewriter.replace_all_uses_with(old.results[0], new.results[0])
        rewriter.erase(old)
        for d in dead:
            if all(not r.uses for r in d.results):
                rewriter.erase(d)

    def fold_further(self, mul: MultiplyOp, rewriter: PatternRewriter, *,
                     created: bool) -> None:
        """Try the Multiply rewrites on ``mul``, a Multiply this rewrite has just
        made (the walk does not visit new ops); ``created``: ``mul`` stands for
        no Multiply of the model, so it has no name to pass on."""
        if created:
            self.run.created.add(mul)
        rewriter.has_done_action = False
        self.run.multiply.match_and_rewrite(mul, rewriter)
        rewriter.has_done_action = True
        self.run.created.discard(mul)


@dataclass(frozen=True)
class MultiplyChain(LinearRewrite):
    """``Multiply(Multiply(x, c1), c2)`` -> ``Multiply(x, c1*c2)``."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: MultiplyOp, rewriter: PatternRewriter) -> None:
        found = _scaled_input(op, MultiplyOp)
        if found is None:
            return
        _, c2, etype, inner = found
        if inner.attr("auto_broadcast") != "numpy":
            return
        f = _const_operand(inner)
        if f is None:
            return
        y, c1 = f
        cv = self.constant(np.asarray(c1, np.float64) * c2, etype)
        new = _build(MultiplyOp, [y, cv], _NUMPY, like=op)
        if new is None:
            return
        self.stand_in(rewriter, op, [cv, new], dead=[inner])
        self.fold_further(new, rewriter, created=False)


@dataclass(frozen=True)
class MultiplyBeforeAdd(LinearRewrite):
    """``Multiply(Add(x, c1), c2)`` -> ``Add(Multiply(x, c2), c1*c2)``; the
    moved Multiply is named ``<multiply>/moved``."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: MultiplyOp, rewriter: PatternRewriter) -> None:
        found = _scaled_input(op, AddOp)
        if found is None:
            return
        _, c2, etype, add = found
        if add.attr("auto_broadcast") != "numpy":
            return
        f = _const_operand(add)
        if f is None:
            return
        y, c1 = f
        c2v = self.constant(c2, etype)
        mul = _build(MultiplyOp, [y, c2v], _NUMPY)
        if mul is None:
            return
        cv = self.constant(np.asarray(c1, np.float64) * c2, etype)
        new = _build(AddOp, [mul, cv], _NUMPY, like=op)
        if new is None:
            mul.erase()
            return
        mul.set_friendly_name(f"{op.get_friendly_name() or 'Multiply'}/moved")
        self.stand_in(rewriter, op, [c2v, mul, cv, new], dead=[add])
        self.fold_further(mul, rewriter, created=True)


@dataclass(frozen=True)
class MultiplyIntoConvolution(LinearRewrite):
    """``Multiply(conv(x, W), c)`` -> ``conv(x, W*c)`` for ``c`` constant per
    output channel; the weights are named ``<conv>/fused_weights``."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: MultiplyOp, rewriter: PatternRewriter) -> None:
        found = _scaled_input(op, _CONVOLUTIONS)
        if found is None:
            return
        _, c, etype, conv = found
        w = constant_value_of(conv.operands[1], splat_view=True)
        out_dims = dims_of(conv.results[0].type)
        if w is None or out_dims is None or _etype(conv.operands[1]) != etype:
            return
        channels = out_dims[1]
        if channels < 0:
            return
        scale = _channel_scale(np.asarray(c), len(out_dims), channels, 1)
        if scale is None:
            return
        if isinstance(conv, ConvolutionOp):
            shaped = scale.reshape((channels,) + (1,) * (w.ndim - 1))
        elif isinstance(conv, GroupConvolutionOp):
            g = w.shape[0]
            shaped = scale.reshape((g, channels // g) + (1,) * (w.ndim - 2))
        else:  # ConvolutionBackpropData: W is [C_in, C_out, k...]
            shaped = scale.reshape((1, channels) + (1,) * (w.ndim - 2))
        new_w = self.constant(_scaled(w, shaped), etype,
                              f"{conv.get_friendly_name() or conv.OV_TYPE}/fused_weights")
        new = _build(type(conv), [conv.operands[0], new_w, *conv.operands[2:]],
                     conv.attr_values(), like=op)
        if new is None:
            return
        new.set_friendly_name(conv.get_friendly_name())
        self.stand_in(rewriter, op, [new_w, new], dead=[conv])


@dataclass(frozen=True)
class MultiplyIntoMatMul(LinearRewrite):
    """``Multiply(MatMul(x, W), c)`` -> ``MatMul(x, W*c)`` for a 2-D constant
    ``W`` and ``c`` constant per output column."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: MultiplyOp, rewriter: PatternRewriter) -> None:
        found = _scaled_input(op, MatMulOp)
        if found is None:
            return
        _, c, etype, mm = found
        w = constant_value_of(mm.operands[1], splat_view=True)
        out_dims = dims_of(mm.results[0].type)
        if w is None or out_dims is None or w.ndim != 2 or _etype(mm.operands[1]) != etype:
            return
        n = out_dims[-1]
        if n < 0:
            return
        scale = _channel_scale(np.asarray(c), len(out_dims), n, len(out_dims) - 1)
        if scale is None:
            return
        tb = bool(mm.attr("transpose_b"))
        new_w = self.constant(_scaled(w, scale[:, None] if tb else scale[None, :]), etype,
                              f"{mm.get_friendly_name() or 'MatMul'}/fused_weights")
        new = _build(MatMulOp, [mm.operands[0], new_w], mm.attr_values(), like=op)
        if new is None:
            return
        new.set_friendly_name(mm.get_friendly_name())
        self.stand_in(rewriter, op, [new_w, new], dead=[mm])


@dataclass(frozen=True)
class AddChain(LinearRewrite):
    """``Add(Add(x, c1), c2)`` -> ``Add(x, c1+c2)``."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: AddOp, rewriter: PatternRewriter) -> None:
        a, b = op.operands
        if not isinstance(a.owner, AddOp) and not isinstance(b.owner, AddOp):
            return  # the quick test: no operand comes from an Add
        found = _float_const_operand(op)
        if found is None:
            return
        x, c2, etype = found
        inner = x.owner
        if not isinstance(inner, AddOp) or not x.has_one_use():
            return
        f = _const_operand(inner)
        if f is None or inner.attr("auto_broadcast") != "numpy":
            return
        y, c1 = f
        cv = self.constant(np.asarray(c1, np.float64) + c2, etype)
        new = _build(AddOp, [y, cv], _NUMPY, like=op)
        if new is None:
            return
        self.stand_in(rewriter, op, [cv, new], dead=[inner])


@dataclass(frozen=True)
class BatchNormToScaleShift(LinearRewrite):
    """``BatchNormInference(conv(x), gamma, beta, mean, var)`` ->
    ``Add(Multiply(conv, s), t)`` with ``s = gamma / sqrt(var + eps)`` and
    ``t = beta - mean * s`` (the Multiply, ``<bn>/scale``, then folds into the
    convolution)."""

    @op_type_rewrite_pattern
    def match_and_rewrite(
        self, op: BatchNormInferenceOp | BatchNormInferenceOpset1Op, rewriter: PatternRewriter
    ) -> None:
        x = op.operands[0]
        if not x.has_one_use() or not isinstance(x.owner, _CONVOLUTIONS):
            return
        params = [constant_value_of(v) for v in op.operands[1:5]]
        etype = _etype(op.results[0])
        dims = dims_of(op.results[0].type)
        if any(p is None for p in params) or etype not in _FLOATS or dims is None:
            return
        gamma, beta, mean, var = (np.asarray(p, np.float64) for p in params)
        s = gamma / np.sqrt(var + float(op.attr("epsilon")))
        shift = beta - mean * s
        bshape = (1, -1) + (1,) * (len(dims) - 2)
        sv = self.constant(s.reshape(bshape), etype)
        mul = _build(MultiplyOp, [x, sv], _NUMPY)
        if mul is None:
            return
        tv = self.constant(shift.reshape(bshape), etype)
        add = _build(AddOp, [mul, tv], _NUMPY, like=op)
        if add is None:
            mul.erase()
            return
        mul.set_friendly_name(f"{op.get_friendly_name() or 'BatchNorm'}/scale")
        self.stand_in(rewriter, op, [sv, mul, tv, add])
        self.fold_further(mul, rewriter, created=True)


@dataclass(frozen=True)
class PadIntoConvolution(LinearRewrite):
    """``conv(Pad(x, zeros), W)`` -> ``conv(x, W)`` with the padding added to
    ``pads_begin``/``pads_end`` (constant zero padding of spatial axes only;
    Convolution and GroupConvolution)."""

    @op_type_rewrite_pattern
    def match_and_rewrite(
        self, op: ConvolutionOp | GroupConvolutionOp, rewriter: PatternRewriter
    ) -> None:
        x = op.operands[0]
        pad = x.owner
        if not isinstance(pad, PadOp | PadOpset1Op) or not x.has_one_use():
            return
        if pad.attr("pad_mode") != "constant":
            return
        begin = constant_value_of(pad.operands[1])
        end = constant_value_of(pad.operands[2])
        value = constant_value_of(pad.operands[3]) if len(pad.operands) > 3 else np.zeros(())
        if begin is None or end is None or value is None or np.any(np.asarray(value) != 0):
            return
        begin, end = [int(v) for v in begin.reshape(-1)], [int(v) for v in end.reshape(-1)]
        if len(begin) < 3 or any(begin[:2]) or any(end[:2]) or min(begin + end) < 0:
            return
        attrs = op.attr_values()
        auto_pad = attrs.get("auto_pad")
        if auto_pad not in ("explicit", "notset", "valid", None):
            return
        nsp = len(begin) - 2
        pb = [0] * nsp if auto_pad == "valid" else list(attrs["pads_begin"])
        pe = [0] * nsp if auto_pad == "valid" else list(attrs["pads_end"])
        if len(pb) != nsp or len(pe) != nsp:
            return
        attrs["pads_begin"] = [a + b for a, b in zip(pb, begin[2:])]
        attrs["pads_end"] = [a + b for a, b in zip(pe, end[2:])]
        attrs["auto_pad"] = "explicit"
        new = _build(type(op), [pad.operands[0], *op.operands[1:]], attrs, like=op)
        if new is None:
            return
        self.stand_in(rewriter, op, [new], dead=[pad])


def fuse_linear_patterns(store: WeightStore) -> RewritePattern:
    """Every rewrite of ``ov-fuse-linear`` by the op class it is rooted at (new
    constants go to ``store``). The Multiply rewrites exclude each other (the
    producer decides); xDSL's dead-code erasure is off (the pass erases what
    it replaces, ``ov-dce`` the rest)."""
    run = FuseLinearRun(store)
    run.multiply = GreedyRewritePatternApplier(
        [MultiplyChain(run), MultiplyBeforeAdd(run), MultiplyIntoConvolution(run),
         MultiplyIntoMatMul(run)],
        dce_enabled=False,
    )
    batch_norm, pad = BatchNormToScaleShift(run), PadIntoConvolution(run)
    return OpTypeDispatch({
        MultiplyOp: run.multiply,
        AddOp: AddChain(run),
        BatchNormInferenceOp: batch_norm,
        BatchNormInferenceOpset1Op: batch_norm,
        ConvolutionOp: pad,
        GroupConvolutionOp: pad,
    })


@dataclass(frozen=True)
class OVFuseLinearPass(ModulePass):
    """Fold constant affine chains into weights (see module docstring)."""

    name = "ov-fuse-linear"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        walker = PatternRewriteWalker(
            fuse_linear_patterns(weight_store(ctx)), apply_recursively=False
        )
        if walker.rewrite_module(op):
            # folded weights left their old constants unused
            OVDeadCodeEliminationPass().apply(ctx, op)


__all__ = [
    "AddChain",
    "BatchNormToScaleShift",
    "FuseLinearRun",
    "LinearRewrite",
    "MultiplyBeforeAdd",
    "MultiplyChain",
    "MultiplyIntoConvolution",
    "MultiplyIntoMatMul",
    "OVFuseLinearPass",
    "PadIntoConvolution",
    "fuse_linear_patterns",
]
