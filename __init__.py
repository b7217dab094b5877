"""xmo: an MLIR-style model optimizer on xDSL that emits OpenVINO IR.

The public API mirrors openvino's::

    import xmo
    model = xmo.convert_model("model.mlir")   # or an OpenVINO IR .xml
    xmo.save_model(model, "out/model.xml")    # writes model.xml + model.bin
    outputs = xmo.run("model.onnx", {"x": x}) # xmo's own CPU backend
"""

from __future__ import annotations

__version__ = "0.1.0"

from xmo.api import (
    compile_model,
    convert_model,
    read_model,
    run,
    save_model,
)
from xmo.errors import ConversionError, XmoError

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
