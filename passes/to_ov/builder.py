"""What every legalization (framework dialect -> ov) works with.

* :class:`Builder` emits ``ov`` ops for one framework node, in order, naming
  them after the node, inferring result types (shape inference of the ov
  dialect) and putting constants into the weight store;
* :class:`NodeBase` is the framework node as a converter sees it: the ov values
  of its inputs, their types, constant inputs. Each frontend's conversion
  subclasses it with its attribute access (ONNX: :mod:`xmo.passes.onnx_to_ov.builder`,
  TensorFlow: :mod:`xmo.passes.tf_to_ov.builder`);
* :class:`ConversionFailure` is what a converter raises for a node it cannot
  legalize; :mod:`.report` collects them into one report.
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


class NodeBase:
    """A framework node as a converter sees it: ov input values, name, type.

    ``inputs`` holds the ov value of each node input (None for an absent
    optional one). Frontends subclass it with attribute access.
    """

    def __init__(
        self,
        op: Operation,
        inputs: Sequence[SSAValue | None],
        name: str,
        op_type: str,
        output_names: Sequence[str],
    ) -> None:
        self.op = op
        self.inputs = list(inputs)
        self.name = name
        self.type = op_type
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
        """The ov value of input ``i`` (an error when absent or not a tensor)."""
        if not self.has_input(i):
            raise self.unsupported(f"input {i} is required")
        v = self.inputs[i]
        if not isinstance(v, SSAValue):
            raise self.unsupported(f"input {i} is not a tensor")
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


def converter_outputs(outs: Any) -> list[Any]:
    """What a converter returned, as one entry per node output: a value (or
    any single object, e.g. an ONNX sequence), an op (its results), a list,
    or None (no outputs)."""
    if outs is None:
        return []
    if isinstance(outs, Operation):
        return list(outs.results)
    if isinstance(outs, list | tuple):
        return list(outs)
    return [outs]


def is_none(v: SSAValue) -> bool:
    return isinstance(v.type, NoneType)


__all__ = ["Builder", "ConversionFailure", "DYN", "NodeBase", "converter_outputs", "is_none", "value_etype"]
