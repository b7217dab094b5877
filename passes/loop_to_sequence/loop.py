"""The shape of a recurrent loop: an ``ov.TensorIterator`` or ``ov.Loop`` that
walks one sequence a time step per iteration, carrying states.

:func:`recurrent_loop` reads the op's port maps and body into a
:class:`RecurrentLoop`, or says no:

* **the step input**: one input ``X`` of rank 3 walked along axis 0 or 1
  (the other is the batch), one step per iteration, from its start or from
  its end -- a sliced input (part size 1, stride 1 or -1, the whole axis)
  whose body parameter only feeds a Squeeze / Reshape dropping the unit
  axis, or (Loop) an invariant input the body Gathers at the iteration
  number (Loop's current-iteration parameter, or a carried counter starting
  at 0 and stepping by 1). ``X`` that is itself the time reversal of a
  tensor (TensorFlow's ``ReverseV2``, Keras' ``go_backwards``) is read as
  that tensor walked from its end;
* **the states**: the carried (merged) float inputs of rank 2; other carried
  inputs must be integer counters (what they compute is not an output);
* **the outputs**: a concatenated output of a state's new value with a unit
  axis added at the concatenation axis (every step's h), or the last
  iteration's value of a body value; outputs nobody uses are ignored;
* **the iteration count** is the sequence length: a TensorIterator's is;
  a Loop's execution and body conditions must be constant true and its trip
  count -1 (sliced input) or the time dim of ``X`` (a constant, or
  ``ShapeOf(X)[axis]`` looking through Transposes).

Body values resolve to constants through invariant inputs
(:meth:`RecurrentLoop.const`): weights may be body constants or outer
constants fed in.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from xdsl.ir import SSAValue

from xmo.dialects.ov.base import constant_value_of, dims_of
from xmo.dialects.ov.control_ops import (
    LoopOp,
    TensorIteratorOp,
    body_parameters,
    body_results,
)
from xmo.dialects.ov import element_types as et
from xmo.dialects.ov.ops import (
    AddOp,
    ConvertOp,
    GatherOp,
    ReshapeOp,
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
    """Output ``external``: body value ``value`` of the last iteration."""

    external: int
    value: SSAValue


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


def _all_true(c: np.ndarray | None) -> bool:
    return c is not None and c.size > 0 and bool(np.all(c))


def _time_reversed(x: SSAValue, axis: int) -> SSAValue | None:
    """The tensor ``x`` reverses along ``axis`` (None: ``x`` is no reversal)."""
    op = producer(x)
    if op is None or not op.operands:
        return None
    return op.operands[0] if is_reversal(op, axis, constant_value_of) else None


def recurrent_loop(op: LoopOp | TensorIteratorOp) -> RecurrentLoop | None:
    """``op`` as a recurrent loop (see the module docstring), or None."""
    params = [p.results[0] for p in body_parameters(op.body)]
    results = [r.operands[0] for r in body_results(op.body)]
    descs = op.input_descs()
    invariant = {
        params[d.parameter]: op.operands[d.external]
        for d in descs if isinstance(d, InvariantInput)
    }
    const = BodyConstants(invariant)
    slices = [d for d in descs if isinstance(d, InputSlice)]
    counters = {
        params[d.parameter] for d in descs
        if isinstance(d, MergedInput) and _integer_scalar(params[d.parameter])
    }
    if len(slices) > 1:
        return None
    if slices:
        found = _sliced_step(op, params, slices[0], const)
    elif isinstance(op, LoopOp):
        found = _gathered_step(op, params, invariant, counters, const)
    else:
        found = None
    if found is None:
        return None
    x, axis, backwards, step = found
    if isinstance(op, LoopOp) and not _runs_over(op, x, axis, results, const, bool(slices)):
        return None
    reversed_x = _time_reversed(x, axis)
    if reversed_x is not None:
        x, backwards = reversed_x, not backwards

    states: list[State] = []
    for d in descs:
        if not isinstance(d, MergedInput):
            continue
        p = params[d.parameter]
        etype = et.of_tensor_type(p.type)
        dims = dims_of(p.type)
        if etype in et.FLOAT_TYPES and dims is not None and len(dims) == 2:
            states.append(State(p, op.operands[d.external], results[d.result]))
        elif p not in counters:
            return None
    sequences: list[SequenceOutput] = []
    finals: list[FinalOutput] = []
    for o in op.output_descs():
        if not op.results[o.external].uses:
            continue
        v = results[o.result]
        if isinstance(o, LastOutput):
            if o.iteration != -1:
                return None
            finals.append(FinalOutput(o.external, v))
            continue
        seq = _sequence_output(o, v, const)
        if seq is None:
            return None
        sequences.append(seq)
    return RecurrentLoop(op, x, axis, backwards, step, states, sequences, finals, const)


def _full_slice(start: int, stride: int, end: int, part: int) -> bool:
    return part == 1 and (
        (stride == 1 and start == 0 and end == -1) or (stride == -1 and start == -1 and end == 0)
    )


def _sliced_step(op, params, d: InputSlice, const):
    """(X, time axis, backwards, step value) of a sliced step input."""
    x = op.operands[d.external]
    dims = dims_of(x.type)
    if dims is None or len(dims) != 3 or not _full_slice(d.start, d.stride, d.end, d.part_size):
        return None
    axis = d.axis % 3
    if axis == 2:
        return None
    p = params[d.parameter]
    users = [u.operation for u in p.uses]
    if len(users) != 1 or not removes_unit_axis(users[0], axis, const):
        return None
    return x, axis, d.stride == -1, users[0].results[0]


def _integer_scalar(v: SSAValue) -> bool:
    """A carried integer scalar: a counter (nothing it computes is an output
    of the cell; :func:`_iteration_values` finds the iteration number among them)."""
    return et.of_tensor_type(v.type) in et.INTEGER_TYPES and _scalar_like(v)


def _scalar_like(v: SSAValue) -> bool:
    dims = dims_of(v.type)
    return dims is not None and (len(dims) == 0 or dims == [1])


def _iteration_values(op: LoopOp, params, counters, const) -> set[SSAValue]:
    """Body values equal to the iteration number: Loop's current-iteration
    parameter, and carried counters starting at 0 with back edge ``+ 1``."""
    out: set[SSAValue] = set()
    it = op.current_iteration_parameter()
    if it >= 0:
        out.add(params[it])
    results = [r.operands[0] for r in body_results(op.body)]
    for d in op.input_descs():
        if not isinstance(d, MergedInput) or params[d.parameter] not in counters:
            continue
        init = constant_value_of(op.operands[d.external])
        if init is None or init.size != 1 or int(init.reshape(-1)[0]) != 0:
            continue
        back = producer(results[d.result])
        p = params[d.parameter]
        if isinstance(back, AddOp) and any(
            a is p and _is_one(const(b)) for a, b in (back.operands, back.operands[::-1])
        ):
            out.add(p)
    # Converts of those are the iteration number too
    for v in list(out):
        out.update(u.operation.results[0] for u in v.uses if isinstance(u.operation, ConvertOp))
    return out


def _is_one(c: np.ndarray | None) -> bool:
    return c is not None and c.size == 1 and int(np.asarray(c).reshape(-1)[0]) == 1


def _gathered_step(op: LoopOp, params, invariant, counters, const):
    """(X, time axis, False, step value) of an invariant X Gathered at the
    iteration number."""
    iteration = _iteration_values(op, params, counters, const)
    found = None
    for p, outer in invariant.items():
        dims = dims_of(p.type)
        if dims is None or len(dims) != 3:
            continue
        users = [u.operation for u in p.uses]
        gathers = [u for u in users if isinstance(u, GatherOp) and u.operands[1] in iteration]
        if not gathers:
            continue
        if found is not None or len(gathers) != len(users) or len(gathers) != 1:
            return None
        g = gathers[0]
        axis_c = const(g.operands[2])
        if axis_c is None or axis_c.size != 1 or g.attr("batch_dims"):
            return None
        axis = int(axis_c.reshape(-1)[0]) % 3
        if axis == 2 or g.operands[0] is not p:
            return None
        step = g.results[0]
        idx_dims = dims_of(g.operands[1].type)
        if idx_dims == [1]:
            nxt = [u.operation for u in step.uses]
            if len(nxt) != 1 or not removes_unit_axis(nxt[0], axis, const):
                return None
            step = nxt[0].results[0]
        elif idx_dims != []:
            return None
        found = (outer, axis, False, step)
    return found


def _runs_over(op: LoopOp, x: SSAValue, axis: int, results, const, sliced: bool) -> bool:
    """Whether the Loop runs once per step of ``x`` along ``axis``."""
    if not _all_true(constant_value_of(op.operands[1])):
        return False
    c = op.condition_result()
    if c < 0 or not _all_true(const(results[c])):
        return False
    trip = op.operands[0]
    tc = constant_value_of(trip)
    if sliced and tc is not None and tc.size == 1 and int(tc.reshape(-1)[0]) == -1:
        return True
    return is_time_dim(trip, x, axis)


def is_time_dim(v: SSAValue, x: SSAValue, axis: int) -> bool:
    """Whether ``v`` (a scalar or one-element value) is dim ``axis`` of ``x``."""
    c = constant_value_of(v)
    if c is not None:
        dims = dims_of(x.type)
        return (c.size == 1 and dims is not None and dims[axis] >= 0
                and int(c.reshape(-1)[0]) == dims[axis])
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
    if idx is None or idx.size != 1 or gax is None or int(gax.reshape(-1)[0]) != 0:
        return False
    if not isinstance(shape_of, ShapeOfOp):
        return False
    return _same_dim(shape_of.operands[0], int(idx.reshape(-1)[0]), x, axis)


def _same_dim(t: SSAValue, a: int, x: SSAValue, b: int) -> bool:
    """Whether dim ``a`` of ``t`` is dim ``b`` of ``x`` (the same value, or
    through Transposes)."""
    for v, k in ((t, a), (x, b)):
        dims = dims_of(v.type)
        if dims is None or not -len(dims) <= k < len(dims):
            return False

    def canon(v: SSAValue, k: int) -> tuple[SSAValue, int]:
        k %= len(dims_of(v.type) or [0])
        while isinstance(tr := producer(v), TransposeOp):
            perm = constant_value_of(tr.operands[1])
            if perm is None:
                break
            k, v = int(perm.reshape(-1)[k]), tr.operands[0]
        return v, k

    return canon(t, a) == canon(x, b)


def _sequence_output(o: ConcatOutput, v: SSAValue, const) -> SequenceOutput | None:
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


__all__ = [
    "BodyConstants",
    "FinalOutput",
    "RecurrentLoop",
    "SequenceOutput",
    "State",
    "is_time_dim",
    "recurrent_loop",
]
