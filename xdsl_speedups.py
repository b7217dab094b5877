"""Targeted speed-ups of xDSL 0.75 internals that xmo's workloads hit hard.

* The attribute parser rebuilds the IRDL constraint
  ``base(RankedStructure[IntegerType | IndexType | AnyFloat | ComplexType])`` for
  every ``dense<...>`` literal it parses (~5 ms each: most of the time of parsing
  a module with many small constants). The constraint depends only on its
  (hashable, static) argument, so it is memoized for that module.

* The MLIR lexer's string-literal regex nests ``[^"...]+`` inside ``(...)*``:
  an unterminated ``"`` (a malformed ``.mlir`` file) makes it backtrack
  exponentially in the length of the rest of the line (minutes, in C code no
  signal interrupts). The same language without the inner ``+`` matches in
  linear time (its two alternatives start with different characters).

Applied once, on import of :mod:`xmo.context`. Behaviour is unchanged.
"""

from __future__ import annotations

import functools

from xdsl.parser import attribute_parser as _attribute_parser

_applied = False


def apply() -> None:
    global _applied
    if _applied:
        return
    _applied = True
    original = _attribute_parser.base

    @functools.lru_cache(maxsize=64)
    def _cached(constraint):  # noqa: ANN001
        return original(constraint)

    def base(constraint):  # noqa: ANN001
        try:
            return _cached(constraint)
        except TypeError:  # unhashable argument: no caching
            return original(constraint)

    _attribute_parser.base = base  # type: ignore[attr-defined]

    import re

    from xdsl.utils.mlir_lexer import MLIRLexer

    MLIRLexer._unescaped_characters_regex = re.compile(  # type: ignore[attr-defined]
        r'"(?:[^"\\\n\v\f]|\\(?:["nt\\]|[0-9A-Fa-f]{2}))*"'
    )
