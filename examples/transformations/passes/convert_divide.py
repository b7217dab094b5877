"""Decompose Divide into Power(-1) and Multiply (a 1:N replacement).

x / y becomes x * y^-1 for floating-point tensors. The friendly-name rule:
the *last* op of the new sub-graph (the Multiply) takes the Divide's name, so
the layer the user knew still exists under its name; every new op gets the
Divide's runtime info (``copy_runtime_info(div, [...])``).
"""

from xmo.graph import copy_runtime_info, replace_node
from xmo.passes.transformations import (
    Match,
    MatcherPass,
    any_input,
    type_matches,
    wrap_type,
)


class ConvertDivide(MatcherPass):
    """Divide(x, y) -> Multiply(x, Power(y, -1))."""

    name = "convert-divide"

    def pattern(self):
        return wrap_type(
            "Divide",
            [any_input(), any_input()],
            type_matches("f32", "f16", "bf16", "f64"),
        )

    def callback(self, m: Match) -> bool:
        div = m.root
        g = m.graph
        broadcast = {"auto_broadcast": div["auto_broadcast"]}
        x, y = div.in_port(0).get_source(), div.in_port(1).get_source()
        power = g.create_node("Power", [y, -1.0], broadcast)
        mul = g.create_node("Multiply", [x, power], broadcast)
        copy_runtime_info(div, [power, power.in_node(1), mul])
        mul.name = div.name
        replace_node(div, mul)
        return True
