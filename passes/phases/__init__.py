"""Phase-ordered transformations (front, middle, back) and their manager.

* :mod:`.transformation` -- ``Transformation`` (generic; an xDSL
  ``ModulePass`` named by its id), ``OpReplacement``, ``SubgraphReplacement``,
  sub-graph pattern matching
* :mod:`.manager` -- ``PhaseManager``: the built-in steps of
  :data:`xmo.passes.pipeline.DEFAULT_PIPELINE` (anchors included) and the
  extensions' transformations: dependency graph, order, enable/disable, the
  pipeline of a phase
* :mod:`.config` -- ``--transformations_config`` (scope / points / general)
* :mod:`.view` -- the dialect-neutral op view front transformations see

See ``docs/extensions.md``.
"""

from xmo.passes.phases.config import ConfigReplacement, SubgraphMatch, TransformationsConfig
from xmo.passes.phases.manager import DISABLED_ENV, ENABLED_ENV, PhaseManager
from xmo.passes.phases.transformation import (
    OpReplacement,
    SubgraphReplacement,
    Transformation,
    TransformationOrderError,
    find_matches,
)
from xmo.passes.phases.view import ModuleView, OpView, op_attr, op_name, op_type, value_of
from xmo.passes.pipeline import BACK, FRONT, MIDDLE, PHASES

__all__ = [
    "BACK",
    "ConfigReplacement",
    "SubgraphMatch",
    "TransformationsConfig",
    "DISABLED_ENV",
    "ENABLED_ENV",
    "FRONT",
    "MIDDLE",
    "PHASES",
    "ModuleView",
    "OpReplacement",
    "OpView",
    "PhaseManager",
    "SubgraphReplacement",
    "Transformation",
    "TransformationOrderError",
    "find_matches",
    "op_attr",
    "op_name",
    "op_type",
    "value_of",
]
