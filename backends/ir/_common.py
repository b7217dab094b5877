"""Facts of the OpenVINO IR (v11) format shared by the serializer and the reader."""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from xmo.errors import BackendError, ModelError, printable

#: OpenVINO element type name -> port ``precision`` string, as OpenVINO's own
#: serializer writes it (note ``u1`` -> ``BIN``).
PRECISION_OF: dict[str, str] = {
    "f32": "FP32",
    "f16": "FP16",
    "bf16": "BF16",
    "f64": "FP64",
    "i4": "I4",
    "i8": "I8",
    "i16": "I16",
    "i32": "I32",
    "i64": "I64",
    "u1": "BIN",
    "u4": "U4",
    "u8": "U8",
    "u16": "U16",
    "u32": "U32",
    "u64": "U64",
    "boolean": "BOOL",
    "u2": "U2",
    "f8e4m3": "F8E4M3",
    "f8e5m2": "F8E5M2",
    "f8e8m0": "F8E8M0",
    "f4e2m1": "F4E2M1",
}

#: port ``precision`` string -> element type name (a few aliases accepted).
ELEMENT_TYPE_OF_PRECISION: dict[str, str] = {v: k for k, v in PRECISION_OF.items()}
ELEMENT_TYPE_OF_PRECISION["U1"] = "u1"

#: Op types whose IR ``type`` differs from OpenVINO's op type name (OpenVINO's
#: serializer writes these spellings; its reader accepts them).
IR_TYPE_OF_OV_TYPE = {
    "Constant": "Const",
    "Relu": "ReLU",
    "PRelu": "PReLU",
    "Softmax": "SoftMax",
}
OV_TYPE_OF_IR_TYPE = {v: k for k, v in IR_TYPE_OF_OV_TYPE.items()}

#: Shape attribute text of a dynamic-rank shape (``<port>`` then has no ``<dim>``).
DYNAMIC_RANK_SHAPE = "..."


class IRWriteError(BackendError, ValueError):
    """A module that cannot be written as OpenVINO IR."""


class IRReadError(ModelError):
    """An OpenVINO IR file that is malformed or contradicts itself."""

    def __init__(self, msg: object = "") -> None:
        # names from the file may hold newlines / control characters: escape them
        super().__init__(printable(str(msg)))


#: characters XML 1.0 cannot hold, even as references (names from a model may have them)
_XML_ILLEGAL = "\x00-\x08\x0b\x0c\x0e-\x1f\ud800-\udfff\ufffe\uffff"
#: what :func:`escape_illegal` rewrites: a character XML cannot hold, or a
#: backslash that would otherwise read as the start of an escape
_TO_ESCAPE = re.compile(rf"[{_XML_ILLEGAL}]|\\(?=x[0-9a-fA-F]{{2}}|u[0-9a-fA-F]{{4}})")
#: the escapes :func:`escape_illegal` writes
_ESCAPED = re.compile(r"\\(?:x([0-9a-fA-F]{2})|u([0-9a-fA-F]{4}))")


def _escape_one(m: re.Match[str]) -> str:
    c = ord(m.group())
    return f"\\x{c:02x}" if c < 0x100 else f"\\u{c:04x}"


def escape_illegal(text: str) -> str:
    """``text`` as an IR attribute value can hold it (before XML's own
    escaping): a character XML 1.0 cannot hold even as a reference becomes
    ``\\xHH`` / ``\\uHHHH``, and so does a backslash that starts what would
    read as one of these (``\\x41`` is written ``\\x5cx41``). All other text,
    backslashes included, is written as it is (as OpenVINO writes it).
    Reversible: :func:`unescape_illegal`."""
    return _TO_ESCAPE.sub(_escape_one, text)


def unescape_illegal(text: str) -> str:
    """Inverse of :func:`escape_illegal`: ``\\xHH`` and ``\\uHHHH`` are the
    escapes, any other backslash is itself."""
    if "\\" not in text:
        return text
    return _ESCAPED.sub(lambda m: chr(int(m.group(1) or m.group(2), 16)), text)


def escape_names(names: Iterable[str]) -> str:
    """Tensor names as a port ``names`` value: comma-separated, ``,`` -> ``\\,``."""
    return ",".join(n.replace(",", "\\,") for n in names)


def unescape_names(text: str) -> list[str]:
    """Inverse of :func:`escape_names` (only ``\\,`` is an escape)."""
    names: list[str] = []
    cur: list[str] = []
    i = 0
    while i < len(text):
        ch = text[i]
        if ch == "\\" and i + 1 < len(text) and text[i + 1] == ",":
            cur.append(",")
            i += 2
            continue
        if ch == ",":
            names.append("".join(cur).strip())
            cur = []
        else:
            cur.append(ch)
        i += 1
    names.append("".join(cur).strip())
    return [n for n in names if n]


def shape_text(dims: Sequence[int] | None, sep: str = ",") -> str:
    """A shape as a ``<data shape=...>`` value (``?`` dynamic, ``...`` dynamic rank)."""
    if dims is None:
        return DYNAMIC_RANK_SHAPE
    return sep.join("?" if d < 0 else str(int(d)) for d in dims)


def parse_shape_text(text: str) -> list[int] | None:
    """Parse a ``shape`` attribute: ``1,?,3..8,-1`` (bounds are dropped) or ``...``."""
    text = text.strip()
    if text == DYNAMIC_RANK_SHAPE:
        return None
    text = text.strip("[]").strip()
    if not text:
        return []
    dims: list[int] = []
    for part in text.split(","):
        part = part.strip()
        if part in ("?", "-1") or ".." in part:
            if ".." in part:
                lo, _, hi = part.partition("..")
                if lo and hi and lo.strip() == hi.strip():
                    dims.append(int(lo))
                    continue
                # validate the bounds are numbers
                for b in (lo, hi):
                    if b.strip():
                        int(b)
            dims.append(-1)
            continue
        d = int(part)
        if d < 0:
            raise ValueError(f"negative dimension {d}")
        dims.append(d)
    return dims
