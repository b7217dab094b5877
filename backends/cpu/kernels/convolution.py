"""Convolution, GroupConvolution and their backprop-data (transposed) forms.

Every form is one grouped N-D convolution: pad, gather the windows (im2col) and
multiply with the filters (one matmul per group). Faster forms where they pay:
one GEMM for pointwise convolutions, a GEMM per kernel tap over only the
outputs the tap reads input for (:func:`valid_tap_conv`: dilated convolutions
whose taps mostly read padding), the tap-GEMM of a stride-1 convolution with
few output channels, numba kernels for depthwise and grouped convolutions
(depthwise: :func:`~xmo.backends.cpu.kernels.depthwise.depthwise_conv` on
larger maps, :func:`~xmo.backends.cpu.kernels.depthwise.tiny_depthwise_plan`
on tiny ones; grouped with a few channels per group:
:func:`~xmo.backends.cpu.kernels.grouped.small_group_conv`; :func:`direct_conv`
on small maps; split across the CPU-backend threads), single-group
convolutions as im2col + GEMM in blocks of output rows split over the threads
(:func:`blocked_conv`), the im2col matrix gathered by one numba pass
(:func:`im2col`) or, for a patch embedding (stride == kernel), by one
transposed copy (:func:`patches`); stems (one group, few filter taps over
few input channels) straight from the input on numba (:func:`stem_conv`).
Planned single-group f32 convolutions of several taps run on the packed-panel
micro-kernel instead of the blocked and im2col GEMMs
(:mod:`~xmo.backends.cpu.kernels.panel_conv`).
"""

from __future__ import annotations

import math
import threading
from collections.abc import Callable, Sequence

import numpy as np

from xmo.backends.cpu.kernels._common import (
    float_work,
    ints,
    pad_trailing,
    spatial_attr,
    spatial_pads,
    tap_views,
    window_views,
)
from xmo.backends.cpu.kernels.depthwise import (
    depthwise_conv,
    depthwise_preferred,
    depthwise_weights,
    tiny_depthwise_plan,
    tiny_preferred,
)
from xmo.backends.cpu.kernels.grouped import small_group_conv, small_group_preferred
from xmo.backends.cpu.kernels.matmul import MIN_SPLIT_MACS, sized_matmul
from xmo.backends.cpu.kernels.panel_conv import dense_conv_plan
from xmo.backends.cpu.kernels.rows import Epi, no_epi, row_kernels
from xmo.backends.cpu.kernels.gemm_epi import (
    applies_epi, epi_applied, epi_columns, epi_rows_fit, gemm_epi_fits, gemm_epi_tasks,
    native_epi, strided_fits, then_epi,
)
from xmo.backends.cpu.kernels.rows import SPLIT_MIN
from xmo.backends.cpu import threads
from xmo.backends.cpu.fusion import mark_producer
from xmo.backends.cpu.dtypes import etype_dtype, tensor_dims
from xmo.backends.cpu.node import KernelNode, input_etype, plan_fused_with, plan_with
from xmo.backends.cpu.registry import register_kernel


def _pad_crop(x: np.ndarray, pb: Sequence[int], pe: Sequence[int]) -> np.ndarray:
    """Zero-pad the spatial dims (negative pads crop)."""
    if not any(pb) and not any(pe):
        return x
    n = len(pb)
    lead = x.ndim - n
    crop = tuple(
        slice(max(0, -b), x.shape[lead + i] - max(0, -e) if e < 0 else None)
        for i, (b, e) in enumerate(zip(pb, pe))
    )
    x = x[(slice(None),) * lead + crop]
    return pad_trailing(x, [(max(0, b), max(0, e)) for b, e in zip(pb, pe)])


def grouped_conv(
    x: np.ndarray,
    w: np.ndarray,
    strides: Sequence[int],
    dilations: Sequence[int],
    pads_begin: Sequence[int],
    pads_end: Sequence[int],
) -> np.ndarray:
    """``x``: [N, G*Cg, D...], ``w``: [G, Mg, Cg, K...] -> [N, G*Mg, O...].

    Single-group 2-D convolutions whose taps mostly read padding run
    :func:`valid_tap_conv` (:func:`valid_taps_pay`). 2-D depthwise and small
    grouped convolutions run :func:`direct_conv` (or, on larger depthwise
    maps, :func:`depthwise_conv`: ``depthwise_preferred``; on tiny depthwise
    maps its channels-innermost form, ``tiny_preferred``) when numba is there
    (:func:`direct_eligible`); grouped ones with few channels per group on larger
    maps run :func:`~xmo.backends.cpu.kernels.grouped.small_group_conv`
    (``small_group_preferred``). Otherwise 1x1 kernels are one
    GEMM on the (strided) input, depthwise kernels (Cg == 1) a multiply-add
    per kernel tap, one group with few filter taps over its input channels
    (a stem: :func:`stem_eligible`) :func:`stem_conv`, few output channels
    at stride 1 on large maps the tap-GEMM (:func:`tap_gemm_preferred`),
    anything else one GEMM per group
    over the im2col matrix (:func:`patches` when the windows tile the input,
    else :func:`blocked_conv` for one group on larger maps
    (:func:`blocked_eligible`), else :func:`im2col` with numba, else the
    padded input's window views).
    """
    g, mg, cg = w.shape[:3]
    kernel = tuple(w.shape[3:])
    n = x.shape[0]
    out_dims = conv_out_dims(x.shape[2:], kernel, strides, dilations, pads_begin, pads_end)
    if small_group_preferred(x, w, out_dims, pads_begin):
        return small_group_conv(x, w, strides, dilations, pads_begin, out_dims)
    if direct_eligible(x, w, out_dims, pads_begin):
        if depthwise_preferred(x, w, out_dims, pads_begin, strides, dilations):
            return depthwise_conv(x, depthwise_weights(w), mg, strides, dilations, pads_begin,
                                  out_dims)
        if tiny_preferred(x, w, out_dims, pads_begin):
            return tiny_depthwise_plan(x, w, strides, dilations, pads_begin, out_dims)(x)
        return direct_conv(x, direct_weights(w), mg, strides, dilations, pads_begin, out_dims)
    if g == 1 and valid_taps_pay(x.shape[2:], out_dims, w.shape[1:], strides, dilations,
                                 pads_begin, pads_end):
        return valid_tap_conv(x, tap_weights(w[0]), strides, dilations, pads_begin, out_dims)
    if stem_eligible(x, w, pads_begin, strides):
        return stem_conv(x, stem_weights(w.reshape(mg, -1)), mg, kernel, strides, dilations,
                         pads_begin, out_dims)
    kp = math.prod(kernel)
    op = math.prod(out_dims)
    if tap_gemm_preferred(w.shape, strides, x.shape[2:], out_dims, pads_begin, pads_end):
        return _tap_gemm_conv(_pad_crop(x, pads_begin, pads_end), w[0], dilations, out_dims)
    if kp > 1 and not (cg == 1 and g > 1):
        if patch_eligible(x.shape, kernel, strides, dilations, pads_begin, pads_end):
            cols = patches(x, kernel, out_dims)
        elif blocked_eligible(x, w, out_dims, pads_begin):
            return blocked_conv(x, w.reshape(mg, cg * kp), kernel, strides, dilations,
                                pads_begin, out_dims)
        elif im2col_eligible(x, pads_begin):
            cols = im2col(x, kernel, strides, dilations, pads_begin, out_dims)
        else:
            xp = _pad_crop(x, pads_begin, pads_end)
            cols = window_views(xp, kernel, strides, dilations, out_dims)
        return _im2col_gemm(cols.reshape(n, g, cg * kp, op), w.reshape(g, mg, cg * kp), out_dims)
    xp = _pad_crop(x, pads_begin, pads_end)
    if kp == 1:
        if any(s != 1 for s in strides):
            xp = xp[(slice(None), slice(None)) + tuple(slice(None, None, s) for s in strides)]
        cols = xp.reshape(n, g, cg, op)
    else:
        # depthwise: out[n, g, m] = sum_k w[g, m, k] * x[n, g] shifted by tap k
        wk = w.reshape(g, mg, kp)
        out = None
        for j, v in enumerate(tap_views(xp, kernel, strides, dilations, out_dims)):
            v = v.reshape(n, g, 1, op)
            t = v * wk[None, :, :, j, None]
            if out is None:
                out = t
            else:
                out += t
        return out.reshape((n, g * mg) + out_dims)
    return _im2col_gemm(cols, w.reshape(g, mg, cg * kp), out_dims)


def _im2col_gemm(cols: np.ndarray, wm: np.ndarray, out_dims: Sequence[int]) -> np.ndarray:
    """``cols`` [N, G, Cg*K, O] times the filters ``wm`` [G, Mg, Cg*K]:
    [N, G*Mg, O...] (one GEMM per group)."""
    n = cols.shape[0]
    g, mg = wm.shape[:2]
    if g == 1:
        out = sized_matmul(wm[0], cols[:, 0])  # [N, M, O]
    else:
        out = sized_matmul(wm[None], cols)  # [N, G, Mg, O]
    return out.reshape((n, g * mg) + tuple(out_dims))


def patch_eligible(
    in_shape: Sequence[int], kernel: Sequence[int], strides: Sequence[int],
    dilations: Sequence[int], pads_begin: Sequence[int], pads_end: Sequence[int],
) -> bool:
    """Whether the windows of a convolution tile its input: each stride
    equals its kernel extent, no dilation, no padding (the input's rows and
    columns past the last whole window are dropped). A patch embedding."""
    return (len(kernel) == 2 and len(in_shape) == 4 and math.prod(kernel) > 1
            and tuple(strides) == tuple(kernel) and all(d == 1 for d in dilations)
            and not any(pads_begin) and not any(pads_end))


def patches(x: np.ndarray, kernel: Sequence[int], out_dims: Sequence[int]) -> np.ndarray:
    """The im2col matrix [N, C*Kh*Kw, Ho*Wo] of a convolution whose windows
    tile ``x`` [N, C, H, W] (:func:`patch_eligible`): one transposed copy."""
    n, c = x.shape[:2]
    kh, kw = kernel
    oh, ow = out_dims
    v = x[:, :, :oh * kh, :ow * kw].reshape(n, c, oh, kh, ow, kw).transpose(0, 1, 3, 5, 2, 4)
    return np.ascontiguousarray(v).reshape(n, c * kh * kw, oh * ow)


#: grouped (Cg > 1) convolutions run the direct kernel up to this many output
#: pixels; larger maps are faster as one GEMM per group over the im2col matrix
DIRECT_MAX_GROUPED_PIXELS = 16
#: the direct kernel splits its groups across the CPU-backend threads at
#: about this many multiply-adds per task (smaller convolutions run whole)
DIRECT_MACS_PER_TASK = 500_000
_DIRECT_DTYPES = (np.dtype(np.float32), np.dtype(np.float64))

_direct: object = None


def conv_out_dims(
    in_dims: Sequence[int], kernel: Sequence[int], strides: Sequence[int],
    dilations: Sequence[int], pads_begin: Sequence[int], pads_end: Sequence[int],
) -> tuple[int, ...]:
    """The output map of a convolution (ValueError when empty)."""
    out = tuple(
        (d + b + e - ((k - 1) * dl + 1)) // s + 1
        for d, k, s, dl, b, e in zip(in_dims, kernel, strides, dilations, pads_begin, pads_end))
    if any(o <= 0 for o in out):
        raise ValueError(f"convolution output would be empty: {out}")
    return out


def direct_eligible(
    x: np.ndarray, w: np.ndarray, out_dims: Sequence[int], pads_begin: Sequence[int]
) -> bool:
    """Whether :func:`direct_conv` takes this grouped convolution (``w``:
    [G, Mg, Cg, K...]): 2-D, G > 1, float, non-negative leading pads, depthwise
    (Cg == 1) or a small output map, and numba available."""
    g, _, cg = w.shape[:3]
    if (g == 1 or w.ndim != 5 or x.dtype not in _DIRECT_DTYPES or w.dtype != x.dtype
            or min(pads_begin) < 0):
        return False
    if cg > 1 and math.prod(out_dims) > DIRECT_MAX_GROUPED_PIXELS:
        return False
    return direct_conv_kernel() is not None


def direct_weights(w: np.ndarray) -> np.ndarray:
    """[G, Mg, Cg, Kh, Kw] filters as the direct kernel takes them:
    [Cg, Kh, Kw, G*Mg] (contiguous over the output channels)."""
    g, mg, cg, kh, kw = w.shape
    return np.ascontiguousarray(w.transpose(2, 3, 4, 0, 1)).reshape(cg, kh, kw, g * mg)


def direct_conv(
    x: np.ndarray, wt: np.ndarray, mg: int, strides: Sequence[int], dilations: Sequence[int],
    pads_begin: Sequence[int], out_dims: tuple[int, ...],
) -> np.ndarray:
    """2-D grouped convolution on the direct kernel: ``x`` [N, G*Cg, H, W],
    ``wt`` from :func:`direct_weights`, ``mg`` output channels per group,
    ``out_dims`` the output map (:func:`conv_out_dims`)."""
    n = x.shape[0]
    cg, kh, kw, cout = wt.shape
    out = np.empty((n, cout) + out_dims, x.dtype)
    x = x if x.flags.c_contiguous else np.ascontiguousarray(x)
    geometry = (strides[0], strides[1], dilations[0], dilations[1], pads_begin[0], pads_begin[1])
    groups = cout // mg
    macs = n * cout * cg * kh * kw * math.prod(out_dims)
    parts = min(threads.threads(), groups, max(1, macs // DIRECT_MACS_PER_TASK))
    if parts <= 1:
        _direct(x, wt, mg, *geometry, out)
        return out
    # the groups split into ranges, one task per (image, range): every
    # argument stays C-contiguous (one compiled form of the kernel)
    tasks = []
    for a, b in ((groups * i // parts, groups * (i + 1) // parts) for i in range(parts)):
        wp = np.ascontiguousarray(wt[:, :, :, a * mg:b * mg])
        for i in range(n):
            tasks.append((_direct, (x[i:i + 1, a * cg:b * cg], wp, mg, *geometry,
                                    out[i:i + 1, a * mg:b * mg])))
    threads.run_tasks(tasks)
    return out


def direct_conv_kernel():
    """The direct grouped-convolution kernel
    (:func:`~xmo.backends.cpu.kernels.conv_jit.direct`: output channels
    innermost, fast on small maps), or None without numba. Compiled on first
    use (cached on disk): ``direct(x, wt, mg, sh, sw, dh, dw, ph, pw, out)``."""
    global _direct
    if _direct is None:
        try:
            from xmo.backends.cpu.kernels import conv_jit
        except ImportError:  # no numba
            _direct = False
            return None
        _direct = conv_jit.direct
    return _direct or None


#: single-group convolutions whose filters have at most this many taps over
#: all their input channels (Cg*Kh*Kw: a 3x3 stem on 3 channels has 27) run
#: :func:`stem_conv`: the im2col GEMM has too few rows to multiply per packed
#: value ...
STEM_MAX_TAPS = 32
#: ... and so do those over at most :data:`STEM_FEW_CHANNELS` input channels
#: with up to :data:`STEM_MAX_FEW_TAPS` taps (a 7x7 stem on 3 channels has
#: 147: its sums in registers over all the taps, session 33, measured
#: faster than the packed-panel GEMM)
STEM_FEW_CHANNELS = 3
STEM_MAX_FEW_TAPS = 160
#: :func:`stem_conv` computes an output channel over about this many values
#: of a block of output rows at a time (longer vectors, fewer passes; the
#: block's input planes stay in the fast caches)
STEM_BLOCK_VALUES = 1024


def stem_eligible(x: np.ndarray, w: np.ndarray, pads_begin: Sequence[int],
                  strides: Sequence[int] | None = None) -> bool:
    """Whether :func:`stem_conv` runs a convolution with [G, Mg, Cg, K...]
    filters ``w``: one group, 2-D, a kernel of several taps, at most
    :data:`STEM_MAX_TAPS` taps over the input channels (or, given its
    ``strides`` and not a patch embedding -- stride equal to the kernel: the
    patch GEMM, 0.93x the stem kernel's step on convnext's 4x4 3->96 --
    :data:`STEM_MAX_FEW_TAPS` over at most :data:`STEM_FEW_CHANNELS`),
    float, non-negative leading pads, numba available."""
    taps = math.prod(w.shape[2:])
    return (w.shape[0] == 1 and w.ndim == 5 and x.ndim == 4 and math.prod(w.shape[3:]) > 1
            and (taps <= STEM_MAX_TAPS
                 or (strides is not None and tuple(strides) != tuple(w.shape[3:])
                     and w.shape[2] <= STEM_FEW_CHANNELS and taps <= STEM_MAX_FEW_TAPS))
            and x.dtype in _DIRECT_DTYPES
            and w.dtype == x.dtype and min(pads_begin) >= 0 and stem_kernel() is not None)


def stem_conv(
    x: np.ndarray, ws: np.ndarray, m: int, kernel: Sequence[int], strides: Sequence[int],
    dilations: Sequence[int], pads_begin: Sequence[int], out_dims: tuple[int, int],
    epi: Epi | None = None,
) -> np.ndarray:
    """Single-group 2-D convolution with few input channels on the stem
    kernel (:func:`~xmo.backends.cpu.kernels.conv_jit.stem_block`): ``x``
    unpadded [N, C, H, W], ``ws`` the :func:`stem_weights` of the ``m``
    output channels' filters -> a fresh C-contiguous [N, M, Ho, Wo]; the
    output rows split across the CPU-backend threads. ``epi`` (a fused
    epilogue, per-channel constants or none: :func:`stem_epi_fits`) runs in
    each task over the rows it has just written, still in the core's L2
    cache (``rows_jit.bias_act_cols``), instead of a separate pass over
    the whole output."""
    n = x.shape[0]
    ck = ws.shape[1]
    kh, kw = kernel
    oh, ow = out_dims
    x = x if x.flags.c_contiguous else np.ascontiguousarray(x)
    out = np.empty((n, m, oh, ow), x.dtype)
    geometry = (kh, kw, strides[0], strides[1], dilations[0], dilations[1],
                pads_begin[0], pads_begin[1])
    block = stem_kernel()
    macs = n * m * ck * oh * ow
    parts = max(1, min(threads.threads(), oh, macs // DIRECT_MACS_PER_TASK))
    per_image = -(-parts // n)
    cuts = [oh * i // per_image for i in range(per_image + 1)]
    wq = ow + (kw - 1) * dilations[1] // strides[1]
    rows = max(1, min(oh, STEM_BLOCK_VALUES // wq))
    spans = [(b, y0, y1) for b in range(n) for y0, y1 in zip(cuts, cuts[1:]) if y1 > y0]
    par = threads.native_tasks() if len(spans) > 1 else None
    if par is not None:
        ca, cb, period, prm = no_epi(x.dtype) if epi is None else epi
        par.stem(x, ws, *geometry, np.array(spans, np.int64), rows, out, ca, cb, period, prm,
                 epi is not None, threads.TASK_MXCSR)
        return out
    if epi is None:
        threads.run_tasks([(block, (x, ws, *geometry, b, y0, y1, rows, out))
                           for b, y0, y1 in spans])
        return out
    act = row_kernels().bias_act_cols
    o1 = out.reshape(-1)
    threads.run_tasks([(_stem_task, (block, (x, ws, *geometry, b, y0, y1, rows, out), act,
                                     (o1, oh * ow, y0 * ow, y1 * ow, b * m, (b + 1) * m, *epi)))
                       for b, y0, y1 in spans])
    return out


def stem_epi_fits(epi: Epi | None) -> bool:
    """Whether :func:`stem_conv` applies the fused epilogue ``epi`` in its
    tasks (over ranges of columns of the output's rows of channels):
    per-channel constants or none."""
    if epi is None:
        return False
    ca, cb, period, _ = epi
    return period > 0 or not (ca.size or cb.size)


def _stem_task(block, args: tuple, act, epi_args: tuple) -> None:
    """One task of :func:`stem_conv` with its epilogue: the kernel over the
    task's output rows, then the epilogue over them."""
    block(*args)
    act(*epi_args)


def stem_weights(wm: np.ndarray) -> np.ndarray:
    """[M, C*Kh*Kw] filters as the stem kernel takes them: contiguous, the
    rows zero-padded to a multiple of four (it computes four output
    channels at a time)."""
    m = wm.shape[0]
    if m % 4 == 0:
        return np.ascontiguousarray(wm)
    out = np.zeros((-(-m // 4) * 4, wm.shape[1]), wm.dtype)
    out[:m] = wm
    return out


_stem: object = None


def stem_kernel():
    """:func:`~xmo.backends.cpu.kernels.conv_jit.stem_block`, or None without numba."""
    global _stem
    if _stem is None:
        try:
            from xmo.backends.cpu.kernels import conv_jit
        except ImportError:  # no numba
            _stem = False
            return None
        _stem = conv_jit.stem_block
    return _stem or None


def im2col_eligible(x: np.ndarray, pads_begin: Sequence[int]) -> bool:
    """Whether :func:`im2col` gathers the windows of ``x``: 2-D, float,
    non-negative leading pads, numba available."""
    return (x.ndim == 4 and x.dtype in _DIRECT_DTYPES and min(pads_begin) >= 0
            and im2col_kernel() is not None)


def im2col(
    x: np.ndarray, kernel: Sequence[int], strides: Sequence[int], dilations: Sequence[int],
    pads_begin: Sequence[int], out_dims: Sequence[int],
) -> np.ndarray:
    """The im2col matrix [N, C*Kh*Kw, Ho*Wo] of unpadded ``x`` [N, C, H, W]
    on numba: each channel copied once into a zero-padded plane, its windows'
    rows gathered from there (rows in (channel, tap row, tap column) order,
    like :func:`window_views` of the padded input; no padded copy of the
    whole input, no per-tap numpy calls)."""
    n, c = x.shape[:2]
    kh, kw = kernel
    cols = np.empty((n, c * kh * kw) + tuple(out_dims), x.dtype)
    x = x if x.flags.c_contiguous else np.ascontiguousarray(x)
    im2col_kernel()(x, kh, kw, strides[0], strides[1], dilations[0], dilations[1],
                    pads_begin[0], pads_begin[1], cols)
    return cols.reshape(n, c * kh * kw, math.prod(out_dims))


_im2col: object = None


def im2col_kernel():
    """numba kernel of :func:`im2col`
    (:func:`~xmo.backends.cpu.kernels.conv_jit.im2col`), None without numba:
    ``im2col(x, kh, kw, sh, sw, dh, dw, ph, pw, cols)``, ``cols``
    [N, C*Kh*Kw, Ho, Wo]."""
    global _im2col
    if _im2col is None:
        try:
            from xmo.backends.cpu.kernels import conv_jit
        except ImportError:  # no numba
            _im2col = False
            return None
        _im2col = conv_jit.im2col
    return _im2col or None


#: :func:`blocked_conv` gathers at most about this many bytes of im2col
#: columns per block (they stay in the core's L2 cache for the GEMM) ...
BLOCK_BYTES = 1 << 20
#: ... and at least this many output columns per block where the map allows
#: (narrower GEMMs lose BLAS speed): below it the whole im2col matrix and one
#: split GEMM (:func:`im2col` + :func:`~xmo.backends.cpu.kernels.matmul.sized_matmul`)
BLOCK_MIN_COLUMNS = 96

_scratch = threading.local()


def blocked_eligible(x: np.ndarray, w: np.ndarray, out_dims: Sequence[int],
                     pads_begin: Sequence[int]) -> bool:
    """Whether :func:`blocked_conv` runs a convolution with [G, Mg, Cg, K...]
    filters ``w``: one group, 2-D, a kernel of several taps, float,
    non-negative leading pads, numba available, and at least
    :data:`BLOCK_MIN_COLUMNS` output columns for every thread (smaller maps:
    one GEMM split over the output channels is faster)."""
    if (w.shape[0] != 1 or w.ndim != 5 or math.prod(w.shape[3:]) == 1 or x.ndim != 4
            or x.dtype not in _DIRECT_DTYPES or w.dtype != x.dtype or min(pads_begin) < 0
            or blocked_kernel() is None):
        return False
    return x.shape[0] * math.prod(out_dims) >= BLOCK_MIN_COLUMNS * threads.threads()


def blocked_conv(
    x: np.ndarray, wm: np.ndarray, kernel: Sequence[int], strides: Sequence[int],
    dilations: Sequence[int], pads_begin: Sequence[int], out_dims: tuple[int, int],
) -> np.ndarray:
    """Single-group 2-D convolution as im2col + GEMM in blocks of output rows:
    each task gathers the im2col columns of a few output rows of one image
    (:func:`blocked_kernel`, into a per-thread buffer of about
    :data:`BLOCK_BYTES`) and multiplies them with the filters ``wm``
    [M, C*Kh*Kw] straight into its rows of the output while they are in
    cache. The tasks split over the CPU-backend threads; no whole im2col
    matrix. ``x``: unpadded [N, C, H, W] -> a fresh C-contiguous
    [N, M, Ho, Wo]."""
    n, c = x.shape[:2]
    m, ck = wm.shape
    kh, kw = kernel
    oh, ow = out_dims
    x = x if x.flags.c_contiguous else np.ascontiguousarray(x)
    out = np.empty((n, m, oh, ow), x.dtype)
    rows = max(BLOCK_BYTES // (ck * ow * x.itemsize), -(-BLOCK_MIN_COLUMNS // ow))
    rows = max(1, min(rows, -(-n * oh // threads.threads()), oh))
    per_image = -(-oh // rows)
    geometry = (kh, kw, strides[0], strides[1], dilations[0], dilations[1],
                pads_begin[0], pads_begin[1])
    gather = blocked_kernel()
    tasks = []
    for b in range(n):
        cuts = [oh * i // per_image for i in range(per_image + 1)]
        tasks.extend((_conv_block, (gather, x, wm, b, y0, y1, geometry, out))
                     for y0, y1 in zip(cuts, cuts[1:]))
    threads.run_tasks(tasks)
    return out


def _conv_block(gather, x, wm, b, y0, y1, geometry, out) -> None:
    m, ck = wm.shape
    ow = out.shape[3]
    size = ck * (y1 - y0) * ow
    key = x.dtype.char
    buf = getattr(_scratch, key, None)
    if buf is None or buf.size < size:
        buf = np.empty(size, x.dtype)
        setattr(_scratch, key, buf)
    cols = buf[:size].reshape(ck, (y1 - y0) * ow)
    gather(x, b, *geometry, y0, y1, cols)
    np.matmul(wm, cols, out=out[b, :, y0:y1].reshape(m, (y1 - y0) * ow))


_blocked: object = None


def blocked_kernel():
    """numba kernel gathering one block of im2col columns
    (:func:`~xmo.backends.cpu.kernels.conv_jit.im2col_block`), None without
    numba: ``gather(x, b, kh, kw, sh, sw, dh, dw, ph, pw, y0, y1, cols)``
    writes the windows of output rows ``[y0, y1)`` of image ``b`` into
    ``cols`` [C*Kh*Kw, (y1-y0)*Wo]."""
    global _blocked
    if _blocked is None:
        try:
            from xmo.backends.cpu.kernels import conv_jit
        except ImportError:  # no numba
            _blocked = False
            return None
        _blocked = conv_jit.im2col_block
    return _blocked or None


def _tap_gemm_conv(
    xp: np.ndarray, w: np.ndarray, dilations: Sequence[int], out_dims: Sequence[int]
) -> np.ndarray:
    """Stride-1 2-D convolution without im2col: one GEMM of every kernel tap's
    [M, C] filter slice with the padded input flattened to [C, Hp*Wp], then the
    tap results summed at their shifted offsets. Each output row is computed
    over the padded width (the extra Wp-Wo columns are dropped). Cheaper than
    im2col when M is small against C (the taps' results are M rows, not C).

    ``xp``: padded [N, C, Hp, Wp], ``w``: [M, C, Kh, Kw] -> [N, M, Ho, Wo].
    """
    n, c, hp, wp = xp.shape
    m, _, kh, kw = w.shape
    oh, ow = out_dims
    dh, dw = dilations
    length = (oh - 1) * wp + ow
    wt = np.ascontiguousarray(w.transpose(2, 3, 0, 1)).reshape(kh * kw * m, c)
    out = np.empty((n, m, oh * wp), xp.dtype)
    for b in range(n):
        flat = np.ascontiguousarray(xp[b]).reshape(c, hp * wp)
        y = sized_matmul(wt, flat).reshape(kh * kw, m, hp * wp)
        acc = out[b, :, :length]
        t = 0
        for ky in range(kh):
            for kx in range(kw):
                off = ky * dh * wp + kx * dw
                if t == 0:
                    np.copyto(acc, y[0, :, off:off + length])
                else:
                    acc += y[t, :, off:off + length]
                t += 1
    # a fresh C-contiguous result (fused bias / activation epilogues run in it)
    return np.ascontiguousarray(out.reshape(n, m, oh, wp)[:, :, :, :ow])


def tap_ranges(
    in_len: int, out_len: int, kernel: int, stride: int, dilation: int, pad_begin: int
) -> list[tuple[int, int, int]]:
    """Per kernel tap along one spatial dim: ``(o0, o1, i0)``, the outputs
    ``[o0, o1)`` whose input ``o * stride + tap * dilation - pad_begin`` lies
    inside the (unpadded) input, and the input index of ``o0`` (``o1 <= o0``:
    the tap reads only padding)."""
    out = []
    for t in range(kernel):
        off = t * dilation - pad_begin
        o0 = max(0, -(off // stride))
        o1 = min(out_len, (in_len - 1 - off) // stride + 1)
        out.append((o0, o1, o0 * stride + off))
    return out


def valid_tap_macs(in_dims, out_dims, kernel, strides, dilations, pads_begin) -> int:
    """Output positions summed over the kernel taps that read the input (not
    padding): the multiply-adds per (output, input) channel pair of
    :func:`valid_tap_conv`."""
    total = 1
    for d, o, k, s, dl, b in zip(in_dims, out_dims, kernel, strides, dilations, pads_begin):
        total *= sum(max(0, o1 - o0) for o0, o1, _ in tap_ranges(d, o, k, s, dl, b))
    return total


#: :func:`valid_tap_conv` runs a single-group 2-D convolution when its
#: multiply-adds are at most this share of the GEMM path's it replaces
VALID_TAPS_MAX_SHARE = 0.75


def _tap_gemm_eligible(wshape: Sequence[int], strides: Sequence[int]) -> bool:
    """Whether :func:`_tap_gemm_conv` takes a convolution with [G, Mg, Cg, K...]
    filters: one group, a 2-D kernel of several taps, stride 1, 2*Mg <= Cg."""
    g, mg, cg = wshape[:3]
    return (g == 1 and len(wshape) == 5 and math.prod(wshape[3:]) > 1
            and all(s == 1 for s in strides) and 2 * mg <= cg)


#: :func:`_tap_gemm_conv` runs an eligible convolution only while its padded
#: map is at most this many times the output map (it multiplies over the
#: padded map: on small maps im2col is faster)
TAP_GEMM_MAX_AREA_RATIO = 1.2


def tap_gemm_preferred(
    wshape: Sequence[int], strides: Sequence[int], in_dims: Sequence[int],
    out_dims: Sequence[int], pads_begin: Sequence[int], pads_end: Sequence[int],
) -> bool:
    """Whether :func:`_tap_gemm_conv` runs a convolution with [G, Mg, Cg, K...]
    filters: :func:`_tap_gemm_eligible` and a padded map of at most
    :data:`TAP_GEMM_MAX_AREA_RATIO` times the output map."""
    padded = math.prod(d + b + e for d, b, e in zip(in_dims, pads_begin, pads_end))
    return (_tap_gemm_eligible(wshape, strides)
            and padded <= TAP_GEMM_MAX_AREA_RATIO * math.prod(out_dims))


def valid_taps_pay(
    in_dims: Sequence[int], out_dims: Sequence[int], wshape: Sequence[int],
    strides: Sequence[int], dilations: Sequence[int], pads_begin: Sequence[int],
    pads_end: Sequence[int],
) -> bool:
    """Whether :func:`valid_tap_conv` should run a single-group 2-D convolution
    with [Mg, Cg, Kh, Kw] filters ``wshape``: when the taps that read padding
    (large dilations and pads against the map) make the GEMM path's work,
    over the padded map (tap-GEMM) or every tap (im2col), clearly larger."""
    if len(wshape) != 4:
        return False
    kernel = wshape[2:]
    macs = valid_tap_macs(in_dims, out_dims, kernel, strides, dilations, pads_begin)
    kp = math.prod(kernel)
    if tap_gemm_preferred((1,) + tuple(wshape), strides, in_dims, out_dims, pads_begin, pads_end):
        dense = kp * math.prod(d + b + e for d, b, e in zip(in_dims, pads_begin, pads_end))
    else:
        dense = kp * math.prod(out_dims)
    return macs <= VALID_TAPS_MAX_SHARE * dense


def valid_tap_conv(
    x: np.ndarray, wt: np.ndarray, strides: Sequence[int], dilations: Sequence[int],
    pads_begin: Sequence[int], out_dims: tuple[int, int],
) -> np.ndarray:
    """2-D single-group convolution as one GEMM per kernel tap over only the
    outputs whose input the tap reads: taps and parts of taps that fall on
    the padding are skipped (a dilated convolution whose dilation reaches past
    the map is mostly padding). ``x``: unpadded [N, C, H, W]; ``wt``: the
    filters as [Kh, Kw, M, C] (:func:`tap_weights`) -> [N, M, Ho, Wo].

    Each tap multiplies its [M, C] filter slice with the input crop it reads
    (copied contiguous unless it is the whole input) and adds the product
    into its output window; a tap covering the whole output writes it first.
    """
    n, c, h, w = x.shape
    kh, kw, m, _ = wt.shape
    oh, ow = out_dims
    sh, sw = strides
    rows = tap_ranges(h, oh, kh, sh, dilations[0], pads_begin[0])
    cols = tap_ranges(w, ow, kw, sw, dilations[1], pads_begin[1])
    taps = [(ky, kx) for ky in range(kh) for kx in range(kw)
            if rows[ky][1] > rows[ky][0] and cols[kx][1] > cols[kx][0]]
    full = [t for t in taps
            if rows[t[0]][:2] == (0, oh) and cols[t[1]][:2] == (0, ow)]
    if full:  # the first whole-output tap initializes the output
        taps.remove(full[0])
        taps.insert(0, full[0])
    out = np.empty((n, m, oh, ow), x.dtype) if full else np.zeros((n, m, oh, ow), x.dtype)
    for b in range(n):
        xb = x[b]
        ob = out[b]
        for j, (ky, kx) in enumerate(taps):
            o0, o1, i0 = rows[ky]
            p0, p1, q0 = cols[kx]
            hh, ww = o1 - o0, p1 - p0
            if hh == h and ww == w and sh == 1 and sw == 1:
                src = xb
            else:
                src = xb[:, i0:i0 + (hh - 1) * sh + 1:sh, q0:q0 + (ww - 1) * sw + 1:sw]
            if not src.flags.c_contiguous:
                src = np.ascontiguousarray(src)
            src = src.reshape(c, hh * ww)
            if j == 0 and full:
                sized_matmul(wt[ky, kx], src, out=ob.reshape(m, oh * ow))
            else:
                ob[:, o0:o1, p0:p1] += sized_matmul(wt[ky, kx], src).reshape(m, hh, ww)
    return out


def tap_weights(w: np.ndarray) -> np.ndarray:
    """[M, C, Kh, Kw] filters as :func:`valid_tap_conv` takes them: [Kh, Kw, M, C]."""
    return np.ascontiguousarray(w.transpose(2, 3, 0, 1))


def _prepared_weights(node: KernelNode, w: np.ndarray, dtype: np.dtype, groups: bool) -> np.ndarray:
    """``w`` as a contiguous [G, Mg, Cg, K...] array of ``dtype``, cached per op
    (the weights are usually the same constant array on every run)."""
    hit = node.cache.get("w")
    if hit is not None and hit[0] is w and hit[1] == dtype:
        return hit[2]
    wp = np.ascontiguousarray(float_work(w).astype(dtype, copy=False))
    if not groups:
        wp = wp[None]
    node.cache["w"] = (w, dtype, wp)
    return wp


def _conv(node: KernelNode, x: np.ndarray, w: np.ndarray, groups: bool) -> np.ndarray:
    x = float_work(x)
    # a plan per node: made again when the weights array, input shape or dtype change
    plan = node.cache.get("plan")
    if plan is None or plan[0] is not w or plan[1] != x.shape or plan[2] != x.dtype:
        plan = (w, x.shape, x.dtype, _plan(node, x, w, groups))
        node.cache["plan"] = plan
    return plan[3](x)


def _plan(node: KernelNode, x: np.ndarray, w: np.ndarray, groups: bool,
          epi: Epi | None = None):
    """``run(x)`` for inputs shaped and typed like ``x``: the geometry and the
    prepared weights bound once. Pointwise (1x1, stride 1, unpadded, one
    group) convolutions are one GEMM; the other 2-D forms that
    :func:`grouped_conv` would choose are bound directly (the small-group, direct,
    depthwise and stem kernels, patches and im2col GEMMs), the rest run
    :func:`grouped_conv`.

    With ``epi`` (a fused epilogue, :mod:`~xmo.backends.cpu.kernels.gemm_epi`)
    the pointwise form applies it in its tasks (each image's GEMM in ranges
    of output channels, :func:`pointwise_epi`), the small-group and depthwise
    kernels to their finished rows, the dense f32 forms on the packed-panel
    micro-kernel (:func:`~xmo.backends.cpu.kernels.panel_conv.dense_conv_plan`,
    taken before :func:`blocked_conv` and the im2col GEMM) in their tasks, the
    stem kernel in its tasks over the rows each has just written (per-channel
    constants: :func:`stem_epi_fits`; with session 33's stem kernel
    0.68-0.81x the step's time of session 32's kernel and separate pass on
    the 224x224 and 320x320 3x3 stems with HSwish, Swish, Relu, two
    threads), a patch embedding's GEMM in ranges of
    output channels (:func:`pointwise_epi`, when ``gemm_epi_fits``;
    0.92-0.95x on convnext's 4x4 stride-4 3->96 stem), the pointwise,
    direct and stem forms on small outputs (below
    ``rows.SPLIT_MIN`` elements) in one pass right after them
    (:func:`~xmo.backends.cpu.kernels.gemm_epi.then_epi`); those runs are marked by
    :func:`~xmo.backends.cpu.kernels.gemm_epi.applies_epi`, the other forms
    ignore it (the caller keeps its epilogue pass). :func:`blocked_conv`
    applying it to each block (GEMM into a contiguous scratch, the epilogue,
    a copy into the output's rows) measured no faster than its separate
    pass (resnet50 3x3 64->64 at 56x56, stems; session 30)."""
    wp = _prepared_weights(node, w, x.dtype, groups)
    nsp = x.ndim - 2
    strides = spatial_attr(node, "strides", nsp)
    dil = spatial_attr(node, "dilations", nsp)
    pb, pe = spatial_pads(node, x.shape[2:], wp.shape[3:], strides, dil)
    g, mg, cg = wp.shape[:3]
    n = x.shape[0]
    if epi is not None and not epi_rows_fit(epi, g * mg):  # rows of one image: its channels
        epi = None  # the forms below without it
    if (g == 1 and math.prod(wp.shape[3:]) == 1 and x.shape[1] == cg and not any(pb)
            and not any(pe) and (x.ndim == 4 or all(s == 1 for s in strides))):
        wm = wp.reshape(mg, cg)
        if all(s == 1 for s in strides):
            sub = None
            dims = tuple(x.shape[2:])
        else:  # strided (a ResNet downsample): the pixels it reads, then the same GEMM
            sh, sw = strides
            sub = np.ascontiguousarray
            dims = tuple(conv_out_dims(x.shape[2:], (1, 1), strides, dil, pb, pe))
        hw = math.prod(dims)
        out_shape = (n, mg) + dims
        flat = (lambda v: v.reshape(n, cg, hw)) if sub is None else (
            lambda v: sub(v[:, :, ::sh, ::sw]).reshape(n, cg, hw))
        if epi is not None and (gemm_epi_fits(mg, cg, hw, x.itemsize)
                                or strided_fits(cg, x.dtype, hw)):
            return applies_epi(lambda v: pointwise_epi(wm, flat(v), epi).reshape(out_shape), epi)
        # a small product's epilogue right after it (then_epi)
        small = epi if n * mg * hw < SPLIT_MIN else None
        if hw == 1 and n * mg * cg < MIN_SPLIT_MACS:
            # a 1x1 map (squeeze-excitation): [N, C] x [C, M], one BLAS call
            # (np.dot); the epilogue over its rows of M, per-channel
            # constants one per column (the vector loop, not rows of one)
            wt, dot = np.ascontiguousarray(wm.T), np.dot
            cols, rown = epi_columns(small, mg)
            if sub is None:  # the input's own [N, C] view
                return then_epi(lambda v: dot(v.reshape(n, cg), wt).reshape(out_shape),
                                cols, rown)
            return then_epi(lambda v: dot(flat(v).reshape(n, cg), wt).reshape(out_shape),
                            cols, rown)
        if n == 1:
            return then_epi(lambda v: sized_matmul(wm, flat(v).reshape(cg, hw)).reshape(out_shape),
                            small, hw)
        return then_epi(lambda v: sized_matmul(wm, flat(v)).reshape(out_shape), small, hw)
    if x.ndim == 4:
        out_dims = conv_out_dims(x.shape[2:], wp.shape[3:], strides, dil, pb, pe)
        # the forms below that do not apply an epilogue themselves: a small
        # output's right after them (then_epi)
        small = epi if n * g * mg * math.prod(out_dims) < SPLIT_MIN else None
        if g == 1 and valid_taps_pay(x.shape[2:], out_dims, wp.shape[1:], strides, dil, pb, pe):
            tw = tap_weights(wp[0])
            return lambda v: valid_tap_conv(v, tw, strides, dil, pb, out_dims)
        if small_group_preferred(x, wp, out_dims, pb):
            return applies_epi(lambda v: small_group_conv(v, wp, strides, dil, pb, out_dims, epi), epi)
        if direct_eligible(x, wp, out_dims, pb):
            if depthwise_preferred(x, wp, out_dims, pb, strides, dil):
                dw = depthwise_weights(wp)
                return applies_epi(
                    lambda v: depthwise_conv(v, dw, mg, strides, dil, pb, out_dims, epi=epi), epi)
            if tiny_preferred(x, wp, out_dims, pb):
                return applies_epi(tiny_depthwise_plan(x, wp, strides, dil, pb, out_dims, epi), epi)
            wt = direct_weights(wp)
            hw = math.prod(out_dims)
            return then_epi(lambda v: direct_conv(v, wt, mg, strides, dil, pb, out_dims), small, hw)
        if stem_eligible(x, wp, pb, strides):
            ws = stem_weights(wp.reshape(mg, -1))
            kernel = wp.shape[3:]
            hw = math.prod(out_dims)
            if stem_epi_fits(epi):  # in its tasks
                return applies_epi(
                    lambda v: stem_conv(v, ws, mg, kernel, strides, dil, pb, out_dims, epi), epi)
            return then_epi(lambda v: stem_conv(v, ws, mg, kernel, strides, dil, pb, out_dims),
                            small, hw)
        kp = math.prod(wp.shape[3:])
        if (kp > 1 and not (cg == 1 and g > 1)
                and not tap_gemm_preferred(wp.shape, strides, x.shape[2:], out_dims, pb, pe)):
            kernel = wp.shape[3:]
            wm = wp.reshape(g, mg, cg * kp)
            cols_shape = (n, g, cg * kp, math.prod(out_dims))
            if patch_eligible(x.shape, kernel, strides, dil, pb, pe):
                hw = math.prod(out_dims)
                if (g == 1 and epi is not None
                        and gemm_epi_fits(mg, cg * kp, hw, x.itemsize)):
                    # a patch embedding with its epilogue: the pointwise
                    # form's GEMM in ranges of output channels, each range's
                    # epilogue in its task
                    wf = wm[0]
                    out_shape = (n, mg) + tuple(out_dims)
                    return applies_epi(lambda v: pointwise_epi(
                        wf, patches(v, kernel, out_dims), epi).reshape(out_shape), epi)
                return lambda v: _im2col_gemm(patches(v, kernel, out_dims).reshape(cols_shape),
                                              wm, out_dims)
            if g == 1:
                run = dense_conv_plan(x, wp[0], strides, dil, pb, out_dims, epi)
                if run is not None:
                    return applies_epi(run, epi)
            if blocked_eligible(x, wp, out_dims, pb):
                wb = wm[0]
                return lambda v: blocked_conv(v, wb, kernel, strides, dil, pb, out_dims)
            if im2col_eligible(x, pb):
                return lambda v: _im2col_gemm(
                    im2col(v, kernel, strides, dil, pb, out_dims).reshape(cols_shape), wm, out_dims)
    return lambda v: grouped_conv(v, wp, strides, dil, pb, pe)


def pointwise_epi(wm: np.ndarray, x: np.ndarray, epi: Epi) -> np.ndarray:
    """A pointwise convolution with its fused epilogue: ``wm`` [M, C] times
    each image of ``x`` [N, C, HW] in ranges of output channels, each
    range's epilogue in its task (:func:`~xmo.backends.cpu.kernels.gemm_epi.gemm_epi_tasks`; the
    epilogue's per-row constants with a period dividing M; f32 with few
    input channels on the in-place micro-kernel, ``gemm_epi.strided_fits``,
    also when the product does not split) -> a new C-contiguous [N, M, HW]."""
    n = x.shape[0]
    out = np.empty((n, wm.shape[0], x.shape[2]), x.dtype)
    if n == 1 and native_epi(wm, x[0], out[0], epi):
        return out
    tasks = []
    for i in range(n):
        tasks.extend(gemm_epi_tasks(wm, x[i], out[i], epi))
    threads.run_tasks(tasks)
    return out


def _conv_planner(groups: bool, fused: bool = False):
    """The plan of a (group) convolution kernel (:func:`~xmo.backends.cpu.node.plan_with`):
    with constant weights and an f32/f64 input of static dims whose channels
    fit them, the geometry's run function (:func:`_plan`) bound once; else
    None (the kernel, its plan per input shape, runs). ``fused``: the plan
    with a fused epilogue (:func:`~xmo.backends.cpu.node.plan_fused_with`),
    None unless the chosen form applies it."""

    def plan(node: KernelNode, consts: tuple,
             epi: Epi | None = None) -> Callable[..., np.ndarray] | None:
        w = consts[1] if len(consts) == 2 else None
        dims = tensor_dims(node.op.operands[0].type)
        dtype = etype_dtype(input_etype(node, 0))
        if (not isinstance(w, np.ndarray) or dims is None or len(dims) < 3
                or min(dims) < 0 or dtype not in _DIRECT_DTYPES
                or w.ndim != len(dims) + groups or w.dtype.kind not in "fiu"):
            return None
        channels = w.shape[0] * w.shape[2] if groups else w.shape[1]
        if dims[1] != channels:
            return None  # the kernel's own error, at run time
        like = np.broadcast_to(np.zeros((), dtype), dims)  # shape and dtype, no data
        try:
            run = _plan(node, like, w, groups, epi)
        except ValueError:  # an empty output map: the kernel raises it, named, at run time
            return None
        if fused and not epi_applied(run):
            return None
        return lambda x, w: run(x)

    if fused:
        return lambda node, consts, epi: plan(node, consts, epi)
    return lambda node, consts: plan(node, consts)


@register_kernel("ov.Convolution")
@plan_fused_with(_conv_planner(False, fused=True))
@plan_with(_conv_planner(False))
def _convolution(node: KernelNode, x: np.ndarray, w: np.ndarray) -> np.ndarray:
    return _conv(node, x, w, groups=False)


@register_kernel("ov.GroupConvolution")
@plan_fused_with(_conv_planner(True, fused=True))
@plan_with(_conv_planner(True))
def _group_convolution(node: KernelNode, x: np.ndarray, w: np.ndarray) -> np.ndarray:
    return _conv(node, x, w, groups=True)


# both return a new array: their bias and activation may run in its buffer
mark_producer("Convolution", _convolution)
mark_producer("GroupConvolution", _group_convolution)


def _backprop(
    node: KernelNode, x: np.ndarray, w: np.ndarray, output_shape: np.ndarray | None
) -> np.ndarray:
    """``x``: [N, G*Cg, D...], ``w``: [G, Cg, Mg, K...] (transposed conv)."""
    x = float_work(x)
    w = float_work(w).astype(x.dtype, copy=False)
    nsp = x.ndim - 2
    kernel = list(w.shape[3:])
    strides = spatial_attr(node, "strides", nsp)
    dil = spatial_attr(node, "dilations", nsp)
    out_pad = spatial_attr(node, "output_padding", nsp, default=0)
    in_dims = list(x.shape[2:])
    full = [s * (d - 1) + (k - 1) * dl + 1 for d, k, s, dl in zip(in_dims, kernel, strides, dil)]
    mode = str(node.attr("auto_pad", "explicit")).lower()
    if output_shape is not None:
        # the excess over the requested size is cropped: split evenly for
        # same_upper/same_lower (as OpenVINO: same_lower crops floor(total / 2)
        # at the beginning, same_upper the ceiling), after the explicit
        # pads_begin otherwise
        target = ints(output_shape)
        totals = [f + op - t for f, op, t in zip(full, out_pad, target)]
        if mode == "same_lower":
            pb = [t // 2 for t in totals]
        elif mode == "same_upper":
            pb = [t - t // 2 for t in totals]
        else:
            pb = spatial_attr(node, "pads_begin", nsp, default=0)
        pe = [t - b for t, b in zip(totals, pb)]
    elif mode in ("same_upper", "same_lower", "valid"):
        # OpenVINO infers the full output size here (no padding)
        pb, pe = [0] * nsp, [0] * nsp
    else:
        pb = spatial_attr(node, "pads_begin", nsp, default=0)
        pe = spatial_attr(node, "pads_end", nsp, default=0)
    # dilate the input by the strides
    if any(s > 1 for s in strides):
        shape = list(x.shape[:2]) + [(d - 1) * s + 1 for d, s in zip(in_dims, strides)]
        xd = np.zeros(shape, x.dtype)
        xd[(slice(None), slice(None)) + tuple(slice(None, None, s) for s in strides)] = x
        x = xd
    eff = [(k - 1) * dl for k, dl in zip(kernel, dil)]
    cb = [e - b for e, b in zip(eff, pb)]
    ce = [e - p + op for e, p, op in zip(eff, pe, out_pad)]
    # flip the spatial kernel, swap in/out channels: [G, Mg, Cg, K...]
    wf = np.flip(w, axis=tuple(range(3, w.ndim))).swapaxes(1, 2)
    return grouped_conv(x, np.ascontiguousarray(wf), [1] * nsp, dil, cb, ce)


@register_kernel("ov.ConvolutionBackpropData")
def _conv_backprop(
    node: KernelNode, x: np.ndarray, w: np.ndarray, output_shape: np.ndarray | None = None
) -> np.ndarray:
    return _backprop(node, x, w[None], output_shape)


@register_kernel("ov.GroupConvolutionBackpropData")
def _group_conv_backprop(
    node: KernelNode, x: np.ndarray, w: np.ndarray, output_shape: np.ndarray | None = None
) -> np.ndarray:
    return _backprop(node, x, w, output_shape)
