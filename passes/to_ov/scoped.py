"""Converter tables scoped to the conversions that load an extension.

Part of the one converter registry (:mod:`xmo.passes.to_ov.registry`):
each framework's :class:`~xmo.passes.to_ov.registry.FrameworkConverters`
(declared in :mod:`xmo.passes.tf_to_ov.registry`, keys: TF op types, and
:mod:`xmo.passes.onnx_to_ov.registry`, keys: ``(domain, op type)``, values:
version ranges) is its :class:`ConverterScope`:

* while the extension loader imports a ``front/<framework>/`` file,
  :meth:`ConverterScope.capturing` makes the registry's decorator put
  converters into that extension's own :class:`ConverterTable` instead of
  the built-in table;
* :meth:`ConverterScope.using` (or :func:`using_tables`, for tables of any
  framework) makes tables active for the conversion running in the block:
  the registry's ``lookup`` consults them (the last one given first) before
  its built-in converters;
* :func:`check_clashes` refuses two tables converting the same op.

Both are context variables, so conversions in other threads or contexts do
not see an extension they did not load.
"""

from __future__ import annotations

import contextlib
import contextvars
import importlib
from collections.abc import Iterable, Iterator, Mapping, MutableMapping
from typing import Any, Generic, TypeVar
from xmo.errors import ExtensionError

K = TypeVar("K")
V = TypeVar("V")

#: framework -> the module declaring its converters (imported on first use)
REGISTRIES = {
    "tf": "xmo.passes.tf_to_ov.registry",
    "onnx": "xmo.passes.onnx_to_ov.registry",
    "mxnet": "xmo.passes.mxnet_to_ov.registry",
    "caffe": "xmo.passes.caffe_to_ov.registry",
}
_SCOPES: dict[str, ConverterScope[Any, Any]] = {}


class ConverterClashError(ExtensionError, ValueError):
    """Two tables (extensions, front op replacements) convert the same op."""


class ConverterTable(dict[K, V]):
    """One extension's converters for one framework: key -> value (what the
    framework's registry stores), plus the file each key came from.

    ``framework``: ``"tf"`` or ``"onnx"``; ``origin``: the extension folder
    (or what else made the table); ``sources``: key -> file or description,
    for error messages.
    """

    def __init__(self, framework: str, origin: str = "") -> None:
        super().__init__()
        self.framework = framework
        self.origin = origin
        self.sources: dict[K, str] = {}

    def source(self, key: K) -> str:
        """Where ``key``'s converter comes from (a file, or the origin)."""
        return self.sources.get(key) or self.origin or "an extension"

    def __repr__(self) -> str:
        return f"ConverterTable({self.framework!r}, {self.origin!r}, {dict(self)!r})"


class ConverterScope(Generic[K, V]):
    """The capture and scoped-table context variables of one framework's
    converters.

    The subclass (:class:`~xmo.passes.to_ov.registry.FrameworkConverters`)
    says how keys read in messages (:meth:`describe`) and when two values of
    a key conflict (:meth:`overlap`).
    """

    def __init__(self, framework: str) -> None:
        self.framework = framework
        #: while an extension file is imported: (its table, the file)
        self._capture: contextvars.ContextVar[tuple[MutableMapping[K, V], str | None] | None] = (
            contextvars.ContextVar(f"xmo_{framework}_converter_capture", default=None)
        )
        #: extension tables active for the running conversion (innermost last)
        self._scoped: contextvars.ContextVar[tuple[Mapping[K, V], ...]] = contextvars.ContextVar(
            f"xmo_{framework}_converters_scoped", default=()
        )
        _SCOPES[framework] = self

    # -- per-registry behaviour --------------------------------------------------------
    def describe(self, key: K) -> str:
        """``key`` for messages (``TF op Relu``)."""
        return f"{self.framework} op {key}"

    def overlap(self, a: V, b: V) -> bool:
        """Whether two values of one key convert the same ops."""
        return True

    def key(self, op_type: str, domain: str = "") -> K:
        """The key of a framework op (``domain``: ONNX only)."""
        return op_type  # type: ignore[return-value]

    def value(self, fn: Any) -> V:
        """The table value of a converter of every version of its op."""
        return fn  # type: ignore[no-any-return]

    # -- capture (the extension loader) ------------------------------------------------
    @contextlib.contextmanager
    def capturing(self, table: MutableMapping[K, V], source: str | None = None) -> Iterator[None]:
        """The registry's decorator registers into ``table`` while the block
        runs (``source``: the file being imported, recorded per key when
        ``table`` is a :class:`ConverterTable`)."""
        token = self._capture.set((table, source))
        try:
            yield
        finally:
            self._capture.reset(token)

    @contextlib.contextmanager
    def not_capturing(self) -> Iterator[None]:
        """Registrations go to the built-in table (importing the built-ins)."""
        token = self._capture.set(None)
        try:
            yield
        finally:
            self._capture.reset(token)

    def captured(self) -> MutableMapping[K, V] | None:
        """The table registrations go to now, None for the built-in one."""
        cap = self._capture.get()
        return None if cap is None else cap[0]

    def note(self, key: K) -> None:
        """Record the file being imported as the source of ``key``."""
        cap = self._capture.get()
        if cap is not None and cap[1] is not None and isinstance(cap[0], ConverterTable):
            cap[0].sources.setdefault(key, cap[1])

    # -- scoping (conversions) ----------------------------------------------------------
    @contextlib.contextmanager
    def using(self, *tables: Mapping[K, V]) -> Iterator[None]:
        """Converters of ``tables`` apply (before built-in ones; the last table
        first) while the block runs."""
        token = self._scoped.set(self._scoped.get() + tuple(tables))
        try:
            yield
        finally:
            self._scoped.reset(token)

    def find(self, key: K) -> Iterator[V]:
        """The values of ``key`` in the active tables, the innermost first."""
        for table in reversed(self._scoped.get()):
            v = table.get(key)
            if v is not None:
                yield v


def scope_for(framework: str) -> ConverterScope[Any, Any]:
    """The :class:`ConverterScope` of a framework's registry (imports it)."""
    scope = _SCOPES.get(framework)
    if scope is None:
        if framework not in REGISTRIES:
            raise ValueError(
                f"no converter registry for framework '{framework}' "
                f"(known: {', '.join(REGISTRIES)})"
            )
        importlib.import_module(REGISTRIES[framework])
        scope = _SCOPES[framework]
    return scope


def framework_of_table(table: Mapping[Any, Any]) -> str:
    """A table's framework (plain mappings are TF tables, keyed by op type)."""
    return getattr(table, "framework", "tf")


def _by_framework(tables: Iterable[Mapping[Any, Any]]) -> dict[str, list[Mapping[Any, Any]]]:
    out: dict[str, list[Mapping[Any, Any]]] = {}
    for t in tables:
        group = out.setdefault(framework_of_table(t), [])
        if t and all(t is not u for u in group):  # empty ones change nothing
            group.append(t)
    return {fw: ts for fw, ts in out.items() if ts}


@contextlib.contextmanager
def using_tables(*tables: Mapping[Any, Any]) -> Iterator[None]:
    """Make ``tables`` (of any framework) active while the block runs; each
    framework's registry consults its own (the last given first)."""
    with contextlib.ExitStack() as stack:
        for fw, ts in _by_framework(tables).items():
            stack.enter_context(scope_for(fw).using(*ts))
        yield


def check_clashes(tables: Iterable[Mapping[Any, Any]]) -> None:
    """Raise :class:`ConverterClashError` when two of ``tables`` (of one
    framework) convert the same op; the message names both sources."""
    for fw, ts in _by_framework(tables).items():
        scope = scope_for(fw)
        for i, a in enumerate(ts):
            for b in ts[i + 1:]:
                for key in a:
                    if key in b and scope.overlap(a[key], b[key]):
                        raise ConverterClashError(
                            f"{scope.describe(key)} has two extractors: "
                            f"{_source(a, key)} and {_source(b, key)}"
                        )


def _source(table: Mapping[Any, Any], key: Any) -> str:
    if isinstance(table, ConverterTable):
        return table.source(key)
    return "a converter table"


__all__ = [
    "REGISTRIES",
    "ConverterClashError",
    "ConverterScope",
    "ConverterTable",
    "check_clashes",
    "framework_of_table",
    "scope_for",
    "using_tables",
]
