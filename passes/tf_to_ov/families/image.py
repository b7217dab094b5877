"""Image ops: ResizeBilinear, ResizeNearestNeighbor, SpaceToDepth, DepthToSpace.

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
Space/depth ops move the channel blocks in TF's order ``(block_y, block_x,
channel)``, which is OpenVINO's ``blocks_first``.
"""

from __future__ import annotations

from xmo.passes.tf_to_ov.builder import TFBuilder, TFNode
from xmo.passes.tf_to_ov.layout import Layout
from xmo.passes.tf_to_ov.registry import tf_converter


def _sizes(node: TFNode, b: TFBuilder):
    c = node.const(1)
    if c is not None:
        return b.i64([int(v) for v in c.reshape(-1)])
    return b.convert(node.input(1), "i64")


def _resize(node: TFNode, b: TFBuilder, x, mode: str):
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
def resize_bilinear(node: TFNode, b: TFBuilder):
    x = b.convert(node.input(0), "f32")
    return _resize(node, b, x, "linear_onnx")


@tf_converter("ResizeNearestNeighbor")
def resize_nearest(node: TFNode, b: TFBuilder):
    return _resize(node, b, node.input(0), "nearest")


def _space_depth(ov_type: str):
    def convert(node: TFNode, b: TFBuilder):
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
