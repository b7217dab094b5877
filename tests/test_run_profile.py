"""``xmo run --profile`` and ``CompiledModel.profile``: time per op type and per
node on the CPU backend (no timed assertions: only what the tables list)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import xmo
from xmo.backends.cpu.profile import RunProfile, StepInfo
from xmo.tools.xmo_main import main

DEMO = Path(__file__).resolve().parents[1] / "models" / "demo.mlir"
#: the demo model's steps: each Convolution and MatMul runs with its bias Add
#: (and Relu) as one step (epilogue fusion)
DEMO_TYPES = {"Convolution+Add+Relu", "MaxPool", "AvgPool", "Reshape", "MatMul+Add", "Softmax"}


def test_cli_profile_lists_the_op_types_of_the_model(capsys):
    assert main(["run", str(DEMO), "--profile", "3"]) == 0
    out = capsys.readouterr().out
    assert "profile:" in out and "median over 3 runs" in out
    lines = [ln.removeprefix("[ xmo ] ") for ln in out.splitlines()]
    types_at, nodes_at = lines.index("top 10 op types:"), lines.index("top 10 nodes:")
    listed = {ln.split()[0] for ln in lines[types_at + 2 : nodes_at]}  # after the header
    assert listed == DEMO_TYPES
    assert len(lines[nodes_at + 2 :]) == 7  # 7 steps, fewer than ten: all listed


def test_cli_profile_needs_the_cpu_backend(capsys):
    assert main(["run", str(DEMO), "--profile", "--device", "openvino"]) != 0
    assert "--profile works with --device cpu" in capsys.readouterr().err


def test_profile_covers_every_step_once():
    compiled = xmo.compile_model(str(DEMO))
    feed = {"image": np.ones((1, 3, 32, 32), np.float32)}
    p = compiled.profile(feed, runs=2)
    assert p.runs == 2
    by_type = p.by_type()
    assert {r.type for r in by_type} == DEMO_TYPES
    assert sum(r.calls for r in by_type) == len(p.steps) == len(p.by_node())
    assert sum(r.seconds for r in by_type) == pytest.approx(p.total)
    assert all(r.seconds >= 0 for r in by_type)
    # the outputs of a profiled run are those of a plain one
    expected = compiled(feed)[0]
    seconds = [0.0] * len(p.steps)
    np.testing.assert_array_equal(compiled(feed, step_times=seconds)[0], expected)
    assert all(s > 0 for s in seconds)


def test_profile_rejects_a_wrong_step_count():
    compiled = xmo.compile_model(str(DEMO))
    with pytest.raises(ValueError, match="step_times"):
        compiled(np.ones((1, 3, 32, 32), np.float32), step_times=[0.0])


def test_tables_sort_and_name_steps():
    p = RunProfile(
        [StepInfo("Convolution", "conv1"), StepInfo("Multiply+Add", ""), StepInfo("Convolution", "c2")],
        [0.002, 0.001, 0.003],
        runs=5,
    )
    assert [(r.type, r.calls) for r in p.by_type()] == [("Convolution", 2), ("Multiply+Add", 1)]
    assert [r.name for r in p.by_node()] == ["c2", "conv1", "#1"]
    text = p.format(top=1)
    assert "6.000 ms per run in 3 steps" in text
    assert "Multiply+Add" not in text  # top 1 only
