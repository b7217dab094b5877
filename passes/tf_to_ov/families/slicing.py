"""Indexing: StridedSlice (all five masks), Slice, GatherV2, Gather, GatherNd.

``ov.StridedSlice`` has TF's mask semantics with the masks as bit lists; the
converter only normalizes the bits TF ignores: at the (first) ellipsis
position every other bit is dropped, a new axis drops the shrink / begin /
end bits of its position, and a shrinking axis ignores begin_mask / end_mask
(it always takes ``begin``).
"""

from __future__ import annotations

import numpy as np
from xdsl.ir import SSAValue
from xmo.passes.tf_to_ov.builder import TFBuilder
from xmo.passes.tf_to_ov.registry import tf_converter
from xmo.passes.to_ov.builder import ConverterNode

_I64_MAX = int(np.iinfo(np.int64).max)


def _bits(mask: int, n: int) -> list[int]:
    return [(int(mask) >> i) & 1 for i in range(n)]


def strided_slice_masks(
    n: int, begin: int, end: int, ellipsis: int, new_axis: int, shrink: int
) -> dict[str, list[int]]:
    """TF mask integers -> the normalized bit lists of ``ov.StridedSlice``."""
    bm, em = _bits(begin, n), _bits(end, n)
    el, na, sh = _bits(ellipsis, n), _bits(new_axis, n), _bits(shrink, n)
    first = next((i for i in range(n) if el[i]), None)
    el = [1 if i == first else 0 for i in range(n)]
    for i in range(n):
        if el[i]:
            bm[i] = em[i] = na[i] = sh[i] = 0
        elif na[i]:
            bm[i] = em[i] = sh[i] = 0
        elif sh[i]:
            bm[i] = em[i] = 0
    return {
        "begin_mask": bm,
        "end_mask": em,
        "new_axis_mask": na,
        "shrink_axis_mask": sh,
        "ellipsis_mask": el,
    }


def _index_vector(node: ConverterNode, b: TFBuilder, i: int) -> SSAValue:
    c = node.const(i)
    if c is not None:
        return b.i64([int(v) for v in c.reshape(-1)])
    return b.convert(node.input(i), "i64")


@tf_converter("StridedSlice")
def strided_slice(node: ConverterNode, b: TFBuilder):
    x = node.input(0)
    lens = {tuple(s) for s in (node.shape(1), node.shape(2), node.shape(3)) if s is not None}
    if len(lens) != 1 or len(next(iter(lens))) != 1 or next(iter(lens))[0] < 0:
        raise node.unsupported("begin, end and strides must be vectors of one static length")
    n = next(iter(lens))[0]
    masks = strided_slice_masks(
        n,
        node.attr("begin_mask", 0),
        node.attr("end_mask", 0),
        node.attr("ellipsis_mask", 0),
        node.attr("new_axis_mask", 0),
        node.attr("shrink_axis_mask", 0),
    )
    ins = [x, *(_index_vector(node, b, i) for i in (1, 2, 3))]
    return b.out("StridedSlice", ins, masks)


@tf_converter("Slice")
def slice_(node: ConverterNode, b: TFBuilder):
    x = node.input(0)
    begin, size = node.const(1), node.const(2)
    if begin is not None and size is not None:
        bs = [int(v) for v in begin.reshape(-1)]
        ss = [int(v) for v in size.reshape(-1)]
        stops = [_I64_MAX if s == -1 else bv + s for bv, s in zip(bs, ss)]
        start, stop, n = b.i64(bs), b.i64(stops), len(bs)
    else:
        shape = node.shape(1) or node.shape(2)
        if shape is None or len(shape) != 1 or shape[0] < 0:
            raise node.unsupported("begin / size must be vectors of static length")
        n = shape[0]
        start = b.convert(node.input(1), "i64")
        sz = b.convert(node.input(2), "i64")
        to_end = b.out("Equal", [sz, b.i64(-1)])
        # size -1: up to the dim itself (no huge sentinel: OpenVINO's CPU
        # plugin does not compute such i64 values exactly)
        dims = b.shape_of(x)
        if node.rank(0) != n:
            dims = b.out("Slice", [dims, b.i64([0]), b.i64([n]), b.i64([1])])
        stop = b.out("Select", [to_end, dims, b.out("Add", [start, sz])])
    return b.out("Slice", [x, start, stop, b.i64([1] * n), b.i64(list(range(n)))])


@tf_converter("GatherV2")
def gather_v2(node: ConverterNode, b: TFBuilder):
    axis = node.const_scalar_int(2, "axis")
    batch_dims = int(node.attr("batch_dims", 0))
    return b.out(
        "Gather", [node.input(0), node.input(1), b.i64(axis)], {"batch_dims": batch_dims}
    )


@tf_converter("Gather")
def gather(node: ConverterNode, b: TFBuilder):
    return b.out("Gather", [node.input(0), node.input(1), b.i64(0)], {"batch_dims": 0})


@tf_converter("GatherNd")
def gather_nd(node: ConverterNode, b: TFBuilder):
    return b.out("GatherND", [node.input(0), node.input(1)], {"batch_dims": 0})
