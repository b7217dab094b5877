"""ONNX sequence ops inside a graph whose inputs and outputs are tensors.

A sequence is kept as a :class:`SeqValue` (see there): its elements either
stacked along a new leading axis (equal shapes) or concatenated along one of
their axes with a 1-D i64 tensor of per-element lengths along that axis
(ragged: elements may differ in that dim). Every sequence op becomes tensor
ops on that data, so positions may be run-time values:

* SequenceEmpty / SequenceConstruct / SplitToSequence build one;
* SequenceInsert / SequenceErase slice and concatenate the data (and the
  lengths); a stacked sequence becomes ragged when an element of another
  shape is inserted;
* SequenceAt gathers (stacked) or slices ``[offset, offset + length)`` with
  the offsets from a CumSum of the lengths (ragged);
* SequenceLength reads the leading dim of the data (stacked) or of the lengths;
* ConcatFromSequence reshapes or transposes stacked data back into a tensor;
  ragged data concatenated along its ragged axis is the result itself, other
  axes need equal shapes (the ragged data is reshaped to the stacked layout).
"""

from __future__ import annotations

import numpy as np
from xdsl.ir import SSAValue
from xmo.dialects.ov.base import dims_of
from xmo.passes.onnx_to_ov.registry import converter
from xmo.passes.to_ov.builder import Builder, ConverterNode, SeqValue

_BIG = 1 << 30  # "to the end" for Slice (kept in i32 range for the CPU plugin)


def _dims(v: SSAValue) -> list[int] | None:
    return dims_of(v.type)


def _scalar_i64(b: Builder, v: SSAValue) -> SSAValue:
    """A position input as a 1-element i64 tensor."""
    return b.reshape(b.convert(v, "i64"), [1])


def _normalized(b: Builder, pos: SSAValue, length: SSAValue, extra: int = 0) -> SSAValue:
    """``pos`` (1-element i64) with negative values counted from the end."""
    n = b.reshape(length, [1])
    if extra:
        n = b.out("Add", [n, b.i64([extra])])
    neg = b.out("Less", [pos, b.i64([0])])
    return b.out("Select", [neg, b.out("Add", [pos, n]), pos])


def _slice(b: Builder, t: SSAValue, start: SSAValue | int, stop: SSAValue | int, axis: int = 0) -> SSAValue:
    s = start if isinstance(start, SSAValue) else b.i64([start])
    e = stop if isinstance(stop, SSAValue) else b.i64([stop])
    return b.out("Slice", [t, s, e, b.i64([1]), b.i64([axis])])


def _plus1(b: Builder, v: SSAValue) -> SSAValue:
    return b.out("Add", [v, b.i64([1])])


def _dim(b: Builder, t: SSAValue, axis: int) -> SSAValue:
    """Dim ``axis`` of ``t`` as a 1-element i64 tensor (constant when static)."""
    dims = _dims(t)
    if dims is not None and dims[axis] >= 0:
        return b.i64([dims[axis]])
    return b.gather(b.shape_of(t), [axis], 0)


def _bounds(b: Builder, lengths: SSAValue) -> SSAValue:
    """``[0, l0, l0 + l1, ...]``: element ``i`` spans ``[bounds[i], bounds[i+1])``."""
    csum = b.out("CumSum", [lengths, b.i64(0)])
    return b.concat([b.i64([0]), csum], 0)


# -- layout changes ---------------------------------------------------------------


def _element_dims(seq: SeqValue) -> list[int] | None:
    """Static element dims (-1 where unknown or, when ragged, on the ragged axis)."""
    assert seq.data is not None
    dims = _dims(seq.data)
    if dims is None:
        return None
    if not seq.ragged:
        return dims[1:]
    return [-1 if i == seq.axis else d for i, d in enumerate(dims)]


def _merge_leading(b: Builder, stacked: SSAValue, axis: int) -> SSAValue:
    """``[n, d0, .., d_axis, ..]`` -> ``[d0, .., n * d_axis, ..]`` (elements
    concatenated along ``axis``)."""
    dims = _dims(stacked)
    assert dims is not None
    rank = len(dims) - 1
    perm = list(range(1, axis + 1)) + [0] + list(range(axis + 1, rank + 1))
    moved = stacked if perm == list(range(rank + 1)) else b.out("Transpose", [stacked, b.i64(perm)])
    mdims = _dims(moved)
    assert mdims is not None
    if all(d >= 0 for d in mdims):
        target = mdims[:axis] + [mdims[axis] * mdims[axis + 1]] + mdims[axis + 2 :]
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


def _to_ragged(b: Builder, seq: SeqValue, axis: int) -> SeqValue:
    """The stacked ``seq`` (non-empty, rank >= 1 elements) ragged along ``axis``."""
    assert seq.data is not None and not seq.ragged
    n = b.reshape(seq.length(b), [1])
    each = _dim(b, seq.data, axis + 1)
    lengths = b.out("Broadcast", [each, n], {"mode": "numpy"})
    return SeqValue(_merge_leading(b, seq.data, axis), lengths, axis, seq.length(b))


def _to_stacked(b: Builder, node: ConverterNode, seq: SeqValue) -> SSAValue:
    """The stacked data of ``seq`` (its elements must share one shape)."""
    assert seq.data is not None
    if not seq.ragged:
        return seq.data
    dims = _dims(seq.data)
    if dims is None:
        raise node.unsupported("sequence elements of unknown rank")
    k, rank = seq.axis, len(dims)
    n = b.reshape(seq.length(b), [1])
    shape = b.shape_of(seq.data)
    parts = [n, b.i64([-1])]
    if k:
        parts.insert(0, b.gather(shape, list(range(k)), 0))
    if k + 1 < rank:
        parts.append(b.gather(shape, list(range(k + 1, rank)), 0))
    split = b.reshape(seq.data, b.concat(parts, 0))  # [.., n, d_k, ..]
    if k == 0:
        return split
    perm = [k] + [d for d in range(rank + 1) if d != k]
    return b.out("Transpose", [split, b.i64(perm)])


def _ragged_axis(node: ConverterNode, have: list[int], new: list[int]) -> int | None:
    """The axis along which elements of dims ``have`` and ``new`` are kept
    ragged, or None when both are known to share one shape."""
    unsure = [i for i, (e, f) in enumerate(zip(have, new)) if not (e >= 0 and e == f)]
    if not unsure:
        return None
    differ = [i for i in unsure if have[i] >= 0 and new[i] >= 0]
    if len(differ) > 1:
        raise node.unsupported("sequence elements that differ in more than one dimension")
    return differ[0] if differ else unsure[0]


def _insert(b: Builder, node: ConverterNode, seq: SeqValue, item: SSAValue, pos: SSAValue | None) -> SeqValue:
    """``seq`` with ``item`` inserted before position ``pos`` (1-element i64,
    may be negative; None appends)."""
    if seq.data is None:
        return SeqValue(b.unsqueeze(item, [0]))
    have, new = _element_dims(seq), _dims(item)
    if have is None or new is None:
        raise node.unsupported("sequence elements of unknown rank")
    if len(have) != len(new):
        raise node.unsupported("sequence elements of different ranks")
    if pos is not None:
        pos = _normalized(b, pos, seq.length(b))
    if not seq.ragged:
        axis = _ragged_axis(node, have, new)
        if axis is None:
            one = b.unsqueeze(item, [0])
            if pos is None:
                return SeqValue(b.concat([seq.data, one], 0))
            head, tail = _slice(b, seq.data, 0, pos), _slice(b, seq.data, pos, _BIG)
            return SeqValue(b.concat([head, one, tail], 0))
        seq = _to_ragged(b, seq, axis)
    assert seq.data is not None and seq.lengths is not None
    k = seq.axis
    if any(i != k and e >= 0 and f >= 0 and e != f for i, (e, f) in enumerate(zip(have, new))):
        raise node.unsupported("sequence elements that differ in more than one dimension")
    size = _dim(b, item, k)
    if pos is None:
        return SeqValue(b.concat([seq.data, item], k), b.concat([seq.lengths, size], 0), k)
    at = b.gather(_bounds(b, seq.lengths), pos, 0)
    data = b.concat([_slice(b, seq.data, 0, at, k), item, _slice(b, seq.data, at, _BIG, k)], k)
    lengths = b.concat(
        [_slice(b, seq.lengths, 0, pos), size, _slice(b, seq.lengths, pos, _BIG)], 0
    )
    return SeqValue(data, lengths, k)


# -- converters -------------------------------------------------------------------


@converter("SequenceEmpty")
def sequence_empty(node: ConverterNode, b: Builder):
    return SeqValue(None)


@converter("SequenceConstruct")
def sequence_construct(node: ConverterNode, b: Builder):
    seq = SeqValue(None)
    for i in range(node.num_inputs):
        seq = _insert(b, node, seq, node.input(i), None)
    return seq


@converter("SequenceInsert")
def sequence_insert(node: ConverterNode, b: Builder):
    pos = _scalar_i64(b, node.input(2)) if node.has_input(2) else None
    return _insert(b, node, node.sequence(0), node.input(1), pos)


@converter("SequenceErase")
def sequence_erase(node: ConverterNode, b: Builder):
    seq = node.sequence(0)
    if seq.data is None:
        raise node.unsupported("erasing from an empty sequence")
    if node.has_input(1):
        pos = _normalized(b, _scalar_i64(b, node.input(1)), seq.length(b))
    else:
        pos = b.out("Subtract", [b.reshape(seq.length(b), [1]), b.i64([1])])
    nxt = _plus1(b, pos)
    if not seq.ragged:
        return SeqValue(b.concat([_slice(b, seq.data, 0, pos), _slice(b, seq.data, nxt, _BIG)], 0))
    assert seq.lengths is not None
    k = seq.axis
    bounds = _bounds(b, seq.lengths)
    start, stop = b.gather(bounds, pos, 0), b.gather(bounds, nxt, 0)
    data = b.concat([_slice(b, seq.data, 0, start, k), _slice(b, seq.data, stop, _BIG, k)], k)
    lengths = b.concat([_slice(b, seq.lengths, 0, pos), _slice(b, seq.lengths, nxt, _BIG)], 0)
    return SeqValue(data, lengths, k)


@converter("SequenceAt")
def sequence_at(node: ConverterNode, b: Builder):
    seq = node.sequence(0)
    if seq.data is None:
        raise node.unsupported("reading from an empty sequence")
    if not seq.ragged:
        pos = b.convert(node.input(1), "i64")
        if node.rank(1) != 0:
            pos = b.reshape(pos, [])
        return b.out("Gather", [seq.data, pos, b.i64(0)], {"batch_dims": 0})
    assert seq.lengths is not None
    pos = _normalized(b, _scalar_i64(b, node.input(1)), seq.length(b))
    bounds = _bounds(b, seq.lengths)
    start, stop = b.gather(bounds, pos, 0), b.gather(bounds, _plus1(b, pos), 0)
    return _slice(b, seq.data, start, stop, seq.axis)


@converter("SequenceLength")
def sequence_length(node: ConverterNode, b: Builder):
    return node.sequence(0).length(b)


@converter("ConcatFromSequence")
def concat_from_sequence(node: ConverterNode, b: Builder):
    seq = node.sequence(0)
    if seq.data is None:
        raise node.unsupported("concatenating an empty sequence")
    have = _element_dims(seq)
    if have is None:
        raise node.unsupported("sequence elements of unknown rank")
    rank = len(have)
    axis = int(node.attr("axis"))
    new_axis = bool(node.attr("new_axis", 0))
    axis = axis + rank + int(new_axis) if axis < 0 else axis
    if seq.ragged and not new_axis and axis == seq.axis:
        return seq.data
    stacked = _to_stacked(b, node, seq)
    if new_axis:
        # stacked [n, d0..] -> n moved to position ``axis``
        perm = list(range(1, axis + 1)) + [0] + list(range(axis + 1, rank + 1))
        return b.out("Transpose", [stacked, b.i64(perm)])
    return _merge_leading(b, stacked, axis)


def _split_sizes(b: Builder, x: SSAValue, axis: int, size: SSAValue) -> SSAValue:
    """Lengths of the chunks of a split of ``x`` along ``axis`` into pieces of
    ``size`` (scalar i64), the last one possibly shorter."""
    dim = b.squeeze(_dim(b, x, axis), [0])
    starts = b.out("Range", [b.i64(0), dim, size], {"output_type": "i64"})
    return b.out("Minimum", [size, b.out("Subtract", [dim, starts])])


@converter("SplitToSequence")
def split_to_sequence(node: ConverterNode, b: Builder):
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
    even: tuple[int, int] | None = None  # (number of parts, part size)
    if split is not None and np.ndim(split) == 0:
        size, dim = int(split), shape[axis]
        if dim >= 0 and size > 0 and dim % size == 0:
            even = (dim // size, size)
    elif split is not None:
        sizes = [int(v) for v in np.asarray(split).reshape(-1)]
        if sizes and len(set(sizes)) == 1:
            even = (len(sizes), sizes[0])
    if even is not None:
        new_shape = list(shape[:axis]) + list(even) + list(shape[axis + 1 :])
        r = b.reshape(x, new_shape)
        perm = [axis] + [d for d in range(rank + 1) if d != axis]
        return SeqValue(b.out("Transpose", [r, b.i64(perm)]))
    # uneven or run-time split sizes: a ragged sequence along ``axis``
    sp = b.convert(node.input(1), "i64")
    srank = node.rank(1)
    if srank == 0:
        lengths = _split_sizes(b, x, axis, sp)
    elif srank == 1:
        lengths = sp
    else:
        raise node.unsupported("split of unknown rank")
    return SeqValue(x, lengths, axis)
