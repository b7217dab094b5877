"""``convert-caffe-to-ov``: legalize a ``caffe``-dialect module into the ``ov`` dialect.

The shared driver (:mod:`xmo.passes.to_ov.driver`) does the walk, the value
map, the report and the naming; :class:`CaffeHooks` says what is Caffe's:

* ``caffe.Input`` becomes ``ov.Parameter`` (named after its blob),
  ``caffe.Output`` ``ov.Result``; every ``caffe.Layer`` goes through the
  converter registered for its type (:mod:`.registry`);
* a Python layer (``type: "Python"``) is looked up as
  ``Python:<module>.<layer>``: only an extension's extractor converts it, and
  without one it is reported under that key ("no extension provides an
  extractor");
* names: the op producing a layer's first top takes the layer name as its
  friendly name; each value takes its top (blob) name as tensor name when it
  is the blob's final value (an in-place layer's input is not: the blob name
  then belongs to the in-place layer's output); the name of an input blob
  stays on the ``ov.Parameter`` (one tensor per name), even when in-place
  layers rewrite that blob.

Layers that cannot be converted are collected; the pass then raises
:class:`~xmo.passes.to_ov.report.UnsupportedOpsError` listing every layer
type with its count and names, and leaves the module untouched.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from xdsl.context import Context
from xdsl.dialects.builtin import ArrayAttr, ModuleOp
from xdsl.ir import Operation, SSAValue
from xdsl.passes import ModulePass

from xmo.dialects.caffe import InputOp, LayerOp, OutputOp
from xmo.dialects.ov.weights import constant_array
from xmo.passes.caffe_to_ov.registry import lookup, python_layer_key
from xmo.passes.to_ov.builder import ConverterNode, NotConvertible
from xmo.passes.to_ov.driver import (
    LegalizationHooks,
    Legalizer,
    OpInfo,
    ValueScope,
    legalize,
)
from xmo.passes.to_ov.registry import ConverterFn


def layer_key(op: LayerOp) -> str:
    """The registry key of a layer: its type, ``Python:<module>.<layer>`` for
    a Python layer."""
    if op.type_name == "Python":
        p = op.param("python_param")
        return python_layer_key(p.module, p.layer)
    return op.type_name


def blobs(node: ConverterNode) -> list[np.ndarray]:
    """The learned blobs of the node's layer (views of the weight store)."""
    a = node.op.properties.get("blobs")
    return [constant_array(x) for x in a.data] if isinstance(a, ArrayAttr) else []


def blob(node: ConverterNode, i: int, what: str) -> np.ndarray:
    """Learned blob ``i`` of the layer; the layer is unsupported without it."""
    bs = blobs(node)
    if i >= len(bs):
        raise node.unsupported(
            f"no learned blob {i} ({what}): the layer has {len(bs)} (missing .caffemodel?)")
    return bs[i]


class CaffeHooks(LegalizationHooks):
    """What is Caffe's in the legalization (see the module docstring)."""

    foreign_op_problem = "not a Caffe layer"

    def __init__(self) -> None:
        self.final: set[SSAValue] = set()
        self.inputs: set[str] = set()

    def start(self, ops: Sequence[Operation]) -> None:
        last: dict[str, SSAValue] = {}
        for op in ops:
            if isinstance(op, InputOp):
                last[op.blob_name.data] = op.results[0]
                self.inputs.add(op.blob_name.data)
            elif isinstance(op, LayerOp):
                for top, r in zip(op.tops.data, op.results):
                    last[top.data] = r
        self.final = set(last.values())

    def graph_output(self, op: Operation) -> tuple[SSAValue, str, list[str]] | None:
        if not isinstance(op, OutputOp):
            return None
        name = op.blob_name.data
        return op.value, name, [] if name in self.inputs else [name]

    def convert_source(self, op: Operation, lz: Legalizer) -> bool:
        if not isinstance(op, InputOp):
            return False
        name = op.blob_name.data
        lz.parameter(op, key="Input", name=name, tensor_names=[name], claim_name=True)
        return True

    def is_node(self, op: Operation) -> bool:
        return isinstance(op, LayerOp)

    def describe(self, op: Operation, index: int) -> OpInfo:
        assert isinstance(op, LayerOp)
        return OpInfo(layer_key(op), op.layer_name.data, op.type_name,
                      [t.data for t in op.tops.data])

    def unconvertible(self, op: Operation, info: OpInfo) -> str | None:
        if lookup(info.key) is None:
            return _no_converter(info)
        return None

    def prepare(self, op: Operation, info: OpInfo, scope: ValueScope) -> tuple[ConverterFn, ConverterNode]:
        inputs = [scope.values.get(v) for v in op.operands]
        if any(v is None for v in inputs):
            raise NotConvertible("an input has no value")
        node = ConverterNode(op, inputs, info.name, info.op_type, info.output_names, scope=scope)
        fn = lookup(info.key)
        if fn is None:
            raise NotConvertible(_no_converter(info))
        return fn, node

    def missing_output(self, op: Operation, info: OpInfo, index: int) -> str | None:
        if op.results[index].uses:
            return f"top {index} ('{info.output_names[index]}') is not produced by the converter"
        return None

    def tensor_names(self, op: Operation, info: OpInfo, index: int) -> list[str]:
        name = info.output_names[index]
        if op.results[index] in self.final and name not in self.inputs:
            return [name]
        return []


#: training-time data layers (a caffemodel's own net has them; a deploy net has inputs)
DATA_LAYERS = frozenset({"Data", "ImageData", "HDF5Data", "MemoryData", "WindowData",
                         "DummyData", "AnnotatedData"})


def _no_converter(info: OpInfo) -> str:
    if info.op_type == "Python":
        return (f"Python layer {info.key.removeprefix('Python:')}: no extension provides "
                "an extractor for it")
    if info.op_type in DATA_LAYERS:
        return "a training data layer: give the deploy prototxt (--input_proto)"
    return "no converter for this layer type"


@dataclass(frozen=True)
class ConvertCaffeToOVPass(ModulePass):
    """Legalize the caffe dialect into the ov dialect (see module docstring)."""

    name = "convert-caffe-to-ov"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        convert_caffe_to_ov(op, ctx)


def convert_caffe_to_ov(module: ModuleOp, ctx: Context) -> None:
    """Legalize ``module`` in place (raises
    :class:`~xmo.passes.to_ov.report.UnsupportedOpsError`)."""
    legalize(module, ctx, CaffeHooks())


__all__ = [
    "CaffeHooks",
    "ConvertCaffeToOVPass",
    "blob",
    "blobs",
    "convert_caffe_to_ov",
    "layer_key",
]
