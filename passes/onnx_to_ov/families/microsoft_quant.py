"""onnxruntime's quantized contrib operators (``com.microsoft``) as ov ops.

The QOperator ops of ``onnxruntime.quantization`` (QLinearAdd, QLinearMul,
QLinearSigmoid, QLinearLeakyRelu, QLinearConcat, QLinearGlobalAveragePool,
QLinearAveragePool) dequantize their inputs, compute in f32 and quantize the
result with the shared decompositions of
:mod:`xmo.passes.onnx_to_ov.families.quantization`, so the quantize ->
dequantize between two of them becomes a FakeQuantize (``ov-fusions``) as in
QDQ models. onnxruntime's integer kernels may round one step differently.

MatMulNBits (4- or 8-bit block-quantized weights of LLMs) keeps its constant
weights packed: an u4 / u8 Constant ``[N, blocks, block_size]`` with the
decompression Convert, Subtract (zero points) and Multiply (scales per
block), reshaped to ``[N, K]`` for a MatMul with ``transpose_b``, the form
OpenVINO's CPU plugin runs with compressed weights.

DynamicQuantizeLSTM runs as an f32 LSTM with dequantized weights;
onnxruntime also quantizes the input and hidden state of each step to u8,
so its outputs differ by about one activation quantization step.

QuantizeLinear / DequantizeLinear of this domain (16-bit and 4-bit QDQ) are
the ONNX ops.
"""

from __future__ import annotations

import numpy as np
from xdsl.ir import SSAValue

from xmo.passes.onnx_to_ov.families.microsoft import MS, known_attrs
from xmo.passes.onnx_to_ov.families.pooling import pool_attrs
from xmo.passes.onnx_to_ov.families.quantization import (
    dequantize,
    dequantize_linear,
    dynamic_quantize_linear,
    integer_matmul_of,
    quantize,
    quantize_linear,
)
from xmo.passes.onnx_to_ov.families.rnn import recurrent_of
from xmo.passes.onnx_to_ov.registry import converter
from xmo.passes.ov_constant_fold import NO_FOLD
from xmo.passes.to_ov.builder import Builder, ConverterNode, value_etype
from xmo.passes.to_ov.helpers import rank_of, scalar

converter("QuantizeLinear", domain=MS)(quantize_linear)
converter("DequantizeLinear", domain=MS)(dequantize_linear)


def _deq(node: ConverterNode, b: Builder, i: int) -> SSAValue:
    """Input ``i`` dequantized with the per-tensor scale ``i+1`` and zero point ``i+2``."""
    return dequantize(node, b, node.input(i), node.input(i + 1), node.optional_input(i + 2), 0)


def _q(node: ConverterNode, b: Builder, y: SSAValue, scale: int, zp: int, like: int = 0) -> SSAValue:
    """``y`` quantized to the type of input ``like`` with the per-tensor
    scale / zero point of inputs ``scale`` / ``zp``."""
    z = node.optional_input(zp)
    etype = value_etype(z) if z is not None else value_etype(node.input(like))
    return quantize(node, b, y, node.input(scale), z, etype, 0)


@converter("QLinearAdd", "QLinearMul", domain=MS)
def qlinear_binary(node: ConverterNode, b: Builder):
    known_attrs(node)
    kind = "Add" if node.type == "QLinearAdd" else "Multiply"
    return _q(node, b, b.out(kind, [_deq(node, b, 0), _deq(node, b, 3)]), 6, 7)


@converter("QLinearSigmoid", "QLinearLeakyRelu", domain=MS)
def qlinear_activation(node: ConverterNode, b: Builder):
    x = _deq(node, b, 0)
    if node.type == "QLinearSigmoid":
        known_attrs(node)
        y = b.out("Sigmoid", [x])
    else:
        known_attrs(node, "alpha")
        y = b.out("PRelu", [x, scalar(b, float(node.attr("alpha", 0.01)), "f32")])
    return _q(node, b, y, 3, 4)


@converter("QLinearConcat", domain=MS)
def qlinear_concat(node: ConverterNode, b: Builder):
    """``Y_scale, Y_zero_point, (X, X_scale, X_zero_point)...``."""
    known_attrs(node, "axis")
    n = node.num_inputs - 2
    if n < 1 or n % 3:
        raise node.unsupported(f"{node.num_inputs} inputs (2 + 3 per tensor expected)")
    xs = [_deq(node, b, 2 + 3 * j) for j in range(n // 3)]
    return _q(node, b, b.concat(xs, int(node.attr("axis"))), 0, 1, 2)


@converter("QLinearWhere", domain=MS)
def qlinear_where(node: ConverterNode, b: Builder):
    """``condition, X, x_scale, x_zp, Y, y_scale, y_zp, z_scale, z_zp``."""
    known_attrs(node)
    y = b.out("Select", [node.input(0), _deq(node, b, 1), _deq(node, b, 4)])
    return _q(node, b, y, 7, 8, 1)


@converter("QLinearSoftmax", domain=MS)
def qlinear_softmax(node: ConverterNode, b: Builder):
    """Softmax of the dequantized input, quantized; ``opset`` below 13:
    over the input flattened to 2-D at ``axis``."""
    known_attrs(node, "axis", "opset")
    x = _deq(node, b, 0)
    r = rank_of(node, x)
    axis = int(node.attr("axis", -1))
    axis = axis + r if axis < 0 else axis
    if int(node.attr("opset", 13)) >= 13 or axis == r - 1:
        y = b.out("Softmax", [x], {"axis": axis})
    else:
        dims = node.shape(0)
        if dims is None or any(d < 0 for d in dims[axis:]):
            raise node.unsupported(f"opset < 13 with input of shape {dims} (static dims from axis expected)")
        flat = b.reshape(x, [-1, int(np.prod(dims[axis:]))])
        y = b.reshape(b.out("Softmax", [flat], {"axis": 1}), b.shape_of(x))
    return _q(node, b, y, 3, 4)


def _channels_first(node: ConverterNode, b: Builder, x: SSAValue, back: bool) -> SSAValue:
    """NHWC <-> NCHW for ``channels_last``."""
    r = rank_of(node, x)
    perm = [0, *range(2, r), 1] if back else [0, r - 1, *range(1, r - 1)]
    return b.out("Transpose", [x, b.i64(perm)])


@converter("QLinearGlobalAveragePool", "QLinearAveragePool", domain=MS)
def qlinear_average_pool(node: ConverterNode, b: Builder):
    last = bool(node.attr("channels_last", 0))
    x = _deq(node, b, 0)
    if last:
        x = _channels_first(node, b, x, False)
    if node.type == "QLinearGlobalAveragePool":
        known_attrs(node, "channels_last")
        y = b.out("ReduceMean", [x, b.i64(list(range(2, rank_of(node, x))))], {"keep_dims": True})
    else:
        known_attrs(node, "auto_pad", "ceil_mode", "channels_last", "count_include_pad", "kernel_shape", "pads",
                    "strides")  # fmt: skip
        attrs, _ = pool_attrs(node)
        attrs["exclude-pad"] = not bool(node.attr("count_include_pad", 0))
        y = b.out("AvgPool", [x], attrs)
    if last:
        y = _channels_first(node, b, y, True)
    return _q(node, b, y, 3, 4)


# -- MatMulNBits --------------------------------------------------------------------------------


def _unpack_zero_points(node: ConverterNode, zp: np.ndarray, n: int, blocks: int, bits: int) -> np.ndarray:
    """onnxruntime's packed u8 zero points (each row of ``blocks`` values
    padded to whole bytes, first value in the low bits) -> ``[N, blocks]``."""
    per_byte = 8 // bits
    row = -(-blocks // per_byte)
    if zp.size != n * row:
        raise node.unsupported(f"zero_points of {zp.size} bytes (expected {n * row})")
    z = zp.reshape(n, row).astype(np.uint8)
    vals = np.stack([(z >> (bits * j)) & ((1 << bits) - 1) for j in range(per_byte)], axis=-1)
    return vals.reshape(n, row * per_byte)[:, :blocks]


def _decompressed_blocks(node: ConverterNode, b: Builder, raw: np.ndarray, shape: list[int], bits: int,
                         scales: int, zero_points: int) -> SSAValue:  # fmt: skip
    """The constant 4- or 8-bit values ``raw`` (packed bytes) of ``shape``
    ``[N, blocks, block_size]`` dequantized in f32 with the per-block
    ``scales`` input and the packed u8 ``zero_points`` input (default
    ``2**(bits-1)``), as ``[N, blocks * block_size]``: a compressed Constant
    with its decompression sub-graph."""
    n, blocks, bs = shape
    w = b.packed_const(raw, "u4", shape) if bits == 4 else b.const(raw.reshape(shape), "u8")
    wf = b.convert(w, "f32")
    wf.owner.set_rt_info(NO_FOLD)
    zp = node.const(zero_points) if node.has_input(zero_points) else None
    if node.has_input(zero_points) and (zp is None or zp.dtype != np.uint8):
        raise node.unsupported(f"input {zero_points} (zero_points) that is not a constant of packed u8 values")
    zeros = (_unpack_zero_points(node, zp, n, blocks, bits) if zp is not None
             else np.full((n, blocks), 1 << (bits - 1), np.uint8))  # fmt: skip
    if zeros.any():
        wf = b.out("Subtract", [wf, b.const(zeros.reshape(n, blocks, 1).astype(np.float32), "f32")])
    s = b.reshape(b.convert(node.input(scales), "f32"), [n, blocks, 1])
    return b.reshape(b.out("Multiply", [wf, s]), [n, blocks * bs])


@converter("MatMulNBits", domain=MS)
def matmul_nbits(node: ConverterNode, b: Builder):
    """``A @ dequantize(B)^T (+ bias)``: constant ``B`` ``[N, blocks, bytes]``
    of 4- or 8-bit values, ``scales`` per block, u8 packed zero points
    (default ``2**(bits-1)``)."""
    known_attrs(node, "K", "N", "bits", "block_size", "accuracy_level")
    bits = int(node.attr("bits", 4))
    if bits not in (4, 8):
        raise node.unsupported(f"attribute 'bits' = {bits} (4 and 8 supported)")
    if node.has_input(4):
        raise node.unsupported("input 4 (g_idx)")
    k, n, bs = int(node.attr("K")), int(node.attr("N")), int(node.attr("block_size"))
    blocks = -(-k // bs)
    raw = node.const(1)
    if raw is None:
        raise node.unsupported("input 1 (B) is not a constant")
    if raw.size * 8 != n * blocks * bs * bits:
        raise node.unsupported(f"B of {raw.size} bytes for K={k}, N={n}, block_size={bs}, bits={bits}")
    wf = _decompressed_blocks(node, b, raw, [n, blocks, bs], bits, 2, 3)
    if blocks * bs != k:
        wf = b.out("Slice", [wf, b.i64([0]), b.i64([k]), b.i64([1]), b.i64([1])])
    a = node.input(0)
    if value_etype(a) != "f32":
        wf = b.convert(wf, value_etype(a))
    y = b.out("MatMul", [a, wf], {"transpose_a": False, "transpose_b": True})
    if node.has_input(5):
        y = b.out("Add", [y, node.input(5)])
    return y


@converter("GatherBlockQuantized", domain=MS)
def gather_block_quantized(node: ConverterNode, b: Builder):
    """Rows of a constant u8 table ``[rows, D * bits / 8]`` (4- or 8-bit
    values, blocks of ``block_size`` along the last axis with ``scales``
    ``[rows, D / block_size]`` and packed u8 zero points) gathered along
    axis 0, dequantized."""
    known_attrs(node, "bits", "block_size", "gather_axis", "quantize_axis")
    raw = node.const(0)
    if raw is None or raw.dtype != np.uint8 or raw.ndim != 2:
        raise node.unsupported("input 0 (data) that is not a 2-D constant of u8 (int4 / uint4 / float8 data too)")
    bits, bs = int(node.attr("bits", 4)), int(node.attr("block_size", 128))
    if bits not in (4, 8):
        raise node.unsupported(f"attribute 'bits' = {bits} (4 and 8 supported)")
    if int(node.attr("gather_axis", 0)) != 0 or int(node.attr("quantize_axis", 1)) not in (1, -1):
        raise node.unsupported("gather_axis other than 0 or quantize_axis other than the last")
    rows, d = raw.shape[0], raw.shape[1] * 8 // bits
    if bs <= 0 or d % bs:
        raise node.unsupported(f"attribute 'block_size' = {bs} for rows of {d} values")
    table = _decompressed_blocks(node, b, raw, [rows, d // bs, bs], bits, 2, 3)
    y = b.gather(table, node.input(1), 0)
    t = value_etype(node.input(2))
    return y if t == "f32" else b.convert(y, t)


# -- DynamicQuantizeLSTM --------------------------------------------------------------------------


def _lstm_weight(node: ConverterNode, b: Builder, i: int, s: int) -> SSAValue:
    """The 8-bit weight input ``i`` ``[dirs, K, 4H]`` dequantized with the
    scale / zero point inputs ``s`` / ``s+1`` (``[dirs]`` or ``[dirs, 4H]``)
    and transposed to ONNX LSTM's ``[dirs, 4H, K]``."""
    dims = node.shape(i)
    if dims is None or len(dims) != 3 or dims[0] < 0:
        raise node.unsupported(f"input {i} of shape {dims} ([num_directions, K, 4*hidden] expected)")

    def along_columns(p: SSAValue) -> SSAValue:
        return b.reshape(b.convert(p, "f32"), [dims[0], 1, -1])

    y = b.convert(node.input(i), "f32")
    zp = node.optional_input(s + 1)
    if zp is not None:
        y = b.out("Subtract", [y, along_columns(zp)])
    y = b.out("Multiply", [y, along_columns(node.input(s))])
    return b.out("Transpose", [y, b.i64([0, 2, 1])])


@converter("DynamicQuantizeLSTM", domain=MS)
def dynamic_quantize_lstm(node: ConverterNode, b: Builder):
    """An LSTM with 8-bit W ``[dirs, input, 4H]`` and R ``[dirs, H, 4H]``
    (scales and zero points per direction or per column, inputs 8-11): the
    ONNX LSTM with the dequantized weights, in f32."""
    known_attrs(node, "activation_alpha", "activation_beta", "activations", "clip", "direction", "hidden_size",
                "input_forget")  # fmt: skip
    return recurrent_of(node, b, "LSTM", _lstm_weight(node, b, 1, 8), _lstm_weight(node, b, 2, 10))


# -- MatMulIntegerToFloat, DynamicQuantizeMatMul ------------------------------------------------


def _scaled_matmul(node: ConverterNode, b: Builder, a: SSAValue, a_zp: SSAValue | None, a_scale: SSAValue,
                   w_zp: int, w_scale: int, bias: int) -> SSAValue:  # fmt: skip
    """``(a - a_zp) @ (B - B_zp) * a_scale * B_scale (+ bias)`` with the
    8-bit B as input 1 and its scale (per tensor or per column), zero point
    and the bias as inputs ``w_scale``, ``w_zp``, ``bias``."""
    y = integer_matmul_of(node, b, a, node.input(1), a_zp, node.optional_input(w_zp))
    scale = b.out("Multiply", [b.convert(a_scale, "f32"), b.convert(node.input(w_scale), "f32")])
    y = b.out("Multiply", [y, scale])
    if node.has_input(bias):
        y = b.out("Add", [y, node.input(bias)])
    return y


@converter("MatMulIntegerToFloat", domain=MS)
def matmul_integer_to_float(node: ConverterNode, b: Builder):
    """``A, B, a_scale, b_scale, a_zero_point, b_zero_point, bias``."""
    known_attrs(node)
    return _scaled_matmul(node, b, node.input(0), node.optional_input(4), node.input(2), 5, 3, 6)


@converter("DynamicQuantizeMatMul", domain=MS)
def dynamic_quantize_matmul(node: ConverterNode, b: Builder):
    """``A, B, b_scale, b_zero_point, bias``: A quantized to u8 as by
    DynamicQuantizeLinear, then MatMulIntegerToFloat."""
    known_attrs(node)
    a, a_scale, a_zp = dynamic_quantize_linear(node, b)
    return _scaled_matmul(node, b, a, a_zp, a_scale, 3, 2, 4)
