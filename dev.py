#!/usr/bin/env python3
"""Developer entry point needing only python3: ``python3 dev.py demo|test``.

* ``demo``: create ``.venv``, install xmo, convert the bundled default model
  (``models/demo.onnx``) to OpenVINO IR and run it on xmo's CPU backend and on
  OpenVINO, then compare every tensor with onnxruntime, printing what it did.
* ``test``: create ``.venv``, install xmo with its test extra, run all tests
  (pytest, then the lit/FileCheck suite).

The venv is reused when it is up to date with ``pyproject.toml``.
"""

from __future__ import annotations

import hashlib
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent
VENV = Path(os.environ.get("XMO_VENV", ROOT / ".venv"))
BIN = VENV / ("Scripts" if os.name == "nt" else "bin")
PY = BIN / "python"


def sh(*cmd: str | os.PathLike[str], **kw) -> None:
    print("+", " ".join(str(c) for c in cmd), flush=True)
    subprocess.run([str(c) for c in cmd], check=True, cwd=kw.pop("cwd", ROOT), **kw)


def ensure_venv() -> None:
    stamp = VENV / ".xmo-installed"
    digest = hashlib.sha256((ROOT / "pyproject.toml").read_bytes()).hexdigest()
    if stamp.exists() and stamp.read_text() == digest and PY.exists():
        return
    if not PY.exists():
        sh(sys.executable, "-m", "venv", VENV)
    sh(PY, "-m", "pip", "install", "-q", "--upgrade", "pip")
    sh(PY, "-m", "pip", "install", "-q", "-e", ".[test]")
    stamp.write_text(digest)


def demo() -> None:
    ensure_venv()
    out = ROOT / "out"
    out.mkdir(exist_ok=True)
    model = ROOT / "models" / "demo.onnx"
    print(f"== converting the bundled ONNX model {model.relative_to(ROOT)} to OpenVINO IR")
    sh(BIN / "xmo", "convert", model, "-o", out / "demo.xml")
    print("== running the IR on xmo's own CPU backend (numpy + numba)")
    sh(BIN / "xmo", "run", out / "demo.xml", "--benchmark", "20")
    print("== running the same IR with the OpenVINO runtime (CPU, f32)")
    sh(BIN / "xmo", "run", out / "demo.xml", "--device", "openvino", "--benchmark", "20")
    print("== checking every intermediate tensor against onnxruntime")
    sh(BIN / "xmo", "run", model, "--compare-with", "onnxruntime")


def test() -> None:
    ensure_venv()
    sh(PY, "-m", "pytest", "-q", "-p", "no:cacheprovider", "tests")
    sh(BIN / "lit", "-sv", "filecheck")


def main() -> int:
    cmds = {"demo": demo, "test": test}
    if len(sys.argv) != 2 or sys.argv[1] not in cmds:
        print(f"usage: python3 dev.py {{{'|'.join(cmds)}}}", file=sys.stderr)
        return 2
    try:
        cmds[sys.argv[1]]()
    except subprocess.CalledProcessError as e:
        return e.returncode or 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
