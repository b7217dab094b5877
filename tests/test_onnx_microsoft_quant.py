"""onnxruntime's quantized operators: the QOperator contrib ops
(``com.microsoft`` QLinear*), MatMulNBits (4- and 8-bit block-quantized
weights), the ONNX integer ops (DynamicQuantizeLinear, MatMulInteger,
ConvInteger), and QOperator-form models from
``onnxruntime.quantization.quantize_static``, compared with onnxruntime in
OpenVINO (f32) and on xmo's CPU backend; quantized outputs within one
quantization step (onnxruntime's integer kernels round differently).
The QOperator models run in int8 in OpenVINO's CPU plugin, as for ovc's IR.
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper
from onnx import numpy_helper as nh
from onnx_models import assert_matches

import xmo

ort = pytest.importorskip("onnxruntime")
ov = pytest.importorskip("openvino")

MS = "com.microsoft"
_r = np.random.default_rng(11)
_U8 = TensorProto.UINT8
_F = TensorProto.FLOAT


def _model(nodes: list, inputs: dict[str, tuple[int, list[int]]], outputs: dict[str, int],
           inits: dict[str, np.ndarray]) -> onnx.ModelProto:  # fmt: skip
    g = helper.make_graph(
        nodes, "g", [helper.make_tensor_value_info(k, t, s) for k, (t, s) in inputs.items()],
        [helper.make_tensor_value_info(k, t, None) for k, t in outputs.items()],
        [nh.from_array(v, k) for k, v in inits.items()],
    )  # fmt: skip
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 17), helper.make_opsetid(MS, 1)])
    m.ir_version = 8
    return m


def _compare(got: np.ndarray, want: np.ndarray, where: str, atol: float) -> None:
    got = np.asarray(got)
    if want.dtype.kind in "iu":
        assert got.shape == want.shape, where
        diff = np.abs(got.astype(np.int64) - want.astype(np.int64))
        assert diff.max() <= 1 and (diff > 0).mean() < 0.05, f"{where}: max {diff.max()}, {(diff > 0).mean():.3f} off"
    else:
        assert_matches(got, want, where, atol=atol)


def _check(model: onnx.ModelProto, feeds: dict[str, np.ndarray], tmp_path: Path, atol: float = 1e-5) -> None:
    want = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"]).run(None, feeds)
    converted = xmo.convert_model(model)
    xmo.save_model(converted, tmp_path / "m.xml")
    core = ov.Core()
    compiled = core.compile_model(core.read_model(str(tmp_path / "m.xml")), "CPU", {"INFERENCE_PRECISION_HINT": "f32"})
    got = compiled(list(feeds.values()))
    for i, o in enumerate(compiled.outputs):
        _compare(got[o], want[i], f"OpenVINO output {i}", atol)
    for i, o in enumerate(xmo.compile_model(converted)(dict(feeds))):
        _compare(o, want[i], f"CPU backend output {i}", atol)


def _q(*shape: int) -> np.ndarray:
    return _r.integers(0, 256, shape).astype(np.uint8)


#: scales whose ratios put few results on rounding ties
_S = {"xs": np.float32(0.0313), "xz": np.uint8(120), "ys": np.float32(0.0517), "yz": np.uint8(100),
      "cs": np.float32(0.0419), "cz": np.uint8(128)}  # fmt: skip


def _unary(op: str, **attrs) -> tuple[onnx.ModelProto, dict]:
    node = helper.make_node(op, ["x", "xs", "xz", "cs", "cz"], ["y"], domain=MS, **attrs)
    shape = [1, 4, 5, 6]
    return _model([node], {"x": (_U8, shape)}, {"y": _U8}, {k: _S[k] for k in ("xs", "xz", "cs", "cz")}), {
        "x": _q(*shape)
    }


UNARY = [
    ("sigmoid", "QLinearSigmoid", {}),
    ("leaky_relu", "QLinearLeakyRelu", {"alpha": 0.2}),
    ("global_average_pool", "QLinearGlobalAveragePool", {}),
    ("global_average_pool_nhwc", "QLinearGlobalAveragePool", {"channels_last": 1}),
    ("average_pool", "QLinearAveragePool", {"kernel_shape": [2, 2], "strides": [2, 2]}),
    ("average_pool_pads", "QLinearAveragePool", {"kernel_shape": [3, 3], "pads": [1, 1, 1, 1], "count_include_pad": 1}),
]


@pytest.mark.parametrize("case", UNARY, ids=[c[0] for c in UNARY])
def test_qlinear_unary(case, tmp_path: Path) -> None:
    _, op, attrs = case
    model, feeds = _unary(op, **attrs)
    _check(model, feeds, tmp_path)


@pytest.mark.parametrize("op", ["QLinearAdd", "QLinearMul"])
def test_qlinear_binary(op: str, tmp_path: Path) -> None:
    node = helper.make_node(op, ["a", "xs", "xz", "b", "ys", "yz", "cs", "cz"], ["y"], domain=MS)
    feeds = {"a": _q(2, 3, 8), "b": _q(3, 8)}
    model = _model([node], {"a": (_U8, [2, 3, 8]), "b": (_U8, [3, 8])}, {"y": _U8}, _S)
    _check(model, feeds, tmp_path)


def test_qlinear_concat(tmp_path: Path) -> None:
    node = helper.make_node("QLinearConcat", ["cs", "cz", "a", "xs", "xz", "b", "ys", "yz"], ["y"], domain=MS, axis=1)
    feeds = {"a": _q(2, 3, 4), "b": _q(2, 5, 4)}
    model = _model([node], {"a": (_U8, [2, 3, 4]), "b": (_U8, [2, 5, 4])}, {"y": _U8}, _S)
    _check(model, feeds, tmp_path)


def test_microsoft_quantize_dequantize(tmp_path: Path) -> None:
    """com.microsoft's QuantizeLinear / DequantizeLinear (16-bit QDQ) are the
    ONNX ops; OpenVINO's CPU plugin strips a 16-bit FakeQuantize (runs it as
    identity), so its outputs are within one quantization step."""
    s, z = np.float32(0.001), np.uint16(30000)
    nodes = [helper.make_node("QuantizeLinear", ["x", "s", "z"], ["q"], domain=MS),
             helper.make_node("DequantizeLinear", ["q", "s", "z"], ["d"], domain=MS),
             helper.make_node("Relu", ["d"], ["y"])]  # fmt: skip
    model = _model(nodes, {"x": (_F, [2, 8])}, {"y": _F}, {"s": s, "z": z})
    _check(model, {"x": _r.standard_normal((2, 8)).astype(np.float32)}, tmp_path, atol=float(s))


# -- MatMulNBits -----------------------------------------------------------------------------


def _pack(vals: np.ndarray, bits: int) -> np.ndarray:
    """Values along the last axis packed into bytes, the first in the low bits."""
    if bits == 8:
        return vals.astype(np.uint8)
    v = vals.reshape(*vals.shape[:-1], -1, 2).astype(np.uint8)
    return v[..., 0] | (v[..., 1] << 4)


NBITS = [
    ("4bit", 4, 32, 16, False, False),
    ("4bit_zero_points_bias", 4, 32, 16, True, True),
    ("4bit_ragged_k", 4, 40, 16, True, False),  # K not a multiple of block_size
    ("8bit_zero_points", 8, 32, 16, True, False),
]


@pytest.mark.parametrize("case", NBITS, ids=[c[0] for c in NBITS])
def test_matmul_nbits(case, tmp_path: Path) -> None:
    _, bits, k, bs, zero_points, bias = case
    n = 12
    blocks = -(-k // bs)
    q = _r.integers(0, 1 << bits, (n, blocks, bs))
    inits = {"B": _pack(q, bits), "scales": (_r.random(n * blocks) * 0.1 + 0.01).astype(np.float32)}
    names = ["A", "B", "scales"]
    if zero_points or bias:
        zp = _r.integers(0, 1 << bits, (n, blocks + (blocks % 2 if bits == 4 else 0)))
        inits["zp"] = _pack(zp, bits).reshape(-1) if zero_points else np.zeros(0, np.uint8)
        names.append("zp" if zero_points else "")
    if bias:
        inits["bias"] = _r.standard_normal(n).astype(np.float32)
        names += ["", "bias"]
    node = helper.make_node("MatMulNBits", names, ["y"], domain=MS, K=k, N=n, bits=bits, block_size=bs)
    inits = {k_: v for k_, v in inits.items() if v.size}
    model = _model([node], {"A": (_F, [2, 3, k])}, {"y": _F}, inits)
    _check(model, {"A": _r.standard_normal((2, 3, k)).astype(np.float32)}, tmp_path, atol=1e-4)
    ir = xmo.convert_model(model)
    xmo.save_model(ir, tmp_path / "w.xml")
    consts = [o for o in ov.Core().read_model(str(tmp_path / "w.xml")).get_ops() if o.get_type_name() == "Constant"]
    assert any(c.get_element_type() == (ov.Type.u4 if bits == 4 else ov.Type.u8) for c in consts)


# -- ONNX integer ops ---------------------------------------------------------------------------


def test_dynamic_quantize_matmul_integer(tmp_path: Path) -> None:
    """onnxruntime's dynamic quantization of a MatMul: DynamicQuantizeLinear
    + MatMulInteger (+ scale products), ONNX-domain ops."""
    w = _r.integers(-128, 128, (8, 6)).astype(np.int8)
    nodes = [
        helper.make_node("DynamicQuantizeLinear", ["x"], ["xq", "xs", "xz"]),
        helper.make_node("MatMulInteger", ["xq", "w", "xz", "wz"], ["acc"]),
        helper.make_node("Cast", ["acc"], ["accf"], to=_F),
        helper.make_node("Mul", ["xs", "ws"], ["s"]),
        helper.make_node("Mul", ["accf", "s"], ["y"]),
    ]
    model = _model(nodes, {"x": (_F, [3, 8])}, {"y": _F},
                   {"w": w, "wz": np.int8(3), "ws": np.float32(0.02)})  # fmt: skip
    _check(model, {"x": _r.standard_normal((3, 8)).astype(np.float32)}, tmp_path, atol=1e-4)


def test_conv_integer(tmp_path: Path) -> None:
    nodes = [helper.make_node("ConvInteger", ["x", "w", "xz", "wz"], ["y"], pads=[1, 1, 1, 1])]
    model = _model(nodes, {"x": (_U8, [1, 3, 6, 6])}, {"y": TensorProto.INT32},
                   {"w": _q(4, 3, 3, 3), "xz": np.uint8(100), "wz": np.uint8(128)})  # fmt: skip
    _check(model, {"x": _q(1, 3, 6, 6)}, tmp_path)


# -- DynamicQuantizeLSTM ----------------------------------------------------------------------------


@pytest.mark.parametrize("direction", ["forward", "bidirectional"])
def test_dynamic_quantize_lstm(direction: str, tmp_path: Path) -> None:
    """An LSTM + MatMul head quantized by ``quantize_dynamic``: onnxruntime
    also quantizes each step's input and hidden state to u8, xmo runs f32
    with the dequantized weights: within 0.02 of outputs of magnitude ~1."""
    quantization = pytest.importorskip("onnxruntime.quantization")
    dirs, hidden, k = (2 if direction == "bidirectional" else 1), 16, 12
    rng = np.random.default_rng(4)
    inits = {
        "W": (rng.standard_normal((dirs, 4 * hidden, k)) * 0.3).astype(np.float32),
        "R": (rng.standard_normal((dirs, 4 * hidden, hidden)) * 0.3).astype(np.float32),
        "B": (rng.standard_normal((dirs, 8 * hidden)) * 0.1).astype(np.float32),
    }
    nodes = [helper.make_node("LSTM", ["x", "W", "R", "B"], ["y", "h", "c"], hidden_size=hidden, direction=direction)]
    model = _model(nodes, {"x": (_F, [6, 2, k])}, {"y": _F, "h": _F, "c": _F}, inits)
    onnx.save(model, tmp_path / "f.onnx")
    quantization.quantize_dynamic(str(tmp_path / "f.onnx"), str(tmp_path / "q.onnx"), op_types_to_quantize=["LSTM"])
    q = onnx.load(tmp_path / "q.onnx")
    assert [n.op_type for n in q.graph.node] == ["DynamicQuantizeLSTM"]
    x = rng.standard_normal((6, 2, k)).astype(np.float32)
    want = ort.InferenceSession(q.SerializeToString(), providers=["CPUExecutionProvider"]).run(None, {"x": x})
    converted = xmo.convert_model(q)
    xmo.save_model(converted, tmp_path / "m.xml")
    core = ov.Core()
    compiled = core.compile_model(core.read_model(str(tmp_path / "m.xml")), "CPU", {"INFERENCE_PRECISION_HINT": "f32"})
    got_ov = compiled([x])
    got_cpu = xmo.compile_model(converted)({"x": x})
    for i, w in enumerate(want):
        np.testing.assert_allclose(got_ov[compiled.outputs[i]], w, rtol=0, atol=0.02, err_msg=f"OpenVINO output {i}")
        np.testing.assert_allclose(np.asarray(got_cpu[i]), w, rtol=0, atol=0.02, err_msg=f"CPU backend output {i}")


# -- MatMulIntegerToFloat, DynamicQuantizeMatMul, QLinearWhere, QLinearSoftmax ---------------------------

_I8 = TensorProto.INT8


@pytest.mark.parametrize("per_column,bias", [(False, False), (True, True)])
def test_matmul_integer_to_float(per_column: bool, bias: bool, tmp_path: Path) -> None:
    inits = {"B": _r.integers(-128, 128, (8, 6)).astype(np.int8), "as": np.float32(0.03),
             "bs": (_r.random(6) * 0.05 + 0.01).astype(np.float32) if per_column else np.float32(0.02),
             "az": np.uint8(110), "bz": np.int8(3) if not per_column else np.zeros(6, np.int8)}  # fmt: skip
    names = ["A", "B", "as", "bs", "az", "bz"]
    if bias:
        inits["bias"] = _r.standard_normal(6).astype(np.float32)
        names.append("bias")
    node = helper.make_node("MatMulIntegerToFloat", names, ["y"], domain=MS)
    model = _model([node], {"A": (_U8, [2, 3, 8])}, {"y": _F}, inits)
    _check(model, {"A": _q(2, 3, 8)}, tmp_path, atol=1e-4)


@pytest.mark.parametrize("signed,zero_point,bias", [(True, False, False), (False, True, True)])
def test_dynamic_quantize_matmul(signed: bool, zero_point: bool, bias: bool, tmp_path: Path) -> None:
    w = _r.integers(-128, 128, (8, 6)).astype(np.int8) if signed else _q(8, 6)
    inits = {"B": w, "bs": np.float32(0.02)}
    names = ["A", "B", "bs"]
    if zero_point or bias:
        inits["bz"] = np.uint8(120) if zero_point else np.zeros(0, np.uint8)
        names.append("bz" if zero_point else "")
    if bias:
        inits["bias"] = _r.standard_normal(6).astype(np.float32)
        names.append("bias")
    node = helper.make_node("DynamicQuantizeMatMul", names, ["y"], domain=MS)
    inits = {k: v for k, v in inits.items() if v.size}
    model = _model([node], {"A": (_F, [3, 8])}, {"y": _F}, inits)
    _check(model, {"A": _r.standard_normal((3, 8)).astype(np.float32)}, tmp_path, atol=1e-4)


def test_qlinear_where(tmp_path: Path) -> None:
    node = helper.make_node("QLinearWhere", ["c", "a", "xs", "xz", "b", "ys", "yz", "cs", "cz"], ["y"], domain=MS)
    feeds = {"c": _r.random((2, 3, 8)) < 0.5, "a": _q(2, 3, 8), "b": _q(3, 8)}
    model = _model([node], {"c": (TensorProto.BOOL, [2, 3, 8]), "a": (_U8, [2, 3, 8]), "b": (_U8, [3, 8])},
                   {"y": _U8}, _S)  # fmt: skip
    _check(model, feeds, tmp_path)


@pytest.mark.parametrize("attrs", [{"opset": 13}, {"opset": 13, "axis": 1}, {"opset": 11, "axis": 1}],
                         ids=["last_axis", "axis1", "opset11_axis1"])  # fmt: skip
def test_qlinear_softmax(attrs: dict, tmp_path: Path) -> None:
    node = helper.make_node("QLinearSoftmax", ["x", "xs", "xz", "ss", "sz"], ["y"], domain=MS, **attrs)
    model = _model([node], {"x": (_U8, [2, 3, 8])}, {"y": _U8},
                   {"xs": _S["xs"], "xz": _S["xz"], "ss": np.float32(1 / 256), "sz": np.uint8(0)})  # fmt: skip
    _check(model, {"x": _q(2, 3, 8)}, tmp_path)


@pytest.mark.parametrize("bits,zero_points", [(4, False), (4, True), (8, True)])
def test_gather_block_quantized(bits: int, zero_points: bool, tmp_path: Path) -> None:
    rows, d, bs = 10, 32, 16
    blocks = d // bs
    q = _r.integers(0, 1 << bits, (rows, d))
    inits = {"data": _pack(q, bits), "scales": (_r.random((rows, blocks)) * 0.1 + 0.01).astype(np.float32)}
    names = ["data", "idx", "scales"]
    if zero_points:
        inits["zp"] = _pack(_r.integers(0, 1 << bits, (rows, blocks)), bits)
        names.append("zp")
    node = helper.make_node("GatherBlockQuantized", names, ["y"], domain=MS, bits=bits, block_size=bs)
    model = _model([node], {"idx": (TensorProto.INT64, [2, 3])}, {"y": _F}, inits)
    _check(model, {"idx": np.array([[0, 9, 3], [3, 1, 0]], np.int64)}, tmp_path)
