"""Large initializer payloads read in place from the ONNX file.

Parsing a ``ModelProto`` copies every ``raw_data`` field into the message,
and reading ``TensorProto.raw_data`` copies it again: a 100 MB model costs
two copies and twice its size in memory before the first pass runs (0.2-0.3 s
of resnet50's and convnext_tiny's conversion). :func:`lift_payloads` walks the
file's protobuf wire format instead (only the model's and the main graph's
fields, and each initializer's) and returns the message without the large
payloads: each lifted initializer carries, in their place, external data that
points back into the model file (location :data:`LIFTED`, its offset and
length), so the loader takes it as a view of the file's map, as it takes
external data (for the spans this walk lifted only: a tensor that names
:data:`LIFTED` itself is refused like any location with a NUL).

Only well-formed payloads are lifted: one ``raw_data`` field of exactly the
size its data type and dims give, no ``segment``, ``external_data`` or
``data_location`` field (the loader copies one that sits at a file offset not
aligned to its element size, as it does external data). Any other tensor,
and any file whose wire format this walk does not understand, keeps the plain
parse (its errors are worded there).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator

#: external-data location of a lifted payload. It starts with NUL, which no
#: real location may contain (:class:`xmo.frontends.onnx.tensors.ExternalData`
#: refuses it), so it cannot name a file.
LIFTED = "\x00model-file"

_LEN, _VARINT, _I64, _I32 = 2, 0, 1, 5
# field numbers (onnx.proto3)
_MODEL_GRAPH = 7
_GRAPH_INITIALIZER = 5
_T_DIMS, _T_DATA_TYPE, _T_SEGMENT, _T_RAW = 1, 2, 3, 9
_T_EXTERNAL, _T_LOCATION = 13, 14


#: a message as the pieces to join: spans of the file and new bytes
Pieces = list[memoryview | bytes]


class _Malformed(Exception):
    """Wire bytes this walk does not follow (the plain parse words it)."""


def _varint(buf: memoryview, i: int) -> tuple[int, int]:
    b = buf[i]
    if b < 0x80:
        return b, i + 1
    value, shift = b & 0x7F, 7
    i += 1
    while True:
        b = buf[i]
        i += 1
        value |= (b & 0x7F) << shift
        if b < 0x80:
            return value, i
        shift += 7
        if shift > 63:
            raise _Malformed


def _encode_varint(n: int) -> bytes:
    out = bytearray()
    while n >= 0x80:
        out.append((n & 0x7F) | 0x80)
        n >>= 7
    out.append(n)
    return bytes(out)


def _fields(buf: memoryview, start: int, end: int) -> Iterator[tuple[int, int, int, int, int]]:
    """(field, wire type, start of its tag, start of its value, end) of each
    field in ``buf[start:end]``."""
    i = start
    try:
        while i < end:
            tag_at = i
            tag, i = _varint(buf, i)
            field, wire = tag >> 3, tag & 7
            if wire == _LEN:
                n, i = _varint(buf, i)
                j = i + n
            elif wire == _VARINT:
                _, j = _varint(buf, i)
            elif wire == _I64:
                j = i + 8
            elif wire == _I32:
                j = i + 4
            else:  # groups: not in onnx.proto
                raise _Malformed
            if j > end or field == 0:
                raise _Malformed
            yield field, wire, tag_at, i, j
            i = j
    except IndexError:
        raise _Malformed from None


def _len_header(field: int, n: int) -> bytes:
    return _encode_varint(field << 3 | _LEN) + _encode_varint(n)


def _entry(key: str, value: str) -> bytes:
    k, v = key.encode(), value.encode()
    body = _len_header(1, len(k)) + k + _len_header(2, len(v)) + v
    return _len_header(_T_EXTERNAL, len(body)) + body


def _tensor(
    buf: memoryview, start: int, end: int, above: int,
    nbytes: Callable[[int, int], int | None], spans: set[tuple[int, int]],
) -> Pieces | None:
    """The initializer ``buf[start:end]`` with its payload lifted (the new
    body in pieces; the payload's span added to ``spans``), or None when it
    keeps its payload."""
    dims: list[int] = []
    data_type = 0
    raw: tuple[int, int, int] | None = None
    for field, wire, tag_at, at, to in _fields(buf, start, end):
        if field == _T_RAW:
            if raw is not None or wire != _LEN:
                return None
            raw = (tag_at, at, to)
        elif field in (_T_SEGMENT, _T_EXTERNAL, _T_LOCATION):
            return None
        elif field == _T_DATA_TYPE and wire == _VARINT:
            data_type = _varint(buf, at)[0]
        elif field == _T_DIMS:
            if wire == _VARINT:
                dims.append(_varint(buf, at)[0])
            elif wire == _LEN:
                i = at
                while i < to:
                    d, i = _varint(buf, i)
                    dims.append(d)
                if i != to:
                    return None
            else:
                return None
    if raw is None:
        return None
    tag_at, at, to = raw
    length = to - at
    if length <= above or any(d >= 1 << 63 for d in dims):
        return None  # (a negative dim is a 10-byte varint >= 2**63)
    want = nbytes(data_type, math.prod(dims))
    if want is None or want != length:
        return None
    spans.add((at, length))
    lifted = (_entry("location", LIFTED) + _entry("offset", str(at))
              + _entry("length", str(length)) + bytes((_T_LOCATION << 3 | _VARINT, 1)))
    return [buf[start:tag_at], buf[to:end], lifted]


def _rewritten(
    buf: memoryview, start: int, end: int, field_no: int,
    body_of: Callable[[int, int], Pieces | None],
) -> Pieces | None:
    """The message ``buf[start:end]`` in pieces, each length-delimited field
    ``field_no`` replaced by ``body_of(its start, its end)`` under a new
    length (a field for which it gives None is kept); None when none is
    replaced."""
    pieces: Pieces = []
    copied = start
    for field, wire, tag_at, at, to in _fields(buf, start, end):
        if field != field_no or wire != _LEN:
            continue
        body = body_of(at, to)
        if body is None:
            continue
        pieces.append(buf[copied:tag_at])
        pieces.append(_len_header(field, sum(len(p) for p in body)))
        pieces.extend(body)
        copied = to
    if not pieces:
        return None
    pieces.append(buf[copied:end])
    return pieces


def lift_payloads(
    buf: memoryview, above: int, nbytes: Callable[[int, int], int | None]
) -> tuple[bytes, frozenset[tuple[int, int]]] | None:
    """The serialized ``ModelProto`` in ``buf`` with the main graph's
    initializer payloads of more than ``above`` lifted (see the module
    docstring) and the (offset, length) of each lifted payload (the loader
    honours :data:`LIFTED` for those only); None when none is lifted (or the
    walk gives up). ``nbytes(data type, element count)`` is a payload's size
    (None: a type never lifted)."""
    spans: set[tuple[int, int]] = set()

    def tensor(at: int, to: int) -> Pieces | None:
        return _tensor(buf, at, to, above, nbytes, spans) if to - at > above else None

    try:
        pieces = _rewritten(buf, 0, len(buf), _MODEL_GRAPH,
                            lambda at, to: _rewritten(buf, at, to, _GRAPH_INITIALIZER, tensor))
    except (_Malformed, IndexError):
        return None
    return None if pieces is None else (b"".join(pieces), frozenset(spans))
