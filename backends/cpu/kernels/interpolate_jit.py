"""The numba kernels of :mod:`xmo.backends.cpu.kernels.interpolate` (nearest
and 2-tap linear resizes of the last two axes), at module level so that
numba's on-disk cache finds them again. Loaded lazily through
:func:`~xmo.backends.cpu.kernels._common.jit_module` (numba stays a lazy
import).

Both take the input as planes ``x`` [P, H, W] and write planes ``[p0, p1)``,
output rows ``[y0, y1)`` of ``out`` [P, OH, OW] (one task of a split over
planes or, with fewer planes than tasks, over rows), from per-axis tables the
plan computed once.
"""

from __future__ import annotations

import numba
import numpy as np

from xmo.backends.cpu import vector_width

vector_width.configure()  # before the first kernel: numba's vector width


@numba.njit(cache=True, nogil=True)
def nearest_2d(x, yi, xi, out, p0, p1, y0, y1):  # pragma: no cover
    """``out[p, oy, ox] = x[p, yi[oy], xi[ox]]``; an output row reading the
    same input row as the one above it is a copy of that row."""
    ow = out.shape[2]
    for p in range(p0, p1):
        xp = x[p]
        op = out[p]
        for oy in range(y0, y1):
            o = op[oy]
            if oy > y0 and yi[oy] == yi[oy - 1]:
                prev = op[oy - 1]
                for ox in range(ow):
                    o[ox] = prev[ox]
            else:
                r = xp[yi[oy]]
                for ox in range(ow):
                    o[ox] = r[xi[ox]]


@numba.njit(cache=True, nogil=True)
def linear_2d(x, rows, ry0, ry1, wy0, wy1, xi0, xi1, wx0, wx1, out,
              block, p0, p1, y0, y1):  # pragma: no cover
    """A separable 2-tap resize, ``block`` output rows at a time: the input
    rows ``rows[r]`` those output rows read, resized along the width first
    (``t[r, ox] = wx0[ox] * x[rows[r], xi0[ox]] + wx1[ox] * x[rows[r],
    xi1[ox]]``, a scratch of those rows only), then each output row ``oy`` as
    ``wy0[oy] * t[ry0[oy]] + wy1[oy] * t[ry1[oy]]`` (contiguous rows: SIMD).
    Arithmetic in the element type of ``x`` (the weights are of that type too)."""
    ow = out.shape[2]
    t = np.empty((0, ow), x.dtype)
    for p in range(p0, p1):
        xp = x[p]
        op = out[p]
        for yb in range(y0, y1, block):
            ye = min(yb + block, y1)
            lo = ry0[yb]
            hi = ry1[yb]
            for oy in range(yb, ye):
                lo = min(lo, ry0[oy])
                hi = max(hi, ry1[oy])
            if hi + 1 - lo > t.shape[0]:
                t = np.empty((hi + 1 - lo, ow), x.dtype)
            for r in range(lo, hi + 1):
                src = xp[rows[r]]
                tr = t[r - lo]
                for ox in range(ow):
                    tr[ox] = wx0[ox] * src[xi0[ox]] + wx1[ox] * src[xi1[ox]]
            for oy in range(yb, ye):
                a = t[ry0[oy] - lo]
                b = t[ry1[oy] - lo]
                w0 = wy0[oy]
                w1 = wy1[oy]
                o = op[oy]
                for ox in range(ow):
                    o[ox] = w0 * a[ox] + w1 * b[ox]
