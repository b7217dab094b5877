"""Conversion Caffe -> ov (MLIR's ``Conversion/CaffeToOV``).

* :mod:`.convert` -- the ``convert-caffe-to-ov`` pass: the Caffe hooks of the
  shared driver (:mod:`xmo.passes.to_ov.driver`): ``caffe.Input`` /
  ``caffe.Output``, layer names, blob (tensor) names, Python layers
* :mod:`.registry` -- ``@caffe_converter`` / ``@caffe_python_layer``
  registration and lookup by layer type
* :mod:`.families` -- the converters, one module per layer family
"""

from xmo.passes.caffe_to_ov.convert import ConvertCaffeToOVPass, convert_caffe_to_ov

__all__ = ["ConvertCaffeToOVPass", "convert_caffe_to_ov"]
