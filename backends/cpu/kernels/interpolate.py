"""Interpolate (opset11, and opset4 through the same code).

Every mode is separable: nearest gathers one index per output position and
axis; linear, linear_onnx and cubic multiply by a per-axis [out, in] weight
matrix (for ``linear`` the rows of a normalized triangle filter, widened by
``1/scale`` when ``antialias`` downsamples). :func:`interpolate` is that
generic path (f64 arithmetic for the weighted modes, rounded once at the end).

The fast path (:func:`resize_route`): an f32 or f64 resize of the last two
axes (the leading ones unchanged, no pads) in ``nearest`` mode, or in
``linear_onnx`` / ``linear`` (no antialias downsampling) where every output
position reads at most two inputs per axis, runs on
:mod:`~xmo.backends.cpu.kernels.interpolate_jit` from per-axis index and
weight tables computed once per input shape (a plan keeps them when the
sizes/scales and axes are constants): a gather, or a separable 2-tap kernel
computing in the input's element type (an output larger than the caches
written with non-temporal stores), split over planes (or output rows) on the
threads; a 1x1 map is a broadcast. The tables are the generic path's
weights (in f64, then rounded to the element type): an f32 result differs from
the generic path's by a few f32 ulp of the input's magnitude (the tests bound
it at 4), an f64 one by f64 rounding. Cubic, antialias downsampling, pads,
other element types and other axes take the generic path.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence

import numpy as np

from xmo.backends.cpu.kernels._common import float_work, ints, jit_module, norm_axes
from xmo.backends.cpu.kernels.packed import tile_cuts
from xmo.backends.cpu.node import KernelNode, plan_with
from xmo.backends.cpu.registry import register_kernel
from xmo.backends.cpu.threads import run_tasks, threads

#: output elements per task from which a fast resize is cut over the threads
#: (planes, or output rows when there are fewer planes than tasks): maps of 1
#: MiB (f32) and more. Smaller cuts lost on the busy 2-core machine (wall
#: medians, 2 threads: picodet's nearest 96x20x20 -> 96x40x40 0.19 ms in one
#: task, 0.23-0.33 ms cut at 2^16 or 2^14 outputs); DeepLabV3's 21x320x320
#: output measured within noise either way there (0.9-1.1x, the second core
#: mostly busy), kept cut for a machine with a free core
TASK_ELEMENTS = 1 << 18
#: elements of the width-resized input rows a linear task keeps at most: it
#: runs in blocks of ``SCRATCH_ELEMENTS // (2 * OW)`` output rows (each reads
#: at most two rows); every map of the benchmark models is one block
SCRATCH_ELEMENTS = 1 << 18
#: output bytes from which the linear kernel writes its rows with
#: non-temporal stores (``interpolate_jit.lerp_line_nt``): above the core's
#: L2 (2 MiB here) the line is not read before it is written. DeepLabV3's
#: 21x320x320 f32 output (8.6 MB): the row pass 0.59-0.69 ms against
#: 1.34-1.46 ms with plain stores (medians, one thread, hot or evicted caches)
STREAM_BYTES = 1 << 22
#: routes (one per input shape and element type) a plan keeps
MAX_ROUTES = 8
_FAST_DTYPES = (np.dtype(np.float32), np.dtype(np.float64))


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


def _out_len(calc: str, sizes: list[int] | None, scales: list[float] | None, k: int,
             in_len: int) -> tuple[int, float]:
    """Axis ``k``'s output length and scale, from ``sizes`` or ``scales`` as
    ``shape_calculation_mode`` (``calc``) says."""
    if calc == "sizes":
        out_len = int(sizes[k])  # type: ignore[index]
        return out_len, out_len / in_len
    scale = float(scales[k])  # type: ignore[index]
    return int(np.floor(in_len * scale + 1e-5)), scale


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
        out_len, scale = _out_len(calc, sizes, scales, k, in_len)
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


#: a per-axis table: ``(index,)`` for nearest, ``(i0, i1, w0, w1)`` (f64
#: weights) for the 2-tap linear modes
Table = tuple[np.ndarray, ...]


def _two_taps(node: KernelNode, mode: str, c: np.ndarray, in_len: int,
              scale: float) -> Table | None:
    """The rows of :func:`_weight_matrix` as two taps ``(i0, i1, w0, w1)``
    (the same f64 weights; a tap of weight 0 reads ``i0``), or None when a
    row has more (cubic; ``linear`` widened by antialias)."""
    top = in_len - 1
    if mode == "linear_onnx":
        cc = np.clip(c, 0, top)
        i0 = np.minimum(np.floor(cc).astype(np.int64), top)
        i1 = np.minimum(i0 + 1, top)
        w0, w1 = np.abs(cc - i1), np.abs(cc - i0)
        same = i0 == i1
        w0 = np.where(same, 1.0, w0)  # 0.5 + 0.5 in the matrix
        w1 = np.where(same, 0.0, w1)
    elif mode == "linear" and not (node.attr("antialias", False) and scale < 1):
        j0 = np.floor(c)
        j1 = j0 + 1
        # the triangle filter's two nonzero entries, normalized by their sum
        w0 = np.where((j0 >= 0) & (j0 <= top), np.maximum(0.0, 1.0 - np.abs(c - j0)), 0.0)
        w1 = np.where((j1 >= 0) & (j1 <= top), np.maximum(0.0, 1.0 - np.abs(c - j1)), 0.0)
        s = w0 + w1
        w0 = np.divide(w0, s, out=np.zeros_like(w0), where=s > 0)
        w1 = np.divide(w1, s, out=np.zeros_like(w1), where=s > 0)
        i0 = np.clip(j0, 0, top).astype(np.int64)
        i1 = np.clip(j1, 0, top).astype(np.int64)
        same = i0 == i1  # one tap clipped onto the other: its weight is 0
        w0 = np.where(same, w0 + w1, w0)
        w1 = np.where(same, 0.0, w1)
    else:
        return None
    return i0, np.where(w1 == 0, i0, i1), w0, w1


def _identity(n: int, nearest: bool) -> Table:
    i = np.arange(n, dtype=np.int64)
    return (i,) if nearest else (i, i, np.ones(n), np.zeros(n))


def _is_identity(t: Table, in_len: int) -> bool:
    """``t`` copies an axis of ``in_len`` unchanged."""
    if t[0].shape[0] != in_len or not (t[0] == np.arange(in_len)).all():
        return False
    return len(t) == 1 or bool((t[2] == 1).all() and (t[3] == 0).all())


def resize_route(
    node: KernelNode, shape: tuple[int, ...], dtype: np.dtype,
    sizes: Sequence[int] | None, scales: Sequence[float] | None, axes: Sequence[int],
) -> Callable[[np.ndarray], np.ndarray] | None:
    """The fast path (see the module doc) for inputs of this shape and
    element type: a function of ``x`` alone, or None (the generic path)."""
    mode = str(node.attr("mode", "nearest")).lower()
    pads = ints(node.attr("pads_begin", ()) or ()) + ints(node.attr("pads_end", ()) or ())
    if (dtype not in _FAST_DTYPES or not shape or len(set(axes)) != len(axes) or any(pads)
            or mode not in ("nearest", "linear", "linear_onnx")):
        return None
    jit = jit_module("interpolate_jit")
    if jit is None:
        return None
    nearest = mode == "nearest"
    rank = len(shape)
    calc = str(node.attr("shape_calculation_mode", "sizes")).lower()
    out_shape = list(shape)
    tables: dict[int, Table] = {}
    for k, ax in enumerate(axes):
        in_len = shape[ax]
        if in_len <= 0:
            return None
        out_len, scale = _out_len(calc, sizes, scales, k, in_len)
        if out_len <= 0:
            return None
        out_shape[ax] = out_len
        if out_len == in_len and scale == 1.0 and mode != "linear":
            continue  # the generic path skips it too
        c = _in_coord(node, out_len, in_len, scale)
        t = (_nearest_index(node, c, scale, in_len),) if nearest \
            else _two_taps(node, mode, c, in_len, scale)
        if t is None or (ax < rank - 2 and not _is_identity(t, in_len)):
            return None
        if ax >= rank - 2:
            tables[ax] = t
    h, w = (shape[-2] if rank > 1 else 1), shape[-1]
    ty = tables.get(rank - 2) if rank > 1 else None
    ty = _identity(h, nearest) if ty is None else ty
    tx = tables.get(rank - 1)
    tx = _identity(w, nearest) if tx is None else tx
    planes = math.prod(shape[:-2])
    oh, ow = ty[0].shape[0], tx[0].shape[0]
    dims = (planes, oh, ow)
    new_shape = tuple(out_shape)
    if h == 1 and w == 1 and (nearest or bool((ty[2] == 1).all() and (tx[2] == 1).all())):
        def broadcast(x: np.ndarray) -> np.ndarray:  # every output reads the one input
            out = np.empty((planes, oh * ow), dtype)
            out[...] = x.reshape(planes, 1)
            return out.reshape(new_shape)

        return broadcast
    if nearest:
        kernel, args, post = jit.nearest_2d, (ty[0], tx[0]), ()
    else:
        # the output rows read these input rows only (their width pass once
        # per block of output rows)
        rows = np.unique(np.concatenate([ty[0], ty[1]]))
        args = (rows, np.searchsorted(rows, ty[0]), np.searchsorted(rows, ty[1]),
                ty[2].astype(dtype), ty[3].astype(dtype), tx[0], tx[1],
                tx[2].astype(dtype), tx[3].astype(dtype))
        post = (max(1, SCRATCH_ELEMENTS // (2 * ow)), planes * oh * ow * dtype.itemsize >= STREAM_BYTES)
        kernel = jit.linear_2d

    def resize(x: np.ndarray) -> np.ndarray:
        out = np.empty(dims, dtype)
        src = np.ascontiguousarray(x).reshape(planes, h, w)
        run_tasks([(kernel, (src, *args, out, *post, *cut)) for cut in _cuts(*dims)])
        return out.reshape(new_shape)

    return resize


def _cuts(planes: int, oh: int, ow: int) -> list[tuple[int, int, int, int]]:
    """``(p0, p1, y0, y1)`` tasks of a fast resize: up to four per thread of
    at least :data:`TASK_ELEMENTS` outputs, over planes, or over output rows
    (every plane) when there are fewer planes than tasks."""
    parts = max(1, min(4 * threads(), planes * oh * ow // TASK_ELEMENTS))
    if parts == 1:
        return [(0, planes, 0, oh)]
    if planes >= parts:
        cuts = tile_cuts(planes, 1, parts)
        return [(a, b, 0, oh) for a, b in zip(cuts, cuts[1:]) if b > a]
    cuts = tile_cuts(oh, 1, parts)
    return [(0, planes, a, b) for a, b in zip(cuts, cuts[1:]) if b > a]


def _sizes_scales(node: KernelNode, values: np.ndarray) -> tuple[tuple[int, ...] | None,
                                                                 tuple[float, ...] | None]:
    """The v11 ``scales_or_sizes`` input as (sizes, None) or (None, scales)."""
    v = np.asarray(values).reshape(-1)
    if str(node.attr("shape_calculation_mode", "sizes")).lower() == "sizes":
        return tuple(int(a) for a in v), None
    return None, tuple(float(a) for a in v)


def _v4_sizes_scales(node: KernelNode, sizes: np.ndarray,
                     scales: np.ndarray) -> tuple[tuple[int, ...], tuple[float, ...]]:
    """The opset4 ``sizes`` and ``scales`` inputs (both given)."""
    return tuple(ints(sizes)), tuple(float(v) for v in np.asarray(scales).reshape(-1))


def _resize(node: KernelNode, x: np.ndarray, sizes: Sequence[int] | None,
            scales: Sequence[float] | None, axes: np.ndarray | None) -> np.ndarray:
    """The kernels' common body: the fast route (remembered in ``node.cache``
    while the shape, element type, sizes/scales and axes stay the same), else
    :func:`interpolate`."""
    ax = list(range(x.ndim)) if axes is None else norm_axes(axes, x.ndim, node)
    key = (x.shape, x.dtype, sizes, scales, tuple(ax))
    hit = node.cache.get("route")
    if hit is None or hit[0] != key:
        hit = node.cache["route"] = (key, resize_route(node, x.shape, x.dtype, sizes, scales, ax))
    if hit[1] is not None:
        return hit[1](x)
    return interpolate(node, x, sizes, scales, ax)


def _planner(parse: Callable[..., tuple[Sequence[int] | None, Sequence[float] | None]],
             n_params: int):
    """The plan of an Interpolate kernel: with constant sizes/scales (and axes)
    a function keeping one route per input shape and element type (at most
    :data:`MAX_ROUTES`); None otherwise (the kernel runs)."""

    def plan(node: KernelNode, consts: tuple) -> Callable[..., np.ndarray] | None:
        params = consts[1:1 + n_params]
        axes = consts[1 + n_params] if len(consts) > 1 + n_params else None
        if any(p is None for p in params) or (len(consts) > 1 + n_params and axes is None):
            return None
        sizes, scales = parse(node, *params)
        routes: dict[tuple[tuple[int, ...], np.dtype], tuple] = {}

        def run(x: np.ndarray, *_: np.ndarray) -> np.ndarray:
            hit = routes.get((x.shape, x.dtype))
            if hit is None:
                if len(routes) >= MAX_ROUTES:
                    routes.clear()
                ax = list(range(x.ndim)) if axes is None else norm_axes(axes, x.ndim, node)
                hit = routes[(x.shape, x.dtype)] = (
                    ax, resize_route(node, x.shape, x.dtype, sizes, scales, ax))
            if hit[1] is not None:
                return hit[1](x)
            return interpolate(node, x, sizes, scales, hit[0])

        return run

    return plan


@register_kernel("ov.Interpolate")
@plan_with(_planner(_sizes_scales, 1))
def _interpolate_v11(
    node: KernelNode, x: np.ndarray, scales_or_sizes: np.ndarray, axes: np.ndarray | None = None
) -> np.ndarray:
    return _resize(node, x, *_sizes_scales(node, scales_or_sizes), axes)


@register_kernel("ov.Interpolate_opset4")
@plan_with(_planner(_v4_sizes_scales, 2))
def _interpolate_v4(
    node: KernelNode, x: np.ndarray, sizes: np.ndarray, scales: np.ndarray,
    axes: np.ndarray | None = None,
) -> np.ndarray:
    return _resize(node, x, *_v4_sizes_scales(node, sizes, scales), axes)
