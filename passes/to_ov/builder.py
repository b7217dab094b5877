"""What every legalization (framework dialect -> ov) works with.

* :class:`Builder` emits ``ov`` ops for one framework node, in order, naming
  them after the node, inferring result types (shape inference of the ov
  dialect) and putting constants into the weight store;
* :class:`ConverterNode` is the framework node as a converter sees it (one class for
  every frontend): the ov values of its inputs, their types, constant
  inputs, its attributes (read by the frontend's :class:`AttributeReader`);
* :class:`ConversionValue` -- values that live only during conversion and
  never reach the ov module: :class:`SeqValue` (an ONNX sequence) and
  :data:`DEAD` (a TF1 control-flow branch that is not taken);
* :class:`NotConvertible` is what a converter raises for a node it cannot
  legalize (``raise node.unsupported(why)``); the driver (:mod:`.driver`)
  collects them into one report (:mod:`.report`).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, ClassVar, Protocol

import numpy as np
from xdsl.dialects.builtin import NoneType, TensorType, UnrankedTensorType
from xdsl.ir import Attribute, Operation, SSAValue

from xmo.budget import ResourceLimitError
from xmo.dialects.ov import ConstantOp, op_class
from xmo.dialects.ov import element_types as et
from xmo.dialects.ov.base import OVOp, constant_value_of, dims_of
from xmo.dialects.ov.weights import WeightStore
from xmo.errors import ConversionError


class NotConvertible(ConversionError):
    """A node a converter cannot legalize; the message says why. Converters
    raise it as ``raise node.unsupported(why)``; the driver puts the node in
    the unsupported-ops report
    (:class:`~xmo.passes.to_ov.report.UnsupportedOpsError`)."""


# -- values that live only during conversion ------------------------------------------


class ConversionValue:
    """A value a converter may return that is not an ov tensor; it lives only
    during conversion (the driver maps it, never names it, and reports a
    graph output holding it with :attr:`output_problem`)."""

    #: what it is, in the debug log
    kind: ClassVar[str] = "value"
    #: why a graph output cannot hold it
    output_problem: ClassVar[str] = "the output is not a tensor"
    #: why a converter cannot take it as a tensor input (``input i ...``)
    input_problem: ClassVar[str] = "is not a tensor"


class SeqValue(ConversionValue):
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

    kind = "sequence"
    output_problem = "sequence graph outputs are not supported"
    input_problem = "is a sequence"

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


class _Dead(ConversionValue):
    """The value of a TF1 control-flow branch that is not taken (see :data:`DEAD`)."""

    kind = "dead"
    output_problem = "the output is in a control-flow branch that is not taken"

    def __repr__(self) -> str:
        return "DEAD"


#: what a converter returns for an output that is never computed because its
#: control-flow branch is not taken (the untaken output of a TF ``Switch``
#: whose predicate is a constant); convert-tf-to-ov propagates it as
#: TensorFlow's executor propagates dead tensors: a node with a dead input
#: (data or control) is dead and is not converted, a ``Merge`` forwards its
#: one live input.
DEAD = _Dead()


# -- the framework node ---------------------------------------------------------------


class AttributeReader:
    """How one framework's ops give their attributes to :class:`ConverterNode`.

    The default reads properties as they are (the xDSL attribute);
    frontends subclass it (ONNX: schema defaults and ``onnx.Custom``
    attributes; TF: OpDef defaults)."""

    def value(self, op: Operation, name: str, default: Any) -> Any:
        """Python value of attribute ``name`` (``default`` when absent)."""
        a = self.raw(op, name)
        return default if a is None else a

    def raw(self, op: Operation, name: str) -> Attribute | None:
        """The attribute as stored on the op, None when absent."""
        return op.properties.get(name)

    def has(self, op: Operation, name: str) -> bool:
        """Whether the node sets ``name`` (defaults do not count)."""
        return self.raw(op, name) is not None


class ValueEvaluator(Protocol):
    """Sees the values of constant sub-graphs during conversion."""

    def value(self, v: SSAValue) -> np.ndarray | None: ...


_PROPERTIES = AttributeReader()


class ConverterNode:
    """A framework node as a converter sees it: ov input values, name, type,
    attributes (one class for every frontend).

    ``inputs`` holds the ov value of each node input (None for an absent
    optional one; a :class:`ConversionValue` for a sequence or a dead
    branch). ``domain``/``version``: ONNX's (``""`` and None elsewhere);
    ``attributes``: how the framework's ops give attributes; ``evaluator``:
    when set, :meth:`const` also sees values computed from constant
    sub-graphs (TF), else only constants; ``scope``: the
    :class:`~xmo.passes.to_ov.driver.ValueScope` of the values visible to
    the node, for converters that convert nested regions
    (``handles_regions``).
    """

    def __init__(
        self,
        op: Operation,
        inputs: Sequence[SSAValue | ConversionValue | None],
        name: str,
        op_type: str,
        output_names: Sequence[str],
        *,
        domain: str = "",
        version: int | None = None,
        attributes: AttributeReader = _PROPERTIES,
        evaluator: ValueEvaluator | None = None,
        scope: Any = None,
    ) -> None:
        self.op = op
        self.inputs = list(inputs)
        self.name = name
        self.type = op_type
        self.output_names = list(output_names)
        self.domain = domain
        #: ONNX: since_version of the schema in force (the op class's version)
        self.version = version
        self.attributes = attributes
        self.evaluator = evaluator
        self.scope = scope

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
        v = self.inputs[i] if i < len(self.inputs) else None
        if isinstance(v, ConversionValue):
            raise self.unsupported(f"input {i} {v.input_problem}")
        if v is None:
            raise self.unsupported(f"input {i} is required")
        if not isinstance(v, SSAValue):
            raise self.unsupported(f"input {i} is not a tensor")
        return v

    def optional_input(self, i: int) -> SSAValue | None:
        return self.inputs[i] if self.has_input(i) else None

    def sequence(self, i: int) -> SeqValue:
        """Input ``i`` when it is a sequence (see :class:`SeqValue`)."""
        v = self.inputs[i] if i < len(self.inputs) else None
        if not isinstance(v, SeqValue):
            raise self.unsupported(f"input {i} is not a sequence")
        return v

    def is_dead(self, i: int) -> bool:
        """Input ``i`` comes from a control-flow branch that is not taken."""
        return i < len(self.inputs) and self.inputs[i] is DEAD

    def etype(self, i: int) -> str:
        """OpenVINO element type name of input ``i``."""
        return value_etype(self.input(i))

    def shape(self, i: int) -> list[int] | None:
        """Dims of input ``i`` (-1 dynamic) or None for dynamic rank."""
        return dims_of(self.input(i).type)

    def rank(self, i: int) -> int | None:
        s = self.shape(i)
        return None if s is None else len(s)

    # -- constant inputs -----------------------------------------------------------
    def const(self, i: int) -> np.ndarray | None:
        """Value of input ``i`` when it is a constant (with an evaluator: also
        when it evaluates from constants), else None."""
        if not self.has_input(i):
            return None
        if self.evaluator is None:
            return constant_value_of(self.input(i))
        v = self.inputs[i]
        if not isinstance(v, SSAValue):
            return None
        return self.evaluator.value(v)

    def const_ints(self, i: int, what: str) -> list[int]:
        """Input ``i`` as a list of ints; the node is unsupported if not constant."""
        v = self.const(i)
        if v is None:
            raise self.unsupported(f"{what} (input {i}) must be a constant")
        return [int(x) for x in np.asarray(v).reshape(-1)]

    def const_scalar_int(self, i: int, what: str) -> int:
        vals = self.const_ints(i, what)
        if len(vals) != 1:
            raise self.unsupported(f"{what} (input {i}) must hold one value")
        return vals[0]

    # -- attributes ------------------------------------------------------------------
    def attr(self, name: str, default: Any = None) -> Any:
        """Python value of attribute ``name`` (the framework's default for it,
        then ``default``)."""
        return self.attributes.value(self.op, name, default)

    def has_attr(self, name: str) -> bool:
        return self.attributes.has(self.op, name)

    def tensor_attr(self, name: str) -> np.ndarray | None:
        """A tensor attribute as a numpy array (None when absent)."""
        from xmo.dialects.ov.weights import constant_array

        a = self.attributes.raw(self.op, name)
        if a is None:
            return None
        try:
            return constant_array(a)
        except (TypeError, ValueError) as e:
            raise self.unsupported(f"attribute '{name}': {e}") from None

    def str_attr(self, name: str, default: str = "") -> str:
        v = self.attr(name, default)
        return v.decode() if isinstance(v, bytes) else str(v)

    def int_list(self, name: str, default: Sequence[int] = ()) -> list[int]:
        v = self.attr(name, None)
        return [int(x) for x in (default if v is None else v)]

    # -- data format (TF) ----------------------------------------------------------------
    @property
    def data_format(self) -> str:
        """``data_format`` attribute (NHWC when absent)."""
        return self.str_attr("data_format", "NHWC") or "NHWC"

    @property
    def channels_last(self) -> bool:
        """True for NHWC / NDHWC / NWC (channel is the last axis)."""
        fmt = self.data_format
        if fmt not in ("NHWC", "NCHW", "NDHWC", "NCDHW", "NWC", "NCW"):
            raise self.unsupported(f"data_format {fmt}")
        return fmt.endswith("C")

    # -- errors ------------------------------------------------------------------
    def unsupported(self, why: str) -> NotConvertible:
        """The error to raise for a node this converter cannot convert
        (``raise node.unsupported(why)``): it goes to the unsupported-ops report."""
        return NotConvertible(why)


def value_etype(v: SSAValue) -> str:
    t = v.type
    if isinstance(t, TensorType | UnrankedTensorType):
        return et.from_xdsl(t.get_element_type())
    raise NotConvertible(f"value of type {t} is not a tensor")


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
        except ResourceLimitError:
            raise  # not the converter's failure: the model is beyond a limit
        except Exception as e:  # shape inference refusing the inputs
            raise NotConvertible(f"{ov_type}: {e}") from None
        op.set_friendly_name(f"{self.node_name}/{ov_type}_{len(self.ops)}")
        self.ops.append(op)
        return op

    def out(self, ov_type: str, inputs: Sequence[SSAValue | Operation], attrs=None, **kw) -> SSAValue:
        """Like :meth:`op` for a single-output op: returns its output value."""
        return self.op(ov_type, inputs, attrs, **kw).results[0]

    def rollback(self, mark: int = 0) -> None:
        """Drop the ops emitted after the first ``mark`` (not inserted
        anywhere yet; their uses of other values go with them)."""
        dropped = self.ops[mark:]
        del self.ops[mark:]
        for op in reversed(dropped):
            op.erase(safe_erase=False)

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

    def packed_const(self, raw: np.ndarray, etype: str, shape: Sequence[int]) -> SSAValue:
        """A Constant of a packed element type (u4, i4, ...) of ``shape``
        whose payload is the bytes ``raw`` (OpenVINO's packing: the first
        value in the low bits of each byte)."""
        from xdsl.dialects.builtin import DenseResourceAttr

        from xmo.dialects.ov.base import tensor

        name = f"{self.node_name}/Const_{len(self.ops)}"
        need = et.byte_size(etype, int(np.prod(shape, dtype=np.int64)))
        raw = np.ascontiguousarray(raw, dtype=np.uint8).reshape(-1)
        if raw.size != need:
            raise ValueError(f"{raw.size} bytes for a {etype} constant of shape {list(shape)} (needs {need})")
        attr = DenseResourceAttr.from_params(self.store.add(raw, name), tensor(etype, list(shape)))
        c = ConstantOp.create(result_types=[attr.type], properties={"value": attr})
        c.set_friendly_name(name)
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


__all__ = [
    "DEAD",
    "AttributeReader",
    "Builder",
    "ConversionValue",
    "ConverterNode",
    "NotConvertible",
    "SeqValue",
    "ValueEvaluator",
    "converter_outputs",
    "is_none",
    "value_etype",
]
