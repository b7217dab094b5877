"""Conversion ONNX -> ov (MLIR's ``Conversion/ONNXToOV``).

* :mod:`.convert` -- the ``convert-onnx-to-ov`` pass: the ONNX hooks of the
  shared driver (:mod:`xmo.passes.to_ov.driver`): graph I/O, initializers,
  names, sub-graph inlining (``convert_block``)
* :mod:`.registry` -- ``@converter`` registration and lookup by type/version
  (the ONNX part of :mod:`xmo.passes.to_ov.registry`)
* :mod:`.builder` -- how ONNX ops give their attributes to converters (the
  ``ConverterNode`` and ``Builder`` a converter gets are shared by every
  frontend: :mod:`xmo.passes.to_ov.builder`)
* :mod:`.families` -- the converters, one module per op family
"""

from xmo.passes.onnx_to_ov.convert import ConvertONNXToOVPass, convert_onnx_to_ov
from xmo.passes.to_ov.report import UnsupportedOpsError

__all__ = ["ConvertONNXToOVPass", "UnsupportedOpsError", "convert_onnx_to_ov"]
