"""Shape-op fusions.

* ``reshape-chain-fusion``: a Reshape / Squeeze / Unsqueeze of a Reshape /
  Squeeze / Unsqueeze (the inner one with no other consumer) with a static
  result shape -> one Reshape to that shape; when that shape is the input's
  own, nothing at all (the op disappears, names kept). Covers Reshape chains
  and Squeeze/Unsqueeze pairs. Dynamic shapes are left alone (the model
  stays reshapeable).
* ``nop-reshape-elimination``: a Reshape / Squeeze / Unsqueeze whose static
  result shape is its input's.
* ``transpose-pair-fusion``: ``Transpose(Transpose(x, p1), p2)`` (the inner
  one with no other consumer) -> ``Transpose(x, p1 . p2)``, or nothing when
  the orders cancel (the helpers of ``ov-transpose-sinking``, which does the
  same while sinking TensorFlow layouts; this brings it to ONNX models).
  A lone identity Transpose goes too.
* ``transpose-to-reshape``: a Transpose that moves only dimensions of size
  1 (the others keep their order: ``[N, 1, 1, C] -> [N, C, 1, 1]``, a
  squeeze-excite vector between layouts) -> a Reshape to its result shape
  (OpenVINO's TransposeToReshape); a dynamic dimension is allowed where the
  Transpose leaves it in place (``special_zero``).
* ``shuffle-channels-fusion``: ``Reshape([N, C, H, W] -> [N, g, C/g, H, W])``,
  ``Transpose([0, 2, 1, 3, 4])``, ``Reshape(-> [N, C, H, W])`` ->
  ``ShuffleChannels(axis=1, group=g)``.
"""

from __future__ import annotations

import numpy as np
from xmo.graph import replace_output_update_name
from xmo.passes.ov_fusions.common import fuse
from xmo.passes.transformations import (
    Match,
    MatcherPass,
    any_input,
    constant,
    consumers_count,
    has_static_shape,
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
        return wrap_type(_RESHAPES, None, has_static_shape())

    def callback(self, m: Match) -> bool:
        outer = m.root
        src = outer.in_port(0).get_source()
        if src is None or src.node.type not in _RESHAPES or len(src.get_destinations()) != 1:
            return False
        inner = src.node
        x = inner.in_port(0).get_source()
        shape = _static(outer.out_port(0))
        if x is None or shape is None or _static(x) is None:
            return False
        if _static(x) == shape:
            return replace_output_update_name(outer.out_port(0), x)
        r = m.graph.create_node(
            "Reshape", [x, np.asarray(shape, np.int64)], {"special_zero": False}
        )
        return fuse(outer, r, [outer, inner])


class NopReshapeElimination(MatcherPass):
    name = "nop-reshape-elimination"

    def pattern(self):
        return wrap_type(_RESHAPES, None, has_static_shape())

    def callback(self, m: Match) -> bool:
        op = m.root
        x = op.in_port(0).get_source()
        if x is None or _static(x) != _static(op.out_port(0)):
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
