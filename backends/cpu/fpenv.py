"""Denormal floats on the CPU backend: flushed to zero while a model runs.

Arithmetic on denormal (subnormal) floats -- magnitudes below 1.2e-38 in f32
-- takes a slow path on x86 CPUs: OpenBLAS multiplies a matrix holding a few
percent of them 10-30x slower. Models produce them: a Sigmoid of a very
negative value, multiplied into the next matrix product (efficientnet_b0's
squeeze-excitation blocks). With flushing on (the default), each run sets
the x86 MXCSR bits FTZ (results below the smallest normal become 0) and DAZ
(denormal operands read as 0) on the calling thread and restores its
previous bits afterwards (also when a kernel raises; about 0.6 us a run),
xmo's helper-pool workers keep both bits set, and each native task (TBB's
threads, :data:`~xmo.backends.cpu.threads.TASK_MXCSR`) sets them for its
duration. BLAS libraries' own threads
are not xmo's and keep their state: their operands are free of denormals
because the kernels before them flushed them. What changes: values below
1.2e-38 (f32; 2.2e-308 in f64) become zero, as in onnxruntime and OpenVINO's
CPU plugin, whose kernels avoid producing them.

The mode is process-wide, like the thread count: ``xmo.compile_model(model,
flush_denormals=False)`` (or ``True``) sets it, a compiled model without it
keeps what is set; the default comes from ``XMO_CPU_DENORMALS`` (``flush``,
the default, or ``keep``). Only on x86-64 with numba (two tiny compiled
functions, cached on disk); elsewhere a run leaves the floating-point state
alone.
"""

from __future__ import annotations

import os
import platform
import threading
from typing import Any

from xmo.backends.cpu import threads as cpu_threads

#: environment variable choosing the default: ``flush`` or ``keep``
ENV = "XMO_CPU_DENORMALS"
#: MXCSR bits: flush to zero (bit 15) and denormals are zero (bit 6)
FTZ_DAZ = 0x8040

_LOCK = threading.Lock()
_flush: bool | None = None  # None: not configured yet
_swap: Any = None  # njit swap(bits, mask) -> previous MXCSR; False: unavailable
_run_swap: Any = None  # _swap while the mode is to flush, else None


def env_default() -> bool:
    """Whether :data:`ENV` asks for flushing (unset: yes)."""
    value = os.environ.get(ENV, "flush").strip().lower() or "flush"
    if value not in ("flush", "keep"):
        raise ValueError(f"{ENV}={value!r}: expected flush or keep")
    return value == "flush"


def flush_denormals() -> bool:
    """The mode in force (configured from :func:`env_default` on first use)."""
    if _flush is None:
        set_flush_denormals(None)
    assert _flush is not None
    return _flush


def set_flush_denormals(flush: bool | None) -> bool:
    """Flush denormals during runs (``True``), or not (``False``; None: the
    environment's default), process-wide; returns the mode set. The helper
    pool's workers are made again with the new mode when it changes."""
    global _flush, _run_swap
    if flush is not None and not isinstance(flush, bool):
        raise ValueError(f"flush_denormals must be True, False or None, got {flush!r}")
    mode = env_default() if flush is None else flush
    with _LOCK:
        if mode == _flush:
            return mode
        _flush = mode
        swap = mxcsr_swap() if mode else None
        _run_swap = swap
    cpu_threads.set_worker_initializer(_flush_in_worker if swap is not None else None)
    cpu_threads.TASK_MXCSR[:] = FTZ_DAZ if swap is not None else 0  # native tasks
    return mode


def mxcsr_swap() -> Any:
    """``swap(bits, mask) -> previous``: sets the ``mask`` bits of the calling
    thread's MXCSR to those of ``bits`` (numba, compiled on first use); None
    off x86-64 or without numba."""
    global _swap
    if _swap is None:
        _swap = _compile_swap() or False
    return _swap or None


def _compile_swap() -> Any:
    if platform.machine().lower() not in ("x86_64", "amd64"):
        return None
    try:  # numba stays a lazy import
        import numba  # noqa: F401
    except ImportError:
        return None
    from xmo.backends.cpu.fpenv_jit import swap

    # the compiled entry point, without the dispatcher's type resolution
    # (0.17 us a call instead of 0.27)
    return getattr(swap.overloads.get(swap.signatures[0]), "entry_point", swap)


def _flush_in_worker() -> None:
    """Helper-pool worker initializer: FTZ and DAZ on for the thread's life."""
    _swap(FTZ_DAZ, FTZ_DAZ)


def enter_run() -> int:
    """At the start of a run: FTZ and DAZ on for the calling thread when the
    mode is to flush; returns what :func:`leave_run` restores (-1: nothing).
    The mode is configured when a model is compiled (:func:`flush_denormals`)."""
    swap = _run_swap
    return -1 if swap is None else swap(FTZ_DAZ, FTZ_DAZ)


def leave_run(saved: int) -> None:
    """At the end of a run: the calling thread's FTZ and DAZ as they were."""
    if saved >= 0:
        _swap(saved, FTZ_DAZ)
