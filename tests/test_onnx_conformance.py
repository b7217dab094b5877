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
    assert not bad, f"{len(bad)} core cases fail on {runtime} that are not listed:\n" + "\n".join(bad[:50])


def test_expected_failures_only_shrink(run):
    runtime, results = run
    expected = conf.read_expected_failures(LISTS[runtime])
    by_key = {f"{r.suite}/{r.name}": r for r in results}
    unknown = sorted(k for k in expected if k not in by_key)
    assert not unknown, f"listed cases that do not exist: {unknown[:20]}"
    now_pass = sorted(k for k in expected if by_key[k].status == "pass")
    assert not now_pass, (
        f"{len(now_pass)} listed cases pass on {runtime} now: remove them from "
        f"{LISTS[runtime].name}:\n" + "\n".join(now_pass[:50])
    )
