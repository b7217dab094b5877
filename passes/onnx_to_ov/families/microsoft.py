"""onnxruntime's contrib operators (``com.microsoft``) as ov ops, matching
onnxruntime's CPU kernels: the Gelu family and BiasAdd, the skip / simplified
layer normalizations and EmbedLayerNormalization of transformer models
optimized by ``onnxruntime.transformers.optimizer``, FusedMatMul and
FusedConv. Attention, MultiHeadAttention and RotaryEmbedding are in
:mod:`.microsoft_attention`, the quantized ops in :mod:`.microsoft_quant`.

xmo has no ONNX schemas for this domain: the frontend loads the nodes as
``onnx.Custom`` and the converters register under the domain's opset
version (1). Each converter names the attributes it understands; any other
attribute is the one unsupported-op error naming it.

SimplifiedLayerNormalization is onnxruntime's in the default domain (its
optimizer emits it there), so it registers under ``""``.
"""

from __future__ import annotations

import numpy as np
from xdsl.ir import SSAValue

from xmo.dialects.onnx import CustomOp
from xmo.passes.onnx_to_ov.families.conv import conv
from xmo.passes.onnx_to_ov.families.indexing import gather_nd, pad_of, trilu
from xmo.passes.onnx_to_ov.families.matmul import gemm
from xmo.passes.onnx_to_ov.families.normalization import layer_norm_of, mvn_of, rms_norm_of
from xmo.passes.onnx_to_ov.families.shape import range_
from xmo.passes.onnx_to_ov.registry import converter
from xmo.passes.to_ov.builder import Builder, ConverterNode, value_etype
from xmo.passes.to_ov.helpers import scalar

#: onnxruntime's contrib domain, as converters register it
MS = "com.microsoft"

#: onnxruntime's default epsilon of the skip layer normalizations
_SKIP_EPS = 1e-12


def known_attrs(node: ConverterNode, *known: str) -> None:
    """The unsupported-op error for an attribute outside ``known``."""
    attrs = node.op.attrs if isinstance(node.op, CustomOp) else None
    for name in attrs.data if attrs is not None else ():
        if name not in known:
            raise node.unsupported(f"attribute '{name}' is not supported (known: {', '.join(known) or 'none'})")


def like_scalar(b: Builder, value: float, like: SSAValue) -> SSAValue:
    return scalar(b, value, value_etype(like))


def wanted(node: ConverterNode, i: int) -> bool:
    return node.num_outputs > i and bool(node.output_names[i])


# -- the ONNX ops this domain repeats -----------------------------------------------------

# GatherND (no batch_dims), Trilu: the ONNX ops; Range: delta optional
converter("GatherND", domain=MS)(gather_nd)
converter("Trilu", domain=MS)(trilu)
converter("Range", domain=MS)(range_)


@converter("Pad", domain=MS)
def ms_pad(node: ConverterNode, b: Builder):
    """ONNX Pad of opset 11 (pads ``[2 * rank]`` or ``[1, 2 * rank]``)."""
    known_attrs(node, "mode")
    if node.rank(1) == 2 and node.const(1) is None:
        raise node.unsupported("input 1 (pads) of shape [1, 2 * rank] that is not a constant")
    return pad_of(node, b, False)


# -- Gelu family, BiasAdd ------------------------------------------------------------


@converter("Gelu", domain=MS)
def gelu(node: ConverterNode, b: Builder):
    known_attrs(node)
    return b.out("Gelu", [node.input(0)], {"approximation_mode": "ERF"})


@converter("BiasGelu", domain=MS)
def bias_gelu(node: ConverterNode, b: Builder):
    known_attrs(node)
    x = b.out("Add", [node.input(0), node.input(1)])
    return b.out("Gelu", [x], {"approximation_mode": "ERF"})


@converter("FastGelu", domain=MS)
def fast_gelu(node: ConverterNode, b: Builder):
    """The tanh approximation of Gelu, of ``x + bias`` when bias is given."""
    known_attrs(node)
    x = node.input(0)
    if node.has_input(1):
        x = b.out("Add", [x, node.input(1)])
    return b.out("Gelu", [x], {"approximation_mode": "TANH"})


@converter("QuickGelu", domain=MS)
def quick_gelu(node: ConverterNode, b: Builder):
    """``x * sigmoid(alpha * x)``."""
    known_attrs(node, "alpha")
    x = node.input(0)
    alpha = float(node.attr("alpha", 1.702))
    s = b.out("Sigmoid", [b.out("Multiply", [x, like_scalar(b, alpha, x)])])
    return b.out("Multiply", [x, s])


@converter("BiasAdd", domain=MS)
def bias_add(node: ConverterNode, b: Builder):
    """``X + bias + skip`` (bias along the last axis)."""
    known_attrs(node)
    y = b.out("Add", [node.input(0), node.input(1)])
    return b.out("Add", [y, node.input(2)])


# -- skip / simplified layer normalizations ----------------------------------------------


def _skip_sum(node: ConverterNode, b: Builder, bias_input: int) -> SSAValue:
    """``input + skip (+ bias)`` (skip broadcasts to input)."""
    s = b.out("Add", [node.input(0), node.input(1)])
    if node.has_input(bias_input):
        s = b.out("Add", [s, node.input(bias_input)])
    return s


def _last_axis(node: ConverterNode) -> list[int]:
    r = node.rank(0)
    if r is None:
        raise node.unsupported("input of dynamic rank")
    return [r - 1]


@converter("SkipLayerNormalization", domain=MS)
def skip_layer_norm(node: ConverterNode, b: Builder):
    """Layer normalization over the last axis of ``input + skip + bias``,
    times gamma plus beta; outputs mean, inv_std_var (``[..., 1]``) and the
    sum when asked for."""
    known_attrs(node, "epsilon")
    s = _skip_sum(node, b, 4)
    stats = wanted(node, 1) or wanted(node, 2)
    y, mean, inv = layer_norm_of(
        b, s, value_etype(s), s, _last_axis(node), float(node.attr("epsilon", _SKIP_EPS)),
        node.input(2), node.optional_input(3), stats,
    )  # fmt: skip
    return [y, mean, inv, s if wanted(node, 3) else None]


@converter("SkipSimplifiedLayerNormalization", domain=MS)
def skip_simplified_layer_norm(node: ConverterNode, b: Builder):
    """RMS normalization over the last axis of ``input + skip + bias`` times
    gamma; onnxruntime's mean output is zeros."""
    known_attrs(node, "epsilon")
    s = _skip_sum(node, b, 3)
    y, rms = rms_norm_of(b, s, value_etype(s), s, _last_axis(node),
                         float(node.attr("epsilon", _SKIP_EPS)), node.input(2))  # fmt: skip
    inv = b.out("Divide", [like_scalar(b, 1.0, rms), rms]) if wanted(node, 1) or wanted(node, 2) else None
    mean = b.out("Multiply", [inv, like_scalar(b, 0.0, inv)]) if inv is not None and wanted(node, 1) else None
    return [y, mean, inv, s if wanted(node, 3) else None]


@converter("SimplifiedLayerNormalization")
def simplified_layer_norm(node: ConverterNode, b: Builder):
    """onnxruntime's RMS normalization (default domain) over the axes from
    ``axis``, computed in f32 (``stash_type`` 1); output 1 is inv_std_var."""
    known_attrs(node, "axis", "epsilon", "stash_type")
    if int(node.attr("stash_type", 1)) != 1:
        raise node.unsupported(f"attribute 'stash_type' = {node.attr('stash_type')} (1 supported)")
    x0 = node.input(0)
    r = node.rank(0)
    if r is None:
        raise node.unsupported("input of dynamic rank")
    axis = int(node.attr("axis", -1))
    axis = axis + r if axis < 0 else axis
    t = value_etype(x0)
    x = b.convert(x0, "f32") if t in ("f16", "bf16") else x0
    y, rms = rms_norm_of(b, x, t, x0, list(range(axis, r)), float(node.attr("epsilon", 1e-5)), node.input(1))
    return [y, b.out("Divide", [like_scalar(b, 1.0, rms), rms]) if wanted(node, 1) else None]


# -- FusedMatMul, FusedConv -----------------------------------------------------------------


def _batch_first(node: ConverterNode, b: Builder, i: int) -> SSAValue:
    """Input ``i`` ``[M, B..., K]`` read as ``[B..., M, K]`` (transBatch):
    its first axis moves before the last."""
    v = node.input(i)
    r = node.rank(i)
    if r is None:
        raise node.unsupported(f"transBatch with input {i} of dynamic rank")
    if r <= 2:
        return v
    return b.out("Transpose", [v, b.i64([*range(1, r - 1), 0, r - 1])])


@converter("FusedMatMul", domain=MS)
def fused_matmul(node: ConverterNode, b: Builder):
    """``alpha * (op(A) @ op(B))``: transBatch moves an input's first axis
    behind its batch axes, trans swaps its last two."""
    known_attrs(node, "alpha", "transA", "transB", "transBatchA", "transBatchB")
    a = _batch_first(node, b, 0) if node.attr("transBatchA", 0) else node.input(0)
    c = _batch_first(node, b, 1) if node.attr("transBatchB", 0) else node.input(1)
    y = b.out("MatMul", [a, c], {"transpose_a": bool(node.attr("transA", 0)),
                                 "transpose_b": bool(node.attr("transB", 0))})  # fmt: skip
    alpha = float(node.attr("alpha", 1.0))
    return y if alpha == 1.0 else b.out("Multiply", [y, like_scalar(b, alpha, y)])


#: the activations FusedConv applies (onnxruntime's fused activations)
_CONV_ACTIVATIONS = ("Relu", "Tanh", "Sigmoid", "LeakyRelu", "Clip", "HardSigmoid")


def _activation(node: ConverterNode, b: Builder, y: SSAValue, kind: str, params: list[float]) -> SSAValue:
    need = {"LeakyRelu": 1, "Clip": 2, "HardSigmoid": 2}.get(kind, 0)
    if len(params) < need:
        raise node.unsupported(f"activation {kind} needs {need} activation_params, {len(params)} given")
    if kind == "Relu":
        return b.out("Relu", [y])
    if kind in ("Tanh", "Sigmoid"):
        return b.out(kind, [y])
    if kind == "LeakyRelu":
        return b.out("PRelu", [y, like_scalar(b, params[0], y)])
    if kind == "Clip":
        return b.out("Clamp", [y], {"min": float(params[0]), "max": float(params[1])})
    return b.out("HardSigmoid", [y, like_scalar(b, params[0], y), like_scalar(b, params[1], y)])


@converter("FusedConv", domain=MS)
def fused_conv(node: ConverterNode, b: Builder):
    """Conv (+ B) + Z, then the activation."""
    known_attrs(node, "auto_pad", "dilations", "group", "kernel_shape", "pads", "strides",
           "activation", "activation_params")  # fmt: skip
    kind = node.str_attr("activation", "")
    if kind and kind not in _CONV_ACTIVATIONS:
        raise node.unsupported(f"attribute 'activation' = {kind} (supported: {', '.join(_CONV_ACTIVATIONS)})")
    y = conv(node, b)
    if node.has_input(3):
        y = b.out("Add", [y, node.input(3)])
    params = [float(p) for p in node.attr("activation_params", None) or ()]
    return _activation(node, b, y, kind, params) if kind else y


@converter("FusedGemm", domain=MS)
def fused_gemm(node: ConverterNode, b: Builder):
    """ONNX Gemm, then the activation (its parameters activation_alpha /
    _beta, onnxruntime's defaults)."""
    known_attrs(node, "alpha", "beta", "transA", "transB", "activation", "activation_alpha", "activation_beta",
                "activation_gamma")  # fmt: skip
    kind = node.str_attr("activation", "")
    if kind and kind not in _GEMM_ACTIVATIONS:
        raise node.unsupported(f"attribute 'activation' = {kind} (supported: {', '.join(_GEMM_ACTIVATIONS)})")
    y = gemm(node, b)
    if not kind:
        return y
    alpha, beta = _GEMM_ACTIVATIONS[kind]
    return _activation(node, b, y, kind, [float(node.attr("activation_alpha", alpha)),
                                          float(node.attr("activation_beta", beta))])  # fmt: skip


#: FusedGemm's activations and the defaults of their (alpha, beta)
_GEMM_ACTIVATIONS = {"Relu": (0.0, 0.0), "Tanh": (0.0, 0.0), "Sigmoid": (0.0, 0.0), "LeakyRelu": (0.01, 0.0),
                     "HardSigmoid": (0.2, 0.5)}  # fmt: skip


# -- GroupNorm -------------------------------------------------------------------------------------


@converter("GroupNorm", domain=MS)
def ms_group_norm(node: ConverterNode, b: Builder):
    """Group normalization of ``[N, H, W, C]`` (``channels_last`` 1, the
    default) or ``[N, C, H, W]``, times gamma plus beta per channel, then
    Swish when ``activation`` is 1."""
    known_attrs(node, "activation", "channels_last", "epsilon", "groups")
    act = int(node.attr("activation", 0))
    if act not in (0, 1):
        raise node.unsupported(f"attribute 'activation' = {act} (0: none, 1: Swish)")
    x0 = node.input(0)
    r = node.rank(0)
    if r is None or r < 3:
        raise node.unsupported(f"input of rank {r} (3 or more expected)")
    last = bool(node.attr("channels_last", 1))
    x = b.out("Transpose", [x0, b.i64([0, r - 1, *range(1, r - 1)])]) if last else x0
    y = mvn_of(b, b.reshape(x, [0, int(node.attr("groups")), -1], special_zero=True), [2],
               float(node.attr("epsilon", 1e-5)))  # fmt: skip
    y = b.reshape(y, b.shape_of(x))
    per_channel = [-1, *[1] * (r - 2)]
    y = b.out("Multiply", [y, b.reshape(node.input(1), per_channel)])
    y = b.out("Add", [y, b.reshape(node.input(2), per_channel)])
    if act:
        y = b.out("Swish", [y])
    return b.out("Transpose", [y, b.i64([0, *range(2, r), 1])]) if last else y


# -- EmbedLayerNormalization ------------------------------------------------------------------


@converter("EmbedLayerNormalization", domain=MS)
def embed_layer_norm(node: ConverterNode, b: Builder):
    """BERT's embeddings: word[input_ids] + position[position_ids, or 0..S-1]
    (+ segment[segment_ids]), layer-normalized over the hidden axis times
    gamma plus beta. Output 1 (mask_index, int32 ``[B]``) counts the ones of
    each mask row (zeros without a mask); output 2 is the embedding sum."""
    known_attrs(node, "epsilon", "mask_index_type")
    if int(node.attr("mask_index_type", 1)) != 1 and wanted(node, 1):
        raise node.unsupported(f"attribute 'mask_index_type' = {node.attr('mask_index_type')} with a mask_index output")
    ids = node.input(0)
    emb = b.gather(node.input(2), ids, 0)
    if node.has_input(8):
        pos = b.gather(node.input(3), node.input(8), 0)
    else:
        seq = b.gather(b.shape_of(ids), [1], 0)
        steps = b.out("Range", [b.i64(0), b.squeeze(seq, [0]), b.i64(1)], {"output_type": "i64"})
        pos = b.gather(node.input(3), steps, 0)
    emb = b.out("Add", [emb, pos])
    if node.has_input(1) and node.has_input(4):
        emb = b.out("Add", [emb, b.gather(node.input(4), node.input(1), 0)])
    y, _, _ = layer_norm_of(b, emb, value_etype(emb), emb, [2], float(node.attr("epsilon", _SKIP_EPS)),
                            node.input(5), node.input(6), False)  # fmt: skip
    mask_index = None
    if wanted(node, 1):
        if node.has_input(7):
            mask = node.input(7)
            ones = b.convert(b.out("Equal", [mask, b.convert(b.i64(1), value_etype(mask))]), "i32")
            mask_index = b.out("ReduceSum", [ones, b.i64([1])], {"keep_dims": False})
        else:
            batch = b.gather(b.shape_of(ids), [0], 0)
            mask_index = b.out("Broadcast", [b.const(np.zeros((), np.int32), "i32"), batch], {"mode": "numpy"})
    return [y, mask_index, emb if wanted(node, 2) else None]
