"""ONNX backend conformance through the real OpenVINO runtime (every suite).

Runs every case of ``tools/onnx_conformance.py`` (node cases generated from
onnx's case collectors, pytorch-converted, pytorch-operator, simple, light):
convert with xmo, write IR, run on OpenVINO's CPU plugin (f32), compare.
``tests/conformance/expected_failures.txt`` lists the core cases known to
fail, each with its reason; it only shrinks.
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
EXPECTED = ROOT / "tests" / "conformance" / "expected_failures.txt"

_spec = importlib.util.spec_from_file_location("onnx_conformance", ROOT / "tools" / "onnx_conformance.py")
conf = importlib.util.module_from_spec(_spec)
sys.modules["onnx_conformance"] = conf
_spec.loader.exec_module(conf)


@pytest.fixture(scope="module")
def results():
    jobs = [(s, n) for s in conf.SUITES for n in conf.case_names(s)]
    res = conf.run_all(jobs, workers=2)
    summary = conf.summarize(res)
    print("\nONNX conformance (core pass / core total):")
    for suite, s in summary.items():
        print(f"  {suite:20} {s['core_pass']:5} / {s['core_total']}")
    return res


def test_every_case_ran(results):
    assert len(results) == sum(len(conf.case_names(s)) for s in conf.SUITES)


def test_no_unexpected_failures(results):
    expected = conf.read_expected_failures(EXPECTED)
    bad = [
        f"{r.suite}/{r.name}: {r.status}: {r.error}"
        for r in results
        if r.core and r.status != "pass" and f"{r.suite}/{r.name}" not in expected
    ]
    assert not bad, f"{len(bad)} core cases fail that are not listed:\n" + "\n".join(bad[:50])


def test_expected_failures_only_shrink(results):
    expected = conf.read_expected_failures(EXPECTED)
    by_key = {f"{r.suite}/{r.name}": r for r in results}
    unknown = sorted(k for k in expected if k not in by_key)
    assert not unknown, f"listed cases that do not exist: {unknown[:20]}"
    now_pass = sorted(k for k in expected if by_key[k].status == "pass")
    assert not now_pass, (
        f"{len(now_pass)} listed cases pass now: remove them from {EXPECTED.name}:\n"
        + "\n".join(now_pass[:50])
    )
