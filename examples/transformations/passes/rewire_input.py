"""Port and connection rewiring: feed an input of one op from another op.

``xmo-opt -p 'rewire-input{node=op4 port=1 source=op3}'`` does::

    op4.in_port(1).disconnect()
    op3.out_port(0).connect(op4.in_port(1))

Whatever fed ``op4``'s input before and has no other consumer is erased
when the pass finishes; types are inferred again from ``op4`` on.
"""

from dataclasses import dataclass

from xmo.graph import Graph, GraphError
from xmo.passes.transformations import ModelPass


@dataclass(frozen=True)
class RewireInput(ModelPass):
    """Input ``port`` of op ``node`` reads output 0 of op ``source``."""

    name = "rewire-input"
    node: str = ""
    port: int = 0
    source: str = ""

    def run_on_model(self, graph: Graph) -> bool:
        op4 = graph.get_node_by_name(self.node)
        op3 = graph.get_node_by_name(self.source)
        if op4 is None or op3 is None:
            missing = self.node if op4 is None else self.source
            raise GraphError(f"rewire-input: no op named '{missing}'")
        op4.in_port(self.port).disconnect()
        op3.out_port(0).connect(op4.in_port(self.port))
        return True
