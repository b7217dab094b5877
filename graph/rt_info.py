"""Runtime info helpers: ``copy_runtime_info`` and OpenVINO's fused names.

Runtime info is a per-op dictionary (see :mod:`xmo.dialects.ov.rt_info` for
the value types and the IR encoding). A transformation that replaces ops
passes it on with :func:`copy_runtime_info`:

* 1:1 -- ``copy_runtime_info(old, new)``
* 1:N -- ``copy_runtime_info(old, [a, b, c])`` (a decomposition)
* N:1 -- ``copy_runtime_info([a, b, c], fused)`` (a fusion)
* N:M -- ``copy_runtime_info([a, b], [c, d])``

The targets' runtime info is *replaced*; to keep a target's own entries, list
the target among the sources (``copy_runtime_info([t, old], t)``). Keys that
are not copyable (``decompression``, ``old_api_map_*``, ...) are not taken
from other ops. With several sources, values of the same key are merged:
``fused_names`` become the sorted union; other keys survive when every source
agrees and are dropped otherwise.

``fused_names`` lists the original ops an op stands for. Like OpenVINO, xmo
does not invent it: run :func:`init_node_info` (the ``ov-init-node-info``
pass) first to record every op's own name, and fusions then accumulate them.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from xmo.dialects.ov import rt_info as rt
from xmo.dialects.ov.base import OVOp
from xmo.graph.base import GraphError
from xmo.graph.graph import Graph
from xmo.graph.node import Node

#: OpenVINO's ``ov::FusedNames`` (``fused_names_0`` in OpenVINO's rt_info map)
FUSED_NAMES = "fused_names"


def _op(x: Any) -> OVOp:
    op = x.op if isinstance(x, Node) else x
    if not isinstance(op, OVOp):
        raise GraphError(f"runtime info belongs to ov ops, got {type(x).__name__}")
    return op


def _as_list(x: Any) -> list[Any]:
    if isinstance(x, Sequence | set | frozenset) and not isinstance(x, str):
        return list(x)
    return [x]


def _mark_changed(x: Any) -> None:
    if isinstance(x, Node):
        x.graph.changed = True


def copy_runtime_info(sources: Any, targets: Any) -> None:
    """Give ``targets`` (a node or several) the runtime info of ``sources``
    (see the module docstring for the 1:1, 1:N, N:1 and N:M rules)."""
    src_ops = [_op(s) for s in _as_list(sources)]
    infos = [op.get_rt_info() for op in src_ops]
    for t in _as_list(targets):
        top = _op(t)
        per_source = [
            info if sop is top else {k: v for k, v in info.items() if rt.is_copyable(k)}
            for sop, info in zip(src_ops, infos)
        ]
        if len(per_source) == 1:
            new = dict(per_source[0])
        else:
            values: dict[str, list[Any]] = {}
            for info in per_source:
                for k, v in info.items():
                    values.setdefault(k, []).append(v)
            new = {}
            for k, vs in values.items():
                present, v = rt.merge_values(k, vs)
                if present:
                    new[k] = v
        top.replace_rt_info(new)
        _mark_changed(t)


def get_fused_names(node: Any) -> list[str]:
    """The ``fused_names`` of a node (empty when it has none)."""
    value = _op(node).get_rt_info().get(FUSED_NAMES)
    return rt.as_name_list(value) if value is not None else []


def set_fused_names(node: Any, names: Iterable[str]) -> None:
    _op(node).set_rt_info(FUSED_NAMES, sorted(set(names)))
    _mark_changed(node)


def init_node_info(graph: Graph) -> bool:
    """Record each named op's own name as its ``fused_names`` (OpenVINO's
    ``InitNodeInfo``); ops that already have them keep them. True if any changed."""
    changed = False
    for op in graph.block.ops:
        if isinstance(op, OVOp) and op.OV_TYPE not in (
            "Parameter",
            "Constant",
            "Result",
        ):
            name = op.get_friendly_name()
            if name and FUSED_NAMES not in op.get_rt_info():
                op.set_rt_info(FUSED_NAMES, [name])
                changed = True
    graph.changed |= changed
    return changed


__all__ = [
    "FUSED_NAMES",
    "copy_runtime_info",
    "get_fused_names",
    "init_node_info",
    "set_fused_names",
]
