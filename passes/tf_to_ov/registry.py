"""Registry of TensorFlow -> ov converters, keyed by TF op type.

A converter is a function ``(node, builder) -> outputs`` registered with
:func:`tf_converter`. ``outputs`` is one ov value per node output port (a single
value for single-output nodes; None for an output the converter does not
produce -- the node is then unsupported only if that output is used).
Converters live in one module per op family in :mod:`.families`; importing it
registers them all.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from xdsl.ir import SSAValue
from xmo.passes.tf_to_ov.builder import TFBuilder, TFNode

TFConverterFn = Callable[[TFNode, TFBuilder], SSAValue | Sequence[SSAValue | None] | None]

_CONVERTERS: dict[str, TFConverterFn] = {}


def tf_converter(*op_types: str) -> Callable[[TFConverterFn], TFConverterFn]:
    """Register a converter for the TF op types ``op_types`` (one per type)."""

    def register(fn: TFConverterFn) -> TFConverterFn:
        for t in op_types:
            if t in _CONVERTERS:
                raise ValueError(f"a converter for TF op {t} is already registered")
            _CONVERTERS[t] = fn
        return fn

    return register


_loaded = False


def _load() -> None:
    global _loaded
    if not _loaded:
        _loaded = True
        import xmo.passes.tf_to_ov.families  # noqa: F401  (registers converters)


def lookup(op_type: str) -> TFConverterFn | None:
    """The converter for a TF op type, if any."""
    _load()
    return _CONVERTERS.get(op_type)


def registered() -> list[str]:
    """Every TF op type with a converter (sorted)."""
    _load()
    return sorted(_CONVERTERS)


__all__ = ["TFConverterFn", "lookup", "registered", "tf_converter"]
