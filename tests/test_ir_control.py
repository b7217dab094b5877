"""Loop, TensorIterator and If in OpenVINO IR: files OpenVINO writes go
through ``xmo-opt in.xml -t ov-ir -o out.xml`` unchanged (same bytes, same
layers, same outputs in OpenVINO); modules built with the dialect run in
OpenVINO; the reader's errors on bad port maps."""

from __future__ import annotations

import shutil
from pathlib import Path

import numpy as np
import pytest
from control_flow_irs import layer_count, run_openvino, write_irs
from xdsl.dialects.builtin import ModuleOp

from xmo.backends.ir import IRReadError, pair, read_ir, serialize
from xmo.dialects.ov import ConstantOp, LoopOp, ParameterOp, ResultOp, op_class
from xmo.dialects.ov.base import tensor
from xmo.dialects.ov.control_ops import make_body
from xmo.dialects.ov.port_map import ConcatOutput, InvariantInput, LastOutput, MergedInput
from xmo.tools.xmo_opt import main as xmo_opt

pytest.importorskip("openvino")
pytest.importorskip("onnx")

CASES = ["if", "loop", "loop_cond", "scan", "nested", "ti", "ti_reverse"]


@pytest.fixture(scope="module")
def irs(tmp_path_factory):
    return write_irs(tmp_path_factory.mktemp("control_irs"))


@pytest.mark.parametrize("case", CASES)
def test_openvino_written_ir_round_trips(irs, case, tmp_path):
    xml, inputs = irs[case]
    out = tmp_path / "out.xml"
    assert xmo_opt([str(xml), "-t", "ov-ir", "-o", str(out)]) == 0
    # exactly OpenVINO's layout: the same bytes (model rt_info included), once
    # xmo's record of the .bin (a processing instruction OpenVINO skips) is left out
    assert pair.strip_record(out.read_bytes()) == xml.read_bytes()
    assert out.with_suffix(".bin").read_bytes() == xml.with_suffix(".bin").read_bytes()
    assert layer_count(out) == layer_count(xml)
    for a, b in zip(run_openvino(xml, inputs), run_openvino(out, inputs), strict=True):
        np.testing.assert_array_equal(a, b)


@pytest.mark.parametrize("case", CASES)
def test_read_gives_bodies(irs, case):
    module = read_ir(irs[case][0])
    module.verify()
    names = {op.name for op in module.walk()}
    want = {"if": "ov.If", "scan": "ov.TensorIterator", "ti": "ov.TensorIterator",
            "ti_reverse": "ov.TensorIterator"}.get(case, "ov.Loop")
    assert want in names
    if case == "nested":
        assert "ov.If" in names  # inside the Loop's body


def test_dialect_loop_runs_in_openvino(tmp_path):
    """A Loop built with make_body / LoopOp.new, a run-time trip count."""
    add = op_class("Add")
    n = ParameterOp.new("i64", [], name="n")
    v0 = ParameterOp.new("f32", [3], name="v0")
    x = ParameterOp.new("f32", [3], name="x")
    go = ConstantOp.from_array(np.array(True))
    unsqueeze = op_class("Unsqueeze")

    def step(v, xx):
        s = add.make([v, xx])
        part = unsqueeze.make([s, ConstantOp.from_array(np.array([0], np.int64))])
        return [ConstantOp.from_array(np.array(True)), s, part]

    body = make_body([tensor("f32", [3]), tensor("f32", [3])], step)
    loop = LoopOp.new(
        n, go, [v0, x], body, [MergedInput(2, 0, 1), InvariantInput(3, 1)],
        [LastOutput(1, 0), ConcatOutput(2, 1, axis=0)], body_condition_output_idx=0,
    )
    module = ModuleOp([n, v0, x, go, loop, ResultOp.new(loop.results[0], name="last"),
                       ResultOp.new(loop.results[1], name="all")])
    xml = tmp_path / "loop.xml"
    serialize(module, xml, verify_ir=True)
    inputs = {"n": np.array(3, np.int64), "v0": np.ones(3, np.float32),
              "x": np.arange(3, dtype=np.float32)}
    last, every = run_openvino(xml, inputs)
    np.testing.assert_allclose(last, 1 + 3 * np.arange(3))
    np.testing.assert_allclose(every, np.stack([1 + k * np.arange(3) for k in (1, 2, 3)]))


def _edited(irs, case, tmp_path, old: str, new: str) -> Path:
    xml, _ = irs[case]
    text = xml.read_text()
    assert old in text
    out = tmp_path / "bad.xml"
    out.write_text(text.replace(old, new, 1))
    shutil.copy(xml.with_suffix(".bin"), out.with_suffix(".bin"))
    return out


@pytest.mark.parametrize(
    "case, old, new, message",
    [
        ("loop", '<edge from-layer="13" to-layer="1" />', '<edge from-layer="13" to-layer="4" />',
         r"back edge 13 -> 4 does not go from a body Result to a body Parameter"),
        ("loop", 'purpose="current_iteration"', 'purpose="iteration"', "unknown purpose 'iteration'"),
        ("if", '<input external_port_id="2" internal_layer_id="0" />',
         '<input external_port_id="7" internal_layer_id="0" />', "the layer has no input port 7"),
        ("if", '<output external_port_id="4" internal_layer_id="2" />',
         '<output external_port_id="4" internal_layer_id="1" />',
         "internal_layer_id 1 is not a body Result"),
        ("scan", '<input axis="0" external_port_id="1"', '<input axis="3" external_port_id="1"',
         "axis 3 is out of range for rank 2"),
    ],
)
def test_reader_errors(irs, tmp_path, case, old, new, message):
    with pytest.raises(IRReadError, match=message):
        read_ir(_edited(irs, case, tmp_path, old, new))
