"""The numba kernel of :mod:`xmo.backends.cpu.kernels.depthwise`, at module
level so that numba's on-disk cache finds it again. Imported only by
:func:`~xmo.backends.cpu.kernels.depthwise.depthwise_kernel` (numba stays a
lazy import)."""

from __future__ import annotations

import numba
import numpy as np
from llvmlite import ir
from numba import types
from numba.core import cgutils
from numba.extending import intrinsic

from xmo.backends.cpu import vector_width
from xmo.backends.cpu.kernels.gemm_jit import LANES
from xmo.backends.cpu.kernels.rows_jit import bias_act

vector_width.configure()  # before the first kernel: numba's vector width

#: the tap loops' lengths round up to a multiple of this
PAD = 16
#: output elements (of the flattened, padded-width rows) the kernel sums at
#: once over all taps: a block of output rows that stays in L1 (a constant
#: of this file: numba freezes it into the cached kernel, whose cache entry
#: is checked against this file only)
BLOCK_ELEMENTS = 1024
#: output values of whole channel planes the kernel's epilogue takes at once
#: (fewer calls of bias_act on small maps; still in L1 / L2)
EPI_ELEMENTS = 4096


U = np.uint64


def _float_arrays(*arrays) -> bool:
    return (all(isinstance(a, types.Array) for a in arrays)
            and len({a.dtype for a in arrays}) == 1
            and arrays[0].dtype in (types.float32, types.float64))


def _tap_arguments(acc, buf, w, offs, *ints) -> bool:
    """The tap-sum intrinsics' argument types: ``acc``, ``buf``, ``w`` 1-D
    arrays of one float dtype, ``offs`` an int64 array, ``ints`` integers."""
    return (_float_arrays(acc, buf, w) and isinstance(offs, types.Array)
            and offs.dtype == types.int64 and all(isinstance(v, types.Integer) for v in ints))


def _vector(context, dtype):
    """``(element type, its size in bytes, lanes, vector type)`` of a full
    vector register of ``dtype`` (f32 or f64)."""
    ft = context.get_value_type(dtype)
    lanes = LANES if dtype == types.float32 else LANES // 2
    return ft, ft.get_abi_size(context.target_data), lanes, ir.VectorType(ft, lanes)


def _span_codegen(builder, lanes, n_v, body):
    """A loop over ``n_v`` elements in whole vectors of ``lanes`` then one
    masked vector: ``body(builder, k, rest)`` for each, ``k`` the first
    element, ``rest`` the masked vector's element count (None for a whole
    vector)."""
    i64 = ir.IntType(64)
    full = builder.udiv(n_v, ir.Constant(i64, lanes))
    with cgutils.for_range(builder, full) as loop:
        body(builder, builder.mul(loop.index, ir.Constant(i64, lanes)), None)
    done = builder.mul(full, ir.Constant(i64, lanes))
    rest = builder.sub(n_v, done)
    with builder.if_then(builder.icmp_unsigned("!=", rest, ir.Constant(i64, 0))):
        body(builder, done, rest)


def _zeroed(builder, zero, count):
    """``count`` accumulators (stack slots) holding ``zero``, stored at the
    builder's point (a loop body's accumulators start from zero on every pass)."""
    accs = [cgutils.alloca_once_value(builder, zero) for _ in range(count)]
    for a in accs:
        builder.store(zero, a)
    return accs


def _vector_groups_codegen(builder, lanes, n_v, vectors, run):
    """A loop over ``n_v`` elements (a multiple of ``lanes``) in groups of
    ``vectors`` vectors, the last ``vectors`` to ``2 * vectors - 1`` vectors
    (or all of them, when fewer) in one group: ``run(builder, j, count)`` for
    each, ``j`` the first element, ``count`` its vectors. A tap sum is a
    chain of dependent adds (no contraction): one vector alone waits the
    add's latency on every tap (4 cycles here), a group of ``count`` runs
    ``count`` chains side by side; the 5 vectors of a 7x7 map's 5x5 taps in
    one group, not 4 + 1: 125 instead of 200 cycles a channel."""
    i64 = ir.IntType(64)
    step = vectors * lanes
    whole = builder.udiv(n_v, ir.Constant(i64, step))
    one = ir.Constant(i64, 1)
    groups = builder.select(builder.icmp_unsigned(">", whole, one), builder.sub(whole, one),
                            ir.Constant(i64, 0))
    with cgutils.for_range(builder, groups) as loop:
        run(builder, builder.mul(loop.index, ir.Constant(i64, step)), vectors)
    done = builder.mul(groups, ir.Constant(i64, step))
    rest = builder.udiv(builder.sub(n_v, done), ir.Constant(i64, lanes))
    after = builder.append_basic_block("groups.after")
    switch = builder.switch(rest, after)
    for count in range(1, 2 * vectors):
        block = builder.append_basic_block(f"groups.last{count}")
        switch.add_case(ir.Constant(i64, count), block)
        builder.position_at_end(block)
        run(builder, done, count)
        builder.branch(after)
    builder.position_at_end(after)


def _mask(builder, count, width, per):
    """<width x i1>: lane i set when i < per * count."""
    i32 = ir.IntType(32)
    idx = ir.Constant(ir.VectorType(i32, width), list(range(width)))
    lim = builder.trunc(builder.mul(count, ir.Constant(count.type, per)), i32)
    splat = builder.insert_element(ir.Constant(ir.VectorType(i32, width), ir.Undefined), lim,
                                   ir.Constant(i32, 0))
    splat = builder.shuffle_vector(splat, ir.Constant(ir.VectorType(i32, width), ir.Undefined),
                                   ir.Constant(ir.VectorType(i32, width), [0] * width))
    return builder.icmp_unsigned("<", idx, splat)


def _masked_load(builder, ptr, vt, mask, align):
    fn = cgutils.get_or_insert_function(
        builder.module, ir.FunctionType(vt, [ptr.type, ir.IntType(32), mask.type, vt]),
        f"llvm.masked.load.v{vt.count}{_suffix(vt)}.p0")
    return builder.call(fn, [ptr, ir.Constant(ir.IntType(32), align), mask,
                             ir.Constant(vt, ir.Undefined)])


def _masked_store(builder, value, ptr, mask, align):
    vt = value.type
    fn = cgutils.get_or_insert_function(
        builder.module, ir.FunctionType(ir.VoidType(), [vt, ptr.type, ir.IntType(32), mask.type]),
        f"llvm.masked.store.v{vt.count}{_suffix(vt)}.p0")
    builder.call(fn, [value, ptr, ir.Constant(ir.IntType(32), align), mask])


def _suffix(vt) -> str:
    return "f32" if isinstance(vt.element, ir.FloatType) else "f64"


def _data(context, builder, arrty, value, offset):
    return builder.gep(cgutils.create_struct_proxy(arrty)(context, builder, value=value).data,
                       [offset])


@intrinsic
def copy_span(typingctx, src, s0, dst, d0, n):
    """``copy_span(src, s0, dst, d0, n)``: ``dst[d0:d0 + n] = src[s0:s0 +
    n]`` in whole vectors and one masked vector (no scalar remainder: the
    kernel's rows are short). Offsets in elements; 1-D arrays of one float
    dtype."""
    if not (_float_arrays(src, dst) and all(isinstance(v, types.Integer) for v in (s0, d0, n))):
        return None
    sig = types.void(src, s0, dst, d0, n)

    def codegen(context, builder, signature, args):
        src_v, s0_v, dst_v, d0_v, n_v = args
        sp = _data(context, builder, src, src_v, s0_v)
        dp = _data(context, builder, dst, dst_v, d0_v)
        ft, size, lanes, vt = _vector(context, src.dtype)

        def body(b, k, rest):
            s = b.bitcast(b.gep(sp, [k]), vt.as_pointer())
            d = b.bitcast(b.gep(dp, [k]), vt.as_pointer())
            if rest is None:
                b.store(b.load(s, align=size), d, align=size)
            else:
                m = _mask(b, rest, lanes, 1)
                _masked_store(b, _masked_load(b, s, vt, m, size), d, m, size)

        _span_codegen(builder, lanes, n_v, body)
        return context.get_dummy_value()

    return sig, codegen


@intrinsic
def deinterleave2(typingctx, src, s0, even, e0, odd, o0, n):
    """``deinterleave2(src, s0, even, e0, odd, o0, n)``: ``even[e0 + t] =
    src[s0 + 2t]``, ``odd[o0 + t] = src[s0 + 2t + 1]`` for ``t < n``. Each
    step loads one vector and splits it into two half vectors with two
    shuffles, the last one masked (LLVM's own vectorisation of the strided
    loop uses gathers or scalar moves, 2-4x slower). Offsets in elements;
    1-D arrays of one float dtype."""
    if not (_float_arrays(src, even, odd)
            and all(isinstance(v, types.Integer) for v in (s0, e0, o0, n))):
        return None
    sig = types.void(src, s0, even, e0, odd, o0, n)

    def codegen(context, builder, signature, args):
        src_v, s0_v, even_v, e0_v, odd_v, o0_v, n_v = args
        sp = _data(context, builder, src, src_v, s0_v)
        ep = _data(context, builder, even, even_v, e0_v)
        op = _data(context, builder, odd, odd_v, o0_v)
        ft = context.get_value_type(src.dtype)
        size = ft.get_abi_size(context.target_data)
        # one vector register's elements a step, split into two halves:
        # half-width stores into the unaligned phase-plane rows split fewer
        # cache lines (large planes, in L2: 1.0 vs 1.17x the scalar loop's
        # time; small ones in L1 about the same as full width)
        lanes = LANES // 2 if src.dtype == types.float32 else LANES // 4
        i32 = ir.IntType(32)
        wide = ir.VectorType(ft, 2 * lanes)
        vt = ir.VectorType(ft, lanes)
        ev = ir.Constant(ir.VectorType(i32, lanes), [2 * t for t in range(lanes)])
        od = ir.Constant(ir.VectorType(i32, lanes), [2 * t + 1 for t in range(lanes)])
        undef = ir.Constant(wide, ir.Undefined)

        def body(b, k, rest):
            s = b.bitcast(b.gep(sp, [b.add(k, k)]), wide.as_pointer())
            e = b.bitcast(b.gep(ep, [k]), vt.as_pointer())
            o = b.bitcast(b.gep(op, [k]), vt.as_pointer())
            if rest is None:
                v = b.load(s, align=size)
                b.store(b.shuffle_vector(v, undef, ev), e, align=size)
                b.store(b.shuffle_vector(v, undef, od), o, align=size)
            else:
                v = _masked_load(b, s, wide, _mask(b, rest, 2 * lanes, 2), size)
                m = _mask(b, rest, lanes, 1)
                _masked_store(b, b.shuffle_vector(v, undef, ev), e, m, size)
                _masked_store(b, b.shuffle_vector(v, undef, od), o, m, size)

        _span_codegen(builder, lanes, n_v, body)
        return context.get_dummy_value()

    return sig, codegen


#: output vectors :func:`tap_sums` sums at once (their accumulators stay in
#: registers over the taps; one weight broadcast serves them all)
TAP_VECTORS = 4
#: kernels of these many taps get :func:`tap_sums` with the taps unrolled
UNROLLED_TAPS = (9, 25)


@intrinsic
def tap_sums(typingctx, acc, buf, offs, w, w0, base, nt, length):
    """``tap_sums(acc, buf, offs, w, w0, base, nt, length)``: ``acc[j] = 0 +
    w[w0] * buf[base + offs[0] + j] + ... + w[w0 + nt - 1] * buf[base +
    offs[nt - 1] + j]`` for ``j < length`` (a multiple of the vector
    lanes): in tap order from zero, multiply then add (no contraction), the
    sums of :data:`TAP_VECTORS` vectors at a time in registers over all the
    taps. ``acc``, ``buf``, ``w`` 1-D of one float dtype, ``offs`` 1-D
    int64 (elements)."""
    if not _tap_arguments(acc, buf, w, offs, w0, base, nt, length):
        return None
    sig = types.void(acc, buf, offs, w, w0, base, nt, length)

    def codegen(context, builder, signature, args):
        acc_v, buf_v, offs_v, w_v, w0_v, base_v, nt_v, len_v = args
        i64 = ir.IntType(64)
        i32 = ir.IntType(32)
        ft, size, lanes, vt = _vector(context, acc.dtype)
        ap = _data(context, builder, acc, acc_v, ir.Constant(i64, 0))
        bp = _data(context, builder, buf, buf_v, base_v)
        op = _data(context, builder, offs, offs_v, ir.Constant(i64, 0))
        wp = _data(context, builder, w, w_v, w0_v)
        zero = ir.Constant(vt, [0.0] * lanes)
        undef = ir.Constant(vt, ir.Undefined)
        splat0 = ir.Constant(ir.VectorType(i32, lanes), [0] * lanes)

        def store(b, j, values):
            for r, v in enumerate(values):
                dst = b.gep(ap, [b.add(j, ir.Constant(i64, r * lanes))])
                b.store(v, b.bitcast(dst, vt.as_pointer()), align=size)

        def term(b, total, wt, src, r):
            v = b.load(b.bitcast(b.gep(src, [ir.Constant(i64, r * lanes)]), vt.as_pointer()),
                       align=size)
            return b.fadd(total, b.fmul(wt, v))

        def splat(b, t):
            wt = b.insert_element(undef, b.load(b.gep(wp, [t])), ir.Constant(i32, 0))
            return b.shuffle_vector(wt, undef, splat0)

        def sums(b, j, count):
            # acc[j : j + count * lanes] over all the taps (a loop over them)
            accs = _zeroed(b, zero, count)
            with cgutils.for_range(b, nt_v) as taps:
                t = taps.index
                wt = splat(b, t)
                src = b.gep(bp, [b.add(b.load(b.gep(op, [t])), j)])
                for r, a in enumerate(accs):
                    b.store(term(b, b.load(a), wt, src, r), a)
            store(b, j, [b.load(a) for a in accs])

        def fixed_sums(b, j, count, wts, offs):
            # the same with the taps unrolled, weights and offsets loaded once
            totals = [zero] * count
            for wt, o in zip(wts, offs):
                src = b.gep(bp, [b.add(o, j)])
                totals = [term(b, tot, wt, src, r) for r, tot in enumerate(totals)]
            store(b, j, totals)

        def unrolled(n):
            def emit(b):
                wts = [splat(b, ir.Constant(i64, t)) for t in range(n)]
                offs = [b.load(b.gep(op, [ir.Constant(i64, t)])) for t in range(n)]
                _vector_groups_codegen(b, lanes, len_v, TAP_VECTORS,
                                       lambda b2, j, count: fixed_sums(b2, j, count, wts, offs))
            return emit

        # 3x3 and 5x5 kernels: the taps unrolled (their weights would
        # otherwise be reloaded for every vector group: the stores to acc
        # may alias them for LLVM); other sizes loop over the taps
        branches = [(n, unrolled(n)) for n in UNROLLED_TAPS]

        def chain(b, i):
            if i == len(branches):
                _vector_groups_codegen(b, lanes, len_v, TAP_VECTORS, sums)
                return
            n, emit = branches[i]
            with b.if_else(b.icmp_unsigned("==", nt_v, ir.Constant(i64, n))) as (yes, no):
                with yes:
                    emit(b)
                with no:
                    chain(b, i + 1)

        chain(builder, 0)
        return context.get_dummy_value()

    return sig, codegen


#: output vectors of each of the four channels :func:`channel_sums` sums
#: at once (4 x 4 accumulators in registers over all the taps). Against
#: passes of eight taps through accumulators in memory, the stem kernel's
#: thread time on 224x224 / 320x320 stems: 0.77-0.87x with 4, 0.87-0.89x
#: with 2, 0.92-0.99x with 3 (session 33)
CHANNEL_VECTORS = 4


@intrinsic
def channel_sums(typingctx, acc, a0, span, buf, offs, w, w0, wstride, nt, length):
    """``channel_sums(acc, a0, span, buf, offs, w, w0, wstride, nt, length)``:
    for the four output channels ``k < 4``, ``acc[a0 + k * span + j] = 0 +
    w[w0 + k * wstride] * buf[offs[0] + j] + ... + w[w0 + k * wstride + nt
    - 1] * buf[offs[nt - 1] + j]`` for ``j < length`` (a multiple of the
    vector lanes): in tap order from zero, fused multiply-adds, the sums of
    :data:`CHANNEL_VECTORS` vectors of each channel at a time in registers
    over all the taps (each source vector loaded once serves the four
    channels, each weight broadcast the vectors). ``acc``, ``buf``, ``w``
    1-D of one float dtype, ``offs`` 1-D int64 (elements)."""
    if not _tap_arguments(acc, buf, w, offs, a0, span, w0, wstride, nt, length):
        return None
    sig = types.void(acc, a0, span, buf, offs, w, w0, wstride, nt, length)

    def codegen(context, builder, signature, args):
        acc_v, a0_v, span_v, buf_v, offs_v, w_v, w0_v, ws_v, nt_v, len_v = args
        i64 = ir.IntType(64)
        i32 = ir.IntType(32)
        ft, size, lanes, vt = _vector(context, acc.dtype)
        fma = cgutils.get_or_insert_function(
            builder.module, ir.FunctionType(vt, [vt, vt, vt]), f"llvm.fma.v{lanes}{_suffix(vt)}")
        span_v = builder.sext(span_v, i64) if span_v.type.width < 64 else span_v
        rows = [_data(context, builder, acc, acc_v,
                      builder.add(a0_v, builder.mul(span_v, ir.Constant(i64, k))))
                for k in range(4)]
        bp = _data(context, builder, buf, buf_v, ir.Constant(i64, 0))
        op = _data(context, builder, offs, offs_v, ir.Constant(i64, 0))
        wrows = [_data(context, builder, w, w_v,
                       builder.add(w0_v, builder.mul(ws_v, ir.Constant(i64, k))))
                 for k in range(4)]
        zero = ir.Constant(vt, [0.0] * lanes)
        undef = ir.Constant(vt, ir.Undefined)
        splat0 = ir.Constant(ir.VectorType(i32, lanes), [0] * lanes)

        def sums(b, j, count):
            accs = [_zeroed(b, zero, count) for _ in range(4)]
            with cgutils.for_range(b, nt_v) as taps:
                t = taps.index
                src = b.gep(bp, [b.add(b.load(b.gep(op, [t])), j)])
                vs = [b.load(b.bitcast(b.gep(src, [ir.Constant(i64, r * lanes)]),
                                       vt.as_pointer()), align=size) for r in range(count)]
                for k in range(4):
                    wt = b.insert_element(undef, b.load(b.gep(wrows[k], [t])),
                                          ir.Constant(i32, 0))
                    wt = b.shuffle_vector(wt, undef, splat0)
                    for r in range(count):
                        a = accs[k][r]
                        b.store(b.call(fma, [wt, vs[r], b.load(a)]), a)
            for k in range(4):
                for r in range(count):
                    dst = b.gep(rows[k], [b.add(j, ir.Constant(i64, r * lanes))])
                    b.store(b.load(accs[k][r]), b.bitcast(dst, vt.as_pointer()), align=size)

        _vector_groups_codegen(builder, lanes, len_v, CHANNEL_VECTORS, sums)
        return context.get_dummy_value()

    return sig, codegen


@numba.njit(cache=True, nogil=True)
def fill_phases(x1, xb, ih, iw, sh, sw, ph, pw, hq, wq, buf):  # pragma: no cover (compiled)
    # the interior of every phase plane of the input plane at x1[xb:] (padded
    # row r * sh + a, column q * sw + p in plane (a, p) at r * wq + q); the
    # border stays zero. Unsigned indices: no wraparound, the loops vectorise
    pq = hq * wq
    for a in range(sh):
        ra = a - ph
        r0 = max(0, -(ra // sh))
        r1 = min(hq, (ih - 1 - ra) // sh + 1) if ih - 1 - ra >= 0 else 0
        if sw == 2:
            # both column phases in one pass over the row: input column
            # 2t lands in plane pw & 1 at t + pw // 2, column 2t + 1 in
            # plane (pw + 1) & 1 at t + (pw + 1) // 2
            qe = pw // 2
            qo = (pw + 1) // 2
            be = (a * 2 + (pw & 1)) * pq
            bo = (a * 2 + ((pw + 1) & 1)) * pq
            ne = U(max(0, min((iw + 1) // 2, wq - qe)))
            no = U(max(0, min(iw // 2, wq - qo)))
            nb = min(ne, no)
            for r in range(r0, r1):
                src = U(xb + (r * sh + ra) * iw)
                de = U(be + r * wq + qe)
                do = U(bo + r * wq + qo)
                deinterleave2(x1, src, buf, de, buf, do, nb)
                for t in range(nb, ne):
                    buf[de + t] = x1[src + U(2) * t]
                for t in range(nb, no):
                    buf[do + t] = x1[src + U(2) * t + U(1)]
            continue
        for p in range(sw):
            o = p - pw
            q0 = max(0, -(o // sw))
            q1 = min(wq, (iw - 1 - o) // sw + 1) if iw - 1 - o >= 0 else 0
            base = (a * sw + p) * pq
            if q1 <= q0:
                continue
            m = U(q1 - q0)
            for r in range(r0, r1):
                src = U(xb + (r * sh + ra) * iw + q0 * sw + o)
                dst = U(base + r * wq + q0)
                if sw == 1:
                    copy_span(x1, src, buf, dst, m)
                else:
                    for q in range(m):
                        buf[dst + q] = x1[src + q * U(sw)]


@numba.njit(cache=True, nogil=True)
def depthwise(x, wt, mg, sh, sw, dh, dw, ph, pw, out, c0, c1, b0, b1,
              ca, cb, period, prm):  # pragma: no cover (compiled)
    # output channels of the input channels [c0, c1) of the images [b0, b1);
    # prm non-empty: rows_jit.bias_act(ca, cb, period, prm) over the output
    # channels' planes (rows of [N * Cout, Ho * Wo]) as soon as they hold
    # EPI_ELEMENTS values (or the image's range ends), while in L1 / L2
    _, cin, ih, iw = x.shape
    kh, kw = wt.shape[1], wt.shape[2]
    cout = out.shape[1]
    oh, ow = out.shape[2], out.shape[3]
    hq = oh + ((kh - 1) * dh) // sh
    wq = ow + ((kw - 1) * dw) // sw
    pq = hq * wq
    nt = kh * kw
    # output rows a block: the block's sums stay in L1 over all taps
    rb = max(1, min(oh, BLOCK_ELEMENTS // wq))
    # the tap loops run over whole vectors (no scalar remainder): up to
    # PAD - 1 extra columns, read past the last plane into the slack
    buf = np.zeros(sh * sw * pq + PAD, x.dtype)
    acc = np.empty((rb - 1) * wq + ow + PAD, x.dtype)
    offs = np.empty(nt, np.int64)
    wf = wt.reshape(-1)
    x1 = x.reshape(-1)
    o1 = out.reshape(-1)
    hw = oh * ow
    for i in range(nt):
        ky, kx = i // kw, i % kw
        t = ky * dh
        u = kx * dw
        offs[i] = ((t % sh) * sw + u % sw) * pq + (t // sh) * wq + u // sw
    for b in range(b0, b1):
        pending = b * cout + c0 * mg  # the first output channel without its epilogue
        last = b * cout + c1 * mg
        for ci in range(c0, c1):
            fill_phases(x1, (b * cin + ci) * ih * iw, ih, iw, sh, sw, ph, pw, hq, wq, buf)
            for m in range(mg):
                co = ci * mg + m
                w0 = co * nt
                ob = (b * cout + co) * hw
                for y0 in range(0, oh, rb):
                    y1 = min(oh, y0 + rb)
                    used = (y1 - y0 - 1) * wq + ow
                    length = U((used + PAD - 1) // PAD * PAD)
                    base = U(y0 * wq)
                    tap_sums(acc, buf, offs, wf, w0, base, nt, length)
                    for y in range(y1 - y0):
                        copy_span(acc, y * wq, o1, ob + (y0 + y) * ow, ow)
                row = b * cout + co + 1
                if prm.size and ((row - pending) * hw >= EPI_ELEMENTS or row == last):
                    bias_act(o1, o1, ca, cb, period, prm, hw, pending, row)
                    pending = row


@intrinsic
def transpose_tile(typingctx, src, s0, ss, dst, d0, ds, rows, cols):
    """``transpose_tile(src, s0, ss, dst, d0, ds, rows, cols)``: ``dst[d0 + j
    * ds + i] = src[s0 + i * ss + j]`` for ``i < rows``, ``j < cols``, both
    at most the vector lanes L: ``rows`` masked vector loads, an L x L
    transpose in registers (log2 L stages of two-source shuffles, each
    swapping one bit of the row and column indices), ``cols`` masked vector
    stores. The tiny-map kernel's copies between [C, H * W] planes and its
    channels-innermost blocks: its run on 576 x 7 x 7 f32 with a 1x1 kernel
    (the copies, little else) in 0.43x the time of the scalar loops (one
    thread, alternating, medians; session 33). Offsets and strides in
    elements; 1-D arrays of one float dtype."""
    if not (_float_arrays(src, dst)
            and all(isinstance(v, types.Integer) for v in (s0, ss, d0, ds, rows, cols))):
        return None
    sig = types.void(src, s0, ss, dst, d0, ds, rows, cols)

    def codegen(context, builder, signature, args):
        src_v, s0_v, ss_v, dst_v, d0_v, ds_v, rows_v, cols_v = args
        i64 = ir.IntType(64)
        i32 = ir.IntType(32)
        sp = _data(context, builder, src, src_v, s0_v)
        dp = _data(context, builder, dst, dst_v, d0_v)
        ft, size, lanes, vt = _vector(context, src.dtype)
        false = ir.Constant(ir.VectorType(ir.IntType(1), lanes), [0] * lanes)
        load_mask = _mask(builder, cols_v, lanes, 1)
        store_mask = _mask(builder, rows_v, lanes, 1)

        def masked(b, limit, i, mask):
            # the mask, or no lanes at all past the limit
            return b.select(b.icmp_unsigned("<", ir.Constant(i64, i), limit), mask, false)

        vs = []
        for i in range(lanes):
            row = builder.bitcast(builder.gep(sp, [builder.mul(ss_v, ir.Constant(i64, i))]),
                                  vt.as_pointer())
            vs.append(_masked_load(builder, row, vt, masked(builder, rows_v, i, load_mask), size))
        # stage s: rows i (bit s clear) and i + s: lanes with bit s set in
        # row i come from row i + s, lanes - s; in row i + s the lanes with
        # bit s clear from row i, lanes + s
        s = 1
        while s < lanes:
            lo = ir.Constant(ir.VectorType(i32, lanes),
                             [lanes + j - s if j & s else j for j in range(lanes)])
            hi = ir.Constant(ir.VectorType(i32, lanes),
                             [lanes + j if j & s else j + s for j in range(lanes)])
            for i in range(lanes):
                if not i & s:
                    a, c = vs[i], vs[i + s]
                    vs[i] = builder.shuffle_vector(a, c, lo)
                    vs[i + s] = builder.shuffle_vector(a, c, hi)
            s *= 2
        for j in range(lanes):
            col = builder.bitcast(builder.gep(dp, [builder.mul(ds_v, ir.Constant(i64, j))]),
                                  vt.as_pointer())
            _masked_store(builder, vs[j], col, masked(builder, cols_v, j, store_mask), size)
        return context.get_dummy_value()

    return sig, codegen


#: the tiny-map kernel (:func:`depthwise_tiny`) lays out at most about this
#: many padded-input values a channel block ([Hp, Wp, block]; the block a
#: multiple of :data:`PAD` channels): the block and its sums stay in L1
TINY_BLOCK_ELEMENTS = 8192
#: ... but at least this many vectors of channels a block: the vector groups
#: of :func:`lane_tap_sums` run side by side (one vector alone waits on the
#: add's latency every tap; 14x14 maps' 18x18 padded 5x5 windows, 16
#: channels a block before: 240 channels in 0.73x the time with 64, one
#: thread, session 33)
TINY_MIN_VECTORS = 4


@intrinsic
def lane_tap_sums(typingctx, acc, a0, buf, base, offs, w, w0, ws, nt, length):
    """``lane_tap_sums(acc, a0, buf, base, offs, w, w0, ws, nt, length)``:
    ``acc[a0 + j] = 0 + w[w0 + j] * buf[base + offs[0] + j] + ... + w[w0 +
    (nt - 1) * ws + j] * buf[base + offs[nt - 1] + j]`` for ``j < length`` (a
    multiple of the vector lanes): :func:`tap_sums` with one weight a lane
    (the lanes are channels: a weight row per tap, ``ws`` apart), in tap
    order from zero, multiply then add (no contraction), the sums of
    :data:`TAP_VECTORS` vectors at a time in registers over all the taps.
    ``acc``, ``buf``, ``w`` 1-D of one float dtype, ``offs`` 1-D int64
    (elements)."""
    if not _tap_arguments(acc, buf, w, offs, a0, base, w0, ws, nt, length):
        return None
    sig = types.void(acc, a0, buf, base, offs, w, w0, ws, nt, length)

    def codegen(context, builder, signature, args):
        acc_v, a0_v, buf_v, base_v, offs_v, w_v, w0_v, ws_v, nt_v, len_v = args
        i64 = ir.IntType(64)
        ft, size, lanes, vt = _vector(context, acc.dtype)
        ap = _data(context, builder, acc, acc_v, a0_v)
        bp = _data(context, builder, buf, buf_v, base_v)
        op = _data(context, builder, offs, offs_v, ir.Constant(i64, 0))
        wp = _data(context, builder, w, w_v, w0_v)
        zero = ir.Constant(vt, [0.0] * lanes)

        def load(b, p, j, r):
            q = b.gep(p, [b.add(j, ir.Constant(i64, r * lanes))])
            return b.load(b.bitcast(q, vt.as_pointer()), align=size)

        def sums(b, j, count):
            # acc[j : j + count * lanes] over all the taps
            accs = _zeroed(b, zero, count)
            with cgutils.for_range(b, nt_v) as taps:
                t = taps.index
                src = b.gep(bp, [b.load(b.gep(op, [t]))])
                wts = b.gep(wp, [b.mul(t, ws_v)])
                for r, a in enumerate(accs):
                    b.store(b.fadd(b.load(a), b.fmul(load(b, wts, j, r), load(b, src, j, r))), a)
            for r, a in enumerate(accs):
                dst = b.gep(ap, [b.add(j, ir.Constant(i64, r * lanes))])
                b.store(b.load(a), b.bitcast(dst, vt.as_pointer()), align=size)

        _vector_groups_codegen(builder, lanes, len_v, TAP_VECTORS, sums)
        return context.get_dummy_value()

    return sig, codegen


@numba.njit(cache=True, nogil=True)
def depthwise_tiny(x, wl, out, g):  # pragma: no cover (compiled)
    # g = (mg, kh, kw, sh, sw, dh, dw, ph, pw, c0, c1, b0, b1) (one int64
    # array: each argument costs the call ~0.05 us): the output channels
    # [c0, c1) (c0 a multiple of PAD) of the images [b0, b1), channels
    # innermost. Per block of channels the zero-padded input [Hp, Wp,
    # block] (output channel co reads input channel co // mg), each output
    # pixel's block the tap sums of its window over whole vectors of
    # channels (lane_tap_sums; wl the weights [Kh * Kw, C'], C' >= c1
    # rounded up to PAD, zero past Cout), then copied out. Both copies
    # (without a multiplier) in vector tiles, transposed in registers
    # (transpose_tile: [channels, pixels of an input row] in, [pixels,
    # channels] of the sums out; the scalar loops took about as long as the
    # 5x5 taps of a 7x7 map). Unsigned indices: no wraparound
    mg, kh, kw, sh, sw, dh, dw, ph, pw, c0, c1, b0, b1 = (
        g[0], g[1], g[2], g[3], g[4], g[5], g[6], g[7], g[8], g[9], g[10], g[11], g[12])
    _, cin, ih, iw = x.shape
    cout, oh, ow = out.shape[1], out.shape[2], out.shape[3]
    hp = max(ih + ph, (oh - 1) * sh + (kh - 1) * dh + 1)
    wp = max(iw + pw, (ow - 1) * sw + (kw - 1) * dw + 1)
    nt = kh * kw
    hw = oh * ow
    ihw = ih * iw
    cw = wl.shape[1]
    tl = LANES * 4 // x.itemsize  # transpose_tile's vector lanes
    # channels a block: a multiple of PAD, the block's plane about
    # TINY_BLOCK_ELEMENTS values, at least TINY_MIN_VECTORS vectors
    cb = min((c1 - c0 + PAD - 1) // PAD,
             max(TINY_MIN_VECTORS, TINY_BLOCK_ELEMENTS // (hp * wp * PAD))) * PAD
    e = np.zeros(hp * wp * cb, x.dtype)
    acc = np.empty(hw * cb, x.dtype)
    offs = np.empty(nt, np.int64)
    for i in range(nt):
        offs[i] = ((i // kw) * dh * wp + (i % kw) * dw) * cb
    x1 = x.reshape(-1)
    o1 = out.reshape(-1)
    wf = wl.reshape(-1)
    for b in range(b0, b1):
        for k0 in range(c0, c1, cb):
            nb = min(cb, c1 - k0)
            if mg == 1:  # [channels, pixels] tiles of each input row
                for iy in range(ih):
                    for ix in range(0, iw, tl):
                        xb = (b * cin + k0) * ihw + iy * iw + ix
                        eb = ((iy + ph) * wp + pw + ix) * cb
                        for co in range(0, nb, tl):
                            transpose_tile(x1, xb + co * ihw, ihw, e, eb + co, cb,
                                           min(tl, nb - co), min(tl, iw - ix))
            else:
                for iy in range(ih):
                    for ix in range(iw):
                        eb = U(((iy + ph) * wp + pw + ix) * cb)
                        xp = U(iy * iw + ix)
                        for co in range(nb):
                            e[eb + co] = x1[U((b * cin + (k0 + co) // mg) * ihw) + xp]
            nv = U((nb + PAD - 1) // PAD * PAD)
            for oy in range(oh):
                for ox in range(ow):
                    lane_tap_sums(acc, (oy * ow + ox) * cb, e, (oy * sh * wp + ox * sw) * cb,
                                  offs, wf, k0, cw, nt, nv)
            # [pixels, channels] tiles of the sums
            for p in range(0, hw, tl):
                for co in range(0, nb, tl):
                    transpose_tile(acc, p * cb + co, cb, o1, (b * cout + k0 + co) * hw + p, hw,
                                   min(tl, hw - p), min(tl, nb - co))
