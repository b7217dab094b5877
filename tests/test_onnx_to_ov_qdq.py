"""QDQ-quantized ONNX models (onnxruntime's static quantization) run in int8.

A two-convolution CNN with a MatMul head, quantized by
``onnxruntime.quantization.quantize_static`` (QDQ format, per tensor and per
channel): xmo's IR carries FakeQuantize on activations and int8 weight
Constants with their Convert / Multiply (``fake-quantize-fusion``,
passes/onnx_to_ov/families/quantization.py), matches onnxruntime within one
quantization step of the output, and OpenVINO's CPU plugin (no precision
hint) runs its convolutions and matmul in the same int8 / u8 precision as for
the IR of OpenVINO's own converter. Standalone QuantizeLinear /
DequantizeLinear (integer model outputs / inputs) and a Q -> DQ pair with
different scales are not fused (integer outputs exact, floats within 1e-6).
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

_X = (1, 3, 16, 16)


def _float_cnn() -> onnx.ModelProto:
    rng = np.random.default_rng(0)

    def w(name: str, *shape: int, s: float) -> onnx.TensorProto:
        return nh.from_array((rng.standard_normal(shape) * s).astype(np.float32), name)

    inits = [
        w("w1", 8, 3, 3, 3, s=0.3), w("b1", 8, s=0.1), w("w2", 16, 8, 3, 3, s=0.2), w("b2", 16, s=0.1),
        w("wm", 16 * 8 * 8, 10, s=0.05), w("bm", 10, s=0.1), nh.from_array(np.array([1, -1], np.int64), "shp"),
    ]  # fmt: skip
    nodes = [
        helper.make_node("Conv", ["x", "w1", "b1"], ["c1"], pads=[1, 1, 1, 1]),
        helper.make_node("Relu", ["c1"], ["r1"]),
        helper.make_node("Conv", ["r1", "w2", "b2"], ["c2"], pads=[1, 1, 1, 1], strides=[2, 2]),
        helper.make_node("Relu", ["c2"], ["r2"]),
        helper.make_node("Reshape", ["r2", "shp"], ["f"]),
        helper.make_node("MatMul", ["f", "wm"], ["m"]),
        helper.make_node("Add", ["m", "bm"], ["y"]),
    ]
    g = helper.make_graph(
        nodes, "cnn", [helper.make_tensor_value_info("x", TensorProto.FLOAT, list(_X))],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 10])], inits,
    )  # fmt: skip
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)])
    m.ir_version = 8
    return m


class _Calibration(quantization.CalibrationDataReader):
    def __init__(self) -> None:
        rng = np.random.default_rng(1)
        self.data = iter([{"x": rng.standard_normal(_X).astype(np.float32)} for _ in range(8)])

    def get_next(self) -> dict | None:
        return next(self.data, None)


@pytest.fixture(scope="module", params=[False, True], ids=["per_tensor", "per_channel"])
def qdq(request, tmp_path_factory) -> Path:  # noqa: ANN001
    d = tmp_path_factory.mktemp("qdq")
    onnx.save(_float_cnn(), d / "f.onnx")
    q = d / "q.onnx"
    quantization.quantize_static(
        str(d / "f.onnx"), str(q), _Calibration(), quant_format=quantization.QuantFormat.QDQ,
        per_channel=request.param, activation_type=quantization.QuantType.QUInt8,
        weight_type=quantization.QuantType.QInt8,
    )  # fmt: skip
    return q


def _xmo_ir(src: Path | onnx.ModelProto, xml: Path) -> Path:
    xmo.save_model(xmo.convert_model(src), xml)
    return xml


def _runtime_precisions(compiled) -> list[tuple[str, str]]:  # noqa: ANN001
    """(layer type, runtime precision) of the convolutions and matmuls OpenVINO runs."""
    out = []
    for op in compiled.get_runtime_model().get_ops():
        rt = op.get_rt_info()
        kind = rt["layerType"].astype(str)
        if kind in ("Convolution", "FullyConnected", "MatMul"):
            out.append((kind, rt["runtimePrecision"].astype(str).lower()))
    return sorted(out)


def _output_scale(model: onnx.ModelProto) -> float:
    inits = {i.name: nh.to_array(i) for i in model.graph.initializer}
    dq = next(n for n in model.graph.node if n.op_type == "DequantizeLinear" and n.output[0] == "y")
    return float(inits[dq.input[1]])


def test_qdq_model_runs_int8_and_matches_onnxruntime(qdq: Path, tmp_path: Path) -> None:
    xml = _xmo_ir(qdq, tmp_path / "xmo.xml")
    core = ov.Core()
    ir = core.read_model(str(xml))
    ops = Counter(o.get_type_name() for o in ir.get_ops())
    # six Q -> DQ pairs (input, two convolutions, flatten, matmul, output)
    assert ops["FakeQuantize"] == 6 and ops["Round"] == 0 and ops["Clamp"] == 0, ops
    int8_weights = [o for o in ir.get_ops() if o.get_type_name() == "Constant"
                    and o.get_element_type() == ov.Type.i8]  # fmt: skip
    assert len(int8_weights) == 3  # w1, w2, wm stay int8 Constants

    x = np.random.default_rng(5).standard_normal(_X).astype(np.float32)
    want = ort.InferenceSession(str(qdq)).run(None, {"x": x})[0]
    compiled = core.compile_model(ir, "CPU")  # no precision hint: the plugin picks int8
    got = compiled({0: x})[0]
    np.testing.assert_allclose(got, want, rtol=0, atol=2 * _output_scale(onnx.load(qdq)))

    ovc = core.compile_model(ov.convert_model(str(qdq)), "CPU")
    precisions = _runtime_precisions(compiled)
    assert precisions == _runtime_precisions(ovc)
    assert len(precisions) == 3 and all(p in ("u8", "i8") for _, p in precisions), precisions


def test_qdq_model_on_xmo_cpu_backend(qdq: Path) -> None:
    x = np.random.default_rng(6).standard_normal(_X).astype(np.float32)
    want = ort.InferenceSession(str(qdq)).run(None, {"x": x})[0]
    got = xmo.compile_model(xmo.convert_model(qdq))({"x": x})
    got = np.asarray(next(iter(got.values())) if isinstance(got, dict) else got[0])
    np.testing.assert_allclose(got, want, rtol=0, atol=2 * _output_scale(onnx.load(qdq)))


def _model(nodes: list, inputs: list, outputs: list, inits: list) -> onnx.ModelProto:
    g = helper.make_graph(nodes, "g", inputs, outputs, inits)
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)])
    m.ir_version = 8
    return m


def _same_in_openvino(model: onnx.ModelProto, feeds: dict, tmp_path: Path) -> Counter:
    xml = _xmo_ir(model, tmp_path / "m.xml")
    core = ov.Core()
    ir = core.read_model(str(xml))
    got = core.compile_model(ir, "CPU", {"INFERENCE_PRECISION_HINT": "f32"})(feeds)[0]
    want = ort.InferenceSession(model.SerializeToString()).run(None, feeds)[0]
    assert got.dtype == want.dtype
    if want.dtype.kind == "f":  # OpenVINO computes (q - zp) * s as q * s - zp * s
        np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-6)
    else:
        np.testing.assert_array_equal(got, want)
    return Counter(o.get_type_name() for o in ir.get_ops())


def test_standalone_quantize_and_dequantize_are_not_fused(tmp_path: Path) -> None:
    s, z = nh.from_array(np.float32(0.05), "s"), nh.from_array(np.uint8(7), "z")
    x = np.random.default_rng(2).standard_normal((2, 3, 4)).astype(np.float32) * 4
    q = _model([helper.make_node("QuantizeLinear", ["x", "s", "z"], ["y"])],
               [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 3, 4])],
               [helper.make_tensor_value_info("y", TensorProto.UINT8, [2, 3, 4])], [s, z])  # fmt: skip
    assert _same_in_openvino(q, {"x": x}, tmp_path)["FakeQuantize"] == 0
    xq = np.random.default_rng(3).integers(0, 256, (2, 3, 4)).astype(np.uint8)
    dq = _model([helper.make_node("DequantizeLinear", ["x", "s", "z"], ["y"])],
                [helper.make_tensor_value_info("x", TensorProto.UINT8, [2, 3, 4])],
                [helper.make_tensor_value_info("y", TensorProto.FLOAT, [2, 3, 4])], [s, z])  # fmt: skip
    assert _same_in_openvino(dq, {"x": xq}, tmp_path)["FakeQuantize"] == 0


def test_pair_with_different_scales_is_a_near_miss(tmp_path: Path) -> None:
    inits = [nh.from_array(np.float32(0.05), "s"), nh.from_array(np.float32(0.1), "s2"),
             nh.from_array(np.uint8(7), "z")]  # fmt: skip
    m = _model([helper.make_node("QuantizeLinear", ["x", "s", "z"], ["q"]),
                helper.make_node("DequantizeLinear", ["q", "s2", "z"], ["y"])],
               [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 3, 4])],
               [helper.make_tensor_value_info("y", TensorProto.FLOAT, [2, 3, 4])], inits)  # fmt: skip
    x = np.random.default_rng(4).standard_normal((2, 3, 4)).astype(np.float32) * 4
    assert _same_in_openvino(m, {"x": x}, tmp_path)["FakeQuantize"] == 0
