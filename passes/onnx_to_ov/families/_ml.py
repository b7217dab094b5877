"""Helpers shared by the ``ai.onnx.ml`` converters (:mod:`.ml`, :mod:`.ml_trees`):
the feature matrix, onnxruntime's post transforms, and the one error for
what an IR cannot hold (strings, maps).

The post transforms follow onnxruntime's CPU kernels (``ml_common.h``), which
are what a scikit-learn model converted by skl2onnx is checked against:
LOGISTIC is ``1 / (1 + exp(-|x|))`` mirrored for negative ``x``, PROBIT is
``sqrt(2) * erfinv(2x - 1)`` with the closed-form erfinv approximation
(a = 0.147), SOFTMAX_ZERO leaves (near-)zero scores out of the exponentials.
"""

from __future__ import annotations

import math

import numpy as np
from xdsl.ir import SSAValue

from xmo.passes.to_ov.builder import Builder, ConverterNode

#: ai.onnx.ml, as converters register it
ML = "ai.onnx.ml"

#: the skl2onnx option that keeps string labels and maps out of a model
ZIPMAP_HINT = (
    "convert with skl2onnx's options={id(model): {'zipmap': False}} and integer class labels "
    "(e.g. a LabelEncoder on y) so the model has tensor outputs only"
)

_FLOAT_ETYPES = ("f32", "f64")


def reject_strings(node: ConverterNode, *attrs: str) -> None:
    """Raise the unsupported-op error when the node sets any of the string
    attributes ``attrs`` (string tensors cannot be OpenVINO IR)."""
    for name in attrs:
        v = node.attr(name, None)
        if v:
            raise node.unsupported(f"string attribute '{name}': OpenVINO IR has no string tensors; {ZIPMAP_HINT}")


def compute_etype(node: ConverterNode) -> str:
    """f64 for double features, else f32 (onnxruntime's ml kernels compute
    in double only for double inputs; integer features convert to float)."""
    t = node.etype(0)
    if t == "string":
        raise node.unsupported(f"string input: OpenVINO IR has no string tensors; {ZIPMAP_HINT}")
    return "f64" if t == "f64" else "f32"


def features(node: ConverterNode, b: Builder, etype: str) -> SSAValue:
    """Input 0 as a ``[N, C]`` matrix of ``etype`` (a 1-D input is one row)."""
    x = node.input(0)
    r = node.rank(0)
    if r == 1:
        x = b.unsqueeze(x, [0])
    elif r != 2:
        raise node.unsupported(f"input of rank {r} (1 or 2 expected)")
    return b.convert(x, etype)


def const_like(b: Builder, values, etype: str) -> SSAValue:  # noqa: ANN001
    """A constant of ``etype`` (f32 / f64 / i64) from a Python or numpy value."""
    dtype = {"f32": np.float32, "f64": np.float64, "i64": np.int64}[etype]
    return b.const(np.asarray(values, dtype=dtype), etype)


def greater(b: Builder, a: SSAValue, c: SSAValue, or_equal: bool = False) -> SSAValue:
    """``a > c`` (``a >= c``) as ``c < a`` (``c <= a``): false where either is
    NaN. OpenVINO's CPU plugin (2026.4) answers Greater / GreaterEqual with
    true for a NaN operand; its Less / LessEqual are right."""
    return b.out("LessEqual" if or_equal else "Less", [c, a])


def logistic(b: Builder, v: SSAValue) -> SSAValue:
    """onnxruntime's ComputeLogistic: ``s = 1 / (1 + exp(-|v|))``, ``1 - s`` for ``v < 0``."""
    one = b.scalar_like(1.0, v)
    s = b.out("Divide", [one, b.out("Add", [one, b.out("Exp", [b.out("Negative", [b.out("Abs", [v])])])])])
    neg = b.out("Less", [v, b.scalar_like(0.0, v)])
    return b.out("Select", [neg, b.out("Subtract", [one, s]), s])


def probit(b: Builder, v: SSAValue) -> SSAValue:
    """onnxruntime's ComputeProbit: ``sqrt(2) * erfinv(2v - 1)``, erfinv by
    its closed-form approximation (a = 0.147)."""
    # the constants as onnxruntime computes them (in float: the difference of
    # two square roots below cancels, so their last bits show)
    a = np.float32(0.147)
    c0 = float(np.float32(2) / (np.float32(math.pi) * a))
    c1 = float(np.float32(1) / a)
    x = b.out("Subtract", [b.out("Multiply", [v, b.scalar_like(2.0, v)]), b.scalar_like(1.0, v)])
    one = b.scalar_like(1.0, v)
    sgn = b.out("Select", [b.out("Less", [x, b.scalar_like(0.0, v)]), b.scalar_like(-1.0, v), one])
    y = b.out("Multiply", [b.out("Subtract", [one, x]), b.out("Add", [one, x])])
    lg = b.out("Log", [y])
    c = b.out("Add", [b.scalar_like(c0, v), b.out("Multiply", [b.scalar_like(0.5, v), lg])])
    c2 = b.out("Multiply", [b.scalar_like(c1, v), lg])
    root = b.out("Sqrt", [b.out("Subtract", [b.out("Multiply", [c, c]), c2])])
    r = b.out("Sqrt", [b.out("Subtract", [root, c])])
    return b.out("Multiply", [b.out("Multiply", [sgn, r]), b.scalar_like(float(np.float32(math.sqrt(2.0))), v)])


def softmax_zero(b: Builder, v: SSAValue) -> SSAValue:
    """SOFTMAX_ZERO over the last axis: scores within 1e-7 of zero stay (near)
    zero (``v * exp(-max)``) instead of counting as ``exp(0)``."""
    axis = b.i64([-1])
    vmax = b.out("ReduceMax", [v, axis], {"keep_dims": True})
    e = b.out("Exp", [b.out("Subtract", [v, vmax])])
    small = b.out("Multiply", [v, b.out("Exp", [b.out("Negative", [vmax])])])
    big = greater(b, b.out("Abs", [v]), b.scalar_like(1e-7, v))
    s = b.out("Select", [big, e, small])
    total = b.out("ReduceSum", [b.out("Select", [big, e, b.scalar_like(0.0, v)]), axis], {"keep_dims": True})
    return b.out("Divide", [s, total])


def post_transform(node: ConverterNode, b: Builder, scores: SSAValue, kind: str) -> SSAValue:
    """onnxruntime's post transform ``kind`` of ``[N, C]`` scores (C >= 2)."""
    match kind:
        case "NONE":
            return scores
        case "LOGISTIC":
            return logistic(b, scores)
        case "SOFTMAX":
            return b.out("Softmax", [scores], {"axis": -1})
        case "SOFTMAX_ZERO":
            return softmax_zero(b, scores)
        case "PROBIT":
            return probit(b, scores)
    raise node.unsupported(f"post_transform {kind}")


def first_argmax(b: Builder, scores: SSAValue) -> SSAValue:
    """``[N]`` i64 index of the first largest score of each row of ``[N, C]``."""
    topk = b.op(
        "TopK",
        [scores, b.i64(1)],
        {"axis": 1, "mode": "max", "sort": "value", "index_element_type": "i64", "stable": True},
    )
    return b.squeeze(topk.results[1], [1])


def float_list(node: ConverterNode, name: str, etype: str = "f32") -> np.ndarray | None:
    """A FLOATS attribute, or its ``<name>_as_tensor`` twin (v3), as a numpy
    array of ``etype``; None when neither is set."""
    dtype = np.float64 if etype == "f64" else np.float32
    t = node.tensor_attr(f"{name}_as_tensor")
    if t is not None:
        return np.asarray(t).reshape(-1).astype(dtype)
    v = node.attr(name, None)
    if v is None:
        return None
    return np.asarray(v, dtype=np.float32).astype(dtype)

