"""Pass tracing: XMO_PROFILE_PASS_ENABLE and XMO_ENABLE_VISUALIZE_TRACING on a
real conversion (``xmo convert models/demo.onnx``) and in ``xmo-opt``."""

from __future__ import annotations

import os
import re
import stat
import subprocess
import sys
from pathlib import Path

import pytest
from xdsl.parser import Parser
from xmo.context import make_context
from xmo.passes import tracing
from xmo.passes.ov_infer_shapes import OVInferShapesPass
from xmo.tools.xmo_main import main as xmo_main
from xmo.tools.xmo_opt import main as opt_main

ROOT = Path(__file__).resolve().parents[1]
DEMO_ONNX = ROOT / "models" / "demo.onnx"
EXAMPLES = ROOT / "examples" / "transformations"
LINE = re.compile(
    r"^xmo-profile: ( *)(\S.*?)\s+(\d+\.\d{3}) ms  (changed|unchanged|failed)(.*)$"
)

MODEL = """
builtin.module {
  %x = "ov.Parameter"() <{friendly_name = "x"}> : () -> tensor<2x3xf32>
  %n = "ov.Negative"(%x) <{friendly_name = "neg"}> : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %r = "ov.Relu"(%n) : (tensor<2x3xf32>) -> tensor<?x?xf32>
  "ov.Result"(%r) : (tensor<?x?xf32>) -> ()
}
"""


@pytest.fixture(autouse=True)
def clean_env(monkeypatch):
    monkeypatch.delenv(tracing.PROFILE_ENV, raising=False)
    monkeypatch.delenv(tracing.VISUALIZE_ENV, raising=False)


def profile_lines(err: str) -> list[tuple[int, str, float, str, str]]:
    out = []
    for ln in err.splitlines():
        m = LINE.match(ln)
        if m:
            out.append((len(m[1]) // 2, m[2], float(m[3]), m[4], m[5].strip()))
    return out


def test_profile_convert_prints_one_line_per_pass(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv(tracing.PROFILE_ENV, "1")
    assert xmo_main(["convert", str(DEMO_ONNX), "-o", str(tmp_path / "m.xml")]) == 0
    lines = profile_lines(capsys.readouterr().err)
    names = [name for _, name, *_ in lines]
    # the legalization pipeline: its passes in order, each once
    assert names[:3] == ["onnx-canonicalize", "convert-onnx-to-ov", "ov-constant-fold"]
    assert names[-1] == "ov-dce" and len(set(names)) == len(names)
    status = {name: st for _, name, _, st, _ in lines}
    assert status["convert-onnx-to-ov"] == "changed"
    assert status["onnx-canonicalize"] in ("changed", "unchanged")
    assert all(ms >= 0 for _, _, ms, _, _ in lines)


def test_visualize_convert_writes_one_picture_per_pass(tmp_path, monkeypatch, capsys):
    folder = tmp_path / "pictures"
    monkeypatch.setenv(tracing.PROFILE_ENV, "1")
    monkeypatch.setenv(tracing.VISUALIZE_ENV, str(folder))
    monkeypatch.setenv("PATH", str(tmp_path / "no-dot"))  # no Graphviz: .dot files
    assert xmo_main(["convert", str(DEMO_ONNX), "-o", str(tmp_path / "m.xml")]) == 0
    err = capsys.readouterr().err
    passes = [name for depth, name, *_ in profile_lines(err) if depth == 0]
    files = sorted(p.name for p in folder.iterdir())
    assert files == [f"{i:03d}_{name}.dot" for i, name in enumerate(passes, 1)]
    assert str(folder) in err  # the folder is announced
    last = (folder / files[-1]).read_text()
    assert (
        last.startswith("digraph xmo {") and "Convolution" in last and "Softmax" in last
    )
    assert "-> " in last and 'label="after ov-dce"' in last


def test_visualize_default_folder_and_svg_with_dot(tmp_path, monkeypatch, capsys):
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    fake = bin_dir / "dot"  # stands in for Graphviz: writes the file -o names
    fake.write_text(
        "#!/bin/sh\n"
        'out=""; while [ $# -gt 0 ]; do if [ "$1" = "-o" ]; then out="$2"; fi; shift; done\n'
        'cat > /dev/null; echo "<svg/>" > "$out"\n'
    )
    fake.chmod(fake.stat().st_mode | stat.S_IEXEC)
    monkeypatch.setenv("PATH", f"{bin_dir}{os.pathsep}{os.environ['PATH']}")
    monkeypatch.setenv(tracing.VISUALIZE_ENV, "1")
    monkeypatch.setenv(tracing.PROFILE_ENV, "1")
    monkeypatch.setattr(tracing, "_default_folder", None)
    monkeypatch.chdir(tmp_path)
    assert xmo_main(["convert", str(DEMO_ONNX), "-o", str(tmp_path / "m.xml")]) == 0
    err = capsys.readouterr().err
    passes = [name for depth, name, *_ in profile_lines(err) if depth == 0]
    (folder,) = tmp_path.glob("xmo_visualize_*")
    assert sorted(p.name for p in folder.iterdir()) == [
        f"{i:03d}_{name}.svg" for i, name in enumerate(passes, 1)
    ]
    assert (folder / f"001_{passes[0]}.svg").read_text() == "<svg/>\n"
    assert folder.name in err


def test_failing_dot_falls_back_to_dot_files(tmp_path, monkeypatch):
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    fake = bin_dir / "dot"
    fake.write_text("#!/bin/sh\nexit 3\n")
    fake.chmod(fake.stat().st_mode | stat.S_IEXEC)
    monkeypatch.setenv("PATH", str(bin_dir))
    ctx = make_context()
    m = Parser(ctx, MODEL).parse_module()
    path = tracing.write_picture(m, "a pass/with odd:name", tmp_path / "pics")
    assert path.suffix == ".dot" and path.name.endswith("_a_pass_with_odd_name.dot")


def test_xmo_opt_profiles_passes_and_matchers(tmp_path, monkeypatch, capsys):
    src = tmp_path / "m.mlir"
    src.write_text(MODEL)
    folder = tmp_path / "pics"
    monkeypatch.setenv(tracing.PROFILE_ENV, "1")
    monkeypatch.setenv(tracing.VISUALIZE_ENV, str(folder))
    monkeypatch.setenv("PATH", str(tmp_path))
    args = [
        str(src),
        "--extensions",
        str(EXAMPLES),
        "-p",
        "ov-infer-shapes,example-rewrites,ov-dce",
    ]
    assert opt_main(args) == 0
    captured = capsys.readouterr()
    assert '"ov.Multiply"' in captured.out  # the IR on stdout is untouched
    lines = profile_lines(captured.err)
    assert [(d, name, st) for d, name, _, st, _ in lines] == [
        (0, "ov-infer-shapes", "changed"),
        (0, "example-rewrites", "changed"),
        (1, "matcher mish-fusion", "unchanged"),
        (1, "matcher convert-negative", "changed"),
        (1, "matcher convert-divide", "unchanged"),
        (1, "matcher eliminate-nop-convert", "unchanged"),
        (0, "ov-dce", "unchanged"),
    ]
    assert lines[3][4] == "(1/1 applied)" and lines[2][4] == "(0/0 applied)"
    assert sorted(p.name for p in folder.iterdir()) == [
        "001_ov-infer-shapes.dot",
        "002_example-rewrites.dot",
        "003_ov-dce.dot",
    ]


def test_xmo_opt_keeps_xdsl_callbacks(tmp_path, monkeypatch, capsys):
    src = tmp_path / "m.mlir"
    src.write_text(MODEL)
    monkeypatch.setenv(tracing.PROFILE_ENV, "1")
    assert opt_main([str(src), "-p", "ov-infer-shapes,ov-dce", "--time-passes"]) == 0
    captured = capsys.readouterr()
    assert "Pass ov-infer-shapes took" in captured.out
    assert [x[1] for x in profile_lines(captured.err)] == ["ov-infer-shapes", "ov-dce"]


def test_tracing_off_prints_and_writes_nothing(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    assert xmo_main(["convert", str(DEMO_ONNX), "-o", str(tmp_path / "m.xml")]) == 0
    assert "xmo-profile" not in capsys.readouterr().err
    assert not list(tmp_path.glob("xmo_visualize_*"))


def test_run_pass_with_a_function_and_change_detection(monkeypatch, capsys):
    monkeypatch.setenv(tracing.PROFILE_ENV, "yes")
    ctx = make_context()
    m = Parser(ctx, MODEL).parse_module()
    before = tracing.fingerprint(m)
    tracing.run_pass(lambda module, c: None, ctx, m, name="nothing")
    assert tracing.fingerprint(m) == before
    tracing.run_pass(OVInferShapesPass(), ctx, m)
    assert tracing.fingerprint(m) != before
    with pytest.raises(RuntimeError):
        tracing.run_pass(
            lambda module, c: (_ for _ in ()).throw(RuntimeError("boom")),
            ctx,
            m,
            name="bad",
        )
    lines = profile_lines(capsys.readouterr().err)
    assert [(x[1], x[3]) for x in lines] == [
        ("nothing", "unchanged"),
        ("ov-infer-shapes", "changed"),
        ("bad", "failed"),
    ]
    monkeypatch.setenv(tracing.PROFILE_ENV, "0")
    assert not tracing.profiling_enabled()


def test_profile_in_a_subprocess():
    """The variables work for the real command line too."""
    env = {**os.environ, tracing.PROFILE_ENV: "1"}
    env.pop(tracing.VISUALIZE_ENV, None)
    r = subprocess.run(
        [
            sys.executable,
            "-m",
            "xmo.tools.xmo_opt",
            str(ROOT / "models" / "demo.mlir"),
            "-p",
            "ov-init-node-info",
        ],
        capture_output=True,
        text=True,
        env=env,
        check=False,
    )
    assert r.returncode == 0, r.stderr
    assert [x[1] for x in profile_lines(r.stderr)] == ["ov-init-node-info"]
