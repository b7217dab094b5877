"""Names in ONNX graphs: sub-graphs of a node, the outer-scope names a
(sub)graph reads, the names a graph's nodes and outputs read."""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import onnx

#: graph id -> (the graph, kept alive so the id is not reused; its free names)
FreeNamesCache = dict[int, tuple["onnx.GraphProto", frozenset[str]]]


def subgraphs(node: onnx.NodeProto) -> Iterable[onnx.GraphProto]:
    """The graphs among ``node``'s attributes (If branches, Loop/Scan bodies)."""
    for a in node.attribute:
        if a.HasField("g"):
            yield a.g
        yield from a.graphs


def free_names(graph: onnx.GraphProto, cache: FreeNamesCache) -> frozenset[str]:
    """Tensor names a graph uses but does not define (outer-scope references)."""
    key = id(graph)
    hit = cache.get(key)
    if hit is not None and hit[0] is graph:
        return hit[1]
    defined = {vi.name for vi in graph.input}
    defined.update(t.name for t in graph.initializer)
    defined.update(s.values.name for s in graph.sparse_initializer)
    used = used_names(graph, cache)
    for node in graph.node:
        defined.update(node.output)
    out = frozenset(used - defined - {""})
    cache[key] = (graph, out)
    return out


def used_names(graph: onnx.GraphProto, cache: FreeNamesCache) -> set[str]:
    """Tensor names ``graph``'s nodes read (their sub-graphs' outer-scope
    references included) and its outputs name."""
    used: set[str] = set()
    for node in graph.node:
        used.update(node.input)
        for g in subgraphs(node):
            used |= free_names(g, cache)
    used.update(vi.name for vi in graph.output)
    return used


__all__ = ["FreeNamesCache", "free_names", "subgraphs", "used_names"]
