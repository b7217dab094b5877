"""Garbage-collector settings for conversions of large graphs.

A converted module holds a few hundred Python objects per operation, nearly
all alive until the conversion ends. CPython's default thresholds then run
full collections that traverse every one of them again and again: on a
20,000-node ONNX graph that was about a third of ``xmo convert``'s time.
:func:`relaxed_gc` keeps young-generation collections (short-lived cycles are
still freed) but makes full collections rare while a conversion runs, and
restores the previous thresholds afterwards. :func:`leave_to_os` spares
an exiting command the collection of what it built.
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager

#: young collections every 50,000 net allocations; a full one after 1,000 middle ones
RELAXED_THRESHOLDS = (50_000, 50, 1_000)


@contextmanager
def relaxed_gc() -> Iterator[None]:
    """Run the body with :data:`RELAXED_THRESHOLDS` (nesting is harmless)."""
    before = gc.get_threshold()
    if before[0] == 0:  # collection disabled by thresholds: leave it so
        yield
        return
    gc.set_threshold(*(max(a, b) for a, b in zip(before, RELAXED_THRESHOLDS)))
    try:
        yield
    finally:
        gc.set_threshold(*before)


def configure_process() -> None:
    """For a command-line process that converts one model and exits (``xmo``,
    ``xmo-opt``): the objects made by the imports are moved out of the
    collector's way (``gc.freeze``) and :data:`RELAXED_THRESHOLDS` hold for
    the whole run."""
    gc.freeze()
    gc.set_threshold(*RELAXED_THRESHOLDS)


def leave_to_os() -> None:
    """For a command-line process whose work is done, just before it exits:
    what the run built (a module of a few hundred objects per operation,
    nearly all in reference cycles, and its weights) is moved out of the
    collector's way (``gc.freeze``), so the interpreter's last collection
    does not traverse it and free it object by object (0.3-1 s of a
    2,000-node model's conversion): the operating system takes the memory
    back at once. Finalizers of that garbage do not run, which CPython does
    not promise at exit anyway; xmo closes the files it writes itself."""
    gc.freeze()
