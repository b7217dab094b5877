"""Registry of ONNX -> ov converters, keyed by (domain, op type, version range).

A converter is a function ``(node, builder) -> outputs`` registered with
:func:`converter`. ``outputs`` is one ov value per node output (a single value
for single-output nodes; None for an absent optional output).
Converters live in one module per op family next to this one; importing
:mod:`xmo.passes.onnx_to_ov.families` registers them all.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from xdsl.ir import SSAValue

from xmo.passes.onnx_to_ov.builder import Builder, Node

ConverterFn = Callable[[Node, Builder], SSAValue | Sequence[SSAValue | None] | None]


@dataclass(frozen=True)
class _Entry:
    fn: ConverterFn
    min_version: int
    max_version: int | None


_CONVERTERS: dict[tuple[str, str], list[_Entry]] = {}


def converter(
    *op_types: str,
    domain: str = "",
    min_version: int = 1,
    max_version: int | None = None,
) -> Callable[[ConverterFn], ConverterFn]:
    """Register a converter for ``op_types`` of ``domain`` (``""`` = ai.onnx).

    ``min_version``/``max_version`` bound the op's since_version the converter
    handles (both inclusive); overlapping ranges for one op are an error.
    """

    def register(fn: ConverterFn) -> ConverterFn:
        for t in op_types:
            entries = _CONVERTERS.setdefault((domain, t), [])
            for e in entries:
                lo = max(e.min_version, min_version)
                hi = min(
                    e.max_version if e.max_version is not None else 1 << 30,
                    max_version if max_version is not None else 1 << 30,
                )
                if lo <= hi:
                    raise ValueError(
                        f"converters for {domain or 'ai.onnx'}:{t} overlap at version {lo}"
                    )
            entries.append(_Entry(fn, min_version, max_version))
        return fn

    return register


_loaded = False


def lookup(domain: str, op_type: str, version: int) -> ConverterFn | None:
    """The converter for an op type at a since_version, if any."""
    global _loaded
    if not _loaded:
        _loaded = True
        import xmo.passes.onnx_to_ov.families  # noqa: F401  (registers converters)
    if domain == "ai.onnx":
        domain = ""
    for e in _CONVERTERS.get((domain, op_type), ()):
        if version >= e.min_version and (e.max_version is None or version <= e.max_version):
            return e.fn
    return None


def registered() -> dict[tuple[str, str], Any]:
    """(domain, op type) -> version ranges handled (for reports and tests)."""
    lookup("", "", 0)
    return {
        k: [(e.min_version, e.max_version) for e in v] for k, v in _CONVERTERS.items()
    }
