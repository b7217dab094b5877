"""onnxruntime's contrib operators (``com.microsoft``), one node each
(onnx.helper), compared with onnxruntime in OpenVINO (f32) and on xmo's CPU
backend; attributes xmo does not handle are refused naming the op and the
attribute."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from ml_models import check_ml
from onnx import TensorProto, helper, numpy_helper

import xmo

pytest.importorskip("onnxruntime")
pytest.importorskip("openvino")

MS = "com.microsoft"
_r = np.random.default_rng(7)


def _x(*shape: int) -> np.ndarray:
    return _r.standard_normal(shape).astype(np.float32)


def _model(op: str, inputs: dict[str, np.ndarray], n_out: int = 1, attrs: dict[str, Any] | None = None,
           weights: dict[str, np.ndarray] | None = None, domain: str = MS, outputs: list[str] | None = None):  # fmt: skip
    """One ``op`` node: ``inputs`` are graph inputs, ``weights`` initializers
    (an empty name skips an optional input), in the order of the node's
    inputs ``[*inputs, *weights]``."""
    weights = weights or {}
    outs = outputs if outputs is not None else [f"y{i}" for i in range(n_out)]
    node = helper.make_node(op, [*inputs, *weights], outs, domain=domain, **(attrs or {}))
    graph = helper.make_graph(
        [node], op,
        [helper.make_tensor_value_info(k, TensorProto.FLOAT, list(v.shape)) for k, v in inputs.items()],
        [helper.make_tensor_value_info(o, TensorProto.FLOAT, None) for o in outs if o],
        [numpy_helper.from_array(v, k) for k, v in weights.items() if k],
    )  # fmt: skip
    m = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17), helper.make_opsetid(MS, 1)])
    m.ir_version = 8
    return m


def _check(model, feeds: dict[str, np.ndarray], tmp_path, atol: float = 1e-5) -> None:
    check_ml(model, feeds, tmp_path, atol=atol)


_X = _x(2, 5, 16)
_B = _x(16)

ACTIVATIONS: list[tuple[str, str, dict, dict, dict]] = [
    ("gelu", "Gelu", {"X": _X}, {}, {}),
    ("fast_gelu", "FastGelu", {"X": _X}, {}, {}),
    ("fast_gelu_bias", "FastGelu", {"X": _X}, {}, {"bias": _B}),
    ("bias_gelu", "BiasGelu", {"X": _X}, {}, {"bias": _B}),
    ("quick_gelu", "QuickGelu", {"X": _X}, {}, {}),
    ("quick_gelu_alpha", "QuickGelu", {"X": _X}, {"alpha": 1.3}, {}),
]


@pytest.mark.parametrize("case", ACTIVATIONS, ids=[c[0] for c in ACTIVATIONS])
def test_activation(case, tmp_path) -> None:
    _, op, inputs, attrs, weights = case
    _check(_model(op, inputs, 1, attrs, weights), inputs, tmp_path)


def test_bias_add(tmp_path) -> None:
    """onnxruntime has no CPU kernel for BiasAdd: numpy is the reference."""
    import openvino as ov

    skip = _x(2, 5, 16)
    model = _model("BiasAdd", {"X": _X}, 1, {}, {"bias": _B, "skip": skip})
    want = _X + _B + skip
    converted = xmo.convert_model(model)
    xmo.save_model(converted, tmp_path / "m.xml")
    core = ov.Core()
    compiled = core.compile_model(core.read_model(str(tmp_path / "m.xml")), "CPU", {"INFERENCE_PRECISION_HINT": "f32"})
    np.testing.assert_allclose(compiled([_X])[0], want, rtol=1e-6, atol=1e-6)
    np.testing.assert_allclose(np.asarray(xmo.compile_model(converted)({"X": _X})[0]), want, rtol=1e-6, atol=1e-6)


def _refused(model, match: str) -> None:
    with pytest.raises(xmo.ConversionError, match=match):
        xmo.convert_model(model)


def test_unknown_attribute_refused() -> None:
    """An attribute the converter does not know is one error naming op and attribute."""
    _refused(_model("QuickGelu", {"X": _X}, 1, {"beta": 2.0}), r"com.microsoft:QuickGelu[\s\S]*'beta'")


_H = 16
_G, _BETA, _BIAS = _x(_H) + 1.0, _x(_H), _x(_H)

NORMS: list[tuple[str, str, dict, dict, dict, list[str]]] = [
    ("skip_ln", "SkipLayerNormalization", {"X": _X, "S": _x(2, 5, _H)}, {}, {"g": _G}, ["y"]),
    ("skip_ln_beta_bias", "SkipLayerNormalization", {"X": _X, "S": _x(2, 5, _H)}, {"epsilon": 1e-5},
     {"g": _G, "b": _BETA, "bias": _BIAS}, ["y"]),
    ("skip_ln_bias_no_beta", "SkipLayerNormalization", {"X": _X, "S": _x(2, 5, _H)}, {},
     {"g": _G, "": _BETA, "bias": _BIAS}, ["y"]),
    ("skip_ln_outputs", "SkipLayerNormalization", {"X": _X, "S": _x(2, 5, _H)}, {},
     {"g": _G, "b": _BETA, "bias": _BIAS}, ["y", "mean", "inv_std", "sum"]),
    ("skip_ln_sum_only", "SkipLayerNormalization", {"X": _X, "S": _x(2, 5, _H)}, {},
     {"g": _G, "b": _BETA}, ["y", "", "", "sum"]),
    ("skip_ln_broadcast_skip", "SkipLayerNormalization", {"X": _X, "S": _x(5, _H)}, {}, {"g": _G, "b": _BETA}, ["y"]),
    ("skip_rms", "SkipSimplifiedLayerNormalization", {"X": _X, "S": _x(2, 5, _H)}, {}, {"g": _G}, ["y"]),
    ("skip_rms_bias_outputs", "SkipSimplifiedLayerNormalization", {"X": _X, "S": _x(2, 5, _H)}, {"epsilon": 1e-6},
     {"g": _G, "bias": _BIAS}, ["y", "mean", "inv_std", "sum"]),
]


@pytest.mark.parametrize("case", NORMS, ids=[c[0] for c in NORMS])
def test_skip_norm(case, tmp_path) -> None:
    _, op, inputs, attrs, weights, outs = case
    _check(_model(op, inputs, attrs=attrs, weights=weights, outputs=outs), inputs, tmp_path)


@pytest.mark.parametrize("axis", [-1, 1])
def test_simplified_layer_norm(axis, tmp_path) -> None:
    """onnxruntime's SimplifiedLayerNormalization lives in the default domain."""
    scale = _x(_H) if axis == -1 else _x(5, _H)
    model = _model("SimplifiedLayerNormalization", {"X": _X}, attrs={"axis": axis, "epsilon": 1e-6},
                   weights={"scale": scale}, domain="", outputs=["y", "inv_std"])  # fmt: skip
    _check(model, {"X": _X}, tmp_path)


def test_simplified_layer_norm_stash_type_refused() -> None:
    model = _model("SimplifiedLayerNormalization", {"X": _X}, attrs={"stash_type": 0}, weights={"scale": _G}, domain="")
    _refused(model, r"SimplifiedLayerNormalization[\s\S]*'stash_type'")


MATMULS: list[tuple[str, tuple, tuple, dict]] = [
    ("plain", (3, 4), (4, 5), {}),
    ("alpha_trans_b", (2, 3, 4), (2, 5, 4), {"alpha": 0.5, "transB": 1}),
    ("trans_a", (2, 4, 3), (4, 5), {"transA": 1}),
    ("trans_batch_a", (3, 2, 6, 4), (2, 6, 4, 5), {"transBatchA": 1}),
    ("trans_batch_b", (2, 6, 3, 4), (4, 2, 6, 5), {"transBatchB": 1}),
    ("trans_batch_a_trans_a", (4, 2, 6, 3), (2, 6, 4, 5), {"transBatchA": 1, "transA": 1, "alpha": 2.0}),
    ("trans_batch_b_trans_b", (2, 3, 4), (5, 2, 4), {"transBatchB": 1, "transB": 1}),
]


@pytest.mark.parametrize("case", MATMULS, ids=[c[0] for c in MATMULS])
def test_fused_matmul(case, tmp_path) -> None:
    _, sa, sb, attrs = case
    feeds = {"A": _x(*sa), "B": _x(*sb)}
    _check(_model("FusedMatMul", feeds, attrs=attrs), feeds, tmp_path, atol=1e-4)


CONVS: list[tuple[str, dict, bool, bool]] = [
    ("relu_bias", {"activation": "Relu"}, True, False),
    ("tanh_z", {"activation": "Tanh"}, True, True),
    ("sigmoid", {"activation": "Sigmoid", "pads": [1, 1, 1, 1]}, False, False),
    ("leaky_relu", {"activation": "LeakyRelu", "activation_params": [0.2]}, True, False),
    ("clip_strided", {"activation": "Clip", "activation_params": [-0.5, 0.7], "strides": [2, 2]}, True, False),
    ("hard_sigmoid_z", {"activation": "HardSigmoid", "activation_params": [0.3, 0.4]}, True, True),
    ("no_activation_group", {"group": 2}, True, False),
]


@pytest.mark.parametrize("case", CONVS, ids=[c[0] for c in CONVS])
def test_fused_conv(case, tmp_path) -> None:
    _, attrs, bias, z = case
    x = _x(1, 4, 7, 7)
    w = _x(6, 4 // attrs.get("group", 1), 3, 3)
    weights = {"W": w, **({"B": _x(6)} if bias else {"": np.zeros(0, np.float32)})}
    conv_out = (7 + sum(attrs.get("pads", [0, 0, 0, 0])[:2]) - 3) // attrs.get("strides", [1, 1])[0] + 1
    feeds = {"X": x}
    model = _model("FusedConv", feeds, attrs={"kernel_shape": [3, 3], **attrs}, weights=weights)
    if z:
        zv = _x(1, 6, conv_out, conv_out)
        model = _model("FusedConv", feeds, attrs={"kernel_shape": [3, 3], **attrs}, weights={**weights, "Z": zv})
    _check(model, feeds, tmp_path, atol=1e-4)


def test_fused_conv_unknown_activation_refused() -> None:
    model = _model("FusedConv", {"X": _x(1, 4, 7, 7)}, attrs={"activation": "Elu"}, weights={"W": _x(6, 4, 3, 3)})
    _refused(model, r"com.microsoft:FusedConv[\s\S]*'activation' = Elu")


def _embed_model(segment: bool, mask: bool, position_ids: bool, outputs: list[str]):
    i32 = TensorProto.INT32
    v, p, h = 30, 12, _H
    inputs = ["ids", "seg" if segment else "", "word", "pos", "segw" if segment else "", "gamma", "beta",
              "mask" if mask else "", "pids" if position_ids else ""]  # fmt: skip
    while not inputs[-1]:
        inputs.pop()
    node = helper.make_node("EmbedLayerNormalization", inputs, outputs, domain=MS, epsilon=1e-5)
    inits = {"word": _x(v, h), "pos": _x(p, h), "gamma": _G, "beta": _BETA, **({"segw": _x(2, h)} if segment else {})}
    graph_inputs = [helper.make_tensor_value_info(n, i32, [2, 7]) for n in ("ids", "seg", "mask", "pids")
                    if n in inputs]  # fmt: skip
    graph = helper.make_graph(
        [node], "embed", graph_inputs,
        [helper.make_tensor_value_info(o, i32 if o == "mask_index" else TensorProto.FLOAT, None) for o in outputs if o],
        [numpy_helper.from_array(a, k) for k, a in inits.items()],
    )  # fmt: skip
    m = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17), helper.make_opsetid(MS, 1)])
    m.ir_version = 8
    feeds = {"ids": _r.integers(0, v, (2, 7)).astype(np.int32)}
    if segment:
        feeds["seg"] = _r.integers(0, 2, (2, 7)).astype(np.int32)
    if mask:
        feeds["mask"] = np.array([[1] * 7, [1] * 4 + [0] * 3], np.int32)
    if position_ids:
        feeds["pids"] = _r.integers(0, p, (2, 7)).astype(np.int32)
    return m, feeds


EMBEDS = [
    ("plain", False, False, False, ["y", "mask_index"]),  # onnxruntime wants output 1 named
    ("segment_mask", True, True, False, ["y", "mask_index"]),
    ("all_outputs", True, True, True, ["y", "mask_index", "sum"]),
    ("position_ids_sum", False, False, True, ["y", "mask_index", "sum"]),
]


@pytest.mark.parametrize("case", EMBEDS, ids=[c[0] for c in EMBEDS])
def test_embed_layer_norm(case, tmp_path) -> None:
    _, segment, mask, pids, outs = case
    model, feeds = _embed_model(segment, mask, pids, outs)
    _check(model, feeds, tmp_path)


ATTENTIONS: list[tuple[str, dict, bool, list[int] | None]] = [
    ("plain", {}, False, None),
    ("mask", {}, True, None),
    ("unidirectional_scale", {"unidirectional": 1, "scale": 0.3}, False, None),
    ("mask_unidirectional_v_size", {"unidirectional": 1, "mask_filter_value": -1000.0}, True, [16, 16, 24]),
]


@pytest.mark.parametrize("case", ATTENTIONS, ids=[c[0] for c in ATTENTIONS])
def test_attention(case, tmp_path) -> None:
    _, attrs, mask, sizes = case
    x = _x(2, 6, _H)
    hidden = sizes or [_H] * 3
    w, bias = _x(_H, sum(hidden)) * 0.5, _x(sum(hidden))
    attrs = {"num_heads": 4, **attrs, **({"qkv_hidden_sizes": sizes} if sizes else {})}
    feeds: dict[str, np.ndarray] = {"X": x}
    if mask:
        feeds["M"] = np.array([[1] * 6, [1] * 4 + [0] * 2], np.int32)
    model = _model("Attention", {"X": x}, attrs=attrs, weights={"W": w, "b": bias})
    if mask:  # the mask is input 3, after the weights
        node = model.graph.node[0]
        node.input.append("M")
        model.graph.input.append(helper.make_tensor_value_info("M", TensorProto.INT32, [2, 6]))
    _check(model, feeds, tmp_path, atol=1e-4)


def _attention_model(attrs: dict, mask: np.ndarray | None, past: bool, bias: bool):
    """Attention of X [2, 6, H] with a mask (input 3), past [2, 2, 4, 3, 4]
    (input 4, output present) and attention_bias (input 5) as graph inputs."""
    x = _x(2, 6, _H)
    feeds: dict[str, np.ndarray] = {"X": x}
    names = ["X", "W", "b", "", "", ""]
    if mask is not None:
        feeds["M"], names[3] = mask, "M"
    if past:
        feeds["P"], names[4] = _x(2, 2, 4, 3, 4), "P"
    if bias:
        feeds["AB"], names[5] = _x(2, 4, 6, 9 if past else 6), "AB"
    while not names[-1]:
        names.pop()
    node = helper.make_node("Attention", names, ["y", "present"] if past else ["y"], domain=MS,
                            num_heads=4, **attrs)  # fmt: skip
    graph = helper.make_graph(
        [node], "attention",
        [helper.make_tensor_value_info(k, TensorProto.INT32 if k == "M" else TensorProto.FLOAT, list(v.shape))
         for k, v in feeds.items()],
        [helper.make_tensor_value_info(o, TensorProto.FLOAT, None) for o in node.output],
        [numpy_helper.from_array(_x(_H, 3 * _H) * 0.5, "W"), numpy_helper.from_array(_x(3 * _H), "b")],
    )  # fmt: skip
    m = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17), helper.make_opsetid(MS, 1)])
    m.ir_version = 8
    return m, feeds


_I32 = np.int32
ATTENTION_OPTIONS: list[tuple[str, dict, np.ndarray | None, bool, bool]] = [
    ("mask_end_positions", {}, np.array([6, 4], _I32), False, False),
    ("mask_end_start_positions", {}, np.array([6, 5, 0, 2], _I32), False, False),
    ("mask_3d", {}, _r.integers(0, 2, (2, 6, 6)).astype(_I32), False, False),
    ("past_present_unidirectional", {"unidirectional": 1}, None, True, False),
    ("past_mask_2d", {}, np.array([[1] * 9, [1] * 7 + [0] * 2], _I32), True, False),
    ("attention_bias", {}, None, False, True),
    ("past_lengths_unidirectional", {"unidirectional": 1}, np.array([9, 8], _I32), True, False),
]


@pytest.mark.parametrize("case", ATTENTION_OPTIONS, ids=[c[0] for c in ATTENTION_OPTIONS])
def test_attention_options(case, tmp_path) -> None:
    """The mask_index forms onnxruntime's optimizer and exporters emit, past /
    present state (GPT-2 style), attention_bias."""
    _, attrs, mask, past, bias = case
    model, feeds = _attention_model(attrs, mask, past, bias)
    _check(model, feeds, tmp_path, atol=1e-4)


def test_attention_past_sequence_length_refused() -> None:
    """past_sequence_length (input 6, onnxruntime's GPU buffer sharing) is refused, naming it."""
    weights = {"W": _x(_H, 3 * _H), "b": _x(3 * _H), "": np.zeros(0, np.float32), "psl": np.array(3, np.int32)}
    model = _model("Attention", {"X": _x(2, 6, _H)}, attrs={"num_heads": 4}, weights=weights)
    node = model.graph.node[0]
    node.input[:] = ["X", "W", "b", "", "", "", "psl"]
    _refused(model, r"com.microsoft:Attention[\s\S]*input 6 \(past_sequence_length\)")


def _mha_model(key_shape: list[int], bias: bool, mask: np.ndarray | None, past: bool, attrs: dict):
    """MultiHeadAttention of query [2, 5, 16] (4 heads) and key / value of
    ``key_shape``; outputs present_key / present_value with past."""
    feeds = {"q": _x(2, 5, _H), "k": _x(*key_shape), "v": _x(*key_shape)}
    names = ["q", "k", "v", "", "", "", "", ""]
    inits = {}
    if bias:
        inits["bias"], names[3] = _x(3 * _H), "bias"
    if mask is not None:
        feeds["m"], names[4] = mask, "m"
    if past:
        feeds["pk"], feeds["pv"] = _x(2, 4, 3, 4), _x(2, 4, 3, 4)
        names[6], names[7] = "pk", "pv"
    while not names[-1]:
        names.pop()
    outs = ["y", "present_k", "present_v"] if past else ["y"]
    node = helper.make_node("MultiHeadAttention", names, outs, domain=MS, num_heads=4, **attrs)
    graph = helper.make_graph(
        [node], "mha",
        [helper.make_tensor_value_info(k, TensorProto.INT32 if k == "m" else TensorProto.FLOAT, list(v.shape))
         for k, v in feeds.items()],
        [helper.make_tensor_value_info(o, TensorProto.FLOAT, None) for o in outs],
        [numpy_helper.from_array(v, k) for k, v in inits.items()],
    )  # fmt: skip
    m = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17), helper.make_opsetid(MS, 1)])
    m.ir_version = 8
    return m, feeds


MHAS: list[tuple[str, list[int], bool, np.ndarray | None, bool, dict]] = [
    ("self", [2, 5, _H], False, None, False, {}),
    ("cross_bias_mask", [2, 7, _H], True, np.array([[1] * 7, [1] * 3 + [0] * 4], _I32), False, {"scale": 0.4}),
    ("lengths_mask", [2, 7, _H], False, np.array([7, 2], _I32), False, {}),
    ("bnsh_key", [2, 4, 7, 4], False, None, False, {}),
    ("past_unidirectional", [2, 5, _H], True, None, True, {"unidirectional": 1}),
]


@pytest.mark.parametrize("case", MHAS, ids=[c[0] for c in MHAS])
def test_multi_head_attention(case, tmp_path) -> None:
    _, key_shape, bias, mask, past, attrs = case
    model, feeds = _mha_model(key_shape, bias, mask, past, attrs)
    _check(model, feeds, tmp_path, atol=1e-4)


def _rotary_model(shape: list[int], pos: np.ndarray, attrs: dict, rot: int = 8):
    cos_sin = np.arange(32)[:, None] * (1.0 / 10000 ** (np.arange(rot // 2) / (rot // 2)))[None]
    inits = {"cos": np.cos(cos_sin).astype(np.float32), "sin": np.sin(cos_sin).astype(np.float32)}
    feeds = {"x": _x(*shape), "pos": pos}
    node = helper.make_node("RotaryEmbedding", ["x", "pos", "cos", "sin"], ["y"], domain=MS, **attrs)
    graph = helper.make_graph(
        [node], "rotary",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, shape),
         helper.make_tensor_value_info("pos", TensorProto.INT64, list(pos.shape))],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)],
        [numpy_helper.from_array(v, k) for k, v in inits.items()],
    )  # fmt: skip
    m = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17), helper.make_opsetid(MS, 1)])
    m.ir_version = 8
    return m, feeds


ROTARIES: list[tuple[str, list[int], np.ndarray, dict, int]] = [
    ("bsd_position_ids", [2, 5, _H], _r.integers(0, 32, (2, 5)), {"num_heads": 2}, 8),
    ("bsd_offset_no_num_heads", [2, 5, _H], np.array([3]), {}, 8),
    ("bnsh_interleaved", [2, 2, 5, 8], _r.integers(0, 32, (2, 5)), {"interleaved": 1}, 8),
    ("partial_rotary", [2, 5, _H], np.array([0]), {"num_heads": 2, "rotary_embedding_dim": 4}, 4),
]


@pytest.mark.parametrize("case", ROTARIES, ids=[c[0] for c in ROTARIES])
def test_rotary_embedding(case, tmp_path) -> None:
    _, shape, pos, attrs, rot = case
    model, feeds = _rotary_model(shape, pos.astype(np.int64), attrs, rot)
    _check(model, feeds, tmp_path)


# -- the ONNX ops com.microsoft repeats, FusedGemm, GroupNorm ---------------------------------------

_I = np.array([[0, 1], [1, 3], [0, 4]], np.int64)

ALIASES: list[tuple[str, str, dict, dict, dict]] = [
    ("gather_nd", "GatherND", {"X": _X}, {}, {"i": _I}),
    ("pad_constant", "Pad", {"X": _X}, {}, {"p": np.array([0, 1, 2, 1, 0, 3], np.int64), "v": np.float32(0.5)}),
    ("pad_reflect_2d_pads", "Pad", {"X": _X}, {"mode": "reflect"}, {"p": np.array([[0, 1, 2, 0, 2, 1]], np.int64)}),
    ("trilu_lower", "Trilu", {"X": _X}, {"upper": 0}, {"k": np.array(1, np.int64)}),
    ("trilu_upper", "Trilu", {"X": _X}, {}, {}),
]


@pytest.mark.parametrize("case", ALIASES, ids=[c[0] for c in ALIASES])
def test_onnx_aliases(case, tmp_path) -> None:
    _, op, inputs, attrs, weights = case
    _check(_model(op, inputs, 1, attrs, weights), inputs, tmp_path)


@pytest.mark.parametrize("delta", [None, np.float32(0.75)])
def test_range(delta, tmp_path) -> None:
    """com.microsoft's Range: delta optional (1)."""
    feeds = {"start": np.array(-1.5, np.float32), "limit": np.array(4.0, np.float32)}
    _check(_model("Range", feeds, 1, {}, {} if delta is None else {"delta": delta}), feeds, tmp_path)


GEMMS: list[tuple[str, dict, bool]] = [
    ("relu", {"activation": "Relu"}, False),
    ("relu_bias_alpha_beta", {"activation": "Relu", "alpha": 0.5, "beta": 2.0}, True),
    ("leaky_relu_trans_b", {"activation": "LeakyRelu", "activation_alpha": 0.2, "transB": 1}, True),
    ("hard_sigmoid", {"activation": "HardSigmoid", "activation_alpha": 0.3, "activation_beta": 0.4}, True),
    ("tanh_trans_a", {"activation": "Tanh", "transA": 1}, False),
    ("sigmoid", {"activation": "Sigmoid"}, True),
]


@pytest.mark.parametrize("case", GEMMS, ids=[c[0] for c in GEMMS])
def test_fused_gemm(case, tmp_path) -> None:
    _, attrs, bias = case
    a = _x(6, 3) if attrs.get("transA") else _x(3, 6)
    w = {"B": _x(4, 6) if attrs.get("transB") else _x(6, 4)}
    if bias:
        w["C"] = _x(4)
    _check(_model("FusedGemm", {"A": a}, 1, attrs, w), {"A": a}, tmp_path)


def test_fused_gemm_unknown_activation_refused() -> None:
    model = _model("FusedGemm", {"A": _x(3, 6)}, 1, {"activation": "Elu"}, {"B": _x(6, 4)})
    _refused(model, r"com.microsoft:FusedGemm[\s\S]*'activation' = Elu")


def _group_norm_ref(x: np.ndarray, g: np.ndarray, bt: np.ndarray, groups: int, last: bool, swish: bool):
    if last:
        x = np.moveaxis(x, -1, 1)
    n, c = x.shape[:2]
    xr = x.reshape(n, groups, -1).astype(np.float64)
    y = (xr - xr.mean(-1, keepdims=True)) / np.sqrt(xr.var(-1, keepdims=True) + 1e-5)
    y = y.reshape(x.shape) * g.reshape(c, 1, 1) + bt.reshape(c, 1, 1)
    if swish:
        y = y / (1 + np.exp(-y))
    return (np.moveaxis(y, 1, -1) if last else y).astype(np.float32)


@pytest.mark.parametrize("last,swish", [(True, False), (True, True), (False, True)])
def test_group_norm(last, swish, tmp_path) -> None:
    """onnxruntime has GroupNorm only for CUDA / ROCm: numpy is the reference."""
    import openvino as ov

    x = _x(2, 3, 4, 8) if last else _x(2, 8, 3, 4)
    g, bt = _x(8) + 1.0, _x(8)
    model = _model("GroupNorm", {"X": x}, 1, {"groups": 4, "activation": int(swish), "channels_last": int(last),
                                              "epsilon": 1e-5}, {"g": g, "b": bt})  # fmt: skip
    want = _group_norm_ref(x, g, bt, 4, last, swish)
    converted = xmo.convert_model(model)
    xmo.save_model(converted, tmp_path / "m.xml")
    core = ov.Core()
    compiled = core.compile_model(core.read_model(str(tmp_path / "m.xml")), "CPU", {"INFERENCE_PRECISION_HINT": "f32"})
    np.testing.assert_allclose(compiled([x])[0], want, rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(np.asarray(xmo.compile_model(converted)({"X": x})[0]), want, rtol=1e-4, atol=1e-5)


def test_unconverted_op_reason() -> None:
    """A com.microsoft op xmo has no converter for: the one report says so."""
    model = _model("BifurcationDetector", {"X": _X}, 1)
    with pytest.raises(xmo.ConversionError) as e:
        xmo.convert_model(model)
    assert "com.microsoft:BifurcationDetector" in str(e.value)
    assert "xmo has no converter for onnxruntime's contrib op com.microsoft:BifurcationDetector" in str(e.value)


def _gqa_model(s: int, past: int, packed: bool, rotary: bool, attrs: dict | None = None, batch: int = 2):
    """GroupQueryAttention of 4 query heads over 2 kv heads of size 16
    (onnxruntime's packed QKV needs a multiple of 16), batch 2, ``s`` new
    tokens after ``past`` cached ones (the same in every row; onnxruntime
    takes a chunk of several tokens after a past only for batch 1)."""
    n, kvn, hs = 4, 2, 16
    feeds = {"q": _x(batch, s, (n + 2 * kvn) * hs)} if packed else {
        "q": _x(batch, s, n * hs), "k": _x(batch, s, kvn * hs), "v": _x(batch, s, kvn * hs)}  # fmt: skip
    if past:
        feeds |= {"pk": _x(batch, kvn, past, hs), "pv": _x(batch, kvn, past, hs)}
    total = past + s
    inits = {"seqlens_k": np.full(batch, total - 1, np.int32), "total": np.array(total, np.int32)}
    names = ["q", "", ""] if packed else ["q", "k", "v"]
    names += [*(["pk", "pv"] if past else ["", ""]), "seqlens_k", "total"]
    if rotary:
        angles = np.arange(16)[:, None] * (1.0 / 10000 ** (np.arange(hs // 2) / (hs // 2)))[None]
        inits |= {"cos": np.cos(angles).astype(np.float32), "sin": np.sin(angles).astype(np.float32)}
        names += ["cos", "sin"]
    node = helper.make_node("GroupQueryAttention", names, ["y", "present_k", "present_v"], domain=MS,
                            num_heads=n, kv_num_heads=kvn, do_rotary=int(rotary), **(attrs or {}))  # fmt: skip
    graph = helper.make_graph(
        [node], "gqa", [helper.make_tensor_value_info(k, TensorProto.FLOAT, list(v.shape)) for k, v in feeds.items()],
        [helper.make_tensor_value_info(o, TensorProto.FLOAT, None) for o in ("y", "present_k", "present_v")],
        [numpy_helper.from_array(v, k) for k, v in inits.items()],
    )  # fmt: skip
    m = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17), helper.make_opsetid(MS, 1)])
    m.ir_version = 8
    return m, feeds


GQA: list[tuple[str, int, int, bool, bool, dict, int]] = [
    ("prompt", 5, 0, False, False, {}, 2),
    ("prompt_packed_scale", 5, 0, True, False, {"scale": 0.2}, 2),
    ("prompt_not_causal", 5, 0, False, False, {"causal": 0}, 2),
    ("token_past_rotary", 1, 3, False, True, {}, 2),
    ("chunk_past", 2, 3, False, False, {}, 1),
    ("prompt_packed_rotary_interleaved", 4, 0, True, True, {"rotary_interleaved": 1}, 2),
]


@pytest.mark.parametrize("case", GQA, ids=[c[0] for c in GQA])
def test_group_query_attention(case, tmp_path) -> None:
    _, s, past, packed, rotary, attrs, batch = case
    model, feeds = _gqa_model(s, past, packed, rotary, attrs, batch)
    _check(model, feeds, tmp_path, atol=1e-5)


def test_group_query_attention_local_window_refused() -> None:
    model, _ = _gqa_model(5, 0, False, False, {"local_window_size": 2})
    _refused(model, r"com.microsoft:GroupQueryAttention[\s\S]*'local_window_size'")
