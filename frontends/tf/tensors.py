"""TensorFlow ``TensorProto`` -> numpy payload -> ``tf`` constant attribute.

Decoding (:func:`tensor_payload`) never builds Python lists of a large payload:

* ``tensor_content`` -> ``np.frombuffer`` on the protobuf bytes (a view, no
  copy); string tensors use TensorFlow's encoding (all varint lengths, then the
  bytes)
* typed fields (``float_val``, ``double_val``, ``int_val``, ``int64_val``,
  ``bool_val``, ``half_val`` -- f16 *and* bf16 bit patterns in an int32 field --,
  ``uint32_val``, ``uint64_val``, ``scomplex_val``/``dcomplex_val`` (pairs),
  ``float8_val`` (bytes), ``string_val``) -> one conversion into a new array.
  Fewer values than elements are broadcast as TensorFlow does: the last value
  repeats (no value at all: zeros / empty strings).

:func:`tensor_attr` then makes the attribute: ``dense``/``dense_resource`` (via
``make_constant_attr``; large payloads by reference in the weight store) for
OpenVINO element types, packed ``dense_resource`` for i4/u4/u2/f4e2m1 (TF
stores one value per byte; packed here, first value in the low bits),
``#tf.string_tensor`` for strings, ``#tf.opaque_tensor`` (raw bytes) for types
OpenVINO lacks (complex, quantized, int2, float8 fnuz...).

Errors: :class:`TensorDecodeError` (the loader adds the node name).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
from xdsl.dialects.builtin import ArrayAttr, DenseResourceAttr, TensorType
from xdsl.ir import Attribute
from xmo.dialects.ov import element_types as et
from xmo.dialects.ov.base import tensor
from xmo.dialects.ov.weights import WeightStore, make_constant_attr
from xmo.dialects.tf import dtypes
from xmo.dialects.tf.types import (
    OpaqueTensorAttr,
    StringTensorAttr,
    StringType,
    element_type,
    string_attr,
)
from xmo.errors import ModelError


class TensorDecodeError(ModelError):
    """A TensorProto that cannot be decoded (bad dtype, shape or size)."""


def dtype_label(enum: int) -> str:
    d = dtypes.DTYPES.get(dtypes.base_dtype(int(enum)))
    return d.name if d is not None else f"DataType {int(enum)}"


def tensor_dims(tp: Any) -> list[int]:
    """Static dims of a TensorProto (errors on unknown rank / dims)."""
    shape = tp.tensor_shape
    if shape.unknown_rank:
        raise TensorDecodeError("the tensor has an unknown rank")
    dims = [int(d.size) for d in shape.dim]
    if any(d < 0 for d in dims):
        raise TensorDecodeError(f"the tensor shape {dims} has unknown dims")
    return dims


#: The largest constant a value list may expand to (protobuf's 2 GiB message limit).
MAX_EXPANDED_BYTES = 1 << 31


def _decode_string_content(content: bytes, n: int) -> list[bytes]:
    """TensorFlow's string-tensor encoding: n varint lengths, then the data."""
    lengths: list[int] = []
    pos = 0
    for _ in range(n):
        value, shift = 0, 0
        while True:
            if pos >= len(content) or shift > 35:
                raise TensorDecodeError("malformed string tensor_content")
            b = content[pos]
            pos += 1
            value |= (b & 0x7F) << shift
            shift += 7
            if not b & 0x80:
                break
        lengths.append(value)
    out: list[bytes] = []
    for ln in lengths:
        if pos + ln > len(content):
            raise TensorDecodeError("malformed string tensor_content")
        out.append(content[pos : pos + ln])
        pos += ln
    if pos != len(content):
        raise TensorDecodeError("malformed string tensor_content (trailing bytes)")
    return out


def _broadcast(vals: np.ndarray, n: int, what: str) -> np.ndarray:
    """``vals`` stretched to ``n`` values: the last value repeats, none = zeros."""
    m = len(vals)
    if m == n:
        return vals
    if m > n:
        raise TensorDecodeError(f"{what} has {m} values, the shape holds {n}")
    if m == 0:
        return np.zeros(n, dtype=vals.dtype)
    return np.concatenate([vals, np.full(n - m, vals[-1], dtype=vals.dtype)])


def tensor_payload(tp: Any) -> tuple[dtypes.DType, list[int], np.ndarray | list[bytes]]:
    """(dtype facts, dims, payload) of a TensorProto.

    The payload is a numpy array of the TF storage dtype (``DType.numpy``;
    bf16 as uint16, float8 as uint8, 4/2-bit types one value per byte), or a
    list of bytes for strings.
    """
    enum = int(tp.dtype)
    d = dtypes.DTYPES.get(enum)
    if d is None:
        if dtypes.lookup(enum) is not None:
            raise TensorDecodeError(f"a constant cannot have the reference type {dtype_label(enum)}")
        raise TensorDecodeError(
            "the tensor has no dtype (DT_INVALID)" if enum == 0 else f"unknown dtype {enum}"
        )
    dims = tensor_dims(tp)
    n = math.prod(dims)  # Python ints: no int64 wrap-around for absurd shapes
    content = tp.tensor_content
    itemsize = np.dtype(d.numpy).itemsize if d.numpy is not None else 8
    if not content and n * itemsize > MAX_EXPANDED_BYTES:
        # typed value lists broadcast to the shape: refuse a memory bomb
        raise TensorDecodeError(
            f"shape {dims} of {d.name} expands to {n * itemsize} bytes, more than the "
            f"{MAX_EXPANDED_BYTES >> 30} GiB a GraphDef can hold"
        )

    if d.xmo == "tf.string":
        if content:
            return d, dims, _decode_string_content(content, n)
        vals = list(tp.string_val)
        if len(vals) > n:
            raise TensorDecodeError(f"string_val has {len(vals)} values, the shape holds {n}")
        if vals and len(vals) < n:
            vals += [vals[-1]] * (n - len(vals))
        elif not vals:
            vals = [b""] * n
        return d, dims, vals
    if d.numpy is None or d.field is None:
        raise TensorDecodeError(f"{d.name} constants are not supported")

    np_dt = np.dtype(d.numpy)
    if content:
        if len(content) != n * np_dt.itemsize:
            raise TensorDecodeError(
                f"tensor_content has {len(content)} bytes, shape {dims} of {d.name} "
                f"needs {n * np_dt.itemsize}"
            )
        return d, dims, np.frombuffer(content, dtype=np_dt).reshape(dims)

    field = d.field
    if field == "float8_val":
        raw = tp.float8_val
        vals = np.frombuffer(raw, dtype=np.uint8) if raw else np.zeros(0, np.uint8)
        return d, dims, _broadcast(vals, n, field).reshape(dims)
    if field in ("scomplex_val", "dcomplex_val"):
        part = np.float32 if field == "scomplex_val" else np.float64
        flat = np.asarray(getattr(tp, field), dtype=part)
        if len(flat) % 2:
            raise TensorDecodeError(f"{field} has an odd number of values")
        vals = flat.view(np_dt)
        return d, dims, _broadcast(vals, n, field).reshape(dims)
    raw_vals = getattr(tp, field)
    if field == "half_val":
        vals = np.asarray(raw_vals, dtype=np.int64).astype(np.uint16).view(np_dt)
    elif field == "bool_val":
        vals = np.asarray(raw_vals, dtype=np.bool_)
    elif field == "int_val":
        vals = np.asarray(raw_vals, dtype=np.int64).astype(np_dt)
    else:
        vals = np.asarray(raw_vals, dtype=np_dt)
    return d, dims, _broadcast(vals, n, field).reshape(dims)


def _pack_bits(values: np.ndarray, bits: int) -> np.ndarray:
    """One value per byte -> ``8 // bits`` values per byte, first in the low bits."""
    per = 8 // bits
    flat = (values.reshape(-1).view(np.uint8) & ((1 << bits) - 1)).astype(np.uint8)
    pad = (-len(flat)) % per
    if pad:
        flat = np.concatenate([flat, np.zeros(pad, np.uint8)])
    groups = flat.reshape(-1, per)
    out = np.zeros(len(groups), np.uint8)
    for i in range(per):
        out |= groups[:, i] << (i * bits)
    return out


def payload_attr(
    d: dtypes.DType,
    dims: list[int],
    payload: np.ndarray | list[bytes],
    store: WeightStore | None,
    name_hint: str = "w",
) -> Attribute:
    """The ``tf`` constant attribute of a decoded payload (see the module docstring)."""
    if isinstance(payload, list):
        return StringTensorAttr(
            TensorType(StringType(), dims), ArrayAttr([string_attr(s) for s in payload])
        )
    name = d.xmo
    if name.startswith("tf."):
        raw = np.ascontiguousarray(payload).reshape(-1).view(np.uint8)
        return OpaqueTensorAttr(
            tensor(element_type(name), dims),
            make_constant_attr(raw, "u8", store, name_hint),
        )
    bits = et.PACKED_BITS.get(name)
    if bits is not None:
        packed = _pack_bits(payload, bits)
        ttype = tensor(et.to_xdsl(name), dims)
        if store is None:
            raise TensorDecodeError(f"{name} constants need a weight store")
        return DenseResourceAttr.from_params(store.add(packed, name_hint), ttype)
    want = et.numpy_dtype(name)
    if payload.dtype != want:
        payload = payload.view(want)  # same-size reinterpretation (float8 bytes)
    return make_constant_attr(payload, name, store, name_hint)


def tensor_attr(tp: Any, store: WeightStore | None, name_hint: str = "w") -> Attribute:
    """TensorProto -> ``tf`` constant attribute (raises :class:`TensorDecodeError`)."""
    d, dims, payload = tensor_payload(tp)
    return payload_attr(d, dims, payload, store, name_hint)


def tensor_proto(array: np.ndarray, dtype: str | None = None) -> Any:
    """numpy array -> TensorProto (``tensor_content`` form; strings: ``string_val``).

    ``dtype``: the xmo type name when the numpy dtype is ambiguous (``bf16``
    payloads are uint16, float8 payloads uint8...).
    """
    from xmo.frontends.tf.schema import TensorProto

    arr = np.asarray(array)
    tp = TensorProto()
    for s in arr.shape:
        tp.tensor_shape.dim.add(size=int(s))
    if arr.dtype.kind in "OSU" or dtype == "tf.string":
        tp.dtype = dtypes.BY_XMO["tf.string"]
        tp.string_val.extend(
            v if isinstance(v, bytes) else str(v).encode("utf-8") for v in arr.reshape(-1)
        )
        return tp
    if dtype is None:
        dtype = _xmo_of_numpy(arr.dtype)
    enum = dtypes.enum_of(dtype)
    d = dtypes.DTYPES.get(enum)
    if d is None or d.numpy is None:
        raise TensorDecodeError(f"cannot encode a {dtype} tensor")
    tp.dtype = enum
    tp.tensor_content = np.ascontiguousarray(arr).astype(np.dtype(d.numpy), copy=False).tobytes()
    return tp


def _xmo_of_numpy(dt: np.dtype) -> str:
    if dt == np.complex64:
        return "tf.complex64"
    if dt == np.complex128:
        return "tf.complex128"
    return et.from_numpy(dt)
