"""Caffe -> ov converters: the Caffe part of the one registry
(:mod:`xmo.passes.to_ov.registry`), keyed by layer type (Caffe layers have
no domains or versions).

A converter is a function ``(node, builder) -> outputs`` registered with
:func:`caffe_converter`; ``node.op`` is the ``caffe.Layer``
(``node.op.param()`` its parameter message with defaults,
:func:`xmo.passes.caffe_to_ov.convert.blobs` its learned blobs). Converters
live in one module per layer family in :mod:`.families`.

Python layers (``type: "Python"``) are keyed ``Python:<module>.<layer>``
(their ``python_param``): only an extension's extractor
(``@caffe_python_layer("my_module", "MyLayer")`` in ``front/caffe/*.py``)
converts one; without it the layer is in the unsupported-ops report.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, MutableMapping, Sequence
from contextlib import AbstractContextManager

from xdsl.ir import SSAValue

from xmo.passes.to_ov.builder import Builder, ConverterNode
from xmo.passes.to_ov.registry import FrameworkConverters

CaffeConverterFn = Callable[[ConverterNode, Builder], SSAValue | Sequence[SSAValue | None] | None]

#: the Caffe converters: built-in ones and the scoped tables of extensions
SCOPE = FrameworkConverters(
    "caffe", "Caffe", versioned=False, families="xmo.passes.caffe_to_ov.families"
)


def caffe_converter(*layer_types: str) -> Callable[[CaffeConverterFn], CaffeConverterFn]:
    """Register a converter for the Caffe layer types ``layer_types``
    (in ``front/caffe/`` of an extension: into that extension's table)."""
    return SCOPE.decorator(layer_types)


def python_layer_key(module: str, layer: str) -> str:
    """The registry key of a Python layer (``Python:<module>.<layer>``)."""
    return f"Python:{module}.{layer}"


def caffe_python_layer(module: str, layer: str) -> Callable[[CaffeConverterFn], CaffeConverterFn]:
    """Register an extractor for the Caffe Python layer ``module.layer``
    (its ``python_param { module layer }``)."""
    return SCOPE.decorator((python_layer_key(module, layer),))


def capturing_converters(
    table: MutableMapping[str, CaffeConverterFn], source: str | None = None
) -> AbstractContextManager[None]:
    return SCOPE.capturing(table, source)


def using_converters(*tables: Mapping[str, CaffeConverterFn]) -> AbstractContextManager[None]:
    return SCOPE.using(*tables)


def lookup(layer_type: str) -> CaffeConverterFn | None:
    """The converter for a layer type (or Python-layer key), if any."""
    return SCOPE.lookup(layer_type)


def registered() -> list[str]:
    """Every Caffe layer type with a built-in converter (sorted)."""
    return sorted(SCOPE.registered())


__all__ = [
    "SCOPE",
    "CaffeConverterFn",
    "caffe_converter",
    "caffe_python_layer",
    "capturing_converters",
    "lookup",
    "python_layer_key",
    "registered",
    "using_converters",
]
