"""The ``xmo`` command line: convert and run, and its error behaviour."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np

from xmo.tools.xmo_main import main

ROOT = Path(__file__).resolve().parents[1]
DEMO = ROOT / "models" / "demo.mlir"


def xmo(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "xmo.tools.xmo_main", *args],
        capture_output=True,
        text=True,
        cwd=cwd,
    )


def test_convert_and_run_the_demo_model(tmp_path, capsys):
    out = tmp_path / "demo.xml"
    assert main(["convert", str(DEMO), "-o", str(out)]) == 0
    assert out.exists() and out.with_suffix(".bin").exists()
    np.save(tmp_path / "img.npy", np.ones((1, 3, 32, 32), np.float32))
    assert main(["run", str(out), "--input", f"image={tmp_path / 'img.npy'}",
                 "--output-dir", str(tmp_path / "res")]) == 0
    printed = capsys.readouterr().out
    assert "output probabilities: float32[1, 10]" in printed
    probs = np.load(tmp_path / "res" / "probabilities.npy")
    assert probs.shape == (1, 10) and abs(float(probs.sum()) - 1.0) < 1e-5


def test_missing_model_is_one_line_error(tmp_path):
    r = xmo("convert", str(tmp_path / "nope.mlir"), "-o", str(tmp_path / "o.xml"))
    assert r.returncode == 1
    assert r.stderr.strip() == f"xmo: error: {tmp_path / 'nope.mlir'}: no such file"
    assert list(tmp_path.iterdir()) == []


def test_malformed_mlir_is_an_error_without_traceback(tmp_path):
    bad = tmp_path / "bad.mlir"
    bad.write_text('builtin.module { %0 = "ov.Parameter"( : () -> }')
    r = xmo("convert", str(bad), "-o", str(tmp_path / "o.xml"))
    assert r.returncode == 1 and "Traceback" not in r.stderr
    assert r.stderr.startswith("xmo: error:")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["bad.mlir"]


def test_bad_flag_is_a_usage_error(tmp_path):
    r = xmo("convert", str(DEMO), "--no-such-flag")
    assert r.returncode == 2 and "unrecognized arguments: --no-such-flag" in r.stderr
    assert "Traceback" not in r.stderr


def test_unsupported_format_is_a_clear_error(tmp_path):
    model = tmp_path / "m.pth"
    model.write_bytes(b"\x00")
    r = xmo("convert", str(model), "-o", str(tmp_path / "o.xml"))
    assert r.returncode == 1 and "no frontend for this model format" in r.stderr


def test_convert_creates_the_output_folder(tmp_path):
    out = tmp_path / "a" / "b" / "demo.xml"
    assert main(["convert", str(ROOT / "models" / "demo.onnx"), "-o", str(out)]) == 0
    assert out.exists() and out.with_suffix(".bin").exists()


def test_save_model_into_a_missing_folder_is_a_clear_error(tmp_path):
    import pytest

    import xmo
    from xmo.backends.ir import IRWriteError

    m = xmo.convert_model(ROOT / "models" / "demo.onnx")
    with pytest.raises(IRWriteError, match="output folder does not exist"):
        xmo.save_model(m, tmp_path / "missing" / "m.xml")
    assert list(tmp_path.iterdir()) == []


# ---------------------------------------------------------------------------
# Smaller defects of issue 15 (each: exit code, one line, nothing left)
# ---------------------------------------------------------------------------

_OUT_NAMES = ["a/b", "a_b", "a%2Fb", ".", "..", "", "A", "a", "x:0"]
#: one output per name of _OUT_NAMES: x + i (distinct ops, none merge)
TWO_OUTPUTS = """builtin.module {
  %x = "ov.Parameter"() <{friendly_name = "x", tensor_names = [["x"]]}> : () -> tensor<2xf32>
""" + "".join(
    f'  %c{i} = "ov.Constant"() <{{value = dense<{i}.0> : tensor<2xf32>}}> : () -> tensor<2xf32>\n'
    f'  %y{i} = "ov.Add"(%x, %c{i}) <{{friendly_name = "r{i}", tensor_names = [["{n}"]]}}> '
    ": (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>\n"
    f'  "ov.Result"(%y{i}) : (tensor<2xf32>) -> ()\n'
    for i, n in enumerate(_OUT_NAMES)
) + "}\n"


def test_run_output_dir_keeps_outputs_with_colliding_names_apart(tmp_path, capsys):
    """Outputs named ``a/b`` and ``a_b`` were both written to ``a_b.npy``
    (one lost, exit 0): each output now has a file of its own, named by a
    reversible escaping of the output's name."""
    from urllib.parse import unquote

    from xmo.tools.xmo_main import output_file_name

    model = tmp_path / "m.mlir"
    model.write_text(TWO_OUTPUTS.replace(', tensor_names = [[""]]', ''))
    assert main(["run", str(model), "--output-dir", str(tmp_path / "res")]) == 0
    printed = capsys.readouterr().out
    files = sorted(p.name for p in (tmp_path / "res").iterdir())
    names = [ln.split("output ", 1)[1].rsplit(": float32", 1)[0]
             for ln in printed.splitlines() if "] output " in ln]
    assert len(files) == len(names) == 9, (files, names)
    assert sorted(output_file_name(n) for n in names) == files
    for n in names:
        assert unquote(output_file_name(n)[: -len(".npy")]) == n
        assert "/" not in output_file_name(n)
    assert output_file_name("a/b") != output_file_name("a_b")
    assert output_file_name("probabilities") == "probabilities.npy"  # plain names unchanged


def test_extension_calling_sys_exit_is_an_error_naming_it(tmp_path):
    ext = tmp_path / "ext"
    (ext / "ops").mkdir(parents=True)
    (ext / "ops" / "quit.py").write_text("import sys\nsys.exit(0)\n")
    r = xmo("convert", str(ROOT / "models" / "demo.onnx"), "-o", str(tmp_path / "out" / "m.xml"),
            "--extensions", str(ext))
    assert r.returncode == 1, r.stderr
    assert r.stderr.count("\n") == 1 and "quit.py" in r.stderr and "SystemExit" in r.stderr, r.stderr
    assert not (tmp_path / "out").exists()


def test_extension_calling_sys_exit_while_converting_is_an_error_naming_it(tmp_path):
    """``sys.exit()`` in an extension's transformation, during the conversion:
    exit 1 and one line naming the file, nothing written."""
    ext = tmp_path / "ext"
    (ext / "middle").mkdir(parents=True)
    (ext / "middle" / "leave.py").write_text(
        "import sys\n"
        "from xmo.passes.phases import MIDDLE, Transformation\n\n\n"
        "class Leave(Transformation):\n"
        "    id = 'leave'\n"
        "    phase = MIDDLE\n\n"
        "    def find_and_replace_pattern(self, graph):\n"
        "        sys.exit(0)\n"
    )
    r = xmo("convert", str(ROOT / "models" / "demo.onnx"), "-o", str(tmp_path / "out" / "m.xml"),
            "--extensions", str(ext))
    assert r.returncode == 1, r.stderr
    assert r.stderr.count("\n") == 1 and "leave.py" in r.stderr and "SystemExit" in r.stderr, r.stderr
    assert not (tmp_path / "out").exists()


def test_model_without_outputs_is_refused(tmp_path):
    """A TensorFlow graph of only Consts gave an IR with no layers and exit 0."""
    from xmo.frontends.tf import schema

    g = schema.GraphDef()
    for name in ("c", "d"):
        n = g.node.add(name=name, op="Const")
        n.attr["dtype"].type = schema.DataType.Value("DT_FLOAT")
        t = n.attr["value"].tensor
        t.dtype = schema.DataType.Value("DT_FLOAT")
        t.tensor_shape.dim.add(size=2)
        t.tensor_content = np.ones(2, np.float32).tobytes()
    (tmp_path / "consts.pb").write_bytes(g.SerializeToString())
    r = xmo("convert", str(tmp_path / "consts.pb"), "-o", str(tmp_path / "out" / "m.xml"))
    assert r.returncode == 1, r.stdout + r.stderr
    assert r.stderr.count("\n") == 1 and "no outputs" in r.stderr, r.stderr
    assert not (tmp_path / "out").exists()


def test_failed_save_removes_the_folders_it_created(tmp_path, capsys):
    (tmp_path / "old").mkdir()
    bad = tmp_path / "nonov.mlir"
    bad.write_text('builtin.module {\n  %0 = "ov.Parameter"() : () -> tensor<2xf32>\n'
                   '  %1 = "test.op"(%0) : (tensor<2xf32>) -> tensor<2xf32>\n'
                   '  "ov.Result"(%1) : (tensor<2xf32>) -> ()\n}\n')
    for out in (tmp_path / "new" / "dir" / "m.xml", tmp_path / "old" / "sub" / "m.xml"):
        assert main(["convert", str(bad), "-o", str(out)]) == 1
        assert "not an ov operation" in capsys.readouterr().err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["nonov.mlir", "old"]
    assert list((tmp_path / "old").iterdir()) == []


def test_openvino_errors_are_one_line(tmp_path):
    out = tmp_path / "demo.xml"
    assert main(["convert", str(DEMO), "-o", str(out)]) == 0
    np.save(tmp_path / "bad.npy", np.ones((1, 3, 8, 8), np.float32))
    r = xmo("run", str(out), "--device", "openvino", "--input", f"image={tmp_path / 'bad.npy'}")
    assert r.returncode == 1, r.stderr
    assert r.stderr.count("\n") == 1 and r.stderr.startswith("xmo: error: OpenVINO: "), r.stderr
