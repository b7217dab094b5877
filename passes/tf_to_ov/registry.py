"""Registry of TensorFlow -> ov converters, keyed by TF op type.

A converter is a function ``(node, builder) -> outputs`` registered with
:func:`tf_converter`. ``outputs`` is one ov value per node output port (a single
value for single-output nodes; None for an output the converter does not
produce -- the node is then unsupported only if that output is used).
Converters live in one module per op family in :mod:`.families`; importing it
registers them all.

Extensions' extractors (``front/tf/*.py``) go to the extension's own table
and apply only inside :func:`using_converters` (the mechanism is shared with
the ONNX registry: :mod:`xmo.passes.to_ov.scoped`).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, MutableMapping, Sequence
from contextlib import AbstractContextManager

from xdsl.ir import SSAValue
from xmo.passes.tf_to_ov.builder import TFBuilder, TFNode
from xmo.passes.to_ov.scoped import ConverterScope

TFConverterFn = Callable[[TFNode, TFBuilder], SSAValue | Sequence[SSAValue | None] | None]

_CONVERTERS: dict[str, TFConverterFn] = {}


class _TFScope(ConverterScope[str, TFConverterFn]):
    def describe(self, key: str) -> str:
        return f"TF op {key}"


#: the capture / scoped tables of TF converters
SCOPE = _TFScope("tf")


def tf_converter(*op_types: str) -> Callable[[TFConverterFn], TFConverterFn]:
    """Register a converter for the TF op types ``op_types`` (one per type).

    Inside :func:`capturing_converters` (the extension loader importing a
    ``front/tf/`` file) converters go to that extension's own table: they
    apply only to conversions that load the extension. A converter for an op
    that is built in is an error there.
    """

    def register(fn: TFConverterFn) -> TFConverterFn:
        cap = SCOPE.captured()
        if cap is not None:
            _load()
        for t in op_types:
            if cap is not None:
                if t in _CONVERTERS:
                    raise ValueError(f"a converter for TF op {t} is already built in")
                if t in cap:
                    raise ValueError(f"a converter for TF op {t} is already registered")
                cap[t] = fn
                SCOPE.note(t)
                continue
            if t in _CONVERTERS:
                raise ValueError(f"a converter for TF op {t} is already registered")
            _CONVERTERS[t] = fn
        return fn

    return register


def capturing_converters(
    table: MutableMapping[str, TFConverterFn], source: str | None = None
) -> AbstractContextManager[None]:
    """``@tf_converter`` registers into ``table`` while the block runs."""
    return SCOPE.capturing(table, source)


def using_converters(*tables: Mapping[str, TFConverterFn]) -> AbstractContextManager[None]:
    """Converters of ``tables`` apply (before built-in ones) while the block runs."""
    return SCOPE.using(*tables)


_loaded = False


def _load() -> None:
    global _loaded
    if not _loaded:
        _loaded = True
        with SCOPE.not_capturing():
            import xmo.passes.tf_to_ov.families  # noqa: F401  (registers converters)


def lookup(op_type: str) -> TFConverterFn | None:
    """The converter for a TF op type, if any (active extension tables first)."""
    _load()
    for fn in SCOPE.find(op_type):
        return fn
    return _CONVERTERS.get(op_type)


def registered() -> list[str]:
    """Every TF op type with a built-in converter (sorted)."""
    _load()
    return sorted(_CONVERTERS)


__all__ = [
    "SCOPE",
    "TFConverterFn",
    "capturing_converters",
    "lookup",
    "registered",
    "tf_converter",
    "using_converters",
]
