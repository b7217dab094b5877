"""Shape-manipulating ONNX ops: Reshape, Flatten, Transpose, Squeeze, Unsqueeze,
Concat, Split, Shape, Size, Expand, Tile, ConstantOfShape, Range, EyeLike,
Dropout, BitCast."""

from __future__ import annotations

import math

import numpy as np
from xdsl.ir import SSAValue
from xmo import budget
from xmo.passes.ov_constant_fold import FOLD_ALWAYS_BYTES
from xmo.passes.to_ov.builder import Builder, ConverterNode
from xmo.passes.to_ov.helpers import norm_axis, rank_of, scalar
from xmo.passes.onnx_to_ov.families._types import onnx_dtype_to_etype
from xmo.passes.onnx_to_ov.registry import converter

_INT_BITS = {"i8": 8, "u8": 8, "i16": 16, "u16": 16, "i32": 32, "u32": 32, "i64": 64, "u64": 64}


def ints_input_or_attr(
    node: ConverterNode, b: Builder, index: int, attr: str, attr_until: int
) -> tuple[list[int] | None, SSAValue | None]:
    """An int vector given as attribute ``attr`` (versions < ``attr_until``) or
    as input ``index``: (its values when constant, an i64 ov value), both None
    when absent."""
    if node.version < attr_until:
        vals = node.attr(attr)
        if vals is None:
            return None, None
        vals = [int(v) for v in vals]
        return vals, b.i64(vals)
    if not node.has_input(index):
        return None, None
    c = node.const(index)
    if c is not None:
        vals = [int(v) for v in np.asarray(c).reshape(-1)]
        return vals, b.i64(vals)
    return None, b.convert(node.input(index), "i64")


# ---------------------------------------------------------------------------
# Reshape, Flatten, Transpose, Squeeze, Unsqueeze
# ---------------------------------------------------------------------------


@converter("Reshape")
def reshape(node: ConverterNode, b: Builder):
    x = node.input(0)
    if node.version < 5:
        target = b.i64([int(v) for v in node.attr("shape", [])])
    else:
        c = node.const(1)
        target = b.i64(c.reshape(-1).astype(np.int64)) if c is not None else b.convert(node.input(1), "i64")
    allowzero = bool(node.attr("allowzero", 0))
    return b.reshape(x, target, special_zero=not allowzero)


@converter("Flatten")
def flatten(node: ConverterNode, b: Builder):
    x = node.input(0)
    rank = rank_of(node, x)
    axis = int(node.attr("axis", 1))
    if axis < 0:
        axis += rank
    if not 0 <= axis <= rank:
        raise node.unsupported(f"axis {node.attr('axis', 1)} out of range for rank {rank}")
    dims = node.shape(0)
    assert dims is not None
    if all(d >= 0 for d in dims):
        outer = int(np.prod(dims[:axis], dtype=np.int64))
        inner = int(np.prod(dims[axis:], dtype=np.int64))
        return b.reshape(x, [outer, inner])
    if axis == 0:
        return b.reshape(x, [1, -1])
    shape = b.shape_of(x)
    if all(d >= 0 for d in dims[axis:]):
        inner = int(np.prod(dims[axis:], dtype=np.int64))
        return b.reshape(x, b.concat([b.i64([-1]), b.i64([inner])], 0))
    head = b.out("Slice", [shape, b.i64([0]), b.i64([axis]), b.i64([1])])
    outer = b.out("ReduceProd", [head, b.i64([0])], {"keep_dims": True})
    return b.reshape(x, b.concat([outer, b.i64([-1])], 0))


@converter("Transpose")
def transpose(node: ConverterNode, b: Builder):
    x = node.input(0)
    perm = node.attr("perm")
    if perm is None:
        rank = rank_of(node, x)
        perm = list(range(rank))[::-1]
    return b.out("Transpose", [x, b.i64([int(p) for p in perm])])


@converter("Squeeze")
def squeeze(node: ConverterNode, b: Builder):
    x = node.input(0)
    vals, axes = ints_input_or_attr(node, b, 1, "axes", 13)
    if axes is None or (vals is not None and not vals):
        return b.out("Squeeze", [x])
    return b.out("Squeeze", [x, axes])


@converter("Unsqueeze")
def unsqueeze(node: ConverterNode, b: Builder):
    x = node.input(0)
    vals, axes = ints_input_or_attr(node, b, 1, "axes", 13)
    if axes is None:
        raise node.unsupported("axes are required")
    k = None if node.version < 13 else (node.shape(1) or [-1])[-1]
    r = node.rank(0)
    if vals is not None or r is None or k is None or k < 0:
        return b.out("Unsqueeze", [x, axes])
    # Non-constant axes of known count: the output rank is known, but the CPU
    # plugin refuses Unsqueeze with dynamic axes. Build the target shape.
    out_rank = r + k
    axes = b.reshape(axes, [k])
    norm = b.out("FloorMod", [axes, b.i64(out_rank)])
    hits = b.out("Equal", [b.unsqueeze(norm, [1]), b.i64([list(range(out_rank))])])
    is_new = b.out("ReduceLogicalOr", [hits, b.i64([0])], {"keep_dims": False})
    ones = b.i64([1] * out_rank)
    if r == 0:
        return b.reshape(x, ones)
    old_pos = b.out("CumSum", [b.convert(b.out("LogicalNot", [is_new]), "i64"), b.i64(0)])
    src = b.out("Maximum", [b.out("Subtract", [old_pos, b.i64(1)]), b.i64(0)])
    src = b.out("Minimum", [src, b.i64(r - 1)])
    dims = b.gather(b.shape_of(x), src, 0)
    return b.reshape(x, b.out("Select", [is_new, ones, dims]))


# ---------------------------------------------------------------------------
# Concat, Split
# ---------------------------------------------------------------------------


@converter("Concat")
def concat(node: ConverterNode, b: Builder):
    values = [node.input(i) for i in range(node.num_inputs) if node.has_input(i)]
    axis = int(node.attr("axis", 0 if node.version < 4 else None))
    r = node.rank(0)
    if r is not None:
        axis = norm_axis(node, axis, r)
    return b.concat(values, axis)


@converter("Split")
def split(node: ConverterNode, b: Builder):
    x = node.input(0)
    n = node.num_outputs
    r = rank_of(node, x)
    axis = norm_axis(node, node.attr("axis", 0), r)
    if node.version < 13:
        lengths = node.attr("split")
        if not lengths and node.version < 2 and node.has_input(1):
            lengths = node.const_ints(1, "split")
        lengths_v = b.i64([int(v) for v in lengths]) if lengths else None
    else:
        lengths, lengths_v = ints_input_or_attr(node, b, 1, "split", 0)
    if lengths_v is not None:
        op = b.op("VariadicSplit", [x, b.i64(axis), lengths_v], num_outputs=n)
        return list(op.results)
    dim = (node.shape(0) or [-1] * r)[axis]
    if dim >= 0 and dim % n == 0:
        op = b.op("Split", [x, b.i64(axis)], {"num_splits": n}, num_outputs=n)
        return list(op.results)
    if dim >= 0:
        # num_outputs (opset 18) with an uneven last chunk
        chunk = -(-dim // n)
        lens = [chunk] * (n - 1) + [dim - chunk * (n - 1)]
        op = b.op("VariadicSplit", [x, b.i64(axis), b.i64(lens)], num_outputs=n)
        return list(op.results)
    # dynamic dimension: chunk = ceil(dim / n), the last takes the rest
    d = b.gather(b.shape_of(x), [axis], 0)
    chunk = b.out("Divide", [b.out("Add", [d, b.i64([n - 1])]), b.i64([n])])
    lens = b.concat([b.out("Tile", [chunk, b.i64([n - 1])]), b.i64([-1])], 0)
    op = b.op("VariadicSplit", [x, b.i64(axis), lens], num_outputs=n)
    return list(op.results)


# ---------------------------------------------------------------------------
# Shape, Size
# ---------------------------------------------------------------------------


@converter("Shape")
def shape(node: ConverterNode, b: Builder):
    s = b.shape_of(node.input(0))
    start = int(node.attr("start", 0) or 0)
    end = node.attr("end")
    if start == 0 and end is None:
        return s
    stop = int(end) if end is not None else np.iinfo(np.int64).max
    return b.out("Slice", [s, b.i64([start]), b.i64([stop]), b.i64([1])])


@converter("Size")
def size(node: ConverterNode, b: Builder):
    s = b.shape_of(node.input(0))
    return b.out("ReduceProd", [s, b.i64([0])], {"keep_dims": False})


# ---------------------------------------------------------------------------
# Expand, Tile, ConstantOfShape, Range, EyeLike
# ---------------------------------------------------------------------------


@converter("Expand")
def expand(node: ConverterNode, b: Builder):
    shape_v = b.convert(node.input(1), "i64")
    return b.out("Broadcast", [node.input(0), shape_v], {"mode": "bidirectional"})


@converter("Tile")
def tile(node: ConverterNode, b: Builder):
    if node.version < 6:
        raise node.unsupported("Tile-1 (tiles/axis inputs)")
    x = node.input(0)
    if node.const(1) is not None or node.rank(0) is None:
        return b.out("Tile", [x, b.convert(node.input(1), "i64")])
    # Non-constant repeats: the CPU plugin's Tile reads garbage then, so
    # broadcast [1, d0, 1, d1, ...] to [r0, d0, r1, d1, ...] and merge pairs.
    r = node.rank(0)
    if r == 0:
        return x
    reps = b.convert(node.input(1), "i64")
    shape_v = b.shape_of(x)
    pairs = b.concat([b.unsqueeze(reps, [1]), b.unsqueeze(shape_v, [1])], 1)
    target = b.reshape(pairs, [2 * r])
    spread = b.unsqueeze(x, list(range(0, 2 * r, 2)))
    big = b.out("Broadcast", [spread, target], {"mode": "numpy"})
    return b.reshape(big, b.out("Multiply", [reps, shape_v]))


@converter("ConstantOfShape")
def constant_of_shape(node: ConverterNode, b: Builder):
    value = node.tensor_attr("value")
    if value is None:
        value = np.zeros((), dtype=np.float32)
    value = np.asarray(value).reshape(())
    dims = node.const(0)
    if dims is not None and dims.ndim == 1 and (dims >= 0).all():
        # a known shape: the Constant ov-constant-fold would make of the
        # Broadcast, made here (weights of the ONNX "light" models are
        # ConstantOfShape: this saves a Broadcast and its fold per weight).
        # Only below the folding guard's floor and within the memory budget,
        # so the model comes out as the fold would leave it.
        shape = tuple(int(d) for d in dims)
        nbytes = value.nbytes * math.prod(shape)
        mem = budget.current()
        if nbytes <= FOLD_ALWAYS_BYTES and mem.fits(nbytes):
            mem.charge(nbytes, "its folded result")
            return b.const(np.broadcast_to(value, shape))
    c = b.const(value)
    return b.out("Broadcast", [c, b.convert(node.input(0), "i64")], {"mode": "numpy"})


@converter("Range")
def range_(node: ConverterNode, b: Builder):
    t = node.etype(0)
    # com.microsoft's Range: delta is optional (1)
    n = 3 if node.has_input(2) else 2
    ins = [b.reshape(node.input(i), []) if node.rank(i) not in (0, None) else node.input(i) for i in range(n)]
    if n == 2:
        ins.append(scalar(b, 1, t))
    if t in ("f16", "bf16"):
        # computed in f32, like ONNX's function body (which casts nothing, but
        # f32 is exact for the lengths that fit in memory)
        ins = [b.convert(v, "f32") for v in ins]
        out = b.out("Range", ins, {"output_type": "f32"})
        return b.convert(out, t)
    return b.out("Range", ins, {"output_type": t})


def _index_grid(b: Builder, shape: SSAValue, row_axis: int, col_axis: int) -> SSAValue:
    """``col - row`` over the last two dims of a shape (i64 [R, C])."""
    rows = b.reshape(b.gather(shape, [row_axis], 0), [])
    cols = b.reshape(b.gather(shape, [col_axis], 0), [])
    r = b.out("Range", [b.i64(0), rows, b.i64(1)], {"output_type": "i64"})
    c = b.out("Range", [b.i64(0), cols, b.i64(1)], {"output_type": "i64"})
    return b.out("Subtract", [b.unsqueeze(c, [0]), b.unsqueeze(r, [1])])


@converter("EyeLike")
def eye_like(node: ConverterNode, b: Builder):
    x = node.input(0)
    dtype = node.attr("dtype")
    t = onnx_dtype_to_etype(node, dtype) if dtype is not None else node.etype(0)
    k = int(node.attr("k", 0))
    dims = node.shape(0)
    if dims is not None and all(d >= 0 for d in dims):
        if len(dims) != 2:
            raise node.unsupported("input must be 2-D")
        return const_of(b, np.eye(dims[0], dims[1], k), t)
    diff = _index_grid(b, b.shape_of(x), 0, 1)
    mask = b.out("Equal", [diff, b.i64(k)])
    return b.convert(mask, t)


def const_of(b: Builder, value: np.ndarray, t: str) -> SSAValue:
    """A constant of element type ``t`` (bf16 through f32 + Convert)."""
    from xmo.dialects.ov import element_types as et

    if t == "bf16":
        return b.convert(b.const(np.asarray(value, dtype=np.float32), "f32"), "bf16")
    return b.const(np.asarray(value).astype(et.numpy_dtype(t)), t)


# ---------------------------------------------------------------------------
# Dropout, BitCast
# ---------------------------------------------------------------------------


@converter("Dropout")
def dropout(node: ConverterNode, b: Builder):
    x = node.input(0)
    if node.version < 7 and not node.attr("is_test", 0):
        raise node.unsupported("training mode (is_test=0) is random")
    if node.version >= 12 and node.has_input(2):
        c = node.const(2)
        if c is None or bool(np.asarray(c).reshape(-1)[0]):
            raise node.unsupported("training_mode must be a constant false")
    outs: list[SSAValue | None] = [x]
    if node.num_outputs > 1 and node.output_names[1]:
        mask_t = "boolean" if node.version >= 10 else node.etype(0)
        one = b.const(np.asarray(True)) if mask_t == "boolean" else scalar(b, 1, mask_t)
        outs.append(b.out("Broadcast", [one, b.shape_of(x)], {"mode": "numpy"}))
    return outs


@converter("BitCast")
def bitcast(node: ConverterNode, b: Builder):
    x = node.input(0)
    src = node.etype(0)
    dst = onnx_dtype_to_etype(node, node.attr("to"))
    if src == dst:
        return x
    c = node.const(0)
    if c is not None and src != "boolean":
        from xmo.dialects.ov import element_types as et

        return b.const(np.ascontiguousarray(c).view(et.numpy_dtype(dst)), dst)
    if src == "boolean" and dst in ("u8", "i8"):
        return b.convert(x, dst)
    if src in _INT_BITS and dst in _INT_BITS and _INT_BITS[src] == _INT_BITS[dst]:
        # same-width integers: OpenVINO's Convert wraps around (two's complement)
        return b.convert(x, dst)
    # f32 -> i32 is not emitted: rebuilt arithmetically, the CPU plugin lost
    # low mantissa bits and the sign of zero (see the report)
    if src in ("i32", "u32") and dst == "f32":
        return _bits_f32(b, b.convert(x, "i32"))
    raise node.unsupported(
        f"OpenVINO has no bit reinterpretation op ({src} -> {dst} needs one; "
        "its CPU plugin computes f64/i64 in 32 bits)"
    )


# IEEE binary32 from its bits (exact: fields split with bit ops, then only
# power-of-two scaling and integers below 2^24 pass through f32)
_POW2 = np.asarray([2.0 ** (k - 127) for k in range(256)], dtype=np.float64)
_POW2[0] = 2.0**-126  # subnormals: 0.m * 2^-126
with np.errstate(over="ignore"):
    _POW2_F32 = _POW2.astype(np.float32)  # _POW2_F32[255] = inf
_MANT = float(1 << 23)


def _bits_f32(b: Builder, x: SSAValue) -> SSAValue:
    """The f32 whose bit pattern is i32 ``x``."""
    i = lambda v: b.const(np.int32(v), "i32")
    f = lambda v: b.const(np.float32(v), "f32")
    u = b.out("BitwiseAnd", [x, i(0x7FFFFFFF)])
    e = b.out("BitwiseRightShift", [u, i(23)])
    m = b.out("BitwiseAnd", [u, i((1 << 23) - 1)])
    frac = b.out(
        "Add",
        [b.convert(b.out("Greater", [e, i(0)]), "f32"),
         b.out("Multiply", [b.convert(m, "f32"), f(1 / _MANT)])],
    )
    val = b.out("Multiply", [frac, b.gather(b.const(_POW2_F32, "f32"), e, 0)])
    nan = b.out("LogicalAnd", [b.out("Equal", [e, i(255)]), b.out("NotEqual", [m, i(0)])])
    val = b.out("Select", [nan, f(np.nan), val])
    return b.out("Select", [b.out("Less", [x, i(0)]), b.out("Negative", [val]), val])
