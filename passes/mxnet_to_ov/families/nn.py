"""Layers: Convolution, Deconvolution, FullyConnected, Pooling, BatchNorm,
Activation, LeakyReLU, softmax family, Dropout, Embedding, UpSampling."""

from __future__ import annotations

import numpy as np
from xdsl.ir import SSAValue

from xmo.passes.mxnet_to_ov import attrs as A
from xmo.passes.mxnet_to_ov.registry import mxnet_converter
from xmo.passes.onnx_to_ov.families.conv import add_channel_bias, split_groups
from xmo.passes.to_ov.builder import Builder, ConverterNode
from xmo.passes.to_ov.helpers import broadcast_along, norm_axis, rank_of, scalar


def _window(node: ConverterNode, n: int) -> dict:
    """strides / dilations / pads of an MXNet window op with ``n`` spatial dims."""
    stride = A.ints(node, "stride") or [1] * n
    dilate = A.ints(node, "dilate") or [1] * n
    pad = A.ints(node, "pad") or [0] * n
    if len(stride) != n or len(dilate) != n or len(pad) != n:
        raise node.unsupported("stride/dilate/pad do not match the kernel")
    return {"strides": stride, "dilations": dilate, "pads_begin": pad, "pads_end": list(pad),
            "auto_pad": "explicit"}


def _kernel(node: ConverterNode) -> list[int]:
    kernel = A.ints(node, "kernel")
    if not kernel:
        raise node.unsupported("kernel is required")
    layout = A.text(node, "layout")
    if layout not in (None, "None", "NCW", "NCHW", "NCDHW"):
        raise node.unsupported(f"layout {layout} (channels-first layouts only)")
    return kernel


@mxnet_converter("Convolution")
def convolution(node: ConverterNode, b: Builder):
    kernel = _kernel(node)
    attrs = _window(node, len(kernel))
    x, w = node.input(0), node.input(1)
    group = A.integer(node, "num_group", 1)
    if group == 1:
        y = b.out("Convolution", [x, w], attrs)
    else:
        y = b.out("GroupConvolution", [x, split_groups(b, w, group)], attrs)
    if not A.flag(node, "no_bias", False) and node.has_input(2):
        y = add_channel_bias(b, y, node.input(2), len(kernel) + 2)
    return y


@mxnet_converter("Deconvolution")
def deconvolution(node: ConverterNode, b: Builder):
    kernel = _kernel(node)
    n = len(kernel)
    attrs = _window(node, n)
    if any(A.ints(node, "target_shape")):
        raise node.unsupported("target_shape")
    adj = A.ints(node, "adj") or [0] * n
    attrs["output_padding"] = adj
    x, w = node.input(0), node.input(1)
    group = A.integer(node, "num_group", 1)
    if group == 1:
        y = b.out("ConvolutionBackpropData", [x, w], attrs)
    else:
        wd = node.shape(1)
        if wd is None or wd[0] < 0:
            raise node.unsupported("grouped deconvolution needs static weights")
        wg = b.reshape(w, [group, wd[0] // group, *wd[1:]])
        y = b.out("GroupConvolutionBackpropData", [x, wg], attrs)
    if not A.flag(node, "no_bias", True) and node.has_input(2):
        y = add_channel_bias(b, y, node.input(2), n + 2)
    return y


@mxnet_converter("FullyConnected")
def fully_connected(node: ConverterNode, b: Builder):
    x, w = node.input(0), node.input(1)
    if A.flag(node, "flatten", True) and rank_of(node, x) != 2:
        x = b.reshape(x, [0, -1], special_zero=True)
    y = b.out("MatMul", [x, w], {"transpose_a": False, "transpose_b": True})
    if not A.flag(node, "no_bias", False) and node.has_input(2):
        y = b.out("Add", [y, node.input(2)])
    return y


@mxnet_converter("Pooling")
def pooling(node: ConverterNode, b: Builder):
    x = node.input(0)
    r = rank_of(node, x)
    kind = A.choice(node, "pool_type", "max", ("max", "avg", "sum"))
    if A.flag(node, "global_pool", False):
        axes = b.i64(list(range(2, r)))
        red = "ReduceMax" if kind == "max" else ("ReduceSum" if kind == "sum" else "ReduceMean")
        return b.out(red, [x, axes], {"keep_dims": True})
    kernel = _kernel(node)
    if len(kernel) != r - 2:
        raise node.unsupported(f"a {len(kernel)}-D kernel on a rank-{r} input")
    attrs = _window(node, len(kernel))
    attrs["kernel"] = kernel
    conv = A.choice(node, "pooling_convention", "valid", ("valid", "full"))
    attrs["rounding_type"] = "ceil" if conv == "full" else "floor"
    if kind == "max":
        attrs["index_element_type"] = "i64"
        attrs["axis"] = 0
        return b.op("MaxPool", [x], attrs).results[0]
    del attrs["dilations"]
    attrs["exclude-pad"] = not A.flag(node, "count_include_pad", True)
    y = b.out("AvgPool", [x], attrs)
    if kind == "sum":
        if attrs["exclude-pad"]:
            raise node.unsupported("sum pooling with count_include_pad=False")
        y = b.out("Multiply", [y, b.scalar_like(float(np.prod(kernel)), y)])
    return y


@mxnet_converter("BatchNorm")
def batch_norm(node: ConverterNode, b: Builder):
    """Inference BatchNorm: the moving statistics (MXNet uses them at
    inference whatever ``use_global_stats`` says); ``fix_gamma`` (default
    True) ignores gamma (as 1)."""
    x = node.input(0)
    r = rank_of(node, x)
    axis = norm_axis(node, A.integer(node, "axis", 1), r)
    eps = A.number(node, "eps", 1e-3)
    gamma, beta, mean, var = (node.input(i) for i in range(1, 5))
    if A.flag(node, "fix_gamma", True):
        gamma = b.out("Broadcast", [b.scalar_like(1.0, gamma), b.shape_of(gamma)], {"mode": "numpy"})
    if axis == 1 and r >= 2:
        return b.out("BatchNormInference", [x, gamma, beta, mean, var], {"epsilon": eps})
    scale = b.out("Divide", [gamma, b.out("Sqrt", [b.out("Add", [var, b.scalar_like(eps, var)])])])
    shift = b.out("Subtract", [beta, b.out("Multiply", [mean, scale])])
    y = b.out("Multiply", [x, broadcast_along(b, scale, axis, r)])
    return b.out("Add", [y, broadcast_along(b, shift, axis, r)])


def _unary(b: Builder, kind: str, x: SSAValue, node: ConverterNode) -> SSAValue:
    if kind == "relu":
        return b.out("Relu", [x])
    if kind == "sigmoid":
        return b.out("Sigmoid", [x])
    if kind == "tanh":
        return b.out("Tanh", [x])
    if kind == "softrelu":
        return b.out("SoftPlus", [x])
    if kind == "softsign":
        return b.out("SoftSign", [x])
    if kind == "log_sigmoid":
        return b.out("Negative", [b.out("SoftPlus", [b.out("Negative", [x])])])
    if kind == "mish":
        return b.out("Mish", [x])
    raise node.unsupported(f"act_type {kind}")


@mxnet_converter("Activation")
def activation(node: ConverterNode, b: Builder):
    return _unary(b, A.text(node, "act_type", "") or "", node.input(0), node)


@mxnet_converter("LeakyReLU")
def leaky_relu(node: ConverterNode, b: Builder):
    x = node.input(0)
    kind = A.text(node, "act_type", "leaky")
    slope = A.number(node, "slope", 0.25)
    if kind == "leaky":
        return b.out("PRelu", [x, b.const(np.asarray([slope], np.float32), node.etype(0))])
    if kind == "rrelu":  # inference: the mean of the random slope's range
        lo, hi = A.number(node, "lower_bound", 0.125), A.number(node, "upper_bound", 0.334)
        return b.out("PRelu", [x, b.const(np.asarray([(lo + hi) / 2], np.float32), node.etype(0))])
    if kind == "prelu":
        return b.out("PRelu", [x, node.input(1)])
    if kind == "elu":
        return b.out("Elu", [x], {"alpha": slope})
    if kind == "selu":
        return b.out("Selu", [x, b.scalar_like(1.6732632423543772, x), b.scalar_like(1.0507009873554805, x)])
    if kind == "gelu":
        return b.out("Gelu", [x], {"approximation_mode": "ERF"})
    raise node.unsupported(f"act_type {kind}")


def _softmax(b: Builder, x: SSAValue, axis: int, log: bool = False) -> SSAValue:
    return b.out("LogSoftmax" if log else "Softmax", [x], {"axis": axis})


def _temperature(node: ConverterNode, b: Builder, x: SSAValue) -> SSAValue:
    t = A.number(node, "temperature", None)
    if t is None or t == 1.0:
        return x
    return b.out("Divide", [x, b.scalar_like(t, x)])


@mxnet_converter("softmax", "log_softmax")
def softmax(node: ConverterNode, b: Builder):
    if node.has_input(1) or A.flag(node, "use_length", False):
        raise node.unsupported("softmax with a length input")
    x = node.input(0)
    axis = norm_axis(node, A.integer(node, "axis", -1), rank_of(node, x))
    return _softmax(b, _temperature(node, b, x), axis, node.type == "log_softmax")


@mxnet_converter("SoftmaxActivation")
def softmax_activation(node: ConverterNode, b: Builder):
    x = node.input(0)
    if A.choice(node, "mode", "instance", ("instance", "channel")) == "channel":
        return _softmax(b, x, 1)
    return _flat_softmax(b, x, rank_of(node, x))


def _flat_softmax(b: Builder, x: SSAValue, r: int) -> SSAValue:
    """Softmax over everything but axis 0 (the shape kept)."""
    if r <= 2:
        return _softmax(b, x, r - 1)
    flat = b.reshape(x, [0, -1], special_zero=True)
    return b.reshape(_softmax(b, flat, 1), b.shape_of(x))


@mxnet_converter("SoftmaxOutput", "Softmax")
def softmax_output(node: ConverterNode, b: Builder):
    """Inference: the softmax of the data (the label is not used)."""
    x = node.input(0)
    r = rank_of(node, x)
    if A.flag(node, "preserve_shape", False):
        return _softmax(b, x, r - 1)
    if A.flag(node, "multi_output", False):
        return _softmax(b, x, 1)
    return _flat_softmax(b, x, r)


@mxnet_converter("LinearRegressionOutput", "MAERegressionOutput", "MakeLoss", "BlockGrad",
                 "stop_gradient", "Dropout", "_copy", "identity", "_identity_with_attr_like_rhs")
def identity(node: ConverterNode, b: Builder):
    return node.input(0)


@mxnet_converter("LogisticRegressionOutput")
def logistic_output(node: ConverterNode, b: Builder):
    return b.out("Sigmoid", [node.input(0)])


@mxnet_converter("Embedding")
def embedding(node: ConverterNode, b: Builder):
    ids = b.convert(node.input(0), "i64")
    return b.gather(node.input(1), ids, 0)


@mxnet_converter("UpSampling")
def upsampling(node: ConverterNode, b: Builder):
    if A.choice(node, "sample_type", "nearest", ("nearest",)) and node.num_inputs != 1:
        raise node.unsupported("nearest UpSampling of several inputs")
    s = A.integer(node, "scale", 1)
    x = node.input(0)
    if rank_of(node, x) != 4:
        raise node.unsupported("UpSampling of a non-4-D input")
    attrs = {
        "mode": "nearest", "shape_calculation_mode": "scales",
        "coordinate_transformation_mode": "asymmetric", "nearest_mode": "floor",
    }
    scales = b.const(np.asarray([s, s], np.float32), "f32")
    return b.out("Interpolate", [x, scales, b.i64([2, 3])], attrs)


@mxnet_converter("L2Normalization")
def l2_normalization(node: ConverterNode, b: Builder):
    x = node.input(0)
    r = rank_of(node, x)
    mode = A.choice(node, "mode", "instance", ("instance", "channel", "spatial"))
    axes = {"instance": list(range(1, r)), "channel": [1], "spatial": list(range(2, r))}[mode]
    eps = A.number(node, "eps", 1e-10)
    sq = b.out("ReduceSum", [b.out("Multiply", [x, x]), b.i64(axes)], {"keep_dims": True})
    norm = b.out("Sqrt", [b.out("Add", [sq, scalar(b, eps, node.etype(0))])])
    return b.out("Divide", [x, norm])
