"""OpenVINO attribute kinds: xDSL attribute <-> Python value <-> IR XML string.

Every OpenVINO op attribute has one of these kinds (its
:class:`~xmo.dialects.attr_spec.AttrSpec`'s ``kind``):

========  ============================  ==================  =================
kind      xDSL attribute                Python value        IR XML text
========  ============================  ==================  =================
i64       ``3 : i64``                   int                 ``3``
f64       ``1.0e-05 : f64``             float               ``1e-05``
bool      ``true``                      bool                ``true``
str       ``"numpy"``                   str                 ``numpy``
etype     ``"f32"``                     str                 ``f32``
shape     ``"1,3,?,?"``                 str                 ``1,3,?,?``
i64[]     ``array<i64: 1, 2>``          tuple[int, ...]     ``1,2``
f64[]     ``array<f64: 0.5>``           tuple[float, ...]   ``0.5``
str[]     ``["a", "b"]``                tuple[str, ...]     ``a,b``
========  ============================  ==================  =================
"""

from __future__ import annotations

import functools
import math
from collections.abc import Sequence
from typing import Any

from xdsl.dialects.builtin import (
    ArrayAttr,
    BoolAttr,
    DenseArrayBase,
    Float64Type,
    FloatAttr,
    IntegerAttr,
    IntegerType,
    StringAttr,
    i64,
)
from xdsl.ir import Attribute
from xdsl.irdl import AttrConstraint, BaseAttr, irdl_to_attr_constraint
from xmo.dialects.attr_spec import AttributeValueError

ATTR_KINDS = ("i64", "f64", "bool", "str", "etype", "shape", "i64[]", "f64[]", "str[]")


def constraint_for(kind: str) -> AttrConstraint:
    """IRDL constraint checking the xDSL attribute of a ``kind``."""
    match kind:
        case "i64":
            return irdl_to_attr_constraint(IntegerAttr)
        case "f64":
            return irdl_to_attr_constraint(FloatAttr)
        case "bool":
            return irdl_to_attr_constraint(IntegerAttr)
        case "str" | "etype" | "shape":
            return BaseAttr(StringAttr)
        case "i64[]" | "f64[]":
            return BaseAttr(DenseArrayBase)
        case "str[]":
            return BaseAttr(ArrayAttr)
    raise AttributeValueError(f"unknown attribute kind '{kind}'")


def to_attr(kind: str, value: Any) -> Attribute:
    """Python value -> xDSL attribute."""
    try:
        # attributes are immutable: the integer, boolean and string ones (most
        # of an op's attributes) are built once per value, as building one
        # verifies it (floats are not: -0.0 == 0.0 and NaN != NaN as keys)
        match kind:
            case "i64":
                return _cached_attr(kind, int(value))
            case "bool":
                return _cached_attr(kind, bool(value))
            case "str" | "etype" | "shape":
                return _cached_attr(kind, str(value))
            case "i64[]":
                return _cached_attr(kind, tuple(int(v) for v in _seq(value)))
        return _build_attr(kind, value)
    except (TypeError, ValueError) as e:
        raise AttributeValueError(f"{value!r} is not a valid {kind} value: {e}") from None


@functools.lru_cache(maxsize=8192)
def _cached_attr(kind: str, value: Any) -> Attribute:
    return _build_attr(kind, value)


def _build_attr(kind: str, value: Any) -> Attribute:
    try:
        match kind:
            case "i64":
                return IntegerAttr(int(value), i64)
            case "f64":
                return FloatAttr(float(value), Float64Type())
            case "bool":
                return BoolAttr.from_bool(bool(value))
            case "str" | "etype" | "shape":
                return StringAttr(str(value))
            case "i64[]":
                return DenseArrayBase.from_list(i64, [int(v) for v in _seq(value)])
            case "f64[]":
                return DenseArrayBase.from_list(
                    Float64Type(), [float(v) for v in _seq(value)]
                )
            case "str[]":
                return ArrayAttr([StringAttr(str(v)) for v in _seq(value)])
    except (TypeError, ValueError) as e:
        raise AttributeValueError(f"{value!r} is not a valid {kind} value: {e}") from None
    raise AttributeValueError(f"unknown attribute kind '{kind}'")


def _seq(value: Any) -> Sequence[Any]:
    if isinstance(value, str):
        raise TypeError("a string is not a list")
    return list(value)


def from_attr(kind: str, attr: Attribute) -> Any:
    """xDSL attribute -> Python value (checks the attribute fits the kind)."""
    match kind:
        case "i64" if isinstance(attr, IntegerAttr):
            return int(attr.value.data)
        case "f64" if isinstance(attr, FloatAttr):
            return float(attr.value.data)
        case "f64" if isinstance(attr, IntegerAttr):
            return float(attr.value.data)
        case "bool" if isinstance(attr, IntegerAttr) and attr.type == IntegerType(1):
            return bool(attr.value.data)
        case "str" | "etype" | "shape" if isinstance(attr, StringAttr):
            return attr.data
        case "i64[]" if isinstance(attr, DenseArrayBase) and isinstance(
            attr.elt_type, IntegerType
        ):
            return tuple(int(v) for v in attr.get_values())
        case "f64[]" if isinstance(attr, DenseArrayBase):
            return tuple(float(v) for v in attr.get_values())
        case "str[]" if isinstance(attr, ArrayAttr):
            out = []
            for a in attr.data:
                if not isinstance(a, StringAttr):
                    break
                out.append(a.data)
            else:
                return tuple(out)
    raise AttributeValueError(f"attribute {attr} is not a valid {kind} value")


def to_xml(kind: str, value: Any) -> str:
    """Python value -> the text OpenVINO's IR reader expects."""
    match kind:
        case "bool":
            return "true" if value else "false"
        case "f64":
            return _float_text(value)
        case "i64[]":
            return ",".join(str(int(v)) for v in value)
        case "f64[]":
            return ",".join(_float_text(v) for v in value)
        case "str[]":
            return ",".join(str(v) for v in value)
        case "i64":
            return str(int(value))
    return str(value)


def _float_text(v: float) -> str:
    v = float(v)
    if math.isinf(v):
        return "inf" if v > 0 else "-inf"
    if math.isnan(v):
        return "nan"
    return repr(v)


def from_xml(kind: str, text: str) -> Any:
    """IR XML text -> Python value."""
    text = text.strip()
    try:
        match kind:
            case "i64":
                return int(text)
            case "f64":
                return float(text)
            case "bool":
                low = text.lower()
                if low in ("true", "1"):
                    return True
                if low in ("false", "0"):
                    return False
                raise ValueError("expected true or false")
            case "i64[]":
                return tuple(int(v) for v in _split(text))
            case "f64[]":
                return tuple(float(v) for v in _split(text))
            case "str[]":
                return tuple(_split(text))
            case "str" | "etype" | "shape":
                return text
    except ValueError as e:
        raise AttributeValueError(f"'{text}' is not a valid {kind} value: {e}") from None
    raise AttributeValueError(f"unknown attribute kind '{kind}'")


def _split(text: str) -> list[str]:
    text = text.strip().strip("[]")
    return [t.strip() for t in text.split(",") if t.strip()] if text else []
