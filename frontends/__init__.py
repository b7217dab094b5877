"""Framework frontends: model files -> framework dialect modules.

:func:`load_framework_model` picks the frontend for a model; each frontend
lives in its own subpackage (``frontends/onnx``, ``frontends/tf``).
"""

from __future__ import annotations

import os
from typing import Any

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp


class UnsupportedModelFormat(ValueError):
    """No frontend reads this kind of model."""


def load_framework_model(model: Any, ctx: Context, **options: Any) -> ModuleOp:
    """Load ``model`` (a path or an in-memory model) with the matching frontend."""
    name = os.fspath(model) if isinstance(model, str | os.PathLike) else type(model).__name__
    raise UnsupportedModelFormat(
        f"{name}: no frontend for this model format yet (supported: .mlir, .xml)"
    )
