"""Many tasks on a local pool (``--jobs N``) or a Dask cluster (``--scheduler``).

Either way each task runs in an :class:`xmo.validate.isolation.IsolatedWorker`
process: a crash, a hang or an out-of-memory ends that process, never a pool
thread or a Dask worker. By default each task gets a fresh process; with
``reuse_workers`` each pool slot (or Dask task, a batch of tasks) keeps its
process for task after task and starts a fresh one only after a task ended
it (for tasks whose start-up, ~3.5 s of imports, would dominate). Results
come back to the driver (this process), which alone writes the database.

On a cluster the workers need xmo installed (the same version as the driver)
and the model files at the same paths (a shared file system).
"""

from __future__ import annotations

import math
import queue
import sys
import threading
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from typing import Any, TextIO

from xmo.validate.isolation import IsolatedWorker, kill_running, run_batch
from xmo.validate.manifest import CallTask, Task
from xmo.validate.worker import CallResult, Result, new_result, result_from_json

AnyTask = Task | CallTask
AnyResult = Result | CallResult


class Progress:
    """One terminal line, redrawn: done / failed / running, ETA (a TTY only)."""

    def __init__(self, total: int, stream: TextIO | None = None, enabled: bool | None = None) -> None:
        self.stream = stream or sys.stderr
        self.enabled = self.stream.isatty() if enabled is None else enabled
        self.total, self.done, self.failed, self.running = total, 0, 0, 0
        self.started = time.monotonic()
        self._lock = threading.Lock()

    def start(self) -> None:
        with self._lock:
            self.running += 1
            self._draw()

    def finish(self, result: AnyResult) -> None:
        with self._lock:
            self.running = max(0, self.running - 1)
            self.done += 1
            self.failed += result.status != "pass"
            self._draw()

    def line(self) -> str:
        elapsed = time.monotonic() - self.started
        eta = ""
        if self.done:
            left = elapsed / self.done * (self.total - self.done)
            eta = f", ETA {int(left) // 60}:{int(left) % 60:02d}"
        return (f"[ xmo ] validate: {self.done}/{self.total} done, {self.failed} failed, "
                f"{self.running} running{eta}")

    def _draw(self) -> None:
        if self.enabled:
            self.stream.write("\r\x1b[K" + self.line())
            self.stream.flush()

    def close(self) -> None:
        if self.enabled:
            self.stream.write("\r\x1b[K")
            self.stream.flush()


def run_tasks(tasks: list[AnyTask], *, jobs: int = 1, scheduler: str | None = None, timeout: float,
              memory_limit: int, progress: Progress | None = None, reuse_workers: bool = False,
              env: dict[str, str] | None = None) -> Iterator[tuple[AnyTask, AnyResult]]:
    """(task, result) pairs as they finish. ``env``: added to the workers' environment."""
    if not tasks:
        return
    if scheduler:
        yield from _on_dask(tasks, scheduler, timeout, memory_limit, progress, reuse_workers, env)
        return
    yield from _on_pool(tasks, jobs, timeout, memory_limit, progress, reuse_workers, env)


def _on_pool(tasks: list[AnyTask], jobs: int, timeout: float, memory_limit: int,
             progress: Progress | None, reuse: bool, env: dict[str, str] | None
             ) -> Iterator[tuple[AnyTask, AnyResult]]:
    todo: queue.SimpleQueue[AnyTask] = queue.SimpleQueue()
    for t in tasks:
        todo.put(t)
    done: queue.SimpleQueue[tuple[AnyTask, dict[str, Any]]] = queue.SimpleQueue()
    stop = threading.Event()

    def slot() -> None:  # one pool thread: its worker process takes tasks until none is left
        with IsolatedWorker(env) as worker:
            while not stop.is_set():
                try:
                    task = todo.get_nowait()
                except queue.Empty:
                    return
                if progress:
                    progress.start()
                d = worker.run(task.to_json(), timeout, memory_limit)
                if not reuse:
                    worker.close()
                done.put((task, d))

    n = max(1, min(jobs, len(tasks)))
    pool = ThreadPoolExecutor(max_workers=n, thread_name_prefix="xmo-validate")
    finished = False
    try:
        slots = [pool.submit(slot) for _ in range(n)]
        for _ in tasks:
            while True:
                try:
                    task, d = done.get(timeout=0.5)
                    break
                except queue.Empty:
                    for f in slots:  # a slot that raised (not a task: a task's failure is its result)
                        if f.done() and f.exception() is not None:
                            raise f.exception()  # type: ignore[misc]
            yield task, _finished(d, progress)
        finished = True
    finally:
        if not finished:  # Ctrl-C, SIGTERM, or the caller stopped: end the running workers
            stop.set()
            kill_running()
        pool.shutdown(wait=True, cancel_futures=True)


def _finished(d: dict[str, Any], progress: Progress | None) -> AnyResult:
    r = result_from_json(d)
    if progress:
        progress.finish(r)
    return r


def _on_dask(tasks: list[AnyTask], address: str, timeout: float, memory_limit: int,
             progress: Progress | None, reuse: bool, env: dict[str, str] | None
             ) -> Iterator[tuple[AnyTask, AnyResult]]:
    try:
        from distributed import Client, KilledWorker, as_completed as dask_completed
    except ImportError:
        from xmo.errors import XmoError

        raise XmoError("--scheduler needs Dask's distributed package: "
                            "pip install 'xmo[dask]'") from None
    with Client(address, timeout=30) as client:
        threads = max(1, sum(client.nthreads().values()))
        # reusing workers: batches, four per Dask thread (one process per batch, restarted after a
        # failure); else a task a batch (a fresh process each)
        size = math.ceil(len(tasks) / (4 * threads)) if reuse else 1
        futures = {}
        for i in range(0, len(tasks), size):
            batch = tasks[i:i + size]
            fut = client.submit(run_batch, [t.to_json() for t in batch], timeout, memory_limit, env,
                                key=f"xmo-validate-{i}-{batch[0].key()[:12]}", pure=False)
            futures[fut] = batch
        if progress:
            progress.running = min(len(tasks), threads * size)
        for fut in dask_completed(list(futures)):
            batch = futures[fut]
            try:
                results = fut.result()
            except KilledWorker as e:  # the Dask worker itself died (each time Dask retried it)
                results = []
                for task in batch:
                    r = new_result(task, task.key())
                    r.status, r.error, r.finished = "crash", f"the Dask workers running it died: {e}", time.time()
                    results.append(r.to_json())
            for task, d in zip(batch, results):
                yield task, _finished(d, progress)
            if progress:
                progress.running = min(len(tasks) - progress.done, threads * size)
