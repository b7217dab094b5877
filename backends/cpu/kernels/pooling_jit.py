"""The numba kernel of :mod:`xmo.backends.cpu.kernels.pooling` (2-D MaxPool),
at module level so that numba's on-disk cache finds it again. Imported only
by :func:`~xmo.backends.cpu.kernels.pooling.max_pool_kernel` (numba stays a
lazy import)."""

from __future__ import annotations

import numba
import numpy as np

from xmo.backends.cpu import vector_width

vector_width.configure()  # before the first kernel: numba's vector width


#: unsigned indices: numba then emits no negative-index wraparound, which
#: kept the row loops scalar
U = np.uint64


@numba.njit(cache=True, nogil=True, inline="always")
def _row_max(xr, hr, lo, hi, sw, off):  # pragma: no cover
    # hr[ox] = max(hr[ox], xr[ox * sw + off]) for lo <= ox < hi (NaN wins
    # and stays); strides 1 and 2 as literals: their loops vectorise (a
    # stride known only at run time made every element a scalar load)
    if sw == 1:
        for ox in range(lo, hi):
            v = xr[U(ox + off)]
            a = hr[U(ox)]
            hr[U(ox)] = v if (v > a) | (v != v) else a
    elif sw == 2:
        for ox in range(lo, hi):
            v = xr[U(2 * ox + off)]
            a = hr[U(ox)]
            hr[U(ox)] = v if (v > a) | (v != v) else a
    else:
        for ox in range(lo, hi):
            v = xr[U(ox * sw + off)]
            a = hr[U(ox)]
            hr[U(ox)] = v if (v > a) | (v != v) else a


@numba.njit(cache=True, nogil=True)
def max_pool(x, kh, kw, sh, sw, dh, dw, ph, pw, out, p0, p1):  # pragma: no cover
    """Planes ``[p0, p1)`` of a 2-D max pool: ``x`` [P, H, W] -> ``out``
    [P, Oh, Ow]. Window taps outside ``x`` are skipped (a window of padding
    only gives -inf, like the padded numpy path); NaN propagates."""
    ih, iw = x.shape[1], x.shape[2]
    oh, ow = out.shape[1], out.shape[2]
    # per tap column: the outputs whose input column lies inside a row
    lo = np.empty(kw, np.int64)
    hi = np.empty(kw, np.int64)
    for kx in range(kw):
        off = kx * dw - pw
        lo[kx] = min(ow, (-off + sw - 1) // sw) if off < 0 else 0
        hi[kx] = max(lo[kx], min(ow, (iw - 1 - off) // sw + 1))
    # separable: the maxima along each input row's windows first
    # (every input row once; a window one column wide at stride 1
    # without padding reads the input rows themselves), then down the
    # columns of those rows, a whole output row at a time
    h = np.empty((ih, ow), x.dtype)
    rows_in_place = kw == 1 and sw == 1 and pw == 0 and ow == iw
    for p in range(p0, p1):
        xp = x[p]
        hp = xp if rows_in_place else h
        for iy in range(0 if rows_in_place else ih):
            xr = xp[iy]
            hr = h[iy]
            for ox in range(ow):
                hr[ox] = -np.inf
            for kx in range(kw):
                _row_max(xr, hr, lo[kx], hi[kx], sw, kx * dw - pw)
        for oy in range(oh):
            acc = out[p, oy]
            for ox in range(ow):
                acc[ox] = -np.inf
            for ky in range(kh):
                iy = oy * sh + ky * dh - ph
                if iy < 0 or iy >= ih:
                    continue
                _row_max(hp[iy], acc, 0, ow, 1, 0)
