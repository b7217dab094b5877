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
from xmo.backends.cpu.kernels.depthwise_jit import fill_phases
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


@numba.njit(cache=True, nogil=True, fastmath={"contract"})
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
    fixed offset with unit stride. Each output channel's block is computed
    over the flattened phase-plane grid (``Wq`` columns a row; the ``Wq - Wo`` extra
    ones dropped when it is written out), four output channels at a time: a
    pass multiplies-adds eight taps (then four, the last one to three
    together) into four accumulators along one contiguous vector of about
    ``rows * Wq`` values (eight-tap passes and aligned accumulators: 0.87x
    the four-tap kernel's thread time on 224x224 3->16 and 3->32 stems,
    session 33). Each output sums its terms in im2col order (fused
    multiply-adds)."""
    c, ih, iw = x.shape[1], x.shape[2], x.shape[3]
    m = out.shape[1]
    oh, ow = out.shape[2], out.shape[3]
    o1 = out.reshape(-1)
    xf = x.reshape(-1)
    taps = c * kh * kw
    wq = ow + ((kw - 1) * dw) // sw  # columns of a phase plane
    hq = rows + ((kh - 1) * dh) // sh  # rows of a phase plane
    pq = hq * wq
    planes = np.empty(c * sh * sw * pq, x.dtype)
    # the four accumulators 64-byte aligned, rows a multiple of 16 values
    # apart: with 512-bit vectors an unaligned row splits every load and
    # store over two cache lines (0.93x the kernel's time, session 33)
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
        length = (nr - 1) * wq + ow
        # the planes' padding stays zero from block to block (every block
        # writes the same interior); zeroed again only where a block's rows
        # run past the input's top or bottom (those rows are not written)
        if z0 == y0 or z0 * sh < ph or (z0 + hq) * sh - ph > ih:
            planes[:] = 0.0
        for ci in range(c):
            # the block's rows: padded row (z0 + r) * sh + a
            fill_phases(xf, (b * c + ci) * ih * iw, ih, iw, sh, sw, ph - z0 * sh, pw, hq, wq,
                        planes[ci * sh * sw * pq:])
        for c0 in range(0, m, 4):
            # four output channels at a time (the filters are zero-padded to
            # a multiple of four rows): every source value loaded serves four
            # accumulators
            a0 = accb[a0f:a0f + length]
            a1 = accb[a0f + span:a0f + span + length]
            a2 = accb[a0f + 2 * span:a0f + 2 * span + length]
            a3 = accb[a0f + 3 * span:a0f + 3 * span + length]
            a0[:] = 0.0
            a1[:] = 0.0
            a2[:] = 0.0
            a3[:] = 0.0
            t = 0
            while t + 8 <= taps:
                # eight taps a pass where there are: half the accumulator
                # loads and stores of four-tap passes
                s0 = planes[offs[t]:offs[t] + length]
                s1 = planes[offs[t + 1]:offs[t + 1] + length]
                s2 = planes[offs[t + 2]:offs[t + 2] + length]
                s3 = planes[offs[t + 3]:offs[t + 3] + length]
                s4 = planes[offs[t + 4]:offs[t + 4] + length]
                s5 = planes[offs[t + 5]:offs[t + 5] + length]
                s6 = planes[offs[t + 6]:offs[t + 6] + length]
                s7 = planes[offs[t + 7]:offs[t + 7] + length]
                w00, w01, w02, w03 = w[c0, t], w[c0, t + 1], w[c0, t + 2], w[c0, t + 3]
                w04, w05, w06, w07 = w[c0, t + 4], w[c0, t + 5], w[c0, t + 6], w[c0, t + 7]
                w10, w11, w12, w13 = w[c0 + 1, t], w[c0 + 1, t + 1], w[c0 + 1, t + 2], w[c0 + 1, t + 3]
                w14, w15, w16, w17 = w[c0 + 1, t + 4], w[c0 + 1, t + 5], w[c0 + 1, t + 6], w[c0 + 1, t + 7]
                w20, w21, w22, w23 = w[c0 + 2, t], w[c0 + 2, t + 1], w[c0 + 2, t + 2], w[c0 + 2, t + 3]
                w24, w25, w26, w27 = w[c0 + 2, t + 4], w[c0 + 2, t + 5], w[c0 + 2, t + 6], w[c0 + 2, t + 7]
                w30, w31, w32, w33 = w[c0 + 3, t], w[c0 + 3, t + 1], w[c0 + 3, t + 2], w[c0 + 3, t + 3]
                w34, w35, w36, w37 = w[c0 + 3, t + 4], w[c0 + 3, t + 5], w[c0 + 3, t + 6], w[c0 + 3, t + 7]
                for j in range(length):
                    x0 = s0[j]
                    x1 = s1[j]
                    x2 = s2[j]
                    x3 = s3[j]
                    x4 = s4[j]
                    x5 = s5[j]
                    x6 = s6[j]
                    x7 = s7[j]
                    v = a0[j]
                    v += w00 * x0
                    v += w01 * x1
                    v += w02 * x2
                    v += w03 * x3
                    v += w04 * x4
                    v += w05 * x5
                    v += w06 * x6
                    v += w07 * x7
                    a0[j] = v
                    v = a1[j]
                    v += w10 * x0
                    v += w11 * x1
                    v += w12 * x2
                    v += w13 * x3
                    v += w14 * x4
                    v += w15 * x5
                    v += w16 * x6
                    v += w17 * x7
                    a1[j] = v
                    v = a2[j]
                    v += w20 * x0
                    v += w21 * x1
                    v += w22 * x2
                    v += w23 * x3
                    v += w24 * x4
                    v += w25 * x5
                    v += w26 * x6
                    v += w27 * x7
                    a2[j] = v
                    v = a3[j]
                    v += w30 * x0
                    v += w31 * x1
                    v += w32 * x2
                    v += w33 * x3
                    v += w34 * x4
                    v += w35 * x5
                    v += w36 * x6
                    v += w37 * x7
                    a3[j] = v
                t += 8
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
