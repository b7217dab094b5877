"""Eliminate an op while its names survive: Convert to the type it already has.

``replace_output_update_name`` moves the Convert's consumers to its input; if
the Convert produced a model output, the input's op takes the Convert's
friendly name and tensor names so the output keeps its name (it refuses, and
the Convert stays, when that would rename a tensor other ops also read).
"""

from xmo.graph import replace_output_update_name
from xmo.passes.transformations import Match, MatcherPass, any_input, wrap_type


def _is_nop(port) -> bool:
    return port.node.in_port(0).data.get_element_type() == port.data.get_element_type()


class EliminateNopConvert(MatcherPass):
    """Convert(x) with x already of the destination type -> x."""

    name = "eliminate-nop-convert"

    def pattern(self):
        return wrap_type("Convert", [any_input()], _is_nop)

    def callback(self, m: Match) -> bool:
        conv = m.root
        return replace_output_update_name(
            conv.out_port(0), conv.in_port(0).get_source()
        )
