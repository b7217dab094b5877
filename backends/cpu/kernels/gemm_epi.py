"""Products with their fused epilogue applied in the product's own tasks.

A fused Convolution / MatMul + bias + activation step (:class:`~xmo.backends.
cpu.fusion.EpilogueKernel`) hands its producer the epilogue as ``epi = (a, b,
period, prm)``: the constant arguments of ``rows_jit.bias_act`` over the
product viewed as rows (see the fusion module). :func:`gemm_epi_tasks` cuts
one 2-D product ``out = a @ b`` into ranges of rows of ``out``, one or two
per thread (as :func:`~xmo.backends.cpu.kernels.matmul.gemm` would split
it), each one pool task that multiplies its rows (one-thread BLAS) and runs
the epilogue over them in place right after, while they are in the core's
cache: one pool round trip instead of two (the split product, then the
split row pass), and the epilogue of a product below the row pass's split
size on every thread rather than on the caller alone.

Measured on the 2-core Xeon (session 30, same-process A/B): blocks sized for
the L2 cache (many narrower GEMMs) and column blocks (a GEMM into a
contiguous scratch, the epilogue, a copy into the output's columns) were
slower than this split -- the epilogue's second pass is not memory-bound
there (Swish ~1.2 ns per element in cache or not, Relu 0.23 vs 0.29); a
product with too few rows to split, or a large ``b`` that every row range
would read, keeps the GEMM and the separate row pass (:func:`gemm_epi_fits`).
"""

from __future__ import annotations

from collections.abc import Callable
from types import ModuleType

import numpy as np

from xmo.backends.cpu.kernels.packed import panel_kernels
from xmo.backends.cpu.kernels.rows import Epi, row_kernels
from xmo.backends.cpu.threads import TASK_MXCSR, native_tasks, run_tasks, threads

#: fewest rows in a task's range (BLAS loses speed on fewer)
_MIN_ROWS = 16
#: multiply-adds from which a product is split over the threads ...
_SPLIT_MACS = 1 << 21
#: ... (or output elements, the epilogue's work) ...
_SPLIT_ELEMENTS = 1 << 17
#: ... and from which it takes two tasks per thread
_TWO_TASKS_MACS = 1 << 24
#: a split in ranges of rows of ``a`` has each task read (and BLAS pack) all
#: of ``b``: taken when ``a`` is the larger operand or ``b`` has at most this
#: many bytes (bert's 512x2048 f32 weights were slower in rows than the
#: column split of :func:`~xmo.backends.cpu.kernels.matmul.gemm` and a
#: separate row pass)
_ROWS_MAX_B_BYTES = 1 << 20


def _row_block(act: Callable[..., None], a: np.ndarray, b: np.ndarray, out: np.ndarray,
               epi: Epi, r0: int, r1: int) -> None:
    """Rows ``r0..r1`` of ``out`` (C-contiguous) = epilogue(a[r0:r1] @ b), in place."""
    np.matmul(a[r0:r1], b, out=out[r0:r1])
    ca, cb, period, prm = epi
    o1 = out.reshape(-1)
    act(o1, o1, ca, cb, period, prm, out.shape[1], r0, r1)


def _row_cuts(m: int, k: int, n: int, itemsize: int) -> list[int] | None:
    """Row ranges of an [M, K] x [K, N] product with its epilogue: one per
    thread (two from :data:`_TWO_TASKS_MACS` multiply-adds) of at least
    :data:`_MIN_ROWS` rows. None when it is not split -- one thread, below
    :data:`_SPLIT_MACS` multiply-adds and :data:`_SPLIT_ELEMENTS` outputs
    (one BLAS call and one row pass on the caller do the same work), M too
    small for two ranges, or ``b`` too large to be read by every task
    (:data:`_ROWS_MAX_B_BYTES`)."""
    macs = m * n * k
    if threads() < 2 or (macs < _SPLIT_MACS and m * n < _SPLIT_ELEMENTS):
        return None
    if m < n and k * n * itemsize > _ROWS_MAX_B_BYTES:
        return None
    blocks = min(threads() * (2 if macs >= _TWO_TASKS_MACS else 1), m // _MIN_ROWS)
    if blocks < 2:
        return None
    return [m * i // blocks for i in range(blocks + 1)]


#: a product ``a @ b`` of f32 operands with at most this many rows of ``b``
#: (K) and unit column strides runs ``gemm_jit.gemm_strided_epi`` instead of
#: BLAS: the micro-kernel reading ``b``'s rows in place (K streams, few enough
#: for the prefetchers), no packing. Session 35, one thread, pointwise
#: convolutions (W [M, K] times an image [K, HW]): 16->96@112x112 0.76x
#: BLAS's time, 16->64@160x160 0.68x, 16->72@56x56 0.74x, 24->144@56x56 0.83x,
#: 64->256@56x56 0.84x, 96->24@56x56 0.77x (the same values: one FMA chain
#: per output in k order)
STRIDED_MAX_K = 64


def strided_fits(k: int, dtype: np.dtype, n: int | None = None) -> bool:
    """Whether a product with ``k`` rows of ``b`` of ``dtype`` takes the
    in-place micro-kernel (:data:`STRIDED_MAX_K`, f32, numba there), split
    or not; with ``n``, also at least one whole panel of columns (a tiny
    map's product keeps BLAS and the row pass after it)."""
    jit = panel_kernels() if dtype == np.float32 and k <= STRIDED_MAX_K else None
    return jit is not None and (n is None or n >= jit.NR)


def strided_kernels(a: np.ndarray, b: np.ndarray) -> ModuleType | None:
    """``gemm_jit`` when ``a @ b`` takes its in-place micro-kernel
    (:func:`strided_fits`, both with unit column strides), else None."""
    if (a.dtype != b.dtype or not strided_fits(b.shape[0], b.dtype)
            or a.strides[1] != 4 or b.strides[1] != 4):
        return None
    return panel_kernels()


def gemm_epi_fits(m: int, k: int, n: int, itemsize: int) -> bool:
    """Whether an [M, K] x [K, N] product of ``itemsize``-byte floats runs
    its epilogue in its tasks (:func:`gemm_epi_tasks`): it splits, in ranges
    of rows (see :func:`_row_cuts`)."""
    return _row_cuts(m, k, n, itemsize) is not None


def gemm_epi_tasks(a: np.ndarray, b: np.ndarray, out: np.ndarray,
                   epi: Epi) -> list[tuple[Callable[..., object], tuple]]:
    """Pool tasks computing ``out = epilogue(a @ b)``: ``a`` [M, K], ``b``
    [K, N] (any strides BLAS takes), ``out`` a C-contiguous [M, N] whose row
    ``i`` is row ``i`` of the epilogue's view (per-row constants ``i %
    period``), in the row ranges of :func:`gemm_epi_fits` (one range when
    it does not fit: the thread count changed since the plan)."""
    m, k = a.shape
    cuts = _row_cuts(m, k, b.shape[1], out.itemsize) or [0, m]
    jit = strided_kernels(a, b)
    if jit is not None:
        return [(jit.gemm_strided_epi, (a, b, out, *epi, lo, hi)) for lo, hi in zip(cuts, cuts[1:])]
    act = row_kernels().bias_act
    return [(_row_block, (act, a, b, out, epi, lo, hi)) for lo, hi in zip(cuts, cuts[1:])]


def native_epi(a: np.ndarray, b: np.ndarray, out: np.ndarray, epi: Epi) -> bool:
    """Compute ``out = epilogue(a @ b)`` in the tasks of :func:`gemm_epi_tasks`
    on the native launchers (:func:`~xmo.backends.cpu.threads.native_tasks`:
    the in-place micro-kernel, or f32 BLAS products with unit column
    strides); False, computing nothing, when the product does not split or
    they cannot take it."""
    par = native_tasks()
    if par is None:
        return False
    m, k = a.shape
    cuts = _row_cuts(m, k, b.shape[1], out.itemsize)
    if cuts is None:
        return False
    if strided_kernels(a, b) is not None:
        par.gemm_strided_epi(a, b, out, *epi, np.array(cuts, np.int64), TASK_MXCSR)
        return True
    if par.blas_rows_fit(a, b, out) and par.blas_blocks_fit(
            [(lo, hi, 0, b.shape[1]) for lo, hi in zip(cuts, cuts[1:])], m, b.shape[1]):
        par.sgemm_rows_epi(par.sgemm_address(), a, b, out, *epi, np.array(cuts, np.int64),
                           TASK_MXCSR)
        return True
    return False


def gemm_epi(a: np.ndarray, b: np.ndarray, epi: Epi) -> np.ndarray:
    """A new C-contiguous ``epilogue(a @ b)`` (2-D operands of one float
    dtype), its row ranges run on the pool (:func:`gemm_epi_tasks`); a
    product that does not split is one BLAS call and the epilogue on the
    caller, without building tasks (a few us on the tiny models' steps)."""
    m, n = a.shape[0], b.shape[1]
    out = np.empty((m, n), a.dtype)
    if _row_cuts(m, a.shape[1], n, out.itemsize) is None:  # one range: no task set-up
        jit = strided_kernels(a, b)
        if jit is not None:
            jit.gemm_strided_epi(a, b, out, *epi, 0, m)
        else:
            _row_block(row_kernels().bias_act, a, b, out, epi, 0, m)
    elif not native_epi(a, b, out, epi):
        run_tasks(gemm_epi_tasks(a, b, out, epi))
    return out


def epi_rows_fit(epi: Epi, rows: int) -> bool:
    """Whether blocks of ``rows`` rows each see per-row constants from index
    0: ``rows`` a multiple of the period (per-column constants and none fit)."""
    ca, cb, period, _ = epi
    return period == 0 or not (ca.size or cb.size) or rows % period == 0


def epi_columns(epi: Epi | None, cols: int) -> tuple[Epi | None, int]:
    """``(epi, n)``: ``epi`` over an array seen as rows of one element
    (a convolution's 1x1 map, [N*C, 1]) as the same epilogue over rows of
    ``n``: rows of ``cols`` (C) with one value per column when its
    constants are one per row ``r % cols`` (or none), else rows of 1. The
    column form runs :func:`~xmo.backends.cpu.kernels.rows_jit.bias_act`'s
    vector loop instead of a scalar step per row."""
    if epi is None:
        return None, 1
    ca, cb, period, prm = epi
    if period == cols or not (ca.size or cb.size):
        return (ca, cb, 0, prm), cols
    return epi, 1


def applies_epi(run: Callable[..., np.ndarray], epi: Epi | None) -> Callable[..., np.ndarray]:
    """``run`` marked as applying ``epi`` itself (when it is not None): a
    producer's plan made with an epilogue tells which of its forms took it
    (:func:`epi_applied`)."""
    if epi is not None:
        run.applies_epi = True  # type: ignore[attr-defined]
    return run


def then_epi(run: Callable[..., np.ndarray], epi: Epi | None,
             n: int) -> Callable[..., np.ndarray]:
    """``run`` (returning a fresh C-contiguous array) followed by the
    epilogue ``epi`` over its rows of ``n`` in place, one ``bias_act`` call
    on the caller, marked as applying it (:func:`applies_epi`); ``run``
    itself when ``epi`` is None. For small products (below the row pass's
    split size, ``rows.SPLIT_MIN``): the fused step's own row pass would do
    the same work, through three more Python calls and a result check (on
    the small CNNs' 1x1 and grouped convolutions about a quarter of the
    step's time; session 32)."""
    if epi is None:
        return run
    act = row_kernels().bias_act
    ca, cb, period, prm = epi

    def fused(*args: np.ndarray) -> np.ndarray:
        out = run(*args)
        o1 = out.reshape(-1)
        act(o1, o1, ca, cb, period, prm, n, 0, o1.size // n)
        return out

    return applies_epi(fused, epi)


def epi_applied(run: Callable[..., np.ndarray] | None) -> bool:
    """Whether ``run`` was marked by :func:`applies_epi`."""
    return getattr(run, "applies_epi", False)
