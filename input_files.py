"""Files a user names: opened only when they are regular files; mapped ones watched.

Every path xmo reads from (a model, an IR ``.xml`` and its ``.bin``, ONNX
external data, an ``.npy`` input, an extension's ``.py``, a transformations
config) goes through this module:

* :func:`open_input` opens a file only when it is a regular file: the path is
  checked with ``stat`` first (a FIFO, a device or a socket is never opened:
  opening a FIFO blocks until a writer comes, reading a device may never end),
  then opened non-blocking and checked again on the descriptor (a FIFO put in
  its place between the two is refused, not waited on).
  :func:`check_regular` is the ``stat`` check alone, for a path handed to
  code that opens it itself (Python's importer, OpenVINO's reader).
* :func:`map_input` maps a file read-only (weights stay out of the process's
  memory) and records the map: its file (device, inode) and its size.
  A mapped file that shrinks under xmo (another process truncates it) turns
  every read of the pages past its new end into SIGBUS, or into ``EFAULT``
  ("Bad address") in a system call. :func:`shrunk_inputs` names the mapped
  files that are now shorter than their maps: the IR writer, which copies
  mapped weights from their files (never from the map) and checks the
  counts, ``xmo``'s error exit (an ``EFAULT`` becomes this message) and the
  SIGBUS handler of :mod:`xmo.bus_error` use it.
"""

from __future__ import annotations

import io
import mmap
import os
import stat
import weakref
from dataclasses import dataclass
from typing import TYPE_CHECKING, BinaryIO

from xmo.errors import ModelError

if TYPE_CHECKING:  # numpy is imported where a file is mapped: the bus-error
    import numpy as np  # handler imports this module in every xmo process

__all__ = [
    "InputFileError",
    "MappedFile",
    "check_regular",
    "map_input",
    "mapped_file",
    "mapped_files",
    "open_input",
    "register_map",
    "shrank_message",
    "shrunk_inputs",
    "unregister_map",
]


class InputFileError(ModelError):
    """A path that cannot be read as an input file (the message is one line)."""


def _kind(mode: int) -> str:
    if stat.S_ISDIR(mode):
        return "a folder"
    if stat.S_ISFIFO(mode):
        return "a FIFO (named pipe)"
    if stat.S_ISCHR(mode):
        return "a character device"
    if stat.S_ISBLK(mode):
        return "a block device"
    if stat.S_ISSOCK(mode):
        return "a socket"
    return "not a regular file"


def _not_regular(path: str, mode: int) -> str:
    return f"{path}: {_kind(mode)}, not a regular file"


def check_regular(
    path: str | os.PathLike[str], error: type[Exception] = InputFileError
) -> os.stat_result:
    """The ``stat`` of ``path`` (symbolic links followed), when it is a
    regular file; else ``error`` with one line ("no such file", "a FIFO
    (named pipe), not a regular file", ...). Nothing is opened."""
    p = os.fspath(path)
    try:
        st = os.stat(p)
    except FileNotFoundError:
        raise error(f"{p}: no such file") from None
    except (OSError, ValueError) as e:  # ValueError: a NUL in the path
        raise error(f"{p}: cannot read: {getattr(e, 'strerror', None) or e}") from None
    if not stat.S_ISREG(st.st_mode):
        raise error(_not_regular(p, st.st_mode))
    return st


def open_input(path: str | os.PathLike[str], error: type[Exception] = InputFileError) -> BinaryIO:
    """``path`` opened for binary reading when it is a regular file (see the
    module docstring); ``error`` otherwise. The file's ``name`` is ``path``."""
    p = os.fspath(path)
    check_regular(p, error)
    flags = os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_NOCTTY", 0) | getattr(os, "O_CLOEXEC", 0)
    try:
        fd = os.open(p, flags)
    except FileNotFoundError:
        raise error(f"{p}: no such file") from None
    except OSError as e:
        raise error(f"{p}: cannot read: {e.strerror or e}") from None
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):  # replaced since the check
            raise error(_not_regular(p, st.st_mode))
        os.set_blocking(fd, True)
        raw = io.FileIO(fd, "rb", closefd=True)
    except BaseException:
        os.close(fd)
        raise
    raw.name = p  # type: ignore[misc]  # numpy.memmap records it as the map's file
    return io.BufferedReader(raw)


# ---------------------------------------------------------------------------
# Mapped input files
# ---------------------------------------------------------------------------


@dataclass(frozen=True)
class MappedFile:
    """A file mapped read-only: its path, identity and the bytes the map covers."""

    path: str
    dev: int
    ino: int
    size: int

    def current_size(self) -> int | None:
        """The file's size now, when ``path`` still names the mapped file
        (None: it names another file, or none)."""
        try:
            st = os.stat(self.path)
        except OSError:
            return None
        if (st.st_dev, st.st_ino) != (self.dev, self.ino):
            return None
        return st.st_size


#: id(mmap object) -> its file, for every live map made here
_MAPS: dict[int, MappedFile] = {}


def register_map(m: mmap.mmap, f: BinaryIO) -> None:
    """Record that ``m`` maps the open file ``f`` (until ``m`` is collected)."""
    st = os.fstat(f.fileno())
    key = id(m)
    _MAPS[key] = MappedFile(os.path.abspath(f.name), st.st_dev, st.st_ino, len(m))
    weakref.finalize(m, _MAPS.pop, key, None)


def unregister_map(m: mmap.mmap) -> None:
    """Forget ``m`` (closed before it is collected)."""
    _MAPS.pop(id(m), None)


def map_input(f: BinaryIO) -> np.ndarray:
    """A read-only ``numpy.memmap`` (flat ``uint8``) of the whole open input
    file ``f`` (from :func:`open_input`), recorded while it lives; an empty
    file gives an empty array (nothing can be mapped)."""
    import numpy as np

    if os.fstat(f.fileno()).st_size == 0:
        return np.zeros(0, np.uint8)
    mm = np.memmap(f, dtype=np.uint8, mode="r")
    base = mm.base
    assert isinstance(base, mmap.mmap)
    register_map(base, f)
    return mm


def mapped_file(m: mmap.mmap) -> MappedFile | None:
    """The file ``m`` maps, when it was mapped here."""
    return _MAPS.get(id(m))


def mapped_files() -> list[MappedFile]:
    """The files mapped by :func:`map_input` / :func:`register_map` that are
    still mapped."""
    return list(_MAPS.values())


def shrunk_inputs() -> list[str]:
    """One line per mapped input file that is now shorter than its map
    ("PATH shrank to N bytes while xmo was reading it ..."); empty when none is."""
    out = []
    for m in mapped_files():
        now = m.current_size()
        if now is not None and now < m.size:
            out.append(shrank_message(m.path, now, m.size))
    return out


def shrank_message(path: str, now: int, size: int) -> str:
    """The error line of an input file that shrank from ``size`` to ``now`` bytes."""
    return (f"{path} shrank to {now} bytes while xmo was reading it ({size} bytes when "
            "opened): an input must not be truncated or rewritten while xmo runs")
