"""SIGBUS from a mapped input that shrank: one error line, xmo's files removed, exit 1.

xmo maps large inputs instead of reading them (ONNX external data, an IR's
``.bin``, a protobuf model while it is parsed; see :mod:`xmo.input_files`).
When another process truncates such a file while xmo runs, a read of a page
past the file's new end is a SIGBUS in whatever code reads it: a numpy kernel
folding a constant, a digest of a weight, the CPU backend. CPython cannot
turn that into an exception (its own handlers set a flag and return, and the
faulting instruction runs again and again), so without more the process dies
by the signal: exit code 135, no message, and whatever it was writing left
behind.

The ``xmo`` and ``xmo-opt`` commands call :func:`install`: a handler set with
the C library's ``sigaction`` runs a ctypes callback on the faulting thread
that never returns into the code that faulted:

* when a mapped input shrank (:func:`xmo.input_files.shrunk_inputs`), it
  removes what :func:`remove_on_fault` registered (the temporaries being
  written, the output folders the command created), prints one line
  (``xmo: error: PATH shrank while xmo was reading it: ...``) and ends the
  process with exit code 1 (``os._exit``: nothing else runs);
* otherwise (a SIGBUS of another cause) it puts the previous action back and
  returns: the fault repeats and ends the process as it did before.

The callback takes the GIL like any ctypes callback: a fault in a thread that
does not hold it (a BLAS worker) waits until the thread holding it lets it go
(numpy releases it around its kernels). Linux only; elsewhere :func:`install`
does nothing.
"""

from __future__ import annotations

import os
import signal
import stat
import sys
from typing import Any

from xmo.input_files import shrunk_inputs
from xmo.errors import printable

__all__ = ["forget", "install", "installed", "remove_on_fault"]

#: path -> (device, inode, is a folder) of what a fault removes
_REMOVE: dict[str, tuple[int, int, bool]] = {}
#: prog, the previous action and the callback (kept alive), once installed
_STATE: dict[str, Any] = {}


def remove_on_fault(path: str | os.PathLike[str]) -> None:
    """Remove ``path`` (a file, or a folder when empty) if a SIGBUS ends the
    process while it is the same file or folder it is now. Entries whose path
    is gone or names something else are dropped on the way."""
    p = os.path.abspath(path)
    for old, (dev, ino, _) in list(_REMOVE.items()):
        try:
            st = os.lstat(old)
        except OSError:
            del _REMOVE[old]
            continue
        if (st.st_dev, st.st_ino) != (dev, ino):
            del _REMOVE[old]
    try:
        st = os.lstat(p)
    except OSError:
        return
    _REMOVE[p] = (st.st_dev, st.st_ino, stat.S_ISDIR(st.st_mode))


def forget(path: str | os.PathLike[str]) -> None:
    """Keep ``path`` after all (it became an output)."""
    _REMOVE.pop(os.path.abspath(path), None)


def installed() -> bool:
    return bool(_STATE)


def _clean_up() -> None:
    folders = []
    for p, (dev, ino, is_dir) in list(_REMOVE.items()):
        try:
            st = os.lstat(p)
            if (st.st_dev, st.st_ino) != (dev, ino):
                continue
            if is_dir:
                folders.append(p)
            else:
                os.unlink(p)
        except OSError:
            pass
    for p in sorted(folders, key=len, reverse=True):  # children first
        try:
            os.rmdir(p)
        except OSError:
            pass


def _on_sigbus(signum: int) -> None:
    try:
        shrunk = shrunk_inputs()
    except BaseException:  # noqa: BLE001 - nothing may escape into the faulting code
        shrunk = []
    if not shrunk:
        _restore()  # not ours: the fault repeats under the previous action
        return
    try:
        _clean_up()
        line = f"{_STATE['prog']}: error: {printable(shrunk[0])}\n"
        os.write(2, line.encode("utf-8", "backslashreplace"))
    finally:
        os._exit(1)


def _sigaction(act: Any, old: Any) -> None:
    import ctypes

    libc = ctypes.CDLL(None, use_errno=True)
    if libc.sigaction(signal.SIGBUS, act, old) != 0:
        raise OSError(ctypes.get_errno(), "sigaction(SIGBUS) failed")


def _restore() -> None:
    import ctypes

    old = _STATE.pop("old", None)
    if old is not None:
        _sigaction(ctypes.byref(old), None)


def install(prog: str) -> None:
    """Handle SIGBUS in this process as the module docstring says (``prog``
    starts the error line). Idempotent; nothing outside Linux."""
    if _STATE or not sys.platform.startswith("linux"):
        return
    import ctypes

    class SigAction(ctypes.Structure):  # glibc's and musl's struct sigaction on Linux
        _fields_ = [
            ("handler", ctypes.c_void_p),
            ("mask", ctypes.c_ulong * (128 // ctypes.sizeof(ctypes.c_ulong))),
            ("flags", ctypes.c_int),
            ("restorer", ctypes.c_void_p),
        ]

    callback = ctypes.CFUNCTYPE(None, ctypes.c_int)(_on_sigbus)
    act, old = SigAction(), SigAction()
    act.handler = ctypes.cast(callback, ctypes.c_void_p).value
    act.flags = 0  # on the faulting thread's own stack, SIGBUS blocked meanwhile
    _sigaction(ctypes.byref(act), ctypes.byref(old))
    _STATE.update(prog=prog, old=old, callback=callback)
