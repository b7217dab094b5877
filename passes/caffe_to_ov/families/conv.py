"""Convolution, Deconvolution, InnerProduct, Pooling."""

from __future__ import annotations

import numpy as np
from xdsl.ir import SSAValue

from xmo.dialects.ov.base import tensor
from xmo.passes.caffe_to_ov.convert import blob
from xmo.passes.caffe_to_ov.families._common import along_axis, flatten_from, pair, param
from xmo.passes.caffe_to_ov.registry import caffe_converter
from xmo.passes.to_ov.builder import Builder, ConverterNode
from xmo.passes.to_ov.helpers import rank_of


def _window(node: ConverterNode, p, n: int) -> dict:  # noqa: ANN001
    kernel = pair(node, p, "kernel", None, n) if not getattr(p, "global_pooling", False) else []
    stride = pair(node, p, "stride", 1, n)
    pad = pair(node, p, "pad", 0, n)
    return {"kernel": kernel, "stride": stride, "pad": pad}


def _conv_common(node: ConverterNode) -> tuple[dict, np.ndarray, int, int]:
    """Window, weights, group and spatial rank of a (de)convolution. Weights
    are ``[O, I/g, k...]`` (Convolution) or ``[I, O/g, k...]`` (Deconvolution):
    dimension 0 splits into the groups either way."""
    p = param(node, "convolution_param")
    if p.axis != 1:
        raise node.unsupported(f"convolution axis {p.axis}")
    rank = rank_of(node, node.input(0))
    n = rank - 2
    w = blob(node, 0, "weights")
    if w.ndim != n + 2:
        raise node.unsupported(f"weights of shape {list(w.shape)} for {n} spatial dims")
    win = {"stride": pair(node, p, "stride", 1, n), "pad": pair(node, p, "pad", 0, n),
           "dilation": pair(node, p, "dilation", 1, n)}
    group = int(p.group)
    if group < 1 or w.shape[0] % group or p.num_output % group:
        raise node.unsupported(f"group {group} does not divide the channels")
    return win, w, group, n


def _bias(node: ConverterNode, b: Builder, y: SSAValue, rank: int) -> SSAValue:
    bias = blob(node, 1, "bias")
    return b.out("Add", [y, along_axis(b, bias.reshape(-1), 1, rank)])


def _window_attrs(win: dict) -> dict:
    """The strides / dilations / explicit pads of a (de)convolution window."""
    return {"strides": win["stride"], "dilations": win["dilation"],
            "pads_begin": win["pad"], "pads_end": win["pad"], "auto_pad": "explicit"}


@caffe_converter("Convolution")
def convolution(node: ConverterNode, b: Builder) -> SSAValue:
    win, w, group, n = _conv_common(node)
    p = param(node, "convolution_param")
    attrs = _window_attrs(win)
    x = node.input(0)
    if group == 1:
        y = b.out("Convolution", [x, b.const(w)], attrs)
    else:
        wg = w.reshape(group, w.shape[0] // group, *w.shape[1:])
        y = b.out("GroupConvolution", [x, b.const(wg)], attrs)
    return _bias(node, b, y, n + 2) if p.bias_term else y


@caffe_converter("Deconvolution")
def deconvolution(node: ConverterNode, b: Builder) -> SSAValue:
    win, w, group, n = _conv_common(node)
    p = param(node, "convolution_param")
    attrs = _window_attrs(win)
    x = node.input(0)
    if group == 1:
        y = b.out("ConvolutionBackpropData", [x, b.const(w)], attrs)
    else:
        wg = w.reshape(group, w.shape[0] // group, *w.shape[1:])
        y = b.out("GroupConvolutionBackpropData", [x, b.const(wg)], attrs,
                  result_types=[tensor("f32", _deconv_dims(node, win, wg))])
    return _bias(node, b, y, n + 2) if p.bias_term else y


def _deconv_dims(node: ConverterNode, win: dict, wg: np.ndarray) -> list[int]:
    """Output dims of a grouped transposed convolution (filters [g, I/g, O/g, k...])."""
    dims = node.shape(0) or []
    out = [dims[0], wg.shape[0] * wg.shape[2]]
    for i, size in enumerate(dims[2:]):
        k = (wg.shape[3 + i] - 1) * win["dilation"][i] + 1
        out.append(-1 if size < 0 else (size - 1) * win["stride"][i] - 2 * win["pad"][i] + k)
    return out


@caffe_converter("InnerProduct")
def inner_product(node: ConverterNode, b: Builder) -> SSAValue:
    p = param(node, "inner_product_param")
    dims = node.shape(0)
    rank = len(dims) if dims is not None else None
    axis = p.axis if p.axis >= 0 or rank is None else p.axis + rank
    w = blob(node, 0, "weights")
    w = w.reshape(w.shape[-2], w.shape[-1]) if w.ndim > 2 else w
    x = flatten_from(b, node.input(0), axis, dims)
    y = b.out("MatMul", [x, b.const(w)], {"transpose_a": False, "transpose_b": not p.transpose})
    if p.bias_term:
        y = b.out("Add", [y, b.const(blob(node, 1, "bias").reshape(-1))])
    return y


def _caffe_pool_len(size: int, k: int, s: int, pad: int, ceil: bool) -> int:
    """Caffe's pooled length: ceil (or floor) rounding, then the last window
    dropped when it starts in the padding."""
    span = size + 2 * pad - k
    out = (-(-span // s) if ceil else span // s) + 1
    if pad > 0 and (out - 1) * s >= size + pad:
        out -= 1
    return out


@caffe_converter("Pooling")
def pooling(node: ConverterNode, b: Builder) -> SSAValue:
    p = param(node, "pooling_param")
    method = p.DESCRIPTOR.fields_by_name["pool"].enum_type.values_by_number[p.pool].name
    if method not in ("MAX", "AVE"):
        raise node.unsupported(f"pooling method {method}")
    x = node.input(0)
    dims = node.shape(0)
    if dims is None or len(dims) != 4:
        raise node.unsupported(f"pooling of a rank-{None if dims is None else len(dims)} input")
    if p.global_pooling:
        axes = b.i64([2, 3])
        return b.out("ReduceMax" if method == "MAX" else "ReduceMean", [x, axes], {"keep_dims": True})
    win = _window(node, p, 2)
    k, s, pad = win["kernel"], win["stride"], win["pad"]
    hw = dims[2:]
    if any(d < 0 for d in hw):
        raise node.unsupported("Caffe's pooled size needs static spatial dims")
    outs = [_caffe_pool_len(hw[i], k[i], s[i], pad[i], p.ceil_mode) for i in range(2)]
    # explicit end pads for floor rounding giving exactly Caffe's output size
    ends = [(outs[i] - 1) * s[i] + k[i] - hw[i] - pad[i] for i in range(2)]
    if any(e < 0 for e in ends):
        raise node.unsupported("pooling window does not reach the input's end")
    attrs = {"kernel": k, "strides": s, "pads_begin": pad, "pads_end": ends,
             "rounding_type": "floor", "auto_pad": "explicit"}
    if method == "MAX":
        return b.op("MaxPool", [x], {**attrs, "dilations": [1, 1]}).results[0]
    y = b.out("AvgPool", [x], {**attrs, "exclude-pad": False})
    if all(ends[i] <= pad[i] for i in range(2)):
        return y
    # Caffe divides by the window clipped to the padded input (size + pad);
    # OpenVINO by the whole kernel once the window is inside the pads
    corr = np.ones(outs, np.float32)
    per_axis = []
    for i in range(2):
        start = np.arange(outs[i]) * s[i] - pad[i]
        length = np.minimum(start + k[i], hw[i] + pad[i]) - start
        per_axis.append(k[i] / length)
    corr = np.outer(per_axis[0], per_axis[1]).astype(np.float32)
    return b.out("Multiply", [y, b.const(corr.reshape(1, 1, *outs))])
