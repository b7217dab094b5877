"""The numba kernels of :mod:`xmo.backends.cpu.kernels.rows`, at module
level so that numba's on-disk cache finds them again (kernels created inside a
function capture each other as closure variables, which change the cache key
every process). Imported only by :func:`~xmo.backends.cpu.kernels.rows.row_kernels`
(numba stays a lazy import)."""

from __future__ import annotations

import math

import numba
import numpy as np
from llvmlite import ir
from numba.core import cgutils, types
from numba.extending import intrinsic

from xmo.backends.cpu import vector_width
from xmo.backends.cpu.kernels.rows import CHUNK, ERF_P, ERF_Q, GELU_G, GELU_Q, LN2, LOG2E

vector_width.configure()  # before the first kernel: numba's vector width

#: elements of x a block of softmax_rows takes at once (whole rows, at
#: least one): its passes stay in L1, its rows share one call of exp_rows_f32
SOFTMAX_BLOCK = 2048


@numba.njit(cache=True, nogil=True, fastmath={"nsz", "arcp", "contract", "afn", "reassoc"})
def exp_rows_f32(x, r0, r1, ms, out, bits, scale, sums):  # pragma: no cover (compiled)
    # rows r0..r1 of f32 x into out: exp(x - m) (the difference in f32, as
    # written; x finite or -inf, m = ms[r - r0] in f32; rows whose m is not finite
    # are skipped) in f64 with a vectorisable exp: 2^k from its bits, a
    # degree-7 Taylor polynomial on |f| <= ln2 / 2 (relative error 5e-9);
    # the row sums in f64 into sums[r - r0]. The loop over the rows is here
    # (one call a block of rows, not one a row: a call costs ~40 ns, the
    # exponentials of a row of 12 about as much)
    n = x.shape[1]
    for r in range(r0, r1):
        m = np.float32(ms[r - r0])
        if not math.isfinite(m):
            continue
        for j in range(n):
            t = np.float64(x[r, j] - m)
            t = t if t > -104.0 else -104.0  # exp(-104) rounds to 0 in f32
            k = math.floor(t * LOG2E + 0.5)
            f = t - k * LN2
            p = 1.0 + f * (1.0 + f * (0.5 + f * (1.0 / 6 + f * (1.0 / 24 + f * (
                1.0 / 120 + f * (1.0 / 720 + f * (1.0 / 5040)))))))
            out[r, j] = p
            bits[j] = (np.int64(k) + 1023) << 52
        s = 0.0
        for j in range(n):
            e = np.float32(out[r, j] * scale[j])
            out[r, j] = e
            s += e
        sums[r - r0] = s

@numba.njit(cache=True, nogil=True, inline="always")
def row_max_f32(keys, r):  # pragma: no cover (compiled)
    # the maximum of row r of a C-ordered 2-D f32 array (NaN when it holds a
    # NaN, -inf when empty) from keys, the array's x.view(np.int32) (taken
    # once by the caller: a view made per row, in a function not inlined,
    # costs ~40 ns a call). On integer keys: the bits with the magnitude bits
    # of negatives flipped order as the floats, NaNs of either sign are made
    # the largest; integer max reductions vectorise (float ones with NaN
    # checks do not). Inlined: no float operation, the caller's fastmath
    # flags do not touch it
    low31 = np.int32(0x7FFFFFFF)
    mk = np.int32(-2139095041)  # the key of -inf (0xFF800000 ^ 0x7FFFFFFF)
    for j in range(np.uint64(keys.shape[1])):
        b = keys[r, j]
        key = low31 if (b & low31) > np.int32(0x7F800000) else b ^ ((b >> np.int32(31)) & low31)
        mk = key if key > mk else mk
    return np.int32(mk ^ ((mk >> np.int32(31)) & low31)).view(np.float32)

@numba.njit(cache=True, nogil=True)
def softmax_rows(x, out, fast):  # pragma: no cover (compiled)
    # fast (f32): in blocks of about SOFTMAX_BLOCK elements, the rows'
    # maxima, their exponentials and sums (exp_rows_f32), then each row
    # normalized; a row with a NaN or inf (its maximum not finite), and
    # every f64 row, by math.exp as written
    rows, n = x.shape
    nb = max(1, min(rows, SOFTMAX_BLOCK // max(n, 1))) if fast else 1
    # one scratch (an allocation costs ~40 ns): the 2^k of a row (as bits),
    # the block's row sums and maxima (f32 values, exact in f64)
    work = np.empty(n + 2 * nb if fast else 0, np.float64)
    scale = work[:n]
    bits = scale.view(np.int64)
    sums = work[n:n + nb]
    ms = work[n + nb:]
    keys = x.view(np.int32) if fast else np.empty((0, 0), np.int32)
    for r0 in range(0, rows, nb):
        r1 = min(rows, r0 + nb)
        if fast:
            for r in range(r0, r1):
                ms[r - r0] = row_max_f32(keys, r)
            exp_rows_f32(x, r0, r1, ms, out, bits, scale, sums)
        for r in range(r0, r1):
            if fast:
                m = np.float32(ms[r - r0])
            else:
                m = x[r, 0]
                for j in range(1, n):
                    v = x[r, j]
                    if v > m or math.isnan(v):
                        m = v
            if fast and math.isfinite(m):
                s = sums[r - r0]
            else:  # f64, or a NaN / inf in the row: math.exp as written
                s = 0.0
                for j in range(n):
                    e = math.exp(x[r, j] - m)
                    out[r, j] = e
                    s += out[r, j]
            inv = 1.0 / s  # one division a row, a multiplication an element
            for j in range(n):
                out[r, j] = out[r, j] * inv

def softmax(x, out):
    softmax_rows(x, out, x.dtype == np.float32)

# reassoc: the f64 sums vectorize (their order changes, not their precision)
@numba.njit(cache=True, nogil=True, error_model="numpy", fastmath={"reassoc"})
def mvn(x, eps, inside_sqrt, out, lo=0, hi=-1):  # pragma: no cover (compiled)
    rows, n = x.shape
    for r in range(lo, rows if hi < 0 else hi):
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

# as mvn, then y * a[j] + b[j] per column in x's dtype (a LayerNorm's scale
# and shift; a or b empty for none): bit-exact with mvn and the affine step
# after it (the normalized value rounded to the dtype first, no contraction)
@numba.njit(cache=True, nogil=True, error_model="numpy", fastmath={"reassoc"})
def mvn_affine(x, eps, inside_sqrt, a, b, out, lo, hi):  # pragma: no cover (compiled)
    n = x.shape[1]
    for r in range(lo, hi):
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
        if a.size and b.size:
            for j in range(n):
                out[r, j] = out[r, j] * a[j] + b[j]
        elif a.size:
            for j in range(n):
                out[r, j] = out[r, j] * a[j]
        elif b.size:
            for j in range(n):
                out[r, j] = out[r, j] + b[j]


#: values of x a tile of mvn_affine_cols moves at once (at least 8 rows of
#: n: its transposed copy stays in L1)
COLS_TILE = 4096


@numba.njit(cache=True, nogil=True, error_model="numpy")
def mvn_affine_cols(x, eps, inside_sqrt, a, b, out, positions, lo, hi):  # pragma: no cover (compiled)
    # mvn_affine's rows lo..hi of out (rows of n = out.shape[1] values, row
    # r = i positions + p) with x holding them transposed: flat [images, n,
    # positions] (a LayerNorm over the channels of an NCHW map seen as NHWC),
    # moved a tile of up to COLS_TILE values (whole rows of one image) at a
    # time into a row-major buffer (transpose_block), then mvn_affine on it:
    # the same values as mvn_affine on x's rows
    n = out.shape[1]
    tile = max(8, COLS_TILE // n // 8 * 8)
    buf = np.empty(tile * n, x.dtype)
    rows = buf.reshape((tile, n))
    r0 = lo
    while r0 < hi:
        p0 = r0 % positions
        m = min(tile, hi - r0, positions - p0)
        transpose_block(x, (r0 - p0) * n + p0, positions, buf, 0, n, n, m)
        mvn_affine(rows, eps, inside_sqrt, a, b, out[r0:r0 + m], 0, m)
        r0 += m


# reassoc: the f64 sums vectorize (their order changes, not their precision)
@numba.njit(cache=True, nogil=True, error_model="numpy", fastmath={"reassoc"})
def row_mean(x, out, lo, hi):  # pragma: no cover (compiled)
    # out[r] = mean of row r of x (rows lo..hi), summed in f64
    n = x.shape[1]
    for r in range(lo, hi):
        s = 0.0
        for j in range(n):
            s += x[r, j]
        out[r] = s / n


@numba.njit(cache=True, nogil=True)
def row_scale(x, s, out, lo, hi):  # pragma: no cover (compiled)
    # out[r, :] = x[r, :] * s[r % s.size] (rows lo..hi; out may be x): one
    # multiplication in x's dtype per element, as numpy's broadcast product
    k = s.shape[0]
    n = x.shape[1]
    if x.ctypes.data == out.ctypes.data:  # one array: no aliasing check failing the vector loop
        for r in range(lo, hi):
            v = s[r % k]
            for j in range(n):
                out[r, j] *= v
        return
    for r in range(lo, hi):
        v = s[r % k]
        for j in range(n):
            out[r, j] = x[r, j] * v


p0, p1, p2, p3, p4, p5, p6 = ERF_P
_, q1, q2, q3, q4, q5 = ERF_Q

# error_model="numpy": a division without the zero check that keeps
# the loops from being vectorized
@numba.njit(cache=True, nogil=True, error_model="numpy", inline="always")
def erf64(z):  # pragma: no cover (compiled)
    c = 4.0 if z > 4.0 else z
    c = -4.0 if c < -4.0 else c
    t = c * c
    p = (((((p6 * t + p5) * t + p4) * t + p3) * t + p2) * t + p1) * t + p0
    q = ((((q5 * t + q4) * t + q3) * t + q2) * t + q1) * t + 1.0
    r = c * p / q
    r = 1.0 if z > 4.0 else r
    return -1.0 if z < -4.0 else r

@numba.njit(cache=True, nogil=True, error_model="numpy")
def erf(x, out, lo, hi):  # pragma: no cover (compiled)
    for i in range(lo, hi):
        out[i] = erf64(np.float64(x[i]))

@numba.njit(cache=True, nogil=True, error_model="numpy", inline="always")
def affine_rows(x1, o1, r0, r1, n, a, b, period, ld, j0):  # pragma: no cover (compiled)
    # rows r0..r1 of x1 (1-D, row r's n values from r * ld + j0) into o1:
    # x * a + b in x's dtype (as numpy: no contraction); a, b: one value per
    # column (period 0; column j0 + j) or one per row r % period, empty for
    # none. The loop over the rows is here (one inlined call a group of
    # rows: the array arguments of an inlined call still cost their
    # reference counts, ~85 ns a call with rows of 8). Indices unsigned: no
    # negative-index wraparound, the loops vectorise
    un = np.uint64(n)
    uj = np.uint64(j0)
    if period > 0:
        for r in range(r0, r1):
            base = np.uint64(r * ld) + uj
            if a.size and b.size:
                ca = a[r % period]
                cb = b[r % period]
                for i in range(un):
                    j = base + i
                    o1[j] = x1[j] * ca + cb
            elif a.size:
                ca = a[r % period]
                for i in range(un):
                    j = base + i
                    o1[j] = x1[j] * ca
            elif b.size:
                cb = b[r % period]
                for i in range(un):
                    j = base + i
                    o1[j] = x1[j] + cb
            else:
                for i in range(un):
                    j = base + i
                    o1[j] = x1[j]
    elif a.size and b.size:
        for r in range(r0, r1):
            base = np.uint64(r * ld) + uj
            for j in range(un):
                o1[base + j] = x1[base + j] * a[uj + j] + b[uj + j]
    elif a.size:
        for r in range(r0, r1):
            base = np.uint64(r * ld) + uj
            for j in range(un):
                o1[base + j] = x1[base + j] * a[uj + j]
    elif b.size:
        for r in range(r0, r1):
            base = np.uint64(r * ld) + uj
            for j in range(un):
                o1[base + j] = x1[base + j] + b[uj + j]
    else:
        for r in range(r0, r1):
            base = np.uint64(r * ld) + uj
            for j in range(un):
                o1[base + j] = x1[base + j]

gg0, gg1, gg2, gg3, gg4, gg5, gg6, gg7, gg8 = (np.float32(c) for c in GELU_G)
gq0, gq1, gq2, gq3, gq4, gq5 = (np.float32(c) for c in GELU_Q)

@intrinsic
def fma(typingctx, a, b, c):  # pragma: no cover (compiled)
    """a * b + c rounded once (llvm.fma: one vfmadd in vector loops), in f64
    when an argument is f64, else f32; independent of fastmath flags."""
    if not all(isinstance(v, (types.Float, types.Integer)) for v in (a, b, c)):
        return None
    ty = types.float64 if types.float64 in (a, b, c) else types.float32
    sig = ty(a, b, c)

    def codegen(context, builder, signature, args):
        lt = context.get_value_type(ty)
        fn = builder.module.declare_intrinsic("llvm.fma", [lt], ir.FunctionType(lt, [lt, lt, lt]))
        return builder.call(fn, [context.cast(builder, v, t, ty) for v, t in zip(args, signature.args)])

    return sig, codegen


#: shufflevector masks (lanes 0-7: the first vector, 8-15: the second) of
#: the three stages of transpose8, (low, high) each: interleave two rows by
#: 128-bit lane (unpacklo/hi), then pairs of values (shufps), then halves
#: (vperm2f128); the operands of each stage: _T8_PAIRS
_T8_MASKS = (([0, 8, 1, 9, 4, 12, 5, 13], [2, 10, 3, 11, 6, 14, 7, 15]),
             ([0, 1, 8, 9, 4, 5, 12, 13], [2, 3, 10, 11, 6, 7, 14, 15]),
             ([0, 1, 2, 3, 8, 9, 10, 11], [4, 5, 6, 7, 12, 13, 14, 15]))
#: per stage, the vectors shuffled together: (a, b) pairs, each giving the
#: low then the high mask's result (the last stage: all lows, then all highs)
_T8_PAIRS = (((0, 1), (2, 3), (4, 5), (6, 7)),
             ((0, 2), (1, 3), (4, 6), (5, 7)),
             ((0, 4), (1, 5), (2, 6), (3, 7)))


@intrinsic
def transpose8(typingctx, src, s0, ss, dst, d0, ds):  # pragma: no cover (compiled)
    """``transpose8(src, s0, ss, dst, d0, ds)``: ``dst[d0 + j ds + i] =
    src[s0 + i ss + j]`` for i, j < 8 (1-D arrays of one float dtype, offsets
    and strides in elements): eight 8-lane loads, 24 shuffles, eight stores
    (LLVM's loops on the scalar form move one value at a time: 2-5x this)."""
    if not (isinstance(src, types.Array) and isinstance(dst, types.Array) and src.ndim == 1
            and dst.ndim == 1 and src.dtype == dst.dtype
            and src.dtype in (types.float32, types.float64)
            and all(isinstance(v, types.Integer) for v in (s0, ss, d0, ds))):
        return None
    sig = types.void(src, s0, ss, dst, d0, ds)

    def codegen(context, builder, signature, args):
        i64 = ir.IntType(64)
        ft = context.get_value_type(src.dtype)
        size = ft.get_abi_size(context.target_data)
        vt = ir.VectorType(ft, 8)
        mt = ir.VectorType(ir.IntType(32), 8)

        def base(k):  # the 8 row pointers of argument k (array, offset, stride)
            arrty, oty, sty = signature.args[k:k + 3]
            value, offset, stride = args[k:k + 3]
            data = cgutils.create_struct_proxy(arrty)(context, builder, value=value).data
            start = builder.gep(data, [context.cast(builder, offset, oty, types.int64)])
            step = context.cast(builder, stride, sty, types.int64)
            return [builder.bitcast(builder.gep(start, [builder.mul(ir.Constant(i64, t), step)]),
                                    vt.as_pointer()) for t in range(8)]

        v = [builder.load(p, align=size) for p in base(0)]
        for stage, (masks, pairs) in enumerate(zip(_T8_MASKS, _T8_PAIRS)):
            got = [[builder.shuffle_vector(v[a], v[b], ir.Constant(mt, m)) for a, b in pairs]
                   for m in masks]
            # stages 1, 2: (low, high) of each pair in turn; stage 3: lows, highs
            v = got[0] + got[1] if stage == 2 else [x for lh in zip(*got) for x in lh]
        for c, p in zip(v, base(3)):
            builder.store(c, p, align=size)
        return context.get_dummy_value()

    return sig, codegen


@numba.njit(cache=True, nogil=True, error_model="numpy", inline="always")
def transpose_block(src, s0, ss, dst, d0, ds, nr, nc):  # pragma: no cover (compiled)
    # dst[d0 + j ds + i] = src[s0 + i ss + j] for i < nr, j < nc (flat
    # arrays): whole 8x8 blocks by transpose8, the edges one value at a time
    i8 = nr - nr % 8
    j8 = nc - nc % 8
    for i in range(0, i8, 8):
        for j in range(0, j8, 8):
            transpose8(src, s0 + i * ss + j, ss, dst, d0 + j * ds + i, ds)
        for j in range(j8, nc):
            for q in range(i, i + 8):
                dst[d0 + j * ds + q] = src[s0 + q * ss + j]
    for i in range(i8, nr):
        for j in range(nc):
            dst[d0 + j * ds + i] = src[s0 + i * ss + j]


# The f32 activations below: fastmath=False stated (a callee without its own
# fastmath is compiled with its caller's flags and cached under the same key:
# stated, they compile the same from every caller, bias_act, gelu_tanh or the
# recurrent kernels' contract); the fused multiply-adds are explicit (fma).
# One pass each, 2^k built from its bits by a scalar view (the loops
# vectorise).

@numba.njit(cache=True, nogil=True, error_model="numpy", fastmath=False)
def pow2i(kf):  # pragma: no cover (compiled)
    # 2^kf for an integral f32 kf in [-126, 127], from its bits
    return np.int32((np.int32(kf) + np.int32(127)) << np.int32(23)).view(np.float32)


@numba.njit(cache=True, nogil=True, error_model="numpy", fastmath=False)
def gelu_erf_f32(o1, base, m):  # pragma: no cover (compiled)
    # o1[base:base+m] = Gelu (erf form) of f32 o1 in f32 arithmetic
    # (both forms computed, one selected; rows.GELU_Q/GELU_G): x Phi(x);
    # |x| < 1: Phi = 1/2 + x Q(x^2); else Phi = E / 2 (x < 0: no
    # cancellation) or 1 - E / 2, E = erfc(|x| / sqrt 2) =
    # t exp(-x^2 / 2 + g(t)), x^2 = sq + lo exactly (lo by an fma) so that
    # the large exponent loses nothing in the exp's Cody-Waite reduction;
    # exp(f) a degree-7 Taylor polynomial. x < -13 gives -0 (the result is
    # below 2^-123; -inf gives NaN as 0.5 x (1 + erf(x / sqrt 2)) does);
    # NaN stays NaN
    half = np.float32(0.5)
    one = np.float32(1.0)
    v1 = o1[base:base + m]  # a view: indices known in range (base + i of a signed type vectorises not)
    for i in range(m):
        x = v1[i]
        a = abs(x)
        a = np.float32(13.0) if a > np.float32(13.0) else a
        a = one if a < one else a  # the small form below 1
        t = one / fma(a, np.float32(0.35355339059327373), one)
        s = t - np.float32(0.4)
        g = fma(fma(fma(fma(fma(fma(fma(fma(gg8, s, gg7), s, gg6), s, gg5), s, gg4), s, gg3), s, gg2), s, gg1), s, gg0)
        sq = a * a
        lo = fma(a, a, -sq)
        e1 = -half * sq  # exact
        e2 = fma(-half, lo, g)
        kf = np.floor(fma(e1 + e2, np.float32(LOG2E), half))
        kf = kf if kf >= np.float32(-126.0) else np.float32(-126.0)  # NaN too
        f = fma(-kf, np.float32(0.693359375), e1)  # exact
        f = f + fma(kf, np.float32(2.12194440e-4), e2)
        p = fma(fma(fma(fma(fma(fma(fma(np.float32(1.0 / 5040), f, np.float32(1.0 / 720)), f,
                                        np.float32(1.0 / 120)), f, np.float32(1.0 / 24)), f,
                            np.float32(1.0 / 6)), f, half), f, one), f, one)
        e = (t * p) * pow2i(kf)
        e = np.float32(0.0) if x < np.float32(-13.0) else e
        u = x * x
        q = fma(fma(fma(fma(fma(gq5, u, gq4), u, gq3), u, gq2), u, gq1), u, gq0)
        small = x * fma(x, q, half)
        big = (half * x) * e if x < np.float32(0.0) else x * fma(-half, e, one)
        v1[i] = small if abs(x) < one else big


@numba.njit(cache=True, nogil=True, error_model="numpy", fastmath=False)
def sigmoid_f32(o1, base, m, c, swish):  # pragma: no cover (compiled)
    # o1[i] = 1 / (1 + exp(c o1[i])) (times o1[i] for Swish) in f32
    # with a vectorisable exp: 2^k from its bits, a degree-6
    # polynomial on |f| <= ln2/2 (Cody-Waite reduction), one division
    # (a vector divide); exp of more than 87 is taken as inf (the
    # result 0 or NaN, as numpy's overflow gives), results below the
    # smallest normal f32 flushed to 0 (NaN kept)
    c32 = np.float32(c)
    one = np.float32(1.0)
    v1 = o1[base:base + m]  # a view: indices known in range (base + j of a signed type vectorises not)
    for j in range(m):
        v = v1[j]
        t = c32 * v
        big = t > np.float32(87.0)
        t = np.float32(87.0) if big else t
        t = np.float32(-87.0) if t < np.float32(-87.0) else t
        kf = np.floor(fma(t, np.float32(LOG2E), np.float32(0.5)))
        f = fma(-kf, np.float32(0.693359375), t)
        f = fma(kf, np.float32(2.12194440e-4), f)
        p = fma(fma(fma(fma(fma(fma(np.float32(1.0 / 720), f, np.float32(1.0 / 120)), f,
                                np.float32(1.0 / 24)), f, np.float32(1.0 / 6)), f,
                    np.float32(0.5)), f, one), f, one)
        r = one / fma(p, pow2i(kf), one)
        r = np.float32(0.0) if big else r  # 1 / (1 + inf)
        y = v * r if swish else r
        v1[j] = np.float32(0.0) if abs(y) < np.float32(1.1754944e-38) else y

@numba.njit(cache=True, nogil=True, error_model="numpy")
def bias_act(x1, o1, a, b, period, prm, n, lo, hi):  # pragma: no cover (compiled)
    # rows lo..hi of x1 (1-D, seen as rows of n) into o1 (the same size;
    # may be x1): act(x * a + b), a/b one value per column (period 0)
    # or per row r % period (empty: none); prm: act, p0, p1, fast,
    # tiny. The affine part, Relu, HSwish and HSigmoid in x's dtype;
    # Gelu (f32 only: the plans give it no f64 rows) by gelu_erf_f32,
    # Sigmoid and Swish by sigmoid_f32 when fast (f32; else f64), the
    # other activations in f64. Sigmoid and Swish results below tiny
    # (the smallest normal) are flushed to 0
    _bias_act_rows(x1, o1, a, b, period, prm, n, lo, hi, n, 0)


@numba.njit(cache=True, nogil=True, error_model="numpy")
def bias_act_cols(o1, ld, j0, j1, lo, hi, a, b, period, prm):  # pragma: no cover (compiled)
    # bias_act in place over columns j0..j1 of rows lo..hi of o1 (1-D,
    # seen as rows of ld): the epilogue of a block of a product's output
    # while it is in cache
    _bias_act_rows(o1, o1, a, b, period, prm, j1 - j0, lo, hi, ld, j0)


@numba.njit(cache=True, nogil=True, error_model="numpy", inline="always")
def _bias_act_rows(x1, o1, a, b, period, prm, n, lo, hi, step, j0):  # pragma: no cover (compiled)
    # bias_act over rows lo..hi whose n values start at r * step + j0
    # (inlined into both entries: in bias_act step == n, j0 == 0 fold)
    act = np.int64(prm[0])
    p0 = prm[1]
    p1 = prm[2]
    fast = prm[3] != 0.0
    tiny = prm[4]
    inplace = x1.ctypes.data == o1.ctypes.data
    whole = step == n and j0 == 0  # the rows are one run: groups of rows
    # rows in groups of about CHUNK elements (one row when the rows are
    # not one run): the affine part row by row, then the activation over
    # the group's elements (each row's) in chunks
    group = max(1, CHUNK // max(n, 1)) if whole else 1
    for r0 in range(lo, hi, group):
        r1 = min(hi, r0 + group)
        if inplace:  # one array: no aliasing check failing the vector loop
            affine_rows(o1, o1, r0, r1, n, a, b, period, step, j0)
        else:
            affine_rows(x1, o1, r0, r1, n, a, b, period, step, j0)
        if act == 0:
            continue
        s0 = r0 * step + j0
        for c0 in range(s0, s0 + (r1 - r0) * n, CHUNK):
            m = np.uint64(min(CHUNK, s0 + (r1 - r0) * n - c0))
            base = np.uint64(c0)
            if act == 1:  # Gelu, erf form: 0.5 x (1 + erf(x / sqrt 2)), f32
                gelu_erf_f32(o1, base, m)
            elif act == 2:  # Relu (NaN kept)
                for i in range(m):
                    j = base + i
                    v = o1[j]
                    o1[j] = np.float32(0.0) if v < np.float32(0.0) else v
            elif act == 3:  # Clamp (NaN kept)
                for i in range(m):
                    j = base + i
                    v = np.float64(o1[j])
                    v = p0 if v < p0 else v
                    o1[j] = p1 if v > p1 else v
            elif (act == 4 or act == 5) and fast:  # Sigmoid; Swish x sigmoid(beta x)
                sigmoid_f32(o1, base, m, -1.0 if act == 4 else -p0, act == 5)
            elif act == 4 or act == 5:
                c = -1.0 if act == 4 else -p0
                for i in range(m):
                    j = base + i
                    v = np.float64(o1[j])
                    y = (v if act == 5 else 1.0) / (1.0 + math.exp(c * v))
                    o1[j] = 0.0 if abs(y) < tiny else y
            elif act == 6 or act == 7:  # HSwish x relu6(x + 3) / 6; HSigmoid
                # in x's dtype, as numpy (the f32 constants are exact)
                for i in range(m):
                    j = base + i
                    v = o1[j]
                    t = v + np.float32(3.0)
                    t = np.float32(0.0) if t < np.float32(0.0) else t
                    t = np.float32(6.0) if t > np.float32(6.0) else t
                    o1[j] = (t * v if act == 6 else t) / np.float32(6.0)
            elif act == 8:  # HardSigmoid min(max(alpha x + beta, 0), 1)
                for i in range(m):
                    j = base + i
                    t = p0 * o1[j] + p1
                    t = 0.0 if t < 0.0 else t
                    o1[j] = 1.0 if t > 1.0 else t
            elif act == 9:
                for i in range(m):
                    j = base + i
                    o1[j] = math.tanh(o1[j])
            elif act == 10:  # Elu
                for i in range(m):
                    j = base + i
                    v = np.float64(o1[j])
                    o1[j] = v if v > 0.0 else p0 * math.expm1(v)
            else:  # Mish x tanh(softplus x); SoftPlus log(1 + e^x)
                for i in range(m):
                    j = base + i
                    v = np.float64(o1[j])
                    sp = (v if v > 0.0 else 0.0) + math.log1p(math.exp(-abs(v)))
                    o1[j] = v * math.tanh(sp) if act == 11 else sp


def softmax_range(x, out, lo, hi):
    """:func:`softmax` of rows ``lo..hi`` (a task of ``rows.run_rows``)."""
    softmax_rows(x[lo:hi], out[lo:hi], x.dtype == np.float32)


@numba.njit(cache=True, nogil=True, error_model="numpy")
def gelu_tanh(x1, o1, lo, hi):  # pragma: no cover (compiled)
    # elements lo..hi of f32 x1 into o1 (not x1): the tanh form of Gelu,
    # 0.5 x (1 + tanh(u)) = x sigmoid(2u), u = sqrt(2/pi) (x + 0.044715 x^3),
    # with the vectorised sigmoid_f32 (results below the smallest normal
    # f32 flushed to 0), in chunks of CHUNK elements
    for c0 in range(lo, hi, CHUNK):
        m = np.uint64(min(CHUNK, hi - c0))
        base = np.uint64(c0)
        for i in range(m):
            j = base + i
            v = x1[j]
            o1[j] = np.float32(1.5957691216057308) * (v + np.float32(0.044715) * v * v * v)
        sigmoid_f32(o1, base, m, -1.0, False)
        for i in range(m):
            j = base + i
            o1[j] = x1[j] * o1[j]


@numba.njit(cache=True, nogil=True, error_model="numpy", inline="always")
def chain_arr(op, buf, o, base, stride, w, nr):  # pragma: no cover (compiled)
    # nr rows of w values: buf[q w + i] = buf[q w + i] op o[base + q stride + i]
    # (op codes: see elem_chain; stride w: o's values in turn, 0: one row of
    # o for every row), in the dtype, as numpy computes each op (no
    # contraction). The loop over the rows is here (one inlined call a chunk:
    # its array arguments cost ~85 ns a call). base, stride, w: uint64 (no
    # negative-index wraparound: the loops vectorise)
    for q in range(nr):
        b = np.uint64(q) * w
        s = base + np.uint64(q) * stride
        if op == 0:
            for i in range(w):
                buf[b + i] = o[s + i]
        elif op == 1:
            for i in range(w):
                buf[b + i] = buf[b + i] + o[s + i]
        elif op == 2:
            for i in range(w):
                buf[b + i] = buf[b + i] - o[s + i]
        elif op == 3:
            for i in range(w):
                buf[b + i] = o[s + i] - buf[b + i]
        elif op == 4:
            for i in range(w):
                buf[b + i] = buf[b + i] * o[s + i]
        elif op == 5:
            for i in range(w):
                buf[b + i] = buf[b + i] / o[s + i]
        else:
            for i in range(w):
                buf[b + i] = o[s + i] / buf[b + i]

@numba.njit(cache=True, nogil=True, error_model="numpy", inline="always")
def chain_val(op, buf, o, r, period, w, nr):  # pragma: no cover (compiled)
    # nr rows of w values: buf[q w + i] = buf[q w + i] op c, c = o[(r + q) %
    # period] (one value a row; period 1, nr 1: one value); w uint64
    for q in range(nr):
        b = np.uint64(q) * w
        c = o[(r + q) % period]
        if op == 0:
            for i in range(w):
                buf[b + i] = c
        elif op == 1:
            for i in range(w):
                buf[b + i] = buf[b + i] + c
        elif op == 2:
            for i in range(w):
                buf[b + i] = buf[b + i] - c
        elif op == 3:
            for i in range(w):
                buf[b + i] = c - buf[b + i]
        elif op == 4:
            for i in range(w):
                buf[b + i] = buf[b + i] * c
        elif op == 5:
            for i in range(w):
                buf[b + i] = buf[b + i] / c
        else:
            for i in range(w):
                buf[b + i] = c / buf[b + i]

@numba.njit(cache=True, nogil=True, error_model="numpy", inline="always")
def chain_ops(srcs, trans, code, prm, buf, tb, none, e, stride, j, r, w, nr, t0,
              chans):  # pragma: no cover (compiled)
    # the ops of a chain (code, prm: see elem_chain) on buf for
    # elem_chain_tiles: nr rows of w values, row q of the result at flat e +
    # q stride (columns j.. of rows r..). trans[s]: source s holds its values
    # transposed, row q's value i at t0 + i chans + q (a load moved straight
    # into buf, another op's operand into tb first); none: an empty array of
    # buf's dtype. Each kind of loop inlined once (elem_chain keeps its own
    # loop: sharing this one, with its strided variants, measured 1.5x
    # slower on contiguous chains)
    m = nr * w
    um = np.uint64(m)
    uw = np.uint64(w)
    for k in range(code.shape[0]):
        op = code[k, 0]
        if op == 8:  # Relu (NaN kept), as bias_act
            for i in range(um):
                v = buf[i]
                buf[i] = np.float32(0.0) if v < np.float32(0.0) else v
            continue
        if op == 7:
            bias_act(buf, buf, none, none, 0, prm[k], m, 0, 1)
            continue
        s = code[k, 1]
        o = srcs[s]
        mode = code[k, 2]
        if mode == 1:  # one value: one row of m
            chain_val(op, buf, o, 0, 1, um, 1)
            continue
        if mode == 2:  # one per row
            chain_val(op, buf, o, r, code[k, 3], uw, nr)
            continue
        base, step = np.uint64(j), np.uint64(0)  # one per column
        if mode == 0 and trans[s]:
            dst = buf if op == 0 else tb  # a load: moved straight into buf
            transpose_block(o, t0, chans, dst, 0, w, w, nr)
            if op == 0:
                continue
            o = tb
            base, step = np.uint64(0), uw
        elif mode == 0:
            base, step = np.uint64(e), np.uint64(stride)
        chain_arr(op, buf, o, base, step, uw, nr)


@numba.njit(cache=True, nogil=True, error_model="numpy")
def elem_chain(srcs, out, code, prm, inner, lo, hi):  # pragma: no cover (compiled)
    # out[e] for flat indices lo..hi: a chain of elementwise ops on a
    # value carried in chunks of at most CHUNK elements: whole rows of
    # ``inner`` elements (one chunk, one call a step, for rows up to
    # CHUNK: a segment a row cost ~85 ns a step, 8.5 us for a chain of
    # [24, 32]), else a part of one row. srcs: 4 1-D arrays of out's
    # dtype; code[k] = (op, src, mode, period): op 0 load, 1 add, 2 sub, 3
    # reversed sub, 4 mul, 5 div, 6 reversed div, 7 an activation of
    # bias_act (prm[k] its parameters), 8 Relu; mode 0 one value per
    # element, 1 one value, 2 one per row r % period, 3 one per column
    buf = np.empty(CHUNK, out.dtype)
    none = np.empty(0, out.dtype)
    nops = code.shape[0]
    per = max(1, CHUNK // inner)  # whole rows a chunk
    e = lo
    while e < hi:
        j = e % inner
        r = e // inner
        nr = min(per, (hi - e) // inner) if j == 0 and inner <= CHUNK else 0
        if nr > 0:
            w = inner
        else:  # a part of a row
            nr = 1
            w = min(CHUNK, hi - e, inner - j)
        m = nr * w
        uw = np.uint64(w)
        um = np.uint64(m)
        for k in range(nops):
            op = code[k, 0]
            if op == 8:  # Relu (NaN kept), as bias_act
                for i in range(um):
                    v = buf[i]
                    buf[i] = np.float32(0.0) if v < np.float32(0.0) else v
                continue
            if op == 7:
                bias_act(buf, buf, none, none, 0, prm[k], m, 0, 1)
                continue
            o = srcs[code[k, 1]]
            mode = code[k, 2]
            if mode == 0:  # whole rows or one part: contiguous in o
                chain_arr(op, buf, o, np.uint64(e), um, um, 1)
            elif mode == 3:
                chain_arr(op, buf, o, np.uint64(j), np.uint64(0), uw, nr)
            elif mode == 1:
                chain_val(op, buf, o, 0, 1, um, 1)
            else:
                chain_val(op, buf, o, r, code[k, 3], uw, nr)
        ue = np.uint64(e)
        for i in range(um):
            out[ue + i] = buf[i]
        e += m


@numba.njit(cache=True, nogil=True, error_model="numpy")
def elem_chain_tiles(srcs, trans, out, code, prm, chans, inner, tile_rows, tile, lo,
                     hi):  # pragma: no cover (compiled)
    # elem_chain's result as rows of ``inner`` values (row r = n chans + c),
    # rows lo..hi, in tiles of ``tile`` values: tile_rows rows of one n (more
    # when whole rows fit) by tile // rows columns, so that a source with
    # trans[s], laid out as [n, inner, chans] (the result's rows innermost),
    # is read a tile at a time (transpose_block: tile_rows values in turn)
    # and the result written C-contiguous
    buf = np.empty(tile, out.dtype)
    tb = np.empty(tile, out.dtype)
    none = np.empty(0, out.dtype)
    per = max(tile_rows, tile // inner // tile_rows * tile_rows)  # short rows: whole ones
    r0 = lo
    while r0 < hi:
        c0 = r0 % chans
        nr = min(per, hi - r0, chans - c0)
        tw = tile // nr
        j0 = 0
        while j0 < inner:
            w = min(tw, inner - j0)
            e = r0 * inner + j0
            chain_ops(srcs, trans, code, prm, buf, tb, none, e, inner, j0, r0, w, nr,
                      (r0 - c0) * inner + j0 * chans + c0, chans)
            copy_rows(out, e, inner, buf, 0, w, nr, w)
            j0 += w
        r0 += nr


@numba.njit(cache=True, nogil=True, inline="always")
def copy_rows(dst, d0, dstride, src, s0, sstride, nrows, ncols):  # pragma: no cover (compiled)
    # nrows rows of ncols values from the flat src (row r at s0 + r * sstride)
    # into the flat dst (row r at d0 + r * dstride): the convolution kernels
    # copy their accumulator rows out with it (the extra accumulator columns
    # dropped). Unsigned indices: no wraparound checks, the copies vectorise
    n = np.uint64(ncols)
    for r in range(nrows):
        d = np.uint64(d0 + r * dstride)
        s = np.uint64(s0 + r * sstride)
        for j in range(n):
            dst[d + j] = src[s + j]
