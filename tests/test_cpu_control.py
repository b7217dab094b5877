"""The CPU backend runs Loop, TensorIterator and If (bodies compiled once per
node): the IRs OpenVINO writes (tests/control_flow_irs.py) give OpenVINO's
outputs, with run-time trip counts, conditions, zero iterations, both branches."""

from __future__ import annotations

import numpy as np
import pytest
from control_flow_irs import run_openvino, write_irs

from xmo.backends.cpu import CompiledModel
from xmo.backends.ir import read_ir

pytest.importorskip("openvino")
pytest.importorskip("onnx")


@pytest.fixture(scope="module")
def irs(tmp_path_factory):
    return write_irs(tmp_path_factory.mktemp("control_irs_cpu"))


def _variants(case: str, inputs: dict) -> list[dict]:
    """The case's inputs and a few more that take other paths."""
    out = [inputs]
    if case == "if":
        out.append({**inputs, "c": np.array(True)})
    elif case == "loop":
        out += [{**inputs, "M": np.array(1, np.int64)}, {**inputs, "M": np.array(0, np.int64)}]
    elif case == "loop_cond":
        out += [{**inputs, "M": np.array(2, np.int64)}, {**inputs, "go": np.array(False)},
                {**inputs, "x": np.array([-1.0, 0.5], np.float32)}]
    elif case == "nested":
        out.append({**inputs, "M": np.array(8, np.int64)})
    return out


@pytest.mark.parametrize("case", ["if", "loop", "loop_cond", "scan", "nested", "ti", "ti_reverse"])
def test_matches_openvino(irs, case):
    xml, inputs = irs[case]
    compiled = CompiledModel(read_ir(xml))
    for feed in _variants(case, inputs):
        want = run_openvino(xml, feed)
        got = compiled(feed)
        assert len(got) == len(want)
        for a, b in zip(want, got):
            assert a.shape == b.shape, (case, feed)
            np.testing.assert_allclose(b, a, rtol=1e-5, atol=1e-6)


def test_body_compiled_once(irs):
    xml, inputs = irs["loop"]
    compiled = CompiledModel(read_ir(xml))
    compiled(inputs)
    node = next(s.node for s in compiled._steps if s.node.type == "Loop")
    body = node.cache["body"]
    compiled({**inputs, "M": np.array(6, np.int64)})
    assert node.cache["body"] is body
