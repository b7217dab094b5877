"""numba kernels over the last axis of a contiguous array (one row at a time):
Softmax and MVN, the LayerNorm of transformers.

numpy reduces short rows slowly (``np.max`` over rows of 32 takes longer than
the exponentials); these loop over the rows once or twice, accumulating in
f64. Compiled on first use; :func:`row_kernels` is None when numba is missing
(the callers keep their numpy path).
"""

from __future__ import annotations

from typing import Any

import numpy as np

#: element types the row kernels take
ROW_DTYPES = (np.dtype(np.float32), np.dtype(np.float64))

_kernels: Any = None


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

        @numba.njit(cache=True, nogil=True)
        def softmax(x, out):  # pragma: no cover (compiled)
            rows, n = x.shape
            for r in range(rows):
                m = x[r, 0]
                for j in range(1, n):
                    v = x[r, j]
                    if v > m or math.isnan(v):
                        m = v
                s = 0.0
                for j in range(n):
                    e = math.exp(x[r, j] - m)
                    out[r, j] = e
                    s += out[r, j]
                for j in range(n):
                    out[r, j] = out[r, j] / s

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
