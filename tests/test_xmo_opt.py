"""The xmo-opt driver: registration, errors, atomic output."""

from __future__ import annotations

import subprocess
import sys

from xmo.tools.xmo_opt import main

MODEL = """
builtin.module {
  %0 = "ov.Parameter"() <{friendly_name = "x"}> : () -> tensor<2x3xf32>
  %1 = "ov.Constant"() <{value = dense<1.0> : tensor<3xf32>}> : () -> tensor<3xf32>
  %2 = "ov.Add"(%0, %1) : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  "ov.Result"(%2) : (tensor<2x3xf32>) -> ()
}
"""


def test_prints_round_trip(tmp_path, capsys):
    src = tmp_path / "m.mlir"
    src.write_text(MODEL)
    assert main([str(src)]) == 0
    out = capsys.readouterr().out
    assert '"ov.Add"' in out and "tensor<2x3xf32>" in out


def test_xdsl_builtin_passes_stay_available(tmp_path, capsys):
    src = tmp_path / "m.mlir"
    src.write_text(MODEL)
    assert main([str(src), "-p", "dce,ov-infer-shapes"]) == 0


def test_verifier_error_is_one_line_without_traceback(tmp_path):
    src = tmp_path / "bad.mlir"
    src.write_text(MODEL.replace("-> tensor<2x3xf32>\n  \"ov.Result\"", "-> tensor<2x4xf32>\n  \"ov.Result\""))
    r = subprocess.run(
        [sys.executable, "-m", "xmo.tools.xmo_opt", str(src)], capture_output=True, text=True
    )
    assert r.returncode == 1
    assert "Traceback" not in r.stderr
    assert r.stderr.startswith("xmo-opt: error:")


def test_failed_run_leaves_no_output_file(tmp_path):
    src = tmp_path / "bad.mlir"
    src.write_text("builtin.module { %0 = \"ov.Nope\"() : () -> tensor<1xf32> }")
    out = tmp_path / "out.mlir"
    assert main([str(src), "-o", str(out)]) == 1
    assert list(tmp_path.iterdir()) == [src]


def test_output_file_written_on_success(tmp_path):
    src = tmp_path / "m.mlir"
    src.write_text(MODEL)
    out = tmp_path / "out.mlir"
    assert main([str(src), "-o", str(out)]) == 0
    assert '"ov.Add"' in out.read_text()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["m.mlir", "out.mlir"]


def test_unknown_pass_is_an_error(tmp_path, capsys):
    src = tmp_path / "m.mlir"
    src.write_text(MODEL)
    assert main([str(src), "-p", "no-such-pass"]) == 1
    assert "Unrecognized passes: ['no-such-pass']" in capsys.readouterr().err
