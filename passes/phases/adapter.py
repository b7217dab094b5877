"""A phase transformation as an xDSL ``ModulePass`` (``xmo-opt -p <id>``)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp

from xmo.passes.phases.transformation import FRONT, OpReplacement, Transformation
from xmo.passes.transformations.base import TransformationPass

_CACHE: dict[type, type] = {}


def as_module_pass(cls: type[Transformation]) -> type[TransformationPass]:
    """A ``ModulePass`` class named ``cls.id`` running the transformation once
    (front op replacements legalize their op: they are not passes)."""
    if cls in _CACHE:
        return _CACHE[cls]

    def run(self: Any, ctx: Context, module: ModuleOp) -> bool:
        if issubclass(cls, OpReplacement) and cls.phase == FRONT:
            raise ValueError(
                f"'{cls.id}' replaces {cls.op} during convert-tf-to-ov; it is not a pass"
            )
        t = cls()
        changed = t.apply_to(ctx, module)
        if changed and cls.clean_up and cls.phase != FRONT:
            from xmo.passes.ov_dce import OVDeadCodeEliminationPass

            OVDeadCodeEliminationPass().apply(ctx, module)
        return changed

    adapter = dataclass(frozen=True)(
        type(
            f"{cls.__name__}Pass",
            (TransformationPass,),
            {"name": cls.id, "run": run, "__module__": __name__,
             "__annotations__": {"name": ClassVar[str]}},
        )
    )
    _CACHE[cls] = adapter
    return adapter


__all__ = ["as_module_pass"]
