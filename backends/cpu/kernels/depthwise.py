"""Depthwise 2-D convolution (one input channel per group) on numba kernels
(:mod:`~xmo.backends.cpu.kernels.depthwise_jit`): the phase-plane kernel
below, and on tiny maps a channels-innermost one (:func:`tiny_depthwise_plan`).

:func:`depthwise_conv` computes ``out[n, c * Mg + m] = sum over (ky, kx) of
w[c * Mg + m, ky, kx] * x[n, c, oy * sh + ky * dh - ph, ox * sw + kx * dw - pw]``
(zero outside the input) in the NCHW layout. Per input channel the kernel
copies the plane once into a zero-bordered buffer split by stride phase
(padded row ``r * sh + a``, column ``q * sw + p`` land in phase plane
``(a, p)``; at column stride 2 both column phases in one pass over each
row, two input vectors split by two shuffles), so that every tap reads one
phase plane at a fixed offset with unit stride; the border stays zero from
the task's first channel on. The output rows are computed in blocks over
the flattened phase-plane grid (``Wq`` columns a row, the extra ones dropped
when the rows are copied out; about ``depthwise_jit.BLOCK_ELEMENTS`` sums a
block, which stay in L1): all the taps of any kernel size in one pass
(``depthwise_jit.tap_sums``: ``TAP_VECTORS`` output vectors at a time, their
sums in registers over the taps); the loops run over whole vectors (into a
slack at the buffers' ends), the row copies in whole vectors and one masked
vector. Each output sums its terms in tap order (tap row, tap column) from
zero in the output dtype, multiply then add (no contraction), like the
other convolution paths. An optional
epilogue (``epi``: the constant arguments of ``rows_jit.bias_act``) is
applied by the kernel to each output channel's plane right after its sums,
while the plane is in L1 / L2 (numba compiles bias_act's activations into
the kernel, once: the disk cache keeps it); the tiny-map kernel applies it
per task after its channel range.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence

import numpy as np

from xmo.backends.cpu import threads
from xmo.backends.cpu.kernels.rows import Epi, no_epi

#: channels split across the CPU-backend threads at about this many
#: multiply-adds per task (smaller convolutions run as one task)
MACS_PER_TASK = 300_000
#: at most this many tasks a thread (the pool hands them out as threads
#: come free: a late or busy thread delays only its share)
TASKS_PER_THREAD = 4
#: with a fused epilogue the tasks compute at most about this many outputs
#: each (then the epilogue over them, in L2)
EPI_ELEMENTS = 65536
_DTYPES = (np.dtype(np.float32), np.dtype(np.float64))

_kernel: object = None


def depthwise_eligible(x: np.ndarray, w: np.ndarray, pads_begin: Sequence[int]) -> bool:
    """Whether :func:`depthwise_conv` takes this grouped convolution (``w``:
    [G, Mg, Cg, Kh, Kw]): 2-D, G > 1, one input channel per group, float,
    numba available."""
    return (w.ndim == 5 and x.ndim == 4 and len(pads_begin) == 2 and w.shape[0] > 1
            and w.shape[2] == 1 and x.dtype in _DTYPES and w.dtype == x.dtype
            and depthwise_kernel() is not None)


#: :func:`depthwise_conv` takes depthwise convolutions with at least this many
#: output pixels (smaller maps with many channels run faster channels
#: innermost, :func:`tiny_depthwise_plan`; session 33, per call with the
#: bias + HSwish epilogue, alternating, medians, one thread: the 7x7 maps of
#: 288-1152 channels, 3x3 and 5x5 kernels, stride 1 and 2, of
#: mobilenet_v3_small / efficientnet_b0 in 0.71-0.82x the phase-plane
#: kernel's time, 8x8 and 10x10 maps of 96-960 channels 0.74-0.91x; 14x14
#: maps 1.0-1.3x) ...
DEPTHWISE_MIN_PIXELS = 101
#: ... or, with a channel multiplier (Mg > 1: the tiny kernel copies its
#: input in scalar loops, 7x7 and 10x10 maps 1.7-3.6x the phase-plane
#: kernel's time, session 33), at least this many
DEPTHWISE_MIN_PIXELS_MULTIPLIER = 49
#: ... and at most this many extra columns per output column in the padded
#: phase-plane rows (``((Kw - 1) * dw // sw) / Wo``; computed, then dropped:
#: on 7x7 maps 7x7 kernels, 0.86, and 3x3 ones dilated 4, 1.14, still run
#: 0.7-0.9x the direct kernel's time here; session 31)
DEPTHWISE_MAX_EXTRA_COLUMNS = 1.2


def depthwise_preferred(
    x: np.ndarray, w: np.ndarray, out_dims: Sequence[int], pads_begin: Sequence[int],
    strides: Sequence[int] = (1, 1), dilations: Sequence[int] = (1, 1),
) -> bool:
    """Whether :func:`depthwise_conv` runs this grouped convolution: eligible
    (:func:`depthwise_eligible`), a large enough output map
    (``DEPTHWISE_MIN_PIXELS``, ``DEPTHWISE_MIN_PIXELS_MULTIPLIER`` with a
    channel multiplier) and rows not much wider than the output's
    (``DEPTHWISE_MAX_EXTRA_COLUMNS``)."""
    least = DEPTHWISE_MIN_PIXELS if w.shape[1] == 1 else DEPTHWISE_MIN_PIXELS_MULTIPLIER
    if math.prod(out_dims) < least or not depthwise_eligible(x, w, pads_begin):
        return False
    extra = (w.shape[4] - 1) * dilations[1] // strides[1]
    return extra <= DEPTHWISE_MAX_EXTRA_COLUMNS * out_dims[1]


def depthwise_weights(w: np.ndarray) -> np.ndarray:
    """[G, Mg, 1, Kh, Kw] filters as :func:`depthwise_conv` takes them:
    contiguous [G * Mg, Kh, Kw]."""
    g, mg, _, kh, kw = w.shape
    return np.ascontiguousarray(w.reshape(g * mg, kh, kw))


def depthwise_conv(
    x: np.ndarray, wt: np.ndarray, mg: int, strides: Sequence[int], dilations: Sequence[int],
    pads_begin: Sequence[int], out_dims: tuple[int, ...],
    epi: Epi | None = None,
) -> np.ndarray:
    """``x`` [N, C, H, W], ``wt`` from :func:`depthwise_weights` ([C * Mg,
    Kh, Kw]), ``mg`` output channels per input channel, ``out_dims`` the
    output map -> [N, C * Mg, Ho, Wo]; the (image, channel range) tasks split
    across the CPU-backend threads when there is enough work. Negative
    leading pads crop the input. ``epi = (a, b, period, prm)``: the constant
    arguments of ``rows_jit.bias_act``, applied by the kernel to each output
    channel's plane right after its sums (a row of the output seen as
    [N * C * Mg, Ho * Wo])."""
    n, c = x.shape[:2]
    kh, kw = wt.shape[1:]
    out = np.empty((n, c * mg) + tuple(out_dims), x.dtype)
    if min(pads_begin) < 0:
        x = x[:, :, max(0, -pads_begin[0]):, max(0, -pads_begin[1]):]
        pads_begin = [max(0, p) for p in pads_begin]
    x = x if x.flags.c_contiguous else np.ascontiguousarray(x)
    kernel = depthwise_kernel()
    geometry = (strides[0], strides[1], dilations[0], dilations[1], pads_begin[0], pads_begin[1])
    ranges = _task_ranges(n, c, n * c * mg * kh * kw * math.prod(out_dims), None)
    if epi is None:  # the kernel's arguments for none: an empty prm
        epi = no_epi(x.dtype)
    par = threads.native_tasks() if len(ranges) > 1 else None
    if par is not None:
        par.depthwise(x, wt, mg, *geometry, out, np.array(ranges, np.int64), *epi,
                      threads.TASK_MXCSR)
    else:
        threads.run_tasks([(kernel, (x, wt, mg, *geometry, out, *r, *epi)) for r in ranges])
    return out




def _task_ranges(n: int, units: int, macs: int,
                 epi_size: int | None) -> list[tuple[int, int, int, int]]:
    """The kernel ranges (u0, u1, b0, b1) of ``n`` images of ``units``
    channel units (channels, or blocks of them) for ``macs`` multiply-adds:
    one range below ``MACS_PER_TASK``, else up to ``TASKS_PER_THREAD`` a
    thread, whole images when there are enough of them, else unit ranges of
    each image; with an epilogue (over ``epi_size`` outputs) at least one a
    ``EPI_ELEMENTS`` outputs."""
    nt = threads.threads()
    parts = 1 if nt < 2 else min(n * units, TASKS_PER_THREAD * nt, max(1, macs // MACS_PER_TASK))
    if epi_size is not None:
        parts = min(n * units, max(parts, -(-epi_size // EPI_ELEMENTS)))
    if parts <= 1:
        return [(0, units, 0, n)]
    if n >= parts:  # whole images
        return [(0, units, n * i // parts, n * (i + 1) // parts) for i in range(parts)]
    per = -(-parts // n)  # unit ranges of one image
    return [(units * i // per, units * (i + 1) // per, b, b + 1) for b in range(n)
            for i in range(per)]


def _rows(r: tuple[int, int, int, int], cout: int, mg: int) -> tuple[int, int]:
    """The output rows ([N * Cout, Ho * Wo]) of the kernel range ``r`` =
    (c0, c1, b0, b1): contiguous (whole images, or channels of one image)."""
    c0, c1, b0, b1 = r
    return b0 * cout + c0 * mg, (b1 - 1) * cout + c1 * mg


def _conv_epilogue(kernel, args: tuple, bias_act, epi_args: tuple, rows: tuple[int, int]) -> None:
    """One task with the fused epilogue: the kernel's range, then bias_act
    over its output rows while they are in cache."""
    kernel(*args)
    bias_act(*epi_args, *rows)


#: :func:`tiny_depthwise_plan` takes the depthwise convolutions that
#: :func:`depthwise_preferred` leaves with at most this many output pixels
#: (the direct kernel's before; session 32: the 2x2 and 4x4 maps of 24-144
#: channels in 0.44-0.64x the direct kernel's time, 0.25-0.6x the
#: phase-plane kernel's; session 33, with its vector transposes: up to 10x10
#: maps 0.71-0.91x the phase-plane kernel's, see ``DEPTHWISE_MIN_PIXELS``;
#: 14x14 ones 1.0-1.3x)
TINY_MAX_PIXELS = 100
#: ... with a channel multiplier at most this many (session 32's bound)
TINY_MAX_PIXELS_MULTIPLIER = 64


def tiny_preferred(
    x: np.ndarray, w: np.ndarray, out_dims: Sequence[int], pads_begin: Sequence[int],
) -> bool:
    """Whether :func:`tiny_depthwise_plan` runs this grouped convolution (when
    :func:`depthwise_preferred` does not): eligible
    (:func:`depthwise_eligible`) and a tiny output map
    (``TINY_MAX_PIXELS``, ``TINY_MAX_PIXELS_MULTIPLIER`` with a channel
    multiplier)."""
    most = TINY_MAX_PIXELS if w.shape[1] == 1 else TINY_MAX_PIXELS_MULTIPLIER
    return math.prod(out_dims) <= most and depthwise_eligible(x, w, pads_begin)


def tiny_depthwise_plan(
    x: np.ndarray, w: np.ndarray, strides: Sequence[int], dilations: Sequence[int],
    pads_begin: Sequence[int], out_dims: tuple[int, ...], epi: Epi | None = None,
) -> Callable[[np.ndarray], np.ndarray]:
    """``run(x)``: :func:`depthwise_conv` on tiny maps for inputs shaped like
    ``x`` [N, C, H, W] with the [G, Mg, 1, Kh, Kw] filters ``w``
    (:func:`tiny_preferred`), on the channels-innermost kernel
    (``depthwise_jit.depthwise_tiny``), its weights, geometry and task
    ranges bound once. Each tap is one multiply-add over a vector of
    channels, so short rows cost nothing extra (the phase-plane kernel runs a
    tap over a row of one channel: on a 4x4 map a few lanes of a vector, and
    a pass per channel). The same sums in the same order: bit for bit
    :func:`depthwise_conv`. ``epi`` as there (bias_act over each task's
    output channels, run after its kernel range)."""
    n, c = x.shape[:2]
    g, mg, _, kh, kw = w.shape
    cout = g * mg
    kernel = tiny_kernel()
    from xmo.backends.cpu.kernels import depthwise_jit  # numba: there (the kernel is)

    pad = depthwise_jit.PAD
    wl = np.zeros((kh * kw, -(-cout // pad) * pad), x.dtype)
    wl[:, :cout] = w.reshape(cout, kh * kw).T
    crop = (max(0, -pads_begin[0]), max(0, -pads_begin[1]))
    geometry = (mg, kh, kw, strides[0], strides[1], dilations[0], dilations[1],
                max(0, pads_begin[0]), max(0, pads_begin[1]))
    shape = (n, cout) + tuple(out_dims)
    hw = math.prod(out_dims)
    ranges = [(u0 * pad, min(cout, u1 * pad), b0, b1) for u0, u1, b0, b1 in
              _task_ranges(n, -(-cout // pad), n * cout * kh * kw * hw,
                           None if epi is None else n * cout * hw)]
    args = [np.array(geometry + r, np.int64) for r in ranges]
    table = np.array(args, np.int64).reshape(len(args), -1)  # the native launcher's
    row_table = np.array([_rows(r, cout, 1) for r in ranges], np.int64).reshape(len(args), 2)
    if epi is not None:
        from xmo.backends.cpu.kernels import rows_jit  # numba: there (the kernel is)

        bias_act = rows_jit.bias_act
        rows = [_rows(r, cout, 1) for r in ranges]

    def run(v: np.ndarray) -> np.ndarray:
        if any(crop):
            v = v[:, :, crop[0]:, crop[1]:]
        v = v if v.flags.c_contiguous else np.ascontiguousarray(v)
        out = np.empty(shape, v.dtype)
        par = threads.native_tasks() if len(args) > 1 else None
        if par is not None:
            ca, cb, period, prm = no_epi(x.dtype) if epi is None else epi
            par.depthwise_tiny(v, wl, out, table, row_table, ca, cb, period, prm, hw,
                               epi is not None, threads.TASK_MXCSR)
            return out
        if epi is None:
            if len(args) == 1:
                kernel(v, wl, out, args[0])
            else:
                threads.run_tasks([(kernel, (v, wl, out, a)) for a in args])
            return out
        o1 = out.reshape(-1)
        threads.run_tasks([(_conv_epilogue, (kernel, (v, wl, out, a), bias_act,
                                             (o1, o1, *epi, hw), r))
                           for a, r in zip(args, rows)])
        return out

    return run


_tiny: object = None


def tiny_kernel():
    """The numba kernel of :func:`tiny_depthwise_plan` (None without numba):
    ``kernel(x, wl, out, g)`` computes the output channels ``[c0, c1)``
    (``c0`` a multiple of ``depthwise_jit.PAD``) of the images ``[b0,
    b1)``, ``g`` = (mg, kh, kw, sh, sw, dh, dw, ph, pw, c0, c1, b0, b1)."""
    global _tiny
    if depthwise_kernel() is None:  # no numba (or switched off with it)
        return None
    if _tiny is None:
        from xmo.backends.cpu.kernels import depthwise_jit  # numba: there (the kernel is)

        _tiny = depthwise_jit.depthwise_tiny
    return _tiny


def depthwise_kernel():
    """The numba kernel of :func:`depthwise_conv` (None without numba),
    compiled on first use (cached on disk): ``kernel(x, wt, mg, sh, sw, dh,
    dw, ph, pw, out, c0, c1, b0, b1)`` computes the
    input channels ``[c0, c1)`` of the images ``[b0, b1)`` (see
    :mod:`~xmo.backends.cpu.kernels.depthwise_jit`)."""
    global _kernel
    if _kernel is None:
        try:
            from xmo.backends.cpu.kernels import depthwise_jit  # numba: a lazy import
        except ImportError:
            _kernel = False
            return None
        _kernel = depthwise_jit.depthwise
    return _kernel or None
