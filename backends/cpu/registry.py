"""The kernel registry, keyed by xDSL op name (``"ov.Add"``).

Built-in kernels live in :mod:`xmo.backends.cpu.kernels` (one module per op
family) and register themselves with :func:`register_kernel` when imported;
user-defined ops register their kernels the same way. The built-ins are
imported on the first lookup, not with this module: they cost ~45 ms of
imports that converting a model does not need (and they import this module).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np
from xdsl.ir import Operation

from xmo.backends.cpu.errors import KernelNotFoundError
from xmo.backends.cpu.node import Kernel, KernelNode, checked_outputs, describe_op

_KERNELS: dict[str, Kernel] = {}
#: the kernels :mod:`xmo.backends.cpu.kernels` registered, by op name
_BUILTIN: dict[str, Kernel] = {}
_BUILTIN_PACKAGE = "xmo.backends.cpu.kernels."


def register_kernel(*op_names: str, override: bool = False) -> Callable[[Kernel], Kernel]:
    """Decorator registering a kernel for the xDSL ops named ``op_names``.

    ``override=True`` replaces an existing kernel (to customize a built-in one).
    """
    if not op_names:
        raise ValueError("register_kernel needs at least one op name")

    def register(fn: Kernel) -> Kernel:
        for n in op_names:
            if not override and n in _KERNELS and _KERNELS[n] is not fn:
                raise ValueError(
                    f"a kernel for {n} is already registered "
                    "(pass override=True to replace it)"
                )
            _KERNELS[n] = fn
            if getattr(fn, "__module__", "").startswith(_BUILTIN_PACKAGE):
                _BUILTIN[n] = fn
        return fn

    return register


def kernel_for(op_name: str) -> Kernel | None:
    """The kernel registered for xDSL op ``op_name`` (built-ins loaded first)."""
    _load_builtin_kernels()
    return _KERNELS.get(op_name)


def is_builtin_kernel(op_name: str, kernel: Kernel) -> bool:
    """True when ``kernel`` is the built-in kernel of ``op_name`` (not a
    user's kernel registered over it)."""
    _load_builtin_kernels()
    return _BUILTIN.get(op_name) is kernel


def registered_ops() -> list[str]:
    """Names of every op with a kernel, sorted."""
    _load_builtin_kernels()
    return sorted(_KERNELS)


def evaluate_op(op: Operation, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
    """Run one op's kernel on numpy inputs (used by constant folding).

    Raises :class:`KernelNotFoundError` when the op has no kernel.
    """
    kernel = kernel_for(op.name)
    if kernel is None:
        raise KernelNotFoundError(f"no CPU kernel for {describe_op(op)}")
    node = KernelNode(op)
    return checked_outputs(node, kernel(node, *inputs))


_loaded = False


def _load_builtin_kernels() -> None:
    global _loaded
    if not _loaded:
        _loaded = True
        import xmo.backends.cpu.kernels  # noqa: F401  (registers kernels; see module doc)
