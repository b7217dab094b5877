"""MatMul and Einsum (ScaledDotProductAttention: attention.py)."""

from __future__ import annotations

import numpy as np

from xmo.backends.cpu.fusion import mark_producer
from xmo.backends.cpu.node import KernelNode
from xmo.backends.cpu.registry import register_kernel
from xmo.backends.cpu.threads import blas_threads, run_tasks, threads

#: multiply-adds below which a product stays one BLAS call
_MIN_SPLIT = 1 << 20
#: column ranges of a split product start at multiples of this
_COL_ALIGN = 16
#: element types whose products are split
_SPLIT_DTYPES = (np.dtype(np.float32), np.dtype(np.float64))
#: :func:`sized_matmul`: matrix products below this many multiply-adds (per
#: matrix) run on one BLAS thread; larger ones on all of BLAS's threads
BLAS_THREADS_MIN_MACS = 64 << 20


@register_kernel("ov.MatMul")
def _matmul(node: KernelNode, a: np.ndarray, b: np.ndarray) -> np.ndarray:
    if node.attr("transpose_a", False) and a.ndim >= 2:
        a = np.swapaxes(a, -1, -2)
    if node.attr("transpose_b", False) and b.ndim >= 2:
        b = np.swapaxes(b, -1, -2)
    if a.dtype == np.float16:
        a, b = a.astype(np.float32), b.astype(np.float32)
    return product(a, b)


mark_producer("MatMul", _matmul)  # a new array: its bias and activation may run in it


def product(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """``np.matmul(a, b)``; an N-D ``a`` times a matrix (``b`` 2-D, or its
    leading dims all 1) as one [M, K] x [K, N] GEMM of ``a``'s rows (a view
    when ``a`` is contiguous): ``np.matmul`` would loop over the batch dims,
    one small GEMM per matrix of ``a``."""
    if b.ndim > 2 and b.ndim <= a.ndim and all(d == 1 for d in b.shape[:-2]):
        b = b.reshape(b.shape[-2:])
    if b.ndim != 2 or a.ndim < 2 or a.dtype != b.dtype or a.shape[-1] != b.shape[0]:
        return np.matmul(a, b)  # batched, promoting, or its own error message
    k, n = b.shape
    m = a.size // k if k else 0
    if m * n * k < _MIN_SPLIT and (a.ndim == 2 or m == a.shape[-2]) or not (m and n):
        return sized_matmul(a, b)  # small and one matrix, or empty: as it is
    out = np.empty(a.shape[:-1] + (n,), np.result_type(a, b))
    gemm(a.reshape(-1, k), b, out.reshape(-1, n))
    return out


def gemm(a: np.ndarray, b: np.ndarray, out: np.ndarray) -> None:
    """``out = a @ b`` (2-D): with several threads, a large f32/f64 product is
    cut in ranges of rows of ``a`` (when ``a`` is the larger operand) or of
    columns of ``b``, one or two per thread, each a single-threaded BLAS call
    (numpy releases the GIL in BLAS) shared by the threads
    (:func:`~xmo.backends.cpu.threads.run_tasks`); a small one is a single
    one-thread BLAS call (:func:`sized_matmul`)."""
    m, k = a.shape
    n = b.shape[1]
    work = m * n * k
    if threads() < 2 or a.dtype not in _SPLIT_DTYPES:
        np.matmul(a, b, out=out)
        return
    if work < _MIN_SPLIT:
        sized_matmul(a, b, out)
        return
    tasks = threads() * (2 if work >= 8 * _MIN_SPLIT else 1)  # two ranges per thread: balance
    if m * k >= k * n:
        cuts = [m * i // tasks for i in range(tasks + 1)]
        parts = [(a[lo:hi], b, out[lo:hi]) for lo, hi in zip(cuts, cuts[1:]) if hi > lo]
    else:
        cuts = [min(n, (n * i // tasks + _COL_ALIGN - 1) // _COL_ALIGN * _COL_ALIGN)
                for i in range(tasks)] + [n]
        parts = [(a, b[:, lo:hi], out[:, lo:hi]) for lo, hi in zip(cuts, cuts[1:]) if hi > lo]
    with blas_threads(1):
        run_tasks([(_matmul_into, p) for p in parts])


def sized_matmul(a: np.ndarray, b: np.ndarray, out: np.ndarray | None = None) -> np.ndarray:
    """``np.matmul(a, b, out=out)`` with BLAS's threads only where they pay:
    with several threads, a product of fewer than
    :data:`BLAS_THREADS_MIN_MACS` multiply-adds per matrix runs on one BLAS
    thread. OpenBLAS's threads wake, spin and meet at barriers on every call;
    on the mid-size products of small CNNs (1x1 convolutions, im2col) that
    costs more than it gains, a worker preempted by another process stalls the
    call for a scheduler tick, and the workers keep spinning after the call,
    taking the cores from the helper pool's next tasks (the depthwise kernels)."""
    if threads() < 2 or a.ndim < 2 or b.ndim < 2:
        return np.matmul(a, b, out=out)
    m, k = a.shape[-2:]
    macs = m * k * b.shape[-1]
    if macs >= BLAS_THREADS_MIN_MACS:
        return np.matmul(a, b, out=out)
    with blas_threads(1):
        return np.matmul(a, b, out=out)


def _matmul_into(a: np.ndarray, b: np.ndarray, out: np.ndarray) -> None:
    np.matmul(a, b, out=out)


@register_kernel("ov.Einsum")
def _einsum(node: KernelNode, *inputs: np.ndarray) -> np.ndarray:
    eq = str(node.attr("equation", "")).replace(" ", "")
    return np.einsum(eq, *inputs, optimize=len(inputs) > 2)

