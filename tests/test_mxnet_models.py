"""The MXNet fixtures (tests/data/mxnet, written by tools/make_mxnet_models.py
with MXNet 1.9.1) convert through ``xmo.convert_model`` and match MXNet's own
outputs (rtol 1e-3, atol 1e-4) on xmo's CPU backend and in OpenVINO (f32).
Detection heads (``sorted_detections`` in the manifest) are compared on their
kept rows (class >= 0), sorted."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

DATA = Path(__file__).parent / "data" / "mxnet"
MANIFEST = json.loads((DATA / "manifest.json").read_text())
RTOL, ATOL = 1e-3, 1e-4


def _kept_rows(a: np.ndarray) -> np.ndarray:
    rows = np.asarray(a).reshape(-1, 6)
    rows = rows[rows[:, 0] >= 0]
    return rows[np.lexsort(rows.T[::-1])]


def _compare(name: str, got: list, ref, where: str) -> None:
    assert len(got) == len(ref.files), f"{name} ({where}): {len(got)} outputs, MXNet gives {len(ref.files)}"
    for k in range(len(ref.files)):
        want, have = ref[f"out{k}"], np.asarray(got[k])
        if k in MANIFEST[name]["sorted_detections"]:
            want, have = _kept_rows(want), _kept_rows(have)
            assert len(want), f"{name}: the fixture detects nothing"
        assert have.shape == want.shape, f"{name} ({where}) output {k}: {have.shape} vs {want.shape}"
        np.testing.assert_allclose(have, want, rtol=RTOL, atol=ATOL, err_msg=f"{name} ({where}) output {k}")


@pytest.fixture(scope="module", params=sorted(MANIFEST))
def converted(request, tmp_path_factory):
    import xmo

    name = request.param
    folder = DATA / name
    repo = Path(__file__).resolve().parents[1]
    extensions = [str(repo / e) for e in MANIFEST[name].get("extensions", [])]
    module = xmo.convert_model(str(folder / f"{name}-symbol.json"), extensions=extensions)
    xml = tmp_path_factory.mktemp(name) / f"{name}.xml"
    xmo.save_model(module, xml)
    return name, module, xml, dict(np.load(folder / "inputs.npz")), np.load(folder / "outputs.npz")


def test_fixture_is_small():
    for name in MANIFEST:
        assert sum(f.stat().st_size for f in (DATA / name).iterdir()) < 1 << 20, name


def test_cpu_backend_matches_mxnet(converted):
    import xmo

    name, module, _, feeds, ref = converted
    _compare(name, list(xmo.compile_model(module)(feeds)), ref, "xmo CPU")


def test_openvino_matches_mxnet(converted):
    ov = pytest.importorskip("openvino")
    name, _, xml, feeds, ref = converted
    core = ov.Core()
    compiled = core.compile_model(core.read_model(str(xml)), "CPU", {"INFERENCE_PRECISION_HINT": "f32"})
    res = compiled(feeds)
    _compare(name, [res[o] for o in compiled.outputs], ref, "OpenVINO")

