"""The real-architecture suite (tests/data/real, made by tools/make_real_models.py).

Small random-weight models of public architectures exported by their
frameworks (PyTorch -> ONNX both ways, Keras -> frozen GraphDef). Each
converts with ``xmo.convert_model`` and matches the framework's outputs
(rtol 1e-3, atol 1e-4) in OpenVINO (f32) and on xmo's CPU backend; the
fusions meant for these models fire on them (``test_fused``).
``benchmarks/bench_graph_quality.py`` compares them with OpenVINO's own
conversion.
"""

from __future__ import annotations

import collections
import json
from pathlib import Path

import numpy as np
import pytest
from tf_graphs import run_in_openvino, run_on_cpu_backend

DATA = Path(__file__).parent / "data" / "real"
MODELS = json.loads((DATA / "manifest.json").read_text())["models"]
RTOL, ATOL = 1e-3, 1e-4


@pytest.fixture(scope="module")
def converted():
    import xmo

    cache: dict[str, object] = {}

    def get(name: str):
        if name not in cache:
            cache[name] = xmo.convert_model(DATA / MODELS[name]["file"])
        return cache[name]

    return get


def _compare(got, name: str, what: str) -> None:
    m = MODELS[name]
    want = dict(np.load(DATA / m["outputs_file"]))
    assert len(got) == len(m["outputs"]), f"{what}: {len(got)} outputs"
    for (names, value), spec in zip(got, m["outputs"]):
        t = spec["name"]
        assert t in names or t.removesuffix(":0") in names, f"{what}: {t} not in {names}"
        np.testing.assert_allclose(value, want[t], rtol=RTOL, atol=ATOL, err_msg=f"{what} {t}")


def _feeds(name: str) -> dict[str, np.ndarray]:
    return dict(np.load(DATA / MODELS[name]["inputs_file"]))


@pytest.mark.parametrize("name", list(MODELS))
def test_in_openvino(name, converted, tmp_path):
    _compare(run_in_openvino(converted(name), _feeds(name), tmp_path), name, f"{name} in OpenVINO")


@pytest.mark.parametrize("name", list(MODELS))
def test_on_cpu_backend(name, converted):
    _compare(run_on_cpu_backend(converted(name), _feeds(name)), name, f"{name} on the CPU backend")


def _types(module) -> collections.Counter[str]:
    return collections.Counter(op.name.removeprefix("ov.") for op in module.body.block.ops)


#: what the fusions make of each transformer: (MVN, Gelu) and no decomposed
#: normalization (Sqrt, Negative, SquaredDifference) left
FUSED = {
    "gpt2_ts": (5, 2), "gpt2_dynamo": (5, 2), "bert_ts": (5, 2), "bert_dynamo": (5, 2), "vit": (5, 2),
    "whisper_encoder": (5, 4), "convnext": (10, 6), "keras_transformer": (4, 2),
}


@pytest.mark.parametrize("name", list(FUSED))
def test_fused(name, converted):
    types = _types(converted(name))
    assert (types["MVN"], types["Gelu"]) == FUSED[name], dict(types)
    assert not types["Sqrt"] and not types["Negative"] and not types["SquaredDifference"], dict(types)
    assert types["ReduceMean"] <= 1, dict(types)  # ConvNeXt's and Keras' global average pooling


#: ScaledDotProductAttention ops the attention fusion makes (no Softmax left on
#: them); the others keep MatMul/Softmax: transformers' eager attention guards
#: the weights with Select(IsNaN) (GPT-2, BERT) and Keras MultiHeadAttention
#: computes the scores with Einsum
SDPA = {"vit": 2, "whisper_encoder": 2, "gpt2_ts": 0, "gpt2_dynamo": 0, "bert_ts": 0, "bert_dynamo": 0,
        "keras_transformer": 0}


@pytest.mark.parametrize("name", list(SDPA))
def test_attention_fused(name, converted):
    types = _types(converted(name))
    assert types["ScaledDotProductAttention"] == SDPA[name], dict(types)
    if SDPA[name]:
        assert not types["Softmax"], dict(types)


#: non-Constant layers of each IR at most (xmo's counts when the shape
#: sub-graph rewrites landed; ovc's in the comments): fails when a change
#: makes the IRs grow back
NON_CONSTANT_AT_MOST = {
    "gpt2_ts": 130,  # ovc 144
    "gpt2_dynamo": 132,  # ovc 136
    "bert_ts": 131,  # ovc 138
    "bert_dynamo": 129,  # ovc 134
    "vit": 76,  # ovc 80
    "whisper_encoder": 71,  # ovc 75
    "convnext": 115,  # ovc 115
    "efficientnet_b0": 174,  # ovc 174
    "mobilenetv3_small": 179,  # ovc 179
    "regnet_y": 123,  # ovc 123
    "keras_transformer": 101,  # ovc 109
    "keras_efficientnetb0": 187,  # ovc 187
    "keras_mobilenetv3small": 179,  # ovc 179
    "keras_resnet50v2": 133,  # ovc 133
}


@pytest.mark.parametrize("name", list(NON_CONSTANT_AT_MOST))
def test_non_constant_layers_at_most(name, converted):
    types = _types(converted(name))
    n = sum(types.values()) - types["Constant"]
    assert n <= NON_CONSTANT_AT_MOST[name], f"{name}: {n} non-Constant layers ({dict(types)})"


#: Transposes left after the TF layout change (OpenVINO's TF frontend
#: leaves 1 in each): the one after the NHWC input
KERAS_TRANSPOSES = {"keras_efficientnetb0": 1, "keras_mobilenetv3small": 1, "keras_resnet50v2": 1}


@pytest.mark.parametrize("name", list(KERAS_TRANSPOSES))
def test_keras_layout_transposes(name, converted):
    assert _types(converted(name))["Transpose"] == KERAS_TRANSPOSES[name]
