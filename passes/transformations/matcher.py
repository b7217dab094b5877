"""``MatcherPass`` and ``GraphRewrite``: pattern-driven transformations.

A :class:`MatcherPass` pairs a pattern (:mod:`.pattern`) with a callback::

    class ConvertNegative(MatcherPass):
        name = "ConvertNegative"

        def pattern(self):
            return wrap_type("Negative")

        def callback(self, m: Match) -> bool:
            ...             # edit m.graph; True when the graph changed

A :class:`GraphRewrite` applies several matchers in one traversal: ops are
visited once, in order; on each op the matchers are tried in registration
order and the first whose callback returns True wins. Ops a callback creates
are not visited unless it calls ``m.register_new_node(node)``.

Both are built on xDSL's pattern rewriter: each matcher becomes a
``RewritePattern`` run by a ``PatternRewriteWalker`` (single pass, no
fixpoint, no folding), and the :class:`~xmo.graph.Graph` a callback edits
routes insertions, changes and erasures through the walker's rewriter. After
the traversal the graph is finalized (orphaned ops erased, types inferred,
SSA order restored).

Every matcher has a unique ``name``; a name in the ``disabled`` option of a
GraphRewrite (``-p 'my-rewrite{disabled=ConvertNegative}'``) or disabled on
the running :class:`~xmo.passes.transformations.Manager` is skipped.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import ClassVar

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Operation
from xdsl.pattern_rewriter import (
    PatternRewriter,
    PatternRewriteWalker,
    RewritePattern,
)
from xmo.dialects.ov.base import OVOp
from xmo.dialects.ov.control_ops import graph_blocks
from xmo.dialects.ov.traits import removable_if_unused
from xmo.errors import TransformationError
from xmo.graph import Graph
from xmo.graph.base import describe
from xmo.passes.transformations.base import TransformationPass, disabled_names
from xmo.passes.transformations.pattern import Match, Pattern, match


@dataclass(frozen=True)
class MatcherPass(TransformationPass):
    """A pattern and a callback (OpenVINO's ``ov::pass::MatcherPass``).

    Define ``name`` (a unique class variable), ``pattern()`` and
    ``callback(m) -> bool``. Run alone (``xmo-opt -p <name>``, ``apply``) it
    is a GraphRewrite of one matcher.
    """

    name: ClassVar[str] = "matcher-pass"

    def pattern(self) -> Pattern:
        raise NotImplementedError(f"{type(self).__name__} does not define pattern()")

    def callback(self, m: Match) -> bool:
        raise NotImplementedError(f"{type(self).__name__} does not define callback()")

    def run(self, ctx: Context, module: ModuleOp) -> bool:
        if self.name in disabled_names():
            return False
        return run_matchers([self], ctx, module)


@dataclass(frozen=True)
class GraphRewrite(TransformationPass):
    """Several matchers in one traversal (OpenVINO's ``ov::pass::GraphRewrite``).

    List the matcher classes (or instances) in the class variable
    ``matchers``, or call :meth:`add_matcher`. ``disabled``: matcher names to
    skip.
    """

    name: ClassVar[str] = "graph-rewrite"
    matchers: ClassVar[tuple[type[MatcherPass] | MatcherPass, ...]] = ()
    disabled: tuple[str, ...] = field(default=())

    def add_matcher(self, matcher: type[MatcherPass] | MatcherPass) -> MatcherPass:
        m = matcher() if isinstance(matcher, type) else matcher
        self.__dict__.setdefault("_added", []).append(m)
        return m

    def get_matchers(self) -> list[MatcherPass]:
        ms = [m() if isinstance(m, type) else m for m in self.matchers]
        return ms + list(self.__dict__.get("_added", []))

    def run(self, ctx: Context, module: ModuleOp) -> bool:
        off = disabled_names() | set(self.disabled)
        return run_matchers(
            [m for m in self.get_matchers() if m.name not in off], ctx, module
        )


@dataclass
class _Stats:
    seconds: float = 0.0
    matches: int = 0
    applied: int = 0


@dataclass
class _State:
    error: BaseException | None = None
    changed: bool = False


class _MatcherPattern(RewritePattern):
    """One matcher as an xDSL rewrite pattern over a shared :class:`Graph`."""

    def __init__(self, matcher: MatcherPass, graph: Graph, state: _State) -> None:
        self.matcher = matcher
        self.pattern = matcher.pattern()
        if not isinstance(self.pattern, Pattern):
            raise TransformationError(
                f"{matcher.name}: pattern() returned {type(self.pattern).__name__}, "
                "not a Pattern"
            )
        roots = self.pattern.root_types()
        self.root_names = (
            None if roots is None else {r for r in roots if isinstance(r, str)}
        )
        self.root_classes = (
            None if roots is None else tuple(r for r in roots if isinstance(r, type))
        )
        self.graph = graph
        self.state = state
        self.stats = _Stats()

    def _may_root(self, op: Operation) -> bool:
        if not isinstance(op, OVOp):
            return False
        if self.root_names is None:
            return True
        return op.OV_TYPE in self.root_names or isinstance(op, self.root_classes or ())

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter, /) -> None:
        graph = self.graph
        if self.state.error is not None or op.parent is not graph.block:
            return
        if not self._may_root(op):
            return
        if (
            op.results
            and not any(r.uses for r in op.results)
            and removable_if_unused(op)
        ):
            return  # dead: it will be erased, not rewritten
        start = time.perf_counter()
        try:
            m = match(graph, self.pattern, op)
            if m is None:
                return
            self.stats.matches += 1
            graph._bind(rewriter, op)
            try:
                changed = bool(self.matcher.callback(m))
                graph.remove_dead()
            finally:
                graph._bind(None, None)
            if changed:
                self.stats.applied += 1
                self.state.changed = True
            rewriter.has_done_action = changed
        except Exception as e:  # noqa: BLE001 - re-raised after the walk
            if hasattr(e, "add_note"):
                e.add_note(f"in matcher {self.matcher.name} at {describe(op)}")
            self.state.error = e
            rewriter.has_done_action = True
        finally:
            self.stats.seconds += time.perf_counter() - start


class _DispatchApplier(RewritePattern):
    """Tries, in order, only the matchers whose pattern may be rooted at an
    op of this class (the first that acts wins, as in xDSL's greedy applier):
    an op costs one dictionary lookup per class, not one call per matcher."""

    def __init__(self, patterns: Sequence[_MatcherPattern]) -> None:
        self.patterns = list(patterns)
        self._by_class: dict[type, list[_MatcherPattern]] = {}

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter, /) -> None:
        todo = self._by_class.get(type(op))
        if todo is None:
            # _may_root depends only on the op's class (OV_TYPE, isinstance)
            todo = self._by_class[type(op)] = [p for p in self.patterns if p._may_root(op)]
        for p in todo:
            p.match_and_rewrite(op, rewriter)
            if rewriter.has_done_action:
                return


def run_matchers(
    matchers: Sequence[MatcherPass], ctx: Context, module: ModuleOp
) -> bool:
    """Apply ``matchers`` in one traversal of ``module``; True if it changed."""
    names = [m.name for m in matchers]
    dup = sorted({n for n in names if names.count(n) > 1})
    if dup:
        raise TransformationError(f"matcher names must be unique: {', '.join(dup)}")
    if not matchers:
        return False
    changed = False
    all_patterns: list[_MatcherPattern] = []
    # the model's graph, then each body of a Loop / TensorIterator / If on its own
    for block in graph_blocks(module):
        graph = Graph(module, ctx, block)
        state = _State()
        patterns = [_MatcherPattern(m, graph, state) for m in matchers]
        all_patterns += patterns
        walker = PatternRewriteWalker(_DispatchApplier(patterns), apply_recursively=False)
        graph._walker = walker
        try:
            if block is module.body.block:
                walker.rewrite_module(module)
            else:
                walker.rewrite_region(block.parent)  # type: ignore[arg-type]
        finally:
            graph._walker = None
        if state.error is not None:
            raise state.error
        graph.finalize()
        changed = changed or state.changed or graph.changed
    from xmo.passes import tracing

    if tracing.profiling_enabled():
        for m in matchers:
            mine = [p for p in all_patterns if p.matcher is m]
            tracing.report_matcher(
                m.name, sum(p.stats.seconds for p in mine),
                sum(p.stats.matches for p in mine), sum(p.stats.applied for p in mine),
            )
    return changed


__all__ = ["GraphRewrite", "MatcherPass", "run_matchers"]
