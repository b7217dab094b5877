"""The shape of a recurrent loop: an ``ov.TensorIterator`` or ``ov.Loop`` that
walks one sequence a time step per iteration, carrying states.

:func:`recurrent_loop` reads the op's port maps and body into a
:class:`RecurrentLoop`, or says no:

* **the step input**: one input ``X`` of rank 3 walked along axis 0 or 1
  (the other is the batch), one step per iteration, from its start or from
  its end -- a sliced input (part size 1, stride 1 or -1, the whole axis)
  whose body parameter only feeds a Squeeze / Reshape dropping the unit
  axis, or (Loop) an invariant input the body Gathers at the *iteration
  number* (Loop's current-iteration parameter, or a carried counter starting
  at 0 and stepping by 1, as TensorFlow's ``time``). ``X`` is read at its
  source: through Transposes swapping its time and batch axes (the time
  major copy TensorFlow makes), and through time reversals (TensorFlow's
  ``ReverseV2``, Keras' ``go_backwards``: the source walked from its end);
* **the carried values**: float values of rank 2 are the states; integer
  scalars are counters (nothing they compute is an output); a float value
  of rank 3 is a *written list* when each iteration overwrites one of its
  slices with a state's new value (``ScatterUpdate`` along axis 0, as
  OpenVINO's TensorFlow frontend writes a TensorList): at the iteration
  number in a list as long as the sequence (every step's value), or at 0 in
  a list of one (the last step's);
* **the outputs**: a concatenated output of a state's new value with a unit
  axis added at the concatenation axis, the last iteration's value of a
  body value, or a written list; outputs nobody uses are ignored;
* **the iteration count** is the sequence length: a TensorIterator's is. A
  Loop's execution condition must be constant true; its trip count and each
  term of its body condition (constant true, or a conjunction of
  ``iteration + 1 < bound``, TensorFlow's while condition) bound the count,
  and each bound must be the time dim of ``X`` (a constant equal to it, or
  ``ShapeOf(X)[axis]`` looking through Transposes) or a constant above it,
  one of them (or a sliced input) exactly it.

Body values resolve to constants through invariant inputs
(:class:`BodyConstants`): weights may be body constants or outer constants
fed in.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from xdsl.ir import SSAValue

from xmo.dialects.ov import element_types as et
from xmo.dialects.ov.base import constant_value_of, dims_of
from xmo.dialects.ov.control_ops import (
    LoopOp,
    TensorIteratorOp,
    body_parameters,
    body_results,
)
from xmo.dialects.ov.ops import (
    AddOp,
    BroadcastOp,
    BroadcastOpset1Op,
    ConvertOp,
    GatherOp,
    GreaterOp,
    LessOp,
    LogicalAndOp,
    ReshapeOp,
    ScatterUpdateOp,
    ShapeOfOp,
    SqueezeOp,
    TransposeOp,
    UnsqueezeOp,
)
from xmo.dialects.ov.port_map import (
    ConcatOutput,
    InputSlice,
    InvariantInput,
    LastOutput,
    MergedInput,
)
from xmo.passes.loop_to_sequence.probe import (
    adds_unit_axis,
    is_reversal,
    producer,
    removes_unit_axis,
)


@dataclass(frozen=True)
class State:
    """A carried float value: body parameter, initial (outer) value, new (body) value."""

    param: SSAValue
    initial: SSAValue
    new: SSAValue


@dataclass(frozen=True)
class SequenceOutput:
    """Output ``external``: body value ``value`` ([B, H]) of every step,
    stacked along ``axis`` (0: [T, B, H], 1: [B, T, H]), the last step
    first when ``reversed``."""

    external: int
    value: SSAValue
    axis: int
    reversed: bool


@dataclass(frozen=True)
class FinalOutput:
    """Output ``external``: body value ``value`` ([B, H]) of the last
    iteration, with a unit axis inserted at ``unit_axis`` unless None."""

    external: int
    value: SSAValue
    unit_axis: int | None = None


@dataclass(frozen=True)
class BodyConstants:
    """Constant values of body values: a body constant, or a body parameter
    fed with an outer constant (``invariant``: body parameter -> outer value)."""

    invariant: dict[SSAValue, SSAValue]

    def __call__(self, v: SSAValue) -> np.ndarray | None:
        c = constant_value_of(v)
        if c is None and v in self.invariant:
            c = constant_value_of(self.invariant[v])
        return c


@dataclass
class RecurrentLoop:
    """A loop walking ``sequence`` ([T, B, I] when ``time_axis`` is 0,
    [B, T, I] when 1) one step per iteration, from the end when ``backwards``."""

    op: LoopOp | TensorIteratorOp
    sequence: SSAValue
    time_axis: int
    backwards: bool
    step: SSAValue
    """the body's value of the current step, [B, I]"""
    states: list[State]
    sequences: list[SequenceOutput]
    finals: list[FinalOutput]
    const: BodyConstants


@dataclass(frozen=True)
class _Body:
    """What the analysis reads again and again."""

    op: LoopOp | TensorIteratorOp
    params: list[SSAValue]
    results: list[SSAValue]
    const: BodyConstants
    iteration: frozenset[SSAValue]
    """body values equal to the iteration number (Loop)"""


def recurrent_loop(op: LoopOp | TensorIteratorOp, used_only: bool = True) -> RecurrentLoop | None:
    """``op`` as a recurrent loop (see the module docstring), or None;
    ``used_only``: outputs nobody reads are left out."""
    params = [p.results[0] for p in body_parameters(op.body)]
    results = [r.operands[0] for r in body_results(op.body)]
    descs = op.input_descs()
    const = BodyConstants({
        params[d.parameter]: op.operands[d.external]
        for d in descs if isinstance(d, InvariantInput)
    })
    iteration = _iteration_values(op, params, results) if isinstance(op, LoopOp) else set()
    body = _Body(op, params, results, const, frozenset(iteration))
    slices = [d for d in descs if isinstance(d, InputSlice)]
    if len(slices) > 1:
        return None
    if slices:
        found = _sliced_step(body, slices[0])
    elif isinstance(op, LoopOp):
        found = _gathered_step(body)
    else:
        found = None
    if found is None:
        return None
    x, axis, backwards, step = found
    if isinstance(op, LoopOp) and not _runs_over(body, x, axis, bool(slices)):
        return None
    steps = _time_steps(x, axis)
    x, axis, backwards = _source(x, axis, backwards)

    states: list[State] = []
    lists: dict[int, SequenceOutput | FinalOutput] = {}
    for d in descs:
        if not isinstance(d, MergedInput):
            continue
        p = params[d.parameter]
        etype = et.of_tensor_type(p.type)
        dims = dims_of(p.type)
        if etype in et.FLOAT_TYPES and dims is not None and len(dims) == 2:
            states.append(State(p, op.operands[d.external], results[d.result]))
        elif etype in et.FLOAT_TYPES and dims is not None and len(dims) == 3:
            written = _written_list(body, d, steps)
            if written is None:
                return None
            lists[d.result] = written
        elif not _integer_scalar(p):
            return None
    sequences: list[SequenceOutput] = []
    finals: list[FinalOutput] = []
    for o in op.output_descs():
        if used_only and not op.results[o.external].uses:
            continue
        v = results[o.result]
        if isinstance(o, ConcatOutput):
            seq = _sequence_output(o, v, const)
            if seq is None:
                return None
            sequences.append(seq)
        elif o.iteration != -1:
            return None
        elif o.result in lists:
            written = lists[o.result]
            if isinstance(written, SequenceOutput):
                sequences.append(SequenceOutput(o.external, written.value, 0, False))
            else:
                finals.append(FinalOutput(o.external, written.value, 0))
        else:
            finals.append(FinalOutput(o.external, v))
    return RecurrentLoop(op, x, axis, backwards, step, states, sequences, finals, const)


# ---------------------------------------------------------------------------
# The step input
# ---------------------------------------------------------------------------


def _full_slice(start: int, stride: int, end: int, part: int) -> bool:
    return part == 1 and (
        (stride == 1 and start == 0 and end == -1) or (stride == -1 and start == -1 and end == 0)
    )


def _sliced_step(body: _Body, d: InputSlice):
    """(X, time axis, backwards, step value) of a sliced step input."""
    x = body.op.operands[d.external]
    dims = dims_of(x.type)
    if dims is None or len(dims) != 3 or not _full_slice(d.start, d.stride, d.end, d.part_size):
        return None
    axis = d.axis % 3
    if axis == 2:
        return None
    p = body.params[d.parameter]
    users = [u.operation for u in p.uses]
    if len(users) != 1 or not removes_unit_axis(users[0], axis, body.const):
        return None
    return x, axis, d.stride == -1, users[0].results[0]


def _gathered_step(body: _Body):
    """(X, time axis, False, step value) of an invariant X Gathered at the
    iteration number."""
    found = None
    for p, outer in body.const.invariant.items():
        dims = dims_of(p.type)
        if dims is None or len(dims) != 3:
            continue
        users = [u.operation for u in p.uses]
        gathers = [u for u in users if isinstance(u, GatherOp) and u.operands[1] in body.iteration]
        if not gathers:
            continue
        if found is not None or len(gathers) != len(users) or len(gathers) != 1:
            return None
        g = gathers[0]
        axis_c = body.const(g.operands[2])
        if axis_c is None or axis_c.size != 1 or g.attr("batch_dims") or g.operands[0] is not p:
            return None
        axis = int(axis_c.reshape(-1)[0]) % 3
        if axis == 2:
            return None
        step = g.results[0]
        idx_dims = dims_of(g.operands[1].type)
        if idx_dims == [1]:
            nxt = [u.operation for u in step.uses]
            if len(nxt) != 1 or not removes_unit_axis(nxt[0], axis, body.const):
                return None
            step = nxt[0].results[0]
        elif idx_dims != []:
            return None
        found = (outer, axis, False, step)
    return found


def _source(x: SSAValue, axis: int, backwards: bool) -> tuple[SSAValue, int, bool]:
    """The tensor the sequence ``x`` (walked along ``axis``) is read from,
    through Transposes swapping time and batch and time reversals: (that
    tensor, its time axis, whether the walk is backwards on it)."""
    while True:
        tr = producer(x)
        perm = constant_value_of(tr.operands[1]) if isinstance(tr, TransposeOp) else None
        if perm is not None and perm.reshape(-1).tolist() == [1, 0, 2]:
            x, axis = tr.operands[0], 1 - axis  # type: ignore[union-attr]
            continue
        reversed_x = _time_reversed(x, axis)
        if reversed_x is None:
            return x, axis, backwards
        x, backwards = reversed_x, not backwards


def _time_reversed(x: SSAValue, axis: int) -> SSAValue | None:
    """The tensor ``x`` reverses along ``axis`` (None: ``x`` is no reversal)."""
    op = producer(x)
    if op is None or not op.operands:
        return None
    return op.operands[0] if is_reversal(op, axis, constant_value_of) else None


def _time_steps(x: SSAValue, axis: int) -> int | None:
    dims = dims_of(x.type)
    return dims[axis] if dims is not None and dims[axis] >= 0 else None


# ---------------------------------------------------------------------------
# Counters and the iteration count
# ---------------------------------------------------------------------------


def _integer_scalar(v: SSAValue) -> bool:
    """A carried integer scalar: a counter."""
    return et.of_tensor_type(v.type) in et.INTEGER_TYPES and _scalar_like(v)


def _scalar_like(v: SSAValue) -> bool:
    dims = dims_of(v.type)
    return dims is not None and (len(dims) == 0 or dims == [1])


def _int_value(c: np.ndarray | None) -> int | None:
    if c is None or c.size != 1:
        return None
    return int(np.asarray(c).reshape(-1)[0])


def _plus_one(v: SSAValue, const: BodyConstants) -> SSAValue | None:
    """``u`` when ``v`` is ``u + 1``."""
    op = producer(v)
    if not isinstance(op, AddOp):
        return None
    a, b = op.operands
    if _int_value(const(b)) == 1:
        return a
    if _int_value(const(a)) == 1:
        return b
    return None


def _iteration_values(op: LoopOp, params: list[SSAValue], results: list[SSAValue]) -> set[SSAValue]:
    """Body values equal to the iteration number: Loop's current-iteration
    parameter, carried counters starting at 0 with back edge ``+ 1``, and
    Converts of those."""
    out: set[SSAValue] = set()
    it = op.current_iteration_parameter()
    if it >= 0:
        out.add(params[it])
    const = BodyConstants({})
    for d in op.input_descs():
        if not isinstance(d, MergedInput):
            continue
        p = params[d.parameter]
        if (_integer_scalar(p) and _int_value(constant_value_of(op.operands[d.external])) == 0
                and _plus_one(results[d.result], const) is p):
            out.add(p)
    for v in list(out):
        out.update(u.operation.results[0] for u in v.uses if isinstance(u.operation, ConvertOp))
    return out


def _runs_over(body: _Body, x: SSAValue, axis: int, sliced: bool) -> bool:
    """Whether the Loop runs exactly once per step of ``x`` along ``axis``."""
    op = body.op
    assert isinstance(op, LoopOp)
    if not _all_true(constant_value_of(op.operands[1])):
        return False
    c = op.condition_result()
    if c < 0:
        return False
    bounds = _condition_bounds(body, body.results[c])
    if bounds is None:
        return False
    if _int_value(constant_value_of(op.operands[0])) != -1:
        bounds.append((op.operands[0], False))
    exact = sliced
    steps = _time_steps(x, axis)
    for v, inside in bounds:
        outer = body.const.invariant.get(v, v) if inside else v
        value = _int_value(constant_value_of(outer))
        if is_time_dim(outer, x, axis):
            exact = True
        elif value is None or steps is None or value < steps:
            return False
    return exact


def _all_true(c: np.ndarray | None) -> bool:
    return c is not None and c.size > 0 and bool(np.all(c))


def _condition_bounds(body: _Body, cond: SSAValue) -> list[tuple[SSAValue, bool]] | None:
    """The bounds ``L`` of a body condition that is constant true or a
    conjunction of ``i + 1 < L`` (``L > i + 1``), ``i`` the iteration number
    (each stops the loop after ``L`` iterations); as (value, in the body)."""
    if _all_true(body.const(cond)):
        return []
    op = producer(cond)
    if isinstance(op, LogicalAndOp):
        a, b = (_condition_bounds(body, v) for v in op.operands)
        return None if a is None or b is None else a + b
    if isinstance(op, LessOp):
        counted, bound = op.operands
    elif isinstance(op, GreaterOp):
        bound, counted = op.operands
    else:
        return None
    if _plus_one(counted, body.const) not in body.iteration:
        return None
    return [(bound, True)]


def is_time_dim(v: SSAValue, x: SSAValue, axis: int) -> bool:
    """Whether ``v`` (a scalar or one-element value) is dim ``axis`` of ``x``."""
    c = _int_value(constant_value_of(v))
    if c is not None:
        return c == _time_steps(x, axis)
    op = producer(v)
    while isinstance(op, ConvertOp | SqueezeOp | UnsqueezeOp | ReshapeOp):
        if not _scalar_like(op.operands[0]):
            return False
        v = op.operands[0]
        op = producer(v)
    if not isinstance(op, GatherOp) or op.attr("batch_dims"):
        return False
    idx, gax = constant_value_of(op.operands[1]), constant_value_of(op.operands[2])
    shape_of = producer(op.operands[0])
    if _int_value(idx) is None or _int_value(gax) != 0 or not isinstance(shape_of, ShapeOfOp):
        return False
    return _same_dim(shape_of.operands[0], _int_value(idx), x, axis)  # type: ignore[arg-type]


def _same_dim(t: SSAValue, a: int, x: SSAValue, b: int) -> bool:
    """Whether dim ``a`` of ``t`` is dim ``b`` of ``x`` (the same value, or
    through Transposes)."""

    def canon(v: SSAValue, k: int) -> tuple[SSAValue, int] | None:
        dims = dims_of(v.type)
        if dims is None or not -len(dims) <= k < len(dims):
            return None
        k %= len(dims)
        while isinstance(tr := producer(v), TransposeOp):
            perm = constant_value_of(tr.operands[1])
            if perm is None:
                break
            k, v = int(perm.reshape(-1)[k]), tr.operands[0]
        return v, k

    found = canon(t, a)
    return found is not None and found == canon(x, b)


# ---------------------------------------------------------------------------
# Outputs
# ---------------------------------------------------------------------------


def _sequence_output(o: ConcatOutput, v: SSAValue, const: BodyConstants) -> SequenceOutput | None:
    if not _full_slice(o.start, o.stride, o.end, o.part_size):
        return None
    dims = dims_of(v.type)
    if dims is None or len(dims) != 3:
        return None
    axis = o.axis % 3
    if axis == 2:
        return None
    op = producer(v)
    if op is None or not adds_unit_axis(op, axis, const):
        return None
    return SequenceOutput(o.external, op.operands[0], axis, o.stride == -1)


def _written_list(body: _Body, d: MergedInput, steps: int | None):
    """A carried list each iteration writes a value into (see the module
    docstring): a :class:`SequenceOutput` (every step's value, [T, B, H]) or
    a :class:`FinalOutput` (the last step's, [1, B, H]) of that value; None
    when the carried value is not such a list."""
    p = body.params[d.parameter]
    init = dims_of(body.op.operands[d.external].type)
    write = producer(body.results[d.result])
    if init is None or init[0] < 0 or not isinstance(write, ScatterUpdateOp):
        return None
    data, idx, update, axis = write.operands
    if _int_value(body.const(axis)) != 0 or dims_of(data.type) is None:
        return None
    # the list's values before the write do not matter (every slot is
    # overwritten), only its length: the parameter, maybe broadcast
    base = producer(data)
    if data is not p and not (isinstance(base, BroadcastOp | BroadcastOpset1Op)
                              and base.operands[0] is p):
        return None
    if (dims_of(data.type) or [-1])[0] != init[0]:
        return None
    others = [u.operation for u in p.uses if u.operation is not base]
    if any(not isinstance(u, ShapeOfOp) for u in others):
        return None
    source = producer(update)
    if source is None or not adds_unit_axis(source, 0, body.const):
        return None
    value = source.operands[0]
    if init[0] == 1 and _int_value(body.const(idx)) == 0:
        return FinalOutput(-1, value, 0)
    index = producer(idx)
    if (init[0] == steps and isinstance(index, ReshapeOp | UnsqueezeOp)
            and index.operands[0] in body.iteration and dims_of(idx.type) == [1]):
        return SequenceOutput(-1, value, 0, False)
    return None


__all__ = [
    "BodyConstants",
    "FinalOutput",
    "RecurrentLoop",
    "SequenceOutput",
    "State",
    "is_time_dim",
    "recurrent_loop",
]
