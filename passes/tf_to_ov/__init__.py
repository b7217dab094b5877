"""Conversion TensorFlow -> ov (MLIR's ``Conversion/TFToOV``).

* :mod:`.convert` -- the ``convert-tf-to-ov`` pass: the TF hooks of the
  shared driver (:mod:`xmo.passes.to_ov.driver`): liveness, deadness of
  Switch/Merge branches, Placeholder / Const, pass-through nodes, names
* :mod:`.registry` -- ``@tf_converter`` registration and lookup by TF op type
  (the TF part of :mod:`xmo.passes.to_ov.registry`)
* :mod:`.builder` -- ``TFBuilder`` (emits ov ops with inferred types, seeing
  constant sub-graphs), ``ConstEvaluator``, TF attributes (the
  ``ConverterNode`` a converter gets is shared by every frontend:
  :mod:`xmo.passes.to_ov.builder`)
* :mod:`.layout` -- NHWC <-> NCHW transposes around layout-sensitive ops
* :mod:`.families` -- the converters, one module per op family
"""

from xmo.passes.tf_to_ov.convert import ConvertTFToOVPass, convert_tf_to_ov
from xmo.passes.to_ov.report import UnsupportedOpsError

__all__ = ["ConvertTFToOVPass", "UnsupportedOpsError", "convert_tf_to_ov"]
