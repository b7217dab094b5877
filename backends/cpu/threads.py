"""The CPU backend's threads: one count for the process, told to every pool.

Three things may run threads under the CPU backend: the BLAS library numpy
uses (matrix products; its own pthreads, which spin a while after each call),
numba's threading layer (only for ``parallel`` kernels: xmo has none and never
starts it) and xmo's own helper pool (the FFT kernel's tasks). Left alone, each sizes itself to the machine (BLAS counts
every online CPU, not the ones this process may use), and together they
oversubscribe the cores. :func:`set_threads` gives them one count -- by
default the cores in the process's affinity mask (``os.sched_getaffinity``)
-- and :func:`pool` is the one helper pool (``threads - 1`` workers: the
calling thread works too).

The count is process-wide: ``xmo.compile_model(model, threads=N)`` and
``xmo run --threads N`` set it; a compiled model without ``threads`` keeps
what is set (the affinity default on first use).
"""

from __future__ import annotations

import itertools
import os
import sys
import threading
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from typing import Any

_LOCK = threading.Lock()
_THREADS: int | None = None  # None: not configured yet
_POOL: ThreadPoolExecutor | None = None
_POOL_KEY: tuple[int, int] = (-1, -1)  # (pid, workers) the pool was made for
_BLAS: list[Any] | None = None  # threadpoolctl's controllers of the loaded BLAS libraries


def available_cores() -> int:
    """Cores this process may run on (its affinity mask; else the CPU count)."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # pragma: no cover - not Linux
        return max(1, os.cpu_count() or 1)


def threads() -> int:
    """The thread count in force (configured with the default on first use)."""
    if _THREADS is None:
        set_threads(None)
    assert _THREADS is not None
    return _THREADS


def set_threads(n: int | None) -> int:
    """Use ``n`` threads (None: :func:`available_cores`) for BLAS, numba and
    the helper pool, process-wide; returns the count set."""
    global _THREADS
    if n is not None and (not isinstance(n, int) or isinstance(n, bool) or n < 1):
        raise ValueError(f"threads must be a positive integer, got {n!r}")
    count = available_cores() if n is None else n
    with _LOCK:
        _THREADS = count
        _limit_blas(count)
        _limit_numba(count)
    return count


def _limit_blas(n: int) -> None:
    from threadpoolctl import threadpool_limits

    threadpool_limits(n, user_api="blas")


def _limit_numba(n: int) -> None:
    """numba's threading layer, only when something already started it.

    xmo's numba kernels are serial (``nogil``, run on the helper pool), so
    xmo never starts that layer: ``numba.set_num_threads`` would start it
    (OpenMP or TBB workers, which spin) just to size it."""
    numba = sys.modules.get("numba")
    layer = sys.modules.get("numba.np.ufunc.parallel")
    if numba is None or layer is None or not getattr(layer, "_is_initialized", False):
        return
    # numba cannot run more threads than it started with
    numba.set_num_threads(min(n, numba.config.NUMBA_NUM_THREADS))


def pool() -> ThreadPoolExecutor:
    """The helper pool: ``threads() - 1`` workers (made again in a forked
    child, whose copy has none, and when the count changes)."""
    global _POOL, _POOL_KEY
    key = (os.getpid(), max(1, threads() - 1))
    if _POOL is None or _POOL_KEY != key:
        with _LOCK:
            if _POOL is None or _POOL_KEY != key:
                if _POOL is not None and _POOL_KEY[0] == key[0]:
                    _POOL.shutdown(wait=False)  # running tasks finish
                _POOL = ThreadPoolExecutor(max_workers=key[1], thread_name_prefix="xmo-cpu")
                _POOL_KEY = key
    return _POOL


@contextmanager
def serial_blas() -> Iterator[None]:
    """BLAS runs one thread per call inside (for a caller that splits a
    product over :func:`pool` itself: one join per product instead of
    OpenBLAS's barriers, which a preempted thread stalls on a loaded
    machine); the count in force is restored on exit."""
    global _BLAS
    if _BLAS is None:
        from threadpoolctl import ThreadpoolController

        _BLAS = list(ThreadpoolController().select(user_api="blas").lib_controllers)
    for lib in _BLAS:
        lib.set_num_threads(1)
    try:
        yield
    finally:
        n = threads()
        for lib in _BLAS:
            lib.set_num_threads(n)


def run_parts(fn: Callable[..., Any], parts: Sequence[tuple[Any, ...]]) -> None:
    """``fn(*part)`` for every part, on the calling thread and up to
    ``threads() - 1`` pool workers, each taking the next part not yet taken
    (``fn`` must release the GIL to run in parallel). A worker that has not
    started when the caller runs out of parts is cancelled, so a loaded
    machine that leaves a worker waiting for a core costs no wait."""
    if len(parts) < 2 or threads() < 2:
        for p in parts:
            fn(*p)
        return
    taken = itertools.count()  # next() is atomic under the GIL
    n = len(parts)

    def work() -> None:
        while (i := next(taken)) < n:
            fn(*parts[i])

    futures = [pool().submit(work) for _ in range(min(threads(), len(parts)) - 1)]
    try:
        work()
    finally:
        for f in futures:
            if not f.cancel():
                f.result()
