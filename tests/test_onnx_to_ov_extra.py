"""detection.py, signal.py, llm.py: one-node ONNX models converted by xmo, run in
OpenVINO (CPU, f32) and compared with onnxruntime where it implements the op,
else with ONNX's reference implementation (onnx.reference)."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
import xmo
from onnx_models import assert_matches, compile_in_openvino, single_node_model
from onnx.reference import ReferenceEvaluator

ort = pytest.importorskip("onnxruntime")
ov = pytest.importorskip("openvino")

_r = np.random.default_rng(11)


def _f(*shape: int, dtype=np.float32) -> np.ndarray:
    return _r.standard_normal(shape).astype(dtype)


def _i(*values: int) -> np.ndarray:
    return np.asarray(values, np.int64)


_BOXES = np.array(
    [[[0, 0, 1, 1], [0, 0.1, 1, 1.1], [0, -0.1, 1, 0.9], [0, 10, 1, 11], [0, 10.1, 1, 11.1],
      [0, 100, 1, 101]]], np.float32)  # fmt: skip
_BOXES2 = np.concatenate([_BOXES, _BOXES[:, ::-1]], 0)
_SCORES2 = np.array(
    [[[0.9, 0.75, 0.6, 0.95, 0.5, 0.3], [0.1, 0.2, 0.3, 0.4, 0.5, 0.6]],
     [[0.3, 0.75, 0.6, 0.95, 0.5, 0.9], [-0.1, 0.2, 0.3, -0.4, 0.5, 0.6]]], np.float32)  # fmt: skip
_CENTER = np.array([[[0.5, 0.5, 1, 1], [0.5, 0.6, 1, 1], [0.5, 0.4, 1, 1], [0.5, 10.5, 1, 1]]], np.float32)
_DISJOINT = np.array([[[0, 0, 1, 1], [2, 2, 3, 3], [0.5, 0.5, 1.5, 1.5]]], np.float32)
_TWO = np.array([[[0, 0, 1, 1], [0.5, 0.5, 1.5, 1.5]]], np.float32)

# (id, op, opset, runtime inputs, initializers, attrs, number of outputs,
#  reference "ort"|"onnx", atol); an input named "" is an absent optional input
_CASES: list[tuple[str, str, int, dict, dict, dict, int, str, float]] = [
    # -- NonMaxSuppression
    ("nms_runtime_thresholds", "NonMaxSuppression", 11,
     {"b": _BOXES2, "s": _SCORES2, "m": _i(2), "iou": np.array([0.5], np.float32),
      "st": np.array([0.0], np.float32)}, {}, {}, 1, "ort", 0),
    ("nms_const_thresholds", "NonMaxSuppression", 11, {"b": _BOXES2, "s": _SCORES2},
     {"m": _i(3), "iou": np.array([0.4], np.float32), "st": np.array([0.35], np.float32)}, {}, 1, "ort", 0),
    ("nms_no_score_threshold", "NonMaxSuppression", 11, {"b": _BOXES2, "s": _SCORES2},
     {"m": _i(10), "iou": np.array([0.5], np.float32)}, {}, 1, "ort", 0),
    ("nms_center", "NonMaxSuppression", 10, {"b": _CENTER, "s": _SCORES2[:1, :1, :4]},
     {"m": _i(4), "iou": np.array([0.5], np.float32)}, {"center_point_box": 1}, 1, "ort", 0),
    # the default iou_threshold 0 keeps disjoint boxes (IoU > 0 suppresses)
    ("nms_default_iou", "NonMaxSuppression", 11,
     {"b": _DISJOINT, "s": np.array([[[0.9, 0.8, 0.7]]], np.float32)}, {"m": _i(5)}, {}, 1, "ort", 0),
    ("nms_iou_boundary_runtime", "NonMaxSuppression", 11,
     {"b": _TWO, "s": np.array([[[0.9, 0.8]]], np.float32), "m": _i(3),
      "iou": np.array([1 / 7], np.float32)}, {}, {}, 1, "ort", 0),
    ("nms_no_max_output", "NonMaxSuppression", 11, {"b": _TWO, "s": np.array([[[0.9, 0.8]]], np.float32)},
     {}, {}, 1, "ort", 0),
    # -- DFT
    ("dft17_real", "DFT", 17, {"x": _f(2, 8, 3, 1)}, {}, {"axis": 1}, 1, "onnx", 1e-4),
    ("dft17_complex_axis2", "DFT", 17, {"x": _f(2, 3, 6, 2)}, {}, {"axis": 2}, 1, "onnx", 1e-4),
    ("dft17_rfft_len_pad", "DFT", 17, {"x": _f(2, 7, 1)}, {"n": np.array(10, np.int64)}, {"axis": 1, "onesided": 1}, 1,
     "onnx", 1e-4),
    ("dft17_complex_onesided_trunc", "DFT", 17, {"x": _f(2, 9, 2)}, {"n": np.array(6, np.int64)},
     {"axis": 1, "onesided": 1}, 1, "onnx", 1e-4),
    ("dft17_inverse_real", "DFT", 17, {"x": _f(3, 5, 1)}, {}, {"axis": 1, "inverse": 1}, 1, "onnx", 1e-5),
    ("dft17_irfft_odd", "DFT", 17, {"x": _f(2, 5, 2)}, {"n": np.array(9, np.int64)},
     {"axis": 1, "inverse": 1, "onesided": 1}, 1, "onnx", 1e-5),
    ("dft20_runtime_axis", "DFT", 20, {"x": _f(2, 5, 4, 2), "": None, "a": np.array(1, np.int64)}, {},
     {}, 1, "onnx", 1e-4),
    ("dft20_runtime_axis_neg_len", "DFT", 20,
     {"x": _f(2, 5, 4, 1), "n": np.array(6, np.int64), "a": np.array(-3, np.int64)}, {},
     {"onesided": 1}, 1, "onnx", 1e-4),
    ("dft20_runtime_irfft", "DFT", 20, {"x": _f(2, 4, 3, 2), "": None, "a": np.array(1, np.int64)},
     {}, {"inverse": 1, "onesided": 1}, 1, "onnx", 1e-5),
    ("dft20_default_axis_inverse", "DFT", 20, {"x": _f(2, 3, 8, 2)}, {}, {"inverse": 1}, 1, "onnx", 1e-5),
    # long signals go through OpenVINO's DFT ops
    ("dft17_long_rfft", "DFT", 17, {"x": _f(1, 5000, 1)}, {}, {"axis": 1, "onesided": 1}, 1, "onnx", 2e-3),
    ("dft17_long_complex_onesided", "DFT", 17, {"x": _f(4100, 2)}, {}, {"axis": 0, "onesided": 1}, 1,  # f32 naive DFT: ~1e-3 relative
     "onnx", 0.1),
    ("dft17_long_irfft", "DFT", 17, {"x": _f(1, 4200, 2)}, {}, {"axis": 1, "inverse": 1, "onesided": 1}, 1,
     "onnx", 1e-5),
    # -- STFT
    ("stft_window", "STFT", 17, {"x": _f(2, 64, 1), "step": np.array(8, np.int64),
                                 "w": np.hanning(16).astype(np.float32)}, {}, {}, 1, "ort", 1e-4),
    ("stft_frame_length", "STFT", 17, {"x": _f(1, 50, 1), "step": np.array(5, np.int64)},
     {"": None, "fl": np.array(12, np.int64)}, {}, 1, "ort", 1e-4),
    # -- windows
    ("hann", "HannWindow", 17, {"n": np.array(10, np.int32)}, {}, {}, 1, "ort", 1e-6),
    ("hann_symmetric", "HannWindow", 17, {"n": np.array(7, np.int64)}, {}, {"periodic": 0}, 1, "ort", 1e-6),
    ("hamming_symmetric", "HammingWindow", 17, {"n": np.array(9, np.int32)}, {}, {"periodic": 0}, 1,
     "ort", 1e-6),
    ("blackman", "BlackmanWindow", 17, {"n": np.array(12, np.int32)}, {}, {}, 1, "ort", 1e-6),
    ("blackman_const", "BlackmanWindow", 17, {}, {"n": np.array(5, np.int32)}, {"periodic": 0}, 1,
     "ort", 1e-6),
    # -- MelWeightMatrix
    ("mel", "MelWeightMatrix", 17, {"m": np.array(8, np.int32), "n": np.array(16, np.int32),
                                    "sr": np.array(8192, np.int32), "lo": np.array(0, np.float32),
                                    "hi": np.array(8192 / 2, np.float32)}, {}, {}, 1, "onnx", 1e-6),
    ("mel_const", "MelWeightMatrix", 17, {}, {"m": np.array(10, np.int64), "n": np.array(64, np.int64),
                                              "sr": np.array(16000, np.int64),
                                              "lo": np.array(100, np.float32),
                                              "hi": np.array(6000, np.float32)}, {}, 1, "onnx", 1e-6),
    # -- SwiGLU
    ("swiglu", "SwiGLU", 28, {"a": _f(3, 5), "b": _f(3, 5)}, {}, {}, 1, "onnx", 1e-5),
    ("swiglu_alpha", "SwiGLU", 28, {"a": _f(2, 2, 4), "b": _f(2, 2, 4)}, {}, {"alpha": 1.702}, 1,
     "onnx", 1e-5),
    # -- RotaryEmbedding
    ("rope_4d_pos", "RotaryEmbedding", 23, {"x": _f(2, 3, 4, 8), "c": _f(10, 4), "s": _f(10, 4),
                                            "p": _r.integers(0, 10, (2, 4))}, {}, {}, 1, "onnx", 1e-5),
    ("rope_3d_interleaved_partial", "RotaryEmbedding", 23,
     {"x": _f(2, 4, 24), "c": _f(2, 4, 2), "s": _f(2, 4, 2)}, {},
     {"num_heads": 3, "interleaved": 1, "rotary_embedding_dim": 4}, 1, "onnx", 1e-5),
    ("rope_3d_partial_pos", "RotaryEmbedding", 23,
     {"x": _f(1, 5, 16), "c": _f(8, 2), "s": _f(8, 2)}, {"p": _r.integers(0, 8, (1, 5))},
     {"num_heads": 2, "rotary_embedding_dim": 4}, 1, "onnx", 1e-5),
    # -- CausalConvWithState
    ("cconv", "CausalConvWithState", 27, {"x": _f(2, 3, 7), "w": _f(3, 1, 4)}, {}, {}, 2, "onnx", 1e-5),
    ("cconv_bias_past_silu", "CausalConvWithState", 27,
     {"x": _f(1, 4, 5), "w": _f(4, 1, 3), "b": _f(4), "p": _f(1, 4, 2)}, {}, {"activation": "silu"}, 2,
     "onnx", 1e-5),
    ("cconv_short_const_weight", "CausalConvWithState", 27, {"x": _f(2, 2, 2)}, {"w": _f(2, 1, 5)}, {}, 2,
     "onnx", 1e-5),
    # -- LinearAttention
    ("linatt_linear", "LinearAttention", 27, {"q": _f(2, 3, 8), "k": _f(2, 3, 8), "v": _f(2, 3, 12)}, {},
     {"q_num_heads": 2, "kv_num_heads": 2, "update_rule": "linear"}, 2, "onnx", 1e-4),
    ("linatt_gated_delta_gqa_past", "LinearAttention", 27,
     {"q": _f(1, 4, 16), "k": _f(1, 4, 8) * 0.3, "v": _f(1, 4, 6), "p": _f(1, 2, 4, 3),
      "g": -np.abs(_f(1, 4, 2)), "bt": np.abs(_f(1, 4, 1)) * 0.5}, {},
     {"q_num_heads": 4, "kv_num_heads": 2, "scale": 0.3}, 2, "onnx", 1e-4),
    ("linatt_gated_per_key", "LinearAttention", 27,
     {"q": _f(2, 2, 8), "k": _f(2, 2, 8), "v": _f(2, 2, 8), "": None, "g": -np.abs(_f(2, 2, 8))}, {},
     {"q_num_heads": 2, "kv_num_heads": 2, "update_rule": "gated"}, 2, "onnx", 1e-4),
]  # fmt: skip


def _model(name: str, op: str, opset: int, inputs: dict, consts: dict, attrs: dict, n_out: int):
    return single_node_model(name, op, opset, inputs, consts, attrs, n_out, ir_version=10)


@pytest.mark.parametrize("case", _CASES, ids=[c[0] for c in _CASES])
def test_extra_op(case: tuple[Any, ...], tmp_path) -> None:
    name, op, opset, inputs, consts, attrs, n_out, ref, atol = case
    model = _model(name, op, opset, inputs, consts, attrs, n_out)
    feeds = {k: np.asarray(v) for k, v in inputs.items() if k}
    if ref == "ort":
        want = ort.InferenceSession(model.SerializeToString()).run(None, feeds)
    else:
        want = ReferenceEvaluator(model).run(None, feeds)
    compiled = compile_in_openvino(model, tmp_path)
    res = compiled(list(feeds.values()))
    for i, w in enumerate(want[:n_out]):
        assert_matches(res[compiled.outputs[i]], w, name, atol=atol)


def test_swiglu_f16(tmp_path) -> None:
    a, b = _f(2, 6, dtype=np.float16), _f(2, 6, dtype=np.float16)
    model = _model("swiglu16", "SwiGLU", 28, {"a": a, "b": b}, {}, {}, 1)
    want = ReferenceEvaluator(model).run(None, {"a": a, "b": b})[0]
    xml = tmp_path / "m.xml"
    xmo.save_model(xmo.convert_model(model), xml)
    got = ov.Core().compile_model(str(xml), "CPU")([a, b])[0]
    assert got.dtype == np.float16
    np.testing.assert_allclose(got.astype(np.float32), want.astype(np.float32), rtol=2e-3, atol=2e-3)


def test_nms_selected_indices_dtype(tmp_path) -> None:
    model = _model("nms", "NonMaxSuppression", 11, {"b": _TWO, "s": np.array([[[0.9, 0.8]]], np.float32)},
                   {"m": _i(1)}, {}, 1)
    xml = tmp_path / "m.xml"
    xmo.save_model(xmo.convert_model(model), xml)
    got = ov.Core().compile_model(str(xml), "CPU")([_TWO, np.array([[[0.9, 0.8]]], np.float32)])[0]
    assert got.dtype == np.int64 and got.tolist() == [[0, 0, 0]]
