"""SIGTERM and SIGHUP as an exception, so that cleanup runs; critical sections.

Python turns SIGINT into :class:`KeyboardInterrupt`: ``finally`` blocks run
and temporary files go. SIGTERM (``kill``, ``timeout``, a service manager)
and SIGHUP (a closed terminal) end the process at once by default, leaving
whatever it was writing. Here they raise :class:`Terminated` instead:

* the ``xmo`` and ``xmo-opt`` commands call :func:`install_termination_handlers` first: a
  termination signal unwinds the program like Ctrl-C, and the command exits
  with ``128 + the signal's number`` (143 for SIGTERM, 129 for SIGHUP, 130 for
  SIGINT), as a shell reports a process killed by it;
* :func:`cleanup_on_termination` does the same around one block of library
  code (``xmo.save_model`` writing its files) in a process whose handlers are
  the defaults: after the block's cleanup the signal is sent again with its
  default action, so the process ends as it would have, minus the files it
  would have left;
* :func:`deferred` keeps the handlers of SIGINT, SIGTERM and SIGHUP from
  running inside a critical section (a commit of several renames, a cleanup):
  a signal that arrives meanwhile is handled when the section ends, and the
  section can see that it came.

Only the main thread runs Python signal handlers; in other threads these
helpers do nothing.
"""

from __future__ import annotations

import os
import signal
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from types import FrameType
from typing import Any

__all__ = [
    "TERMINATION_SIGNALS",
    "Terminated",
    "cleanup_on_termination",
    "deferred",
    "install_termination_handlers",
]

#: signals that raise :class:`Terminated` (SIGINT raises KeyboardInterrupt)
TERMINATION_SIGNALS = (signal.SIGTERM, signal.SIGHUP)
_DEFERRED = (signal.SIGINT, *TERMINATION_SIGNALS)


class Terminated(BaseException):
    """A termination signal arrived (a :class:`BaseException`, like
    KeyboardInterrupt: ``except Exception`` does not swallow it)."""

    def __init__(self, signum: int) -> None:
        super().__init__(f"terminated by {signal.Signals(signum).name}")
        self.signum = signum

    @property
    def exit_code(self) -> int:
        """The conventional exit code: 128 + the signal's number."""
        return 128 + self.signum


class _RaiseOnce:
    """A handler raising :class:`Terminated` for the first signal only: a
    second one must not interrupt the cleanup the first one started."""

    def __init__(self) -> None:
        self.fired = False

    def __call__(self, signum: int, frame: FrameType | None) -> None:
        if self.fired:
            return
        self.fired = True
        raise Terminated(signum)


def _main_thread() -> bool:
    return threading.current_thread() is threading.main_thread()


def install_termination_handlers() -> None:
    """Make SIGTERM and SIGHUP raise :class:`Terminated` in this process (a
    signal already ignored, e.g. SIGHUP under ``nohup``, stays ignored)."""
    handler = _RaiseOnce()
    for s in TERMINATION_SIGNALS:
        if signal.getsignal(s) is not signal.SIG_IGN:
            signal.signal(s, handler)


@contextmanager
def cleanup_on_termination() -> Iterator[None]:
    """SIGTERM / SIGHUP raise :class:`Terminated` inside the block when their
    handler is the default one; after the block has cleaned up, the process is
    ended by the signal as it would have been (handlers of the application's
    own, and ignored signals, are left alone)."""
    if not _main_thread():
        yield
        return
    mine = [s for s in TERMINATION_SIGNALS if signal.getsignal(s) is signal.SIG_DFL]
    handler = _RaiseOnce()
    for s in mine:
        signal.signal(s, handler)
    ended_by: int | None = None
    try:
        yield
    except Terminated as e:
        ended_by = e.signum if e.signum in mine else None
        raise
    finally:
        for s in mine:
            signal.signal(s, signal.SIG_DFL)
        if ended_by is not None:
            os.kill(os.getpid(), ended_by)  # the default action: the process ends here


@contextmanager
def deferred() -> Iterator[list[int]]:
    """A critical section: the Python handlers of SIGINT, SIGTERM and SIGHUP
    do not run inside; the list given to the block collects the signals that
    arrived, and their handlers run (and raise) when the block ends."""
    pending: list[int] = []
    if not _main_thread():
        yield pending
        return

    def record(signum: int, frame: FrameType | None) -> None:
        pending.append(signum)

    saved: dict[int, Callable[[int, FrameType | None], Any]] = {}
    for s in _DEFERRED:
        h = signal.getsignal(s)
        if callable(h):
            saved[s] = h
            signal.signal(s, record)
    try:
        yield pending
    finally:
        for s, h in saved.items():
            signal.signal(s, h)
        for s in pending:
            if s in saved:
                saved[s](s, None)
