"""``Manager``: runs transformations in order, re-inferring types and verifying
after each (OpenVINO's ``ov::pass::Manager``); and two ready-made passes."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.passes import ModulePass
from xdsl.utils.exceptions import VerifyException
from xmo.errors import TransformationError, first_line
from xmo.graph import Graph, GraphError
from xmo.graph.rt_info import init_node_info
from xmo.passes.transformations.base import ModelPass, TransformationPass, disabling


class Manager:
    """An ordered list of passes (any xDSL ``ModulePass``).

    ``run_passes(module)`` runs each enabled pass through
    :func:`xmo.passes.tracing.run_pass` (so profiling and visualization apply),
    then infers every op's types again and verifies the module (either can be
    switched off). ``disable(name)`` skips a pass -- or a matcher inside a
    GraphRewrite -- by name. Register :class:`ConstantFolding` after rewrites
    that leave constant sub-graphs behind.
    """

    def __init__(
        self,
        ctx: Context | None = None,
        *,
        infer_types: bool = True,
        verify: bool = True,
    ) -> None:
        self.ctx = ctx
        self.infer_types = infer_types
        self.verify = verify
        self.passes: list[ModulePass] = []
        self._disabled: set[str] = set()

    def register_pass(
        self, pass_: ModulePass | type[ModulePass], *args: Any, **kwargs: Any
    ) -> ModulePass:
        """Append a pass (an instance, or a class built with ``args``/``kwargs``)."""
        p = pass_(*args, **kwargs) if isinstance(pass_, type) else pass_
        if not isinstance(p, ModulePass):
            raise TypeError(f"register_pass needs a ModulePass, got {type(p).__name__}")
        self.passes.append(p)
        return p

    def disable(self, name: str) -> None:
        self._disabled.add(name)

    def enable(self, name: str) -> None:
        self._disabled.discard(name)

    def is_disabled(self, name: str) -> bool:
        return name in self._disabled

    def get_pass_config(self) -> Manager:
        """OpenVINO spells enabling and disabling through a pass config."""
        return self

    @property
    def disabled(self) -> frozenset[str]:
        return frozenset(self._disabled)

    def run_passes(self, module: ModuleOp, ctx: Context | None = None) -> bool:
        """Run the enabled passes on ``module``; True if any changed it."""
        from xmo.context import context_of, make_context
        from xmo.passes.tracing import fingerprint, run_pass

        ctx = ctx or self.ctx or context_of(module) or make_context()
        changed = False
        with disabling(self._disabled):
            for p in self.passes:
                name = getattr(p, "name", type(p).__name__)
                if name in self._disabled:
                    continue
                before = (
                    None if isinstance(p, TransformationPass) else fingerprint(module)
                )
                result = run_pass(p, ctx, module)
                changed |= (
                    bool(result) if before is None else fingerprint(module) != before
                )
                try:
                    if self.infer_types:
                        Graph(module, ctx).infer_types()
                    if self.verify:
                        module.verify()
                except (GraphError, VerifyException, ValueError) as e:
                    raise TransformationError(
                        f"after pass {name}: {first_line(e)}"
                    ) from e
        return changed



@dataclass(frozen=True)
class ConstantFolding(TransformationPass):
    """Fold constant sub-graphs into Constants and erase what became unused
    (``ov-constant-fold`` then ``ov-dce``; OpenVINO's ``ConstantFolding``)."""

    name: ClassVar[str] = "constant-folding"
    max_growth: float = 4.0

    def run(self, ctx: Context, module: ModuleOp) -> bool:
        from xmo.passes.ov_constant_fold import OVConstantFoldPass
        from xmo.passes.ov_dce import OVDeadCodeEliminationPass
        from xmo.passes.tracing import fingerprint

        before = fingerprint(module)
        OVConstantFoldPass(self.max_growth).apply(ctx, module)
        OVDeadCodeEliminationPass().apply(ctx, module)
        return fingerprint(module) != before


@dataclass(frozen=True)
class InitNodeInfo(ModelPass):
    """``ov-init-node-info``: record each op's friendly name as its
    ``fused_names`` runtime info, so later fusions list the originals."""

    name: ClassVar[str] = "ov-init-node-info"

    def run_on_model(self, graph: Graph) -> bool:
        return init_node_info(graph)


__all__ = ["ConstantFolding", "InitNodeInfo", "Manager"]
