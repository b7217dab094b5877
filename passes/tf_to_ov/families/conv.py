"""Convolutions: Conv2D, Conv3D, DepthwiseConv2dNative, Conv2DBackpropInput,
Conv3DBackpropInputV2.

Channels-last nodes run their NCHW ov op between the layout transposes of
:mod:`..layout`; filters (HWIO, DHWIO) go to OIHW through a Transpose that
constant folding removes.
"""

from __future__ import annotations

from xdsl.ir import SSAValue
from xmo.dialects.ov.base import dims_of, tensor
from xmo.passes.tf_to_ov.builder import TFBuilder
from xmo.passes.tf_to_ov.layout import Layout, hwio_to_oihw, spatial, spatial_pads
from xmo.passes.tf_to_ov.registry import tf_converter
from xmo.passes.to_ov.builder import ConverterNode, value_etype


def padding_attrs(node: ConverterNode, rank: int) -> dict:
    """pads_begin / pads_end / auto_pad of a TF window op (SAME pads the end more)."""
    n = rank - 2
    padding = node.str_attr("padding", "VALID")
    if padding == "SAME":
        return {"auto_pad": "same_upper", "pads_begin": [0] * n, "pads_end": [0] * n}
    if padding == "VALID":
        return {"auto_pad": "valid", "pads_begin": [0] * n, "pads_end": [0] * n}
    if padding == "EXPLICIT":
        pb, pe = spatial_pads(node, rank)
        return {"auto_pad": "explicit", "pads_begin": pb, "pads_end": pe}
    raise node.unsupported(f"padding {padding}")


def window_attrs(node: ConverterNode, rank: int) -> dict:
    """strides / dilations / pads of a TF convolution in spatial order."""
    n = rank - 2
    attrs = padding_attrs(node, rank)
    attrs["strides"] = spatial(node, node.int_list("strides", [1] * rank), rank, "strides")
    attrs["dilations"] = spatial(node, node.int_list("dilations", [1] * rank), rank, "dilations")
    if len(attrs["strides"]) != n:
        raise node.unsupported("strides do not match the input rank")
    return attrs


def convolution(node: ConverterNode, b: TFBuilder, rank: int, attrs: dict | None = None):
    """A channels-last Conv2D / Conv3D node (``attrs``: its window attributes
    when not the node's own, e.g. a fused atrous convolution's)."""
    x, w = node.input(0), node.input(1)
    if node.rank(0) not in (None, rank):
        raise node.unsupported(f"input must have rank {rank}")
    attrs = window_attrs(node, rank) if attrs is None else attrs
    lay = Layout(node, b, rank)
    xc = lay.enter(x)
    wc = hwio_to_oihw(b, w, rank)
    groups = _groups(node, rank)
    if groups == 1:
        y = b.out("Convolution", [xc, wc], attrs)
    else:
        # filter [O, I/g, k...] -> [g, O/g, I/g, k...]
        ws = dims_of(wc.type)
        wg = b.reshape(wc, [groups, ws[0] // groups, *ws[1:]])
        y = b.out("GroupConvolution", [xc, wg], attrs)
    return lay.leave(y)


def _groups(node: ConverterNode, rank: int) -> int:
    """Groups of a grouped convolution (input channels / filter in-channels)."""
    xs, ws = node.shape(0), node.shape(1)
    if xs is None or ws is None:
        return 1
    c = xs[-1] if node.channels_last else xs[1]
    ci, co = ws[rank - 2], ws[rank - 1]
    if c < 0 or ci < 0 or c == ci:
        return 1
    if c % ci or co < 0 or co % (c // ci):
        raise node.unsupported(f"{c} input channels do not match a filter of {ci} in-channels")
    return c // ci


@tf_converter("Conv2D")
def conv2d(node: ConverterNode, b: TFBuilder):
    return convolution(node, b, 4)


@tf_converter("Conv3D")
def conv3d(node: ConverterNode, b: TFBuilder):
    return convolution(node, b, 5)


@tf_converter("DepthwiseConv2dNative")
def depthwise_conv2d(node: ConverterNode, b: TFBuilder, attrs: dict | None = None):
    x, w = node.input(0), node.input(1)
    attrs = window_attrs(node, 4) if attrs is None else attrs
    lay = Layout(node, b, 4)
    # filter [H, W, C, M] -> [C, M, H, W] -> [C (groups), M, 1, H, W]
    wg = b.unsqueeze(b.transpose(w, [2, 3, 0, 1]), [2])
    y = b.out("GroupConvolution", [lay.enter(x), wg], attrs)
    return lay.leave(y)


def _backprop_input(node: ConverterNode, b: TFBuilder, rank: int):
    x, w = node.input(2), node.input(1)  # out_backprop, filter [k..., Cout, Cin]
    n = rank - 2
    attrs = window_attrs(node, rank)
    s, d = attrs["strides"], attrs["dilations"]
    sizes = node.const(0)
    lay = Layout(node, b, rank)
    xc = lay.enter(x)
    wc = hwio_to_oihw(b, w, rank)  # [Cin(of x), Cout, k...]
    target = None
    if sizes is not None:
        sizes = [int(v) for v in sizes.reshape(-1)]
        if len(sizes) == rank:
            target = spatial(node, sizes, rank, "input_sizes")
        elif len(sizes) == n:
            target = sizes
        else:
            raise node.unsupported(f"input_sizes must have {rank} or {n} values")
    xs, ws = dims_of(xc.type), node.shape(1)
    static = (
        target is not None and xs is not None and ws is not None
        and all(v >= 0 for v in xs[2:]) and all(v >= 0 for v in ws[:n])
    )
    padding = node.str_attr("padding", "VALID")
    if static:
        pb, pe, out_pad = [], [], []
        for i in range(n):
            k_eff = (ws[i] - 1) * d[i] + 1
            full = s[i] * (xs[2 + i] - 1) + k_eff
            if padding == "SAME":
                begin = max(full - target[i], 0) // 2
            elif padding == "EXPLICIT":
                begin = attrs["pads_begin"][i]
            else:
                begin = 0
            end = full - begin - target[i]
            pb.append(begin)
            pe.append(max(end, 0))
            out_pad.append(max(-end, 0))
        fixup = any(op >= max(s[i], d[i]) for i, op in enumerate(out_pad))
        attrs.update(auto_pad="explicit", pads_begin=pb, pads_end=pe)
        if not fixup:
            attrs["output_padding"] = out_pad
        y = b.out("ConvolutionBackpropData", [xc, wc], attrs)
        if fixup:  # zeros beyond the full transposed convolution
            y = b.out(
                "Pad",
                [y, b.i64([0] * rank), b.i64([0, 0, *out_pad]), b.scalar_like(0, y)],
                {"pad_mode": "constant"},
            )
        return lay.leave(y)
    # sizes known only at run time: the op derives its pads from output_shape
    if padding == "EXPLICIT":
        raise node.unsupported("EXPLICIT padding needs constant input_sizes and static shapes")
    out_shape = _spatial_sizes(node, b, rank)
    # with output_shape, OpenVINO's same_lower crops floor(excess / 2) at the
    # beginning, as TF's SAME pads
    attrs["auto_pad"] = "same_lower" if padding == "SAME" else "explicit"
    out_dims = None
    if xs is not None:
        ch = ws[rank - 2] if ws is not None else -1
        out_dims = [xs[0], ch, *([-1] * n)]
    y = b.out(
        "ConvolutionBackpropData", [xc, wc, out_shape], attrs,
        result_types=[tensor(value_etype(x), out_dims)],
    )
    return lay.leave(y)


def _spatial_sizes(node: ConverterNode, b: TFBuilder, rank: int) -> SSAValue:
    """The spatial entries of the ``input_sizes`` input as an i64 vector."""
    v = b.convert(node.input(0), "i64")
    shape = node.shape(0)
    n = rank - 2
    if shape == [n]:
        return v
    if shape != [rank]:
        raise node.unsupported("input_sizes must be a vector of static length")
    idx = list(range(1, rank - 1)) if node.channels_last else list(range(2, rank))
    return b.gather(v, idx, 0)


@tf_converter("Conv2DBackpropInput")
def conv2d_backprop_input(node: ConverterNode, b: TFBuilder):
    return _backprop_input(node, b, 4)


@tf_converter("Conv3DBackpropInputV2")
def conv3d_backprop_input(node: ConverterNode, b: TFBuilder):
    return _backprop_input(node, b, 5)
