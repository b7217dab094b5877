"""The default conversion pipeline: written once (passes/pipeline.py), run one way.

``xmo.convert_model`` / ``xmo convert`` and ``xmo-opt -p xmo-convert`` run
the same list of passes and write the same IR, byte for byte; conversion
options add passes to that list; the runner verifies after each pass when
asked and names the pass that broke the module.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import pytest
from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp

import xmo
from xmo.context import make_context
from xmo.errors import TransformationError
from xmo.frontends import frontend_for
from xmo.passes.conversion import XmoConvertPass, conversion_manager, conversion_pipeline
from xmo.passes.phases import PhaseManager
from xmo.passes.pipeline import (
    DEFAULT_PIPELINE,
    PipelineStep,
    run_pipeline,
)
from xmo.passes.transformations import TransformationPass
from xmo.tools.xmo_main import main as xmo_main
from xmo.tools.xmo_opt import main as xmo_opt_main

ROOT = Path(__file__).resolve().parents[1]
DEMO = ROOT / "models" / "demo.onnx"
CNN = ROOT / "tests" / "data" / "tf" / "cnn.pb"


@pytest.fixture(autouse=True)
def _clean_env(monkeypatch):
    monkeypatch.delenv("XMO_ENABLED_TRANSFORMS", raising=False)
    monkeypatch.delenv("XMO_DISABLED_TRANSFORMS", raising=False)


def _labels(model, **options) -> list[str]:
    ctx = make_context()
    frontend = frontend_for(model)
    return conversion_pipeline(conversion_manager(ctx), frontend, **options).labels()


def test_default_pipeline_per_framework():
    onnx = _labels(DEMO)
    assert onnx == [
        "onnx-canonicalize", "convert-onnx-to-ov", "ov-constant-fold", "ov-loop-to-sequence",
        "ov-cse-early", "ov-fusions", "ov-fuse-linear", "ov-cse", "ov-dce", "verify",
    ]
    tf = _labels(CNN)
    assert tf[:4] == ["convert-tf-to-ov", "ov-constant-fold", "ov-transpose-sinking", "ov-constant-fold"]
    assert tf[4:] == onnx[3:]
    assert "ov-transpose-sinking" not in _labels(CNN, nhwc_to_nchw=False)


def test_options_add_passes():
    labels = _labels(CNN, output=["Relu"], layout="nhwc->nchw", static_shape=True)
    tail = labels[labels.index("verify") + 1:]
    assert tail == [
        "ov-set-outputs", "ov-change-layout", "ov-transpose-sinking", "ov-constant-fold",
        "ov-dce", "verify", "ov-check-static-shapes",
    ]
    no_sinking = _labels(CNN, layout="nhwc->nchw", nhwc_to_nchw=False)
    assert "ov-change-layout" in no_sinking
    assert no_sinking.count("ov-transpose-sinking") == 0


def test_every_step_runs_registered_passes():
    from xmo.passes import get_all_passes

    known = get_all_passes()
    for step in DEFAULT_PIPELINE:
        for spec in step.passes:
            if spec.startswith("<"):
                continue
            assert spec.partition(" as ")[0] in known, (step.id, spec)


@pytest.mark.parametrize(
    "model, options, pass_options",
    [
        (DEMO, [], ""),
        (CNN, [], ""),
        (CNN, ["--layout", "nhwc->nchw", "--output", "Relu"], '{layout="nhwc->nchw" output=Relu}'),
        (CNN, ["--disable_nhwc_to_nchw"], "{disable_nhwc_to_nchw=true}"),
    ],
    ids=["onnx", "tf", "tf-layout-output", "tf-nhwc"],
)
def test_xmo_opt_xmo_convert_writes_what_xmo_convert_writes(tmp_path, model, options, pass_options):
    a, b = tmp_path / "a" / "m.xml", tmp_path / "b" / "m.xml"
    assert xmo_main(["convert", str(model), "-o", str(a), *options]) == 0
    b.parent.mkdir()
    assert xmo_opt_main([str(model), "-p", f"xmo-convert{pass_options}", "-t", "ov-ir", "-o", str(b)]) == 0
    assert a.read_bytes() == b.read_bytes()
    assert a.with_suffix(".bin").read_bytes() == b.with_suffix(".bin").read_bytes()


def test_convert_model_runs_the_pipeline_through_run_pass(monkeypatch):
    from xmo.passes import tracing

    ran: list[str] = []
    real = tracing.run_pass

    def spy(p, ctx, module, *, name=None):
        ran.append(name or tracing.pass_name(p))
        return real(p, ctx, module, name=name)

    monkeypatch.setattr(tracing, "run_pass", spy)
    xmo.convert_model(CNN, input="input[1,32,32,3]", output="Relu", static_shape=True)
    assert ran == [s for s in _labels(CNN, output=["Relu"], static_shape=True) if s != "verify"]


@dataclass(frozen=True)
class _BreaksTheModule(TransformationPass):
    name = "breaks-the-module"

    def run(self, ctx: Context, module: ModuleOp) -> bool:
        relu = next(op for op in module.body.block.ops if op.name == "ov.Relu")
        relu.properties["friendly_name"] = relu.results[0].type  # a type where a string belongs
        return True


def test_verify_each_names_the_pass():
    module = xmo.convert_model(CNN)
    ctx = make_context()
    with pytest.raises(TransformationError, match=r"after 'breaks-the-module': the module does not verify"):
        run_pipeline([PipelineStep(_BreaksTheModule(), "breaks-the-module")], ctx, module, verify_each=True)


def test_transformations_are_passes_named_by_their_id():
    from xmo.passes.phases import Transformation

    class Mine(Transformation):
        id = "mine-xyz"

        def find_and_replace_pattern(self, graph):
            return False

    assert Mine.name == "mine-xyz" and isinstance(Mine(), TransformationPass)
    steps = PhaseManager([Mine], use_env=False).pipeline(("middle",), frontend=None)
    assert [s.label for s in steps][-2:] == ["ov-dce", "mine-xyz"]
    assert isinstance(steps[-1].pass_, Mine)


def test_xmo_convert_pass_on_an_ov_module_runs_middle_and_back():
    module = xmo.convert_model(DEMO)
    before = str(module)
    XmoConvertPass().apply(make_context(), module)
    assert str(module) == before  # the middle phase has nothing left to do
