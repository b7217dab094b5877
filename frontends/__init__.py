"""Framework frontends: model files -> framework dialect modules.

Each framework is one :class:`Frontend` registered once in :data:`FRONTENDS`:
it recognises its models (from the path or the in-memory object), lists their
graph inputs with shapes, loads them into its dialect, and names the passes
that legalize that dialect into ``ov`` (and whether the layout change applies).
The API asks :func:`frontend_for` once per conversion and passes the answer
along; a module already loaded tells its frontend by its dialect
(:func:`frontend_of_module`). The code of each frontend lives in its own
subpackage (``frontends/onnx``, ``frontends/tf``) and is imported only when a
model of that kind is loaded.

A new framework (Caffe, MXNet, Kaldi...) is one more :func:`register_frontend`
call: a detector, a loader, an input-shape reader and its legalization passes.
"""

from __future__ import annotations

import importlib
import os
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xmo.errors import ModelError


class UnsupportedModelFormat(ModelError):
    """No frontend reads this kind of model."""


def _load_attr(ref: str) -> Callable[..., Any]:
    """``"package.module:function"`` -> the function (imported on first use)."""
    module, _, name = ref.partition(":")
    return getattr(importlib.import_module(module), name)


@dataclass(frozen=True)
class Frontend:
    """One framework: how to recognise, inspect, load and legalize its models."""

    #: framework name, as ``conversion_parameters`` records it (``onnx``, ``tf``)
    name: str
    #: the dialect its models load into (ops ``<dialect>.<Op>``)
    dialect: str
    #: path suffixes of its model files (lower case)
    suffixes: tuple[str, ...]
    #: ``model -> bool`` for in-memory models (paths are told by suffix)
    accepts_object: Callable[[Any], bool]
    #: ``"module:function"``: ``load(model, ctx, **options) -> ModuleOp``
    loader: str
    #: ``"module:function"``: ``input_shapes(model, **file_options) -> {name: dims or None}``
    input_shapes_reader: str
    #: registered pass names legalizing the dialect into ``ov``, in order
    legalization: tuple[str, ...]
    #: its ops compute in NHWC: the layout change (``ov-transpose-sinking``)
    #: runs after legalization unless ``--disable_nhwc_to_nchw``
    nhwc: bool = False
    #: loader options that name the model's other files (Caffe's
    #: ``input_proto``, MXNet's ``params`` / ``epoch``): the input-shape
    #: reader takes them too
    file_options: tuple[str, ...] = ()

    def accepts(self, model: Any) -> bool:
        if isinstance(model, str | os.PathLike):
            return os.fspath(model).lower().endswith(self.suffixes)
        return self.accepts_object(model)

    def load(self, model: Any, ctx: Context, **options: Any) -> ModuleOp:
        return _load_attr(self.loader)(model, ctx, **options)

    def input_shapes(self, model: Any, **options: Any) -> dict[str, list[int] | None]:
        """Graph input name -> dims (-1 dynamic; None: unknown rank); of
        ``options`` (the loader's), those in :attr:`file_options` are passed on."""
        given = {k: v for k, v in options.items() if k in self.file_options}
        return _load_attr(self.input_shapes_reader)(model, **given)


def _is_onnx_object(model: Any) -> bool:
    if isinstance(model, bytes | bytearray | memoryview):
        return True  # serialized ModelProto (the only in-memory bytes format)
    t = type(model)
    return t.__name__ == "ModelProto" and t.__module__.startswith("onnx")


def _is_graph_def(model: Any) -> bool:
    desc = getattr(model, "DESCRIPTOR", None)
    return getattr(desc, "full_name", None) == "tensorflow.GraphDef"


def _never(model: Any) -> bool:
    """Frameworks read only from paths (MXNet: a symbol and a params file)."""
    return False


#: every frontend, in the order models are offered to them
FRONTENDS: list[Frontend] = []


def register_frontend(frontend: Frontend) -> Frontend:
    """Add a frontend (its name, dialect and suffixes must be new)."""
    for f in FRONTENDS:
        if f.name == frontend.name or f.dialect == frontend.dialect:
            raise ValueError(f"a frontend for '{frontend.name}' ({frontend.dialect}) is already registered")
        clash = set(f.suffixes) & set(frontend.suffixes)
        if clash:
            raise ValueError(f"'{frontend.name}' and '{f.name}' both read {', '.join(sorted(clash))} files")
    FRONTENDS.append(frontend)
    return frontend


register_frontend(Frontend(
    name="onnx", dialect="onnx", suffixes=(".onnx",), accepts_object=_is_onnx_object,
    loader="xmo.frontends.onnx:load_onnx",
    input_shapes_reader="xmo.frontends.onnx:graph_input_shapes",
    legalization=("onnx-canonicalize", "convert-onnx-to-ov"),
))
register_frontend(Frontend(
    name="tf", dialect="tf", suffixes=(".pb", ".pbtxt"), accepts_object=_is_graph_def,
    loader="xmo.frontends.tf:load_tf",
    input_shapes_reader="xmo.frontends.tf:graph_input_shapes",
    legalization=("convert-tf-to-ov",), nhwc=True,
))
register_frontend(Frontend(
    name="kaldi", dialect="kaldi", suffixes=(".nnet", ".mdl", ".raw"),
    accepts_object=_never,
    loader="xmo.frontends.kaldi:load_kaldi",
    input_shapes_reader="xmo.frontends.kaldi:graph_input_shapes",
    legalization=("convert-kaldi-to-ov",),
))
register_frontend(Frontend(
    name="mxnet", dialect="mxnet", suffixes=("-symbol.json", ".params"),
    accepts_object=_never,
    loader="xmo.frontends.mxnet:load_mxnet",
    input_shapes_reader="xmo.frontends.mxnet:graph_input_shapes",
    legalization=("convert-mxnet-to-ov",), file_options=("params", "epoch"),
))

register_frontend(Frontend(
    name="caffe", dialect="caffe", suffixes=(".prototxt", ".caffemodel"),
    accepts_object=_never,
    loader="xmo.frontends.caffe.loader:load_caffe",
    input_shapes_reader="xmo.frontends.caffe.loader:graph_input_shapes",
    legalization=("convert-caffe-to-ov",), file_options=("input_proto",),
))

#: path suffixes xmo reads as IR, not through a frontend
IR_SUFFIXES = (".mlir", ".xml")


def supported_suffixes() -> list[str]:
    return [*IR_SUFFIXES, *(s for f in FRONTENDS for s in f.suffixes)]


def find_frontend(model: Any) -> Frontend | None:
    """The frontend that reads ``model`` (a path or an in-memory model), or None."""
    return next((f for f in FRONTENDS if f.accepts(model)), None)


def frontend_for(model: Any) -> Frontend:
    """The frontend that reads ``model``; :class:`UnsupportedModelFormat` if none."""
    f = find_frontend(model)
    if f is None:
        name = os.fspath(model) if isinstance(model, str | os.PathLike) else type(model).__name__
        raise UnsupportedModelFormat(
            f"{name}: no frontend for this model format yet "
            f"(supported: {', '.join(supported_suffixes())})"
        )
    return f


def frontend_of_module(module: ModuleOp) -> Frontend | None:
    """The frontend whose dialect ``module`` holds (None: an ``ov`` module)."""
    by_dialect = {f.dialect: f for f in FRONTENDS}
    for op in module.body.block.ops:
        f = by_dialect.get(op.name.partition(".")[0])
        if f is not None:
            return f
    return None


def load_framework_model(model: Any, ctx: Context, **options: Any) -> ModuleOp:
    """Load ``model`` (a path or an in-memory model) with the frontend that reads it.

    * ONNX: ``.onnx`` paths, serialized bytes, ``onnx.ModelProto``
      (:func:`xmo.frontends.onnx.load_onnx`; options: ``input_shapes``,
      ``inputs``, ``base_dir``, ``shape_inference``)
    * TensorFlow frozen graphs: ``.pb``/``.pbtxt`` paths, GraphDef messages
      (xmo's schema or TensorFlow's own) (:func:`xmo.frontends.tf.load_tf`;
      options: ``input_shapes``, ``outputs``, ``inputs``). Serialized GraphDef bytes must
      go to ``load_tf`` directly (bytes mean ONNX here).
    """
    return frontend_for(model).load(model, ctx, **options)


def framework_input_shapes(model: Any) -> dict[str, list[int] | None]:
    """Graph input name -> dims (-1 dynamic; None unknown rank) of a framework model."""
    return frontend_for(model).input_shapes(model)


__all__ = [
    "FRONTENDS",
    "IR_SUFFIXES",
    "Frontend",
    "UnsupportedModelFormat",
    "find_frontend",
    "framework_input_shapes",
    "frontend_for",
    "frontend_of_module",
    "load_framework_model",
    "register_frontend",
    "supported_suffixes",
]
