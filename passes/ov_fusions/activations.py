"""Activation fusions: decomposed activations become one op.

* SoftPlus: ``Log(Add(Exp(x), 1))``
* Mish: ``x * Tanh(SoftPlus(x))``
* Swish: ``x * Sigmoid(x)``, ``x * Sigmoid(x * beta)`` (``beta`` a scalar)
* HSigmoid: ``Clamp(x + 3, 0, 6) * 1/6``, ``Minimum(Relu(x + 3), 6) * 1/6``
* HSwish: ``x * HSigmoid(x)``, ``x * Clamp(x + 3, 0, 6) * 1/6``
* GELU (erf): ``0.5 * x * (1 + Erf(x / sqrt(2)))`` in its three groupings;
  also ``1 - Erf(-x / sqrt(2))`` for the ``1 + Erf`` (TensorFlow's and Keras
  3's ``0.5 * x * Erfc(-x / sqrt(2))``, Erfc converted as ``1 - Erf``; the
  negation a ``Negative`` or a negative scale)
* GELU (tanh): ``0.5 * x * (1 + Tanh(sqrt(2/pi) * (x + 0.044715 * x^3)))``

Constants are compared with a relative tolerance of 1e-3 (frameworks write
1/6 and 1/sqrt(2) with a few digits); Divides by constants have already
become Multiplies (``divide-const-to-multiply``) when these run in
``ov-fusions``, but the Divide spellings are matched too. Intermediate
ops must have no other consumer; the fused op takes the last op's name.
"""

from __future__ import annotations

import math

from xmo.passes.ov_fusions.common import FLOATS, ONE, fuse, near, same_shape, scalar_of
from xmo.passes.transformations import (
    Match,
    MatcherPass,
    any_input,
    attrs_match,
    constant,
    or_,
    type_matches,
    value_matches,
    wrap_type,
)



def _times(x, value: float, pred=ONE):
    """x * value, or x / (1/value)."""
    return or_(
        wrap_type("Multiply", [x, constant(near(value))], pred),
        wrap_type("Divide", [x, constant(near(1.0 / value))], pred),
    )


class SoftPlusFusion(MatcherPass):
    name = "softplus-fusion"

    def pattern(self):
        x = any_input(type_matches(*FLOATS), label="x")
        exp = wrap_type("Exp", [x], ONE)
        add = wrap_type("Add", [exp, constant(near(1.0))], ONE)
        return wrap_type("Log", [add])

    def callback(self, m: Match) -> bool:
        sp = m.graph.create_node("SoftPlus", [m["x"]])
        return fuse(m.root, sp, m.nodes())


class MishFusion(MatcherPass):
    name = "mish-fusion"

    def pattern(self):
        x = any_input(label="x")
        sp = wrap_type("SoftPlus", [x], ONE)
        tanh = wrap_type("Tanh", [sp], ONE)
        return wrap_type("Multiply", [x, tanh])

    def callback(self, m: Match) -> bool:
        if not same_shape(m["x"], m.root.out_port(0)):
            return False
        return fuse(m.root, m.graph.create_node("Mish", [m["x"]]), m.nodes())


class SwishFusion(MatcherPass):
    name = "swish-fusion"

    def pattern(self):
        x = any_input(label="x")
        beta = constant(value_matches(lambda a: a.size == 1 and a.dtype.kind == "f"), label="beta")
        scaled = wrap_type("Multiply", [x, beta], ONE)
        sig = wrap_type("Sigmoid", [or_(scaled, x)], ONE)
        return wrap_type("Multiply", [x, sig])

    def callback(self, m: Match) -> bool:
        if not same_shape(m["x"], m.root.out_port(0)):
            return False
        inputs = [m["x"]]
        if "beta" in m:
            b = scalar_of(m["beta"])
            if b != 1.0:
                inputs.append(m.graph.create_constant(b, m["x"].data.get_element_type()))
        return fuse(m.root, m.graph.create_node("Swish", inputs), m.nodes())


def _relu6_of_x_plus_3(x):
    add3 = wrap_type("Add", [x, constant(near(3.0))], ONE)
    clamp = wrap_type("Clamp", [add3], ONE & attrs_match(min=0.0, max=6.0))
    relu_min = wrap_type(
        "Minimum", [wrap_type("Relu", [add3], ONE), constant(near(6.0))], ONE
    )
    return or_(clamp, relu_min)


class HSigmoidFusion(MatcherPass):
    name = "hsigmoid-fusion"

    def pattern(self):
        x = any_input(type_matches(*FLOATS), label="x")
        return _times(_relu6_of_x_plus_3(x), 1.0 / 6.0, None)

    def callback(self, m: Match) -> bool:
        if not same_shape(m["x"], m.root.out_port(0)):
            return False
        return fuse(m.root, m.graph.create_node("HSigmoid", [m["x"]]), m.nodes())


class HSwishFusion(MatcherPass):
    name = "hswish-fusion"

    def pattern(self):
        x = any_input(type_matches(*FLOATS), label="x")
        hsig = wrap_type("HSigmoid", [x], ONE)
        direct = wrap_type("Multiply", [x, hsig])
        inner = wrap_type("Multiply", [x, _relu6_of_x_plus_3(x)], ONE)
        return or_(direct, _times(inner, 1.0 / 6.0, None))

    def callback(self, m: Match) -> bool:
        if not same_shape(m["x"], m.root.out_port(0)):
            return False
        return fuse(m.root, m.graph.create_node("HSwish", [m["x"]]), m.nodes())


def _gelu(x, one_plus):
    """The three groupings of 0.5 * x * one_plus."""
    half_x = _times(x, 0.5)
    a = wrap_type("Multiply", [half_x, one_plus])
    b = _times(wrap_type("Multiply", [x, one_plus], ONE), 0.5, None)
    c = wrap_type("Multiply", [x, _times(one_plus, 0.5)])
    return or_(a, b, c)


class GeluErfFusion(MatcherPass):
    name = "gelu-erf-fusion"

    def pattern(self):
        x = any_input(type_matches(*FLOATS), label="x")
        r = 1.0 / math.sqrt(2.0)
        erf = wrap_type("Erf", [_times(x, r)], ONE)
        neg = or_(_times(x, -r), _times(wrap_type("Negative", [x], ONE), r))
        erfc = wrap_type("Erf", [neg], ONE)
        one_plus = or_(
            wrap_type("Add", [erf, constant(near(1.0))], ONE),
            wrap_type("Subtract", [constant(near(1.0)), erfc], ONE),
        )
        return _gelu(x, one_plus)

    def callback(self, m: Match) -> bool:
        if not same_shape(m["x"], m.root.out_port(0)):
            return False
        g = m.graph.create_node("Gelu", [m["x"]], {"approximation_mode": "ERF"})
        return fuse(m.root, g, m.nodes())


class GeluTanhFusion(MatcherPass):
    name = "gelu-tanh-fusion"

    def pattern(self):
        x = any_input(type_matches(*FLOATS), label="x")
        cube = or_(
            wrap_type("Power", [x, constant(near(3.0))], ONE),
            wrap_type("Multiply", [wrap_type("Multiply", [x, x], ONE), x], ONE),
        )
        inner = wrap_type("Add", [x, _times(cube, 0.044715)], ONE)
        tanh = wrap_type("Tanh", [_times(inner, math.sqrt(2.0 / math.pi))], ONE)
        return _gelu(x, wrap_type("Add", [tanh, constant(near(1.0))], ONE))

    def callback(self, m: Match) -> bool:
        if not same_shape(m["x"], m.root.out_port(0)):
            return False
        g = m.graph.create_node("Gelu", [m["x"]], {"approximation_mode": "TANH"})
        return fuse(m.root, g, m.nodes())
