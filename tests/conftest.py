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
"""

from __future__ import annotations

import os

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
os.environ.setdefault("XMO_VERIFY_EACH_TRANSFORM", "1")

import pytest  # noqa: E402

from xmo import xdsl_speedups  # noqa: E402
from xmo.context import make_context  # noqa: E402

xdsl_speedups.apply()


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
