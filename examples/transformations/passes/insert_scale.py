"""Insert an op after a node and move the node's consumers to it.

``xmo-opt -p 'insert-scale{node=conv scale=0.5}'`` multiplies the output of
the op named ``conv`` by 0.5: every op that read ``conv`` now reads the
Multiply. ``Connection.set_source`` moves the consumers; the Multiply itself
keeps reading ``conv`` (an op never becomes its own consumer). The output's
tensor names stay on ``conv``'s output unless ``move_names`` is set
(``replace_output`` moves consumers *and* names).
"""

from dataclasses import dataclass

from xmo.graph import Graph, GraphError, replace_output
from xmo.passes.transformations import ModelPass


@dataclass(frozen=True)
class InsertScale(ModelPass):
    """Multiply output 0 of op ``node`` by ``scale``."""

    name = "insert-scale"
    node: str = ""
    scale: float = 1.0
    move_names: bool = False

    def run_on_model(self, graph: Graph) -> bool:
        target = graph.get_node_by_name(self.node)
        if target is None:
            raise GraphError(f"insert-scale: no op named '{self.node}'")
        out = target.out_port(0)
        mul = graph.create_node(
            "Multiply", [out, self.scale], name=f"{self.node}/scale"
        )
        if self.move_names:
            replace_output(out, mul.out_port(0))
        else:
            conn = out.get_connection()  # None when nothing reads the output
            if conn is not None:
                conn.set_source(mul.out_port(0))
        return True
