"""Normalizations: FusedBatchNorm / V2 / V3, BatchNormWithGlobalNormalization, LRN.

Inference batch norm on channels-last data is ``x * scale' + shift'`` with
``[C]`` vectors broadcasting on the last axis (no layout transposes; the
vectors fold to constants); channels-first data uses BatchNormInference.
"""

from __future__ import annotations

from xdsl.ir import SSAValue
from xmo.passes.tf_to_ov.builder import TFBuilder
from xmo.passes.tf_to_ov.layout import Layout
from xmo.passes.tf_to_ov.registry import tf_converter
from xmo.passes.to_ov.builder import ConverterNode, value_etype
from xmo.passes.to_ov.helpers import broadcast_along, scalar


def _affine(b: TFBuilder, x: SSAValue, mean, var, scale, offset, eps: float):
    """scale' = scale / sqrt(var + eps), shift' = offset - mean * scale' (in
    the parameters' type), returned converted to ``x``'s type."""
    t = value_etype(var)
    inv = b.out("Sqrt", [b.out("Add", [var, scalar(b, eps, t)])])
    k = b.out("Divide", [scale, inv]) if scale is not None else b.out("Divide", [scalar(b, 1, t), inv])
    shift = b.out("Negative", [b.out("Multiply", [mean, k])])
    if offset is not None:
        shift = b.out("Add", [offset, shift])
    xt = value_etype(x)
    return b.convert(k, xt), b.convert(shift, xt)


@tf_converter("FusedBatchNorm", "FusedBatchNormV2", "FusedBatchNormV3")
def fused_batch_norm(node: ConverterNode, b: TFBuilder):
    x = node.input(0)
    r = node.rank(0)
    if r is None:
        raise node.unsupported("input of dynamic rank")
    eps = float(node.attr("epsilon", 1e-4))
    scale, offset = node.input(1), node.input(2)
    last = node.channels_last
    axis = r - 1 if last else 1
    if node.attr("is_training", True):
        y = _training(node, b, x, r, axis, scale, offset, eps)
        return [y]  # batch statistics outputs: unsupported if used
    mean, var = node.input(3), node.input(4)
    if not last:
        xt = value_etype(x)
        params = [b.convert(v, xt) for v in (scale, offset, mean, var)]
        return [b.out("BatchNormInference", [x, *params], {"epsilon": eps})]
    k, shift = _affine(b, x, mean, var, scale, offset, eps)
    y = b.out("Add", [b.out("Multiply", [x, k]), shift])
    return [y]


def _training(node: ConverterNode, b: TFBuilder, x, r: int, axis: int, scale, offset, eps: float):
    """Normalize with the batch statistics (biased variance)."""
    xt = value_etype(x)
    axes = b.i64([a for a in range(r) if a != axis])
    mean = b.out("ReduceMean", [x, axes], {"keep_dims": True})
    d = b.out("Subtract", [x, mean])
    var = b.out("ReduceMean", [b.out("Multiply", [d, d]), axes], {"keep_dims": True})
    inv = b.out("Sqrt", [b.out("Add", [var, scalar(b, eps, xt)])])
    s = broadcast_along(b, b.convert(scale, xt), axis, r)
    o = broadcast_along(b, b.convert(offset, xt), axis, r)
    return b.out("Add", [b.out("Multiply", [b.out("Divide", [d, inv]), s]), o])


@tf_converter("BatchNormWithGlobalNormalization")
def batch_norm_global(node: ConverterNode, b: TFBuilder):
    x, mean, var, beta, gamma = (node.input(i) for i in range(5))
    eps = float(node.attr("variance_epsilon", 1e-3))
    scale = gamma if node.attr("scale_after_normalization", False) else None
    k, shift = _affine(b, x, mean, var, scale, beta, eps)
    return b.out("Add", [b.out("Multiply", [x, k]), shift])


@tf_converter("LRN")
def lrn(node: ConverterNode, b: TFBuilder):
    x = node.input(0)
    r = node.rank(0)
    if r != 4:
        raise node.unsupported("LRN needs a 4-D input")
    radius = int(node.attr("depth_radius", 5))
    size = 2 * radius + 1
    alpha, beta = float(node.attr("alpha", 1.0)), float(node.attr("beta", 0.5))
    bias = float(node.attr("bias", 1.0))
    # TF: x / (bias + alpha * sum(x^2 over the window))^beta. OpenVINO divides
    # alpha by the window size, and its CPU plugin ignores ``bias`` (uses 1):
    # with bias > 0 the op runs with bias 1 and the factor bias^-beta is applied
    # separately, x / (bias (1 + alpha/bias * s))^beta.
    scale = 1.0
    if bias > 0 and bias != 1.0:
        alpha, scale, bias = alpha / bias, bias ** -beta, 1.0
    attrs = {"alpha": alpha * size, "beta": beta, "bias": bias, "size": size}
    lay = Layout(node, b, 4)  # channels last: TF's LRN has no data_format
    y = lay.leave(b.out("LRN", [lay.enter(x), b.i64([1])], attrs))
    if scale != 1.0:
        y = b.out("Multiply", [y, b.scalar_like(scale, y)])
    return y
