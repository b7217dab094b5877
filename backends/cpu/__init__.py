"""CPU backend: execute ``ov``-dialect modules with numpy (and numba) kernels.

>>> model = compile_model("model.xml")          # or .mlir, or a ModuleOp
>>> outputs = model({"data": x})                # or model([x])
>>> outputs[0], outputs["prob"]

Kernels are registered per xDSL op name with :func:`register_kernel`; user ops
get kernels the same way::

    @register_kernel("ov.MyOp")
    def my_op(node, x):
        return x * node.attr("alpha")
"""

from __future__ import annotations

import os
from typing import Any

from xdsl.dialects.builtin import ModuleOp

from xmo.backends.cpu.executor import (
    CompiledModel,
    CPUBackendError,
    InputError,
    KernelError,
    KernelNotFoundError,
    ModelOutputs,
    Node,
    kernel_for,
    register_kernel,
    registered_ops,
)


def compile_model(model: ModuleOp | str | os.PathLike[str], **options: Any) -> CompiledModel:
    """A :class:`CompiledModel` for an ov module or a model file.

    Files go through :func:`xmo.convert_model` (``.xml`` IR, ``.mlir``, and the
    framework formats whose frontend is available).
    """
    if isinstance(model, ModuleOp):
        return CompiledModel(model)
    from xmo.api import convert_model

    module = convert_model(model, **options)
    # The module keeps its context, and so the weight store, alive.
    return CompiledModel(module, keep_alive=module)


__all__ = [
    "CPUBackendError",
    "CompiledModel",
    "InputError",
    "KernelError",
    "KernelNotFoundError",
    "ModelOutputs",
    "Node",
    "compile_model",
    "kernel_for",
    "register_kernel",
    "registered_ops",
]
