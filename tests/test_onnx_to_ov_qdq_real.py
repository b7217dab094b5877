"""QDQ-quantized real models run in int8: a BERT and a ResNet-style CNN.

The suite's small BERT (transformers, tests/data/real/bert_ts; its MatMul / Gemm
layers) and RegNetY (residual blocks with squeeze-excite, tests/data/real/regnet_y;
every op onnxruntime quantizes) are quantized by
``onnxruntime.quantization.quantize_static`` (QDQ, u8 activations, i8 per-channel
weights, calibrated on the fixture's own inputs). xmo's IR must carry the int8 form OpenVINO's CPU
plugin runs (FakeQuantize on activations, int8 weight Constants), compile to the
same runtime precisions as OpenVINO's own converter's IR (no precision hint), be
as close to onnxruntime as that IR is, and the xmo CPU backend (which runs the
dequantized float graph, like onnxruntime's reference kernels) must match
onnxruntime closely.
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import numpy as np
import pytest

import xmo

ort = pytest.importorskip("onnxruntime")
ov = pytest.importorskip("openvino")
quantization = pytest.importorskip("onnxruntime.quantization")

REAL = Path(__file__).parent / "data" / "real"


#: model -> (op types to quantize (None: all), least number of u8 convolutions / matmuls)
MODELS = {"bert_ts": (["MatMul", "Gemm"], 8), "regnet_y": (None, 30)}


def _inputs(name: str) -> dict[str, np.ndarray]:
    return dict(np.load(REAL / f"{name}.inputs.npz"))


class _Calibration(quantization.CalibrationDataReader):
    def __init__(self, name: str) -> None:
        self.data = iter([_inputs(name)])

    def get_next(self) -> dict | None:
        return next(self.data, None)


@pytest.fixture(scope="module", params=sorted(MODELS))
def qdq_model(request, tmp_path_factory) -> tuple[str, Path]:  # noqa: ANN001
    name = request.param
    q = tmp_path_factory.mktemp(f"qdq_{name}") / f"{name}_qdq.onnx"
    quantization.quantize_static(
        str(REAL / f"{name}.onnx"), str(q), _Calibration(name), quant_format=quantization.QuantFormat.QDQ,
        per_channel=True, activation_type=quantization.QuantType.QUInt8,
        weight_type=quantization.QuantType.QInt8, op_types_to_quantize=MODELS[name][0],
    )  # fmt: skip
    return name, q


@pytest.fixture(scope="module")
def converted(qdq_model: tuple[str, Path]):  # noqa: ANN201
    return xmo.convert_model(qdq_model[1])


def _precisions(compiled) -> Counter:  # noqa: ANN001
    out: Counter = Counter()
    for op in compiled.get_runtime_model().get_ops():
        rt = op.get_rt_info()
        if rt["layerType"].astype(str) in ("Convolution", "FullyConnected", "MatMul"):
            out[rt["runtimePrecision"].astype(str).lower()] += 1
    return out


def test_qdq_model_runs_int8_like_ovc(qdq_model: tuple[str, Path], converted, tmp_path: Path) -> None:  # noqa: ANN001
    name, qdq = qdq_model
    xml = tmp_path / "xmo.xml"
    xmo.save_model(converted, xml)
    core = ov.Core()
    ir = core.read_model(str(xml))
    ops = Counter(o.get_type_name() for o in ir.get_ops())
    assert ops["FakeQuantize"] > 0 and ops["QuantizeLinear"] == 0 and ops["Round"] == 0, ops
    assert sum(1 for o in ir.get_ops() if o.get_type_name() == "Constant" and o.get_element_type() == ov.Type.i8) > 0

    feeds = _inputs(name)
    want = ort.InferenceSession(str(qdq)).run(None, feeds)
    mine = core.compile_model(ir, "CPU")  # no precision hint: the plugin picks int8
    theirs = core.compile_model(ov.convert_model(str(qdq)), "CPU")
    assert _precisions(mine) == _precisions(theirs)
    assert _precisions(mine)["u8"] >= MODELS[name][1], _precisions(mine)

    def err(compiled) -> float:  # noqa: ANN001
        got = compiled(feeds)
        return max(float(np.abs(got[compiled.outputs[i]] - w).max()) for i, w in enumerate(want))

    scale = max(float(np.abs(w).max()) for w in want)
    mine_err, theirs_err = err(mine), err(theirs)
    assert mine_err <= 1.25 * theirs_err + 1e-5 * scale, (mine_err, theirs_err)
    # one calibration sample: the CNN's quantization error is large for both IRs
    assert mine_err < (0.02 if name == "bert_ts" else 0.2) * scale, (mine_err, scale)


def test_qdq_model_on_xmo_cpu_backend(qdq_model: tuple[str, Path], converted) -> None:  # noqa: ANN001
    name, qdq = qdq_model
    feeds = _inputs(name)
    want = ort.InferenceSession(str(qdq)).run(None, feeds)
    got = xmo.compile_model(converted)(feeds)
    got = list(got.values()) if isinstance(got, dict) else list(got)
    for g, w in zip(got, want, strict=True):
        np.testing.assert_allclose(np.asarray(g), w, rtol=1e-4, atol=1e-4)
