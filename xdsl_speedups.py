"""Fixes of two xDSL 0.75 internals that xmo's parsing hits hard (docs/xdsl-patches.md).

* ``dense-type-constraint``: the attribute parser rebuilds the IRDL constraint
  ``base(RankedStructure[IntegerType | IndexType | AnyFloat | ComplexType])``
  for every ``dense<...>`` literal it parses, most of the time of parsing a
  module with many small constants. The constraint depends only on its
  (hashable, static) argument, so the parser's ``base`` is memoized.
* ``string-literal-redos``: the MLIR lexer's string-literal regex nests
  ``[^"...]+`` inside ``(...)*``; an unterminated ``"`` (a malformed ``.mlir``
  file) makes it backtrack exponentially in the length of the rest of the line
  (minutes, in C code no signal interrupts). The same language without the
  inner ``+`` matches in linear time (its two alternatives start with
  different characters, so every string has one parse).

Nothing is patched on import. :func:`apply` patches the running process's xDSL
and is called where xmo parses textual IR: the ``xmo`` and ``xmo-opt``
commands and :func:`xmo.read_model` on ``.mlir`` files. A program that imports
xmo and never has it parse keeps xDSL as shipped.

Each patch first checks that xDSL is a release it was checked against
(:data:`VERIFIED_XDSL`) and that what it replaces is still there and still what
it expects; otherwise it leaves xDSL alone and says why, once, on the
``xmo.xdsl_speedups`` logger at debug level. :func:`status` tells what happened.
Parse results are the same either way; only time differs.
"""

from __future__ import annotations

import functools
import logging
import os
import re
import threading
from collections.abc import Callable
from dataclasses import dataclass

_log = logging.getLogger(__name__)

VERIFIED_XDSL = ("0.75",)
"""xDSL releases (major.minor) whose internals these patches, and the ov ops'
specialised verifier (:func:`xmo.dialects.ov.base.ov_op`), were checked against."""

XDSL_STRING_LITERAL = r'"(?:[^"\\\n\v\f]+|\\(?:["nt\\]|[0-9A-Fa-f]{2}))*"'
"""``MLIRLexer._unescaped_characters_regex`` as xDSL 0.75 ships it."""

LINEAR_STRING_LITERAL = r'"(?:[^"\\\n\v\f]|\\(?:["nt\\]|[0-9A-Fa-f]{2}))*"'
"""The same language, matched in linear time."""


def xdsl_version() -> str:
    """The running xDSL's version. xDSL's own ``__version__`` asks
    ``importlib.metadata`` (importing it and finding the distribution: up to
    17 ms of a start-up), so an installed xDSL's version is read off its
    ``xdsl-<version>.dist-info`` folder beside the package; a version set or
    resolved already wins."""
    import xdsl

    v = getattr(xdsl, "__version__", None)
    known = v if isinstance(v, str) else getattr(v, "_version", None)
    if isinstance(known, str):
        return known
    site = os.path.dirname(os.path.dirname(os.path.abspath(xdsl.__file__ or "")))
    try:
        found = [n[5:-10] for n in os.listdir(site) if n.startswith("xdsl-") and n.endswith(".dist-info")]
    except OSError:
        found = []
    return found[0] if len(found) == 1 else str(v if v is not None else "unknown")


def xdsl_is_verified() -> bool:
    """Whether the running xDSL is a release listed in :data:`VERIFIED_XDSL`."""
    return ".".join(xdsl_version().split(".")[:2]) in VERIFIED_XDSL


@dataclass(frozen=True)
class Patch:
    name: str
    mismatch: Callable[[], str | None]
    """Why the patch cannot be applied to this xDSL, or None when it can."""
    install: Callable[[], None]


def _dense_type_constraint_mismatch() -> str | None:
    from xdsl import irdl
    from xdsl.parser import attribute_parser

    if getattr(attribute_parser, "base", None) is not irdl.base:
        return "xdsl.parser.attribute_parser.base is not xdsl.irdl.base"
    if not hasattr(attribute_parser.AttrParser, "_parse_dense_literal_type"):
        return "AttrParser._parse_dense_literal_type, its caller, is gone"
    return None


def _install_dense_type_constraint() -> None:
    from xdsl.parser import attribute_parser

    original = attribute_parser.base

    @functools.lru_cache(maxsize=64)
    def cached(constraint):  # noqa: ANN001
        return original(constraint)

    def base(constraint):  # noqa: ANN001
        try:
            return cached(constraint)
        except TypeError:  # an unhashable argument: no caching
            return original(constraint)

    attribute_parser.base = base  # type: ignore[attr-defined]


def _string_literal_mismatch() -> str | None:
    from xdsl.utils.mlir_lexer import MLIRLexer

    regex = getattr(MLIRLexer, "_unescaped_characters_regex", None)
    if not isinstance(regex, re.Pattern):
        return "MLIRLexer._unescaped_characters_regex is gone"
    if regex.pattern != XDSL_STRING_LITERAL or regex.flags != re.compile("").flags:
        return "MLIRLexer._unescaped_characters_regex is not the expected regex"
    return None


def _install_string_literal() -> None:
    from xdsl.utils.mlir_lexer import MLIRLexer

    MLIRLexer._unescaped_characters_regex = re.compile(LINEAR_STRING_LITERAL)  # type: ignore[attr-defined]


PATCHES = (
    Patch("dense-type-constraint", _dense_type_constraint_mismatch, _install_dense_type_constraint),
    Patch("string-literal-redos", _string_literal_mismatch, _install_string_literal),
)

_status: dict[str, str] = {}
_lock = threading.Lock()


def apply() -> None:
    """Patch this process's xDSL (once; later calls do nothing)."""
    with _lock:
        if _status:
            return
        unverified = None
        if not xdsl_is_verified():
            unverified = f"xDSL {xdsl_version()} is not a release it was checked on ({', '.join(VERIFIED_XDSL)})"
        for patch in PATCHES:
            reason = unverified or patch.mismatch()
            if reason is None:
                patch.install()
                _status[patch.name] = "applied"
            else:
                _status[patch.name] = f"not applied: {reason}"
                _log.debug("xDSL patch %s not applied: %s", patch.name, reason)


def status() -> dict[str, str]:
    """Per patch, ``applied`` or ``not applied: <why>``; empty before :func:`apply`."""
    with _lock:
        return dict(_status)
