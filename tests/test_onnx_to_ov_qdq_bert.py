"""A QDQ-quantized BERT (transformers, tests/data/real/bert_ts) runs in int8.

The suite's small BERT is quantized by ``onnxruntime.quantization.quantize_static``
(QDQ, u8 activations, i8 per-channel weights, the MatMul / Gemm layers, calibrated
on the fixture's own inputs). xmo's IR must carry the int8 form OpenVINO's CPU
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


def _inputs() -> dict[str, np.ndarray]:
    return dict(np.load(REAL / "bert_ts.inputs.npz"))


class _Calibration(quantization.CalibrationDataReader):
    def __init__(self) -> None:
        self.data = iter([_inputs()])

    def get_next(self) -> dict | None:
        return next(self.data, None)


@pytest.fixture(scope="module")
def qdq_bert(tmp_path_factory) -> Path:  # noqa: ANN001
    q = tmp_path_factory.mktemp("qdq_bert") / "bert_qdq.onnx"
    quantization.quantize_static(
        str(REAL / "bert_ts.onnx"), str(q), _Calibration(), quant_format=quantization.QuantFormat.QDQ,
        per_channel=True, activation_type=quantization.QuantType.QUInt8,
        weight_type=quantization.QuantType.QInt8, op_types_to_quantize=["MatMul", "Gemm"],
    )  # fmt: skip
    return q


@pytest.fixture(scope="module")
def converted(qdq_bert: Path):  # noqa: ANN201
    return xmo.convert_model(qdq_bert)


def _precisions(compiled) -> Counter:  # noqa: ANN001
    out: Counter = Counter()
    for op in compiled.get_runtime_model().get_ops():
        rt = op.get_rt_info()
        if rt["layerType"].astype(str) in ("Convolution", "FullyConnected", "MatMul"):
            out[rt["runtimePrecision"].astype(str).lower()] += 1
    return out


def test_qdq_bert_runs_int8_like_ovc(qdq_bert: Path, converted, tmp_path: Path) -> None:  # noqa: ANN001
    xml = tmp_path / "xmo.xml"
    xmo.save_model(converted, xml)
    core = ov.Core()
    ir = core.read_model(str(xml))
    ops = Counter(o.get_type_name() for o in ir.get_ops())
    assert ops["FakeQuantize"] > 0 and ops["QuantizeLinear"] == 0 and ops["Round"] == 0, ops
    assert sum(1 for o in ir.get_ops() if o.get_type_name() == "Constant" and o.get_element_type() == ov.Type.i8) > 0

    feeds = _inputs()
    want = ort.InferenceSession(str(qdq_bert)).run(None, feeds)
    mine = core.compile_model(ir, "CPU")  # no precision hint: the plugin picks int8
    theirs = core.compile_model(ov.convert_model(str(qdq_bert)), "CPU")
    assert _precisions(mine) == _precisions(theirs)
    assert _precisions(mine)["u8"] >= 8, _precisions(mine)  # the encoder's projections run in u8

    def err(compiled) -> float:  # noqa: ANN001
        got = compiled(feeds)
        return max(float(np.abs(got[compiled.outputs[i]] - w).max()) for i, w in enumerate(want))

    scale = max(float(np.abs(w).max()) for w in want)
    mine_err, theirs_err = err(mine), err(theirs)
    assert mine_err <= 1.25 * theirs_err + 1e-5 * scale, (mine_err, theirs_err)
    assert mine_err < 0.02 * scale, (mine_err, scale)


def test_qdq_bert_on_xmo_cpu_backend(qdq_bert: Path, converted) -> None:  # noqa: ANN001
    feeds = _inputs()
    want = ort.InferenceSession(str(qdq_bert)).run(None, feeds)
    got = xmo.compile_model(converted)(feeds)
    got = list(got.values()) if isinstance(got, dict) else list(got)
    for g, w in zip(got, want, strict=True):
        np.testing.assert_allclose(np.asarray(g), w, rtol=1e-4, atol=1e-4)
