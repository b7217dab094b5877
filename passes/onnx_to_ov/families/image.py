"""Image ops: Resize, Upsample, GridSample, AffineGrid, DepthToSpace,
SpaceToDepth, CenterCropPad."""

from __future__ import annotations

import math

import numpy as np
from xdsl.ir import SSAValue

from xmo.dialects.ov.base import constant_value_of, tensor
from xmo.passes.onnx_to_ov.families._types import attr_str
from xmo.passes.onnx_to_ov.registry import converter
from xmo.passes.to_ov.builder import Builder, ConverterNode

_CTM = {
    "half_pixel": "half_pixel",
    "pytorch_half_pixel": "pytorch_half_pixel",
    "align_corners": "align_corners",
    "asymmetric": "asymmetric",
    "tf_half_pixel_for_nn": "tf_half_pixel_for_nn",
}
_NEAREST = ("round_prefer_floor", "round_prefer_ceil", "floor", "ceil")


def _interpolate(
    node: ConverterNode,
    b: Builder,
    x: SSAValue,
    *,
    mode: str,
    ctm: str,
    nearest_mode: str,
    scales: SSAValue | None,
    sizes: SSAValue | None,
    axes: list[int],
    cubic_a: float = -0.75,
    antialias: bool = False,
) -> SSAValue:
    """ONNX-style resize along ``axes`` with OpenVINO Interpolate-11."""
    if ctm not in _CTM:
        raise node.unsupported(f"coordinate_transformation_mode {ctm}")
    if nearest_mode not in _NEAREST:
        raise node.unsupported(f"nearest_mode {nearest_mode}")
    xs = node.shape(0)
    # drop identity axes when the factors are known (OpenVINO's linear_onnx
    # handles two or three resized axes best)
    if scales is not None:
        sv = _const_of(scales)
        if sv is not None:
            keep = [i for i, s in enumerate(sv) if float(s) != 1.0] or [len(sv) - 1]
            axes = [axes[i] for i in keep]
            scales = b.const(np.asarray([sv[i] for i in keep], np.float32), "f32")
    elif sizes is not None:
        zv = _const_of(sizes)
        if zv is not None and xs is not None:
            keep = [i for i, z in enumerate(zv) if xs[axes[i]] != int(z)] or [len(zv) - 1]
            axes = [axes[i] for i in keep]
            sizes = b.i64([int(zv[i]) for i in keep])
    if mode == "nearest":
        ov_mode = "nearest"
    elif mode == "linear":
        ov_mode = "linear" if antialias else "linear_onnx"
    elif mode == "cubic":
        ov_mode = "cubic"
    else:
        raise node.unsupported(f"mode {mode}")
    attrs = {
        "mode": ov_mode,
        "shape_calculation_mode": "scales" if scales is not None else "sizes",
        "coordinate_transformation_mode": _CTM[ctm],
        "nearest_mode": nearest_mode,
        "antialias": antialias,
        "cube_coeff": cubic_a,
        "pads_begin": [0] * len(xs or []),
        "pads_end": [0] * len(xs or []),
    }
    second = scales if scales is not None else b.convert(sizes, "i64")
    return b.out("Interpolate", [x, second, b.i64(axes)], attrs)


def _const_of(v: SSAValue):
    c = constant_value_of(v)
    return None if c is None else np.asarray(c).reshape(-1)


@converter("Resize")
def resize(node: ConverterNode, b: Builder):
    x = node.input(0)
    r = node.rank(0)
    if r is None:
        raise node.unsupported("dynamic rank input")
    mode = attr_str(node.attr("mode", "nearest"))
    if node.version == 10:
        scales = b.convert(node.input(1), "f32")
        return _interpolate(
            node, b, x, mode=mode, ctm="asymmetric", nearest_mode="floor",
            scales=scales, sizes=None, axes=list(range(r)),
        )
    ctm = attr_str(node.attr("coordinate_transformation_mode", "half_pixel"))
    if ctm == "tf_crop_and_resize":
        raise node.unsupported("coordinate_transformation_mode tf_crop_and_resize")
    if mode == "cubic" and int(node.attr("exclude_outside", 0)):
        raise node.unsupported("cubic exclude_outside=1")
    axes = [a + r if a < 0 else a for a in (node.attr("axes") or range(r))]
    scales = sizes = None
    if node.has_input(3) and (node.shape(3) is None or node.shape(3) != [0]):
        sizes = node.input(3)
    elif node.has_input(2):
        scales = b.convert(node.input(2), "f32")
    else:
        raise node.unsupported("neither scales nor sizes")
    policy = attr_str(node.attr("keep_aspect_ratio_policy", "stretch"))
    if sizes is not None and policy != "stretch":
        zv = _const_of(sizes)
        xs = node.shape(0)
        if zv is None or xs is None or any(xs[a] < 0 for a in axes):
            raise node.unsupported("keep_aspect_ratio_policy needs constant sizes and static shape")
        ratios = [int(z) / xs[a] for z, a in zip(zv, axes)]
        scale = min(ratios) if policy == "not_larger" else max(ratios)
        out = [int(math.floor(scale * xs[a] + 0.5)) for a in axes]
        if all(int(math.floor(scale * xs[a])) == o for a, o in zip(axes, out)):
            sizes, scales = None, b.const(np.asarray([scale] * len(axes), np.float32), "f32")
        else:
            sizes = b.i64(out)
    return _interpolate(
        node, b, x, mode=mode, ctm=ctm,
        nearest_mode=attr_str(node.attr("nearest_mode", "round_prefer_floor")),
        scales=scales, sizes=sizes, axes=axes,
        cubic_a=float(node.attr("cubic_coeff_a", -0.75)),
        antialias=bool(node.attr("antialias", 0)),
    )


@converter("Upsample")
def upsample(node: ConverterNode, b: Builder):
    x = node.input(0)
    r = node.rank(0)
    if r is None:
        raise node.unsupported("dynamic rank input")
    if node.version < 9:
        scales = b.const(np.asarray(node.attr("scales"), np.float32), "f32")
    else:
        scales = b.convert(node.input(1), "f32")
    mode = attr_str(node.attr("mode", "nearest"))
    if mode == "bilinear":
        mode = "linear"
    return _interpolate(
        node, b, x, mode=mode, ctm="asymmetric", nearest_mode="floor",
        scales=scales, sizes=None, axes=list(range(r)),
    )


@converter("DepthToSpace")
def depth_to_space(node: ConverterNode, b: Builder):
    mode = attr_str(node.attr("mode", "DCR"))
    ov_mode = {"DCR": "blocks_first", "CRD": "depth_first"}[mode]
    return b.out(
        "DepthToSpace", [node.input(0)],
        {"mode": ov_mode, "block_size": int(node.attr("blocksize"))},
    )


@converter("SpaceToDepth")
def space_to_depth(node: ConverterNode, b: Builder):
    mode = attr_str(node.attr("mode", "DCR"))
    ov_mode = {"DCR": "blocks_first", "CRD": "depth_first"}[mode]
    return b.out(
        "SpaceToDepth", [node.input(0)],
        {"mode": ov_mode, "block_size": int(node.attr("blocksize"))},
    )


@converter("GridSample")
def grid_sample(node: ConverterNode, b: Builder):
    x, grid = node.input(0), node.input(1)
    if node.rank(0) != 4:
        raise node.unsupported("OpenVINO GridSample is 2-D (4-D input) only")
    mode = attr_str(node.attr("mode", "bilinear" if node.version < 20 else "linear"))
    mode = {"linear": "bilinear", "cubic": "bicubic"}.get(mode, mode)
    xs, gs = node.shape(0), node.shape(1)
    out = None
    if xs is not None and gs is not None:
        out = [xs[0], xs[1], gs[1], gs[2]]
    return b.out(
        "GridSample", [x, grid],
        {
            "align_corners": bool(node.attr("align_corners", 0)),
            "mode": mode,
            "padding_mode": attr_str(node.attr("padding_mode", "zeros")),
        },
        result_types=[tensor(node.etype(0), out)],
    )


@converter("AffineGrid")
def affine_grid(node: ConverterNode, b: Builder):
    theta = node.input(0)
    size = node.const_ints(1, "size")
    n_sp = len(size) - 2
    align = bool(node.attr("align_corners", 0))
    # base grid [prod(spatial), n_sp + 1]: normalized coordinates, x first, then 1
    axes_coords = []
    for dim in size[2:]:
        i = np.arange(dim, dtype=np.float64)
        if align:
            c = -1 + 2 * i / (dim - 1) if dim > 1 else np.zeros(1)
        else:
            c = (2 * i + 1) / dim - 1
        axes_coords.append(c)
    mesh = np.meshgrid(*axes_coords, indexing="ij")  # spatial order (D,) H, W
    cols = [m.reshape(-1) for m in reversed(mesh)]  # x, y (, z)
    cols.append(np.ones_like(cols[0]))
    base = np.stack(cols, axis=1).astype(np.float32)
    base_c = b.const(base, node.etype(0))
    # grid[n] = base @ theta[n]^T  -> [N, P, n_sp]
    g = b.out("MatMul", [base_c, theta], {"transpose_b": True})
    return b.reshape(g, [size[0], *size[2:], n_sp])


@converter("CenterCropPad")
def center_crop_pad(node: ConverterNode, b: Builder):
    x = node.input(0)
    r = node.rank(0)
    if r is None:
        raise node.unsupported("dynamic rank input")
    axes = [a + r if a < 0 else a for a in (node.attr("axes") or range(r))]
    # per listed axis: crop [max(d-t,0)//2, +min(d,t)), then pad max(t-d,0) split
    # begin-floor / end-ceil
    d = b.gather(b.shape_of(x), axes, 0)
    t = b.convert(node.input(1), "i64")
    zero, two = b.i64(0), b.i64(2)
    start = b.out("Divide", [b.out("Maximum", [b.out("Subtract", [d, t]), zero]), two],
                  {"m_pythondiv": True})
    stop = b.out("Add", [start, b.out("Minimum", [d, t])])
    y = b.out("Slice", [x, start, stop, b.i64([1] * len(axes)), b.i64(axes)])
    grow = b.out("Maximum", [b.out("Subtract", [t, d]), zero])
    pb_ax = b.out("Divide", [grow, two], {"m_pythondiv": True})
    pe_ax = b.out("Subtract", [grow, pb_ax])
    zeros, idx = b.i64([0] * r), b.i64(axes)
    pb = b.out("ScatterUpdate", [zeros, idx, pb_ax, zero])
    pe = b.out("ScatterUpdate", [zeros, idx, pe_ax, zero])
    return b.out("Pad", [y, pb, pe, b.scalar_like(0, y)], {"pad_mode": "constant"})
