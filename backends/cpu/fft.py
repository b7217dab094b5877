"""2-D FFT over the two inner spatial dims of ``[..., H, W, 2]`` (re, im) tensors.

The numba kernel runs the row pass then the column pass, each line
transformed by

* an iterative radix-2 Cooley-Tukey FFT when its length is a power of two;
* Bluestein's chirp-z algorithm otherwise (a power-of-two circular
  convolution of length ``m >= 2n - 1``).

Lines are processed in parallel (``prange`` over chunks of batch x lines).
Work is in complex128; results come back in the input's float type.
Twiddles, bit-reversal tables and Bluestein chirps are computed once per
(length, direction) and cached.
"""

from __future__ import annotations

import functools

import numpy as np
from numba import njit, prange

_PAR_CHUNKS = 64


@functools.lru_cache(maxsize=64)
def _pow2_tables(m: int) -> tuple[np.ndarray, np.ndarray]:
    """(twiddles exp(-2πik/m) for k < m/2, bit-reversal permutation)."""
    bits = m.bit_length() - 1
    tw = np.exp(-2j * np.pi * np.arange(m // 2) / m).astype(np.complex128)
    idx = np.arange(m)
    rev = np.zeros(m, np.int64)
    for b in range(bits):
        rev |= ((idx >> b) & 1) << (bits - 1 - b)
    return tw, rev


class _Plan:
    """Tables for transforming lines of length ``n`` in one direction."""

    def __init__(self, n: int, inverse: bool) -> None:
        self.n = n
        self.pow2 = n > 0 and n & (n - 1) == 0
        m = n if self.pow2 else 1 << (2 * n - 2).bit_length()
        self.m = m
        self.tw, self.rev = _pow2_tables(m)
        if self.pow2:
            self.chirp = np.zeros(1, np.complex128)
            self.bfft = np.zeros(1, np.complex128)
        else:
            k = np.arange(n, dtype=np.int64)
            sign = 1.0 if inverse else -1.0
            # k^2 mod 2n keeps the phase argument small (accuracy)
            self.chirp = np.exp(sign * 1j * np.pi * ((k * k) % (2 * n)) / n)
            b = np.zeros(m, np.complex128)
            b[:n] = np.conj(self.chirp)
            b[m - n + 1:] = np.conj(self.chirp[1:])[::-1]
            self.bfft = np.fft.fft(b)


@functools.lru_cache(maxsize=64)
def _plan(n: int, inverse: bool) -> _Plan:
    return _Plan(n, inverse)


@njit(cache=True, fastmath=False)
def _fft_pow2(a, tw, rev, inverse):
    """In-place radix-2 FFT of ``a`` (length m = len(rev)), unnormalized."""
    m = rev.shape[0]
    for i in range(m):
        j = rev[i]
        if j > i:
            t = a[i]
            a[i] = a[j]
            a[j] = t
    size = 2
    while size <= m:
        half = size // 2
        step = m // size
        for start in range(0, m, size):
            for j in range(half):
                w = tw[j * step]
                if inverse:
                    w = w.conjugate()
                u = a[start + j]
                v = a[start + j + half] * w
                a[start + j] = u + v
                a[start + j + half] = u - v
        size *= 2


@njit(cache=True)
def _line(buf, work, n, pow2, tw, rev, chirp, bfft, inverse):
    """Transform ``buf[:n]`` in place (``work``: scratch of length m)."""
    if pow2:
        _fft_pow2(buf, tw, rev, inverse)
        return
    m = work.shape[0]
    for k in range(n):
        work[k] = buf[k] * chirp[k]
    for k in range(n, m):
        work[k] = 0.0
    _fft_pow2(work, tw, rev, False)
    for k in range(m):
        work[k] = work[k] * bfft[k]
    _fft_pow2(work, tw, rev, True)
    inv_m = 1.0 / m
    for k in range(n):
        buf[k] = work[k] * inv_m * chirp[k]


@njit(cache=True, parallel=True)
def _fft2_kernel(x, out, inverse,
                 h_pow2, h_m, h_tw, h_rev, h_chirp, h_bfft,
                 w_pow2, w_m, w_tw, w_rev, w_chirp, w_bfft, chunks):
    """x, out: [B, H, W] complex; 2-D transform of each [H, W] plane into out."""
    b_n, h, w = x.shape
    scale = 1.0 / (h * w) if inverse else 1.0
    # rows (contiguous)
    lines = b_n * h
    per = (lines + chunks - 1) // chunks
    for c in prange(chunks):
        buf = np.empty(max(w, w_m), np.complex128)
        work = np.empty(w_m, np.complex128)
        for line in range(c * per, min(lines, (c + 1) * per)):
            bi = line // h
            r = line % h
            for k in range(w):
                buf[k] = x[bi, r, k]
            _line(buf, work, w, w_pow2, w_tw, w_rev, w_chirp, w_bfft, inverse)
            for k in range(w):
                out[bi, r, k] = buf[k]
    # columns
    lines = b_n * w
    per = (lines + chunks - 1) // chunks
    for c in prange(chunks):
        buf = np.empty(max(h, h_m), np.complex128)
        work = np.empty(h_m, np.complex128)
        for line in range(c * per, min(lines, (c + 1) * per)):
            bi = line // w
            col = line % w
            for k in range(h):
                buf[k] = out[bi, k, col]
            _line(buf, work, h, h_pow2, h_tw, h_rev, h_chirp, h_bfft, inverse)
            for k in range(h):
                out[bi, k, col] = buf[k] * scale


def fft2d_complex(z: np.ndarray, inverse: bool = False) -> np.ndarray:
    """2-D FFT of the last two dims of complex ``z`` (inverse scaled by 1/(H*W))."""
    if z.ndim < 2:
        raise ValueError("fft2d needs at least two dims")
    if z.dtype not in (np.complex64, np.complex128):
        z = z.astype(np.complex128)
    lead = z.shape[:-2]
    h, w = z.shape[-2:]
    if h == 0 or w == 0:
        return z.copy()
    zz = np.ascontiguousarray(z).reshape((-1, h, w))
    out = np.empty_like(zz)
    ph, pw = _plan(h, bool(inverse)), _plan(w, bool(inverse))
    _fft2_kernel(
        zz, out, bool(inverse),
        ph.pow2, ph.m, ph.tw, ph.rev, ph.chirp, ph.bfft,
        pw.pow2, pw.m, pw.tw, pw.rev, pw.chirp, pw.bfft, _PAR_CHUNKS,
    )
    return out.reshape(lead + (h, w))


def fft2d(x: np.ndarray, inverse: bool = False) -> np.ndarray:
    """2-D FFT over (H, W) of a real ``[..., H, W, 2]`` tensor of (re, im) pairs.

    Matches ``numpy.fft.fft2`` (``ifft2`` when ``inverse``, normalized by
    ``1/(H*W)``); the result has ``x``'s shape and float dtype.
    """
    x = np.asarray(x)
    if x.ndim < 3 or x.shape[-1] != 2:
        raise ValueError(f"fft2d expects [..., H, W, 2], got shape {list(x.shape)}")
    ftype = x.dtype if x.dtype in (np.float32, np.float64) else np.dtype(np.float64)
    ctype = np.complex64 if ftype == np.float32 else np.complex128
    z = np.ascontiguousarray(x, dtype=ftype).view(ctype)[..., 0]
    y = fft2d_complex(z, inverse)
    return y[..., None].view(ftype)
