"""SSD (PriorBox, PriorBoxClustered, DetectionOutput) and Faster R-CNN
(ROIPooling, Proposal) layers."""

from __future__ import annotations

import numpy as np
from xdsl.ir import SSAValue

from xmo.dialects.ov.base import tensor
from xmo.passes.caffe_to_ov.families._common import param
from xmo.passes.caffe_to_ov.registry import caffe_converter
from xmo.passes.to_ov.builder import Builder, ConverterNode


def _hw(b: Builder, v: SSAValue) -> SSAValue:
    """The spatial dims ``[H, W]`` of an NCHW value, as i64."""
    return b.out("Slice", [b.shape_of(v), b.i64([2]), b.i64([4]), b.i64([1])])


def _image_hw(node: ConverterNode, b: Builder, p) -> SSAValue:  # noqa: ANN001
    if p.HasField("img_h") or p.HasField("img_w"):
        return b.i64([int(p.img_h), int(p.img_w)])
    if p.HasField("img_size"):
        return b.i64([int(p.img_size)] * 2)
    return _hw(b, node.input(1))


def _cells(node: ConverterNode) -> int:
    """H * W of the feature map (input 0), -1 when not static."""
    dims = node.shape(0)
    if dims is None or len(dims) != 4 or dims[2] < 0 or dims[3] < 0:
        return -1
    return dims[2] * dims[3]


def _priors_per_cell(p) -> int:  # noqa: ANN001
    """Caffe's prior count per cell: aspect ratios (1 first, duplicates
    dropped, flipped), each min size, plus one per max size."""
    ratios = [1.0]
    for r in p.aspect_ratio:
        if all(abs(r - q) > 1e-6 for q in ratios):
            ratios.append(float(r))
            if p.flip:
                ratios.append(1.0 / float(r))
    return len(ratios) * len(p.min_size) + len(p.max_size)


def _step(node: ConverterNode, p) -> tuple[float, float]:  # noqa: ANN001
    if p.HasField("step_h") or p.HasField("step_w"):
        return float(p.step_h), float(p.step_w)
    return float(p.step), float(p.step)


def _static_sizes(node: ConverterNode, p) -> tuple[int, int, int, int] | None:  # noqa: ANN001
    """``(layer h, layer w, image h, image w)`` when all are static."""
    feat = node.shape(0)
    if feat is None or len(feat) != 4 or feat[2] < 0 or feat[3] < 0:
        return None
    if p.HasField("img_h") or p.HasField("img_w"):
        ih, iw = int(p.img_h), int(p.img_w)
    elif p.HasField("img_size"):
        ih = iw = int(p.img_size)
    else:
        img = node.shape(1) if node.num_inputs > 1 else None
        if img is None or len(img) != 4 or img[2] < 0 or img[3] < 0:
            return None
        ih, iw = img[2], img[3]
    return feat[2], feat[3], ih, iw


def _prior_grid(sizes: tuple[int, int, int, int], p, whs: list[tuple[float, float]],  # noqa: ANN001
                steps: tuple[float, float], variance: list[float]) -> np.ndarray:
    """Caffe's prior boxes ``[1, 2, 4 * H * W * len(whs)]``: for each cell (row
    major) each box ``(w, h)`` around the cell's centre, normalized by the
    image size, optionally clipped; then the variances."""
    fh, fw, ih, iw = sizes
    sh, sw = steps
    sh = sh if sh > 0 else ih / fh
    sw = sw if sw > 0 else iw / fw
    cy = (np.arange(fh, dtype=np.float64) + p.offset) * sh
    cx = (np.arange(fw, dtype=np.float64) + p.offset) * sw
    wh = np.asarray(whs, np.float64)  # [k, 2]
    cyy, cxx = np.meshgrid(cy, cx, indexing="ij")
    c = np.stack([cxx, cyy], -1).reshape(-1, 1, 2)  # [cells, 1, (x, y)]
    half = wh.reshape(1, -1, 2) / 2
    scale = np.asarray([iw, ih], np.float64)
    boxes = np.concatenate([(c - half) / scale, (c + half) / scale], -1)  # [cells, k, 4]
    if p.clip:
        boxes = np.clip(boxes, 0.0, 1.0)
    flat = boxes.reshape(-1).astype(np.float32)
    var = np.asarray(variance if len(variance) == 4 else variance[:1] * 4, np.float32)
    return np.stack([flat, np.tile(var, flat.size // 4)]).reshape(1, 2, -1)


def _caffe_box_sizes(p) -> list[tuple[float, float]]:  # noqa: ANN001
    """(width, height) of each prior of a cell, in Caffe's order."""
    ratios = [1.0]
    for r in p.aspect_ratio:
        if all(abs(r - q) > 1e-6 for q in ratios):
            ratios.append(float(r))
            if p.flip:
                ratios.append(1.0 / float(r))
    out: list[tuple[float, float]] = []
    for k, m in enumerate(p.min_size):
        out.append((m, m))
        if len(p.max_size):
            s = float(np.sqrt(m * p.max_size[k]))
            out.append((s, s))
        for r in ratios[1:]:
            out.append((m * float(np.sqrt(r)), m / float(np.sqrt(r))))
    return out


@caffe_converter("PriorBox")
def prior_box(node: ConverterNode, b: Builder) -> SSAValue:
    p = param(node, "prior_box_param")
    sh, sw = _step(node, p)
    if sh != sw:
        raise node.unsupported(f"different steps {sh} x {sw}")
    if len(p.offset_h) or len(p.offset_w) or len(p.width) or len(p.height):
        raise node.unsupported("explicit offsets / box sizes (use PriorBoxClustered)")
    if len(p.max_size) and len(p.max_size) != len(p.min_size):
        raise node.unsupported("max_size must pair with min_size")
    variance = [float(v) for v in p.variance] or [0.1]
    sizes = _static_sizes(node, p)
    if sizes is not None:  # static: the priors are a constant (as the Model Optimizer folded them)
        return b.const(_prior_grid(sizes, p, _caffe_box_sizes(p), (sh, sw), variance))
    attrs = {
        "min_size": [float(v) for v in p.min_size],
        "max_size": [float(v) for v in p.max_size],
        "aspect_ratio": [float(v) for v in p.aspect_ratio],
        "flip": bool(p.flip), "clip": bool(p.clip), "step": sh, "offset": float(p.offset),
        "variance": [float(v) for v in p.variance] or [0.1],
        "scale_all_sizes": True, "min_max_aspect_ratios_order": True,
        "density": [], "fixed_ratio": [], "fixed_size": [],
    }
    cells = _cells(node)
    n = -1 if cells < 0 else 4 * cells * _priors_per_cell(p)
    priors = b.out("PriorBox", [_hw(b, node.input(0)), _image_hw(node, b, p)], attrs,
                   result_types=[tensor("f32", [2, n])])
    return b.unsqueeze(priors, [0])


@caffe_converter("PriorBoxClustered")
def prior_box_clustered(node: ConverterNode, b: Builder) -> SSAValue:
    p = param(node, "prior_box_param")
    sh, sw = _step(node, p)
    if len(p.width) != len(p.height):
        raise node.unsupported(f"{len(p.width)} widths and {len(p.height)} heights")
    sizes = _static_sizes(node, p)
    if sizes is not None:
        whs = [(float(w), float(h)) for w, h in zip(p.width, p.height)]
        return b.const(_prior_grid(sizes, p, whs, (sh, sw), [float(v) for v in p.variance] or [0.1]))
    attrs = {
        "width": [float(v) for v in p.width], "height": [float(v) for v in p.height],
        "clip": bool(p.clip), "step": 0.0, "step_h": sh, "step_w": sw,
        "offset": float(p.offset), "variance": [float(v) for v in p.variance] or [0.1],
    }
    cells = _cells(node)
    n = -1 if cells < 0 else 4 * cells * len(p.width)
    priors = b.out("PriorBoxClustered", [_hw(b, node.input(0)), _image_hw(node, b, p)], attrs,
                   result_types=[tensor("f32", [2, n])])
    return b.unsqueeze(priors, [0])


@caffe_converter("DetectionOutput")
def detection_output(node: ConverterNode, b: Builder) -> SSAValue:
    p = param(node, "detection_output_param")
    if node.num_inputs != 3:
        raise node.unsupported(f"{node.num_inputs} bottoms (loc, conf, priors expected)")
    code = p.DESCRIPTOR.fields_by_name["code_type"].enum_type.values_by_number[p.code_type].name
    if code not in ("CORNER", "CENTER_SIZE"):
        raise node.unsupported(f"code_type {code}")
    nms = p.nms_param
    attrs = {
        "background_label_id": int(p.background_label_id),
        "top_k": int(nms.top_k) if nms.HasField("top_k") else -1,
        "variance_encoded_in_target": bool(p.variance_encoded_in_target),
        "keep_top_k": [int(p.keep_top_k)],
        "code_type": f"caffe.PriorBoxParameter.{code}",
        "share_location": bool(p.share_location),
        "nms_threshold": float(nms.nms_threshold),
        "confidence_threshold": float(p.confidence_threshold) if p.HasField("confidence_threshold") else -3.4e38,
        "clip_after_nms": False, "clip_before_nms": False, "decrease_label_id": False,
        "normalized": bool(p.normalized_bbox), "input_height": 1, "input_width": 1,
        "objectness_score": 0.0,
    }
    loc, conf, priors = node.input(0), node.input(1), node.input(2)
    loc = b.reshape(loc, [0, -1], special_zero=True)
    conf = b.reshape(conf, [0, -1], special_zero=True)
    batch = (node.shape(0) or [-1])[0]
    rows = -1
    if batch >= 0 and p.keep_top_k > 0:
        rows = batch * int(p.keep_top_k)
    return b.out("DetectionOutput", [loc, conf, priors], attrs,
                 result_types=[tensor("f32", [1, 1, rows, 7])])


@caffe_converter("ROIPooling")
def roi_pooling(node: ConverterNode, b: Builder) -> SSAValue:
    p = param(node, "roi_pooling_param")
    feat, rois = node.shape(0) or [-1, -1], node.shape(1) or [-1]
    out = [rois[0], feat[1], int(p.pooled_h), int(p.pooled_w)]
    return b.out("ROIPooling", [node.input(0), node.input(1)], {
        "output_size": [int(p.pooled_h), int(p.pooled_w)],
        "pooled_h": int(p.pooled_h), "pooled_w": int(p.pooled_w),
        "spatial_scale": float(p.spatial_scale), "method": "max",
    }, result_types=[tensor("f32", out)])


@caffe_converter("Proposal")
def proposal(node: ConverterNode, b: Builder) -> SSAValue:
    p = param(node, "proposal_param")
    info = b.reshape(node.input(2), [-1])
    info = b.out("Slice", [info, b.i64([0]), b.i64([3]), b.i64([1])])
    attrs = {
        "base_size": int(p.base_size), "pre_nms_topn": int(p.pre_nms_topn),
        "post_nms_topn": int(p.post_nms_topn), "nms_thresh": float(p.nms_thresh),
        "feat_stride": int(p.feat_stride), "min_size": int(p.min_size),
        "ratio": [float(v) for v in p.ratio] or [0.5, 1.0, 2.0],
        "scale": [float(v) for v in p.scale] or [8.0, 16.0, 32.0],
        "clip_before_nms": True, "clip_after_nms": False, "normalize": False,
        "box_size_scale": 1.0, "box_coordinate_scale": 1.0, "framework": "",
    }
    batch = (node.shape(0) or [-1])[0]
    rows = -1 if batch < 0 else batch * int(p.post_nms_topn)
    op = b.op("Proposal", [node.input(0), node.input(1), info], attrs,
              result_types=[tensor("f32", [rows, 5]), tensor("f32", [rows])])
    return op.results[0]
