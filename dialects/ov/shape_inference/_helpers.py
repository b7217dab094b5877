"""Helpers shared by the shape inference families.

Shapes are ``list[int]`` with :data:`DYN` (``-1``) for a dynamic dimension, or
``None`` for a dynamic rank. Every helper that can fail takes the
:class:`InferContext` so that errors name the op.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from typing import Any

import numpy as np
from xdsl.ir import Attribute

from xmo.dialects.ov import element_types as et
from xmo.dialects.ov.base import DYN, InferContext, tensor

Shape = list[int] | None


# ---------------------------------------------------------------------------
# Dimensions
# ---------------------------------------------------------------------------


def is_static(d: int) -> bool:
    return d >= 0


def all_static(shape: Shape) -> bool:
    return shape is not None and all(d >= 0 for d in shape)


def fmt_shape(shape: Shape) -> str:
    if shape is None:
        return "[...]"
    return "[" + ",".join("?" if d < 0 else str(d) for d in shape) + "]"


def merge_dim(ctx: InferContext, a: int, b: int, what: str) -> int:
    """The dimension both ``a`` and ``b`` describe (they must agree when static)."""
    if a < 0:
        return b
    if b < 0 or a == b:
        return a
    raise ctx.error(f"{what}: dimensions {a} and {b} do not match")


def merge_shapes(ctx: InferContext, a: Shape, b: Shape, what: str) -> Shape:
    """The shape both ``a`` and ``b`` describe (same rank, compatible dims)."""
    if a is None:
        return None if b is None else list(b)
    if b is None:
        return list(a)
    if len(a) != len(b):
        raise ctx.error(
            f"{what}: shapes {fmt_shape(a)} and {fmt_shape(b)} have different ranks"
        )
    return [merge_dim(ctx, x, y, what) for x, y in zip(a, b)]


def dim_add(*ds: int) -> int:
    return DYN if any(d < 0 for d in ds) else sum(ds)


def dim_mul(*ds: int) -> int:
    return DYN if any(d < 0 for d in ds) else math.prod(ds)


def num_elements(shape: Sequence[int]) -> int:
    """Element count of a shape, :data:`DYN` when some dimension is dynamic."""
    return dim_mul(*shape)


# ---------------------------------------------------------------------------
# Broadcasting
# ---------------------------------------------------------------------------


def _numpy_broadcast_dim(ctx: InferContext, a: int, b: int, sa: Shape, sb: Shape) -> int:
    if a == 1:
        return b
    if b == 1:
        return a
    if a < 0 and b < 0:
        return DYN
    if a < 0:
        return b  # the dynamic dim must be 1 or b
    if b < 0 or a == b:
        return a
    raise ctx.error(
        f"shapes {fmt_shape(sa)} and {fmt_shape(sb)} cannot be broadcast together "
        f"(dimension {a} vs {b})"
    )


def broadcast_numpy(ctx: InferContext, *shapes: Shape) -> Shape:
    """numpy-style broadcast of partial shapes."""
    result: Shape = []
    for s in shapes:
        if s is None:
            result = None
            continue
        if result is None:
            # still validate nothing: rank unknown on one side
            continue
        n = max(len(result), len(s))
        ra = [1] * (n - len(result)) + result
        rb = [1] * (n - len(s)) + list(s)
        result = [_numpy_broadcast_dim(ctx, x, y, ra, rb) for x, y in zip(ra, rb)]
    return result


def broadcast_shapes(ctx: InferContext, mode: str, *shapes: Shape) -> Shape:
    """Result shape of an ``auto_broadcast`` elementwise op."""
    mode = str(mode).lower()
    if mode == "numpy":
        return broadcast_numpy(ctx, *shapes)
    if mode == "pdpd":
        result = shapes[0]
        for s in shapes[1:]:
            result = _broadcast_pdpd(ctx, result, s)
        return result
    if mode in ("none", "explicit"):
        result: Shape = None
        for s in shapes:
            result = merge_shapes(ctx, result, s, "auto_broadcast=none requires equal shapes")
        return result
    raise ctx.error(f"unsupported auto_broadcast mode '{mode}'")


def _broadcast_pdpd(ctx: InferContext, a: Shape, b: Shape) -> Shape:
    """PaddlePaddle-style broadcast of ``b`` into ``a``.

    The ``auto_broadcast="pdpd"`` attribute string carries no axis, which
    OpenVINO reads as axis 0: ``b`` (without trailing 1s) aligns with the
    leading dims of ``a``.
    """
    if a is None or b is None:
        return None if a is None else list(a)
    b = list(b)
    while b and b[-1] == 1:
        b.pop()
    if len(b) > len(a):
        raise ctx.error(
            f"shape {fmt_shape(b)} cannot be pdpd-broadcast to {fmt_shape(a)}"
        )
    out = list(a)
    for i, d in enumerate(b):
        if d == 1 or d < 0:
            continue
        if out[i] < 0:
            out[i] = d
        elif out[i] != d:
            raise ctx.error(
                f"shape {fmt_shape(b)} cannot be pdpd-broadcast to {fmt_shape(a)} "
                f"(dimension {d} vs {out[i]})"
            )
    return out


def broadcast_into(ctx: InferContext, target: Shape, src: Shape) -> Shape:
    """Check ``src`` numpy-broadcasts to ``target`` (one direction); refine target."""
    if target is None or src is None:
        return target
    if len(src) > len(target):
        raise ctx.error(
            f"shape {fmt_shape(src)} has higher rank than target {fmt_shape(target)}"
        )
    out = list(target)
    off = len(target) - len(src)
    for i, d in enumerate(src):
        t = out[off + i]
        if d == 1 or d < 0:
            continue
        if t < 0:
            continue
        if t != d:
            raise ctx.error(
                f"shape {fmt_shape(src)} cannot be broadcast to {fmt_shape(target)}"
            )
    return out


# ---------------------------------------------------------------------------
# Element types
# ---------------------------------------------------------------------------


def same_etype(ctx: InferContext, indices: Iterable[int], what: str = "inputs") -> str:
    """Element type shared by inputs ``indices`` (error on a mix)."""
    idx = list(indices)
    types = [ctx.etype(i) for i in idx]
    for i, t in zip(idx[1:], types[1:]):
        if t != types[0]:
            raise ctx.error(
                f"{what} must have the same element type, got {types[0]} "
                f"(input {idx[0]}) and {t} (input {i})"
            )
    return types[0]


_KIND_NAMES = {
    et.INTEGER_TYPES: "an integer type",
    et.FLOAT_TYPES: "a floating-point type",
}


def require_etype(ctx: InferContext, i: int, allowed: Iterable[str], what: str) -> str:
    t = ctx.etype(i)
    allowed = frozenset(allowed)
    if t not in allowed:
        kind = _KIND_NAMES.get(allowed) or "/".join(sorted(allowed))
        raise ctx.error(f"{what} (input {i}) must be {kind}, got {t}")
    return t


def require_integer(ctx: InferContext, i: int, what: str) -> str:
    return require_etype(ctx, i, et.INTEGER_TYPES, what)


def require_float(ctx: InferContext, i: int, what: str) -> str:
    return require_etype(ctx, i, et.FLOAT_TYPES, what)


def etype_attr(ctx: InferContext, name: str, allowed: Iterable[str] | None = None) -> str:
    t = str(ctx.attr(name))
    if t in ("dynamic", "undefined") or t not in et.OV_ELEMENT_TYPES:
        raise ctx.error(f"attribute {name} must be a concrete element type, got '{t}'")
    if allowed is not None and t not in set(allowed):
        raise ctx.error(f"attribute {name} must be one of {sorted(allowed)}, got {t}")
    return t


def result(etype: str, shape: Shape) -> Attribute:
    return tensor(etype, shape)


# ---------------------------------------------------------------------------
# Axes and constants
# ---------------------------------------------------------------------------


def normalize_axis(ctx: InferContext, axis: int, rank: int | None, what: str = "axis") -> int:
    """``axis`` in ``[-rank, rank)`` -> ``[0, rank)``. With unknown rank, as given."""
    axis = int(axis)
    if rank is None:
        return axis
    if not -rank <= axis < rank:
        raise ctx.error(f"{what} {axis} is out of range for rank {rank}")
    return axis + rank if axis < 0 else axis


def normalize_axes(
    ctx: InferContext, axes: Iterable[int], rank: int, what: str = "axis", unique: bool = False
) -> list[int]:
    out = [normalize_axis(ctx, a, rank, what) for a in axes]
    if unique and len(set(out)) != len(out):
        raise ctx.error(f"{what} values {list(axes)} repeat an axis")
    return out


def const_ints(ctx: InferContext, i: int) -> list[int] | None:
    """Constant input ``i`` flattened to Python ints, or None."""
    v = ctx.const(i)
    if v is None:
        return None
    return [int(x) for x in np.asarray(v).reshape(-1)]


def const_floats(ctx: InferContext, i: int) -> list[float] | None:
    v = ctx.const(i)
    if v is None:
        return None
    return [float(x) for x in np.asarray(v).reshape(-1)]


def const_scalar(ctx: InferContext, i: int) -> Any | None:
    v = ctx.const(i)
    if v is None:
        return None
    a = np.asarray(v).reshape(-1)
    if a.size != 1:
        raise ctx.error(f"input {i} must hold one value, got {a.size}")
    return a[0].item()


def vector_length(ctx: InferContext, i: int) -> int | None:
    """Element count of a 1-D (or scalar) input ``i`` when known."""
    c = ctx.const(i)
    if c is not None:
        return int(np.asarray(c).size)
    s = ctx.shape(i)
    if s is None:
        return None
    if len(s) == 0:
        return 1
    if len(s) > 1:
        raise ctx.error(f"input {i} must be 1-D, got shape {fmt_shape(s)}")
    return s[0] if s[0] >= 0 else None


def require_rank(ctx: InferContext, i: int, ranks: Iterable[int], what: str) -> None:
    r = ctx.rank(i)
    ranks = list(ranks)
    if r is not None and r not in ranks:
        want = " or ".join(str(x) for x in ranks)
        raise ctx.error(f"{what} (input {i}) must have rank {want}, got {r}")


def attr_list(ctx: InferContext, name: str) -> list[Any]:
    v = ctx.attrs.get(name)
    return [] if v is None else list(v)


# ---------------------------------------------------------------------------
# Sliding windows (convolution, pooling)
# ---------------------------------------------------------------------------


def auto_pad_mode(ctx: InferContext) -> str:
    mode = str(ctx.attrs.get("auto_pad", "explicit")).lower()
    if mode == "notset":
        mode = "explicit"
    if mode not in ("explicit", "valid", "same_upper", "same_lower"):
        raise ctx.error(f"unknown auto_pad '{mode}'")
    return mode


def window_attr(ctx: InferContext, name: str, n: int, default: int) -> list[int]:
    v = attr_list(ctx, name)
    if not v:
        return [default] * n
    if len(v) != n:
        raise ctx.error(f"attribute {name} has {len(v)} values for {n} spatial dims")
    return [int(x) for x in v]


def window_output_dim(
    ctx: InferContext,
    size: int,
    kernel: int,
    stride: int,
    dilation: int,
    pad_begin: int,
    pad_end: int,
    auto_pad: str,
    rounding: str = "floor",
) -> int:
    """Output length of a sliding window over one spatial dimension."""
    if stride <= 0 or dilation <= 0:
        raise ctx.error("strides and dilations must be positive")
    if auto_pad in ("same_upper", "same_lower"):
        return DYN if size < 0 else -(-size // stride)
    if auto_pad == "valid":
        pad_begin = pad_end = 0
    if size < 0 or kernel < 0:
        return DYN
    eff_kernel = dilation * (kernel - 1) + 1
    span = size + pad_begin + pad_end - eff_kernel
    if span < 0:
        raise ctx.error(
            f"window (kernel {kernel}, dilation {dilation}) is larger than the padded "
            f"input dimension {size + pad_begin + pad_end}"
        )
    if rounding in ("ceil", "ceil_torch"):
        out = -(-span // stride) + 1
        if rounding == "ceil_torch" and (out - 1) * stride >= size + pad_begin:
            out -= 1
        return out
    return span // stride + 1


def window_output_shape(
    ctx: InferContext,
    spatial: Sequence[int],
    kernel: Sequence[int],
    rounding: str = "floor",
) -> list[int]:
    """Spatial output dims from ``strides``/``dilations``/``pads_*``/``auto_pad`` attrs."""
    n = len(spatial)
    strides = window_attr(ctx, "strides", n, 1)
    dilations = window_attr(ctx, "dilations", n, 1)
    pb = window_attr(ctx, "pads_begin", n, 0)
    pe = window_attr(ctx, "pads_end", n, 0)
    mode = auto_pad_mode(ctx)
    return [
        window_output_dim(
            ctx, spatial[i], kernel[i], strides[i], dilations[i], pb[i], pe[i], mode, rounding
        )
        for i in range(n)
    ]


def spatial_rank(ctx: InferContext, *candidates: int | None) -> int | None:
    """Number of spatial dims from the first known candidate, checking the rest."""
    known = [c for c in candidates if c is not None]
    if not known:
        return None
    for c in known[1:]:
        if c != known[0]:
            raise ctx.error(
                f"inputs and attributes disagree on the number of spatial dims "
                f"({known[0]} vs {c})"
            )
    return known[0]
