"""Wall time and peak RSS of a command run as a child process (shared by the
benchmarks that compare whole processes)."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

# Runs one command and reports its wall time and peak RSS. A child's ru_maxrss
# also holds the peak RSS of the process it was spawned from (the memory of the
# forked / vforked parent counts until exec), so the tools are spawned from this
# small interpreter, not from the benchmark (numpy, onnx, generated graphs).
LAUNCHER = """
import os, sys, time
fd = os.open(sys.argv[1], os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
acts = [(os.POSIX_SPAWN_DUP2, fd, 1), (os.POSIX_SPAWN_DUP2, fd, 2)]
t0 = time.perf_counter()
pid = os.posix_spawn(sys.argv[2], sys.argv[2:], os.environ, file_actions=acts)
_, status, usage = os.wait4(pid, 0)
wall = time.perf_counter() - t0
print(wall, usage.ru_maxrss * 1024, os.waitstatus_to_exitcode(status),
      usage.ru_utime + usage.ru_stime)
"""


def run_measured(cmd: list[str], log: Path, env: dict[str, str]) -> tuple[float, int, int]:
    """(wall seconds, peak RSS bytes, exit code) of ``cmd`` as a child process."""
    return run_measured_cpu(cmd, log, env)[:3]


def run_measured_cpu(cmd: list[str], log: Path, env: dict[str, str]) -> tuple[float, int, int, float]:
    """:func:`run_measured` and the child's CPU seconds (user + system, all
    its threads: steadier than wall time on a shared machine, but it counts
    a multi-threaded tool's parallel work in full)."""
    r = subprocess.run([sys.executable, "-S", "-c", LAUNCHER, str(log), *cmd],
                       capture_output=True, text=True, env=env, check=True)
    wall, peak, rc, cpu = r.stdout.split()
    return float(wall), int(peak), int(rc), float(cpu)


def find_tool(name: str) -> str:
    """A command of this venv (beside the interpreter), else from PATH."""
    beside = Path(sys.executable).parent / name
    found = str(beside) if beside.exists() else shutil.which(name)
    if not found:
        raise SystemExit(f"{name} not found (activate the venv)")
    return found
