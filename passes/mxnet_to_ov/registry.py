"""MXNet -> ov converters: the MXNet part of the one registry
(:mod:`xmo.passes.to_ov.registry`), keyed by operator name (MXNet operators
have no domains or versions).

A converter is ``(node, builder) -> outputs`` registered with
:func:`mxnet_converter`; its node's :meth:`~xmo.passes.to_ov.builder.ConverterNode.attr`
gives the attribute strings of the symbol file (:mod:`.attrs` parses them).
Converters live in one module per op family in :mod:`.families`.

``Custom`` operators (Python operators registered with
``mx.operator.register``) are keyed by their ``op_type`` attribute:
``Custom:<op_type>`` (:func:`custom_key`); there are no built-in ones, an
extension provides them (``front/mxnet/*.py`` with
``@mxnet_converter(custom_key("my_op"))``), and they apply only to
conversions that load the extension.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, MutableMapping, Sequence
from contextlib import AbstractContextManager

from xdsl.ir import SSAValue
from xmo.passes.to_ov.builder import Builder, ConverterNode
from xmo.passes.to_ov.registry import FrameworkConverters

MXNetConverterFn = Callable[[ConverterNode, Builder], SSAValue | Sequence[SSAValue | None] | None]

#: the MXNet converters: built-in ones and the scoped tables of extensions
SCOPE = FrameworkConverters(
    "mxnet", "MXNet", versioned=False, families="xmo.passes.mxnet_to_ov.families"
)


def custom_key(op_type: str) -> str:
    """The registry key of a ``Custom`` operator whose ``op_type`` is ``op_type``."""
    return f"Custom:{op_type}"


def mxnet_converter(*op_types: str) -> Callable[[MXNetConverterFn], MXNetConverterFn]:
    """Register a converter for the MXNet operators ``op_types`` (or
    :func:`custom_key` names); inside an extension's ``front/mxnet`` file it
    goes to the extension's own table."""
    return SCOPE.decorator(op_types)


def capturing_converters(
    table: MutableMapping[str, MXNetConverterFn], source: str | None = None
) -> AbstractContextManager[None]:
    """``@mxnet_converter`` registers into ``table`` while the block runs."""
    return SCOPE.capturing(table, source)


def using_converters(*tables: Mapping[str, MXNetConverterFn]) -> AbstractContextManager[None]:
    """Converters of ``tables`` apply (before built-in ones) while the block runs."""
    return SCOPE.using(*tables)


def lookup(op_type: str) -> MXNetConverterFn | None:
    """The converter of an MXNet operator (active extension tables first)."""
    return SCOPE.lookup(op_type)


def registered() -> list[str]:
    """Every MXNet operator with a built-in converter (sorted)."""
    return sorted(SCOPE.registered())


__all__ = [
    "SCOPE",
    "MXNetConverterFn",
    "capturing_converters",
    "custom_key",
    "lookup",
    "mxnet_converter",
    "registered",
    "using_converters",
]
