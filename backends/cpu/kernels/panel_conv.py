"""Dense (one group) 2-D convolutions on the packed-panel micro-kernel.

A convolution in NCHW is ``out[M, Ho*Wo] = W[M, C*Kh*Kw] @ cols[C*Kh*Kw,
Ho*Wo]`` per image. :func:`panel_conv` multiplies the filters ``W`` (a
constant, row-major: the micro-kernel's row-broadcast operand, read in
place, nothing to pack) by the im2col columns written straight in the
micro-kernel's panel layout by one numba pass
(:func:`~xmo.backends.cpu.kernels.pconv_jit.pack_conv`; no separate im2col
matrix, no BLAS call repacking the filters on every call). Each pool task
takes a range of output pixels (whole panels) of one image -- it packs its
own panels, a block of them at a time (the block stays in the core's cache
for the product) -- or, on small maps, a range of output channels (every
such task packs the image's few panels). A fused epilogue
(:mod:`~xmo.backends.cpu.kernels.gemm_epi`, per-channel constants) runs in
the task over the part of the output it has just produced.
"""

from __future__ import annotations

import math
import threading
from collections.abc import Callable, Sequence
from types import ModuleType

import numpy as np

from xmo.backends.cpu import threads
from xmo.backends.cpu.kernels._common import jit_module
from xmo.backends.cpu.kernels.packed import PackedMatrix, pack, pack_rows, panel_kernels, tile_cuts
from xmo.backends.cpu.kernels.rows import Epi, no_epi, row_kernels

#: a task packs and multiplies its pixels in blocks of panels of about this
#: many bytes (the block stays in the core's L2 cache between the two)
PANEL_BLOCK_BYTES = 1 << 19
#: a task over a range of pixels takes at least this many panels; on
#: smaller maps the tasks split the output channels (rows of whole tiles)
MIN_TASK_PANELS = 4
#: multiply-adds (per image) from which a convolution is split over the threads
SPLIT_MACS = 1 << 20

_scratch = threading.local()


def panel_conv_kernels() -> ModuleType | None:
    """The :mod:`~xmo.backends.cpu.kernels.pconv_jit` module, or None without numba."""
    return jit_module("pconv_jit")


def panel_conv_fits(epi: Epi | None) -> bool:
    """Whether :func:`panel_conv` can apply the fused epilogue ``epi``
    over column ranges: per-row (per-channel) constants or none."""
    if epi is None:
        return True
    ca, cb, period, _ = epi
    return period > 0 or not (ca.size or cb.size)


def _panels(size: int) -> np.ndarray:
    buf = getattr(_scratch, "buf", None)
    if buf is None or buf.size < size:
        buf = np.empty(size, np.float32)
        _scratch.buf = buf
    return buf


def _task(jit: ModuleType, x: np.ndarray, b: int, geometry: tuple, ow: int, wm: np.ndarray,
          out: np.ndarray, q0: int, q1: int, r0: int, r1: int, epi: Epi | None) -> None:
    """Rows ``[r0, r1)`` x pixels ``[q0, q1)`` of image ``b``'s output
    ``out`` [M, Ho*Wo] (C-contiguous), in blocks of panels packed here;
    ``wm`` the filters [M, K] or their tiles (``gemm_jit.pack_tiles``)."""
    gemm_jit = panel_kernels()
    nr = gemm_jit.NR
    k = wm.shape[1]
    ldc = out.shape[1]
    block = max(1, PANEL_BLOCK_BYTES // (k * nr * 4)) * nr
    buf = _panels(-(-min(block, q1 - q0) // nr) * k * nr)
    o1 = out.reshape(-1)
    for qa in range(q0, q1, block):
        qb = min(q1, qa + block)
        p = -(-(qb - qa) // nr)
        panels = buf[:p * k * nr].reshape(p, k, nr)
        jit.pack_conv(x, b, *geometry, ow, qa, qb, panels)
        gemm_jit.gemm_panels(wm, panels, out[:, qa:qb], r0, r1, 0, p)
    if epi is not None:  # the task's part of the output, just written (mostly in L2)
        row_kernels().bias_act_cols(o1, ldc, q0, q1, r0, r1, *epi)


def panel_conv(
    x: np.ndarray, wm: np.ndarray, kernel: Sequence[int], strides: Sequence[int],
    dilations: Sequence[int], pads_begin: Sequence[int], out_dims: tuple[int, int],
    epi: Epi | None = None, tiles: np.ndarray | None = None,
) -> np.ndarray:
    """Single-group 2-D f32 convolution on the panel micro-kernel: ``x``
    unpadded [N, C, H, W], ``wm`` the C-contiguous filters [M, C*Kh*Kw]
    (multiplied as their ``tiles``, ``gemm_jit.pack_tiles(wm)``, when given)
    -> a fresh C-contiguous [N, M, Ho, Wo], with the fused epilogue ``epi``
    applied when given (:func:`panel_conv_fits`)."""
    jit = panel_conv_kernels()
    n, c, h, w = x.shape
    m, k = wm.shape
    oh, ow = out_dims
    hw = oh * ow
    x = x if x.flags.c_contiguous else np.ascontiguousarray(x)
    kh, kw = kernel
    if kh == kw == 1 and all(s == 1 for s in strides) and not any(pads_begin) and (h, w) == (oh, ow):
        # pointwise: each channel's map is one row of pixels
        x = x.reshape(n, c, 1, hw)
        geometry: tuple = (1, 1, 1, 1, 1, 1, 0, 0)
        row = hw
    else:
        geometry = (kh, kw, strides[0], strides[1], dilations[0], dilations[1],
                    pads_begin[0], pads_begin[1])
        row = ow
    out = np.empty((n, m, hw), np.float32)
    tasks = _tasks(jit, x, geometry, row, wm if tiles is None else tiles, out, epi)
    par = threads.native_tasks() if len(tasks) > 1 else None
    if par is not None:  # the same tasks on the native launcher
        w = wm if tiles is None else tiles
        nr = panel_kernels().NR
        block = max(1, PANEL_BLOCK_BYTES // (w.shape[1] * nr * 4)) * nr
        spans = np.array([args[2:3] + args[7:11] for _, args in tasks], np.int64)
        ca, cb, period, prm = no_epi(np.float32) if epi is None else epi
        par.panel_conv(x, *geometry, row, w, out, spans, block, ca, cb, period, prm,
                       epi is not None, threads.TASK_MXCSR)
    else:
        threads.run_tasks(tasks)
    return out.reshape(n, m, oh, ow)


def _tasks(jit: ModuleType, x: np.ndarray, geometry: tuple, row: int, wm: np.ndarray,
           out: np.ndarray, epi: Epi | None) -> list[tuple[Callable[..., object], tuple]]:
    gemm_jit = panel_kernels()
    n, m, hw = out.shape
    nr, mr = gemm_jit.NR, gemm_jit.MR
    panels = -(-hw // nr)
    parts = threads.threads() if m * wm.shape[1] * hw >= SPLIT_MACS else 1
    per_image = max(1, -(-parts // n))
    tasks = []
    for b in range(n):
        if per_image > 1 and panels < per_image * MIN_TASK_PANELS and m >= per_image * mr:
            cuts = tile_cuts(m, mr, per_image)
            tasks.extend((_task, (jit, x, b, geometry, row, wm, out[b], 0, hw, r0, r1, epi))
                         for r0, r1 in zip(cuts, cuts[1:]) if r1 > r0)
        else:
            ranges = min(per_image, panels)
            cuts = tile_cuts(hw, nr, ranges)
            tasks.extend((_task, (jit, x, b, geometry, row, wm, out[b], q0, q1, 0, m, epi))
                         for q0, q1 in zip(cuts, cuts[1:]) if q1 > q0)
    return tasks


def _gather_task(jit: ModuleType, x: np.ndarray, b: int, geometry: tuple, ow: int,
                 a: np.ndarray, q0: int, q1: int) -> None:
    jit.im2row(x, b, *geometry, ow, q0, q1, a[b, q0:q1])


def _filters_task(act: Callable[..., None], a: np.ndarray, panels: np.ndarray, out: np.ndarray,
                  b: int, p0: int, p1: int, epi: Epi | None) -> None:
    """Output channels ``[p0 * NR, min(M, p1 * NR))`` of image ``b``:
    ``a[b] @`` those filter panels into a scratch [Ho*Wo, channels],
    transposed into ``out`` [N, M, Ho*Wo], the epilogue over its rows."""
    gemm_jit = panel_kernels()
    nr = gemm_jit.NR
    m = out.shape[1]
    c0, c1 = p0 * nr, min(m, p1 * nr)
    hw = out.shape[2]
    tile = np.empty((hw, c1 - c0), np.float32)
    gemm_jit.gemm_panels(a[b], panels[p0:p1], tile, 0, hw, 0, p1 - p0)
    np.copyto(out[b, c0:c1], tile.T)
    if epi is not None:
        o1 = out.reshape(-1)
        act(o1, o1, *epi, hw, b * m + c0, b * m + c1)


def packed_filters_conv(
    x: np.ndarray, filters: PackedMatrix, kernel: Sequence[int], strides: Sequence[int],
    dilations: Sequence[int], pads_begin: Sequence[int], out_dims: tuple[int, int],
    epi: Epi | None = None,
) -> np.ndarray:
    """Single-group 2-D f32 convolution with its filters packed once:
    ``filters`` the :class:`~xmo.backends.cpu.kernels.packed.PackedMatrix`
    of :func:`filters_rows` [Kh*Kw*C, M]. Each image's windows are
    gathered pixel-major (the transposed im2col matrix, one pool task per
    range of pixels), then multiplied by ranges of the filter panels (one
    task per range of output channels: the filters are read once in all),
    each range transposed into the output's rows and its epilogue ``epi``
    (per-channel constants, :func:`panel_conv_fits`) run over them. ``x``
    unpadded [N, C, H, W] -> a fresh C-contiguous [N, M, Ho, Wo]. Small
    maps: nothing is padded to whole panels of pixels."""
    jit = panel_conv_kernels()
    n = x.shape[0]
    k, m = filters.k, filters.n
    oh, ow = out_dims
    hw = oh * ow
    x = x if x.flags.c_contiguous else np.ascontiguousarray(x)
    geometry = (kernel[0], kernel[1], strides[0], strides[1], dilations[0], dilations[1],
                pads_begin[0], pads_begin[1])
    a = np.empty((n, hw, k), np.float32)
    nt = threads.threads() if m * k * hw >= SPLIT_MACS else 1
    per_image = max(1, -(-nt // n))
    gather = []
    for b in range(n):
        cuts = [hw * i // per_image for i in range(per_image + 1)]
        gather.extend((_gather_task, (jit, x, b, geometry, ow, a, q0, q1))
                      for q0, q1 in zip(cuts, cuts[1:]) if q1 > q0)
    par = threads.native_tasks() if len(gather) > 1 else None
    if par is not None:
        par.im2row(x, *geometry, ow, a, np.array([args[2:3] + args[6:8] for _, args in gather],
                                                 np.int64), threads.TASK_MXCSR)
    else:
        threads.run_tasks(gather)
    out = np.empty((n, m, hw), np.float32)
    p = filters.panels.shape[0]
    ranges = min(per_image, p)
    cuts = [p * i // ranges for i in range(ranges + 1)]
    spans = [(b, p0, p1) for b in range(n) for p0, p1 in zip(cuts, cuts[1:])]
    if par is not None and len(spans) > 1:
        ca, cb, period, prm = no_epi(np.float32) if epi is None else epi
        par.filters_conv(a, filters.panels, out, np.array(spans, np.int64), ca, cb, period, prm,
                         epi is not None, threads.TASK_MXCSR)
        return out.reshape(n, m, oh, ow)
    act = row_kernels().bias_act if epi is not None else None
    threads.run_tasks([(_filters_task, (act, a, filters.panels, out, *span, epi))
                       for span in spans])
    return out.reshape(n, m, oh, ow)


def filters_rows(w: np.ndarray) -> np.ndarray:
    """[M, C, Kh, Kw] filters as the right operand of
    :func:`packed_filters_conv`: [Kh*Kw*C, M] (taps in (tap row, tap column,
    channel) order)."""
    m = w.shape[0]
    return np.ascontiguousarray(w.transpose(2, 3, 1, 0)).reshape(-1, m)


#: output pixels from which :func:`dense_conv_plan` packs the windows into
#: panels (:func:`panel_conv`); smaller maps multiply the windows by filters
#: packed once (:func:`packed_filters_conv`: no pixel panel padded, the
#: filters -- large against such a map -- read once, not repacked)
PANEL_MIN_PIXELS = 768


def dense_conv_plan(
    x: np.ndarray, w: np.ndarray, strides: Sequence[int], dilations: Sequence[int],
    pads_begin: Sequence[int], out_dims: tuple[int, int], epi: Epi | None = None,
) -> Callable[[np.ndarray], np.ndarray] | None:
    """``run(x)`` for a single-group 2-D f32 convolution with [M, C, Kh, Kw]
    filters ``w`` of several taps on the packed-panel micro-kernel
    (:func:`panel_conv` on maps of :data:`PANEL_MIN_PIXELS` pixels or more,
    else :func:`packed_filters_conv`), applying ``epi`` when given; None when
    it does not take the convolution (not f32, negative leading pads, no
    numba, a 1x1 kernel, an epilogue with per-column constants)."""
    if (x.ndim != 4 or w.ndim != 4 or x.dtype != np.float32 or w.dtype != np.float32
            or math.prod(w.shape[2:]) < 2 or min(pads_begin) < 0 or not panel_conv_fits(epi)
            or panel_conv_kernels() is None):
        return None
    kernel = tuple(w.shape[2:])
    if math.prod(out_dims) >= PANEL_MIN_PIXELS:
        wm = np.ascontiguousarray(w.reshape(w.shape[0], -1))
        rows = pack_rows(wm)  # None over the packing budget: the filters read in place
        if rows is None:
            return lambda v: panel_conv(v, wm, kernel, strides, dilations, pads_begin, out_dims, epi)
        return lambda v: panel_conv(v, wm, kernel, strides, dilations, pads_begin, out_dims, epi,
                                    rows.tiles)
    filters = pack(filters_rows(w))
    if filters is None:
        return None
    return lambda v: packed_filters_conv(v, filters, kernel, strides, dilations, pads_begin,
                                         out_dims, epi)
