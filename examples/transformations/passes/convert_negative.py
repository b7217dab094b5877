"""Replace Negative with Multiply by -1: the smallest 1:1 replacement.

The Multiply takes the Negative's friendly name (it is the last op of the
replacement) and, with the new -1 Constant, its runtime info. ``replace_node``
moves the consumers and the output tensor names.
"""

from xmo.graph import copy_runtime_info, replace_node
from xmo.passes.transformations import Match, MatcherPass, wrap_type


class ConvertNegative(MatcherPass):
    """Negative(x) -> Multiply(x, -1)."""

    name = "convert-negative"

    def pattern(self):
        return wrap_type("Negative")

    def callback(self, m: Match) -> bool:
        neg = m.root
        # A Python number becomes a Constant of the first input's element type.
        mul = m.graph.create_node("Multiply", [neg.in_port(0).get_source(), -1])
        mul.name = neg.name
        copy_runtime_info(neg, [mul, mul.in_node(1)])
        replace_node(neg, mul)
        return True
