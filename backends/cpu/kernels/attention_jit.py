"""The numba kernel of :mod:`xmo.backends.cpu.kernels.attention`, at module
level (numba's on-disk cache finds it again); imported only when numba is
there (numba stays a lazy import)."""

from __future__ import annotations

import numba
import numpy as np

from xmo.backends.cpu import vector_width
from xmo.backends.cpu.kernels.rows import LOG2E
from xmo.backends.cpu.kernels.rows_jit import row_max_f32

vector_width.configure()  # before the first kernel: numba's vector width


@numba.njit(cache=True, nogil=True, error_model="numpy",
            fastmath={"reassoc", "contract", "nsz", "arcp"})
def softmax_rows(s, scale):  # pragma: no cover (compiled)
    # f32 scores s [rows, n] in place: s[r] = softmax(s[r] * scale) (scale
    # > 0: exp((s - max) * scale)), four passes over a row (in L1): the
    # maximum (rows_jit.row_max_f32, inlined, on the int32 view of s taken
    # once: integer keys, no float operation, so this kernel's fastmath flags
    # do not touch it; NaN when the row holds one), the shifted exponentials, their 2^k scaling with the row sum, the
    # multiplication by 1 / sum.
    # exp in f32 with a vectorisable polynomial: 2^k from its bits, a
    # degree-6 polynomial on |f| <= ln2/2 (Cody-Waite reduction; within 2e-6
    # of the exact exponential of the f32 difference); exponents below -87
    # give 0 (-inf: a masked score). fastmath without nnan / ninf (the sum
    # vectorises, NaN and inf stay IEEE): a NaN score, or a row whose largest
    # score is +-inf, gives a NaN row, as numpy's formula
    rows = s.shape[0]
    n = np.uint64(s.shape[1])
    bits = np.empty(n, np.int32)
    pow2 = bits.view(np.float32)
    keys = s.view(np.int32)
    for r in range(rows):
        row = s[r]
        m = row_max_f32(keys, r)
        for j in range(n):
            t = (row[j] - m) * scale
            low = t < np.float32(-87.0)
            t = np.float32(-87.0) if low else t
            kf = np.floor(t * np.float32(LOG2E) + np.float32(0.5))
            f = t - kf * np.float32(0.693359375)
            f = f + kf * np.float32(2.12194440e-4)
            p = np.float32(1.0) + f * (np.float32(1.0) + f * (np.float32(0.5) + f * (
                np.float32(1.0 / 6) + f * (np.float32(1.0 / 24) + f * (
                    np.float32(1.0 / 120) + f * np.float32(1.0 / 720))))))
            row[j] = np.float32(0.0) if low else p
            bits[j] = (np.int32(kf) + np.int32(127)) << np.int32(23)
        total = np.float32(0.0)
        for j in range(n):
            e = row[j] * pow2[j]
            row[j] = e
            total += e
        inv = np.float32(1.0) / total
        for j in range(n):
            row[j] = row[j] * inv
