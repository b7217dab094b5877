"""Pass tracing: per-pass profiling and graph pictures, for every pipeline.

Every pipeline runs its passes through :func:`run_pass` (the conversion and
``xmo-opt -p`` through :func:`xmo.passes.pipeline.run_pipeline`,
:class:`~xmo.passes.transformations.Manager` pass by pass).
Two environment variables switch tracing on:

``XMO_PROFILE_PASS_ENABLE=1``
    After each pass, one line on stderr: the pass name, its wall time and
    whether it changed the module; a GraphRewrite (or MatcherPass) adds one
    line per matcher (time spent matching and in callbacks, matches applied)::

        xmo-profile: convert-onnx-to-ov                     12.345 ms  changed
        xmo-profile:   matcher ConvertNegative               0.101 ms  changed (1/1 applied)

    Whether a plain xDSL pass changed the module is decided by comparing a
    structural fingerprint of the module before and after (outside the timing).

``XMO_ENABLE_VISUALIZE_TRACING=1``
    After each pass, a picture of the module: ``NNN_<pass>.svg`` when
    Graphviz ``dot`` is installed, else the ``NNN_<pass>.dot`` source. The
    pictures go to a new folder ``xmo_visualize_<time>_<pid>`` in the current
    directory (announced once on stderr); set the variable to a folder path
    instead of ``1`` to choose it.
"""

from __future__ import annotations

import itertools
import os
import re
import shutil
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Operation, OpResult
from xdsl.passes import ModulePass

PROFILE_ENV = "XMO_PROFILE_PASS_ENABLE"
VISUALIZE_ENV = "XMO_ENABLE_VISUALIZE_TRACING"
#: seconds ``dot`` may take for one picture before the ``.dot`` is kept instead
DOT_TIMEOUT_ENV = "XMO_VISUALIZE_DOT_TIMEOUT"

_OFF = ("", "0", "false", "no", "off")
_ON = ("1", "true", "yes", "on")
PREFIX = "xmo-profile: "


def profiling_enabled() -> bool:
    return os.environ.get(PROFILE_ENV, "").strip().lower() not in _OFF


_default_folder: Path | None = None
_announced: set[Path] = set()
_counters: dict[Path, itertools.count[int]] = {}
_dot_warned = False


def visualize_dir() -> Path | None:
    """The picture folder, or None when visualization is off."""
    global _default_folder
    v = os.environ.get(VISUALIZE_ENV, "").strip()
    if v.lower() in _OFF:
        return None
    if v.lower() in _ON:
        if _default_folder is None:
            stamp = time.strftime("%Y%m%d_%H%M%S")
            _default_folder = Path.cwd() / f"xmo_visualize_{stamp}_{os.getpid()}"
        return _default_folder
    return Path(v).resolve()


def pass_name(p: Any) -> str:
    name = getattr(p, "name", None)
    if isinstance(name, str) and name:
        return name
    return getattr(p, "__name__", type(p).__name__)


# ---------------------------------------------------------------------------
# Running a pass
# ---------------------------------------------------------------------------

#: child lines of the passes being profiled (innermost last)
_stack: list[list[str]] = []


def _apply(pass_: Any, ctx: Context, module: ModuleOp) -> bool | None:
    from xmo.passes.transformations.base import TransformationPass

    if isinstance(pass_, TransformationPass):
        return pass_.run(ctx, module)
    if isinstance(pass_, ModulePass) or hasattr(pass_, "apply"):
        pass_.apply(ctx, module)
        return None
    if callable(pass_):
        pass_(module, ctx)
        return None
    raise TypeError(f"run_pass needs a ModulePass or a function, got {pass_!r}")


def run_pass(
    pass_: ModulePass | Callable[[ModuleOp, Context], Any],
    ctx: Context,
    module: ModuleOp,
    *,
    name: str | None = None,
) -> bool | None:
    """Apply ``pass_`` to ``module`` with the tracing the environment asks for.

    ``pass_``: an xDSL ``ModulePass`` (transformations from
    :mod:`xmo.passes.transformations` report whether they changed the module:
    the return value) or a function ``fn(module, ctx)`` named by ``name``.
    """
    from xmo.passes import debug

    profile = profiling_enabled()
    folder = visualize_dir()
    dbg = debug.current()
    if not profile and folder is None and dbg is None:
        return _apply(pass_, ctx, module)
    from xmo.passes.transformations.base import TransformationPass

    label = name or pass_name(pass_)
    if dbg is not None and not _stack:
        debug.before_pass(label)
    reports_change = isinstance(pass_, TransformationPass)
    before = fingerprint(module) if profile and not reports_change else None
    _stack.append([])
    failed = True
    start = time.perf_counter()
    try:
        result = _apply(pass_, ctx, module)
        failed = False
    finally:
        elapsed = time.perf_counter() - start
        children = _stack.pop()
        if profile:
            if failed:
                status = "failed"
            elif reports_change:
                status = "changed" if result else "unchanged"
            else:
                status = "changed" if fingerprint(module) != before else "unchanged"
            _emit([_line(label, elapsed, status, len(_stack)), *children])
    if folder is not None:
        write_picture(module, label, folder)
    if dbg is not None:
        debug.after_pass(label, module, elapsed, len(_stack))
    return result


def _line(label: str, seconds: float, status: str, depth: int) -> str:
    indent = "  " * depth
    width = max(48 - len(indent), len(label))
    return f"{indent}{label:<{width}} {seconds * 1000:>10.3f} ms  {status}"


def _emit(lines: list[str]) -> None:
    if _stack:
        _stack[-1].extend(lines)
        return
    for ln in lines:
        print(PREFIX + ln, file=sys.stderr)
    sys.stderr.flush()


def report_matcher(name: str, seconds: float, matches: int, applied: int) -> None:
    """One matcher's line under the pass being profiled."""
    status = f"{'changed' if applied else 'unchanged'} ({applied}/{matches} applied)"
    _emit([_line(f"matcher {name}", seconds, status, len(_stack))])


# ---------------------------------------------------------------------------
# Change detection
# ---------------------------------------------------------------------------


def _h(a: Any) -> int:
    try:
        return hash(a)
    except TypeError:
        return hash(str(a))


def fingerprint(module: Operation) -> int:
    """A hash of the module's structure: ops, operands, types, properties."""
    index: dict[Operation, int] = {}
    items = []
    for i, op in enumerate(module.walk()):
        index[op] = i
        operands = tuple(
            (index.get(v.owner, -1), v.index)
            if isinstance(v, OpResult)
            else (-2, id(v))
            for v in op.operands
        )
        items.append(
            (
                op.name,
                operands,
                tuple(_h(r.type) for r in op.results),
                tuple((k, _h(v)) for k, v in sorted(op.properties.items())),
                tuple((k, _h(v)) for k, v in sorted(op.attributes.items())),
            )
        )
    return hash(tuple(items))


# ---------------------------------------------------------------------------
# Pictures
# ---------------------------------------------------------------------------


def _slug(label: str) -> str:
    return re.sub(r"[^A-Za-z0-9_.-]+", "_", label).strip("_")[:80] or "pass"


def write_picture(module: ModuleOp, label: str, folder: Path) -> Path:
    """Write the module's picture after ``label`` into ``folder``; the path."""
    global _dot_warned
    from xmo.graph.dot import to_dot

    folder.mkdir(parents=True, exist_ok=True)
    if folder not in _announced:
        _announced.add(folder)
        print(
            f"xmo: {VISUALIZE_ENV}: a graph picture after each transformation "
            f"goes to {folder}",
            file=sys.stderr,
        )
    seq = next(_counters.setdefault(folder, itertools.count(1)))
    base = folder / f"{seq:03d}_{_slug(label)}"
    text = to_dot(module, title=f"after {label}")
    dot = shutil.which("dot")
    if dot is not None:
        svg = base.with_suffix(".svg")
        try:
            timeout = float(os.environ.get(DOT_TIMEOUT_ENV, "60"))
            subprocess.run(
                [dot, "-Tsvg", "-o", str(svg)],
                input=text.encode(),
                check=True,
                capture_output=True,
                timeout=timeout,
            )
            return svg
        except (OSError, ValueError, subprocess.SubprocessError) as e:
            svg.unlink(missing_ok=True)
            if not _dot_warned:
                _dot_warned = True
                print(
                    f"xmo: dot failed ({type(e).__name__}); writing .dot files",
                    file=sys.stderr,
                )
    path = base.with_suffix(".dot")
    path.write_text(text)
    return path


__all__ = [
    "PROFILE_ENV",
    "VISUALIZE_ENV",
    "fingerprint",
    "profiling_enabled",
    "report_matcher",
    "run_pass",
    "visualize_dir",
    "write_picture",
]
