"""The numba kernel of :mod:`xmo.backends.cpu.kernels.depthwise`, at module
level so that numba's on-disk cache finds it again. Imported only by
:func:`~xmo.backends.cpu.kernels.depthwise.depthwise_kernel` (numba stays a
lazy import)."""

from __future__ import annotations

import numba
import numpy as np

from xmo.backends.cpu import vector_width
from xmo.backends.cpu.kernels.rows_jit import copy_rows

vector_width.configure()  # before the first kernel: numba's vector width

#: the tap loops' lengths round up to a multiple of this
PAD = 16
#: output elements (of the flattened, padded-width rows) the kernel sums at
#: once over all taps: a block of output rows that stays in L1 (a constant
#: of this file: numba freezes it into the cached kernel, whose cache entry
#: is checked against this file only)
BLOCK_ELEMENTS = 1024


U = np.uint64


@numba.njit(cache=True, nogil=True)
def fill_phases(x1, xb, ih, iw, sh, sw, ph, pw, hq, wq, buf):  # pragma: no cover (compiled)
    # the interior of every phase plane of the input plane at x1[xb:] (padded
    # row r * sh + a, column q * sw + p in plane (a, p) at r * wq + q); the
    # border stays zero. Unsigned indices: no wraparound, the loops vectorise
    pq = hq * wq
    for a in range(sh):
        ra = a - ph
        r0 = max(0, -(ra // sh))
        r1 = min(hq, (ih - 1 - ra) // sh + 1) if ih - 1 - ra >= 0 else 0
        if sw == 2:
            # both column phases in one pass over the row: input column
            # 2t lands in plane pw & 1 at t + pw // 2, column 2t + 1 in
            # plane (pw + 1) & 1 at t + (pw + 1) // 2
            qe = pw // 2
            qo = (pw + 1) // 2
            be = (a * 2 + (pw & 1)) * pq
            bo = (a * 2 + ((pw + 1) & 1)) * pq
            ne = U(max(0, min((iw + 1) // 2, wq - qe)))
            no = U(max(0, min(iw // 2, wq - qo)))
            nb = min(ne, no)
            for r in range(r0, r1):
                src = U(xb + (r * sh + ra) * iw)
                de = U(be + r * wq + qe)
                do = U(bo + r * wq + qo)
                for t in range(nb):
                    # both loads first: one interleaved load group
                    ve = x1[src + U(2) * t]
                    vo = x1[src + U(2) * t + U(1)]
                    buf[de + t] = ve
                    buf[do + t] = vo
                for t in range(nb, ne):
                    buf[de + t] = x1[src + U(2) * t]
                for t in range(nb, no):
                    buf[do + t] = x1[src + U(2) * t + U(1)]
            continue
        for p in range(sw):
            o = p - pw
            q0 = max(0, -(o // sw))
            q1 = min(wq, (iw - 1 - o) // sw + 1) if iw - 1 - o >= 0 else 0
            base = (a * sw + p) * pq
            if q1 <= q0:
                continue
            m = U(q1 - q0)
            for r in range(r0, r1):
                src = U(xb + (r * sh + ra) * iw + q0 * sw + o)
                dst = U(base + r * wq + q0)
                if sw == 1:
                    for q in range(m):
                        buf[dst + q] = x1[src + q]
                else:
                    for q in range(m):
                        buf[dst + q] = x1[src + q * U(sw)]


@numba.njit(cache=True, nogil=True)
def taps3(acc, buf, o0, o1, o2, w0, w1, w2, length):  # pragma: no cover (compiled)
    # acc[j] += w0 * buf[o0 + j] + ... in tap order (offsets, length: uint64)
    for j in range(length):
        v = acc[j]
        v += w0 * buf[o0 + j]
        v += w1 * buf[o1 + j]
        v += w2 * buf[o2 + j]
        acc[j] = v


@numba.njit(cache=True, nogil=True)
def taps5(acc, buf, o0, o1, o2, o3, o4, w0, w1, w2, w3, w4, length):  # pragma: no cover
    for j in range(length):
        v = acc[j]
        v += w0 * buf[o0 + j]
        v += w1 * buf[o1 + j]
        v += w2 * buf[o2 + j]
        v += w3 * buf[o3 + j]
        v += w4 * buf[o4 + j]
        acc[j] = v


@numba.njit(cache=True, nogil=True)
def taps7(acc, buf, o, q, w, r, base, length):  # pragma: no cover (compiled)
    # the taps of a 7-wide kernel row: offsets o[q:q + 7], weights w[r:r + 7]
    o0, o1, o2, o3 = base + U(o[q]), base + U(o[q + 1]), base + U(o[q + 2]), base + U(o[q + 3])
    o4, o5, o6 = base + U(o[q + 4]), base + U(o[q + 5]), base + U(o[q + 6])
    w0, w1, w2, w3, w4, w5, w6 = w[r], w[r + 1], w[r + 2], w[r + 3], w[r + 4], w[r + 5], w[r + 6]
    for j in range(length):
        v = acc[j]
        v += w0 * buf[o0 + j]
        v += w1 * buf[o1 + j]
        v += w2 * buf[o2 + j]
        v += w3 * buf[o3 + j]
        v += w4 * buf[o4 + j]
        v += w5 * buf[o5 + j]
        v += w6 * buf[o6 + j]
        acc[j] = v


@numba.njit(cache=True, nogil=True)
def taps3x3(acc, buf, o, w, r, base, length, zero):  # pragma: no cover (compiled)
    # all nine taps of a 3x3 kernel in one pass from zero (tap order: row,
    # column); weights w[r:r + 9]
    o0, o1, o2 = base + U(o[0]), base + U(o[1]), base + U(o[2])
    o3, o4, o5 = base + U(o[3]), base + U(o[4]), base + U(o[5])
    o6, o7, o8 = base + U(o[6]), base + U(o[7]), base + U(o[8])
    w0, w1, w2, w3, w4 = w[r], w[r + 1], w[r + 2], w[r + 3], w[r + 4]
    w5, w6, w7, w8 = w[r + 5], w[r + 6], w[r + 7], w[r + 8]
    for j in range(length):
        v = zero
        v += w0 * buf[o0 + j]
        v += w1 * buf[o1 + j]
        v += w2 * buf[o2 + j]
        v += w3 * buf[o3 + j]
        v += w4 * buf[o4 + j]
        v += w5 * buf[o5 + j]
        v += w6 * buf[o6 + j]
        v += w7 * buf[o7 + j]
        v += w8 * buf[o8 + j]
        acc[j] = v


@numba.njit(cache=True, nogil=True)
def depthwise(x, wt, mg, sh, sw, dh, dw, ph, pw, out, c0, c1, b0, b1):  # pragma: no cover
    # output channels of the input channels [c0, c1) of the images [b0, b1)
    _, cin, ih, iw = x.shape
    kh, kw = wt.shape[1], wt.shape[2]
    cout = out.shape[1]
    oh, ow = out.shape[2], out.shape[3]
    hq = oh + ((kh - 1) * dh) // sh
    wq = ow + ((kw - 1) * dw) // sw
    pq = hq * wq
    nt = kh * kw
    # output rows a block: the block's sums stay in L1 over all taps
    rb = max(1, min(oh, BLOCK_ELEMENTS // wq))
    # the tap loops run over whole vectors (no scalar remainder): up to
    # PAD - 1 extra columns, read past the last plane into the slack
    buf = np.zeros(sh * sw * pq + PAD, x.dtype)
    acc = np.empty((rb - 1) * wq + ow + PAD, x.dtype)
    offs = np.empty(nt, np.int64)
    wf = wt.reshape(-1)
    x1 = x.reshape(-1)
    zero = np.zeros(1, x.dtype)[0]
    o1 = out.reshape(-1)
    hw = oh * ow
    for i in range(nt):
        ky, kx = i // kw, i % kw
        t = ky * dh
        u = kx * dw
        offs[i] = ((t % sh) * sw + u % sw) * pq + (t // sh) * wq + u // sw
    for b in range(b0, b1):
        for ci in range(c0, c1):
            fill_phases(x1, (b * cin + ci) * ih * iw, ih, iw, sh, sw, ph, pw, hq, wq, buf)
            for m in range(mg):
                co = ci * mg + m
                w0 = co * nt
                ob = (b * cout + co) * hw
                for y0 in range(0, oh, rb):
                    y1 = min(oh, y0 + rb)
                    used = (y1 - y0 - 1) * wq + ow
                    length = U((used + PAD - 1) // PAD * PAD)
                    base = U(y0 * wq)
                    if kh == 3 and kw == 3:
                        taps3x3(acc, buf, offs, wf, w0, base, length, zero)
                    else:
                        for j in range(length):
                            acc[j] = zero
                        for ky in range(kh):
                            r = ky * kw
                            if kw == 3:
                                taps3(acc, buf, base + U(offs[r]), base + U(offs[r + 1]),
                                      base + U(offs[r + 2]), wf[w0 + r], wf[w0 + r + 1],
                                      wf[w0 + r + 2], length)
                            elif kw == 5:
                                taps5(acc, buf, base + U(offs[r]), base + U(offs[r + 1]),
                                      base + U(offs[r + 2]), base + U(offs[r + 3]),
                                      base + U(offs[r + 4]), wf[w0 + r], wf[w0 + r + 1],
                                      wf[w0 + r + 2], wf[w0 + r + 3], wf[w0 + r + 4], length)
                            elif kw == 7:
                                taps7(acc, buf, offs, r, wf, w0 + r, base, length)
                            else:
                                for kx in range(kw):
                                    wk = wf[w0 + r + kx]
                                    ok = base + U(offs[r + kx])
                                    for j in range(length):
                                        acc[j] += wk * buf[ok + j]
                    copy_rows(o1, ob + y0 * ow, ow, acc, 0, wq, y1 - y0, ow)
