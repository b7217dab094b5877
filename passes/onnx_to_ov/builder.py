"""The ONNX side of legalization: how ONNX ops give their attributes to
converters (:data:`ONNX_ATTRIBUTES`). What a converter works with is shared
by every frontend and defined in :mod:`xmo.passes.to_ov.builder`: the
:class:`~xmo.passes.to_ov.builder.ConverterNode` it receives, the
:class:`~xmo.passes.to_ov.builder.Builder` that emits ov ops and
:class:`~xmo.passes.to_ov.builder.SeqValue` (ONNX sequences during
conversion).

A converter (see :mod:`.registry`) receives a node and a builder and returns
the ov values of the node's outputs::

    @converter("Relu")
    def relu(node: ConverterNode, b: Builder):
        return b.out("Relu", [node.input(0)])

``node.domain`` and ``node.version`` (the since_version of the schema in
force) are set for ONNX nodes.
"""

from __future__ import annotations

from typing import Any

from xdsl.dialects.builtin import (
    AnyFloat,
    ArrayAttr,
    DenseArrayBase,
    FloatAttr,
    IntegerAttr,
    StringAttr,
)
from xdsl.ir import Attribute, Operation

from xmo.dialects.onnx import CustomOp
from xmo.dialects.onnx.base import from_attr
from xmo.passes.to_ov.builder import AttributeReader


class ONNXAttributes(AttributeReader):
    """ONNX attributes: the schema's default when the node does not set one;
    ``onnx.Custom`` nodes (no schema) give the value as loaded: int, float,
    str, a tuple of ints / floats / strs, or the xDSL attribute."""

    def value(self, op: Operation, name: str, default: Any) -> Any:
        if hasattr(op, "attr_spec"):
            try:
                op.attr_spec(name)  # type: ignore[attr-defined]
            except KeyError:
                return default
            value = op.attr(name)  # type: ignore[attr-defined]
            return default if value is None else value
        a = self.raw(op, name)
        return default if a is None else _custom_attr_value(a)

    def raw(self, op: Operation, name: str) -> Attribute | None:
        a = op.properties.get(name)
        if a is None and isinstance(op, CustomOp) and op.attrs is not None:
            a = op.attrs.data.get(name)
        return a


#: the attribute reader of ONNX nodes
ONNX_ATTRIBUTES = ONNXAttributes()


def _custom_attr_value(a: Attribute) -> Any:
    """An ``onnx.Custom`` attribute as a Python value (see :class:`ONNXAttributes`)."""
    if isinstance(a, IntegerAttr):
        return from_attr("INT", a)
    if isinstance(a, FloatAttr):
        return from_attr("FLOAT", a)
    if isinstance(a, StringAttr):
        return from_attr("STRING", a)
    if isinstance(a, DenseArrayBase):
        kind = "FLOATS" if isinstance(a.elt_type, AnyFloat) else "INTS"
        return from_attr(kind, a)
    if isinstance(a, ArrayAttr) and all(isinstance(s, StringAttr) for s in a.data):
        return from_attr("STRINGS", a)
    return a


__all__ = ["ONNX_ATTRIBUTES", "ONNXAttributes"]
