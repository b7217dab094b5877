"""Facts of the OpenVINO IR (v11) format shared by the serializer and the reader."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from xmo.errors import BackendError, ModelError

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
        super().__init__("".join(c if c.isprintable() else repr(c)[1:-1] for c in str(msg)))


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
