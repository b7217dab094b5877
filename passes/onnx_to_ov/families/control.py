"""Control flow: If, Loop, Scan — inlined when that can be decided at
conversion time, else ov ops with bodies.

The sub-graphs are converted with the pass's own machinery
(:func:`~xmo.passes.onnx_to_ov.convert.convert_block`) and inlined when the
decision is known at conversion time (the best result: no body, everything
folds):

* **If**: a condition known at conversion time (a constant, or a value
  computable from constants, e.g. a rank test) inlines only the taken branch;
  otherwise both branches are inlined and each output is
  ``Select(cond, then, else)`` when both branches give outputs of the same
  element type and the same shape (no broadcasting between them).
* **Scan** (opset 9+; opset 8 without ``sequence_lens``): unrolled over the
  static scan length (Gather one slice per iteration, Unsqueeze + Concat the
  per-iteration outputs).
* **Loop**: unrolled when the trip count is a constant <= 256 (or absent)
  and the conditions are known at conversion time (constant true until the
  body yields a constant false); scan outputs are stacked along a new axis 0.

A Scan or Loop whose body is a recurrent cell applied once per time step
(an LSTM, GRU or RNN cell, :func:`xmo.passes.loop_to_sequence.is_recurrent`)
is not unrolled: it becomes the ov op with a body below, which the middle
phase's ``ov-loop-to-sequence`` makes one Sequence op.

An iteration that keeps an op with a body (a nested If / Loop / Scan decided
at run time) is not unrolled: the enclosing loop becomes a loop too (one body
holding the nested op, not one copy of it per iteration).

Unrolling is bounded as a whole, not only per loop: nested Loops and Scans
unroll to at most :data:`MAX_NESTED_UNROLL` iterations (the product of their
trip counts), create at most :data:`MAX_UNROLLED_OPS` ops in all, and charge
:data:`UNROLLED_OP_BYTES` per op to the conversion's memory budget
(:mod:`xmo.budget`) as they create them.

Otherwise (a condition, trip count or scan length known only at run time,
branch shapes that differ, beyond the unroll bounds: :class:`NotUnrollable`)
what the attempt emitted is dropped (``Builder.rollback``) and the node becomes an
ov op whose bodies are the sub-graphs legalized by
:func:`~xmo.passes.onnx_to_ov.convert.convert_body` (outer values the
sub-graph uses become body Parameters fed by the op, constants are cloned
into the body; nested control flow captures through the enclosing body):

* **If** -> ``ov.If``: the outer values either branch uses are the op's
  inputs (invariant inputs), each output a last output of both branches.
* **Loop** -> ``ov.Loop``: trip count (absent: -1) and condition (absent:
  true) as given; body parameters [iteration number
  (``current_iteration_input_idx``), loop-carried values (merged inputs, back
  edges from the body's carried outputs), outer values (invariant)]; ONNX's
  ``cond_in`` body input is a constant true (the body only runs while the
  condition holds); body results [condition (``body_condition_output_idx``),
  carried values (last outputs), scan outputs unsqueezed on axis 0 (concat
  outputs)].
* **Scan** (opset 9+) -> ``ov.TensorIterator``: states merged, scan inputs
  sliced one part along their axis (stride -1 for direction 1) and squeezed in
  the body, scan outputs unsqueezed on their axis and concatenated (stride -1
  for direction 1).

Loop-carried values start with the types of their initial values and widen
(the body converted again) while a back edge has another shape.
"""

from __future__ import annotations

import logging
import math
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass

import numpy as np
from xdsl.ir import Attribute, Operation, Region, SSAValue
from xdsl.utils.exceptions import VerifyException
from xmo import budget
from xmo.budget import ResourceLimitError
from xmo.dialects.ov import ConstantOp, ParameterOp
from xmo.dialects.ov import element_types as et
from xmo.dialects.ov.base import OVOp, constant_value_of, dims_of
from xmo.dialects.ov.base import tensor as tensor_type
from xmo.dialects.ov.control_ops import IfOp, LoopOp, TensorIteratorOp, body_results
from xmo.dialects.ov.port_map import (
    ConcatOutput,
    InputSlice,
    InvariantInput,
    LastOutput,
    MergedInput,
)
from xmo.dialects.ov.traits import is_pure
from xmo.passes.onnx_to_ov.convert import convert_block, convert_body
from xmo.passes.to_ov.bodies import Body, check_carried, etype_or_none, settled_body
from xmo.passes.to_ov.builder import Builder, ConverterNode, NotConvertible, SeqValue, value_etype
from xmo.passes.to_ov.helpers import norm_axis
from xmo.passes.onnx_to_ov.registry import converter

log = logging.getLogger("xmo.convert")

#: most iterations a Loop is unrolled to
MAX_UNROLL = 256
#: most iterations a Scan is unrolled to (batch x length for Scan-8)
MAX_SCAN_UNROLL = 1024
#: most iterations nested Loops / Scans unroll to (the product of their trip counts)
MAX_NESTED_UNROLL = 4096
#: most ops the unrolling of one top-level Loop / Scan creates (nested ones included;
#: converting them takes a few seconds)
MAX_UNROLLED_OPS = 1 << 13
#: memory charged per op unrolling creates (an ov op with its types and names)
UNROLLED_OP_BYTES = 4096
#: largest tensor (elements) evaluated at conversion time to decide a condition
_EVAL_LIMIT = 1 << 16


class NotUnrollable(NotConvertible):
    """Unrolling does not apply (a trip count or condition known only at run
    time, or beyond the bounds): the op becomes an ov op with a body."""


def _regions(fn: Callable) -> Callable:
    fn.handles_regions = True  # type: ignore[attr-defined]
    return fn


# ---------------------------------------------------------------------------
# Bounds of unrolling
# ---------------------------------------------------------------------------


@dataclass
class _Unrolling:
    """The unrolling under way (nested Loops / Scans share it)."""

    #: iterations of the enclosing unrolled loops (the product of their trip counts)
    factor: int = 1
    #: ops created so far
    ops: int = 0


_UNROLLING: ContextVar[_Unrolling | None] = ContextVar("xmo_onnx_unrolling", default=None)


@contextmanager
def _unrolling(node: ConverterNode, iterations: int | None) -> Iterator[Callable[[int], None]]:
    """Unroll ``node`` ``iterations`` times (None: not known in advance)
    inside the unrolling under way; yields a function to call before
    iteration ``i`` (it checks the nested iterations)."""
    state = _UNROLLING.get() or _Unrolling()
    outer = state.factor

    def before(i: int) -> None:
        total = outer * (i + 1 if iterations is None else iterations)
        if total > MAX_NESTED_UNROLL:
            raise NotUnrollable(
                f"nested loops unroll to {total} iterations, more than the limit "
                f"{MAX_NESTED_UNROLL}"
            )
        state.factor = total

    token = _UNROLLING.set(state)
    try:
        yield before
    finally:
        state.factor = outer
        _UNROLLING.reset(token)


def _iteration(node: ConverterNode, b: Builder, convert: Callable[[], list], remaining: int = 0) -> list:
    """Run ``convert`` (one iteration into ``b``), counting and charging the
    ops it creates (those of nested unrolled loops are counted by them);
    ``remaining``: the iterations still to come (refused early when as many
    iterations like this one would pass the limit)."""
    state = _UNROLLING.get()
    assert state is not None, "an iteration outside _unrolling"
    before_ops, before_count = len(b.ops), state.ops
    outs = convert()
    if any(op.regions for op in b.ops[before_ops:]):
        # one op with a body per iteration: the loop around it stays a loop
        raise NotUnrollable("an iteration keeps an op with a body (If / Loop / Scan decided at run time)")
    created = len(b.ops) - before_ops - (state.ops - before_count)
    state.ops += created
    expected = state.ops + created * max(remaining, 0)
    if expected > MAX_UNROLLED_OPS:
        raise NotUnrollable(
            f"unrolling creates {'about ' if remaining > 0 else ''}{expected} ops, more than "
            f"the limit {MAX_UNROLLED_OPS}"
        )
    budget.charge(created * UNROLLED_OP_BYTES, f"unrolling ({state.ops} ops so far)")
    return outs


# ---------------------------------------------------------------------------
# Values known at conversion time
# ---------------------------------------------------------------------------


def known_value(
    v: SSAValue | None, _memo: dict | None = None, _depth: int = 0
) -> np.ndarray | None:
    """numpy value of ``v`` when it only depends on constants (and static
    shapes), evaluated with the CPU backend's kernels; else None. The IR is
    not changed."""
    if v is None or not isinstance(v, SSAValue):
        return None
    c = constant_value_of(v)
    if c is not None:
        return c
    memo = {} if _memo is None else _memo
    owner = v.owner
    if not isinstance(owner, Operation) or owner.regions or _depth > 64:
        return None
    if owner in memo:
        vals = memo[owner]
        return None if vals is None else vals[v.index]  # type: ignore[attr-defined]
    memo[owner] = None
    vals = _evaluate(owner, memo, _depth)
    memo[owner] = vals
    return None if vals is None else vals[v.index]  # type: ignore[attr-defined]


def _evaluate(op: Operation, memo: dict, depth: int) -> list[np.ndarray] | None:
    from xmo.backends.cpu import evaluate_op, kernel_for

    if not isinstance(op, OVOp) or not is_pure(op):
        return None
    if op.OV_TYPE == "ShapeOf":
        dims = dims_of(op.operands[0].type)
        if dims is None or any(d < 0 for d in dims):
            return None

        return [np.asarray(dims, dtype=et.numpy_dtype(value_etype(op.results[0])))]
    ins = []
    for x in op.operands:
        xv = known_value(x, memo, depth + 1)
        if xv is None or np.asarray(xv).size > _EVAL_LIMIT:
            return None
        ins.append(xv)
    if kernel_for(op.name) is None or not _small_results(op, ins):
        return None
    try:
        return [np.asarray(r) for r in evaluate_op(op, ins)]
    except Exception:  # noqa: BLE001 - an unevaluable value is just "unknown"
        return None


def _small_results(op: OVOp, ins: list[np.ndarray]) -> bool:
    """Whether each result of ``op`` on the values ``ins`` has at most
    ``_EVAL_LIMIT`` elements, by shape inference (before computing them;
    results inference leaves dynamic are data-dependent, bounded by the inputs)."""
    from xmo.dialects.ov.base import InferContext, inference_for

    fn = inference_for(op.name)
    if fn is None:
        return True
    try:
        types = fn(InferContext(
            op.name, [v.type for v in op.operands], op.attr_values(),
            lambda i: ins[i], len(op.results),
        ))
    except (VerifyException, ResourceLimitError, ValueError, TypeError, IndexError,
            KeyError, ArithmeticError):
        return False  # not sized: not computed
    for t in types:
        dims = dims_of(t)
        if dims is not None and all(d >= 0 for d in dims) and math.prod(dims) > _EVAL_LIMIT:
            return False
    return True


def refined_dims(
    v: SSAValue, _memo: dict | None = None, _depth: int = 0
) -> list[int] | None:
    """Dims of ``v`` as shape inference gives them when every value computable
    from constants is known (shape sub-graphs not folded yet); the IR is not
    changed."""
    return dims_of(_refined_type(v, {} if _memo is None else _memo, {}, _depth))


def _refined_type(v: SSAValue, memo: dict, kmemo: dict, depth: int):
    from xmo.dialects.ov.base import InferContext, inference_for

    owner = v.owner
    if not isinstance(owner, OVOp) or owner.regions or depth > 200:
        return v.type
    if owner.OV_TYPE in ("Constant", "Parameter"):
        return v.type
    if owner not in memo:
        memo[owner] = [r.type for r in owner.results]
        fn = inference_for(owner.name)
        if fn is not None:
            try:
                ins = [_refined_type(x, memo, kmemo, depth + 1) for x in owner.operands]
                ctx = InferContext(
                    owner.name,
                    ins,
                    owner.attr_values(),
                    lambda i: known_value(owner.operands[i], kmemo),
                    len(owner.results),
                )
                memo[owner] = list(fn(ctx))
            except Exception as e:  # noqa: BLE001 - keep the current types
                log.debug("no refined type for %s: %s", owner.name, e)
    return memo[owner][v.index]  # type: ignore[attr-defined]


def _known_bool(v: SSAValue | None) -> bool | None:
    val = known_value(v)
    if val is None or np.asarray(val).size != 1:
        return None
    return bool(np.asarray(val).reshape(-1)[0])


def _tensor(node: ConverterNode, v: SSAValue | SeqValue | None, what: str) -> SSAValue:
    if not isinstance(v, SSAValue):
        raise node.unsupported(
            f"{what} is {'a sequence' if v is not None else 'absent'}"
        )
    return v


# ---------------------------------------------------------------------------
# If
# ---------------------------------------------------------------------------


@converter("If", min_version=1)
@_regions
def if_(node: ConverterNode, b: Builder):
    cond = node.input(0)
    then_r, else_r = node.op.region_of("then_branch"), node.op.region_of("else_branch")  # type: ignore[attr-defined]
    taken = _known_bool(cond)
    if taken is not None:
        return convert_block(
            node,
            b,
            then_r if taken else else_r,
            [],
            f"{node.name}/{'then' if taken else 'else'}",
        )
    mark = len(b.ops)
    then_outs = convert_block(node, b, then_r, [], f"{node.name}/then")
    else_outs = convert_block(node, b, else_r, [], f"{node.name}/else")
    if len(then_outs) != len(else_outs):
        raise node.unsupported("branches yield different numbers of outputs")
    c = b.reshape(b.convert(cond, "boolean"), [])
    outs: list[SSAValue | SeqValue | None] = []
    for i, (t, e) in enumerate(zip(then_outs, else_outs)):
        if t is None and e is None:
            outs.append(None)
            continue
        if isinstance(t, SeqValue) and isinstance(e, SeqValue):
            if t.ragged or e.ragged or t.data is None or e.data is None:
                raise node.unsupported(
                    f"output {i}: ragged or empty sequences under a dynamic condition"
                )
            sel = _select(node, b, c, t.data, e.data, i)
            if sel is None:
                raise node.unsupported(
                    f"output {i}: sequences of different shapes under a dynamic condition"
                )
            outs.append(SeqValue(sel))
            continue
        t = _tensor(node, t, f"then-branch output {i}")
        e = _tensor(node, e, f"else-branch output {i}")
        sel = _select(node, b, c, t, e, i)
        if sel is None:
            b.rollback(mark)
            return _if_op(node, b, cond, then_r, else_r)
        outs.append(sel)
    return outs


def _select(
    node: ConverterNode, b: Builder, c: SSAValue, t: SSAValue, e: SSAValue, i: int
) -> SSAValue | None:
    """``Select(c, t, e)``; None when the branches' shapes differ (an ov.If then)."""
    if value_etype(t) != value_etype(e):
        raise node.unsupported(
            f"output {i}: branches yield {value_etype(t)} and {value_etype(e)} under a dynamic condition"
        )
    ts, es = dims_of(t.type), dims_of(e.type)
    if ts is None or es is None or ts != es:
        return None
    if t is e:
        return t
    return b.out("Select", [c, t, e], {"auto_broadcast": "numpy"})


def _scalar(b: Builder, v: SSAValue, etype: str) -> SSAValue:
    """``v`` (one element) as a scalar of ``etype``: Convert / Reshape only when needed."""
    v = b.convert(v, etype)
    return v if dims_of(v.type) == [] else b.reshape(v, [])


def _if_op(
    node: ConverterNode, b: Builder, cond: SSAValue, then_r: Region, else_r: Region
) -> list[SSAValue]:
    """An ``ov.If`` whose branches are the legalized sub-graphs."""
    then_b = convert_body(node, then_r, [], f"{node.name}/then")
    else_b = convert_body(node, else_r, [], f"{node.name}/else")
    n_out = len(body_results(then_b.region))
    if len(body_results(else_b.region)) != n_out:
        raise node.unsupported("branches yield different numbers of outputs")
    inputs: list[SSAValue] = []
    port: dict[SSAValue, int] = {}
    maps = []
    for body in (then_b, else_b):
        ins = []
        for p, v in enumerate(body.captured):
            if v not in port:
                port[v] = 1 + len(inputs)
                inputs.append(v)
            ins.append(InvariantInput(external=port[v], parameter=p))
        maps.append((ins, [LastOutput(external=i, result=i) for i in range(n_out)]))
    c = _scalar(b, cond, "boolean")
    try:
        op = IfOp.new(c, inputs, then_b.region, maps[0], else_b.region, maps[1])
    except VerifyException as e:
        raise node.unsupported(f"ov.If: {e}") from None
    op.set_friendly_name(f"{node.name}/If_{len(b.ops)}")
    b.ops.append(op)
    return list(op.results)


# ---------------------------------------------------------------------------
# Scan
# ---------------------------------------------------------------------------


def _stack(b: Builder, items: Sequence[SSAValue], axis: int) -> SSAValue:
    parts = [b.unsqueeze(v, [axis]) for v in items]
    return parts[0] if len(parts) == 1 else b.concat(parts, axis)


def _recurrent(
    node: ConverterNode, b: Builder, build: Callable[[ConverterNode, Builder], list[SSAValue]]
) -> list[SSAValue] | None:
    """The ov op with a body ``build`` makes for ``node`` when that body is a
    recurrent cell applied once per time step (``ov-loop-to-sequence`` makes
    it one Sequence op, which beats any unrolling), else None (nothing emitted)."""
    # the pass package loads only for models with a Scan / Loop (as passes do)
    from xmo.passes.loop_to_sequence import is_recurrent

    mark = len(b.ops)
    try:
        outs = build(node, b)
    except NotConvertible:
        b.rollback(mark)
        return None
    if isinstance(b.ops[-1], LoopOp | TensorIteratorOp) and is_recurrent(b.ops[-1]):
        log.debug("'%s' is a recurrent cell per time step: kept a loop", node.name)
        return outs
    b.rollback(mark)
    return None


@converter("Scan", min_version=9)
@_regions
def scan(node: ConverterNode, b: Builder):
    kept = _recurrent(node, b, _tensor_iterator)
    if kept is not None:
        return kept
    mark = len(b.ops)
    try:
        return _unrolled_scan(node, b)
    except NotUnrollable as e:
        log.debug("Scan '%s' is not unrolled (%s): an ov.TensorIterator", node.name, e)
        b.rollback(mark)
        return _tensor_iterator(node, b)


def _scan_attrs(node: ConverterNode, body: Region) -> tuple[int, int, list, list, list, list]:
    """(states, scan inputs, input axes, input directions, output axes, output
    directions) of a Scan (opset 9+); axes not normalized."""
    m = int(node.attr("num_scan_inputs"))
    n_state = node.num_inputs - m
    if n_state < 0:
        raise node.unsupported("num_scan_inputs exceeds the number of inputs")
    k = len(body.block.last_op.operands) - n_state  # type: ignore[union-attr]
    return (
        n_state, m,
        list(node.attr("scan_input_axes") or [0] * m),
        list(node.attr("scan_input_directions") or [0] * m),
        list(node.attr("scan_output_axes") or [0] * k),
        list(node.attr("scan_output_directions") or [0] * k),
    )


def _tensor_iterator(node: ConverterNode, b: Builder) -> list[SSAValue]:
    """An ``ov.TensorIterator``: states -> merged parameters (back edges from
    results 0..), scan inputs -> sliced parameters (one part along the axis,
    walked backwards for direction 1) squeezed in the body, outer values ->
    invariant parameters; final states -> last outputs, scan outputs
    unsqueezed in the body -> concat outputs."""
    body_r = node.op.region_of("body")  # type: ignore[attr-defined]
    n_state, m, in_axes, in_dirs, out_axes, out_dirs = _scan_attrs(node, body_r)
    if m == 0:
        raise node.unsupported("Scan without scan inputs")
    states = [_tensor(node, node.input(i), f"state input {i}") for i in range(n_state)]
    xs = [_tensor(node, node.input(n_state + j), f"scan input {j}") for j in range(m)]
    axes = []
    slice_types = []
    for j, x in enumerate(xs):
        dims = dims_of(x.type)
        if dims is None:
            raise node.unsupported(f"scan input {j} has a dynamic rank")
        ax = norm_axis(node, in_axes[j], len(dims))
        axes.append(ax)
        slice_types.append(tensor_type(value_etype(x), [*dims[:ax], 1, *dims[ax + 1 :]]))
    out_ranks: list[int] = []

    def outputs(ib: Builder, outs: list) -> list[SSAValue]:
        vals = [_tensor(node, v, f"body output {i}") for i, v in enumerate(outs)]
        scans = []
        out_ranks.clear()
        for i, v in enumerate(vals[n_state:]):
            dims = dims_of(v.type)
            if dims is None:
                raise node.unsupported(f"scan output {i} has a dynamic rank")
            ax = norm_axis(node, out_axes[i], len(dims) + 1)
            out_ranks.append(ax)
            scans.append(ib.unsqueeze(v, [ax]))
        return [*vals[:n_state], *scans]

    def build(types: list[Attribute]) -> Body:
        prefix = f"{node.name}/body"
        params = [
            ParameterOp.make([], result_types=[t], name=f"{prefix}/s{j}")
            for j, t in enumerate(types)
        ]
        params += [
            ParameterOp.make([], result_types=[t], name=f"{prefix}/x{j}")
            for j, t in enumerate(slice_types)
        ]
        sb = Builder(b.store, f"{prefix}/slices")
        squeezed = [sb.squeeze(p.results[0], [axes[j]]) for j, p in enumerate(params[n_state:])]
        return convert_body(
            node, body_r, params, prefix, outputs,
            arg_values=[*(p.results[0] for p in params[:n_state]), *squeezed],
            extra_ops=sb.ops,
        )

    body = settled_body(node, [v.type for v in states], build, 0)
    inputs = [*states, *xs, *body.captured]
    in_map: list = [MergedInput(external=j, parameter=j, result=j) for j in range(n_state)]
    for j in range(m):
        back = in_dirs[j] == 1
        in_map.append(InputSlice(
            external=n_state + j, parameter=n_state + j, axis=axes[j],
            start=-1 if back else 0, stride=-1 if back else 1, end=0 if back else -1,
        ))
    in_map += [
        InvariantInput(external=n_state + m + c, parameter=n_state + m + c)
        for c in range(len(body.captured))
    ]
    out_map: list = [LastOutput(external=j, result=j) for j in range(n_state)]
    for i, ax in enumerate(out_ranks):
        back = out_dirs[i] == 1
        out_map.append(ConcatOutput(
            external=n_state + i, result=n_state + i, axis=ax,
            start=-1 if back else 0, stride=-1 if back else 1, end=0 if back else -1,
        ))
    try:
        op = TensorIteratorOp.new(inputs, body.region, in_map, out_map)
    except VerifyException as e:
        raise node.unsupported(f"ov.TensorIterator: {e}") from None
    op.set_friendly_name(f"{node.name}/TensorIterator_{len(b.ops)}")
    b.ops.append(op)
    return list(op.results)


def _unrolled_scan(node: ConverterNode, b: Builder):
    body = node.op.region_of("body")  # type: ignore[attr-defined]
    m = int(node.attr("num_scan_inputs"))
    n_in = node.num_inputs
    n_state = n_in - m
    if n_state < 0:
        raise node.unsupported("num_scan_inputs exceeds the number of inputs")
    states = [node.input(i) for i in range(n_state)]
    xs = [node.input(n_state + j) for j in range(m)]
    in_axes = list(node.attr("scan_input_axes") or [0] * m)
    in_dirs = list(node.attr("scan_input_directions") or [0] * m)
    n_body_out = len(body.block.last_op.operands)  # type: ignore[union-attr]
    k = n_body_out - n_state
    out_axes = list(node.attr("scan_output_axes") or [0] * k)
    out_dirs = list(node.attr("scan_output_directions") or [0] * k)
    if m == 0:
        raise node.unsupported("Scan without scan inputs")
    length = None
    axes = []
    for j, x in enumerate(xs):
        dims = dims_of(x.type)
        if dims is None or any(d < 0 for d in dims):
            dims = refined_dims(x)
        if dims is None:
            raise node.unsupported(f"scan input {j} has a dynamic rank")
        ax = norm_axis(node, in_axes[j], len(dims))
        axes.append(ax)
        if dims[ax] < 0:
            continue
        if length is not None and length != dims[ax]:
            raise node.unsupported("scan inputs have different scan lengths")
        length = dims[ax]
    if length is None:
        raise NotUnrollable("the scan length is dynamic")
    if length > MAX_SCAN_UNROLL:
        raise NotUnrollable(
            f"scan length {length} exceeds the unroll limit {MAX_SCAN_UNROLL}"
        )
    if length == 0:
        raise node.unsupported("the scan length is 0")
    per_iter: list[list[SSAValue]] = [[] for _ in range(k)]
    with _unrolling(node, length) as before:
        for t in range(length):
            before(t)
            slices = [
                b.gather(x, b.i64(length - 1 - t if in_dirs[j] else t), axes[j])
                for j, x in enumerate(xs)
            ]
            outs = _iteration(node, b, lambda t=t, slices=slices: convert_block(
                node, b, body, [*states, *slices], f"{node.name}/iter{t}"
            ), length - 1 - t)
            check_carried([etype_or_none(v) for v in states], outs[:n_state])
            states = [
                _tensor(node, v, f"state output {i}") for i, v in enumerate(outs[:n_state])
            ]
            for i, v in enumerate(outs[n_state:]):
                per_iter[i].append(_tensor(node, v, f"scan output {i}"))
    results: list[SSAValue] = list(states)
    for i, items in enumerate(per_iter):
        if out_dirs[i]:
            items = items[::-1]
        r = len(dims_of(items[0].type) or []) + 1
        if dims_of(items[0].type) is None:
            raise node.unsupported(f"scan output {i} has a dynamic rank")
        results.append(_stack(b, items, norm_axis(node, out_axes[i], r)))
    return results


@converter("Scan", min_version=8, max_version=8)
@_regions
def scan8(node: ConverterNode, b: Builder):
    """Scan-8: batch axis 0, scan axis 1; ``sequence_lens`` must be absent."""
    body = node.op.region_of("body")  # type: ignore[attr-defined]
    if node.has_input(0):
        raise node.unsupported("sequence_lens is not supported")
    m = int(node.attr("num_scan_inputs"))
    n_state = node.num_inputs - 1 - m
    states = [node.input(1 + i) for i in range(n_state)]
    xs = [node.input(1 + n_state + j) for j in range(m)]
    dirs = list(node.attr("directions") or [0] * m)
    k = len(body.block.last_op.operands) - n_state  # type: ignore[union-attr]
    batch = length = None
    for x in [*states, *xs]:
        d = dims_of(x.type)
        if d is None or not d or d[0] < 0:
            raise node.unsupported("the batch size is dynamic")
        batch = d[0]
    for x in xs:
        d = dims_of(x.type)
        if len(d) < 2 or d[1] < 0:  # type: ignore[arg-type]
            raise node.unsupported("the scan length is dynamic")
        length = d[1]  # type: ignore[index]
    if not batch or not length:
        raise node.unsupported("empty batch or scan length")
    if batch * length > MAX_SCAN_UNROLL:
        raise node.unsupported(
            f"batch x scan length exceeds the unroll limit {MAX_SCAN_UNROLL}"
        )
    final_states: list[list[SSAValue]] = [[] for _ in range(n_state)]
    scans: list[list[SSAValue]] = [[] for _ in range(k)]
    with _unrolling(node, batch * length) as before:
        before(0)
        for n in range(batch):
            st = [b.gather(s, b.i64(n), 0) for s in states]
            xb = [b.gather(x, b.i64(n), 0) for x in xs]
            per_iter: list[list[SSAValue]] = [[] for _ in range(k)]
            for t in range(length):
                slices = [
                    b.gather(x, b.i64(length - 1 - t if dirs[j] else t), 0)
                    for j, x in enumerate(xb)
                ]
                outs = _iteration(node, b, lambda n=n, t=t, st=st, slices=slices: (
                    convert_block(node, b, body, [*st, *slices], f"{node.name}/b{n}/iter{t}")
                ), batch * length - 1 - (n * length + t))
                check_carried([etype_or_none(v) for v in st], outs[:n_state])
                st = [
                    _tensor(node, v, f"state output {i}")
                    for i, v in enumerate(outs[:n_state])
                ]
                for i, v in enumerate(outs[n_state:]):
                    per_iter[i].append(_tensor(node, v, f"scan output {i}"))
            for i, s in enumerate(st):
                final_states[i].append(s)
            for i, items in enumerate(per_iter):
                scans[i].append(_stack(b, items, 0))
    return [_stack(b, items, 0) for items in [*final_states, *scans]]


# ---------------------------------------------------------------------------
# Loop
# ---------------------------------------------------------------------------


@converter("Loop", min_version=1)
@_regions
def loop(node: ConverterNode, b: Builder):
    kept = _recurrent(node, b, _loop_op)
    if kept is not None:
        return kept
    mark = len(b.ops)
    try:
        return _unrolled_loop(node, b)
    except NotUnrollable as e:
        log.debug("Loop '%s' is not unrolled (%s): an ov.Loop", node.name, e)
        b.rollback(mark)
        return _loop_op(node, b)


def _unrolled_loop(node: ConverterNode, b: Builder):
    body = node.op.region_of("body")  # type: ignore[attr-defined]
    trip = None
    if node.has_input(0):
        tv = known_value(node.input(0))
        if tv is None:
            raise NotUnrollable("the trip count is not a constant")
        trip = int(np.asarray(tv).reshape(-1)[0])
        if trip > MAX_UNROLL:
            raise NotUnrollable(
                f"trip count {trip} exceeds the unroll limit {MAX_UNROLL}"
            )
    cond = True
    cond_v = node.optional_input(1)
    if cond_v is not None:
        kc = _known_bool(cond_v)
        if kc is None:
            raise NotUnrollable("the loop condition is not a constant")
        cond = kc
    state: list[SSAValue | SeqValue | None] = [
        node.inputs[i] for i in range(2, node.num_inputs)
    ]
    n_state = len(state)
    k = len(body.block.last_op.operands) - 1 - n_state  # type: ignore[union-attr]
    limit = trip if trip is not None else MAX_UNROLL
    per_iter: list[list[SSAValue]] = [[] for _ in range(k)]
    true_c = None
    it = 0
    with _unrolling(node, trip) as before:
        while cond and it < limit:
            before(it)
            if true_c is None:
                true_c = b.const(np.asarray(True), "boolean")
            outs = _iteration(node, b, lambda it=it, true_c=true_c, state=state: (
                convert_block(node, b, body, [b.i64(it), true_c, *state], f"{node.name}/iter{it}")
            ), (trip or 0) - 1 - it)
            kc = _known_bool(outs[0]) if isinstance(outs[0], SSAValue) else None
            if kc is None:
                raise NotUnrollable("the body's condition output is not a constant")
            cond = kc
            check_carried([etype_or_none(v) for v in state], outs[1 : 1 + n_state])
            state = list(outs[1 : 1 + n_state])
            for i, v in enumerate(outs[1 + n_state :]):
                per_iter[i].append(_tensor(node, v, f"scan output {i}"))
            it += 1
    if trip is None and cond:
        raise NotUnrollable(f"the loop does not end within {MAX_UNROLL} iterations")
    results: list[SSAValue | SeqValue | None] = list(state)
    for i, items in enumerate(per_iter):
        if not items:
            raise NotUnrollable(f"scan output {i} of a loop that runs 0 times")
        if any(dims_of(v.type) != dims_of(items[0].type) for v in items):
            raise NotUnrollable(f"scan output {i} changes shape across iterations")
        results.append(_stack(b, items, 0))
    return results


def _loop_op(node: ConverterNode, b: Builder) -> list[SSAValue]:
    """An ``ov.Loop``: body parameters [iteration, carried..., captured...],
    results [condition, carried..., scan outputs (unsqueezed)...]; ONNX's
    ``cond_in`` body input is a constant true (the body only runs while it is)."""
    body_r = node.op.region_of("body")  # type: ignore[attr-defined]
    n_state = node.num_inputs - 2
    carried = [
        _tensor(node, node.inputs[2 + j], f"loop-carried input {j}") for j in range(n_state)
    ]
    args = list(body_r.block.args)
    if len(args) != 2 + n_state:
        raise node.unsupported(f"the body has {len(args)} inputs, {2 + n_state} expected")
    n_scan = len(body_r.block.last_op.operands) - 1 - n_state  # type: ignore[union-attr]

    def outputs(ib: Builder, outs: list) -> list[SSAValue]:
        vals = [_tensor(node, v, f"body output {i}") for i, v in enumerate(outs)]
        cond_out = _scalar(ib, vals[0], "boolean")
        scans = [ib.unsqueeze(v, [0]) for v in vals[1 + n_state :]]
        return [cond_out, *vals[1 : 1 + n_state], *scans]

    # the body block args: [iter, cond_in, carried...]; cond_in is fed inside the body
    def build(types: list[Attribute]) -> Body:
        params = [ParameterOp.new("i64", [], name=f"{node.name}/body/iter")]
        params += [
            ParameterOp.make([], result_types=[t], name=f"{node.name}/body/v{j}")
            for j, t in enumerate(types)
        ]
        true_c = ConstantOp.from_array(
            np.asarray(True), "boolean", name=f"{node.name}/body/cond_in"
        )
        return convert_body(
            node, body_r, params, f"{node.name}/body", outputs,
            arg_values=[params[0].results[0], true_c.results[0],
                        *(p.results[0] for p in params[1:])],
            extra_ops=[true_c],
        )

    body = settled_body(node, [v.type for v in carried], build, 1)
    trip = node.optional_input(0)
    trip_v = _scalar(b, trip, "i64") if trip is not None else b.i64(-1)
    cond_v = node.optional_input(1)
    exec_c = (
        _scalar(b, cond_v, "boolean")
        if cond_v is not None else b.const(np.asarray(True), "boolean")
    )
    inputs = [*carried, *body.captured]
    in_map = [MergedInput(external=2 + j, parameter=1 + j, result=1 + j) for j in range(n_state)]
    in_map += [
        InvariantInput(external=2 + n_state + k, parameter=1 + n_state + k)
        for k in range(len(body.captured))
    ]
    out_map = [LastOutput(external=j, result=1 + j) for j in range(n_state)]
    out_map += [
        ConcatOutput(external=n_state + k, result=1 + n_state + k, axis=0) for k in range(n_scan)
    ]
    try:
        op = LoopOp.new(
            trip_v, exec_c, inputs, body.region, in_map, out_map,
            body_condition_output_idx=0, current_iteration_input_idx=0,
        )
    except VerifyException as e:
        raise node.unsupported(f"ov.Loop: {e}") from None
    op.set_friendly_name(f"{node.name}/Loop_{len(b.ops)}")
    b.ops.append(op)
    return list(op.results)


__all__ = [
    "NotUnrollable",
    "MAX_NESTED_UNROLL",
    "MAX_SCAN_UNROLL",
    "MAX_UNROLL",
    "MAX_UNROLLED_OPS",
    "UNROLLED_OP_BYTES",
    "known_value",
    "refined_dims",
]
