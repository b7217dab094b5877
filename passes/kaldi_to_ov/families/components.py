"""Frame-wise components: affine transforms, nonlinearities, normalizations,
element-wise products, scales and offsets, and the ones that are the
identity at inference (dropout, backprop truncation's gradient part, no-op).
"""

from __future__ import annotations

import numpy as np
from xdsl.ir import SSAValue

from xmo.passes.kaldi_to_ov.convert import KaldiNode
from xmo.passes.kaldi_to_ov.families.time import splice
from xmo.passes.kaldi_to_ov.registry import kaldi_converter
from xmo.passes.to_ov.builder import Builder

#: NormalizeComponent's floor of the mean square (Kaldi's kSquaredNormFloor, 2^-66)
SQUARED_NORM_FLOOR = 2.0**-66


def _array(node: KaldiNode, name: str) -> np.ndarray:
    a = node.attr(name)
    if a is None:
        raise node.unsupported(f"no {name}")
    return np.asarray(a, dtype=np.float32)


def affine(node: KaldiNode, b: Builder, x: SSAValue, weights: str, bias: str | None) -> SSAValue:
    """``x @ W.T + bias`` with the component's ``weights`` matrix (out x in)."""
    w = _array(node, weights)
    if w.ndim == 1:
        w = w.reshape(1, -1)
    dims = node.shape(0) if x is node.input(0) else None
    if dims is not None and dims[-1] not in (-1, w.shape[1]):
        raise node.unsupported(f"{weights} is {w.shape[0]}x{w.shape[1]}, the input has {dims[-1]} features")
    y = b.out("MatMul", [x, b.const(w)], {"transpose_a": False, "transpose_b": True})
    if bias is not None:
        bv = node.attr(bias)
        if bv is not None and np.asarray(bv).size:
            bv = np.asarray(bv, dtype=np.float32).reshape(-1)
            if bv.size != w.shape[0]:
                raise node.unsupported(f"{bias} has {bv.size} values for {w.shape[0]} outputs")
            y = b.out("Add", [y, b.const(bv)])
    return y


@kaldi_converter("NaturalGradientAffineComponent", "AffineComponent", "FixedAffineComponent")
def _affine(node: KaldiNode, b: Builder) -> SSAValue:
    return affine(node, b, node.input(0), "LinearParams", "BiasParams")


@kaldi_converter("LinearComponent")
def _linear(node: KaldiNode, b: Builder) -> SSAValue:
    return affine(node, b, node.input(0), "Params", None)


@kaldi_converter("AffineTransform")
def _affine_transform(node: KaldiNode, b: Builder) -> SSAValue:
    return affine(node, b, node.input(0), "Linearity", "Bias")


@kaldi_converter("LinearTransform")
def _linear_transform(node: KaldiNode, b: Builder) -> SSAValue:
    return affine(node, b, node.input(0), "Linearity", None)


@kaldi_converter("TdnnComponent")
def _tdnn(node: KaldiNode, b: Builder) -> SSAValue:
    offsets = node.attr("TimeOffsets")
    if offsets is None:
        raise node.unsupported("no TimeOffsets")
    x = splice(node, b, [int(o) for o in np.asarray(offsets).reshape(-1)])
    return affine(node, b, x, "LinearParams", "BiasParams")


_UNARY = {
    "RectifiedLinearComponent": "Relu",
    "SigmoidComponent": "Sigmoid",
    "Sigmoid": "Sigmoid",
    "TanhComponent": "Tanh",
    "Tanh": "Tanh",
}


@kaldi_converter(*_UNARY)
def _unary(node: KaldiNode, b: Builder) -> SSAValue:
    return b.out(_UNARY[node.type], [node.input(0)])


@kaldi_converter("SoftmaxComponent", "Softmax")
def _softmax(node: KaldiNode, b: Builder) -> SSAValue:
    return b.out("Softmax", [node.input(0)], {"axis": -1})


@kaldi_converter("LogSoftmaxComponent")
def _log_softmax(node: KaldiNode, b: Builder) -> SSAValue:
    return b.out("LogSoftmax", [node.input(0)], {"axis": -1})


@kaldi_converter("DropoutComponent", "GeneralDropoutComponent", "NoOpComponent", "Dropout")
def _identity(node: KaldiNode, b: Builder) -> SSAValue:
    return node.input(0)


@kaldi_converter("BackpropTruncationComponent")
def _backprop_truncation(node: KaldiNode, b: Builder) -> SSAValue:
    x = node.input(0)
    scale = float(node.attr("Scale", 1.0))
    return x if scale == 1.0 else b.out("Multiply", [x, b.scalar_like(scale, x)])


def _per_feature(node: KaldiNode, v: np.ndarray, dim: int | None) -> np.ndarray:
    """A per-block vector repeated over the features (``Dim`` / ``BlockDim``)."""
    v = np.asarray(v, dtype=np.float32).reshape(-1)
    if dim is None or dim == v.size:
        return v
    if v.size == 0 or dim % v.size:
        raise node.unsupported(f"block of {v.size} does not divide dim {dim}")
    return np.tile(v, dim // v.size)


def _scale_offset(node: KaldiNode, b: Builder, scale: np.ndarray, offset: np.ndarray) -> SSAValue:
    y = b.out("Multiply", [node.input(0), b.const(scale)])
    return b.out("Add", [y, b.const(offset)])


@kaldi_converter("BatchNormComponent")
def _batch_norm(node: KaldiNode, b: Builder) -> SSAValue:
    mean, var = _array(node, "StatsMean"), _array(node, "StatsVar")
    eps = float(node.attr("Epsilon", 0.001))
    rms = float(node.attr("TargetRms", 1.0))
    scale = (rms / np.sqrt(var.astype(np.float64) + eps)).astype(np.float32)
    offset = (-mean * scale).astype(np.float32)
    dim = node.attr("Dim")
    return _scale_offset(node, b, _per_feature(node, scale, dim), _per_feature(node, offset, dim))


@kaldi_converter("ScaleAndOffsetComponent")
def _scale_and_offset(node: KaldiNode, b: Builder) -> SSAValue:
    dim = node.attr("Dim")
    return _scale_offset(node, b, _per_feature(node, _array(node, "Scales"), dim),
                         _per_feature(node, _array(node, "Offsets"), dim))


@kaldi_converter("AddShift")
def _add_shift(node: KaldiNode, b: Builder) -> SSAValue:
    return b.out("Add", [node.input(0), b.const(_array(node, "Shift").reshape(-1))])


@kaldi_converter("Rescale")
def _rescale(node: KaldiNode, b: Builder) -> SSAValue:
    return b.out("Multiply", [node.input(0), b.const(_array(node, "Scale").reshape(-1))])


@kaldi_converter("NormalizeComponent")
def _normalize(node: KaldiNode, b: Builder) -> SSAValue:
    if node.attr("AddLogStddev", False):
        raise node.unsupported("AddLogStddev is not supported")
    x = node.input(0)
    rms = float(node.attr("TargetRms", 1.0))
    msq = b.out("ReduceMean", [b.out("Multiply", [x, x]), b.i64([-1])], {"keep_dims": True})
    if rms != 1.0:
        msq = b.out("Multiply", [msq, b.scalar_like(1.0 / (rms * rms), x)])
    msq = b.out("Maximum", [msq, b.scalar_like(SQUARED_NORM_FLOOR, x)])
    return b.out("Divide", [x, b.out("Sqrt", [msq])])


@kaldi_converter("ElementwiseProductComponent")
def _elementwise_product(node: KaldiNode, b: Builder) -> SSAValue:
    in_dim, out_dim = node.attr("InputDim"), node.attr("OutputDim")
    if not in_dim or not out_dim or in_dim % out_dim:
        raise node.unsupported(f"input dim {in_dim} is not a multiple of output dim {out_dim}")
    x = node.input(0)
    parts = b.op("Split", [x, b.i64(1)], {"num_splits": in_dim // out_dim},
                 num_outputs=in_dim // out_dim).results
    y = parts[0]
    for p in parts[1:]:
        y = b.out("Multiply", [y, p])
    return y
