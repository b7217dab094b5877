"""Building the Sequence op that stands for a recognised recurrent loop.

OpenVINO's ``LSTMSequence`` / ``GRUSequence`` / ``RNNSequence`` (opset 5)
take ``X [B, T, I]``, initial states ``[B, dirs, H]``, ``sequence_lengths
[B]`` (i32) and ``W [dirs, gates*H, I]``, ``R [dirs, gates*H, H]``, ``B
[dirs, gates*H]``, and give ``Y [B, dirs, T, H]`` (in the input's time order
whatever the direction), ``Ho`` (and ``Co``) ``[B, dirs, H]``.

:func:`build_sequence` makes, before the loop, the batch-major input (the
time-major ``X`` a Transpose made is read at its source), the states with
the direction axis, the full sequence lengths (constant when the dims are,
else from ``ShapeOf(X)``), the weights, the op, and for each output of the
loop that is used the value standing for it: ``Y`` without the direction
axis, transposed back to time major and reversed in time as the loop's
output is laid out; ``Ho`` / ``Co`` without it.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from xdsl.ir import Operation, SSAValue

from xmo.dialects.ov import element_types as et
from xmo.dialects.ov.base import OVOp, constant_value_of, dims_of, tensor
from xmo.dialects.ov.ops import TransposeOp
from xmo.passes.loop_to_sequence.plan import Plan
from xmo.passes.to_ov.builder import Builder

#: the Sequence op of each cell kind
SEQUENCE_TYPES = {"lstm": "LSTMSequence", "gru": "GRUSequence", "rnn": "RNNSequence"}
_I64_MAX = np.iinfo(np.int64).max


@dataclass(frozen=True)
class Replacement:
    """The ops to insert before the loop, and the value for each loop output used."""

    ops: list[Operation]
    sequence: OVOp
    values: dict[int, SSAValue]


def batch_major(b: Builder, x: SSAValue, time_axis: int) -> SSAValue:
    """``x`` as [B, T, I]: itself (time axis 1), else the source of the
    Transpose that made it time major, else a new Transpose."""
    if time_axis == 1:
        return x
    tr = x.owner
    if isinstance(tr, TransposeOp):
        perm = constant_value_of(tr.operands[1])
        if perm is not None and perm.reshape(-1).tolist() == [1, 0, 2]:
            return tr.operands[0]
    return b.out("Transpose", [x, b.i64([1, 0, 2])])


def _lengths(b: Builder, xb: SSAValue) -> SSAValue:
    """Every batch entry's sequence length, the whole time axis of ``xb``."""
    dims = dims_of(xb.type) or [-1, -1, -1]
    if dims[0] >= 0 and dims[1] >= 0:
        return b.const(np.full([dims[0]], dims[1], np.int32), "i32")
    shape = b.shape_of(xb)
    t = b.const(np.asarray([dims[1]], np.int32), "i32") if dims[1] >= 0 else b.convert(
        b.gather(shape, [1], 0), "i32"
    )
    return b.out("Broadcast", [t, b.gather(shape, [0], 0)], {"mode": "numpy"})


def _with_direction(b: Builder, v: SSAValue) -> SSAValue:
    return b.unsqueeze(v, [1])


def _reverse_time(b: Builder, v: SSAValue, axis: int) -> SSAValue:
    return b.out("Slice", [v, b.i64([-1]), b.i64([-_I64_MAX]), b.i64([-1]), b.i64([axis])])


def build_sequence(b: Builder, plan: Plan) -> Replacement | None:
    """The Sequence op standing for ``plan``'s loop, or None when the input's
    type is not known well enough."""
    loop, cell, h, c = plan.loop, plan.cell, plan.h, plan.c
    roles: dict[int, tuple[int, int | None]] = {  # output -> (Sequence op output, unit axis)
        f.external: (1 if f.value is h.new else 2, f.unit_axis) for f in loop.finals
    }
    xb = batch_major(b, loop.sequence, loop.time_axis)
    etype = et.of_tensor_type(xb.type)
    xdims = dims_of(xb.type)
    if etype is None or xdims is None:
        return None
    batch, steps = xdims[0], xdims[1]
    hs = cell.hidden
    states = [_with_direction(b, h.initial)]
    if c is not None:
        states.append(_with_direction(b, c.initial))
    lengths = _lengths(b, xb)
    weights = [b.const(np.expand_dims(a, 0).astype(et.numpy_dtype(etype)), etype)
               for a in (cell.w, cell.r, cell.b)]
    attrs = {
        "direction": "reverse" if loop.backwards else "forward",
        "hidden_size": hs,
        "activations": cell.activations,
        "clip": 0.0,
    }
    if cell.kind == "gru":
        attrs["linear_before_reset"] = cell.linear_before_reset
    state_t = tensor(etype, [batch, 1, hs])
    types = [tensor(etype, [batch, 1, steps, hs]), state_t] + ([state_t] if c is not None else [])
    seq = b.op(
        SEQUENCE_TYPES[cell.kind], [xb, states[0], *states[1:], lengths, *weights], attrs,
        result_types=types,
    )
    values: dict[int, SSAValue] = {}
    for s in loop.sequences:
        y = b.squeeze(seq.results[0], [1])  # [B, T, H]
        if s.reversed != loop.backwards:
            y = _reverse_time(b, y, 1)
        if s.axis == 0:
            y = b.out("Transpose", [y, b.i64([1, 0, 2])])
        values[s.external] = y
    for k, (result, unit_axis) in roles.items():
        values[k] = b.squeeze(seq.results[result], [1])
        if unit_axis is not None:
            values[k] = b.unsqueeze(values[k], [unit_axis])
    return Replacement(b.ops, seq, values)


__all__ = ["Replacement", "SEQUENCE_TYPES", "batch_major", "build_sequence"]
