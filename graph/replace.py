"""Node replacement helpers with OpenVINO's semantics.

* :func:`replace_output` -- every consumer of one output reads another
  output instead; the tensor names move along (a model output keeps its name).
* :func:`replace_node` -- :func:`replace_output` for each output of an op
  (output counts must match); the old op and the producers only it used are
  erased. Friendly name and runtime info are *not* touched: set them (see
  below) or use :func:`replace_node_update_name`.
* :func:`replace_output_update_name` -- eliminate an op (``Identity``-like):
  its consumers read ``replacement``; when it fed a model output, the
  replacement's op takes its friendly name (unless it is a Parameter) so the
  output keeps its names. Refuses (returns False) when that would rename a
  tensor other ops also read.
* :func:`replace_with_subgraph` -- the friendly-name rule for a sub-graph
  replacement: the *last* op of the new sub-graph takes the replaced op's
  name and every new op gets its runtime info.

Names: an op's friendly name is its IR layer name; tensor names are per
output (an IR port's ``names``). Runtime info: see :mod:`xmo.graph.rt_info`.
"""

from __future__ import annotations

from collections.abc import Sequence

from xmo.graph.base import GraphError, describe
from xmo.graph.graph import users_of
from xmo.graph.node import Node, Port
from xmo.graph.rt_info import copy_runtime_info


def _out(port: object, what: str) -> Port:
    if not isinstance(port, Port) or port.type != "out":
        raise GraphError(f"{what} must be an output port, got {port!r}")
    port.node._check_alive()
    return port


def replace_output(old: Port, new: Port) -> None:
    """Move every consumer of output ``old`` to output ``new``.

    Consumers on ``new``'s own node keep reading ``old`` (so ``new`` may be an
    op inserted right after ``old``). ``old``'s tensor names move to ``new``.
    """
    old = _out(old, "replace_output: the old output")
    new = _out(new, "replace_output: the new output")
    if old.graph is not new.graph:
        raise GraphError("replace_output: the outputs belong to different graphs")
    if old == new:
        return
    graph = old.graph
    dests = [d for d in old.get_destinations() if d.node is not new.node]
    for d in dests:
        if graph.depends(new.node.op, d.node.op):
            raise GraphError(
                f"replace_output: {new} depends on {describe(d.node.op)}, which "
                f"consumes {old}; the replacement would create a cycle"
            )
    value = new.node.op.results[new.idx]
    for d in dests:
        graph._set_operand(d.node.op, d.idx, value)
    names = old.get_tensor_names()
    if names:
        old.set_tensor_names([])
        new.add_tensor_names(names)
    graph._candidates.add(old.node.op)


def replace_node(
    old: Node, new: Node | Sequence[Port], output_order: Sequence[int] | None = None
) -> None:
    """Replace op ``old`` by ``new`` (a node, or one output port per output).

    Output ``i`` of ``old`` is replaced by output ``output_order[i]`` (default
    ``i``) of ``new``; the output counts must match. Result ops cannot be
    replaced. ``old`` is erased (with the producers only it kept alive).
    """
    if not isinstance(old, Node):
        raise GraphError(f"replace_node: the old op must be a Node, got {old!r}")
    old._check_alive()
    if old.type == "Result":
        raise GraphError(
            f"replace_node: Result ops cannot be replaced ({describe(old.op)})"
        )
    if isinstance(new, Node):
        new._check_alive()
        outputs = list(new.out_ports().values())
        what = f"{describe(new.op)} has {len(outputs)}"
    else:
        outputs = [_out(p, "replace_node: a replacement") for p in new]
        what = f"{len(outputs)} replacement outputs are given"
    n_old = len(old.op.results)
    order = list(output_order) if output_order is not None else list(range(n_old))
    if len(order) != n_old or (output_order is None and len(outputs) != n_old):
        raise GraphError(
            f"replace_node: {describe(old.op)} has {n_old} output"
            f"{'s' if n_old != 1 else ''} but {what}"
        )
    if any(not 0 <= i < len(outputs) for i in order):
        raise GraphError(f"replace_node: output order {order} is out of range")
    if isinstance(new, Node) and new is old:
        return
    for i in range(n_old):
        replace_output(old.out_port(i), outputs[order[i]])
    old.graph.remove_dead([old.op])


def replace_node_update_name(old: Node, new: Node) -> bool:
    """:func:`replace_node`, then ``new`` takes ``old``'s friendly name and
    runtime info. False (nothing done) when ``new`` reads a Parameter and
    ``old`` feeds a Result: renaming would rename the model's input."""
    for d in old.out_port(0).get_destinations() if old.op.results else []:
        if d.node.type == "Result" and any(
            p.get_source() is not None and p.get_source().node.type == "Parameter"
            for p in new.in_ports(connected_only=True).values()
        ):
            return False
    name = old.name
    copy_runtime_info(old, new)
    replace_node(old, new)
    new.name = name
    return True


def replace_output_update_name(output: Port, replacement: Port) -> bool:
    """Eliminate the op of ``output``: its consumers read ``replacement``.

    When the op fed a Result, the replacement's op takes its friendly name
    (Parameters keep theirs) and the tensor names move, so the model output
    keeps its names. Returns False, changing nothing, when the op fed a
    Result but ``replacement``'s op has other consumers (their tensor would
    be renamed). Runtime info: the replacement's op gets the merge of its own
    and the eliminated op's (:func:`copy_runtime_info`).
    """
    output = _out(output, "replace_output_update_name: output")
    replacement = _out(replacement, "replace_output_update_name: replacement")
    eliminated = output.node
    has_result = any(d.node.type == "Result" for d in output.get_destinations())
    users = users_of(replacement.node.op)
    if has_result and not (len(users) == 1 and users[0] is eliminated.op):
        return False
    if has_result and replacement.node.type != "Parameter":
        replacement.node.name = eliminated.name
    replace_output(output, replacement)
    copy_runtime_info([replacement.node, eliminated], replacement.node)
    eliminated.graph.remove_dead([eliminated.op])
    return True


def replace_with_subgraph(
    old: Node, new_nodes: Sequence[Node], output: Node | None = None
) -> None:
    """Replace ``old`` by a sub-graph built from ``new_nodes`` (in creation
    order): every new node gets ``old``'s runtime info, ``output`` (default:
    the last new node) takes ``old``'s friendly name and replaces it."""
    if not new_nodes:
        raise GraphError("replace_with_subgraph: no new nodes")
    last = output if output is not None else new_nodes[-1]
    name = old.name
    copy_runtime_info(old, list(new_nodes))
    replace_node(old, last)
    last.name = name


__all__ = [
    "replace_node",
    "replace_node_update_name",
    "replace_output",
    "replace_output_update_name",
    "replace_with_subgraph",
]
