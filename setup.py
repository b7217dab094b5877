"""What goes into xmo's wheel (the metadata is in pyproject.toml).

The repository root *is* the ``xmo`` import package (``package-dir`` in
pyproject.toml), so two things cannot be said there:

* which packages there are: ``xmo``, every folder below the root with an
  ``__init__.py`` (found, never listed by hand; tests/, filecheck/,
  benchmarks/, examples/ and docs/ have none and are excluded anyway) and
  ``xmo.models``, the bundled models (data only);
* which modules stay out: :data:`DEV_ONLY`, the developer's scripts that run
  from a clone (``python3 dev.py ...``, ``python tools/<name>.py``, or
  ``python -m xmo.tools.<name>`` in the editable install, which maps ``xmo``
  to the whole folder).

``tests/test_packaging.py`` builds the wheel and checks both.
"""

from __future__ import annotations

import fnmatch
import warnings
from pathlib import Path

from setuptools import find_packages, setup
from setuptools.command.build_py import build_py
from setuptools.warnings import InformationOnly

ROOT = Path(__file__).resolve().parent

NOT_PACKAGES = ["tests", "filecheck", "benchmarks", "examples", "docs", "build", "out"]

DEV_ONLY = (
    "dev.py",
    "setup.py",
    "tools/gen_*.py",  # dialect and opset generators
    "tools/make_*.py",  # fixture and model generators
    "tools/check_*.py",
    "tools/ir_digests.py",  # the refactoring oracle
    "tools/ir_pair_stress.py",  # concurrent writers of one IR path (tests/test_ir_pair.py)
    "tools/onnx_conformance.py",
    "tools/fuzz_inputs.py",
    "tools/differential.py",
    "tools/bench_models.py",  # the benchmark models' cache folder (benchmarks/)
)
"""Paths (from the root, glob patterns) of modules left out of the wheel."""


def packages() -> list[str]:
    exclude = [p for name in NOT_PACKAGES for p in (name, f"{name}.*")]
    found = find_packages(where=str(ROOT), exclude=exclude)
    return ["xmo", "xmo.models", *sorted(f"xmo.{p}" for p in found)]


def is_dev_only(package: str, module: str) -> bool:
    """Whether module ``module`` of package ``package`` (``xmo...``) stays out."""
    path = "/".join([*package.split(".")[1:], f"{module}.py"])
    return any(fnmatch.fnmatchcase(path, pattern) for pattern in DEV_ONLY)


class BuildPyWithoutDevScripts(build_py):
    def find_package_modules(self, package, package_dir):  # noqa: ANN001, ANN201
        modules = super().find_package_modules(package, package_dir)
        return [m for m in modules if not is_dev_only(m[0], m[1])]


# setuptools prints a notice on every editable install of a layout that needs
# its import finder (a package folder that is not below a "src"-like root):
# "be careful with folders in your working directory with the same name as
# your package". Here the package is the working directory itself, so there is
# nothing to be careful about; the notice would be all `dev.py demo` prints.
if __name__ == "__main__":
    warnings.filterwarnings("ignore", r"Editable installation\.", InformationOnly)
    setup(packages=packages(), cmdclass={"build_py": BuildPyWithoutDevScripts})
