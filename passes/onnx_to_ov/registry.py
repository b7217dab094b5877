"""ONNX -> ov converters: the ONNX part of the one registry
(:mod:`xmo.passes.to_ov.registry`), keyed by (domain, op type, version range).

A converter is a function ``(node, builder) -> outputs`` registered with
:func:`converter`. ``outputs`` is one ov value per node output (a single value
for single-output nodes; None for an absent optional output).
Converters live in one module per op family next to this one; importing
:mod:`xmo.passes.onnx_to_ov.families` registers them all.

Extensions' extractors (``front/onnx/*.py``, the same ``@converter``) go to
the extension's own table and apply only inside :func:`using_converters`,
before the built-in converters (the mechanism is shared with every
frontend: :mod:`xmo.passes.to_ov.scoped`).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, MutableMapping, Sequence
from contextlib import AbstractContextManager
from typing import Any

from xdsl.ir import SSAValue

from xmo.passes.to_ov.builder import Builder, ConverterNode
from xmo.passes.to_ov.registry import ConverterEntry, FrameworkConverters

ConverterFn = Callable[[ConverterNode, Builder], SSAValue | Sequence[SSAValue | None] | None]

#: (domain, op type) -> the converters of its version ranges (extension tables)
Key = tuple[str, str]
Entries = list[ConverterEntry]

#: the ONNX converters: built-in ones and the scoped tables of extensions
SCOPE = FrameworkConverters(
    "onnx",
    "ONNX",
    versioned=True,
    families="xmo.passes.onnx_to_ov.families",
    default_domain="ai.onnx",
)


def converter(
    *op_types: str,
    domain: str = "",
    min_version: int = 1,
    max_version: int | None = None,
) -> Callable[[ConverterFn], ConverterFn]:
    """Register a converter for ``op_types`` of ``domain`` (``""`` = ai.onnx).

    ``min_version``/``max_version`` bound the op's since_version the converter
    handles (both inclusive; for a domain xmo has no schemas for, the
    model's opset version of that domain); a range overlapping one already
    registered for the op is an error naming both converters.

    Inside :func:`capturing_converters` (the extension loader importing a
    ``front/onnx/`` file) converters go to that extension's own table: they
    apply only to conversions that load the extension. A range overlapping a
    built-in converter's is an error there.
    """
    return SCOPE.decorator(op_types, domain=domain, min_version=min_version,
                           max_version=max_version)


def capturing_converters(
    table: MutableMapping[Key, Entries], source: str | None = None
) -> AbstractContextManager[None]:
    """``@converter`` registers into ``table`` while the block runs."""
    return SCOPE.capturing(table, source)


def using_converters(*tables: Mapping[Key, Entries]) -> AbstractContextManager[None]:
    """Converters of ``tables`` apply (before built-in ones) while the block runs."""
    return SCOPE.using(*tables)


def lookup(domain: str, op_type: str, version: int, *, builtins: bool = True) -> ConverterFn | None:
    """The converter for an op type at a since_version, if any: the active
    extension tables first, then (unless ``builtins`` is False) the built-in
    converters."""
    return SCOPE.lookup(op_type, domain=domain, version=version, builtins=builtins)


def registered() -> dict[tuple[str, str], Any]:
    """(domain, op type) -> version ranges the built-in converters handle
    (for reports and tests)."""
    return SCOPE.registered()


__all__ = [
    "SCOPE",
    "ConverterFn",
    "capturing_converters",
    "converter",
    "lookup",
    "registered",
    "using_converters",
]
