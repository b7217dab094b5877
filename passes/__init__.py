"""xmo passes. :func:`get_all_passes` is the registry ``xmo-opt -p`` uses.

Passes are registered by name with a factory that imports their module only
when the pass is used, so the driver starts fast.
"""

from __future__ import annotations

from collections.abc import Callable

from xdsl.passes import ModulePass


def _ov_infer_shapes() -> type[ModulePass]:
    from xmo.passes.ov_infer_shapes import OVInferShapesPass

    return OVInferShapesPass


def get_all_passes() -> dict[str, Callable[[], type[ModulePass]]]:
    """Pass name -> factory returning the pass class."""
    return {
        "ov-infer-shapes": _ov_infer_shapes,
    }
