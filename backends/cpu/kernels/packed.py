"""Constant f32 right operands packed once for the panel micro-kernel.

:class:`PackedMatrix` holds ``B`` [K, N] as the k-major panels of
:mod:`~xmo.backends.cpu.kernels.gemm_jit` (packed when a plan is made, so a
call never repacks it) and multiplies ``a`` [M, K] by it, cut into one task
per thread on xmo's pool: ranges of panels (columns) when ``B`` is the
larger operand, else ranges of rows of ``a`` in whole micro-tiles.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from types import ModuleType

import numpy as np

from xmo.backends.cpu.threads import run_tasks, threads

#: multiply-adds from which a product is cut over the threads (no task
#: repacks an operand here, so a split pays earlier than a BLAS one)
SPLIT_MACS = 1 << 20

_jit: ModuleType | None = None
_tried = False


def panel_kernels() -> ModuleType | None:
    """The :mod:`~xmo.backends.cpu.kernels.gemm_jit` module, or None without numba."""
    global _jit, _tried
    if not _tried:
        _tried = True
        try:
            import numba  # noqa: F401
        except ImportError:
            return None
        from xmo.backends.cpu.kernels import gemm_jit

        _jit = gemm_jit
    return _jit


class PackedMatrix:
    """A constant f32 matrix ``B`` [K, N] packed into panels of ``NR``
    columns (zero-padded); ``matmul(a)`` is ``a @ B``."""

    def __init__(self, b: np.ndarray, jit: ModuleType) -> None:
        if b.ndim != 2 or b.dtype != np.float32:
            raise ValueError(f"packs a 2-D f32 matrix, got {b.dtype} {b.shape}")
        self.k, self.n = b.shape
        nr = jit.NR
        p = -(-self.n // nr)
        panels = np.zeros((p, self.k, nr), np.float32)
        full = self.n // nr
        if full:
            panels[:full] = b[:, :full * nr].reshape(self.k, full, nr).transpose(1, 0, 2)
        if full < p:
            panels[full, :, :self.n - full * nr] = b[:, full * nr:]
        self.panels = panels
        self._jit = jit

    @property
    def nbytes(self) -> int:
        return self.panels.nbytes

    def tasks(self, a: np.ndarray, out: np.ndarray) -> list[tuple[Callable[..., object], tuple]]:
        """Pool tasks computing ``out = a @ B``: ``a`` [M, K] and ``out``
        [M, N] f32 with unit column strides; one task per thread from
        :data:`SPLIT_MACS` multiply-adds, else one."""
        m = a.shape[0]
        run = self._jit.gemm_panels
        p = self.panels.shape[0]
        parts = threads() if m * self.k * self.n >= SPLIT_MACS else 1
        if parts < 2:
            return [(run, (a, self.panels, out, 0, m, 0, p))]
        mr = self._jit.MR
        if self.k * self.n >= m * self.k and p >= parts or m < parts * mr:
            parts = min(parts, p)
            cuts = [p * i // parts for i in range(parts + 1)]
            return [(run, (a, self.panels, out, 0, m, lo, hi))
                    for lo, hi in zip(cuts, cuts[1:])]
        tiles = -(-m // mr)
        cuts = [min(m, tiles * i // parts * mr) for i in range(parts)] + [m]
        return [(run, (a, self.panels, out, lo, hi, 0, p)) for lo, hi in zip(cuts, cuts[1:])]

    def matmul(self, a: np.ndarray, out: np.ndarray | None = None) -> np.ndarray:
        """``a @ B`` for an f32 ``a`` [M, K] (a new C-contiguous array unless ``out``)."""
        if a.ndim != 2 or a.shape[1] != self.k:
            raise ValueError(f"[M, {self.k}] operand expected, got {a.shape}")
        if a.dtype != np.float32:
            raise ValueError(f"f32 operand expected, got {a.dtype}")
        if a.strides[1] != 4:
            a = np.ascontiguousarray(a)
        if out is None:
            out = np.empty((a.shape[0], self.n), np.float32)
        run_tasks(self.tasks(a, out))
        return out


def pack(b: np.ndarray) -> PackedMatrix | None:
    """``b`` packed for :class:`PackedMatrix` products, or None (no numba,
    not a 2-D f32 matrix, or empty)."""
    if b.ndim != 2 or b.dtype != np.float32 or not math.prod(b.shape):
        return None
    jit = panel_kernels()
    return None if jit is None else PackedMatrix(b, jit)
