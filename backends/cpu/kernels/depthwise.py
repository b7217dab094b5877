"""Depthwise 2-D convolution (one input channel per group) on one numba kernel
(:mod:`~xmo.backends.cpu.kernels.depthwise_jit`).

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
applied by each task to the output channels it computed, while they are in
cache (tasks of about ``EPI_ELEMENTS`` outputs; outside the kernel: numba
would compile bias_act's activations into it, 3x its compile time).
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

from xmo.backends.cpu import threads
from xmo.backends.cpu.kernels.rows import Epi

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
#: output pixels (smaller maps with many channels run faster on the direct
#: kernel's channels-innermost layout: 4x4 maps at stride 1 take 1.2x longer
#: here, 3x3 ones 1.7x, 5x5 ones about the same; 7x7 ones 0.6-0.9x, one
#: thread, session 31) ...
DEPTHWISE_MIN_PIXELS = 49
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
    (``DEPTHWISE_MIN_PIXELS``) and rows not much wider than the output's
    (``DEPTHWISE_MAX_EXTRA_COLUMNS``)."""
    if math.prod(out_dims) < DEPTHWISE_MIN_PIXELS or not depthwise_eligible(x, w, pads_begin):
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
    arguments of ``rows_jit.bias_act``, applied by each task to the output
    channels it computed (rows of the output seen as [N * C * Mg, Ho * Wo];
    tasks of at most about ``EPI_ELEMENTS`` outputs then: still in cache)."""
    n, c = x.shape[:2]
    kh, kw = wt.shape[1:]
    out = np.empty((n, c * mg) + tuple(out_dims), x.dtype)
    if min(pads_begin) < 0:
        x = x[:, :, max(0, -pads_begin[0]):, max(0, -pads_begin[1]):]
        pads_begin = [max(0, p) for p in pads_begin]
    x = x if x.flags.c_contiguous else np.ascontiguousarray(x)
    kernel = depthwise_kernel()
    geometry = (strides[0], strides[1], dilations[0], dilations[1], pads_begin[0], pads_begin[1])
    macs = n * c * mg * kh * kw * math.prod(out_dims)
    nt = threads.threads()
    parts = 1 if nt < 2 else min(n * c, TASKS_PER_THREAD * nt, max(1, macs // MACS_PER_TASK))
    if epi is not None:
        parts = min(n * c, max(parts, -(-out.size // EPI_ELEMENTS)))
    if parts <= 1:
        ranges = [(0, c, 0, n)]
    elif n >= parts:  # whole images
        ranges = [(0, c, n * i // parts, n * (i + 1) // parts) for i in range(parts)]
    else:  # channel ranges of one image
        per = -(-parts // n)
        ranges = [(c * i // per, c * (i + 1) // per, b, b + 1) for b in range(n)
                  for i in range(per)]
    if epi is None:
        tasks = [(kernel, (x, wt, mg, *geometry, out, *r)) for r in ranges]
    else:
        from xmo.backends.cpu.kernels import rows_jit  # numba: there (the kernel is)

        o1 = out.reshape(-1)
        hw = math.prod(out_dims)
        cout = c * mg
        tasks = [(_conv_epilogue, (kernel, (x, wt, mg, *geometry, out, *r), rows_jit.bias_act,
                                   (o1, o1, *epi, hw), _rows(r, cout, mg)))
                 for r in ranges]
    threads.run_tasks(tasks)
    return out


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
