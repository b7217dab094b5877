"""MaxPool (values and indices) and AvgPool."""

from __future__ import annotations

import math

import numpy as np

from xmo.backends.cpu.kernels._common import (
    float_work,
    norm_axis,
    pad_trailing,
    reduce_windows,
    spatial_attr,
    spatial_pads,
    window_views,
)
from xmo.backends.cpu import threads
from xmo.backends.cpu.node import KernelNode
from xmo.backends.cpu.registry import register_kernel


class _Geometry:
    def __init__(self, node: KernelNode, x: np.ndarray) -> None:
        nsp = x.ndim - 2
        self.in_dims = list(x.shape[2:])
        self.kernel = spatial_attr(node, "kernel", nsp)
        self.strides = spatial_attr(node, "strides", nsp)
        self.dil = spatial_attr(node, "dilations", nsp)
        self.pb, self.pe = spatial_pads(node, self.in_dims, self.kernel, self.strides, self.dil)
        mode = str(node.attr("auto_pad", "explicit")).lower()
        rounding = str(node.attr("rounding_type", "floor")).lower()
        self.out_dims = []
        for d, k, s, dl, b, e in zip(self.in_dims, self.kernel, self.strides, self.dil, self.pb, self.pe):
            keff = (k - 1) * dl + 1
            if mode in ("same_upper", "same_lower"):
                o = -(-d // s)
            elif rounding == "floor":
                o = (d + b + e - keff) // s + 1
            else:
                o = -(-(d + b + e - keff) // s) + 1
                if rounding == "ceil_torch" and (o - 1) * s >= d + b:
                    o -= 1
            self.out_dims.append(max(o, 0))

    def coords(self, i: int) -> np.ndarray:
        """Input coordinate [K_i, O_i] of each kernel tap / output position on axis i."""
        k = np.arange(self.kernel[i])[:, None] * self.dil[i]
        o = np.arange(self.out_dims[i])[None, :] * self.strides[i]
        return o + k - self.pb[i]

    def padded(self, x: np.ndarray, fill: float) -> np.ndarray:
        """``x`` padded with ``fill`` (cropped) to exactly cover every window."""
        slices, widths = [], []
        for d, k, s, dl, b, o in zip(self.in_dims, self.kernel, self.strides, self.dil, self.pb, self.out_dims):
            extent = (o - 1) * s + (k - 1) * dl + 1
            end = extent - d - b
            slices.append(slice(max(0, -b), d + min(0, end)))
            widths.append((max(0, b), max(0, end)))
        xp = x[(slice(None), slice(None)) + tuple(slices)]
        return pad_trailing(xp, widths, fill)

    def windows(self, x: np.ndarray, fill: float) -> np.ndarray:
        """[N, C, K, O...] windows of ``x`` padded with ``fill``."""
        xp = self.padded(x, fill)
        return window_views(xp, self.kernel, self.strides, self.dil, self.out_dims)

    def reduce(self, x: np.ndarray, fill: float, ufunc: np.ufunc) -> np.ndarray:
        """[N, C, O...]: ``ufunc`` over each window, tap by tap (no window copy)."""
        xp = self.padded(x, fill)
        return reduce_windows(xp, self.kernel, self.strides, self.dil, self.out_dims, ufunc)


_FAST_DTYPES = (np.dtype(np.float32), np.dtype(np.float64))
#: :func:`max_pool_2d` splits its planes across the CPU-backend threads at
#: about this many window taps per task (smaller pools run whole)
POOL_TAPS_PER_TASK = 500_000

_pool: object = None


def max_pool_kernel():
    """numba kernel of a 2-D max pool
    (:func:`~xmo.backends.cpu.kernels.pooling_jit.max_pool`), None without
    numba; compiled on first use (cached on disk): ``pool(x, kh, kw, sh, sw,
    dh, dw, ph, pw, out, p0, p1)`` writes planes ``[p0, p1)`` of ``out``
    [P, Oh, Ow] from ``x`` [P, H, W]."""
    global _pool
    if _pool is None:
        try:
            from xmo.backends.cpu.kernels import pooling_jit
        except ImportError:  # no numba
            _pool = False
            return None
        _pool = pooling_jit.max_pool
    return _pool or None


def max_pool_2d(x: np.ndarray, g: _Geometry) -> np.ndarray:
    """2-D max pool values of float ``x`` [N, C, H, W] on :func:`max_pool_kernel`,
    the planes split over the CPU-backend threads: a fresh C-contiguous
    [N, C, Oh, Ow]."""
    n, c, h, w = x.shape
    oh, ow = g.out_dims
    out = np.empty((n, c, oh, ow), x.dtype)
    planes = np.ascontiguousarray(x).reshape(n * c, h, w)
    flat = out.reshape(n * c, oh, ow)
    geometry = (*g.kernel, *g.strides, *g.dil, *g.pb)
    kernel = max_pool_kernel()
    taps = n * c * oh * ow * math.prod(g.kernel)
    parts = min(threads.threads(), n * c, max(1, taps // POOL_TAPS_PER_TASK))
    cuts = [n * c * i // parts for i in range(parts + 1)]
    threads.run_tasks([(kernel, (planes, *geometry, flat, a, b))
                       for a, b in zip(cuts, cuts[1:])])
    return out


def _max_pool(node: KernelNode, x: np.ndarray, with_indices: bool):
    g = _Geometry(node, x)
    fill = -np.inf if x.dtype.kind == "f" else np.iinfo(x.dtype).min
    if not with_indices:
        if (x.ndim == 4 and x.dtype in _FAST_DTYPES and min(g.out_dims) > 0
                and max_pool_kernel() is not None):
            return max_pool_2d(x, g)
        return g.reduce(x, fill, np.maximum)
    win = g.windows(x, fill)
    values = win.max(axis=2)
    arg = win.argmax(axis=2)  # [N, C, O...] index of the kernel tap
    nsp = len(g.kernel)
    taps = np.array(list(np.ndindex(*g.kernel))).reshape(-1, nsp)  # [K, nsp]
    flat = np.zeros(arg.shape, np.int64)
    for i in range(nsp):
        tap_i = taps[arg.reshape(arg.shape[0], arg.shape[1], -1), i].reshape(arg.shape)
        o = np.arange(g.out_dims[i]).reshape([-1 if j == i else 1 for j in range(nsp)])
        c = o * g.strides[i] + tap_i * g.dil[i] - g.pb[i]
        flat = flat * g.in_dims[i] + c
    n, ch = x.shape[:2]
    s_size = int(np.prod(g.in_dims))
    nn = np.arange(n).reshape((-1, 1) + (1,) * nsp)
    cc = np.arange(ch).reshape((1, -1) + (1,) * nsp)
    full = (nn * ch + cc) * s_size + flat
    axis = norm_axis(node.attr("axis", 0), x.ndim, node)
    full = full % int(np.prod(x.shape[axis:]))
    return values, full.astype(node.out_dtype(1, np.int64))


@register_kernel("ov.MaxPool", "ov.MaxPool_opset8")
def _max_pool_v8(node: KernelNode, x: np.ndarray):
    used = node.cache.get("indices_used")
    if used is None:  # indices cost a window copy: only when someone reads them
        used = node.num_outputs > 1 and bool(node.op.results[1].uses)
        node.cache["indices_used"] = used
    if node.num_outputs > 1 and not used:
        values = _max_pool(node, x, with_indices=False)
        return values, np.zeros(values.shape, node.out_dtype(1, np.int64))
    return _max_pool(node, x, with_indices=node.num_outputs > 1)


@register_kernel("ov.MaxPool_opset1")
def _max_pool_v1(node: KernelNode, x: np.ndarray):
    return _max_pool(node, x, with_indices=False)


@register_kernel("ov.AvgPool", "ov.AvgPool_opset14", "ov.AvgPool_opset1")
def _avg_pool(node: KernelNode, x: np.ndarray) -> np.ndarray:
    x = float_work(x)
    g = _Geometry(node, x)
    total = g.reduce(x, 0, np.add)
    exclude = bool(node.attr("exclude-pad", node.attr("exclude_pad", False)))
    if not exclude:
        # OpenVINO divides by the full kernel size, even in ceil-mode overhang
        return total / np.asarray(int(np.prod(g.kernel)), x.dtype)
    count = np.ones((), np.int64)
    for i in range(len(g.kernel)):
        c = g.coords(i)
        ci = ((c >= 0) & (c < g.in_dims[i])).sum(axis=0)
        count = np.multiply.outer(count, ci) if i else ci
    return total / np.maximum(count, 1).astype(x.dtype)
