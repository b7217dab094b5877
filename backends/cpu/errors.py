"""The CPU backend's errors."""

from __future__ import annotations
from xmo.errors import BackendError


class CPUBackendError(BackendError, RuntimeError):
    """Base class of the CPU backend's errors."""


class KernelNotFoundError(CPUBackendError, NotImplementedError):
    """An op of the model has no registered kernel."""


class KernelError(CPUBackendError):
    """A kernel failed on its inputs."""


class InputError(CPUBackendError, ValueError):
    """Model inputs of the wrong number, name, shape or element type."""


#: What a kernel raises on inputs it cannot compute (bad values, shapes or
#: types): callers that evaluate kernels ahead of time catch these and leave
#: the op to run (and fail, or not) later.
KERNEL_INPUT_ERRORS: tuple[type[Exception], ...] = (
    CPUBackendError, ValueError, TypeError, LookupError, ArithmeticError,
)
