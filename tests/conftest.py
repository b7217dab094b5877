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
"""

from __future__ import annotations

import os

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
os.environ.setdefault("XMO_VERIFY_EACH_TRANSFORM", "1")

import pytest  # noqa: E402

from xmo.context import make_context  # noqa: E402


@pytest.fixture
def ctx():
    """A fresh xmo context (its own weight store)."""
    return make_context()
