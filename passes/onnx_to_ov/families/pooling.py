"""Pooling: MaxPool, AveragePool, LpPool, Global*Pool, MaxUnpool, MaxRoiPool,
RoiAlign."""

from __future__ import annotations

import numpy as np
from xdsl.ir import SSAValue

from xmo.dialects.ov.base import tensor
from xmo.passes.onnx_to_ov.families._types import attr_str
from xmo.passes.onnx_to_ov.families.conv import window_attrs
from xmo.passes.onnx_to_ov.registry import converter
from xmo.passes.to_ov.builder import Builder, ConverterNode


def pool_attrs(node: ConverterNode) -> tuple[dict, list[int]]:
    kernel = list(node.attr("kernel_shape") or [])
    if not kernel:
        raise node.unsupported("kernel_shape is required")
    n = len(kernel)
    attrs = window_attrs(node, n)
    attrs["kernel"] = kernel
    # ONNX ceil mode drops a last window that would start in the end padding
    attrs["rounding_type"] = "ceil_torch" if node.attr("ceil_mode", 0) else "floor"
    return attrs, kernel


@converter("MaxPool")
def max_pool(node: ConverterNode, b: Builder):
    attrs, kernel = pool_attrs(node)
    attrs["index_element_type"] = "i64"
    attrs["axis"] = 0
    op = b.op("MaxPool", [node.input(0)], attrs)
    values, indices = op.results[0], op.results[1]
    if node.num_outputs < 2 or not node.output_names[1]:
        return values
    if int(node.attr("storage_order", 0) or 0):
        indices = _column_major(node, b, indices)
    return [values, indices]


def _column_major(node: ConverterNode, b: Builder, idx: SSAValue) -> SSAValue:
    """Row-major flat indices into ``[N, C, H, W]`` -> ONNX storage_order=1
    (within each ``H x W`` plane the index is ``w * H + h``)."""
    xs = node.shape(0)
    if xs is None or len(xs) != 4 or xs[2] < 0 or xs[3] < 0:
        raise node.unsupported("storage_order=1 needs a static 2-D spatial shape")
    h, w = xs[2], xs[3]
    plane = b.i64(h * w)
    within = b.out("FloorMod", [idx, plane])
    base = b.out("Subtract", [idx, within])
    row = b.out("Divide", [within, b.i64(w)], {"m_pythondiv": True})
    col = b.out("FloorMod", [within, b.i64(w)])
    cm = b.out("Add", [b.out("Multiply", [col, b.i64(h)]), row])
    return b.out("Add", [base, cm])


@converter("AveragePool")
def average_pool(node: ConverterNode, b: Builder):
    attrs, _ = pool_attrs(node)
    attrs["exclude-pad"] = not bool(node.attr("count_include_pad", 0))
    return b.out("AvgPool", [node.input(0)], attrs)


def _pow_p(b: Builder, x: SSAValue, p: float) -> SSAValue:
    if p == 2:
        return b.out("Multiply", [x, x])
    a = b.out("Abs", [x])
    if p == 1:
        return a
    return b.out("Power", [a, b.scalar_like(p, x)])


def _root_p(b: Builder, x: SSAValue, p: float) -> SSAValue:
    if p == 1:
        return x
    if p == 2:
        return b.out("Sqrt", [x])
    return b.out("Power", [x, b.scalar_like(1.0 / p, x)])


@converter("LpPool")
def lp_pool(node: ConverterNode, b: Builder):
    attrs, kernel = pool_attrs(node)
    p = float(node.attr("p", 2))
    x = node.input(0)
    attrs["exclude-pad"] = False
    avg = b.out("AvgPool", [_pow_p(b, x, p)], attrs)
    total = b.out("Multiply", [avg, b.scalar_like(float(np.prod(kernel)), x)])
    return _root_p(b, total, p)


def _spatial_axes(node: ConverterNode) -> SSAValue:
    r = node.rank(0)
    if r is None:
        raise node.unsupported("dynamic rank input")
    return list(range(2, r))


@converter("GlobalAveragePool", "GlobalMaxPool")
def global_pool(node: ConverterNode, b: Builder):
    kind = "ReduceMean" if node.type == "GlobalAveragePool" else "ReduceMax"
    axes = b.i64(_spatial_axes(node))
    return b.out(kind, [node.input(0), axes], {"keep_dims": True})


@converter("GlobalLpPool")
def global_lp_pool(node: ConverterNode, b: Builder):
    p = float(node.attr("p", 2))
    x = node.input(0)
    axes = b.i64(_spatial_axes(node))
    s = b.out("ReduceSum", [_pow_p(b, x, p), axes], {"keep_dims": True})
    return _root_p(b, s, p)


@converter("MaxUnpool")
def max_unpool(node: ConverterNode, b: Builder):
    x, idx = node.input(0), node.input(1)
    kernel = list(node.attr("kernel_shape") or [])
    n = len(kernel)
    xs = node.shape(0)
    if xs is None or any(v < 0 for v in xs):
        raise node.unsupported("MaxUnpool needs a static input shape")
    strides = list(node.attr("strides") or [1] * n)
    pads = list(node.attr("pads") or [0] * (2 * n))
    sp = [(xs[2 + i] - 1) * strides[i] + kernel[i] - pads[i] - pads[n + i] for i in range(n)]
    default = [xs[0], xs[1], *sp]
    # indices address the default output shape; output_shape pads it at the end
    zeros = b.out("Broadcast", [b.scalar_like(0, x), b.i64([int(np.prod(default))])], {"mode": "numpy"})
    flat_idx = b.reshape(b.convert(idx, "i64"), [-1])
    y = b.out("ScatterUpdate", [zeros, flat_idx, b.reshape(x, [-1]), b.i64(0)])
    y = b.reshape(y, default)
    if node.has_input(2):
        extra = b.out("Subtract", [b.convert(node.input(2), "i64"), b.i64(default)])
        y = b.out(
            "Pad", [y, b.i64([0] * (n + 2)), extra, b.scalar_like(0, y)], {"pad_mode": "constant"}
        )
    return y


@converter("MaxRoiPool")
def max_roi_pool(node: ConverterNode, b: Builder):
    pooled = list(node.attr("pooled_shape"))
    xs, rs = node.shape(0), node.shape(1)
    out = None
    if xs is not None and rs is not None:
        out = [rs[0], xs[1], *pooled]
    return b.out(
        "ROIPooling",
        [node.input(0), node.input(1)],
        {
            "output_size": pooled,
            "spatial_scale": float(node.attr("spatial_scale", 1.0)),
            "method": "max",
        },
        result_types=[tensor(node.etype(0), out)],
    )


@converter("RoiAlign")
def roi_align(node: ConverterNode, b: Builder):
    x, rois = node.input(0), node.input(1)
    oh, ow = int(node.attr("output_height", 1)), int(node.attr("output_width", 1))
    if node.version >= 16:
        ctm = attr_str(node.attr("coordinate_transformation_mode", "half_pixel"))
    else:
        ctm = "output_half_pixel"
    aligned = {"half_pixel": "half_pixel_for_nn", "output_half_pixel": "asymmetric"}.get(ctm)
    if aligned is None:
        raise node.unsupported(f"coordinate_transformation_mode {ctm}")
    xs, rs = node.shape(0), node.shape(1)
    out = None
    if xs is not None and rs is not None:
        out = [rs[0], xs[1], oh, ow]
    return b.out(
        "ROIAlign",
        [x, rois, b.convert(node.input(2), "i32")],
        {
            "pooled_h": oh,
            "pooled_w": ow,
            "sampling_ratio": int(node.attr("sampling_ratio", 0)),
            "spatial_scale": float(node.attr("spatial_scale", 1.0)),
            "mode": attr_str(node.attr("mode", "avg")),
            "aligned_mode": aligned,
        },
        result_types=[tensor(node.etype(0), out)],
    )
