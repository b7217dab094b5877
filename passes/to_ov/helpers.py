"""Helpers shared by the converters of every frontend (append only)."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from xdsl.ir import SSAValue

from xmo.dialects.ov.base import dims_of
from xmo.passes.to_ov.builder import Builder, ConverterNode, value_etype

_I64_MAX = int(np.iinfo(np.int64).max)


def rank_of(node: ConverterNode, v: SSAValue, what: str = "input") -> int:
    """Static rank of ``v`` (the node is unsupported when the rank is dynamic)."""
    s = dims_of(v.type)
    if s is None:
        raise node.unsupported(f"{what} of dynamic rank")
    return len(s)


def norm_axis(node: ConverterNode, axis: int, rank: int) -> int:
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


# -- cumulative product (ONNX CumProd, TF Cumprod) -------------------------------------

#: longest axis a cumulative product unrolls into slices (longer: the log form)
CUMPROD_UNROLL_LIMIT = 512


def cumprod(node: ConverterNode, b: Builder, exclusive: bool, reverse: bool) -> SSAValue:
    """Cumulative product of input 0 along the axis of input 1 (a scalar), as
    ONNX ``CumProd`` and TensorFlow ``Cumprod`` define it (same inputs, same
    ``exclusive`` / ``reverse`` meaning); OpenVINO has no such op."""
    x = node.input(0)
    r = rank_of(node, x)
    if node.const(1) is not None:
        vals = node.const_ints(1, "axis")
        if len(vals) != 1:
            raise node.unsupported("axis must hold one value")
        return _cumprod_axis(node, b, x, norm_axis(node, vals[0], r), exclusive, reverse)
    # runtime axis: one running product per possible axis, picked by the axis value
    dims = dims_of(x.type)
    assert dims is not None
    if any(d < 0 for d in dims) or sum(dims) > CUMPROD_UNROLL_LIMIT:
        raise node.unsupported("runtime axis needs static, small input dims")
    axis = b.convert(b.reshape(node.input(1), []), "i64")
    axis = b.out("FloorMod", [axis, b.i64(r)])
    y = None
    for a in range(r):
        ya = _cumprod_axis(node, b, x, a, exclusive, reverse)
        y = ya if y is None else b.out("Select", [b.out("Equal", [axis, b.i64(a)]), ya, y])
    assert y is not None
    return y


def _cumprod_axis(
    node: ConverterNode, b: Builder, x: SSAValue, axis: int, exclusive: bool, reverse: bool
) -> SSAValue:
    dims = dims_of(x.type)
    assert dims is not None
    n = dims[axis]
    if reverse:
        x = reverse_axis(b, x, axis)
    if 0 <= n <= CUMPROD_UNROLL_LIMIT:
        # exact for every element type: a running product over the slices
        parts = []
        acc = None
        for i in range(n):
            s = slice_axis(b, x, i, i + 1, axis)
            acc = s if acc is None else b.out("Multiply", [acc, s])
            parts.append(acc)
        if exclusive and n:
            first = slice_axis(b, x, 0, 1, axis)
            one = b.out("Broadcast", [scalar(b, 1, value_etype(x)), b.shape_of(first)])
            parts = [one, *parts[:-1]]
        y = b.concat(parts, axis) if n else x
    else:
        y = _cumprod_log(node, b, x, axis, exclusive)
    if reverse:
        y = reverse_axis(b, y, axis)
    return y


def _cumprod_log(node: ConverterNode, b: Builder, x: SSAValue, axis: int, exclusive: bool) -> SSAValue:
    """Float cumulative product through exp(cumsum(log|x|)) with sign and zero counts."""
    t = value_etype(x)
    if t not in ("f16", "bf16", "f32", "f64"):
        raise node.unsupported("integer cumulative product over a dynamic or long axis")
    ax = b.i64(axis)
    attrs = {"exclusive": exclusive, "reverse": False}
    zero, one = scalar(b, 0, t), scalar(b, 1, t)
    is_zero = b.out("Equal", [x, zero])
    mag = b.out("Select", [is_zero, one, b.out("Abs", [x])])
    logs = b.out("CumSum", [b.out("Log", [mag]), ax], attrs)
    negs = b.out("CumSum", [b.convert(b.out("Less", [x, zero]), t), ax], attrs)
    zeros = b.out("CumSum", [b.convert(is_zero, t), ax], attrs)
    odd = b.out("Equal", [b.out("FloorMod", [negs, scalar(b, 2, t)]), one])
    y = b.out("Exp", [logs])
    y = b.out("Select", [odd, b.out("Negative", [y]), y])
    return b.out("Select", [b.out("Greater", [zeros, zero]), zero, y])


# -- matrices -------------------------------------------------------------------------------


def col_minus_row(b: Builder, x: SSAValue, rank: int) -> SSAValue:
    """``j - i`` for every element ``(i, j)`` of the last two axes of ``x``
    (rank >= 2): an i64 ``[rows, cols]`` matrix (dynamic dims allowed), what
    band masks (ONNX ``Trilu``, TF ``MatrixBandPart``) compare."""
    shape = b.shape_of(x)
    rows = b.reshape(b.gather(shape, [rank - 2], 0), [])
    cols = b.reshape(b.gather(shape, [rank - 1], 0), [])
    ri = b.out("Range", [b.i64(0), rows, b.i64(1)], {"output_type": "i64"})
    ci = b.out("Range", [b.i64(0), cols, b.i64(1)], {"output_type": "i64"})
    return b.out("Subtract", [b.unsqueeze(ci, [0]), b.unsqueeze(ri, [1])])


# -- non-maximum suppression --------------------------------------------------------------

#: smallest positive normal f32 (CPU kernels may flush denormals)
_TINY = float(np.finfo(np.float32).tiny)


def strict_iou_threshold(
    b: Builder, const: np.ndarray | None, runtime: SSAValue | None, etype: str = "f32"
) -> SSAValue:
    """The ``iou_threshold`` of OpenVINO's NonMaxSuppression for a framework
    that suppresses a box when IoU > threshold (ONNX, TensorFlow): OpenVINO
    suppresses when IoU >= threshold, so the threshold moves up by one f32 ulp
    -- exactly for a constant (``const``), through ``t + max(|t| * c, tiny)``
    for a scalar computed at run time (``runtime``), ``c`` a little above
    2**-24 so that the step is above half an ulp even for a power of two
    (where exactly half an ulp would round back to ``t``)."""
    if const is not None:
        t = np.float32(np.asarray(const).reshape(-1)[0])
        up = np.nextafter(t, np.float32(np.inf), dtype=np.float32)
        return scalar(b, float(max(up, np.float32(_TINY)) if t >= 0 else up), etype)
    assert runtime is not None
    t = runtime
    step = b.out("Multiply", [b.out("Abs", [t]), scalar(b, 2.0**-24 * (1 + 2.0**-22), etype)])
    step = b.out("Maximum", [step, scalar(b, _TINY, etype)])
    return b.out("Add", [t, step])


def valid_rows(b: Builder, selected: SSAValue, valid: SSAValue) -> SSAValue:
    """The first ``valid`` (an i64 ``[1]``) rows of a NonMaxSuppression output
    (a plugin may pad its outputs)."""
    return b.out("Slice", [selected, b.i64([0]), valid, b.i64([1]), b.i64([0])])
