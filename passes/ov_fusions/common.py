"""Helpers shared by the fusion matchers."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
from xmo.graph import Node, Port, copy_runtime_info, replace_node
from xmo.passes.transformations import Predicate, consumers_count, value_matches

FLOATS = ("f32", "f16", "f64", "bf16")

#: the matched value has exactly one reader (an intermediate a fusion may remove)
ONE = consumers_count(1)


def near(value: float, tol: float = 1e-3) -> Predicate:
    """A float constant whose every element is ``value`` (relative ``tol``)."""

    def test(a: np.ndarray) -> bool:
        return (
            a.size >= 1
            and a.dtype.kind == "f"
            and bool(np.allclose(a.astype(np.float64), value, rtol=tol, atol=tol * 1e-3))
        )

    return value_matches(test)


def float_const() -> Predicate:
    """A finite float constant."""
    return value_matches(lambda a: a.dtype.kind == "f" and bool(np.all(np.isfinite(a))))


def scalar_of(port: Port) -> float:
    return float(np.asarray(port.data.get_value()).reshape(-1)[0])


def same_shape(a: Port, b: Port) -> bool:
    """Both static-or-dynamic shapes known and equal, same element type."""
    sa, sb = a.data.get_shape(), b.data.get_shape()
    return (
        sa is not None
        and sa == sb
        and a.data.get_element_type() == b.data.get_element_type()
    )


def fuse(root: Node, new: Node, fused: Sequence[Node]) -> bool:
    """``new`` stands in for ``root``: names, runtime info, consumers.

    Refuses (returns False) when the types differ (the abandoned ``new`` is
    removed as dead code when the pass finishes)."""
    if new.out_port(0).data.get_type() != root.out_port(0).data.get_type():
        return False
    copy_runtime_info(list(fused), new)
    new.name = root.name
    replace_node(root, new)
    return True


def fuse_chain(root: Node, chain: Sequence[Node], fused: Sequence[Node]) -> bool:
    """Like :func:`fuse` for a replacement of several ops (``chain``, inputs
    first): the last stands in for ``root``, the others are named
    ``<root>/<Type>``, all get the runtime info of ``fused``."""
    last = chain[-1]
    if last.out_port(0).data.get_type() != root.out_port(0).data.get_type():
        return False
    copy_runtime_info(list(fused), list(chain))
    for n in chain[:-1]:
        n.name = f"{root.name}/{n.type}"
    last.name = root.name
    replace_node(root, last)
    return True


def axes_of(port: Port, rank: int) -> list[int] | None:
    v = port.data.get_value()
    if v is None or v.dtype.kind not in "iu":
        return None
    return sorted(int(a) % rank for a in np.asarray(v).reshape(-1))


def attr(node: Node, key: str, default: Any = None) -> Any:
    return node.get(key, default)
