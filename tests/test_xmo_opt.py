"""The xmo-opt driver: registration, errors, atomic output."""

from __future__ import annotations

import re
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


def test_parse_error_is_one_line_with_its_location(tmp_path, capsys):
    """xDSL words a parse error over three lines (message, source line,
    caret); the driver prints one: file:line:col: message."""
    src = tmp_path / "bad.mlir"
    src.write_text(MODEL.replace('"ov.Add"', '"ov.Nope"'))
    assert main([str(src)]) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1, err
    assert re.fullmatch(rf"xmo-opt: error: {re.escape(str(src))}:5:\d+: Operation ov.Nope is not registered\n", err), err


def test_convert_refuses_an_mlir_module_that_does_not_verify(tmp_path, capsys):
    """The input module is verified before any pass (a pass such as DCE could
    otherwise drop the invalid op and write an IR)."""
    from xmo.tools.xmo_main import main as xmo_main

    src = tmp_path / "bad.mlir"
    text = MODEL.replace('  "ov.Result"(%2) : (tensor<2x3xf32>) -> ()\n', "")
    src.write_text(text.replace("tensor<3xf32>, tensor<2x3xf32>", "tensor<4xf32>, tensor<2x3xf32>")
                   .replace("dense<1.0> : tensor<3xf32>}> : () -> tensor<3xf32>",
                            "dense<1.0> : tensor<4xf32>}> : () -> tensor<4xf32>")
                   .replace("(tensor<2x3xf32>, tensor<3xf32>)", "(tensor<2x3xf32>, tensor<4xf32>)"))
    out = tmp_path / "out"
    assert xmo_main(["convert", str(src), "-o", str(out / "m.xml")]) == 1
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "does not verify: ov.Add: shapes [2,3] and [1,4]" in err[0], err
    assert not out.exists() or not list(out.iterdir())


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
