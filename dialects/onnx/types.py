"""ONNX value types in xDSL: element types, and the few non-tensor types.

ONNX tensors are builtin ``tensor<...>`` / ``tensor<*x...>`` types. Element
types map to builtin types wherever xDSL has one; ``string`` has none, so this
dialect defines ``!onnx.string``:

=================  =====================  ==================
ONNX               xDSL                   text
=================  =====================  ==================
float / double     f32 / f64
float16 / bfloat16 f16 / bf16
int2..int64        i2..i64 (signless)
uint2..uint64      ui2..ui64
bool               i1
complex64/128      complex<f32/f64>
float8e4m3fn       f8E4M3FN               (likewise fnuz, e5m2, e5m2fnuz)
float8e8m0         f8E8M0FNU
float4e2m1         f4E2M1FN
float6e2m3/e3m2    f6E2M3FN / f6E3M2FN
string             !onnx.string
=================  =====================  ==================

Non-tensor ONNX types are three small parametrized types: ``!onnx.seq<T>``
(sequence of ``T``), ``!onnx.opt<T>`` (optional ``T``) and ``!onnx.map<K, V>``
(map from element type ``K`` to element type ``V``). A value's *ONNX type
key* (:func:`type_key`) is its type with tensor shapes erased
(``tensor<2x3xf32>`` -> ``tensor<*xf32>``); type constraints are sets of keys.

String tensor constants (no ``dense<>`` form exists for them) are
``#onnx.string_tensor<tensor<2x!onnx.string>, ["a", "b"]>``.
"""

from __future__ import annotations

from xdsl.dialects.builtin import (
    ArrayAttr,
    BFloat16Type,
    ComplexType,
    Float4E2M1FNType,
    Float6E2M3FNType,
    Float6E3M2FNType,
    Float8E4M3FNType,
    Float8E4M3FNUZType,
    Float8E5M2FNUZType,
    Float8E5M2Type,
    Float8E8M0FNUType,
    Float16Type,
    Float32Type,
    Float64Type,
    IntegerType,
    NoneType,
    Signedness,
    StringAttr,
    TensorType,
    UnrankedTensorType,
)
from xdsl.ir import Attribute, ParametrizedAttribute, TypeAttribute
from xdsl.irdl import irdl_attr_definition


@irdl_attr_definition
class StringType(ParametrizedAttribute, TypeAttribute):
    """The ONNX ``string`` element type: ``!onnx.string``."""

    name = "onnx.string"


@irdl_attr_definition
class SeqType(ParametrizedAttribute, TypeAttribute):
    """An ONNX sequence: ``!onnx.seq<tensor<*xf32>>``."""

    name = "onnx.seq"
    element_type: Attribute


@irdl_attr_definition
class OptType(ParametrizedAttribute, TypeAttribute):
    """An ONNX optional value: ``!onnx.opt<tensor<*xf32>>``."""

    name = "onnx.opt"
    element_type: Attribute


@irdl_attr_definition
class MapType(ParametrizedAttribute, TypeAttribute):
    """An ONNX map: ``!onnx.map<!onnx.string, f32>``."""

    name = "onnx.map"
    key_type: Attribute
    value_type: Attribute


@irdl_attr_definition
class StringTensorAttr(ParametrizedAttribute):
    """A string tensor constant (row-major values)."""

    name = "onnx.string_tensor"
    tensor_type: TensorType
    values: ArrayAttr[StringAttr]

    def verify(self) -> None:
        from xdsl.utils.exceptions import VerifyException

        n = 1
        for d in self.tensor_type.get_shape():
            n *= d
        if n != len(self.values.data):
            raise VerifyException(
                f"#onnx.string_tensor: {self.tensor_type} holds {n} values, "
                f"got {len(self.values.data)}"
            )


#: ONNX element type name -> xDSL type
ELEMENT_TYPES: dict[str, Attribute] = {
    "float": Float32Type(),
    "double": Float64Type(),
    "float16": Float16Type(),
    "bfloat16": BFloat16Type(),
    "int64": IntegerType(64),
    "int32": IntegerType(32),
    "int16": IntegerType(16),
    "int8": IntegerType(8),
    "int4": IntegerType(4),
    "int2": IntegerType(2),
    "uint64": IntegerType(64, Signedness.UNSIGNED),
    "uint32": IntegerType(32, Signedness.UNSIGNED),
    "uint16": IntegerType(16, Signedness.UNSIGNED),
    "uint8": IntegerType(8, Signedness.UNSIGNED),
    "uint4": IntegerType(4, Signedness.UNSIGNED),
    "uint2": IntegerType(2, Signedness.UNSIGNED),
    "bool": IntegerType(1),
    "complex64": ComplexType(Float32Type()),
    "complex128": ComplexType(Float64Type()),
    "float8e4m3fn": Float8E4M3FNType(),
    "float8e4m3fnuz": Float8E4M3FNUZType(),
    "float8e5m2": Float8E5M2Type(),
    "float8e5m2fnuz": Float8E5M2FNUZType(),
    "float8e8m0": Float8E8M0FNUType(),
    "float4e2m1": Float4E2M1FNType(),
    "float6e2m3": Float6E2M3FNType(),
    "float6e3m2": Float6E3M2FNType(),
    "string": StringType(),
}

_ONNX_NAMES: dict[Attribute, str] = {v: k for k, v in ELEMENT_TYPES.items()}
for _w in (2, 4, 8, 16, 32, 64):  # explicitly signed integers count as signed
    _ONNX_NAMES[IntegerType(_w, Signedness.SIGNED)] = f"int{_w}"


def element_type(onnx_name: str) -> Attribute:
    """ONNX element type name (``float``, ``int64``...) -> xDSL type."""
    try:
        return ELEMENT_TYPES[onnx_name]
    except KeyError:
        raise ValueError(f"unknown ONNX element type '{onnx_name}'") from None


def onnx_element_name(t: Attribute) -> str | None:
    """xDSL element type -> ONNX element type name (None if it has none)."""
    return _ONNX_NAMES.get(t)


def _split_args(text: str) -> list[str]:
    out, depth, start = [], 0, 0
    for i, c in enumerate(text):
        if c == "(":
            depth += 1
        elif c == ")":
            depth -= 1
        elif c == "," and depth == 0:
            out.append(text[start:i].strip())
            start = i + 1
    out.append(text[start:].strip())
    return out


def parse_type_str(text: str) -> Attribute:
    """An ONNX schema type string (``seq(tensor(float))``) -> its type key.

    Raises ValueError for strings that cannot be represented.
    """
    text = text.strip()
    head, paren, rest = text.partition("(")
    if not paren:
        return element_type(text)
    if not rest.endswith(")"):
        raise ValueError(f"malformed ONNX type string '{text}'")
    args = _split_args(rest[:-1])
    match head, len(args):
        case "tensor", 1:
            return UnrankedTensorType(element_type(args[0]))
        case "seq" | "sequence", 1:
            return SeqType(parse_type_str(args[0]))
        case "optional", 1:
            return OptType(parse_type_str(args[0]))
        case "map", 2:
            return MapType(parse_type_str(args[0]), parse_type_str(args[1]))
    raise ValueError(f"unsupported ONNX type string '{text}'")


def type_key(t: Attribute) -> Attribute:
    """``t`` with tensor shapes erased, the form type constraints list."""
    if isinstance(t, TensorType):
        el = t.get_element_type()
        return UnrankedTensorType(_canonical_element(el))
    if isinstance(t, UnrankedTensorType):
        el = t.get_element_type()
        canon = _canonical_element(el)
        return t if canon is el else UnrankedTensorType(canon)
    if isinstance(t, SeqType):
        return SeqType(type_key(t.element_type))
    if isinstance(t, OptType):
        return OptType(type_key(t.element_type))
    return t


def _canonical_element(el: Attribute) -> Attribute:
    if isinstance(el, IntegerType) and el.signedness.data == Signedness.SIGNED:
        return IntegerType(el.width.data)
    return el


def describe(t: Attribute) -> str:
    """ONNX spelling of a type key (``tensor(float)``), for messages."""
    if isinstance(t, TensorType | UnrankedTensorType):
        el = t.get_element_type()
        return f"tensor({onnx_element_name(el) or el})"
    if isinstance(t, SeqType):
        return f"seq({describe(t.element_type)})"
    if isinstance(t, OptType):
        return f"optional({describe(t.element_type)})"
    if isinstance(t, MapType):
        return f"map({describe(t.key_type)}, {describe(t.value_type)})"
    if isinstance(t, NoneType):
        return "none"
    return onnx_element_name(t) or str(t)


ONNX_TYPES: tuple[type[Attribute], ...] = (
    StringType,
    SeqType,
    OptType,
    MapType,
    StringTensorAttr,
)
