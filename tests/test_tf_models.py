"""Frozen graphs made by TensorFlow itself (tests/data/tf, see manifest.json).

Each converts three ways and matches the stored TensorFlow outputs (rtol 1e-3,
atol 1e-4) in OpenVINO (f32) and on xmo's CPU backend:

* ``legalized``: load_tf + convert-tf-to-ov + constant folding (NHWC
  semantics, every layout transpose still there);
* ``default``: ``xmo.convert_model`` (layout change by transpose sinking,
  fusions, CSE);
* ``nhwc``: ``xmo.convert_model(disable_nhwc_to_nchw=True)``.

The default conversion must not have more Transpose layers or more layers
than OpenVINO's own TF frontend on the same file (counted live), and the
models with dynamic dims stay reshapeable. OpenVINO's frontend refuses some
fixtures (``openvino_unsupported`` in the manifest: ``more_ops`` has
Cumprod, ResizeBicubic and a nearest CropAndResize, ``cond`` a Merge): that
is checked instead, so a release that converts them shows up.

Fixtures xmo cannot convert yet carry ``xmo_pending`` (the reason) in the
manifest: their tests are strict xfails, so they fail as soon as the fixture
converts and the mark is left behind.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from tf_graphs import run_in_openvino, run_on_cpu_backend, xmo_module

DATA = Path(__file__).parent / "data" / "tf"
MANIFEST = DATA / "manifest.json"

if not MANIFEST.exists():
    pytest.skip("no TensorFlow fixtures in tests/data/tf", allow_module_level=True)

# models that convert only with an extension have their own tests (test_fft_extension.py)
MODELS = {
    k: v for k, v in json.loads(MANIFEST.read_text())["models"].items() if not v.get("extensions")
}
RTOL, ATOL = 1e-3, 1e-4


def _names() -> list:
    """The fixtures as test parameters, those marked ``xmo_pending`` as strict xfails."""
    return [
        pytest.param(k, marks=pytest.mark.xfail(strict=True, reason=f"xmo_pending: {v['xmo_pending']}"))
        if v.get("xmo_pending") else k
        for k, v in sorted(MODELS.items())
    ]


def _fixture(name: str):
    m = MODELS[name]
    inputs = dict(np.load(DATA / m["inputs_file"]))
    outputs = dict(np.load(DATA / m["outputs_file"]))
    return DATA / m["file"], m, inputs, outputs


def _compare(got, m, want, what: str) -> None:
    assert len(got) == len(m["outputs"]), f"{what}: {len(got)} outputs"
    for (names, value), spec in zip(got, m["outputs"]):
        tname = spec["name"]
        assert tname in names or tname.removesuffix(":0") in names, f"{what}: {tname} not in {names}"
        ref = want[tname]
        assert value.shape == ref.shape, f"{what} {tname}: shape {value.shape} != {ref.shape}"
        if ref.dtype.kind in "biu":
            np.testing.assert_array_equal(value.astype(ref.dtype), ref, err_msg=f"{what} {tname}")
        else:
            np.testing.assert_allclose(value, ref, rtol=RTOL, atol=ATOL, err_msg=f"{what} {tname}")


PIPELINES = ("legalized", "default", "nhwc")


@pytest.fixture(scope="module")
def converted():
    import xmo

    cache: dict[tuple[str, str], object] = {}

    def get(name: str, pipeline: str = "default"):
        key = (name, pipeline)
        if key not in cache:
            path, m, _, _ = _fixture(name)
            if pipeline == "legalized":
                cache[key] = xmo_module(path, [o["name"] for o in m["outputs"]])
            else:
                cache[key] = xmo.convert_model(
                    path, disable_nhwc_to_nchw=pipeline == "nhwc"
                )
        return cache[key]

    return get


@pytest.mark.parametrize("pipeline", PIPELINES)
@pytest.mark.parametrize("name", _names())
def test_model_in_openvino(name, pipeline, converted, tmp_path):
    _, m, inputs, outputs = _fixture(name)
    module = converted(name, pipeline)
    _compare(run_in_openvino(module, inputs, tmp_path), m, outputs,
             f"{name} ({pipeline}) in OpenVINO")


@pytest.mark.parametrize("pipeline", PIPELINES)
@pytest.mark.parametrize("name", _names())
def test_model_on_cpu_backend(name, pipeline, converted):
    _, m, inputs, outputs = _fixture(name)
    module = converted(name, pipeline)
    _compare(run_on_cpu_backend(module, inputs), m, outputs,
             f"{name} ({pipeline}) on the CPU backend")


def _ir_layers(xml: Path) -> tuple[int, int]:
    import xml.etree.ElementTree as ET

    layers = list(ET.parse(xml).getroot().iter("layer"))
    return len(layers), sum(1 for la in layers if la.get("type") == "Transpose")


@pytest.mark.parametrize("name", _names())
def test_ir_not_larger_than_openvinos(name, converted, tmp_path):
    """Transposes and layers: at most what OpenVINO's TF frontend writes."""
    import openvino as ov
    import xmo

    path, m, _, _ = _fixture(name)
    xmo.save_model(converted(name), tmp_path / "xmo.xml")
    refused = m.get("openvino_unsupported")
    if refused:
        # OpenVINO's TF frontend cannot convert the graph: nothing to compare with
        with pytest.raises(Exception) as err:  # OpenVINO's own error types
            ov.convert_model(str(path))
        msg = str(err.value)
        assert "Model wasn't fully converted" in msg, msg
        for op in refused:
            assert op in msg, f"{name}: OpenVINO now converts {op}? {msg}"
        return
    ov.save_model(ov.convert_model(str(path)), str(tmp_path / "ov.xml"), compress_to_fp16=False)
    (ours, our_t), (theirs, their_t) = _ir_layers(tmp_path / "xmo.xml"), _ir_layers(tmp_path / "ov.xml")
    assert our_t <= their_t, f"{name}: {our_t} Transposes, OpenVINO {their_t}"
    assert ours <= theirs, f"{name}: {ours} layers, OpenVINO {theirs}"
    # the NHWC conversion keeps every layout transpose
    xmo.save_model(converted(name, "nhwc"), tmp_path / "nhwc.xml")
    if name in ("cnn", "mobilenetv2", "unet"):
        assert _ir_layers(tmp_path / "nhwc.xml")[1] > our_t


def test_cnn_has_transposes_only_at_the_interface(converted):
    """The layout change leaves one Transpose: after the NHWC input."""
    module = converted("cnn")
    ts = [o for o in module.body.block.ops if o.name == "ov.Transpose"]
    assert len(ts) == 1
    assert ts[0].operands[0].owner.name == "ov.Parameter"


def test_conv1d_has_no_layout_transposes(converted):
    """Keras' Conv1D on a one-channel waveform: the ExpandDims / NCHW
    Transposes become Reshapes, the dilated Conv1Ds' SpaceToBatchND /
    BatchToSpaceND are dilated Convolutions: no Transpose at all."""
    types = {o.name for o in converted("conv1d").body.block.ops}
    assert "ov.Transpose" not in types and "ov.Pad" not in types and "ov.Slice" not in types
    convs = [o for o in converted("conv1d").body.block.ops if o.name == "ov.Convolution"]
    assert sorted(list(o.attr("dilations")) for o in convs) == [[1, 1], [1, 1], [1, 2], [1, 3]]


@pytest.mark.parametrize("name,batch", [("mobilenetv2", 3), ("shapes", 3), ("unet", 2)])
def test_dynamic_batch_stays_reshapeable(name, batch, converted, tmp_path):
    """Shape sub-graphs are not frozen to the fixture's batch: another batch
    gives what OpenVINO's own TF conversion gives."""
    import openvino as ov
    import xmo

    path, m, inputs, _ = _fixture(name)
    rng = np.random.default_rng(7)
    feeds = {}
    for spec in m["inputs"]:
        shape = [batch] + list(inputs[spec["name"]].shape[1:])
        feeds[spec["name"]] = rng.standard_normal(shape).astype(np.float32)
    xmo.save_model(converted(name), tmp_path / "xmo.xml")
    core = ov.Core()
    f32 = {"INFERENCE_PRECISION_HINT": "f32"}
    ours = core.compile_model(core.read_model(str(tmp_path / "xmo.xml")), "CPU", f32)
    theirs = core.compile_model(ov.convert_model(str(path)), "CPU", f32)

    def by_name(compiled) -> dict[str, np.ndarray]:
        ins = {}
        for port in compiled.inputs:
            key = next(k for k in feeds if k in port.get_names() or f"{k}:0" in port.get_names())
            ins[port] = feeds[key]
        res = compiled(ins)
        return {n: np.asarray(res[o]) for o in compiled.outputs for n in o.get_names()}

    got, want = by_name(ours), by_name(theirs)
    for spec in m["outputs"]:
        t = spec["name"]
        np.testing.assert_allclose(got[t], want[t], rtol=RTOL, atol=ATOL, err_msg=f"{name} {t}")


def test_input_declared_nchw(tmp_path):
    """--layout input(nhwc->nchw): the model takes NCHW and no Transpose is left."""
    import xmo

    path, m, inputs, outputs = _fixture("cnn")
    module = xmo.convert_model(path, layout="input(nhwc->nchw)")
    ops = list(module.body.block.ops)
    assert not [o for o in ops if o.name == "ov.Transpose"]
    param = next(o for o in ops if o.name == "ov.Parameter")
    assert str(param.results[0].type) == "tensor<?x3x32x32xf32>"
    assert param.get_friendly_name() == "input"
    nchw = {"input": inputs["input"].transpose(0, 3, 1, 2).copy()}
    _compare(run_in_openvino(module, nchw, tmp_path), m, outputs, "cnn NCHW input")


def test_cli_converts_a_frozen_graph(tmp_path, capsys):
    from xmo.tools.xmo_main import main

    path, _, _, _ = _fixture("mobilenetv2")
    assert main(["convert", str(path), "-o", str(tmp_path / "m.xml")]) == 0
    assert (tmp_path / "m.xml").exists() and (tmp_path / "m.bin").exists()
    assert main(["convert", str(path), "-o", str(tmp_path / "n.xml"), "--disable_nhwc_to_nchw"]) == 0
    assert _ir_layers(tmp_path / "n.xml")[1] > _ir_layers(tmp_path / "m.xml")[1]
    assert main(["convert", str(path), "-o", str(tmp_path / "bad.xml"), "--layout", "input(nhwc->nch)"]) == 1
    assert "--layout" in capsys.readouterr().err
    assert not (tmp_path / "bad.xml").exists()


@pytest.mark.parametrize("name", _names())
def test_model_io(name, converted):
    """Parameters and Results carry TF's tensor names; nothing of tf is left."""
    _, m, _, _ = _fixture(name)
    module = converted(name)
    ops = list(module.body.block.ops)
    assert not [o for o in ops if not o.name.startswith("ov.")]
    params = [o for o in ops if o.name == "ov.Parameter"]
    assert [p.get_friendly_name() for p in params] == [i["name"] for i in m["inputs"]]
    for p in params:
        assert p.get_tensor_names(0)[:2] == [p.get_friendly_name(), p.get_friendly_name() + ":0"]


def test_cond_keeps_only_the_taken_branches(converted):
    """The learning phase folds to False: no control flow, no RandomUniform
    (the dropout of the untaken branch), the moving statistics as constants."""
    ops = [o.name for o in converted("cond").body.block.ops]
    assert "ov.If" not in ops and "ov.RandomUniform" not in ops
    assert ops.count("ov.MatMul") == 2 and ops.count("ov.Parameter") == 1


def test_cond_learning_phase_as_input_is_unsupported():
    """``--input keras_learning_phase`` makes the predicate a graph input: the
    Switches cannot be resolved and the report says why."""
    from xmo.context import make_context
    from xmo.frontends.tf import load_tf
    from xmo.passes.tf_to_ov import UnsupportedOpsError, convert_tf_to_ov

    path, _, _, _ = _fixture("cond")
    ctx = make_context()
    module = load_tf(str(path), ctx, inputs=["keras_learning_phase"])
    with pytest.raises(UnsupportedOpsError) as err:
        convert_tf_to_ov(module, ctx)
    assert "Switch" in err.value.failures
    assert "the predicate is not a constant" in str(err.value)
