"""The CPU backend's threads: one count for the process, told to every pool.

Three things may run threads under the CPU backend: the BLAS library numpy
uses (matrix products; its own pthreads, which spin a while after each call),
numba's threading layer (only for ``parallel`` kernels: xmo has none and never
starts it) and xmo's own helper pool (the FFT and attention kernels'
tasks). Left alone, each sizes itself to the machine (BLAS counts every
online CPU, not the ones this process may use), and together they
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
_BLAS: tuple[int, Any] = (-1, [])  # (pid, threadpoolctl controllers of the BLAS libraries)
_WORKER_INIT: Callable[[], None] | None = None  # run by each pool worker as it starts


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
                _POOL = ThreadPoolExecutor(max_workers=key[1], thread_name_prefix="xmo-cpu",
                                           initializer=_WORKER_INIT)
                _POOL_KEY = key
    return _POOL


def set_worker_initializer(init: Callable[[], None] | None) -> None:
    """Run ``init()`` in each helper-pool worker as it starts (None: nothing;
    process-wide): the pool is made again on next use, its running tasks
    finish (:mod:`.fpenv` sets the workers' floating-point mode so)."""
    global _POOL, _WORKER_INIT
    with _LOCK:
        _WORKER_INIT = init
        if _POOL is not None and _POOL_KEY[0] == os.getpid():
            _POOL.shutdown(wait=False)
        _POOL = None


def run_tasks(tasks: Sequence[tuple[Callable[..., object], tuple]]) -> None:
    """Run ``(fn, args)`` tasks: the calling thread and up to ``threads() - 1``
    pool workers each take the next task not yet taken (dynamic load balance:
    on a busy machine a late worker only delays the task it took, the caller
    takes the rest). A worker that has not started when the caller runs out of
    tasks is cancelled, so a worker waiting for a core costs no wait. ``fn``
    should release the GIL (numba ``nogil``, BLAS, large numpy operations).
    A task's exception is raised here."""
    n = len(tasks)
    if n < 2 or threads() < 2:
        for fn, args in tasks:
            fn(*args)
        return
    taken = itertools.count()  # next() is atomic under the GIL

    def work() -> None:
        while (i := next(taken)) < n:
            fn, args = tasks[i]
            fn(*args)

    futures = [pool().submit(work) for _ in range(min(threads(), n) - 1)]
    try:
        work()
    finally:
        for f in futures:
            if not f.cancel():
                f.result()


@contextmanager
def blas_threads(n: int) -> Iterator[None]:
    """BLAS on ``n`` threads inside the block (then back to what it was), for
    kernels that split their matrix products over the helper pool themselves
    (``blas_threads(1)``): one join per product instead of OpenBLAS's
    barriers, which a preempted thread stalls on a loaded machine.
    Process-wide while it lasts; a few microseconds to enter and leave (the
    BLAS libraries are looked up once per process)."""
    global _BLAS
    pid, libs = _BLAS
    if pid != os.getpid():
        from threadpoolctl import ThreadpoolController

        libs = ThreadpoolController().select(user_api="blas").lib_controllers
        _BLAS = (os.getpid(), libs)
    before = [lib.get_num_threads() for lib in libs]
    for lib in libs:
        lib.set_num_threads(n)
    try:
        yield
    finally:
        for lib, count in zip(libs, before):
            lib.set_num_threads(count)
