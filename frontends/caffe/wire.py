"""The binary ``.caffemodel`` read without copying its weights into lists.

A caffemodel is a serialized ``NetParameter``. Its blobs (``BlobProto.data``,
a packed ``repeated float``) would come out of the protobuf runtime as
containers of Python floats; here the protobuf wire format is walked
directly and each blob becomes a ``numpy`` view of the file's bytes
(``np.frombuffer``, little-endian ``float32``/``float64``). Everything else
of a layer (name, type, bottoms, tops, params) is handed to the protobuf
runtime without its blobs (:func:`read_caffemodel`).

Truncated or malformed input raises :class:`WireError` (one line, with the
byte offset).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from xmo.errors import ModelError
from xmo.frontends.caffe import schema


class WireError(ModelError):
    """The bytes are not a well-formed protobuf message."""


_VARINT, _I64, _LEN, _I32 = 0, 1, 2, 5


def _varint(buf: memoryview, pos: int, end: int) -> tuple[int, int]:
    result = shift = 0
    while True:
        if pos >= end:
            raise WireError(f"truncated varint at byte {pos}")
        b = buf[pos]
        pos += 1
        result |= (b & 0x7F) << shift
        if not b & 0x80:
            return result, pos
        shift += 7
        if shift > 63:
            raise WireError(f"varint too long at byte {pos}")


def fields(buf: memoryview, start: int, end: int):  # noqa: ANN201 - a generator
    """``(number, wire type, value start, value end, field start)`` of each field
    of the message in ``buf[start:end]`` (for varints: value start .. end of
    the varint)."""
    pos = start
    while pos < end:
        first = pos
        key, pos = _varint(buf, pos, end)
        number, wt = key >> 3, key & 7
        if number == 0:
            raise WireError(f"field number 0 at byte {first}")
        if wt == _VARINT:
            vstart = pos
            _, pos = _varint(buf, pos, end)
            yield number, wt, vstart, pos, first
            continue
        if wt == _I64:
            size = 8
        elif wt == _I32:
            size = 4
        elif wt == _LEN:
            size, pos = _varint(buf, pos, end)
        else:
            raise WireError(f"unsupported wire type {wt} at byte {first}")
        if pos + size > end:
            raise WireError(f"field {number} at byte {first} runs past the end ({size} bytes)")
        yield number, wt, pos, pos + size, first
        pos += size


@dataclass
class RawLayer:
    """One layer of a caffemodel: its message without blobs, and its blobs."""

    message: Any  # LayerParameter / V1LayerParameter (blobs left out)
    blobs: list[np.ndarray] = field(default_factory=list)
    v1: bool = False


def _blob(buf: memoryview, start: int, end: int, where: str) -> np.ndarray:
    dims: list[int] | None = None
    legacy = [0, 0, 0, 0]
    data: np.ndarray | None = None
    for number, wt, a, b, _ in fields(buf, start, end):
        if number == 7 and wt == _LEN:  # shape (BlobShape)
            dims = []
            for n2, wt2, a2, b2, _ in fields(buf, a, b):
                if n2 != 1:
                    continue
                if wt2 == _LEN:  # packed dims
                    p = a2
                    while p < b2:
                        d, p = _varint(buf, p, b2)
                        dims.append(d - (1 << 64) if d >= 1 << 63 else d)
                else:
                    dims.append(_varint(buf, a2, b2)[0])
        elif number in (5, 8) and wt == _LEN:  # packed data / double_data
            dt = np.dtype("<f4") if number == 5 else np.dtype("<f8")
            if (b - a) % dt.itemsize:
                raise WireError(f"{where}: blob data of {b - a} bytes is not whole values")
            data = np.frombuffer(buf, dtype=dt, count=(b - a) // dt.itemsize, offset=a)
        elif number in (5, 8):
            raise WireError(f"{where}: unpacked blob data is not supported")
        elif 1 <= number <= 4 and wt == _VARINT:
            legacy[number - 1] = _varint(buf, a, b)[0]
    if data is None:
        data = np.zeros(0, np.float32)
    if dims is None:
        dims = legacy if any(legacy) else [data.size]
    count = int(np.prod(dims)) if dims else 1
    if count != data.size:
        raise WireError(f"{where}: blob of shape {dims} holds {data.size} values")
    return data.reshape(dims)


def read_caffemodel(data: bytes) -> tuple[Any, list[RawLayer]]:
    """``(net, layers)`` of a serialized NetParameter: ``net`` holds the
    net-level fields (its ``layer``/``layers`` empty), ``layers`` each layer
    (``layer`` and V1 ``layers`` in file order) with its blobs as views of
    ``data``. Raises :class:`WireError` or protobuf's ``DecodeError``."""
    buf = memoryview(data)
    rest = bytearray()
    layers: list[RawLayer] = []
    for number, wt, a, b, first in fields(buf, 0, len(buf)):
        if wt == _LEN and number in (schema.NET_LAYER_FIELD, schema.NET_V1_LAYERS_FIELD):
            v1 = number == schema.NET_V1_LAYERS_FIELD
            layers.append(_layer(buf, a, b, v1, len(layers)))
        else:
            rest += buf[first:b]
    net = schema.NetParameter()
    net.ParseFromString(bytes(rest))
    return net, layers


def _layer(buf: memoryview, start: int, end: int, v1: bool, index: int) -> RawLayer:
    blobs_field = schema.V1_BLOBS_FIELD if v1 else schema.LAYER_BLOBS_FIELD
    rest = bytearray()
    spans: list[tuple[int, int]] = []
    for number, wt, a, b, first in fields(buf, start, end):
        if number == blobs_field and wt == _LEN:
            spans.append((a, b))
        else:
            rest += buf[first:b]
    msg = (schema.V1LayerParameter if v1 else schema.LayerParameter)()
    msg.ParseFromString(bytes(rest))
    where = f"layer '{msg.name}'" if msg.name else f"layer #{index}"
    blobs = [_blob(buf, a, b, f"{where} blob {i}") for i, (a, b) in enumerate(spans)]
    return RawLayer(msg, blobs, v1)


__all__ = ["RawLayer", "WireError", "fields", "read_caffemodel"]
