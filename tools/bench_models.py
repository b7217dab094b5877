"""Where the full-size benchmark models live, and reading their manifest.

``tools/make_real_models.py --size full`` writes random-weight models of
public architectures at realistic sizes (9-120 MB each, too large for git)
into a cache folder outside the checkout, shared by all worktrees:
``$XMO_BENCH_MODELS`` if set, else ``$XDG_CACHE_HOME/xmo/bench_models``
(``~/.cache/xmo/bench_models``). The benchmarks
(``bench_latency_light.py --suite zoo``, ``bench_convert_scale.py --groups
zoo``) read the folder's ``manifest.json``. numpy and json only: no
framework is imported here.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import numpy as np

ENV = "XMO_BENCH_MODELS"
#: the manifest's ``family`` values, in report order
FAMILIES = ("transformers", "cnn", "keras", "ocr_detection")
GENERATE = ("generate them with /path/to/torch-venv/bin/python tools/make_real_models.py "
            "--framework torch --size full (and --framework tf with a TensorFlow venv)")


def models_dir() -> Path:
    """The cache folder: ``$XMO_BENCH_MODELS``, else ``$XDG_CACHE_HOME/xmo/bench_models``."""
    env = os.environ.get(ENV)
    if env:
        return Path(env).expanduser()
    cache = os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache"
    return Path(cache) / "xmo" / "bench_models"


def read_manifest(folder: Path | None = None) -> dict:
    """The folder's manifest (``models``: name -> entry); SystemExit saying how
    to generate the models when there is none."""
    folder = models_dir() if folder is None else folder
    path = folder / "manifest.json"
    if not path.exists():
        raise SystemExit(f"no full-size models in {folder} (${ENV}, else $XDG_CACHE_HOME/xmo/bench_models): "
                         f"{GENERATE}")
    manifest = json.loads(path.read_text())
    for name, entry in manifest["models"].items():
        if entry.get("family") not in FAMILIES:
            raise ValueError(f"{path}: {name} has family {entry.get('family')!r}, not one of {FAMILIES}")
    return manifest


def model_entries(folder: Path | None = None, framework: str | None = None) -> list[tuple[str, Path, dict]]:
    """(name, model file, manifest entry) of the folder's models, by name;
    ``framework`` (``onnx`` / ``tf``) keeps one kind."""
    folder = models_dir() if folder is None else folder
    models = read_manifest(folder)["models"]
    return [(name, folder / e["file"], e) for name, e in sorted(models.items())
            if framework is None or e["framework"] == framework]


def recorded_inputs(folder: Path, entry: dict) -> dict[str, np.ndarray]:
    """A model's recorded inputs, keyed by graph input / Placeholder name."""
    with np.load(folder / entry["inputs_file"], allow_pickle=False) as npz:
        return {k: npz[k] for k in npz.files}
