"""Sub-graph transformation: ``Complex(x[..., 0], x[..., 1])`` -> ``x``.

The network builds its complex tensor from the two channels of one tensor
with two StridedSlices; the ``FFT`` operation reads that tensor directly, so
the slices and the ``Complex`` op go away (when both slice the same tensor).
"""

import numpy as np

from xmo.passes.phases import FRONT, SubgraphReplacement


def _slices_channel(node, channel: int) -> bool:
    """``x[..., channel]``: ellipsis first, the last axis shrunk."""
    begin, end, strides = node.const(1), node.const(2), node.const(3)
    if begin is None or end is None or strides is None:
        return False
    return (
        node.attr("ellipsis_mask") == 1
        and node.attr("shrink_axis_mask") == 2
        and node.attr("new_axis_mask", 0) == 0
        and np.array_equal(begin, [0, channel])
        and np.array_equal(end, [0, channel + 1])
        and np.array_equal(strides, [1, 1])
    )


class ComplexToPairs(SubgraphReplacement):
    id = "complex-to-pairs"
    phase = FRONT

    def pattern(self):
        return dict(
            nodes=[
                ("real", dict(op="StridedSlice")),
                ("imag", dict(op="StridedSlice")),
                ("complex", dict(op="Complex")),
            ],
            edges=[
                ("real", "complex", {"in": 0}),
                ("imag", "complex", {"in": 1}),
            ],
        )

    def replace_sub_graph(self, graph, match):
        real, imag, cplx = match["real"], match["imag"], match["complex"]
        if real.in_value(0) is not imag.in_value(0):
            return False  # the two parts come from different tensors
        if not (_slices_channel(real, 0) and _slices_channel(imag, 1)):
            return False
        graph.replace_value(cplx.out_value(0), real.in_value(0))
        return True  # the slices and Complex are now dead: clean_up erases them
