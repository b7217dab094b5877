"""Pad, Broadcast, Tile, Range, OneHot, NonZero."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from xmo.backends.cpu.kernels._common import frozen_ints, ints, norm_axis, scalar
from xmo.backends.cpu.node import KernelNode, plan_with
from xmo.backends.cpu.registry import register_kernel


@register_kernel("ov.Pad", "ov.Pad_opset1")
def _pad(
    node: KernelNode, x: np.ndarray, pads_begin: np.ndarray, pads_end: np.ndarray,
    pad_value: np.ndarray | None = None,
) -> np.ndarray:
    pb, pe = ints(pads_begin), ints(pads_end)
    # negative pads crop
    crop = tuple(
        slice(max(0, -b), d - max(0, -e)) for d, b, e in zip(x.shape, pb, pe)
    )
    x = x[crop]
    widths = [(max(0, b), max(0, e)) for b, e in zip(pb, pe)]
    mode = str(node.attr("pad_mode", "constant")).lower()
    if mode == "constant":
        value = scalar(pad_value) if pad_value is not None else 0
        return np.pad(x, widths, mode="constant", constant_values=value)
    if mode not in ("edge", "reflect", "symmetric"):
        raise node.error(f"unknown pad_mode '{mode}'")
    return np.pad(x, widths, mode=mode)


def _bidirectional_shape(node: KernelNode, a: tuple[int, ...], b: tuple[int, ...]) -> tuple[int, ...]:
    """numpy's broadcast of two shapes (``np.broadcast_shapes`` costs a few
    us of Python per call: the tiny models' Expand steps)."""
    if a == b:
        return a
    n = max(len(a), len(b))
    a, b = (1,) * (n - len(a)) + a, (1,) * (n - len(b)) + b
    out = []
    for x, y in zip(a, b):
        if x != y and x != 1 and y != 1:
            raise node.error(f"shapes {list(a)} and {list(b)} do not broadcast")
        out.append(y if x == 1 else x)
    return tuple(out)


def _plan_broadcast(node: KernelNode, consts: tuple) -> Callable[..., np.ndarray] | None:
    mode = str(node.attr("mode", "numpy")).lower()
    if mode not in ("numpy", "bidirectional"):
        return None
    empty, copyto = np.empty, np.copyto
    bidirectional = mode == "bidirectional"

    def broadcast(x: np.ndarray, target: np.ndarray, *axes: np.ndarray) -> np.ndarray:
        shape = frozen_ints(node, "target", target)
        if bidirectional:
            shape = _bidirectional_shape(node, x.shape, shape)
        out = empty(shape, x.dtype)
        copyto(out, x)  # ValueError when x does not broadcast to the target
        return out

    return broadcast


@register_kernel("ov.Broadcast", "ov.Broadcast_opset1")
@plan_with(_plan_broadcast)
def _broadcast(
    node: KernelNode, x: np.ndarray, target: np.ndarray, axes_mapping: np.ndarray | None = None
) -> np.ndarray:
    shape = ints(target)
    mode = str(node.attr("mode", "numpy")).lower()
    if mode == "bidirectional":
        shape = list(np.broadcast_shapes(x.shape, tuple(shape)))
    elif mode == "explicit":
        if axes_mapping is None:
            raise node.error("explicit broadcast needs axes_mapping")
        expanded = [1] * len(shape)
        for a, d in zip(ints(axes_mapping), x.shape):
            expanded[a] = d
        x = x.reshape(expanded)
    elif mode not in ("numpy",):
        raise node.error(f"broadcast mode '{mode}' is not supported")
    return np.broadcast_to(x, shape).copy()


@register_kernel("ov.Tile")
def _tile(node: KernelNode, x: np.ndarray, repeats: np.ndarray) -> np.ndarray:
    return np.tile(x, ints(repeats))


@register_kernel("ov.Range", "ov.Range_opset1")
def _range(node: KernelNode, start: np.ndarray, stop: np.ndarray, step: np.ndarray) -> np.ndarray:
    dtype = node.out_dtype(0, np.result_type(start, stop, step))
    a, b, s = scalar(start), scalar(stop), scalar(step)
    if dtype.kind in "iu":
        a, b, s = (float(v) for v in (a, b, s))
        # OpenVINO casts start and step to the output type first
        a, s = float(np.trunc(a)), float(np.trunc(s))
    n = max(0, int(np.ceil((b - a) / s))) if s != 0 else 0
    return (a + np.arange(n, dtype=np.float64) * s).astype(dtype)


@register_kernel("ov.OneHot", "ov.OneHot_opset1")
def _one_hot(
    node: KernelNode, indices: np.ndarray, depth: np.ndarray, on: np.ndarray, off: np.ndarray
) -> np.ndarray:
    d = int(scalar(depth))
    idx = indices.astype(np.int64)
    if str(node.attr("negative_indices_mode", "ignore_negative")).lower() == "normalize":
        idx = np.where(idx < 0, idx + d, idx)
    axis = norm_axis(node.attr("axis", -1), indices.ndim + 1, node)
    hot = np.expand_dims(idx, axis) == np.arange(d).reshape(
        [-1 if i == axis else 1 for i in range(indices.ndim + 1)]
    )
    return np.where(hot, on.reshape(()), off.reshape(()))


@register_kernel("ov.NonZero")
def _non_zero(node: KernelNode, x: np.ndarray) -> np.ndarray:
    dtype = node.out_dtype(0, np.int64)
    if x.ndim == 0:
        return np.zeros((1, int(x != 0)), dtype)
    nz = np.nonzero(x)
    return np.stack(nz).astype(dtype).reshape(x.ndim, -1)
