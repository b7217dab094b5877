"""Pipeline debugging (xmo.passes.debug): --print-ir-after-all / --print-ir-after,
--time-passes, --dump-dir, ``xmo viz``, and the progress bar (only on a TTY)."""

from __future__ import annotations

import io
import shutil
import subprocess
import sys
from pathlib import Path

from xmo.tools.xmo_main import main

ROOT = Path(__file__).resolve().parents[1]
DEMO = ROOT / "models" / "demo.onnx"


def test_print_ir_after_named_pass_and_time_passes(tmp_path, capsys):
    out = tmp_path / "m.xml"
    assert main(["convert", str(DEMO), "-o", str(out), "--print-ir-after", "ov-fusions",
                 "--time-passes"]) == 0
    err = capsys.readouterr().err
    assert err.count("// -----// IR Dump After ") == 1
    assert "// -----// IR Dump After ov-fusions //----- //" in err
    assert "xmo pass timing" in err
    for name in ("(load)", "convert-onnx-to-ov", "ov-constant-fold", "ov-fusions", "(serialize)", "Total"):
        assert name in err, name
    assert "\r" not in err  # not a terminal: no progress bar


def test_print_ir_after_all_and_dump_dir(tmp_path, capsys):
    d = tmp_path / "dump"
    assert main(["convert", str(DEMO), "-o", str(tmp_path / "m.xml"), "--print-ir-after-all",
                 "--dump-dir", str(d)]) == 0
    err = capsys.readouterr().err
    files = sorted(p.name for p in d.iterdir())
    assert files[0] == "001_onnx-canonicalize.mlir"
    assert "004_ov-fusions.mlir" in files or any(f.endswith("_ov-fusions.mlir") for f in files)
    assert err.count("IR Dump After") == len(files)
    assert "ov.Convolution" in (d / files[-1]).read_text()


def test_xmo_opt_dump_dir_and_print_ir_after(tmp_path):
    d = tmp_path / "dump"
    r = subprocess.run(
        [sys.executable, "-m", "xmo.tools.xmo_opt", str(DEMO), "-p",
         "convert-onnx-to-ov,ov-constant-fold", "--dump-dir", str(d),
         "--print-ir-after", "ov-constant-fold"],
        capture_output=True, text=True, check=False,
    )
    assert r.returncode == 0, r.stderr
    assert sorted(p.name for p in d.iterdir()) == ["001_convert-onnx-to-ov.mlir", "002_ov-constant-fold.mlir"]
    assert r.stderr.count("IR Dump After") == 1


def test_viz_writes_dot_or_svg(tmp_path, capsys):
    out = tmp_path / "g.svg"
    assert main(["viz", str(DEMO), "-o", str(out)]) == 0
    if shutil.which("dot"):
        assert out.exists()
        text = out.read_text()
    else:
        text = out.with_suffix(".dot").read_text()
        assert "Graphviz dot not available" in capsys.readouterr().out
    assert "Convolution" in text and "f32[1,3,32,32]" in text


def test_viz_dot_source_on_request(tmp_path):
    out = tmp_path / "g.dot"
    assert main(["viz", str(DEMO), "-o", str(out)]) == 0
    assert out.read_text().startswith("digraph")


class _TTY(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_progress_bar_on_a_terminal_only(monkeypatch):
    from ov_graphs import G
    from xmo.passes import debug
    from xmo.passes.ov_dce import OVDeadCodeEliminationPass
    from xmo.passes.tracing import run_pass

    monkeypatch.delenv("XMO_NO_PROGRESS", raising=False)
    assert not debug.progress_wanted(io.StringIO())
    assert debug.progress_wanted(_TTY())
    g = G()
    g.result(g.op("Relu", [g.param([2], "x")]), "y")
    tty = _TTY()
    with debug.session(stream=tty, total=2):
        with debug.phase("load"):
            pass
        run_pass(OVDeadCodeEliminationPass(), g.ctx, g.module())
    text = tty.getvalue()
    assert "\rxmo [" in text and "ov-dce" in text and "2/2" in text
    assert text.endswith("\r")  # the line is erased at the end
    monkeypatch.setenv("XMO_NO_PROGRESS", "1")
    assert not debug.progress_wanted(_TTY())
    assert debug.current() is None
