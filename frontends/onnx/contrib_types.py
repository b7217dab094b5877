"""onnxruntime's contrib domain (``com.microsoft``) in the loader: its
version when a model does not import it, and result element types.

onnxruntime runs ``com.microsoft`` nodes of a model without an opset import
for the domain (``onnxruntime.transformers.optimizer`` writes such models):
version 1, as for onnxruntime.

Result element types of onnxruntime's contrib ops (``com.microsoft``),
which onnx's shape inference does not know: without them a quantized
(QOperator) model's integer tensors between two contrib ops would load as the
unranked f32 placeholder, which the ONNX ops reading them (DequantizeLinear)
refuse. Shapes stay unknown (the ``ov`` shape inference finds them)."""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.dialects.builtin import NoneType, TensorType, UnrankedTensorType
from xdsl.ir import Attribute, SSAValue

#: (op type, output) -> the input whose element type the output has
_LIKE_INPUT: dict[tuple[str, int], int] = {
    **{(op, 0): 0 for op in ("QLinearAdd", "QLinearMul", "QLinearSigmoid", "QLinearLeakyRelu",
                             "QLinearGlobalAveragePool", "QLinearAveragePool", "QLinearSoftmax",
                             "QLinearReduceMean", "QLinearWhere", "MatMulNBits", "Attention",
                             "MultiHeadAttention", "RotaryEmbedding", "SkipLayerNormalization",
                             "SkipSimplifiedLayerNormalization", "BiasGelu", "FastGelu", "Gelu",
                             "QuickGelu", "BiasAdd", "FusedMatMul", "FusedConv")},
    ("QLinearConcat", 0): 2,
    ("QuantizeLinear", 0): 2,
    ("DequantizeLinear", 0): 1,
    ("EmbedLayerNormalization", 0): 2,
    ("EmbedLayerNormalization", 2): 2,
}

MS = "com.microsoft"

#: domain -> the opset version of a model that uses it without importing it
IMPLICIT_OPSETS = {MS: 1}


def contrib_result_type(domain: str, op_type: str, i: int, operands: Sequence[SSAValue]) -> Attribute | None:
    """An unranked tensor of the element type output ``i`` of the contrib
    op has, when known from its operands (else None)."""
    if domain != MS:
        return None
    j = _LIKE_INPUT.get((op_type, i))
    if j is None or j >= len(operands):
        return None
    t = operands[j].type
    if isinstance(t, NoneType) or not isinstance(t, TensorType | UnrankedTensorType):
        return None
    return UnrankedTensorType(t.element_type)
