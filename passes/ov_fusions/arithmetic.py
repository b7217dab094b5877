"""Arithmetic canonicalization.

* A float Subtract / Divide of a constant becomes an Add / Multiply
  (OpenVINO's ConvertSubtract / ConvertDivide for constants), so the affine
  chains (batch norms spelled ``(x - m) / s * g + b``) fold into convolution
  weights in ``ov-fuse-linear``. The zero-point Subtract of integer weights
  (after their Convert marked ``disabled_constant_folding``) stays: it is the
  form OpenVINO's int8 kernels read.
* ``1 / Sqrt(x)`` (TensorFlow's Rsqrt as converted, ``Power(Sqrt(x), -1)``)
  becomes ``Power(x, -0.5)`` (``rsqrt-to-power``), as OpenVINO writes it.
* A ``Negative`` folds into the op reading it (``negative-fold``):
  ``-x * c`` -> ``x * (-c)`` (``c`` a float constant), ``y + -x`` -> ``y - x``,
  ``y - -x`` -> ``y + x``.
"""

from __future__ import annotations

import numpy as np
from xmo.passes.ov_constant_fold import NO_FOLD
from xmo.passes.ov_fusions.common import FLOATS, fuse, near
from xmo.passes.transformations import (
    Match,
    MatcherPass,
    any_input,
    constant,
    consumers_count,
    or_,
    type_matches,
    value_matches,
    wrap_type,
)


def _not_constant(p) -> bool:
    return p.data.get_value() is None


def _not_decompressed(p) -> bool:
    """Not a constant, nor an integer weight's Convert that must not fold."""
    return _not_constant(p) and NO_FOLD not in p.node.rt_info


class SubtractConstToAdd(MatcherPass):
    """Subtract(x, c) -> Add(x, -c) (float, ``c`` constant, ``x`` not)."""

    name = "subtract-const-to-add"

    def pattern(self):
        x = any_input(_not_decompressed, label="x")
        c = constant(value_matches(lambda a: a.dtype.kind == "f"), label="c")
        return wrap_type("Subtract", [x, c], type_matches(*FLOATS))

    def callback(self, m: Match) -> bool:
        sub = m.root
        if sub.get("auto_broadcast", "numpy") != "numpy":
            return False
        c = m["c"].data.get_value()
        neg = m.graph.create_constant(-c, m["c"].data.get_element_type())
        add = m.graph.create_node("Add", [m["x"], neg])
        return fuse(sub, add, [sub])


class DivideConstToMultiply(MatcherPass):
    """Divide(x, c) -> Multiply(x, 1/c) (float ``c`` without zeros)."""

    name = "divide-const-to-multiply"

    def pattern(self):
        x = any_input(_not_constant, label="x")
        c = constant(
            value_matches(lambda a: a.dtype.kind == "f" and bool(np.all(np.isfinite(a) & (a != 0)))),
            label="c",
        )
        return wrap_type("Divide", [x, c], type_matches(*FLOATS))

    def callback(self, m: Match) -> bool:
        div = m.root
        if div.get("auto_broadcast", "numpy") != "numpy":
            return False
        c = m["c"].data.get_value()
        inv = (1.0 / c.astype(np.float64)).astype(c.dtype)
        if not np.all(np.isfinite(inv)):
            return False
        rc = m.graph.create_constant(inv, m["c"].data.get_element_type())
        mul = m.graph.create_node("Multiply", [m["x"], rc])
        return fuse(div, mul, [div])


class RsqrtToPower(MatcherPass):
    """1 / Sqrt(x) -> Power(x, -0.5) (float; the Sqrt read by nothing else)."""

    name = "rsqrt-to-power"

    def pattern(self):
        x = any_input(type_matches(*FLOATS), label="x")
        sqrt = wrap_type("Sqrt", [x], consumers_count(1))
        return or_(
            wrap_type("Divide", [constant(near(1.0)), sqrt]),
            wrap_type("Power", [sqrt, constant(near(-1.0))]),
        )

    def callback(self, m: Match) -> bool:
        if m.root.get("auto_broadcast", "numpy") != "numpy":
            return False
        half = m.graph.create_constant(np.float32(-0.5), m["x"].data.get_element_type())
        return fuse(m.root, m.graph.create_node("Power", [m["x"], half]), m.nodes())


class NegativeFold(MatcherPass):
    """A Negative read only by a Multiply with a constant, an Add or a
    Subtract (as its subtrahend) folds into it."""

    name = "negative-fold"

    def pattern(self):
        x = any_input(label="x")
        neg = wrap_type("Negative", [x], consumers_count(1) & type_matches(*FLOATS))
        c = constant(value_matches(lambda a: a.dtype.kind == "f"), label="c")
        y = any_input(label="y")
        return or_(
            wrap_type("Multiply", [neg, c], label="mul"),
            wrap_type("Add", [y, neg], label="add"),
            wrap_type("Subtract", [y, neg], label="sub"),
        )

    def callback(self, m: Match) -> bool:
        root = m.root
        if root.get("auto_broadcast", "numpy") != "numpy":
            return False
        if "mul" in m:
            c = m["c"].data.get_value()
            neg_c = m.graph.create_constant(-c, m["c"].data.get_element_type())
            new = m.graph.create_node("Multiply", [m["x"], neg_c])
        else:
            new = m.graph.create_node("Subtract" if "add" in m else "Add", [m["y"], m["x"]])
        return fuse(root, new, m.nodes())
