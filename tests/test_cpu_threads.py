"""The CPU backend's thread count (``xmo.backends.cpu.threads``): one count
for numba and xmo's helper pool, BLAS on one thread (xmo splits large
products itself); ``compile_model(threads=N)`` and ``xmo run --threads N``."""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np
import pytest
from threadpoolctl import threadpool_info

import xmo
from xmo.backends.cpu import threads
from xmo.tools.xmo_main import main

DEMO = Path(__file__).resolve().parents[1] / "models" / "demo.mlir"
FEED = {"image": np.linspace(0, 1, 3 * 32 * 32, dtype=np.float32).reshape(1, 3, 32, 32)}


@pytest.fixture(autouse=True)
def default_threads():
    yield
    threads.set_threads(None)  # process-wide: leave the default for other tests


def _blas_threads() -> set[int]:
    return {i["num_threads"] for i in threadpool_info() if i["user_api"] == "blas"}


def test_default_is_the_cores_the_process_may_use():
    assert threads.set_threads(None) == len(os.sched_getaffinity(0)) == threads.threads()
    assert _blas_threads() == {threads.BLAS_THREADS} == {1}


def test_compile_model_threads_sets_blas_and_the_pool():
    xmo.compile_model(str(DEMO), threads=1)
    assert threads.threads() == 1 and _blas_threads() == {1}
    assert threads.pool().workers == 1  # never fewer than one
    xmo.compile_model(str(DEMO), threads=3)
    assert threads.threads() == 3 and _blas_threads() == {1}  # BLAS: one thread, xmo splits
    assert threads.pool().workers == 2  # the caller is the third


def test_outputs_do_not_depend_on_the_thread_count():
    one = xmo.compile_model(str(DEMO), threads=1)(FEED)[0]
    two = xmo.compile_model(str(DEMO), threads=2)(FEED)[0]
    np.testing.assert_allclose(one, two, rtol=1e-6, atol=1e-7)


@pytest.mark.parametrize("bad", [0, -1, 1.5, True])
def test_bad_counts_are_refused(bad):
    with pytest.raises(ValueError, match="positive integer"):
        threads.set_threads(bad)


def test_cli_threads(capsys):
    assert main(["run", str(DEMO), "--threads", "1"]) == 0
    assert threads.threads() == 1
    assert "output probabilities" in capsys.readouterr().out
    assert main(["run", str(DEMO), "--threads", "0"]) != 0
    assert "--threads: N must be at least 1" in capsys.readouterr().err


def test_numba_threading_layer_is_not_started_with_one_thread():
    """numba.set_num_threads starts numba's threading layer: with one thread
    xmo neither starts it (no native tasks) nor sizes it unless something
    else started it."""
    import json
    import subprocess
    import sys

    code = (
        "import json, numba, xmo\n"
        "import numba.np.ufunc.parallel as layer\n"
        f"xmo.compile_model({str(DEMO)!r}, threads=1)\n"
        "before = layer._is_initialized\n"
        "numba.set_num_threads(2)  # someone else starts it\n"
        "from xmo.backends.cpu import threads\n"
        "threads.set_threads(1)\n"
        "print(json.dumps([before, numba.get_num_threads()]))\n"
    )
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=False)
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout.strip().splitlines()[-1]) == [False, 1]


def test_run_tasks_runs_each_task_once_and_raises():
    threads.set_threads(2)
    seen: list[int] = []
    threads.run_tasks([(seen.append, (i,)) for i in range(9)])
    assert sorted(seen) == list(range(9))

    ran: list[int] = []

    def bad(i: int) -> None:
        ran.append(i)
        if i == 3:
            raise ValueError("part 3")

    for _ in range(20):  # the failing task on the caller or on the worker
        ran.clear()
        with pytest.raises(ValueError, match="part 3"):
            threads.run_tasks([(bad, (i,)) for i in range(6)])
        assert sorted(ran) == list(range(6))  # the others still ran, and finished


def test_run_tasks_uses_the_pool_workers_and_nests():
    """With 3 threads two workers may take tasks (each task waits until the
    three threads have started one: only possible when all three run); a task
    may itself run tasks (the pool never waits for a worker that has not
    started)."""
    import threading

    threads.set_threads(3)
    barrier = threading.Barrier(3, timeout=30)
    names: list[str] = []

    def meet(_: int) -> None:
        names.append(threading.current_thread().name)
        barrier.wait()

    threads.run_tasks([(meet, (i,)) for i in range(3)])
    assert len(set(names)) == 3
    inner: list[int] = []
    threads.run_tasks([(threads.run_tasks, ([(inner.append, (i * 10 + j,)) for j in range(4)],))
                       for i in range(5)])
    assert sorted(inner) == sorted(i * 10 + j for i in range(5) for j in range(4))


def test_pool_is_made_again_when_the_count_changes():
    threads.set_threads(2)
    first = threads.pool()
    assert threads.pool() is first and first.workers == 1
    threads.set_threads(3)
    assert threads.pool() is not first and threads.pool().workers == 2


@pytest.mark.parametrize("n,mg,cg", [(1, 1, 1), (2, 2, 1), (1, 1, 3)])
def test_direct_conv_split_across_threads_is_exact(n, mg, cg, monkeypatch):
    """The numba direct convolution run as group ranges on the helper pool
    gives the single-task result bit for bit (each output's sum is the same)."""
    from xmo.backends.cpu.kernels import convolution as conv

    if conv.direct_conv_kernel() is None:
        pytest.skip("numba missing")
    rng = np.random.default_rng(3)
    g = 7
    x = rng.standard_normal((n, g * cg, 9, 11)).astype(np.float32)
    w = rng.standard_normal((g, mg, cg, 3, 3)).astype(np.float32)
    wt = conv.direct_weights(w)
    geo = ((2, 1), (1, 2), (1, 2))
    dims = conv.conv_out_dims(x.shape[2:], (3, 3), *geo, (1, 2))
    threads.set_threads(1)
    whole = conv.direct_conv(x, wt, mg, *geo, dims)
    monkeypatch.setattr(conv, "DIRECT_MACS_PER_TASK", 1)
    threads.set_threads(3)
    split = conv.direct_conv(x, wt, mg, *geo, dims)
    np.testing.assert_array_equal(split, whole)


def test_blas_count_is_set_once_not_per_product(monkeypatch):
    """BLAS stays on one thread through small and split products (nothing
    sets its count per call); the results are np.matmul's."""
    from threadpoolctl import ThreadpoolController

    from xmo.backends.cpu.kernels import matmul

    calls: list[int] = []
    for lib in ThreadpoolController().select(user_api="blas").lib_controllers:
        real = lib.set_num_threads
        monkeypatch.setattr(lib, "set_num_threads", lambda n, real=real: (calls.append(n), real(n)))
    seen: list[set[int]] = []
    real_matmul = np.matmul

    def spy(*args, **kwargs):
        seen.append(_blas_threads())
        return real_matmul(*args, **kwargs)

    rng = np.random.default_rng(5)
    a = rng.standard_normal((2, 6, 8)).astype(np.float32)
    b = rng.standard_normal((2, 8, 5)).astype(np.float32)
    threads.set_threads(2)
    threads.set_pool("python")  # the tasks' np.matmul calls (native: test_cpu_native_tasks)
    monkeypatch.setattr(matmul.np, "matmul", spy)
    got = matmul.sized_matmul(a, b)
    monkeypatch.setattr(matmul, "MIN_SPLIT_MACS", 1)  # split: a task per matrix
    out = np.empty((2, 6, 5), np.float32)
    assert matmul.sized_matmul(a, b, out) is out
    monkeypatch.setattr(matmul.np, "matmul", real_matmul)
    assert seen == [{1}] * 3 and _blas_threads() == {1}
    np.testing.assert_array_equal(got, np.matmul(a, b))
    np.testing.assert_array_equal(out, got)
    assert calls == []  # threadpoolctl is not even asked
    threads.set_pool(None)


@pytest.mark.parametrize("n_threads", [1, 2, 3])
def test_sized_matmul_equals_numpy(n_threads, monkeypatch):
    """Split (a tiny threshold: every product is cut) or not, 2-D, batched,
    broadcast and with ``out``, the results are np.matmul's (bit for bit when
    not split; split, a part may take BLAS's edge kernels, which sum in
    another order); other dtypes and bad shapes go to np.matmul."""
    from xmo.backends.cpu.kernels import matmul

    rng = np.random.default_rng(7)
    threads.set_threads(n_threads)
    cases = [((37, 19), (19, 45)), ((3, 19), (19, 200)), ((1, 300), (300, 7)),
             ((4, 9, 19), (19, 23)), ((1, 3, 9, 19), (5, 1, 19, 23)), ((1, 1, 9, 19), (1, 1, 19, 33)),
             ((2, 9, 19), (2, 19, 23)), ((6, 1, 9, 8), (3, 8, 4))]
    for thr in (1, matmul.MIN_SPLIT_MACS):
        monkeypatch.setattr(matmul, "MIN_SPLIT_MACS", thr)
        for dtype in (np.float32, np.float64):
            for sa, sb in cases:
                a = rng.standard_normal(sa).astype(dtype)
                b = rng.standard_normal(sb).astype(dtype)
                want = np.matmul(a, b)
                tol = 0 if thr > 1 else 4 * np.finfo(dtype).eps
                np.testing.assert_allclose(matmul.sized_matmul(a, b), want, rtol=tol, atol=tol)
                np.testing.assert_allclose(matmul.product(a, b), want, rtol=tol, atol=tol)
                out = np.empty_like(want)
                assert matmul.sized_matmul(a, b, out) is out
                np.testing.assert_allclose(out, want, rtol=tol, atol=tol)
        ints = np.arange(24).reshape(2, 3, 4)
        np.testing.assert_array_equal(matmul.sized_matmul(ints, ints.swapaxes(1, 2)),
                                      np.matmul(ints, ints.swapaxes(1, 2)))
        with pytest.raises(ValueError):
            matmul.sized_matmul(np.ones((2, 3, 4), np.float32), np.ones((3, 4, 5), np.float32))
