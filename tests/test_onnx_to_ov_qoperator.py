"""QOperator-form models (``onnxruntime.quantization.quantize_static`` with
``QuantFormat.QOperator``): QLinearConv / QLinearMatMul and onnxruntime's
QLinearAdd / QLinearSigmoid / QLinearLeakyRelu / QLinearConcat /
QLinearAveragePool / QLinearGlobalAveragePool, per tensor and per channel.

xmo's IR carries a FakeQuantize wherever one QLinear op's quantized output
feeds the next (the quantize -> dequantize of their decompositions, fused by
``fake-quantize-fusion``, across a Reshape of the quantized tensor too) and
int8 weight Constants; it matches onnxruntime within two output quantization
steps in OpenVINO (no precision hint) and on xmo's CPU backend, and OpenVINO's
CPU plugin runs its convolutions and matmuls in u8 / i8 (``runtimePrecision``
of ``get_runtime_model()``). OpenVINO's own converter refuses the per-channel
forms of these models and its per-tensor IR is off by up to 0.04 on
the conv net (not asserted here: see README). The plugin's snippets compile
the int8 MLP of the MatMul net wrongly (for ovc's IR too): that net runs with
``SNIPPETS_MODE=DISABLE``.
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper
from onnx import numpy_helper as nh

import xmo

ort = pytest.importorskip("onnxruntime")
ov = pytest.importorskip("openvino")
quantization = pytest.importorskip("onnxruntime.quantization")

_rng = np.random.default_rng(0)


def _w(name: str, *shape: int, s: float) -> onnx.TensorProto:
    return nh.from_array((_rng.standard_normal(shape) * s).astype(np.float32), name)


def _model(nodes: list, x: list[int], inits: list) -> onnx.ModelProto:
    g = helper.make_graph(nodes, "net", [helper.make_tensor_value_info("x", TensorProto.FLOAT, x)],
                          [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)], inits)  # fmt: skip
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)])
    m.ir_version = 8
    return m


def _conv_net() -> onnx.ModelProto:
    """Conv+Relu, Conv, residual Add, LeakyRelu, AveragePool, Concat with a
    GlobalAveragePool branch, flatten, MatMul + bias."""
    inits = [
        _w("w1", 8, 3, 3, 3, s=0.3), _w("b1", 8, s=0.1), _w("w2", 8, 8, 3, 3, s=0.2), _w("b2", 8, s=0.1),
        _w("wm", 16 * 4 * 4, 10, s=0.05), _w("bm", 10, s=0.1), nh.from_array(np.array([1, -1], np.int64), "shp"),
        nh.from_array(np.array([1, 8, 4, 4], np.int64), "full"),
    ]  # fmt: skip
    nodes = [
        helper.make_node("Conv", ["x", "w1", "b1"], ["c1"], pads=[1, 1, 1, 1]),
        helper.make_node("Relu", ["c1"], ["r1"]),
        helper.make_node("Conv", ["r1", "w2", "b2"], ["c2"], pads=[1, 1, 1, 1]),
        helper.make_node("Add", ["c2", "r1"], ["s"]),
        helper.make_node("LeakyRelu", ["s"], ["l"], alpha=0.1),
        helper.make_node("AveragePool", ["l"], ["p"], kernel_shape=[2, 2], strides=[2, 2]),
        helper.make_node("GlobalAveragePool", ["p"], ["g"]),
        helper.make_node("Expand", ["g", "full"], ["ge"]),
        helper.make_node("Concat", ["p", "ge"], ["cat"], axis=1),
        helper.make_node("Reshape", ["cat", "shp"], ["f"]),
        helper.make_node("MatMul", ["f", "wm"], ["m"]),
        helper.make_node("Add", ["m", "bm"], ["y"]),
    ]
    return _model(nodes, [1, 3, 8, 8], inits)


def _matmul_net() -> onnx.ModelProto:
    """MatMul + bias, Sigmoid, MatMul + bias."""
    inits = [_w("w1", 32, 64, s=0.2), _w("b1", 64, s=0.1), _w("w2", 64, 10, s=0.2), _w("b2", 10, s=0.1)]
    nodes = [
        helper.make_node("MatMul", ["x", "w1"], ["m1"]),
        helper.make_node("Add", ["m1", "b1"], ["a1"]),
        helper.make_node("Sigmoid", ["a1"], ["s1"]),
        helper.make_node("MatMul", ["s1", "w2"], ["m2"]),
        helper.make_node("Add", ["m2", "b2"], ["y"]),
    ]
    return _model(nodes, [4, 32], inits)


_NETS = {"conv": (_conv_net, [1, 3, 8, 8]), "matmul": (_matmul_net, [4, 32])}


class _Calibration(quantization.CalibrationDataReader):
    def __init__(self, shape: list[int]) -> None:
        rng = np.random.default_rng(1)
        self.data = iter([{"x": rng.standard_normal(shape).astype(np.float32)} for _ in range(8)])

    def get_next(self) -> dict | None:
        return next(self.data, None)


@pytest.fixture(scope="module", params=[(n, pc) for n in _NETS for pc in (False, True)],
                ids=[f"{n}-{'per_channel' if pc else 'per_tensor'}" for n in _NETS for pc in (False, True)])  # fmt: skip
def qop(request, tmp_path_factory) -> tuple[Path, list[int]]:  # noqa: ANN001
    name, per_channel = request.param
    make, shape = _NETS[name]
    d = tmp_path_factory.mktemp("qop")
    onnx.save(make(), d / "f.onnx")
    q = d / "q.onnx"
    quantization.quantize_static(
        str(d / "f.onnx"), str(q), _Calibration(shape), quant_format=quantization.QuantFormat.QOperator,
        per_channel=per_channel, activation_type=quantization.QuantType.QUInt8,
        weight_type=quantization.QuantType.QInt8,
    )  # fmt: skip
    return q, shape


def _output_scale(model: onnx.ModelProto) -> float:
    inits = {i.name: nh.to_array(i) for i in model.graph.initializer}
    dq = next(n for n in model.graph.node if n.op_type == "DequantizeLinear" and n.output[0] == "y")
    return float(inits[dq.input[1]])


def _runtime_precisions(compiled) -> list[tuple[str, str]]:  # noqa: ANN001
    out = []
    for op in compiled.get_runtime_model().get_ops():
        rt = op.get_rt_info()
        kind = rt["layerType"].astype(str)
        if kind in ("Convolution", "FullyConnected", "MatMul"):
            out.append((kind, rt["runtimePrecision"].astype(str).lower()))
    return sorted(out)


def test_qoperator_model_runs_int8_and_matches_onnxruntime(qop, tmp_path: Path) -> None:
    path, shape = qop
    model = onnx.load(path)
    qlinear = Counter(n.op_type for n in model.graph.node if n.op_type.startswith("QLinear"))
    assert qlinear["QLinearConv"] + qlinear["QLinearMatMul"] >= 2, qlinear
    converted = xmo.convert_model(model)
    xmo.save_model(converted, tmp_path / "m.xml")
    core = ov.Core()
    ir = core.read_model(str(tmp_path / "m.xml"))
    ops = Counter(o.get_type_name() for o in ir.get_ops())
    assert ops["FakeQuantize"] >= len(qlinear) and ops["Round"] == 0, ops
    assert any(o.get_type_name() == "Constant" and o.get_element_type() == ov.Type.i8 for o in ir.get_ops())

    x = np.random.default_rng(5).standard_normal(shape).astype(np.float32)
    want = ort.InferenceSession(str(path), providers=["CPUExecutionProvider"]).run(None, {"x": x})[0]
    tol = 2 * _output_scale(model)
    # no precision hint: the plugin picks int8. The MatMul net's int8 MLP is
    # compiled wrongly by the plugin's snippets (a fused "Subgraph"; off by
    # ~800 for xmo's IR and for ovc's IR of the same net in QDQ form alike),
    # so snippets are off for it
    config = {"SNIPPETS_MODE": "DISABLE"} if len(shape) == 2 else {}
    compiled = core.compile_model(ir, "CPU", config)
    np.testing.assert_allclose(compiled({0: x})[0], want, rtol=0, atol=tol)
    precisions = _runtime_precisions(compiled)
    assert len(precisions) >= 2 and all(p in ("u8", "i8") for _, p in precisions), precisions

    got = xmo.compile_model(converted)({"x": x})
    got = np.asarray(next(iter(got.values())) if isinstance(got, dict) else got[0])
    np.testing.assert_allclose(got, want, rtol=0, atol=tol)


def _q_reshape_dq(scale: np.ndarray, zp: np.ndarray) -> onnx.ModelProto:
    inits = [nh.from_array(scale, "s"), nh.from_array(zp, "z"), nh.from_array(np.array([2, 12], np.int64), "shp")]
    nodes = [
        helper.make_node("QuantizeLinear", ["x", "s", "z"], ["q"], axis=0),
        helper.make_node("Reshape", ["q", "shp"], ["r"]),
        helper.make_node("DequantizeLinear", ["r", "s", "z"], ["y"], axis=0),
    ]
    return _model(nodes, [2, 3, 4], inits)


@pytest.mark.parametrize("per_channel", [False, True], ids=["per_tensor", "per_channel_near_miss"])
def test_fake_quantize_across_reshape(per_channel: bool, tmp_path: Path) -> None:
    """Quantize -> Reshape -> dequantize: one FakeQuantize before the Reshape
    for per-tensor parameters; per-channel ones keep the exact ops."""
    scale = np.array([0.05, 0.07], np.float32) if per_channel else np.float32(0.05)
    zp = np.array([7, 9], np.uint8) if per_channel else np.uint8(7)
    model = _q_reshape_dq(scale, zp)
    xmo.save_model(xmo.convert_model(model), tmp_path / "m.xml")
    core = ov.Core()
    ir = core.read_model(str(tmp_path / "m.xml"))
    ops = Counter(o.get_type_name() for o in ir.get_ops())
    assert ops["FakeQuantize"] == (0 if per_channel else 1) and ops["Reshape"] == 1, ops
    x = np.random.default_rng(2).standard_normal((2, 3, 4)).astype(np.float32) * 4
    want = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"]).run(None, {"x": x})[0]
    got = core.compile_model(ir, "CPU", {"INFERENCE_PRECISION_HINT": "f32"})({0: x})[0]
    np.testing.assert_allclose(got, want, rtol=0, atol=float(np.max(scale)) * 1.01)
