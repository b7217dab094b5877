"""Grappler's fused ops in optimized frozen graphs: _FusedConv2D,
_FusedDepthwiseConv2dNative, _FusedMatMul -- the base op followed by its
``fused_ops`` (BiasAdd, FusedBatchNorm, Add, then an activation), each taking
its operands from ``args`` in order."""

from __future__ import annotations

from xdsl.ir import SSAValue
from xmo.passes.tf_to_ov.builder import TFBuilder
from xmo.passes.tf_to_ov.families.conv import conv2d, depthwise_conv2d
from xmo.passes.tf_to_ov.families.matmul import matmul
from xmo.passes.tf_to_ov.registry import tf_converter
from xmo.passes.to_ov.builder import ConverterNode, value_etype
from xmo.passes.to_ov.helpers import scalar

_ACTIVATIONS = {"Relu", "Relu6", "Elu", "LeakyRelu", "Tanh", "Sigmoid"}


def _per_channel(b: TFBuilder, v: SSAValue, rank: int, channels_last: bool) -> SSAValue:
    """A ``[C]`` vector broadcasting along the channel axis."""
    if channels_last or rank <= 2:
        return v
    return b.reshape(v, [-1] + [1] * (rank - 2))


def apply_fused_ops(node: ConverterNode, b: TFBuilder, y: SSAValue, first_arg: int, rank: int,
                    channels_last: bool) -> SSAValue:
    ops = [o.decode() if isinstance(o, bytes) else str(o) for o in (node.attr("fused_ops") or [])]
    i = first_arg
    t = value_etype(y)
    for op in ops:
        if op == "BiasAdd":
            y = b.out("Add", [y, _per_channel(b, b.convert(node.input(i), t), rank, channels_last)])
            i += 1
        elif op == "FusedBatchNorm":
            scale, offset, mean, var = (node.input(i + k) for k in range(4))
            i += 4
            eps = float(node.attr("epsilon", 1e-4))
            pt = value_etype(var)
            inv = b.out("Sqrt", [b.out("Add", [var, scalar(b, eps, pt)])])
            k = b.out("Divide", [scale, inv])
            shift = b.out("Subtract", [offset, b.out("Multiply", [mean, k])])
            k = _per_channel(b, b.convert(k, t), rank, channels_last)
            shift = _per_channel(b, b.convert(shift, t), rank, channels_last)
            y = b.out("Add", [b.out("Multiply", [y, k]), shift])
        elif op in ("Add", "AddV2"):
            y = b.out("Add", [y, node.input(i)])
            i += 1
        elif op == "Relu":
            y = b.out("Relu", [y])
        elif op == "Relu6":
            y = b.out("Clamp", [y], {"min": 0.0, "max": 6.0})
        elif op == "Elu":
            y = b.out("Elu", [y], {"alpha": 1.0})
        elif op == "LeakyRelu":
            alpha = float(node.attr("leakyrelu_alpha", 0.2))
            y = b.out("PRelu", [y, scalar(b, alpha, t)])
        elif op == "Tanh":
            y = b.out("Tanh", [y])
        elif op == "Sigmoid":
            y = b.out("Sigmoid", [y])
        else:
            raise node.unsupported(f"fused op {op}")
    return y


@tf_converter("_FusedConv2D")
def fused_conv2d(node: ConverterNode, b: TFBuilder):
    if node.str_attr("filter_format", "HWIO") != "HWIO":
        raise node.unsupported("filter_format must be HWIO")
    if int(node.attr("num_host_args", 0) or 0):
        raise node.unsupported("host args")
    y = conv2d(node, b)
    return apply_fused_ops(node, b, y, 2, 4, node.channels_last)


@tf_converter("_FusedDepthwiseConv2dNative")
def fused_depthwise_conv2d(node: ConverterNode, b: TFBuilder):
    y = depthwise_conv2d(node, b)
    return apply_fused_ops(node, b, y, 2, 4, node.channels_last)


@tf_converter("_FusedMatMul")
def fused_matmul(node: ConverterNode, b: TFBuilder):
    y = matmul(node, b)
    return apply_fused_ops(node, b, y, 2, 2, True)
