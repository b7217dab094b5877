"""Eltwise, Axpy, Concat, Slice, Split, Flatten, Reshape, Permute, Crop,
Dropout, Softmax, ArgMax, ShuffleChannel, Interp, Upsample, Silence."""

from __future__ import annotations

import numpy as np
from xdsl.ir import SSAValue

from xmo.passes.caffe_to_ov.families._common import norm_axis, param, static_dims
from xmo.passes.caffe_to_ov.registry import caffe_converter
from xmo.passes.to_ov.builder import Builder, ConverterNode
from xmo.passes.to_ov.helpers import rank_of


@caffe_converter("Eltwise")
def eltwise(node: ConverterNode, b: Builder) -> SSAValue:
    p = param(node, "eltwise_param")
    op = p.DESCRIPTOR.fields_by_name["operation"].enum_type.values_by_number[p.operation].name
    xs = [node.input(i) for i in range(node.num_inputs)]
    coeff = list(p.coeff)
    if coeff and op != "SUM":
        raise node.unsupported(f"coefficients with operation {op}")
    if coeff and len(coeff) != len(xs):
        raise node.unsupported(f"{len(coeff)} coefficients for {len(xs)} bottoms")
    if coeff:
        xs = [x if c == 1.0 else b.out("Multiply", [x, b.const(np.asarray(c, np.float32))])
              for x, c in zip(xs, coeff)]
    ov = {"SUM": "Add", "PROD": "Multiply", "MAX": "Maximum"}[op]
    y = xs[0]
    for x in xs[1:]:
        y = b.out(ov, [y, x])
    return y


@caffe_converter("Axpy")
def axpy(node: ConverterNode, b: Builder) -> SSAValue:
    """``a * x + y``: ``a`` is [N, C] or [N, C, 1, 1], broadcast over x's spatial dims."""
    a, x, y = node.input(0), node.input(1), node.input(2)
    ra, rx = node.rank(0), node.rank(1)
    if ra is not None and rx is not None and ra < rx:
        a = b.unsqueeze(a, list(range(ra, rx)))
    return b.out("Add", [b.out("Multiply", [a, x]), y])


@caffe_converter("Concat")
def concat(node: ConverterNode, b: Builder) -> SSAValue:
    p = param(node, "concat_param")
    axis = p.axis if p.HasField("axis") or not p.HasField("concat_dim") else p.concat_dim
    axis = norm_axis(node, axis, node.rank(0))
    xs = [node.input(i) for i in range(node.num_inputs)]
    return xs[0] if len(xs) == 1 else b.concat(xs, axis)


@caffe_converter("Slice")
def slice_(node: ConverterNode, b: Builder) -> list[SSAValue]:
    p = param(node, "slice_param")
    axis = p.axis if p.HasField("axis") or not p.HasField("slice_dim") else p.slice_dim
    axis = norm_axis(node, axis, node.rank(0))
    n = node.num_outputs
    points = [int(v) for v in p.slice_point]
    x = node.input(0)
    if not points:
        return list(b.op("Split", [x, b.i64(axis)], {"num_splits": n}, num_outputs=n).results)
    if len(points) != n - 1:
        raise node.unsupported(f"{len(points)} slice points for {n} tops")
    dims = static_dims(node, 0, "Slice")
    bounds = [0, *points, dims[axis]]
    lengths = [bounds[i + 1] - bounds[i] for i in range(n)]
    if any(v <= 0 for v in lengths):
        raise node.unsupported(f"slice points {points} do not increase within {dims[axis]}")
    return list(b.op("VariadicSplit", [x, b.i64(axis), b.i64(lengths)], num_outputs=n).results)


@caffe_converter("Split")
def split(node: ConverterNode, b: Builder) -> list[SSAValue]:
    return [node.input(0)] * node.num_outputs


@caffe_converter("Dropout")
def dropout(node: ConverterNode, b: Builder) -> SSAValue:
    return node.input(0)  # inference: the identity (Caffe scales at train time)


@caffe_converter("Silence")
def silence(node: ConverterNode, b: Builder) -> None:
    return None


@caffe_converter("Flatten")
def flatten(node: ConverterNode, b: Builder) -> SSAValue:
    p = param(node, "flatten_param")
    rank = rank_of(node, node.input(0))
    axis, end = norm_axis(node, p.axis, rank), norm_axis(node, p.end_axis, rank)
    dims = node.shape(0)
    assert dims is not None
    if all(d >= 0 for d in dims[axis:end + 1]):
        merged = int(np.prod(dims[axis:end + 1], dtype=np.int64))
    else:
        merged = -1
    kept_after = [d if d >= 0 else 0 for d in dims[end + 1:]]
    if merged == -1 and any(d < 0 for d in dims[end + 1:]):
        raise node.unsupported("Flatten with dynamic dims on both sides")
    return b.reshape(node.input(0), [0] * axis + [merged] + kept_after, special_zero=True)


@caffe_converter("Reshape")
def reshape(node: ConverterNode, b: Builder) -> SSAValue:
    p = param(node, "reshape_param")
    rank = rank_of(node, node.input(0))
    target = [int(d) for d in p.shape.dim]
    axis = p.axis if p.axis >= 0 else rank + 1 + p.axis
    end = rank if p.num_axes == -1 else axis + p.num_axes
    if not 0 <= axis <= end <= rank:
        raise node.unsupported(f"axis {p.axis} / num_axes {p.num_axes} for rank {rank}")
    # Caffe's 0 copies the input dim at the same position of the replaced span
    if axis == 0 and end == rank:
        return b.reshape(node.input(0), target, special_zero=True)
    dims = node.shape(0) or []
    if any(d < 0 for d in dims[:axis] + dims[end:]):
        raise node.unsupported("Reshape of a span next to dynamic dims")
    span = [dims[axis + i] if t == 0 and axis + i < end else t for i, t in enumerate(target)]
    return b.reshape(node.input(0), [*dims[:axis], *span, *dims[end:]])


@caffe_converter("Permute")
def permute(node: ConverterNode, b: Builder) -> SSAValue:
    order = [int(v) for v in param(node, "permute_param").order]
    rank = rank_of(node, node.input(0))
    for a in range(rank):  # Caffe completes a partial order with the missing axes
        if a not in order:
            order.append(a)
    if sorted(order) != list(range(rank)):
        raise node.unsupported(f"order {order} is not a permutation of {rank} axes")
    return b.out("Transpose", [node.input(0), b.i64(order)])


@caffe_converter("Crop")
def crop(node: ConverterNode, b: Builder) -> SSAValue:
    p = param(node, "crop_param")
    rank = rank_of(node, node.input(0))
    axis = norm_axis(node, p.axis, rank)
    ref = static_dims(node, 1, "Crop")
    offsets = [int(v) for v in p.offset] or [0]
    n = rank - axis
    if len(offsets) == 1:
        offsets = offsets * n
    if len(offsets) != n:
        raise node.unsupported(f"{len(offsets)} offsets for {n} cropped axes")
    axes = list(range(axis, rank))
    starts = offsets
    stops = [o + ref[a] for o, a in zip(offsets, axes)]
    return b.out("Slice", [node.input(0), b.i64(starts), b.i64(stops), b.i64([1] * n),
                           b.i64(axes)])


@caffe_converter("Softmax")
def softmax(node: ConverterNode, b: Builder) -> SSAValue:
    axis = norm_axis(node, param(node, "softmax_param").axis, node.rank(0))
    return b.out("Softmax", [node.input(0)], {"axis": axis})


@caffe_converter("ArgMax")
def argmax(node: ConverterNode, b: Builder) -> SSAValue:
    p = param(node, "argmax_param")
    k = int(p.top_k)
    x = node.input(0)
    if p.HasField("axis"):
        axis = norm_axis(node, p.axis, node.rank(0))
        topk = b.op("TopK", [x, b.i64(k)], {"axis": axis, "mode": "max", "sort": "value",
                                            "index_element_type": "i32"}, num_outputs=2)
        if p.out_max_val:
            return topk.results[0]
        return b.convert(topk.results[1], "f32")
    flat = b.reshape(x, [0, 1, -1], special_zero=True)
    topk = b.op("TopK", [flat, b.i64(k)], {"axis": 2, "mode": "max", "sort": "value",
                                           "index_element_type": "i32"}, num_outputs=2)
    idx = b.convert(topk.results[1], "f32")
    if p.out_max_val:
        return b.concat([idx, topk.results[0]], 1)
    return idx


@caffe_converter("ShuffleChannel")
def shuffle_channel(node: ConverterNode, b: Builder) -> SSAValue:
    group = int(param(node, "shuffle_channel_param").group)
    x = node.input(0)
    return b.out("ShuffleChannels", [x], {"axis": 1, "group": group}, result_types=[x.type])


def _resize(b: Builder, x: SSAValue, sizes: list[int], mode: str, ctm: str) -> SSAValue:
    return b.out("Interpolate", [x, b.i64(sizes), b.i64([2, 3])], {
        "mode": mode, "shape_calculation_mode": "sizes",
        "coordinate_transformation_mode": ctm, "nearest_mode": "floor",
        "antialias": False, "pads_begin": [0, 0, 0, 0], "pads_end": [0, 0, 0, 0],
        "cube_coeff": -0.75,
    })


@caffe_converter("Interp")
def interp(node: ConverterNode, b: Builder) -> SSAValue:
    """PSPNet's Interp: bilinear with aligned corners."""
    p = param(node, "interp_param")
    if p.pad_beg or p.pad_end:
        raise node.unsupported("Interp with pad_beg/pad_end")
    dims = static_dims(node, 0, "Interp")
    h, w = dims[2], dims[3]
    if node.num_inputs > 1:
        ref = static_dims(node, 1, "Interp")
        size = [ref[2], ref[3]]
    elif p.height and p.width:
        size = [p.height, p.width]
    elif p.zoom_factor != 1 and p.shrink_factor != 1:
        hs, ws = (h - 1) // p.shrink_factor + 1, (w - 1) // p.shrink_factor + 1
        size = [hs + (hs - 1) * (p.zoom_factor - 1), ws + (ws - 1) * (p.zoom_factor - 1)]
    elif p.shrink_factor != 1:
        size = [(h - 1) // p.shrink_factor + 1, (w - 1) // p.shrink_factor + 1]
    else:
        size = [h + (h - 1) * (p.zoom_factor - 1), w + (w - 1) * (p.zoom_factor - 1)]
    return _resize(b, node.input(0), size, "linear", "align_corners")


@caffe_converter("Upsample")
def upsample(node: ConverterNode, b: Builder) -> SSAValue:
    """Nearest-neighbour Upsample (the YOLOv3 forks' layer)."""
    if node.num_inputs > 1:
        raise node.unsupported("Upsample with a pooling mask (SegNet's unpooling)")
    p = param(node, "upsample_param")
    dims = static_dims(node, 0, "Upsample")
    if p.HasField("upsample_h") or p.HasField("upsample_w"):
        size = [int(p.upsample_h), int(p.upsample_w)]
    else:
        sh = int(p.scale_h) if p.HasField("scale_h") else int(p.scale)
        sw = int(p.scale_w) if p.HasField("scale_w") else int(p.scale)
        size = [dims[2] * sh, dims[3] * sw]
    return _resize(b, node.input(0), size, "nearest", "asymmetric")
