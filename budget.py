"""The memory budget of a conversion, and the limits of shapes.

A conversion holds one :class:`MemoryBudget` (:func:`memory_budget`, opened by
``xmo.convert_model``, ``xmo convert --memory-limit`` and ``xmo-opt
--memory-limit``). The steps that allocate from what a model *says* rather
than from bytes it *has* charge it **before** they allocate:

* frontends: TensorFlow constants expanded from value lists and string
  tensors (``frontends/tf/tensors.py``), ONNX tensors decoded from typed
  fields (``frontends/onnx/tensors.py``);
* constant folding (``ov-constant-fold``): each folded result, sized from
  its inferred type before it is computed;
* unrolling of ONNX ``Loop`` / ``Scan`` (``passes/onnx_to_ov/families/control.py``):
  the ops each iteration creates;
* ONNX data propagation runs in a separate process under an address-space
  cap when its size cannot be bounded beforehand
  (``frontends/onnx/inference.py``).

Weights that are views of the model file or memory-mapped external data are
not charged: they are not allocations. Charges are never returned: what a
conversion creates lives in its weight store until the module goes away.

The default limit is half of the physical memory, or half of the address
space left under ``RLIMIT_AS`` when that is lower (:func:`default_limit`).
A charge beyond the limit raises :class:`MemoryLimitError`, one line::

    node 'x' (Concat): its result would take 5.1 GiB, more than the conversion's
    memory limit 4.0 GiB (--memory-limit)

Shapes: every dimension must fit OpenVINO's (a signed 64-bit value below
``2**63 - 1``, which OpenVINO reads as "dynamic") and every element count a
signed 64-bit integer (:func:`check_dims`, called by ``ov`` shape inference
and the IR reader); :class:`DimensionLimitError` otherwise.

With no budget opened (passes run directly from Python), each charge is
checked on its own against :func:`default_limit`.
"""

from __future__ import annotations

import contextlib
import functools
import math
import os
import re
from collections.abc import Iterator, Sequence
from contextvars import ContextVar
from dataclasses import dataclass

from xmo.errors import ConversionError, NodeError

#: the largest static dimension OpenVINO's IR reader accepts as static
#: (``2**63 - 1`` reads as dynamic, larger values are refused)
MAX_DIM = (1 << 63) - 2
#: the largest element count of a tensor (int64)
MAX_ELEMENTS = (1 << 63) - 1
#: share of the available memory a conversion may use by default
DEFAULT_FRACTION = 0.5


class ResourceLimitError(NodeError, ConversionError):
    """A conversion step refusing to go beyond a limit. One line; names the
    node when one is known (:meth:`~xmo.errors.NodeError.at`)."""


class MemoryLimitError(ResourceLimitError):
    """A charge beyond the conversion's memory budget."""


class DimensionLimitError(ResourceLimitError):
    """A dimension or element count beyond what int64 / OpenVINO can hold."""


def format_size(nbytes: int | float) -> str:
    """``5.1 GiB``, ``512.0 MiB``, ``12 bytes`` (the units ``--memory-limit`` reads)."""
    for unit, shift in (("TiB", 40), ("GiB", 30), ("MiB", 20), ("KiB", 10)):
        if nbytes >= 1 << shift:
            return f"{nbytes / (1 << shift):.1f} {unit}"
    return f"{int(nbytes)} bytes"


_SIZE = re.compile(r"\s*(\d+(?:\.\d*)?|\.\d+)\s*([kmgt]?)(i?)(b?)\s*", re.IGNORECASE)


def parse_size(text: str | int) -> int:
    """``"4G"``, ``"4GB"``, ``"512MiB"``, ``"1.5g"``, ``"1000000"`` -> bytes
    (K/M/G/T are powers of 1024; a plain number is bytes)."""
    if isinstance(text, int) and not isinstance(text, bool):
        if text <= 0:
            raise ValueError(f"memory limit must be positive, got {text}")
        return text
    m = _SIZE.fullmatch(str(text))
    if m is None:
        raise ValueError(f"memory limit: cannot read '{text}' (use e.g. 4G, 512M, 1.5GiB)")
    number, unit = float(m.group(1)), m.group(2).lower()
    n = int(number * (1 << (10 * " kmgt".index(unit or " "))))
    if n <= 0:
        raise ValueError(f"memory limit must be positive, got '{text}'")
    return n


def _address_space_left() -> int | None:
    """Bytes of address space left under a soft ``RLIMIT_AS`` (None: no limit)."""
    try:
        import resource
    except ImportError:  # not on POSIX
        return None
    soft, _ = resource.getrlimit(resource.RLIMIT_AS)
    if soft == resource.RLIM_INFINITY:
        return None
    used = 0
    with contextlib.suppress(OSError, ValueError, IndexError):
        with open("/proc/self/statm") as f:
            used = int(f.read().split()[0]) * os.sysconf("SC_PAGE_SIZE")
    return max(soft - used, 0)


@functools.cache
def physical_memory() -> int | None:
    """Bytes of physical memory (None when the system does not say)."""
    try:
        return os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
    except (ValueError, OSError, AttributeError):
        return None


def default_limit() -> int:
    """:data:`DEFAULT_FRACTION` of the physical memory, or of the address
    space left under ``RLIMIT_AS`` when that is less (at least 64 MiB)."""
    avail = [n for n in (physical_memory(), _address_space_left()) if n is not None]
    base = min(avail) if avail else 8 << 30
    return max(int(base * DEFAULT_FRACTION), 64 << 20)


@dataclass
class MemoryBudget:
    """Bytes a conversion may still allocate (see the module docstring)."""

    limit: int
    used: int = 0

    @property
    def remaining(self) -> int:
        return max(self.limit - self.used, 0)

    def fits(self, nbytes: int) -> bool:
        return self.used + nbytes <= self.limit

    def charge(self, nbytes: int, what: str) -> None:
        """Account for ``nbytes`` about to be allocated for ``what`` (e.g.
        "its result"); raise :class:`MemoryLimitError` when they do not fit."""
        if not self.fits(nbytes):
            already = f", {format_size(self.used)} of it in use" if self.used else ""
            raise MemoryLimitError(
                f"{what} would take {format_size(nbytes)}, more than the conversion's "
                f"memory limit {format_size(self.limit)}{already} (--memory-limit)"
            )
        self.used += nbytes


_CURRENT: ContextVar[MemoryBudget | None] = ContextVar("xmo_memory_budget", default=None)


def current() -> MemoryBudget:
    """The budget of the running conversion; without one, a fresh budget of
    :func:`default_limit` (so a charge is checked on its own)."""
    b = _CURRENT.get()
    return b if b is not None else MemoryBudget(default_limit())


def charge(nbytes: int, what: str) -> None:
    """:meth:`MemoryBudget.charge` on the :func:`current` budget."""
    current().charge(nbytes, what)


@contextlib.contextmanager
def memory_budget(limit: int | str | None = None) -> Iterator[MemoryBudget]:
    """Run a conversion under a budget of ``limit`` bytes (``"4G"`` etc.;
    None: the default limit, or the budget already running when there is one)."""
    running = _CURRENT.get()
    if limit is None and running is not None:
        yield running
        return
    b = MemoryBudget(default_limit() if limit is None else parse_size(limit))
    token = _CURRENT.set(b)
    try:
        yield b
    finally:
        _CURRENT.reset(token)


def check_dims(dims: Sequence[int]) -> None:
    """Raise :class:`DimensionLimitError` when a (static, >= 0) dimension of
    ``dims`` or their product is beyond :data:`MAX_DIM` / :data:`MAX_ELEMENTS`."""
    for d in dims:
        if d > MAX_DIM:
            raise DimensionLimitError(
                f"dimension {d} is beyond the largest OpenVINO accepts ({MAX_DIM})"
            )
    n = math.prod(d for d in dims if d >= 0)
    if n > MAX_ELEMENTS:
        raise DimensionLimitError(
            f"shape {list(dims)} has {n} elements, more than an int64 can count"
        )


__all__ = [
    "DEFAULT_FRACTION",
    "DimensionLimitError",
    "MAX_DIM",
    "MAX_ELEMENTS",
    "MemoryBudget",
    "MemoryLimitError",
    "ResourceLimitError",
    "charge",
    "check_dims",
    "current",
    "default_limit",
    "format_size",
    "memory_budget",
    "parse_size",
]
