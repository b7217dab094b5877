"""Native launchers: the split steps' tasks run by numba's threading layer.

Each launcher is a numba ``parallel`` function whose ``prange`` loop runs one
kernel over a table of task bounds on numba's TBB threads and the calling
thread, without the GIL: a task is handed over in a few microseconds instead
of the 30-40 us of a helper-pool task (see :mod:`xmo.backends.cpu.threads`,
whose :func:`~xmo.backends.cpu.threads.native_tasks` gives this module when
it may be used). The tasks are those the pool would run, cut the same way,
and compute the same values bit for bit: each calls the same kernel on the
same range. Every task first sets the MXCSR bits ``mode`` asks for (the
denormal mode, :data:`~xmo.backends.cpu.threads.TASK_MXCSR`) and restores
its thread's bits after.

One launcher per kernel, written out: a launcher made by a factory around a
kernel (a closure) would be compiled again in every process (numba's disk
cache keys a closure by objects made anew in each), at 10-15 s a signature,
and a parallel loop cannot take a tuple of arrays as an argument (so the
sources of ``elem_chain`` arrive one by one and are tupled inside).

The BLAS products (:func:`sgemm_rows_epi`, :func:`sgemm_blocks`) call numpy's
own OpenBLAS (one thread, as :mod:`~xmo.backends.cpu.threads` sets it)
through its CBLAS ``sgemm`` entry point, found once by :func:`sgemm_address`
and passed as an address (a compiled constant would keep numba from caching
the launcher on disk).
"""

from __future__ import annotations

import ctypes
from pathlib import Path
from typing import Any

import numba
import numpy as np
from llvmlite import ir
from numba import prange, types
from numba.extending import intrinsic

from xmo.backends.cpu import vector_width
from xmo.backends.cpu.fpenv_jit import swap
from xmo.backends.cpu.kernels import (
    conv_jit, depthwise_jit, gemm_jit, grouped_jit, pconv_jit, rows_jit,
)

vector_width.configure()  # before the first kernel: numba's vector width

#: CBLAS constants (row-major storage, no transposition)
_ROW_MAJOR = 101
_NO_TRANS = 111
_sgemm: list[int] = []  # [address] once looked up; [0]: not found


@numba.njit(cache=True, nogil=True, parallel=True)
def probe(mode):  # pragma: no cover (compiled)
    # starts the threading layer (two trivial tasks)
    for t in prange(2):
        old = swap(mode[0], mode[1])
        swap(old, mode[1])


@numba.njit(cache=True, nogil=True, parallel=True)
def depthwise(x, wt, mg, sh, sw, dh, dw, ph, pw, out, ranges, ca, cb, period, prm,
              mode):  # pragma: no cover (compiled)
    # depthwise_jit.depthwise over the (c0, c1, b0, b1) rows of ranges
    for t in prange(ranges.shape[0]):
        old = swap(mode[0], mode[1])
        depthwise_jit.depthwise(x, wt, mg, sh, sw, dh, dw, ph, pw, out, ranges[t, 0],
                                ranges[t, 1], ranges[t, 2], ranges[t, 3], ca, cb, period, prm)
        swap(old, mode[1])


@numba.njit(cache=True, nogil=True, parallel=True)
def depthwise_tiny(x, wl, out, args, rows, ca, cb, period, prm, hw, epi,
                   mode):  # pragma: no cover (compiled)
    # depthwise_jit.depthwise_tiny(x, wl, out, args[t]) per task, then (epi)
    # rows_jit.bias_act over its output rows rows[t] ([N * Cout, Ho * Wo])
    o1 = out.reshape(-1)
    for t in prange(args.shape[0]):
        old = swap(mode[0], mode[1])
        depthwise_jit.depthwise_tiny(x, wl, out, args[t])
        if epi:
            rows_jit.bias_act(o1, o1, ca, cb, period, prm, hw, rows[t, 0], rows[t, 1])
        swap(old, mode[1])


@numba.njit(cache=True, nogil=True, parallel=True)
def stem(x, w, kh, kw, sh, sw, dh, dw, ph, pw, spans, rows, out, ca, cb, period, prm, epi,
         mode):  # pragma: no cover (compiled)
    # conv_jit.stem_block over the (b, y0, y1) rows of spans, then (epi)
    # rows_jit.bias_act_cols over the task's output rows of every channel
    m, oh, ow = out.shape[1], out.shape[2], out.shape[3]
    o1 = out.reshape(-1)
    for t in prange(spans.shape[0]):
        old = swap(mode[0], mode[1])
        b, y0, y1 = spans[t, 0], spans[t, 1], spans[t, 2]
        conv_jit.stem_block(x, w, kh, kw, sh, sw, dh, dw, ph, pw, b, y0, y1, rows, out)
        if epi:
            rows_jit.bias_act_cols(o1, oh * ow, y0 * ow, y1 * ow, b * m, (b + 1) * m, ca, cb,
                                   period, prm)
        swap(old, mode[1])


@numba.njit(cache=True, nogil=True, parallel=True)
def grouped(x, w, sh, sw, dh, dw, ph, pw, out, cuts, ea, eb, period, prm,
            mode):  # pragma: no cover (compiled)
    # grouped_jit.grouped over the item ranges cuts[t]..cuts[t + 1]
    for t in prange(cuts.size - 1):
        old = swap(mode[0], mode[1])
        grouped_jit.grouped(x, w, sh, sw, dh, dw, ph, pw, out, cuts[t], cuts[t + 1],
                            ea, eb, period, prm)
        swap(old, mode[1])


@numba.njit(cache=True, nogil=True, parallel=True)
def gemm_strided_epi(a, x, out, ca, cb, period, prm, cuts, mode):  # pragma: no cover (compiled)
    # gemm_jit.gemm_strided_epi over the row ranges cuts[t]..cuts[t + 1]
    for t in prange(cuts.size - 1):
        old = swap(mode[0], mode[1])
        gemm_jit.gemm_strided_epi(a, x, out, ca, cb, period, prm, cuts[t], cuts[t + 1])
        swap(old, mode[1])


@numba.njit(cache=True, nogil=True, parallel=True)
def gemm_panels_epi(a, panels, out, ca, cb, period, prm, cuts, mode):  # pragma: no cover
    # gemm_jit.gemm_panels_epi over the row ranges cuts[t]..cuts[t + 1]
    for t in prange(cuts.size - 1):
        old = swap(mode[0], mode[1])
        gemm_jit.gemm_panels_epi(a, panels, out, ca, cb, period, prm, cuts[t], cuts[t + 1])
        swap(old, mode[1])


@numba.njit(cache=True, nogil=True, parallel=True)
def gemm_panels(a, panels, out, spans, mode):  # pragma: no cover (compiled)
    # gemm_jit.gemm_panels over the (r0, r1, p0, p1) rows of spans
    for t in prange(spans.shape[0]):
        old = swap(mode[0], mode[1])
        gemm_jit.gemm_panels(a, panels, out, spans[t, 0], spans[t, 1], spans[t, 2], spans[t, 3])
        swap(old, mode[1])


@numba.njit(cache=True, nogil=True, parallel=True)
def bias_act(x1, o1, a, b, period, prm, n, cuts, mode):  # pragma: no cover (compiled)
    # rows_jit.bias_act over the row ranges cuts[t]..cuts[t + 1]
    for t in prange(cuts.size - 1):
        old = swap(mode[0], mode[1])
        rows_jit.bias_act(x1, o1, a, b, period, prm, n, cuts[t], cuts[t + 1])
        swap(old, mode[1])


@numba.njit(cache=True, nogil=True, parallel=True)
def elem_chain(s0, s1, s2, s3, out, code, prm, inner, cuts, mode):  # pragma: no cover
    # rows_jit.elem_chain (sources (s0, s1, s2, s3): a tuple is not a
    # parallel loop's argument) over the ranges cuts[t]..cuts[t + 1]
    for t in prange(cuts.size - 1):
        old = swap(mode[0], mode[1])
        rows_jit.elem_chain((s0, s1, s2, s3), out, code, prm, inner, cuts[t], cuts[t + 1])
        swap(old, mode[1])


@numba.njit(cache=True, nogil=True, parallel=True)
def elem_chain_tiles(s0, s1, s2, s3, trans, out, code, prm, chans, inner, tile_rows, tile,
                     cuts, mode):  # pragma: no cover (compiled)
    # rows_jit.elem_chain_tiles over the row ranges cuts[t]..cuts[t + 1]
    for t in prange(cuts.size - 1):
        old = swap(mode[0], mode[1])
        rows_jit.elem_chain_tiles((s0, s1, s2, s3), trans, out, code, prm, chans, inner,
                                  tile_rows, tile, cuts[t], cuts[t + 1])
        swap(old, mode[1])


@numba.njit(cache=True, nogil=True, parallel=True)
def mvn_affine(x, eps, inside_sqrt, a, b, out, cuts, mode):  # pragma: no cover (compiled)
    # rows_jit.mvn_affine over the row ranges cuts[t]..cuts[t + 1]
    for t in prange(cuts.size - 1):
        old = swap(mode[0], mode[1])
        rows_jit.mvn_affine(x, eps, inside_sqrt, a, b, out, cuts[t], cuts[t + 1])
        swap(old, mode[1])


@numba.njit(cache=True, nogil=True, parallel=True)
def mvn_affine_cols(x, eps, inside_sqrt, a, b, out, positions, cuts,
                    mode):  # pragma: no cover (compiled)
    # rows_jit.mvn_affine_cols over the row ranges cuts[t]..cuts[t + 1]
    for t in prange(cuts.size - 1):
        old = swap(mode[0], mode[1])
        rows_jit.mvn_affine_cols(x, eps, inside_sqrt, a, b, out, positions, cuts[t], cuts[t + 1])
        swap(old, mode[1])


@numba.njit(cache=True, nogil=True, parallel=True)
def mvn(x, eps, inside_sqrt, out, cuts, mode):  # pragma: no cover (compiled)
    # rows_jit.mvn over the row ranges cuts[t]..cuts[t + 1]
    for t in prange(cuts.size - 1):
        old = swap(mode[0], mode[1])
        rows_jit.mvn(x, eps, inside_sqrt, out, cuts[t], cuts[t + 1])
        swap(old, mode[1])


@numba.njit(cache=True, nogil=True, parallel=True)
def erf(x, out, cuts, mode):  # pragma: no cover (compiled)
    # rows_jit.erf over the ranges cuts[t]..cuts[t + 1]
    for t in prange(cuts.size - 1):
        old = swap(mode[0], mode[1])
        rows_jit.erf(x, out, cuts[t], cuts[t + 1])
        swap(old, mode[1])


@numba.njit(cache=True, nogil=True, parallel=True)
def gelu_tanh(x1, o1, cuts, mode):  # pragma: no cover (compiled)
    # rows_jit.gelu_tanh over the ranges cuts[t]..cuts[t + 1]
    for t in prange(cuts.size - 1):
        old = swap(mode[0], mode[1])
        rows_jit.gelu_tanh(x1, o1, cuts[t], cuts[t + 1])
        swap(old, mode[1])


@numba.njit(cache=True, nogil=True, parallel=True)
def panel_conv(x, kh, kw, sh, sw, dh, dw, ph, pw, ow, wm, out, spans, block, ca, cb, period,
               prm, epi, mode):  # pragma: no cover (compiled)
    # panel_conv's tasks: per row (b, q0, q1, r0, r1) of spans, rows r0..r1 x
    # pixels q0..q1 of image b's output out[b] ([M, Ho*Wo] C-contiguous), in
    # blocks of ``block`` pixels packed (pconv_jit.pack_conv) into a scratch
    # of the task's own, multiplied by wm (filters [M, K] or their tiles);
    # with epi, rows_jit.bias_act_cols over the task's part right after
    nr = gemm_jit.NR
    k = wm.shape[1]
    ldc = out.shape[2]
    for t in prange(spans.shape[0]):
        old = swap(mode[0], mode[1])
        b, q0, q1, r0, r1 = spans[t, 0], spans[t, 1], spans[t, 2], spans[t, 3], spans[t, 4]
        buf = np.empty(-(-min(block, q1 - q0) // nr) * k * nr, np.float32)
        ob = out[b]
        for qa in range(q0, q1, block):
            qb = min(q1, qa + block)
            p = -(-(qb - qa) // nr)
            panels = buf[:p * k * nr].reshape(p, k, nr)
            pconv_jit.pack_conv(x, b, kh, kw, sh, sw, dh, dw, ph, pw, ow, qa, qb, panels)
            gemm_jit.gemm_panels(wm, panels, ob[:, qa:qb], r0, r1, 0, p)
        if epi:
            rows_jit.bias_act_cols(ob.reshape(-1), ldc, q0, q1, r0, r1, ca, cb, period, prm)
        swap(old, mode[1])


@numba.njit(cache=True, nogil=True, parallel=True)
def im2row(x, kh, kw, sh, sw, dh, dw, ph, pw, ow, a, spans, mode):  # pragma: no cover
    # pconv_jit.im2row of image b's pixels q0..q1 into a[b, q0:q1] per row
    # (b, q0, q1) of spans
    for t in prange(spans.shape[0]):
        old = swap(mode[0], mode[1])
        b, q0, q1 = spans[t, 0], spans[t, 1], spans[t, 2]
        pconv_jit.im2row(x, b, kh, kw, sh, sw, dh, dw, ph, pw, ow, q0, q1, a[b, q0:q1])
        swap(old, mode[1])


@numba.njit(cache=True, nogil=True, parallel=True)
def filters_conv(a, panels, out, spans, ca, cb, period, prm, epi,
                 mode):  # pragma: no cover (compiled)
    # packed_filters_conv's products: per row (b, p0, p1) of spans, a[b] @
    # the filter panels p0..p1 into a scratch [Ho*Wo, channels], transposed
    # into out[b]'s rows of those channels, then (epi) rows_jit.bias_act over
    # them (rows of out viewed as [N * M, Ho*Wo])
    nr = gemm_jit.NR
    m, hw = out.shape[1], out.shape[2]
    o1 = out.reshape(-1)
    for t in prange(spans.shape[0]):
        old = swap(mode[0], mode[1])
        b, p0, p1 = spans[t, 0], spans[t, 1], spans[t, 2]
        c0, c1 = p0 * nr, min(m, p1 * nr)
        tile = np.empty((hw, c1 - c0), np.float32)
        gemm_jit.gemm_panels(a[b], panels[p0:p1], tile, 0, hw, 0, p1 - p0)
        out[b, c0:c1] = tile.T
        if epi:
            rows_jit.bias_act(o1, o1, ca, cb, period, prm, hw, b * m + c0, b * m + c1)
        swap(old, mode[1])


#: the row kernels (``rows_jit``) with a launcher here: kernel name ->
#: whether its first argument is the tuple of 4 sources, passed unpacked
ROW_LAUNCHERS = {"bias_act": False, "elem_chain": True, "elem_chain_tiles": True,
                 "mvn_affine": False, "mvn_affine_cols": False, "mvn": False, "erf": False,
                 "gelu_tanh": False}
#: row kernels whose launcher has another name: ``softmax_range`` (plain
#: Python around ``softmax_rows``) -> :func:`softmax`
ROW_LAUNCHER_NAMES = {"softmax_range": "softmax"}


@intrinsic
def _cblas_sgemm(typingctx, addr, m, n, k, a, lda, b, ldb, c, ldc):  # type: ignore[no-untyped-def]
    # cblas_sgemm(row-major, no trans, no trans, m, n, k, 1, a, lda, b, ldb, 0, c, ldc)
    # at address addr (ILP64: 64-bit sizes); a, b, c data addresses
    i32, i64, f32 = ir.IntType(32), ir.IntType(64), ir.FloatType()
    ptr = ir.IntType(8).as_pointer()

    def codegen(context, builder, sig, args):  # type: ignore[no-untyped-def]
        fnty = ir.FunctionType(ir.VoidType(), [i32, i32, i32, i64, i64, i64, f32, ptr, i64,
                                               ptr, i64, f32, ptr, i64])
        fa, m_, n_, k_, pa, la, pb, lb, pc, lc = args
        fn = builder.inttoptr(fa, fnty.as_pointer())
        builder.call(fn, [ir.Constant(i32, _ROW_MAJOR), ir.Constant(i32, _NO_TRANS),
                          ir.Constant(i32, _NO_TRANS), m_, n_, k_, ir.Constant(f32, 1.0),
                          builder.inttoptr(pa, ptr), la, builder.inttoptr(pb, ptr), lb,
                          ir.Constant(f32, 0.0), builder.inttoptr(pc, ptr), lc])
        return context.get_dummy_value()

    sig = types.void(types.int64, types.int64, types.int64, types.int64, types.int64,
                     types.int64, types.int64, types.int64, types.int64, types.int64)
    return sig, codegen


@numba.njit(cache=True, nogil=True, inline="always")
def _block_product(addr, a, b, out, r0, r1, c0, c1):  # pragma: no cover (compiled)
    # out[r0:r1, c0:c1] = a[r0:r1] @ b[:, c0:c1] (f32; unit column strides)
    m, k, n = r1 - r0, a.shape[1], c1 - c0
    if m <= 0 or n <= 0:
        return
    if k == 0:
        out[r0:r1, c0:c1] = 0.0
        return
    lda, ldb, ldc = a.strides[0] // 4, b.strides[0] // 4, out.strides[0] // 4
    pa = np.int64(a.ctypes.data) + r0 * a.strides[0]
    pb = np.int64(b.ctypes.data) + c0 * 4
    pc = np.int64(out.ctypes.data) + r0 * out.strides[0] + c0 * 4
    _cblas_sgemm(addr, m, n, k, pa, lda, pb, ldb, pc, ldc)


@numba.njit(cache=True, nogil=True, parallel=True)
def sgemm_rows_epi(addr, a, b, out, ca, cb, period, prm, cuts, mode):  # pragma: no cover
    # rows cuts[t]..cuts[t + 1] of out (C-contiguous [M, N]) = a @ b (BLAS),
    # then rows_jit.bias_act over them in place
    o1 = out.reshape(-1)
    n = out.shape[1]
    for t in prange(cuts.size - 1):
        old = swap(mode[0], mode[1])
        _block_product(addr, a, b, out, cuts[t], cuts[t + 1], 0, n)
        rows_jit.bias_act(o1, o1, ca, cb, period, prm, n, cuts[t], cuts[t + 1])
        swap(old, mode[1])


@numba.njit(cache=True, nogil=True, parallel=True)
def sgemm_blocks(addr, a, b, out, spans, mode):  # pragma: no cover (compiled)
    # out[r0:r1, c0:c1] = a[r0:r1] @ b[:, c0:c1] (BLAS) for the rows
    # (r0, r1, c0, c1) of spans
    for t in prange(spans.shape[0]):
        old = swap(mode[0], mode[1])
        _block_product(addr, a, b, out, spans[t, 0], spans[t, 1], spans[t, 2], spans[t, 3])
        swap(old, mode[1])


@numba.njit(cache=True, nogil=True, parallel=True)
def sgemm_batch(addr, a, b, out, cuts, mode):  # pragma: no cover (compiled)
    # out[i] = a[i] @ b[i] (BLAS) for the matrices i of cuts[t]..cuts[t + 1];
    # a [1 or B, M, K] and b [1 or B, K, N] (one matrix: broadcast), out [B, M, N]
    m, n = out.shape[1], out.shape[2]
    for t in prange(cuts.size - 1):
        old = swap(mode[0], mode[1])
        for i in range(cuts[t], cuts[t + 1]):
            _block_product(addr, a[i if a.shape[0] > 1 else 0], b[i if b.shape[0] > 1 else 0],
                           out[i], 0, m, 0, n)
        swap(old, mode[1])


@numba.njit(cache=True, nogil=True, parallel=True)
def softmax(x, out, cuts, mode):  # pragma: no cover (compiled)
    # rows_jit.softmax_rows of the rows cuts[t]..cuts[t + 1] of x [R, N] (f32
    # or f64) into out's
    fast = x.itemsize == 4  # f32 (the row kernels take f32 and f64)
    for t in prange(cuts.size - 1):
        old = swap(mode[0], mode[1])
        rows_jit.softmax_rows(x[cuts[t]:cuts[t + 1]], out[cuts[t]:cuts[t + 1]], fast)
        swap(old, mode[1])


def sgemm_address() -> int:
    """The address of numpy's OpenBLAS ``cblas_sgemm`` (the ILP64 build
    numpy >= 2 bundles), or 0 when there is none to be found (the BLAS
    products then stay on the helper pool)."""
    if not _sgemm:
        _sgemm.append(_find_sgemm())
    return _sgemm[0]


def _find_sgemm() -> int:
    libs = Path(np.__file__).resolve().parent.parent / "numpy.libs"
    for path in sorted(libs.glob("libscipy_openblas64_*.so")):
        try:
            fn = ctypes.CDLL(str(path)).scipy_cblas_sgemm64_
        except (OSError, AttributeError):
            continue
        return ctypes.cast(fn, ctypes.c_void_p).value or 0
    return 0


def blas_blocks_fit(spans: Any, m: int, n: int) -> bool:
    """Whether every block (r0, r1, c0, c1) of ``spans`` (None: one block of
    ``m`` x ``n``) is a matrix product numpy would also give to ``sgemm``:
    more than one row and column (numpy's matmul runs ``gemv`` on a row or a
    column, summing in another order)."""
    if spans is None:
        return m > 1 and n > 1
    return all(r1 - r0 > 1 and c1 - c0 > 1 for r0, r1, c0, c1 in spans)


def blas_rows_fit(*arrays: Any) -> bool:
    """Whether :func:`sgemm_blocks` / :func:`sgemm_rows_epi` (2-D) or
    :func:`sgemm_batch` (3-D) take these operands: f32 with unit column
    strides and whole-element row strides (the batch stride any), and
    numpy's BLAS found."""
    return sgemm_address() != 0 and all(
        x.dtype == np.float32 and x.ndim in (2, 3) and x.strides[-1] == 4
        and x.strides[-2] % 4 == 0 and x.strides[-2] >= 4 * max(1, x.shape[-1]) for x in arrays)
