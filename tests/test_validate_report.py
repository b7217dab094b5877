"""The ``xmo validate`` report rendered for real, in headless Chromium.

``python3 dev.py test`` installs Debian's chromium when it is missing (as
root with apt-get); this test installs it the same way when run on its own,
and skips, saying why, only where it cannot be installed.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from xmo.validate.report import write_report
from xmo.validate.worker import STATUSES, Result

ROOT = Path(__file__).resolve().parents[1]
FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync"]


def _chromium() -> str:
    found = shutil.which("chromium") or shutil.which("chromium-browser")
    if found:
        return found
    if os.geteuid() != 0 or not shutil.which("apt-get"):
        pytest.skip("chromium is not installed and cannot be: installing Debian's chromium needs "
                    "root and apt-get (python3 dev.py test does it where it can)")
    subprocess.run([sys.executable, "-c", "import dev; dev.ensure_chromium()"], cwd=ROOT, check=True,
                   timeout=900)
    found = shutil.which("chromium")
    assert found, "apt-get could not install chromium (see the output above)"
    return found


def _results() -> list[Result]:
    out = []
    for i, status in enumerate(STATUSES * 2):
        r = Result(f"model_{i:02d}<&>", f"/m/model_{i}.onnx", status=status, step="done",
                   model_bytes=1000 * (i + 1), peak_rss=(100 + 10 * i) << 20)
        if status in ("pass", "mismatch"):
            r.convert_s, r.layers, r.ovc_layers, r.transposes = 0.5 + i / 10, 10 + i, 12 + i, i % 2
            r.max_abs, r.max_rel = (1e-7 * (i + 1), 1e-6) if status == "pass" else (0.5, 2.0)
            r.layers_by_type, r.ovc_by_type = {"Add": 2, "MVN": 0}, {"Add": 1, "MVN": 1}
            r.latency_ms = {"openvino": 0.1 * (i + 1)}
        if status == "mismatch":
            r.divergence = "first divergent tensor: 'mm' (node 'matmul', MatMul): max abs diff 0.5"
        if status == "unsupported":
            r.details = "List of operations that cannot be converted:\n  com.example:Frobnicate (1): frob"
            r.error = "List of operations that cannot be converted: com.example:Frobnicate (1): frob"
        out.append(r)
    return out


def _dom(chromium: str, url: str, tmp: Path) -> str:
    r = subprocess.run([chromium, *FLAGS, f"--user-data-dir={tmp / 'profile'}", "--virtual-time-budget=3000",
                        "--dump-dom", url], capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr[-2000:]
    return r.stdout


def test_report_renders_in_headless_chromium(tmp_path: Path) -> None:
    chromium = _chromium()
    results = _results()
    page = tmp_path / "report.html"
    write_report(results, page)
    assert not re.search(r"(src|href)=\"(https?:)?//", page.read_text())  # nothing fetched
    dom = _dom(chromium, page.as_uri(), tmp_path)
    body = re.search(r"<body[^>]*>", dom).group(0)
    assert 'data-ready="1"' in body, body  # the script ran to its end
    assert "data-errors" not in body
    assert '<span id="shown">14</span>' in dom
    names = re.findall(r'<tr class="model"[^>]*><td data-v="([^"]*)"', dom)
    assert sorted(names) == sorted(f"model_{i:02d}&lt;&amp;&gt;" for i in range(14))
    for status in STATUSES:
        assert f">{status}: 2</span>" in dom
    assert dom.count("<svg") >= 4 and "Frobnicate" in dom and "first divergent tensor" in dom
    # sorted by the "Max abs err" column (2), descending: the mismatches first
    dom = _dom(chromium, page.as_uri() + "#sort=2-desc", tmp_path)
    assert 'data-ready="1"' in re.search(r"<body[^>]*>", dom).group(0)
    statuses = re.findall(r'<tr class="model" data-status="(\w+)"', dom)
    assert statuses[:4] == ["mismatch", "mismatch", "pass", "pass"]


def test_a_script_error_would_be_seen(tmp_path: Path) -> None:
    """The near miss: the same page with a failing script is not ready and says why."""
    chromium = _chromium()
    page = tmp_path / "broken.html"
    write_report(_results()[:2], page)
    page.write_text(page.read_text().replace("(function () {", "(function () { null.boom;", 1))
    body = re.search(r"<body[^>]*>", _dom(chromium, page.as_uri(), tmp_path)).group(0)
    assert "data-ready" not in body and "data-errors" in body
