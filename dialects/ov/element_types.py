"""OpenVINO element types and their xDSL / numpy counterparts.

OpenVINO names element types with short strings (``f32``, ``u8``, ``boolean``...).
In xDSL IR the same element types are builtin types:

=========  ===========  ==============================
OpenVINO   xDSL         numpy
=========  ===========  ==============================
f64        f64          float64
f32        f32          float32
f16        f16          float16
bf16       bf16         (raw uint16 payload)
i64..i8    i64..i8      int64..int8 (signless = signed)
i4         i4           (packed, two values per byte)
u64..u8    ui64..ui8    uint64..uint8
u4         ui4          (packed, two values per byte)
u1         ui1          (packed, eight values per byte)
boolean    i1           bool
=========  ===========  ==============================

This module is the single place that knows the mapping.
"""

from __future__ import annotations

import ml_dtypes
import numpy as np
from xdsl.dialects.builtin import (
    BFloat16Type,
    Float4E2M1FNType,
    Float8E4M3FNType,
    Float8E5M2Type,
    Float8E8M0FNUType,
    Float16Type,
    Float32Type,
    Float64Type,
    IntegerType,
    Signedness,
)
from xdsl.ir import Attribute
from xmo.errors import XmoError

#: OpenVINO element type names this project supports, in a stable order.
OV_ELEMENT_TYPES: tuple[str, ...] = (
    "f32", "f16", "bf16", "f64",
    "i4", "i8", "i16", "i32", "i64",
    "u1", "u2", "u4", "u8", "u16", "u32", "u64",
    "boolean",
    "f8e4m3", "f8e5m2", "f8e8m0", "f4e2m1",
)  # fmt: skip

_TO_XDSL: dict[str, Attribute] = {
    "f64": Float64Type(),
    "f32": Float32Type(),
    "f16": Float16Type(),
    "bf16": BFloat16Type(),
    "i64": IntegerType(64),
    "i32": IntegerType(32),
    "i16": IntegerType(16),
    "i8": IntegerType(8),
    "i4": IntegerType(4),
    "u64": IntegerType(64, Signedness.UNSIGNED),
    "u32": IntegerType(32, Signedness.UNSIGNED),
    "u16": IntegerType(16, Signedness.UNSIGNED),
    "u8": IntegerType(8, Signedness.UNSIGNED),
    "u4": IntegerType(4, Signedness.UNSIGNED),
    "u2": IntegerType(2, Signedness.UNSIGNED),
    "u1": IntegerType(1, Signedness.UNSIGNED),
    "boolean": IntegerType(1),
    "f8e4m3": Float8E4M3FNType(),
    "f8e5m2": Float8E5M2Type(),
    "f8e8m0": Float8E8M0FNUType(),
    "f4e2m1": Float4E2M1FNType(),
}
_FROM_XDSL: dict[Attribute, str] = {v: k for k, v in _TO_XDSL.items()}
# Explicitly signed integers (si8, ...) are accepted as the signed OpenVINO types.
for _w in (4, 8, 16, 32, 64):
    _FROM_XDSL[IntegerType(_w, Signedness.SIGNED)] = f"i{_w}"

_NUMPY: dict[str, np.dtype] = {
    "f64": np.dtype(np.float64),
    "f32": np.dtype(np.float32),
    "f16": np.dtype(np.float16),
    "bf16": np.dtype(np.uint16),  # raw payload; see ``to_float32`` helpers
    "i64": np.dtype(np.int64),
    "i32": np.dtype(np.int32),
    "i16": np.dtype(np.int16),
    "i8": np.dtype(np.int8),
    "u64": np.dtype(np.uint64),
    "u32": np.dtype(np.uint32),
    "u16": np.dtype(np.uint16),
    "u8": np.dtype(np.uint8),
    "boolean": np.dtype(np.bool_),
    "f8e4m3": np.dtype(ml_dtypes.float8_e4m3fn),
    "f8e5m2": np.dtype(ml_dtypes.float8_e5m2),
    "f8e8m0": np.dtype(ml_dtypes.float8_e8m0fnu),
}

#: Element types stored with several values per byte.
PACKED_BITS: dict[str, int] = {"i4": 4, "u4": 4, "u2": 2, "u1": 1, "f4e2m1": 4}

#: Element types xDSL's ``dense<...>`` literals cannot hold: their constants
#: are always ``dense_resource`` payloads.
RESOURCE_ONLY = frozenset({"f8e4m3", "f8e5m2", "f8e8m0"}) | frozenset(PACKED_BITS)

FLOAT_TYPES = frozenset({"f64", "f32", "f16", "bf16"})
#: 8-bit and 4-bit floats (storage and conversion types)
SMALL_FLOAT_TYPES = frozenset({"f8e4m3", "f8e5m2", "f8e8m0", "f4e2m1"})
SIGNED_INT_TYPES = frozenset({"i4", "i8", "i16", "i32", "i64"})
UNSIGNED_INT_TYPES = frozenset({"u1", "u2", "u4", "u8", "u16", "u32", "u64"})
INTEGER_TYPES = SIGNED_INT_TYPES | UNSIGNED_INT_TYPES


class ElementTypeError(XmoError, ValueError):
    """An element type that OpenVINO / xmo cannot represent."""


def to_xdsl(name: str) -> Attribute:
    """OpenVINO element type name -> xDSL builtin type."""
    try:
        return _TO_XDSL[name]
    except KeyError:
        raise ElementTypeError(f"unknown OpenVINO element type '{name}'") from None


def from_xdsl(t: Attribute) -> str:
    """xDSL builtin type -> OpenVINO element type name."""
    try:
        return _FROM_XDSL[t]
    except KeyError:
        raise ElementTypeError(f"type {t} has no OpenVINO element type") from None


def of_tensor_type(t: Attribute) -> str | None:
    """OpenVINO element type name of a tensor type, None for anything else
    (not a tensor, or an element type OpenVINO lacks)."""
    get = getattr(t, "get_element_type", None)
    return None if get is None else _FROM_XDSL.get(get())


def is_ov_element_type(t: Attribute) -> bool:
    return t in _FROM_XDSL


def numpy_dtype(name: str) -> np.dtype:
    """numpy dtype holding one element of ``name`` (packed types have none)."""
    try:
        return _NUMPY[name]
    except KeyError:
        raise ElementTypeError(
            f"element type '{name}' has no numpy dtype (packed or unknown)"
        ) from None


def from_numpy(dtype: np.dtype) -> str:
    """numpy dtype -> OpenVINO element type name."""
    dtype = np.dtype(dtype)
    for name, dt in _NUMPY.items():
        if dt == dtype and name != "bf16":
            return name
    raise ElementTypeError(f"numpy dtype {dtype} has no OpenVINO element type")


def byte_size(name: str, num_elements: int) -> int:
    """Bytes needed to store ``num_elements`` values of type ``name``."""
    bits = PACKED_BITS.get(name)
    if bits is not None:
        return (num_elements * bits + 7) // 8
    return num_elements * numpy_dtype(name).itemsize
