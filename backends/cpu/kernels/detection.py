"""Detection ops: Bucketize and NonMaxSuppression (opset5 / opset9 semantics)."""

from __future__ import annotations

import heapq

import numpy as np
from xmo.backends.cpu.kernels._common import scalar
from xmo.backends.cpu.node import KernelNode
from xmo.backends.cpu.registry import register_kernel


@register_kernel("ov.Bucketize")
def _bucketize(node: KernelNode, data: np.ndarray, buckets: np.ndarray) -> np.ndarray:
    # with_right_bound: bucket i holds buckets[i-1] < x <= buckets[i] (numpy's
    # "left" side); else buckets[i-1] <= x < buckets[i] ("right")
    side = "left" if node.attr("with_right_bound", True) else "right"
    b = np.asarray(buckets).reshape(-1)
    out = np.searchsorted(b, data, side=side)
    return out.astype(node.out_dtype(0, np.int64))


def _corners(boxes: np.ndarray, center: bool) -> np.ndarray:
    """[..., 4] boxes as (ymin, xmin, ymax, xmax) in float64."""
    b = boxes.astype(np.float64)
    if center:  # x_center, y_center, width, height
        xc, yc, w, h = b[..., 0], b[..., 1], b[..., 2], b[..., 3]
        return np.stack([yc - h / 2, xc - w / 2, yc + h / 2, xc + w / 2], axis=-1)
    y1, x1, y2, x2 = b[..., 0], b[..., 1], b[..., 2], b[..., 3]
    return np.stack([np.minimum(y1, y2), np.minimum(x1, x2),
                     np.maximum(y1, y2), np.maximum(x1, x2)], axis=-1)


def _iou(a: np.ndarray, b: np.ndarray) -> float:
    area_a = (a[2] - a[0]) * (a[3] - a[1])
    area_b = (b[2] - b[0]) * (b[3] - b[1])
    if area_a <= 0 or area_b <= 0:
        return 0.0
    ih = max(min(a[2], b[2]) - max(a[0], b[0]), 0.0)
    iw = max(min(a[3], b[3]) - max(a[1], b[1]), 0.0)
    inter = ih * iw
    return float(inter / (area_a + area_b - inter))


def _nms_class(
    boxes: np.ndarray, scores: np.ndarray, max_out: int, iou_t: float, score_t: float, sigma: float
) -> list[tuple[int, float]]:
    """Greedy (soft) NMS of one class: (box index, score) in selection order."""
    soft = sigma > 0
    scale = -0.5 / sigma if soft else 0.0
    # max-heap on score, the lower index first on ties
    heap = [(-float(s), i, 0) for i, s in enumerate(scores) if s > score_t]
    heapq.heapify(heap)
    selected: list[tuple[int, float]] = []
    while heap and len(selected) < max_out:
        neg, i, begin = heapq.heappop(heap)
        score = original = -neg
        hard = False
        for j in range(len(selected) - 1, begin - 1, -1):
            iou = _iou(boxes[i], boxes[selected[j][0]])
            if not soft and iou >= iou_t:
                hard = True
                break
            if soft:
                score *= float(np.exp(scale * iou * iou))
            if score <= score_t:
                break
        if hard:
            continue
        if score == original:
            selected.append((i, score))
        elif score > score_t:
            heapq.heappush(heap, (-score, i, len(selected)))
    return selected


@register_kernel("ov.NonMaxSuppression", "ov.NonMaxSuppression_opset5")
def _nms(node: KernelNode, boxes: np.ndarray, scores: np.ndarray, *opt: np.ndarray):
    max_out = int(scalar(opt[0])) if len(opt) > 0 else 0
    iou_t = float(scalar(opt[1])) if len(opt) > 1 else 0.0
    score_t = float(scalar(opt[2])) if len(opt) > 2 else float("-inf")
    sigma = float(scalar(opt[3])) if len(opt) > 3 else 0.0
    corners = _corners(boxes, str(node.attr("box_encoding", "corner")) == "center")
    rows: list[tuple[int, int, int, float]] = []
    for bi in range(scores.shape[0]):
        for ci in range(scores.shape[1]):
            for i, s in _nms_class(corners[bi], scores[bi, ci], max_out, iou_t, score_t, sigma):
                rows.append((bi, ci, i, s))
    if node.attr("sort_result_descending", True):
        rows.sort(key=lambda r: -r[3])  # stable: batch, class order on ties
    idx_t = node.out_dtype(0, np.int64)
    indices = np.array([r[:3] for r in rows], dtype=idx_t).reshape(-1, 3)
    selected = np.array([(r[0], r[1], r[3]) for r in rows], dtype=node.out_dtype(1, np.float32))
    return indices, selected.reshape(-1, 3), np.array([len(rows)], dtype=node.out_dtype(2, idx_t))
