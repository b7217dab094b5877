"""TensorFlow ``AttrValue`` <-> ``tf``-dialect attribute (both ways).

:func:`attr_from_proto` converts one NodeDef attribute; with the OpDef kind
known (generated ops) the value must match it (an empty ``list {}`` gets the
kind's empty form); without (``tf.Unknown``, attrs an OpDef does not list) the
kind is taken from the value that is set. Forms: see ``xmo.dialects.tf.base``.

:func:`attr_to_proto` is the inverse (used to write attributes back, e.g. in
tests or when emitting a GraphDef).
"""

from __future__ import annotations

from typing import Any

import numpy as np
from xdsl.dialects.builtin import (
    ArrayAttr,
    DenseArrayBase,
    FloatAttr,
    IntegerAttr,
    UnitAttr,
    i1,
    i64,
)
from xdsl.ir import Attribute

from xmo.dialects.ov.weights import WeightStore
from xmo.dialects.tf import dtypes
from xmo.dialects.tf.base import f32, from_attr, infer_kind, tensor_array
from xmo.dialects.tf.types import (
    FuncAttr,
    ShapeAttr,
    dtype_element_type,
    string_attr,
    xmo_type_name,
)
from xmo.frontends.tf import tensors as tz
from xmo.errors import ModelError


class AttrDecodeError(ModelError):
    """An AttrValue that does not fit its kind (the loader adds the node name)."""


#: AttrValue oneof field -> TF attr kind
_FIELD_KIND = {
    "s": "string", "i": "int", "f": "float", "b": "bool", "type": "type",
    "shape": "shape", "tensor": "tensor", "func": "func",
}  # fmt: skip
_KIND_FIELD = {v: k for k, v in _FIELD_KIND.items()}
#: ListValue field order used to infer an unknown list's kind
_LIST_FIELDS = ("s", "i", "f", "b", "type", "shape", "tensor", "func")


def shape_attr(shape: Any) -> ShapeAttr:
    """TensorShapeProto -> ``#tf.shape``."""
    if shape.unknown_rank:
        return ShapeAttr.get(None)
    return ShapeAttr.get([int(d.size) for d in shape.dim])


def _scalar(kind: str, v: Any, store: WeightStore | None, hint: str) -> Attribute:
    match kind:
        case "string":
            return string_attr(bytes(v))
        case "int":
            return IntegerAttr(int(v), i64)
        case "float":
            return FloatAttr(float(v), f32)
        case "bool":
            return IntegerAttr(int(bool(v)), i1)
        case "type":
            return dtype_element_type(int(v))
        case "shape":
            return shape_attr(v)
        case "tensor":
            try:
                return tz.tensor_attr(v, store, hint)
            except tz.TensorDecodeError as e:
                raise AttrDecodeError(str(e)) from None
        case "func":
            return func_attr(v, store, hint)
    raise AttrDecodeError(f"unknown attribute kind '{kind}'")


def func_attr(nal: Any, store: WeightStore | None, hint: str = "w") -> FuncAttr:
    """NameAttrList -> ``#tf.func<"name", {attrs}>`` (all nested attrs kept)."""
    attrs = {k: attr_from_proto(nal.attr[k], None, store, hint) for k in sorted(nal.attr)}
    return FuncAttr.get(nal.name, attrs)


def attr_from_proto(
    av: Any, kind: str | None, store: WeightStore | None, hint: str = "w"
) -> Attribute:
    """AttrValue -> attribute; ``kind`` is the OpDef kind (None: from the value).

    Raises :class:`AttrDecodeError` on a kind mismatch or an undecodable tensor.
    """
    which = av.WhichOneof("value")
    if which is None:
        if kind is not None and kind.startswith("list("):
            return _empty_list(kind[5:-1])
        if kind is None:
            return UnitAttr()
        raise AttrDecodeError(f"has no value (expected {kind})")
    if which == "placeholder":
        raise AttrDecodeError(
            f"is a function placeholder ('{av.placeholder}'), only valid inside a function"
        )
    if which == "list":
        lst = av.list
        if kind is not None:
            if not kind.startswith("list("):
                raise AttrDecodeError(f"is a list, the OpDef expects {kind}")
            inner = kind[5:-1]
            for f in _LIST_FIELDS:
                if f != _KIND_FIELD[inner] and len(getattr(lst, f)):
                    raise AttrDecodeError(
                        f"is a list({_FIELD_KIND[f]}), the OpDef expects {kind}"
                    )
        else:
            inner = next((_FIELD_KIND[f] for f in _LIST_FIELDS if len(getattr(lst, f))), None)
            if inner is None:
                return ArrayAttr([])
        vals = getattr(lst, _KIND_FIELD[inner])
        if inner == "int":
            return DenseArrayBase.from_list(i64, [int(v) for v in vals])
        if inner == "float":
            return DenseArrayBase.from_list(f32, [float(v) for v in vals])
        if inner == "bool":
            return DenseArrayBase.from_list(i1, [bool(v) for v in vals])
        return ArrayAttr([_scalar(inner, v, store, f"{hint}_{i}") for i, v in enumerate(vals)])
    got = _FIELD_KIND[which]
    if kind is not None and kind != got:
        raise AttrDecodeError(f"is a {got}, the OpDef expects {kind}")
    return _scalar(got, getattr(av, which), store, hint)


def _empty_list(inner: str) -> Attribute:
    if inner == "int":
        return DenseArrayBase.from_list(i64, [])
    if inner == "float":
        return DenseArrayBase.from_list(f32, [])
    if inner == "bool":
        return DenseArrayBase.from_list(i1, [])
    return ArrayAttr([])


# ---------------------------------------------------------------------------
# attribute -> AttrValue
# ---------------------------------------------------------------------------


def attr_to_proto(a: Attribute, kind: str | None = None) -> Any:
    """Attribute -> AttrValue (inverse of :func:`attr_from_proto`)."""
    from xmo.frontends.tf.schema import AttrValue

    av = AttrValue()
    if kind is None or kind == "list":
        kind = infer_kind(a)
    if kind is None:
        raise AttrDecodeError(f"{a} is not a TF attribute value")
    if kind == "none":
        return av
    if kind == "list":
        av.list.SetInParent()
        return av
    if kind.startswith("list("):
        inner = kind[5:-1]
        av.list.SetInParent()
        if isinstance(a, DenseArrayBase):
            getattr(av.list, _KIND_FIELD[inner]).extend(from_attr(kind, a))
            return av
        assert isinstance(a, ArrayAttr)
        for x in a.data:
            _set_scalar_in_list(av.list, inner, x)
        return av
    _set_scalar(av, kind, a)
    return av


def _set_scalar(av: Any, kind: str, a: Attribute) -> None:
    match kind:
        case "string":
            v = from_attr("string", a)
            av.s = v if isinstance(v, bytes) else v.encode("utf-8")
        case "int":
            av.i = from_attr("int", a)
        case "float":
            av.f = from_attr("float", a)
        case "bool":
            av.b = from_attr("bool", a)
        case "type":
            av.type = dtypes.enum_of(xmo_type_name(a) or "")
        case "shape":
            _fill_shape(av.shape, from_attr("shape", a))
        case "tensor":
            av.tensor.CopyFrom(_tensor_proto_of(a))
        case "func":
            _fill_func(av.func, a)
        case _:
            raise AttrDecodeError(f"unknown attribute kind '{kind}'")


def _set_scalar_in_list(lst: Any, inner: str, a: Attribute) -> None:
    match inner:
        case "string":
            v = from_attr("string", a)
            lst.s.append(v if isinstance(v, bytes) else v.encode("utf-8"))
        case "type":
            lst.type.append(dtypes.enum_of(xmo_type_name(a) or ""))
        case "shape":
            _fill_shape(lst.shape.add(), from_attr("shape", a))
        case "tensor":
            lst.tensor.add().CopyFrom(_tensor_proto_of(a))
        case "func":
            _fill_func(lst.func.add(), a)
        case _:
            raise AttrDecodeError(f"unknown list kind '{inner}'")


def _fill_shape(sp: Any, dims: list[int] | None) -> None:
    sp.SetInParent()
    if dims is None:
        sp.unknown_rank = True
        return
    for d in dims:
        sp.dim.add(size=d)


def _fill_func(nal: Any, a: Attribute) -> None:
    assert isinstance(a, FuncAttr)
    nal.name = a.func_name.data
    for k, v in a.attrs.data.items():
        nal.attr[k].CopyFrom(attr_to_proto(v))


def _tensor_proto_of(a: Attribute) -> Any:
    t = getattr(a, "type", None)
    el = t.get_element_type() if t is not None else None
    name = xmo_type_name(el) if el is not None else None
    arr = tensor_array(a)
    if name in ("i4", "u4", "u2", "f4e2m1"):
        raise AttrDecodeError(f"writing packed {name} tensors back is not supported")
    return tz.tensor_proto(np.asarray(arr), name)


__all__ = ["AttrDecodeError", "attr_from_proto", "attr_to_proto", "func_attr", "shape_attr"]
