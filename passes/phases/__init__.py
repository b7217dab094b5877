"""Phase-ordered transformations (front, middle, back) and their manager.

* :mod:`.transformation` -- ``Transformation`` (generic), ``OpReplacement``,
  ``SubgraphReplacement``, sub-graph pattern matching
* :mod:`.builtins` -- anchors and xmo's built-in transformations
* :mod:`.manager` -- ``PhaseManager``: dependency graph, order, enable/disable
* :mod:`.config` -- ``--transformations_config`` (scope / points / general)
* :mod:`.view` -- the dialect-neutral op view front transformations see

See ``docs/extensions.md``.
"""

from xmo.passes.phases.builtins import ANCHORS, BUILTINS, register_builtin
from xmo.passes.phases.config import ConfigReplacement, SubgraphMatch, TransformationsConfig
from xmo.passes.phases.manager import (
    DISABLED_ENV,
    ENABLED_ENV,
    PhaseManager,
    TransformationFailed,
    framework_of,
)
from xmo.passes.phases.transformation import (
    BACK,
    FRONT,
    MIDDLE,
    PHASES,
    OpReplacement,
    SubgraphReplacement,
    Transformation,
    TransformationOrderError,
    find_matches,
)
from xmo.passes.phases.view import ModuleView, OpView, op_attr, op_name, op_type, value_of

__all__ = [
    "ANCHORS",
    "BACK",
    "BUILTINS",
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
    "TransformationFailed",
    "TransformationOrderError",
    "find_matches",
    "framework_of",
    "op_attr",
    "op_name",
    "op_type",
    "register_builtin",
    "value_of",
]
