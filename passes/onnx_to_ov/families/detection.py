"""Object detection ONNX ops: NonMaxSuppression."""

from __future__ import annotations

import numpy as np
from xdsl.ir import SSAValue
from xmo.dialects.ov.base import DYN, tensor
from xmo.passes.to_ov.builder import Builder, ConverterNode
from xmo.passes.to_ov.helpers import scalar, strict_iou_threshold
from xmo.passes.onnx_to_ov.registry import converter


def _scalar_input(node: ConverterNode, b: Builder, i: int, etype: str) -> SSAValue:
    """Optional 1-element input ``i`` as a scalar of ``etype``."""
    return b.convert(b.reshape(node.input(i), []), etype)


def _strict_threshold(node: ConverterNode, b: Builder, ft: str) -> SSAValue:
    """ONNX suppresses a box when IoU > iou_threshold (see strict_iou_threshold)."""
    const = node.const(3) if node.has_input(3) else np.zeros(1, np.float32)
    runtime = _scalar_input(node, b, 3, ft) if const is None else None
    return strict_iou_threshold(b, const, runtime, ft)


@converter("NonMaxSuppression", min_version=10)
def non_max_suppression(node: ConverterNode, b: Builder):
    boxes, scores = node.input(0), node.input(1)
    ft = node.etype(0)
    # ONNX: absent max_output_boxes_per_class selects nothing (0), absent
    # iou_threshold is 0 and absent score_threshold filters nothing.
    max_out = _scalar_input(node, b, 2, "i64") if node.has_input(2) else b.i64(0)
    # thresholds stay f32 (NMS takes any float type for them)
    iou = _strict_threshold(node, b, "f32")
    if node.has_input(4):
        score = _scalar_input(node, b, 4, "f32")
    else:
        score = scalar(b, float(np.finfo(np.float32).min), "f32")
    center = int(node.attr("center_point_box", 0))
    nms = b.op(
        "NonMaxSuppression",
        [boxes, scores, max_out, iou, score],
        {
            "box_encoding": "center" if center else "corner",
            # ONNX order: batch, then class, then decreasing score
            "sort_result_descending": False,
            "output_type": "i64",
        },
        result_types=[tensor("i64", [DYN, 3]), tensor(ft, [DYN, 3]), tensor("i64", [1])],
    )
    # The selected rows as they are: NonMaxSuppression-9's output is sized at
    # run time to the selected boxes (OpenVINO's CPU plugin and its own ONNX
    # frontend rely on it). A Slice to the valid count here made OpenVINO
    # 2026.4's CPU plugin crash when it sits in an If body followed by a
    # Gather (torchvision's batched_nms; tests/test_detection_models.py).
    return nms.results[0]
