"""``OpTypeDispatch``: the rewrite pattern for an op's class, found in one lookup.

xDSL's ``GreedyRewritePatternApplier`` calls every pattern on every op (each
``op_type_rewrite_pattern`` then tests the op's type); a pass whose patterns
are rooted at a few op classes walks modules of thousands of ops, most of
which no pattern is rooted at. ``OpTypeDispatch`` maps op classes to the
pattern (often a ``GreedyRewritePatternApplier``) to try on them, so an op
costs one dictionary lookup::

    PatternRewriteWalker(OpTypeDispatch({MultiplyOp: fold_multiply, AddOp: fold_add}))

Keys are exact classes (an op of a subclass is not dispatched to its base's
pattern): list every class a pattern is rooted at.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from xdsl.ir import Operation
from xdsl.pattern_rewriter import PatternRewriter, RewritePattern


@dataclass(frozen=True)
class OpTypeDispatch(RewritePattern):
    """Applies ``patterns[type(op)]`` to each op (ops of other classes are left alone)."""

    patterns: Mapping[type[Operation], RewritePattern]

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter, /) -> None:
        pattern = self.patterns.get(type(op))
        if pattern is not None:
            pattern.match_and_rewrite(op, rewriter)


__all__ = ["OpTypeDispatch"]
