"""Stacks of a test process that a signal ends without a word.

A pytest-xdist worker killed by SIGTERM, SIGHUP, SIGALRM, ... (signals whose
default action ends the process and that Python's faulthandler does not
watch) shows up only as ``node down: Not properly terminated``. Here every
test process dumps its threads' stacks into a file of the session's folder
when one of :data:`WATCHED` arrives while its handler is the default one, and
then dies of it as before; the controller prints the dumps in the terminal
summary (tests/conftest.py wires both ends).
"""

from __future__ import annotations

import faulthandler
import os
import signal
from pathlib import Path
from typing import IO

#: the environment variable naming the session's folder of dumps
ENV = "XMO_TEST_SIGNAL_DUMPS"
#: signals that end a process by default and that faulthandler does not watch
WATCHED = tuple(
    getattr(signal, name)
    for name in ("SIGTERM", "SIGHUP", "SIGUSR1", "SIGUSR2", "SIGALRM", "SIGVTALRM", "SIGPROF",
                 "SIGXCPU", "SIGXFSZ")
    if hasattr(signal, name)
)

_files: dict[int, IO[str]] = {}


def arm(folder: Path) -> None:
    """Dump into ``folder/<pid>-<SIGNAME>.txt`` when a watched signal arrives
    whose Python-level handler is the default one. Called before each test:
    a test that set a handler of its own and put the default back left the
    signal without the dump, so it is registered again (a signal with a
    Python handler installed is left alone)."""
    for sig in WATCHED:
        if signal.getsignal(sig) is not signal.SIG_DFL:
            continue
        f = _files.get(sig)
        if f is None:
            name = signal.Signals(sig).name
            f = _files[sig] = open(folder / f"{os.getpid()}-{name}.txt", "w")  # noqa: SIM115
        faulthandler.unregister(sig)
        faulthandler.register(sig, file=f, all_threads=True, chain=True)


def report(folder: Path) -> list[str]:
    """The dumps in ``folder``, one text per process and signal."""
    out = []
    for path in sorted(folder.glob("*.txt")):
        text = path.read_text(errors="replace").strip()
        if text:
            pid, _, name = path.stem.partition("-")
            out.append(f"test process {pid} received {name}; its threads then:\n{text}")
    return out
