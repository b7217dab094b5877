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
from pathlib import Path
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


def compile_model(model: ModuleOp | str | os.PathLike[str], **kwargs: Any) -> CompiledModel:
    """A :class:`CompiledModel` for a module or a model file (``.xml`` IR or ``.mlir``)."""
    if isinstance(model, ModuleOp):
        return CompiledModel(model)
    path = Path(model)
    suffix = path.suffix.lower()
    if suffix == ".xml":
        from xmo.backends.ir import read_ir

        module = read_ir(path, **kwargs)
        return CompiledModel(module, keep_alive=getattr(module, "xmo_context", None))
    if suffix == ".mlir":
        from xdsl.parser import Parser

        from xmo.context import make_context

        ctx = make_context()
        module = Parser(ctx, path.read_text(), str(path)).parse_module()
        return CompiledModel(module, keep_alive=ctx)
    raise ValueError(f"cannot compile '{path}': expected a .xml or .mlir file")


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
