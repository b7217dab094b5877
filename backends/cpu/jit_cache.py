"""Keeps numba's on-disk cache of xmo's kernels coherent with their sources.

numba checks a cached kernel only against the file that defines it (its
modification time and size). A kernel that calls an njit function of another
module (``rows_jit.bias_act`` inlined into ``grouped_jit``, ``row_max_f32``
into ``attention_jit``) or reads another module's constants (frozen into the
compiled code: ``rows.CHUNK``, ``gemm_jit.LANES``) keeps the old code after
that other file changes, and runs it: stale results, no error.

:func:`refresh` runs once per process, before the first kernel is compiled or
loaded (:func:`xmo.backends.cpu.vector_width.configure`, which every module
defining numba kernels calls at import). It hashes the kernel modules (the
files that call ``vector_width.configure()``) together with every
``xmo.backends.cpu`` module the ``*_jit.py`` ones import, and when the digest differs from
the one stamped in ``__pycache__`` it deletes the numba cache files of the
backend's in-tree ``__pycache__`` folders and stamps the new digest. A
released install never changes its sources (upgrades rewrite every file, so
numba's own check drops them), so this matters for a source checkout; a
read-only tree (numba then caches per user) or ``NUMBA_CACHE_DIR`` is left
alone -- clear that folder after editing kernels.
"""

from __future__ import annotations

import hashlib
import os
import re
from pathlib import Path

#: the file in ``<root>/__pycache__`` holding the digest of the kernel sources
STAMP = "xmo_numba_sources.sha256"
#: the package the backend's modules are imported from
PACKAGE = "xmo.backends.cpu"
#: marks a module that defines numba kernels
_MARK = "vector_width.configure()"
_IMPORT = re.compile(r"^\s*from\s+(" + re.escape(PACKAGE) + r"(?:\.\w+)*)\s+import\s+"
                     r"(\([^)]*\)|[^#\n]+)", re.MULTILINE)


def kernel_sources(root: Path) -> list[Path]:
    """The kernel modules under ``root`` (the backend's folder, imported as
    :data:`PACKAGE`) and the backend modules the ``*_jit.py`` ones import,
    sorted."""
    files = sorted(p for p in root.rglob("*.py") if "__pycache__" not in p.parts)
    found = set()
    for path in files:
        text = path.read_text(encoding="utf-8")
        if _MARK not in text or path.name in ("vector_width.py", "jit_cache.py"):
            continue
        found.add(path)
        if not path.name.endswith("_jit.py"):
            continue  # numba code beside plain Python (fft, fpenv, activations' ufunc)
        for module, names in _IMPORT.findall(text):
            base = root.joinpath(*module[len(PACKAGE):].strip(".").split(".")) \
                if module != PACKAGE else root
            for name in [n.strip().split(" as ")[0] for n in names.strip("()").split(",")]:
                for cand in (base / f"{name}.py", base.with_suffix(".py")):
                    if cand.is_file():
                        found.add(cand)
    return sorted(found)


def digest(root: Path, sources: list[Path]) -> str:
    h = hashlib.sha256()
    for path in sources:
        h.update(path.relative_to(root).as_posix().encode())
        h.update(b"\0")
        h.update(path.read_bytes())
        h.update(b"\0")
    return h.hexdigest()


def refresh(root: Path | None = None) -> bool:
    """Delete the in-tree numba cache files under ``root`` (default: the CPU
    backend's folder) when the kernel sources changed since the last stamp;
    returns whether it deleted (or found nothing stamped)."""
    root = Path(__file__).resolve().parent if root is None else root
    cache = root / "__pycache__"
    stamp = cache / STAMP
    try:
        sources = kernel_sources(root)
        new = digest(root, sources)
        if stamp.is_file() and stamp.read_text(encoding="ascii").strip() == new:
            return False
        if not os.access(root, os.W_OK):
            return False  # numba caches per user then: not ours to clear
        for folder in sorted({p.parent / "__pycache__" for p in sources} | {cache}):
            for f in folder.glob("*.nb[ic]"):
                f.unlink(missing_ok=True)
        cache.mkdir(exist_ok=True)
        tmp = cache / f"{STAMP}.{os.getpid()}.tmp"
        tmp.write_text(new + "\n", encoding="ascii")
        os.replace(tmp, stamp)
    except OSError:
        return False  # an unreadable or read-only tree: numba's own checks stand
    return True
