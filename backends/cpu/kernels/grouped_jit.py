"""The numba kernel of :mod:`xmo.backends.cpu.kernels.grouped` (small-group
2-D convolutions), at module level so that numba's on-disk cache finds it
again. Imported only by :func:`~xmo.backends.cpu.kernels.grouped.group_kernel`
(numba stays a lazy import)."""

from __future__ import annotations

import numba
import numpy as np

from xmo.backends.cpu.kernels.rows_jit import bias_act

#: about this many elements of the flattened phase-plane grid per pass (a
#: block of whole output rows): the pass's accumulators, four channels of
#: them, and the rows it reads stay in L1
CHUNK = 512
#: the passes run over a multiple of this many elements (the extra ones read
#: the planes' slack and are dropped): no scalar remainder loops
VEC = 16


@numba.njit(cache=True, nogil=True)
def _fill_planes(x, b, c0, cg, sh, sw, ph, pw, hq, wq, planes):  # pragma: no cover (compiled)
    # input channels c0..c0+cg of image b into the phase planes: padded row
    # r * sh + a, column q * sw + p -> planes[c, (a * sw + p) * hq * wq + r * wq + q];
    # only the interior is written (the border stays zero from the start)
    ih, iw = x.shape[2], x.shape[3]
    pq = hq * wq
    for c in range(cg):
        xc = x[b, c0 + c]
        pc = planes[c]
        for a in range(sh):
            # the phase's rows r with 0 <= r*sh + a - ph < ih
            lo = ph - a
            r0 = min(hq, (lo + sh - 1) // sh) if lo > 0 else 0
            hi = ih - 1 + ph - a
            r1 = min(hq, hi // sh + 1) if hi >= 0 else 0
            for p in range(sw):
                lo = pw - p
                q0 = min(wq, (lo + sw - 1) // sw) if lo > 0 else 0
                hi = iw - 1 + pw - p
                q1 = min(wq, hi // sw + 1) if hi >= 0 else 0
                if q1 <= q0:
                    continue
                i0 = q0 * sw + p - pw
                base = (a * sw + p) * pq
                cnt = q1 - q0
                for r in range(r0, r1):
                    iy = r * sh + a - ph
                    d0 = base + r * wq + q0
                    # explicit loops: slice assignments cost more than these short rows
                    if sw == 1:
                        for q in range(cnt):
                            pc[d0 + q] = xc[iy, i0 + q]
                    elif sw == 2:
                        for q in range(cnt):
                            pc[d0 + q] = xc[iy, i0 + 2 * q]
                    else:
                        for q in range(cnt):
                            pc[d0 + q] = xc[iy, i0 + q * sw]


@numba.njit(cache=True, nogil=True, fastmath={"contract"})
def grouped(x, w, sh, sw, dh, dw, ph, pw, out, i0, i1, ea, eb, period, prm):  # pragma: no cover
    # groups i0..i1 of the (image, group) pairs (item = image * G + group):
    # x [N, G*Cg, H, W], w [G, Mg, Cg, Kh, Kw], out [N, G*Mg, Ho, Wo] (all
    # contiguous), non-negative leading pads. Per item: the group's input
    # channels into phase planes (each tap one plane at a fixed offset,
    # unit stride), then per block of output rows and four output channels
    # at a time the taps of a kernel row (three at a time) accumulated
    # along the flattened grid in L1, each output summing its terms in
    # im2col order (channel, tap row, tap column); the grid's extra columns
    # are dropped when the rows are copied out. With prm non-empty, the
    # epilogue (rows_jit.bias_act) runs on each finished group's rows.
    n, _, ih, iw = x.shape
    g_all, mg, cg, kh, kw = w.shape
    oh, ow = out.shape[2], out.shape[3]
    hq = oh + ((kh - 1) * dh) // sh
    wq = ow + ((kw - 1) * dw) // sw
    pq = hq * wq
    planes = np.zeros((cg, sh * sw * pq + VEC), x.dtype)
    rows_per = max(1, CHUNK // wq)
    acc = np.empty((4, rows_per * wq + VEC), x.dtype)
    cout = g_all * mg
    hw = oh * ow
    o1 = out.reshape(-1)
    for item in range(i0, i1):
        b = item // g_all
        g = item - b * g_all
        _fill_planes(x, b, g * cg, cg, sh, sw, ph, pw, hq, wq, planes)
        for r0 in range(0, oh, rows_per):
            r1 = min(oh, r0 + rows_per)
            length = (r1 - r0 - 1) * wq + ow
            length = (length + VEC - 1) // VEC * VEC
            start = r0 * wq
            ulen = np.uint64(length)
            for m0 in range(0, mg, 4):
                mb = min(4, mg - m0)
                a0 = acc[0]
                a1 = acc[1]
                a2 = acc[2]
                a3 = acc[3]
                a0[:] = 0.0
                a1[:] = 0.0
                a2[:] = 0.0
                a3[:] = 0.0
                for c in range(cg):
                    pc = planes[c]
                    for ky in range(kh):
                        t = ky * dh
                        roff = (t % sh) * sw * pq + (t // sh) * wq + start
                        kx = 0
                        while kx < kw:
                            t = kx * dw
                            f0 = np.uint64(roff + (t % sw) * pq + t // sw)
                            if mb == 4 and kx + 2 < kw:
                                t = (kx + 1) * dw
                                f1 = np.uint64(roff + (t % sw) * pq + t // sw)
                                t = (kx + 2) * dw
                                f2 = np.uint64(roff + (t % sw) * pq + t // sw)
                                w00 = w[g, m0, c, ky, kx]
                                w01 = w[g, m0, c, ky, kx + 1]
                                w02 = w[g, m0, c, ky, kx + 2]
                                w10 = w[g, m0 + 1, c, ky, kx]
                                w11 = w[g, m0 + 1, c, ky, kx + 1]
                                w12 = w[g, m0 + 1, c, ky, kx + 2]
                                w20 = w[g, m0 + 2, c, ky, kx]
                                w21 = w[g, m0 + 2, c, ky, kx + 1]
                                w22 = w[g, m0 + 2, c, ky, kx + 2]
                                w30 = w[g, m0 + 3, c, ky, kx]
                                w31 = w[g, m0 + 3, c, ky, kx + 1]
                                w32 = w[g, m0 + 3, c, ky, kx + 2]
                                for j in range(ulen):
                                    x0 = pc[f0 + j]
                                    x1 = pc[f1 + j]
                                    x2 = pc[f2 + j]
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
                                kx += 3
                            elif mb == 4:
                                w00 = w[g, m0, c, ky, kx]
                                w10 = w[g, m0 + 1, c, ky, kx]
                                w20 = w[g, m0 + 2, c, ky, kx]
                                w30 = w[g, m0 + 3, c, ky, kx]
                                for j in range(ulen):
                                    x0 = pc[f0 + j]
                                    a0[j] += w00 * x0
                                    a1[j] += w10 * x0
                                    a2[j] += w20 * x0
                                    a3[j] += w30 * x0
                                kx += 1
                            else:  # the last mb < 4 channels, one at a time
                                for i in range(mb):
                                    wi = w[g, m0 + i, c, ky, kx]
                                    ai = acc[i]
                                    for j in range(ulen):
                                        ai[j] += wi * pc[f0 + j]
                                kx += 1
                for i in range(mb):
                    m = g * mg + m0 + i
                    for oy in range(r0, r1):
                        d = (oy - r0) * wq
                        for ox in range(ow):
                            out[b, m, oy, ox] = acc[i, d + ox]
        if prm.shape[0] != 0:
            lo = b * cout + g * mg
            bias_act(o1, o1, ea, eb, period, prm, hw, lo, lo + mg)
