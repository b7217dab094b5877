"""numba kernels over the last axis of a contiguous array (one row at a time):
Softmax and MVN, the LayerNorm of transformers.

numpy reduces short rows slowly (``np.max`` over rows of 32 takes longer than
the exponentials); these loop over the rows once or twice, accumulating in
f64. Softmax of f32 rows computes its exponentials with a polynomial the
compiler vectorises (libm's ``exp`` is one call per element: 2x slower than
numpy from rows of 64 on). Compiled on first use; :func:`row_kernels` is None when numba is missing
(the callers keep their numpy path).
"""

from __future__ import annotations

from typing import Any

import numpy as np

#: element types the row kernels take
ROW_DTYPES = (np.dtype(np.float32), np.dtype(np.float64))

_kernels: Any = None
_LOG2E = 1.4426950408889634
_LN2 = 0.6931471805599453


def row_kernels() -> Any:
    """An object with ``softmax(x2d, out2d)`` and
    ``mvn(x2d, eps, inside_sqrt, out2d)`` (numba), or None without numba."""
    global _kernels
    if _kernels is None:
        try:
            import math

            import numba
        except ImportError:
            _kernels = False
            return None

        @numba.njit(cache=True, nogil=True, fastmath={"nsz", "arcp", "contract", "afn", "reassoc"})
        def exp_row_f32(xr, m, outr, bits, scale):  # pragma: no cover (compiled)
            # exp(x - m) (the difference in f32, as written; xr finite or
            # -inf, m finite) in f64 with a vectorisable exp: 2^k from its
            # bits, a degree-7 Taylor polynomial on |f| <= ln2 / 2 (relative
            # error 5e-9); row sum in f64
            n = xr.shape[0]
            for j in range(n):
                t = np.float64(xr[j] - m)
                t = t if t > -104.0 else -104.0  # exp(-104) rounds to 0 in f32
                k = math.floor(t * _LOG2E + 0.5)
                f = t - k * _LN2
                p = 1.0 + f * (1.0 + f * (0.5 + f * (1.0 / 6 + f * (1.0 / 24 + f * (
                    1.0 / 120 + f * (1.0 / 720 + f * (1.0 / 5040)))))))
                outr[j] = p
                bits[j] = (np.int64(k) + 1023) << 52
            s = 0.0
            for j in range(n):
                e = np.float32(outr[j] * scale[j])
                outr[j] = e
                s += e
            return s

        @numba.njit(cache=True, nogil=True)
        def softmax_rows(x, out, fast):  # pragma: no cover (compiled)
            rows, n = x.shape
            bits = np.empty(n if fast else 0, np.int64)
            scale = bits.view(np.float64)
            for r in range(rows):
                m = x[r, 0]
                for j in range(1, n):
                    v = x[r, j]
                    if v > m or math.isnan(v):
                        m = v
                if fast and math.isfinite(m):
                    s = exp_row_f32(x[r], m, out[r], bits, scale)
                else:  # f64, or a NaN / inf in the row: math.exp as written
                    s = 0.0
                    for j in range(n):
                        e = math.exp(x[r, j] - m)
                        out[r, j] = e
                        s += out[r, j]
                for j in range(n):
                    out[r, j] = out[r, j] / s

        def softmax(x, out):
            softmax_rows(x, out, x.dtype == np.float32)

        @numba.njit(cache=True, nogil=True)
        def mvn(x, eps, inside_sqrt, out):  # pragma: no cover (compiled)
            rows, n = x.shape
            for r in range(rows):
                s = 0.0
                for j in range(n):
                    s += x[r, j]
                mean = s / n
                q = 0.0
                for j in range(n):
                    d = x[r, j] - mean
                    q += d * d
                var = q / n
                den = math.sqrt(var + eps) if inside_sqrt else math.sqrt(var) + eps
                for j in range(n):
                    out[r, j] = (x[r, j] - mean) / den

        class _Kernels:
            pass

        k = _Kernels()
        k.softmax = softmax
        k.mvn = mvn
        _kernels = k
    return _kernels or None
