"""``ov-constant-fold``: fold ov ops whose inputs are all constants.

One ``RewritePattern`` (:class:`FoldConstantOp`) run by xDSL's
``PatternRewriteWalker`` over the module in SSA order; each op whose input
types changed first gets its result types refined (``ov-infer-shapes``), then,
when every input is an ``ov.Constant`` (or, for ``ShapeOf``, the input shape
is static), it is evaluated with the CPU backend's kernel and replaced by
Constants. Friendly and tensor names move to the new Constants. One walk
reaches the fixed point because the module is in topological order (new
Constants are not walked again).

Size guard: a result larger than ``max_growth`` times its inputs' bytes (and
over 1 MiB), e.g. a big Broadcast or Tile of a scalar, stays an op, unless
it is asked for (``max_growth=0`` folds everything) or the result only feeds
weight inputs (input 1 of Convolution, GroupConvolution,
ConvolutionBackpropData, GroupConvolutionBackpropData, MatMul, possibly
through Reshape / Transpose / Convert / Squeeze / Unsqueeze): a weight is
stored as a Constant anyway (frameworks' ``ConstantFill``-made weights, as in
the ONNX "light" models, become real weights, as OpenVINO's folding makes
them), and the fusions need it constant. The guard is also cumulative: the
inputs' bytes are at most those of the distinct original (not folded)
Constants a folded input derives from, so a chain of Concats doubling a
constant stops growing at the guard instead of passing it one step at a time.

Memory: the result's size comes from its inferred type *before* it is
computed; a result the guard refuses is never computed, and one that does not
fit the conversion's memory budget (:mod:`xmo.budget`) stays an op.
An op marked ``disabled_constant_folding`` in its runtime info (OpenVINO's
``disable_constant_folding``) stays: the Convert of the 8- or 4-bit weights
of a quantized model (:mod:`xmo.passes.onnx_to_ov.families.quantization`),
which OpenVINO runs in int8.
Only ops without side effects fold (``is_pure`` of :mod:`xmo.dialects.ov.traits`:
not state, random ops, Parameters or Results).

Shape sub-graphs: ``ShapeOf`` of a static shape folds, so shape arithmetic
becomes constants. xmo's frontends give every input the model's own static
shape when it has one (OpenVINO keeps such shape sub-graphs unless static
shapes are requested); a model whose inputs have dynamic dimensions keeps
its ShapeOf sub-graphs and stays reshapeable. Passing ``--input`` with
dynamic dimensions (``-1``/``?``) is the way to keep a model reshapeable.
"""

from __future__ import annotations

import logging
import math
from collections.abc import Iterable
from dataclasses import dataclass

import numpy as np
from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Block, Operation, SSAValue
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import PatternRewriter, PatternRewriteWalker, RewritePattern
from xdsl.rewriter import InsertPoint

from xmo import budget
from xmo.budget import ResourceLimitError
from xmo.context import weight_store
from xmo.dialects.ov import ConstantOp, ParameterOp, ResultOp
from xmo.dialects.ov import element_types as et
from xmo.dialects.ov.base import OVOp, constant_value_of, dims_of
from xmo.dialects.ov.control_ops import CONTROL_OPS, graph_blocks
from xmo.dialects.ov.traits import is_pure
from xmo.dialects.ov.weights import WeightStore
from xmo.passes.ov_infer_shapes import refine_op_types

log = logging.getLogger("xmo.fold")

_etype = et.of_tensor_type

#: runtime info flag of ops that never fold
NO_FOLD = "disabled_constant_folding"


def _no_fold(op: OVOp) -> bool:
    return op.rt_info is not None and NO_FOLD in op.rt_info.data


#: (op type, input index) pairs that read weights
_WEIGHT_PORTS = {
    ("Convolution", 1), ("GroupConvolution", 1), ("ConvolutionBackpropData", 1),
    ("GroupConvolutionBackpropData", 1), ("MatMul", 1), ("MatMul", 0),
    ("DeformableConvolution", 2),
}  # fmt: skip
#: ops a weight may pass through (they never grow it)
_WEIGHT_LAYOUT = {"Reshape", "Transpose", "Convert", "Squeeze", "Unsqueeze"}
#: ops whose kernels return a view of their (contiguous) input: folding them
#: allocates nothing
_VIEW_OPS = frozenset({"Reshape", "Squeeze", "Unsqueeze"})


def feeds_weights_only(op: Operation, depth: int = 4) -> bool:
    """True when every use of ``op``'s results is a weight input (see module doc)."""
    uses = [u for r in op.results for u in r.uses]
    if not uses or depth == 0:
        return False
    for u in uses:
        user = u.operation
        t = getattr(user, "OV_TYPE", None)
        if (t, u.index) in _WEIGHT_PORTS:
            other = [v for i, v in enumerate(user.operands) if i != u.index][:1]
            if t == "MatMul" and other and constant_value_of(other[0]) is not None:
                return False
            continue
        if t in _WEIGHT_LAYOUT and u.index == 0 and feeds_weights_only(user, depth - 1):
            continue
        return False
    return True


def result_bytes(op: Operation) -> int | None:
    """Bytes of ``op``'s results from their types (None unless all are static)."""
    total = 0
    for r in op.results:
        name, dims = _etype(r.type), dims_of(r.type)
        if name is None or dims is None or any(d < 0 for d in dims):
            return None
        total += et.byte_size(name, math.prod(dims))
    return total


#: a constant Loop folds only with a constant trip count up to this
MAX_FOLDED_ITERATIONS = 1 << 16


def _bounded_trip_count(op: OVOp) -> bool:
    """A Loop runs a known, bounded number of iterations at most (a constant
    Loop whose condition never turns false must not run forever while folding)."""
    trip = constant_value_of(op.operands[0])
    return trip is not None and trip.size == 1 and 0 <= int(trip.reshape(-1)[0]) <= MAX_FOLDED_ITERATIONS


def fold_values(
    op: OVOp, max_growth: float = 4.0, origin_bytes: int | None = None
) -> list[np.ndarray] | None:
    """The values of ``op``'s results when it can be folded, else None.

    ``origin_bytes``: the bytes of the original Constants the inputs derive
    from, when less than the inputs' own (the cumulative guard).
    """
    if not is_pure(op) or (op.regions and not isinstance(op, CONTROL_OPS)):
        return None
    if op.name == "ov.Loop" and not _bounded_trip_count(op):
        return None
    out_types = [_etype(r.type) for r in op.results]
    if not op.results or any(t is None or t in et.PACKED_BITS for t in out_types):
        return None
    if op.OV_TYPE == "ShapeOf":
        dims = dims_of(op.operands[0].type)
        if dims is not None and all(d >= 0 for d in dims):
            return [np.asarray(dims, dtype=et.numpy_dtype(out_types[0]))]
    if not all(isinstance(v.owner, ConstantOp) for v in op.operands):
        return None  # decided before any payload is read (or made: splats)
    ins = [constant_value_of(v, splat_view=True) for v in op.operands]
    if any(v is None for v in ins):
        return None
    from xmo.backends.cpu import KERNEL_INPUT_ERRORS, evaluate_op, kernel_for

    if kernel_for(op.name) is None:
        return None
    in_bytes = sum(np.asarray(v).nbytes for v in ins)
    if origin_bytes is not None:
        in_bytes = min(in_bytes, origin_bytes)
    expected = result_bytes(op)
    if expected is not None and _too_large(op, expected, in_bytes, max_growth):
        return None  # never computed
    mem = budget.current()
    if expected is not None and op.OV_TYPE not in _VIEW_OPS and not mem.fits(expected):
        log.debug("not folding %s: its result of %d bytes does not fit the memory budget",
                  op.name, expected)
        return None
    splat = _splat_result(op, ins)
    if splat is not None:  # one value everywhere: kept a broadcast view (a lazy splat)
        if _too_large(op, splat.nbytes, in_bytes, max_growth):
            return None
        values, allocated = [splat], splat.nbytes
    else:
        ins = [np.ascontiguousarray(v) if _is_broadcast(v) else v for v in ins]
        try:
            values = evaluate_op(op, ins)  # type: ignore[arg-type]
        except KERNEL_INPUT_ERRORS as e:
            log.debug("not folding %s: %s", op.name, e)
            return None
        out_bytes = sum(v.nbytes for v in values)
        if _too_large(op, out_bytes, in_bytes, max_growth):
            return None
        values = [np.ascontiguousarray(v).reshape(np.shape(v)) for v in values]
        allocated = sum(
            v.nbytes for v in values if not any(np.may_share_memory(v, x) for x in ins)
        )
    if not mem.fits(allocated):
        return None
    mem.charge(allocated, "its folded result")
    return values


def _is_broadcast(v: np.ndarray) -> bool:
    return v.size > 1 and not any(v.strides)


#: ops whose result is their first input's one value at every index when that
#: input holds one value (and the result's shape is known)
_SPREAD_OPS = frozenset({"Broadcast", "Reshape", "Squeeze", "Unsqueeze", "Tile"})


def _splat_result(op: OVOp, ins: list[np.ndarray]) -> np.ndarray | None:
    """The result of ``op`` as a broadcast view when it repeats one value of
    its first input (a splat, or a one-element input spread), without
    computing it; None otherwise."""
    if op.OV_TYPE not in _SPREAD_OPS or len(op.results) != 1:
        return None
    x = ins[0]
    if not (x.size == 1 or _is_broadcast(x)):
        return None
    t = op.results[0].type
    dims = dims_of(t)
    if dims is None or any(d < 0 for d in dims) or math.prod(dims) <= 1:
        return None
    if _etype(t) != et.from_numpy(x.dtype):
        return None
    return np.broadcast_to(x.reshape(-1)[:1].reshape(()), tuple(dims))


#: results up to this size always pass the size guard
FOLD_ALWAYS_BYTES = 1 << 20


def _too_large(op: OVOp, out_bytes: int, in_bytes: int, max_growth: float) -> bool:
    """The size guard (module docstring)."""
    if (
        max_growth > 0
        and out_bytes > max(max_growth * in_bytes, FOLD_ALWAYS_BYTES)
        and not feeds_weights_only(op)
    ):
        log.debug("not folding %s: result of %d bytes from %d", op.name, out_bytes, in_bytes)
        return True
    return False


class FoldConstantOp(RewritePattern):
    """Replace an op of one of ``blocks`` by Constants when its values are known
    (:func:`fold_values`), refining its result types first when an input type
    changed (a producer was folded or refined). Friendly and tensor names move
    to the Constants."""

    def __init__(self, blocks: Iterable[Block], store: WeightStore, max_growth: float) -> None:
        #: the graphs folded: the model's and its bodies' (graph_blocks)
        self.blocks = frozenset(blocks)
        self.store = store
        self.max_growth = max_growth
        #: ops whose input types changed: only those are inferred again
        self.touched: set[Operation] = set()
        #: a folded Constant's value -> the original Constants it derives from
        #: (value -> bytes), for the cumulative size guard
        self.origins: dict[SSAValue, dict[SSAValue, int]] = {}

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter) -> None:
        if op.parent not in self.blocks or not isinstance(op, OVOp):
            return
        if isinstance(op, ParameterOp | ConstantOp | ResultOp) or _no_fold(op):
            return
        try:
            self._fold(op, rewriter)
        except ResourceLimitError as e:
            raise e.at(op.get_friendly_name(), op.OV_TYPE) from None

    def _origins(self, op: OVOp) -> dict[SSAValue, int] | None:
        """The original Constants ``op``'s inputs derive from (None unless
        every input is a Constant)."""
        if not op.operands or not all(isinstance(v.owner, ConstantOp) for v in op.operands):
            return None
        merged: dict[SSAValue, int] = {}
        for v in op.operands:
            known = self.origins.get(v)
            if known is not None:
                merged.update(known)
            else:
                name, dims = _etype(v.type), dims_of(v.type)
                if name is None or dims is None or any(d < 0 for d in dims):
                    return None
                merged[v] = et.byte_size(name, math.prod(dims))
        return merged

    def _fold(self, op: OVOp, rewriter: PatternRewriter) -> None:
        if op in self.touched:
            before = [r.type for r in op.results]
            # a control op refines its body Parameters too: their users (walked
            # after the op) are inferred again
            params = [p for r in op.regions for p in r.block.ops
                      if isinstance(p, ParameterOp)] if op.regions else []
            params_before = [p.results[0].type for p in params]
            refine_op_types(op)
            if [r.type for r in op.results] != before:
                self.touched.update(u.operation for r in op.results for u in r.uses)
            for p, t in zip(params, params_before):
                if p.results[0].type != t:
                    self.touched.update(u.operation for u in p.results[0].uses)
        origins = self._origins(op)
        values = fold_values(
            op, self.max_growth, None if origins is None else sum(origins.values())
        )
        if values is None:
            return
        types = [r.type for r in op.results]
        users = [u.operation for r in op.results for u in r.uses]
        name = op.get_friendly_name()
        for i, (res, val) in enumerate(zip(op.results, values)):
            if not res.uses:
                continue
            c = ConstantOp.from_array(
                val, _etype(res.type),
                store=self.store,
                name=name if i == 0 else f"{name}:{i}" if name else None,
                tensor_names=op.get_tensor_names(i),
            )
            if origins is not None:
                self.origins[c.results[0]] = origins
            rewriter.insert(c, InsertPoint.before(op))
            rewriter.replace_all_uses_with(res, c.results[0])
        rewriter.erase(op, safe_erase=False)
        # a folded constant may carry a more precise type than the op had
        for u in users:
            if any(v.type not in types for v in u.operands):
                self.touched.add(u)


@dataclass(frozen=True)
class OVConstantFoldPass(ModulePass):
    """Refine types and fold constant sub-graphs (see module docstring)."""

    name = "ov-constant-fold"
    #: a result this many times larger than its inputs stays an op (0: no limit)
    max_growth: float = 4.0

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        pattern = FoldConstantOp(graph_blocks(op), weight_store(ctx), self.max_growth)
        PatternRewriteWalker(pattern, apply_recursively=False).rewrite_module(op)
