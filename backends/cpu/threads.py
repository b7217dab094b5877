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

import os
import sys
import threading
from concurrent.futures import ThreadPoolExecutor

_LOCK = threading.Lock()
_THREADS: int | None = None  # None: not configured yet
_POOL: ThreadPoolExecutor | None = None
_POOL_KEY: tuple[int, int] = (-1, -1)  # (pid, workers) the pool was made for


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


def run_tasks(tasks: list) -> None:
    """Run ``(fn, args)`` tasks on :func:`pool`: the calling thread and up to
    ``threads() - 1`` pool threads take tasks from a shared queue (dynamic
    load balance); returns when all are done (a task's exception is raised)."""
    helpers = min(len(tasks), threads()) - 1
    if helpers <= 0:
        for fn, args in tasks:
            fn(*args)
        return
    order = iter(range(len(tasks)))
    lock = threading.Lock()

    def drain() -> None:
        while True:
            with lock:
                i = next(order, None)
            if i is None:
                return
            fn, args = tasks[i]
            fn(*args)

    futures = [pool().submit(drain) for _ in range(helpers)]
    drain()
    for f in futures:
        f.result()
