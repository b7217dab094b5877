"""lit configuration of xmo's FileCheck suite (run: ``lit -v filecheck``)."""

import os
import shutil
import sys

import lit.formats

config.name = "xmo"
config.test_format = lit.formats.ShTest(execute_external=False)
config.suffixes = [".mlir"]
config.test_source_root = os.path.dirname(__file__)
config.excludes = ["Inputs", "lit.cfg.py"]

# Tools come from the environment lit runs in (the project's venv).
bindir = os.path.dirname(sys.executable)
config.environment["PATH"] = os.pathsep.join(
    [bindir, config.environment.get("PATH", os.environ.get("PATH", ""))]
)
for tool in ("xmo-opt", "xmo", "filecheck"):
    path = shutil.which(tool, path=config.environment["PATH"])
    if path is None:
        lit_config.fatal(f"{tool} not found: install xmo with its test extra")
config.substitutions.append(("%python", sys.executable))
