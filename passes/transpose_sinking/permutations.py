"""Permutations (the orders of Transposes) and reading them from ``ov`` IR.

An order ``p`` is a tuple of axes: ``Transpose(x, p)`` has ``p[i]`` of ``x``
as its axis ``i``. Used by transpose sinking and by the shape fusions of
``ov-fusions``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from xdsl.ir import Operation, SSAValue
from xmo.dialects.ov.base import constant_value_of, dims_of

Perm = tuple[int, ...]


def is_identity(p: Sequence[int]) -> bool:
    """Whether ``p`` keeps every axis in place."""
    return all(i == v for i, v in enumerate(p))


def inverse(p: Perm) -> Perm:
    """The order undoing ``p``: ``T(T(x, p), inverse(p)) == x``."""
    inv = [0] * len(p)
    for i, v in enumerate(p):
        inv[v] = i
    return tuple(inv)


def compose(p1: Perm, p2: Perm) -> Perm:
    """Order of ``T(T(x, p1), p2)`` as one Transpose of ``x``."""
    return tuple(p1[j] for j in p2)


def scatter(p: Perm, values: Sequence[Any], fill: Any) -> list[Any]:
    """Per-axis ``values`` of ``T(x, p)`` as per-axis values of ``x``:
    ``new[p[i]] = values[i]``."""
    out = [fill] * len(p)
    for i, v in enumerate(values):
        out[p[i]] = v
    return out


def order_after_removing(p: Perm, removed: set[int]) -> Perm:
    """``op`` removes the axes ``removed`` of ``T(x, p)``; the same op removing
    ``{p[a]}`` of ``x`` needs this order afterwards."""
    gone = {p[a] for a in removed}
    kept = [d for d in range(len(p)) if d not in gone]
    want = [p[i] for i in range(len(p)) if i not in removed]
    return tuple(kept.index(d) for d in want)


def rank(v: SSAValue) -> int | None:
    """Rank of ``v`` (None when unranked)."""
    d = dims_of(v.type)
    return None if d is None else len(d)


def const_ints(v: SSAValue | None) -> list[int] | None:
    """Values of an integer ``ov.Constant`` (flattened); None for anything else."""
    if v is None:
        return None
    arr = constant_value_of(v)
    if arr is None or arr.dtype.kind not in "iu":
        return None
    return [int(i) for i in arr.reshape(-1)]


def transpose_order(op: Operation) -> Perm | None:
    """The order of an ``ov.Transpose`` with a constant order and ranked input."""
    if op.name != "ov.Transpose" or len(op.operands) != 2:
        return None
    n = rank(op.operands[0])
    order = const_ints(op.operands[1])
    if n is None or order is None:
        return None
    if not order:
        order = list(range(n - 1, -1, -1))
    if sorted(order) != list(range(n)):
        return None
    return tuple(order)
