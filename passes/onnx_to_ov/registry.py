"""Registry of ONNX -> ov converters, keyed by (domain, op type, version range).

A converter is a function ``(node, builder) -> outputs`` registered with
:func:`converter`. ``outputs`` is one ov value per node output (a single value
for single-output nodes; None for an absent optional output).
Converters live in one module per op family next to this one; importing
:mod:`xmo.passes.onnx_to_ov.families` registers them all.

Extensions' extractors (``front/onnx/*.py``, the same ``@converter``) go to
the extension's own table and apply only inside :func:`using_converters`,
before the built-in converters (the mechanism is shared with the TF
registry: :mod:`xmo.passes.to_ov.scoped`).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, MutableMapping, Sequence
from contextlib import AbstractContextManager
from dataclasses import dataclass
from typing import Any

from xdsl.ir import SSAValue

from xmo.passes.onnx_to_ov.builder import Builder, Node
from xmo.passes.to_ov.scoped import ConverterScope

ConverterFn = Callable[[Node, Builder], SSAValue | Sequence[SSAValue | None] | None]

_UNBOUNDED = 1 << 30


@dataclass(frozen=True)
class _Entry:
    fn: ConverterFn
    min_version: int
    max_version: int | None

    @property
    def hi(self) -> int:
        return self.max_version if self.max_version is not None else _UNBOUNDED

    def handles(self, version: int) -> bool:
        return self.min_version <= version <= self.hi


#: (domain, op type) -> the converters of its version ranges
Key = tuple[str, str]
Entries = list[_Entry]

_CONVERTERS: dict[Key, Entries] = {}


def _domain(domain: str) -> str:
    return "" if domain == "ai.onnx" else domain


def _name(key: Key) -> str:
    domain, op_type = key
    return f"{domain}:{op_type}" if domain else op_type


def _overlap(entries: Sequence[_Entry], new: _Entry) -> int | None:
    """The first version both ``new`` and one of ``entries`` handle, if any."""
    for e in entries:
        lo, hi = max(e.min_version, new.min_version), min(e.hi, new.hi)
        if lo <= hi:
            return lo
    return None


class _ONNXScope(ConverterScope[Key, Entries]):
    def describe(self, key: Key) -> str:
        return f"ONNX op {_name(key)}"

    def overlap(self, a: Entries, b: Entries) -> bool:
        return any(_overlap(a, e) is not None for e in b)

    def key(self, op_type: str, domain: str = "") -> Key:
        return (_domain(domain), op_type)

    def value(self, fn: ConverterFn) -> Entries:
        return [_Entry(fn, 1, None)]


#: the capture / scoped tables of ONNX converters
SCOPE = _ONNXScope("onnx")


def add_converter(
    table: MutableMapping[Key, Entries],
    op_type: str,
    fn: ConverterFn,
    *,
    domain: str = "",
    min_version: int = 1,
    max_version: int | None = None,
) -> None:
    """Add ``fn`` for ``op_type`` of ``domain`` to ``table`` (an error when its
    version range overlaps one the table has)."""
    key = (_domain(domain), op_type)
    new = _Entry(fn, min_version, max_version)
    entries = table.setdefault(key, [])
    lo = _overlap(entries, new)
    if lo is not None:
        raise ValueError(f"converters for {key[0] or 'ai.onnx'}:{op_type} overlap at version {lo}")
    entries.append(new)


def converter(
    *op_types: str,
    domain: str = "",
    min_version: int = 1,
    max_version: int | None = None,
) -> Callable[[ConverterFn], ConverterFn]:
    """Register a converter for ``op_types`` of ``domain`` (``""`` = ai.onnx).

    ``min_version``/``max_version`` bound the op's since_version the converter
    handles (both inclusive; for a domain xmo has no schemas for, the
    model's opset version of that domain); overlapping ranges for one op are
    an error.

    Inside :func:`capturing_converters` (the extension loader importing a
    ``front/onnx/`` file) converters go to that extension's own table: they
    apply only to conversions that load the extension. A range overlapping a
    built-in converter's is an error there.
    """

    def register(fn: ConverterFn) -> ConverterFn:
        cap = SCOPE.captured()
        if cap is not None:
            _load()
        for t in op_types:
            if cap is not None:
                key = (_domain(domain), t)
                lo = _overlap(_CONVERTERS.get(key, ()), _Entry(fn, min_version, max_version))
                if lo is not None:
                    raise ValueError(
                        f"a converter for ONNX op {_name(key)} is already built in "
                        f"(version {lo})"
                    )
                add_converter(cap, t, fn, domain=domain, min_version=min_version,
                              max_version=max_version)
                SCOPE.note(key)
                continue
            add_converter(_CONVERTERS, t, fn, domain=domain, min_version=min_version,
                          max_version=max_version)
        return fn

    return register


def capturing_converters(
    table: MutableMapping[Key, Entries], source: str | None = None
) -> AbstractContextManager[None]:
    """``@converter`` registers into ``table`` while the block runs."""
    return SCOPE.capturing(table, source)


def using_converters(*tables: Mapping[Key, Entries]) -> AbstractContextManager[None]:
    """Converters of ``tables`` apply (before built-in ones) while the block runs."""
    return SCOPE.using(*tables)


_loaded = False


def _load() -> None:
    global _loaded
    if not _loaded:
        _loaded = True
        with SCOPE.not_capturing():
            import xmo.passes.onnx_to_ov.families  # noqa: F401  (registers converters)


def _pick(entries: Sequence[_Entry], version: int) -> ConverterFn | None:
    for e in entries:
        if e.handles(version):
            return e.fn
    return None


def lookup(domain: str, op_type: str, version: int, *, builtins: bool = True) -> ConverterFn | None:
    """The converter for an op type at a since_version, if any: the active
    extension tables first, then (unless ``builtins`` is False) the built-in
    converters."""
    _load()
    key = (_domain(domain), op_type)
    for entries in SCOPE.find(key):
        fn = _pick(entries, version)
        if fn is not None:
            return fn
    return _pick(_CONVERTERS.get(key, ()), version) if builtins else None


def registered() -> dict[tuple[str, str], Any]:
    """(domain, op type) -> version ranges the built-in converters handle
    (for reports and tests)."""
    _load()
    return {
        k: [(e.min_version, e.max_version) for e in v] for k, v in _CONVERTERS.items()
    }


__all__ = [
    "SCOPE",
    "ConverterFn",
    "add_converter",
    "capturing_converters",
    "converter",
    "lookup",
    "registered",
    "using_converters",
]
