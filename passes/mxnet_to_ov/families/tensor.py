"""Shapes and data movement: Concat, SliceChannel/split, Reshape (MXNet's special
codes), Flatten, transpose, SwapAxis, slice_axis, slice, expand_dims, squeeze,
reductions, dot, batch_dot, Cast."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from xmo.passes.mxnet_to_ov import attrs as A
from xmo.passes.mxnet_to_ov.registry import mxnet_converter
from xmo.passes.to_ov.builder import Builder, ConverterNode
from xmo.passes.to_ov.helpers import norm_axis, rank_of

_I64_MAX = int(np.iinfo(np.int64).max)


@mxnet_converter("Concat", "concat")
def concat(node: ConverterNode, b: Builder):
    ins = [node.input(i) for i in range(node.num_inputs)]
    axis = norm_axis(node, A.integer(node, "dim", 1), rank_of(node, ins[0]))
    return b.concat(ins, axis)


@mxnet_converter("SliceChannel", "split")
def slice_channel(node: ConverterNode, b: Builder):
    x = node.input(0)
    r = rank_of(node, x)
    axis = norm_axis(node, A.integer(node, "axis", 1), r)
    n = A.integer(node, "num_outputs", 1)
    parts = list(b.op("Split", [x, b.i64(axis)], {"num_splits": n}, num_outputs=n).results)
    if A.flag(node, "squeeze_axis", False):
        parts = [b.squeeze(p, [axis]) for p in parts]
    return parts


def mxnet_reshape(node: ConverterNode, src: Sequence[int], spec: Sequence[int], reverse: bool) -> list[int]:
    """The output dims of MXNet's Reshape (codes 0 copy, -1 infer, -2 copy the
    rest, -3 merge two, -4 split one into the next two) of input dims ``src``
    (-1: unknown); -1 in the result: the one dim to infer, 0: an unknown input
    dim copied to the same position (a Reshape with ``special_zero``)."""
    if reverse:
        out = mxnet_reshape(node, list(reversed(src)), _reverse_spec(spec), False)
        return list(reversed(out))
    out: list[int] = []
    infer = -1
    i = 0  # the input dim being consumed
    k = 0
    spec = list(spec)
    while k < len(spec):
        s = spec[k]
        if s > 0:
            out.append(s)
            i += 1
        elif s == 0:
            if i >= len(src):
                raise node.unsupported(f"shape {spec}: code 0 past the input's dims")
            # an unknown dim copied to the same position: OpenVINO's special zero
            out.append(0 if src[i] < 0 and len(out) == i else src[i])
            i += 1
        elif s == -1:
            if infer >= 0:
                raise node.unsupported(f"shape {spec}: two -1 codes")
            infer = len(out)
            out.append(-1)
            i += 1
        elif s == -2:
            out.extend(src[i:])
            i = len(src)
        elif s == -3:
            if i + 1 >= len(src):
                raise node.unsupported(f"shape {spec}: code -3 past the input's dims")
            a, c = src[i], src[i + 1]
            out.append(a * c if a >= 0 and c >= 0 else -1)
            if out[-1] < 0:
                infer = _one_infer(node, infer, len(out) - 1, spec)
            i += 2
        elif s == -4:
            if k + 2 >= len(spec) or i >= len(src):
                raise node.unsupported(f"shape {spec}: code -4 needs two values after it")
            d, p, q = src[i], spec[k + 1], spec[k + 2]
            if p == -1 and q == -1:
                raise node.unsupported(f"shape {spec}: -4 with two -1")
            if p == -1:
                p = d // q if d >= 0 else -1
            if q == -1:
                q = d // p if d >= 0 else -1
            for v in (p, q):
                out.append(v)
                if v < 0:
                    infer = _one_infer(node, infer, len(out) - 1, spec)
            i += 1
            k += 2
        else:
            raise node.unsupported(f"shape {spec}: code {s}")
        k += 1
    known = [d for j, d in enumerate(out) if j != infer]
    if any(d < 0 for d in known):
        raise node.unsupported(f"shape {spec}: more than one unknown dim")
    if infer >= 0 and all(d >= 0 for d in src):
        total = int(np.prod(src)) if src else 1
        rest = int(np.prod(known)) if known else 1
        if rest == 0 or total % rest:
            raise node.unsupported(f"shape {spec} does not fit the input {list(src)}")
        out[infer] = total // rest
    return out


def _one_infer(node: ConverterNode, infer: int, at: int, spec: Sequence[int]) -> int:
    if infer >= 0 and infer != at:
        raise node.unsupported(f"shape {list(spec)}: more than one unknown dim")
    return at


def _reverse_spec(spec: Sequence[int]) -> list[int]:
    """The spec read right to left (a -4 group keeps its two values, swapped)."""
    groups: list[list[int]] = []
    k = 0
    spec = list(spec)
    while k < len(spec):
        if spec[k] == -4:
            groups.append([-4, spec[k + 2], spec[k + 1]] if k + 2 < len(spec) else spec[k:])
            k += 3
        else:
            groups.append([spec[k]])
            k += 1
    return [v for g in reversed(groups) for v in g]


@mxnet_converter("Reshape", "reshape")
def reshape(node: ConverterNode, b: Builder):
    x = node.input(0)
    src = node.shape(0)
    if src is None:
        raise node.unsupported("input of dynamic rank")
    spec = A.ints(node, "shape")
    if not spec:
        spec = A.ints(node, "target_shape")  # MXNet < 0.9
        if not spec:
            raise node.unsupported("no shape")
        spec = [d if d > 0 else 0 for d in spec]
    dims = mxnet_reshape(node, src, spec, A.flag(node, "reverse", False))
    return b.reshape(x, dims, special_zero=0 in dims)


@mxnet_converter("Flatten", "flatten")
def flatten(node: ConverterNode, b: Builder):
    return b.reshape(node.input(0), [0, -1], special_zero=True)


@mxnet_converter("transpose")
def transpose(node: ConverterNode, b: Builder):
    x = node.input(0)
    r = rank_of(node, x)
    axes = A.ints(node, "axes") or list(reversed(range(r)))
    return b.out("Transpose", [x, b.i64([norm_axis(node, a, r) for a in axes])])


@mxnet_converter("SwapAxis", "swapaxes")
def swap_axis(node: ConverterNode, b: Builder):
    x = node.input(0)
    r = rank_of(node, x)
    d1 = norm_axis(node, A.integer(node, "dim1", 0), r)
    d2 = norm_axis(node, A.integer(node, "dim2", 0), r)
    perm = list(range(r))
    perm[d1], perm[d2] = perm[d2], perm[d1]
    return b.out("Transpose", [x, b.i64(perm)])


@mxnet_converter("slice_axis")
def slice_axis(node: ConverterNode, b: Builder):
    x = node.input(0)
    axis = norm_axis(node, A.integer(node, "axis", 0), rank_of(node, x))
    begin = A.integer(node, "begin", 0)
    end = A.integer(node, "end", None)
    stop = _I64_MAX if end is None else end
    return b.out("Slice", [x, b.i64([begin]), b.i64([stop]), b.i64([1]), b.i64([axis])])


@mxnet_converter("slice", "crop")
def slice_(node: ConverterNode, b: Builder):
    x = node.input(0)
    begin = A.opt_ints(node, "begin") or []
    end = A.opt_ints(node, "end") or []
    step = A.opt_ints(node, "step") or []
    n = len(begin)
    if len(end) != n or (step and len(step) != n):
        raise node.unsupported("begin/end/step of different lengths")
    steps = [1 if s is None else s for s in (step or [None] * n)]
    starts = [(0 if s > 0 else -1) if v is None else v for v, s in zip(begin, steps)]
    stops = [(_I64_MAX if s > 0 else -_I64_MAX) if v is None else v for v, s in zip(end, steps)]
    return b.out("Slice", [x, b.i64(starts), b.i64(stops), b.i64(steps), b.i64(list(range(n)))])


@mxnet_converter("expand_dims")
def expand_dims(node: ConverterNode, b: Builder):
    x = node.input(0)
    axis = A.integer(node, "axis", 0)
    return b.unsqueeze(x, [norm_axis(node, axis, rank_of(node, x) + 1)])


@mxnet_converter("squeeze")
def squeeze(node: ConverterNode, b: Builder):
    x = node.input(0)
    axes = A.ints(node, "axis")
    if not axes:
        dims = node.shape(0)
        if dims is None or any(d < 0 for d in dims):
            raise node.unsupported("squeeze without axes needs static dims")
        axes = [i for i, d in enumerate(dims) if d == 1]
    r = rank_of(node, x)
    return b.squeeze(x, [norm_axis(node, a, r) for a in axes])


_REDUCE = {"mean": "ReduceMean", "sum": "ReduceSum", "max": "ReduceMax", "min": "ReduceMin",
           "prod": "ReduceProd", "sum_axis": "ReduceSum", "max_axis": "ReduceMax",
           "min_axis": "ReduceMin", "nansum": None, "norm": None}


@mxnet_converter(*(k for k, v in _REDUCE.items() if v))
def reduce(node: ConverterNode, b: Builder):
    x = node.input(0)
    r = rank_of(node, x)
    axes = [norm_axis(node, a, r) for a in A.ints(node, "axis")] or list(range(r))
    if A.flag(node, "exclude", False):
        axes = [a for a in range(r) if a not in axes]
    return b.out(_REDUCE[node.type], [x, b.i64(axes)], {"keep_dims": A.flag(node, "keepdims", False)})


@mxnet_converter("dot")
def dot(node: ConverterNode, b: Builder):
    """MXNet dot contracts the last axis of a with the first axis of b
    (transposes reverse all axes)."""
    a, c = node.input(0), node.input(1)
    ta, tb = A.flag(node, "transpose_a", False), A.flag(node, "transpose_b", False)
    ra, rc = rank_of(node, a), rank_of(node, c)
    if ra <= 2 and rc <= 2 and ra >= 1 and rc >= 1 and (ra == 2 or not ta) and (rc == 2 or not tb):
        return b.out("MatMul", [a, c], {"transpose_a": ta, "transpose_b": tb})
    if ta:
        a = b.out("Transpose", [a, b.i64(list(reversed(range(ra))))])
    if tb:
        c = b.out("Transpose", [c, b.i64(list(reversed(range(rc))))])
    sa, sc = node.shape(0), node.shape(1)
    if sa is None or sc is None:
        raise node.unsupported("dot of dynamic-rank inputs")
    sa = list(reversed(sa)) if ta else sa
    sc = list(reversed(sc)) if tb else sc
    y = b.out("MatMul", [b.reshape(a, [-1, sa[-1]]), b.reshape(c, [sc[0], -1])])
    out = [*sa[:-1], *sc[1:]]
    if any(d < 0 for d in out):
        raise node.unsupported("dot of ranks > 2 needs static dims")
    return b.reshape(y, out)


@mxnet_converter("batch_dot")
def batch_dot(node: ConverterNode, b: Builder):
    return b.out("MatMul", [node.input(0), node.input(1)], {
        "transpose_a": A.flag(node, "transpose_a", False),
        "transpose_b": A.flag(node, "transpose_b", False),
    })


_CAST = {"float32": "f32", "float16": "f16", "float64": "f64", "int32": "i32", "int64": "i64",
         "int8": "i8", "uint8": "u8", "bool": "boolean"}


@mxnet_converter("Cast", "cast", "amp_cast")
def cast(node: ConverterNode, b: Builder):
    dtype = A.text(node, "dtype", "float32") or "float32"
    if dtype not in _CAST:
        raise node.unsupported(f"dtype {dtype}")
    return b.convert(node.input(0), _CAST[dtype])
