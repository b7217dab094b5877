"""Task functions for ``tests/test_validate_workers.py`` (run inside validation
workers as ``CallTask``s): a good one, and one of each way to end a worker."""

from __future__ import annotations

import os
import signal
import time


def good(i: int) -> dict:
    return {"status": "pass", "i": i, "pid": os.getpid()}


def crash() -> dict:
    os.kill(os.getpid(), signal.SIGSEGV)
    return {}


def hang() -> dict:
    time.sleep(600)
    return {}


def leave_temp_and_hang(note: str) -> dict:
    """A temporary folder made the usual way (its path written to ``note``),
    then killed for its time before it could remove it."""
    import tempfile

    folder = tempfile.mkdtemp(prefix="xmo-test-leftover-")
    with open(note, "w") as f:
        f.write(folder)
    time.sleep(600)
    return {}


def hog() -> dict:
    chunks = []
    while True:  # touched pages: resident
        chunks.append(bytearray(b"x" * (32 << 20)))


def fail() -> dict:
    raise ValueError("a task that raises")


def mismatch() -> dict:
    return {"status": "mismatch", "error": "output 0: 1 of 4 values differ", "pid": os.getpid()}
