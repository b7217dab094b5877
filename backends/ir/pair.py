"""The IR's two files as one unit on disk: an ``.xml`` and the ``.bin`` it was written with.

POSIX renames one file at a time, so an ``.xml``/``.bin`` pair cannot be
replaced in one step. What this module guarantees instead, for every output
path (``model.xml``):

* **Writers take turns.** A writer holds an exclusive ``flock`` on a lock
  file next to the ``.xml`` (``.xmo-<key>.lock``, ``key``: 16 hex digits of
  the SHA-256 of the ``.xml``'s file name) from before its first byte to
  after its cleanup; the lock file is removed when released.
* **Nothing at the path changes before both new files are complete.** They
  are written to temporaries in their own folders: unnamed files
  (``O_TMPFILE``; on file systems without it, ``.xmo-<key>.xml.new`` /
  ``.bin.new``), named only when complete. Temporary names are short
  whatever the output's name.
* **The .xml records its .bin.** Its second line is a processing instruction
  ``<?xmo-bin size="N" sha256="HEX"?>`` (the ``.bin``'s size and SHA-256,
  computed by reading it back through a small buffer). xmo's reader checks it
  and refuses a ``.bin`` that does not match: "model.bin does not belong to
  model.xml". It is a processing instruction, not runtime info, because
  OpenVINO keeps a model's runtime info when it saves the model again, with a
  ``.bin`` of its own: a digest there would then be wrong.
* **The commit is journaled.** A journal (``.xmo-<key>.journal``, naming the
  ``.bin``) is written, then: the old ``.bin`` is moved aside, the old
  ``.xml`` is moved aside, the new ``.xml`` and then the new ``.bin`` take
  their places, and removing the journal is the commit point. Every state a
  reader can meet at the path is a whole pair, or one with a file missing
  (old ``.xml`` without ``.bin``, nothing, new ``.xml`` without ``.bin``),
  never the ``.xml`` of one write with the ``.bin`` of another: OpenVINO
  refuses to read a missing file rather than computing with wrong weights.
* **A write that does not reach the commit point leaves the old pair.** On
  an error (a failing rename, disk full), a signal (SIGINT, SIGTERM, SIGHUP:
  handled after the cleanup) or kill -9, the renames are undone in reverse
  order -- at once, or, after kill -9, by the next process that takes the
  lock: the next writer of the path, or xmo's reader, which waits for a
  writer holding the lock and finishes an interrupted one (as a database
  replays its journal), then reads again.

What is not covered: a reader other than xmo's that opens the ``.xml`` before
a commit and the ``.bin`` after it (OpenVINO reads them one after the other,
without a lock) gets the old ``.xml`` with the new ``.bin``; files are not
``fsync``-ed, so a power loss or an operating system crash may lose the
latest write (process failures do not).

Writes stop at named points for tests: ``XMO_TEST_IR_FAULT=<point>:<action>``
(:data:`FAULT_POINTS`; actions ``kill``, ``stop``, ``term``, ``hup``,
``int`` send the process that signal, ``enospc`` raises "No space left on
device").
"""

from __future__ import annotations

import errno
import fcntl
import hashlib
import json
import os
import re
import signal
from contextlib import ExitStack
from pathlib import Path
from types import TracebackType
from typing import IO

from xmo.backends.ir._common import IRWriteError
from xmo.termination import cleanup_on_termination, deferred

__all__ = [
    "FAULT_ENV",
    "FAULT_POINTS",
    "PairWriter",
    "file_digest",
    "read_record",
    "record_line",
    "recover",
    "settle",
    "strip_record",
    "test_hook",
]

#: The environment variable of the test hook (see the module docstring).
FAULT_ENV = "XMO_TEST_IR_FAULT"
#: The writer's steps, in order; the hook acts right after the named one.
FAULT_POINTS = (
    "locked",       # the lock is held (leftovers of an interrupted writer dealt with)
    "bin-partial",  # the first payload is in the .bin temporary
    "bin-written",  # the .bin temporary is complete
    "xml-written",  # the .xml temporary is complete (with the record)
    "named",        # both temporaries have their names
    "journal",      # the journal is in place
    "bin-aside",    # the old .bin is moved aside
    "xml-aside",    # the old .xml is moved aside
    "xml-placed",   # the new .xml is at the path
    "bin-placed",   # the new .bin is at the path
    "committed",    # the journal is gone: the write is done
)
_SIGNALS = {"kill": signal.SIGKILL, "stop": signal.SIGSTOP, "term": signal.SIGTERM,
            "hup": signal.SIGHUP, "int": signal.SIGINT}

_XML_DECLARATION = '<?xml version="1.0"?>\n'
_RECORD = re.compile(rb'<\?xmo-bin size="(\d+)" sha256="([0-9a-f]{64})"\?>\n')
#: bytes hashed per read (reads into one buffer: the .bin is never mapped whole)
_CHUNK = 1 << 20


def test_hook(point: str) -> None:
    """The test hook at ``point`` (a no-op unless ``XMO_TEST_IR_FAULT`` names it)."""
    spec = os.environ.get(FAULT_ENV)
    if not spec:
        return
    where, _, action = spec.partition(":")
    if where != point:
        return
    if action == "enospc":
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
    os.kill(os.getpid(), _SIGNALS[action])


# -- the record ----------------------------------------------------------------------


def record_line(size: int, sha256: str) -> str:
    """The ``.xml``'s second line: the size and SHA-256 of its ``.bin``."""
    return f'<?xmo-bin size="{size}" sha256="{sha256}"?>\n'


def read_record(head: bytes) -> tuple[int, str] | None:
    """(size, SHA-256) recorded at the start of an ``.xml`` (``head``: its
    first bytes, a few hundred suffice), None when it has no record (an IR
    written by OpenVINO or by an older xmo)."""
    first = head.find(b"\n")
    m = _RECORD.match(head, first + 1) if first >= 0 else None
    return (int(m[1]), m[2].decode()) if m else None


def strip_record(xml: bytes) -> bytes:
    """An ``.xml``'s bytes without its record (what xmo wrote before it had one)."""
    first = xml.find(b"\n")
    m = _RECORD.match(xml, first + 1) if first >= 0 else None
    return xml[: m.start()] + xml[m.end() :] if m else xml


def file_digest(fd: int) -> tuple[int, str]:
    """(size, SHA-256 hex) of the file open as ``fd``, read with ``pread``
    into one buffer (the pages go through the page cache, not this process's
    memory)."""
    h = hashlib.sha256()
    buf = bytearray(_CHUNK)
    view = memoryview(buf)
    offset = 0
    while True:
        n = os.preadv(fd, [buf], offset)
        if n <= 0:
            break
        h.update(view[:n])
        offset += n
    return offset, h.hexdigest()


# -- names, lock, journal -------------------------------------------------------------


class _Names:
    """The lock, journal and temporaries of the pair at ``xml`` (with ``bin``)."""

    def __init__(self, xml: Path, bin_: Path) -> None:
        self.xml = xml
        self.bin = bin_
        folder = xml.parent
        key = hashlib.sha256(os.fsencode(xml.name)).hexdigest()[:16]
        self.key = key
        self.lock = folder / f".xmo-{key}.lock"
        self.journal = folder / f".xmo-{key}.journal"
        self.journal_tmp = folder / f".xmo-{key}.journal.tmp"
        self.xml_new = folder / f".xmo-{key}.xml.new"
        self.xml_old = folder / f".xmo-{key}.xml.old"
        self.bin_new = bin_.parent / f".xmo-{key}.bin.new"
        self.bin_old = bin_.parent / f".xmo-{key}.bin.old"

    def with_bin(self, bin_: Path) -> _Names:
        return _Names(self.xml, bin_)

    def journal_text(self) -> str:
        same = self.bin.parent == self.xml.parent
        return json.dumps({"bin": self.bin.name if same else os.path.abspath(self.bin)})

    def from_journal(self, text: str) -> _Names:
        """The names of the write whose journal is ``text``."""
        try:
            where = json.loads(text)["bin"]
        except (ValueError, KeyError, TypeError):
            raise OSError(errno.EINVAL, f"{self.journal}: not a journal of xmo") from None
        return self.with_bin(self.xml.parent / where)


class _Lock:
    """An exclusive ``flock`` on a lock file that is removed on release
    (after locking, the file is checked to be the one at the path still: a
    process that waited on a file its holder removed tries again)."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.fd: int | None = None

    def acquire(self) -> None:
        while True:
            fd = os.open(self.path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o666)
            try:
                fcntl.flock(fd, fcntl.LOCK_EX)
                st = os.fstat(fd)
                now = os.stat(self.path)
            except FileNotFoundError:
                os.close(fd)
                continue
            except BaseException:
                os.close(fd)
                raise
            if (st.st_dev, st.st_ino) == (now.st_dev, now.st_ino):
                self.fd = fd
                return
            os.close(fd)

    def release(self) -> None:
        if self.fd is None:
            return
        try:
            _unlink(self.path)
        finally:
            os.close(self.fd)
            self.fd = None


def _give_name(fd: int, name: Path) -> None:
    """Link the unnamed file open as ``fd`` (``O_TMPFILE``) at ``name``.
    ``linkat`` follows the ``/proc/self/fd`` link only with a directory fd
    (``os.link`` without one calls ``link``, which does not)."""
    folder = os.open(name.parent, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    try:
        os.link(f"/proc/self/fd/{fd}", name.name, dst_dir_fd=folder, follow_symlinks=True)
    finally:
        os.close(folder)


def _unlink(path: Path) -> None:
    try:
        os.unlink(path)
    except FileNotFoundError:
        pass


def _rename_back(src: Path, dst: Path) -> None:
    try:
        os.rename(src, dst)
    except FileNotFoundError:
        pass


def recover(names: _Names, undo: bool = False) -> None:
    """Deal with what an interrupted write left (the caller holds the lock):
    with a journal, finish its commit if all its renames were done (the new
    pair is at the path: readers may have read it already), else undo them
    (:func:`_undo_renames`; ``undo``: always), and remove the journal; then
    remove the temporaries. Every step can be repeated, so this may itself be
    interrupted and run again."""
    try:
        text = names.journal.read_text()
    except FileNotFoundError:
        text = None
    if text is not None:
        w = names.from_journal(text)
        placed = not os.path.lexists(w.xml_new) and not os.path.lexists(w.bin_new)
        if undo or not placed:
            _undo_renames(w)
        _unlink(names.journal)
        _remove_temporaries(w)
    _remove_temporaries(names)


def _undo_renames(n: _Names) -> None:
    """The renames of a commit, undone in reverse order (while its journal
    exists a temporary is missing only when it is at the path), so that the
    path always holds a pair or misses a file."""
    if not os.path.lexists(n.bin_new):
        _rename_back(n.bin, n.bin_new)
    if not os.path.lexists(n.xml_new):
        _rename_back(n.xml, n.xml_new)
    if os.path.lexists(n.xml_old):
        os.rename(n.xml_old, n.xml)
    if os.path.lexists(n.bin_old):
        os.rename(n.bin_old, n.bin)


def _remove_temporaries(names: _Names) -> None:
    for p in (names.journal_tmp, names.xml_new, names.bin_new, names.xml_old, names.bin_old):
        _unlink(p)


def settle(xml: Path) -> bool:
    """For a reader that met a pair at ``xml`` with a file missing or not
    matching: wait for a writer of it that holds the lock, and undo the
    commit of one that was interrupted (needs write access to the folder).
    True when there was something to wait for or undo (read again)."""
    names = _Names(xml, xml.with_suffix(".bin"))
    waited = False
    try:
        fd = os.open(names.lock, os.O_RDONLY | os.O_CLOEXEC)
    except OSError:
        fd = None
    if fd is not None:
        try:
            fcntl.flock(fd, fcntl.LOCK_SH)  # a writer holds it until it is done
            waited = True
        finally:
            os.close(fd)
    if not os.path.lexists(names.journal):
        return waited
    lock = _Lock(names.lock)
    try:
        lock.acquire()
    except OSError:
        return waited  # no write access: the next writer undoes it
    try:
        with deferred():
            recover(names)
    except OSError:
        return waited
    finally:
        lock.release()
    return True


# -- the writer --------------------------------------------------------------------------


def _is_dir(p: Path) -> bool:
    return os.path.isdir(p) and not os.path.islink(p)


class PairWriter:
    """Writes one pair at ``xml`` / ``bin`` (see the module docstring)::

        with PairWriter(xml, bin) as w:
            w.bin.write(...)                       # the .bin's bytes
            xml_tmp, bin_tmp = w.finish(xml_text)  # both complete, named
            ...                                    # e.g. read them back
            w.commit()

    Leaving the block without :meth:`commit` (an exception, a signal) leaves
    the path as it was, and nothing else. Errors of the file system raise
    :class:`IRWriteError` with one line.
    """

    def __init__(self, xml: Path, bin_: Path) -> None:
        self.names = _Names(xml, bin_)
        self._stack = ExitStack()
        self._lock = _Lock(self.names.lock)
        self._unnamed: list[tuple[int, Path]] = []  # (fd, the name it gets)
        self._committed = False
        self.bin: IO[bytes]

    # -- entering and leaving -----------------------------------------------------------
    def __enter__(self) -> PairWriter:
        for p in (self.names.xml, self.names.bin):
            if os.path.isdir(p) and not os.path.islink(p):
                raise IRWriteError(f"{p}: is a directory")
        with ExitStack() as stack:  # undone if entering fails
            stack.enter_context(cleanup_on_termination())
            try:
                self._lock.acquire()
            except OSError as e:
                raise IRWriteError(f"cannot lock {self.names.lock}: {e.strerror}") from e
            stack.callback(self._lock.release)
            stack.callback(self._clean_up)
            try:
                with deferred():
                    recover(self.names)
            except OSError as e:
                raise IRWriteError(
                    f"cannot undo an interrupted write of {self.names.xml}: {e.strerror}"
                ) from e
            test_hook("locked")
            self.bin = open(self._create(self.names.bin_new), "wb")  # noqa: SIM115
            stack.callback(self.bin.close)
            self._stack = stack.pop_all()
        return self

    def __exit__(self, typ: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        self._stack.__exit__(typ, exc, tb)

    def _clean_up(self) -> None:
        """Close the temporaries; remove the old files of a committed write,
        else undo what the write did."""
        for fd, _ in self._unnamed:
            os.close(fd)
        self._unnamed.clear()
        with deferred():
            if self._committed:
                for p in (self.names.xml_old, self.names.bin_old):
                    try:
                        _unlink(p)
                    except OSError:  # the next writer removes it
                        pass
                return
            try:
                recover(self.names, undo=True)
            except OSError as e:
                raise IRWriteError(
                    f"cannot restore the previous {self.names.xml}: {e.strerror} (the next "
                    "write or read of it does)"
                ) from e

    def _create(self, name: Path) -> int:
        """A temporary in ``name``'s folder (read-write), unnamed while it is
        written where the file system allows it (named ``name`` by
        :meth:`finish`), else created as ``name``."""
        tmpfile = getattr(os, "O_TMPFILE", 0)
        try:
            if tmpfile:
                try:
                    fd = os.open(name.parent, tmpfile | os.O_RDWR | os.O_CLOEXEC, 0o666)
                except OSError as e:
                    if e.errno not in (errno.EOPNOTSUPP, errno.EISDIR, errno.EINVAL):
                        raise
                else:
                    if os.path.exists(f"/proc/self/fd/{fd}"):  # how it gets its name
                        self._unnamed.append((fd, name))
                        return os.dup(fd)
                    os.close(fd)
            return os.open(name, os.O_RDWR | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC, 0o666)
        except OSError as e:
            raise IRWriteError(f"cannot write in {name.parent}: {e.strerror}") from e

    # -- the steps -----------------------------------------------------------------------
    def finish(self, xml_text: str) -> tuple[Path, Path]:
        """Complete the ``.bin`` (its bytes are all written to :attr:`bin`),
        write ``xml_text`` with the record after its XML declaration, and
        name both temporaries; their paths (``.xml``, ``.bin``)."""
        if not xml_text.startswith(_XML_DECLARATION):
            raise IRWriteError("the IR text does not start with its XML declaration")
        n = self.names
        try:
            self.bin.flush()
            test_hook("bin-written")
            size, sha = file_digest(self.bin.fileno())
            self.bin.close()
            text = _XML_DECLARATION + record_line(size, sha) + xml_text[len(_XML_DECLARATION) :]
            with open(self._create(n.xml_new), "wb") as f:
                f.write(text.encode("utf-8"))
            test_hook("xml-written")
            for fd, name in self._unnamed:
                _give_name(fd, name)
        except OSError as e:
            raise IRWriteError(f"cannot write {n.xml}: {e.strerror}") from e
        test_hook("named")
        return n.xml_new, n.bin_new

    def commit(self) -> None:
        """Put the new pair at the path (the journaled renames, see the
        module docstring). A signal during the renames undoes them, then its
        handler runs as usual (raising, the write is over; else it goes on)."""
        n = self.names
        try:
            with open(n.journal_tmp, "w") as f:
                f.write(n.journal_text())
            os.rename(n.journal_tmp, n.journal)
        except OSError as e:
            raise IRWriteError(f"cannot write {n.journal}: {e.strerror}") from e
        test_hook("journal")
        with deferred() as pending:
            target = n.xml
            try:
                if os.path.lexists(n.bin):
                    target = n.bin
                    os.rename(n.bin, n.bin_old)
                    test_hook("bin-aside")
                if os.path.lexists(n.xml):
                    target = n.xml
                    os.rename(n.xml, n.xml_old)
                    test_hook("xml-aside")
                target = n.xml
                os.rename(n.xml_new, n.xml)
                test_hook("xml-placed")
                target = n.bin
                os.rename(n.bin_new, n.bin)
                test_hook("bin-placed")
                if not pending:
                    _unlink(n.journal)  # the commit point
                    self._committed = True
            except OSError as e:
                raise IRWriteError(
                    f"cannot replace {target}: {e.strerror} (the previous files are kept)"
                ) from e
        if not self._committed:
            # a signal came during the renames and its handler, run as the
            # block ended, did not raise (raising, the cleanup undoes them)
            _unlink(n.journal)
            self._committed = True
        test_hook("committed")
