"""onnxruntime's contrib operators (``com.microsoft``) as ov ops, matching
onnxruntime's CPU kernels: the Gelu family and BiasAdd, the skip / simplified
layer normalizations of transformer models optimized by
``onnxruntime.transformers.optimizer``, FusedMatMul and FusedConv.

xmo has no ONNX schemas for this domain: the frontend loads the nodes as
``onnx.Custom`` and the converters register under the domain's opset
version (1). Each converter names the attributes it understands; any other
attribute is the one unsupported-op error naming it.

SimplifiedLayerNormalization is onnxruntime's in the default domain (its
optimizer emits it there), so it registers under ``""``.
"""

from __future__ import annotations

from xdsl.ir import SSAValue

from xmo.dialects.onnx import CustomOp
from xmo.passes.onnx_to_ov.families.conv import conv
from xmo.passes.onnx_to_ov.families.normalization import layer_norm_of, rms_norm_of
from xmo.passes.onnx_to_ov.registry import converter
from xmo.passes.to_ov.builder import Builder, ConverterNode, value_etype
from xmo.passes.to_ov.helpers import scalar

#: onnxruntime's contrib domain, as converters register it
MS = "com.microsoft"

#: onnxruntime's default epsilon of the skip layer normalizations
_SKIP_EPS = 1e-12


def _attrs(node: ConverterNode, *known: str) -> None:
    """The unsupported-op error for an attribute outside ``known``."""
    attrs = node.op.attrs if isinstance(node.op, CustomOp) else None
    for name in attrs.data if attrs is not None else ():
        if name not in known:
            raise node.unsupported(f"attribute '{name}' is not supported (known: {', '.join(known) or 'none'})")


def _c(b: Builder, value: float, like: SSAValue) -> SSAValue:
    return scalar(b, value, value_etype(like))


def _wanted(node: ConverterNode, i: int) -> bool:
    return node.num_outputs > i and bool(node.output_names[i])


# -- Gelu family, BiasAdd ------------------------------------------------------------


@converter("Gelu", domain=MS)
def gelu(node: ConverterNode, b: Builder):
    _attrs(node)
    return b.out("Gelu", [node.input(0)], {"approximation_mode": "ERF"})


@converter("BiasGelu", domain=MS)
def bias_gelu(node: ConverterNode, b: Builder):
    _attrs(node)
    x = b.out("Add", [node.input(0), node.input(1)])
    return b.out("Gelu", [x], {"approximation_mode": "ERF"})


@converter("FastGelu", domain=MS)
def fast_gelu(node: ConverterNode, b: Builder):
    """The tanh approximation of Gelu, of ``x + bias`` when bias is given."""
    _attrs(node)
    x = node.input(0)
    if node.has_input(1):
        x = b.out("Add", [x, node.input(1)])
    return b.out("Gelu", [x], {"approximation_mode": "TANH"})


@converter("QuickGelu", domain=MS)
def quick_gelu(node: ConverterNode, b: Builder):
    """``x * sigmoid(alpha * x)``."""
    _attrs(node, "alpha")
    x = node.input(0)
    alpha = float(node.attr("alpha", 1.702))
    s = b.out("Sigmoid", [b.out("Multiply", [x, _c(b, alpha, x)])])
    return b.out("Multiply", [x, s])


@converter("BiasAdd", domain=MS)
def bias_add(node: ConverterNode, b: Builder):
    """``X + bias + skip`` (bias along the last axis)."""
    _attrs(node)
    y = b.out("Add", [node.input(0), node.input(1)])
    return b.out("Add", [y, node.input(2)])
