"""Constant f32 operands packed once for the panel micro-kernel.

:class:`PackedMatrix` holds ``B`` [K, N] as the k-major panels of
:mod:`~xmo.backends.cpu.kernels.gemm_jit` (packed when a plan is made, so a
call never repacks it) and multiplies ``a`` [M, K] by it, cut into one task
per thread on xmo's pool: ranges of panels (columns) when ``B`` is the
larger operand, else ranges of rows of ``a`` in whole micro-tiles.
:class:`PackedRows` holds a constant left operand (a convolution's
filters) in tiles of MR rows. Both count against one memory budget.
"""

from __future__ import annotations

import math
import weakref
from collections.abc import Callable
from types import ModuleType
from typing import Any

import numpy as np

from xmo.backends.cpu.kernels._common import jit_module
from xmo.backends.cpu.kernels.rows import Epi, row_kernels, run_rows
from xmo.backends.cpu.threads import TASK_MXCSR, native_tasks, run_tasks, threads

#: multiply-adds from which a product is cut over the threads (no task
#: repacks an operand here, so a split pays earlier than a BLAS one); one
#: task per thread: two per thread measured no faster on the busy 2-core
#: machine (wall medians, 128x512x512 .. 128x768x3072, 197x192x768,
#: 784x192x768: 0.8-1.0 of one per thread's GFLOP/s)
SPLIT_MACS = 1 << 20
#: packed bytes of ``B`` from which a product of fewer rows than that splits
#: anyway (in ranges of panels): a matrix-vector product reads B once, from
#: memory or L3, and two threads stream it faster than one (session 35, 2
#: threads, one row: 1024x1000 217 -> 170 us warm, 1280x1000 365 -> 215,
#: 2048x1000 507 -> 306; 512x512 23 -> 48: small ones stay whole)
SPLIT_BYTES = 2 << 20

#: packed bytes of ``B`` up to which a product with an epilogue and fewer
#: rows than columns runs in ranges of rows, the epilogue in each (every range
#: reads all of ``B``); larger ones split in panels, then a row pass:
#: measured (CPU time, 2 threads, busy machine) 0.72-0.89 of the BLAS path
#: against 0.79-1.14 in rows at 128x768x768 .. 128x768x3072
ROWS_EPI_MAX_BYTES = 1 << 20
#: bytes of one packed matrix above which :func:`pack` declines it (the
#: packed copy duplicates weights the IR keeps referencing: a huge matrix,
#: e.g. a vocabulary projection, stays a BLAS product)
MAX_PACKED_BYTES = 64 << 20
#: bytes of all live packed matrices of the process above which :func:`pack`
#: declines more (freed with the plans holding them)
MAX_TOTAL_PACKED_BYTES = 1 << 30
_live_bytes = 0


def panel_kernels() -> ModuleType | None:
    """The :mod:`~xmo.backends.cpu.kernels.gemm_jit` module, or None without numba."""
    return jit_module("gemm_jit")


def tile_cuts(size: int, unit: int, parts: int) -> list[int]:
    """The bounds of ``parts`` ranges of ``size`` rows (or columns), cut at
    whole units of ``unit`` (micro-tile rows, panel columns)."""
    units = -(-size // unit)
    return [min(size, units * i // parts * unit) for i in range(parts)] + [size]


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

    def _parts(self, m: int) -> int:
        """Tasks of an [M, K] x B product: one per thread from
        :data:`SPLIT_MACS` multiply-adds or :data:`SPLIT_BYTES` packed, else one."""
        big = m * self.k * self.n >= SPLIT_MACS or self.nbytes >= SPLIT_BYTES
        return threads() if big else 1

    def tasks(self, a: np.ndarray, out: np.ndarray) -> list[tuple[Callable[..., object], tuple]]:
        """Pool tasks computing ``out = a @ B``: ``a`` [M, K] and ``out``
        [M, N] f32 with unit column strides; one task per thread from
        :data:`SPLIT_MACS` multiply-adds, else one."""
        m = a.shape[0]
        run = self._jit.gemm_panels
        p = self.panels.shape[0]
        parts = self._parts(m)
        if parts < 2:
            return [(run, (a, self.panels, out, 0, m, 0, p))]
        mr = self._jit.MR
        if self.k * self.n >= m * self.k and p >= parts or m < parts * mr:
            parts = min(parts, p)
            cuts = [p * i // parts for i in range(parts + 1)]
            return [(run, (a, self.panels, out, 0, m, lo, hi))
                    for lo, hi in zip(cuts, cuts[1:])]
        cuts = tile_cuts(m, mr, parts)
        return [(run, (a, self.panels, out, lo, hi, 0, p)) for lo, hi in zip(cuts, cuts[1:])]

    def epi_tasks(self, a: np.ndarray, out: np.ndarray,
                  epi: Epi) -> list[tuple[Callable[..., object], tuple]]:
        """Pool tasks computing ``out = epilogue(a @ B)`` (``out`` a
        C-contiguous [M, N], ``epi`` as :mod:`~xmo.backends.cpu.kernels.
        gemm_epi`'s): ranges of rows in whole micro-tiles, one per thread
        from :data:`SPLIT_MACS` multiply-adds, each multiplying its rows and
        running ``rows_jit.bias_act`` over them right after, in the core's
        cache (``gemm_jit.gemm_panels_epi``)."""
        m = a.shape[0]
        mr = self._jit.MR
        cuts = tile_cuts(m, mr, max(1, min(self._parts(m), -(-m // mr))))
        run = self._jit.gemm_panels_epi
        return [(run, (a, self.panels, out, *epi, lo, hi))
                for lo, hi in zip(cuts, cuts[1:]) if hi > lo]

    def matmul_epi(self, a: np.ndarray, epi: Epi) -> np.ndarray:
        """A new C-contiguous ``epilogue(a @ B)`` for an f32 ``a`` [M, K]:
        a product that does not split is one call on the caller (no tasks:
        a few us on the tiny models' steps); else the epilogue in the
        product's row ranges (:meth:`epi_tasks`) when ``a`` has at least N
        rows or ``B`` at most :data:`ROWS_EPI_MAX_BYTES` packed, else the
        product in its own split (:meth:`tasks`: panels) and then the
        epilogue as a row pass (``rows.run_rows``)."""
        if a.strides[1] != 4:
            a = np.ascontiguousarray(a)
        m = a.shape[0]
        out = np.empty((m, self.n), np.float32)
        if self._parts(m) < 2:
            self._jit.gemm_panels_epi(a, self.panels, out, *epi, 0, m)
            return out
        if m >= self.n or self.nbytes <= ROWS_EPI_MAX_BYTES:
            self._run(self.epi_tasks(a, out, epi))
            return out
        self._run(self.tasks(a, out))
        ca, cb, period, prm = epi
        o1 = out.reshape(-1)
        run_rows(row_kernels().bias_act, m, self.n, o1, o1, ca, cb, period, prm, self.n)
        return out

    def matmul(self, a: np.ndarray, out: np.ndarray | None = None) -> np.ndarray:
        """``a @ B`` for an f32 ``a`` [M, K] (a new C-contiguous array unless
        ``out``); a product that does not split is one call on the caller."""
        if a.ndim != 2 or a.shape[1] != self.k:
            raise ValueError(f"[M, {self.k}] operand expected, got {a.shape}")
        if a.dtype != np.float32:
            raise ValueError(f"f32 operand expected, got {a.dtype}")
        if a.strides[1] != 4:
            a = np.ascontiguousarray(a)
        if out is None:
            out = np.empty((a.shape[0], self.n), np.float32)
        m = a.shape[0]
        if self._parts(m) < 2:
            self._jit.gemm_panels(a, self.panels, out, 0, m, 0, self.panels.shape[0])
        else:
            self._run(self.tasks(a, out))
        return out

    def _run(self, tasks: list[tuple[Callable[..., object], tuple]]) -> None:
        """:meth:`tasks` or :meth:`epi_tasks` on the native launchers when
        there are (:func:`~xmo.backends.cpu.threads.native_tasks`), else on
        the pool."""
        par = native_tasks() if len(tasks) > 1 else None
        if par is None:
            run_tasks(tasks)
        elif tasks[0][0] is self._jit.gemm_panels:  # (a, panels, out, r0, r1, p0, p1)
            spans = np.array([args[3:] for _, args in tasks], np.int64)
            par.gemm_panels(*tasks[0][1][:3], spans, TASK_MXCSR)
        else:  # gemm_panels_epi (a, panels, out, *epi, r0, r1), consecutive ranges
            cuts = np.array([tasks[0][1][7]] + [args[8] for _, args in tasks], np.int64)
            par.gemm_panels_epi(*tasks[0][1][:7], cuts, TASK_MXCSR)


def packed_bytes(k: int, n: int) -> int:
    """Bytes of a [K, N] matrix packed (its last panel zero-padded); 0 without numba."""
    jit = panel_kernels()
    return 0 if jit is None else 4 * k * (-(-n // jit.NR) * jit.NR)


def live_packed_bytes() -> int:
    """Bytes of the packed matrices alive in the process."""
    return _live_bytes


def _release(nbytes: int) -> None:
    global _live_bytes
    _live_bytes -= nbytes


def _fits(nbytes: int) -> bool:
    """Whether ``nbytes`` more packed bytes keep to the memory rule
    (:data:`MAX_PACKED_BYTES` one, :data:`MAX_TOTAL_PACKED_BYTES` all live)."""
    return 0 < nbytes <= MAX_PACKED_BYTES and _live_bytes + nbytes <= MAX_TOTAL_PACKED_BYTES


def _counted(packed: Any, nbytes: int) -> Any:
    """``packed``, its ``nbytes`` counted live until it is freed."""
    global _live_bytes
    _live_bytes += nbytes
    weakref.finalize(packed, _release, nbytes)
    return packed


def pack(b: np.ndarray) -> PackedMatrix | None:
    """``b`` packed for :class:`PackedMatrix` products, or None (no numba,
    not a 2-D f32 matrix, empty, or over the memory rule: more than
    :data:`MAX_PACKED_BYTES` packed, or the live packed matrices would pass
    :data:`MAX_TOTAL_PACKED_BYTES`)."""
    if b.ndim != 2 or b.dtype != np.float32 or not math.prod(b.shape):
        return None
    nbytes = packed_bytes(*b.shape)
    if not _fits(nbytes):
        return None
    return _counted(PackedMatrix(b, panel_kernels()), nbytes)


class PackedRows:
    """A constant f32 matrix ``A`` [M, K] as the micro-kernel's left
    (row-broadcast) operand packed in tiles of MR rows: ``tiles``
    [ceil(M / MR), K, MR] (``gemm_jit.pack_tiles``), which ``gemm_panels``
    takes in place of ``A`` (row ranges from tile bounds)."""

    def __init__(self, a: np.ndarray, jit: ModuleType) -> None:
        self.tiles = jit.pack_tiles(a)


def pack_rows(a: np.ndarray) -> PackedRows | None:
    """``a`` packed in tiles (:class:`PackedRows`), or None (no numba, not a
    2-D f32 matrix, empty, or over the memory rule of :func:`pack`, whose
    budget the tiles share)."""
    jit = panel_kernels()
    if jit is None or a.ndim != 2 or a.dtype != np.float32 or not math.prod(a.shape):
        return None
    nbytes = 4 * a.shape[1] * (-(-a.shape[0] // jit.MR) * jit.MR)
    if not _fits(nbytes):
        return None
    return _counted(PackedRows(a, jit), nbytes)
