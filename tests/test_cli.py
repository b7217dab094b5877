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
    model = tmp_path / "m.caffemodel"
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
