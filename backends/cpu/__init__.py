"""CPU backend: execute ``ov``-dialect modules with numpy (and numba) kernels.

>>> model = CompiledModel(module)                # an ov ModuleOp
>>> outputs = model({"data": x})                # or model([x])
>>> outputs[0], outputs["prob"]

The backend takes ``ov`` modules only; :func:`xmo.compile_model` converts a
model file (``.onnx``, ``.xml``, ``.mlir``, ...) first and compiles it here.

Kernels are registered per xDSL op name with :func:`register_kernel`; user ops
get kernels the same way::

    @register_kernel("ov.MyOp")
    def my_op(node, x):
        return x * node.attr("alpha")

Modules: :mod:`.registry` (kernels by op name), :mod:`.node` (the kernel calling
convention), :mod:`.dtypes` (numpy dtypes of element types), :mod:`.compiled`
(the schedule), :mod:`.runner` (the schedule as one generated function),
:mod:`.fusion` and :mod:`.folding` (what the
schedule does ahead of time), :mod:`.ports`, :mod:`.errors`; the built-in
kernels in :mod:`.kernels`, one module per op family.
"""

from __future__ import annotations

from xmo.backends.cpu.compiled import CompiledModel
from xmo.backends.cpu.errors import (
    KERNEL_INPUT_ERRORS,
    CPUBackendError,
    InputError,
    KernelError,
    KernelNotFoundError,
)
from xmo.backends.cpu.node import KernelNode
from xmo.backends.cpu.ports import ModelOutputs
from xmo.backends.cpu.registry import evaluate_op, kernel_for, register_kernel, registered_ops

__all__ = [
    "KERNEL_INPUT_ERRORS",
    "CPUBackendError",
    "CompiledModel",
    "InputError",
    "KernelError",
    "KernelNode",
    "KernelNotFoundError",
    "ModelOutputs",
    "evaluate_op",
    "kernel_for",
    "register_kernel",
    "registered_ops",
]
