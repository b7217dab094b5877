"""ONNX sequence ops inside a graph whose inputs and outputs are tensors.

A sequence is kept as a :class:`SeqValue`: its elements stacked along a new
leading axis (elements must share a shape). Every sequence op becomes tensor
ops on that stacked tensor, so positions may be run-time values:

* SequenceEmpty / SequenceConstruct / SplitToSequence build one;
* SequenceInsert / SequenceErase slice and concatenate it;
* SequenceAt gathers, SequenceLength reads its leading dim,
  ConcatFromSequence reshapes or transposes it back into a tensor.
"""

from __future__ import annotations

import numpy as np
from xdsl.ir import SSAValue

from xmo.passes.onnx_to_ov.builder import Builder, Node, SeqValue
from xmo.passes.onnx_to_ov.registry import converter

_BIG = 1 << 30  # "to the end" for Slice (kept in i32 range for the CPU plugin)


def _scalar_i64(b: Builder, v: SSAValue) -> SSAValue:
    v = b.convert(v, "i64")
    return b.reshape(v, [1])


def _normalized(b: Builder, pos: SSAValue, length: SSAValue, extra: int = 0) -> SSAValue:
    """``pos`` (1-element i64) with negative values counted from the end."""
    n = b.reshape(length, [1])
    if extra:
        n = b.out("Add", [n, b.i64([extra])])
    neg = b.out("Less", [pos, b.i64([0])])
    return b.out("Select", [neg, b.out("Add", [pos, n]), pos])


def _slice0(b: Builder, t: SSAValue, start: SSAValue | int, stop: SSAValue | int) -> SSAValue:
    s = start if isinstance(start, SSAValue) else b.i64([start])
    e = stop if isinstance(stop, SSAValue) else b.i64([stop])
    return b.out("Slice", [t, s, e, b.i64([1]), b.i64([0])])


def _stack_one(b: Builder, t: SSAValue) -> SSAValue:
    return b.unsqueeze(t, [0])


@converter("SequenceEmpty")
def sequence_empty(node: Node, b: Builder):
    return SeqValue(None)


@converter("SequenceConstruct")
def sequence_construct(node: Node, b: Builder):
    parts = [_stack_one(b, node.input(i)) for i in range(node.num_inputs)]
    return SeqValue(parts[0] if len(parts) == 1 else b.concat(parts, 0))


@converter("SequenceInsert")
def sequence_insert(node: Node, b: Builder):
    seq = node.sequence(0)
    item = _stack_one(b, node.input(1))
    if seq.stacked is None:
        return SeqValue(item)
    if not node.has_input(2):
        return SeqValue(b.concat([seq.stacked, item], 0))
    pos = _normalized(b, _scalar_i64(b, node.input(2)), seq.length(b))
    head = _slice0(b, seq.stacked, 0, pos)
    tail = _slice0(b, seq.stacked, pos, _BIG)
    return SeqValue(b.concat([head, item, tail], 0))


@converter("SequenceErase")
def sequence_erase(node: Node, b: Builder):
    seq = node.sequence(0)
    if seq.stacked is None:
        raise node.unsupported("erasing from an empty sequence")
    if node.has_input(1):
        pos = _normalized(b, _scalar_i64(b, node.input(1)), seq.length(b))
    else:
        pos = b.out("Subtract", [b.reshape(seq.length(b), [1]), b.i64([1])])
    head = _slice0(b, seq.stacked, 0, pos)
    tail = _slice0(b, seq.stacked, b.out("Add", [pos, b.i64([1])]), _BIG)
    return SeqValue(b.concat([head, tail], 0))


@converter("SequenceAt")
def sequence_at(node: Node, b: Builder):
    seq = node.sequence(0)
    if seq.stacked is None:
        raise node.unsupported("reading from an empty sequence")
    pos = b.convert(node.input(1), "i64")
    if node.rank(1) != 0:
        pos = b.reshape(pos, [])
    return b.out("Gather", [seq.stacked, pos, b.i64(0)], {"batch_dims": 0})


@converter("SequenceLength")
def sequence_length(node: Node, b: Builder):
    return node.sequence(0).length(b)


@converter("ConcatFromSequence")
def concat_from_sequence(node: Node, b: Builder):
    seq = node.sequence(0)
    if seq.stacked is None:
        raise node.unsupported("concatenating an empty sequence")
    rank = len(b_shape(seq.stacked)) - 1 if b_shape(seq.stacked) is not None else None
    if rank is None:
        raise node.unsupported("sequence elements of unknown rank")
    axis = int(node.attr("axis"))
    if node.attr("new_axis", 0):
        axis = axis + rank + 1 if axis < 0 else axis
        # stacked [n, d0..] -> n moved to position ``axis``
        perm = list(range(1, axis + 1)) + [0] + list(range(axis + 1, rank + 1))
        return b.out("Transpose", [seq.stacked, b.i64(perm)])
    axis = axis + rank if axis < 0 else axis
    # move n right before ``axis`` then merge the two dims
    perm = list(range(1, axis + 1)) + [0] + list(range(axis + 1, rank + 1))
    moved = b.out("Transpose", [seq.stacked, b.i64(perm)])
    dims = b_shape(moved)
    assert dims is not None
    if all(d >= 0 for d in dims):
        target = dims[:axis] + [dims[axis] * dims[axis + 1]] + dims[axis + 2 :]
        return b.reshape(moved, target)
    shape = b.shape_of(moved)
    merged = b.out(
        "ReduceProd", [b.gather(shape, [axis, axis + 1], 0), b.i64([0])], {"keep_dims": True}
    )
    parts = [merged]
    if axis:
        parts.insert(0, b.gather(shape, list(range(axis)), 0))
    if axis + 2 <= rank:
        parts.append(b.gather(shape, list(range(axis + 2, rank + 1)), 0))
    return b.reshape(moved, b.concat(parts, 0))


def b_shape(v: SSAValue) -> list[int] | None:
    from xmo.dialects.ov.base import dims_of

    return dims_of(v.type)


@converter("SplitToSequence")
def split_to_sequence(node: Node, b: Builder):
    x = node.input(0)
    shape = node.shape(0)
    if shape is None:
        raise node.unsupported("input of unknown rank")
    rank = len(shape)
    axis = int(node.attr("axis", 0))
    axis = axis + rank if axis < 0 else axis
    keepdims = int(node.attr("keepdims", 1))
    if not node.has_input(1):
        perm = [axis] + [d for d in range(rank) if d != axis]
        stacked = b.out("Transpose", [x, b.i64(perm)])
        if keepdims:
            stacked = b.unsqueeze(stacked, [axis + 1])
        return SeqValue(stacked)
    split = node.const(1)
    if split is not None and np.ndim(split) == 0:
        size = int(split)
        dim = shape[axis]
        if dim < 0 or dim % size:
            raise node.unsupported("split size that does not divide the axis")
        parts = dim // size
        new_shape = list(shape[:axis]) + [parts, size] + list(shape[axis + 1:])
        r = b.reshape(x, new_shape)
        perm = [axis] + [d for d in range(rank + 1) if d != axis]
        return SeqValue(b.out("Transpose", [r, b.i64(perm)]))
    if split is not None:
        sizes = [int(v) for v in np.asarray(split).reshape(-1)]
        if len(set(sizes)) == 1:
            dim = sizes[0]
            parts = len(sizes)
            new_shape = list(shape[:axis]) + [parts, dim] + list(shape[axis + 1:])
            r = b.reshape(x, new_shape)
            perm = [axis] + [d for d in range(rank + 1) if d != axis]
            return SeqValue(b.out("Transpose", [r, b.i64(perm)]))
    # run-time or uneven split sizes: elements differ; only the length is known
    sp = node.input(1)
    if node.rank(1) == 1:
        length = b.squeeze(b.gather(b.shape_of(sp), [0], 0), [0])
        return SeqValue(None, length)
    raise node.unsupported("run-time scalar split size")
