"""Transformation kinds' common base: ``TransformationPass`` and ``ModelPass``."""

from __future__ import annotations

import contextlib
import contextvars
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import ClassVar

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.passes import ModulePass
from xmo.graph import Graph


#: Names disabled by the running Manager (passes and matchers).
_disabled: contextvars.ContextVar[frozenset[str]] = contextvars.ContextVar(
    "xmo_disabled_transformations", default=frozenset()
)


def disabled_names() -> frozenset[str]:
    """Pass and matcher names the running :class:`Manager` disabled."""
    return _disabled.get()


@contextlib.contextmanager
def disabling(names: Iterable[str]) -> Iterator[None]:
    token = _disabled.set(_disabled.get() | frozenset(names))
    try:
        yield
    finally:
        _disabled.reset(token)


@dataclass(frozen=True)
class TransformationPass(ModulePass):
    """An xDSL ``ModulePass`` that reports whether it changed the module.

    ``run`` does the work and returns True when the module changed; ``apply``
    (what xDSL and ``xmo-opt -p`` call) runs it. Subclasses set the class
    variable ``name`` (unique: it registers the pass, names it in traces and
    disables it).
    """

    name: ClassVar[str] = "transformation"

    def run(self, ctx: Context, module: ModuleOp) -> bool:
        raise NotImplementedError(f"{type(self).__name__} does not define run()")

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        self.run(ctx, op)


@dataclass(frozen=True)
class ModelPass(TransformationPass):
    """A transformation of the whole model (OpenVINO's ``ov::pass::ModelPass``).

    Define ``run_on_model(graph) -> bool`` (True when it changed the graph).
    Afterwards the graph is finalized: disconnected ports are rejected,
    orphaned ops erased, types inferred again, SSA order restored.
    """

    name: ClassVar[str] = "model-pass"

    def run_on_model(self, graph: Graph) -> bool:
        raise NotImplementedError(
            f"{type(self).__name__} does not define run_on_model()"
        )

    def run(self, ctx: Context, module: ModuleOp) -> bool:
        graph = Graph(module, ctx)
        changed = bool(self.run_on_model(graph))
        graph.finalize()
        return changed or graph.changed


__all__ = [
    "ModelPass",
    "TransformationPass",
    "disabled_names",
    "disabling",
]
