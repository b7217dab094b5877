#!/usr/bin/env python3
"""Developer entry point needing only python3: ``python3 dev.py demo|test|test-latest|lock``.

* ``demo``: create ``.venv``, install xmo, convert the bundled default model
  (``models/demo.onnx``) to OpenVINO IR and run it on xmo's CPU backend and on
  OpenVINO, then compare every tensor with onnxruntime, printing what it did.
* ``test``: create ``.venv``, install xmo with its test extra at the versions
  ``constraints.txt`` pins (and Debian's chromium, when missing and this is
  root with apt-get: the ``xmo validate`` report test renders in it), run all
  tests (pytest, a file per worker on every core up to four: pytest-xdist's
  ``--dist loadfile``; then the lit/FileCheck suite).
* ``test-latest``: the same in ``.venv-latest`` with the newest releases of
  everything; when tests fail there, it finds which package's new release
  breaks which tests (by putting each moved package back to its pin in turn).
* ``lock``: write ``.venv-latest``'s versions into ``constraints.txt`` (run it
  after ``test-latest`` passes, or after fixing what it found).

``.venv`` is reused while ``pyproject.toml``, ``setup.py`` and ``constraints.txt``
are unchanged (``XMO_VENV`` names another folder).
"""

from __future__ import annotations

import hashlib
import os
import re
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

ROOT = Path(__file__).resolve().parent
VENV = Path(os.environ.get("XMO_VENV", ROOT / ".venv"))
LATEST_VENV = ROOT / ".venv-latest"
CONSTRAINTS = ROOT / "constraints.txt"


def bin_dir(venv: Path) -> Path:
    return venv / ("Scripts" if os.name == "nt" else "bin")


BIN = bin_dir(VENV)
PY = BIN / "python"


def sh(*cmd: str | os.PathLike[str], **kw) -> None:
    print("+", " ".join(str(c) for c in cmd), flush=True)
    subprocess.run([str(c) for c in cmd], check=True, cwd=kw.pop("cwd", ROOT), **kw)


def ensure_venv() -> None:
    """``.venv`` with xmo and its test extra at the pinned versions, and xmo's
    bytecode compiled."""
    stamp = VENV / ".xmo-installed"
    recipe = [ROOT / "pyproject.toml", ROOT / "setup.py", CONSTRAINTS]
    digest = hashlib.sha256(b"".join(p.read_bytes() for p in recipe)).hexdigest()
    if stamp.exists() and stamp.read_text() == digest and PY.exists():
        compile_sources()
        return
    if not PY.exists():
        sh(sys.executable, "-m", "venv", VENV)
    pins = ("-c", CONSTRAINTS)
    # setuptools and wheel too: tests/test_packaging.py builds the wheel with them
    sh(PY, "-m", "pip", "install", "-q", *pins, "--upgrade", "pip", "setuptools", "wheel")
    sh(PY, "-m", "pip", "install", "-q", *pins, "--build-constraint", CONSTRAINTS, "-e", ".[test]")
    stamp.write_text(digest)
    compile_sources()


def compile_sources() -> None:
    """Write the bytecode of the checkout's modules (those not up to date).

    The editable install runs xmo from this folder, whose modules pip does not
    compile; where ``PYTHONDONTWRITEBYTECODE`` is set, every ``xmo`` process
    (and every test that starts one) would compile them again from source,
    about 0.5 s of CPU per conversion."""
    sh(PY, "-m", "compileall", "-q", "-x", r"[/\\]\.venv", ROOT)


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


def ensure_chromium() -> None:
    """Debian's Chromium for the report test (tests/test_validate_report.py)
    when it is missing and this is root with apt-get (about 1-2 min: see the
    README's "Validating many models"); otherwise that test says why it skips."""
    import shutil

    if shutil.which("chromium") or shutil.which("chromium-browser"):
        return
    if not shutil.which("apt-get") or os.geteuid() != 0:
        print("== chromium not installed and no root apt-get: the report test will skip")
        return
    env = {**os.environ, "DEBIAN_FRONTEND": "noninteractive"}
    try:
        sh("apt-get", "update", "-qq", env=env)
        sh("apt-get", "install", "-y", "-qq", "--no-install-recommends", "chromium", env=env)
    except subprocess.CalledProcessError as e:
        print(f"== installing chromium failed ({e}): the report test will skip")


def pytest_command(py: Path) -> list[str]:
    """``py -m pytest`` as every run here calls it: quiet, no cache folder,
    one pytest-xdist worker per core this process may use, up to four (each
    worker compiles the numba kernels its files need -- about a third of a
    cold one-worker run -- and peaks near 3.5 GB), a test file's tests on one
    worker (module fixtures built once; files are independent of each other).
    A worker that dies ends the run at once, naming the test it was running
    (``--max-worker-restart=0``: pytest-xdist 3.8 under ``--dist loadfile``
    waits forever after replacing a crashed worker); a test that runs past
    the ini's ``faulthandler_timeout`` dumps its threads and ends its worker."""
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1
    return [str(py), "-m", "pytest", "-q", "-p", "no:cacheprovider",
            "-n", str(max(1, min(4, cores))), "--dist", "loadfile", "--max-worker-restart=0"]


def test() -> None:
    ensure_venv()
    ensure_chromium()
    sh(*pytest_command(PY), "tests")
    sh(BIN / "lit", "-sv", "filecheck")


# ---------------------------------------------------------------------------
# Moving the pins
# ---------------------------------------------------------------------------


def _key(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def read_pins(path: Path = CONSTRAINTS) -> dict[str, tuple[str, str]]:
    """normalized name -> (name as written, pinned version)."""
    pins = {}
    for line in path.read_text().splitlines():
        line = line.split("#", 1)[0].strip()
        if "==" in line:
            name, version = (p.strip() for p in line.split("==", 1))
            pins[_key(name)] = (name, version)
    return pins


def installed(py: Path) -> dict[str, tuple[str, str]]:
    """What a venv holds (pip, setuptools and wheel included; xmo itself left out)."""
    out = subprocess.run(
        [str(py), "-m", "pip", "list", "--format=freeze", "--exclude-editable"],
        check=True, capture_output=True, text=True,
    ).stdout  # fmt: skip
    found = {}
    for line in out.splitlines():
        if "==" in line:
            name, version = line.split("==", 1)
            if _key(name) != "xmo":
                found[_key(name)] = (name, version)
    return found


def _failed_tests(junit: Path) -> list[str]:
    """pytest node ids of the failed and errored tests in a JUnit report."""
    ids = []
    for case in ET.parse(junit).getroot().iter("testcase"):
        if case.find("failure") is not None or case.find("error") is not None:
            path = case.get("classname", "").split(".")
            # classname "tests.test_x" or "tests.test_x.TestClass"
            mod = [p for p in path if p.startswith("test_")]
            if not mod:
                continue
            i = path.index(mod[0])
            file = "/".join(path[: i + 1]) + ".py"
            ids.append("::".join([file, *path[i + 1 :], case.get("name", "")]))
    return ids


def _pytest(py: Path, ids: list[str], junit: Path) -> list[str]:
    base = pytest_command(py)
    cmd = [*base, f"--junitxml={junit}", *ids]
    print("+", " ".join(base), f"({len(ids)} tests)" if ids != ["tests"] else "tests", flush=True)
    subprocess.run(cmd, cwd=ROOT)
    return _failed_tests(junit)


def test_latest() -> int:
    """Every test against the newest releases; names the pins that cannot move yet."""
    py = bin_dir(LATEST_VENV) / "python"
    if not py.exists():
        sh(sys.executable, "-m", "venv", LATEST_VENV)
    sh(py, "-m", "pip", "install", "-q", "--upgrade", "pip", "setuptools", "wheel")
    sh(py, "-m", "pip", "install", "-q", "--upgrade", "--upgrade-strategy", "eager", "-e", ".[test]")
    pins, now = read_pins(), installed(py)
    moved = {k: (pins[k][1], v[1]) for k, v in now.items() if k in pins and pins[k][1] != v[1]}
    new = {k: v[1] for k, v in now.items() if k not in pins}
    print("\n== newest releases against constraints.txt")
    for k, (old, cur) in sorted(moved.items()):
        print(f"  {now[k][0]:24} {old:>14} -> {cur}")
    for k, cur in sorted(new.items()):
        print(f"  {now[k][0]:24} {'(not pinned)':>14} -> {cur}")
    if not moved and not new:
        print("  nothing moved")
    junit = LATEST_VENV / "junit.xml"
    failed = _pytest(py, ["tests"], junit)
    lit_ok = subprocess.run([str(bin_dir(LATEST_VENV) / "lit"), "-s", "filecheck"], cwd=ROOT).returncode == 0
    if not failed and lit_ok:
        print("\nevery test passes with the newest releases: `python3 dev.py lock` moves the pins")
        return 0
    print(f"\n== {len(failed)} pytest tests fail{'' if lit_ok else ', and FileCheck tests fail'}; "
          "putting each moved package back to its pin in turn")  # fmt: skip
    blame: dict[str, list[str]] = {}
    for k, (old, cur) in sorted(moved.items()):
        name = now[k][0]
        sh(py, "-m", "pip", "install", "-q", "--no-deps", f"{name}=={old}")
        try:
            still = set(_pytest(py, failed, junit)) if failed else set()
            fixed = [t for t in failed if t not in still]
            if not lit_ok and subprocess.run(
                [str(bin_dir(LATEST_VENV) / "lit"), "-q", "filecheck"], cwd=ROOT
            ).returncode == 0:  # fmt: skip
                fixed.append("filecheck (lit)")
        finally:
            sh(py, "-m", "pip", "install", "-q", "--no-deps", f"{name}=={cur}")
        if fixed:
            blame[name] = fixed
    print("\n== which pins can move")
    for k, (old, cur) in sorted(moved.items()):
        name = now[k][0]
        if name in blame:
            print(f"  HOLD {name} at {old}: {cur} breaks {len(blame[name])} test(s):")
            for t in blame[name][:20]:
                print(f"      {t}")
        else:
            print(f"  move {name} {old} -> {cur}: no failing test depends on it alone")
    explained = {t for ts in blame.values() for t in ts}
    rest = [t for t in failed if t not in explained]
    if rest:
        print(f"  {len(rest)} failing test(s) no single package explains (several together, or new packages):")
        for t in rest[:20]:
            print(f"      {t}")
    print("\nFix what breaks (or keep its pin in constraints.txt), then `python3 dev.py lock`.")
    return 1


def lock() -> int:
    """Write ``.venv-latest``'s versions into constraints.txt, keeping its header."""
    py = bin_dir(LATEST_VENV) / "python"
    if not py.exists():
        print("no .venv-latest: run `python3 dev.py test-latest` first", file=sys.stderr)
        return 1
    header = [ln for ln in CONSTRAINTS.read_text().splitlines() if ln.startswith("#")]
    now = installed(py)
    body = [f"{name}=={version}" for _, (name, version) in sorted(now.items())]
    CONSTRAINTS.write_text("\n".join(header + body) + "\n")
    print(f"constraints.txt: {len(body)} pins from .venv-latest; regenerate the conformance lists "
          "(tests/conformance) if onnx, numpy, ml_dtypes or openvino moved")  # fmt: skip
    return 0


def main() -> int:
    cmds = {"demo": demo, "test": test, "test-latest": test_latest, "lock": lock}
    if len(sys.argv) != 2 or sys.argv[1] not in cmds:
        print(f"usage: python3 dev.py {{{'|'.join(cmds)}}}", file=sys.stderr)
        return 2
    try:
        return cmds[sys.argv[1]]() or 0
    except subprocess.CalledProcessError as e:
        return e.returncode or 1


if __name__ == "__main__":
    sys.exit(main())
