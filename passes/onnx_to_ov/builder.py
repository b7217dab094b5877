"""What a legalization function works with: a :class:`Node` view of the ONNX
node being converted and a :class:`Builder` that emits ``ov`` ops.

A converter (see :mod:`.registry`) receives both and returns the ov values of
the node's outputs::

    @converter("Relu")
    def relu(node: Node, b: Builder):
        return b.out("Relu", [node.input(0)])

The builder infers result types (shape inference of the ov dialect), names the
ops it creates after the node, and puts constants into the weight store.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
from xdsl.dialects.builtin import NoneType, TensorType, UnrankedTensorType
from xdsl.ir import Attribute, Operation, SSAValue

from xmo.dialects.ov import ConstantOp, op_class
from xmo.dialects.ov import element_types as et
from xmo.dialects.ov.base import DYN, OVOp, constant_value_of, dims_of
from xmo.dialects.ov.weights import WeightStore


class ConversionFailure(Exception):
    """A node this converter cannot legalize; the message says why."""


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


class Node:
    """An ONNX node as a converter sees it: ov input values, attributes, names."""

    def __init__(
        self,
        op: Operation,
        inputs: Sequence[SSAValue | None],
        name: str,
        domain: str,
        op_type: str,
        version: int,
        output_names: Sequence[str],
    ) -> None:
        self.op = op
        self.inputs = list(inputs)
        self.name = name
        self.domain = domain
        self.type = op_type
        #: since_version of the schema in force (the op class's version)
        self.version = version
        self.output_names = list(output_names)

    # -- inputs ----------------------------------------------------------------
    @property
    def num_inputs(self) -> int:
        return len(self.inputs)

    @property
    def num_outputs(self) -> int:
        return len(self.output_names)

    def has_input(self, i: int) -> bool:
        return i < len(self.inputs) and self.inputs[i] is not None

    def input(self, i: int) -> SSAValue:
        """The ov value of input ``i`` (an error when absent)."""
        if not self.has_input(i):
            raise self.unsupported(f"input {i} is required")
        v = self.inputs[i]
        if isinstance(v, SeqValue):
            raise self.unsupported(f"input {i} is a sequence")
        assert v is not None
        return v

    def sequence(self, i: int) -> SeqValue:
        """Input ``i`` when it is a sequence (see :class:`SeqValue`)."""
        v = self.inputs[i] if i < len(self.inputs) else None
        if not isinstance(v, SeqValue):
            raise self.unsupported(f"input {i} is not a sequence")
        return v

    def optional_input(self, i: int) -> SSAValue | None:
        return self.inputs[i] if self.has_input(i) else None

    def etype(self, i: int) -> str:
        """OpenVINO element type name of input ``i``."""
        return value_etype(self.input(i))

    def shape(self, i: int) -> list[int] | None:
        """Dims of input ``i`` (-1 dynamic) or None for dynamic rank."""
        return dims_of(self.input(i).type)

    def rank(self, i: int) -> int | None:
        s = self.shape(i)
        return None if s is None else len(s)

    def const(self, i: int) -> np.ndarray | None:
        """Value of input ``i`` when it is a constant (after folding), else None."""
        if not self.has_input(i):
            return None
        return constant_value_of(self.input(i))

    def const_ints(self, i: int, what: str) -> list[int]:
        """Input ``i`` as a list of ints; the node is unsupported if not constant."""
        v = self.const(i)
        if v is None:
            raise self.unsupported(f"{what} (input {i}) must be a constant")
        return [int(x) for x in np.asarray(v).reshape(-1)]

    # -- attributes --------------------------------------------------------------
    def attr(self, name: str, default: Any = None) -> Any:
        """Python value of an ONNX attribute (schema default, then ``default``)."""
        op = self.op
        if hasattr(op, "attr_spec"):
            try:
                op.attr_spec(name)  # type: ignore[attr-defined]
            except KeyError:
                return default
            value = op.attr(name)  # type: ignore[attr-defined]
            return default if value is None else value
        return default

    def has_attr(self, name: str) -> bool:
        return name in self.op.properties

    def tensor_attr(self, name: str) -> np.ndarray | None:
        """A TENSOR attribute as a numpy array (None when absent)."""
        from xmo.dialects.ov.weights import constant_array

        a = self.op.properties.get(name)
        if a is None:
            return None
        try:
            return constant_array(a)
        except (TypeError, ValueError) as e:
            raise self.unsupported(f"attribute '{name}': {e}") from None

    # -- errors ------------------------------------------------------------------
    def unsupported(self, why: str) -> ConversionFailure:
        return ConversionFailure(why)


def value_etype(v: SSAValue) -> str:
    t = v.type
    if isinstance(t, TensorType | UnrankedTensorType):
        return et.from_xdsl(t.get_element_type())
    raise ConversionFailure(f"value of type {t} is not a tensor")


class Builder:
    """Emits ov ops for one node, in order, naming them after the node."""

    def __init__(self, store: WeightStore, node_name: str) -> None:
        self.store = store
        self.node_name = node_name
        self.ops: list[Operation] = []

    # -- ops -----------------------------------------------------------------------
    def op(
        self,
        ov_type: str,
        inputs: Sequence[SSAValue | Operation],
        attrs: dict[str, Any] | None = None,
        *,
        version: str | None = None,
        result_types: Sequence[Attribute] | None = None,
        num_outputs: int | None = None,
    ) -> OVOp:
        """Create and emit an ov op; result types are inferred unless given."""
        cls = op_class(ov_type, version)
        values = [_value(v) for v in inputs]
        try:
            op = cls.make(
                values, attrs or {}, result_types=result_types, num_outputs=num_outputs
            )
        except Exception as e:  # shape inference refusing the inputs
            raise ConversionFailure(f"{ov_type}: {e}") from None
        op.set_friendly_name(f"{self.node_name}/{ov_type}_{len(self.ops)}")
        self.ops.append(op)
        return op

    def out(self, ov_type: str, inputs: Sequence[SSAValue | Operation], attrs=None, **kw) -> SSAValue:
        """Like :meth:`op` for a single-output op: returns its output value."""
        return self.op(ov_type, inputs, attrs, **kw).results[0]

    # -- constants -------------------------------------------------------------------
    def const(self, value: Any, etype: str | None = None) -> SSAValue:
        """A Constant holding ``value`` (numpy array, scalar or nested list)."""
        arr = np.asarray(value)
        if etype is None:
            if arr.dtype == np.float64 and not isinstance(value, np.ndarray):
                arr = arr.astype(np.float32)
            etype = et.from_numpy(arr.dtype)
        c = ConstantOp.from_array(
            arr, etype, store=self.store, name=f"{self.node_name}/Const_{len(self.ops)}"
        )
        self.ops.append(c)
        return c.results[0]

    def i64(self, values: Sequence[int] | int) -> SSAValue:
        """An i64 constant: a 1-D list, or a scalar for an int."""
        return self.const(np.asarray(values, dtype=np.int64), "i64")

    def scalar_like(self, value: float | int, like: SSAValue) -> SSAValue:
        """A scalar constant with the element type of ``like``."""
        etype = value_etype(like)
        return self.const(np.asarray(value, dtype=_np_dtype(etype)), etype)

    # -- common shapes of sub-graphs ---------------------------------------------------
    def convert(self, v: SSAValue, etype: str) -> SSAValue:
        if value_etype(v) == etype:
            return v
        return self.out("Convert", [v], {"destination_type": etype})

    def shape_of(self, v: SSAValue, etype: str = "i64") -> SSAValue:
        return self.out("ShapeOf", [v], {"output_type": etype})

    def unsqueeze(self, v: SSAValue, axes: Sequence[int]) -> SSAValue:
        return self.out("Unsqueeze", [v, self.i64(list(axes))])

    def squeeze(self, v: SSAValue, axes: Sequence[int] | None = None) -> SSAValue:
        ins = [v] if axes is None else [v, self.i64(list(axes))]
        return self.out("Squeeze", ins)

    def reshape(self, v: SSAValue, shape: Sequence[int] | SSAValue, special_zero: bool = False) -> SSAValue:
        target = shape if isinstance(shape, SSAValue) else self.i64(list(shape))
        return self.out("Reshape", [v, target], {"special_zero": special_zero})

    def concat(self, values: Sequence[SSAValue], axis: int) -> SSAValue:
        return self.out("Concat", list(values), {"axis": axis})

    def gather(self, data: SSAValue, indices: SSAValue | Sequence[int] | int, axis: int) -> SSAValue:
        idx = indices if isinstance(indices, SSAValue) else self.i64(indices)
        return self.out("Gather", [data, idx, self.i64(axis)], {"batch_dims": 0})


def _value(v: SSAValue | Operation) -> SSAValue:
    if isinstance(v, Operation):
        return v.results[0]
    return v


def _np_dtype(etype: str) -> np.dtype:
    if etype == "bf16":
        return np.dtype(np.float32)
    return et.numpy_dtype(etype)


def is_none(v: SSAValue) -> bool:
    return isinstance(v.type, NoneType)


__all__ = ["Builder", "ConversionFailure", "DYN", "Node", "SeqValue", "is_none", "value_etype"]
