"""The package's own source files, for the tests that read the code itself
(``test_architecture``: imports, cycles; ``test_names``: where names are
defined)."""

from __future__ import annotations

from pathlib import Path

import xmo

ROOT = Path(xmo.__file__).resolve().parent

#: top-level entries of the repository that are not part of the package
NOT_PACKAGE = {"tests", "tools", "benchmarks", "examples", "filecheck", "docs", "models",
               "build", "dev.py", "setup.py"}


def package_modules() -> dict[str, tuple[Path, bool]]:
    """Module name -> (file, is a package ``__init__``), dot-folders left out."""
    mods: dict[str, tuple[Path, bool]] = {}
    for path in sorted(ROOT.rglob("*.py")):
        rel = path.relative_to(ROOT)
        if rel.parts[0] in NOT_PACKAGE or any(p.startswith(".") for p in rel.parts):
            continue
        parts = list(rel.with_suffix("").parts)
        is_pkg = parts[-1] == "__init__"
        if is_pkg:
            parts.pop()
        mods[".".join(["xmo", *parts])] = (path, is_pkg)
    return mods
