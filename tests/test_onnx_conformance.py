"""ONNX backend conformance: every suite through OpenVINO, node cases through xmo's CPU backend.

``tools/onnx_conformance.py`` runs the cases (node cases generated from onnx's
case collectors; pytorch-converted, pytorch-operator, simple and light models
from the wheel): convert with xmo, then either write IR and run it on
OpenVINO's CPU plugin (f32), or run the module on xmo's own CPU backend.
``tests/conformance/expected_failures[_cpu].txt`` list the core cases known
to fail, each with its reason; the lists only shrink.
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
LISTS = {
    "openvino": ROOT / "tests" / "conformance" / "expected_failures.txt",
    "xmo-cpu": ROOT / "tests" / "conformance" / "expected_failures_cpu.txt",
}
SUITES = {"openvino": None, "xmo-cpu": ("node",)}

_spec = importlib.util.spec_from_file_location("onnx_conformance", ROOT / "tools" / "onnx_conformance.py")
conf = importlib.util.module_from_spec(_spec)
sys.modules["onnx_conformance"] = conf
_spec.loader.exec_module(conf)

_CACHE: dict[str, list] = {}


@pytest.fixture(params=["openvino", "xmo-cpu"], scope="module")
def run(request):
    runtime = request.param
    if runtime not in _CACHE:
        suites = SUITES[runtime] or conf.SUITES
        jobs = [(s, n) for s in suites for n in conf.case_names(s)]
        res = conf.run_all(jobs, workers=2, runtime=runtime)
        print(f"\nONNX conformance on {runtime} (core pass / core total):")
        for suite, s in conf.summarize(res).items():
            print(f"  {suite:20} {s['core_pass']:5} / {s['core_total']}")
        _CACHE[runtime] = res
    return runtime, _CACHE[runtime]


def test_every_case_ran(run):
    runtime, results = run
    suites = SUITES[runtime] or conf.SUITES
    assert len(results) == sum(len(conf.case_names(s)) for s in suites)


def test_no_unexpected_failures(run):
    runtime, results = run
    expected = conf.read_expected_failures(LISTS[runtime])
    bad = [
        f"{r.suite}/{r.name}: {r.status}: {r.error}"
        for r in results
        if r.core and r.status != "pass" and f"{r.suite}/{r.name}" not in expected
    ]
    drift = conf.version_drift(LISTS[runtime])
    assert not bad, (
        f"{len(bad)} core cases fail on {runtime} that are not listed:\n" + "\n".join(bad[:50])
        + (f"\n{drift}" if drift else "")
    )


def test_expected_failures_only_shrink(run):
    runtime, results = run
    expected = conf.read_expected_failures(LISTS[runtime])
    by_key = {f"{r.suite}/{r.name}": r for r in results}
    unknown = sorted(k for k in expected if k not in by_key)
    assert not unknown, f"listed cases that do not exist: {unknown[:20]}"
    now_pass = sorted(k for k in expected if by_key[k].status == "pass")
    drift = conf.version_drift(LISTS[runtime])
    assert not now_pass, (
        f"{len(now_pass)} listed cases pass on {runtime} now: remove them from "
        f"{LISTS[runtime].name}:\n" + "\n".join(now_pass[:50]) + (f"\n{drift}" if drift else "")
    )


@pytest.mark.parametrize("runtime", sorted(LISTS))
def test_lists_record_the_pinned_versions(runtime):
    """The versions a list was made with are the ones constraints.txt pins: a
    pin that moves makes whoever moves it check (regenerate) the lists."""
    made = conf.read_made_with(LISTS[runtime])
    pins = {}
    for line in (ROOT / "constraints.txt").read_text().splitlines():
        line = line.split("#", 1)[0].strip()
        if "==" in line:
            name, version = line.split("==", 1)
            pins[name.strip().lower().replace("_", "-")] = version.strip()
    assert set(made) == set(conf.VERSIONED_PACKAGES)
    for name, version in made.items():
        assert pins.get(name.lower().replace("_", "-")) == version, (
            f"{LISTS[runtime].name} was made with {name}=={version}, constraints.txt pins "
            f"{pins.get(name.lower().replace('_', '-'))}: regenerate the list with the pinned versions"
        )


def test_out_of_range_casts_are_not_compared():
    """ONNX leaves float -> integer casts of out-of-range values undefined
    (ml_dtypes 0.6 wraps them, 0.7 gives 0): those elements are not
    compared, every in-range one is."""
    import numpy as np
    from onnx import TensorProto, helper

    def model(to):
        g = helper.make_graph(
            [helper.make_node("Cast", ["x"], ["y"], to=to)], "g",
            [helper.make_tensor_value_info("x", TensorProto.FLOAT, [5])],
            [helper.make_tensor_value_info("y", to, [5])],
        )
        return helper.make_model(g)

    x = np.array([-9.0, -8.0, 7.9, 8.0, np.nan], np.float32)
    (mask,) = conf.undefined_by_spec(model(TensorProto.INT4), [x])
    assert mask.tolist() == [True, False, False, True, True]
    (mask,) = conf.undefined_by_spec(model(TensorProto.UINT2), [np.array([-1, 0, 3, 3.5, 4], np.float32)])
    assert mask.tolist() == [True, False, False, False, True]
    assert conf.undefined_by_spec(model(TensorProto.FLOAT16), [x]) is None
    # an in-range element that differs is still a mismatch
    res = conf.Result("node", "t", "pass")
    want = np.array([0, -8, 7, 0, 0], np.int8)
    ok = conf.check_outputs(res, [np.array([5, -8, 6, 1, 2], np.int8)], [want], 1e-3, 1e-7,
                             conf.undefined_by_spec(model(TensorProto.INT4), [x]))
    assert not ok and res.error == "output 0: 1 of 2 values differ"
    res = conf.Result("node", "t", "pass")
    assert conf.check_outputs(res, [np.array([5, -8, 7, 1, 2], np.int8)], [want], 1e-3, 1e-7,
                               conf.undefined_by_spec(model(TensorProto.INT4), [x]))
