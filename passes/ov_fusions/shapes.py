"""Shape-op fusions.

* ``reshape-chain-fusion``: a Reshape / Squeeze / Unsqueeze of a Reshape /
  Squeeze / Unsqueeze (the inner one with no other consumer) with a static
  result shape -> one Reshape to that shape; when that shape is the input's
  own, nothing at all (the op disappears, names kept). Covers Reshape chains
  and Squeeze/Unsqueeze pairs. With dynamic dimensions: two Unsqueezes ->
  one Unsqueeze; other pairs -> a Reshape to a constant target of ``0`` /
  ``-1`` / static dims when the symbolic dimensions (:mod:`.dim_symbols`)
  give one (the model stays reshapeable).
* ``nop-reshape-elimination``: a Reshape / Squeeze / Unsqueeze whose
  result shape is its input's: static and equal, or equal dimension by
  dimension as symbols (:mod:`.dim_symbols`: TorchScript's
  ``Reshape([B, 4, S, 8] -> [B, -1, S, 8])``).
* ``transpose-pair-fusion``: ``Transpose(Transpose(x, p1), p2)`` (the inner
  one with no other consumer) -> ``Transpose(x, p1 . p2)``, or nothing when
  the orders cancel (the helpers of ``ov-transpose-sinking``, which does the
  same while sinking TensorFlow layouts; this brings it to ONNX models).
  A lone identity Transpose goes too.
* ``transpose-to-reshape``: a Transpose that moves only dimensions of size
  1 (the others keep their order: ``[N, 1, 1, C] -> [N, C, 1, 1]``, a
  squeeze-excite vector between layouts) -> a Reshape to its result shape
  (OpenVINO's TransposeToReshape); a dynamic dimension is allowed where the
  Transpose leaves it in place (``special_zero``). A Reshape / Squeeze /
  Unsqueeze before it (with no other consumer) goes into the same Reshape
  when the symbolic dimensions give a constant target (Keras' squeeze-excite
  ``Reshape([B, C] -> [B, 1, 1, C])`` then the NCHW Transpose: one
  ``Reshape([0, C, 1, 1])``).
* ``shape-value-fold``: an integer vector or scalar computed from shapes
  (``ShapeOf`` and what gathers, slices, concats, squeezes or reshapes it)
  whose every element is a static dimension -> a Constant
  (``Slice(ShapeOf([?, ?, 32]), -1:)`` is ``[32]``). The symbolic
  dimensions of :mod:`.dim_symbols` say which elements are static. The
  integer arithmetic such constants feed (dynamo's split sizes:
  ``Tile(Divide(Add(96, 2), 3))``) then folds as ``ov-constant-fold``
  would (``fold_values``).
* ``reshape-dynamic-target``: a Reshape whose target shape is computed
  (TorchScript's ``ShapeOf -> Gather -> Unsqueeze -> Concat`` for a dynamic
  batch / sequence) -> a Reshape to a Constant, where each dimension of the
  result is static, the input's dimension at the same position (``0``,
  ``special_zero``) or, for one of them, what the element count leaves
  (``-1``): ``[B, S, 32] -> [B, S, 4, 8]`` reads ``[0, 0, 4, 8]``. When
  two or more dimensions can be neither, they are read from one shared
  ``ShapeOf`` of the tensor each was first seen on (``[B * S, 96] ->
  [B, S, 96]`` reads ``Concat(ShapeOf(input_ids), [96])``). Exact for every
  input shape (symbols are equal only where the shapes' inference rules
  make them equal), except that ``-1`` cannot be inferred when another
  dimension of the result is 0 at run time (an empty batch), as in
  OpenVINO's own rewrite.
* ``negative-index-wrap-elimination``: ``Select(Less(i, 0), Add(i, n), i)``
  (an index made non-negative, as the ONNX GatherElements / ScatterElements
  conversions write it) -> ``i`` when every element of ``i`` is known to be
  >= 0 (a constant, a shape, a ``Range`` from 0, and what only selects among
  their elements: BERT's position ids).
* ``slice-bound-clamp-elimination``: the clamp the ONNX Slice conversion puts
  on a computed bound (``Convert`` to f32, ``Greater`` / ``Less`` +-2^30,
  two ``Select``, for INT64_MAX "to the end" sentinels) -> the bound itself,
  when each of its elements is a tensor dimension (:mod:`.dim_symbols`: BERT's
  ``position_ids[:, :seq_len]``); a dimension is no sentinel (one above 2^30
  elements would be clamped wrongly by the original).
* ``shuffle-channels-fusion``: ``Reshape([N, C, H, W] -> [N, g, C/g, H, W])``,
  ``Transpose([0, 2, 1, 3, 4])``, ``Reshape(-> [N, C, H, W])`` ->
  ``ShuffleChannels(axis=1, group=g)``.
"""

from __future__ import annotations

import weakref

import numpy as np
from xmo.graph import Graph, Port, copy_runtime_info, replace_node, replace_output_update_name
from xmo.passes.ov_constant_fold import fold_values
from xmo.passes.ov_fusions.common import fuse
from xmo.passes.ov_fusions.dim_symbols import DimSymbols, Mono, is_static, nonnegative
from xmo.passes.transformations import (
    Match,
    MatcherPass,
    any_input,
    constant,
    consumers_count,
    has_static_rank,
    has_static_shape,
    type_matches,
    value_matches,
    wrap_type,
)
from xmo.passes.transpose_sinking.permutations import compose, is_identity, transpose_order

_RESHAPES = ["Reshape", "Squeeze", "Unsqueeze"]


def _static(port) -> list[int] | None:
    s = port.data.get_shape()
    return s if s is not None and all(d >= 0 for d in s) else None


class ReshapeChainFusion(MatcherPass):
    name = "reshape-chain-fusion"

    def pattern(self):
        return wrap_type(_RESHAPES, None, has_static_rank())

    def callback(self, m: Match) -> bool:
        outer = m.root
        src = outer.in_port(0).get_source()
        if src is None or src.node.type not in _RESHAPES or len(src.get_destinations()) != 1:
            return False
        inner = src.node
        x = inner.in_port(0).get_source()
        shape = _static(outer.out_port(0))
        if x is None:
            return False
        if shape is None or _static(x) is None:
            return _dynamic_chain(m, outer, inner, x)
        if _static(x) == shape:
            return replace_output_update_name(outer.out_port(0), x)
        r = m.graph.create_node(
            "Reshape", [x, np.asarray(shape, np.int64)], {"special_zero": False}
        )
        return fuse(outer, r, [outer, inner])


def _dynamic_chain(m: Match, outer, inner, x: Port) -> bool:
    """Two Unsqueezes -> one; other pairs -> a Reshape to a constant target
    (``0`` / ``-1`` for dynamic dims, :func:`_target`), when there is one."""
    if outer.type == inner.type == "Unsqueeze":
        a1 = inner.in_port(1).data.get_value()
        a2 = outer.in_port(1).data.get_value()
        r0 = x.data.get_shape()
        if a1 is None or a2 is None or r0 is None:
            return False
        r1 = len(r0) + a1.size
        r2 = r1 + a2.size
        new2 = sorted({int(a) % r2 for a in a2.reshape(-1)})
        kept = [k for k in range(r2) if k not in new2]  # r1's positions, in order
        new1 = sorted({int(a) % r1 for a in a1.reshape(-1)})
        axes = sorted(new2 + [kept[p] for p in new1])
        u = m.graph.create_node("Unsqueeze", [x, np.asarray(axes, np.int64)])
        return fuse(outer, u, [outer, inner])
    target = _target(symbols_of(m.graph), x, outer.out_port(0))
    if target is None or not all(isinstance(t, int) for t in target):
        return False
    r = m.graph.create_node(
        "Reshape", [x, np.asarray(target, np.int64)], {"special_zero": 0 in target})
    return _refine(outer, r, [outer, inner])


class NopReshapeElimination(MatcherPass):
    name = "nop-reshape-elimination"

    def pattern(self):
        return wrap_type(_RESHAPES, None, has_static_rank())

    def callback(self, m: Match) -> bool:
        op = m.root
        x = op.in_port(0).get_source()
        if x is None:
            return False
        static = _static(op.out_port(0))
        if static is not None:
            if _static(x) != static:
                return False
        else:
            s_in, s_out = x.data.get_shape(), op.out_port(0).data.get_shape()
            if s_in is None or s_out is None or len(s_in) != len(s_out):
                return False  # (a cheap test first: the analysis looks at the graph above)
            syms = symbols_of(m.graph)
            d = syms.dims(_value(x))
            if d is None or d != syms.dims(_value(op.out_port(0))):
                return False
        return replace_output_update_name(op.out_port(0), x)


class TransposePairFusion(MatcherPass):
    name = "transpose-pair-fusion"

    def pattern(self):
        return wrap_type("Transpose", [any_input(label="x"), constant()])

    def callback(self, m: Match) -> bool:
        outer = m.root
        p2 = transpose_order(outer.op)
        if p2 is None:
            return False
        src = m["x"]
        p1 = transpose_order(src.node.op) if src.node.type == "Transpose" else None
        if p1 is not None and len(p1) == len(p2) and len(src.get_destinations()) == 1:
            x = src.node.in_port(0).get_source()
            q = compose(p1, p2)
            if is_identity(q):
                return replace_output_update_name(outer.out_port(0), x)
            t = m.graph.create_node("Transpose", [x, np.asarray(q, np.int64)])
            return fuse(outer, t, [outer, src.node])
        if is_identity(p2):
            return replace_output_update_name(outer.out_port(0), src)
        return False


class TransposeToReshape(MatcherPass):
    name = "transpose-to-reshape"

    def pattern(self):
        return wrap_type("Transpose", [any_input(label="x"), constant()])

    def callback(self, m: Match) -> bool:
        perm = transpose_order(m.root.op)
        shape = m["x"].data.get_shape()
        if perm is None or shape is None or len(shape) != len(perm) or is_identity(perm):
            return False
        moved = [p for p in perm if shape[p] != 1]
        if moved != sorted(moved):
            return False
        target = []
        for i, p in enumerate(perm):
            d = shape[p]
            if d == 0 or (d < 0 and p != i):
                return False
            target.append(0 if d < 0 else d)
        src = m["x"]
        if src.node.type in _RESHAPES and len(src.get_destinations()) == 1:
            # a Reshape before it (a squeeze-excite vector reshaped, then
            # moved between layouts): one Reshape of that Reshape's input
            x0 = src.node.in_port(0).get_source()
            t0 = _target(symbols_of(m.graph), x0, m.root.out_port(0)) if x0 is not None else None
            if t0 is not None and all(isinstance(t, int) for t in t0):
                r = m.graph.create_node(
                    "Reshape", [x0, np.asarray(t0, np.int64)], {"special_zero": 0 in t0})
                return _refine(m.root, r, [m.root, src.node])
        r = m.graph.create_node(
            "Reshape", [m["x"], np.asarray(target, np.int64)], {"special_zero": 0 in target}
        )
        return fuse(m.root, r, [m.root])


class ShuffleChannelsFusion(MatcherPass):
    name = "shuffle-channels-fusion"

    def pattern(self):
        x = any_input(has_static_shape(), label="x")
        r1 = wrap_type("Reshape", [x, constant()], consumers_count(1), label="r1")
        perm = constant(value_matches(lambda a: a.reshape(-1).tolist() == [0, 2, 1, 3, 4]))
        tr = wrap_type("Transpose", [r1, perm], consumers_count(1))
        return wrap_type("Reshape", [tr, constant()], has_static_shape())

    def callback(self, m: Match) -> bool:
        x = m["x"]
        xs = _static(x)
        s1 = _static(m["r1"])
        if xs is None or s1 is None or len(xs) != 4 or _static(m.root.out_port(0)) != xs:
            return False
        n, c, h, w = xs
        if len(s1) != 5 or s1[0] != n or s1[3:] != [h, w] or s1[1] * s1[2] != c:
            return False
        sc = m.graph.create_node(
            "ShuffleChannels", [x], {"axis": 1, "group": int(s1[1])},
            result_types=[m.root.out_port(0).data.get_type()],
        )
        return fuse(m.root, sc, m.nodes())


#: the symbolic dimensions of each graph a rewrite runs on (one analysis per
#: graph and run, shared by the matchers below)
_SYMBOLS: weakref.WeakKeyDictionary[Graph, DimSymbols] = weakref.WeakKeyDictionary()


def symbols_of(graph: Graph) -> DimSymbols:
    syms = _SYMBOLS.get(graph)
    if syms is None:
        syms = _SYMBOLS[graph] = DimSymbols()
    return syms


#: ops that compute shape values (what ``shape-value-fold`` looks at)
_SHAPE_VALUE_OPS = ["ShapeOf", "Gather", "Concat", "Slice", "StridedSlice", "Squeeze", "Unsqueeze",
                    "Reshape", "Convert"]
#: integer arithmetic on shape values (folded when its inputs became constants)
_SHAPE_ARITHMETIC = ["Add", "Subtract", "Multiply", "Divide", "FloorMod", "Maximum",
                     "Minimum", "Tile", "Select", "Equal", "Range"]


def _value(port: Port):
    """The SSA value of an output port."""
    return port.node.op.results[port.idx]


class ShapeValueFold(MatcherPass):
    name = "shape-value-fold"

    def pattern(self):
        return wrap_type(_SHAPE_VALUE_OPS + _SHAPE_ARITHMETIC, None, type_matches("i32", "i64", "boolean"))

    def callback(self, m: Match) -> bool:
        out = m.root.out_port(0)
        shape = out.data.get_shape()
        if shape is None or len(shape) > 1 or len(m.root.op.results) != 1:
            return False
        op = m.root.op
        vals = symbols_of(m.graph).values(_value(out)) if _reads_a_shape(op) else None
        if vals is not None and all(is_static(v) for v in vals):
            dtype = {"i64": np.int64, "i32": np.int32}.get(out.data.get_element_type(), np.bool_)
            arr = np.asarray([v[0] for v in vals], dtype).reshape(shape)
        elif all(getattr(v.owner, "OV_TYPE", None) == "Constant" for v in op.operands):
            # what the shape values this pass made constant leave foldable
            folded = fold_values(m.root.op)
            if folded is None:
                return False
            arr = folded[0]
        else:
            return False
        c = m.graph.create_constant(arr)
        return fuse(m.root, c, [m.root])


def _reads_a_shape(op, depth: int = 6) -> bool:
    """``op`` computes from a ShapeOf through shape-value ops (a cheap test
    before the symbolic analysis, which looks at the whole graph above)."""
    if op.OV_TYPE == "ShapeOf":
        return True
    if depth == 0 or op.OV_TYPE not in _SHAPE_VALUE_OPS + _SHAPE_ARITHMETIC:
        return False
    return any(hasattr(v.owner, "OV_TYPE") and _reads_a_shape(v.owner, depth - 1) for v in op.operands)


class ReshapeDynamicTarget(MatcherPass):
    name = "reshape-dynamic-target"

    def pattern(self):
        return wrap_type("Reshape", [any_input(label="x"), wrap_type(_SHAPE_VALUE_OPS)])

    def callback(self, m: Match) -> bool:
        syms = symbols_of(m.graph)
        x = m["x"]
        target = _target(syms, x, m.root.out_port(0))
        if target is None:
            return False
        shape = _build_shape(m.graph, syms, target, m.root.op)
        if shape is None:
            return False
        zero = 0 in target
        r = m.graph.create_node("Reshape", [x, shape], {"special_zero": zero})
        return _refine(m.root, r, [m.root])


def _target(syms: DimSymbols, x: Port, out: Port) -> list[int | Mono] | None:
    """The Reshape target that makes ``out``'s dims of ``x``: ints (``0``
    copies, one ``-1`` what the element count leaves) and single-symbol
    Monos read from a shape; None when the dims cannot be told apart."""
    d_in, d_out = syms.dims(_value(x)), syms.dims(_value(out))
    if d_in is None or d_out is None:
        return None
    target: list[int | Mono] = []
    unknown: list[int] = []
    for k, d in enumerate(d_out):
        if is_static(d):
            if d[0] <= 0:
                return None  # an empty dimension: special_zero would copy
            target.append(d[0])
        elif k < len(d_in) and d_in[k] == d:
            target.append(0)
        else:
            target.append(d)
            unknown.append(k)
    own = _value(out)
    # what no earlier tensor has as a dimension (a product, or what only the
    # Reshape's own -1 computes) can only be the -1
    products = [k for k in unknown if len(target[k][1]) != 1 or target[k][0] != 1  # type: ignore[index]
                or syms.origin(target[k][1][0])[0] is own]  # type: ignore[index]
    if len(products) > 1:
        return None
    if len(unknown) == 1 or products:
        target[(products or unknown)[0]] = -1
    return target


def _build_shape(graph: Graph, syms: DimSymbols, target: list, anchor) -> Port | np.ndarray | None:
    """A 1-D i64 shape of ``target``'s elements (ints, or single-symbol Monos
    read from the ``ShapeOf`` of the tensor each symbol was first seen on):
    a constant when all are ints, else a Concat of constant runs and
    Gathers of neighbouring elements from one shape (a whole ShapeOf when it
    is all of it, in order)."""
    if all(isinstance(t, int) for t in target):
        return np.asarray(target, np.int64)
    pieces: list[tuple[object, list[int]]] = []  # (source value or None for constants, items)
    for t in target:
        if isinstance(t, int):
            src, item = None, t
        else:
            found = syms.live_origin(t[1][0], anchor)
            if found is None:
                return None
            src, item = found
        if pieces and pieces[-1][0] is src:
            pieces[-1][1].append(item)
        else:
            pieces.append((src, [item]))
    ports: list[Port | np.ndarray] = []
    for src, items in pieces:
        if src is None:
            ports.append(np.asarray(items, np.int64))
            continue
        shape_of = _shape_of(graph, src)
        rank = len(src.type.get_shape())
        if items == list(range(rank)):
            ports.append(shape_of)
        else:
            g = graph.create_node("Gather", [shape_of, np.asarray(items, np.int64),
                                             np.asarray(0, np.int64)])
            ports.append(g.out_port(0))
    if len(ports) == 1:
        return ports[0]
    return graph.create_node("Concat", ports, {"axis": 0}).out_port(0)


def _shape_of(graph: Graph, src) -> Port:
    """An i64 ShapeOf of ``src`` (an existing one when there is one)."""
    for use in src.uses:
        op = use.operation
        if getattr(op, "OV_TYPE", "") == "ShapeOf" and op.parent is graph.block \
                and graph.node(op).out_port(0).data.get_element_type() == "i64":
            return graph.node(op).out_port(0)
    return graph.create_node("ShapeOf", [src], {"output_type": "i64"}).out_port(0)


def _refine(root, new, fused) -> bool:
    """Like :func:`fuse`, also when ``new``'s result type is more precise
    than ``root``'s (a static dimension where ``root`` had a dynamic one)."""
    a, b = root.out_port(0).data.get_type(), new.out_port(0).data.get_type()
    if a != b:
        sa, sb = root.out_port(0).data.get_shape(), new.out_port(0).data.get_shape()
        if (sa is None or sb is None or len(sa) != len(sb)
                or root.out_port(0).data.get_element_type() != new.out_port(0).data.get_element_type()
                or any(x >= 0 and x != y for x, y in zip(sa, sb))):
            return False
    copy_runtime_info(list(fused), new)
    new.name = root.name
    replace_node(root, new)
    return True


class NegativeIndexWrapElimination(MatcherPass):
    name = "negative-index-wrap-elimination"

    def pattern(self):
        i = any_input(label="i")
        less = wrap_type("Less", [i, constant(value_matches(lambda a: a.size == 1 and a.reshape(-1)[0] == 0))])
        return wrap_type("Select", [less, wrap_type("Add", [i, any_input()]), i])

    def callback(self, m: Match) -> bool:
        i = m["i"]
        if not nonnegative(_value(i)) or i.data.get_type() != m.root.out_port(0).data.get_type():
            return False
        return replace_output_update_name(m.root.out_port(0), i)


_CLAMP = float(1 << 30)


def _bound(sign: int):
    return constant(value_matches(lambda a: a.size == 1 and float(a.reshape(-1)[0]) == sign * _CLAMP))


class SliceBoundClampElimination(MatcherPass):
    name = "slice-bound-clamp-elimination"

    def pattern(self):
        v = any_input(label="v")
        vf = wrap_type("Convert", [v])
        big = wrap_type("Greater", [vf, _bound(1)])
        inner = wrap_type("Select", [big, _bound(1), v])
        small = wrap_type("Less", [wrap_type("Convert", [v]), _bound(-1)])
        return wrap_type("Select", [small, _bound(-1), inner])

    def callback(self, m: Match) -> bool:
        v = m["v"]
        vals = symbols_of(m.graph).values(_value(v))
        if vals is None or any(is_static(x) or x[0] <= 0 for x in vals):
            return False
        if v.data.get_type() != m.root.out_port(0).data.get_type():
            return False
        return replace_output_update_name(m.root.out_port(0), v)
