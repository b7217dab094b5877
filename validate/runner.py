"""Many tasks on a local pool (``--jobs N``) or a Dask cluster (``--scheduler``).

Either way each task runs :func:`xmo.validate.isolation.run_isolated`, which
starts the model's own process: a crash, a hang or an out-of-memory ends that
process, never a pool thread or a Dask worker. Results come back to the
driver (this process), which alone writes the database (``on_result``).

On a cluster the workers need xmo installed (the same version as the driver)
and the model files at the same paths (a shared file system).
"""

from __future__ import annotations

import sys
import threading
import time
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor, as_completed
from typing import Any, TextIO

from xmo.validate.isolation import kill_running, run_isolated
from xmo.validate.manifest import Task
from xmo.validate.worker import Result


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

    def finish(self, result: Result) -> None:
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


def run_tasks(tasks: list[Task], *, jobs: int = 1, scheduler: str | None = None, timeout: float,
              memory_limit: int, progress: Progress | None = None) -> Iterator[tuple[Task, Result]]:
    """(task, result) pairs as they finish."""
    if not tasks:
        return
    if scheduler:
        yield from _on_dask(tasks, scheduler, timeout, memory_limit, progress)
        return
    yield from _on_pool(tasks, jobs, timeout, memory_limit, progress)


def _on_pool(tasks: list[Task], jobs: int, timeout: float, memory_limit: int,
             progress: Progress | None) -> Iterator[tuple[Task, Result]]:
    def one(task: Task) -> dict[str, Any]:
        if progress:
            progress.start()
        return run_isolated(task.to_json(), timeout, memory_limit)

    pool = ThreadPoolExecutor(max_workers=max(1, jobs), thread_name_prefix="xmo-validate")
    finished = False
    try:
        futures = {pool.submit(one, t): t for t in tasks}
        for fut in as_completed(futures):
            yield futures[fut], _finished(fut.result(), progress)
        finished = True
    finally:
        if not finished:  # Ctrl-C, SIGTERM, or the caller stopped: end the running workers
            pool.shutdown(wait=False, cancel_futures=True)
            kill_running()
        pool.shutdown(wait=True, cancel_futures=True)


def _finished(d: dict[str, Any], progress: Progress | None) -> Result:
    r = Result.from_json(d)
    if progress:
        progress.finish(r)
    return r


def _on_dask(tasks: list[Task], address: str, timeout: float, memory_limit: int,
             progress: Progress | None) -> Iterator[tuple[Task, Result]]:
    try:
        from distributed import Client, KilledWorker, as_completed as dask_completed
    except ImportError:
        from xmo.errors import XmoError

        raise XmoError("--scheduler needs Dask's distributed package: "
                            "pip install 'xmo[dask]'") from None
    with Client(address, timeout=30) as client:
        futures = {}
        for i, t in enumerate(tasks):
            fut = client.submit(run_isolated, t.to_json(), timeout, memory_limit,
                                key=f"xmo-validate-{i}-{t.key()[:12]}", pure=False)
            futures[fut] = t
        if progress:
            progress.running = min(len(tasks), sum(client.nthreads().values()))
        for fut in dask_completed(list(futures)):
            task = futures[fut]
            try:
                d = fut.result()
            except KilledWorker as e:  # the Dask worker itself died (each time Dask retried it)
                d = Result(task.name, task.model, key=task.key(), status="crash",
                           error=f"the Dask workers running it died: {e}", finished=time.time()).to_json()
            yield task, _finished(d, progress)
            if progress:
                progress.running = min(len(tasks) - progress.done, sum(client.nthreads().values()))
