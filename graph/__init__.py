"""``xmo.graph``: the transformation author's view of an ``ov`` module.

* :class:`Graph` -- nodes of a module, op factory, type re-inference, clean-up
  (:mod:`.graph`)
* :class:`GraphError`, placeholders of disconnected ports -- shared by graph
  and node (:mod:`.base`)
* :class:`Node`, :class:`Port`, :class:`Connection` -- the Model Optimizer-style
  editing API (:mod:`.node`)
* :func:`replace_node`, :func:`replace_output`, :func:`replace_output_update_name`,
  :func:`replace_node_update_name`, :func:`replace_with_subgraph` -- replacement
  helpers with OpenVINO's semantics (:mod:`.replace`)
* :func:`copy_runtime_info`, fused names, :func:`init_node_info` -- runtime
  info helpers (:mod:`.rt_info`)
* :func:`to_dot` -- a Graphviz picture of a module (:mod:`.dot`)

``docs/transformations.md`` is the guide.
"""

from __future__ import annotations

from xmo.graph.dot import to_dot
from xmo.graph.base import GraphError
from xmo.graph.graph import Graph
from xmo.graph.node import Connection, Node, Port, PortData
from xmo.graph.replace import (
    replace_node,
    replace_node_update_name,
    replace_output,
    replace_output_update_name,
    replace_with_subgraph,
)
from xmo.graph.rt_info import (
    FUSED_NAMES,
    copy_runtime_info,
    get_fused_names,
    init_node_info,
    set_fused_names,
)

__all__ = [
    "FUSED_NAMES",
    "Connection",
    "Graph",
    "GraphError",
    "Node",
    "Port",
    "PortData",
    "copy_runtime_info",
    "get_fused_names",
    "init_node_info",
    "replace_node",
    "replace_node_update_name",
    "replace_output",
    "replace_output_update_name",
    "replace_with_subgraph",
    "set_fused_names",
    "to_dot",
]
