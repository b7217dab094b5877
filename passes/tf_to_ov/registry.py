"""TensorFlow -> ov converters: the TF part of the one registry
(:mod:`xmo.passes.to_ov.registry`), keyed by TF op type (TF ops have no
domains or versions).

A converter is a function ``(node, builder) -> outputs`` registered with
:func:`tf_converter`. ``outputs`` is one ov value per node output port (a single
value for single-output nodes; None for an output the converter does not
produce -- the node is then unsupported only if that output is used).
Converters live in one module per op family in :mod:`.families`; importing it
registers them all.

Extensions' extractors (``front/tf/*.py``) go to the extension's own table
and apply only inside :func:`using_converters` (the mechanism is shared with
every frontend: :mod:`xmo.passes.to_ov.scoped`).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, MutableMapping, Sequence
from contextlib import AbstractContextManager

from xdsl.ir import SSAValue
from xmo.passes.tf_to_ov.builder import TFBuilder
from xmo.passes.to_ov.builder import ConverterNode
from xmo.passes.to_ov.registry import FrameworkConverters

TFConverterFn = Callable[[ConverterNode, TFBuilder], SSAValue | Sequence[SSAValue | None] | None]

#: the TF converters: built-in ones and the scoped tables of extensions
SCOPE = FrameworkConverters("tf", "TF", versioned=False, families="xmo.passes.tf_to_ov.families")


def tf_converter(*op_types: str) -> Callable[[TFConverterFn], TFConverterFn]:
    """Register a converter for the TF op types ``op_types`` (one per type; a
    second converter for a type is an error naming both).

    Inside :func:`capturing_converters` (the extension loader importing a
    ``front/tf/`` file) converters go to that extension's own table: they
    apply only to conversions that load the extension. A converter for an op
    that is built in is an error there.
    """
    return SCOPE.decorator(op_types)


def capturing_converters(
    table: MutableMapping[str, TFConverterFn], source: str | None = None
) -> AbstractContextManager[None]:
    """``@tf_converter`` registers into ``table`` while the block runs."""
    return SCOPE.capturing(table, source)


def using_converters(*tables: Mapping[str, TFConverterFn]) -> AbstractContextManager[None]:
    """Converters of ``tables`` apply (before built-in ones) while the block runs."""
    return SCOPE.using(*tables)


def lookup(op_type: str) -> TFConverterFn | None:
    """The converter for a TF op type, if any (active extension tables first)."""
    return SCOPE.lookup(op_type)


def registered() -> list[str]:
    """Every TF op type with a built-in converter (sorted)."""
    return sorted(SCOPE.registered())


__all__ = [
    "SCOPE",
    "TFConverterFn",
    "capturing_converters",
    "lookup",
    "registered",
    "tf_converter",
    "using_converters",
]
