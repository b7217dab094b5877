"""What ``xmo validate`` validates: :class:`Task` (a model and its options)
and the manifests listing them; :class:`CallTask`, a named function the same
workers run (e.g. one ONNX conformance case).

A manifest is a text file of one model a line (``#`` starts a comment), or a
JSON (``.json``) or YAML (``.yaml`` / ``.yml``, when PyYAML is installed) list
whose items are a model path or an object::

    [{"model": "a.onnx", "input": "x[1,3,8,8]", "inputs": "a_in.npz",
      "outputs": "a_ref.npz", "rtol": 1e-3, "atol": 1e-5,
      "extensions": ["ext/"], "name": "a", "timeout": 60}]

Relative paths are read from the manifest's folder.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import asdict, dataclass, field, fields
from pathlib import Path
from typing import Any

from xmo.errors import XmoError
from xmo.tools.compare import ATOL, RTOL  # the tolerances of ``xmo run --compare-with``
#: what :attr:`Task.key` depends on besides the files: bump when the checks change
CHECKS_VERSION = 1


class ManifestError(XmoError):
    """A manifest that cannot be read (one line)."""


@dataclass
class Task:
    model: str
    name: str = ""
    #: xmo's ``--input`` (names and shapes)
    input: str | None = None
    #: input values: ``.npy`` (the one input) or ``.npz`` (by input name)
    inputs: str | None = None
    #: reference outputs: ``.npy`` (the one output) or ``.npz`` (by output name)
    outputs: str | None = None
    rtol: float = RTOL
    atol: float = ATOL
    extensions: list[str] = field(default_factory=list)
    #: seconds for this model (default: ``--timeout``)
    timeout: float | None = None
    #: run-wide settings, copied into each task (they change its results)
    runtime: str = "openvino"
    with_ovc: bool = False
    memory_limit: int = 0

    def __post_init__(self) -> None:
        if not self.name:
            self.name = Path(self.model).name

    def files(self) -> list[str]:
        """What the results depend on: the model, inputs, reference outputs, extension folders."""
        return [p for p in (self.model, self.inputs, self.outputs, *self.extensions) if p]

    def key(self) -> str:
        """The digest of the model's files and of every option: a rerun with the
        same key is the same validation."""
        h = hashlib.sha256()
        for p in self.files():
            h.update(file_digest(p).encode())
        opts = {k: v for k, v in asdict(self).items() if k not in ("model", "name", "memory_limit", "timeout")}
        opts["checks"] = CHECKS_VERSION
        opts["inputs"] = bool(self.inputs)
        opts["outputs"] = bool(self.outputs)
        h.update(json.dumps(opts, sort_keys=True).encode())
        return h.hexdigest()

    def to_json(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_json(cls, d: dict[str, Any]) -> Task:
        return cls(**d)


@dataclass
class CallTask:
    """A function run in a validation worker: ``function`` is ``module:name``
    or ``path/to/file.py:name``, called with ``args`` as keywords; it returns
    a JSON-able dict with at least ``status`` (``"pass"`` or a failure) and,
    for a failure, ``error`` (see :func:`xmo.validate.worker.run_call`).

    ``kind`` groups the results in the database (``kind`` + ``name`` is a row);
    ``depends``: what else its result depends on (package versions, options),
    part of :meth:`key` with the function, its arguments and xmo's source."""

    function: str
    name: str
    kind: str
    args: dict[str, Any] = field(default_factory=dict)
    depends: dict[str, Any] = field(default_factory=dict)
    #: seconds for this task (default: the run's)
    timeout: float | None = None

    def key(self) -> str:
        what = {"function": self.function.rsplit(":", 1)[-1], "args": self.args, "depends": self.depends,
                "checks": CHECKS_VERSION, "xmo": xmo_fingerprint()}
        return hashlib.sha256(json.dumps(what, sort_keys=True).encode()).hexdigest()

    def to_json(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_json(cls, d: dict[str, Any]) -> CallTask:
        return cls(**d)


def task_from_json(d: dict[str, Any]) -> Task | CallTask:
    """The task of :meth:`Task.to_json` or :meth:`CallTask.to_json`."""
    return CallTask.from_json(d) if "function" in d else Task.from_json(d)


_FINGERPRINT: str | None = None


def xmo_fingerprint() -> str:
    """xmo's version and a digest of its Python sources (a changed checkout
    is another xmo)."""
    global _FINGERPRINT
    if _FINGERPRINT is None:
        from importlib.metadata import PackageNotFoundError, version

        import xmo

        try:
            v = version("xmo")
        except PackageNotFoundError:
            v = "unknown"
        root = Path(xmo.__file__).resolve().parent
        h = hashlib.sha256()
        dirs = [d for d in sorted(root.iterdir()) if d.is_dir() and (d / "__init__.py").is_file()
                and d.name not in ("tests", "benchmarks")]
        for f in [*sorted(root.glob("*.py")), *(f for d in dirs for f in sorted(d.rglob("*.py")))]:
            h.update(str(f.relative_to(root)).encode() + b"\0")
            _hash_file(h, f)
        _FINGERPRINT = f"{v}+{h.hexdigest()[:16]}"
    return _FINGERPRINT


def file_digest(path: str) -> str:
    """SHA-256 of a file's bytes; of a folder's files (names and bytes) for a folder."""
    p = Path(path)
    h = hashlib.sha256()
    try:
        if p.is_dir():
            for f in sorted(q for q in p.rglob("*") if q.is_file()):
                h.update(str(f.relative_to(p)).encode() + b"\0")
                _hash_file(h, f)
        else:
            _hash_file(h, p)
    except OSError as e:
        return f"unreadable:{e.strerror}"
    return h.hexdigest()


def _hash_file(h: Any, path: Path) -> None:
    with open(path, "rb") as f:
        while chunk := f.read(1 << 20):
            h.update(chunk)


_KEYS = {f.name for f in fields(Task)} - {"runtime", "with_ovc", "memory_limit"}


def _task(item: Any, base: Path, where: str, defaults: dict[str, Any]) -> Task:
    if isinstance(item, str):
        item = {"model": item}
    if not isinstance(item, dict) or "model" not in item:
        raise ManifestError(f"{where}: expected a model path or an object with 'model'")
    unknown = set(item) - _KEYS
    if unknown:
        raise ManifestError(f"{where}: unknown key(s) {', '.join(sorted(unknown))} "
                            f"(known: {', '.join(sorted(_KEYS))})")
    d = {**defaults, **item}
    for k in ("model", "inputs", "outputs"):
        if d.get(k):
            d[k] = str((base / d[k]).resolve())
    d["extensions"] = [str((base / e).resolve()) for e in d.get("extensions", [])]
    for k in ("rtol", "atol", "timeout"):
        if d.get(k) is not None:
            d[k] = float(d[k])
    return Task(**d)


def read_manifest(path: str | Path, defaults: dict[str, Any] | None = None) -> list[Task]:
    """The tasks of a manifest; ``defaults``: options of entries that do not give them."""
    p = Path(path)
    try:
        text = p.read_text()
    except OSError as e:
        raise ManifestError(f"cannot read manifest {p}: {e.strerror}") from None
    base = p.resolve().parent
    suffix = p.suffix.lower()
    if suffix in (".yaml", ".yml"):
        try:
            import yaml
        except ImportError:
            raise ManifestError(f"{p}: YAML manifests need PyYAML (pip install pyyaml); "
                                "or write it as JSON") from None
        try:
            items = yaml.safe_load(text)
        except yaml.YAMLError as e:
            raise ManifestError(f"{p}: not valid YAML: {' '.join(str(e).split())}") from None
    elif suffix == ".json" or text.lstrip().startswith("["):
        try:
            items = json.loads(text)
        except json.JSONDecodeError as e:
            raise ManifestError(f"{p}: not valid JSON: {e}") from None
    else:
        items = [ln.split("#", 1)[0].strip() for ln in text.splitlines()]
        items = [ln for ln in items if ln]
    if not isinstance(items, list):
        raise ManifestError(f"{p}: expected a list of models")
    return [_task(item, base, f"{p} item {i + 1}", defaults or {}) for i, item in enumerate(items)]
