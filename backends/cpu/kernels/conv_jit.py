"""The numba kernels of :mod:`xmo.backends.cpu.kernels.convolution` (the
direct grouped kernel, the im2col gathers, the stem kernel), at module level
so that numba's on-disk cache finds them again. Imported only by the getters
of :mod:`~xmo.backends.cpu.kernels.convolution` (``direct_conv_kernel``,
``im2col_kernel``, ``blocked_kernel``, ``stem_kernel``; numba stays a lazy
import)."""

from __future__ import annotations

import numba
import numpy as np

from xmo.backends.cpu import vector_width
from xmo.backends.cpu.kernels.depthwise_jit import channel_sums, fill_phases
from xmo.backends.cpu.kernels.rows_jit import copy_rows

vector_width.configure()  # before the first kernel: numba's vector width

# compile-time constants of :func:`direct` (here, not in convolution.py: numba
# freezes globals into the cached code, and a cache is invalidated only by
# edits of the file that holds the function)
#: below this many output channels (and at row stride 1) :func:`direct` runs
#: each tap along whole output rows rather than pixel by pixel
ROW_TAPS_MAX_CHANNELS = 16
#: :func:`direct` runs the output channels in blocks of this many
DIRECT_CHANNEL_BLOCK = 128


@numba.njit(cache=True, nogil=True)
def stem_block(x, w, kh, kw, sh, sw, dh, dw, ph, pw, b, y0, y1, rows, out):  # pragma: no cover
    """Output rows ``[y0, y1)`` of image ``b`` of a single-group 2-D
    convolution with few input channels, straight from the input, in blocks
    of ``rows`` output rows: ``x`` contiguous unpadded [N, C, H, W], ``w``
    contiguous [M', C*Kh*Kw] (taps in (channel, tap row, tap column) order;
    M' the M output channels rounded up to a multiple of four, the extra rows
    zero), ``out`` [N, M, Ho, Wo].

    A block's input is copied once, zero-padded and split by stride phase
    (``depthwise_jit.fill_phases`` per channel: padded row ``r * sh + a``,
    column ``q * sw + p`` at ``(r, q)`` of phase plane ``(a, p)``; at stride
    2 two shuffles split each input vector: 0.74-0.79x the kernel's time
    with the strided copies on mobilenetv3_small's 64x64 stem, 0.94-0.95x on
    224x224 ones, session 32), so that every tap reads one phase plane at a
    fixed offset with unit stride; the planes' padding stays zero from block
    to block (zeroed again only for blocks whose rows run past the input's
    top or bottom). Each output channel's block is computed over the
    flattened phase-plane grid (``Wq`` columns a row; the ``Wq - Wo`` extra
    ones dropped when it is written out), four output channels at a time by
    ``depthwise_jit.channel_sums``: each output's sum over all the taps in
    registers, in im2col order from zero (fused multiply-adds), into four
    64-byte aligned accumulator rows. Against session 32's passes of four
    taps through accumulators in memory: 0.77-0.87x the kernel's thread
    time on 224x224 and 320x320 3->16 / 3->32 stems, 0.65-0.82x on small
    maps, the same results bit for bit (session 33)."""
    c, ih, iw = x.shape[1], x.shape[2], x.shape[3]
    m = out.shape[1]
    oh, ow = out.shape[2], out.shape[3]
    o1 = out.reshape(-1)
    xf = x.reshape(-1)
    wf = w.reshape(-1)
    taps = c * kh * kw
    wq = ow + ((kw - 1) * dw) // sw  # columns of a phase plane
    hq = rows + ((kh - 1) * dh) // sh  # rows of a phase plane
    pq = hq * wq
    # the sums run over whole vectors (lengths rounded up to 16 values):
    # the planes have room for the last one's reads past the grid
    planes = np.empty(c * sh * sw * pq + 16, x.dtype)
    span = ((rows - 1) * wq + ow + 15) // 16 * 16
    accb = np.empty(4 * span + 16, x.dtype)
    a0f = (16 - (accb.ctypes.data // accb.itemsize) % 16) % 16
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
        length = ((nr - 1) * wq + ow + 15) // 16 * 16
        if z0 == y0 or z0 * sh < ph or (z0 + hq) * sh - ph > ih:
            planes[:] = 0.0
        for ci in range(c):
            # the block's rows: padded row (z0 + r) * sh + a
            fill_phases(xf, (b * c + ci) * ih * iw, ih, iw, sh, sw, ph - z0 * sh, pw, hq, wq,
                        planes[ci * sh * sw * pq:])
        for c0 in range(0, m, 4):
            # four output channels at a time (the filters are zero-padded to
            # a multiple of four rows)
            channel_sums(accb, a0f, span, planes, offs, wf, c0 * taps, taps, taps, length)
            for k in range(min(4, m - c0)):
                copy_rows(o1, ((b * m + c0 + k) * oh + z0) * ow, ow, accb, a0f + k * span, wq,
                          nr, ow)


@numba.njit(cache=True, nogil=True)
def direct(x, wt, mg, sh, sw, dh, dw, ph, pw, out):  # pragma: no cover (compiled)
    """2-D grouped convolution with the output channels innermost. ``x`` contiguous [N, Cin, H, W], ``wt``
    [Cg, Kh, Kw, Cout], ``out`` [N, Cout, Ho, Wo], ``ph``/``pw`` the
    (non-negative) leading pads. For each input channel of the groups it lays
    the zero-padded plane out as [Hp, Wp, Cout] (output channel ``co`` sees
    input channel ``(co // mg) * Cg + c``), so every tap is one multiply-add
    over all output channels at once: fast on small maps, where per-row loops
    are short (below :data:`ROW_TAPS_MAX_CHANNELS` channels at row stride 1, a
    tap runs along whole output rows instead). The output channels run in
    blocks of :data:`DIRECT_CHANNEL_BLOCK` (their padded planes stay in the
    fast caches). Each output sums its terms in im2col order (channel, tap row,
    tap column) in the output dtype, like the numpy path."""
    n, _, ih, iw = x.shape
    cg, kh, kw, cout = wt.shape
    oh, ow = out.shape[2], out.shape[3]
    hp = max(ih + ph, (oh - 1) * sh + (kh - 1) * dh + 1)
    wp = max(iw + pw, (ow - 1) * sw + (kw - 1) * dw + 1)
    # the output channels in blocks: a block's padded planes and
    # accumulators stay in the fast caches
    blk = min(cout, DIRECT_CHANNEL_BLOCK)
    e = np.zeros((hp, wp * blk), x.dtype)
    acc = np.empty((oh, ow * blk), x.dtype)
    # few channels, stride 1 along rows: a tap is one multiply-add
    # along a whole output row (the filters repeated along it)
    rows = sw == 1 and cout < ROW_TAPS_MAX_CHANNELS
    wrow = np.empty((kh, kw, ow * blk if rows else 0), x.dtype)
    laid = blk  # the block width ``e``'s zero padding is laid out for
    for b in range(n):
        for c0 in range(0, cout, blk):
            nb = min(blk, cout - c0)
            rl = ow * nb
            acc[:] = 0.0
            if nb != laid:  # another layout: its padding is not zero
                e[:] = 0.0
                laid = nb
            for c in range(cg):
                if rows:
                    for ky in range(kh):
                        for kx in range(kw):
                            for ox in range(ow):
                                for co in range(nb):
                                    wrow[ky, kx, ox * nb + co] = wt[c, ky, kx, c0 + co]
                # row by row: one row of ``e`` stays in cache while
                # every channel is scattered into it
                for iy in range(ih):
                    er = e[iy + ph]
                    for co in range(nb):
                        xr = x[b, ((c0 + co) // mg) * cg + c, iy]
                        for ix in range(iw):
                            er[(ix + pw) * nb + co] = xr[ix]
                for oy in range(oh):
                    ar = acc[oy]
                    for ky in range(kh):
                        er = e[oy * sh + ky * dh]
                        if rows:
                            for kx in range(kw):
                                j0 = kx * dw * nb
                                src = er[j0:j0 + rl]
                                wr = wrow[ky, kx]
                                for j in range(rl):
                                    ar[j] += wr[j] * src[j]
                        else:
                            for ox in range(ow):
                                a = ar[ox * nb:(ox + 1) * nb]
                                for kx in range(kw):
                                    j0 = (ox * sw + kx * dw) * nb
                                    src = er[j0:j0 + nb]
                                    wr = wt[c, ky, kx, c0:c0 + nb]
                                    for co in range(nb):
                                        a[co] += wr[co] * src[co]
            for oy in range(oh):
                ar = acc[oy]
                for co in range(nb):
                    orow = out[b, c0 + co, oy]
                    for ox in range(ow):
                        orow[ox] = ar[ox * nb + co]


@numba.njit(cache=True, nogil=True)
def im2col(x, kh, kw, sh, sw, dh, dw, ph, pw, cols):  # pragma: no cover (compiled)
    """The im2col matrix of unpadded ``x`` [N, C, H, W] into ``cols``
    [N, C*Kh*Kw, Ho, Wo] (rows in (channel, tap row, tap column) order): each
    channel copied once into a zero-padded plane, its windows' rows gathered
    from there."""
    n, c, ih, iw = x.shape
    oh, ow = cols.shape[2], cols.shape[3]
    hp = max(ih + ph, (oh - 1) * sh + (kh - 1) * dh + 1)
    wp = max(iw + pw, (ow - 1) * sw + (kw - 1) * dw + 1)
    # one zero-padded plane, its interior rewritten channel by channel:
    # the row copies below need no bounds (plain loops, not slice
    # assignments: those cost more in numba)
    pad = np.zeros((hp, wp), x.dtype)
    for b in range(n):
        for ci in range(c):
            xc = x[b, ci]
            for iy in range(ih):
                pr = pad[iy + ph]
                xr = xc[iy]
                for ix in range(iw):
                    pr[ix + pw] = xr[ix]
            for ky in range(kh):
                for kx in range(kw):
                    dst = cols[b, (ci * kh + ky) * kw + kx]
                    j0 = kx * dw
                    for oy in range(oh):
                        src = pad[oy * sh + ky * dh]
                        drow = dst[oy]
                        if sw == 1:  # unit stride: vectorized
                            for ox in range(ow):
                                drow[ox] = src[j0 + ox]
                        else:
                            for ox in range(ow):
                                drow[ox] = src[j0 + ox * sw]


@numba.njit(cache=True, nogil=True)
def im2col_block(x, b, kh, kw, sh, sw, dh, dw, ph, pw, y0, y1, cols):  # pragma: no cover
    """One block of im2col columns: the windows of output rows ``[y0, y1)`` of
    image ``b`` of unpadded ``x`` [N, C, H, W] into ``cols``
    [C*Kh*Kw, (y1-y0)*Wo] (rows in (channel, tap row, tap column) order;
    padding written as zeros)."""
    c, ih, iw = x.shape[1], x.shape[2], x.shape[3]
    ow = cols.shape[1] // (y1 - y0)
    # the block's input rows of one channel, zero-padded: every
    # channel rewrites the same interior, the padding stays zero and
    # the row copies below need no bounds
    r0 = y0 * sh - ph
    hb = (y1 - 1 - y0) * sh + (kh - 1) * dh + 1
    wp = max(iw + pw, (ow - 1) * sw + (kw - 1) * dw + 1)
    i0 = max(0, r0)
    i1 = min(ih, r0 + hb)
    plane = np.zeros((hb, wp), x.dtype)
    for ci in range(c):
        xc = x[b, ci]
        for iy in range(i0, i1):
            pr = plane[iy - r0]
            xr = xc[iy]
            for ix in range(iw):
                pr[ix + pw] = xr[ix]
        for ky in range(kh):
            for kx in range(kw):
                row = cols[(ci * kh + ky) * kw + kx]
                j0 = kx * dw
                j = 0
                for oy in range(y1 - y0):
                    src = plane[oy * sh + ky * dh]
                    if sw == 1:
                        for ox in range(ow):
                            row[j + ox] = src[j0 + ox]
                    else:
                        for ox in range(ow):
                            row[j + ox] = src[j0 + ox * sw]
                    j += ow
