"""Extractor: the Caffe Python layer ``custom_layers.ScaleClip`` -> ov ops.

A Caffe net may run layers written in Python (``type: "Python"``,
``python_param { module: "custom_layers" layer: "ScaleClip" param_str: ... }``).
xmo cannot run that Python code, so such a layer converts only when an
extension says what it computes. This one computes
``clip(scale * x, min, max)``, its parameters read from ``param_str`` (JSON)::

    layer {
      name: "clip" type: "Python" bottom: "x" top: "y"
      python_param {
        module: "custom_layers" layer: "ScaleClip"
        param_str: '{"scale": 2.0, "min": -1.0, "max": 1.0}'
      }
    }

``xmo convert net.prototxt --extensions examples/caffe_python_layer``.
"""

import json

import numpy as np

from xmo.passes.caffe_to_ov.registry import caffe_python_layer


@caffe_python_layer("custom_layers", "ScaleClip")
def convert_scale_clip(node, b):
    p = node.op.param("python_param")
    try:
        args = json.loads(p.param_str or "{}")
    except json.JSONDecodeError as e:
        raise node.unsupported(f"param_str is not JSON: {e}") from None
    x = node.input(0)
    scale = float(args.get("scale", 1.0))
    if scale != 1.0:
        x = b.out("Multiply", [x, b.const(np.asarray(scale, np.float32))])
    return b.out("Clamp", [x], {"min": float(args.get("min", -np.inf)),
                                "max": float(args.get("max", np.inf))})
