"""Conversion TensorFlow -> ov (MLIR's ``Conversion/TFToOV``).

* :mod:`.convert` -- the ``convert-tf-to-ov`` pass: graph I/O, pass-through
  nodes, names, the unsupported-ops report
* :mod:`.registry` -- ``@tf_converter`` registration and lookup by TF op type
* :mod:`.builder` -- ``TFNode`` (the tf op seen by a converter) and
  ``TFBuilder`` (emits ov ops with inferred types)
* :mod:`.layout` -- NHWC <-> NCHW transposes around layout-sensitive ops
* :mod:`.families` -- the converters, one module per op family
"""

from xmo.passes.tf_to_ov.convert import (
    ConvertTFToOVPass,
    UnsupportedOpsError,
    convert_tf_to_ov,
)

__all__ = ["ConvertTFToOVPass", "UnsupportedOpsError", "convert_tf_to_ov"]
