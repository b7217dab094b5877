"""Grouped 2-D convolutions with a few channels per group (RegNet's group
width 8, ResNeXt / ShuffleNet style) on one numba kernel.

:func:`small_group_conv` computes ``x`` [N, G*Cg, H, W] with ``w`` [G, Mg,
Cg, Kh, Kw] -> [N, G*Mg, Ho, Wo]. Per (image, group) the kernel
(:mod:`~xmo.backends.cpu.kernels.grouped_jit`) copies the group's input
channels once into zero-bordered planes split by stride phase, so that every
kernel tap reads one plane at a fixed offset with unit stride (stride 2 costs
no strided reads in the inner loop); then, per block of output rows kept in
L1, four output channels at a time accumulate three taps of a kernel row per
pass along the flattened rows. The (image, group) pairs split into tasks on
the CPU-backend pool. An optional epilogue ``epi = (a, b, period, prm)``
(the constant arguments of ``rows_jit.bias_act``) runs on each finished
group's output rows while they are in cache.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

from xmo.backends.cpu import threads
from xmo.backends.cpu.kernels.rows import Epi, no_epi

#: groups of at most this many input and output channels run
#: :func:`small_group_conv` (more: one GEMM per group pays) ...
GROUP_MAX_CHANNELS = 32
#: ... with at least this many output pixels (fewer: the direct kernel, faster
#: on 3x3 maps and below) ...
GROUP_MIN_PIXELS = 16
#: ... and groups of more than this many channels with at least
#: ``GROUP_WIDE_MIN_PIXELS`` (32-channel groups on a 7x7 map: the GEMMs)
GROUP_NARROW_CHANNELS = 16
GROUP_WIDE_MIN_PIXELS = 100
#: the (image, group) pairs split into tasks of about this many multiply-adds
#: (smaller convolutions run as one task)
MACS_PER_TASK = 300_000
_DTYPES = (np.dtype(np.float32), np.dtype(np.float64))

_kernel: object = None


def group_kernel():
    """The numba kernel (``grouped_jit.grouped``), None without numba."""
    global _kernel
    if _kernel is None:
        try:
            import numba  # noqa: F401
        except ImportError:
            _kernel = False
            return None
        from xmo.backends.cpu.kernels import grouped_jit

        _kernel = grouped_jit.grouped
    return _kernel or None


def small_group_preferred(
    x: np.ndarray, w: np.ndarray, out_dims: Sequence[int], pads_begin: Sequence[int],
) -> bool:
    """Whether :func:`small_group_conv` runs this grouped convolution (``w``:
    [G, Mg, Cg, Kh, Kw]): 2-D, G > 1, float, non-negative leading pads, more
    than one but at most ``GROUP_MAX_CHANNELS`` input channels and at most
    that many output channels per group, at least ``GROUP_MIN_PIXELS`` output
    pixels (``GROUP_WIDE_MIN_PIXELS`` for groups wider than
    ``GROUP_NARROW_CHANNELS``), numba available."""
    if w.ndim != 5 or x.ndim != 4:
        return False
    g, mg, cg = w.shape[:3]
    if (g == 1 or x.dtype not in _DTYPES or w.dtype != x.dtype or min(pads_begin) < 0
            or cg == 1 or max(mg, cg) > GROUP_MAX_CHANNELS):
        return False
    wide = max(mg, cg) > GROUP_NARROW_CHANNELS
    if math.prod(out_dims) < (GROUP_WIDE_MIN_PIXELS if wide else GROUP_MIN_PIXELS):
        return False
    return group_kernel() is not None


def small_group_conv(
    x: np.ndarray, w: np.ndarray, strides: Sequence[int], dilations: Sequence[int],
    pads_begin: Sequence[int], out_dims: tuple[int, ...], epi: Epi | None = None,
) -> np.ndarray:
    """``x`` [N, G*Cg, H, W], ``w`` contiguous [G, Mg, Cg, Kh, Kw] (the dtype
    of ``x``), non-negative ``pads_begin`` -> [N, G*Mg, Ho, Wo] (a new
    array); with ``epi``, ``bias_act`` applied to its rows."""
    n = x.shape[0]
    g, mg, cg, kh, kw = w.shape
    out = np.empty((n, g * mg) + tuple(out_dims), x.dtype)
    x = x if x.flags.c_contiguous else np.ascontiguousarray(x)
    kernel = group_kernel()
    geometry = (strides[0], strides[1], dilations[0], dilations[1], pads_begin[0], pads_begin[1])
    ea, eb, period, prm = no_epi(x.dtype) if epi is None else epi
    items = n * g
    macs = items * mg * cg * kh * kw * math.prod(out_dims)
    parts = min(items, max(1, macs // MACS_PER_TASK))
    if parts > 1:
        parts = min(parts, 4 * threads.threads())
    if parts <= 1 or threads.threads() < 2:
        kernel(x, w, *geometry, out, 0, items, ea, eb, period, prm)
    elif (par := threads.native_tasks()) is not None:
        cuts = np.array([items * i // parts for i in range(parts + 1)], np.int64)
        par.grouped(x, w, *geometry, out, cuts, ea, eb, period, prm, threads.TASK_MXCSR)
    else:
        threads.run_tasks([(kernel, (x, w, *geometry, out, items * i // parts,
                                     items * (i + 1) // parts, ea, eb, period, prm))
                           for i in range(parts)])
    return out
