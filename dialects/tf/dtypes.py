"""TensorFlow DataType facts in plain Python (no xDSL, no protobuf, no TensorFlow).

One table, :data:`DTYPES`, maps every TensorFlow ``DataType`` enum value to:

* its enum name (``DT_FLOAT``),
* the *xmo type name* used everywhere in the ``tf`` dialect's Python API:
  the OpenVINO element type name when OpenVINO has the type (``f32``, ``i64``,
  ``boolean``, ``bf16``...), else ``tf.<name>`` (``tf.string``,
  ``tf.resource``, ``tf.variant``, ``tf.complex64``, ``tf.qint8``...) -- the
  ``!tf.<name>`` dialect types in IR,
* the numpy dtype name of one stored element (``None``: no numpy form),
* the ``TensorProto`` field holding typed values (``float_val``...).

``*_REF`` types (enum value + 100) are the base type for every purpose here
(:func:`base_dtype`).

This module is also loaded by ``tools/gen_tf_dialect.py`` under a TensorFlow
venv that has no xDSL, so it must stay dependency-free.
"""

from __future__ import annotations

from typing import NamedTuple


class DType(NamedTuple):
    """Facts about one TensorFlow DataType."""

    enum: int
    name: str  # enum name, e.g. "DT_FLOAT"
    xmo: str  # xmo type name, e.g. "f32" or "tf.string"
    numpy: str | None  # numpy dtype of one stored element
    field: str | None  # TensorProto typed-value field


#: Every TensorFlow DataType (types.proto), by enum value.
DTYPES: dict[int, DType] = {
    d.enum: d
    for d in (
        DType(1, "DT_FLOAT", "f32", "float32", "float_val"),
        DType(2, "DT_DOUBLE", "f64", "float64", "double_val"),
        DType(3, "DT_INT32", "i32", "int32", "int_val"),
        DType(4, "DT_UINT8", "u8", "uint8", "int_val"),
        DType(5, "DT_INT16", "i16", "int16", "int_val"),
        DType(6, "DT_INT8", "i8", "int8", "int_val"),
        DType(7, "DT_STRING", "tf.string", None, "string_val"),
        DType(8, "DT_COMPLEX64", "tf.complex64", "complex64", "scomplex_val"),
        DType(9, "DT_INT64", "i64", "int64", "int64_val"),
        DType(10, "DT_BOOL", "boolean", "bool", "bool_val"),
        DType(11, "DT_QINT8", "tf.qint8", "int8", "int_val"),
        DType(12, "DT_QUINT8", "tf.quint8", "uint8", "int_val"),
        DType(13, "DT_QINT32", "tf.qint32", "int32", "int_val"),
        DType(14, "DT_BFLOAT16", "bf16", "uint16", "half_val"),
        DType(15, "DT_QINT16", "tf.qint16", "int16", "int_val"),
        DType(16, "DT_QUINT16", "tf.quint16", "uint16", "int_val"),
        DType(17, "DT_UINT16", "u16", "uint16", "int_val"),
        DType(18, "DT_COMPLEX128", "tf.complex128", "complex128", "dcomplex_val"),
        DType(19, "DT_HALF", "f16", "float16", "half_val"),
        DType(20, "DT_RESOURCE", "tf.resource", None, None),
        DType(21, "DT_VARIANT", "tf.variant", None, None),
        DType(22, "DT_UINT32", "u32", "uint32", "uint32_val"),
        DType(23, "DT_UINT64", "u64", "uint64", "uint64_val"),
        DType(24, "DT_FLOAT8_E5M2", "f8e5m2", "uint8", "float8_val"),
        DType(25, "DT_FLOAT8_E4M3FN", "f8e4m3", "uint8", "float8_val"),
        DType(26, "DT_FLOAT8_E4M3FNUZ", "tf.float8_e4m3fnuz", "uint8", "float8_val"),
        DType(27, "DT_FLOAT8_E4M3B11FNUZ", "tf.float8_e4m3b11fnuz", "uint8", "float8_val"),
        DType(28, "DT_FLOAT8_E5M2FNUZ", "tf.float8_e5m2fnuz", "uint8", "float8_val"),
        # 4/2-bit types: TensorFlow stores one value per byte (int_val or content)
        DType(29, "DT_INT4", "i4", "int8", "int_val"),
        DType(30, "DT_UINT4", "u4", "uint8", "int_val"),
        DType(31, "DT_INT2", "tf.int2", "int8", "int_val"),
        DType(32, "DT_UINT2", "u2", "uint8", "int_val"),
        DType(33, "DT_FLOAT4_E2M1FN", "f4e2m1", "uint8", "int_val"),
    )
}

#: Enum value offset of the ``*_REF`` types
REF_OFFSET = 100

#: enum name -> enum value (base types only)
BY_NAME: dict[str, int] = {d.name: d.enum for d in DTYPES.values()}
#: xmo type name -> enum value
BY_XMO: dict[str, int] = {d.xmo: d.enum for d in DTYPES.values()}

#: xmo type name of an unknown / invalid type (``!tf.unknown``)
UNKNOWN = "tf.unknown"

#: ``tf.<name>`` types (everything OpenVINO lacks), plus ``tf.unknown``
TF_ONLY_TYPES: tuple[str, ...] = tuple(
    d.xmo for d in DTYPES.values() if d.xmo.startswith("tf.")
) + (UNKNOWN,)


def base_dtype(enum: int) -> int:
    """The enum value with ``_REF`` removed."""
    return enum - REF_OFFSET if enum > REF_OFFSET else enum


def lookup(enum: int) -> DType | None:
    """Facts of a DataType enum value (``_REF`` types give their base type)."""
    return DTYPES.get(base_dtype(int(enum)))


def xmo_name(enum: int) -> str:
    """xmo type name of a DataType enum value (``tf.unknown`` if invalid)."""
    d = lookup(enum)
    return d.xmo if d is not None else UNKNOWN


def enum_of(xmo: str) -> int:
    """DataType enum value of an xmo type name (0 = DT_INVALID if unknown)."""
    return BY_XMO.get(xmo, 0)
