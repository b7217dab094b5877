"""Object detection ops: NonMaxSuppression (V1 to V5), CropAndResize.

NonMaxSuppression* take one class of boxes (``[num_boxes, 4]``, any pair of
corners ``y1, x1, y2, x2``): OpenVINO's NonMaxSuppression-9 on a batch of one
class, its selected ``[batch, class, box]`` rows cut to the valid count and
reduced to the box column. TensorFlow suppresses a box when its IoU with a
selected one is above ``iou_threshold`` (OpenVINO: at or above; the threshold
moves up one ulp, as for ONNX), keeps scores above ``score_threshold`` (as
OpenVINO) and, with ``soft_nms_sigma > 0`` (V5), only decays the scores (as
OpenVINO). ``pad_to_max_output_size`` pads the outputs with zeros.

CropAndResize samples each box at TF's positions (``y1 * (H - 1) + i *
(y2 - y1) * (H - 1) / (crop_h - 1)``, the box centre for a size of 1) with
Gathers from the image seen as ``[B * H * W, C]`` rows: bilinear from the 4
neighbours (TF's order of operations) or the nearest one (``roundf``), the
positions outside the image giving ``extrapolation_value``.
"""

from __future__ import annotations

import numpy as np
from xdsl.ir import SSAValue
from xmo.dialects.ov.base import DYN, tensor
from xmo.passes.tf_to_ov.builder import TFBuilder
from xmo.passes.tf_to_ov.registry import tf_converter
from xmo.passes.to_ov.builder import ConverterNode, value_etype
from xmo.passes.to_ov.helpers import scalar, strict_iou_threshold, valid_rows

#: version -> (inputs after boxes/scores/max_output_size, outputs)
_NMS = {
    "NonMaxSuppression": ((), 1),
    "NonMaxSuppressionV2": (("iou",), 1),
    "NonMaxSuppressionV3": (("iou", "score"), 1),
    "NonMaxSuppressionV4": (("iou", "score"), 2),
    "NonMaxSuppressionV5": (("iou", "score", "sigma"), 3),
}


def _f32_scalar(node: ConverterNode, b: TFBuilder, i: int) -> SSAValue:
    return b.reshape(b.convert(node.input(i), "f32"), [])


@tf_converter(*_NMS)
def non_max_suppression(node: ConverterNode, b: TFBuilder):
    extra, n_out = _NMS[node.type]
    boxes, scores = node.input(0), node.input(1)
    if node.rank(0) not in (None, 2) or node.rank(1) not in (None, 1):
        raise node.unsupported("boxes must be [num_boxes, 4] and scores [num_boxes]")
    max_out = b.reshape(b.convert(node.input(2), "i64"), [])
    if "iou" in extra:
        c = node.const(3)
        iou = strict_iou_threshold(b, c, None if c is not None else _f32_scalar(node, b, 3))
    else:
        iou = strict_iou_threshold(b, np.float32(node.attr("iou_threshold", 0.5)), None)
    lowest = float(np.finfo(np.float32).min)  # TF's default: every finite score
    score = _f32_scalar(node, b, 4) if "score" in extra else scalar(b, lowest, "f32")
    sigma = _f32_scalar(node, b, 5) if "sigma" in extra else scalar(b, 0.0, "f32")
    nms = b.op(
        "NonMaxSuppression",
        [b.unsqueeze(boxes, [0]), b.unsqueeze(scores, [0, 1]), max_out, iou, score, sigma],
        # one class of one batch: the rows come in selection order
        {"box_encoding": "corner", "sort_result_descending": False, "output_type": "i32"},
        result_types=[tensor("i32", [DYN, 3]), tensor("f32", [DYN, 3]), tensor("i32", [1])],
    )
    valid = nms.results[2]
    selected = b.gather(valid_rows(b, nms.results[0], valid), b.i64(2), 1)
    picked = b.gather(valid_rows(b, nms.results[1], valid), b.i64(2), 1)
    picked = b.convert(picked, value_etype(scores))
    if n_out > 1 and node.attr("pad_to_max_output_size", False):
        pad = b.out("Subtract", [b.reshape(max_out, [1]), b.convert(valid, "i64")])
        selected, picked = (
            b.out("Pad", [v, b.i64([0]), pad, scalar(b, 0, value_etype(v))], {"pad_mode": "constant"})
            for v in (selected, picked)
        )
    count = b.reshape(valid, [])
    return {1: [selected], 2: [selected, count], 3: [selected, picked, count]}[n_out]


def _axis_positions(
    b: TFBuilder, lo: SSAValue, hi: SSAValue, size: SSAValue, crop: SSAValue, crop_c: int | None
) -> SSAValue:
    """Source positions ``[num_boxes, crop]`` along one image axis of ``size``
    pixels (f32 scalars / vectors as TF computes them)."""
    one = b.const(np.float32(1.0), "f32")
    last = b.out("Subtract", [size, one])  # image_size - 1
    centre = b.out("Multiply", [b.out("Multiply", [b.const(np.float32(0.5), "f32"),
                                                   b.out("Add", [lo, hi])]), last])
    centre = b.unsqueeze(centre, [1])
    if crop_c == 1:
        return centre
    step = b.out("Divide", [b.out("Multiply", [b.out("Subtract", [hi, lo]), last]),
                            b.out("Subtract", [crop, one])])
    i = b.out("Range", [b.const(np.float32(0.0), "f32"), crop, one], {"output_type": "f32"})
    pos = b.out("Add", [b.unsqueeze(b.out("Multiply", [lo, last]), [1]),
                        b.out("Multiply", [b.unsqueeze(i, [0]), b.unsqueeze(step, [1])])])
    if crop_c is None:  # a size known at run time: the centre when it is 1
        pos = b.out("Select", [b.out("Greater", [crop, one]), pos, centre])
    return pos


@tf_converter("CropAndResize")
def crop_and_resize(node: ConverterNode, b: TFBuilder):
    method = node.str_attr("method", "bilinear")
    if method not in ("bilinear", "nearest"):
        raise node.unsupported(f"method {method}")
    if node.rank(0) not in (None, 4):
        raise node.unsupported("image must be 4-D (NHWC)")
    image = b.convert(node.input(0), "f32")
    boxes = b.convert(node.input(1), "f32")
    crop = node.const(3)
    crop_c = [int(v) for v in np.asarray(crop).reshape(-1)] if crop is not None else [None, None]
    crop_f = b.convert(node.input(3), "f32")
    shape = b.shape_of(image)
    dims_f = b.convert(shape, "f32")
    pos, valid = [], []
    for k, axis in ((0, 1), (1, 2)):  # y: box coords 0 / 2, image axis 1; x: 1 / 3, axis 2
        lo = b.gather(boxes, b.i64(k), 1)
        hi = b.gather(boxes, b.i64(k + 2), 1)
        size = b.gather(dims_f, b.i64(axis), 0)
        p = _axis_positions(b, lo, hi, size, b.gather(crop_f, b.i64(k), 0), crop_c[k])
        last = b.out("Subtract", [size, b.const(np.float32(1.0), "f32")])
        zero = b.const(np.float32(0.0), "f32")
        valid.append(b.out("LogicalAnd", [b.out("GreaterEqual", [p, zero]), b.out("LessEqual", [p, last])]))
        pos.append(p)
    (py, px), (vy, vx) = pos, valid
    # [num_boxes, crop_h, 1] and [num_boxes, 1, crop_w]
    py, vy = b.unsqueeze(py, [2]), b.unsqueeze(vy, [2])
    px, vx = b.unsqueeze(px, [1]), b.unsqueeze(vx, [1])
    h = b.gather(shape, b.i64(1), 0)
    w = b.gather(shape, b.i64(2), 0)
    rows = b.reshape(image, b.concat([b.i64([-1]), b.gather(shape, [3], 0)], 0))  # [B*H*W, C]
    base = b.unsqueeze(b.convert(node.input(2), "i64"), [1, 2])  # [num_boxes, 1, 1]

    def index(v: SSAValue, size: SSAValue) -> SSAValue:
        """Clamped i64 pixel index of integral positions (outside ones are masked)."""
        i = b.convert(v, "i64")
        return b.out("Minimum", [b.out("Maximum", [i, b.i64(0)]), b.out("Subtract", [size, b.i64(1)])])

    def pixels(yi: SSAValue, xi: SSAValue) -> SSAValue:  # [num_boxes, crop_h, crop_w, C]
        flat = b.out("Add", [b.out("Multiply", [b.out("Add", [b.out("Multiply", [base, h]), yi]), w]), xi])
        return b.gather(rows, flat, 0)

    def lerp(a: SSAValue, c: SSAValue, t: SSAValue) -> SSAValue:
        return b.out("Add", [a, b.out("Multiply", [b.out("Subtract", [c, a]), t])])

    if method == "nearest":
        ry = b.out("Round", [py], {"mode": "half_away_from_zero"})  # roundf
        rx = b.out("Round", [px], {"mode": "half_away_from_zero"})
        out = pixels(index(ry, h), index(rx, w))
    else:
        top_f, left_f = b.out("Floor", [py]), b.out("Floor", [px])
        top, bottom = index(top_f, h), index(b.out("Ceiling", [py]), h)
        left, right = index(left_f, w), index(b.out("Ceiling", [px]), w)
        y_lerp = b.unsqueeze(b.out("Subtract", [py, top_f]), [3])
        x_lerp = b.unsqueeze(b.out("Subtract", [px, left_f]), [3])
        upper = lerp(pixels(top, left), pixels(top, right), x_lerp)
        lower = lerp(pixels(bottom, left), pixels(bottom, right), x_lerp)
        out = lerp(upper, lower, y_lerp)
    inside = b.unsqueeze(b.out("LogicalAnd", [vy, vx]), [3])
    fill = b.const(np.float32(node.attr("extrapolation_value", 0.0)), "f32")
    return b.out("Select", [inside, out, fill])
