"""Normalization fusions.

* MVN (LayerNorm's core): ``(x - mean(x)) / Sqrt(mean((x - mean(x))^2) + eps)``
  -> ``MVN(x, axes, normalize_variance, eps, INSIDE_SQRT)``; with
  ``Sqrt(var) + eps`` -> ``OUTSIDE_SQRT``. The square may be ``Power(d, 2)``,
  ``d * d`` or ``SquaredDifference(x, mean)``; the division ``Divide``, or a
  ``Multiply`` by ``Power(., -1)``, ``1 / .`` or ``Power(var + eps, -0.5)``.
  Both ReduceMeans keep dims over the same constant axes.
* MVN with scale and bias in the form Keras' LayerNormalization computes
  (``inv = rsqrt(var + eps) * gamma; x * inv + (beta - mean * inv)``, with
  ``-mean * inv`` and ``rsqrt`` as 1 / Sqrt or Power(., -0.5)) ->
  ``MVN(x) * gamma + beta`` (``mvn-affine-fusion``; without gamma or beta when
  the layer has none).
* NormalizeL2: ``x / Sqrt(Max(ReduceSum(x^2, axes), eps))`` (``eps_mode=max``)
  or ``... Add(ReduceSum, eps)`` (``eps_mode=add``) -> ``NormalizeL2``.
"""

from __future__ import annotations

import numpy as np
from xmo.passes.ov_fusions.common import (
    FLOATS,
    ONE,
    axes_of,
    float_const,
    fuse,
    fuse_chain,
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
        wrap_type("Multiply", [num, wrap_type("Power", [den, constant(near(-1.0))], ONE)]),
    )


def _reciprocal(v, pred=ONE):
    """1 / v: ``Divide(1, v)`` or ``Power(v, -1)``."""
    return or_(
        wrap_type("Divide", [constant(near(1.0)), v], pred),
        wrap_type("Power", [v, constant(near(-1.0))], pred),
    )


def _rsqrt(v, pred=ONE):
    """1 / Sqrt(v): ``Power(v, -0.5)`` or the reciprocal of ``Sqrt(v)``."""
    return or_(
        wrap_type("Power", [v, constant(near(-0.5))], pred),
        _reciprocal(wrap_type("Sqrt", [v], ONE), pred),
    )


def _moments(x):
    """(mean, variance, eps) patterns; the variance reads ``x - mean`` (labelled
    ``d``) squared, or ``SquaredDifference(x, mean)`` (labelled ``sqdiff``)."""
    keep = attrs_match(keep_dims=True)
    mean = wrap_type("ReduceMean", [x, constant(_AXES, label="axes1")], keep, label="mean")
    d = wrap_type("Subtract", [x, mean], label="d")
    sqdiff = wrap_type("SquaredDifference", [x, mean], ONE, label="sqdiff")
    var = wrap_type("ReduceMean", [or_(_square(d), sqdiff), constant(_AXES, label="axes2")], keep & ONE)
    return mean, d, var, constant(_EPS, label="eps")


def _same_axes(m: Match) -> list[int] | None:
    shape = m["x"].data.get_shape()
    if shape is None:
        return None
    a1, a2 = axes_of(m["axes1"], len(shape)), axes_of(m["axes2"], len(shape))
    return a1 if a1 is not None and a1 == a2 else None


def _mvn_node(m: Match, axes: list[int], mode: str):
    return m.graph.create_node(
        "MVN", [m["x"], np.asarray(axes, np.int64)],
        {"eps": scalar_of(m["eps"]), "normalize_variance": True, "eps_mode": mode},
    )


class MVNFusion(MatcherPass):
    name = "mvn-fusion"

    def pattern(self):
        x = any_input(type_matches(*FLOATS), label="x")
        _, d, var, eps = _moments(x)
        var_eps = wrap_type("Add", [var, eps], ONE)
        inside = wrap_type("Sqrt", [var_eps], ONE, label="inside")
        outside = wrap_type("Add", [wrap_type("Sqrt", [var], ONE), eps], ONE)
        den = or_(inside, outside)
        return or_(
            wrap_type("Divide", [d, den]),
            wrap_type("Multiply", [d, _reciprocal(den)]),
            wrap_type("Multiply", [d, wrap_type("Power", [var_eps, constant(near(-0.5))], ONE, label="inside")]),
        )

    def callback(self, m: Match) -> bool:
        axes = _same_axes(m)
        if axes is None or not same_shape(m["x"], m.root.out_port(0)):
            return False
        # the difference feeds the square (unless SquaredDifference) and the division only
        readers = {p.node.op for p in m.node("d").out_port(0).get_destinations()}  # d * d: one reader
        if len(readers) != (1 if "sqdiff" in m else 2):
            return False
        mvn = _mvn_node(m, axes, "INSIDE_SQRT" if "inside" in m else "OUTSIDE_SQRT")
        return fuse(m.root, mvn, m.nodes())


class MVNAffineFusion(MatcherPass):
    """Keras' LayerNormalization: ``x * g + (beta - mean * g)`` with
    ``g = rsqrt(var + eps) * gamma`` -> ``MVN(x) * gamma + beta``."""

    name = "mvn-affine-fusion"

    def pattern(self):
        x = any_input(type_matches(*FLOATS), label="x")
        mean, _, var, eps = _moments(x)
        inv = _rsqrt(wrap_type("Add", [var, eps], ONE), None)
        gamma = constant(float_const(), label="gamma")
        g = or_(wrap_type("Multiply", [inv, gamma], consumers_count(2)), inv, label="g")
        scaled = wrap_type("Multiply", [x, g], ONE)
        shift = wrap_type("Multiply", [wrap_type("Negative", [mean], ONE), g], ONE)
        beta = constant(float_const(), label="beta")
        return wrap_type("Add", [scaled, or_(wrap_type("Add", [shift, beta], ONE), shift)])

    def callback(self, m: Match) -> bool:
        axes = _same_axes(m)
        if axes is None:
            return False
        # g feeds the two products; the mean the square's operand and the Negative
        if len(m["g"].get_destinations()) != 2 or len(m["mean"].get_destinations()) != 2:
            return False
        if "d" in m and len({p.node.op for p in m["d"].get_destinations()}) != 1:
            return False
        chain = [_mvn_node(m, axes, "INSIDE_SQRT")]
        if "gamma" in m:
            chain.append(m.graph.create_node("Multiply", [chain[-1], m["gamma"]]))
        if "beta" in m:
            chain.append(m.graph.create_node("Add", [chain[-1], m["beta"]]))
        return fuse_chain(m.root, chain, m.nodes())


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
