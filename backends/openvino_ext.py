"""Running xmo's custom operations on the real OpenVINO runtime from Python.

OpenVINO reads an IR layer of an unknown type (``<layer type="FFT"
version="fft_extension">``) only when the ``Core`` that reads the model knows
the operation. :func:`extensions` returns what to register::

    import openvino as ov
    from xmo.backends.openvino_ext import extensions

    core = ov.Core()
    for ext in extensions():
        core.add_extension(ext)          # before read_model, on this Core
    model = core.read_model("out/model.xml")
    compiled = core.compile_model(model, "CPU")

:class:`FFT` is an ``openvino.Op`` whose type info is ``("FFT",
"fft_extension")``: shape inference copies the input's type and shape, and
``evaluate`` runs xmo's numba FFT kernel (:mod:`xmo.backends.cpu.fft`) on the
``[..., H, W, 2]`` tensor. Two facts of the Python ``Op`` API shape the code:
attributes must exist before ``Op.__init__`` runs (it calls
``validate_and_infer_types`` and ``visit_attributes``), and the Core that
reads the model must be the one the extension was added to.
"""

from __future__ import annotations

from typing import Any

import numpy as np


def _op_base() -> tuple[Any, Any]:
    import openvino as ov

    try:
        from openvino import DiscreteTypeInfo
    except ImportError:  # older wheels
        from openvino.runtime import DiscreteTypeInfo  # type: ignore[no-redef]
    return ov.Op, DiscreteTypeInfo


_CLASSES: dict[str, type] = {}


def _fft_class() -> type:
    if "FFT" in _CLASSES:
        return _CLASSES["FFT"]
    Op, DiscreteTypeInfo = _op_base()

    class FFT(Op):  # type: ignore[misc, valid-type]
        """The extension's ``FFT`` (attribute ``inverse``) for OpenVINO."""

        class_type_info = DiscreteTypeInfo("FFT", "fft_extension")

        def __init__(self, inputs: Any = None, inverse: bool = False) -> None:
            # attributes first: Op.__init__ validates and visits them
            self._attrs = {"inverse": bool(inverse)}
            super().__init__(self, inputs)

        def get_type_info(self) -> Any:
            return FFT.class_type_info

        def validate_and_infer_types(self) -> None:
            self.set_output_type(0, self.get_input_element_type(0), self.get_input_partial_shape(0))

        def clone_with_new_inputs(self, new_inputs: Any) -> FFT:
            return FFT(new_inputs, self._attrs["inverse"])

        def visit_attributes(self, visitor: Any) -> bool:
            visitor.on_attributes(self._attrs)
            return True

        def has_evaluate(self) -> bool:
            return True

        def evaluate(self, outputs: Any, inputs: Any) -> bool:
            from xmo.backends.cpu.fft import fft2d

            x = np.asarray(inputs[0].data)
            y = fft2d(np.ascontiguousarray(x), _truthy(self._attrs["inverse"]))
            outputs[0].shape = inputs[0].shape
            outputs[0].data[...] = y.astype(x.dtype, copy=False)
            return True

    _CLASSES["FFT"] = FFT
    return FFT


def _truthy(v: Any) -> bool:
    if isinstance(v, str):
        return v.strip().lower() in ("true", "1")
    return bool(v)


def extensions() -> list[type]:
    """The ``openvino.Op`` classes of xmo's custom operations, to pass to
    ``openvino.Core.add_extension`` before ``read_model``."""
    return [_fft_class()]


def core_with_extensions() -> Any:
    """An ``openvino.Core`` with :func:`extensions` added."""
    import openvino as ov

    core = ov.Core()
    for ext in extensions():
        core.add_extension(ext)
    return core


__all__ = ["core_with_extensions", "extensions"]
