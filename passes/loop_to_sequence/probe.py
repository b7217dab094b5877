"""What an indexing op does to positions, found by running it.

Frameworks cut gates, slice time steps and reverse sequences with many ops
(Split, VariadicSplit, StridedSlice with masks, Slice, Gather, Squeeze,
Reshape...). Rather than restating the semantics of each, :func:`index_map`
runs the op's CPU kernel on a *probe*: its data input replaced by the
positions ``0, 1, 2...`` of a tensor of the input's shape (dynamic dims
taken as 2, then as 3, so that a bound that only fits one size shows), its
other inputs constants. The output then says which input element each output
element is, and the questions the pass asks are answered on that:
:func:`columns` (which positions of the last axis an op keeps, every other
axis untouched), :func:`is_reversal` (a full reversal of one axis) and
:func:`removes_unit_axis` / :func:`adds_unit_axis` (a Squeeze /
Unsqueeze / Reshape dropping or adding one unit axis).
"""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np
from xdsl.ir import Operation, SSAValue

from xmo.dialects.ov import element_types as et
from xmo.dialects.ov.base import OVOp, dims_of

#: op families that only move (select, repeat, reorder) elements: the ops
#: probing may take for selections (an op computing on values, e.g. Relu,
#: could pass for one on the non-negative positions of a probe)
MOVES_DATA = frozenset({"indexing", "shape_ops"})
#: most elements of a probe
MAX_PROBE = 1 << 20
#: dynamic dims are given these sizes, one probe each
DYNAMIC_SIZES = (2, 3)
#: largest position each element type represents exactly
_EXACT = {"f16": 2048, "bf16": 256, "f32": 1 << 24, "f64": 1 << 53}

Resolve = Callable[[SSAValue], "np.ndarray | None"]


def index_map(
    op: Operation, result: int, const: Resolve, operand: int = 0
) -> list[tuple[np.ndarray, np.ndarray]] | None:
    """[(probe, output)] for each probe of operand ``operand`` of ``op``
    (every other operand must be a constant ``const`` resolves); None when
    the op cannot be probed (not an op of :data:`MOVES_DATA`, no kernel,
    not constant, too large, an element type that cannot count that far)."""
    from xmo.backends.cpu import KERNEL_INPUT_ERRORS, evaluate_op, kernel_for

    if not isinstance(op, OVOp) or op.OV_FAMILY not in MOVES_DATA or op.regions:
        return None
    if kernel_for(op.name) is None:
        return None
    dims = dims_of(op.operands[operand].type)
    etype = et.of_tensor_type(op.results[result].type)
    if dims is None or etype is None:
        return None
    others: list[np.ndarray | None] = []
    for i, v in enumerate(op.operands):
        if i == operand:
            others.append(None)
            continue
        c = const(v)
        if c is None:
            return None
        others.append(c)
    sizes = DYNAMIC_SIZES if any(d < 0 for d in dims) else DYNAMIC_SIZES[:1]
    runs = []
    for s in sizes:
        shape = [s if d < 0 else d for d in dims]
        n = math.prod(shape)
        if n > MAX_PROBE or n > _EXACT.get(etype, 1 << 62):
            return None
        dtype = et.numpy_dtype(et.of_tensor_type(op.operands[operand].type) or etype)
        probe = np.arange(n).reshape(shape).astype(dtype)
        ins = [probe if a is None else a for a in others]
        try:
            out = evaluate_op(op, ins)[result]
        except KERNEL_INPUT_ERRORS:
            return None
        runs.append((np.asarray(probe, np.int64), np.asarray(out).astype(np.int64)))
    return runs


def columns(op: Operation, result: int, const: Resolve) -> np.ndarray | None:
    """The positions of the last axis that result ``result`` of ``op`` keeps
    (in order) when it keeps every other axis as it is; else None."""
    runs = index_map(op, result, const)
    if runs is None:
        return None
    cols = None
    for probe, out in runs:
        if out.ndim != probe.ndim or out.shape[:-1] != probe.shape[:-1] or out.ndim == 0:
            return None
        first = out.reshape(-1, out.shape[-1])[0] if out.size else out.reshape(-1)
        if np.any(first < 0) or np.any(first >= probe.shape[-1]):
            return None
        if not np.array_equal(out, probe[..., first]):
            return None
        if cols is not None and not np.array_equal(cols, first):
            return None
        cols = first
    return cols


def is_reversal(op: Operation, axis: int, const: Resolve) -> bool:
    """Whether result 0 of ``op`` is its first input reversed along ``axis``."""
    runs = index_map(op, 0, const)
    return runs is not None and all(
        out.shape == probe.shape and np.array_equal(out, np.flip(probe, axis))
        for probe, out in runs
    )


def removes_unit_axis(op: Operation, axis: int, const: Resolve) -> bool:
    """Whether result 0 of ``op`` is its first input without the unit axis ``axis``."""
    runs = index_map(op, 0, const)
    return runs is not None and all(
        probe.shape[axis] == 1 and np.array_equal(out, np.squeeze(probe, axis))
        for probe, out in runs
    )


def adds_unit_axis(op: Operation, axis: int, const: Resolve) -> bool:
    """Whether result 0 of ``op`` is its first input with a unit axis inserted at ``axis``."""
    runs = index_map(op, 0, const)
    return runs is not None and all(
        np.array_equal(out, np.expand_dims(probe, axis)) and out.shape[axis] == 1
        for probe, out in runs
    )


def producer(v: SSAValue) -> OVOp | None:
    """The ov op making ``v`` (None for a block argument)."""
    owner = v.owner
    return owner if isinstance(owner, OVOp) else None


__all__ = [
    "MAX_PROBE",
    "MOVES_DATA",
    "Resolve",
    "adds_unit_axis",
    "columns",
    "index_map",
    "is_reversal",
    "producer",
    "removes_unit_axis",
]
