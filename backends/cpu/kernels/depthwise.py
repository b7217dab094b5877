"""Depthwise 2-D convolution (one input channel per group) on one numba kernel.

:func:`depthwise_conv` computes ``out[n, c * Mg + m] = sum over (ky, kx) of
w[c * Mg + m, ky, kx] * x[n, c, oy * sh + ky * dh - ph, ox * sw + kx * dw - pw]``
(zero outside the input) in the NCHW layout. Per input channel the kernel
copies the plane once into a zero-bordered buffer split by stride phase
(padded row ``r * sh + a``, column ``q * sw + p`` land in phase plane
``(a, p)``), so that every tap reads one phase plane at a fixed offset with
unit stride; the border stays zero from the task's first channel on (only
the interior is copied, by a loop specialised for column stride 1 and 2). The
output rows are then computed over the flattened phase-plane grid (``Wq``
columns a row, the extra ones dropped when the rows are copied out): one
pass per kernel row, its taps unrolled for 3-, 5- and 7-wide kernels. Each output sums its terms in tap order (tap row,
tap column) from zero in the output dtype, like the other convolution paths.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

from xmo.backends.cpu import threads

#: channels split across the CPU-backend threads at about this many
#: multiply-adds per task (smaller convolutions run as one task)
MACS_PER_TASK = 300_000
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
#: kernel's channels-innermost layout: the per-channel passes are short) ...
DEPTHWISE_MIN_PIXELS = 144
#: ... or this many with kernels of more than 9 taps (5x5: a 14x14 map runs
#: faster on the direct kernel, a 20x20 one here)
DEPTHWISE_MIN_PIXELS_WIDE = 400


def depthwise_preferred(
    x: np.ndarray, w: np.ndarray, out_dims: Sequence[int], pads_begin: Sequence[int]
) -> bool:
    """Whether :func:`depthwise_conv` runs this grouped convolution: eligible
    (:func:`depthwise_eligible`) and a large enough output map
    (``DEPTHWISE_MIN_PIXELS``, ``DEPTHWISE_MIN_PIXELS_WIDE``)."""
    wide = math.prod(w.shape[3:]) > 9
    least = DEPTHWISE_MIN_PIXELS_WIDE if wide else DEPTHWISE_MIN_PIXELS
    return math.prod(out_dims) >= least and depthwise_eligible(x, w, pads_begin)


def depthwise_weights(w: np.ndarray) -> np.ndarray:
    """[G, Mg, 1, Kh, Kw] filters as :func:`depthwise_conv` takes them:
    contiguous [G * Mg, Kh, Kw]."""
    g, mg, _, kh, kw = w.shape
    return np.ascontiguousarray(w.reshape(g * mg, kh, kw))


def depthwise_conv(
    x: np.ndarray, wt: np.ndarray, mg: int, strides: Sequence[int], dilations: Sequence[int],
    pads_begin: Sequence[int], out_dims: tuple[int, ...],
) -> np.ndarray:
    """``x`` [N, C, H, W], ``wt`` from :func:`depthwise_weights` ([C * Mg,
    Kh, Kw]), ``mg`` output channels per input channel, ``out_dims`` the
    output map -> [N, C * Mg, Ho, Wo]; the input channels split across the
    CPU-backend threads when there is enough work. Negative leading pads crop
    the input."""
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
    parts = min(threads.threads(), c, max(1, macs // MACS_PER_TASK))
    if parts <= 1:
        kernel(x, wt, mg, *geometry, out, 0, c)
    else:
        threads.run_tasks([(kernel, (x, wt, mg, *geometry, out, c * i // parts,
                                     c * (i + 1) // parts)) for i in range(parts)])
    return out


def depthwise_kernel():
    """The numba kernel of :func:`depthwise_conv` (None without numba),
    compiled on first use (cached on disk):
    ``kernel(x, wt, mg, sh, sw, dh, dw, ph, pw, out, c0, c1)`` computes the
    input channels ``[c0, c1)``."""
    global _kernel
    if _kernel is None:
        try:
            import numba
        except ImportError:
            _kernel = False
            return None

        @numba.njit(cache=True, nogil=True)
        def depthwise(x, wt, mg, sh, sw, dh, dw, ph, pw, out, c0, c1):  # pragma: no cover
            n, _, ih, iw = x.shape
            kh, kw = wt.shape[1], wt.shape[2]
            oh, ow = out.shape[2], out.shape[3]
            hq = oh + ((kh - 1) * dh) // sh
            wq = ow + ((kw - 1) * dw) // sw
            pq = hq * wq
            length = (oh - 1) * wq + ow
            buf = np.zeros(sh * sw * pq, x.dtype)
            acc = np.empty(length, x.dtype)
            offs = np.empty(kw, np.int64)
            wv = np.empty(kw, x.dtype)
            zero = np.zeros(1, x.dtype)[0]
            for b in range(n):
                for ci in range(c0, c1):
                    # the interior of every phase plane (its border stays zero)
                    for a in range(sh):
                        ra = a - ph
                        r0 = max(0, -(ra // sh))
                        r1 = min(hq, (ih - 1 - ra) // sh + 1) if ih - 1 - ra >= 0 else 0
                        for p in range(sw):
                            o = p - pw
                            q0 = max(0, -(o // sw))
                            q1 = min(wq, (iw - 1 - o) // sw + 1) if iw - 1 - o >= 0 else 0
                            base = (a * sw + p) * pq
                            if q1 <= q0:
                                continue
                            for r in range(r0, r1):
                                # slices: non-negative loop indices vectorize
                                xr = x[b, ci, r * sh + ra]
                                dst = buf[base + r * wq + q0:base + r * wq + q1]
                                if sw == 1:
                                    src = xr[q0 + o:q1 + o]
                                    for q in range(q1 - q0):
                                        dst[q] = src[q]
                                elif sw == 2:
                                    src = xr[2 * q0 + o:]
                                    for q in range(q1 - q0):
                                        dst[q] = src[2 * q]
                                else:
                                    src = xr[q0 * sw + o:]
                                    for q in range(q1 - q0):
                                        dst[q] = src[q * sw]
                    for m in range(mg):
                        co = ci * mg + m
                        acc[:] = zero
                        for ky in range(kh):
                            t = ky * dh
                            roff = ((t % sh) * sw) * pq + (t // sh) * wq
                            for kx in range(kw):
                                t = kx * dw
                                offs[kx] = roff + (t % sw) * pq + t // sw
                                wv[kx] = wt[co, ky, kx]
                            if kw == 3:
                                w0, w1, w2 = wv[0], wv[1], wv[2]
                                s0 = buf[offs[0]:offs[0] + length]
                                s1 = buf[offs[1]:offs[1] + length]
                                s2 = buf[offs[2]:offs[2] + length]
                                for j in range(length):
                                    v = acc[j]
                                    v += w0 * s0[j]
                                    v += w1 * s1[j]
                                    v += w2 * s2[j]
                                    acc[j] = v
                            elif kw == 5:
                                w0, w1, w2, w3, w4 = wv[0], wv[1], wv[2], wv[3], wv[4]
                                s0 = buf[offs[0]:offs[0] + length]
                                s1 = buf[offs[1]:offs[1] + length]
                                s2 = buf[offs[2]:offs[2] + length]
                                s3 = buf[offs[3]:offs[3] + length]
                                s4 = buf[offs[4]:offs[4] + length]
                                for j in range(length):
                                    v = acc[j]
                                    v += w0 * s0[j]
                                    v += w1 * s1[j]
                                    v += w2 * s2[j]
                                    v += w3 * s3[j]
                                    v += w4 * s4[j]
                                    acc[j] = v
                            elif kw == 7:
                                w0, w1, w2, w3, w4 = wv[0], wv[1], wv[2], wv[3], wv[4]
                                w5, w6 = wv[5], wv[6]
                                s0 = buf[offs[0]:offs[0] + length]
                                s1 = buf[offs[1]:offs[1] + length]
                                s2 = buf[offs[2]:offs[2] + length]
                                s3 = buf[offs[3]:offs[3] + length]
                                s4 = buf[offs[4]:offs[4] + length]
                                s5 = buf[offs[5]:offs[5] + length]
                                s6 = buf[offs[6]:offs[6] + length]
                                for j in range(length):
                                    v = acc[j]
                                    v += w0 * s0[j]
                                    v += w1 * s1[j]
                                    v += w2 * s2[j]
                                    v += w3 * s3[j]
                                    v += w4 * s4[j]
                                    v += w5 * s5[j]
                                    v += w6 * s6[j]
                                    acc[j] = v
                            else:
                                for kx in range(kw):
                                    w0 = wv[kx]
                                    s0 = buf[offs[kx]:offs[kx] + length]
                                    for j in range(length):
                                        acc[j] += w0 * s0[j]
                        oc = out[b, co]
                        for oy in range(oh):
                            orow = oc[oy]
                            ar = acc[oy * wq:oy * wq + ow]
                            for ox in range(ow):
                                orow[ox] = ar[ox]

        _kernel = depthwise
    return _kernel or None
