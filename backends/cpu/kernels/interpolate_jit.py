"""The numba kernels of :mod:`xmo.backends.cpu.kernels.interpolate` (nearest
and 2-tap linear resizes of the last two axes), at module level so that
numba's on-disk cache finds them again. Loaded lazily through
:func:`~xmo.backends.cpu.kernels._common.jit_module` (numba stays a lazy
import).

Both take the input as planes ``x`` [P, H, W] and write planes ``[p0, p1)``,
output rows ``[y0, y1)`` of ``out`` [P, OH, OW] (one task of a split over
planes or, with fewer planes than tasks, over rows), from per-axis tables the
plan computed once.
"""

from __future__ import annotations

import numba
import numpy as np
from llvmlite import ir
from numba import types
from numba.core import cgutils
from numba.extending import intrinsic

from xmo.backends.cpu import vector_width

vector_width.configure()  # before the first kernel: numba's vector width

#: bytes of one streamed store: a cache line
LINE = 64


def _row_ptr(context, builder, arrty, value, offset, vt):
    data = cgutils.create_struct_proxy(arrty)(context, builder, value=value).data
    return builder.bitcast(builder.gep(data, [offset]), vt.as_pointer())


@intrinsic
def lerp_line_nt(typingctx, o, a, b, i, w0, w1):
    """``o[i:i + n] = w0 * a[i:i + n] + w1 * b[i:i + n]`` for the ``n``
    elements of one cache line (:data:`LINE` bytes), written with one
    non-temporal store (``o[i]`` aligned to :data:`LINE`; the loads may be
    unaligned). 1-D arrays and weights of one float dtype; the same
    arithmetic as the scalar loop (no fused multiply-add)."""
    arrays = (o, a, b)
    if not (all(isinstance(v, types.Array) and v.ndim == 1 for v in arrays)
            and len({v.dtype for v in arrays} | {w0, w1}) == 1
            and o.dtype in (types.float32, types.float64) and isinstance(i, types.Integer)):
        return None
    sig = types.void(o, a, b, i, w0, w1)

    def codegen(context, builder, signature, args):
        o_v, a_v, b_v, i_v, w0_v, w1_v = args
        ft = context.get_value_type(o.dtype)
        lanes = LINE // ft.get_abi_size(context.target_data)
        vt = ir.VectorType(ft, lanes)
        zeros = ir.Constant(ir.VectorType(ir.IntType(32), lanes), [0] * lanes)

        def splat(v):
            one = builder.insert_element(ir.Constant(vt, ir.Undefined), v, ir.Constant(ir.IntType(32), 0))
            return builder.shuffle_vector(one, ir.Constant(vt, ir.Undefined), zeros)

        size = ft.get_abi_size(context.target_data)
        va = builder.load(_row_ptr(context, builder, a, a_v, i_v, vt), align=size)
        vb = builder.load(_row_ptr(context, builder, b, b_v, i_v, vt), align=size)
        r = builder.fadd(builder.fmul(splat(w0_v), va), builder.fmul(splat(w1_v), vb))
        st = builder.store(r, _row_ptr(context, builder, o, o_v, i_v, vt), align=LINE)
        st.set_metadata("nontemporal", builder.module.add_metadata([ir.Constant(ir.IntType(32), 1)]))
        return context.get_dummy_value()

    return sig, codegen


@intrinsic
def store_fence(typingctx):
    """A full memory fence: the non-temporal stores before it are visible to
    the other threads once the task returns."""
    def codegen(context, builder, signature, args):
        builder.fence("seq_cst")
        return context.get_dummy_value()

    return types.void(), codegen


@numba.njit(cache=True, nogil=True)
def nearest_2d(x, yi, xi, out, p0, p1, y0, y1):  # pragma: no cover
    """``out[p, oy, ox] = x[p, yi[oy], xi[ox]]``; an output row reading the
    same input row as the one above it is a copy of that row."""
    ow = out.shape[2]
    for p in range(p0, p1):
        xp = x[p]
        op = out[p]
        for oy in range(y0, y1):
            o = op[oy]
            if oy > y0 and yi[oy] == yi[oy - 1]:
                prev = op[oy - 1]
                for ox in range(ow):
                    o[ox] = prev[ox]
            else:
                r = xp[yi[oy]]
                for ox in range(ow):
                    o[ox] = r[xi[ox]]


@numba.njit(cache=True, nogil=True)
def linear_2d(x, rows, ry0, ry1, wy0, wy1, xi0, xi1, wx0, wx1, out,
              block, stream, p0, p1, y0, y1):  # pragma: no cover
    """A separable 2-tap resize, ``block`` output rows at a time: the input
    rows ``rows[r]`` those output rows read, resized along the width first
    (``t[r, ox] = wx0[ox] * x[rows[r], xi0[ox]] + wx1[ox] * x[rows[r],
    xi1[ox]]``, a scratch of those rows only), then each output row ``oy`` as
    ``wy0[oy] * t[ry0[oy]] + wy1[oy] * t[ry1[oy]]`` (contiguous rows: SIMD).
    Arithmetic in the element type of ``x`` (the weights are of that type
    too). ``stream``: the output rows written with non-temporal stores
    (:func:`lerp_line_nt`; an output larger than the caches: no read of each
    line before it is written)."""
    ow = out.shape[2]
    lanes = LINE // out.itemsize
    t = np.empty((0, ow), x.dtype)
    for p in range(p0, p1):
        xp = x[p]
        op = out[p]
        for yb in range(y0, y1, block):
            ye = min(yb + block, y1)
            lo = ry0[yb]
            hi = ry1[yb]
            for oy in range(yb, ye):
                lo = min(lo, ry0[oy])
                hi = max(hi, ry1[oy])
            if hi + 1 - lo > t.shape[0]:
                t = np.empty((hi + 1 - lo, ow), x.dtype)
            for r in range(lo, hi + 1):
                src = xp[rows[r]]
                tr = t[r - lo]
                for ox in range(ow):
                    tr[ox] = wx0[ox] * src[xi0[ox]] + wx1[ox] * src[xi1[ox]]
            for oy in range(yb, ye):
                a = t[ry0[oy] - lo]
                b = t[ry1[oy] - lo]
                w0 = wy0[oy]
                w1 = wy1[oy]
                o = op[oy]
                ox = 0
                if stream:  # up to a cache line, the whole lines, the rest
                    head = min(ow, (-o.ctypes.data) % LINE // o.itemsize)
                    for ox in range(head):
                        o[ox] = w0 * a[ox] + w1 * b[ox]
                    ox = head
                    while ox + lanes <= ow:
                        lerp_line_nt(o, a, b, ox, w0, w1)
                        ox += lanes
                for ox in range(ox, ow):
                    o[ox] = w0 * a[ox] + w1 * b[ox]
    if stream:
        store_fence()
