"""How the CPU backend holds tensors: numpy dtypes for OpenVINO element types.

bf16 is computed in f32 (rounded to bf16 after every op producing it); the
packed types (i4, u4, u2, f4e2m1) are held unpacked, one value per byte, as
ml_dtypes arrays; f8 types are ml_dtypes arrays.
"""

from __future__ import annotations

from collections.abc import Sequence

import ml_dtypes
import numpy as np
from xdsl.ir import Attribute

from xmo.dialects.ov import element_types as et
from xmo.dialects.ov.base import dims_of

#: Packed element types, held unpacked (one value per byte) inside the backend.
PACKED_DTYPES: dict[str, np.dtype] = {
    "i4": np.dtype(ml_dtypes.int4),
    "u4": np.dtype(ml_dtypes.uint4),
    "u2": np.dtype(ml_dtypes.uint2),
    "f4e2m1": np.dtype(ml_dtypes.float4_e2m1fn),
}
BF16 = np.dtype(ml_dtypes.bfloat16)


def etype_dtype(name: str | None) -> np.dtype | None:
    """The numpy dtype the backend computes element type ``name`` in (None
    when it has none)."""
    if name is None:
        return None
    if name == "bf16":
        return np.dtype(np.float32)
    if name in PACKED_DTYPES:
        return PACKED_DTYPES[name]
    try:
        return et.numpy_dtype(name)
    except et.ElementTypeError:
        return None


def tensor_dtype(t: Attribute) -> np.dtype | None:
    """The numpy dtype the backend computes tensor type ``t``'s elements in."""
    return etype_dtype(et.of_tensor_type(t))


def tensor_dims(t: Attribute) -> tuple[int, ...] | None:
    """Dims (-1 for dynamic) of a ranked tensor type, None when unranked."""
    dims = dims_of(t)
    return None if dims is None else tuple(dims)


def round_bf16(a: np.ndarray) -> np.ndarray:
    """f32 values rounded to bf16 precision (still f32)."""
    return np.asarray(a).astype(BF16).astype(np.float32)


def bf16_bits_to_f32(raw: np.ndarray) -> np.ndarray:
    """Raw bf16 payloads (uint16) -> f32 values."""
    return (raw.astype(np.uint32) << 16).view(np.float32)


def unpack_constant(raw: np.ndarray, name: str, shape: Sequence[int]) -> np.ndarray:
    """A packed constant's bytes (low bits first) -> an unpacked ml_dtypes array."""
    bits = et.PACKED_BITS[name]
    per = 8 // bits
    raw = np.asarray(raw).view(np.uint8).reshape(-1)
    n = int(np.prod(shape, dtype=np.int64))
    if raw.size == 1 and n > per:  # splat
        raw = np.broadcast_to(raw, (-(-n // per),))
    shifts = np.arange(per, dtype=np.uint8) * bits
    codes = ((raw[:, None] >> shifts) & ((1 << bits) - 1)).reshape(-1)[:n].astype(np.uint8)
    if name == "i4":
        return ((codes.astype(np.int8) << 4) >> 4).astype(PACKED_DTYPES[name]).reshape(shape)
    return codes.view(PACKED_DTYPES[name]).reshape(shape)
