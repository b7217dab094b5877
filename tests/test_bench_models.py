"""The full-size benchmark models' cache folder and manifest (tools/bench_models.py);
no framework needed: the manifest here is written by hand."""

import json
from pathlib import Path

import numpy as np
import pytest

from xmo.tools import bench_models

ROOT = Path(__file__).resolve().parents[1]


def test_models_dir_default_is_the_user_cache_outside_the_checkout(monkeypatch, tmp_path):
    monkeypatch.delenv(bench_models.ENV, raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    assert bench_models.models_dir() == tmp_path / "xmo" / "bench_models"
    monkeypatch.delenv("XDG_CACHE_HOME")
    default = bench_models.models_dir()
    assert default == Path.home() / ".cache" / "xmo" / "bench_models"
    assert ROOT not in default.parents


def test_models_dir_from_environment(monkeypatch, tmp_path):
    monkeypatch.setenv(bench_models.ENV, str(tmp_path))
    assert bench_models.models_dir() == tmp_path


def test_missing_manifest_says_how_to_generate(tmp_path):
    with pytest.raises(SystemExit, match="make_real_models.py --framework torch --size full"):
        bench_models.read_manifest(tmp_path)


def _write(folder: Path, models: dict) -> None:
    (folder / "manifest.json").write_text(json.dumps({"generator": "test", "models": models}))


def test_entries_by_framework_and_recorded_inputs(tmp_path, monkeypatch):
    ids = np.arange(6, dtype=np.int64).reshape(1, 6)
    np.savez(tmp_path / "b.inputs.npz", input_ids=ids)
    _write(tmp_path, {
        "b": {"file": "b.onnx", "framework": "onnx", "family": "transformers", "inputs_file": "b.inputs.npz"},
        "a": {"file": "a.pb", "framework": "tf", "family": "keras", "inputs_file": "a.inputs.npz"},
    })
    monkeypatch.setenv(bench_models.ENV, str(tmp_path))
    assert [(n, p) for n, p, _ in bench_models.model_entries()] == [("a", tmp_path / "a.pb"),
                                                                     ("b", tmp_path / "b.onnx")]
    [(name, path, entry)] = bench_models.model_entries(framework="onnx")
    assert name == "b" and entry["family"] == "transformers"
    feeds = bench_models.recorded_inputs(tmp_path, entry)
    assert list(feeds) == ["input_ids"]
    np.testing.assert_array_equal(feeds["input_ids"], ids)


def test_unknown_family_is_an_error(tmp_path):
    _write(tmp_path, {"x": {"file": "x.onnx", "framework": "onnx", "family": "speech"}})
    with pytest.raises(ValueError, match="family 'speech'"):
        bench_models.read_manifest(tmp_path)
