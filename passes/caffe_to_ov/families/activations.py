"""ReLU (negative_slope), PReLU, ELU, Sigmoid, TanH, AbsVal, Power, Exp, Log, BNLL."""

from __future__ import annotations

import math

import numpy as np
from xdsl.ir import SSAValue

from xmo.passes.caffe_to_ov.convert import blob
from xmo.passes.caffe_to_ov.families._common import param
from xmo.passes.caffe_to_ov.registry import caffe_converter
from xmo.passes.to_ov.builder import Builder, ConverterNode


def _f32(b: Builder, v: float) -> SSAValue:
    return b.const(np.asarray(v, np.float32))


def _affine(b: Builder, x: SSAValue, scale: float, shift: float) -> SSAValue:
    """``shift + scale * x`` (nothing emitted for the identity)."""
    if scale != 1.0:
        x = b.out("Multiply", [x, _f32(b, scale)])
    if shift != 0.0:
        x = b.out("Add", [x, _f32(b, shift)])
    return x


@caffe_converter("ReLU")
def relu(node: ConverterNode, b: Builder) -> SSAValue:
    slope = param(node, "relu_param").negative_slope
    if slope == 0.0:
        return b.out("Relu", [node.input(0)])
    return b.out("PRelu", [node.input(0), b.const(np.asarray([slope], np.float32))])


@caffe_converter("PReLU")
def prelu(node: ConverterNode, b: Builder) -> SSAValue:
    slope = blob(node, 0, "slopes").reshape(-1)
    rank = node.rank(0)
    if slope.size > 1 and rank is not None and rank > 2:
        slope = slope.reshape(slope.size, *([1] * (rank - 2)))
    return b.out("PRelu", [node.input(0), b.const(slope)])


@caffe_converter("ELU")
def elu(node: ConverterNode, b: Builder) -> SSAValue:
    return b.out("Elu", [node.input(0)], {"alpha": float(param(node, "elu_param").alpha)})


def _simple(layer: str, ov_type: str) -> None:
    def convert(node: ConverterNode, b: Builder) -> SSAValue:
        return b.out(ov_type, [node.input(0)])

    convert.__name__ = convert.__qualname__ = layer.lower()
    caffe_converter(layer)(convert)


_simple("Sigmoid", "Sigmoid")
_simple("TanH", "Tanh")
_simple("AbsVal", "Abs")
_simple("BNLL", "SoftPlus")


@caffe_converter("Power")
def power(node: ConverterNode, b: Builder) -> SSAValue:
    p = param(node, "power_param")
    y = _affine(b, node.input(0), float(p.scale), float(p.shift))
    if p.power == 1.0:
        return y if y is not node.input(0) else b.out("Multiply", [y, _f32(b, 1.0)])
    return b.out("Power", [y, _f32(b, float(p.power))])


@caffe_converter("Exp")
def exp(node: ConverterNode, b: Builder) -> SSAValue:
    p = param(node, "exp_param")
    k = 1.0 if p.base == -1.0 else math.log(p.base)
    return b.out("Exp", [_affine(b, node.input(0), float(p.scale) * k, float(p.shift) * k)])


@caffe_converter("Log")
def log(node: ConverterNode, b: Builder) -> SSAValue:
    p = param(node, "log_param")
    y = b.out("Log", [_affine(b, node.input(0), float(p.scale), float(p.shift))])
    if p.base != -1.0:
        y = b.out("Multiply", [y, _f32(b, 1.0 / math.log(p.base))])
    return y
