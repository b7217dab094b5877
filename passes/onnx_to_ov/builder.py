"""The ONNX side of legalization: :class:`Node` (an ONNX node seen by a
converter: inputs, attributes, names) and :class:`SeqValue` (ONNX sequences
during conversion). The :class:`~xmo.passes.to_ov.builder.Builder` that emits
ov ops is shared by every frontend (:mod:`xmo.passes.to_ov`).

A converter (see :mod:`.registry`) receives both and returns the ov values of
the node's outputs::

    @converter("Relu")
    def relu(node: Node, b: Builder):
        return b.out("Relu", [node.input(0)])
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
from xdsl.dialects.builtin import (
    AnyFloat,
    ArrayAttr,
    DenseArrayBase,
    FloatAttr,
    IntegerAttr,
    StringAttr,
)
from xdsl.ir import Attribute, Operation, SSAValue

from xmo.dialects.onnx import CustomOp
from xmo.dialects.onnx.base import from_attr
from xmo.passes.to_ov.builder import (
    DYN,
    Builder,
    ConversionFailure,
    NodeBase,
    is_none,
    value_etype,
)


class SeqValue:
    """An ONNX sequence during conversion.

    Sequences never reach the ov module: sequence ops become ordinary tensor
    ops on ``data``, and only tensor values leave the sub-graph. ``data`` holds
    the elements in one of two layouts:

    * stacked (``lengths`` is None): elements of one shape stacked along a new
      leading axis, ``data`` is ``[n, *element_shape]``; rank-0 elements and
      elements with equal static shapes use it (reads keep static shapes);
    * ragged (``lengths`` is a 1-D i64 tensor ``[n]``): elements of rank >= 1
      that may differ in their dim ``axis`` (the other dims being equal),
      concatenated along that axis; element ``i`` is the slice
      ``[o_i, o_i + lengths[i])`` of ``data`` along ``axis``, ``o_i`` being
      the sum of the lengths before it.

    ``data`` is None only for the sequence of SequenceEmpty (element shape not
    known yet).
    """

    def __init__(
        self,
        data: SSAValue | None,
        lengths: SSAValue | None = None,
        axis: int = 0,
        count: SSAValue | None = None,
    ) -> None:
        self.data = data
        self.lengths = lengths
        self.axis = axis
        self._length = count

    @property
    def ragged(self) -> bool:
        return self.lengths is not None

    def length(self, b: Builder) -> SSAValue:
        """Scalar i64 number of elements."""
        if self._length is None:
            if self.data is None:
                self._length = b.const(np.asarray(0, np.int64), "i64")
            else:
                src = self.lengths if self.lengths is not None else self.data
                dim0 = b.gather(b.shape_of(src), [0], 0)
                self._length = b.squeeze(dim0, [0])
        return self._length


class Node(NodeBase):
    """An ONNX node as a converter sees it: ov input values, attributes, names."""

    def __init__(
        self,
        op: Operation,
        inputs: Sequence[SSAValue | SeqValue | None],
        name: str,
        domain: str,
        op_type: str,
        version: int,
        output_names: Sequence[str],
    ) -> None:
        super().__init__(op, inputs, name, op_type, output_names)  # type: ignore[arg-type]
        self.domain = domain
        #: since_version of the schema in force (the op class's version)
        self.version = version

    def input(self, i: int) -> SSAValue:
        if i < len(self.inputs) and isinstance(self.inputs[i], SeqValue):
            raise self.unsupported(f"input {i} is a sequence")
        return super().input(i)

    def sequence(self, i: int) -> SeqValue:
        """Input ``i`` when it is a sequence (see :class:`SeqValue`)."""
        v = self.inputs[i] if i < len(self.inputs) else None
        if not isinstance(v, SeqValue):
            raise self.unsupported(f"input {i} is not a sequence")
        return v

    # -- attributes --------------------------------------------------------------
    def attr(self, name: str, default: Any = None) -> Any:
        """Python value of an ONNX attribute (schema default, then ``default``).

        ``onnx.Custom`` nodes (no schema) give the value as loaded: int,
        float, str, a tuple of ints / floats / strs, or the xDSL attribute.
        """
        op = self.op
        if hasattr(op, "attr_spec"):
            try:
                op.attr_spec(name)  # type: ignore[attr-defined]
            except KeyError:
                return default
            value = op.attr(name)  # type: ignore[attr-defined]
            return default if value is None else value
        a = self._raw_attr(name)
        return default if a is None else _custom_attr_value(a)

    def _raw_attr(self, name: str) -> Attribute | None:
        a = self.op.properties.get(name)
        if a is None and isinstance(self.op, CustomOp) and self.op.attrs is not None:
            a = self.op.attrs.data.get(name)
        return a

    def has_attr(self, name: str) -> bool:
        return self._raw_attr(name) is not None

    def tensor_attr(self, name: str) -> np.ndarray | None:
        """A TENSOR attribute as a numpy array (None when absent)."""
        from xmo.dialects.ov.weights import constant_array

        a = self._raw_attr(name)
        if a is None:
            return None
        try:
            return constant_array(a)
        except (TypeError, ValueError) as e:
            raise self.unsupported(f"attribute '{name}': {e}") from None


def _custom_attr_value(a: Attribute) -> Any:
    """An ``onnx.Custom`` attribute as a Python value (see :meth:`Node.attr`)."""
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


__all__ = ["Builder", "ConversionFailure", "DYN", "Node", "SeqValue", "is_none", "value_etype"]
