"""f32 matrix products on packed panels: a register-blocked micro-kernel.

``out = a @ B`` where ``B`` [K, N] was packed once (:func:`pack_panels`)
into panels of :data:`NR` columns laid out k-major (``panels[p, k, :]`` is
row ``k`` of columns ``p * NR .. p * NR + NR``, zero-padded past N). The
micro-kernel keeps an :data:`MR` x :data:`NR` block of ``out`` in vector
registers for the whole K loop: per k it loads the panel's row (two
vectors), broadcasts one element of each of the MR rows of ``a`` and
issues MR x 2 fused multiply-adds. It is written as a numba intrinsic in
LLVM IR (vector types and ``llvm.fma``): numba's loop vectoriser does not
keep such a block in registers.

A constant right operand (a MatMul's weights) is packed at plan time, so
no product repacks it per call the way a BLAS call does (OpenBLAS packs
both operands on every call; a split product packs the shared operand in
every task). Results differ from BLAS's in the rounding of the sums (each
is a chain of fused multiply-adds in k order).

Only imported where numba is (kernels/packed.py); module level so that
numba's disk cache finds the kernels again.
"""

from __future__ import annotations

import numba
import numpy as np
from llvmlite import ir
from numba import types
from numba.core import cgutils, codegen
from numba.extending import intrinsic

from xmo.backends.cpu import vector_width
from xmo.backends.cpu.kernels.rows_jit import bias_act, bias_act_cols

vector_width.configure()  # before the first kernel: numba's vector width


def _lanes() -> int:
    """f32 lanes of one vector register: 16 with AVX-512, else 8."""
    host = codegen.get_host_cpu_features() or ""
    return 16 if "+avx512f" in host.split(",") else 8


#: f32 elements of one vector
LANES = _lanes()
#: columns of a packed panel (two vectors)
NR = 2 * LANES
#: rows of a micro-tile: MR x 2 accumulators, two panel vectors and one
#: broadcast fit the register file (32 zmm with AVX-512, 16 ymm with AVX2)
MR = 8 if LANES == 16 else 6
#: multiply-adds of one chunk of K (a panel's chunk, KC x NR f32, in L1)
KC = 256
#: bytes of ``a``'s rows one block of the row loop reads: the block stays in
#: the L2 cache while every panel passes over it
_ROW_BLOCK_BYTES = 1 << 18

#: rows of the output one pass of :func:`gemm_strided` over the right
#: operand's panels writes (two tiles): each panel of x, K rows from K
#: places in memory, is loaded once a pass and stays in L1 for its tiles
STRIDED_ROWS = 2 * MR
#: :func:`gemm_strided_epi` computes its output in blocks of STRIDED_ROWS
#: rows by this many panels (16 x 4096 f32 with AVX-512, 256 KiB: in L2)
#: and runs the epilogue over each block as soon as it is written
EPI_PANELS = 128

_I64 = ir.IntType(64)
_I32 = ir.IntType(32)
_F32 = ir.FloatType()


def _tile_intrinsic(mr: int):
    """An intrinsic ``tile(c, ldc, a, lda, ka, bp, ldb, k, add)``: the ``mr``
    x NR block at address ``c`` (row stride ``ldc`` elements) = (itself if
    ``add`` else 0) + the ``mr`` rows of ``a`` times the panel at ``bp``:
    ``k`` rows of NR values, ``ldb`` elements apart (NR for a packed panel;
    a matrix's row stride for columns read in place). Element ``(i, kk)``
    of ``a`` is at address ``a`` plus ``i * lda + kk * ka`` elements: a
    matrix's rows read in place (``lda`` its row stride, ``ka`` 1) or rows
    packed by :func:`pack_tiles` (``lda`` 1, ``ka`` MR)."""

    @intrinsic
    def tile(typingctx, c, ldc, a, lda, ka, bp, ldb, k, add):
        sig = types.void(*[types.intp] * 9)

        def codegen_tile(context, builder, signature, args):
            c_addr, ldc_v, a_addr, lda_v, ka_v, bp_addr, ldb_v, k_v, add_v = args
            vt = ir.VectorType(_F32, LANES)
            fp, vp = _F32.as_pointer(), vt.as_pointer()
            fma = cgutils.get_or_insert_function(
                builder.module, ir.FunctionType(vt, [vt, vt, vt]), f"llvm.fma.v{LANES}f32")
            a_ptr = builder.inttoptr(a_addr, fp)
            b_ptr = builder.inttoptr(bp_addr, fp)
            c_ptr = builder.inttoptr(c_addr, fp)
            zero = ir.Constant(vt, [0.0] * LANES)
            undef = ir.Constant(vt, ir.Undefined)
            splat0 = ir.Constant(ir.VectorType(_I32, LANES), [0] * LANES)
            accs = [[cgutils.alloca_once_value(builder, zero) for _ in range(2)]
                    for _ in range(mr)]
            offs = [[builder.add(builder.mul(ir.Constant(_I64, i), ldc_v),
                                 ir.Constant(_I64, v * LANES)) for v in range(2)]
                    for i in range(mr)]
            with builder.if_then(builder.icmp_signed("!=", add_v, ir.Constant(_I64, 0))):
                for i in range(mr):
                    for v in range(2):
                        src = builder.bitcast(builder.gep(c_ptr, [offs[i][v]]), vp)
                        builder.store(builder.load(src, align=4), accs[i][v])
            rows = [builder.gep(a_ptr, [builder.mul(ir.Constant(_I64, i), lda_v)])
                    for i in range(mr)]
            with cgutils.for_range(builder, k_v) as loop:
                kk = loop.index
                base = builder.mul(kk, ldb_v)
                ak = builder.mul(kk, ka_v)
                bv = [builder.load(builder.bitcast(
                    builder.gep(b_ptr, [builder.add(base, ir.Constant(_I64, v * LANES))]), vp),
                    align=4) for v in range(2)]
                for i in range(mr):
                    ai = builder.load(builder.gep(rows[i], [ak]))
                    s = builder.insert_element(undef, ai, ir.Constant(_I32, 0))
                    s = builder.shuffle_vector(s, undef, splat0)
                    for v in range(2):
                        acc = builder.load(accs[i][v])
                        builder.store(builder.call(fma, [s, bv[v], acc]), accs[i][v])
            for i in range(mr):
                for v in range(2):
                    dst = builder.bitcast(builder.gep(c_ptr, [offs[i][v]]), vp)
                    builder.store(builder.load(accs[i][v]), dst, align=4)
            return context.get_dummy_value()

        return sig, codegen_tile

    return tile


# one intrinsic per tile height (the remainder rows of a block take the
# smaller ones); MR is 8 or 6
_t1, _t2, _t3, _t4, _t5, _t6, _t7, _t8 = (_tile_intrinsic(r) for r in range(1, 9))


@numba.njit(cache=True, nogil=True, inline="always")
def _tile(mr, c, ldc, a, lda, ka, bp, ldb, k, add):  # pragma: no cover (compiled)
    if mr == 8:
        _t8(c, ldc, a, lda, ka, bp, ldb, k, add)
    elif mr == 7:
        _t7(c, ldc, a, lda, ka, bp, ldb, k, add)
    elif mr == 6:
        _t6(c, ldc, a, lda, ka, bp, ldb, k, add)
    elif mr == 5:
        _t5(c, ldc, a, lda, ka, bp, ldb, k, add)
    elif mr == 4:
        _t4(c, ldc, a, lda, ka, bp, ldb, k, add)
    elif mr == 3:
        _t3(c, ldc, a, lda, ka, bp, ldb, k, add)
    elif mr == 2:
        _t2(c, ldc, a, lda, ka, bp, ldb, k, add)
    else:
        _t1(c, ldc, a, lda, ka, bp, ldb, k, add)


@numba.njit(cache=True, nogil=True)
def _panel_loops(a, b, out, r0, r1, p0, p1, pstride, ldb, edge, block):  # pragma: no cover (compiled)
    # out[r0:r1, p0*NR : min(N, p1*NR)] = a[r0:r1] @ B's columns there, B's
    # panel p (NR columns, K rows ldb elements apart) at b's address plus
    # p * pstride elements; with a non-empty ``edge`` (a zero-padded [K, NR]
    # copy of the columns past the last whole panel) the last, partial panel
    # is read from there. a [M, K] (unit column stride, any row stride) or
    # its rows packed (pack_tiles: [ceil(M / MR), K, MR]; then r0 and block
    # multiples of MR) and out [M, N] f32 with a unit column stride. K in
    # chunks of KC (a panel's chunk stays in L1), rows in blocks of
    # ``block`` while the panels pass over them; a block's rows in tiles of
    # at most MR rows: of balanced heights when a is read in place (49
    # rows: 7 x 7, not 6 x 8 + 1: a tile of a row or two is bound by its
    # few accumulators' FMA latency), the packed tiles as packed; the tiles
    # accumulate the chunks in place; a panel past N's end goes through a
    # scratch tile (its valid columns copied in and out). Addresses of b,
    # edge and scratch are taken where they are read: numba frees an array
    # after its last use, and a pointer taken earlier would outlive it
    k = a.shape[1]
    n = out.shape[1]
    packed = a.ndim == 3  # known when numba compiles: one loop nest per layout
    lda = 1 if packed else a.strides[0] // 4
    ka = MR if packed else 1
    ldc = out.strides[0] // 4
    a0 = a.ctypes.data
    c0 = out.ctypes.data
    full = n // NR
    scratch = np.zeros((MR, NR), np.float32)
    kc_max = k if k <= 2 * KC else KC
    for k0 in range(0, k, kc_max):
        kc = min(kc_max, k - k0)
        add = 1 if k0 > 0 else 0
        for ib in range(r0, r1, block):
            ie = min(r1, ib + block)
            tiles = (ie - ib + MR - 1) // MR
            for p in range(p0, p1):
                j0 = p * NR
                w = min(NR, n - j0)
                if p < full or edge.shape[0] == 0:
                    bp, ld = b.ctypes.data + (p * pstride + k0 * ldb) * 4, ldb
                else:
                    bp, ld = edge.ctypes.data + k0 * NR * 4, NR
                for t in range(tiles):
                    if packed:
                        i = ib + t * MR
                        mr = min(MR, ie - i)
                        ai = a0 + ((i // MR) * k + k0) * MR * 4
                    else:  # balanced heights
                        i = ib + (ie - ib) * t // tiles
                        mr = ib + (ie - ib) * (t + 1) // tiles - i
                        ai = a0 + (i * lda + k0) * 4
                    if w == NR:
                        _tile(mr, c0 + (i * ldc + j0) * 4, ldc, ai, lda, ka, bp, ld, kc, add)
                    else:
                        if add:
                            for r in range(mr):
                                for j in range(w):
                                    scratch[r, j] = out[i + r, j0 + j]
                        _tile(mr, scratch.ctypes.data, NR, ai, lda, ka, bp, ld, kc, add)
                        for r in range(mr):
                            for j in range(w):
                                out[i + r, j0 + j] = scratch[r, j]


@numba.njit(cache=True, nogil=True)
def pack_tiles(a):  # pragma: no cover (compiled)
    # a [M, K] as tiles of MR rows, k-major: [ceil(M / MR), K, MR], tile t's
    # kk-th MR values the rows t*MR.. at column kk (zeros past M): the
    # micro-kernel's broadcast values of one k step in one cache line, one
    # read stream a tile (a constant left operand, packed once: session 37,
    # one thread, 64x576 @ 576x3136 27.7 -> 32.0 GMAC/s, 128x1152 @
    # 1152x800 34.3 -> 39.5, 256x2304 @ 2304x800 37.6 -> 44.8)
    m, k = a.shape
    ap = np.zeros(((m + MR - 1) // MR, k, MR), np.float32)
    for i in range(m):
        t = i // MR
        r = i - t * MR
        for kk in range(k):
            ap[t, kk, r] = a[i, kk]
    return ap


@numba.njit(cache=True, nogil=True)
def gemm_panels(a, panels, out, r0, r1, p0, p1):  # pragma: no cover (compiled)
    # out[r0:r1, p0*NR : min(N, p1*NR)] = a[r0:r1] @ B's columns there, B
    # packed as panels [P, K, NR] (C-contiguous, the last one zero-padded),
    # a [M, K] read in place or packed by pack_tiles (r0 a multiple of MR);
    # row blocks whose chunk of a (KC columns) stays in L2 while the panels
    # pass over it
    k = a.shape[1]
    kc_max = k if k <= 2 * KC else KC
    block = max(MR, (_ROW_BLOCK_BYTES // (4 * kc_max)) // MR * MR)
    _panel_loops(a, panels, out, r0, r1, p0, p1, k * NR, NR,
                 np.zeros((0, NR), np.float32), block)


@numba.njit(cache=True, nogil=True)
def gemm_panels_epi(a, panels, out, ca, cb, period, prm, r0, r1):  # pragma: no cover (compiled)
    # rows r0..r1 of out (a C-contiguous [M, N]) = epilogue(a[r0:r1] @ B):
    # the rows on every panel, then rows_jit.bias_act over them while they
    # are in the core's cache (ca, cb, period, prm: the epilogue, as
    # kernels/gemm_epi.py hands it); one call from Python for a product
    # that does not split
    gemm_panels(a, panels, out, r0, r1, 0, panels.shape[0])
    o1 = out.reshape(-1)
    bias_act(o1, o1, ca, cb, period, prm, out.shape[1], r0, r1)


@numba.njit(cache=True, nogil=True)
def _edge_panel(x, n):  # pragma: no cover (compiled)
    # the columns of x [K, N] past its last whole panel as a zero-padded
    # [K, NR] panel (empty when N is a multiple of NR)
    k = x.shape[0]
    full = n // NR
    w = n - full * NR
    edge = np.zeros((k if w else 0, NR), np.float32)
    for kk in range(k if w else 0):
        for j in range(w):
            edge[kk, j] = x[kk, full * NR + j]
    return edge


@numba.njit(cache=True, nogil=True)
def gemm_strided(a, x, out, r0, r1):  # pragma: no cover (compiled)
    # out[r0:r1] = a[r0:r1] @ x with x [K, N] read in place (no packing:
    # its rows are the panels' rows, ldb = x's row stride; the last NR
    # columns' partial panel copied into a zero-padded [K, NR] one);
    # x with a unit column stride. Blocks of STRIDED_ROWS rows: a pass over
    # x's panels writes that many output rows (a pass writing all of a
    # 96-row output was 1.34x BLAS's time)
    n = out.shape[1]
    edge = _edge_panel(x, n)
    _panel_loops(a, x, out, r0, r1, 0, -(-n // NR), NR, x.strides[0] // 4, edge, STRIDED_ROWS)


@numba.njit(cache=True, nogil=True)
def gemm_strided_epi(a, x, out, ca, cb, period, prm, r0, r1):  # pragma: no cover (compiled)
    # rows r0..r1 of out (a C-contiguous [M, N]) = epilogue(a[r0:r1] @ x),
    # x read in place (gemm_strided): blocks of STRIDED_ROWS rows by
    # EPI_PANELS panels, each block's epilogue (rows_jit.bias_act_cols)
    # right after its product, while it is in the core's cache (session
    # 37, one thread, against the epilogue over the rows after the whole
    # product: 16->64@160x160 Relu 0.88x, 32->48@112x112 0.95x,
    # 16->96@112x112 HSwish 0.92-0.96x, 64->256@56x56 0.98-1.02x); an
    # output of at most one block's size in one pass and the epilogue
    # after it (blocks cost 1.04-1.11x on 16x16-pixel maps: more calls)
    n = out.shape[1]
    o1 = out.reshape(-1)
    if (r1 - r0) * n <= STRIDED_ROWS * EPI_PANELS * NR:  # one block's worth: one pass, then the epilogue
        gemm_strided(a, x, out, r0, r1)
        bias_act(o1, o1, ca, cb, period, prm, n, r0, r1)
        return
    edge = _edge_panel(x, n)
    panels = -(-n // NR)
    ldb = x.strides[0] // 4
    for ib in range(r0, r1, STRIDED_ROWS):
        ie = min(r1, ib + STRIDED_ROWS)
        for p0 in range(0, panels, EPI_PANELS):
            p1 = min(panels, p0 + EPI_PANELS)
            _panel_loops(a, x, out, ib, ie, p0, p1, NR, ldb, edge, STRIDED_ROWS)
            bias_act_cols(o1, n, p0 * NR, min(n, p1 * NR), ib, ie, ca, cb, period, prm)
