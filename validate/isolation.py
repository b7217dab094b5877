"""The process around one model's validation: limits and what ended it.

:func:`run_isolated` starts ``python -m xmo.validate.worker`` in a session of
its own and watches it:

* **time**: beyond ``timeout`` seconds the process group is killed: status
  ``timeout``;
* **memory**: its resident set is read every 50 ms; beyond ``memory_limit``
  bytes the group is killed: status ``oom``. xmo's conversion budget
  (:mod:`xmo.budget`) is set to the same limit, so a conversion that would
  allocate more stops first with one line (also ``oom``);
* a signal ending it (SIGSEGV, SIGABRT, ...) is a ``crash``; an exit without a
  final result an ``error`` with the last line it wrote to stderr;
* the worker dies with its parent (``PR_SET_PDEATHSIG``): killing the driver
  leaves nothing running.

The peak RSS comes from the kernel's accounting of the child (``wait4``). The
result file the worker rewrites after each step keeps what was measured
before the end. Runs on a Dask worker as well (:mod:`.runner`).
"""

from __future__ import annotations

import ctypes
import json
import os
import signal
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

from xmo.validate.manifest import Task
from xmo.validate.worker import Result

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


def _last_line(path: Path) -> str:
    try:
        lines = [ln.strip() for ln in path.read_text(errors="replace").splitlines() if ln.strip()]
    except OSError:
        return ""
    return lines[-1][:300] if lines else ""


def run_isolated(task_json: dict[str, Any], timeout: float, memory_limit: int) -> dict[str, Any]:
    """Validate one task (:meth:`Task.to_json`) in a child process; its
    :class:`Result` as JSON. Never raises for what the model does.
    ``timeout``: seconds, unless the task has its own."""
    task = Task.from_json(task_json)
    timeout = task.timeout if task.timeout is not None else timeout
    t0 = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="xmo-validate-task-") as tmp:
        tmp_path = Path(tmp)
        task_file, result_file, err_file = tmp_path / "task.json", tmp_path / "result.json", tmp_path / "stderr"
        task_file.write_text(json.dumps(task.to_json()))
        env = {**os.environ, "PYTHONFAULTHANDLER": "1"}
        with open(err_file, "wb") as err:
            proc = subprocess.Popen(
                [sys.executable, "-m", "xmo.validate.worker", str(task_file), str(result_file)],
                stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=err, env=env,
                start_new_session=True, preexec_fn=_die_with_parent,
            )
        with _RUNNING_LOCK:
            _RUNNING.add(proc.pid)
        killed_for = ""
        peak = 0
        try:
            while True:
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
                time.sleep(POLL)
        finally:
            if proc.returncode is None:  # the driver is being interrupted
                _kill_group(proc.pid)
                proc.wait()
            with _RUNNING_LOCK:
                _RUNNING.discard(proc.pid)
        try:
            result = Result.from_json(json.loads(result_file.read_text()))
        except (OSError, ValueError):
            result = Result(task.name, task.model, key=task.key())
        result.peak_rss = max(usage.ru_maxrss * 1024, peak)
        result.seconds = time.monotonic() - t0
        result.finished = time.time()
        code = proc.returncode
        where = f" (while in step '{result.step}')" if result.step and result.step != "done" else ""
        stderr_tail = _last_line(err_file)
        if killed_for == "timeout":
            result.status, result.error = "timeout", f"no result within {timeout:g} s{where}"
        elif killed_for == "oom":
            from xmo.budget import format_size

            result.status = "oom"
            result.error = f"resident memory beyond the limit {format_size(memory_limit)}{where}"
        elif result.step == "done" and code == 0:
            pass
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


def _kill_group(pid: int) -> None:
    try:
        os.killpg(pid, signal.SIGKILL)
    except ProcessLookupError:
        pass
