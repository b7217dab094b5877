"""The ``caffe`` dialect: a Caffe net's layers as ops, declared once.

Caffe layers are data: a type string and a ``*_param`` message. So instead
of one op per layer type the dialect has one generic op that carries both,
and every layer of a file loads, whatever its type (known or not):

* ``caffe.Input`` -- a graph input blob (an ``Input`` layer's top, or the
  legacy ``input``/``input_shape``/``input_dim`` of the net); ``blob_name``;
* ``caffe.Layer`` -- one layer: ``layer_name``, ``layer_type``
  (``"Convolution"``; V1 ``layers`` enums are mapped to these names),
  ``bottoms``/``tops`` (the blob names, as in the file), ``params`` (a
  dictionary: the layer's ``*_param`` field names -> the message's *set*
  fields as attributes, :func:`param_attr`), ``blobs`` (the learned blobs, as
  dense tensor attributes; large ones in the weight store). Operands are the
  bottoms, results the tops (``f32`` tensors; shapes are inferred only after
  legalization);
* ``caffe.Output`` -- a graph output: a blob no layer consumes.

Parameter attributes (:func:`param_attr` / :func:`param_message`): integers
``i64``, floats ``f64`` (float32 values, exact), booleans ``i1``, strings and
enum value names ``StringAttr``, repeated fields arrays, messages
dictionaries. :func:`param_message` rebuilds the protobuf message, so readers
get the proto2 defaults of the fields the file left out. The frontend is
:mod:`xmo.frontends.caffe`; the legalization :mod:`xmo.passes.caffe_to_ov`.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from google.protobuf.descriptor import FieldDescriptor
from xdsl.dialects.builtin import (
    ArrayAttr,
    BoolAttr,
    DictionaryAttr,
    FloatAttr,
    IntegerAttr,
    StringAttr,
    f64,
    i64,
)
from xdsl.ir import Attribute, Dialect, SSAValue
from xdsl.irdl import (
    IRDLOperation,
    irdl_op_definition,
    operand_def,
    opt_prop_def,
    prop_def,
    result_def,
    var_operand_def,
    var_result_def,
)
from xdsl.utils.exceptions import VerifyException

from xmo.frontends.caffe import schema


@irdl_op_definition
class InputOp(IRDLOperation):
    """``caffe.Input``: a graph input blob."""

    name = "caffe.Input"
    blob_name = prop_def(StringAttr)
    output = result_def()


@irdl_op_definition
class LayerOp(IRDLOperation):
    """``caffe.Layer``: one Caffe layer (see the module docstring)."""

    name = "caffe.Layer"
    inputs = var_operand_def()
    outputs = var_result_def()
    layer_name = prop_def(StringAttr)
    layer_type = prop_def(StringAttr)
    bottoms = prop_def(ArrayAttr[StringAttr])
    tops = prop_def(ArrayAttr[StringAttr])
    params = prop_def(DictionaryAttr)
    blobs = opt_prop_def(ArrayAttr)

    @staticmethod
    def make(
        layer_name: str,
        layer_type: str,
        inputs: Sequence[SSAValue],
        bottoms: Sequence[str],
        tops: Sequence[str],
        result_types: Sequence[Attribute],
        params: dict[str, Attribute],
        blobs: Sequence[Attribute] = (),
    ) -> LayerOp:
        props: dict[str, Attribute] = {
            "layer_name": StringAttr(layer_name),
            "layer_type": StringAttr(layer_type),
            "bottoms": ArrayAttr([StringAttr(b) for b in bottoms]),
            "tops": ArrayAttr([StringAttr(t) for t in tops]),
            "params": DictionaryAttr(params),
        }
        if blobs:
            props["blobs"] = ArrayAttr(list(blobs))
        return LayerOp.create(operands=list(inputs), result_types=list(result_types),
                              properties=props)

    def verify_(self) -> None:
        where = f"caffe.Layer '{self.layer_name.data}'"
        if len(self.bottoms.data) != len(self.inputs):
            raise VerifyException(
                f"{where}: {len(self.bottoms.data)} bottoms but {len(self.inputs)} operands")
        if len(self.tops.data) != len(self.outputs):
            raise VerifyException(
                f"{where}: {len(self.tops.data)} tops but {len(self.outputs)} results")
        layer = schema.LayerParameter.DESCRIPTOR
        for key in self.params.data:
            f = layer.fields_by_name.get(key)
            if f is None or f.message_type is None:
                raise VerifyException(f"{where}: '{key}' is not a parameter message of a layer")

    @property
    def type_name(self) -> str:
        return self.layer_type.data

    def param(self, field: str | None = None) -> Any:
        """The ``*_param`` message ``field`` (default: the one of the layer's
        type), with proto2 defaults for what the file left out."""
        field = field or schema.PARAM_FIELDS.get(self.type_name)
        if field is None:
            raise KeyError(f"layer type {self.type_name} has no parameter message")
        msg_type = schema.LayerParameter.DESCRIPTOR.fields_by_name[field].message_type
        cls = schema.message(msg_type.name)
        a = self.params.data.get(field)
        return param_message(a, cls()) if isinstance(a, DictionaryAttr) else cls()

    def has_param(self, field: str) -> bool:
        return field in self.params.data


@irdl_op_definition
class OutputOp(IRDLOperation):
    """``caffe.Output``: a graph output (a blob no layer consumes)."""

    name = "caffe.Output"
    value = operand_def()
    blob_name = prop_def(StringAttr)


CAFFE = Dialect("caffe", [InputOp, LayerOp, OutputOp], [])


# ---------------------------------------------------------------------------
# Parameter messages <-> attributes
# ---------------------------------------------------------------------------


def _scalar_attr(f: FieldDescriptor, v: Any) -> Attribute:
    if f.type == FieldDescriptor.TYPE_MESSAGE:
        return param_attr(v)
    if f.type == FieldDescriptor.TYPE_ENUM:
        return StringAttr(f.enum_type.values_by_number[v].name)
    if f.type == FieldDescriptor.TYPE_BOOL:
        return BoolAttr.from_bool(bool(v))
    if f.type in (FieldDescriptor.TYPE_FLOAT, FieldDescriptor.TYPE_DOUBLE):
        return FloatAttr(float(v), f64)
    if f.type in (FieldDescriptor.TYPE_STRING, FieldDescriptor.TYPE_BYTES):
        return StringAttr(v if isinstance(v, str) else v.decode("utf-8", "replace"))
    return IntegerAttr(int(v), i64)


def param_attr(msg: Any) -> DictionaryAttr:
    """The set fields of a parameter message as a dictionary attribute."""
    out: dict[str, Attribute] = {}
    for f, v in msg.ListFields():
        if f.is_repeated:
            out[f.name] = ArrayAttr([_scalar_attr(f, x) for x in v])
        else:
            out[f.name] = _scalar_attr(f, v)
    return DictionaryAttr(out)


def _py(f: FieldDescriptor, a: Attribute) -> Any:
    if isinstance(a, StringAttr):
        if f.type == FieldDescriptor.TYPE_ENUM:
            return f.enum_type.values_by_name[a.data].number
        return a.data
    if isinstance(a, FloatAttr):
        return a.value.data
    if isinstance(a, IntegerAttr):
        v = a.value.data
        return bool(v) if f.type == FieldDescriptor.TYPE_BOOL else v
    raise TypeError(f"field '{f.name}': unexpected attribute {a}")


def param_message(a: DictionaryAttr, msg: Any) -> Any:
    """Fill ``msg`` from a dictionary made by :func:`param_attr`; returns it."""
    desc = msg.DESCRIPTOR
    for name, v in a.data.items():
        f = desc.fields_by_name.get(name)
        if f is None:
            raise KeyError(f"{desc.name} has no field '{name}'")
        if f.is_repeated:
            items = v.data if isinstance(v, ArrayAttr) else (v,)
            target = getattr(msg, name)
            for x in items:
                if f.type == FieldDescriptor.TYPE_MESSAGE:
                    param_message(x, target.add())  # type: ignore[arg-type]
                else:
                    target.append(_py(f, x))
        elif f.type == FieldDescriptor.TYPE_MESSAGE:
            param_message(v, getattr(msg, name))  # type: ignore[arg-type]
        else:
            setattr(msg, name, _py(f, v))
    return msg


__all__ = [
    "CAFFE",
    "InputOp",
    "LayerOp",
    "OutputOp",
    "param_attr",
    "param_message",
]
