"""Activation ONNX ops: Relu family, sigmoids, Gelu, Shrink, Softmax/LogSoftmax/Hardmax."""

from __future__ import annotations

from xdsl.ir import SSAValue

from xmo.passes.to_ov.builder import Builder, ConverterNode, value_etype
from xmo.passes.to_ov.helpers import (
    broadcast_along,
    dim_of,
    norm_axis,
    rank_of,
    scalar,
)
from xmo.passes.onnx_to_ov.families._types import attr_str
from xmo.passes.onnx_to_ov.registry import converter


def _c(b: Builder, value: float, like: SSAValue) -> SSAValue:
    """Scalar constant with the element type of ``like``."""
    return scalar(b, value, value_etype(like))


@converter("Relu")
def relu(node: ConverterNode, b: Builder):
    x = node.input(0)
    if node.etype(0) in ("f32", "f16", "bf16", "f64"):
        return b.out("Relu", [x])
    return b.out("Maximum", [x, _c(b, 0, x)])


@converter("LeakyRelu")
def leaky_relu(node: ConverterNode, b: Builder):
    x = node.input(0)
    return b.out("PRelu", [x, _c(b, node.attr("alpha", 0.01), x)])


def _prelu_per_channel(node: ConverterNode) -> bool:
    """Whether PRelu's 1-D slope of length != 1 is per channel (axis 1).

    PRelu-1/6 define the slope per channel ("if Slope is of size 1, the value
    is shared across different channels"); PRelu-7+ use unidirectional numpy
    broadcasting -- there a [C] slope that cannot broadcast numpy-wise but
    matches dim 1 is read the old way too (like OpenVINO's PRelu).
    """
    xs, ss = node.shape(0), node.shape(1)
    if xs is None or ss is None or len(ss) != 1 or len(xs) < 3 or ss[0] == 1:
        return False
    if node.version < 7:
        return True
    c, last = ss[0], xs[-1]
    return c != -1 and last != -1 and c != last and xs[1] == c


@converter("PRelu")
def prelu(node: ConverterNode, b: Builder):
    # slope broadcasts unidirectionally to x (numpy rules): select on the sign
    x, slope = node.input(0), node.input(1)
    if _prelu_per_channel(node):  # a [C] slope applies along axis 1
        slope = broadcast_along(b, slope, 1, node.rank(0))
    neg = b.out("Less", [x, _c(b, 0, x)])
    return b.out("Select", [neg, b.out("Multiply", [x, slope]), x])


@converter("Sigmoid")
def sigmoid(node: ConverterNode, b: Builder):
    return b.out("Sigmoid", [node.input(0)])


@converter("Tanh")
def tanh(node: ConverterNode, b: Builder):
    return b.out("Tanh", [node.input(0)])


@converter("HardSigmoid")
def hard_sigmoid(node: ConverterNode, b: Builder):
    x = node.input(0)
    alpha, beta = node.attr("alpha", 0.2), node.attr("beta", 0.5)
    return b.out("HardSigmoid", [x, _c(b, alpha, x), _c(b, beta, x)])


@converter("HardSwish")
def hard_swish(node: ConverterNode, b: Builder):
    # x * max(0, min(1, x/6 + 1/2)) is exactly HSwish
    return b.out("HSwish", [node.input(0)])


@converter("Elu")
def elu(node: ConverterNode, b: Builder):
    return b.out("Elu", [node.input(0)], {"alpha": float(node.attr("alpha", 1.0))})


@converter("Selu")
def selu(node: ConverterNode, b: Builder):
    x = node.input(0)
    alpha = node.attr("alpha", 1.67326319217681884765625)
    gamma = node.attr("gamma", 1.05070102214813232421875)
    return b.out("Selu", [x, _c(b, alpha, x), _c(b, gamma, x)])


@converter("Celu")
def celu(node: ConverterNode, b: Builder):
    # max(0, x) + min(0, alpha * (exp(x / alpha) - 1))
    x = node.input(0)
    alpha = float(node.attr("alpha", 1.0))
    e = b.out("Exp", [b.out("Divide", [x, _c(b, alpha, x)])])
    neg = b.out("Multiply", [b.out("Subtract", [e, _c(b, 1, x)]), _c(b, alpha, x)])
    pos = b.out("Maximum", [x, _c(b, 0, x)])
    return b.out("Add", [pos, b.out("Minimum", [neg, _c(b, 0, x)])])


@converter("ThresholdedRelu")
def thresholded_relu(node: ConverterNode, b: Builder):
    x = node.input(0)
    keep = b.out("Greater", [x, _c(b, node.attr("alpha", 1.0), x)])
    return b.out("Select", [keep, x, _c(b, 0, x)])


@converter("Softplus")
def softplus(node: ConverterNode, b: Builder):
    return b.out("SoftPlus", [node.input(0)])


@converter("Softsign")
def softsign(node: ConverterNode, b: Builder):
    x = node.input(0)
    return b.out("Divide", [x, b.out("Add", [b.out("Abs", [x]), _c(b, 1, x)])])


@converter("Mish")
def mish(node: ConverterNode, b: Builder):
    return b.out("Mish", [node.input(0)])


@converter("Swish")
def swish(node: ConverterNode, b: Builder):
    x = node.input(0)
    return b.out("Swish", [x, _c(b, node.attr("alpha", 1.0), x)])


@converter("Gelu")
def gelu(node: ConverterNode, b: Builder):
    mode = attr_str(node.attr("approximate", "none"))
    if mode not in ("none", "tanh"):
        raise node.unsupported(f"approximate='{mode}'")
    return b.out("Gelu", [node.input(0)], {"approximation_mode": "ERF" if mode == "none" else "TANH"})


@converter("Shrink")
def shrink(node: ConverterNode, b: Builder):
    # x < -lambd: x + bias; x > lambd: x - bias; else 0
    x = node.input(0)
    lambd, bias = float(node.attr("lambd", 0.5)), float(node.attr("bias", 0.0))
    lo = b.out("Less", [x, _c(b, -lambd, x)])
    hi = b.out("Greater", [x, _c(b, lambd, x)])
    zero = _c(b, 0, x)
    y = b.out("Select", [hi, b.out("Subtract", [x, _c(b, bias, x)]), zero])
    return b.out("Select", [lo, b.out("Add", [x, _c(b, bias, x)]), y])


# -- Softmax family ---------------------------------------------------------------


def _hardmax(b: Builder, x: SSAValue, axis: int) -> SSAValue:
    """One-hot of the first maximum along ``axis``."""
    topk = b.op(
        "TopK",
        [x, b.i64(1)],
        {"axis": axis, "mode": "max", "sort": "value", "index_element_type": "i64", "stable": True},
    )
    idx = topk.results[1]
    r = len(x.type.get_shape())
    n = dim_of(b, x, axis, scalar_out=True)
    ar = b.out("Range", [b.i64(0), n, b.i64(1)], {"output_type": "i64"})
    ar = b.reshape(ar, [-1] + [1] * (r - axis - 1))
    return b.convert(b.out("Equal", [ar, idx]), value_etype(x))


def _softmax_like(kind: str, b: Builder, x: SSAValue, axis: int) -> SSAValue:
    if kind == "Softmax":
        return b.out("Softmax", [x], {"axis": axis})
    if kind == "LogSoftmax":
        return b.out("LogSoftmax", [x], {"axis": axis})
    return _hardmax(b, x, axis)


@converter("Softmax", "LogSoftmax", "Hardmax")
def softmax(node: ConverterNode, b: Builder):
    x = node.input(0)
    r = rank_of(node, x)
    if node.version >= 13:
        axis = norm_axis(node, node.attr("axis", -1), max(r, 1))
        if r == 0:
            y = _softmax_like(node.type, b, b.reshape(x, [1]), 0)
            return b.reshape(y, [])
        return _softmax_like(node.type, b, x, axis)
    # opset < 13: coerce to 2-D [prod(d[:axis]), prod(d[axis:])], normalize rows
    if r == 0:
        return b.reshape(_softmax_like(node.type, b, b.reshape(x, [1]), 0), [])
    axis = norm_axis(node, node.attr("axis", 1), r)
    if axis == r - 1:
        return _softmax_like(node.type, b, x, axis)
    flat = b.reshape(x, _flat2d_shape(b, x, axis))
    y = _softmax_like(node.type, b, flat, 1)
    return b.reshape(y, b.shape_of(x))


def _flat2d_shape(b: Builder, x: SSAValue, axis: int) -> SSAValue:
    """[prod(shape[:axis]), -1] as an i64 vector."""
    if axis == 0:
        return b.i64([1, -1])
    head = b.out(
        "ReduceProd",
        [b.out("Slice", [b.shape_of(x), b.i64([0]), b.i64([axis]), b.i64([1])]), b.i64([0])],
        {"keep_dims": True},
    )
    return b.concat([head, b.i64([-1])], 0)
