"""Helpers shared by the kernel families."""

from __future__ import annotations

import importlib
from collections.abc import Sequence
from types import ModuleType

import numpy as np

from xmo.backends.cpu.node import KernelNode


_JIT_MODULES: dict[str, ModuleType | None] = {}


def jit_module(name: str) -> ModuleType | None:
    """The numba kernel module ``xmo.backends.cpu.kernels.<name>`` (a
    ``*_jit.py``), imported on first use (numba stays a lazy import), or None
    when numba is not installed (another import error propagates)."""
    if name not in _JIT_MODULES:
        try:
            import numba  # noqa: F401
        except ImportError:
            _JIT_MODULES[name] = None
        else:
            _JIT_MODULES[name] = importlib.import_module(f"xmo.backends.cpu.kernels.{name}")
    return _JIT_MODULES[name]


def norm_axis(axis: int, rank: int, node: KernelNode | None = None) -> int:
    """``axis`` in ``[0, rank)`` (negative axes count from the end)."""
    a = int(axis)
    if a < 0:
        a += rank
    if not 0 <= a < max(rank, 1):
        msg = f"axis {axis} out of range for rank {rank}"
        raise node.error(msg) if node is not None else ValueError(msg)
    return a


def norm_axes(axes: np.ndarray | Sequence[int], rank: int, node: KernelNode | None = None) -> list[int]:
    return [norm_axis(a, rank, node) for a in np.asarray(axes).reshape(-1).tolist()]


def ints(a: np.ndarray | Sequence[int]) -> list[int]:
    """A 0-D or 1-D integer input as a Python list."""
    return [int(v) for v in np.asarray(a).reshape(-1).tolist()]


def frozen_ints(node: KernelNode, name: str, a: np.ndarray) -> tuple[int, ...]:
    """:func:`ints` of ``a``, remembered in ``node.cache[name]`` while the same
    read-only array (a constant, a memoized shape) comes in again."""
    hit = node.cache.get(name)
    if hit is not None and hit[0] is a:
        return hit[1]
    v = tuple(ints(a))
    if type(a) is np.ndarray and not a.flags.writeable:
        node.cache[name] = (a, v)
    return v


def scalar(a: np.ndarray) -> float | int:
    return np.asarray(a).reshape(-1)[0].item()


def broadcast_args(node: KernelNode, *arrays: np.ndarray) -> tuple[np.ndarray, ...]:
    """Check ``auto_broadcast`` of an elementwise op (numpy semantics or none;
    the attribute read once per node)."""
    mode = node.cache.get("auto_broadcast")
    if mode is None:
        mode = node.cache["auto_broadcast"] = str(node.attr("auto_broadcast", "numpy")).lower()
    if mode == "numpy":
        return arrays
    if mode == "none":
        shapes = {a.shape for a in arrays}
        if len(shapes) > 1:
            raise node.error(
                f"auto_broadcast=none needs equal shapes, got {[list(s) for s in shapes]}"
            )
    elif mode == "pdpd":
        raise node.error("auto_broadcast=pdpd is not supported by the CPU backend")
    return arrays


def is_float(a: np.ndarray) -> bool:
    return a.dtype.kind == "f"  # np.issubdtype, without its cost on every call


def float_work(a: np.ndarray) -> np.ndarray:
    """``a`` as a float array (f16 computed in f32, integers in f64)."""
    dt = a.dtype
    if dt.kind == "f":
        return a.astype(np.float32) if dt == np.float16 else a
    return a.astype(np.float64)


def pad_trailing(
    x: np.ndarray, widths: Sequence[tuple[int, int]], fill: float = 0
) -> np.ndarray:
    """``x`` with its trailing ``len(widths)`` dims padded by ``(before, after)``
    (non-negative) with ``fill``: one new buffer and one copy (np.pad costs
    several times more on small maps). ``x`` itself when nothing is padded."""
    if all(b == 0 and e == 0 for b, e in widths):
        return x
    lead = x.ndim - len(widths)
    shape = x.shape[:lead] + tuple(d + b + e for d, (b, e) in zip(x.shape[lead:], widths))
    out = np.full(shape, fill, x.dtype) if fill else np.zeros(shape, x.dtype)
    out[(slice(None),) * lead
        + tuple(slice(b, b + d) for d, (b, _) in zip(x.shape[lead:], widths))] = x
    return out


def spatial_pads(
    node: KernelNode,
    in_dims: Sequence[int],
    kernel: Sequence[int],
    strides: Sequence[int],
    dilations: Sequence[int],
) -> tuple[list[int], list[int]]:
    """(pads_begin, pads_end) per spatial dim from ``auto_pad`` and explicit pads."""
    n = len(in_dims)
    mode = str(node.attr("auto_pad", "explicit")).lower()
    if mode in ("valid",):
        return [0] * n, [0] * n
    if mode in ("same_upper", "same_lower"):
        pb, pe = [], []
        for d, k, s, dl in zip(in_dims, kernel, strides, dilations):
            out = -(-d // s)
            total = max(0, (out - 1) * s + (k - 1) * dl + 1 - d)
            small, big = total // 2, total - total // 2
            if mode == "same_upper":
                pb.append(small)
                pe.append(big)
            else:
                pb.append(big)
                pe.append(small)
        return pb, pe
    pb = list(node.attr("pads_begin", ()) or ()) or [0] * n
    pe = list(node.attr("pads_end", ()) or ()) or [0] * n
    return [int(v) for v in pb], [int(v) for v in pe]


def spatial_attr(node: KernelNode, name: str, n: int, default: int = 1) -> list[int]:
    v = list(node.attr(name, ()) or ())
    return [int(x) for x in v] if v else [default] * n


def window_views(
    x: np.ndarray, kernel: Sequence[int], strides: Sequence[int],
    dilations: Sequence[int], out_dims: Sequence[int],
) -> np.ndarray:
    """Windows over the trailing spatial dims of padded ``x``.

    ``x``: ``[..., D1..Dn]`` -> ``[..., K1*..*Kn, O1..On]`` (one entry per kernel offset).
    """
    n = len(kernel)
    lead = x.shape[: x.ndim - n]
    cols = np.empty(lead + (int(np.prod(kernel)),) + tuple(out_dims), dtype=x.dtype)
    for j, offs in enumerate(np.ndindex(*kernel)):
        idx = tuple(
            slice(o * d, o * d + s * (od - 1) + 1, s)
            for o, d, s, od in zip(offs, dilations, strides, out_dims)
        )
        cols[(..., j) + (slice(None),) * n] = x[(...,) + idx]
    return cols


def tap_views(
    x: np.ndarray, kernel: Sequence[int], strides: Sequence[int],
    dilations: Sequence[int], out_dims: Sequence[int],
):
    """Yield one strided view ``[..., O1..On]`` of padded ``x`` per kernel tap
    (row-major tap order, no copies)."""
    n = len(kernel)
    for offs in np.ndindex(*kernel):
        idx = tuple(
            slice(o * d, o * d + s * (od - 1) + 1, s)
            for o, d, s, od in zip(offs, dilations, strides, out_dims)
        )
        yield x[(...,) + idx] if n else x


def reduce_windows(
    x: np.ndarray, kernel: Sequence[int], strides: Sequence[int],
    dilations: Sequence[int], out_dims: Sequence[int], ufunc: np.ufunc,
) -> np.ndarray:
    """``ufunc`` (np.maximum, np.add...) over each window of padded ``x``,
    accumulated tap by tap in one output buffer."""
    views = tap_views(x, kernel, strides, dilations, out_dims)
    out = np.array(next(views), copy=True)
    for v in views:
        ufunc(out, v, out=out)
    return out
