"""Kaldi -> ov converters: the Kaldi part of the one registry
(:mod:`xmo.passes.to_ov.registry`), keyed by component type
(``NaturalGradientAffineComponent``, ``AffineTransform``...) or descriptor
kind (``Append``, ``Offset``...); no domains or versions.

A converter is ``(node, builder) -> value`` with ``node`` a
:class:`~xmo.passes.kaldi_to_ov.convert.KaldiNode` (the shared
:class:`~xmo.passes.to_ov.builder.ConverterNode` plus the time margins of
its inputs); converters live in :mod:`.families`.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from xmo.passes.to_ov.registry import FrameworkConverters

#: the Kaldi converters
SCOPE = FrameworkConverters("kaldi", "Kaldi", versioned=False,
                            families="xmo.passes.kaldi_to_ov.families")


def kaldi_converter(*types: str) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """Register a converter for the component types / descriptor kinds ``types``."""
    return SCOPE.decorator(types)


def lookup(op_type: str) -> Callable[..., Any] | None:
    """The converter of a component type or descriptor kind, if any."""
    return SCOPE.lookup(op_type)


def registered() -> list[str]:
    """Every component type / descriptor kind with a converter (sorted)."""
    return sorted(SCOPE.registered())


__all__ = ["SCOPE", "kaldi_converter", "lookup", "registered"]
