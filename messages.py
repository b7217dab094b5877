"""Error lines: text from a model or a file system, shown on one line.

Names, paths and parser messages may hold newlines, NULs or terminal escape
sequences; an error line shows them as Python escapes (``\\n``, ``\\x00``,
``\\x1b``) so that it stays one line and prints nothing but text.
"""

from __future__ import annotations

__all__ = ["printable"]


def printable(text: str) -> str:
    """``text`` with every non-printable character as its Python escape."""
    if text.isprintable():
        return text
    return "".join(c if c.isprintable() else repr(c)[1:-1] for c in text)
