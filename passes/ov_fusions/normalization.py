"""Normalization fusions.

* MVN (LayerNorm's core): ``(x - mean(x)) / Sqrt(mean((x - mean(x))^2) + eps)``
  -> ``MVN(x, axes, normalize_variance, eps, INSIDE_SQRT)``; with
  ``Sqrt(var) + eps`` -> ``OUTSIDE_SQRT``. The square may be ``Power(d, 2)``
  or ``d * d``; the division ``Divide`` or ``Multiply`` by ``Power(., -1)``.
  Both ReduceMeans keep dims over the same constant axes.
* NormalizeL2: ``x / Sqrt(Max(ReduceSum(x^2, axes), eps))`` (``eps_mode=max``)
  or ``... Add(ReduceSum, eps)`` (``eps_mode=add``) -> ``NormalizeL2``.
"""

from __future__ import annotations

import numpy as np
from xmo.passes.ov_fusions.common import (
    FLOATS,
    axes_of,
    fuse,
    near,
    same_shape,
    scalar_of,
)
from xmo.passes.transformations import (
    Match,
    MatcherPass,
    any_input,
    attrs_match,
    constant,
    consumers_count,
    or_,
    type_matches,
    value_matches,
    wrap_type,
)

_EPS = value_matches(lambda a: a.size == 1 and a.dtype.kind == "f" and 0 <= float(a.reshape(-1)[0]) < 1e-2)
_AXES = value_matches(lambda a: a.dtype.kind in "iu")


def _square(d):
    return or_(
        wrap_type("Power", [d, constant(near(2.0))], consumers_count(1)),
        wrap_type("Multiply", [d, d], consumers_count(1)),
    )


def _divide(num, den):
    return or_(
        wrap_type("Divide", [num, den]),
        wrap_type("Multiply", [num, wrap_type("Power", [den, constant(near(-1.0))], consumers_count(1))]),
    )


class MVNFusion(MatcherPass):
    name = "mvn-fusion"

    def pattern(self):
        x = any_input(type_matches(*FLOATS), label="x")
        keep = attrs_match(keep_dims=True)
        mean = wrap_type("ReduceMean", [x, constant(_AXES, label="axes1")], keep)
        d = wrap_type("Subtract", [x, mean], label="d")
        var = wrap_type(
            "ReduceMean", [_square(d), constant(_AXES, label="axes2")], keep & consumers_count(1)
        )
        eps = constant(_EPS, label="eps")
        inside = wrap_type(
            "Sqrt", [wrap_type("Add", [var, eps], consumers_count(1))], consumers_count(1), label="inside"
        )
        outside = wrap_type("Add", [wrap_type("Sqrt", [var], consumers_count(1)), eps], consumers_count(1))
        return _divide(d, or_(inside, outside))

    def callback(self, m: Match) -> bool:
        x = m["x"]
        shape = x.data.get_shape()
        if shape is None or not same_shape(x, m.root.out_port(0)):
            return False
        rank = len(shape)
        a1, a2 = axes_of(m["axes1"], rank), axes_of(m["axes2"], rank)
        if a1 is None or a1 != a2:
            return False
        # the difference feeds the square and the division only
        dn = m.node("d")
        if len(dn.out_port(0).get_destinations()) != 2:
            return False
        mode = "INSIDE_SQRT" if "inside" in m else "OUTSIDE_SQRT"
        mvn = m.graph.create_node(
            "MVN", [x, np.asarray(a1, np.int64)],
            {"eps": scalar_of(m["eps"]), "normalize_variance": True, "eps_mode": mode},
        )
        return fuse(m.root, mvn, m.nodes())


class NormalizeL2Fusion(MatcherPass):
    name = "normalize-l2-fusion"

    def pattern(self):
        x = any_input(type_matches(*FLOATS), label="x")
        ss = wrap_type(
            "ReduceSum", [_square(x), constant(_AXES, label="axes")],
            attrs_match(keep_dims=True) & consumers_count(1),
        )
        eps = constant(_EPS, label="eps")
        mx = wrap_type("Maximum", [ss, eps], consumers_count(1), label="max")
        add = wrap_type("Add", [ss, eps], consumers_count(1))
        sq = wrap_type("Sqrt", [or_(mx, add)], consumers_count(1))
        return _divide(x, sq)

    def callback(self, m: Match) -> bool:
        x = m["x"]
        shape = x.data.get_shape()
        if shape is None or not same_shape(x, m.root.out_port(0)):
            return False
        axes = axes_of(m["axes"], len(shape))
        if not axes:
            return False
        n = m.graph.create_node(
            "NormalizeL2", [x, np.asarray(axes, np.int64)],
            {"eps": scalar_of(m["eps"]), "eps_mode": "max" if "max" in m else "add"},
        )
        return fuse(m.root, n, m.nodes())
