"""Differential testing: random valid ONNX graphs on xmo (CPU backend and the
IR on OpenVINO, f32) vs onnxruntime (:mod:`xmo.tools.differential`; the long
run: ``python -m xmo.tools.differential --examples 1000``)."""

from __future__ import annotations

import os

import pytest

hypothesis = pytest.importorskip("hypothesis")
from hypothesis import HealthCheck, given, settings
from xmo.tools import differential

os.environ.setdefault("XMO_NO_PROGRESS", "1")


@settings(max_examples=50, deadline=None, database=None, derandomize=True,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(differential.onnx_graphs())
def test_random_graphs_agree_with_onnxruntime(model):
    differential.check(model, openvino=True)
