"""Fit the coefficients ``GELU_Q`` and ``GELU_G`` of backends/cpu/kernels/rows.py
(the f32 Gelu, erf form, of the CPU backend: ``rows_jit.gelu_erf_f32``):

- |x| < 1: Phi(x) = 1/2 + x Q(x^2), Q(x^2) = erf(x / sqrt 2) / (2 x), degree 5;
- 1 <= |x| <= 13: erfc(|x| / sqrt 2) = t exp(-x^2 / 2 + g(t)),
  t = 1 / (1 + |x| / (2 sqrt 2)), g a degree-8 polynomial in t - 0.4
  (below x = -13 the result is under 2^-123).

Least squares on Chebyshev nodes, reweighted towards the largest residuals
(near-minimax); prints the coefficients rounded to f32 and the max errors (f64).

    python tools/fit_gelu.py   (needs scipy)
"""

from __future__ import annotations

import math

import numpy as np
from scipy import special

G_DEGREE, G_CENTER, Q_DEGREE = 8, 0.4, 5
X_SPLIT, X_MAX = 1.0, 13.0


def _fit(x: np.ndarray, y: np.ndarray, basis: np.ndarray) -> tuple[tuple[float, ...], float]:
    w = np.ones(x.size)
    for _ in range(60):
        sw = np.sqrt(w)
        cf = np.linalg.lstsq(basis * sw[:, None], y * sw, rcond=None)[0]
        r = np.abs(basis @ cf - y)
        w *= r / r.max() + 1e-3
        w /= w.mean()
    return tuple(float(np.float32(c)) for c in cf), float(r.max())


def fit() -> dict[str, tuple[tuple[float, ...], float]]:
    n = 4000
    u = (np.cos(np.pi * (np.arange(n) + 0.5) / n) + 1) / 2  # Chebyshev nodes on [0, 1]
    c = 1 / (2 * math.sqrt(2))
    t0, t1 = 1 / (1 + X_MAX * c), 1 / (1 + X_SPLIT * c)
    t = t0 + (t1 - t0) * u
    z = (1 / t - 1) * 2  # |x| / sqrt 2
    g = np.log(special.erfc(z)) + z * z - np.log(t)
    g_fit = _fit(t, g, np.stack([(t - G_CENTER) ** k for k in range(G_DEGREE + 1)], 1))
    x = X_SPLIT * u
    q = special.erf(x / math.sqrt(2)) / (2 * x)
    q_fit = _fit(x, q, np.stack([(x * x) ** k for k in range(Q_DEGREE + 1)], 1))
    return {"GELU_Q": q_fit, "GELU_G": g_fit}


if __name__ == "__main__":
    for name, (coeffs, err) in fit().items():
        print(f"{name} = {coeffs}  # max error {err:.2g}")
