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


@register_kernel("ov.ROIPooling")
def _roi_pooling(node: KernelNode, data: np.ndarray, rois: np.ndarray) -> np.ndarray:
    """Max ROI pooling as Caffe's Fast R-CNN layer: ROI corners scaled and
    rounded (half away from zero), bins of ``size / pooled`` (floor / ceil
    bounds, clipped to the map), an empty bin gives 0; rows of ``rois`` are
    ``[batch, x1, y1, x2, y2]``."""
    if str(node.attr("method", "max")) != "max":
        raise ValueError("ROIPooling: only the max method is supported")
    ph, pw = (int(v) for v in node.attr("output_size", [1, 1]))
    scale = float(node.attr("spatial_scale", 1.0))
    _, c, h, w = data.shape
    out = np.zeros((rois.shape[0], c, ph, pw), dtype=data.dtype)
    r = rois.astype(np.float64)
    corners = np.sign(r[:, 1:5] * scale) * np.floor(np.abs(r[:, 1:5] * scale) + 0.5)
    for n in range(rois.shape[0]):
        x1, y1, x2, y2 = (int(v) for v in corners[n])
        rh, rw = max(y2 - y1 + 1, 1), max(x2 - x1 + 1, 1)
        img = data[int(r[n, 0])]
        for i in range(ph):
            hs = min(max(int(np.floor(i * rh / ph)) + y1, 0), h)
            he = min(max(int(np.ceil((i + 1) * rh / ph)) + y1, 0), h)
            for j in range(pw):
                ws = min(max(int(np.floor(j * rw / pw)) + x1, 0), w)
                we = min(max(int(np.ceil((j + 1) * rw / pw)) + x1, 0), w)
                if he > hs and we > ws:
                    out[n, :, i, j] = img[:, hs:he, ws:we].max(axis=(1, 2))
    return out


def _caffe_anchors(base: int, ratios: list[float], scales: list[float]) -> np.ndarray:
    """Faster R-CNN's anchors around a ``base`` x ``base`` box at the origin:
    each ratio (the area kept, sides rounded), then each scale; [A, 4] corners."""
    w = h = float(base)
    cx = cy = 0.5 * (base - 1)
    out = []
    for r in ratios:
        rw = np.round(np.sqrt(w * h / r))
        rh = np.round(rw * r)
        for s in scales:
            sw, sh = rw * s, rh * s
            out.append([cx - 0.5 * (sw - 1), cy - 0.5 * (sh - 1), cx + 0.5 * (sw - 1), cy + 0.5 * (sh - 1)])
    return np.asarray(out, np.float64)


@register_kernel("ov.Proposal")
def _proposal(node: KernelNode, probs: np.ndarray, deltas: np.ndarray, info: np.ndarray):
    """Faster R-CNN's proposal layer (Caffe coordinates, +1 sizes): anchors
    shifted over the map, decoded, clipped, small boxes dropped, the best
    ``pre_nms_topn`` through NMS, ``post_nms_topn`` rows ``[batch, x1, y1,
    x2, y2]`` per image (zero rows after the last proposal) and their scores."""
    if str(node.attr("framework", "")) not in ("", "caffe"):
        raise ValueError("Proposal: only Caffe's framework is supported")
    stride = int(node.attr("feat_stride", 1))
    anchors = _caffe_anchors(int(node.attr("base_size", 1)), list(node.attr("ratio", [])),
                             list(node.attr("scale", [])))
    pre, post = int(node.attr("pre_nms_topn", 0)), int(node.attr("post_nms_topn", 0))
    iou_t, min_size = float(node.attr("nms_thresh", 0.0)), float(node.attr("min_size", 1))
    n, _, h, w = probs.shape
    a = anchors.shape[0]
    info = info.reshape(-1, info.shape[-1]) if info.ndim > 1 else info.reshape(1, -1)
    sy, sx = np.meshgrid(np.arange(h) * stride, np.arange(w) * stride, indexing="ij")
    shifts = np.stack([sx.ravel(), sy.ravel(), sx.ravel(), sy.ravel()], 1).astype(np.float64)
    all_anchors = (shifts[:, None, :] + anchors[None]).reshape(-1, 4)  # (H, W, A)
    rois = np.zeros((n * post, 5), node.out_dtype(0, np.float32))
    scores_out = np.zeros(n * post, node.out_dtype(1, np.float32) if len(node.out_dtypes) > 1 else np.float32)
    for b in range(n):
        im = info[min(b, info.shape[0] - 1)]
        img_h, img_w, im_scale = float(im[0]), float(im[1]), float(im[2]) if im.size > 2 else 1.0
        sc = probs[b, a:].transpose(1, 2, 0).reshape(-1).astype(np.float64)
        d = deltas[b].reshape(a, 4, h, w).transpose(2, 3, 0, 1).reshape(-1, 4).astype(np.float64)
        bw = all_anchors[:, 2] - all_anchors[:, 0] + 1
        bh = all_anchors[:, 3] - all_anchors[:, 1] + 1
        cx = all_anchors[:, 0] + 0.5 * bw
        cy = all_anchors[:, 1] + 0.5 * bh
        px, py = d[:, 0] * bw + cx, d[:, 1] * bh + cy
        pw, ph = np.exp(d[:, 2]) * bw, np.exp(d[:, 3]) * bh
        boxes = np.stack([px - 0.5 * pw, py - 0.5 * ph, px + 0.5 * pw, py + 0.5 * ph], 1)
        boxes[:, 0::2] = np.clip(boxes[:, 0::2], 0, img_w - 1)
        boxes[:, 1::2] = np.clip(boxes[:, 1::2], 0, img_h - 1)
        ok = ((boxes[:, 2] - boxes[:, 0] + 1 >= min_size * im_scale)
              & (boxes[:, 3] - boxes[:, 1] + 1 >= min_size * im_scale))
        idx = np.flatnonzero(ok)
        idx = idx[np.argsort(-sc[idx], kind="stable")][:pre]
        keep: list[int] = []
        areas = (boxes[:, 2] - boxes[:, 0] + 1) * (boxes[:, 3] - boxes[:, 1] + 1)
        alive = np.ones(len(idx), bool)
        for k in range(len(idx)):
            if not alive[k]:
                continue
            i = idx[k]
            keep.append(int(i))
            if len(keep) == post:
                break
            rest = idx[k + 1:]
            iw = np.maximum(np.minimum(boxes[i, 2], boxes[rest, 2]) - np.maximum(boxes[i, 0], boxes[rest, 0]) + 1, 0)
            ih = np.maximum(np.minimum(boxes[i, 3], boxes[rest, 3]) - np.maximum(boxes[i, 1], boxes[rest, 1]) + 1, 0)
            inter = iw * ih
            iou = inter / (areas[i] + areas[rest] - inter)
            alive[k + 1:] &= iou <= iou_t
        rows = slice(b * post, b * post + len(keep))
        rois[rows, 0] = b
        rois[rows, 1:] = boxes[keep]
        scores_out[rows] = sc[keep]
    return rois, scores_out
