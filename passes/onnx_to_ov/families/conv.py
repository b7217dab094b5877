"""Convolutions: Conv, ConvTranspose, DeformConv, Col2Im.

Helpers for ONNX window attributes (pads, auto_pad, strides) live here and are
used by the pooling family too.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from xdsl.ir import SSAValue

from xmo.dialects.ov.base import dims_of, tensor
from xmo.passes.onnx_to_ov.families._types import attr_str
from xmo.passes.onnx_to_ov.registry import converter
from xmo.passes.to_ov.builder import Builder, ConverterNode

_AUTO_PAD = {
    "NOTSET": "explicit",
    "VALID": "valid",
    "SAME_UPPER": "same_upper",
    "SAME_LOWER": "same_lower",
}


def spatial_count(node: ConverterNode, i: int = 0, extra: int = 2) -> int:
    """Number of spatial dims of input ``i`` (rank - ``extra``)."""
    r = node.rank(i)
    if r is None:
        for name in ("kernel_shape", "strides", "dilations"):
            v = node.attr(name)
            if v:
                return len(v)
        raise node.unsupported("dynamic rank input")
    return r - extra


def window_attrs(node: ConverterNode, n: int) -> dict:
    """strides/dilations/pads_begin/pads_end/auto_pad of an ONNX window op."""
    strides = list(node.attr("strides") or [1] * n)
    dilations = list(node.attr("dilations") or [1] * n)
    pads = list(node.attr("pads") or [0] * (2 * n))
    if len(strides) != n or len(dilations) != n or len(pads) != 2 * n:
        raise node.unsupported("strides/dilations/pads do not match the spatial rank")
    auto_pad = attr_str(node.attr("auto_pad", "NOTSET") or "NOTSET")
    if auto_pad not in _AUTO_PAD:
        raise node.unsupported(f"auto_pad {auto_pad}")
    mode = _AUTO_PAD[auto_pad]
    if mode != "explicit":
        pads = [0] * (2 * n)
    return {
        "strides": strides,
        "dilations": dilations,
        "pads_begin": pads[:n],
        "pads_end": pads[n:],
        "auto_pad": mode,
    }


def dims_from(b: Builder, v: SSAValue, start: int) -> SSAValue:
    """``shape(v)[start:]`` as an i64 vector."""
    shape = b.shape_of(v)
    return b.out(
        "Slice",
        [shape, b.i64([start]), b.i64([np.iinfo(np.int64).max]), b.i64([1])],
    )


def split_groups(b: Builder, w: SSAValue, groups: int) -> SSAValue:
    """Reshape ``[A, B, k...]`` weights to ``[groups, A/groups, B, k...]``."""
    shape = dims_of(w.type)
    if shape is not None and all(d >= 0 for d in shape):
        if shape[0] % groups:
            raise ValueError("weights not divisible by groups")
        return b.reshape(w, [groups, shape[0] // groups, *shape[1:]])
    target = b.concat([b.i64([groups, -1]), dims_from(b, w, 1)], 0)
    return b.reshape(w, target)


def add_channel_bias(b: Builder, y: SSAValue, bias: SSAValue, rank: int) -> SSAValue:
    """``y + bias`` with a ``[C]`` bias broadcast along axis 1 of a rank-``rank`` y."""
    bias = b.reshape(bias, [1, -1] + [1] * (rank - 2))
    return b.out("Add", [y, bias])


@converter("Conv")
def conv(node: ConverterNode, b: Builder):
    x, w = node.input(0), node.input(1)
    n = spatial_count(node)
    attrs = window_attrs(node, n)
    group = int(node.attr("group", 1))
    if group == 1:
        y = b.out("Convolution", [x, w], attrs)
    else:
        y = b.out("GroupConvolution", [x, split_groups(b, w, group)], attrs)
    if node.has_input(2):
        y = add_channel_bias(b, y, node.input(2), n + 2)
    return y


@converter("ConvTranspose")
def conv_transpose(node: ConverterNode, b: Builder):
    x, w = node.input(0), node.input(1)
    n = spatial_count(node)
    attrs = window_attrs(node, n)
    group = int(node.attr("group", 1))
    out_pad = list(node.attr("output_padding") or [0] * n)
    out_shape = node.attr("output_shape")
    xs, ws = node.shape(0), node.shape(1)
    kernel = list(node.attr("kernel_shape") or (ws[2:] if ws else []))
    s, d = attrs["strides"], attrs["dilations"]
    mode = attrs["auto_pad"]
    static_in = xs is not None and all(v >= 0 for v in xs[2:])
    if (out_shape or mode in ("same_upper", "same_lower")) and mode != "valid":
        # explicit pads from the required output size (ONNX formula)
        if not static_in or len(kernel) != n:
            raise node.unsupported("output_shape/auto_pad SAME needs static spatial dims")
        ins = xs[2:]
        if out_shape:
            target = list(out_shape)[-n:]
        else:
            target = [ins[i] * s[i] for i in range(n)]
        pb, pe = [], []
        for i in range(n):
            total = s[i] * (ins[i] - 1) + out_pad[i] + (kernel[i] - 1) * d[i] + 1 - target[i]
            if mode == "same_upper":
                pb.append(total // 2)
                pe.append(total - total // 2)
            else:
                pb.append(total - total // 2)
                pe.append(total // 2)
        attrs["pads_begin"], attrs["pads_end"] = pb, pe
        attrs["auto_pad"] = "explicit"
    pb, pe = attrs["pads_begin"], attrs["pads_end"]
    if attrs["auto_pad"] == "valid":
        attrs["auto_pad"] = "explicit"
    # OpenVINO takes no negative pads and output_padding < stride: emit the plain
    # full-size transposed convolution and cut/pad the window ONNX asks for.
    fixup = any(p < 0 for p in pb + pe) or any(out_pad[i] >= max(s[i], d[i]) for i in range(n))
    if fixup:
        attrs["pads_begin"] = [0] * n
        attrs["pads_end"] = [0] * n
    else:
        attrs["output_padding"] = out_pad
    if group == 1:
        y = b.out("ConvolutionBackpropData", [x, w], attrs)
    else:
        wg = split_groups(b, w, group)
        y = _group_deconv(node, b, x, wg, attrs, group)
    if fixup:
        y = _crop_window(node, b, y, n, pb, pe, out_pad)
    if node.has_input(2):
        y = add_channel_bias(b, y, node.input(2), n + 2)
    return y


def _group_deconv(node: ConverterNode, b: Builder, x, wg, attrs, group: int):
    xs, ws = dims_of(x.type), dims_of(wg.type)
    n = len(attrs["strides"])
    out = None
    if xs is not None and ws is not None:
        sp = []
        for i in range(n):
            dd, k = xs[2 + i], ws[3 + i]
            if dd < 0 or k < 0:
                sp.append(-1)
                continue
            op = attrs.get("output_padding") or [0] * n
            sp.append(
                attrs["strides"][i] * (dd - 1) + attrs["dilations"][i] * (k - 1) + 1
                - attrs["pads_begin"][i] - attrs["pads_end"][i] + op[i]
            )
        ch = ws[0] * ws[2] if ws[0] >= 0 and ws[2] >= 0 else -1
        out = [xs[0], ch, *sp]
    rt = [tensor(node.etype(0), out)]
    return b.out("GroupConvolutionBackpropData", [x, wg], attrs, result_types=rt)


def _crop_window(node: ConverterNode, b: Builder, y, n, pb, pe, out_pad):
    """Take ``[pb, full - pe + out_pad)`` of each spatial dim of the full output
    (negative ``pb`` / beyond-the-end parts are zeros)."""
    ys = dims_of(y.type)
    if ys is None or any(v < 0 for v in ys[2:]):
        raise node.unsupported("negative pads / large output_padding need static shapes")
    full = ys[2:]
    pad_b = [max(0, -p) for p in pb]
    pad_e = [max(0, (full[i] - pe[i] + out_pad[i]) - full[i]) for i in range(n)]
    if any(pad_b) or any(pad_e):
        y = b.out(
            "Pad",
            [y, b.i64([0, 0, *pad_b]), b.i64([0, 0, *pad_e]), b.scalar_like(0, y)],
            {"pad_mode": "constant"},
        )
    start = [max(0, p) for p in pb]
    stop = [start[i] + (full[i] - pb[i] - pe[i] + out_pad[i]) for i in range(n)]
    return b.out(
        "Slice",
        [y, b.i64(start), b.i64(stop), b.i64([1] * n), b.i64(list(range(2, n + 2)))],
    )


@converter("DeformConv")
def deform_conv(node: ConverterNode, b: Builder):
    x, w, offset = node.input(0), node.input(1), node.input(2)
    n = spatial_count(node)
    if n != 2:
        raise node.unsupported("DeformConv supports 2-D only in OpenVINO")
    attrs = window_attrs(node, n)
    attrs["group"] = int(node.attr("group", 1))
    attrs["deformable_group"] = int(node.attr("offset_group", 1))
    attrs["bilinear_interpolation_pad"] = True
    ins = [x, offset, w]
    if node.has_input(4):
        ins.append(node.input(4))
    xs, ws, os_ = node.shape(0), node.shape(1), node.shape(2)
    out = None
    if xs is not None and ws is not None and os_ is not None:
        out = [xs[0], ws[0], os_[2], os_[3]]
    y = b.out("DeformableConvolution", ins, attrs, result_types=[tensor(node.etype(0), out)])
    if node.has_input(3):
        y = add_channel_bias(b, y, node.input(3), n + 2)
    return y


@converter("Col2Im")
def col2im(node: ConverterNode, b: Builder):
    x = node.input(0)
    n = node.shape(1)
    n = n[0] if n else len(node.attr("strides") or node.attr("dilations") or [])
    if n != 2:
        raise node.unsupported("Col2Im supports 2-D images only in OpenVINO")
    attrs = window_attrs(node, n)
    del attrs["auto_pad"]
    image = node.const(1)
    block = node.const(2)
    xs = node.shape(0)
    out = None
    if xs is not None:
        sp = [int(v) for v in image] if image is not None else [-1] * n
        c = xs[-2] // int(np.prod(block)) if block is not None and xs[-2] >= 0 else -1
        out = ([xs[0]] if len(xs) == 3 else []) + [c, *sp]
    ins = [x, b.convert(node.input(1), "i64"), b.convert(node.input(2), "i64")]
    return b.out("Col2Im", ins, attrs, result_types=[tensor(node.etype(0), out)])


__all__: Sequence[str] = ["window_attrs", "spatial_count", "add_channel_bias", "split_groups", "dims_from"]
