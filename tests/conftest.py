"""Shared pytest fixtures.

OpenBLAS runs single-threaded in the test process: once numpy's OpenBLAS has
started its worker threads, a call of OpenVINO 2026.4's TensorFlow frontend
(``openvino.convert_model("x.pb")``) leaves the next multi-threaded matmul
waiting forever (reproduced with numpy alone: ``a @ a``,
``ov.convert_model(pb)``, ``a @ a``). Tests use OpenVINO's TF frontend as the
reference and then run xmo's CPU backend in the same process.

Every conversion in the tests verifies the module after each pass
(``XMO_VERIFY_EACH_TRANSFORM=1``, read by :func:`xmo.passes.pipeline.run_pipeline`),
so a pass that leaves invalid IR fails where it does so.

The test process parses textual IR the way ``xmo`` / ``xmo-opt`` do, so it
applies xmo's xDSL patches as they do (``tests/test_xdsl_patches.py`` checks
them, and that importing xmo alone leaves xDSL as shipped, in fresh processes).

A test process that a signal ends silently (SIGTERM, SIGHUP, SIGALRM, ...)
leaves its threads' stacks, printed at the end of the run
(``tests/signal_dumps.py``).
"""

from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
os.environ.setdefault("XMO_VERIFY_EACH_TRANSFORM", "1")

import pytest  # noqa: E402

import signal_dumps  # noqa: E402
from xmo import xdsl_speedups  # noqa: E402
from xmo.context import make_context  # noqa: E402

xdsl_speedups.apply()

_DUMPS = pytest.StashKey[Path]()


def pytest_configure(config: pytest.Config) -> None:
    """The session's folder of signal dumps, made where the run starts (the
    xdist controller; its workers inherit the variable)."""
    if not hasattr(config, "workerinput") and signal_dumps.ENV not in os.environ:
        folder = Path(tempfile.mkdtemp(prefix="xmo-test-signals-"))
        os.environ[signal_dumps.ENV] = str(folder)
        config.stash[_DUMPS] = folder


def pytest_terminal_summary(terminalreporter, config: pytest.Config) -> None:  # noqa: ANN001
    folder = config.stash.get(_DUMPS, None)
    if folder is None:
        return
    for text in signal_dumps.report(folder):
        terminalreporter.section("signal", sep="=", red=True)
        terminalreporter.write_line(text)
    shutil.rmtree(folder, ignore_errors=True)


@pytest.fixture(autouse=True)
def _stacks_on_silent_signals():
    folder = os.environ.get(signal_dumps.ENV)
    if folder:
        signal_dumps.arm(Path(folder))
    yield


@pytest.fixture
def ctx():
    """A fresh xmo context (its own weight store)."""
    return make_context()


@pytest.fixture(params=[1, 2], ids=["1thread", "2threads"])
def nthreads(request):
    """The CPU backend's thread count set to 1, then 2 (the default restored after)."""
    from xmo.backends.cpu import threads

    threads.set_threads(request.param)
    yield request.param
    threads.set_threads(None)


@pytest.fixture(scope="module")
def rk():
    """The CPU backend's numba row kernels (``rows.row_kernels()``); skips without numba."""
    from xmo.backends.cpu.kernels.rows import row_kernels

    k = row_kernels()
    if k is None:
        pytest.skip("numba missing")
    return k
