"""MXNet -> ov legalization.

* :mod:`.convert` -- the ``convert-mxnet-to-ov`` pass: the MXNet hooks of the
  shared driver (:mod:`xmo.passes.to_ov.driver`)
* :mod:`.registry` -- the MXNet converters (``@mxnet_converter``; ``Custom``
  operators keyed ``Custom:<op_type>``, provided by extensions)
* :mod:`.attrs` -- MXNet's attribute strings -> Python values
* :mod:`.families` -- the converters, one module per op family
"""

from xmo.passes.mxnet_to_ov.convert import ConvertMXNetToOVPass, convert_mxnet_to_ov

__all__ = ["ConvertMXNetToOVPass", "convert_mxnet_to_ov"]
