"""Fuse x * tanh(softplus(x)) into Mish (an N:1 fusion).

The pattern reads the same ``x`` twice (a pattern object used twice must
match one value); Multiply is commutative, so both input orders match. The
SoftPlus and Tanh must have no other consumers. The Mish takes the
Multiply's name and the merged runtime info of the three fused ops: their
``fused_names`` (after ``ov-init-node-info``) become the sorted union.
"""

from xmo.graph import copy_runtime_info, replace_node
from xmo.passes.transformations import (
    Match,
    MatcherPass,
    any_input,
    consumers_count,
    wrap_type,
)


class MishFusion(MatcherPass):
    """Multiply(x, Tanh(SoftPlus(x))) -> Mish(x)."""

    name = "mish-fusion"

    def pattern(self):
        x = any_input(label="x")
        softplus = wrap_type("SoftPlus", [x], consumers_count(1))
        tanh = wrap_type("Tanh", [softplus], consumers_count(1))
        return wrap_type("Multiply", [x, tanh])

    def callback(self, m: Match) -> bool:
        mul = m.root
        mish = m.graph.create_node("Mish", [m["x"]])
        copy_runtime_info(m.nodes(), mish)
        mish.name = mul.name
        replace_node(mul, mish)
        return True
