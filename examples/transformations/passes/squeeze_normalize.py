"""Normalize an op: a Squeeze with an axes *attribute* becomes the opset
Squeeze with an axes *input* (a Constant), as OpenVINO's Squeeze-15 wants.

The pattern selects the example's op by class (type ``Squeeze``, version
``xmo_example``); ``wrap_type("Squeeze")`` would match every version.
"""

import numpy as np
from xmo.dialects.ov import op_class
from xmo.graph import copy_runtime_info, replace_node
from xmo.passes.transformations import Match, MatcherPass, any_input, wrap_type


class SqueezeAxesToInput(MatcherPass):
    """Squeeze{squeeze_dims}(x) -> Squeeze(x, Constant(squeeze_dims))."""

    name = "squeeze-axes-to-input"

    def pattern(self):
        return wrap_type(op_class("Squeeze", "xmo_example"), [any_input()])

    def callback(self, m: Match) -> bool:
        old = m.root
        g = m.graph
        data = old.in_port(0).get_source()
        dims = old["squeeze_dims"]
        if dims:
            axes = g.create_constant(np.array(dims, dtype=np.int64))
            new = g.create_node("Squeeze", [data, axes])
            copy_runtime_info(old, [new, axes])
        else:
            new = g.create_node("Squeeze", [data])
            copy_runtime_info(old, new)
        new.name = old.name
        replace_node(old, new)
        return True
