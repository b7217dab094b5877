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
  ``<?xmo-bin size="N" sha256-4mib-blocks="HEX"?>``: the ``.bin``'s size and
  the SHA-256 of the SHA-256 digests of its 4 MiB blocks (blocks so that
  threads hash them in parallel; computed by :class:`BinSink` from the bytes
  as they are written, checked by :func:`file_digest`, which reads a file
  back through small buffers, never mapped). xmo's reader checks it and refuses a
  ``.bin`` that does not match: "model.bin does not belong to model.xml". It
  is a processing instruction, not runtime info, because OpenVINO keeps a
  model's runtime info when it saves the model again, with a ``.bin`` of its
  own: a digest there would then be wrong.
* **The commit is journaled.** A journal (``.xmo-<key>.journal``, naming the
  ``.bin``) is written, then: the old ``.bin`` is moved aside, the old
  ``.xml`` is moved aside, the new ``.xml`` and then the new ``.bin`` take
  their places, and removing the journal is the commit point. Every state a
  reader can meet at the path is a whole pair, or one with a file missing
  (old ``.xml`` without ``.bin``, nothing, new ``.xml`` without ``.bin``),
  never the ``.xml`` of one write with the ``.bin`` of another: OpenVINO
  refuses to read a missing file rather than computing with wrong weights.
* **A write that does not reach the commit point leaves the old pair.** On
  an error (a failing rename, disk full) or a signal (SIGINT, SIGTERM,
  SIGHUP: their handlers run after the cleanup; one that comes during the
  renames undoes them) the renames are undone in reverse order at once.
  After kill -9 the next process that takes the lock deals with what was
  left (:func:`recover`): the next writer of the path, or xmo's reader when
  it meets a missing or mismatched file (:func:`settle`: it waits for a
  writer holding the lock, recovers, and reads again), as a database replays
  its journal. Recovery undoes the renames, unless all of them were done
  (readers may have read the new pair already): then it finishes the commit.
  Only a journal of the same user that names the same ``.bin`` is acted on.

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
import stat
import threading
from concurrent.futures import Future, ThreadPoolExecutor
from contextlib import ExitStack
from pathlib import Path
from types import TracebackType
from collections.abc import Callable

from xmo import bus_error
from xmo.backends.ir._common import IRWriteError
from xmo.termination import cleanup_on_termination, deferred

__all__ = [
    "BinSink",
    "FAULT_ENV",
    "FAULT_POINTS",
    "PairWriter",
    "file_digest",
    "read_record",
    "record_line",
    "recover",
    "settle",
    "strip_record",
    "fault_point",
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
_RECORD = re.compile(rb'<\?xmo-bin size="(\d+)" sha256-4mib-blocks="([0-9a-f]{64})"\?>\n')
#: the .bin is hashed in blocks of this size, each by one of a few threads
_BLOCK = 4 << 20
#: bytes read at once (into a buffer per thread: the .bin is never mapped)
_CHUNK = 1 << 20
_THREADS = min(8, os.cpu_count() or 1)
_buffers = threading.local()


def fault_point(point: str) -> None:
    """The test hook at ``point`` (a no-op unless ``XMO_TEST_IR_FAULT`` names it)."""
    spec = os.environ.get(FAULT_ENV)
    if not spec:
        return
    where, _, action = spec.partition(":")
    if where != point:
        return
    if action == "enospc":
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
    if action not in _SIGNALS:
        raise ValueError(f"{FAULT_ENV}: unknown action '{action}'")
    os.kill(os.getpid(), _SIGNALS[action])


# -- the record ----------------------------------------------------------------------


def record_line(size: int, digest: str) -> str:
    """The ``.xml``'s second line: the size and :func:`file_digest` of its ``.bin``."""
    return f'<?xmo-bin size="{size}" sha256-4mib-blocks="{digest}"?>\n'


def read_record(head: bytes) -> tuple[int, str] | None:
    """(size, digest) recorded at the start of an ``.xml`` (``head``: its
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
    """(size, digest) of the file open as ``fd``: the SHA-256 (hex) of the
    concatenated SHA-256 digests of its 4 MiB blocks (the last one shorter),
    hashed by a few threads (``pread`` and hashlib release the GIL). The
    bytes are read into one small buffer per thread: they go through the page
    cache, not this process's memory."""
    size = os.fstat(fd).st_size
    starts = range(0, size, _BLOCK)

    def block(start: int) -> bytes:
        return _block_digest(fd, start, min(_BLOCK, size - start))

    if len(starts) <= 1:
        digests = [block(s) for s in starts]
    else:
        with ThreadPoolExecutor(max_workers=min(_THREADS, len(starts))) as pool:
            digests = list(pool.map(block, starts))
    return size, hashlib.sha256(b"".join(digests)).hexdigest()


def _block_digest(fd: int, start: int, count: int) -> bytes:
    h = hashlib.sha256()
    _hash_range(h.update, fd, start, count)
    return h.digest()


#: payloads smaller than this are gathered in a buffer and written with their
#: neighbours (one write and one hashed piece for many small constants)
_GATHER_BELOW = 64 << 10
#: the gathering buffer is handed to the writing thread when this full
_GATHER_BYTES = 1 << 20
#: bytes written at once (a cancelled write stops between chunks)
_WRITE_CHUNK = 16 << 20


class BinSink:
    """The ``.bin`` temporary open as ``fd``, appended to by the caller while
    one thread writes the bytes and a few others compute the file's
    :func:`file_digest` from the same bytes (``os.pwrite`` and hashlib
    release the GIL): the writing and hashing overlap each other and the
    caller's work (the ``.xml`` being built), and the file is not read back.
    Writes under 1 MiB and the last partial block are done on the caller's
    thread (a small model's ``.bin`` needs no thread at all).

    Bytes given to :meth:`write` are held by reference until written and
    hashed: the caller must not change them. Every byte lands at an explicit
    offset, so the order in which the threads finish does not matter; the
    in-kernel copies of :meth:`copy_from` run on the caller's thread (the
    kernel does the work) and are hashed from the file once copied. A
    failed write raises its ``OSError`` at the next call. :meth:`close`
    cancels what is pending and waits for the threads before closing ``fd``,
    so nothing writes to the descriptor after it is closed.
    """

    def __init__(self, fd: int) -> None:
        self.fd = fd
        #: bytes appended so far (written or pending)
        self.size = 0
        self._writer = ThreadPoolExecutor(1, thread_name_prefix="xmo-bin-write")
        self._hashers = ThreadPoolExecutor(_THREADS, thread_name_prefix="xmo-bin-digest")
        self._writes: list[Future[None]] = []
        self._digests: list[Future[bytes]] = []
        #: the open block's pieces: bytes in memory, or (start, count) of this file
        self._block: list[memoryview | tuple[int, int]] = []
        self._block_fill = 0
        self._gather = bytearray()
        self._gather_start = 0
        self._stop = threading.Event()
        self._error: OSError | None = None
        self._kernel_copy = hasattr(os, "copy_file_range") or hasattr(os, "sendfile")
        self._closed = False

    # -- appending -------------------------------------------------------------------------
    def write(self, data: bytes | bytearray | memoryview) -> None:
        """Append ``data`` (C-contiguous; held by reference, see above)."""
        self._check()
        view = memoryview(data).cast("B")
        n = len(view)
        if n < _GATHER_BELOW:
            if not self._gather:
                self._gather_start = self.size
            self._gather += view
            self.size += n
            if len(self._gather) >= _GATHER_BYTES:
                self._hand_over_gathered()
            return
        self._hand_over_gathered()
        self._submit_write(view, self.size)
        self.size += n

    def copy_from(self, src: int, pos: int, count: int) -> int:
        """Append up to ``count`` bytes of the file open as ``src`` from
        ``pos``: an in-kernel copy (``copy_file_range``, else ``sendfile``:
        the pages never enter this process) where the kernel can, else
        ``pread`` and ``pwrite``. The bytes copied (fewer when ``src`` ends
        first); an error of reading or writing raises ``OSError``."""
        self._check()
        self._hand_over_gathered()
        start = self.size
        done = 0
        if self._kernel_copy:
            try:
                while done < count:
                    k = self._kernel_copy_once(src, count - done, pos + done, start + done)
                    if k <= 0:
                        break
                    done += k
            except OSError:
                self._kernel_copy = False  # the kernel cannot copy these files
        while done < count:
            chunk = os.pread(src, min(count - done, _CHUNK << 2), pos + done)
            if not chunk:
                break
            if done == 0:
                self._kernel_copy = False  # it copied nothing though the bytes are there
            _pwrite_all(self.fd, memoryview(chunk), start + done, self._stop)
            done += len(chunk)
        if done:
            self._add_piece((start, done))
            self.size += done
        return done

    def _kernel_copy_once(self, src: int, count: int, src_pos: int, dst_pos: int) -> int:
        if hasattr(os, "copy_file_range"):
            try:
                return os.copy_file_range(src, self.fd, count, src_pos, dst_pos)
            except OSError:  # EXDEV (other file system), ENOSYS, EINVAL, ...
                pass
        os.lseek(self.fd, dst_pos, os.SEEK_SET)  # sendfile writes at the file's position
        return os.sendfile(self.fd, src, src_pos, count)

    def _hand_over_gathered(self) -> None:
        if self._gather:
            buf, self._gather = self._gather, bytearray()
            self._submit_write(memoryview(buf), self._gather_start)

    def _submit_write(self, view: memoryview, start: int) -> None:
        if len(view) < _GATHER_BYTES:  # a small model's whole .bin: no thread for it
            _pwrite_all(self.fd, view, start, self._stop)
        else:
            self._writes.append(self._writer.submit(self._write_job, view, start))
        self._add_piece(view)

    def _write_job(self, view: memoryview, start: int) -> None:
        try:
            _pwrite_all(self.fd, view, start, self._stop)
        except OSError as e:
            self._error = self._error or e
            raise

    def _add_piece(self, piece: memoryview | tuple[int, int]) -> None:
        """Add the next bytes of the file to the blocks being hashed; hash
        each block as soon as it is complete."""
        while True:
            n = len(piece) if isinstance(piece, memoryview) else piece[1]
            take = min(n, _BLOCK - self._block_fill)
            if take == n:
                self._block.append(piece)
                self._block_fill += n
                if self._block_fill == _BLOCK:
                    self._hash_block()
                return
            if isinstance(piece, memoryview):
                head, piece = piece[:take], piece[take:]
            else:
                head, piece = (piece[0], take), (piece[0] + take, n - take)
            self._block.append(head)
            self._block_fill += take
            self._hash_block()

    def _hash_block(self) -> None:
        pieces, self._block, self._block_fill = self._block, [], 0
        self._digests.append(self._hashers.submit(self._digest_job, pieces))

    def _digest_job(self, pieces: list[memoryview | tuple[int, int]]) -> bytes:
        h = hashlib.sha256()
        for p in pieces:
            if isinstance(p, memoryview):
                h.update(p)
            else:
                _hash_range(h.update, self.fd, *p)
        return h.digest()

    def _check(self) -> None:
        if self._error is not None:
            raise self._error
        if self._closed:
            raise ValueError("the .bin is closed")

    # -- completing ------------------------------------------------------------------------
    def flush(self) -> None:
        """Wait until every byte appended so far is in the file."""
        self._check()
        self._hand_over_gathered()
        for f in self._writes:
            f.result()
        self._writes.clear()

    def digest(self) -> tuple[int, str]:
        """(size, :func:`file_digest`) of the complete file (after :meth:`flush`)."""
        self.flush()
        digests = [f.result() for f in self._digests]
        if self._block_fill:  # the last, partial block: hashed here
            digests.append(self._digest_job(self._block))
            self._block, self._block_fill = [], 0
        have = os.fstat(self.fd).st_size
        if have != self.size:
            raise OSError(errno.EIO, f"the .bin has {have} bytes, {self.size} were written")
        return self.size, hashlib.sha256(b"".join(digests)).hexdigest()

    def close(self) -> None:
        """Cancel what is pending, wait for the threads, close the file."""
        if self._closed:
            return
        self._closed = True
        self._stop.set()
        self._writer.shutdown(wait=True, cancel_futures=True)
        self._hashers.shutdown(wait=True, cancel_futures=True)
        os.close(self.fd)


def _pwrite_all(fd: int, view: memoryview, start: int, stop: threading.Event) -> None:
    done = 0
    while done < len(view):
        if stop.is_set():
            raise OSError(errno.ECANCELED, "the write was cancelled")
        n = os.pwrite(fd, view[done : done + _WRITE_CHUNK], start + done)
        if n <= 0:
            raise OSError(errno.EIO, f"nothing written at byte {start + done}")
        done += n


def _hash_range(update: Callable[[memoryview], object], fd: int, start: int, count: int) -> None:
    """Feed ``count`` bytes of the file open as ``fd`` from ``start`` to a
    hash's ``update`` (through this thread's small buffer)."""
    buf = getattr(_buffers, "buf", None)
    if buf is None:
        buf = _buffers.buf = bytearray(_CHUNK)
    view = memoryview(buf)
    done = 0
    while done < count:
        n = os.preadv(fd, [view[: min(_CHUNK, count - done)]], start + done)
        if n <= 0:
            raise OSError(errno.EIO, f"the file ended at byte {start + done} while being hashed")
        update(view[:n])
        done += n


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

    def journal_text(self) -> str:
        same = self.bin.parent == self.xml.parent
        return json.dumps({"bin": self.bin.name if same else os.path.abspath(self.bin)})

    def check_journal(self) -> bool:
        """Whether there is a journal of a write of this pair: one of this
        user's (a regular file), naming this ``.bin``. Another is refused
        (``OSError``): undoing its renames could move files of someone else's."""
        try:
            st = os.lstat(self.journal)
        except FileNotFoundError:
            return False
        if not stat.S_ISREG(st.st_mode) or st.st_uid != os.geteuid():
            raise OSError(errno.EPERM, f"{self.journal} is not a journal of this user's")
        with open(self.journal) as f:
            text = f.read(4096)
        try:
            where = json.loads(text)["bin"]
        except (ValueError, KeyError, TypeError):
            raise OSError(errno.EINVAL, f"{self.journal} is not a journal of xmo") from None
        if not isinstance(where, str) or (
            os.path.abspath(self.xml.parent / where) != os.path.abspath(self.bin)
        ):
            raise OSError(errno.EINVAL, f"{self.journal} is a write of the .bin {where!r}, "
                                        f"not {self.bin}")
        return True


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
                bus_error.remove_on_fault(self.path)  # a SIGBUS exit removes it too
                return
            os.close(fd)

    def release(self) -> None:
        if self.fd is None:
            return
        try:
            bus_error.forget(self.path)
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
    if names.check_journal():
        placed = not os.path.lexists(names.xml_new) and not os.path.lexists(names.bin_new)
        if undo or not placed:
            _undo_renames(names)
        _unlink(names.journal)
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


def settle(xml: Path, bin_: Path) -> bool:
    """For a reader that met the pair at ``xml`` / ``bin_`` with a file
    missing or not matching: wait for a writer of it that holds the lock, and
    deal with what an interrupted one left (:func:`recover`: needs write
    access to the folder). True when there was something to wait for or to
    recover (read again)."""
    names = _Names(xml, bin_)
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
        return waited  # no write access: the next writer recovers
    try:
        with deferred():
            recover(names)
    except OSError:
        return waited
    finally:
        lock.release()
    return True


# -- the writer --------------------------------------------------------------------------


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
        self.bin: BinSink

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
            fault_point("locked")
            self.bin = BinSink(self._create(self.names.bin_new))
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
            fd = os.open(name, os.O_RDWR | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC, 0o666)
            bus_error.remove_on_fault(name)  # a SIGBUS exit removes it (unnamed ones go anyway)
            return fd
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
            fault_point("bin-written")
            size, digest = self.bin.digest()
            self.bin.close()
        except OSError as e:
            raise IRWriteError(f"cannot write {n.bin}: {e.strerror}") from e
        text = _XML_DECLARATION + record_line(size, digest) + xml_text[len(_XML_DECLARATION) :]
        try:
            with open(self._create(n.xml_new), "wb") as f:
                f.write(text.encode("utf-8"))
            fault_point("xml-written")
            for fd, name in self._unnamed:
                _give_name(fd, name)
                bus_error.remove_on_fault(name)
        except OSError as e:
            raise IRWriteError(f"cannot write {n.xml}: {e.strerror}") from e
        fault_point("named")
        return n.xml_new, n.bin_new

    def commit(self) -> None:
        """Put the new pair at the path (the journaled renames, see the
        module docstring). A signal during the renames undoes them, then its
        handler runs as usual (raising, the write is over; else it goes on)."""
        n = self.names
        for p in (n.xml_new, n.bin_new):  # from now on only recover() removes them
            bus_error.forget(p)
        try:
            with open(n.journal_tmp, "w") as f:
                f.write(n.journal_text())
            os.rename(n.journal_tmp, n.journal)
        except OSError as e:
            raise IRWriteError(
                f"cannot replace {n.xml}: {e.strerror} (the previous files are kept)"
            ) from e
        fault_point("journal")
        with deferred() as pending:
            target = n.xml
            try:
                if os.path.lexists(n.bin):
                    target = n.bin
                    os.rename(n.bin, n.bin_old)
                    fault_point("bin-aside")
                if os.path.lexists(n.xml):
                    target = n.xml
                    os.rename(n.xml, n.xml_old)
                    fault_point("xml-aside")
                target = n.xml
                os.rename(n.xml_new, n.xml)
                fault_point("xml-placed")
                target = n.bin
                os.rename(n.bin_new, n.bin)
                fault_point("bin-placed")
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
        fault_point("committed")
