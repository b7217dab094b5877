"""The wheel: every package folder in it, developer scripts out of it, and it
works on its own (setup.py, pyproject.toml)."""

from __future__ import annotations

import ast
import fnmatch
import json
import os
import shutil
import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

def _not_source(folder: str, names: list[str]) -> set[str]:
    """What a clone has that a build never reads (shutil.copytree's ignore)."""
    top = Path(folder) == ROOT
    return {
        n for n in names
        if n in ("__pycache__", ".pytest_cache", "Output") or n.startswith(".venv")
        or (top and (n in (".git", "build", "out") or n.endswith(".egg-info")))
    }  # fmt: skip


def _setup_facts(root: Path = ROOT) -> dict:
    """setup.py's package list and exclusions, read in a fresh interpreter
    (importing setuptools here would replace distutils under the test process)."""
    script = (
        "import json, runpy, sys\n"
        "g = runpy.run_path(sys.argv[1], run_name='setup_facts')\n"
        "print(json.dumps({'packages': g['packages'](), 'not_packages': g['NOT_PACKAGES'],\n"
        "                  'dev_only': list(g['DEV_ONLY'])}))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script, str(root / "setup.py")],
        capture_output=True, text=True, cwd=Path(tempfile.gettempdir()), timeout=120,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def _dev_only(facts: dict, package: str, module: str) -> bool:
    path = "/".join([*package.split(".")[1:], f"{module}.py"])
    return any(fnmatch.fnmatchcase(path, p) for p in facts["dev_only"])


def _package_folders(root: Path, not_packages: list[str]) -> dict[str, Path]:
    """``xmo.<dotted>`` -> folder, for every folder with an ``__init__.py``
    outside the excluded top-level folders (and never below one without)."""
    found = {"xmo": root}
    for init in sorted(root.rglob("__init__.py")):
        rel = init.parent.relative_to(root)
        if rel == Path(".") or rel.parts[0] in not_packages or rel.parts[0].startswith("."):
            continue
        for i in range(1, len(rel.parts)):
            parent = root.joinpath(*rel.parts[:i])
            assert (parent / "__init__.py").exists(), (
                f"{rel} has an __init__.py but {parent.relative_to(root)} has none: "
                "setuptools would not find it"
            )
        found["xmo." + ".".join(rel.parts)] = init.parent
    return found


def test_discovered_packages_are_the_folders_with_an_init():
    facts = _setup_facts()
    folders = _package_folders(ROOT, facts["not_packages"])
    assert facts["packages"] == ["xmo", "xmo.models", *sorted(set(folders) - {"xmo"})]


def test_dev_only_patterns_match_files():
    """Every pattern of DEV_ONLY names something (a stale pattern hides nothing)."""
    for pattern in _setup_facts()["dev_only"]:
        assert list(ROOT.glob(pattern)), pattern


@pytest.fixture(scope="module")
def wheel(tmp_path_factory) -> Path:
    tmp = tmp_path_factory.mktemp("wheel")
    src = tmp / "src"
    shutil.copytree(ROOT, src, ignore=_not_source)
    done = subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation",
         "--no-index", "-q", "-w", str(tmp / "dist"), str(src)],
        capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
    (whl,) = (tmp / "dist").glob("xmo-*.whl")
    return whl


def test_wheel_holds_every_module_but_the_dev_scripts(wheel):
    facts = _setup_facts()
    names = set(zipfile.ZipFile(wheel).namelist())
    shipped = {n for n in names if n.startswith("xmo/")}
    expected = set()
    for package, folder in _package_folders(ROOT, facts["not_packages"]).items():
        for module in folder.glob("*.py"):
            if not _dev_only(facts, package, module.stem):
                expected.add(str(Path(*package.split("."), module.name)))
    expected |= {"xmo/models/demo.onnx", "xmo/models/demo.mlir"}
    assert shipped == expected
    for gone in ("xmo/dev.py", "xmo/setup.py", "xmo/tools/gen_ov_opset.py",
                 "xmo/tools/gen_onnx_dialect.py", "xmo/tools/gen_tf_dialect.py",
                 "xmo/tools/make_demo_model.py", "xmo/tools/make_tf_fixtures.py"):  # fmt: skip
        assert gone not in names
    assert not any(n.split("/")[1] in facts["not_packages"] for n in shipped)


def test_wheel_entry_points_and_what_they_import_are_in_it(wheel):
    z = zipfile.ZipFile(wheel)
    (ep,) = [n for n in z.namelist() if n.endswith(".dist-info/entry_points.txt")]
    scripts = dict(
        (k.strip(), v.strip())
        for k, v in (ln.split("=") for ln in z.read(ep).decode().splitlines() if "=" in ln)
    )
    assert scripts == {"xmo": "xmo.tools.xmo_main:cli", "xmo-opt": "xmo.tools.xmo_opt:cli"}
    shipped = {n[:-3].replace("/", ".").removesuffix(".__init__") for n in z.namelist() if n.endswith(".py")}
    for target in scripts.values():
        assert target.split(":")[0] in shipped
    # no shipped module imports a module that stayed out
    facts = _setup_facts()
    left_out = {"xmo.dev", "xmo.setup"}
    for package, folder in _package_folders(ROOT, facts["not_packages"]).items():
        left_out |= {f"{package}.{m.stem}" for m in folder.glob("*.py") if _dev_only(facts, package, m.stem)}
    assert left_out.isdisjoint(shipped)
    for name in z.namelist():
        if not name.endswith(".py"):
            continue
        for node in ast.walk(ast.parse(z.read(name))):
            if isinstance(node, ast.ImportFrom) and node.module:
                targets = [node.module, *(f"{node.module}.{a.name}" for a in node.names)]
            elif isinstance(node, ast.Import):
                targets = [a.name for a in node.names]
            else:
                continue
            bad = left_out.intersection(targets)
            assert not bad, f"{name} imports {bad}, left out of the wheel"


def test_installed_wheel_converts_on_its_own(wheel, tmp_path):
    """The wheel alone (not the clone) imports, converts the bundled models and
    runs the ``xmo`` command's module."""
    target = tmp_path / "site"
    done = subprocess.run(
        [sys.executable, "-m", "pip", "install", "--no-deps", "--no-index", "-q",
         "--target", str(target), str(wheel)],
        capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    script = (
        "import sys, importlib.resources as r, xmo\n"
        f"assert xmo.__file__.startswith({str(target)!r}), xmo.__file__\n"
        "models = r.files('xmo.models')\n"
        "m = xmo.convert_model(str(models / 'demo.onnx'))\n"
        "xmo.read_model(str(models / 'demo.mlir'))\n"
        "from xmo.tools.xmo_main import main\n"
        "sys.exit(main(['convert', str(models / 'demo.onnx'), '-o', sys.argv[1]]))\n"
    )
    env = {**os.environ, "PYTHONPATH": str(target)}
    done = subprocess.run(
        [sys.executable, "-c", script, str(tmp_path / "out" / "demo.xml")],
        capture_output=True, text=True, env=env, cwd=tmp_path, timeout=300,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-3000:]
    assert (tmp_path / "out" / "demo.bin").exists()
