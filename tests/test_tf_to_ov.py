"""convert-tf-to-ov, nn ops (convolutions, pooling, normalization, resize,
space/depth): small GraphDefs built with xmo's schema, converted with xmo, run
in OpenVINO and on xmo's CPU backend, compared with OpenVINO's TF frontend."""

from __future__ import annotations

import numpy as np
import pytest
from tf_graphs import Graph, check_tf

pytest.importorskip("openvino")

rng = np.random.default_rng(0)


def _r(*shape, dtype=np.float32):
    return rng.standard_normal(shape).astype(dtype)


# -- Conv2D ---------------------------------------------------------------------------


@pytest.mark.parametrize("padding", ["SAME", "VALID", "EXPLICIT"])
@pytest.mark.parametrize("strides", [(1, 1), (2, 2), (2, 3)])
@pytest.mark.parametrize("dilations", [(1, 1), (2, 1)])
def test_conv2d_nhwc(padding, strides, dilations, tmp_path):
    if strides != (1, 1) and dilations != (1, 1):
        pytest.skip("TF CPU kernels reject strides and dilations together")
    g = Graph()
    x = g.placeholder("x", np.float32, [2, 9, 10, 3])
    w = g.const("w", _r(3, 2, 3, 4))
    attrs = {}
    if padding == "EXPLICIT":
        attrs["explicit_paddings"] = [0, 0, 1, 2, 0, 1, 0, 0]
    g.node(
        "Conv2D", "y", [x, w], strides=[1, *strides, 1], dilations=[1, *dilations, 1],
        padding=padding, data_format="NHWC", **attrs,
    )
    check_tf(g, {"x": _r(2, 9, 10, 3)}, tmp_path)


@pytest.mark.parametrize("padding", ["SAME", "VALID", "EXPLICIT"])
def test_conv2d_nchw(padding, tmp_path):
    g = Graph()
    x = g.placeholder("x", np.float32, [1, 3, 8, 7])
    w = g.const("w", _r(3, 3, 3, 5))
    attrs = {"explicit_paddings": [0, 0, 0, 0, 2, 1, 1, 0]} if padding == "EXPLICIT" else {}
    g.node("Conv2D", "y", [x, w], strides=[1, 1, 2, 1], padding=padding, data_format="NCHW", **attrs)
    # OpenVINO's TF frontend supports NCHW; so does xmo (no transposes)
    module = check_tf(g, {"x": _r(1, 3, 8, 7)}, tmp_path)
    assert not [o for o in module.body.block.ops if o.name == "ov.Transpose"]


def test_conv2d_emits_layout_transposes(tmp_path):
    from tf_graphs import xmo_module

    g = Graph()
    x = g.placeholder("x", np.float32, [1, 6, 6, 3])
    w = g.const("w", _r(3, 3, 3, 4))
    g.node("Conv2D", "y", [x, w], strides=[1, 1, 1, 1], padding="SAME")
    module = xmo_module(g.save(tmp_path / "m.pb"))
    types = [o.name for o in module.body.block.ops]
    i = types.index("ov.Convolution")
    perms = []
    for o in module.body.block.ops:
        if o.name == "ov.Transpose":
            perms.append([int(v) for v in o.operands[1].owner.get_array()])
    assert [0, 3, 1, 2] in perms and [0, 2, 3, 1] in perms
    assert "ov.Transpose" in types[:i] and "ov.Transpose" in types[i:]
    conv = next(o for o in module.body.block.ops if o.name == "ov.Convolution")
    # the HWIO -> OIHW transpose of the constant filter is folded
    assert conv.operands[1].owner.name == "ov.Constant"
    assert list(conv.operands[1].type.get_shape()) == [4, 3, 3, 3]


def test_conv2d_grouped(tmp_path):
    g = Graph()
    x = g.placeholder("x", np.float32, [1, 6, 6, 4])
    w = g.const("w", _r(3, 3, 2, 6))  # 2 groups of 2 input channels
    g.node("Conv2D", "y", [x, w], strides=[1, 1, 1, 1], padding="SAME")
    check_tf(g, {"x": _r(1, 6, 6, 4)}, tmp_path)


def test_conv3d(tmp_path):
    g = Graph()
    x = g.placeholder("x", np.float32, [1, 5, 6, 7, 2])
    w = g.const("w", _r(2, 3, 2, 2, 3))
    g.node("Conv3D", "y", [x, w], strides=[1, 1, 2, 1, 1], dilations=[1, 1, 1, 1, 1], padding="SAME")
    check_tf(g, {"x": _r(1, 5, 6, 7, 2)}, tmp_path)


@pytest.mark.parametrize("multiplier", [1, 2])
@pytest.mark.parametrize("padding,strides", [("SAME", 1), ("SAME", 2), ("VALID", 2)])
def test_depthwise_conv2d(multiplier, padding, strides, tmp_path):
    g = Graph()
    x = g.placeholder("x", np.float32, [1, 9, 9, 3])
    w = g.const("w", _r(3, 3, 3, multiplier))
    g.node(
        "DepthwiseConv2dNative", "y", [x, w], strides=[1, strides, strides, 1], padding=padding,
        dilations=[1, 1, 1, 1], data_format="NHWC",
    )
    check_tf(g, {"x": _r(1, 9, 9, 3)}, tmp_path)


def test_depthwise_conv2d_nchw(tmp_path):
    g = Graph()
    x = g.placeholder("x", np.float32, [1, 3, 8, 7])
    w = g.const("w", _r(3, 3, 3, 2))
    g.node(
        "DepthwiseConv2dNative", "y", [x, w], strides=[1, 1, 2, 2], padding="SAME",
        dilations=[1, 1, 1, 1], data_format="NCHW",
    )
    check_tf(g, {"x": _r(1, 3, 8, 7)}, tmp_path)


def test_depthwise_conv2d_dilated(tmp_path):
    g = Graph()
    x = g.placeholder("x", np.float32, [1, 9, 9, 2])
    w = g.const("w", _r(3, 3, 2, 1))
    g.node(
        "DepthwiseConv2dNative", "y", [x, w], strides=[1, 1, 1, 1], padding="SAME",
        dilations=[1, 2, 2, 1],
    )
    check_tf(g, {"x": _r(1, 9, 9, 2)}, tmp_path)


@pytest.mark.parametrize(
    "padding,strides,in_hw,out_hw,k",
    [
        ("SAME", 2, (4, 5), (8, 10), 3),
        ("SAME", 2, (4, 5), (7, 9), 3),
        ("SAME", 1, (5, 5), (5, 5), 3),
        ("VALID", 2, (4, 4), (9, 9), 3),
        ("VALID", 2, (4, 4), (10, 10), 3),  # one extra row/col of zeros
        ("SAME", 3, (3, 3), (9, 8), 2),
        ("VALID", 1, (3, 4), (5, 6), 3),
    ],
)
def test_conv2d_backprop_input(padding, strides, in_hw, out_hw, k, tmp_path):
    g = Graph()
    x = g.placeholder("x", np.float32, [1, *in_hw, 4])
    w = g.const("w", _r(k, k, 2, 4))  # [kh, kw, out channels, in channels]
    sizes = g.const("sizes", np.asarray([1, *out_hw, 2], np.int32))
    g.node(
        "Conv2DBackpropInput", "y", [sizes, w, x], strides=[1, strides, strides, 1],
        padding=padding, dilations=[1, 1, 1, 1], data_format="NHWC", T=np.float32,
    )
    check_tf(g, {"x": _r(1, *in_hw, 4)}, tmp_path)


@pytest.mark.parametrize("static", [True, False])
@pytest.mark.parametrize("padding", ["SAME", "VALID"])
def test_conv2d_backprop_input_dynamic_sizes(static, padding, tmp_path):
    """input_sizes computed from the input shape (Keras Conv2DTranspose)."""
    g = Graph()
    x = g.placeholder("x", np.float32, [1, 4, 5, 4] if static else [1, -1, -1, 4])
    w = g.const("w", _r(3, 3, 2, 4))
    s = g.node("Shape", "shape", [x], out_type=np.int32, out_dtype=np.int32)
    hw = g.node(
        "StridedSlice", "hw", [s, g.const("b", np.int32([1])), g.const("e", np.int32([3])),
                               g.const("st", np.int32([1]))],
        Index=np.int32, begin_mask=0, end_mask=0, ellipsis_mask=0, new_axis_mask=0,
        shrink_axis_mask=0,
    )
    hw2 = g.node("Mul", "hw2", [hw, g.const("two", np.int32(2))])
    n = g.const("n", np.int32([1]))
    c = g.const("c", np.int32([2]))
    sizes = g.node("ConcatV2", "sizes", [n, hw2, c, g.const("ax", np.int32(0))], N=3, Tidx=np.int32)
    g.node(
        "Conv2DBackpropInput", "y", [sizes, w, x], strides=[1, 2, 2, 1], padding=padding,
        dilations=[1, 1, 1, 1], T=np.float32,
    )
    check_tf(g, {"x": _r(1, 4, 5, 4)}, tmp_path)


# -- BiasAdd / batch norm ---------------------------------------------------------------


@pytest.mark.parametrize("fmt", ["NHWC", "NCHW"])
def test_bias_add(fmt, tmp_path):
    g = Graph()
    shape = [2, 4, 5, 3] if fmt == "NHWC" else [2, 3, 4, 5]
    x = g.placeholder("x", np.float32, shape)
    g.node("BiasAdd", "y", [x, g.const("b", _r(3))], data_format=fmt)
    check_tf(g, {"x": _r(*shape)}, tmp_path)


@pytest.mark.parametrize("op", ["FusedBatchNorm", "FusedBatchNormV2", "FusedBatchNormV3"])
@pytest.mark.parametrize("fmt", ["NHWC", "NCHW"])
def test_fused_batch_norm(op, fmt, tmp_path):
    g = Graph()
    shape = [2, 4, 5, 3] if fmt == "NHWC" else [2, 3, 4, 5]
    x = g.placeholder("x", np.float32, shape)
    params = [
        g.const("scale", _r(3)), g.const("offset", _r(3)), g.const("mean", _r(3)),
        g.const("var", np.abs(_r(3)) + 0.5),
    ]
    extra = {"U": np.float32} if op != "FusedBatchNorm" else {}
    g.node(op, "bn", [x, *params], epsilon=0.001, is_training=False, data_format=fmt, **extra)
    g.node("Identity", "y", ["bn"])
    check_tf(g, {"x": _r(*shape)}, tmp_path, outputs=["y"])


def test_fused_batch_norm_training(tmp_path):
    g = Graph()
    x = g.placeholder("x", np.float32, [2, 4, 5, 3])
    scale, offset = _r(3), _r(3)
    params = [g.const("scale", scale), g.const("offset", offset),
              g.const("mean", np.zeros(0, np.float32)), g.const("var", np.zeros(0, np.float32))]
    g.node("FusedBatchNormV3", "bn", [x, *params], epsilon=0.001, is_training=True, U=np.float32)
    g.node("Identity", "y", ["bn"])
    xv = _r(2, 4, 5, 3)
    m = xv.mean(axis=(0, 1, 2))
    v = xv.var(axis=(0, 1, 2))
    want = (xv - m) / np.sqrt(v + 0.001) * scale + offset
    check_tf(g, {"x": xv}, tmp_path, outputs=["y"], want=[want], rtol=1e-4, atol=1e-4)


def test_fused_batch_norm_extra_output_used_is_unsupported(tmp_path):
    from tf_graphs import xmo_module
    from xmo.passes.to_ov.report import UnsupportedOpsError

    g = Graph()
    x = g.placeholder("x", np.float32, [1, 2, 2, 3])
    params = [g.const(n, np.ones(3, np.float32)) for n in ("s", "o", "m", "v")]
    g.node("FusedBatchNormV3", "bn", [x, *params], is_training=False, U=np.float32)
    g.node("Identity", "y", ["bn"])
    g.node("Identity", "mean_out", ["bn:1"])
    with pytest.raises(UnsupportedOpsError, match="FusedBatchNormV3"):
        xmo_module(g.save(tmp_path / "m.pb"), ["y", "mean_out"])
    # without the extra output it converts
    xmo_module(tmp_path / "m.pb", ["y"])


def _lrn_reference(x, radius, bias, alpha, beta):
    sq = x.astype(np.float64) ** 2
    c = x.shape[-1]
    s = np.stack([sq[..., max(0, i - radius):i + radius + 1].sum(-1) for i in range(c)], -1)
    return (x / (bias + alpha * s) ** beta).astype(np.float32)


@pytest.mark.parametrize("radius,bias,alpha,beta", [(2, 1.0, 0.3, 0.6), (2, 1.5, 0.3, 0.6), (1, 2.0, 1e-4, 0.75)])
def test_lrn(radius, bias, alpha, beta, tmp_path):
    g = Graph()
    x = g.placeholder("x", np.float32, [1, 3, 3, 8])
    g.node("LRN", "y", [x], depth_radius=radius, bias=bias, alpha=alpha, beta=beta)
    xv = _r(1, 3, 3, 8)
    # OpenVINO's CPU plugin ignores LRN's bias (uses 1): its TF frontend is
    # wrong for bias != 1, so compare with numpy; xmo folds the bias out
    check_tf(g, {"x": xv}, tmp_path, want=[_lrn_reference(xv, radius, bias, alpha, beta)])
    if bias == 1.0:
        check_tf(g, {"x": xv}, tmp_path)


# -- pooling ---------------------------------------------------------------------------------


@pytest.mark.parametrize("op", ["MaxPool", "AvgPool"])
@pytest.mark.parametrize("padding", ["SAME", "VALID"])
@pytest.mark.parametrize("ksize,strides", [((2, 2), (2, 2)), ((3, 3), (2, 2)), ((3, 2), (1, 2))])
@pytest.mark.parametrize("fmt", ["NHWC", "NCHW"])
def test_pool(op, padding, ksize, strides, fmt, tmp_path):
    g = Graph()
    shape = [2, 7, 8, 3] if fmt == "NHWC" else [2, 3, 7, 8]
    x = g.placeholder("x", np.float32, shape)
    if fmt == "NHWC":
        k, s = [1, *ksize, 1], [1, *strides, 1]
    else:
        k, s = [1, 1, *ksize], [1, 1, *strides]
    g.node(op, "y", [x], ksize=k, strides=s, padding=padding, data_format=fmt)
    check_tf(g, {"x": _r(*shape)}, tmp_path)


@pytest.mark.parametrize("op", ["MaxPool3D", "AvgPool3D"])
def test_pool3d(op, tmp_path):
    g = Graph()
    x = g.placeholder("x", np.float32, [1, 5, 6, 7, 2])
    g.node(op, "y", [x], ksize=[1, 2, 3, 2, 1], strides=[1, 2, 2, 2, 1], padding="SAME")
    check_tf(g, {"x": _r(1, 5, 6, 7, 2)}, tmp_path)


def test_max_pool_v2(tmp_path):
    g = Graph()
    x = g.placeholder("x", np.float32, [1, 6, 6, 2])
    g.node(
        "MaxPoolV2", "y", [x, g.const("k", np.int32([1, 3, 3, 1])), g.const("s", np.int32([1, 2, 2, 1]))],
        padding="SAME",
    )
    check_tf(g, {"x": _r(1, 6, 6, 2)}, tmp_path)


# -- resize -------------------------------------------------------------------------------


def _tf_resize_bilinear(x, oh, ow, align, half):
    """numpy reference of TF's ResizeBilinear (legacy and half-pixel scalers)."""
    _, h, w, _ = x.shape

    def scale(i, o):
        return (i - 1) / (o - 1) if align and o > 1 else i / o

    def coords(o, i):
        s = scale(i, o)
        src = (np.arange(o) + 0.5) * s - 0.5 if half else np.arange(o) * s
        lo = np.floor(src).astype(int)
        frac = src - lo
        lo_c = np.clip(lo, 0, i - 1)
        hi_c = np.clip(lo + 1, 0, i - 1)
        return lo_c, hi_c, frac

    y0, y1, fy = coords(oh, h)
    x0, x1, fx = coords(ow, w)
    top = x[:, y0][:, :, x0] * (1 - fx)[None, None, :, None] + x[:, y0][:, :, x1] * fx[None, None, :, None]
    bot = x[:, y1][:, :, x0] * (1 - fx)[None, None, :, None] + x[:, y1][:, :, x1] * fx[None, None, :, None]
    return (top * (1 - fy)[None, :, None, None] + bot * fy[None, :, None, None]).astype(np.float32)


def _tf_resize_nearest(x, oh, ow, align, half):
    _, h, w, _ = x.shape

    def idx(o, i):
        s = (i - 1) / (o - 1) if align and o > 1 else i / o
        if half:
            src = (np.arange(o) + 0.5) * s
        else:
            src = np.arange(o) * s
        k = np.floor(src + 0.5 if align else src).astype(int)  # roundf of non-negatives
        return np.clip(k, 0, i - 1)

    return x[:, idx(oh, h)][:, :, idx(ow, w)]


RESIZE_MODES = [(False, False), (True, False), (False, True)]


@pytest.mark.parametrize("align,half", RESIZE_MODES)
@pytest.mark.parametrize("size", [(8, 10), (3, 2), (5, 7), (1, 1)])
def test_resize_bilinear(align, half, size, tmp_path):
    g = Graph()
    x = g.placeholder("x", np.float32, [1, 4, 5, 2])
    g.node(
        "ResizeBilinear", "y", [x, g.const("size", np.int32(size))],
        align_corners=align, half_pixel_centers=half,
    )
    xv = _r(1, 4, 5, 2)
    want = _tf_resize_bilinear(xv.astype(np.float64), *size, align, half)
    check_tf(g, {"x": xv}, tmp_path, want=[want])
    # OpenVINO's TF frontend agrees
    check_tf(g, {"x": xv}, tmp_path, cpu_backend=False)


@pytest.mark.parametrize("align,half", RESIZE_MODES)
@pytest.mark.parametrize("size", [(8, 10), (3, 2), (7, 9), (1, 1)])
def test_resize_nearest(align, half, size, tmp_path):
    g = Graph()
    x = g.placeholder("x", np.float32, [1, 4, 5, 2])
    g.node(
        "ResizeNearestNeighbor", "y", [x, g.const("size", np.int32(size))],
        align_corners=align, half_pixel_centers=half,
    )
    xv = _r(1, 4, 5, 2)
    want = _tf_resize_nearest(xv, *size, align, half)
    check_tf(g, {"x": xv}, tmp_path, want=[want])


def test_resize_dynamic_size(tmp_path):
    """The size input computed at run time (2 x the input's spatial dims)."""
    g = Graph()
    x = g.placeholder("x", np.float32, [1, -1, -1, 2])
    s = g.node("Shape", "shape", [x], out_type=np.int32, out_dtype=np.int32)
    hw = g.node(
        "StridedSlice", "hw", [s, g.const("b", np.int32([1])), g.const("e", np.int32([3])),
                               g.const("st", np.int32([1]))],
        Index=np.int32,
    )
    size = g.node("Mul", "size", [hw, g.const("two", np.int32(2))])
    g.node("ResizeBilinear", "y", [x, size], half_pixel_centers=True, T=np.float32)
    xv = _r(1, 3, 4, 2)
    want = _tf_resize_bilinear(xv.astype(np.float64), 6, 8, False, True)
    check_tf(g, {"x": xv}, tmp_path, want=[want])


def test_resize_bilinear_int_input_gives_float(tmp_path):
    g = Graph()
    x = g.placeholder("x", np.int32, [1, 2, 2, 1])
    g.node("ResizeBilinear", "y", [x, g.const("size", np.int32([4, 4]))], half_pixel_centers=True)
    xv = np.arange(4, dtype=np.int32).reshape(1, 2, 2, 1)
    want = _tf_resize_bilinear(xv.astype(np.float64), 4, 4, False, True)
    check_tf(g, {"x": xv}, tmp_path, want=[want])


# -- space / depth ---------------------------------------------------------------------------


@pytest.mark.parametrize("fmt", ["NHWC", "NCHW"])
def test_depth_to_space(fmt, tmp_path):
    g = Graph()
    shape = [1, 2, 3, 8] if fmt == "NHWC" else [1, 8, 2, 3]
    x = g.placeholder("x", np.float32, shape)
    g.node("DepthToSpace", "y", [x], block_size=2, data_format=fmt)
    xv = _r(*shape)
    if fmt == "NHWC":  # TF: out[b, h*bs+i, w*bs+j, c] = in[b, h, w, (i*bs+j)*C + c]
        n, h, w, d = xv.shape
        want = xv.reshape(n, h, w, 2, 2, d // 4).transpose(0, 1, 3, 2, 4, 5).reshape(n, h * 2, w * 2, d // 4)
        check_tf(g, {"x": xv}, tmp_path, want=[want])
    check_tf(g, {"x": xv}, tmp_path)


@pytest.mark.parametrize("fmt", ["NHWC", "NCHW"])
def test_space_to_depth(fmt, tmp_path):
    g = Graph()
    shape = [1, 4, 6, 3] if fmt == "NHWC" else [1, 3, 4, 6]
    x = g.placeholder("x", np.float32, shape)
    g.node("SpaceToDepth", "y", [x], block_size=2, data_format=fmt)
    xv = _r(*shape)
    if fmt == "NHWC":
        n, h, w, c = xv.shape
        want = xv.reshape(n, h // 2, 2, w // 2, 2, c).transpose(0, 1, 3, 2, 4, 5).reshape(n, h // 2, w // 2, 4 * c)
        check_tf(g, {"x": xv}, tmp_path, want=[want])
    check_tf(g, {"x": xv}, tmp_path)


@pytest.mark.parametrize("op", ["SpaceToBatchND", "BatchToSpaceND"])
def test_space_batch_nd(op, tmp_path):
    g = Graph()
    if op == "SpaceToBatchND":
        shape = [2, 5, 6, 3]
        pads = np.int32([[1, 0], [1, 1]])
    else:
        shape = [8, 3, 4, 3]
        pads = np.int32([[1, 0], [0, 2]])
    x = g.placeholder("x", np.float32, shape)
    g.node(op, "y", [x, g.const("block", np.int32([2, 2])), g.const("pads", pads)],
           Tblock_shape=np.int32, **{"Tpaddings" if op == "SpaceToBatchND" else "Tcrops": np.int32})
    check_tf(g, {"x": _r(*shape)}, tmp_path)


# -- grappler's fused ops -----------------------------------------------------------------


def _fused_conv_graphs(op, fused, cout):
    """The fused node and the same computation with plain TF ops."""
    w = _r(3, 3, 3, 1) if op == "_FusedDepthwiseConv2dNative" else _r(3, 3, 3, cout)
    bias, bn = _r(cout), [_r(cout), _r(cout), _r(cout), np.abs(_r(cout)) + 0.5]
    graphs = []
    for fused_node in (True, False):
        g = Graph()
        x = g.placeholder("x", np.float32, [1, 6, 6, 3])
        wc = g.const("w", w)
        addend = g.placeholder("addend", np.float32, [1, 6, 6, cout]) if "Add" in fused else None
        conv = {"strides": [1, 1, 1, 1], "padding": "SAME", "dilations": [1, 1, 1, 1]}
        if fused_node:
            args = []
            for f in fused:
                if f == "BiasAdd":
                    args.append(g.const("bias", bias))
                elif f == "FusedBatchNorm":
                    args += [g.const(n, v) for n, v in zip("somv", bn)]
                elif f == "Add":
                    args.append(addend)
            attrs = {"TArgs": [np.float32] * len(args)} if op == "_FusedConv2D" else {}
            g.node(op, "y", [x, wc, *args], num_args=len(args), fused_ops=fused, epsilon=0.001,
                   leakyrelu_alpha=0.3, **conv, **attrs)
        else:
            plain = "Conv2D" if op == "_FusedConv2D" else "DepthwiseConv2dNative"
            y = g.node(plain, "conv", [x, wc], **conv)
            for k, f in enumerate(fused):
                name = "y" if k == len(fused) - 1 else f"f{k}"
                if f == "BiasAdd":
                    y = g.node("BiasAdd", name, [y, g.const("bias", bias)])
                elif f == "FusedBatchNorm":
                    y = g.node("FusedBatchNormV3", name, [y, *(g.const(n, v) for n, v in zip("somv", bn))],
                               epsilon=0.001, is_training=False, U=np.float32)
                elif f == "Add":
                    y = g.node("AddV2", name, [y, addend])
                elif f == "LeakyRelu":
                    y = g.node("LeakyRelu", name, [y], alpha=0.3)
                else:
                    y = g.node(f, name, [y])
        graphs.append(g)
    return graphs


@pytest.mark.parametrize("fused", [["BiasAdd"], ["BiasAdd", "Relu"], ["BiasAdd", "Relu6"],
                                   ["BiasAdd", "LeakyRelu"], ["FusedBatchNorm", "Relu"],
                                   ["BiasAdd", "Add", "Relu"]])
@pytest.mark.parametrize("op", ["_FusedConv2D", "_FusedDepthwiseConv2dNative"])
def test_fused_conv(op, fused, tmp_path):
    from tf_graphs import reference

    if op == "_FusedDepthwiseConv2dNative" and "Add" in fused:
        pytest.skip("TF fuses no Add into depthwise convolutions")
    cout = 3 if op == "_FusedDepthwiseConv2dNative" else 4
    g, plain = _fused_conv_graphs(op, fused, cout)
    feeds = {"x": _r(1, 6, 6, 3)}
    if "Add" in fused:
        feeds["addend"] = _r(1, 6, 6, cout)
    # OpenVINO's TF frontend converts no _Fused* op: the reference is its
    # conversion of the same computation in plain ops
    want = [v for _, v in reference(plain.save(tmp_path / "plain.pb"), feeds)]
    check_tf(g, feeds, tmp_path, want=want)


@pytest.mark.parametrize("fused", [["BiasAdd"], ["BiasAdd", "Relu"], ["BiasAdd", "Tanh"]])
def test_fused_matmul(fused, tmp_path):
    from tf_graphs import reference

    bv, biasv = _r(4, 5), _r(4)
    graphs = []
    for fused_node in (True, False):
        g = Graph()
        a = g.placeholder("a", np.float32, [3, 5])
        b, bias = g.const("b", bv), g.const("bias", biasv)
        if fused_node:
            g.node("_FusedMatMul", "y", [a, b, bias], transpose_b=True, num_args=1, fused_ops=fused)
        else:
            y = g.node("MatMul", "mm", [a, b], transpose_b=True)
            y = g.node("BiasAdd", "y" if len(fused) == 1 else "ba", [y, bias])
            if len(fused) > 1:
                g.node(fused[1], "y", [y])
        graphs.append(g)
    feeds = {"a": _r(3, 5)}
    want = [v for _, v in reference(graphs[1].save(tmp_path / "plain.pb"), feeds)]
    check_tf(graphs[0], feeds, tmp_path, want=want)


def test_conv3d_backprop_input_v2(tmp_path):
    g = Graph()
    x = g.placeholder("x", np.float32, [1, 3, 4, 4, 4])
    w = g.const("w", _r(2, 3, 3, 2, 4))
    sizes = g.const("sizes", np.int32([1, 6, 8, 7, 2]))
    g.node("Conv3DBackpropInputV2", "y", [sizes, w, x], strides=[1, 2, 2, 2, 1], padding="SAME",
           dilations=[1, 1, 1, 1, 1], T=np.float32, Tshape=np.int32)
    check_tf(g, {"x": _r(1, 3, 4, 4, 4)}, tmp_path)
