#!/usr/bin/env python3
"""What splitting one step over xmo's helper pool costs: two tasks of about
``T`` microseconds of numba work each (nogil, no memory traffic), run with
``threads.run_tasks`` on two threads, and as native tasks (a numba
``parallel`` launcher on numba's TBB layer, as ``kernels/par_jit.py``'s),
against the same two calls in turn on the calling thread, alternating call
by call, medians of ``--runs`` calls;
then the timeline of a split call (when the caller and the pool worker
start and end their task, when ``run_tasks`` returns, microseconds after
the call), medians.

A split pays when ``T`` is larger than about twice the fixed cost the
table shows (the difference between the split call and half the serial
one). Every CPU-backend kernel that cuts its work into tasks below its
threshold (``panel_conv.SPLIT_MACS``, ``packed.SPLIT_MACS``,
``rows.SPLIT_MIN``, ...) is weighed against this cost.

    python benchmarks/bench_pool_split.py [--runs 400] [--task-us 5 20 50 200]
"""

from __future__ import annotations

import argparse
import statistics
import threading
import time

import numba
import numpy as np

from xmo.backends.cpu import threads


@numba.njit(nogil=True, cache=False)
def _work(n: int) -> float:  # pragma: no cover (compiled)
    s = 0.0
    for i in range(n):
        s += np.sqrt(i + s * 1e-9)
    return s


@numba.njit(nogil=True, cache=False, parallel=True)
def _native(n: int, out: np.ndarray) -> None:  # pragma: no cover (compiled)
    for t in numba.prange(2):
        out[t] = _work(n)


def _iterations(us: float) -> int:
    """Iterations of :func:`_work` taking about ``us`` microseconds here."""
    _work(10)
    n = 200_000
    best = min(_timed(lambda: _work(n)) for _ in range(5))
    return max(1, int(n * us * 1e-6 / best))


def _timed(fn) -> float:
    t = time.perf_counter()
    fn()
    return time.perf_counter() - t


def split_costs(task_us: list[float], runs: int) -> list[tuple[float, float, float, float]]:
    """``(task us, pool split us, native split us, serial us)`` per task
    length, medians (the three in turn, rotating which goes first)."""
    rows = []
    out = np.zeros(2)
    for us in task_us:
        n = _iterations(us)
        tasks = [(_work, (n,)), (_work, (n,))]
        calls = [lambda: threads.run_tasks(tasks), lambda: _native(n, out),
                 lambda: (_work(n), _work(n))]
        for _ in range(20):
            for call in calls:
                call()
        times: list[list[float]] = [[], [], []]
        for i in range(runs):
            for j in range(3):
                k = (i + j) % 3
                times[k].append(_timed(calls[k]))
        rows.append((us, *(statistics.median(t) * 1e6 for t in times)))
    return rows


def timeline(us: float, runs: int) -> dict[str, float]:
    """Medians (us after the call) of when each thread starts and ends its
    task and when the split call returns."""
    n = _iterations(us)
    marks: dict[str, float] = {}

    def task() -> None:
        who = "caller" if threading.current_thread() is threading.main_thread() else "worker"
        marks[who + " starts"] = time.perf_counter()
        _work(n)
        marks[who + " ends"] = time.perf_counter()

    seen: dict[str, list[float]] = {}
    for _ in range(runs):
        marks.clear()
        t0 = time.perf_counter()
        threads.run_tasks([(task, ()), (task, ())])
        marks["returns"] = time.perf_counter()
        if len(marks) == 5:  # each thread took one task
            for k, v in marks.items():
                seen.setdefault(k, []).append((v - t0) * 1e6)
    return {k: statistics.median(v) for k, v in seen.items()}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--runs", type=int, default=400)
    ap.add_argument("--task-us", type=float, nargs="+", default=[5, 20, 50, 200])
    args = ap.parse_args()
    threads.set_threads(2)
    if threads.native_tasks() is None:  # numba's TBB layer chosen and started as xmo does
        raise SystemExit("no native tasks here (TBB, x86-64 Linux, XMO_CPU_POOL)")
    print("| task us | both on the caller, us | pool split, us | pool fixed cost, us "
          "| native split, us | native fixed cost, us |")
    print("| ---: | ---: | ---: | ---: | ---: | ---: |")
    for us, split, native, serial in split_costs(args.task_us, args.runs):
        print(f"| {us:g} | {serial:.1f} | {split:.1f} | {split - serial / 2:.1f} "
              f"| {native:.1f} | {native - serial / 2:.1f} |")
    marks = timeline(20, args.runs)
    print("\ntimeline of a split call, tasks of ~20 us (us after the call, medians of the calls "
          "where each thread took one task):")
    for k in ("caller starts", "worker starts", "caller ends", "worker ends", "returns"):
        if k in marks:
            print(f"  {k:14s} {marks[k]:6.1f}")


if __name__ == "__main__":
    main()
