"""Image ops: ResizeBilinear, ResizeNearestNeighbor, ResizeBicubic,
SpaceToDepth, DepthToSpace.

Resizes work on axes 1 and 2 of the NHWC image directly (Interpolate-11 takes
any axes, so no layout transposes). TF's source coordinates map onto
Interpolate's coordinate transformation modes:

==================  ==================  =====================================
align_corners       half_pixel_centers  Interpolate (bilinear / nearest)
==================  ==================  =====================================
False               False               asymmetric / asymmetric + floor
True                False               align_corners / align_corners +
                                        round_prefer_ceil (TF rounds half up)
False               True                half_pixel / tf_half_pixel_for_nn +
                                        floor
==================  ==================  =====================================

ResizeBilinear computes and returns float32 whatever the input type.

ResizeBicubic is not an Interpolate: TensorFlow's kernel differs from
OpenVINO's cubic mode in three ways -- with half_pixel_centers it uses Keys'
coefficient -0.5 (else -0.75) *and* gives the taps outside the image weight 0,
renormalizing the other taps (Interpolate repeats the edge pixel), and it
reads its weights from a 1024-entry table (the fractional source position is
rounded to 1/1024). So each axis is resampled separably as TF does: a
Gather of the 4 taps of every output position, multiplied by their weights
and summed; indices and weights are small sub-graphs of the sizes (constants
after folding when the sizes are static), the weights gathered from TF's own
table.
Space/depth ops move the channel blocks in TF's order ``(block_y, block_x,
channel)``, which is OpenVINO's ``blocks_first``.
"""

from __future__ import annotations

import numpy as np
from xdsl.ir import SSAValue
from xmo.passes.tf_to_ov.builder import TFBuilder
from xmo.passes.tf_to_ov.layout import Layout
from xmo.passes.tf_to_ov.registry import tf_converter
from xmo.passes.to_ov.builder import ConverterNode


def _sizes(node: ConverterNode, b: TFBuilder):
    c = node.const(1)
    if c is not None:
        return b.i64([int(v) for v in c.reshape(-1)])
    return b.convert(node.input(1), "i64")


def _resize(node: ConverterNode, b: TFBuilder, x, mode: str):
    if node.rank(0) not in (None, 4):
        raise node.unsupported("images must be 4-D (NHWC)")
    align = bool(node.attr("align_corners", False))
    half = bool(node.attr("half_pixel_centers", False))
    if align and half:
        raise node.unsupported("align_corners and half_pixel_centers are both set")
    if mode == "linear_onnx":
        ctm = "align_corners" if align else "half_pixel" if half else "asymmetric"
        nearest = "floor"
    else:
        ctm = "align_corners" if align else "tf_half_pixel_for_nn" if half else "asymmetric"
        nearest = "round_prefer_ceil" if align else "floor"
    attrs = {
        "mode": mode,
        "shape_calculation_mode": "sizes",
        "coordinate_transformation_mode": ctm,
        "nearest_mode": nearest,
        "antialias": False,
        "cube_coeff": -0.75,
        "pads_begin": [0, 0, 0, 0],
        "pads_end": [0, 0, 0, 0],
    }
    return b.out("Interpolate", [x, _sizes(node, b), b.i64([1, 2])], attrs)


@tf_converter("ResizeBilinear")
def resize_bilinear(node: ConverterNode, b: TFBuilder):
    x = b.convert(node.input(0), "f32")
    return _resize(node, b, x, "linear_onnx")


@tf_converter("ResizeNearestNeighbor")
def resize_nearest(node: ConverterNode, b: TFBuilder):
    return _resize(node, b, node.input(0), "nearest")


#: entries of TF's cubic coefficient table (resize_bicubic_op.cc kTableSize)
_TABLE_SIZE = 1024


def _cubic_table(a: float) -> np.ndarray:
    """TF's ``InitCoeffsTable(a)``, flattened: entry ``2i`` is the weight of a tap
    at distance ``i / 1024`` (< 1), ``2i + 1`` at ``1 + i / 1024`` (computed in
    double, stored as float, as TF does)."""
    x = (np.arange(_TABLE_SIZE + 1) / _TABLE_SIZE).astype(np.float32).astype(np.float64)
    near = ((a + 2) * x - (a + 3)) * x * x + 1
    x1 = (x.astype(np.float32) + np.float32(1.0)).astype(np.float64)
    far = ((a * x1 - 5 * a) * x1 + 8 * a) * x1 - 4 * a
    return np.stack([near, far], axis=1).astype(np.float32).reshape(-1)


def _f32(b: TFBuilder, v: float) -> SSAValue:
    return b.const(np.asarray(v, dtype=np.float32), "f32")


def _dim(node: ConverterNode, b: TFBuilder, axis: int) -> SSAValue:
    """Dim ``axis`` of input 0 as an i64 scalar (a constant when static)."""
    s = node.shape(0)
    if s is not None and s[axis] >= 0:
        return b.i64(s[axis])
    return b.reshape(b.gather(b.shape_of(node.input(0)), [axis], 0), [])


def _cubic_axis(
    b: TFBuilder, x: SSAValue, axis: int, rank: int, in_size: SSAValue, out_size: SSAValue,
    align: bool, half: bool,
) -> SSAValue:
    """``x`` resampled along ``axis`` from ``in_size`` to ``out_size`` (i64
    scalars) as TF's ResizeBicubic does (GetWeightsAndIndices, in float)."""
    fin, fout = b.convert(in_size, "f32"), b.convert(out_size, "f32")
    scale = b.out("Divide", [fin, fout])
    if align:  # (in - 1) / (out - 1) when out > 1
        one = _f32(b, 1.0)
        aligned = b.out("Divide", [b.out("Subtract", [fin, one]), b.out("Subtract", [fout, one])])
        scale = b.out("Select", [b.out("Greater", [out_size, b.i64(1)]), aligned, scale])
    pos = b.out("Range", [_f32(b, 0.0), fout, _f32(b, 1.0)], {"output_type": "f32"})
    if half:
        half_c = _f32(b, 0.5)
        loc = b.out("Subtract", [b.out("Multiply", [b.out("Add", [pos, half_c]), scale]), half_c])
    else:
        loc = b.out("Multiply", [pos, scale])
    floor = b.out("Floor", [loc])
    delta = b.out("Subtract", [loc, floor])
    scaled = b.out("Multiply", [delta, _f32(b, float(_TABLE_SIZE))])
    offset = b.convert(b.out("Round", [scaled], {"mode": "half_to_even"}), "i64")  # lrintf
    offset = b.unsqueeze(offset, [1])  # [out, 1]
    taps = b.out("Add", [b.unsqueeze(b.convert(floor, "i64"), [1]), b.i64([-1, 0, 1, 2])])
    limit = b.out("Subtract", [in_size, b.i64(1)])
    index = b.out("Minimum", [b.out("Maximum", [taps, b.i64(0)]), limit])
    # table entries of the taps: 2o + 1, 2o, 2(1024 - o), 2(1024 - o) + 1
    entry = b.out("Add", [b.out("Multiply", [offset, b.i64([2, 2, -2, -2])]),
                          b.i64([1, 0, 2 * _TABLE_SIZE, 2 * _TABLE_SIZE + 1])])
    table = b.const(_cubic_table(-0.5 if half else -0.75), "f32")
    w = b.gather(table, entry, 0)  # [out, 4]
    if half:  # Keys: taps outside the image weigh 0, the others are renormalized
        w = b.out("Select", [b.out("Equal", [index, taps]), w, _f32(b, 0.0)])
        total = b.out("ReduceSum", [w, b.i64([1])], {"keep_dims": True})
        tiny = float(np.float32(1000.0) * np.finfo(np.float32).tiny)
        big = b.out("GreaterEqual", [b.out("Abs", [total]), _f32(b, tiny)])
        inv = b.out("Divide", [_f32(b, 1.0), total])
        w = b.out("Select", [big, b.out("Multiply", [w, inv]), w])
    picked = b.gather(x, index, axis)  # [..., out, 4, ...]
    if rank - axis - 1:
        w = b.unsqueeze(w, list(range(2, 2 + rank - axis - 1)))
    return b.out("ReduceSum", [b.out("Multiply", [picked, w]), b.i64([axis + 1])], {"keep_dims": False})


@tf_converter("ResizeBicubic")
def resize_bicubic(node: ConverterNode, b: TFBuilder):
    if node.rank(0) != 4:
        raise node.unsupported("images must be 4-D (NHWC) of static rank")
    align = bool(node.attr("align_corners", False))
    half = bool(node.attr("half_pixel_centers", False))
    if align and half:
        raise node.unsupported("align_corners and half_pixel_centers are both set")
    c = node.const(1)
    if c is not None:
        out_h, out_w = (b.i64(int(v)) for v in np.asarray(c).reshape(-1)[:2])
    else:
        size = b.convert(node.input(1), "i64")
        out_h, out_w = (b.reshape(b.gather(size, [i], 0), []) for i in (0, 1))
    in_h, in_w = _dim(node, b, 1), _dim(node, b, 2)
    y = b.convert(node.input(0), "f32")
    y = _cubic_axis(b, y, 1, 4, in_h, out_h, align, half)
    return _cubic_axis(b, y, 2, 4, in_w, out_w, align, half)


def _space_depth(ov_type: str):
    def convert(node: ConverterNode, b: TFBuilder):
        if node.data_format not in ("NHWC", "NCHW"):
            raise node.unsupported(f"data_format {node.data_format}")
        if node.rank(0) not in (None, 4):
            raise node.unsupported("input must be 4-D")
        lay = Layout(node, b, 4)
        y = b.out(
            ov_type,
            [lay.enter(node.input(0))],
            {"mode": "blocks_first", "block_size": int(node.attr("block_size"))},
        )
        return lay.leave(y)

    return convert


tf_converter("SpaceToDepth")(_space_depth("SpaceToDepth"))
tf_converter("DepthToSpace")(_space_depth("DepthToSpace"))
