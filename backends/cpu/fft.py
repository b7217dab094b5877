"""2-D FFT over the two inner spatial dims of ``[..., H, W, 2]`` (re, im) tensors.

Algorithm
---------
Each 1-D transform of length ``n`` is a mixed-radix Stockham autosort FFT
(decimation in time, no digit-reversal pass): ``n`` is factored into radices
4, 2, 3, 5 and, for other primes up to ``_MAX_GENERIC_RADIX``, a generic
O(p^2) prime butterfly.  Lengths with a larger prime factor use Bluestein's
chirp-z algorithm, i.e. a circular convolution of smooth length
``m >= 2n - 1`` (``m = 2^a 3^b 5^c``) done with the same mixed-radix engine.

The engine works on *lanes*: up to 64 lines are transformed together, the
data held in split real / imaginary scratch buffers laid out ``[n, lanes]``,
so every butterfly's inner loop runs over contiguous memory (lanes x the
remaining sub-length) and vectorizes (array indices are cast to unsigned so
numba emits no negative-index wraparound, which would block vectorization).
A 2-D transform is a row pass (tiled gather of 64 rows into scratch,
transform, scatter) followed by a column pass (gather 64 adjacent columns,
i.e. contiguous runs of each row; no transpose of the plane).

The inverse uses ``ifft(x) = conj(fft(conj(x))) / n``: the conjugations and
the ``1/(H*W)`` scale are fused into the gather / scatter loops, so only
forward tables exist.  Tables (factors, per-stage twiddles, Bluestein chirp
and kernel spectrum) are computed once per (length, dtype) and cached.

Work is in the input's precision (float32 for float32 input, float64
otherwise); twiddles are computed in float64 and rounded once.

Parallelism: the numba kernels are ``nogil``; the calling thread and the
backend's helper pool (``threads - 1`` workers, :mod:`.threads`) take tasks
from a shared queue.  With at least as
many planes as cores, a task is the full 2-D transform of a chunk of planes
(data stays in cache, one synchronization per call, scratch allocated once per
task); with fewer planes, the rows (then the columns) are split into ranges
across the threads.  A thread pool is used rather than ``parallel=True``
because on an oversubscribed machine an OpenMP parallel region cost 10-20 ms
(spinning workers), which dominated small transforms.
"""

from __future__ import annotations

import functools

import numpy as np
from numba import njit
from numba import uint64 as U

from xmo.backends.cpu import threads, vector_width

vector_width.configure()  # before the first kernel: numba's vector width

_FM = {"contract"}  # allow FMA contraction only (no reassociation)
_MAX_GENERIC_RADIX = 31
_KIND_STOCKHAM = 0
_KIND_BLUESTEIN = 1


# ---------------------------------------------------------------------------
# Plans
# ---------------------------------------------------------------------------


def _factor(n: int) -> list[int]:
    """Prime factorization of ``n`` (ascending)."""
    out, p = [], 2
    while p * p <= n:
        while n % p == 0:
            out.append(p)
            n //= p
        p += 1
    if n > 1:
        out.append(n)
    return out


def _radices(n: int) -> list[int]:
    """Stage radices for a smooth ``n``: 4s first, then 2, 3, 5, other primes."""
    primes = _factor(n)
    twos = primes.count(2)
    rad = [4] * (twos // 2) + [2] * (twos % 2)
    rad += [p for p in primes if p != 2]
    return rad


def _smooth_at_least(n: int) -> int:
    """Smallest 2^a 3^b 5^c >= n."""
    best = 1 << max(0, (n - 1).bit_length())
    p5 = 1
    while p5 < best:
        p35 = p5
        while p35 < best:
            v = p35
            while v < n:
                v *= 2
            best = min(best, v)
            p35 *= 3
        p5 *= 5
    return best


def _stockham_tables(n: int, dtype) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(radices, twiddle re, twiddle im) of a forward length-``n`` FFT.

    Per stage (radix p, l = product of the previous radices): ``l * (p-1)``
    twiddles ``exp(-2πi j q / (l p))`` at ``[j * (p-1) + q - 1]``, followed,
    for a generic radix, by the ``p`` roots ``exp(-2πi t / p)``.
    """
    rad = _radices(n) if n > 1 else []
    parts = []
    l = 1
    for p in rad:
        j = np.arange(l)[:, None]
        q = np.arange(1, p)[None, :]
        parts.append(np.exp(-2j * np.pi * ((j * q) % (l * p)) / (l * p)).ravel())
        if p not in (2, 3, 4, 5):
            parts.append(np.exp(-2j * np.pi * np.arange(p) / p))
        l *= p
    tw = np.concatenate(parts) if parts else np.zeros(1, np.complex128)
    return (np.asarray(rad, np.int64), np.ascontiguousarray(tw.real, dtype),
            np.ascontiguousarray(tw.imag, dtype))


@functools.lru_cache(maxsize=128)
def _plan(n: int, dtype_name: str) -> tuple:
    """Forward plan for lines of length ``n``, as a tuple the kernels take.

    (kind, n, m, radices, tw_re, tw_im, chirp_re, chirp_im, bk_re, bk_im, consts)
    where m is the length the Stockham engine runs at (``n``, or Bluestein's
    convolution length).
    """
    dtype = np.dtype(dtype_name)
    consts = np.array([
        0.5, np.sqrt(3.0) / 2,
        np.cos(2 * np.pi / 5), np.cos(4 * np.pi / 5),
        np.sin(2 * np.pi / 5), np.sin(4 * np.pi / 5),
        np.sqrt(0.5),
    ], dtype)
    big = max(_factor(n)) if n > 1 else 1
    if big <= _MAX_GENERIC_RADIX:
        rad, twr, twi = _stockham_tables(n, dtype)
        z = np.zeros(1, dtype)
        return (_KIND_STOCKHAM, n, n, rad, twr, twi, z, z, z, z, consts)
    m = _smooth_at_least(2 * n - 1)
    rad, twr, twi = _stockham_tables(m, dtype)
    k = np.arange(n, dtype=np.int64)
    # k^2 mod 2n keeps the phase argument small (accuracy)
    chirp = np.exp(-1j * np.pi * ((k * k) % (2 * n)) / n)
    b = np.zeros(m, np.complex128)
    b[:n] = np.conj(chirp)
    b[m - n + 1:] = np.conj(chirp[1:])[::-1]
    bk = np.fft.fft(b) / m
    return (_KIND_BLUESTEIN, n, m, rad, twr, twi,
            np.ascontiguousarray(chirp.real, dtype), np.ascontiguousarray(chirp.imag, dtype),
            np.ascontiguousarray(bk.real, dtype), np.ascontiguousarray(bk.imag, dtype),
            consts)


# ---------------------------------------------------------------------------
# Stockham stages on lanes.  Data of a length-N transform over nb lanes is
# laid out [N, nb]; a stage with radix p maps A(j, k) (stored at j*m*p + k,
# m*p = remaining length before the stage) to A'(j + l s, k') at
# (j + l s) * m + k'.  In flat lane units, every (j, q) input run and every
# (j, s) output run is contiguous of length L = m * nb.
# ---------------------------------------------------------------------------


@njit(cache=True, nogil=True, fastmath=_FM)
def _stage2(sr, si, dr, di, l, m, nb, twr, twi, off):
    L = m * nb
    for j in range(l):
        ib = j * 2 * L
        ob = j * L
        so = l * L
        w1r = twr[off + j]
        w1i = twi[off + j]
        for t in range(L):
            a0r = sr[U(ib + t)]
            a0i = si[U(ib + t)]
            xr = sr[U(ib + L + t)]
            xi = si[U(ib + L + t)]
            a1r = xr * w1r - xi * w1i
            a1i = xr * w1i + xi * w1r
            dr[U(ob + t)] = a0r + a1r
            di[U(ob + t)] = a0i + a1i
            dr[U(ob + so + t)] = a0r - a1r
            di[U(ob + so + t)] = a0i - a1i


@njit(cache=True, nogil=True, fastmath=_FM)
def _stage4(sr, si, dr, di, l, m, nb, twr, twi, off):
    L = m * nb
    so = l * L
    for j in range(l):
        ib = j * 4 * L
        ob = j * L
        tb = off + j * 3
        w1r = twr[tb]
        w1i = twi[tb]
        w2r = twr[tb + 1]
        w2i = twi[tb + 1]
        w3r = twr[tb + 2]
        w3i = twi[tb + 2]
        for t in range(L):
            a0r = sr[U(ib + t)]
            a0i = si[U(ib + t)]
            xr = sr[U(ib + L + t)]
            xi = si[U(ib + L + t)]
            a1r = xr * w1r - xi * w1i
            a1i = xr * w1i + xi * w1r
            xr = sr[U(ib + 2 * L + t)]
            xi = si[U(ib + 2 * L + t)]
            a2r = xr * w2r - xi * w2i
            a2i = xr * w2i + xi * w2r
            xr = sr[U(ib + 3 * L + t)]
            xi = si[U(ib + 3 * L + t)]
            a3r = xr * w3r - xi * w3i
            a3i = xr * w3i + xi * w3r
            t0r = a0r + a2r
            t0i = a0i + a2i
            t1r = a0r - a2r
            t1i = a0i - a2i
            t2r = a1r + a3r
            t2i = a1i + a3i
            t3r = a1r - a3r
            t3i = a1i - a3i
            dr[U(ob + t)] = t0r + t2r
            di[U(ob + t)] = t0i + t2i
            dr[U(ob + 2 * so + t)] = t0r - t2r
            di[U(ob + 2 * so + t)] = t0i - t2i
            # y1 = t1 - i t3, y3 = t1 + i t3
            dr[U(ob + so + t)] = t1r + t3i
            di[U(ob + so + t)] = t1i - t3r
            dr[U(ob + 3 * so + t)] = t1r - t3i
            di[U(ob + 3 * so + t)] = t1i + t3r


@njit(cache=True, nogil=True, fastmath=_FM)
def _stage4_first(sr, si, dr, di, m, nb):
    """Radix-4 stage with l == 1 (all twiddles are 1)."""
    L = m * nb
    for t in range(L):
        a0r = sr[U(t)]
        a0i = si[U(t)]
        a1r = sr[U(L + t)]
        a1i = si[U(L + t)]
        a2r = sr[U(2 * L + t)]
        a2i = si[U(2 * L + t)]
        a3r = sr[U(3 * L + t)]
        a3i = si[U(3 * L + t)]
        t0r = a0r + a2r
        t0i = a0i + a2i
        t1r = a0r - a2r
        t1i = a0i - a2i
        t2r = a1r + a3r
        t2i = a1i + a3i
        t3r = a1r - a3r
        t3i = a1i - a3i
        dr[U(t)] = t0r + t2r
        di[U(t)] = t0i + t2i
        dr[U(2 * L + t)] = t0r - t2r
        di[U(2 * L + t)] = t0i - t2i
        dr[U(L + t)] = t1r + t3i
        di[U(L + t)] = t1i - t3r
        dr[U(3 * L + t)] = t1r - t3i
        di[U(3 * L + t)] = t1i + t3r


@njit(cache=True, nogil=True, fastmath=_FM)
def _stage3(sr, si, dr, di, l, m, nb, twr, twi, off, cst):
    L = m * nb
    so = l * L
    half = cst[0]
    c = cst[1]
    for j in range(l):
        ib = j * 3 * L
        ob = j * L
        tb = off + j * 2
        w1r = twr[tb]
        w1i = twi[tb]
        w2r = twr[tb + 1]
        w2i = twi[tb + 1]
        for t in range(L):
            a0r = sr[U(ib + t)]
            a0i = si[U(ib + t)]
            xr = sr[U(ib + L + t)]
            xi = si[U(ib + L + t)]
            a1r = xr * w1r - xi * w1i
            a1i = xr * w1i + xi * w1r
            xr = sr[U(ib + 2 * L + t)]
            xi = si[U(ib + 2 * L + t)]
            a2r = xr * w2r - xi * w2i
            a2i = xr * w2i + xi * w2r
            s_r = a1r + a2r
            s_i = a1i + a2i
            d_r = (a1r - a2r) * c
            d_i = (a1i - a2i) * c
            mr = a0r - half * s_r
            mi = a0i - half * s_i
            dr[U(ob + t)] = a0r + s_r
            di[U(ob + t)] = a0i + s_i
            dr[U(ob + so + t)] = mr + d_i
            di[U(ob + so + t)] = mi - d_r
            dr[U(ob + 2 * so + t)] = mr - d_i
            di[U(ob + 2 * so + t)] = mi + d_r


@njit(cache=True, nogil=True, fastmath=_FM)
def _stage5_half(sr, si, dr, di, l, m, nb, twr, twi, off, cst, second):
    """Radix-5 stage, outputs (0, 1, 4) or, when ``second``, (2, 3).

    Split in two loops because LLVM does not vectorize a loop with 10 input and
    10 output streams (too many runtime alias checks); recomputing the twiddled
    inputs is far cheaper than scalar code.
    """
    L = m * nb
    so = l * L
    if second:
        ca = cst[3]
        cb = cst[2]
        sa = cst[5]
        sb = -cst[4]
        o1 = 2 * so
        o4 = 3 * so
    else:
        ca = cst[2]
        cb = cst[3]
        sa = cst[4]
        sb = cst[5]
        o1 = so
        o4 = 4 * so
    for j in range(l):
        ib = j * 5 * L
        ob = j * L
        tb = off + j * 4
        w1r = twr[tb]
        w1i = twi[tb]
        w2r = twr[tb + 1]
        w2i = twi[tb + 1]
        w3r = twr[tb + 2]
        w3i = twi[tb + 2]
        w4r = twr[tb + 3]
        w4i = twi[tb + 3]
        for t in range(L):
            a0r = sr[U(ib + t)]
            a0i = si[U(ib + t)]
            xr = sr[U(ib + L + t)]
            xi = si[U(ib + L + t)]
            a1r = xr * w1r - xi * w1i
            a1i = xr * w1i + xi * w1r
            xr = sr[U(ib + 2 * L + t)]
            xi = si[U(ib + 2 * L + t)]
            a2r = xr * w2r - xi * w2i
            a2i = xr * w2i + xi * w2r
            xr = sr[U(ib + 3 * L + t)]
            xi = si[U(ib + 3 * L + t)]
            a3r = xr * w3r - xi * w3i
            a3i = xr * w3i + xi * w3r
            xr = sr[U(ib + 4 * L + t)]
            xi = si[U(ib + 4 * L + t)]
            a4r = xr * w4r - xi * w4i
            a4i = xr * w4i + xi * w4r
            s14r = a1r + a4r
            s14i = a1i + a4i
            s23r = a2r + a3r
            s23i = a2i + a3i
            pr = a0r + ca * s14r + cb * s23r
            pi = a0i + ca * s14i + cb * s23i
            qr = sa * (a1r - a4r) + sb * (a2r - a3r)
            qi = sa * (a1i - a4i) + sb * (a2i - a3i)
            if not second:
                dr[U(ob + t)] = a0r + s14r + s23r
                di[U(ob + t)] = a0i + s14i + s23i
            # y_a = p - i q, y_b = p + i q
            dr[U(ob + o1 + t)] = pr + qi
            di[U(ob + o1 + t)] = pi - qr
            dr[U(ob + o4 + t)] = pr - qi
            di[U(ob + o4 + t)] = pi + qr


@njit(cache=True, nogil=True)
def _stage5(sr, si, dr, di, l, m, nb, twr, twi, off, cst):
    _stage5_half(sr, si, dr, di, l, m, nb, twr, twi, off, cst, False)
    _stage5_half(sr, si, dr, di, l, m, nb, twr, twi, off, cst, True)


@njit(cache=True, nogil=True, fastmath=_FM)
def _stage_generic(sr, si, dr, di, cr, ci, p, l, m, nb, twr, twi, off):
    """Radix-p stage by a direct p-point DFT (``c``: scratch of p * m * nb)."""
    L = m * nb
    so = l * L
    roff = off + l * (p - 1)
    for j in range(l):
        ib = j * p * L
        ob = j * L
        for t in range(L):
            cr[U(t)] = sr[U(ib + t)]
            ci[U(t)] = si[U(ib + t)]
        for q in range(1, p):
            wr = twr[off + j * (p - 1) + q - 1]
            wi = twi[off + j * (p - 1) + q - 1]
            for t in range(L):
                xr = sr[U(ib + q * L + t)]
                xi = si[U(ib + q * L + t)]
                cr[U(q * L + t)] = xr * wr - xi * wi
                ci[U(q * L + t)] = xr * wi + xi * wr
        for s in range(p):
            o = ob + s * so
            for t in range(L):
                dr[U(o + t)] = cr[U(t)]
                di[U(o + t)] = ci[U(t)]
            for q in range(1, p):
                rr = twr[roff + (s * q) % p]
                ri = twi[roff + (s * q) % p]
                for t in range(L):
                    xr = cr[U(q * L + t)]
                    xi = ci[U(q * L + t)]
                    dr[U(o + t)] += xr * rr - xi * ri
                    di[U(o + t)] += xr * ri + xi * rr


@njit(cache=True, nogil=True)
def _stockham(ar, ai, br, bi, cr, ci, nb, rad, twr, twi, cst):
    """Forward FFT of the [N, nb] lanes in ``a`` (N = prod(rad)).

    Returns 0 if the result is in ``a``, 1 if in ``b``.
    """
    n = 1
    for i in range(rad.shape[0]):
        n *= rad[i]
    l = 1
    off = 0
    cur = 0
    for i in range(rad.shape[0]):
        p = rad[i]
        m = n // (l * p)
        if cur == 0:
            sr, si, dr, di = ar, ai, br, bi
        else:
            sr, si, dr, di = br, bi, ar, ai
        if p == 4:
            if l == 1:
                _stage4_first(sr, si, dr, di, m, nb)
            else:
                _stage4(sr, si, dr, di, l, m, nb, twr, twi, off)
        elif p == 2:
            _stage2(sr, si, dr, di, l, m, nb, twr, twi, off)
        elif p == 3:
            _stage3(sr, si, dr, di, l, m, nb, twr, twi, off, cst)
        elif p == 5:
            _stage5(sr, si, dr, di, l, m, nb, twr, twi, off, cst)
        else:
            _stage_generic(sr, si, dr, di, cr, ci, p, l, m, nb, twr, twi, off)
            off += p
        off += l * (p - 1)
        l *= p
        cur = 1 - cur
    return cur


@njit(cache=True, nogil=True, fastmath=_FM)
def _transform(ar, ai, br, bi, cr, ci, nb, plan):
    """Forward transform of the [n, nb] lanes in ``a``; returns the buffer index
    (0: a, 1: b, 2: c) holding the [n, nb] result."""
    kind, n, m, rad, twr, twi, chr_, chi, bkr, bki, cst = plan
    if kind == 0:
        return _stockham(ar, ai, br, bi, cr, ci, nb, rad, twr, twi, cst)
    # Bluestein: X_k = w_k * conv(x * w, conj(w))_k, w_k = exp(-iπ k²/n)
    for k in range(n):
        wr = chr_[k]
        wi = chi[k]
        for b in range(nb):
            xr = ar[U(k * nb + b)]
            xi = ai[U(k * nb + b)]
            ar[U(k * nb + b)] = xr * wr - xi * wi
            ai[U(k * nb + b)] = xr * wi + xi * wr
    for t in range(n * nb, m * nb):
        ar[U(t)] = 0.0
        ai[U(t)] = 0.0
    r = _stockham(ar, ai, br, bi, cr, ci, nb, rad, twr, twi, cst)
    if r == 0:
        sr, si, dr, di = ar, ai, br, bi
    else:
        sr, si, dr, di = br, bi, ar, ai
    # conj(A * B/m) back into the input buffer of the next FFT (ifft via conj)
    for k in range(m):
        wr = bkr[k]
        wi = bki[k]
        for b in range(nb):
            xr = sr[U(k * nb + b)]
            xi = si[U(k * nb + b)]
            dr[U(k * nb + b)] = xr * wr - xi * wi
            di[U(k * nb + b)] = -(xr * wi + xi * wr)
    if r == 0:
        r2 = _stockham(br, bi, ar, ai, cr, ci, nb, rad, twr, twi, cst)
        res = 1 if r2 == 0 else 0
    else:
        r2 = _stockham(ar, ai, br, bi, cr, ci, nb, rad, twr, twi, cst)
        res = r2
    if res == 0:
        sr, si = ar, ai
    else:
        sr, si = br, bi
    # X_k = w_k * conj(Y_k), written to c
    for k in range(n):
        wr = chr_[k]
        wi = chi[k]
        for b in range(nb):
            yr = sr[U(k * nb + b)]
            yi = -si[U(k * nb + b)]
            cr[U(k * nb + b)] = yr * wr - yi * wi
            ci[U(k * nb + b)] = yr * wi + yi * wr
    return 2


# ---------------------------------------------------------------------------
# Row / column passes.  x, out: [P, H, W, 2] float arrays.
# ---------------------------------------------------------------------------


@njit(cache=True, nogil=True)
def _buffers(plan_a, plan_b, lanes):
    """Six scratch vectors for ``lanes`` lines of either plan."""
    size = max(plan_a[1], plan_a[2], plan_b[1], plan_b[2]) * lanes
    dt = plan_a[4].dtype
    return (np.empty(size, dt), np.empty(size, dt), np.empty(size, dt),
            np.empty(size, dt), np.empty(size, dt), np.empty(size, dt))


@njit(cache=True, nogil=True, fastmath=_FM)
def _rows(x, out, p0, p1, r0, r1, plan, sgn, lanes, bufs):
    """Transform rows r0:r1 of planes p0:p1 (length-W lines) from x into out.

    ``sgn`` (compute dtype): [imag factor on load, real / imag factors on store].
    """
    h = x.shape[1]
    w = x.shape[2]
    xf = x.reshape(x.size)
    of = out.reshape(out.size)
    ar, ai, br, bi, cr, ci = bufs
    s_in = sgn[0]
    s_or = sgn[1]
    s_oi = sgn[2]
    for pl in range(p0, p1):
        r = r0
        while r < r1:
            nb = min(lanes, r1 - r)
            # tiled (16 x nb) transpose: rows -> [w, nb] lanes
            for k0 in range(0, w, 16):
                k1 = min(w, k0 + 16)
                for b in range(nb):
                    base = ((pl * h + r + b) * w) * 2
                    for k in range(k0, k1):
                        ar[U(k * nb + b)] = xf[U(base + 2 * k)]
                        ai[U(k * nb + b)] = xf[U(base + 2 * k + 1)] * s_in
            res = _transform(ar, ai, br, bi, cr, ci, nb, plan)
            if res == 0:
                yr, yi = ar, ai
            elif res == 1:
                yr, yi = br, bi
            else:
                yr, yi = cr, ci
            for k0 in range(0, w, 16):
                k1 = min(w, k0 + 16)
                for b in range(nb):
                    base = ((pl * h + r + b) * w) * 2
                    for k in range(k0, k1):
                        of[U(base + 2 * k)] = yr[U(k * nb + b)] * s_or
                        of[U(base + 2 * k + 1)] = yi[U(k * nb + b)] * s_oi
            r += nb


@njit(cache=True, nogil=True, fastmath=_FM)
def _cols(x, out, p0, p1, c0, c1, plan, sgn, lanes, bufs):
    """Transform columns c0:c1 of planes p0:p1 (length-H lines) from x into out."""
    h = x.shape[1]
    w = x.shape[2]
    xf = x.reshape(x.size)
    of = out.reshape(out.size)
    ar, ai, br, bi, cr, ci = bufs
    s_in = sgn[0]
    s_or = sgn[1]
    s_oi = sgn[2]
    for pl in range(p0, p1):
        c = c0
        while c < c1:
            nb = min(lanes, c1 - c)
            for k in range(h):
                base = ((pl * h + k) * w + c) * 2
                for b in range(nb):
                    ar[U(k * nb + b)] = xf[U(base + 2 * b)]
                    ai[U(k * nb + b)] = xf[U(base + 2 * b + 1)] * s_in
            res = _transform(ar, ai, br, bi, cr, ci, nb, plan)
            if res == 0:
                yr, yi = ar, ai
            elif res == 1:
                yr, yi = br, bi
            else:
                yr, yi = cr, ci
            for k in range(h):
                base = ((pl * h + k) * w + c) * 2
                for b in range(nb):
                    of[U(base + 2 * b)] = yr[U(k * nb + b)] * s_or
                    of[U(base + 2 * b + 1)] = yi[U(k * nb + b)] * s_oi
            c += nb


@njit(cache=True, nogil=True)
def _planes(x, out, p0, p1, plan_h, plan_w, sgn_rows, sgn_cols, lanes_r, lanes_c):
    """Full 2-D transform of planes p0:p1."""
    h = x.shape[1]
    w = x.shape[2]
    bufs = _buffers(plan_h, plan_w, max(lanes_r, lanes_c))
    for pl in range(p0, p1):
        _rows(x, out, pl, pl + 1, 0, h, plan_w, sgn_rows, lanes_r, bufs)
        _cols(out, out, pl, pl + 1, 0, w, plan_h, sgn_cols, lanes_c, bufs)


@njit(cache=True, nogil=True)
def _rows_task(x, out, p0, p1, r0, r1, plan, sgn, lanes):
    _rows(x, out, p0, p1, r0, r1, plan, sgn, lanes, _buffers(plan, plan, lanes))


@njit(cache=True, nogil=True)
def _cols_task(x, out, p0, p1, c0, c1, plan, sgn, lanes):
    _cols(x, out, p0, p1, c0, c1, plan, sgn, lanes, _buffers(plan, plan, lanes))


# ---------------------------------------------------------------------------
# Dispatch
# ---------------------------------------------------------------------------

def _workers() -> int:
    return threads.threads()


def _ranges(n: int, parts: int, align: int) -> list[tuple[int, int]]:
    """Split [0, n) into at most ``parts`` ranges whose bounds are multiples of align."""
    blocks = (n + align - 1) // align
    parts = max(1, min(parts, blocks))
    out = []
    for i in range(parts):
        a = (blocks * i // parts) * align
        b = min(n, (blocks * (i + 1) // parts) * align)
        if b > a:
            out.append((a, b))
    return out


def _lanes(n: int, count: int) -> int:
    """Lines transformed together for length-``n`` lines (``count`` lines per plane):
    enough that the inner loops are long, few enough that scratch stays in L2."""
    lanes = 64
    return max(1, min(lanes, count))


def _fft2_planes(x: np.ndarray, inverse: bool) -> np.ndarray:
    """x: contiguous [P, H, W, 2] float32/float64 array -> same-shape result."""
    p_n, h, w, _ = x.shape
    out = np.empty_like(x)
    name = x.dtype.name
    plan_h, plan_w = _plan(h, name), _plan(w, name)
    scale = 1.0 / (h * w) if inverse else 1.0
    # inverse = conj(forward(conj(x))) / (h w): conj on the row load, conj and
    # scale on the column store
    sgn_rows = np.array([-1.0 if inverse else 1.0, 1.0, 1.0], x.dtype)
    sgn_cols = np.array([1.0, scale, -scale if inverse else scale], x.dtype)
    lanes_r, lanes_c = _lanes(w, h), _lanes(h, w)
    workers = _workers()
    if p_n >= workers or p_n * h * w < 4096:
        # one task per chunk of planes, several chunks per thread: on a busy
        # machine a late helper thread only delays its current chunk, the
        # caller takes the rest (a task costs ~3 us of numba dispatch)
        parts = 1 if p_n * h * w < 4096 else 8 * workers
        chunks = _ranges(p_n, parts, 1)
        threads.run_tasks([(_planes, (x, out, a, b, plan_h, plan_w, sgn_rows, sgn_cols, lanes_r, lanes_c))
              for a, b in chunks])
    else:
        threads.run_tasks([(_rows_task, (x, out, 0, p_n, a, b, plan_w, sgn_rows, lanes_r))
              for a, b in _ranges(h, workers, 16)])
        threads.run_tasks([(_cols_task, (out, out, 0, p_n, a, b, plan_h, sgn_cols, lanes_c))
              for a, b in _ranges(w, workers, 16)])
    return out


def fft2d(x: np.ndarray, inverse: bool = False) -> np.ndarray:
    """2-D FFT over (H, W) of a real ``[..., H, W, 2]`` tensor of (re, im) pairs.

    Matches ``numpy.fft.fft2`` (``ifft2`` when ``inverse``, normalized by
    ``1/(H*W)``); the result has ``x``'s shape and float dtype (float32 stays
    float32, anything else is computed and returned as float64).
    """
    x = np.asarray(x)
    if x.ndim < 3 or x.shape[-1] != 2:
        raise ValueError(f"fft2d expects [..., H, W, 2], got shape {list(x.shape)}")
    ftype = x.dtype if x.dtype in (np.float32, np.float64) else np.dtype(np.float64)
    h, w = x.shape[-3], x.shape[-2]
    if x.size == 0:
        return np.zeros(x.shape, ftype)
    xx = np.ascontiguousarray(x, dtype=ftype).reshape((-1, h, w, 2))
    return _fft2_planes(xx, bool(inverse)).reshape(x.shape)


def fft2d_complex(z: np.ndarray, inverse: bool = False) -> np.ndarray:
    """2-D FFT of the last two dims of complex ``z`` (inverse scaled by 1/(H*W))."""
    z = np.asarray(z)
    if z.ndim < 2:
        raise ValueError("fft2d needs at least two dims")
    if z.dtype not in (np.complex64, np.complex128):
        z = z.astype(np.complex128)
    ftype = np.float32 if z.dtype == np.complex64 else np.float64
    if z.size == 0:
        return z.copy()
    x = np.ascontiguousarray(z).view(ftype).reshape(z.shape + (2,))
    return fft2d(x, inverse).view(z.dtype).reshape(z.shape)
