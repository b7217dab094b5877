"""Registry of TensorFlow -> ov converters, keyed by TF op type.

A converter is a function ``(node, builder) -> outputs`` registered with
:func:`tf_converter`. ``outputs`` is one ov value per node output port (a single
value for single-output nodes; None for an output the converter does not
produce -- the node is then unsupported only if that output is used).
Converters live in one module per op family in :mod:`.families`; importing it
registers them all.
"""

from __future__ import annotations

import contextlib
import contextvars
from collections.abc import Callable, Iterator, Mapping, Sequence

from xdsl.ir import SSAValue
from xmo.passes.tf_to_ov.builder import TFBuilder, TFNode

TFConverterFn = Callable[[TFNode, TFBuilder], SSAValue | Sequence[SSAValue | None] | None]

_CONVERTERS: dict[str, TFConverterFn] = {}
#: while an extension file is imported: the table its converters go to
_capture: contextvars.ContextVar[dict[str, TFConverterFn] | None] = contextvars.ContextVar(
    "xmo_tf_converter_capture", default=None
)
#: extension tables active for the running conversion (see :func:`using_converters`)
_scoped: contextvars.ContextVar[tuple[Mapping[str, TFConverterFn], ...]] = (
    contextvars.ContextVar("xmo_tf_converters_scoped", default=())
)


def tf_converter(*op_types: str) -> Callable[[TFConverterFn], TFConverterFn]:
    """Register a converter for the TF op types ``op_types`` (one per type).

    Inside :func:`capturing_converters` (the extension loader importing a
    ``front/tf/`` file) converters go to that extension's own table: they
    apply only to conversions that load the extension.
    """

    def register(fn: TFConverterFn) -> TFConverterFn:
        cap = _capture.get()
        if cap is not None:
            _load()
        for t in op_types:
            if cap is not None:
                if t in _CONVERTERS:
                    raise ValueError(f"a converter for TF op {t} is already built in")
                if t in cap:
                    raise ValueError(f"a converter for TF op {t} is already registered")
                cap[t] = fn
                continue
            if t in _CONVERTERS:
                raise ValueError(f"a converter for TF op {t} is already registered")
            _CONVERTERS[t] = fn
        return fn

    return register


@contextlib.contextmanager
def capturing_converters(table: dict[str, TFConverterFn]) -> Iterator[None]:
    """``@tf_converter`` registers into ``table`` while the block runs."""
    token = _capture.set(table)
    try:
        yield
    finally:
        _capture.reset(token)


@contextlib.contextmanager
def using_converters(*tables: Mapping[str, TFConverterFn]) -> Iterator[None]:
    """Converters of ``tables`` apply (before built-in ones) while the block runs."""
    token = _scoped.set(_scoped.get() + tuple(tables))
    try:
        yield
    finally:
        _scoped.reset(token)


_loaded = False


def _load() -> None:
    global _loaded
    if not _loaded:
        _loaded = True
        token = _capture.set(None)
        try:
            import xmo.passes.tf_to_ov.families  # noqa: F401  (registers converters)
        finally:
            _capture.reset(token)


def lookup(op_type: str) -> TFConverterFn | None:
    """The converter for a TF op type, if any."""
    _load()
    for table in reversed(_scoped.get()):
        fn = table.get(op_type)
        if fn is not None:
            return fn
    return _CONVERTERS.get(op_type)


def registered() -> list[str]:
    """Every TF op type with a converter (sorted)."""
    _load()
    return sorted(_CONVERTERS)


__all__ = [
    "TFConverterFn",
    "capturing_converters",
    "lookup",
    "registered",
    "tf_converter",
    "using_converters",
]
