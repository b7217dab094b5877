"""Types and attributes of the ``tf`` dialect.

Element types. TensorFlow values are builtin tensors. Their element type is the
builtin type of the OpenVINO element type when OpenVINO has one (``f32``,
``bf16``, ``i64``, ``i1`` for bool...), else one of the dialect's own element
types below, named after TensorFlow's type::

    !tf.string  !tf.resource  !tf.variant  !tf.complex64  !tf.complex128
    !tf.qint8  !tf.quint8  !tf.qint16  !tf.quint16  !tf.qint32  !tf.int2
    !tf.float8_e4m3fnuz  !tf.float8_e4m3b11fnuz  !tf.float8_e5m2fnuz
    !tf.unknown   (a type nothing determines: unknown op, missing attribute)

e.g. ``tensor<*x!tf.string>``. :func:`element_type` / :func:`xmo_type_name`
convert between xDSL types and *xmo type names* (``"f32"``, ``"tf.string"``;
see :mod:`.dtypes`).

Attributes (TF attribute values with no builtin form):

=====================  ====================================================
``#tf.shape<[2, ?]>``  a TensorShapeProto (``#tf.shape<*>``: unknown rank)
``#tf.func<"f", {}>``  a NameAttrList (function name + its attributes)
``#tf.bytes<"0aff">``  a string attribute that is not UTF-8 (hex)
``#tf.string_tensor``  ``<tensor<2x!tf.string>, ["a", #tf.bytes<"ff">]>``
``#tf.opaque_tensor``  ``<tensor<2x!tf.complex64>, dense...<...> : tensor<16xui8>>``:
                       a constant of a type OpenVINO lacks, as raw bytes
=====================  ====================================================
"""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.dialects.builtin import (
    ArrayAttr,
    BytesAttr,
    DenseIntOrFPElementsAttr,
    DenseResourceAttr,
    DictionaryAttr,
    IntAttr,
    StringAttr,
    TensorType,
)
from xdsl.ir import Attribute, ParametrizedAttribute, TypeAttribute
from xdsl.irdl import irdl_attr_definition
from xdsl.parser import AttrParser
from xdsl.printer import Printer
from xdsl.utils.exceptions import VerifyException

from xmo.dialects.ov import element_types as et
from xmo.dialects.tf import dtypes

# ---------------------------------------------------------------------------
# Element types
# ---------------------------------------------------------------------------


class TFElementType(ParametrizedAttribute, TypeAttribute):
    """Base of the ``!tf.<name>`` element types (no parameters; not registered itself)."""

    name = "tf.element"


def _element_type_class(xmo_name: str) -> type[TFElementType]:
    short = xmo_name.split(".", 1)[1]
    cls_name = "".join(p.capitalize() for p in short.split("_")) + "Type"
    cls = type(
        cls_name,
        (TFElementType,),
        {
            "name": xmo_name,
            "__doc__": f"The TensorFlow ``{short}`` element type: ``!{xmo_name}``.",
            "__module__": __name__,
        },
    )
    return irdl_attr_definition(cls)


#: xmo type name -> class, for every ``!tf.<name>`` type
TF_ELEMENT_TYPES: dict[str, type[TFElementType]] = {
    n: _element_type_class(n) for n in dtypes.TF_ONLY_TYPES
}
StringType = TF_ELEMENT_TYPES["tf.string"]
ResourceType = TF_ELEMENT_TYPES["tf.resource"]
VariantType = TF_ELEMENT_TYPES["tf.variant"]
UnknownType = TF_ELEMENT_TYPES["tf.unknown"]


def element_type(xmo_name: str) -> Attribute:
    """xmo type name (``f32``, ``tf.string``) -> xDSL element type.

    Unknown names give ``!tf.unknown``.
    """
    cls = TF_ELEMENT_TYPES.get(xmo_name)
    if cls is not None:
        return cls()
    try:
        return et.to_xdsl(xmo_name)
    except et.ElementTypeError:
        return UnknownType()


def xmo_type_name(t: Attribute) -> str | None:
    """xDSL element type -> xmo type name (None if it is neither OV nor tf)."""
    if isinstance(t, TFElementType):
        return t.name
    try:
        return et.from_xdsl(t)
    except et.ElementTypeError:
        return None


def dtype_element_type(enum: int) -> Attribute:
    """TensorFlow DataType enum value -> xDSL element type (``_REF`` = base type)."""
    return element_type(dtypes.xmo_name(enum))


# ---------------------------------------------------------------------------
# Attributes
# ---------------------------------------------------------------------------


@irdl_attr_definition
class ShapeAttr(ParametrizedAttribute):
    """A TensorFlow shape: ``#tf.shape<[2, ?, 3]>``, ``#tf.shape<[]>`` (scalar),
    ``#tf.shape<*>`` (unknown rank). Unknown dims are -1 (``?``)."""

    name = "tf.shape"
    ranked: IntAttr
    dims: ArrayAttr[IntAttr]

    @staticmethod
    def get(dims: Sequence[int] | None) -> ShapeAttr:
        if dims is None:
            return ShapeAttr(IntAttr(0), ArrayAttr([]))
        return ShapeAttr(IntAttr(1), ArrayAttr([IntAttr(-1 if d < 0 else int(d)) for d in dims]))

    @property
    def value(self) -> list[int] | None:
        """Dims (-1 unknown), or None for an unknown rank."""
        if not self.ranked.data:
            return None
        return [d.data for d in self.dims.data]

    @classmethod
    def parse_parameters(cls, parser: AttrParser) -> Sequence[Attribute]:
        parser.parse_punctuation("<")
        if parser.parse_optional_punctuation("*") is not None:
            parser.parse_punctuation(">")
            return [IntAttr(0), ArrayAttr([])]
        dims = parser.parse_comma_separated_list(
            parser.Delimiter.SQUARE, lambda: parser.parse_shape_dimension()
        )
        parser.parse_punctuation(">")
        return [IntAttr(1), ArrayAttr([IntAttr(-1 if d < 0 else d) for d in dims])]

    def print_parameters(self, printer: Printer) -> None:
        v = self.value
        if v is None:
            printer.print_string("<*>")
        else:
            printer.print_string("<[" + ", ".join("?" if d < 0 else str(d) for d in v) + "]>")

    def verify(self) -> None:
        if not self.ranked.data and self.dims.data:
            raise VerifyException("#tf.shape: an unknown-rank shape has no dims")


@irdl_attr_definition
class FuncAttr(ParametrizedAttribute):
    """A function reference (TF ``NameAttrList``): ``#tf.func<"f", {T = f32}>``."""

    name = "tf.func"
    func_name: StringAttr
    attrs: DictionaryAttr

    @staticmethod
    def get(name: str, attrs: dict[str, Attribute] | None = None) -> FuncAttr:
        return FuncAttr(StringAttr(name), DictionaryAttr(dict(attrs or {})))


@irdl_attr_definition
class BytesHexAttr(ParametrizedAttribute):
    """A byte string that is not valid UTF-8, as hex: ``#tf.bytes<"00ff">``."""

    name = "tf.bytes"
    hex: StringAttr

    @staticmethod
    def get(data: bytes) -> BytesHexAttr:
        return BytesHexAttr(StringAttr(bytes(data).hex()))

    @property
    def value(self) -> bytes:
        return bytes.fromhex(self.hex.data)

    def verify(self) -> None:
        try:
            bytes.fromhex(self.hex.data)
        except ValueError:
            raise VerifyException(f"#tf.bytes: '{self.hex.data}' is not hex") from None


def string_attr(data: bytes | str) -> Attribute:
    """``StringAttr`` for UTF-8 data, ``#tf.bytes`` otherwise."""
    if isinstance(data, str):
        return StringAttr(data)
    try:
        return StringAttr(bytes(data).decode("utf-8"))
    except UnicodeDecodeError:
        return BytesHexAttr.get(data)


def string_value(a: Attribute) -> str | bytes:
    """Inverse of :func:`string_attr`: str, or bytes when not UTF-8."""
    if isinstance(a, StringAttr):
        return a.data
    if isinstance(a, BytesHexAttr):
        return a.value
    if isinstance(a, BytesAttr):
        return a.data
    raise TypeError(f"not a string attribute: {a}")


@irdl_attr_definition
class StringTensorAttr(ParametrizedAttribute):
    """A string tensor constant (row-major): ``#tf.string_tensor<tensor<2x!tf.string>,
    ["a", #tf.bytes<"ff">]>``. Elements are ``StringAttr`` or ``#tf.bytes``."""

    name = "tf.string_tensor"
    tensor_type: TensorType
    values: ArrayAttr

    def verify(self) -> None:
        n = 1
        for d in self.tensor_type.get_shape():
            n *= d
        if n != len(self.values.data):
            raise VerifyException(
                f"#tf.string_tensor: {self.tensor_type} holds {n} values, "
                f"got {len(self.values.data)}"
            )
        for v in self.values.data:
            if not isinstance(v, StringAttr | BytesHexAttr):
                raise VerifyException(f"#tf.string_tensor: bad element {v}")

    @property
    def type(self) -> TensorType:
        return self.tensor_type


@irdl_attr_definition
class OpaqueTensorAttr(ParametrizedAttribute):
    """A constant whose element type OpenVINO lacks (complex, quantized, int2,
    float8 fnuz...), as its raw little-endian bytes: ``data`` is a 1-D ``ui8``
    ``dense`` / ``dense_resource`` attribute."""

    name = "tf.opaque_tensor"
    tensor_type: TensorType
    data: Attribute

    def verify(self) -> None:
        if not isinstance(self.data, DenseIntOrFPElementsAttr | DenseResourceAttr):
            raise VerifyException("#tf.opaque_tensor: data must be dense or dense_resource")

    @property
    def type(self) -> TensorType:
        return self.tensor_type


TF_ATTRIBUTES: tuple[type[Attribute], ...] = (
    *TF_ELEMENT_TYPES.values(),
    ShapeAttr,
    FuncAttr,
    BytesHexAttr,
    StringTensorAttr,
    OpaqueTensorAttr,
)
