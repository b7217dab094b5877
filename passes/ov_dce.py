"""``ov-dce``: dead-code elimination on ov modules, by xDSL's generic pass.

An op goes when nothing uses its results and it has no effect beyond them
(xDSL's ``would_be_trivially_dead``). The ops' traits decide
(:mod:`xmo.dialects.ov.traits`): pure ops go, while Parameters and Results
(the model's interface), ReadValue / Assign (state) and random ops stay.
xDSL's liveness analysis (``region_dce``) does the work.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.passes import ModulePass
from xdsl.transforms.dead_code_elimination import region_dce


@dataclass(frozen=True)
class OVDeadCodeEliminationPass(ModulePass):
    """Erase ops whose results are unused and that have no side effects."""

    name = "ov-dce"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        region_dce(op.body)
