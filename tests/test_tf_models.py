"""Frozen graphs made by TensorFlow itself (tests/data/tf, see manifest.json):
each converts with xmo (load_tf + convert-tf-to-ov + constant folding, no
transpose sinking) and matches the stored TensorFlow outputs, run in OpenVINO
and on xmo's CPU backend."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from tf_graphs import run_in_openvino, run_on_cpu_backend, xmo_module

DATA = Path(__file__).parent / "data" / "tf"
MANIFEST = DATA / "manifest.json"

if not MANIFEST.exists():
    pytest.skip("no TensorFlow fixtures in tests/data/tf", allow_module_level=True)

MODELS = json.loads(MANIFEST.read_text())["models"]
RTOL, ATOL = 1e-3, 1e-4


def _fixture(name: str):
    m = MODELS[name]
    inputs = dict(np.load(DATA / m["inputs_file"]))
    outputs = dict(np.load(DATA / m["outputs_file"]))
    return DATA / m["file"], m, inputs, outputs


def _compare(got, m, want, what: str) -> None:
    assert len(got) == len(m["outputs"]), f"{what}: {len(got)} outputs"
    for (names, value), spec in zip(got, m["outputs"]):
        tname = spec["name"]
        assert tname in names or tname.removesuffix(":0") in names, f"{what}: {tname} not in {names}"
        ref = want[tname]
        assert value.shape == ref.shape, f"{what} {tname}: shape {value.shape} != {ref.shape}"
        if ref.dtype.kind in "biu":
            np.testing.assert_array_equal(value.astype(ref.dtype), ref, err_msg=f"{what} {tname}")
        else:
            np.testing.assert_allclose(value, ref, rtol=RTOL, atol=ATOL, err_msg=f"{what} {tname}")


@pytest.fixture(scope="module")
def converted():
    cache: dict[str, object] = {}

    def get(name: str):
        if name not in cache:
            path, m, _, _ = _fixture(name)
            cache[name] = xmo_module(path, [o["name"] for o in m["outputs"]])
        return cache[name]

    return get


@pytest.mark.parametrize("name", sorted(MODELS))
def test_model_in_openvino(name, converted, tmp_path):
    _, m, inputs, outputs = _fixture(name)
    module = converted(name)
    _compare(run_in_openvino(module, inputs, tmp_path), m, outputs, f"{name} in OpenVINO")


@pytest.mark.parametrize("name", sorted(MODELS))
def test_model_on_cpu_backend(name, converted):
    _, m, inputs, outputs = _fixture(name)
    module = converted(name)
    _compare(run_on_cpu_backend(module, inputs), m, outputs, f"{name} on the CPU backend")


@pytest.mark.parametrize("name", sorted(MODELS))
def test_model_io(name, converted):
    """Parameters and Results carry TF's tensor names; nothing of tf is left."""
    _, m, _, _ = _fixture(name)
    module = converted(name)
    ops = list(module.body.block.ops)
    assert not [o for o in ops if not o.name.startswith("ov.")]
    params = [o for o in ops if o.name == "ov.Parameter"]
    assert [p.get_friendly_name() for p in params] == [i["name"] for i in m["inputs"]]
    for p in params:
        assert p.get_tensor_names(0)[:2] == [p.get_friendly_name(), p.get_friendly_name() + ":0"]
