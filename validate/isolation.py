"""The process around validation tasks: limits and what ended each task.

:class:`IsolatedWorker` owns one ``python -m xmo.validate.worker`` process
(in a session of its own) that takes tasks one after another over a pipe,
and watches each task:

* **time**: beyond ``timeout`` seconds the process group is killed: status
  ``timeout``;
* **memory**: its resident set is read every 50 ms; beyond ``memory_limit``
  bytes the group is killed: status ``oom``. xmo's conversion budget
  (:mod:`xmo.budget`) is set to the same limit, so a conversion that would
  allocate more stops first with one line (also ``oom``);
* a signal ending it (SIGSEGV, SIGABRT, ...) is a ``crash``; an exit without a
  final result an ``error`` with the last line it wrote to stderr;
* the worker dies with its parent (``PR_SET_PDEATHSIG``): killing the driver
  leaves nothing running;
* each worker process writes its temporary files (a task's converted IR, say)
  under a folder of its own (``TMPDIR``), removed when the process ends: a
  task killed half-way leaves nothing in the system's temporary folder.

A task that ends its process that way is recorded with its status, and the
next task gets a fresh process: one bad task costs one restart. A worker
whose resident set stays above half the limit after a task is replaced too
(so what one task leaves behind does not count against the next).
:func:`run_batch` runs tasks in one reused worker (a Dask task; a batch of
one is a task in a fresh process, what ``xmo validate`` does by default).

The peak RSS of a task is the kernel's high-water mark (``VmHWM``, reset
before each task; ``wait4`` when the process died). The result file the
worker rewrites after each step keeps what was measured before the end.
Runs on a Dask worker as well (:mod:`.runner`).
"""

from __future__ import annotations

import ctypes
import json
import os
import select
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

from xmo.validate.manifest import CallTask, Task, task_from_json
from xmo.validate.worker import CallResult, Result, new_result

#: how often the watcher looks (seconds)
POLL = 0.05
_PR_SET_PDEATHSIG = 1
_PAGE = os.sysconf("SC_PAGE_SIZE")


try:  # looked up here: between fork and exec (with the pool's threads about) only the call runs
    _PRCTL = ctypes.CDLL(None, use_errno=True).prctl
except (OSError, AttributeError):  # not Linux: a child may outlive a killed driver
    _PRCTL = None

#: process groups of the running workers (killed when the driver is interrupted)
_RUNNING: set[int] = set()
_RUNNING_LOCK = threading.Lock()


def _die_with_parent() -> None:  # runs in the child between fork and exec
    if _PRCTL is not None:
        _PRCTL(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)


def kill_running() -> None:
    """Kill every running worker (the driver is being interrupted)."""
    with _RUNNING_LOCK:
        for pid in list(_RUNNING):
            _kill_group(pid)


def _rss(pid: int) -> int:
    try:
        with open(f"/proc/{pid}/statm") as f:
            return int(f.read().split()[1]) * _PAGE
    except (OSError, IndexError, ValueError):
        return 0


def _high_water(pid: int) -> int:
    """The kernel's peak RSS of a live process (``VmHWM``), 0 when unknown."""
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) * 1024
    except (OSError, IndexError, ValueError):
        pass
    return 0


def _reset_high_water(pid: int) -> None:
    try:
        with open(f"/proc/{pid}/clear_refs", "w") as f:
            f.write("5")
    except OSError:  # not Linux >= 4.0: the sampled peak stays
        pass


def _last_line(path: Path, offset: int = 0) -> str:
    try:
        with open(path, "rb") as f:
            f.seek(offset)
            text = f.read().decode(errors="replace")
    except OSError:
        return ""
    lines = [ln.strip() for ln in text.splitlines() if ln.strip()]
    return lines[-1][:300] if lines else ""


def _read_result(path: Path, task: Task | CallTask) -> Result | CallResult:
    """What the worker wrote (its key is the driver's: the worker leaves it out)."""
    key = task.key()
    result = new_result(task, key)
    try:
        d = json.loads(path.read_text())
    except (OSError, ValueError):
        return result
    result = type(result).from_json(d)
    result.key = key
    return result


class IsolatedWorker:
    """One worker process, started on the first task and after a task ended it.

    ``env``: variables added to the worker's environment."""

    def __init__(self, env: dict[str, str] | None = None) -> None:
        self.env = {**os.environ, "PYTHONFAULTHANDLER": "1", **(env or {})}
        self.proc: subprocess.Popen | None = None
        self._tmp = tempfile.TemporaryDirectory(prefix="xmo-validate-worker-")
        self.dir = Path(self._tmp.name)
        self.err_file = self.dir / "stderr"
        self.err_file.touch()
        self._replies = -1
        self._tasks_run = 0
        self._proc_tmp: Path | None = None  # the running process's TMPDIR

    def __enter__(self) -> IsolatedWorker:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
        self._tmp.cleanup()

    def _start(self) -> subprocess.Popen:
        read_end, write_end = os.pipe()
        self._proc_tmp = Path(tempfile.mkdtemp(prefix="tmp-", dir=self.dir))
        try:
            with open(self.err_file, "ab") as err:
                proc = subprocess.Popen(
                    [sys.executable, "-m", "xmo.validate.worker", str(write_end)],
                    stdin=subprocess.PIPE, stdout=subprocess.DEVNULL, stderr=err,
                    env={**self.env, "TMPDIR": str(self._proc_tmp)},
                    start_new_session=True, preexec_fn=_die_with_parent, pass_fds=(write_end,),
                )
        finally:
            os.close(write_end)
        self._replies = read_end
        self._tasks_run = 0
        with _RUNNING_LOCK:
            _RUNNING.add(proc.pid)
        self.proc = proc
        return proc

    def close(self) -> None:
        """End the process (if any) and what it started: it holds nothing unsaved
        between tasks, so it is killed rather than asked to exit."""
        proc, self.proc = self.proc, None
        if proc is None:
            return
        if proc.returncode is None:
            _kill_group(proc.pid)
        proc.wait()
        try:
            if proc.stdin:
                proc.stdin.close()
        except OSError:  # its reader is gone with unread data
            pass
        with _RUNNING_LOCK:
            _RUNNING.discard(proc.pid)
        os.close(self._replies)
        self._replies = -1
        if self._proc_tmp is not None:  # what a task killed half-way left there
            shutil.rmtree(self._proc_tmp, ignore_errors=True)
            self._proc_tmp = None

    def run(self, task_json: dict[str, Any], timeout: float, memory_limit: int) -> dict[str, Any]:
        """Run one task (:meth:`Task.to_json` or :meth:`CallTask.to_json`); its
        result as JSON. Never raises for what the task does. ``timeout``:
        seconds, unless the task has its own."""
        task = task_from_json(task_json)
        timeout = task.timeout if task.timeout is not None else timeout
        t0 = time.monotonic()
        proc = self.proc if self.proc is not None and self.proc.poll() is None else None
        if proc is None:
            self.close()
            proc = self._start()
        result_file = self.dir / f"result-{self._tasks_run}.json"
        result_file.unlink(missing_ok=True)
        err_offset = self.err_file.stat().st_size
        _reset_high_water(proc.pid)
        first = self._tasks_run == 0
        self._tasks_run += 1
        killed_for, replied, peak, usage = "", False, 0, None
        try:
            assert proc.stdin is not None
            proc.stdin.write((json.dumps({"task": task.to_json(), "result": str(result_file)}) + "\n").encode())
            proc.stdin.flush()
        except OSError:  # died before taking it: seen below as an exit without a result
            pass
        try:
            eof = False
            while True:
                if eof:
                    time.sleep(POLL)
                elif select.select([self._replies], [], [], POLL)[0]:
                    replied = os.read(self._replies, 64) != b""
                    if replied:
                        peak = max(peak, _high_water(proc.pid))
                        break
                    eof = True  # it is ending: reap it below
                pid, status, usage = os.wait4(proc.pid, os.WNOHANG)
                if pid:
                    proc.returncode = os.waitstatus_to_exitcode(status)
                    break
                peak = max(peak, _rss(proc.pid))
                if not killed_for and memory_limit and peak > memory_limit:
                    killed_for = "oom"
                elif not killed_for and time.monotonic() - t0 > timeout:
                    killed_for = "timeout"
                if killed_for:
                    _kill_group(proc.pid)
        finally:
            if not replied and proc.returncode is None:  # the driver is being interrupted
                _kill_group(proc.pid)
                _, status, usage = os.wait4(proc.pid, 0)
                proc.returncode = os.waitstatus_to_exitcode(status)
        result = _read_result(result_file, task)
        if usage is not None and first:  # the process ran this task only: the kernel's peak
            peak = max(peak, usage.ru_maxrss * 1024)
        result.peak_rss = peak
        result.seconds = time.monotonic() - t0
        result.finished = time.time()
        if replied:
            if memory_limit and _rss(proc.pid) > memory_limit // 2:  # start the next task afresh
                self.close()
            return result.to_json()
        self.close()
        code = proc.returncode
        where = f" (while in step '{result.step}')" if result.step and result.step != "done" else ""
        stderr_tail = _last_line(self.err_file, err_offset)
        if killed_for == "timeout":
            result.status, result.error = "timeout", f"no result within {timeout:g} s{where}"
        elif killed_for == "oom":
            from xmo.budget import format_size

            result.status = "oom"
            result.error = f"resident memory beyond the limit {format_size(memory_limit)}{where}"
        elif code is not None and code < 0:
            sig = signal.Signals(-code).name
            if -code == signal.SIGKILL:
                result.status = "oom"
                result.error = f"killed by SIGKILL (the kernel's out-of-memory killer?){where}"
            else:
                result.status, result.error = "crash", f"killed by {sig}{where}"
        elif "MemoryError" in stderr_tail or "bad_alloc" in stderr_tail:
            result.status, result.error = "oom", f"{stderr_tail}{where}"
        else:
            result.status = "error"
            result.error = f"worker exited with {code}{where}: {stderr_tail}"
        return result.to_json()


def run_batch(task_jsons: list[dict[str, Any]], timeout: float, memory_limit: int,
              env: dict[str, str] | None = None) -> list[dict[str, Any]]:
    """Tasks one after another in one reused worker (a fresh one after a task
    that ended it); their results in order."""
    with IsolatedWorker(env) as worker:
        return [worker.run(t, timeout, memory_limit) for t in task_jsons]


def _kill_group(pid: int) -> None:
    try:
        os.killpg(pid, signal.SIGKILL)
    except ProcessLookupError:
        pass
