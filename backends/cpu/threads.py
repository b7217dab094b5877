"""The CPU backend's threads: one count for the process, told to every pool.

Three things may run threads under the CPU backend: the BLAS library numpy
uses (matrix products; its own pthreads), numba's threading layer (the
native launchers below) and xmo's own helper pool. :func:`set_threads`
gives them one count -- by default the cores in the process's affinity mask
(``os.sched_getaffinity``) -- and :func:`pool` is the one helper pool
(``threads - 1`` workers: the calling thread works too).

BLAS runs on ONE thread, set once with the count (never toggled per call):
xmo cuts the products large enough to pay into tasks on its own pool
(:func:`xmo.backends.cpu.kernels.matmul.sized_matmul`). OpenBLAS's threads
would meet at barriers inside every product (a thread preempted by another
process stalls the call for a scheduler tick: tens of milliseconds on a busy
machine), keep spinning after it (taking the core from the pool's next
task), and switching their count costs microseconds per call
(threadpoolctl's get/set), as much as a small product.

The count is process-wide: ``xmo.compile_model(model, threads=N)`` and
``xmo run --threads N`` set it; a compiled model without ``threads`` keeps
what is set (the affinity default on first use).

**Native tasks.** Handing a task to a helper-pool worker costs 30-40 us on
these VMs (a futex wake, then the GIL handed over: the worker sleeps on it
again), more than many convolutions take on one thread. The hot kernels
therefore also have launchers in :mod:`.kernels.par_jit`: numba ``parallel``
functions whose loop over the tasks runs on numba's TBB threading layer
(oneTBB from PyPI, the ``tbb`` package), which hands a task over in a few
microseconds without the GIL: its workers spin briefly after a task, then
sleep (no CPU while idle), and TBB is fork- and thread-safe.
:func:`native_tasks` gives that module when it can be used: two threads or
more, x86-64 Linux, TBB loadable, and neither ``XMO_CPU_POOL=python`` nor
:func:`set_pool` ``("python")`` (every split on the helper pool, for
comparisons); else the callers run :func:`run_tasks`. Each native task sets
the denormal bits of :data:`TASK_MXCSR` on its thread (TBB's threads are not
the pool's).
"""

from __future__ import annotations

import ctypes
import itertools
import os
import platform
import queue
import sys
import threading
from collections.abc import Callable, Sequence
from pathlib import Path
from types import ModuleType

import numpy as np

_LOCK = threading.Lock()
_THREADS: int | None = None  # None: not configured yet
_POOL: Pool | None = None
_POOL_KEY: tuple[int, int] = (-1, -1)  # (pid, workers) the pool was made for
_WORKER_INIT: Callable[[], None] | None = None  # run by each pool worker as it starts
#: threads of the BLAS library while xmo's count is in force
BLAS_THREADS = 1
#: environment variable choosing where split steps run: ``native`` (the
#: default: :mod:`.kernels.par_jit` where a kernel has a launcher) or
#: ``python`` (the helper pool only)
POOL_ENV = "XMO_CPU_POOL"
#: (bits, mask) of the MXCSR each native task sets on its thread for its
#: duration (:mod:`.fpenv` fills it; zeros: nothing)
TASK_MXCSR = np.zeros(2, np.int64)
_native: ModuleType | bool | None = None  # par_jit; False: unavailable; None: not tried
_pool_kind: str | None = None  # set_pool's choice; None: the environment's
_native_count = threading.local()  # numba's per-thread count, as last set here


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
    """Use ``n`` threads (None: :func:`available_cores`) for xmo's helper pool
    and numba, process-wide, and :data:`BLAS_THREADS` for BLAS; returns the
    count set."""
    global _THREADS
    if n is not None and (not isinstance(n, int) or isinstance(n, bool) or n < 1):
        raise ValueError(f"threads must be a positive integer, got {n!r}")
    count = available_cores() if n is None else n
    with _LOCK:
        _THREADS = count
        _limit_blas(BLAS_THREADS)
        _limit_numba(count)
    return count


def _limit_blas(n: int) -> None:
    from threadpoolctl import threadpool_limits

    threadpool_limits(n, user_api="blas")


def _limit_numba(n: int) -> None:
    """numba's threading layer, only when something already started it
    (``numba.set_num_threads`` would start it just to size it): xmo starts
    it on the first split step of a native launcher (:func:`native_tasks`,
    which also sizes it for the thread launching), never with one thread."""
    numba = sys.modules.get("numba")
    layer = sys.modules.get("numba.np.ufunc.parallel")
    if numba is None or layer is None or not getattr(layer, "_is_initialized", False):
        return
    # numba cannot run more threads than it started with
    numba.set_num_threads(min(n, numba.config.NUMBA_NUM_THREADS))


def native_tasks() -> ModuleType | None:
    """:mod:`.kernels.par_jit` when split steps may run their native
    launchers (see the module docstring), with numba's thread count of the
    calling thread set to :func:`threads`; else None (one thread, or native
    tasks unavailable or switched off)."""
    global _native
    n = threads()
    if n < 2:
        return None
    if _native is None:
        with _LOCK:
            if _native is None:
                _native = _load_native() or False
    if _native is False:
        return None
    if getattr(_native_count, "n", 0) != n:  # numba's count is per launching thread
        import numba

        numba.set_num_threads(min(n, numba.config.NUMBA_NUM_THREADS))
        _native_count.n = n
    return _native  # type: ignore[return-value]


def pool_kind() -> str:
    """Where split steps run: ``native`` or ``python`` (:func:`set_pool`,
    else :data:`POOL_ENV`; ``native`` when unset)."""
    if _pool_kind is not None:
        return _pool_kind
    value = os.environ.get(POOL_ENV, "native").strip().lower() or "native"
    if value not in ("native", "python"):
        raise ValueError(f"{POOL_ENV}={value!r}: expected native or python")
    return value


def set_pool(kind: str | None) -> None:
    """Run split steps on the native launchers where they have one
    (``"native"``) or on the helper pool only (``"python"``; None: the
    environment's choice, :data:`POOL_ENV`), process-wide, from the next
    step on. Both compute the same values."""
    global _pool_kind, _native
    if kind not in (None, "native", "python"):
        raise ValueError(f"pool must be 'native', 'python' or None, got {kind!r}")
    with _LOCK:
        _pool_kind = kind
        _native = None  # loaded again (or refused: _load_native reads pool_kind) on next use


def _load_native() -> ModuleType | None:
    """numba's TBB threading layer and the launchers, or None (off, not
    x86-64 Linux, no numba or TBB, or numba already running another layer)."""
    if pool_kind() != "native" or sys.platform != "linux" \
            or platform.machine().lower() not in ("x86_64", "amd64"):
        return None
    try:
        import numba
        from numba.np.ufunc import parallel
    except ImportError:
        return None
    if not _load_tbb():
        return None
    if getattr(parallel, "_is_initialized", False):
        if numba.threading_layer() != "tbb":
            return None
    elif numba.config.THREADING_LAYER in ("default", "tbb", "safe", "threadsafe", "forksafe"):
        numba.config.THREADING_LAYER = "tbb"
    else:
        return None  # the user chose another layer for numba
    try:
        from xmo.backends.cpu.kernels import par_jit

        par_jit.probe(TASK_MXCSR)  # starts the layer
    except (ImportError, ValueError):  # ValueError: numba found no layer it could load
        return None
    return par_jit if numba.threading_layer() == "tbb" else None


def _load_tbb() -> bool:
    """libtbb loaded (the system's, else the ``tbb`` wheel's in the
    environment's ``lib``: not on the loader's path), for numba's layer."""
    for name in ("libtbb.so.12", str(Path(sys.prefix) / "lib" / "libtbb.so.12")):
        try:
            ctypes.CDLL(name, mode=ctypes.RTLD_GLOBAL)
            return True
        except OSError:
            continue
    return False


class Pool:
    """``workers`` daemon threads, each asleep on its own queue (a futex: no
    spinning, no cost to a busy neighbour) until :meth:`wake` hands it a job:
    about a microsecond to post, against ~4 us for a ThreadPoolExecutor
    future's submit and result."""

    def __init__(self, workers: int, initializer: Callable[[], object] | None = None) -> None:
        self.workers = workers
        self._queues: list[queue.SimpleQueue[Callable[[], None] | None]] = []
        for i in range(workers):
            q: queue.SimpleQueue[Callable[[], None] | None] = queue.SimpleQueue()
            self._queues.append(q)
            threading.Thread(target=_serve, args=(q, initializer), name=f"xmo-cpu_{i}",
                             daemon=True).start()

    def wake(self, job: Callable[[], None], count: int) -> None:
        """Run ``job()`` on ``count`` workers (after the jobs they have)."""
        for q in self._queues[:count]:
            q.put(job)

    def shutdown(self) -> None:
        """The workers end after their jobs."""
        for q in self._queues:
            q.put(None)


def _serve(jobs: queue.SimpleQueue[Callable[[], None] | None],
           initializer: Callable[[], object] | None) -> None:
    if initializer is not None:
        initializer()
    while (job := jobs.get()) is not None:
        job()


def pool() -> Pool:
    """The helper pool: ``threads() - 1`` workers, at least one (made again
    in a forked child, whose copy has none, and when the count changes)."""
    global _POOL, _POOL_KEY
    key = (os.getpid(), max(1, threads() - 1))
    if _POOL is None or _POOL_KEY != key:
        with _LOCK:
            if _POOL is None or _POOL_KEY != key:
                if _POOL is not None and _POOL_KEY[0] == key[0]:
                    _POOL.shutdown()  # running tasks finish
                _POOL = Pool(key[1], initializer=_WORKER_INIT)
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
            _POOL.shutdown()
        _POOL = None


def run_tasks(tasks: Sequence[tuple[Callable[..., object], tuple]]) -> None:
    """Run ``(fn, args)`` tasks: the calling thread and up to ``threads() - 1``
    pool workers each take the next task not yet taken (dynamic load balance:
    on a busy machine a late worker only delays the task it took, the caller
    takes the rest, and a worker that wakes after the last task was taken
    finds nothing to do: the caller never waits for a worker that has not
    started). ``fn`` should release the GIL (numba ``nogil``, BLAS, large
    numpy operations). Returns when every task has finished; the first
    exception a task raised is raised here (the other tasks still run)."""
    n = len(tasks)
    if n < 2 or threads() < 2:
        for fn, args in tasks:
            fn(*args)
        return
    taken = itertools.count()  # next() is atomic under the GIL
    finished = itertools.count(1)
    all_done = threading.Lock()
    all_done.acquire()  # released by the thread that finishes the last task
    errors: list[BaseException] = []
    # the tasks' arguments, dropped on return: a worker waking late still
    # holds ``work``, and the arrays must not stay referenced through it (an
    # in-place step would find its input shared, see runner.sole_owner)
    box = [tasks]

    def work() -> None:
        while (i := next(taken)) < n:
            fn, args = box[0][i]
            try:
                fn(*args)
            except BaseException as e:  # noqa: BLE001  (raised by the caller below)
                errors.append(e)
            fn = args = None
            if next(finished) == n:
                all_done.release()

    pool().wake(work, min(threads(), n) - 1)
    work()
    all_done.acquire()
    box.clear()
    if errors:
        raise errors[0]
