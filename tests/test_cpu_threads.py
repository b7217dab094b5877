"""The CPU backend's thread count (``xmo.backends.cpu.threads``): one count
for BLAS, numba and xmo's helper pool; ``compile_model(threads=N)`` and
``xmo run --threads N``."""

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
    assert _blas_threads() == {threads.threads()}


def test_compile_model_threads_sets_blas_and_the_pool():
    xmo.compile_model(str(DEMO), threads=1)
    assert threads.threads() == 1 and _blas_threads() == {1}
    assert threads.pool()._max_workers == 1  # noqa: SLF001  (never fewer than one)
    xmo.compile_model(str(DEMO), threads=3)
    assert threads.threads() == 3 and _blas_threads() == {3}
    assert threads.pool()._max_workers == 2  # noqa: SLF001  (the caller is the third)


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


def test_numba_threading_layer_is_never_started_by_xmo():
    """numba.set_num_threads starts numba's OpenMP/TBB workers: xmo only sizes
    the layer when something else started it."""
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

    def bad(i: int) -> None:
        if i == 3:
            raise ValueError("part 3")

    with pytest.raises(ValueError, match="part 3"):
        threads.run_tasks([(bad, (i,)) for i in range(6)])


def test_blas_threads_one_restores_the_count():
    threads.set_threads(2)
    with threads.blas_threads(1):
        assert _blas_threads() == {1}
    assert _blas_threads() == {2}


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


def test_sized_matmul_one_blas_thread_below_the_threshold(monkeypatch):
    """Products below BLAS_THREADS_MIN_MACS run on one BLAS thread (the count
    restored after), larger ones on all of them; the result is np.matmul's."""
    from xmo.backends.cpu.kernels import matmul

    seen = []
    real = np.matmul

    def spy(*args, **kwargs):
        seen.append(_blas_threads())
        return real(*args, **kwargs)

    rng = np.random.default_rng(5)
    a = rng.standard_normal((2, 6, 8)).astype(np.float32)
    b = rng.standard_normal((2, 8, 5)).astype(np.float32)
    threads.set_threads(2)
    monkeypatch.setattr(matmul.np, "matmul", spy)
    got = matmul.sized_matmul(a, b)
    monkeypatch.setattr(matmul, "BLAS_THREADS_MIN_MACS", 6 * 8 * 5)
    out = np.empty((2, 6, 5), np.float32)
    matmul.sized_matmul(a, b, out)
    monkeypatch.setattr(matmul.np, "matmul", real)
    assert seen == [{1}, {2}]
    assert _blas_threads() == {2}
    np.testing.assert_array_equal(got, np.matmul(a, b))
    np.testing.assert_array_equal(out, got)
