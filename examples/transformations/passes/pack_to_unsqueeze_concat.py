"""Replace a framework op by opset ops: Pack -> Unsqueeze per input + Concat.

``Pack(a, b, c, axis)`` stacks along a new dimension: each input gets that
dimension (Unsqueeze at ``axis``) and the results are concatenated along it.
A negative axis counts from the end of the *output* rank for Pack, Unsqueeze
and Concat alike, so it passes through unchanged.
"""

import numpy as np
from xmo.graph import copy_runtime_info, replace_node
from xmo.passes.transformations import Match, MatcherPass, wrap_type


class PackToUnsqueezeConcat(MatcherPass):
    """Pack(x0..xn, axis) -> Concat(Unsqueeze(x0, axis), ..., axis)."""

    name = "pack-to-unsqueeze-concat"

    def pattern(self):
        return wrap_type("Pack")

    def callback(self, m: Match) -> bool:
        pack = m.root
        g = m.graph
        axis = pack["axis"]
        axes = g.create_constant(np.array([axis], dtype=np.int64))
        unsqueezed = [
            g.create_node(
                "Unsqueeze",
                [port.get_source(), axes],
                name=f"{pack.name}/unsqueeze_{i}",
            )
            for i, port in pack.in_ports().items()
        ]
        concat = g.create_node("Concat", unsqueezed, {"axis": axis})
        copy_runtime_info(pack, [axes, *unsqueezed, concat])
        concat.name = pack.name
        replace_node(pack, concat)
        return True
