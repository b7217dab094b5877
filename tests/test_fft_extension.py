"""The Custom Operations Guide end to end (examples/fft_extension, docs/extensions.md).

The fixture ``fft_mri`` (tests/data/tf, made by tools/make_tf_fixtures.py)
ends with StridedSlice [...,0] / [...,1] -> Complex -> IFFT2D -> ComplexAbs.
Without the extension ``xmo convert`` refuses and writes nothing; with it the
IR has an ``FFT`` layer of version ``fft_extension`` and matches TensorFlow's
outputs on xmo's CPU backend, on OpenVINO with xmo's Python custom-op bridge,
and on stock OpenVINO after the opt-in ``fft-to-dft`` lowering.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from pathlib import Path

import numpy as np
import pytest

import xmo
from xmo.tools.xmo_main import main as xmo_main

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT / "tests" / "data" / "tf"
EXT = ROOT / "examples" / "fft_extension"
MODEL = DATA / "fft_mri.pb"
RTOL, ATOL = 1e-4, 1e-6
F32 = {"INFERENCE_PRECISION_HINT": "f32"}

if not MODEL.exists():
    pytest.skip("no fft_mri fixture", allow_module_level=True)


@pytest.fixture(scope="module")
def data():
    m = json.loads((DATA / "manifest.json").read_text())["models"]["fft_mri"]
    inputs = dict(np.load(DATA / m["inputs_file"]))
    outputs = dict(np.load(DATA / m["outputs_file"]))
    return inputs["kspace"], outputs["Identity:0"]


@pytest.fixture(scope="module")
def ir(tmp_path_factory):
    out = tmp_path_factory.mktemp("fft") / "fft_mri.xml"
    assert xmo_main(["convert", str(MODEL), "-o", str(out), "--extensions", str(EXT)]) == 0
    return out


def _layers(xml: Path) -> Counter:
    return Counter(re.findall(r'<layer [^>]*type="([^"]+)"', xml.read_text()))


def test_refused_without_the_extension(tmp_path, capsys):
    out = tmp_path / "m.xml"
    assert xmo_main(["convert", str(MODEL), "-o", str(out)]) == 1
    err = capsys.readouterr().err
    assert "cannot be converted" in err
    assert "Complex (1): Complex" in err
    assert "IFFT2D (1): IFFT2D" in err
    assert "ComplexAbs (1): Abs" in err
    assert not list(tmp_path.iterdir()), "nothing may be written"


def test_ir_has_the_fft_layer(ir):
    text = ir.read_text()
    assert re.search(r'<layer [^>]*name="IFFT2D" type="FFT" version="fft_extension"', text)
    layers = _layers(ir)
    assert "StridedSlice" not in layers and "Complex" not in layers
    assert layers["Sqrt"] == 1 and layers["ReduceSum"] == 1


def test_fewer_layers_than_openvinos_own_conversion(ir):
    import openvino as ov

    ov_layers = len(ov.convert_model(str(MODEL)).get_ordered_ops())
    xmo_layers = sum(_layers(ir).values())
    assert xmo_layers < ov_layers, (xmo_layers, ov_layers)


def test_cpu_backend_matches_tensorflow(data):
    x, want = data
    module = xmo.convert_model(MODEL, extensions=[EXT])
    got = xmo.compile_model(module)([x])[0]
    np.testing.assert_allclose(got, want, rtol=RTOL, atol=ATOL)


def test_openvino_with_the_bridge_matches_tensorflow(ir, data):
    import openvino as ov

    from xmo.backends.openvino_ext import extensions

    x, want = data
    core = ov.Core()
    for e in extensions():
        core.add_extension(e)
    model = core.read_model(str(ir))
    fft = [op for op in model.get_ordered_ops() if op.get_type_name() == "FFT"]
    assert len(fft) == 1 and fft[0].get_attributes() == {"inverse": True}
    got = core.compile_model(model, "CPU", F32)([x])[0]
    np.testing.assert_allclose(got, want, rtol=RTOL, atol=ATOL)


def test_stock_openvino_cannot_read_the_fft_layer(ir):
    import openvino as ov

    with pytest.raises(RuntimeError, match="FFT"):
        ov.Core().read_model(str(ir))


def test_dft_lowering_runs_on_stock_openvino(tmp_path, data):
    import openvino as ov

    x, want = data
    out = tmp_path / "dft.xml"
    args = ["convert", str(MODEL), "-o", str(out), "--extensions", str(EXT),
            "--enable_transforms", "fft-to-dft"]
    assert xmo_main(args) == 0
    layers = _layers(out)
    assert "FFT" not in layers and layers["IDFT"] == 1
    assert re.search(r'<layer [^>]*name="IFFT2D" type="IDFT" version="opset7"', out.read_text())
    got = ov.Core().compile_model(str(out), "CPU", F32)([x])[0]
    np.testing.assert_allclose(got, want, rtol=RTOL, atol=ATOL)


def test_dft_lowering_from_the_environment(monkeypatch, data):
    monkeypatch.setenv("XMO_ENABLED_TRANSFORMS", "fft-to-dft")
    module = xmo.convert_model(MODEL, extensions=[EXT])
    names = [op.name for op in module.body.block.ops]
    assert "ov.IDFT" in names and "ov.FFT" not in names
    x, want = data
    np.testing.assert_allclose(xmo.compile_model(module)([x])[0], want, rtol=RTOL, atol=ATOL)


def test_disabling_the_subgraph_transformation_leaves_complex_unconverted():
    with pytest.raises(Exception, match=r"Complex \(1\): Complex"):
        xmo.convert_model(MODEL, extensions=[EXT], disable_transforms="complex-to-pairs")


def test_ir_reads_back_with_the_extension(ir):
    from xmo.context import make_context
    from xmo.extensions import load_extension

    ctx = make_context()
    load_extension(EXT, ctx)
    module = xmo.read_model(ir, ctx)
    (fft,) = [op for op in module.body.block.ops if op.name == "ov.FFT"]
    assert fft.attr("inverse") is True
