"""MXNet attribute strings -> Python values, for converters.

MXNet writes every operator attribute as a string: ``"(3, 3)"``, ``"[1,1]"``,
``"True"``, ``"1"``, ``"None"``, ``"relu"``. These read them with the
operator's default when the attribute is absent; a malformed value makes the
node unsupported (``node.unsupported``), naming the attribute.
"""

from __future__ import annotations

from collections.abc import Sequence

from xmo.passes.to_ov.builder import ConverterNode

_TRUE = ("true", "1")
_FALSE = ("false", "0")


def text(node: ConverterNode, name: str, default: str | None = None) -> str | None:
    v = node.attr(name, None)
    return default if v is None else str(v)


def flag(node: ConverterNode, name: str, default: bool) -> bool:
    v = text(node, name)
    if v is None:
        return default
    low = v.strip().lower()
    if low in _TRUE:
        return True
    if low in _FALSE:
        return False
    raise node.unsupported(f"attribute {name}={v!r} is not a boolean")


def integer(node: ConverterNode, name: str, default: int | None = None) -> int | None:
    v = text(node, name)
    if v is None or v.strip() == "None":
        return default
    try:
        return int(v)
    except ValueError:
        raise node.unsupported(f"attribute {name}={v!r} is not an integer") from None


def number(node: ConverterNode, name: str, default: float | None = None) -> float | None:
    v = text(node, name)
    if v is None or v.strip() == "None":
        return default
    try:
        return float(v)
    except ValueError:
        raise node.unsupported(f"attribute {name}={v!r} is not a number") from None


def _items(node: ConverterNode, name: str, v: str) -> list[str]:
    s = v.strip()
    if s.startswith(("(", "[")) and s.endswith((")", "]")):
        s = s[1:-1]
    return [x.strip() for x in s.split(",") if x.strip()]


def ints(node: ConverterNode, name: str, default: Sequence[int] = ()) -> list[int]:
    """A tuple of ints (``"(3, 3)"``, ``"[3,3]"``, ``"3"``)."""
    v = text(node, name)
    if v is None or v.strip() == "None":
        return list(default)
    try:
        return [int(x) for x in _items(node, name, v)]
    except ValueError:
        raise node.unsupported(f"attribute {name}={v!r} is not a tuple of integers") from None


def opt_ints(node: ConverterNode, name: str) -> list[int | None] | None:
    """A tuple of ints where ``None`` entries are allowed (``slice`` bounds)."""
    v = text(node, name)
    if v is None or v.strip() == "None":
        return None
    try:
        return [None if x == "None" else int(x) for x in _items(node, name, v)]
    except ValueError:
        raise node.unsupported(f"attribute {name}={v!r} is not a tuple of integers") from None


def numbers(node: ConverterNode, name: str, default: Sequence[float] = ()) -> list[float]:
    v = text(node, name)
    if v is None or v.strip() == "None":
        return list(default)
    try:
        return [float(x) for x in _items(node, name, v)]
    except ValueError:
        raise node.unsupported(f"attribute {name}={v!r} is not a tuple of numbers") from None


def choice(node: ConverterNode, name: str, default: str, allowed: Sequence[str]) -> str:
    v = (text(node, name) or default).strip()
    if v not in allowed:
        raise node.unsupported(f"{name}={v!r} (supported: {', '.join(allowed)})")
    return v


__all__ = ["choice", "flag", "integer", "ints", "number", "numbers", "opt_ints", "text"]
