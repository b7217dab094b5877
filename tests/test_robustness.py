"""Robustness: malformed models end in one clean ``xmo: error:`` line.

The cases come from :mod:`xmo.tools.fuzz_inputs` (its long run: ``python -m
xmo.tools.fuzz_inputs --cases 2000``): mutated ONNX files, GraphDefs (binary
and text), OpenVINO IR and MLIR. Each runs ``xmo convert`` in-process under a
timer (and through ``xmo-opt``); a handful also through a real process. The
structure-aware ``files`` cases (hard links, FIFOs and devices, inputs
truncated while xmo runs, colliding output names) run a bounded sample; the
ones that truncate a file or read a device in processes of their own under
a 2 GiB address-space cap.
"""

from __future__ import annotations

import os
import random
from collections import Counter

import pytest
from xmo.tools import fuzz_inputs as fz

os.environ.setdefault("XMO_NO_PROGRESS", "1")

CASES_PER_KIND = 60


@pytest.mark.parametrize("kind", fz.KINDS)
def test_malformed_inputs_fail_cleanly(kind, tmp_path):
    cases = list(fz.generate(CASES_PER_KIND, seed=1234, kinds=(kind,)))
    outcomes = fz.run_cases(cases, tmp_path, timeout=30.0)
    bad = [f"{o.case}: {o.problem}" for o in outcomes if o.problem]
    assert not bad, f"{len(bad)}/{len(cases)} {kind} cases failed:\n" + "\n".join(bad)
    # the generator really produces invalid models (most must fail)
    assert sum(o.rc != 0 for o in outcomes) >= CASES_PER_KIND // 2


@pytest.mark.parametrize("kind", fz.KINDS)
def test_malformed_inputs_fail_cleanly_in_xmo_opt(kind, tmp_path):
    """The same cases through ``xmo-opt MODEL [-p legalization] -t ov-ir -o``:
    one ``xmo-opt: error:`` line (parse errors without xDSL's source excerpt)."""
    cases = list(fz.generate(CASES_PER_KIND // 2, seed=4321, kinds=(kind,)))
    outcomes = fz.run_cases(cases, tmp_path, timeout=30.0, tool="xmo-opt")
    bad = [f"{o.case}: {o.problem}" for o in outcomes if o.problem]
    assert not bad, f"{len(bad)}/{len(cases)} {kind} cases failed:\n" + "\n".join(bad)
    assert sum(o.rc != 0 for o in outcomes) >= CASES_PER_KIND // 4
    assert all(o.stderr.startswith("xmo-opt: error: ") for o in outcomes if o.rc)


def test_every_structural_mutation_is_covered():
    """Each named mutation of each kind shows up in a moderate run."""
    seen = Counter(c.name.split(":")[-1] for c in fz.generate(1000, seed=7))
    for name in ("dangling_input", "cycle", "duplicate_output", "missing_initializer",
                 "attr_type", "negative_dim", "enormous_dim", "zero_size_weight",
                 "declared_size_beyond_data", "external_dotdot", "duplicate_name",
                 "const_beyond_data", "drop_edge", "bad_port", "offset_beyond",
                 "entity_expansion", "unknown_op"):
        assert seen[name], name


def test_subprocess_cases(tmp_path):
    """A few cases in a real process: exit code, stderr and no traceback as a user sees them."""
    rng = random.Random(5)
    cases = [fz.GENERATORS[k](rng) for k in fz.KINDS]
    cases.append(fz.Case("mlir", "unterminated_string", "m.mlir",
                         {"m.mlir": b'builtin.module {\n  %0 = "ov.Parameter() : () -> ' + b"x" * 200}))
    for i, c in enumerate(cases):
        o = fz.run_subprocess(c, tmp_path / f"c{i}", timeout=120.0)
        assert o.problem is None, f"{c}: {o.problem}"


def test_unterminated_mlir_string_is_quick(tmp_path):
    """xDSL's string-literal regex backtracked exponentially on an unterminated
    quote (xmo.xdsl_speedups replaces it)."""
    text = b'builtin.module {\n  %0 = Pov.Equal"(%ia, %ib) : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi1>\n}\n'
    o = fz.run_in_process(fz.Case("mlir", "quote", "m.mlir", {"m.mlir": text}), tmp_path, timeout=10)
    assert o.problem is None, o.problem
    assert o.seconds < 5


FILE_CASES = 36
FILE_KINDS = ("hard_link_external", "one_link_external", "fifo_model", "fifo_bin", "fifo_external",
              "fifo_npy", "fifo_extension", "device_model", "truncate_external", "truncate_bin",
              "colliding_outputs")


def test_file_cases_end_cleanly(tmp_path):
    """Each ends with exit 0 and complete output (the IR, or one ``.npy`` per
    output name) or exit 1 and one line with nothing left behind; none hangs
    or ends by a signal."""
    cases = list(fz.generate(FILE_CASES, seed=14, kinds=fz.FILE_KINDS))
    seen = Counter(c.name.split(":")[0] for c in cases)
    assert set(seen) == set(FILE_KINDS), seen  # the sample covers every generator
    outcomes = fz.run_cases(cases, tmp_path, timeout=60.0)
    bad = [f"{o.case}: {o.problem}" for o in outcomes if o.problem]
    assert not bad, f"{len(bad)}/{len(cases)} file cases failed:\n" + "\n".join(bad)
    for o in outcomes:
        if o.case.must_fail:
            assert o.rc == 1, (str(o.case), o.rc, o.stderr)


def test_file_cases_end_cleanly_in_xmo_opt(tmp_path):
    cases = [c for c in fz.generate(24, seed=12, kinds=fz.FILE_KINDS)
             if "xmo-opt" in c.tools and not c.needs_process]
    outcomes = fz.run_cases(cases, tmp_path, timeout=30.0, tool="xmo-opt")
    bad = [f"{o.case}: {o.problem}" for o in outcomes if o.problem]
    assert not bad, f"{len(bad)}/{len(cases)} file cases failed:\n" + "\n".join(bad)
    assert all(o.stderr.startswith("xmo-opt: error: ") for o in outcomes if o.rc)
