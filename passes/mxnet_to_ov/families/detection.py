"""SSD: ``_contrib_MultiBoxPrior`` (anchors, computed at conversion time: they
depend only on the feature map's static size) and ``_contrib_MultiBoxDetection``
(box decoding, per-class NMS with OpenVINO's NonMaxSuppression).

MultiBoxDetection's output has MXNet's shape ``[N, A, 6]``, rows ``(class,
score, xmin, ymin, xmax, ymax)``, class -1 for anchors below ``threshold`` or
suppressed; the kept rows (class >= 0) equal MXNet's, but the rows stay in
anchor order where MXNet sorts them by decreasing score (compare the kept
rows sorted: a TopK + batched Gather sorting them made OpenVINO's CPU plugin
return wrong rows and crash, 2026.x). The selection is matched to anchors by
comparing ``[selected, N*A]``: memory grows with the product.
"""

from __future__ import annotations

import numpy as np
from xdsl.ir import SSAValue

from xmo.dialects.ov.base import tensor
from xmo.passes.mxnet_to_ov import attrs as A
from xmo.passes.mxnet_to_ov.registry import mxnet_converter
from xmo.passes.to_ov.builder import Builder, ConverterNode
from xmo.passes.to_ov.helpers import slice_axis, strict_iou_threshold


def multibox_prior(
    height: int, width: int, sizes: list[float], ratios: list[float],
    steps: list[float], offsets: list[float], clip: bool,
) -> np.ndarray:
    """MXNet's anchors ``[1, H*W*(len(sizes)+len(ratios)-1), 4]`` (corners, 0..1)."""
    step_y = steps[0] if steps[0] > 0 else 1.0 / height
    step_x = steps[1] if steps[1] > 0 else 1.0 / width
    cy = (np.arange(height, dtype=np.float64) + offsets[0]) * step_y
    cx = (np.arange(width, dtype=np.float64) + offsets[1]) * step_x
    halves = []
    r0 = np.sqrt(ratios[0])
    for s in sizes:
        halves.append((s * height / width * r0 / 2, s / r0 / 2))
    for r in ratios[1:]:
        rr = np.sqrt(r)
        halves.append((sizes[0] * height / width * rr / 2, sizes[0] / rr / 2))
    hw = np.asarray(halves, np.float64)  # [K, 2] (w, h)
    gy, gx = np.meshgrid(cy, cx, indexing="ij")  # [H, W]
    c = np.stack([gx, gy], -1)[:, :, None, :]  # [H, W, 1, 2]
    boxes = np.concatenate([c - hw, c + hw], -1).astype(np.float32)  # [H, W, K, 4]
    if clip:
        boxes = np.clip(boxes, 0.0, 1.0)
    return boxes.reshape(1, -1, 4)


@mxnet_converter("_contrib_MultiBoxPrior", "MultiBoxPrior")
def multibox_prior_op(node: ConverterNode, b: Builder):
    dims = node.shape(0)
    if dims is None or len(dims) != 4 or dims[2] <= 0 or dims[3] <= 0:
        raise node.unsupported("the feature map needs a static [N, C, H, W] shape")
    sizes = A.numbers(node, "sizes", [1.0]) or [1.0]
    ratios = A.numbers(node, "ratios", [1.0]) or [1.0]
    steps = A.numbers(node, "steps", [-1.0, -1.0])
    offsets = A.numbers(node, "offsets", [0.5, 0.5])
    if len(steps) != 2 or len(offsets) != 2:
        raise node.unsupported("steps and offsets take two values")
    anchors = multibox_prior(dims[2], dims[3], sizes, ratios, steps, offsets, A.flag(node, "clip", False))
    return b.const(anchors, node.etype(0))


@mxnet_converter("_contrib_MultiBoxDetection", "MultiBoxDetection")
def multibox_detection(node: ConverterNode, b: Builder):
    cls, loc, anchors = node.input(0), node.input(1), node.input(2)
    cs = node.shape(0)
    if cs is None or len(cs) != 3 or cs[1] < 2 or cs[2] < 0:
        raise node.unsupported("cls_prob must be [N, classes, anchors] with static classes and anchors")
    if A.integer(node, "background_id", 0) != 0:
        raise node.unsupported("background_id other than 0")
    if (A.integer(node, "nms_topk", -1) or -1) > 0:
        raise node.unsupported("nms_topk")
    n_cls, n_anchor = cs[1] - 1, cs[2]
    et = node.etype(0)
    thr = A.number(node, "threshold", 0.01)
    var = A.numbers(node, "variances", [0.1, 0.1, 0.2, 0.2])
    if len(var) != 4:
        raise node.unsupported("variances take four values")

    # the best foreground class of each anchor: [N, 1, A]
    fg = slice_axis(b, cls, 1, cs[1], 1)
    top = b.op("TopK", [fg, b.i64(1)], {"axis": 1, "mode": "max", "sort": "value",
                                         "index_element_type": "i64"}, num_outputs=2)
    score, cid = b.squeeze(top.results[0], [1]), b.squeeze(top.results[1], [1])  # [N, A]

    # decoded boxes [N, A, 4]
    a = b.reshape(anchors, [1, n_anchor, 4])
    d = b.reshape(loc, [0, n_anchor, 4], special_zero=True)

    def col(v: SSAValue, i: int) -> SSAValue:
        return slice_axis(b, v, i, i + 1, 2)

    def k(v: float) -> SSAValue:
        return b.const(np.asarray(v, np.float32), et)

    aw = b.out("Subtract", [col(a, 2), col(a, 0)])
    ah = b.out("Subtract", [col(a, 3), col(a, 1)])
    ax = b.out("Add", [col(a, 0), b.out("Multiply", [aw, k(0.5)])])
    ay = b.out("Add", [col(a, 1), b.out("Multiply", [ah, k(0.5)])])
    ox = b.out("Add", [b.out("Multiply", [b.out("Multiply", [col(d, 0), k(var[0])]), aw]), ax])
    oy = b.out("Add", [b.out("Multiply", [b.out("Multiply", [col(d, 1), k(var[1])]), ah]), ay])
    ow = b.out("Multiply", [b.out("Multiply", [b.out("Exp", [b.out("Multiply", [col(d, 2), k(var[2])])]), aw]), k(0.5)])
    oh = b.out("Multiply", [b.out("Multiply", [b.out("Exp", [b.out("Multiply", [col(d, 3), k(var[3])])]), ah]), k(0.5)])
    boxes = b.concat([b.out("Subtract", [ox, ow]), b.out("Subtract", [oy, oh]),
                      b.out("Add", [ox, ow]), b.out("Add", [oy, oh])], 2)
    if A.flag(node, "clip", True):
        boxes = b.out("Clamp", [boxes], {"min": 0.0, "max": 1.0})

    # NMS per class (force_suppress: across classes) of the anchors above threshold
    valid = b.out("GreaterEqual", [score, k(thr)])
    masked = b.out("Select", [valid, score, k(0.0)])
    if A.flag(node, "force_suppress", False):
        per_class = b.unsqueeze(masked, [1])
    else:
        classes = b.i64(np.arange(n_cls).reshape(1, n_cls, 1).tolist())
        hit = b.out("Equal", [b.unsqueeze(cid, [1]), classes])
        per_class = b.out("Select", [hit, b.unsqueeze(masked, [1]), k(0.0)])  # [N, C, A]
    iou = strict_iou_threshold(b, np.asarray(A.number(node, "nms_threshold", 0.5)), None, et)
    nms = b.op("NonMaxSuppression", [boxes, per_class, b.i64([n_anchor]), iou, k(thr)],
               {"box_encoding": "corner", "sort_result_descending": False, "output_type": "i64"},
               result_types=[tensor("i64", [-1, 3]), tensor(et, [-1, 3]), tensor("i64", [1])])
    keep = _kept(b, nms.results[0], nms.results[2], score, n_anchor)
    label = b.out("Select", [keep, b.convert(cid, et), k(-1.0)])
    return b.concat([b.unsqueeze(label, [2]), b.unsqueeze(score, [2]), boxes], 2)  # [N, A, 6]


def _kept(b: Builder, sel: SSAValue, valid: SSAValue, score: SSAValue, n_anchor: int) -> SSAValue:
    """``[N, A]`` booleans: the anchors NonMaxSuppression selected. Its first
    ``valid`` rows ``(batch, class, anchor)`` count; every row is compared with
    every anchor rather than scattered (a ScatterNDUpdate of the selection, or
    of a Slice of it to ``valid`` rows, gave OpenVINO's CPU plugin wrong counts
    and crashes)."""
    flat = b.out("Add", [b.out("Multiply", [b.gather(sel, [0], 1), b.i64(n_anchor)]),
                         b.gather(sel, [2], 1)])  # [M, 1]
    rows = b.out("Range", [b.i64(0), b.reshape(b.gather(b.shape_of(sel), [0], 0), []), b.i64(1)],
                 {"output_type": "i64"})
    live = b.unsqueeze(b.out("Less", [rows, b.reshape(valid, [])]), [1])  # [M, 1]
    total = b.reshape(b.out("Multiply", [b.gather(b.shape_of(score), [0], 0), b.i64([n_anchor])]), [])
    every = b.unsqueeze(b.out("Range", [b.i64(0), total, b.i64(1)], {"output_type": "i64"}), [0])
    hit = b.out("LogicalAnd", [b.out("Equal", [flat, every]), live])  # [M, N*A]
    count = b.out("ReduceSum", [b.convert(hit, "i32"), b.i64([0])], {"keep_dims": False})
    return b.reshape(b.out("Greater", [count, b.const(np.asarray(0, np.int32), "i32")]),
                     b.shape_of(score))
