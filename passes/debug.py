"""Pipeline debugging and progress: ``--print-ir-after-all``,
``--print-ir-after PASS``, ``--time-passes``, ``--dump-dir D`` and the
terminal progress bar.

Every pipeline runs its passes through :func:`xmo.passes.tracing.run_pass`,
which calls :func:`after_pass` when :func:`configure` switched something on;
the command lines (``xmo convert``, ``xmo-opt``) configure it from their
flags inside :func:`session`, which also prints the timing table at the end.

* print IR: ``// -----// IR Dump After <pass> //----- //`` then the module
  text, on stderr (MLIR's format);
* dump dir: ``D/NNN_<pass>.mlir`` after each pass, numbered from 001 in
  the order the passes ran (:func:`dump_input` writes ``000_input.mlir``);
* time passes: one row per pass (wall time, share, runs), plus the phases
  the command line times (loading, serialization), then the total;
* progress: on a terminal (stderr is a TTY), one status line redrawn in
  place -- the current phase or pass, its step number and the elapsed time
  -- erased when the command ends; nothing at all when stderr is not a TTY
  (pipes, files, CI), or with ``XMO_NO_PROGRESS=1``.
"""

from __future__ import annotations

import os
import re
import sys
import time
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TextIO

from xdsl.dialects.builtin import ModuleOp


@dataclass
class DebugOptions:
    print_ir_after_all: bool = False
    print_ir_after: frozenset[str] = frozenset()
    time_passes: bool = False
    dump_dir: Path | None = None
    progress: bool = False
    stream: TextIO = field(default_factory=lambda: sys.stderr)
    # state
    timings: dict[str, list[float]] = field(default_factory=dict)
    dumped: int = 0
    step: int = 0
    #: expected number of steps (None: unknown, the bar just moves)
    total: int | None = None
    started: float = field(default_factory=time.perf_counter)

    def active(self) -> bool:
        return bool(
            self.print_ir_after_all or self.print_ir_after or self.time_passes
            or self.dump_dir is not None or self.progress
        )


_options: DebugOptions | None = None


def current() -> DebugOptions | None:
    """The active options, or None when nothing is switched on."""
    return _options if _options is not None and _options.active() else None


def progress_wanted(stream: TextIO | None = None) -> bool:
    """A progress bar is shown only on a terminal."""
    if os.environ.get("XMO_NO_PROGRESS", "").strip().lower() not in ("", "0", "false", "no"):
        return False
    s = stream or sys.stderr
    try:
        return bool(s.isatty())
    except (AttributeError, ValueError):
        return False


def configure(
    *,
    print_ir_after_all: bool = False,
    print_ir_after: Iterable[str] = (),
    time_passes: bool = False,
    dump_dir: str | os.PathLike[str] | None = None,
    progress: bool | None = None,
    stream: TextIO | None = None,
    total: int | None = None,
) -> DebugOptions:
    """Switch the debugging aids on (process-wide) and return the options."""
    global _options
    names = frozenset(n.strip() for item in print_ir_after for n in item.split(",") if n.strip())
    st = stream or sys.stderr
    _options = DebugOptions(
        print_ir_after_all=print_ir_after_all,
        print_ir_after=names,
        time_passes=time_passes,
        dump_dir=Path(dump_dir) if dump_dir is not None else None,
        progress=progress_wanted(st) if progress is None else progress,
        stream=st,
        total=total,
    )
    if _options.dump_dir is not None:
        _options.dump_dir.mkdir(parents=True, exist_ok=True)
    return _options


def reset() -> None:
    global _options
    if _options is not None:
        _clear_status(_options)
    _options = None


def _slug(label: str) -> str:
    return re.sub(r"[^A-Za-z0-9_.-]+", "_", label).strip("_")[:80] or "pass"


def ir_text(module: ModuleOp) -> str:
    return str(module)


def dump_input(module: ModuleOp) -> None:
    """``000_input.mlir`` (the module before the first pass) in the dump dir."""
    o = current()
    if o is not None and o.dump_dir is not None:
        (o.dump_dir / "000_input.mlir").write_text(ir_text(module) + "\n")


def before_pass(label: str) -> None:
    o = current()
    if o is not None and o.progress:
        o.step += 1
        _status(o, label)


def after_pass(label: str, module: ModuleOp, seconds: float, depth: int = 0) -> None:
    """What the options ask for after pass ``label`` (``depth``: nesting)."""
    o = current()
    if o is None:
        return
    if o.time_passes and depth == 0:
        o.timings.setdefault(label, []).append(seconds)
    if o.print_ir_after_all or label in o.print_ir_after:
        _clear_status(o)
        o.stream.write(f"// -----// IR Dump After {label} //----- //\n{ir_text(module)}\n\n")
        o.stream.flush()
    if o.dump_dir is not None:
        o.dumped += 1
        (o.dump_dir / f"{o.dumped:03d}_{_slug(label)}.mlir").write_text(ir_text(module) + "\n")


@contextmanager
def phase(label: str) -> Iterator[None]:
    """Time (``--time-passes``) and show (progress) a non-pass phase:
    loading a model, writing IR."""
    o = current()
    if o is None:
        yield
        return
    before_pass(label)
    t0 = time.perf_counter()
    try:
        yield
    finally:
        if o.time_passes:
            o.timings.setdefault(f"({label})", []).append(time.perf_counter() - t0)


_BAR = 20


def _status(o: DebugOptions, label: str) -> None:
    elapsed = time.perf_counter() - o.started
    if o.total:
        filled = min(_BAR, o.step * _BAR // max(o.total, o.step + 1))
        count = f"{o.step}/{max(o.total, o.step)}"
    else:
        filled = o.step % (_BAR + 1)
        count = str(o.step)
    bar = "#" * filled + "." * (_BAR - filled)
    line = f"xmo [{bar}] {count} {label[:40]}  {elapsed:6.1f} s"
    o.stream.write("\r" + line.ljust(79)[:79])
    o.stream.flush()


def _clear_status(o: DebugOptions) -> None:
    if o.progress and o.step:
        o.stream.write("\r" + " " * 79 + "\r")
        o.stream.flush()


def clear_status() -> None:
    """Erase the progress line (before printing to the terminal)."""
    o = current()
    if o is not None:
        _clear_status(o)
        o.step = o.step  # the next step redraws it


def timing_table(o: DebugOptions) -> str:
    rows = [(k, sum(v), len(v)) for k, v in o.timings.items()]
    total = sum(r[1] for r in rows) or 1e-12
    out = [
        "===" + "-" * 60 + "===",
        "  xmo pass timing (wall time)",
        "===" + "-" * 60 + "===",
        f"  {'Wall time (s)':>13}  {'Share':>6}  {'Runs':>4}  Pass",
    ]
    for name, secs, n in rows:
        out.append(f"  {secs:13.4f}  {100 * secs / total:5.1f}%  {n:4d}  {name}")
    out.append(f"  {total:13.4f}  100.0%        Total")
    return "\n".join(out) + "\n"


@contextmanager
def session(**kwargs: Any) -> Iterator[DebugOptions]:
    """:func:`configure` for one command; prints the timing table at the end."""
    o = configure(**kwargs)
    try:
        yield o
    finally:
        _clear_status(o)
        if o.time_passes and o.timings:
            o.stream.write(timing_table(o))
            o.stream.flush()
        reset()


__all__ = [
    "DebugOptions",
    "after_pass",
    "before_pass",
    "clear_status",
    "configure",
    "current",
    "dump_input",
    "phase",
    "progress_wanted",
    "reset",
    "session",
    "timing_table",
]
