"""Object detection ONNX ops: NonMaxSuppression."""

from __future__ import annotations

import numpy as np
from xdsl.ir import SSAValue
from xmo.dialects.ov.base import DYN, tensor
from xmo.passes.onnx_to_ov.builder import Builder, Node
from xmo.passes.to_ov.helpers import scalar
from xmo.passes.onnx_to_ov.registry import converter


def _scalar_input(node: Node, b: Builder, i: int, etype: str) -> SSAValue:
    """Optional 1-element input ``i`` as a scalar of ``etype``."""
    return b.convert(b.reshape(node.input(i), []), etype)


#: smallest positive normal f32 (CPU kernels may flush denormals)
_TINY = float(np.finfo(np.float32).tiny)


def _strict_threshold(node: Node, b: Builder, ft: str) -> SSAValue:
    """ONNX suppresses a box when IoU > iou_threshold; OpenVINO's NMS when
    IoU >= iou_threshold: the threshold moves up by one f32 ulp (exactly for
    a constant, through ``t + max(|t| * 2**-24, tiny)`` at run time)."""
    const = node.const(3) if node.has_input(3) else np.zeros(1, np.float32)
    if const is not None:
        t = np.float32(np.asarray(const).reshape(-1)[0])
        t = max(np.nextafter(t, np.float32(np.inf), dtype=np.float32), np.float32(_TINY)) if t >= 0 \
            else np.nextafter(t, np.float32(np.inf), dtype=np.float32)
        return scalar(b, float(t), ft)
    t = _scalar_input(node, b, 3, ft)
    step = b.out("Multiply", [b.out("Abs", [t]), scalar(b, 2.0**-24, ft)])
    step = b.out("Maximum", [step, scalar(b, _TINY, ft)])
    return b.out("Add", [t, step])


@converter("NonMaxSuppression", min_version=10)
def non_max_suppression(node: Node, b: Builder):
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
    selected, valid = nms.results[0], nms.results[2]
    # keep only the valid rows (a plugin may pad the output with -1)
    return b.out("Slice", [selected, b.i64([0]), valid, b.i64([1]), b.i64([0])])
