"""Kaldi nnet1 / nnet3 models (tests/data/kaldi, written by tools/make_kaldi_models.py).

Each fixture converts with ``xmo.convert_model`` and matches the numpy
reference (tests/kaldi_reference.py: frame by frame, no margins, no slices;
rtol 1e-3, atol 1e-4) in OpenVINO (f32) and on xmo's CPU backend, on a
window of frames: the output has the frames whose whole context is in the
window. Malformed files fail with one line and write nothing; components xmo
cannot convert go to the unsupported-ops report.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from kaldi_reference import run_reference
from tf_graphs import run_in_openvino, run_on_cpu_backend

import xmo
from xmo.frontends import frontend_for
from xmo.frontends.kaldi import KaldiFrontendError, read_kaldi
from xmo.passes.to_ov.report import UnsupportedOpsError
from xmo.tools.xmo_main import main

DATA = Path(__file__).parent / "data" / "kaldi"
RTOL, ATOL = 1e-3, 1e-4
FRAMES = 24
#: fixture -> (format, binary, total left / right context)
FIXTURES = {
    "tdnn_text.raw": ("nnet3", False, (6, 6)),
    "tdnn_bin.raw": ("nnet3", True, (6, 6)),
    "tdnn_bin.mdl": ("nnet3", True, (6, 6)),
    "dnn_text.nnet": ("nnet1", False, (3, 3)),
    "dnn_bin.nnet": ("nnet1", True, (3, 3)),
    "lstm_text.nnet": ("nnet1", False, (1, 1)),
    "lstm_bin.nnet": ("nnet1", True, (1, 1)),
    "tdnn_lstm_text.raw": ("nnet3", False, (2, 0)),
    "tdnn_lstm_bin.mdl": ("nnet3", True, (2, 0)),
}


def _feats(model) -> dict[str, np.ndarray]:
    rng = np.random.default_rng(5)
    return {n.name: rng.standard_normal((FRAMES, n.dim)).astype(np.float32) for n in model.inputs}


@pytest.fixture(scope="module", params=sorted(FIXTURES))
def converted(request):
    name = request.param
    path = DATA / name
    model = read_kaldi(path)
    feats = _feats(model)
    return name, model, feats, run_reference(model, feats), xmo.convert_model(str(path))


def test_fixture_matches_the_reference(converted, tmp_path):
    name, model, feats, ref, module = converted
    fmt, binary, (left, right) = FIXTURES[name]
    assert (model.format, model.binary) == (fmt, binary)
    first, want = ref["output"]
    assert first == left and want.shape[0] == FRAMES - left - right
    for what, got in (("openvino", run_in_openvino(module, feats, tmp_path)),
                      ("cpu", run_on_cpu_backend(module, feats))):
        (names, value), = got
        assert "output" in names, f"{name} {what}: {names}"
        assert value.shape == want.shape, f"{name} {what}: {value.shape} != {want.shape}"
        np.testing.assert_allclose(value, want, rtol=RTOL, atol=ATOL, err_msg=f"{name} {what}")


def test_text_and_binary_forms_read_the_same():
    for a, b in (("tdnn_text.raw", "tdnn_bin.raw"), ("tdnn_bin.raw", "tdnn_bin.mdl"),
                 ("dnn_text.nnet", "dnn_bin.nnet"), ("lstm_text.nnet", "lstm_bin.nnet")):
        ma, mb = read_kaldi(DATA / a), read_kaldi(DATA / b)
        assert [n.name for n in ma.nodes] == [n.name for n in mb.nodes]
        for k, ca in ma.components.items():
            cb = mb.components[k]
            assert (ca.type, sorted(ca.fields)) == (cb.type, sorted(cb.fields)), k
            for f, va in ca.fields.items():
                dt = np.float32 if isinstance(va, float | np.ndarray) else None
                np.testing.assert_array_equal(np.asarray(va, dt), np.asarray(cb.fields[f], dt),
                                              err_msg=f"{k} {f}")


def test_binary_weights_are_views_of_the_file():
    m = read_kaldi(DATA / "tdnn_bin.raw")
    w = m.components["tdnn1.affine"].fields["LinearParams"]
    assert isinstance(w, np.ndarray) and w.shape == (32, 65) and w.base is not None


def test_kaldi_files_go_to_the_kaldi_frontend():
    for suffix in (".nnet", ".mdl", ".raw"):
        assert frontend_for(f"model{suffix}").name == "kaldi"
    assert xmo.frontends.framework_input_shapes(str(DATA / "tdnn_bin.mdl")) == {"input": [-1, 13]}


def test_a_fixed_number_of_frames(tmp_path):
    module = xmo.convert_model(str(DATA / "tdnn_bin.raw"), input="input[30,13]")
    model = read_kaldi(DATA / "tdnn_bin.raw")
    feats = {"input": np.random.default_rng(1).standard_normal((30, 13)).astype(np.float32)}
    (_, value), = run_on_cpu_backend(module, feats)
    _, want = run_reference(model, feats)["output"]
    assert value.shape == (18, 24)
    np.testing.assert_allclose(value, want, rtol=RTOL, atol=ATOL)


# -- what xmo cannot convert -------------------------------------------------------------


def _edit(tmp_path: Path, name: str, old: bytes, new: bytes, as_name: str | None = None) -> Path:
    data = (DATA / name).read_bytes()
    assert old in data
    p = tmp_path / (as_name or name)
    p.write_bytes(data.replace(old, new))
    return p


def test_unknown_component_is_reported_by_name(tmp_path):
    p = _edit(tmp_path, "tdnn_text.raw", b"RectifiedLinearComponent", b"FancyComponent")
    with pytest.raises(UnsupportedOpsError) as e:
        xmo.convert_model(str(p))
    msg = str(e.value)
    assert "FancyComponent (3): tdnn1.relu, tdnn2.relu, tdnn3.relu" in msg
    assert "unknown component type" in msg


def test_nnet1_unknown_layer_is_reported(tmp_path):
    p = _edit(tmp_path, "dnn_bin.nnet", b"<Tanh> ", b"<Tang> ")
    with pytest.raises(UnsupportedOpsError, match="Tang \\(1\\): Tang_7"):
        xmo.convert_model(str(p))


NNET3_SMALL = """<Nnet3>
input-node name=input dim=4
input-node name=ivector dim=2
component-node name=a component=a input=Append(input, IVEC)
component-node name=r component=r input=Append(a, RECUR)
dim-range-node name=half input-node=a dim-offset=1 dim=2
output-node name=output input=r objective=linear
output-node name=half_out input=half objective=linear

<NumComponents> 2
<ComponentName> a <FixedAffineComponent> <LinearParams> [
  1 0 0 0 1 0
  0 1 0 0 0 1
  0 0 1 0 0.5 0 ]
<BiasParams> [ 0 0 0 ]
</FixedAffineComponent>
<ComponentName> r <FixedAffineComponent> <LinearParams> [
  1 0 0 0.5 0 0
  0 1 0 0 0.5 0
  0 0 1 0 0 0.5 ]
<BiasParams> [ 0 0.1 0 ]
</FixedAffineComponent>
</Nnet3>
"""


def _small(tmp_path: Path, ivec: str, recur: str) -> Path:
    p = tmp_path / "small.raw"
    p.write_text(NNET3_SMALL.replace("IVEC", ivec).replace("RECUR", recur))
    return p


def test_unsupported_descriptors_are_reported(tmp_path):
    p = _small(tmp_path, "ReplaceIndex(ivector, t, 0)", "Offset(a, -1)")
    with pytest.raises(UnsupportedOpsError, match=r"ReplaceIndex \(1\): a/ReplaceIndex_\d+\n.*descriptor not supported"):
        xmo.convert_model(str(p))


def test_recurrences_without_ifdefined_are_reported(tmp_path):
    p = _small(tmp_path, "Offset(ivector, 1)", "Offset(r, -1)")
    with pytest.raises(UnsupportedOpsError) as e:
        xmo.convert_model(str(p))
    assert "Recurrent (1): r/recurrence" in str(e.value)
    assert "recurrence of 'r' is not IfDefined(Offset(x, -k))" in str(e.value)


@pytest.mark.parametrize("recur", ["Offset(a, -1)", "IfDefined(Offset(r, -2))"])
def test_dim_range_nodes_and_a_small_recurrence(tmp_path, recur):
    p = _small(tmp_path, "Offset(ivector, 1)", recur)
    module = xmo.convert_model(str(p))
    model = read_kaldi(p)
    feats = _feats(model)
    want = run_reference(model, feats)
    for what, got in (("cpu", run_on_cpu_backend(module, feats)),
                      ("openvino", run_in_openvino(module, feats, tmp_path))):
        got = dict((next(iter(n & {"output", "half_out"})), v) for n, v in got)
        for k in ("output", "half_out"):
            np.testing.assert_allclose(got[k], want[k][1], rtol=RTOL, atol=ATOL, err_msg=f"{what} {k}")
        rows = FRAMES - 1 - (recur == "Offset(a, -1)")
        assert got["output"].shape == (rows, 3) and got["half_out"].shape == (FRAMES - 1, 2)


def test_a_cycle_without_delay_is_malformed(tmp_path):
    p = _small(tmp_path, "Offset(ivector, 1)", "r")
    with pytest.raises(KaldiFrontendError, match="node 'r' depends on itself without a time delay"):
        read_kaldi(p) and xmo.convert_model(str(p))


# -- malformed files -----------------------------------------------------------------------


def _malformed(tmp_path: Path) -> dict[str, tuple[Path, str]]:
    bin_ = (DATA / "tdnn_bin.raw").read_bytes()
    cases = {
        "truncated binary": (bin_[:20000], "truncated file: matrix needs"),
        "truncated nnet1": ((DATA / "dnn_bin.nnet").read_bytes()[:3000], "truncated file"),
        "bad token": ((DATA / "tdnn_text.raw").read_bytes().replace(b"<NumComponents>", b"<NumComps>"),
                      "expected <NumComponents>, found <NumComps>"),
        "bad descriptor": ((DATA / "tdnn_text.raw").read_bytes().replace(b"Offset(input, -2)", b"Offset(input -2)"),
                           "expected ',' or ')'"),
        "dangling node": ((DATA / "tdnn_text.raw").read_bytes().replace(b"input=tdnn1.affine", b"input=nowhere"),
                          "reads 'nowhere', which is not a node"),
        "not kaldi": (b"hello", "not a Kaldi model"),
        "bad number": ((DATA / "dnn_text.nnet").read_bytes().replace(b"<LearnRateCoef> 1", b"<LearnRateCoef> x", 1),
                       "expected a number, found 'x.0'"),
    }
    out = {}
    for i, (k, (data, why)) in enumerate(cases.items()):
        p = tmp_path / f"m{i}.raw"
        p.write_bytes(data)
        out[k] = (p, why)
    return out


def test_malformed_files_fail_with_one_line(tmp_path):
    for what, (p, why) in _malformed(tmp_path).items():
        with pytest.raises(KaldiFrontendError) as e:
            read_kaldi(p)
        msg = str(e.value)
        assert why in msg and "\n" not in msg and str(p) in msg, f"{what}: {msg}"


def test_cli_writes_nothing_for_a_malformed_file(tmp_path, capsys):
    p = tmp_path / "bad.nnet"
    p.write_bytes((DATA / "lstm_bin.nnet").read_bytes()[:-50])
    out = tmp_path / "out" / "m.xml"
    assert main(["convert", str(p), "-o", str(out)]) == 1
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("xmo: error:") and "truncated file" in err[0]
    assert not (tmp_path / "out").exists()
    assert main(["convert", str(DATA / "lstm_bin.nnet"), "-o", str(out)]) == 0
    assert out.exists() and out.with_suffix(".bin").exists()


def test_parallel_component_expands_to_its_nested_networks():
    m = read_kaldi(DATA / "dnn_bin.nnet")
    kinds = {n.name: n.kind for n in m.nodes}
    assert kinds["ParallelComponent_3"] == "append"
    assert kinds["ParallelComponent_3/0/input"] == kinds["ParallelComponent_3/1/input"] == "dim-range"
    assert m.components["ParallelComponent_3/1/Splice_0"].type == "Splice"


def test_a_dim_range_beyond_its_input_is_reported(tmp_path):
    p = _small(tmp_path, "Offset(ivector, 1)", "Offset(a, -1)")
    p.write_text(p.read_text().replace("dim-offset=1 dim=2", "dim-offset=2 dim=2"))
    with pytest.raises(UnsupportedOpsError, match=r"DimRange \(1\): half/DimRange_\d+\n.*dims 2..4 of a 3-dim input"):
        xmo.convert_model(str(p))
