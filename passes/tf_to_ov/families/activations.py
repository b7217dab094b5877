"""Activations: Relu, Relu6, Elu, Selu, LeakyRelu, Sigmoid, Tanh, Softplus,
Softsign, Softmax, LogSoftmax (TF's Softmax works on the last axis)."""

from __future__ import annotations

import numpy as np
from xmo.passes.tf_to_ov.builder import TFBuilder
from xmo.passes.tf_to_ov.registry import tf_converter
from xmo.passes.to_ov.builder import ConverterNode, value_etype
from xmo.passes.to_ov.helpers import scalar

_SIMPLE = {
    "Relu": "Relu",
    "Sigmoid": "Sigmoid",
    "Tanh": "Tanh",
    "Softplus": "SoftPlus",
    "Softsign": "SoftSign",
}


def _simple(ov_type: str):
    def convert(node: ConverterNode, b: TFBuilder):
        return b.out(ov_type, [node.input(0)])

    return convert


for _tf, _ov in _SIMPLE.items():
    tf_converter(_tf)(_simple(_ov))


@tf_converter("Relu6")
def relu6(node: ConverterNode, b: TFBuilder):
    return b.out("Clamp", [node.input(0)], {"min": 0.0, "max": 6.0})


@tf_converter("Elu")
def elu(node: ConverterNode, b: TFBuilder):
    return b.out("Elu", [node.input(0)], {"alpha": 1.0})


@tf_converter("Selu")
def selu(node: ConverterNode, b: TFBuilder):
    x = node.input(0)
    t = value_etype(x)
    alpha = scalar(b, 1.6732632423543772848170429916717, t)
    lam = scalar(b, 1.0507009873554804934193349852946, t)
    return b.out("Selu", [x, b.reshape(alpha, [1]), b.reshape(lam, [1])])


@tf_converter("LeakyRelu")
def leaky_relu(node: ConverterNode, b: TFBuilder):
    x = node.input(0)
    alpha = float(node.attr("alpha", 0.2))
    slope = scalar(b, np.float32(alpha), value_etype(x))
    return b.out("PRelu", [x, slope])


@tf_converter("Softmax", "LogSoftmax")
def softmax(node: ConverterNode, b: TFBuilder):
    x = node.input(0)
    r = node.rank(0)
    axis = r - 1 if r is not None else -1
    return b.out(node.type, [x], {"axis": axis})
