"""The CPU backend's malloc policy: freed intermediates kept for the next run.

Every run allocates fresh numpy arrays for its intermediates and frees them
as their last user runs. glibc's malloc serves blocks above its mmap
threshold (128 KiB at first, raised dynamically up to 32 MiB as such blocks
are freed) with their own ``mmap`` and gives them back with ``munmap``, and
trims the top of its heap above the trim threshold: each run then faults its
intermediates' pages in again (the kernel zeroes each page), and how often
depends on what the process allocated before (full-size mobilenet_v3_small:
7.4 ms alone, 12.3 ms after efficientnet_b0 ran in the same process).
onnxruntime keeps its own arena and never pays this.

:func:`apply_malloc_policy` (called when the CPU backend compiles a model,
never by ``import xmo`` or a conversion) sets, once per process, a fixed
mmap threshold of 256 MiB and a trim threshold of 1 GiB (``mallopt``): freed
blocks stay in malloc's heaps and the next run reuses their pages, as an
arena would. The cost is memory: the process's resident size stays at the
peak of its largest run (up to 1 GiB of free heap is kept), as with
onnxruntime's arena. Process-wide; only on Linux with glibc (elsewhere
nothing happens); a process that set ``MALLOC_MMAP_THRESHOLD_``,
``MALLOC_TRIM_THRESHOLD_`` or glibc malloc tunables itself keeps them.
``XMO_CPU_MALLOC=default`` in the environment leaves malloc alone.
"""

from __future__ import annotations

import os
import sys

#: environment variable choosing the policy: ``arena`` (the default) or ``default``
ENV = "XMO_CPU_MALLOC"
POLICIES = ("arena", "default")
#: blocks up to this size come from malloc's heaps (glibc >= 2.26 takes it)
MMAP_THRESHOLD = 256 << 20
#: the largest mmap threshold older glibc takes on 64-bit (HEAP_MAX_SIZE / 2)
MMAP_THRESHOLD_OLD_GLIBC = 32 << 20
#: free memory at the top of a heap kept up to this size
TRIM_THRESHOLD = 1 << 30

_M_TRIM_THRESHOLD = -1  # mallopt parameters (malloc.h)
_M_MMAP_THRESHOLD = -3
#: environment variables through which the user tunes glibc malloc himself
USER_TUNING = ("MALLOC_MMAP_THRESHOLD_", "MALLOC_TRIM_THRESHOLD_", "MALLOC_TOP_PAD_")

_applied: str | None = None  # the policy in force once applied: "arena" or "default"


def malloc_policy() -> str:
    """The policy the environment asks for (:data:`ENV`; ``arena`` unless set)."""
    value = os.environ.get(ENV, "arena").strip().lower() or "arena"
    if value not in POLICIES:
        raise ValueError(f"{ENV}={value!r}: expected one of {', '.join(POLICIES)}")
    return value


def applied_policy() -> str | None:
    """The policy applied in this process: None before the CPU backend
    compiled a model, else ``arena`` (thresholds set) or ``default``."""
    return _applied


def _user_tuned() -> bool:
    if any(v in os.environ for v in USER_TUNING):
        return True
    return "glibc.malloc." in os.environ.get("GLIBC_TUNABLES", "")


def _glibc_mallopt():  # -> the C function, or None off glibc
    if not sys.platform.startswith("linux"):
        return None
    try:
        if not os.confstr("CS_GNU_LIBC_VERSION"):
            return None
    except (ValueError, OSError):  # not glibc (musl has no such name)
        return None
    import ctypes

    mallopt = ctypes.CDLL(None).mallopt
    mallopt.argtypes = (ctypes.c_int, ctypes.c_int)
    mallopt.restype = ctypes.c_int
    return mallopt


def apply_malloc_policy() -> str:
    """Apply :func:`malloc_policy` once per process (later calls return at
    once); returns the policy in force: ``arena`` when the thresholds were set,
    else ``default`` (asked for, not glibc, or tuned by the user)."""
    global _applied
    if _applied is not None:
        return _applied
    policy = malloc_policy()
    if policy == "arena":
        mallopt = None if _user_tuned() else _glibc_mallopt()
        if mallopt is None:
            policy = "default"
        else:
            ok = mallopt(_M_MMAP_THRESHOLD, MMAP_THRESHOLD) or mallopt(
                _M_MMAP_THRESHOLD, MMAP_THRESHOLD_OLD_GLIBC)
            if not (ok and mallopt(_M_TRIM_THRESHOLD, TRIM_THRESHOLD)):
                policy = "default"
    _applied = policy
    return policy
