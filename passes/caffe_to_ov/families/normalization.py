"""BatchNorm (moving-average factor), Scale, Bias, LRN, Normalize (SSD), MVN."""

from __future__ import annotations

import numpy as np
from xdsl.ir import SSAValue

from xmo.passes.caffe_to_ov.convert import blob, blobs
from xmo.passes.caffe_to_ov.families._common import along_axis, norm_axis, param
from xmo.passes.caffe_to_ov.registry import caffe_converter
from xmo.passes.to_ov.builder import Builder, ConverterNode
from xmo.passes.to_ov.helpers import rank_of


@caffe_converter("BatchNorm")
def batch_norm(node: ConverterNode, b: Builder) -> SSAValue:
    p = param(node, "batch_norm_param")
    mean, var = blob(node, 0, "mean").reshape(-1), blob(node, 1, "variance").reshape(-1)
    bs = blobs(node)
    factor = float(bs[2].reshape(-1)[0]) if len(bs) > 2 and bs[2].size else 1.0
    s = 0.0 if factor == 0.0 else 1.0 / factor
    mean64, var64 = mean.astype(np.float64) * s, var.astype(np.float64) * s
    a = 1.0 / np.sqrt(var64 + float(p.eps))
    rank = node.rank(0) or 2
    y = b.out("Multiply", [node.input(0), along_axis(b, a.astype(np.float32), 1, rank)])
    return b.out("Add", [y, along_axis(b, (-mean64 * a).astype(np.float32), 1, rank)])


def _operand(node: ConverterNode, b: Builder, values: np.ndarray, axis: int, rank: int) -> SSAValue:
    if values.ndim == 0 or values.size == 1 and values.ndim <= 1:
        return b.const(np.asarray(values, np.float32).reshape(()))
    return along_axis(b, values, axis, rank)


def _second(node: ConverterNode, b: Builder, axis: int, rank: int) -> SSAValue:
    """Bottom 1 shaped to broadcast from ``axis``."""
    other = node.input(1)
    dims = node.shape(1)
    if dims is None:
        raise node.unsupported("the rank of bottom 1 is unknown")
    if axis + len(dims) == rank:
        return other  # numpy broadcasting adds the leading dims
    if sum(d < 0 for d in dims) > 1:
        raise node.unsupported("bottom 1 has more than one dynamic dim")
    return b.reshape(other, [1] * axis + [d if d >= 0 else -1 for d in dims]
                     + [1] * (rank - axis - len(dims)))


@caffe_converter("Scale")
def scale(node: ConverterNode, b: Builder) -> SSAValue:
    p = param(node, "scale_param")
    rank = rank_of(node, node.input(0))
    axis = norm_axis(node, p.axis, rank)
    x = node.input(0)
    if node.num_inputs > 1:
        y = b.out("Multiply", [x, _second(node, b, axis, rank)])
        k = 0
    else:
        y = b.out("Multiply", [x, _operand(node, b, blob(node, 0, "scale"), axis, rank)])
        k = 1
    if p.bias_term:
        y = b.out("Add", [y, _operand(node, b, blob(node, k, "bias"), axis, rank)])
    return y


@caffe_converter("Bias")
def bias(node: ConverterNode, b: Builder) -> SSAValue:
    p = param(node, "bias_param")
    rank = rank_of(node, node.input(0))
    axis = norm_axis(node, p.axis, rank)
    if node.num_inputs > 1:
        return b.out("Add", [node.input(0), _second(node, b, axis, rank)])
    return b.out("Add", [node.input(0), _operand(node, b, blob(node, 0, "bias"), axis, rank)])


@caffe_converter("LRN")
def lrn(node: ConverterNode, b: Builder) -> SSAValue:
    p = param(node, "lrn_param")
    within = p.norm_region == 1
    axes = b.i64([2, 3] if within else [1])
    return b.out("LRN", [node.input(0), axes], {
        "alpha": float(p.alpha), "beta": float(p.beta),
        "bias": 1.0 if within else float(p.k), "size": int(p.local_size),
    })


@caffe_converter("Normalize")
def normalize(node: ConverterNode, b: Builder) -> SSAValue:
    p = param(node, "norm_param")
    rank = rank_of(node, node.input(0))
    axes = [1] if not p.across_spatial else list(range(1, rank))
    y = b.out("NormalizeL2", [node.input(0), b.i64(axes)],
              {"eps": float(p.eps), "eps_mode": "add"})
    bs = blobs(node)
    if not bs:
        return y
    s = bs[0].reshape(-1)
    return b.out("Multiply", [y, _operand(node, b, s, 1, rank)])


@caffe_converter("MVN")
def mvn(node: ConverterNode, b: Builder) -> SSAValue:
    p = param(node, "mvn_param")
    rank = rank_of(node, node.input(0))
    axes = list(range(1 if p.across_channels else 2, rank))
    return b.out("MVN", [node.input(0), b.i64(axes)], {
        "normalize_variance": bool(p.normalize_variance), "eps": float(p.eps),
        "eps_mode": "outside_sqrt",
    })
