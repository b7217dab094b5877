"""Scatters and segment reductions: ScatterNd, TensorScatterUpdate / Add / Sub
/ Max / Min, SegmentSum, UnsortedSegmentSum / Prod / Max / Min.

All become OpenVINO's ScatterNDUpdate (with a ``reduction``) into a tensor
filled with the reduction's identity: a segment reduction scatters row ``i``
of ``data`` into row ``segment_ids[i]`` of the output, which is what
ScatterNDUpdate does with the ids as ``[..., 1]`` indices.
"""

from __future__ import annotations

import numpy as np
from xdsl.ir import SSAValue
from xmo.dialects.ov import element_types as et
from xmo.passes.tf_to_ov.builder import TFBuilder
from xmo.passes.tf_to_ov.registry import tf_converter
from xmo.passes.to_ov.builder import ConverterNode, value_etype
from xmo.passes.to_ov.helpers import scalar


def _filled(b: TFBuilder, value: float, etype: str, shape: SSAValue) -> SSAValue:
    return b.out("Broadcast", [scalar(b, value, etype), shape], {"mode": "numpy"})


@tf_converter("ScatterNd")
def scatter_nd(node: ConverterNode, b: TFBuilder):
    """Updates added into zeros of ``shape`` (duplicate indices add up)."""
    indices, updates = node.input(0), node.input(1)
    zeros = _filled(b, 0, value_etype(updates), b.convert(node.input(2), "i64"))
    return b.out("ScatterNDUpdate", [zeros, indices, updates], {"reduction": "sum"})


_TENSOR_SCATTER = {
    "TensorScatterUpdate": "none",
    "TensorScatterAdd": "sum",
    "TensorScatterSub": "sum",  # of the negated updates
    "TensorScatterMax": "max",
    "TensorScatterMin": "min",
}


@tf_converter(*_TENSOR_SCATTER)
def tensor_scatter(node: ConverterNode, b: TFBuilder):
    updates = node.input(2)
    if node.type == "TensorScatterSub":
        updates = b.out("Negative", [updates])
    return b.out(
        "ScatterNDUpdate",
        [node.input(0), node.input(1), updates],
        {"reduction": _TENSOR_SCATTER[node.type]},
    )


#: segment reduction -> (ScatterNDUpdate reduction, value of an empty segment)
_SEGMENT = {"Sum": ("sum", "zero"), "Prod": ("prod", "one"), "Max": ("max", "lowest"),
            "Min": ("min", "highest")}  # fmt: skip


def _identity(kind: str, etype: str) -> float:
    if kind == "zero":
        return 0
    if kind == "one":
        return 1
    dt = et.numpy_dtype(etype) if etype != "bf16" else np.dtype(np.float32)
    info = np.finfo(dt) if dt.kind == "f" else np.iinfo(dt)
    return info.min if kind == "lowest" else info.max  # TF's numeric_limits::lowest / max


def _segment_reduce(
    node: ConverterNode, b: TFBuilder, reduction: str, empty: str, num_segments: SSAValue,
    drop_negative: bool = True,
) -> SSAValue:
    """``out[segment_ids[i...]] = reduce(data[i...])`` over ``num_segments`` (an
    i64 ``[1]``) rows; negative ids drop their rows (TF's Unsorted* ops)."""
    data, ids = node.input(0), node.input(1)
    t = value_etype(data)
    rank, k = node.rank(0), node.rank(1)
    if rank is None or k is None:
        raise node.unsupported("data and segment_ids need static ranks")
    fill = _identity(empty, t)
    tail = b.out("Slice", [b.shape_of(data), b.i64([k]), b.i64([rank]), b.i64([1]), b.i64([0])])
    out = _filled(b, fill, t, b.concat([num_segments, tail], 0))
    c = node.const(1)
    if drop_negative and (c is None or (np.asarray(c) < 0).any()):
        # a negative id drops its row: scatter the identity into row 0 instead
        neg = b.out("Less", [ids, scalar(b, 0, value_etype(ids))])
        ids = b.out("Select", [neg, scalar(b, 0, value_etype(ids)), ids])
        if rank > k:
            neg = b.unsqueeze(neg, list(range(k, rank)))
        data = b.out("Select", [neg, scalar(b, fill, t), data])
    return b.out("ScatterNDUpdate", [out, b.unsqueeze(ids, [k]), data], {"reduction": reduction})


@tf_converter("SegmentSum")
def segment_sum(node: ConverterNode, b: TFBuilder):
    """Sorted ids: ``segment_ids[-1] + 1`` rows, empty segments are zeros."""
    if node.rank(1) != 1:
        raise node.unsupported("segment_ids must be a vector")
    ids = b.convert(node.input(1), "i64")
    rows = b.out("Add", [b.gather(ids, [-1], 0), b.i64([1])])
    return _segment_reduce(node, b, "sum", "zero", rows, drop_negative=False)


@tf_converter(*(f"UnsortedSegment{k}" for k in _SEGMENT))
def unsorted_segment(node: ConverterNode, b: TFBuilder):
    """Empty segments hold 0 (Sum), 1 (Prod), the lowest (Max) or highest
    (Min) value of the type, as TF's."""
    reduction, empty = _SEGMENT[node.type.removeprefix("UnsortedSegment")]
    rows = b.reshape(b.convert(node.input(2), "i64"), [1])
    return _segment_reduce(node, b, reduction, empty, rows)
