"""The SIMD vector width numba compiles xmo's kernels for.

LLVM tunes some AVX-512 CPUs (Skylake-X to Emerald Rapids: the
``prefer-256-bit`` tuning flag of their CPU models) to vectorise loops with
256-bit registers, half the width numpy's own SIMD loops use there. On a CPU
with AVX-512F xmo asks for 512-bit vectors instead: numba's target features
become the host's plus ``-prefer-256-bit`` (``numba.config.CPU_FEATURES``),
set once per process after numba is imported and before numba creates its
code generator (the first compiled function). Every site of the CPU backend
that imports numba calls :func:`configure` first.

numba's on-disk cache keys each kernel on the target features, so kernels
compiled for one width are never loaded for the other. Elementwise results
do not depend on the width; reductions compiled with ``reassoc`` (fastmath)
may differ in the last bits.

Left to numba: when the user set ``NUMBA_CPU_NAME`` or ``NUMBA_CPU_FEATURES``
(environment or numba's config file), when ``XMO_CPU_VECTOR_BITS=256``
(the opt-out; ``512``, the default, asks for the wide vectors), on CPUs
without AVX-512F, and when something compiled a numba function in the process
before xmo did (the code generator exists already).
"""

from __future__ import annotations

import os
from typing import Any

from xmo.backends.cpu import jit_cache

#: environment variable: ``512`` (the default) or ``256`` (numba's own choice)
ENV = "XMO_CPU_VECTOR_BITS"
#: the LLVM tuning flag that keeps AVX-512 CPUs on 256-bit vectors
PREFER_256 = "prefer-256-bit"

_done = False
_features: str | None = None  # the features xmo set, None: left to numba


def env_bits() -> int:
    """The width :data:`ENV` asks for (unset: 512)."""
    value = os.environ.get(ENV, "512").strip() or "512"
    if value not in ("256", "512"):
        raise ValueError(f"{ENV}={value!r}: expected 256 or 512")
    return int(value)


def configure() -> str | None:
    """Ask numba for 512-bit vectors where that applies (see the module
    docstring); once per process, after ``import numba``, first dropping
    numba cache files older than the kernel sources
    (:func:`~xmo.backends.cpu.jit_cache.refresh`). Returns the target
    features xmo set, or None when numba was left alone."""
    global _done, _features
    if not _done:
        _done = True
        jit_cache.refresh()  # before any kernel is loaded from numba's cache
        _features = _wide_features()
    return _features


def _wide_features() -> str | None:
    if env_bits() != 512:
        return None
    try:
        from numba.core import codegen, config
        from numba.core.registry import cpu_target
    except ImportError:
        return None
    if config.CPU_NAME is not None or config.CPU_FEATURES is not None:
        return None  # the user's choice
    if "_toplevel_target_context" in vars(cpu_target):
        return None  # numba's code generator exists: too late to change it
    host: Any = codegen.get_host_cpu_features()  # honours NUMBA_ENABLE_AVX=0
    flags = host.split(",") if host else []
    if "+avx512f" not in flags:
        return None
    features = ",".join([f for f in flags if f.lstrip("+-") != PREFER_256] + ["-" + PREFER_256])
    config.CPU_FEATURES = features
    return features
