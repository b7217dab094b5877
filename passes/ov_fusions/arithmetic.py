"""Arithmetic canonicalization: a float Subtract / Divide of a constant
becomes an Add / Multiply (OpenVINO's ConvertSubtract / ConvertDivide for
constants), so the affine chains (batch norms spelled ``(x - m) / s * g + b``)
fold into convolution weights in ``ov-fuse-linear``."""

from __future__ import annotations

import numpy as np
from xmo.passes.ov_fusions.common import FLOATS, fuse
from xmo.passes.transformations import (
    Match,
    MatcherPass,
    any_input,
    constant,
    type_matches,
    value_matches,
    wrap_type,
)


def _not_constant(p) -> bool:
    return p.data.get_value() is None


class SubtractConstToAdd(MatcherPass):
    """Subtract(x, c) -> Add(x, -c) (float, ``c`` constant, ``x`` not)."""

    name = "subtract-const-to-add"

    def pattern(self):
        x = any_input(_not_constant, label="x")
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
