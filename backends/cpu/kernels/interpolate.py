"""Interpolate (opset11, and opset4 through the same code).

Every mode is separable: nearest gathers one index per output position and
axis; linear, linear_onnx and cubic multiply by a per-axis [out, in] weight
matrix (for ``linear`` the rows of a normalized triangle filter, widened by
``1/scale`` when ``antialias`` downsamples).
"""

from __future__ import annotations

import numpy as np

from xmo.backends.cpu.kernels._common import float_work, ints, norm_axes
from xmo.backends.cpu.node import KernelNode
from xmo.backends.cpu.registry import register_kernel


def _in_coord(node: KernelNode, out_len: int, in_len: int, scale: float) -> np.ndarray:
    x = np.arange(out_len, dtype=np.float64)
    mode = str(node.attr("coordinate_transformation_mode", "half_pixel")).lower()
    if mode == "half_pixel":
        return (x + 0.5) / scale - 0.5
    if mode == "pytorch_half_pixel":
        return (x + 0.5) / scale - 0.5 if out_len > 1 else np.zeros_like(x)
    if mode == "asymmetric":
        return x / scale
    if mode == "tf_half_pixel_for_nn":
        return (x + 0.5) / scale
    if mode == "align_corners":
        return np.zeros_like(x) if out_len == 1 else x * (in_len - 1) / (out_len - 1)
    raise node.error(f"unknown coordinate_transformation_mode '{mode}'")


def _nearest_index(node: KernelNode, c: np.ndarray, scale: float, in_len: int) -> np.ndarray:
    mode = str(node.attr("nearest_mode", "round_prefer_floor")).lower()
    fl = np.floor(c)
    half = (c - fl) == 0.5
    if mode == "round_prefer_floor":
        i = np.where(half, fl, np.round(c))
    elif mode == "round_prefer_ceil":
        i = np.where(half, fl + 1, np.round(c))
    elif mode == "floor":
        i = fl
    elif mode == "ceil":
        i = np.ceil(c)
    elif mode == "simple":
        i = np.ceil(c) if scale < 1 else np.trunc(c)
    else:
        raise node.error(f"unknown nearest_mode '{mode}'")
    return np.clip(i, 0, in_len - 1).astype(np.int64)


def _cubic_weights(t: np.ndarray, a: float) -> list[np.ndarray]:
    def near(d):  # |d| <= 1
        return ((a + 2) * d - (a + 3)) * d * d + 1

    def far(d):  # 1 < |d| < 2
        return ((a * d - 5 * a) * d + 8 * a) * d - 4 * a

    return [far(t + 1), near(t), near(1 - t), far(2 - t)]


def _weight_matrix(node: KernelNode, mode: str, c: np.ndarray, in_len: int, scale: float) -> np.ndarray:
    out_len = c.shape[0]
    m = np.zeros((out_len, in_len), np.float64)
    rows = np.arange(out_len)
    if mode == "linear_onnx":
        cc = np.clip(c, 0, in_len - 1)
        i0 = np.minimum(np.floor(cc).astype(np.int64), in_len - 1)
        i1 = np.minimum(i0 + 1, in_len - 1)
        d0, d1 = np.abs(cc - i0), np.abs(cc - i1)
        same = i0 == i1
        d0 = np.where(same, 0.5, d0)
        d1 = np.where(same, 0.5, d1)
        np.add.at(m, (rows, i0), d1)
        np.add.at(m, (rows, i1), d0)
    elif mode == "cubic":
        a = float(node.attr("cube_coeff", -0.75))
        base = np.floor(c).astype(np.int64)
        t = c - base
        for k, w in enumerate(_cubic_weights(t, a)):
            np.add.at(m, (rows, np.clip(base + k - 1, 0, in_len - 1)), w)
    elif mode == "linear":
        aa = scale if (node.attr("antialias", False) and scale < 1) else 1.0
        j = np.arange(in_len, dtype=np.float64)[None, :]
        m = np.maximum(0.0, 1.0 - np.abs(aa * (c[:, None] - j)))
        s = m.sum(axis=1, keepdims=True)
        m = np.divide(m, s, out=np.zeros_like(m), where=s > 0)
    else:
        raise node.error(f"unknown interpolation mode '{mode}'")
    return m


def interpolate(
    node: KernelNode, x: np.ndarray, sizes: list[int] | None, scales: list[float] | None,
    axes: list[int],
) -> np.ndarray:
    rank = x.ndim
    pb = ints(node.attr("pads_begin", ()) or ()) + [0] * rank
    pe = ints(node.attr("pads_end", ()) or ()) + [0] * rank
    if any(pb[:rank]) or any(pe[:rank]):
        x = np.pad(x, [(b, e) for b, e in zip(pb[:rank], pe[:rank])])
    mode = str(node.attr("mode", "nearest")).lower()
    calc = str(node.attr("shape_calculation_mode", "sizes")).lower()
    out_dtype = x.dtype
    work = x if mode == "nearest" else float_work(x).astype(np.float64)
    for k, ax in enumerate(axes):
        in_len = work.shape[ax]
        if calc == "sizes":
            out_len = int(sizes[k])  # type: ignore[index]
            scale = out_len / in_len
        else:
            scale = float(scales[k])  # type: ignore[index]
            out_len = int(np.floor(in_len * scale + 1e-5))
        if out_len == in_len and scale == 1.0 and mode != "linear":
            continue
        c = _in_coord(node, out_len, in_len, scale)
        if mode == "nearest":
            work = np.take(work, _nearest_index(node, c, scale, in_len), axis=ax)
        else:
            m = _weight_matrix(node, mode, c, in_len, scale)
            work = np.moveaxis(np.tensordot(m, np.moveaxis(work, ax, 0), axes=(1, 0)), 0, ax)
    if out_dtype.kind in "iu" and mode != "nearest":
        work = np.round(work)
    return work.astype(out_dtype)


@register_kernel("ov.Interpolate")
def _interpolate_v11(
    node: KernelNode, x: np.ndarray, scales_or_sizes: np.ndarray, axes: np.ndarray | None = None
) -> np.ndarray:
    ax = list(range(x.ndim)) if axes is None else norm_axes(axes, x.ndim, node)
    values = np.asarray(scales_or_sizes).reshape(-1)
    if str(node.attr("shape_calculation_mode", "sizes")).lower() == "sizes":
        return interpolate(node, x, [int(v) for v in values], None, ax)
    return interpolate(node, x, None, [float(v) for v in values], ax)


@register_kernel("ov.Interpolate_opset4")
def _interpolate_v4(
    node: KernelNode, x: np.ndarray, sizes: np.ndarray, scales: np.ndarray,
    axes: np.ndarray | None = None,
) -> np.ndarray:
    ax = list(range(x.ndim)) if axes is None else norm_axes(axes, x.ndim, node)
    return interpolate(
        node, x, ints(sizes), [float(v) for v in np.asarray(scales).reshape(-1)], ax
    )
