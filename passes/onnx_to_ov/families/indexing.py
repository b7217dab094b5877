"""Indexing ONNX ops: Gather, GatherElements, GatherND, ScatterElements,
ScatterND, Scatter, Slice, Pad, Trilu, OneHot, NonZero, Compress,
ReverseSequence, Unique, TensorScatter, Det."""

from __future__ import annotations

import numpy as np
from xdsl.ir import SSAValue
from xmo.passes.to_ov.builder import Builder, ConverterNode
from xmo.passes.to_ov.helpers import col_minus_row, norm_axis, rank_of, scalar
from xmo.passes.onnx_to_ov.families.shape import ints_input_or_attr
from xmo.passes.onnx_to_ov.registry import converter

_I64_MAX = int(np.iinfo(np.int64).max)


def _i64(b: Builder, v: SSAValue) -> SSAValue:
    return b.convert(v, "i64")


def wrap_negative(b: Builder, idx: SSAValue, dim: SSAValue) -> SSAValue:
    """``idx`` with negative entries shifted by ``dim`` (i64)."""
    neg = b.out("Less", [idx, b.i64(0)])
    return b.out("Select", [neg, b.out("Add", [idx, dim]), idx])


def dim_scalar(b: Builder, v: SSAValue, axis: int) -> SSAValue:
    """``shape(v)[axis]`` as an i64 scalar."""
    return b.reshape(b.gather(b.shape_of(v), [axis], 0), [])


# ---------------------------------------------------------------------------
# Gather family
# ---------------------------------------------------------------------------


@converter("Gather")
def gather(node: ConverterNode, b: Builder):
    x = node.input(0)
    axis = int(node.attr("axis", 0))
    r = node.rank(0)
    if r is not None:
        axis = norm_axis(node, axis, r)
    # Gather-8 accepts negative indices (counted from the end)
    return b.out("Gather", [x, _i64(b, node.input(1)), b.i64(axis)], {"batch_dims": 0})


@converter("GatherElements")
def gather_elements(node: ConverterNode, b: Builder):
    x = node.input(0)
    r = rank_of(node, x)
    axis = norm_axis(node, node.attr("axis", 0), r)
    idx = wrap_negative(b, _i64(b, node.input(1)), dim_scalar(b, x, axis))
    ds, ids = node.shape(0), node.shape(1)
    others = [i for i in range(r) if i != axis]
    # ONNX lets indices be smaller than data outside the axis; OpenVINO wants
    # equal dims: cut data down to the indices' extent. (StridedSlice: the CPU
    # plugin drops a Slice feeding GatherElements.)
    if others and (ids is None or any(ds[i] < 0 or ids[i] < 0 or ds[i] != ids[i] for i in others)):
        mask = [1 if i == axis else 0 for i in range(r)]
        x = b.out(
            "StridedSlice",
            [x, b.i64([0] * r), b.shape_of(idx), b.i64([1] * r)],
            {"begin_mask": [0] * r, "end_mask": mask},
        )
    return b.out("GatherElements", [x, idx], {"axis": axis})


@converter("GatherND")
def gather_nd(node: ConverterNode, b: Builder):
    x = node.input(0)
    bd = int(node.attr("batch_dims", 0))
    return b.out("GatherND", [x, _i64(b, node.input(1))], {"batch_dims": bd})


# ---------------------------------------------------------------------------
# Scatter family
# ---------------------------------------------------------------------------

_REDUCTIONS = {"none": "none", "add": "sum", "mul": "prod", "max": "max", "min": "min"}


def _reduction(node: ConverterNode) -> str:
    red = str(node.attr("reduction", "none") or "none")
    if red not in _REDUCTIONS:
        raise node.unsupported(f"reduction '{red}'")
    return _REDUCTIONS[red]


@converter("ScatterElements", "Scatter")
def scatter_elements(node: ConverterNode, b: Builder):
    x = node.input(0)
    r = rank_of(node, x)
    axis = norm_axis(node, node.attr("axis", 0), r)
    idx = wrap_negative(b, _i64(b, node.input(1)), dim_scalar(b, x, axis))
    return b.out(
        "ScatterElementsUpdate",
        [x, idx, node.input(2), b.i64(axis)],
        {"reduction": _reduction(node), "use_init_val": True},
    )


@converter("ScatterND")
def scatter_nd(node: ConverterNode, b: Builder):
    return b.out(
        "ScatterNDUpdate",
        [node.input(0), _i64(b, node.input(1)), node.input(2)],
        {"reduction": _reduction(node)},
    )


# ---------------------------------------------------------------------------
# Slice
# ---------------------------------------------------------------------------

_BOUND = 1 << 30


def clamp_bounds(b: Builder, v: SSAValue) -> SSAValue:
    """Non-constant slice bounds clamped to +-2^30.

    OpenVINO's CPU plugin runs i64 through i32, which turns INT64_MAX ("to the
    end") into -1; Convert to f32 still sees the true value, so out-of-range
    bounds are detected in f32 and replaced (in-range values stay exact).
    """
    vf = b.convert(v, "f32")
    big = b.out("Greater", [vf, b.const(np.float32(_BOUND))])
    small = b.out("Less", [vf, b.const(np.float32(-_BOUND))])
    v = b.out("Select", [big, b.i64(_BOUND), v])
    return b.out("Select", [small, b.i64(-_BOUND), v])



@converter("Slice")
def slice_(node: ConverterNode, b: Builder):
    x = node.input(0)
    if node.version < 10:
        starts = b.i64([int(v) for v in node.attr("starts")])
        ends = b.i64([int(v) for v in node.attr("ends")])
        axes_l = node.attr("axes")
        axes = b.i64([int(v) for v in axes_l]) if axes_l else None
        steps = b.i64([1] * len(node.attr("starts")))
    else:
        starts, ends = (
            _i64(b, node.input(i)) if node.const(i) is not None
            else clamp_bounds(b, _i64(b, node.input(i)))
            for i in (1, 2)
        )
        _, axes = ints_input_or_attr(node, b, 3, "", 0)
        _, steps = ints_input_or_attr(node, b, 4, "", 0)
        if steps is None:
            c = node.const(1)
            if c is not None:
                steps = b.i64([1] * int(np.asarray(c).size))
            else:
                steps = b.out("Broadcast", [b.i64(1), b.shape_of(starts)], {"mode": "numpy"})
    ins = [x, starts, ends, steps] + ([axes] if axes is not None else [])
    return b.out("Slice", ins)


# ---------------------------------------------------------------------------
# Pad
# ---------------------------------------------------------------------------


def _pad_vectors(node: ConverterNode, b: Builder, r: int, attrs: bool) -> tuple[SSAValue, SSAValue, list[int] | None]:
    """(pads_begin, pads_end) as i64 vectors of length ``r``, and the pads
    as python ints when constant; ``attrs``: Pad before opset 11 (pads as
    attribute)."""
    if attrs:
        pads = node.attr("pads") if node.version >= 2 else node.attr("paddings")
        vals: list[int] | None = [int(v) for v in pads]
        axes_vals: list[int] | None = None
        axes = None
    else:
        c = node.const(1)
        vals = None if c is None else [int(v) for v in np.asarray(c).reshape(-1)]
        axes_vals, axes = ints_input_or_attr(node, b, 3, "", 0)
    if axes is None:
        if vals is not None:
            if len(vals) != 2 * r:
                raise node.unsupported(f"pads has {len(vals)} values for rank {r}")
            return b.i64(vals[:r]), b.i64(vals[r:]), vals
        pads = _i64(b, node.input(1))
        halves = b.op("Split", [pads, b.i64(0)], {"num_splits": 2}, num_outputs=2)
        return halves.results[0], halves.results[1], None
    if axes_vals is not None and vals is not None:
        k = len(axes_vals)
        full = [0] * (2 * r)
        for j, a in enumerate(axes_vals):
            a = norm_axis(node, a, r)
            full[a], full[a + r] = vals[j], vals[j + k]
        return b.i64(full[:r]), b.i64(full[r:]), full
    # dynamic axes or pads: scatter the halves into zero vectors
    pads = _i64(b, node.input(1))
    halves = b.op("Split", [pads, b.i64(0)], {"num_splits": 2}, num_outputs=2)
    ax = b.out("FloorMod", [axes, b.i64(r)])
    zeros = b.i64([0] * r)
    out = [
        b.out("ScatterUpdate", [zeros, ax, h, b.i64(0)]) for h in halves.results
    ]
    return out[0], out[1], None


def _wrap_pad(
    b: Builder, x: SSAValue, begin: SSAValue, end: SSAValue, vals: list[int] | None, r: int
) -> SSAValue:
    """Pad mode 'wrap': gather each axis with indices ``arange(-begin, d + end) mod d``."""
    for a in range(r):
        if vals is not None and vals[a] == 0 and vals[a + r] == 0:
            continue
        d = dim_scalar(b, x, a)
        lo = b.reshape(b.gather(begin, [a], 0), [])
        hi = b.reshape(b.gather(end, [a], 0), [])
        start = b.out("Negative", [lo])
        stop = b.out("Add", [d, hi])
        idx = b.out("Range", [start, stop, b.i64(1)], {"output_type": "i64"})
        idx = b.out("FloorMod", [idx, d])
        x = b.gather(x, idx, a)
    return x


@converter("Pad")
def pad(node: ConverterNode, b: Builder):
    return pad_of(node, b, node.version < 11)


def pad_of(node: ConverterNode, b: Builder, attrs: bool) -> SSAValue:
    """ONNX Pad; ``attrs``: the form before opset 11 (pads and value as
    attributes), else pads / constant_value / axes as inputs."""
    x = node.input(0)
    r = rank_of(node, x)
    mode = str(node.attr("mode", "constant") or "constant")
    begin, end, vals = _pad_vectors(node, b, r, attrs)
    if mode == "wrap":
        return _wrap_pad(b, x, begin, end, vals, r)
    if mode not in ("constant", "reflect", "edge"):
        raise node.unsupported(f"mode '{mode}'")
    ins = [x, begin, end]
    if mode == "constant":
        if attrs:
            ins.append(scalar(b, float(node.attr("value", 0.0)), node.etype(0)))
        elif node.has_input(2):
            ins.append(b.reshape(node.input(2), []))
        else:
            ins.append(scalar(b, 0, node.etype(0)))
    return b.out("Pad", ins, {"pad_mode": mode})


# ---------------------------------------------------------------------------
# Trilu, OneHot
# ---------------------------------------------------------------------------


@converter("Trilu")
def trilu(node: ConverterNode, b: Builder):
    x = node.input(0)
    r = rank_of(node, x)
    if r < 2:
        raise node.unsupported("input must have rank >= 2")
    k = b.reshape(_i64(b, node.input(1)), []) if node.has_input(1) else b.i64(0)
    diff = col_minus_row(b, x, r)
    upper = bool(node.attr("upper", 1))
    keep = b.out("GreaterEqual" if upper else "LessEqual", [diff, k])
    return b.out("Select", [keep, x, scalar(b, 0, node.etype(0))])


@converter("OneHot")
def one_hot(node: ConverterNode, b: Builder):
    idx = node.input(0)
    if node.etype(0) not in ("i32", "i64"):
        idx = b.convert(idx, "i64")
    depth = b.reshape(b.convert(node.input(1), "i64"), [])
    values = node.input(2)
    off = b.reshape(b.gather(values, [0], 0), [])
    on = b.reshape(b.gather(values, [1], 0), [])
    axis = int(node.attr("axis", -1))
    return b.out(
        "OneHot",
        [idx, depth, on, off],
        {"axis": axis, "negative_indices_mode": "normalize"},
    )


# ---------------------------------------------------------------------------
# NonZero, Compress, ReverseSequence, Unique
# ---------------------------------------------------------------------------


@converter("NonZero")
def non_zero(node: ConverterNode, b: Builder):
    return b.out("NonZero", [node.input(0)], {"output_type": "i64"})


@converter("Compress")
def compress(node: ConverterNode, b: Builder):
    x = node.input(0)
    cond = node.input(1)
    pos = b.out("NonZero", [b.reshape(cond, [-1])], {"output_type": "i64"})
    pos = b.reshape(pos, [-1])
    axis = node.attr("axis")
    if axis is None:
        return b.gather(b.reshape(x, [-1]), pos, 0)
    r = rank_of(node, x)
    return b.gather(x, pos, norm_axis(node, axis, r))


@converter("ReverseSequence")
def reverse_sequence(node: ConverterNode, b: Builder):
    x = node.input(0)
    return b.out(
        "ReverseSequence",
        [x, _i64(b, node.input(1))],
        {"batch_axis": int(node.attr("batch_axis", 1)), "seq_axis": int(node.attr("time_axis", 0))},
    )


@converter("Unique")
def unique(node: ConverterNode, b: Builder):
    x = node.input(0)
    ins = [x]
    axis = node.attr("axis")
    if axis is not None:
        ins.append(b.i64([norm_axis(node, axis, rank_of(node, x))]))
    op = b.op(
        "Unique",
        ins,
        {"sorted": bool(node.attr("sorted", 1)), "index_element_type": "i64",
         "count_element_type": "i64"},
        num_outputs=4,
    )
    return list(op.results)


# ---------------------------------------------------------------------------
# TensorScatter, Det
# ---------------------------------------------------------------------------


@converter("TensorScatter")
def tensor_scatter(node: ConverterNode, b: Builder):
    cache, update = node.input(0), node.input(1)
    r = rank_of(node, cache)
    axis = norm_axis(node, node.attr("axis", -2), r)
    if axis == 0:
        raise node.unsupported("axis 0 is the batch axis")
    # index along `axis` for each update element: write_indices[batch] + position
    s = dim_scalar(b, update, axis)
    pos = b.out("Range", [b.i64(0), s, b.i64(1)], {"output_type": "i64"})
    pos = b.reshape(pos, [-1] + [1] * (r - axis - 1))
    if node.has_input(2):
        wi = b.reshape(b.convert(node.input(2), "i64"), [-1] + [1] * (r - 1))
        pos = b.out("Add", [pos, wi])
    if str(node.attr("mode", "linear")) == "circular":
        pos = b.out("FloorMod", [pos, dim_scalar(b, cache, axis)])
    idx = b.out("Broadcast", [pos, b.shape_of(update)], {"mode": "numpy"})
    return b.out(
        "ScatterElementsUpdate",
        [cache, idx, update, b.i64(axis)],
        {"reduction": "none", "use_init_val": True},
    )


_DET_MAX_N = 6


@converter("Det")
def det(node: ConverterNode, b: Builder):
    x = node.input(0)
    r = rank_of(node, x)
    dims = node.shape(0) or []
    if r < 2 or dims[-1] < 0 or dims[-1] != dims[-2]:
        raise node.unsupported("input must end in static square [M, M] dims")
    n = dims[-1]
    if n > _DET_MAX_N:
        raise node.unsupported(f"matrices larger than {_DET_MAX_N}x{_DET_MAX_N}")
    if n == 0:
        return b.out("Broadcast", [scalar(b, 1, node.etype(0)),
                                   b.out("Slice", [b.shape_of(x), b.i64([0]), b.i64([-2]), b.i64([1])])],
                     {"mode": "numpy"})
    # entries m[i][j] of shape [*]; Laplace expansion along rows, memoized by
    # the set of columns still free (n * 2^n multiplications)
    rows = [b.gather(x, i, r - 2) for i in range(n)]
    m = [[b.gather(row, j, r - 2) for j in range(n)] for row in rows]
    memo: dict[tuple[int, ...], SSAValue] = {}

    def minor(cols: tuple[int, ...]) -> SSAValue:
        k = n - len(cols)
        if len(cols) == 1:
            return m[k][cols[0]]
        if cols in memo:
            return memo[cols]
        acc = None
        for pos, j in enumerate(cols):
            term = b.out("Multiply", [m[k][j], minor(cols[:pos] + cols[pos + 1:])])
            if acc is None:
                acc = term
            else:
                acc = b.out("Subtract" if pos % 2 else "Add", [acc, term])
        memo[cols] = acc
        return acc

    return minor(tuple(range(n)))
