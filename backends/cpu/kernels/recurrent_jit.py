"""The numba time loop of :mod:`~xmo.backends.cpu.kernels.recurrent` (RNN,
GRU, LSTM with their default activations), at module level so that numba's
on-disk cache finds it again. Imported only by
:func:`~xmo.backends.cpu.kernels.recurrent.sequence_kernel` (numba stays a
lazy import)."""

from __future__ import annotations

import math

import numba
import numpy as np

from xmo.backends.cpu import vector_width
from xmo.backends.cpu.kernels.recurrent import KIND_GRU, KIND_LSTM
from xmo.backends.cpu.kernels.rows_jit import sigmoid_f32

vector_width.configure()  # before the first kernel: numba's vector width


@numba.njit(cache=True, nogil=True, error_model="numpy", inline="always")
def sig64(v):  # pragma: no cover (compiled)
    return 1.0 / (1.0 + math.exp(-v))


@numba.njit(cache=True, nogil=True, error_model="numpy", fastmath={"contract"})
def matvec(v, m, z, j0, n):  # pragma: no cover (compiled)
    # z[j0:j0+n] = v @ m[:, j0:j0+n], four rows of m per pass over z (one
    # load and store of z per four multiply-adds); indices unsigned: the
    # column loops vectorise
    rows = v.shape[0]
    for j in range(n):
        z[j0 + j] = 0.0
    k = 0
    while k + 4 <= rows:
        a0 = v[k]
        a1 = v[k + 1]
        a2 = v[k + 2]
        a3 = v[k + 3]
        m0 = m[k]
        m1 = m[k + 1]
        m2 = m[k + 2]
        m3 = m[k + 3]
        for j in range(n):
            i = j0 + j
            z[i] += a0 * m0[i] + a1 * m1[i] + a2 * m2[i] + a3 * m3[i]
        k += 4
    while k < rows:
        a0 = v[k]
        m0 = m[k]
        for j in range(n):
            i = j0 + j
            z[i] += a0 * m0[i]
        k += 1


@numba.njit(cache=True, nogil=True, error_model="numpy")
def pre(a, xg, z, j0, n, clip):  # pragma: no cover (compiled)
    # a[j0:j0+n] = clip(xg + z) (the gates' pre-activations)
    for j in range(n):
        i = j0 + j
        v = xg[i] + z[i]
        if clip > 0.0:
            v = -clip if v < -clip else v
            v = clip if v > clip else v
        a[i] = v


@numba.njit(cache=True, nogil=True, error_model="numpy")
def sigmoid_span(a, j0, n, fast):  # pragma: no cover (compiled)
    # a[j0:j0+n] = sigmoid(a): f32 with the vectorised polynomial exp of
    # rows_jit (fast), else math.exp in f64
    if fast:
        sigmoid_f32(a, j0, n, -1.0, False)
    else:
        for j in range(n):
            a[j0 + j] = sig64(np.float64(a[j0 + j]))


@numba.njit(cache=True, nogil=True, error_model="numpy")
def tanh_span(a, j0, n, fast):  # pragma: no cover (compiled)
    # a[j0:j0+n] = tanh(a): f32 as 2 sigmoid(2a) - 1 (fast), else math.tanh
    if fast:
        sigmoid_f32(a, j0, n, -2.0, False)
        for j in range(n):
            a[j0 + j] = np.float32(2.0) * a[j0 + j] - np.float32(1.0)
    else:
        for j in range(n):
            a[j0 + j] = math.tanh(np.float64(a[j0 + j]))


@numba.njit(cache=True, nogil=True, error_model="numpy", fastmath={"contract"})
def run_direction(kind, fast, gx, d, rt, rb, h, c, lengths, reverse, clip, lbr, y, b0, b1):  # pragma: no cover (compiled)
    # batch entries b0..b1 of direction d (fast: gx is f32): gx [B, T, D,
    # G*H] the input projections plus bias in time order, rt [H, G*H] = R^T
    # of direction d, rb [H] its GRU recurrent bias of the candidate
    # (linear_before_reset), h, c [D, B, H] the states (updated in place; c
    # only for LSTM), lengths [B] (int64, within 0..T), y [B, D, T, H]
    # zeros: the outputs of the active steps (whole arrays, all C-contiguous:
    # one compiled signature per dtype).
    # Step t of a reverse direction reads and writes time lengths[b]-1-t.
    # Gates in the OpenVINO order (LSTM f, i, c, o; GRU z, r, h). f32: the
    # activations in f32 with a vectorised exp (relative error ~1e-7,
    # tanh's absolute); f64: math.exp / math.tanh
    hs = h.shape[2]
    g = rt.shape[1]
    z = np.empty(g, gx.dtype)
    a = np.empty(g, gx.dtype)
    rh = np.empty(hs, gx.dtype)
    n1 = np.uint64(g if kind != KIND_GRU or lbr else 2 * hs)  # columns of the first product
    h1 = np.uint64(hs)
    h2 = np.uint64(2 * hs)
    h3 = np.uint64(3 * hs)
    nh = np.uint64(hs)
    zero = np.uint64(0)
    for b in range(b0, b1):
        ln = lengths[b]
        hb = h[d, b]
        for t in range(ln):
            tt = ln - 1 - t if reverse else t
            matvec(hb, rt, z, zero, n1)
            xg = gx[b, tt, d]
            yb = y[b, d, tt]
            if kind == KIND_LSTM:
                cb = c[d, b]
                pre(a, xg, z, zero, np.uint64(g), clip)
                sigmoid_span(a, zero, h2, fast)  # f, i
                tanh_span(a, h2, nh, fast)  # c
                sigmoid_span(a, h3, nh, fast)  # o
                for j in range(nh):
                    cb[j] = a[j] * cb[j] + a[h1 + j] * a[h2 + j]
                    rh[j] = cb[j]
                tanh_span(rh, zero, nh, fast)
                for j in range(nh):
                    hb[j] = a[h3 + j] * rh[j]
                    yb[j] = hb[j]
            elif kind == KIND_GRU:
                pre(a, xg, z, zero, h2, clip)
                sigmoid_span(a, zero, h2, fast)  # z, r
                if lbr:
                    for j in range(nh):  # r (h R_h^T + Rb_h)
                        rh[j] = a[h1 + j] * (z[h2 + j] + rb[j])
                    for j in range(nh):
                        v = xg[h2 + j] + rh[j]
                        if clip > 0.0:
                            v = -clip if v < -clip else v
                            v = clip if v > clip else v
                        a[h2 + j] = v
                else:
                    for j in range(nh):
                        rh[j] = a[h1 + j] * hb[j]
                    matvec(rh, rt, z, h2, nh)
                    pre(a, xg, z, h2, nh, clip)
                tanh_span(a, h2, nh, fast)
                for j in range(nh):
                    hb[j] = (1.0 - a[j]) * a[h2 + j] + a[j] * hb[j]
                    yb[j] = hb[j]
            else:
                pre(a, xg, z, zero, nh, clip)
                tanh_span(a, zero, nh, fast)
                for j in range(nh):
                    hb[j] = a[j]
                    yb[j] = hb[j]
