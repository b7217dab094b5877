"""Conversion ONNX -> ov (MLIR's ``Conversion/ONNXToOV``).

* :mod:`.convert` -- the ``convert-onnx-to-ov`` pass: graph I/O, initializers,
  names, the unsupported-ops report
* :mod:`.registry` -- ``@converter`` registration and lookup by type/version
* :mod:`.builder` -- ``Node`` (the ONNX node seen by a converter) and
  ``Builder`` (emits ov ops with inferred types)
* :mod:`.families` -- the converters, one module per op family
"""

from xmo.passes.onnx_to_ov.convert import (
    ConvertONNXToOVPass,
    UnsupportedOpsError,
    convert_onnx_to_ov,
)

__all__ = ["ConvertONNXToOVPass", "UnsupportedOpsError", "convert_onnx_to_ov"]
