"""numba kernels of :mod:`xmo.backends.cpu.kernels.convolution`, at module
level so that numba's on-disk cache finds them again. Imported only by
:func:`~xmo.backends.cpu.kernels.convolution.stem_kernel` (numba stays a lazy
import)."""

from __future__ import annotations

import numba
import numpy as np

from xmo.backends.cpu import vector_width

vector_width.configure()  # before the first kernel: numba's vector width


@numba.njit(cache=True, nogil=True, fastmath={"contract"})
def stem_block(x, w, kh, kw, sh, sw, dh, dw, ph, pw, b, y0, y1, rows, out):  # pragma: no cover
    """Output rows ``[y0, y1)`` of image ``b`` of a single-group 2-D
    convolution with few input channels, straight from the input, in blocks
    of ``rows`` output rows: ``x`` contiguous unpadded [N, C, H, W], ``w``
    contiguous [M', C*Kh*Kw] (taps in (channel, tap row, tap column) order;
    M' the M output channels rounded up to a multiple of four, the extra rows
    zero), ``out`` [N, M, Ho, Wo].

    A block's input is copied once, zero-padded and split by stride phase
    (padded row ``r * sh + a``, column ``q * sw + p`` at ``(r, q)`` of phase
    plane ``(a, p)``), so that every tap reads one phase plane at a fixed
    offset with unit stride. Each output channel's block is computed over the
    flattened phase-plane grid (``Wq`` columns a row; the ``Wq - Wo`` extra
    ones dropped when it is written out), four output channels at a time: a
    pass multiplies-adds four taps (the last one to three together) into four
    accumulators along one contiguous vector of about ``rows * Wq`` values.
    Each output sums its terms in im2col order (fused multiply-adds)."""
    c, ih, iw = x.shape[1], x.shape[2], x.shape[3]
    m = out.shape[1]
    ow = out.shape[3]
    taps = c * kh * kw
    wq = ow + ((kw - 1) * dw) // sw  # columns of a phase plane
    hq = rows + ((kh - 1) * dh) // sh  # rows of a phase plane
    pq = hq * wq
    planes = np.empty(c * sh * sw * pq, x.dtype)
    acc = np.empty((4, (rows - 1) * wq + ow), x.dtype)
    # each tap's plane and offset in it
    offs = np.empty(taps, np.int64)
    t = 0
    for ci in range(c):
        for ky in range(kh):
            for kx in range(kw):
                ey = ky * dh
                ex = kx * dw
                offs[t] = ((ci * sh + ey % sh) * sw + ex % sw) * pq + (ey // sh) * wq + ex // sw
                t += 1
    for z0 in range(y0, y1, rows):
        nr = min(rows, y1 - z0)
        length = (nr - 1) * wq + ow
        planes[:] = 0.0
        for ci in range(c):
            xc = x[b, ci]
            for a in range(sh):
                for r in range(hq):
                    iy = (z0 + r) * sh + a - ph
                    if iy < 0 or iy >= ih:
                        continue
                    xr = xc[iy]
                    for p in range(sw):
                        # the phase's columns q with 0 <= q*sw + p - pw < iw
                        lo = pw - p
                        q0 = min(wq, (lo + sw - 1) // sw) if lo > 0 else 0
                        hi = iw - 1 + pw - p
                        q1 = min(wq, hi // sw + 1) if hi >= 0 else 0
                        if q1 <= q0:
                            continue
                        base = ((ci * sh + a) * sw + p) * pq + r * wq
                        i0 = q0 * sw + p - pw
                        dst = planes[base + q0:base + q1]
                        src = xr[i0:]
                        # constant strides: vectorized loads
                        if sw == 1:
                            for q in range(q1 - q0):
                                dst[q] = src[q]
                        elif sw == 2:
                            for q in range(q1 - q0):
                                dst[q] = src[2 * q]
                        else:
                            for q in range(q1 - q0):
                                dst[q] = src[q * sw]
        for c0 in range(0, m, 4):
            # four output channels at a time (the filters are zero-padded to
            # a multiple of four rows): every source value loaded serves four
            # accumulators
            a0 = acc[0, :length]
            a1 = acc[1, :length]
            a2 = acc[2, :length]
            a3 = acc[3, :length]
            a0[:] = 0.0
            a1[:] = 0.0
            a2[:] = 0.0
            a3[:] = 0.0
            t = 0
            while t + 4 <= taps:
                s0 = planes[offs[t]:offs[t] + length]
                s1 = planes[offs[t + 1]:offs[t + 1] + length]
                s2 = planes[offs[t + 2]:offs[t + 2] + length]
                s3 = planes[offs[t + 3]:offs[t + 3] + length]
                w00, w01, w02, w03 = w[c0, t], w[c0, t + 1], w[c0, t + 2], w[c0, t + 3]
                w10, w11, w12, w13 = w[c0 + 1, t], w[c0 + 1, t + 1], w[c0 + 1, t + 2], w[c0 + 1, t + 3]
                w20, w21, w22, w23 = w[c0 + 2, t], w[c0 + 2, t + 1], w[c0 + 2, t + 2], w[c0 + 2, t + 3]
                w30, w31, w32, w33 = w[c0 + 3, t], w[c0 + 3, t + 1], w[c0 + 3, t + 2], w[c0 + 3, t + 3]
                for j in range(length):
                    x0 = s0[j]
                    x1 = s1[j]
                    x2 = s2[j]
                    x3 = s3[j]
                    v = a0[j]
                    v += w00 * x0
                    v += w01 * x1
                    v += w02 * x2
                    v += w03 * x3
                    a0[j] = v
                    v = a1[j]
                    v += w10 * x0
                    v += w11 * x1
                    v += w12 * x2
                    v += w13 * x3
                    a1[j] = v
                    v = a2[j]
                    v += w20 * x0
                    v += w21 * x1
                    v += w22 * x2
                    v += w23 * x3
                    a2[j] = v
                    v = a3[j]
                    v += w30 * x0
                    v += w31 * x1
                    v += w32 * x2
                    v += w33 * x3
                    a3[j] = v
                t += 4
            if taps - t == 3:
                s0 = planes[offs[t]:offs[t] + length]
                s1 = planes[offs[t + 1]:offs[t + 1] + length]
                s2 = planes[offs[t + 2]:offs[t + 2] + length]
                w00, w01, w02 = w[c0, t], w[c0, t + 1], w[c0, t + 2]
                w10, w11, w12 = w[c0 + 1, t], w[c0 + 1, t + 1], w[c0 + 1, t + 2]
                w20, w21, w22 = w[c0 + 2, t], w[c0 + 2, t + 1], w[c0 + 2, t + 2]
                w30, w31, w32 = w[c0 + 3, t], w[c0 + 3, t + 1], w[c0 + 3, t + 2]
                for j in range(length):
                    x0 = s0[j]
                    x1 = s1[j]
                    x2 = s2[j]
                    v = a0[j]
                    v += w00 * x0
                    v += w01 * x1
                    v += w02 * x2
                    a0[j] = v
                    v = a1[j]
                    v += w10 * x0
                    v += w11 * x1
                    v += w12 * x2
                    a1[j] = v
                    v = a2[j]
                    v += w20 * x0
                    v += w21 * x1
                    v += w22 * x2
                    a2[j] = v
                    v = a3[j]
                    v += w30 * x0
                    v += w31 * x1
                    v += w32 * x2
                    a3[j] = v
            elif taps - t == 2:
                s0 = planes[offs[t]:offs[t] + length]
                s1 = planes[offs[t + 1]:offs[t + 1] + length]
                w00, w01 = w[c0, t], w[c0, t + 1]
                w10, w11 = w[c0 + 1, t], w[c0 + 1, t + 1]
                w20, w21 = w[c0 + 2, t], w[c0 + 2, t + 1]
                w30, w31 = w[c0 + 3, t], w[c0 + 3, t + 1]
                for j in range(length):
                    x0 = s0[j]
                    x1 = s1[j]
                    v = a0[j]
                    v += w00 * x0
                    v += w01 * x1
                    a0[j] = v
                    v = a1[j]
                    v += w10 * x0
                    v += w11 * x1
                    a1[j] = v
                    v = a2[j]
                    v += w20 * x0
                    v += w21 * x1
                    a2[j] = v
                    v = a3[j]
                    v += w30 * x0
                    v += w31 * x1
                    a3[j] = v
            elif taps - t == 1:
                s0 = planes[offs[t]:offs[t] + length]
                w00 = w[c0, t]
                w10 = w[c0 + 1, t]
                w20 = w[c0 + 2, t]
                w30 = w[c0 + 3, t]
                for j in range(length):
                    x0 = s0[j]
                    v = a0[j]
                    v += w00 * x0
                    a0[j] = v
                    v = a1[j]
                    v += w10 * x0
                    a1[j] = v
                    v = a2[j]
                    v += w20 * x0
                    a2[j] = v
                    v = a3[j]
                    v += w30 * x0
                    a3[j] = v
            for k in range(min(4, m - c0)):
                oc = out[b, c0 + k]
                for oy in range(nr):
                    orow = oc[z0 + oy]
                    ar = acc[k, oy * wq:oy * wq + ow]
                    for ox in range(ow):
                        orow[ox] = ar[ox]

