"""The one registry of framework op -> ov converters.

A converter is a function ``(node, builder) -> outputs``
(:class:`~xmo.passes.to_ov.builder.ConverterNode`,
:class:`~xmo.passes.to_ov.builder.Builder`); ``outputs`` is one ov value per
node output (a single value for single-output nodes; None for an output the
converter does not produce).

The built-in converters of every frontend are kept in one table keyed by
``(framework, domain, op type)``, each key holding the version ranges of its
converters (:class:`ConverterEntry`). Each frontend declares its key rules
once with a :class:`FrameworkConverters` (in its own ``registry`` module,
which also keeps the frontend's decorator: ``@converter`` for ONNX,
``@tf_converter`` for TF):

* ``versioned`` frameworks (ONNX) key ops by ``(domain, op type)`` and give
  each converter the range of since_versions it handles; the lookup is
  strict: a version no range holds has no converter. Frameworks without
  versions (TF) key ops by op type alone; their converters hold every
  version.
* One collision rule: a converter whose range overlaps a range already
  registered for its key is an error naming both converters -- among the
  built-ins, within one extension's table, and between an extension's
  converter and a built-in one.

Extensions' converters (``front/<framework>/*.py``, the same decorators) go
to the extension's own table and apply only inside
:meth:`~xmo.passes.to_ov.scoped.ConverterScope.using`, before the built-in
ones (:mod:`xmo.passes.to_ov.scoped`; :class:`FrameworkConverters` is the
framework's :class:`~xmo.passes.to_ov.scoped.ConverterScope`).
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Iterable, MutableMapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from xmo.passes.to_ov.scoped import ConverterScope

ConverterFn = Callable[[Any, Any], Any]

#: the upper bound of a range without ``max_version``
UNBOUNDED = 1 << 30


@dataclass(frozen=True)
class ConverterEntry:
    """One converter and the versions it handles (both bounds inclusive)."""

    fn: ConverterFn
    min_version: int = 1
    max_version: int | None = None

    @property
    def hi(self) -> int:
        return self.max_version if self.max_version is not None else UNBOUNDED

    def handles(self, version: int | None) -> bool:
        """Whether the converter applies at ``version`` (None: any version)."""
        return version is None or self.min_version <= version <= self.hi

    def first_common_version(self, other: ConverterEntry) -> int | None:
        """The first version both entries handle, None when they are disjoint."""
        lo, hi = max(self.min_version, other.min_version), min(self.hi, other.hi)
        return lo if lo <= hi else None


#: the folder of the xmo package (its files are named ``xmo/...`` in messages)
_XMO_ROOT = Path(__file__).resolve().parents[2]


def describe_converter(fn: ConverterFn) -> str:
    """A converter for messages: its name and where it is defined."""
    name = getattr(fn, "__qualname__", None) or repr(fn)
    code = getattr(fn, "__code__", None)
    if code is None:
        return name
    path = Path(code.co_filename)
    if path.is_relative_to(_XMO_ROOT):
        path = Path("xmo") / path.relative_to(_XMO_ROOT)
    return f"{name} ({path}:{code.co_firstlineno})"


#: the built-in converters: (framework, domain, op type) -> their version ranges
_BUILTIN: dict[tuple[str, str, str], list[ConverterEntry]] = {}


class FrameworkConverters(ConverterScope[Any, Any]):
    """One framework's part of the registry: its key rules, its built-in
    converters, and (as a :class:`~xmo.passes.to_ov.scoped.ConverterScope`)
    the extension tables active for a conversion.

    ``label``: the framework in messages (``ONNX op com.example:Scale``);
    ``versioned``: whether ops have versions (see the module docstring);
    ``families``: the module whose import registers the built-in converters
    (imported on first use); ``default_domain``: the name of the domain
    ``""`` (ONNX: ``ai.onnx``, also accepted as a domain).

    Keys of extension tables: ``(domain, op type)`` for versioned
    frameworks, the op type otherwise; their values: a list of
    :class:`ConverterEntry` for versioned frameworks, the converter itself
    otherwise (so a plain ``{op type: converter}`` dict is a TF table).
    """

    def __init__(
        self,
        framework: str,
        label: str,
        *,
        versioned: bool,
        families: str | None = None,
        default_domain: str = "",
    ) -> None:
        super().__init__(framework)
        self.label = label
        self.versioned = versioned
        self.families = families
        self.default_domain = default_domain
        self._loaded = families is None

    # -- keys --------------------------------------------------------------------------
    def domain(self, domain: str) -> str:
        """The domain as keys hold it (``""`` for the default domain)."""
        if not self.versioned:
            return ""
        return "" if domain == self.default_domain else domain

    def key(self, op_type: str, domain: str = "") -> Any:
        return (self.domain(domain), op_type) if self.versioned else op_type

    def qualified_name(self, key: Any) -> str:
        """``domain:op`` (the op alone in the default domain or without domains)."""
        if not self.versioned:
            return str(key)
        domain, op_type = key
        return f"{domain}:{op_type}" if domain else op_type

    def describe(self, key: Any) -> str:
        return f"{self.label} op {self.qualified_name(key)}"

    # -- table values ------------------------------------------------------------------
    def value(self, fn: ConverterFn) -> Any:
        return [ConverterEntry(fn)] if self.versioned else fn

    def entries(self, value: Any) -> Sequence[ConverterEntry]:
        """The version ranges a table value holds (see the class docstring)."""
        if value is None:
            return ()
        return value if self.versioned else (ConverterEntry(value),)

    def overlap(self, a: Any, b: Any) -> bool:
        return any(_clash(self.entries(a), e) is not None for e in self.entries(b))

    # -- registration ------------------------------------------------------------------
    def decorator(
        self,
        op_types: Sequence[str],
        *,
        domain: str = "",
        min_version: int = 1,
        max_version: int | None = None,
    ) -> Callable[[ConverterFn], ConverterFn]:
        """What the frontend's decorator returns: registers the decorated
        converter for ``op_types`` (built in, or into the extension table
        being captured, see :meth:`register`)."""

        def register(fn: ConverterFn) -> ConverterFn:
            self.register(op_types, fn, domain=domain, min_version=min_version,
                          max_version=max_version)
            return fn

        return register

    def register(
        self,
        op_types: Iterable[str],
        fn: ConverterFn,
        *,
        domain: str = "",
        min_version: int = 1,
        max_version: int | None = None,
    ) -> None:
        """Register ``fn`` for ``op_types`` of ``domain``, versions
        ``min_version..max_version`` (frameworks without versions: every
        version). Inside :meth:`capturing` (the extension loader importing a
        ``front/<framework>/`` file) it goes to that extension's table; a
        range overlapping a built-in converter's is an error there."""
        new = ConverterEntry(fn, min_version, max_version) if self.versioned else ConverterEntry(fn)
        cap = self.captured()
        if cap is not None:
            self.load()
        for op_type in op_types:
            key = self.key(op_type, domain)
            if cap is None:
                self._add(_BUILTIN.setdefault(self._builtin_key(op_type, domain), []), key, new)
                continue
            self._check(self.builtin_entries(op_type, domain), key, new, built_in=True)
            self._store(cap, key, new)
            self.note(key)

    def _builtin_key(self, op_type: str, domain: str) -> tuple[str, str, str]:
        return (self.framework, self.domain(domain), op_type)

    def builtin_entries(self, op_type: str, domain: str = "") -> Sequence[ConverterEntry]:
        """The built-in converters of an op (its version ranges)."""
        return _BUILTIN.get(self._builtin_key(op_type, domain), ())

    def _store(self, table: MutableMapping[Any, Any], key: Any, new: ConverterEntry) -> None:
        if self.versioned:
            self._add(table.setdefault(key, []), key, new)
        else:
            self._check(self.entries(table.get(key)), key, new, built_in=False)
            table[key] = new.fn

    def _add(self, entries: list[ConverterEntry], key: Any, new: ConverterEntry) -> None:
        self._check(entries, key, new, built_in=False)
        entries.append(new)

    def _check(
        self, entries: Sequence[ConverterEntry], key: Any, new: ConverterEntry, *, built_in: bool
    ) -> None:
        """The collision rule: ``new`` must not overlap one of ``entries``."""
        hit = _clash(entries, new)
        if hit is None:
            return
        old, version = hit
        if built_in:
            where = f" (version {version})" if self.versioned else ""
            head = f"a converter for {self.describe(key)} is already built in{where}"
        elif self.versioned:
            domain, op_type = key
            head = (
                f"converters for {domain or self.default_domain}:{op_type} "
                f"overlap at version {version}"
            )
        else:
            head = f"a converter for {self.describe(key)} is already registered"
        raise ValueError(
            f"{head}: {describe_converter(old.fn)} and {describe_converter(new.fn)}"
        )

    # -- lookup -------------------------------------------------------------------------
    def load(self) -> None:
        """Import the built-in converters (once)."""
        if not self._loaded:
            self._loaded = True
            with self.not_capturing():
                importlib.import_module(self.families)  # type: ignore[arg-type]

    def lookup(
        self,
        op_type: str,
        *,
        domain: str = "",
        version: int | None = None,
        builtins: bool = True,
    ) -> ConverterFn | None:
        """The converter of an op at ``version``, if any: the active extension
        tables first, then (unless ``builtins`` is False) the built-in ones."""
        self.load()
        key = self.key(op_type, domain)
        for value in self.find(key):
            fn = _pick(self.entries(value), version)
            if fn is not None:
                return fn
        return _pick(self.builtin_entries(op_type, domain), version) if builtins else None

    def registered(self) -> dict[Any, list[tuple[int, int | None]]]:
        """Key -> the version ranges of the built-in converters (for reports
        and tests)."""
        self.load()
        return {
            self.key(op_type, domain): [(e.min_version, e.max_version) for e in entries]
            for (fw, domain, op_type), entries in _BUILTIN.items()
            if fw == self.framework
        }


def _clash(
    entries: Sequence[ConverterEntry], new: ConverterEntry
) -> tuple[ConverterEntry, int] | None:
    """The first of ``entries`` overlapping ``new``, with the first common version."""
    for e in entries:
        lo = e.first_common_version(new)
        if lo is not None:
            return e, lo
    return None


def _pick(entries: Sequence[ConverterEntry], version: int | None) -> ConverterFn | None:
    for e in entries:
        if e.handles(version):
            return e.fn
    return None


__all__ = [
    "UNBOUNDED",
    "ConverterEntry",
    "ConverterFn",
    "FrameworkConverters",
    "describe_converter",
]
