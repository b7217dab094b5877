"""MatMul and Einsum (ScaledDotProductAttention: attention.py)."""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np

from xmo.backends.cpu.dtypes import etype_dtype, tensor_dims
from xmo.backends.cpu.fusion import mark_producer
from xmo.backends.cpu.kernels.gemm_epi import gemm_epi, gemm_epi_fits
from xmo.backends.cpu.kernels.packed import PackedMatrix, pack
from xmo.backends.cpu.kernels.rows import Epi
from xmo.backends.cpu.node import KernelNode, input_etype, plan_fused_with, plan_with
from xmo.backends.cpu.registry import register_kernel
from xmo.backends.cpu.threads import TASK_MXCSR, native_tasks, run_tasks, threads

#: multiply-adds below which a product is one BLAS call on the calling thread
#: (BLAS runs on one thread: threads.py); larger f32/f64 products are cut into
#: tasks on xmo's pool. Measured on 2 cores: a split pays from about 2M
#: multiply-adds (~30 us of one-thread SGEMM), where waking a worker and
#: joining it (~10 us) is a third of the half it takes over.
MIN_SPLIT_MACS = 1 << 21
#: a split batch of matrices takes two tasks per thread above this many
#: multiply-adds (finer load balance on a busy machine: a preempted thread
#: holds one task). A split 2-D product takes one task per thread whatever
#: its size: each task packs the whole operand it shares (``b`` in row
#: ranges, ``a`` in column ranges), so more tasks repack it more often --
#: measured slower at every size from 2M to 900M multiply-adds, quiet or busy
TWO_TASKS_MACS = 1 << 24
#: column ranges of a split product start at multiples of this
_COL_ALIGN = 16
#: rows of ``a`` per task below which a 2-D product is cut in columns of ``b``
_MIN_ROWS = 16
#: element types whose products are split
_SPLIT_DTYPES = (np.dtype(np.float32), np.dtype(np.float64))


def _constant_right(node: KernelNode, consts: tuple) -> tuple[np.ndarray | None, bool]:
    """``(bt, matrix)``: the constant right operand transposed as the op says
    (a view; None when not a constant of 2+ dims), and whether the product is
    an f32/f64 left operand of static dims, not transposed, times ``bt`` as
    one [rows, K] x [K, N] matrix (``bt`` then 2-D)."""
    ea = input_etype(node, 0)
    b = consts[1] if len(consts) == 2 else None
    if not isinstance(b, np.ndarray) or b.ndim < 2:
        return None, False
    bt = np.swapaxes(b, -1, -2) if node.attr("transpose_b", False) else b
    dims = tensor_dims(node.op.operands[0].type)
    if bt.ndim > 2 and all(d == 1 for d in bt.shape[:-2]) and dims is not None \
            and len(dims) >= bt.ndim:
        bt = bt.reshape(bt.shape[-2:])
    matrix = (dims is not None and len(dims) >= 2 and min(dims) >= 0
              and not node.attr("transpose_a", False) and bt.ndim == 2
              and etype_dtype(ea) == bt.dtype and bt.dtype in _SPLIT_DTYPES
              and dims[-1] == bt.shape[0] and bool(math.prod(dims)))
    return bt, matrix


def _packed_right(node: KernelNode, bt: np.ndarray | None) -> PackedMatrix | None:
    """``bt`` (:func:`_constant_right`'s) packed for the panel kernel when
    the product is an f32 left operand of known rank >= 2 (its leading dims
    may be dynamic), not transposed, whose static last dim is ``bt``'s K,
    and ``bt`` an f32 matrix, whatever the product's size (a product that
    does not split is one call into the kernel, no tasks: measured at the
    tiny models' sizes, 4x32x32 .. 24x256x256 with a bias, 0.45-0.85 of the
    BLAS call and separate bias pass, and no slower without one); else None
    (also when :func:`~xmo.backends.cpu.kernels.packed.pack`'s memory rule
    declines)."""
    if bt is None or bt.ndim != 2 or bt.dtype != np.float32 or node.attr("transpose_a", False):
        return None
    dims = tensor_dims(node.op.operands[0].type)
    if (dims is None or len(dims) < 2 or dims[-1] != bt.shape[0]
            or etype_dtype(input_etype(node, 0)) != np.float32):
        return None
    return pack(bt)


def _packed_weights(node: KernelNode, b: np.ndarray) -> tuple[PackedMatrix, np.ndarray] | None:
    """``(packed, bt)``: the node's constant right operand ``b`` as
    :func:`_constant_right` sees it (``bt``) and as :func:`_packed_right`
    packs it, packed once per node (``node.cache``, while the same array
    comes in): the kernel's step-by-step runs and the plan multiply on the
    same panels, so their results are equal bit for bit; None when not packed."""
    hit = node.cache.get("packed")
    if hit is not None and hit[0] is b:
        return hit[1]
    bt = _constant_right(node, (None, b))[0]
    pm = _packed_right(node, bt)
    got = None if pm is None else (pm, bt)
    node.cache["packed"] = (b, got)
    return got


def _packed_product(packed: tuple[PackedMatrix, np.ndarray],
                    epi: Epi | None) -> Callable[..., np.ndarray]:
    """``a @ bt`` (``epi`` applied when given) for an f32 ``a`` [..., K]
    (its rows known at call time) on the packed panels: every row count on
    the same kernel, so a product's values do not depend on its rows."""
    pm = packed[0]
    k, n = pm.k, pm.n

    def run(a: np.ndarray, b: np.ndarray) -> np.ndarray:
        a2 = a.reshape(a.size // k, k)
        out = pm.matmul(a2) if epi is None else pm.matmul_epi(a2, epi)
        return out.reshape(a.shape[:-1] + (n,))

    return run


def _plan_matmul(node: KernelNode, consts: tuple) -> Callable[..., np.ndarray] | None:
    """The transposes bound once; a constant f32 matrix times an f32 left
    operand on the matrix packed once (:func:`_packed_weights`); else a
    constant right operand transposed (a view)
    and, times an f32/f64 left operand of static dims, the product chosen:
    one BLAS call on ``a``'s rows (as :func:`product`, :func:`sized_matmul`
    for the split); None for f16 and bf16 (the kernel)."""
    ta, tb = bool(node.attr("transpose_a", False)), bool(node.attr("transpose_b", False))
    ea, eb = input_etype(node, 0), input_etype(node, 1)
    if ea in (None, "f16", "bf16") or eb in (None, "f16", "bf16"):
        return None
    bt, matrix = _constant_right(node, consts)
    packed = _packed_weights(node, consts[1]) if bt is not None else None
    if packed is not None:
        return _packed_product(packed, None)
    if bt is not None:
        dims = tensor_dims(node.op.operands[0].type)
        if matrix:
            k, n = bt.shape
            rows = math.prod(dims[:-1])
            shape = tuple(dims[:-1]) + (n,)
            one = math.prod(dims[:-2]) == 1  # one matrix: multiplied as it is (as product)
            if rows * k * n < MIN_SPLIT_MACS:  # one BLAS call, whatever the threads
                if one:
                    return lambda a, b: np.matmul(a, bt)
                return lambda a, b: np.matmul(a.reshape(rows, k), bt).reshape(shape)
            if one:
                return lambda a, b: sized_matmul(a, bt)
            return lambda a, b: sized_matmul(a.reshape(rows, k), bt).reshape(shape)
        if ta:
            return lambda a, b: product(np.swapaxes(a, -1, -2) if a.ndim >= 2 else a, bt)
        return lambda a, b: product(a, bt)
    if not ta and not tb:
        return product
    return lambda a, b: product(np.swapaxes(a, -1, -2) if ta and a.ndim >= 2 else a,
                                np.swapaxes(b, -1, -2) if tb and b.ndim >= 2 else b)


def _plan_matmul_fused(node: KernelNode, consts: tuple,
                       epi: Epi) -> Callable[..., np.ndarray] | None:
    """The fused plan (:func:`~xmo.backends.cpu.node.plan_fused_with`): an
    f32/f64 left operand of static dims times a constant matrix as one
    [rows, K] x [K, N] product in ranges of rows, each applying ``epi`` to
    its rows (:func:`~xmo.backends.cpu.kernels.gemm_epi.gemm_epi`), or on
    the matrix packed once (:func:`_packed_weights`, f32, static or dynamic
    rows: :meth:`~xmo.backends.cpu.kernels.packed.PackedMatrix.matmul_epi`);
    None for other products and those with too few rows to split."""
    bt, matrix = _constant_right(node, consts)
    packed = _packed_weights(node, consts[1]) if bt is not None else None
    if packed is not None:
        return _packed_product(packed, epi)
    if bt is None or not matrix:
        return None
    dims = tensor_dims(node.op.operands[0].type)
    k, n = bt.shape
    rows = math.prod(dims[:-1])
    shape = tuple(dims[:-1]) + (n,)
    if not gemm_epi_fits(rows, k, n, bt.itemsize):
        return None
    return lambda a, b: gemm_epi(a.reshape(rows, k), bt, epi).reshape(shape)


@register_kernel("ov.MatMul")
@plan_fused_with(_plan_matmul_fused)
@plan_with(_plan_matmul)
def _matmul(node: KernelNode, a: np.ndarray, b: np.ndarray) -> np.ndarray:
    if type(b) is np.ndarray and not b.flags.writeable and b.ndim >= 2:  # a constant: as planned
        packed = _packed_weights(node, b)
        if packed is not None:
            return _packed_product(packed, None)(a, b)
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
    one small GEMM per matrix of ``a``. Large products are split over the
    threads (:func:`sized_matmul`)."""
    if b.ndim > 2 and b.ndim <= a.ndim and all(d == 1 for d in b.shape[:-2]):
        b = b.reshape(b.shape[-2:])
    if (b.ndim != 2 or a.ndim < 3 or a.dtype != b.dtype or a.shape[-1] != b.shape[0]
            or not a.size or a.size == a.shape[-2] * a.shape[-1]):
        return sized_matmul(a, b)  # batched, promoting, one matrix, empty or an error
    k, n = b.shape
    return sized_matmul(a.reshape(-1, k), b).reshape(a.shape[:-1] + (n,))


def sized_matmul(a: np.ndarray, b: np.ndarray, out: np.ndarray | None = None) -> np.ndarray:
    """``np.matmul(a, b, out=out)``; with several threads, an f32/f64 product
    of at least :data:`MIN_SPLIT_MACS` multiply-adds is cut into tasks on the
    pool (:func:`~xmo.backends.cpu.threads.run_tasks`; BLAS releases the GIL):
    a batch in ranges of its matrices (the first batch dim that is not 1), a
    matrix by :func:`gemm`. Below that it is the one BLAS call, with about
    0.1-0.4 us added (a few multiplications and comparisons)."""
    small = MIN_SPLIT_MACS
    if a.size * b.size < small:  # at least the multiply-adds: the quickest test
        return np.matmul(a, b, out=out)
    # a.size * N and b.size * M: the multiply-adds of a's / b's batch of
    # matrices, at most the product's (its batch broadcasts both)
    if (a.ndim < 2 or b.ndim < 2
            or a.size * b.shape[-1] < small and b.size * a.shape[-2] < small or threads() < 2
            or a.dtype != b.dtype or a.dtype not in _SPLIT_DTYPES):
        return np.matmul(a, b, out=out)
    m, k = a.shape[-2:]
    n = b.shape[-1]
    if b.shape[-2] != k:
        return np.matmul(a, b, out=out)  # its own error message
    try:
        batch = np.broadcast_shapes(a.shape[:-2], b.shape[:-2])
    except ValueError:
        return np.matmul(a, b, out=out)  # its own error message
    shape = batch + (m, n)
    if out is None:
        out = np.empty(shape, a.dtype)
    elif out.shape != shape or out.dtype != a.dtype:
        return np.matmul(a, b, out=out)  # casting or its own error message
    nd = len(shape)
    a = a.reshape((1,) * (nd - a.ndim) + a.shape)
    b = b.reshape((1,) * (nd - b.ndim) + b.shape)
    o = out
    while o.ndim > 2 and o.shape[0] == 1:
        a, b, o = a[0], b[0], o[0]
    if o.ndim == 2:
        gemm(a, b, o)
        return out
    total = o.shape[0]
    parts = min(total, _tasks(m * k * n * (o.size // (m * n))))
    cuts = [total * i // parts for i in range(parts + 1)]
    par = native_tasks() if parts > 1 else None
    if (par is not None and o.ndim == 3 and par.blas_rows_fit(a, b, o)
            and par.blas_blocks_fit(None, m, n)):
        par.sgemm_batch(par.sgemm_address(), a, b, o, np.array(cuts, np.int64), TASK_MXCSR)
        return out
    run_tasks([(_matmul_into, (a[lo:hi] if a.shape[0] > 1 else a,
                               b[lo:hi] if b.shape[0] > 1 else b, o[lo:hi]))
               for lo, hi in zip(cuts, cuts[1:])])
    return out


def gemm(a: np.ndarray, b: np.ndarray, out: np.ndarray) -> None:
    """``out = a @ b`` (2-D, same float dtype): with several threads and at
    least :data:`MIN_SPLIT_MACS` multiply-adds, cut in ranges of rows of
    ``a`` (when ``a`` is the larger operand and the ranges have rows enough)
    or of columns of ``b``, one per thread (each range packs the whole other
    operand), each a one-thread BLAS call on the pool
    (:func:`~xmo.backends.cpu.threads.run_tasks`)."""
    m, k = a.shape
    n = b.shape[1]
    work = m * n * k
    tasks = threads()
    if tasks < 2 or work < MIN_SPLIT_MACS or a.dtype not in _SPLIT_DTYPES:
        np.matmul(a, b, out=out)
        return
    if m * k >= k * n and m >= tasks * _MIN_ROWS or n < tasks * _COL_ALIGN:
        cuts = [m * i // tasks for i in range(tasks + 1)]
        parts = [(a[lo:hi], b, out[lo:hi]) for lo, hi in zip(cuts, cuts[1:]) if hi > lo]
        spans = [(lo, hi, 0, n) for lo, hi in zip(cuts, cuts[1:]) if hi > lo]
    else:
        cuts = [min(n, (n * i // tasks + _COL_ALIGN - 1) // _COL_ALIGN * _COL_ALIGN)
                for i in range(tasks)] + [n]
        parts = [(a, b[:, lo:hi], out[:, lo:hi]) for lo, hi in zip(cuts, cuts[1:]) if hi > lo]
        spans = [(0, m, lo, hi) for lo, hi in zip(cuts, cuts[1:]) if hi > lo]
    par = native_tasks()
    if par is not None and par.blas_rows_fit(a, b, out) and par.blas_blocks_fit(spans, m, n):
        par.sgemm_blocks(par.sgemm_address(), a, b, out, np.array(spans, np.int64), TASK_MXCSR)
        return
    run_tasks([(_matmul_into, p) for p in parts])


def _tasks(macs: int) -> int:
    """Tasks for a split batch of matrices: one per thread, two above :data:`TWO_TASKS_MACS`."""
    return threads() * (2 if macs >= TWO_TASKS_MACS else 1)


def _matmul_into(a: np.ndarray, b: np.ndarray, out: np.ndarray) -> None:
    np.matmul(a, b, out=out)


@register_kernel("ov.Einsum")
def _einsum(node: KernelNode, *inputs: np.ndarray) -> np.ndarray:
    eq = str(node.attr("equation", "")).replace(" ", "")
    return np.einsum(eq, *inputs, optimize=len(inputs) > 2)
