"""numba kernels of :mod:`xmo.backends.cpu.kernels.panel_conv`: the im2col
columns of a convolution written straight into the k-major panels of the
packed-panel micro-kernel (:func:`~xmo.backends.cpu.kernels.gemm_jit.gemm_panels`),
and the windows of a range of pixels as rows (:func:`im2row`). Module level so that numba's
disk cache finds them again; imported only where numba is."""

from __future__ import annotations

import numba
import numpy as np

from xmo.backends.cpu import vector_width

vector_width.configure()  # before the first kernel: numba's vector width

#: :func:`pack_conv` writes the panels' rows in blocks of this many taps
TAP_BLOCK = 16


@numba.njit(cache=True, nogil=True)
def pack_conv(x, b, kh, kw, sh, sw, dh, dw, ph, pw, ow, q0, q1, panels):  # pragma: no cover
    """Output pixels ``[q0, q1)`` (``q = oy * ow + ox``) of image ``b`` of
    unpadded C-contiguous ``x`` [N, C, H, W] as im2col columns in panel
    layout: ``panels`` C-contiguous [ceil((q1 - q0) / NR), C*Kh*Kw, NR]
    (NR: the panel width of :mod:`~xmo.backends.cpu.kernels.gemm_jit`),
    ``panels[p, k, j]`` the input tap ``k`` (in (channel, tap row, tap
    column) order) of pixel ``q0 + p * NR + j``; taps on the padding and
    the last panel's columns past ``q1`` are zeros.

    The input rows the pixels read are copied once into zero-padded planes
    (read in place when there is no padding); a panel's pixels are a few
    runs along output rows, the same for every tap: each panel row of a tap
    is one copy of NR values (one run) or one per run, the taps in blocks
    of :data:`TAP_BLOCK` (a few source streams, the panels written in
    order)."""
    c, ih, iw = x.shape[1], x.shape[2], x.shape[3]
    kk = c * kh * kw
    nr = panels.shape[2]  # the micro-kernel's panel width (an argument: not frozen in the cache)
    pf = panels.reshape(-1)
    wp = max(iw + pw, (ow - 1) * sw + (kw - 1) * dw + 1)
    ya = (q0 // ow) * sh
    yb = ((q1 - 1) // ow) * sh + (kh - 1) * dh + 1
    if ph == 0 and pw == 0 and wp == iw and yb <= ih:
        src = x.reshape(-1)
        cstride = ih * iw
        base0 = (b * c * ih + ya) * iw
    else:
        hb = yb - ya
        cstride = hb * wp
        base0 = 0
        src = np.empty(c * cstride, x.dtype)
        for ci in range(c):
            for y in range(hb):
                d0 = np.uint64((ci * hb + y) * wp)
                iy = ya + y - ph
                if iy < 0 or iy >= ih:
                    for i in range(np.uint64(wp)):
                        src[d0 + i] = 0.0
                    continue
                xr = x[b, ci, iy]
                for i in range(np.uint64(pw)):
                    src[d0 + i] = 0.0
                d1 = d0 + np.uint64(pw)
                for i in range(np.uint64(iw)):
                    src[d1 + i] = xr[i]
                d2 = d1 + np.uint64(iw)
                for i in range(np.uint64(wp - pw - iw)):
                    src[d2 + i] = 0.0
    # tap (ci, ky, kx)'s offset in the source
    toff = np.empty(kk, np.uint64)
    for ci in range(c):
        for ky in range(kh):
            for kx in range(kw):
                toff[(ci * kh + ky) * kw + kx] = base0 + ci * cstride + ky * dh * wp + kx * dw
    # each panel's pixels as runs along output rows: (first column, length,
    # source offset of the run's first pixel), shared by all the taps
    npan = panels.shape[0]
    rj = np.empty((npan, nr), np.uint64)
    rl = np.empty((npan, nr), np.uint64)
    ro = np.empty((npan, nr), np.uint64)
    rc = np.empty(npan, np.int64)
    for p in range(npan):
        q = q0 + p * nr
        qe = min(q1, q + nr)
        r = 0
        while q < qe:
            oy = q // ow
            ox = q - oy * ow
            e = min(qe, q + ow - ox)
            rj[p, r] = q - q0 - p * nr
            rl[p, r] = e - q
            ro[p, r] = (oy * sh - ya) * wp + ox * sw
            r += 1
            q = e
        rc[p] = r
    usw = np.uint64(sw)
    unr = np.uint64(nr)
    # taps in blocks of TAP_BLOCK: a block's source rows are read as a few
    # streams while the panels are written in order
    for k0 in range(0, kk, TAP_BLOCK):
        k1 = min(kk, k0 + TAP_BLOCK)
        for p in range(npan):
            nrun = rc[p]
            if nrun == 1 and rl[p, 0] == nr:  # one whole run: fixed-length copies
                o = ro[p, 0]
                for k in range(k0, k1):
                    d = np.uint64((p * kk + k) * nr)
                    s = toff[k] + o
                    if sw == 1:
                        for j in range(unr):
                            pf[d + j] = src[s + j]
                    else:
                        for j in range(unr):
                            pf[d + j] = src[s + j * usw]
                continue
            for k in range(k0, k1):
                d = np.uint64((p * kk + k) * nr)
                s = toff[k]
                for r in range(nrun):
                    dd = d + rj[p, r]
                    ss = s + ro[p, r]
                    ln = rl[p, r]
                    if sw == 1:
                        for j in range(ln):
                            pf[dd + j] = src[ss + j]
                    else:
                        for j in range(ln):
                            pf[dd + j] = src[ss + j * usw]
            jt = q1 - q0 - p * nr
            if jt < nr:
                for k in range(k0, k1):
                    d = (p * kk + k) * nr
                    for j in range(jt, nr):
                        pf[d + j] = 0.0


@numba.njit(cache=True, nogil=True)
def im2row(x, b, kh, kw, sh, sw, dh, dw, ph, pw, ow, q0, q1, a):  # pragma: no cover
    """The windows of output pixels ``[q0, q1)`` of image ``b`` of unpadded
    ``x`` [N, C, H, W] as the rows of ``a`` (C-contiguous [q1 - q0,
    Kh*Kw*C], taps in (tap row, tap column, channel) order; padding as
    zeros): the input rows the pixels read are first copied channels-last
    into a zero-padded buffer, then each window row of a pixel is one copy
    of Kw*C values (Kw copies of C values when dilated)."""
    c, ih, iw = x.shape[1], x.shape[2], x.shape[3]
    kk = kh * kw * c
    af = a.reshape(-1)
    wp = max(iw + pw, (ow - 1) * sw + (kw - 1) * dw + 1)
    ya = (q0 // ow) * sh
    yb = ((q1 - 1) // ow) * sh + (kh - 1) * dh + 1
    hb = yb - ya
    xt = np.zeros(hb * wp * c, x.dtype)
    xf = x.reshape(-1)
    plane = np.uint64(ih * iw)
    # channels-last, in blocks of 16 channels x 16 columns (16 read
    # streams, 64-byte writes)
    for c0 in range(0, c, 16):
        nc = np.uint64(min(c, c0 + 16) - c0)
        for y in range(hb):
            iy = ya + y - ph
            if iy < 0 or iy >= ih:
                continue
            for x0 in range(0, iw, 16):
                for ix in range(x0, min(iw, x0 + 16)):
                    d = np.uint64((y * wp + ix + pw) * c + c0)
                    s = np.uint64(((b * c + c0) * ih + iy) * iw + ix)
                    for i in range(nc):
                        xt[d + i] = xf[s + i * plane]
    run = kw * c if dw == 1 else c
    nrun = 1 if dw == 1 else kw
    urun = np.uint64(run)
    for q in range(q0, q1):
        oy = q // ow
        ox = q - oy * ow
        d = np.uint64((q - q0) * kk)
        for ky in range(kh):
            for r in range(nrun):
                s = np.uint64(((oy * sh - ya + ky * dh) * wp + ox * sw + r * dw) * c)
                for i in range(urun):
                    af[d + i] = xt[s + i]
                d += urun
