"""Quantization: QuantizeLinear, DequantizeLinear, DynamicQuantizeLinear,
MatMulInteger, ConvInteger, QLinearMatMul, QLinearConv.

Everything is decomposed into Convert / Subtract / Multiply / Divide / Round /
Clamp around f32 MatMul / Convolution (OpenVINO's low-precision transformations
recognize these patterns). A DequantizeLinear of constant 8- or 4-bit weights
keeps them as an integer Constant with a Convert marked
``disabled_constant_folding`` (``ov-constant-fold`` leaves it alone; not
``decompression``, which makes OpenVINO's CPU plugin run the layer in
f32/bf16 with decompressed weights), then Subtract (zero point, left out when
it is all zeros) and Multiply (scale): the weight form OpenVINO's CPU plugin
runs in int8. A QuantizeLinear -> DequantizeLinear pair on activations becomes
one FakeQuantize in ``ov-fusions`` (:mod:`xmo.passes.ov_fusions.quantization`)."""

from __future__ import annotations

import numpy as np
from xdsl.ir import SSAValue

from xmo.dialects.ov.base import dims_of
from xmo.passes.ov_constant_fold import NO_FOLD
from xmo.passes.to_ov.builder import Builder, ConverterNode, value_etype
from xmo.passes.to_ov.helpers import broadcast_along, norm_axis, rank_of, scalar
from xmo.passes.onnx_to_ov.families._types import onnx_dtype_to_etype
from xmo.passes.onnx_to_ov.registry import converter

#: saturation range of the integer types QuantizeLinear produces
_RANGES = {
    "u8": (0, 255), "i8": (-128, 127), "u16": (0, 65535), "i16": (-32768, 32767),
    "u4": (0, 15), "i4": (-8, 7), "i32": (-(2**31), 2**31 - 1),
}  # fmt: skip

_F = "f32"  # computation type


def _param(node: ConverterNode, b: Builder, p: SSAValue, x: SSAValue, axis: int, block: int) -> SSAValue:
    """Scale / zero point ``p`` (f32) shaped to broadcast against ``x``:
    per-tensor (scalar or [1]), per-axis ([C] along ``axis``) or blocked
    (same rank as x, repeated ``block`` times along ``axis``)."""
    p = b.convert(p, _F)
    ps = dims_of(p.type)
    r = rank_of(node, x)
    if ps is None:
        raise node.unsupported("scale/zero point of dynamic rank")
    if len(ps) == 0 or (len(ps) == 1 and ps[0] == 1 and block == 0):
        return p
    norm_axis(node, axis, r)
    if block > 0:
        if len(ps) != r:
            raise node.unsupported("blocked quantization needs scale of the input's rank")
        # repeat each element `block` times along axis, crop to x's extent
        u = b.unsqueeze(p, [axis + 1])
        shape_p = b.shape_of(p)
        head = b.out("Slice", [shape_p, b.i64([0]), b.i64([axis + 1]), b.i64([1])])
        tail = b.out("Slice", [shape_p, b.i64([axis + 1]), b.i64([r]), b.i64([1])])
        u = b.out("Broadcast", [u, b.concat([head, b.i64([block]), tail], 0)])
        merged = b.concat(
            [b.out("Slice", [shape_p, b.i64([0]), b.i64([axis]), b.i64([1])]), b.i64([-1]), tail], 0
        )
        u = b.reshape(u, merged)
        n = b.gather(b.shape_of(x), [axis], 0)
        return b.out("Slice", [u, b.i64([0]), n, b.i64([1]), b.i64([axis])])
    if len(ps) != 1:
        raise node.unsupported(f"scale/zero point of shape {ps}")
    return broadcast_along(b, p, axis, r)


#: integer weight types kept as Constants behind a decompression Convert
LOW_BIT_WEIGHTS = ("i8", "u8", "i4", "u4")


def dequantize(node: ConverterNode, b: Builder, x, scale, zp, axis: int, block: int = 0) -> SSAValue:  # noqa: ANN001
    y = b.convert(x, _F)
    if value_etype(x) in LOW_BIT_WEIGHTS and _is_const(x):
        y.owner.set_rt_info(NO_FOLD)
        if zp is not None and _all_zero(zp):
            zp = None
    if zp is not None:
        y = b.out("Subtract", [y, _param(node, b, zp, x, axis, block)])
    return b.out("Multiply", [y, _param(node, b, scale, x, axis, block)])


def quantize(node: ConverterNode, b: Builder, x, scale, zp, etype: str, axis: int, block: int = 0) -> SSAValue:  # noqa: ANN001
    if etype not in _RANGES:
        raise node.unsupported(f"quantization to {etype}")
    xf = b.convert(x, _F)
    s = _param(node, b, scale, xf, axis, block)
    # runtime scales: correctly rounded division (ties matter); constant scales
    # keep the plain pattern OpenVINO's low-precision transformations expect
    q = b.out("Divide", [xf, s]) if _is_const(scale) else _exact_divide(b, xf, s)
    y = b.out("Round", [q], {"mode": "half_to_even"})
    if zp is not None:
        y = b.out("Add", [y, _param(node, b, zp, xf, axis, block)])
    lo, hi = _RANGES[etype]
    y = b.out("Clamp", [y], {"min": float(lo), "max": float(hi)})
    return b.convert(y, etype)


def _is_const(v: SSAValue) -> bool:
    from xmo.dialects.ov.base import constant_value_of

    return constant_value_of(v) is not None


def _all_zero(v: SSAValue) -> bool:
    from xmo.dialects.ov.base import constant_value_of

    c = constant_value_of(v)
    return c is not None and not np.any(np.asarray(c))


def _exact_divide(b: Builder, x: SSAValue, s: SSAValue) -> SSAValue:
    """f32 ``x / s`` correctly rounded. OpenVINO's CPU plugin divides by
    multiplying with the reciprocal, which can land a quotient on a rounding
    tie (k + 0.5) that true division misses; one correction step with the
    exact residual ``x - q*s`` (Dekker's product with Veltkamp splitting)
    restores the quotient."""
    q = b.out("Divide", [x, s])
    p = b.out("Multiply", [q, s])
    split = scalar(b, 4097.0, _F)  # 2**12 + 1 for f32

    def halves(a: SSAValue) -> tuple[SSAValue, SSAValue]:
        t = b.out("Multiply", [split, a])
        hi = b.out("Subtract", [t, b.out("Subtract", [t, a])])
        return hi, b.out("Subtract", [a, hi])

    qh, ql = halves(q)
    sh, sl = halves(s)
    e = b.out("Subtract", [b.out("Multiply", [qh, sh]), p])
    e = b.out("Add", [e, b.out("Multiply", [qh, sl])])
    e = b.out("Add", [e, b.out("Multiply", [ql, sh])])
    e = b.out("Add", [e, b.out("Multiply", [ql, sl])])
    err = b.out("Subtract", [b.out("Subtract", [x, p]), e])
    return b.out("Add", [q, b.out("Divide", [err, s])])


def _axis(node: ConverterNode, x: SSAValue) -> int:
    """The ``axis`` attribute normalized (only used for per-axis / blocked params)."""
    r = rank_of(node, x)
    a = int(node.attr("axis", 1))
    return a + r if -r <= a < 0 else a


@converter("QuantizeLinear")
def quantize_linear(node: ConverterNode, b: Builder):
    x = node.input(0)
    zp = node.optional_input(2)
    if zp is not None:
        etype = value_etype(zp)
    elif node.attr("output_dtype", 0):
        etype = onnx_dtype_to_etype(node, node.attr("output_dtype"))
    else:
        etype = "u8"
    block = int(node.attr("block_size", 0) or 0)
    return quantize(node, b, x, node.input(1), zp, etype, _axis(node, x), block)


@converter("DequantizeLinear")
def dequantize_linear(node: ConverterNode, b: Builder):
    x = node.input(0)
    block = int(node.attr("block_size", 0) or 0)
    scale = node.input(1)
    y = dequantize(node, b, x, scale, node.optional_input(2), _axis(node, x), block)
    out = value_etype(scale)
    if node.attr("output_dtype", 0):
        out = onnx_dtype_to_etype(node, node.attr("output_dtype"))
    return b.convert(y, out)


@converter("DynamicQuantizeLinear")
def dynamic_quantize_linear(node: ConverterNode, b: Builder):
    x = b.convert(node.input(0), _F)
    axes = b.i64(list(range(rank_of(node, x))))
    zero = scalar(b, 0.0, _F)
    lo = b.out("Minimum", [b.out("ReduceMin", [x, axes], {"keep_dims": False}), zero])
    hi = b.out("Maximum", [b.out("ReduceMax", [x, axes], {"keep_dims": False}), zero])
    scale = b.out("Divide", [b.out("Subtract", [hi, lo]), scalar(b, 255.0, _F)])
    zp = b.out("Round", [b.out("Negative", [b.out("Divide", [lo, scale])])], {"mode": "half_to_even"})
    zp = b.out("Clamp", [zp], {"min": 0.0, "max": 255.0})
    y = b.out("Round", [_exact_divide(b, x, scale)], {"mode": "half_to_even"})
    y = b.out("Clamp", [b.out("Add", [y, zp])], {"min": 0.0, "max": 255.0})
    return [b.convert(y, "u8"), scale, b.convert(zp, "u8")]


# -- integer MatMul / Conv --------------------------------------------------------------------


def _shifted(node: ConverterNode, b: Builder, v: SSAValue, zp: SSAValue | None, axis: int) -> SSAValue:
    """``f32(v) - f32(zp)`` with ``zp`` per-tensor or per-``axis``."""
    y = b.convert(v, _F)
    if zp is None:
        return y
    return b.out("Subtract", [y, _param(node, b, zp, v, axis, 0)])


@converter("MatMulInteger")
def matmul_integer(node: ConverterNode, b: Builder):
    y = integer_matmul_of(node, b, node.input(0), node.input(1), node.optional_input(2), node.optional_input(3))
    return _round_to_i32(b, y)


def integer_matmul_of(node: ConverterNode, b: Builder, a: SSAValue, w: SSAValue, a_zp: SSAValue | None,
                      w_zp: SSAValue | None) -> SSAValue:  # fmt: skip
    """``(a - a_zp) @ (w - w_zp)`` in f32 (exact for integer sums below
    2**24); ``a_zp`` per row of ``a``, ``w_zp`` per column of ``w``."""
    ra, rw = rank_of(node, a), rank_of(node, w)
    af = _shifted(node, b, a, a_zp, max(ra - 2, 0))
    wf = _shifted(node, b, w, w_zp, rw - 1)
    return b.out("MatMul", [af, wf], {"transpose_a": False, "transpose_b": False})


def _round_to_i32(b: Builder, y: SSAValue) -> SSAValue:
    return b.convert(b.out("Round", [y], {"mode": "half_to_even"}), "i32")


def integer_conv(node: ConverterNode, b: Builder, x: SSAValue, w: SSAValue) -> SSAValue:
    from xmo.passes.onnx_to_ov.families.conv import spatial_count, split_groups, window_attrs

    n = spatial_count(node)
    attrs = window_attrs(node, n)
    group = int(node.attr("group", 1))
    if group == 1:
        return b.out("Convolution", [x, w], attrs)
    return b.out("GroupConvolution", [x, split_groups(b, w, group)], attrs)


@converter("ConvInteger")
def conv_integer(node: ConverterNode, b: Builder):
    x, w = node.input(0), node.input(1)
    xf = _shifted(node, b, x, node.optional_input(2), 1)
    wf = _shifted(node, b, w, node.optional_input(3), 0)
    return _round_to_i32(b, integer_conv(node, b, xf, wf))


@converter("QLinearMatMul")
def qlinear_matmul(node: ConverterNode, b: Builder):
    a, w = node.input(0), node.input(3)
    ra, rw = rank_of(node, a), rank_of(node, w)
    af = dequantize(node, b, a, node.input(1), node.input(2), max(ra - 2, 0))
    wf = dequantize(node, b, w, node.input(4), node.input(5), rw - 1)
    y = b.out("MatMul", [af, wf], {"transpose_a": False, "transpose_b": False})
    zp = node.input(7)
    return quantize(node, b, y, node.input(6), zp, value_etype(zp), max(rank_of(node, y) - 1, 0))


@converter("QLinearConv")
def qlinear_conv(node: ConverterNode, b: Builder):
    x, w = node.input(0), node.input(3)
    xf = dequantize(node, b, x, node.input(1), node.input(2), 1)
    wf = dequantize(node, b, w, node.input(4), node.input(5), 0)
    y = integer_conv(node, b, xf, wf)
    r = rank_of(node, y)
    if node.has_input(8):
        # int32 bias in the accumulator's scale x_scale * w_scale
        bscale = b.out("Multiply", [b.convert(node.input(1), _F), b.convert(node.input(4), _F)])
        bias = b.out("Multiply", [b.convert(node.input(8), _F), bscale])
        y = b.out("Add", [y, broadcast_along(b, bias, 1, r)])
    zp = node.optional_input(7)
    etype = value_etype(zp) if zp is not None else "u8"
    return quantize(node, b, y, node.input(6), zp, etype, 1)


