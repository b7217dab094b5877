"""Detection ops: Bucketize, NonMaxSuppression (opset5 / opset9 semantics) and
ROIAlign (opset3 / opset9)."""

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


def _iou(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """IoU of box ``a`` with each box of ``b`` ([n, 4] corners); 0 where
    either box is empty."""
    area_a = (a[2] - a[0]) * (a[3] - a[1])
    area_b = (b[:, 2] - b[:, 0]) * (b[:, 3] - b[:, 1])
    ih = np.maximum(np.minimum(a[2], b[:, 2]) - np.maximum(a[0], b[:, 0]), 0.0)
    iw = np.maximum(np.minimum(a[3], b[:, 3]) - np.maximum(a[1], b[:, 1]), 0.0)
    inter = ih * iw
    valid = (area_b > 0) & (area_a > 0)
    union = np.where(valid, area_a + area_b - inter, 1.0)
    return np.where(valid, inter / union, 0.0)


def _candidates(scores: np.ndarray, score_t: float) -> np.ndarray:
    """Indices of the scores above ``score_t``, by decreasing score (the lower
    index first on ties)."""
    cand = np.flatnonzero(scores > score_t)
    return cand[np.argsort(-scores[cand].astype(np.float64), kind="stable")]


def _hard_nms_class(
    boxes: np.ndarray, scores: np.ndarray, max_out: int, iou_t: float, score_t: float
) -> list[tuple[int, float]]:
    """Greedy NMS of one class: each selected box (in score order) removes the
    later candidates overlapping it with IoU >= ``iou_t``."""
    order = _candidates(scores, score_t)
    b = boxes[order]
    alive = np.ones(len(order), bool)
    selected: list[tuple[int, float]] = []
    k = 0
    while len(selected) < max_out:
        rest = np.flatnonzero(alive[k:])
        if not rest.size:
            break
        k += int(rest[0])
        selected.append((int(order[k]), float(scores[order[k]])))
        later = np.flatnonzero(alive[k + 1:]) + k + 1
        alive[later[_iou(b[k], b[later]) >= iou_t]] = False
        k += 1
    return selected


def _soft_nms_class(
    boxes: np.ndarray, scores: np.ndarray, max_out: int, score_t: float, sigma: float
) -> list[tuple[int, float]]:
    """Soft NMS (Gaussian, ``sigma`` > 0) of one class: (box index, score) in
    selection order."""
    scale = -0.5 / sigma
    # max-heap on score, the lower index first on ties
    heap = [(-float(scores[i]), int(i), 0) for i in _candidates(scores, score_t)]
    heapq.heapify(heap)
    selected: list[tuple[int, float]] = []
    while heap and len(selected) < max_out:
        neg, i, begin = heapq.heappop(heap)
        score = original = -neg
        for j in range(len(selected) - 1, begin - 1, -1):
            iou = float(_iou(boxes[selected[j][0]], boxes[i:i + 1])[0])
            score *= float(np.exp(scale * iou * iou))
            if score <= score_t:
                break
        if score == original:
            selected.append((i, score))
        elif score > score_t:
            heapq.heappush(heap, (-score, i, len(selected)))
    return selected


def _nms_class(
    boxes: np.ndarray, scores: np.ndarray, max_out: int, iou_t: float, score_t: float, sigma: float
) -> list[tuple[int, float]]:
    """(Soft) NMS of one class: (box index, score) in selection order."""
    if sigma > 0:
        return _soft_nms_class(boxes, scores, max_out, score_t, sigma)
    return _hard_nms_class(boxes, scores, max_out, iou_t, score_t)


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


#: ROIAlign-9 aligned_mode -> (offset added before scaling, offset added after)
_ROI_OFFSETS = {"asymmetric": (0.0, 0.0), "half_pixel_for_nn": (0.0, -0.5), "half_pixel": (0.5, -0.5)}


def _roi_samples(start: float, size: float, pooled: int, ratio: int, extent: int) -> np.ndarray:
    """The bilinear weights of one ROI's samples along one axis: ``[pooled *
    ratio, extent]``; the row of a sample outside [-1, extent] is zero."""
    bin_size = size / pooled
    pos = (start + np.arange(pooled)[:, None] * bin_size
           + (np.arange(ratio)[None, :] + 0.5) * (bin_size / ratio)).reshape(-1)
    weights = np.zeros((pos.size, extent))
    inside = (pos >= -1.0) & (pos <= extent)
    p = np.maximum(pos, 0.0)
    low = np.floor(p).astype(np.int64)
    last = low >= extent - 1
    low = np.where(last, extent - 1, low)
    p = np.where(last, low, p)
    high = np.where(last, low, low + 1)
    frac = p - low
    rows = np.flatnonzero(inside)
    np.add.at(weights, (rows, low[rows]), 1.0 - frac[rows])
    np.add.at(weights, (rows, high[rows]), frac[rows])
    return weights


@register_kernel("ov.ROIAlign", "ov.ROIAlign_opset3")
def _roi_align(node: KernelNode, data: np.ndarray, rois: np.ndarray, batch: np.ndarray) -> np.ndarray:
    ph, pw = int(node.attr("pooled_h")), int(node.attr("pooled_w"))
    ratio = int(node.attr("sampling_ratio", 0))
    scale = float(node.attr("spatial_scale"))
    aligned = str(node.attr("aligned_mode", "asymmetric"))
    src, dst = _ROI_OFFSETS[aligned]
    use_max = str(node.attr("mode", "avg")) == "max"
    _, channels, height, width = data.shape
    out = np.zeros((rois.shape[0], channels, ph, pw), np.float64)
    for r, (box, b) in enumerate(zip(rois.astype(np.float64), batch.reshape(-1))):
        x1, y1, x2, y2 = (box + src) * scale + dst
        w, h = x2 - x1, y2 - y1
        if aligned == "asymmetric":
            w, h = max(w, 1.0), max(h, 1.0)
        ry = ratio or int(np.ceil(h / ph))
        rx = ratio or int(np.ceil(w / pw))
        if ry <= 0 or rx <= 0:
            continue  # no samples: zeros
        wy = _roi_samples(y1, h, ph, ry, height)
        wx = _roi_samples(x1, w, pw, rx, width)
        # every sample of every channel: [C, ph * ry, pw * rx]
        samples = wy @ data[int(b)].astype(np.float64) @ wx.T
        samples = samples.reshape(channels, ph, ry, pw, rx)
        if use_max:  # the maximum sample, at least 0
            out[r] = np.maximum(samples.max(axis=(2, 4)), 0.0)
        else:
            out[r] = samples.mean(axis=(2, 4))
    return out.astype(node.out_dtype(0, data.dtype))


def _decode_ssd(priors: np.ndarray, var: np.ndarray, loc: np.ndarray, center: bool,
                encoded: bool) -> np.ndarray:
    """Caffe SSD box decoding: [P, 4] priors and variances (corners, x first),
    [P, 4] offsets -> [P, 4] corner boxes (xmin, ymin, xmax, ymax)."""
    p = priors.astype(np.float64)
    v = np.ones_like(var, np.float64) if encoded else var.astype(np.float64)
    d = loc.astype(np.float64) * v
    if not center:
        return p + d
    pw, ph = p[:, 2] - p[:, 0], p[:, 3] - p[:, 1]
    pcx, pcy = (p[:, 0] + p[:, 2]) / 2, (p[:, 1] + p[:, 3]) / 2
    cx, cy = d[:, 0] * pw + pcx, d[:, 1] * ph + pcy
    w, h = np.exp(d[:, 2]) * pw, np.exp(d[:, 3]) * ph
    return np.stack([cx - w / 2, cy - h / 2, cx + w / 2, cy + h / 2], axis=1)


@register_kernel("ov.DetectionOutput")
def _detection_output(node: KernelNode, loc: np.ndarray, conf: np.ndarray, priors: np.ndarray,
                      *_: np.ndarray) -> np.ndarray:
    """SSD's DetectionOutput (Caffe semantics, shared locations): decode, NMS
    per class, keep the ``keep_top_k`` best; rows ``[image, label, score,
    xmin, ymin, xmax, ymax]``, then a row starting with -1 when rows remain."""
    n = loc.shape[0]
    normalized = bool(node.attr("normalized", False))
    per_prior = 4 if normalized else 5
    pri = priors.reshape(priors.shape[0], 2, -1)
    num = pri.shape[2] // per_prior
    classes = conf.shape[1] // num
    if not bool(node.attr("share_location", True)):
        raise ValueError("DetectionOutput: only shared locations are supported")
    center = "CENTER_SIZE" in str(node.attr("code_type", "caffe.PriorBoxParameter.CORNER"))
    encoded = bool(node.attr("variance_encoded_in_target", False))
    background = int(node.attr("background_label_id", 0))
    top_k = int(node.attr("top_k", -1))
    keep = list(node.attr("keep_top_k", [-1]))
    keep_top_k = int(keep[0]) if keep else -1
    iou_t = float(node.attr("nms_threshold", 0.0))
    score_t = float(node.attr("confidence_threshold", 0.0))
    shape = node.out_shapes[0]
    out_rows = int(shape[2]) if shape is not None and len(shape) == 4 else None
    rows: list[list[float]] = []
    for b in range(n):
        pb = pri[b if pri.shape[0] > 1 else 0]
        boxes = _decode_ssd(pb[0].reshape(num, per_prior)[:, -4:], pb[1].reshape(num, per_prior)[:, -4:],
                            loc[b].reshape(num, 4), center, encoded)
        yx = boxes[:, [1, 0, 3, 2]]
        scores = conf[b].reshape(num, classes)
        found: list[tuple[float, int, int]] = []
        for c in range(classes):
            if c == background:
                continue
            sc = scores[:, c].astype(np.float64)
            if 0 < top_k < num:  # only the top_k best scores take part in the NMS
                order = _candidates(sc, score_t)
                kept = np.full(num, -np.inf)
                kept[order[:top_k]] = sc[order[:top_k]]
                sc = kept
            for i, s in _hard_nms_class(yx, sc, num, iou_t, score_t):
                found.append((s, c, i))
        if keep_top_k > -1 and len(found) > keep_top_k:
            found = sorted(found, key=lambda t: -t[0])[:keep_top_k]
        found.sort(key=lambda t: (t[1], -t[0]))
        rows += [[b, c, s, *boxes[i]] for s, c, i in found]
    total = out_rows if out_rows is not None and out_rows >= 0 else len(rows) + 1
    out = np.zeros((1, 1, max(total, 1), 7), dtype=node.out_dtype(0, np.float32))
    k = min(len(rows), out.shape[2])
    if k:
        out[0, 0, :k] = np.asarray(rows[:k], np.float64)
    if k < out.shape[2]:
        out[0, 0, k, 0] = -1
    return out
