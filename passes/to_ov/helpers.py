"""Helpers shared by the converters of every frontend (append only)."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from xdsl.ir import SSAValue

from xmo.dialects.ov.base import dims_of
from xmo.passes.to_ov.builder import Builder, NodeBase, value_etype

_I64_MAX = int(np.iinfo(np.int64).max)


def rank_of(node: NodeBase, v: SSAValue, what: str = "input") -> int:
    """Static rank of ``v`` (the node is unsupported when the rank is dynamic)."""
    s = dims_of(v.type)
    if s is None:
        raise node.unsupported(f"{what} of dynamic rank")
    return len(s)


def norm_axis(node: NodeBase, axis: int, rank: int) -> int:
    """ONNX ``axis`` in ``[-rank, rank)`` -> ``[0, rank)``."""
    axis = int(axis)
    if not -rank <= axis < rank:
        raise node.unsupported(f"axis {axis} is out of range for rank {rank}")
    return axis + rank if axis < 0 else axis


def scalar(b: Builder, value: float | int, etype: str) -> SSAValue:
    """A scalar constant of element type ``etype`` (bf16 through f32 + Convert)."""
    if etype == "bf16":
        return b.convert(b.const(np.asarray(value, dtype=np.float32), "f32"), "bf16")
    from xmo.dialects.ov import element_types as et

    return b.const(np.asarray(value, dtype=et.numpy_dtype(etype)), etype)


def reverse_axis(b: Builder, v: SSAValue, axis: int) -> SSAValue:
    """``v`` reversed along ``axis`` (a Slice with step -1)."""
    return b.out(
        "Slice", [v, b.i64([-1]), b.i64([-_I64_MAX]), b.i64([-1]), b.i64([axis])]
    )


def slice_axis(b: Builder, v: SSAValue, start: int, stop: int, axis: int) -> SSAValue:
    """``v[start:stop]`` along ``axis``."""
    return b.out("Slice", [v, b.i64([start]), b.i64([stop]), b.i64([1]), b.i64([axis])])


def dim_of(b: Builder, v: SSAValue, axis: int, scalar_out: bool = False) -> SSAValue:
    """``shape(v)[axis]`` as an i64 ``[1]`` vector (or a scalar)."""
    d = b.gather(b.shape_of(v), [axis], 0)
    return b.reshape(d, []) if scalar_out else d


def broadcast_along(b: Builder, v: SSAValue, axis: int, rank: int) -> SSAValue:
    """A 1-D ``[C]`` tensor reshaped to ``[C, 1, ...]`` so that it broadcasts
    along ``axis`` of a rank-``rank`` tensor (numpy rules)."""
    n = rank - axis - 1
    if n == 0:
        return v
    return b.reshape(v, [-1] + [1] * n)


def upcast_float(b: Builder, v: SSAValue) -> tuple[SSAValue, str]:
    """``v`` converted to f32 when it is f16/bf16; returns (value, original etype)."""
    t = value_etype(v)
    if t in ("f16", "bf16"):
        return b.convert(v, "f32"), t
    return v, t


def all_axes(b: Builder, v: SSAValue) -> SSAValue:
    """``range(rank(v))`` as an i64 vector (constant when the rank is static)."""
    s = dims_of(v.type)
    if s is not None:
        return b.i64(list(range(len(s))))
    rank = b.shape_of(b.shape_of(v))
    return b.out(
        "Range",
        [b.i64(0), b.reshape(rank, []), b.i64(1)],
        {"output_type": "i64"},
    )


def range_axes(b: Builder, start: int, rank: int) -> SSAValue:
    return b.i64(list(range(start, rank)))


def as_list(values: Sequence[int] | None) -> list[int]:
    return [] if values is None else [int(v) for v in values]


def einsum_shape(equation: str, shapes: list[list[int] | None]) -> list[int] | None:
    """Output dims of an einsum (explicit or implicit form); None if unknown rank."""
    eq = equation.replace(" ", "")
    lhs, _, rhs = eq.partition("->")
    terms = lhs.split(",")
    if any(s is None for s in shapes):
        return None
    dims: dict[str, int] = {}
    ell: list[int] = []
    counts: dict[str, int] = {}

    def merge(a: int, c: int) -> int:
        if a == 1 or a < 0:
            return c if a == 1 or c >= 0 else a
        return a

    for term, shape in zip(terms, shapes):
        assert shape is not None
        if "..." in term:
            pre, post = term.split("...")
            n_ell = len(shape) - len(pre) - len(post)
            labels = list(pre) + [None] * n_ell + list(post)
        else:
            labels = list(term)
        e_dims = [d for lab, d in zip(labels, shape) if lab is None]
        # broadcast ellipsis dims (right-aligned)
        if len(e_dims) > len(ell):
            ell = [1] * (len(e_dims) - len(ell)) + ell
        off = len(ell) - len(e_dims)
        for i, d in enumerate(e_dims):
            ell[off + i] = merge(ell[off + i], d)
        for lab, d in zip(labels, shape):
            if lab is None:
                continue
            counts[lab] = counts.get(lab, 0) + 1
            dims[lab] = merge(dims.get(lab, 1), d) if lab in dims else d
    if not _:
        rhs = ("..." if ell or "..." in lhs else "") + "".join(
            sorted(k for k, v in counts.items() if v == 1)
        )
    out: list[int] = []
    if "..." in rhs:
        pre, post = rhs.split("...")
        return [dims[c] for c in pre] + ell + [dims[c] for c in post]
    return out + [dims[c] for c in rhs]
