"""Transformation kinds for authors (OpenVINO's transformation API on xDSL).

* :class:`ModelPass` -- a function of the whole model (``run_on_model(graph)``)
* :class:`MatcherPass` -- a pattern plus a callback (:mod:`.pattern` builds patterns)
* :class:`GraphRewrite` -- several matchers in one traversal
* :class:`Manager` -- runs passes, re-infers types and verifies after each
* :class:`ConstantFolding`, :class:`InitNodeInfo` -- ready-made passes

All are xDSL ``ModulePass`` dataclasses: register them in
``xmo.passes.get_all_passes`` (or an extension's ``passes/`` folder) to use
them from ``xmo-opt -p``. ``docs/transformations.md`` is the guide.
"""

from __future__ import annotations

from xmo.errors import TransformationError
from xmo.passes.transformations import pattern
from xmo.passes.transformations.base import ModelPass, TransformationPass, disabled_names
from xmo.passes.transformations.manager import ConstantFolding, InitNodeInfo, Manager
from xmo.passes.transformations.matcher import GraphRewrite, MatcherPass, run_matchers
from xmo.passes.transformations.pattern import (
    Match,
    Pattern,
    Predicate,
    any_input,
    attrs_match,
    constant,
    consumers_count,
    has_static_rank,
    has_static_shape,
    or_,
    rank_equals,
    shape_matches,
    type_matches,
    value_matches,
    wrap_type,
)

__all__ = [
    "ConstantFolding",
    "GraphRewrite",
    "InitNodeInfo",
    "Manager",
    "Match",
    "MatcherPass",
    "ModelPass",
    "Pattern",
    "Predicate",
    "TransformationError",
    "TransformationPass",
    "any_input",
    "attrs_match",
    "constant",
    "consumers_count",
    "disabled_names",
    "has_static_rank",
    "has_static_shape",
    "or_",
    "pattern",
    "rank_equals",
    "run_matchers",
    "shape_matches",
    "type_matches",
    "value_matches",
    "wrap_type",
]
