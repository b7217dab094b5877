"""xmo as an onnx.backend.base.Backend, driven by onnx's own backend test runner."""

from __future__ import annotations

import re

import numpy as np
import onnx.backend.test
from onnx import TensorProto as T
from onnx import helper

import xmo.backends.onnx_backend as backend


def _model():
    g = helper.make_graph(
        [helper.make_node("Add", ["a", "b"], ["c"]), helper.make_node("Abs", ["c"], ["d"])],
        "g",
        [helper.make_tensor_value_info("a", T.FLOAT, [2, 3]), helper.make_tensor_value_info("b", T.FLOAT, [3])],
        [helper.make_tensor_value_info("d", T.FLOAT, [2, 3])],
    )
    return helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)])


def test_prepare_and_run():
    a = np.array([[1, -2, 3], [-4, 5, -6]], np.float32)
    b = np.array([-1, 1, -1], np.float32)
    rep = backend.prepare(_model())
    (d,) = rep.run([a, b])
    np.testing.assert_array_equal(d, np.abs(a + b))
    assert rep.run({"a": a, "b": b}).d.shape == (2, 3)
    np.testing.assert_array_equal(backend.run_model(_model(), [a, b])[0], np.abs(a + b))
    assert backend.supports_device("CPU") and not backend.supports_device("CUDA")


# onnx's own runner, on a few node cases (the full node suite runs in
# tests/test_onnx_conformance.py with an expected-failure list).
_INCLUDE = re.compile(r"^test_(abs|add|add_bcast|sub|mul|div|neg|exp|log|sqrt|ceil|floor)_cpu$")
_bt = onnx.backend.test.BackendTest(backend, __name__)
_bt.include(_INCLUDE.pattern)
for _name, _case in _bt.test_cases.items():
    # keep only the included cases (the runner would report thousands as skipped)
    for _attr in [a for a in vars(_case) if a.startswith("test_") and not _INCLUDE.match(a)]:
        delattr(_case, _attr)
    if any(a.startswith("test_") for a in vars(_case)):
        globals()[_name] = _case
