"""nn families (conv, pooling, matmul, image, rnn, attention): small ONNX
models converted with xmo, run in OpenVINO CPU and compared with onnxruntime."""

from __future__ import annotations

import numpy as np
import pytest
from onnx import TensorProto, helper

import xmo
from onnx_models import assert_matches, compile_in_openvino

ort = pytest.importorskip("onnxruntime")
ov = pytest.importorskip("openvino")

F = TensorProto.FLOAT


def _model(op, inputs, outputs, attrs=None, inits=(), opset=17):
    node = helper.make_node(op, [i[0] for i in inputs], [o[0] for o in outputs], **(attrs or {}))
    graph = helper.make_graph(
        [node],
        "g",
        [helper.make_tensor_value_info(n, t, s) for n, t, s in inputs if n not in {i.name for i in inits}],
        [helper.make_tensor_value_info(n, t, s) for n, t, s in outputs],
        initializer=list(inits),
    )
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])


def _check(model, feeds, tmp_path):
    compiled = compile_in_openvino(model, tmp_path)
    got = compiled(list(feeds.values()))
    sess = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    want = sess.run(None, feeds)
    for i, w in enumerate(want):
        assert_matches(got[compiled.outputs[i]], w, f"output {i}")


rng = np.random.default_rng(0)


def _r(*shape):
    return rng.standard_normal(shape).astype(np.float32)


CASES = {
    "conv_group_bias_same": (
        "Conv", [("x", F, [1, 4, 7, 7]), ("w", F, [6, 2, 3, 3]), ("b", F, [6])], [("y", F, None)],
        {"group": 2, "auto_pad": "SAME_UPPER", "strides": [2, 2]},
    ),
    "conv_1d_dil_pads": (
        "Conv", [("x", F, [2, 3, 10]), ("w", F, [4, 3, 3])], [("y", F, None)],
        {"dilations": [2], "pads": [1, 2]},
    ),
    "conv_3d": ("Conv", [("x", F, [1, 2, 5, 5, 5]), ("w", F, [3, 2, 2, 2, 2])], [("y", F, None)], {}),
    "convtranspose_group_outpad": (
        "ConvTranspose", [("x", F, [1, 4, 5, 5]), ("w", F, [4, 3, 3, 3]), ("b", F, [6])], [("y", F, None)],
        {"group": 2, "strides": [2, 2], "output_padding": [1, 1], "pads": [1, 0, 1, 0]},
    ),
    "convtranspose_output_shape": (
        "ConvTranspose", [("x", F, [1, 1, 3, 3]), ("w", F, [1, 2, 3, 3])], [("y", F, None)],
        {"strides": [3, 2], "output_shape": [10, 8]},
    ),
    "maxpool_indices_ceil": (
        "MaxPool", [("x", F, [1, 2, 7, 7])], [("y", F, None), ("i", TensorProto.INT64, None)],
        {"kernel_shape": [3, 3], "strides": [2, 2], "ceil_mode": 1},
    ),
    "maxpool_storage_order": (
        "MaxPool", [("x", F, [2, 2, 4, 5])], [("y", F, None), ("i", TensorProto.INT64, None)],
        {"kernel_shape": [2, 2], "storage_order": 1},
    ),
    "avgpool_pads_include": (
        "AveragePool", [("x", F, [1, 2, 6, 6])], [("y", F, None)],
        {"kernel_shape": [3, 3], "pads": [1, 1, 1, 1], "count_include_pad": 1},
    ),
    "avgpool_same_lower": (
        "AveragePool", [("x", F, [1, 2, 6, 6])], [("y", F, None)],
        {"kernel_shape": [2, 3], "auto_pad": "SAME_LOWER"},
    ),
    "lppool_p3": ("LpPool", [("x", F, [1, 2, 6, 6])], [("y", F, None)], {"kernel_shape": [2, 2], "p": 3}),
    "global_avg": ("GlobalAveragePool", [("x", F, [2, 3, 4, 5])], [("y", F, None)], {}),
    "global_max": ("GlobalMaxPool", [("x", F, [2, 3, 4, 5])], [("y", F, None)], {}),
    "global_lp": ("GlobalLpPool", [("x", F, [2, 3, 4, 5])], [("y", F, None)], {"p": 2}),
    "gemm_trans_alpha_beta": (
        "Gemm", [("a", F, [4, 3]), ("b", F, [5, 4]), ("c", F, [5])], [("y", F, None)],
        {"transA": 1, "transB": 1, "alpha": 0.5, "beta": 2.0},
    ),
    "matmul_batched": ("MatMul", [("a", F, [2, 3, 4]), ("b", F, [4, 5])], [("y", F, None)], {}),
    "einsum_bmm": (
        "Einsum", [("a", F, [2, 3, 4]), ("b", F, [2, 4, 5])], [("y", F, None)], {"equation": "bij,bjk->bik"},
    ),
    "depth_to_space_crd": (
        "DepthToSpace", [("x", F, [1, 8, 2, 3])], [("y", F, None)], {"blocksize": 2, "mode": "CRD"},
    ),
    "space_to_depth": ("SpaceToDepth", [("x", F, [1, 2, 4, 6])], [("y", F, None)], {"blocksize": 2}),
    "gridsample_bilinear": (
        "GridSample", [("x", F, [1, 2, 4, 4]), ("g", F, [1, 3, 3, 2])], [("y", F, None)],
        {"align_corners": 1},
    ),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_node(name, tmp_path):
    op, ins, outs, attrs = CASES[name]
    model = _model(op, ins, outs, attrs)
    feeds = {n: _r(*s) for n, _, s in ins}
    if op == "GridSample":
        feeds["g"] = np.clip(feeds["g"], -1.2, 1.2)
    _check(model, feeds, tmp_path)


@pytest.mark.parametrize(
    "attrs",
    [
        {"mode": "nearest"},
        {"mode": "linear"},
        {"mode": "linear", "coordinate_transformation_mode": "align_corners"},
        {"mode": "cubic", "coordinate_transformation_mode": "asymmetric"},
        {"mode": "nearest", "nearest_mode": "ceil", "coordinate_transformation_mode": "half_pixel"},
    ],
)
def test_resize_scales(attrs, tmp_path):
    scales = helper.make_tensor("scales", F, [4], [1, 1, 2.0, 1.5])
    node = helper.make_node("Resize", ["x", "", "scales"], ["y"], **attrs)
    graph = helper.make_graph(
        [node], "g", [helper.make_tensor_value_info("x", F, [1, 2, 4, 4])],
        [helper.make_tensor_value_info("y", F, None)], initializer=[scales],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
    _check(model, {"x": _r(1, 2, 4, 4)}, tmp_path)


@pytest.mark.parametrize(
    "op,attrs,gates",
    [
        ("LSTM", {"direction": "bidirectional"}, 4),
        ("LSTM", {"direction": "reverse", "clip": 0.5}, 4),  # (ORT has no layout=1)
        ("GRU", {"linear_before_reset": 1}, 3),
        ("GRU", {"direction": "reverse"}, 3),
        ("RNN", {}, 1),
    ],
)
def test_recurrent(op, attrs, gates, tmp_path):
    hidden, inp, seq, batch = 3, 4, 5, 2
    nd = 2 if attrs.get("direction") == "bidirectional" else 1
    layout = attrs.get("layout", 0)
    xshape = [seq, batch, inp] if layout == 0 else [batch, seq, inp]
    ins = [
        ("x", F, xshape),
        ("w", F, [nd, gates * hidden, inp]),
        ("r", F, [nd, gates * hidden, hidden]),
        ("b", F, [nd, 2 * gates * hidden]),
    ]
    outs = [("y", F, None), ("yh", F, None)]
    model = _model(op, ins, outs, {"hidden_size": hidden, **attrs})
    _check(model, {n: _r(*s) for n, _, s in ins}, tmp_path)


@pytest.mark.parametrize(
    "attrs,mask",
    [
        ({}, None),
        ({"is_causal": 1}, None),
        ({"softcap": 2.0, "qk_matmul_output_mode": 0}, "float"),
        ({}, "bool"),
    ],
)
def test_attention(attrs, mask, tmp_path):
    q = _r(2, 4, 3, 8)
    k = _r(2, 2, 5, 8)  # GQA: 4 query heads, 2 kv heads
    v = _r(2, 2, 5, 6)
    ins = [("q", F, list(q.shape)), ("k", F, list(k.shape)), ("v", F, list(v.shape))]
    feeds = {"q": q, "k": k, "v": v}
    if mask == "float":
        ins.append(("m", F, [3, 5]))
        feeds["m"] = _r(3, 5)
    elif mask == "bool":
        ins.append(("m", TensorProto.BOOL, [3, 5]))
        feeds["m"] = rng.random((3, 5)) > 0.3
    model = _model("Attention", ins, [("y", F, None)], attrs, opset=23)
    # onnxruntime may not implement Attention-23: compare with the ONNX reference
    from onnx.reference import ReferenceEvaluator

    want = ReferenceEvaluator(model).run(None, feeds)[0]
    module = xmo.convert_model(model)
    xmo.save_model(module, tmp_path / "m.xml")
    compiled = ov.Core().compile_model(str(tmp_path / "m.xml"), "CPU", {"INFERENCE_PRECISION_HINT": "f32"})
    got = compiled(list(feeds.values()))[0]
    np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-5)
