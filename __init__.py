"""xmo: an MLIR-style model optimizer on xDSL that emits OpenVINO IR.

The public API mirrors openvino's::

    import xmo
    model = xmo.convert_model("model.mlir")   # or an OpenVINO IR .xml
    xmo.save_model(model, "out/model.xml")    # writes model.xml + model.bin
    outputs = xmo.run("model.onnx", {"x": x}) # xmo's own CPU backend
"""

from __future__ import annotations

__version__ = "0.1.0"

from typing import TYPE_CHECKING

from xmo.errors import ConversionError, XmoError

if TYPE_CHECKING:
    from xmo.api import (
        compile_model,
        convert_model,
        read_model,
        run,
        save_model,
    )

#: public functions of :mod:`xmo.api`, imported on first use: ``import xmo``
#: (and so ``xmo --version``, ``from xmo import errors``) loads no dialect
_API = frozenset({"compile_model", "convert_model", "read_model", "run", "save_model"})


def __getattr__(name: str) -> object:
    if name in _API:
        from xmo import api

        value = getattr(api, name)
        globals()[name] = value
        return value
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = [
    "ConversionError",
    "XmoError",
    "compile_model",
    "convert_model",
    "read_model",
    "run",
    "save_model",
    "__version__",
]
