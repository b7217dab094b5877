"""Shape and array ops: ConcatV2, Concat, Pack, Unpack, Reshape, Transpose,
Squeeze, ExpandDims, Shape, ShapeN, Size, Rank, Fill, Tile, BroadcastTo, Pad,
PadV2, MirrorPad, Split, SplitV, Range, OneHot, ReverseV2, Roll, Where,
SpaceToBatchND, BatchToSpaceND, MatrixBandPart.

TF shape tensors are int32 by default: OpenVINO's shape inputs take any
integer type, so they are passed as they are.
"""

from __future__ import annotations

import numpy as np
from xdsl.ir import SSAValue
from xmo.passes.tf_to_ov.builder import TFBuilder
from xmo.passes.tf_to_ov.families.atrous import atrous_convolution
from xmo.passes.tf_to_ov.families.elementwise import etype_attr
from xmo.passes.tf_to_ov.families.reductions import axes_input, scalar_axis
from xmo.passes.tf_to_ov.registry import tf_converter
from xmo.passes.to_ov.builder import ConverterNode, value_etype
from xmo.passes.to_ov.helpers import col_minus_row, norm_axis, scalar

_I64_MAX = int(np.iinfo(np.int64).max)


def _norm(node: ConverterNode, axis: int, rank: int | None) -> int:
    if rank is None:
        if axis < 0:
            raise node.unsupported("negative axis on an input of dynamic rank")
        return axis
    return norm_axis(node, axis, rank)


@tf_converter("ConcatV2", "Concat")
def concat(node: ConverterNode, b: TFBuilder):
    if node.type == "ConcatV2":
        ai, values = node.num_inputs - 1, list(range(node.num_inputs - 1))
    else:
        ai, values = 0, list(range(1, node.num_inputs))
    axis = node.const_scalar_int(ai, "axis")
    ranks = [node.rank(i) for i in values]
    rank = next((r for r in ranks if r is not None), None)
    axis = _norm(node, axis, rank)
    ins = [node.input(i) for i in values]
    if len(ins) == 1:
        return ins[0]
    return b.concat(ins, axis)


@tf_converter("Pack")
def pack(node: ConverterNode, b: TFBuilder):
    axis = int(node.attr("axis", 0))
    rank = next((node.rank(i) for i in range(node.num_inputs) if node.rank(i) is not None), None)
    axis = _norm(node, axis, None if rank is None else rank + 1)
    ins = [b.unsqueeze(node.input(i), [axis]) for i in range(node.num_inputs)]
    return ins[0] if len(ins) == 1 else b.concat(ins, axis)


@tf_converter("Unpack")
def unpack(node: ConverterNode, b: TFBuilder):
    x = node.input(0)
    axis = _norm(node, int(node.attr("axis", 0)), node.rank(0))
    num = int(node.attr("num", node.num_outputs))
    parts = b.op("Split", [x, b.i64(axis)], {"num_splits": num}).results
    return [b.squeeze(p, [axis]) for p in parts]


@tf_converter("Reshape")
def reshape(node: ConverterNode, b: TFBuilder):
    shape = node.input(1)
    c = node.const(1)
    if c is not None:
        shape = b.i64([int(v) for v in c.reshape(-1)])
    elif node.rank(1) == 0:
        shape = b.reshape(shape, [1])
    return b.out("Reshape", [node.input(0), shape], {"special_zero": False})


@tf_converter("Transpose", "ConjugateTranspose")
def transpose(node: ConverterNode, b: TFBuilder):
    c = node.const(1)
    perm = b.i64([int(v) for v in c.reshape(-1)]) if c is not None else node.input(1)
    return b.out("Transpose", [node.input(0), perm])


@tf_converter("Squeeze")
def squeeze(node: ConverterNode, b: TFBuilder):
    axes = node.int_list("squeeze_dims")
    x = node.input(0)
    if not axes:
        s = node.shape(0)
        if s is not None and all(d >= 0 for d in s):
            return b.squeeze(x, [i for i, d in enumerate(s) if d == 1])
        return b.squeeze(x)
    r = node.rank(0)
    return b.squeeze(x, [_norm(node, a, r) for a in axes])


@tf_converter("ExpandDims")
def expand_dims(node: ConverterNode, b: TFBuilder):
    x = node.input(0)
    r = node.rank(0)
    dim = node.const_scalar_int(1, "dim")
    return b.unsqueeze(x, [_norm(node, dim, None if r is None else r + 1)])


def _int_out(node: ConverterNode, name: str = "out_type") -> str:
    t = etype_attr(node, name)
    if t not in ("i32", "i64"):
        raise node.unsupported(f"{name}={t}")
    return t


@tf_converter("Shape")
def shape(node: ConverterNode, b: TFBuilder):
    return b.shape_of(node.input(0), _int_out(node))


@tf_converter("ShapeN")
def shape_n(node: ConverterNode, b: TFBuilder):
    t = _int_out(node)
    return [b.shape_of(node.input(i), t) for i in range(node.num_inputs)]


@tf_converter("Size")
def size(node: ConverterNode, b: TFBuilder):
    t = _int_out(node)
    n = b.out("ReduceProd", [b.shape_of(node.input(0)), b.i64([0])], {"keep_dims": False})
    return b.convert(n, t)


@tf_converter("Rank")
def rank(node: ConverterNode, b: TFBuilder):
    r = b.shape_of(b.shape_of(node.input(0)), "i32")
    return b.squeeze(r, [0])


@tf_converter("Fill")
def fill(node: ConverterNode, b: TFBuilder):
    return b.out("Broadcast", [node.input(1), node.input(0)], {"mode": "numpy"})


@tf_converter("Tile")
def tile(node: ConverterNode, b: TFBuilder):
    return b.out("Tile", [node.input(0), node.input(1)])


@tf_converter("BroadcastTo")
def broadcast_to(node: ConverterNode, b: TFBuilder):
    return b.out("Broadcast", [node.input(0), node.input(1)], {"mode": "numpy"})


def paddings(node: ConverterNode, b: TFBuilder, i: int) -> tuple[SSAValue, SSAValue]:
    """pads_begin / pads_end (i64 vectors) of a TF ``[rank, 2]`` paddings input."""
    c = node.const(i)
    if c is not None:
        p = np.asarray(c, dtype=np.int64).reshape(-1, 2)
        return b.i64(list(p[:, 0])), b.i64(list(p[:, 1]))
    p = b.convert(node.input(i), "i64")
    return b.gather(p, b.i64(0), 1), b.gather(p, b.i64(1), 1)


@tf_converter("Pad", "PadV2")
def pad(node: ConverterNode, b: TFBuilder):
    x = node.input(0)
    pb, pe = paddings(node, b, 1)
    if node.type == "PadV2":
        value = b.convert(node.input(2), value_etype(x))
        if node.rank(2) != 0:
            value = b.reshape(value, [])
    else:
        value = scalar(b, 0, value_etype(x))
    return b.out("Pad", [x, pb, pe, value], {"pad_mode": "constant"})


@tf_converter("MirrorPad")
def mirror_pad(node: ConverterNode, b: TFBuilder):
    mode = node.str_attr("mode", "REFLECT").upper()
    if mode not in ("REFLECT", "SYMMETRIC"):
        raise node.unsupported(f"mode {mode}")
    pb, pe = paddings(node, b, 1)
    return b.out("Pad", [node.input(0), pb, pe], {"pad_mode": mode.lower()})


@tf_converter("Split")
def split(node: ConverterNode, b: TFBuilder):
    x = node.input(1)
    axis = _norm(node, node.const_scalar_int(0, "axis"), node.rank(1))
    num = int(node.attr("num_split", node.num_outputs))
    return list(b.op("Split", [x, b.i64(axis)], {"num_splits": num}).results)


@tf_converter("SplitV")
def split_v(node: ConverterNode, b: TFBuilder):
    x = node.input(0)
    axis = _norm(node, node.const_scalar_int(2, "axis"), node.rank(0))
    lengths = node.const(1)
    sizes = b.i64([int(v) for v in lengths.reshape(-1)]) if lengths is not None else node.input(1)
    return list(b.op("VariadicSplit", [x, b.i64(axis), sizes]).results)


@tf_converter("Range")
def range_(node: ConverterNode, b: TFBuilder):
    t = etype_attr(node, "Tidx")
    ins = [b.convert(node.input(i), t) for i in range(3)]
    ins = [v if node.rank(i) == 0 else b.reshape(v, []) for i, v in enumerate(ins)]
    return b.out("Range", ins, {"output_type": t})


@tf_converter("LinSpace")
def lin_space(node: ConverterNode, b: TFBuilder):
    start, stop = node.input(0), node.input(1)
    t = value_etype(start)
    start, stop = (v if node.rank(i) == 0 else b.reshape(v, []) for i, v in enumerate((start, stop)))
    n = b.convert(node.input(2), "i64")
    if node.rank(2) != 0:
        n = b.reshape(n, [])
    idx = b.out("Range", [b.i64(0), n, b.i64(1)], {"output_type": t})
    # step (stop - start) / max(num - 1, 1): num == 1 gives [start]
    steps = b.convert(b.out("Maximum", [b.out("Subtract", [n, b.i64(1)]), b.i64(1)]), t)
    delta = b.out("Divide", [b.out("Subtract", [stop, start]), steps])
    return b.out("Add", [start, b.out("Multiply", [idx, delta])])


@tf_converter("OneHot")
def one_hot(node: ConverterNode, b: TFBuilder):
    idx, depth, on, off = (node.input(i) for i in range(4))
    if node.rank(1) != 0:
        depth = b.reshape(depth, [])
    return b.out(
        "OneHot", [idx, depth, on, off],
        {"axis": int(node.attr("axis", -1)), "negative_indices_mode": "ignore_negative"},
    )


@tf_converter("ReverseV2")
def reverse_v2(node: ConverterNode, b: TFBuilder):
    x = node.input(0)
    r = node.rank(0)
    axes = sorted({_norm(node, a, r) for a in node.const_ints(1, "axis")})
    if not axes:
        return x
    k = len(axes)
    return b.out(
        "Slice",
        [x, b.i64([-1] * k), b.i64([-_I64_MAX] * k), b.i64([-1] * k), b.i64(axes)],
    )


@tf_converter("Roll")
def roll(node: ConverterNode, b: TFBuilder):
    # OpenVINO's Roll: the same inputs (scalar or vector shift / axis, negative
    # axes, repeated axes adding up)
    return b.out("Roll", [node.input(0), node.input(1), node.input(2)])


@tf_converter("Where")
def where(node: ConverterNode, b: TFBuilder):
    if node.num_inputs != 1:
        raise node.unsupported("Where with x / y inputs")
    nz = b.out("NonZero", [node.input(0)], {"output_type": "i64"})
    return b.transpose(nz, [1, 0])


def _block_args(node: ConverterNode, r: int) -> tuple[list[int], list[list[int]]]:
    block = node.const_ints(1, "block_shape")
    pads = np.asarray(node.const_ints(2, "paddings/crops"), dtype=np.int64).reshape(-1, 2)
    if len(pads) != len(block) or len(block) > r - 1:
        raise node.unsupported("block_shape and paddings/crops do not match the input")
    return block, pads.tolist()


def _static_tail(node: ConverterNode, r: int) -> list[int]:
    s = node.shape(0)
    if s is None or any(d < 0 for d in s[1:]):
        raise node.unsupported("needs static dims (except the batch)")
    return s


@tf_converter("SpaceToBatchND")
def space_to_batch_nd(node: ConverterNode, b: TFBuilder):
    x = node.input(0)
    r = node.rank(0)
    if r is None:
        raise node.unsupported("input of dynamic rank")
    block, pads = _block_args(node, r)
    m = len(block)
    rest = r - 1 - m
    pb = [0] + [p[0] for p in pads] + [0] * rest
    pe = [0] + [p[1] for p in pads] + [0] * rest
    if any(pb) or any(pe):
        x = b.out("Pad", [x, b.i64(pb), b.i64(pe), scalar(b, 0, value_etype(x))], {"pad_mode": "constant"})
    s = _static_tail(node, r)
    sp = [s[1 + i] + pads[i][0] + pads[i][1] for i in range(m)]
    if any(d % k for d, k in zip(sp, block)):
        raise node.unsupported("padded spatial dims are not multiples of block_shape")
    tail = s[1 + m:]
    split = [-1]
    for d, k in zip(sp, block):
        split += [d // k, k]
    y = b.reshape(x, split + tail)
    perm = [2 + 2 * i for i in range(m)] + [0] + [1 + 2 * i for i in range(m)]
    perm += list(range(1 + 2 * m, 1 + 2 * m + rest))
    y = b.transpose(y, perm)
    return b.reshape(y, [-1] + [d // k for d, k in zip(sp, block)] + tail)


@tf_converter("BatchToSpaceND")
def batch_to_space_nd(node: ConverterNode, b: TFBuilder):
    fused = atrous_convolution(node, b)
    if fused is not None:
        return fused
    x = node.input(0)
    r = node.rank(0)
    if r is None:
        raise node.unsupported("input of dynamic rank")
    block, crops = _block_args(node, r)
    m = len(block)
    rest = r - 1 - m
    s = _static_tail(node, r)
    sp, tail = s[1:1 + m], s[1 + m:]
    y = b.reshape(x, [*block, -1, *sp, *tail])
    perm = [m]
    for i in range(m):
        perm += [m + 1 + i, i]
    perm += list(range(2 * m + 1, 2 * m + 1 + rest))
    y = b.transpose(y, perm)
    full = [d * k for d, k in zip(sp, block)]
    y = b.reshape(y, [-1, *full, *tail])
    if any(c for pair in crops for c in pair):
        start = [c[0] for c in crops]
        stop = [f - c[1] for f, c in zip(full, crops)]
        y = b.out("Slice", [y, b.i64(start), b.i64(stop), b.i64([1] * m), b.i64(list(range(1, m + 1)))])
    return y


@tf_converter("MatrixBandPart")
def matrix_band_part(node: ConverterNode, b: TFBuilder):
    """Keep ``x[..., i, j]`` where ``(lower < 0 or i - j <= lower) and
    (upper < 0 or j - i <= upper)``, zero elsewhere (ONNX Trilu's mask)."""
    x = node.input(0)
    r = node.rank(0)
    if r is None or r < 2:
        raise node.unsupported("the input needs a static rank >= 2")
    diff = col_minus_row(b, x, r)  # j - i
    keep = None
    for i, below in ((1, True), (2, False)):
        c = node.const(i)
        if c is not None and int(np.asarray(c).reshape(-1)[0]) < 0:
            continue  # the whole band on that side
        n = b.reshape(b.convert(node.input(i), "i64"), [])
        inside = (
            b.out("GreaterEqual", [diff, b.out("Negative", [n])])
            if below
            else b.out("LessEqual", [diff, n])
        )
        if c is None:
            inside = b.out("LogicalOr", [b.out("Less", [n, b.i64(0)]), inside])
        keep = inside if keep is None else b.out("LogicalAnd", [keep, inside])
    if keep is None:
        return x
    return b.out("Select", [keep, x, scalar(b, 0, value_etype(x))])


__all__ = ["axes_input", "paddings", "scalar_axis"]
