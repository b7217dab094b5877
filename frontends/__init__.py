"""Framework frontends: model files -> framework dialect modules.

:func:`load_framework_model` picks the frontend for a model; each frontend
lives in its own subpackage (``frontends/onnx``, ``frontends/tf``).
"""

from __future__ import annotations

import os
from typing import Any

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp


class UnsupportedModelFormat(ValueError):
    """No frontend reads this kind of model."""


def _is_onnx_model(model: Any) -> bool:
    if isinstance(model, str | os.PathLike):
        return os.fspath(model).lower().endswith(".onnx")
    if isinstance(model, bytes | bytearray | memoryview):
        return True  # serialized ModelProto (the only in-memory bytes format)
    t = type(model)
    return t.__name__ == "ModelProto" and t.__module__.startswith("onnx")


#: path suffixes of TensorFlow frozen graphs (binary / text GraphDef)
TF_SUFFIXES = (".pb", ".pbtxt")


def is_tf_model(model: Any) -> bool:
    """``model`` goes to the TensorFlow frontend (a ``.pb``/``.pbtxt`` path or a
    GraphDef message)."""
    if isinstance(model, str | os.PathLike):
        return os.fspath(model).lower().endswith(TF_SUFFIXES)
    desc = getattr(model, "DESCRIPTOR", None)
    return getattr(desc, "full_name", None) == "tensorflow.GraphDef"


def load_framework_model(model: Any, ctx: Context, **options: Any) -> ModuleOp:
    """Load ``model`` (a path or an in-memory model) with the matching frontend.

    * ONNX: ``.onnx`` paths, serialized bytes, ``onnx.ModelProto``
      (:func:`xmo.frontends.onnx.load_onnx`; options: ``input_shapes``,
      ``inputs``, ``base_dir``, ``shape_inference``)
    * TensorFlow frozen graphs: ``.pb``/``.pbtxt`` paths, GraphDef messages
      (xmo's schema or TensorFlow's own) (:func:`xmo.frontends.tf.load_tf`;
      options: ``input_shapes``, ``outputs``, ``inputs``). Serialized GraphDef bytes must
      go to ``load_tf`` directly (bytes mean ONNX here).
    """
    if is_tf_model(model):
        from xmo.frontends.tf import load_tf

        return load_tf(model, ctx, **options)
    if _is_onnx_model(model):
        from xmo.frontends.onnx import load_onnx

        return load_onnx(model, ctx, **options)
    name = os.fspath(model) if isinstance(model, str | os.PathLike) else type(model).__name__
    raise UnsupportedModelFormat(
        f"{name}: no frontend for this model format yet "
        "(supported: .mlir, .xml, .onnx, .pb, .pbtxt)"
    )


def framework_input_shapes(model: Any) -> dict[str, list[int] | None]:
    """Graph input name -> dims (-1 dynamic; None unknown rank) of a framework model."""
    if is_tf_model(model):
        from xmo.frontends.tf import graph_input_shapes as tf_input_shapes

        return tf_input_shapes(model)
    if _is_onnx_model(model):
        from xmo.frontends.onnx import graph_input_shapes

        return graph_input_shapes(model)
    raise UnsupportedModelFormat(f"{model}: no frontend for this model format")
