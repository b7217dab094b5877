"""The numba kernel of :mod:`xmo.backends.cpu.kernels.grouped` (small-group
2-D convolutions), at module level so that numba's on-disk cache finds it
again. Imported only by :func:`~xmo.backends.cpu.kernels.grouped.group_kernel`
(numba stays a lazy import)."""

from __future__ import annotations

import numba
import numpy as np

from xmo.backends.cpu import vector_width
from xmo.backends.cpu.kernels.rows_jit import bias_act, copy_rows

vector_width.configure()  # before the first kernel: numba's vector width

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
    # only the interior is written (the border stays zero from the start).
    # Flat unsigned indices: no negative-index checks, the copies vectorise
    cin, ih, iw = x.shape[1], x.shape[2], x.shape[3]
    pq = hq * wq
    xf = x.reshape(-1)
    pf = planes.reshape(-1)
    plen = planes.shape[1]
    two = np.uint64(2)
    usw = np.uint64(sw)
    for c in range(cg):
        sbase = (b * cin + c0 + c) * ih * iw
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
                cnt = np.uint64(q1 - q0)
                for r in range(r0, r1):
                    s0 = np.uint64(sbase + (r * sh + a - ph) * iw + i0)
                    d0 = np.uint64(c * plen + (a * sw + p) * pq + r * wq + q0)
                    if sw == 1:
                        for q in range(cnt):
                            pf[d0 + q] = xf[s0 + q]
                    elif sw == 2:
                        for q in range(cnt):
                            pf[d0 + q] = xf[s0 + two * q]
                    else:
                        for q in range(cnt):
                            pf[d0 + q] = xf[s0 + usw * q]


@numba.njit(cache=True, nogil=True, fastmath={"contract"})
def _group_item(planes, acc, w, b, g, sh, sw, dh, dw, hq, wq, out):  # pragma: no cover (compiled)
    # one (image, group) pair from its phase planes: per block of output
    # rows and four output channels at a time the taps of a kernel row
    # (three at a time; all nine of a 3x3 kernel) accumulated along the
    # flattened grid in L1 (acc), each output summing its terms in im2col
    # order (channel, tap row, tap column); the grid's extra columns are
    # dropped when the rows are copied out
    mg, cg, kh, kw = w.shape[1], w.shape[2], w.shape[3], w.shape[4]
    oh, ow = out.shape[2], out.shape[3]
    pq = hq * wq
    rows_per = (acc.shape[1] - VEC) // wq
    cout = out.shape[1]
    o1 = out.reshape(-1)
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
            for j in range(ulen):
                a0[j] = 0.0
                a1[j] = 0.0
                a2[j] = 0.0
                a3[j] = 0.0
            if mb == 4 and kh == 3 and kw == 3:
                # a 3x3 kernel: all nine taps of four channels per pass
                for c in range(cg):
                    pc = planes[c]
                    t = 0 * dh
                    roff = (t % sh) * sw * pq + (t // sh) * wq + start
                    t = 0 * dw
                    f00 = np.uint64(roff + (t % sw) * pq + t // sw)
                    t = 1 * dw
                    f01 = np.uint64(roff + (t % sw) * pq + t // sw)
                    t = 2 * dw
                    f02 = np.uint64(roff + (t % sw) * pq + t // sw)
                    t = 1 * dh
                    roff = (t % sh) * sw * pq + (t // sh) * wq + start
                    t = 0 * dw
                    f10 = np.uint64(roff + (t % sw) * pq + t // sw)
                    t = 1 * dw
                    f11 = np.uint64(roff + (t % sw) * pq + t // sw)
                    t = 2 * dw
                    f12 = np.uint64(roff + (t % sw) * pq + t // sw)
                    t = 2 * dh
                    roff = (t % sh) * sw * pq + (t // sh) * wq + start
                    t = 0 * dw
                    f20 = np.uint64(roff + (t % sw) * pq + t // sw)
                    t = 1 * dw
                    f21 = np.uint64(roff + (t % sw) * pq + t // sw)
                    t = 2 * dw
                    f22 = np.uint64(roff + (t % sw) * pq + t // sw)
                    w000 = w[g, m0 + 0, c, 0, 0]
                    w001 = w[g, m0 + 0, c, 0, 1]
                    w002 = w[g, m0 + 0, c, 0, 2]
                    w010 = w[g, m0 + 0, c, 1, 0]
                    w011 = w[g, m0 + 0, c, 1, 1]
                    w012 = w[g, m0 + 0, c, 1, 2]
                    w020 = w[g, m0 + 0, c, 2, 0]
                    w021 = w[g, m0 + 0, c, 2, 1]
                    w022 = w[g, m0 + 0, c, 2, 2]
                    w100 = w[g, m0 + 1, c, 0, 0]
                    w101 = w[g, m0 + 1, c, 0, 1]
                    w102 = w[g, m0 + 1, c, 0, 2]
                    w110 = w[g, m0 + 1, c, 1, 0]
                    w111 = w[g, m0 + 1, c, 1, 1]
                    w112 = w[g, m0 + 1, c, 1, 2]
                    w120 = w[g, m0 + 1, c, 2, 0]
                    w121 = w[g, m0 + 1, c, 2, 1]
                    w122 = w[g, m0 + 1, c, 2, 2]
                    w200 = w[g, m0 + 2, c, 0, 0]
                    w201 = w[g, m0 + 2, c, 0, 1]
                    w202 = w[g, m0 + 2, c, 0, 2]
                    w210 = w[g, m0 + 2, c, 1, 0]
                    w211 = w[g, m0 + 2, c, 1, 1]
                    w212 = w[g, m0 + 2, c, 1, 2]
                    w220 = w[g, m0 + 2, c, 2, 0]
                    w221 = w[g, m0 + 2, c, 2, 1]
                    w222 = w[g, m0 + 2, c, 2, 2]
                    w300 = w[g, m0 + 3, c, 0, 0]
                    w301 = w[g, m0 + 3, c, 0, 1]
                    w302 = w[g, m0 + 3, c, 0, 2]
                    w310 = w[g, m0 + 3, c, 1, 0]
                    w311 = w[g, m0 + 3, c, 1, 1]
                    w312 = w[g, m0 + 3, c, 1, 2]
                    w320 = w[g, m0 + 3, c, 2, 0]
                    w321 = w[g, m0 + 3, c, 2, 1]
                    w322 = w[g, m0 + 3, c, 2, 2]
                    for j in range(ulen):
                        x00 = pc[f00 + j]
                        x01 = pc[f01 + j]
                        x02 = pc[f02 + j]
                        x10 = pc[f10 + j]
                        x11 = pc[f11 + j]
                        x12 = pc[f12 + j]
                        x20 = pc[f20 + j]
                        x21 = pc[f21 + j]
                        x22 = pc[f22 + j]
                        v = a0[j]
                        v += w000 * x00
                        v += w001 * x01
                        v += w002 * x02
                        v += w010 * x10
                        v += w011 * x11
                        v += w012 * x12
                        v += w020 * x20
                        v += w021 * x21
                        v += w022 * x22
                        a0[j] = v
                        v = a1[j]
                        v += w100 * x00
                        v += w101 * x01
                        v += w102 * x02
                        v += w110 * x10
                        v += w111 * x11
                        v += w112 * x12
                        v += w120 * x20
                        v += w121 * x21
                        v += w122 * x22
                        a1[j] = v
                        v = a2[j]
                        v += w200 * x00
                        v += w201 * x01
                        v += w202 * x02
                        v += w210 * x10
                        v += w211 * x11
                        v += w212 * x12
                        v += w220 * x20
                        v += w221 * x21
                        v += w222 * x22
                        a2[j] = v
                        v = a3[j]
                        v += w300 * x00
                        v += w301 * x01
                        v += w302 * x02
                        v += w310 * x10
                        v += w311 * x11
                        v += w312 * x12
                        v += w320 * x20
                        v += w321 * x21
                        v += w322 * x22
                        a3[j] = v
            else:
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
                copy_rows(o1, ((b * cout + g * mg + m0 + i) * oh + r0) * ow, ow, acc[i], 0, wq,
                          r1 - r0, ow)


@numba.njit(cache=True, nogil=True)
def grouped(x, w, sh, sw, dh, dw, ph, pw, out, i0, i1, ea, eb, period, prm):  # pragma: no cover
    # groups i0..i1 of the (image, group) pairs (item = image * G + group):
    # x [N, G*Cg, H, W], w [G, Mg, Cg, Kh, Kw], out [N, G*Mg, Ho, Wo] (all
    # contiguous), non-negative leading pads. Per item: the group's input
    # channels into phase planes (each tap one plane at a fixed offset,
    # unit stride), the outputs (_group_item), and with prm non-empty the
    # epilogue (rows_jit.bias_act) on the group's finished rows. No
    # fastmath here: numba compiles a callee without its own fastmath
    # (bias_act) with its caller's, and caches it under the same key.
    # This module's disk cache holds bias_act's code as it was compiled:
    # numba does not see a change of rows_jit (edit this file, or clear
    # its __pycache__, when bias_act's arithmetic changes)
    n = x.shape[0]
    g_all, mg, cg, kh, kw = w.shape
    oh, ow = out.shape[2], out.shape[3]
    hq = oh + ((kh - 1) * dh) // sh
    wq = ow + ((kw - 1) * dw) // sw
    planes = np.zeros((cg, sh * sw * hq * wq + VEC), x.dtype)
    acc = np.empty((4, max(1, CHUNK // wq) * wq + VEC), x.dtype)
    cout = g_all * mg
    o1 = out.reshape(-1)
    for item in range(i0, i1):
        b = item // g_all
        g = item - b * g_all
        _fill_planes(x, b, g * cg, cg, sh, sw, ph, pw, hq, wq, planes)
        _group_item(planes, acc, w, b, g, sh, sw, dh, dw, hq, wq, out)
        if prm.shape[0] != 0:
            lo = b * cout + g * mg
            bias_act(o1, o1, ea, eb, period, prm, oh * ow, lo, lo + mg)
