"""The IR pair at an output path is one model's ``.xml`` and ``.bin``, always.

Issue #15, item 1: concurrent writers, a failing rename, kill -9 at every step
of the writer, SIGTERM / SIGHUP / SIGINT, disk full, long output names; and
xmo's reader refusing a ``.bin`` that does not belong to its ``.xml``.

The writer's steps are stopped, killed or failed with its test hook
(``XMO_TEST_IR_FAULT=<point>:<action>``, see :mod:`xmo.backends.ir.pair`) in
processes of their own (a fork server: no interpreter start-up per case).
"""

from __future__ import annotations

import errno
import multiprocessing
import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import numpy as np
import pytest

ov = pytest.importorskip("openvino")

from xmo.backends.ir import IRReadError, IRWriteError, pair, read_ir, serialize  # noqa: E402
from xmo.tools import ir_pair_stress as stress  # noqa: E402

MP = stress.forkserver()
N = stress.N


def _files(folder: Path) -> list[str]:
    return sorted(os.listdir(folder))


def _write(k: int, xml: Path, **kw) -> None:
    serialize(stress.make_module(k), xml, **kw)


def _child(k: int, xml: Path, fault: str | None = None, src: Path | None = None,
           wait: bool = True) -> multiprocessing.Process:
    p = MP.Process(target=stress.write_once, args=(k, str(xml), fault, N, str(src) if src else None))
    p.start()
    if wait:
        p.join(120)
    return p


def _default_signals() -> None:
    """In the child: SIGTERM/SIGHUP/SIGINT at their defaults, whatever the test
    runner inherited (under ``nohup`` SIGHUP is ignored, and xmo rightly keeps
    an ignored signal ignored)."""
    for s in (signal.SIGTERM, signal.SIGHUP, signal.SIGINT):
        signal.signal(s, signal.SIG_DFL)


def _xmo(*args: str, tool: str = "xmo_main", env: dict | None = None, **kw) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-m", f"xmo.tools.{tool}", *args],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            env=dict(os.environ, XMO_NO_PROGRESS="1", **(env or {})),
                            preexec_fn=_default_signals, **kw)


def _mlir(tmp_path: Path, k: int) -> Path:
    src = tmp_path / "src"
    src.mkdir(exist_ok=True)
    p = src / f"m{k}.mlir"
    p.write_text(stress.mlir_text(k))
    return p


# -- the reported failures ---------------------------------------------------------------


def test_concurrent_writers_leave_one_models_pair(tmp_path):
    """Four writer processes of different models, one output path, 20 rounds
    (``python -m xmo.tools.ir_pair_stress`` runs 100): every round ends with a
    consistent pair (byte for byte, xmo's reader, OpenVINO), and a reader
    reading meanwhile never accepts a mismatched pair."""
    report = stress.run(rounds=20, writers=4, folder=tmp_path)
    assert report.ok(), str(report)
    assert report.reads_accepted > 0, str(report)


def test_concurrent_xmo_convert_processes(tmp_path):
    report = stress.run_cli(rounds=1, writers=4, folder=tmp_path)
    assert report.ok(), str(report)


@pytest.mark.parametrize("how", ["api", "xmo", "xmo-opt"])
def test_xml_path_that_is_a_directory_keeps_the_old_bin(tmp_path, how):
    out = tmp_path / "out.xml"
    out.mkdir()
    out.with_suffix(".bin").write_bytes(b"old weights")
    if how == "api":
        with pytest.raises(IRWriteError, match=r"out\.xml.*directory"):
            _write(1, out)
    else:
        src = _mlir(tmp_path, 1)
        args = (["convert", str(src), "-o", str(out)] if how == "xmo"
                else [str(src), "-t", "ov-ir", "-o", str(out)])
        p = _xmo(*args, tool="xmo_main" if how == "xmo" else "xmo_opt")
        _, err = p.communicate(timeout=300)
        assert p.returncode == 1, err
        assert err.count("\n") == 1 and "directory" in err, err
    assert out.with_suffix(".bin").read_bytes() == b"old weights"
    assert set(_files(tmp_path)) - {"src"} == {"out.bin", "out.xml"}


def test_kill_between_the_renames(tmp_path):
    """kill -9 right after the writer's first rename used to leave the old
    .xml with the new .bin; now the .bin is missing until xmo's reader (or
    the next writer) undoes the interrupted commit: the old pair, nothing else."""
    xml = tmp_path / "out.xml"
    _write(0, xml)
    p = _child(1, xml, fault="bin-aside:kill")
    assert p.exitcode == -signal.SIGKILL
    assert not xml.with_suffix(".bin").exists()
    assert stress.check_pair(xml) == 0
    assert _files(tmp_path) == ["out.bin", "out.xml"]


def test_sigterm_while_writing_leaves_nothing(tmp_path):
    """``timeout`` sends SIGTERM: the temporaries go, the old pair stays, the
    exit code is 128 + 15."""
    xml = tmp_path / "out.xml"
    _write(0, xml)
    before = xml.read_bytes(), xml.with_suffix(".bin").read_bytes()
    p = _xmo("convert", str(_mlir(tmp_path, 1)), "-o", str(xml),
             env={pair.FAULT_ENV: "bin-partial:stop"})
    _wait_stopped(p.pid)
    p.send_signal(signal.SIGTERM)
    os.kill(p.pid, signal.SIGCONT)
    _, err = p.communicate(timeout=300)
    assert p.returncode == 128 + signal.SIGTERM, err
    assert "Traceback" not in err
    assert (xml.read_bytes(), xml.with_suffix(".bin").read_bytes()) == before
    assert _files(tmp_path) == ["out.bin", "out.xml", "src"]


def test_a_250_byte_output_name(tmp_path):
    xml = tmp_path / ("n" * 246 + ".xml")
    _write(2, xml, verify_ir=True)
    assert stress.check_pair(xml, openvino=False) == 2
    p = _xmo("convert", str(_mlir(tmp_path, 3)), "-o", str(xml))
    _, err = p.communicate(timeout=300)
    assert p.returncode == 0, err
    assert stress.check_pair(xml) == 3
    assert len(_files(tmp_path)) == 3


# -- every step of the writer --------------------------------------------------------------


def _wait_stopped(pid: int, timeout: float = 120) -> None:
    """Until process ``pid`` stops itself (the hook's ``stop`` action)."""
    t0 = time.monotonic()
    while time.monotonic() - t0 < timeout:
        with open(f"/proc/{pid}/stat") as f:
            state = f.read().rsplit(")", 1)[1].split()[0]
        if state in ("T", "t"):
            return
        if state == "Z":
            raise AssertionError("the writer ended instead of stopping")
        time.sleep(0.01)
    raise AssertionError("the writer did not stop")


def _openvino_view(xml: Path) -> int | None:
    """What OpenVINO (no lock, no digest) makes of the path now: the model it
    computes correctly, or None when it refuses to read; never another
    model's weights."""
    try:
        k = int(stress._net_name(xml)[1:])
    except (OSError, ValueError):
        return None
    try:
        stress.openvino_model(xml, k)
    except RuntimeError:
        return None  # "bin file cannot be found", "Incorrect weights in bin file"
    return k


#: What OpenVINO reads at the path when the writer stopped or was killed after
#: each step: the old model (0), the new one (1), or nothing (a file is missing).
OPENVINO_SEES = {"bin-aside": None, "xml-aside": None, "xml-placed": None, "bin-placed": 1,
                 "committed": 1}


#: A write stopped by a signal before its commit point leaves the old pair
#: (0), after it the new one (1); killed, the same, except that the next
#: process finishes a commit whose renames were all done.
def _survivor(point: str, killed: bool = False) -> int:
    return 1 if point == "committed" or (killed and point == "bin-placed") else 0


@pytest.mark.parametrize("mapped", [False, True], ids=["in-memory", "mapped"])
def test_kill_at_every_step(tmp_path, mapped):
    """kill -9 at each step of the writer: OpenVINO never computes with
    another model's weights; xmo's reader undoes an interrupted commit and
    gives the old model (the new one once all its renames were done); the
    next write leaves nothing but its pair."""
    for point in pair.FAULT_POINTS:
        folder = tmp_path / point
        folder.mkdir()
        xml = folder / "out.xml"
        _write(0, xml)
        p = _child(1, xml, fault=f"{point}:kill", src=tmp_path / f"src-{point}.xml" if mapped else None)
        assert p.exitcode == -signal.SIGKILL, point
        assert _openvino_view(xml) == OPENVINO_SEES.get(point, 0), point  # what the kill left
        assert stress.module_model(read_ir(xml)) == _survivor(point, killed=True), point
        assert stress.check_pair(xml) == _survivor(point, killed=True), point
        _write(2, xml)
        assert stress.check_pair(xml, openvino=False) == 2
        assert _files(folder) == ["out.bin", "out.xml"], point


def test_reader_during_every_step(tmp_path):
    """The writer stopped after each step: OpenVINO sees the old model, the
    new one, or a file missing (never a mixed pair); xmo's reader gives the
    old model, the new one, or (a file missing) waits for the writer and
    gives the new one."""
    for point in pair.FAULT_POINTS:
        folder = tmp_path / point
        folder.mkdir()
        xml = folder / "out.xml"
        _write(0, xml)
        p = _child(1, xml, fault=f"{point}:stop", wait=False)
        _wait_stopped(p.pid)
        assert _openvino_view(xml) == OPENVINO_SEES.get(point, 0), point
        got: list = []
        t = threading.Thread(target=lambda: got.append(stress.module_model(read_ir(xml))))
        t.start()
        t.join(1.0)
        waited = t.is_alive()
        os.kill(p.pid, signal.SIGCONT)
        t.join(120)
        p.join(120)
        assert p.exitcode == 0, point
        assert waited == (OPENVINO_SEES.get(point, 0) is None), point
        assert got == [1 if waited else OPENVINO_SEES.get(point, 0)], point
        assert stress.check_pair(xml) == 1, point
        assert _files(folder) == ["out.bin", "out.xml"], point


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGHUP, signal.SIGINT], ids=lambda s: s.name)
def test_signal_at_every_step_leaves_no_temporary(tmp_path, sig):
    """A signal at each step of ``serialize`` in a process without handlers of
    its own: the renames done are undone, the temporaries go, the old pair
    stays (the new one when the signal comes after the commit point)."""
    action = {signal.SIGTERM: "term", signal.SIGHUP: "hup", signal.SIGINT: "int"}[sig]
    for point in pair.FAULT_POINTS:
        folder = tmp_path / point
        folder.mkdir()
        xml = folder / "out.xml"
        _write(0, xml)
        p = _child(1, xml, fault=f"{point}:{action}")
        if sig == signal.SIGINT:
            assert p.exitcode == 1, point  # KeyboardInterrupt out of the process's target
        else:
            assert p.exitcode == -sig, point  # the process dies of the signal, after cleaning up
        assert _files(folder) == ["out.bin", "out.xml"], point
        assert stress.check_pair(xml, openvino=False) == _survivor(point), point


def test_a_handler_that_does_not_raise_lets_the_write_finish(tmp_path):
    """An application's own SIGTERM handler that only takes note: a signal
    during the commit is handled after it (once), and the write completes."""
    xml = tmp_path / "out.xml"
    _write(0, xml)
    p = MP.Process(target=stress.write_noting_sigterm, args=(1, str(xml), "xml-placed:term"))
    p.start()
    p.join(120)
    assert p.exitcode == 0  # 3: the handler did not run once
    assert stress.check_pair(xml, openvino=False) == 1
    assert _files(tmp_path) == ["out.bin", "out.xml"]


def test_named_temporaries_where_there_is_no_o_tmpfile(tmp_path):
    """Without O_TMPFILE the temporaries have names while they are written:
    a writer killed then leaves one, the pair stays readable, and the next
    write removes it."""
    xml = tmp_path / "out.xml"
    _write(0, xml)
    p = MP.Process(target=stress.write_once, args=(1, str(xml), "bin-partial:kill", N, None, False))
    p.start()
    p.join(120)
    assert p.exitcode == -signal.SIGKILL
    assert any(n.endswith(".bin.new") for n in _files(tmp_path))
    assert stress.check_pair(xml, openvino=False) == 0
    p = MP.Process(target=stress.write_once, args=(2, str(xml), None, N, None, False))
    p.start()
    p.join(120)
    assert p.exitcode == 0
    assert _files(tmp_path) == ["out.bin", "out.xml"]
    assert stress.check_pair(xml, openvino=False) == 2


def test_a_bin_in_another_folder(tmp_path):
    """``serialize(module, xml, bin)`` with the .bin elsewhere: the journal
    names it, so an interrupted commit is undone there too."""
    (tmp_path / "w").mkdir()
    xml, bin_ = tmp_path / "out.xml", tmp_path / "w" / "out.bin"
    serialize(stress.make_module(0), xml, bin_)
    p = MP.Process(target=stress.write_once, args=(1, str(xml), "xml-placed:kill", N, None, True,
                                                   str(bin_)))
    p.start()
    p.join(120)
    assert p.exitcode == -signal.SIGKILL
    assert stress.module_model(read_ir(xml, bin_)) == 0
    assert _files(tmp_path) == ["out.xml", "w"] and _files(tmp_path / "w") == ["out.bin"]


@pytest.mark.parametrize(("tool", "sig"), [("xmo_main", signal.SIGTERM), ("xmo_main", signal.SIGHUP),
                                           ("xmo_main", signal.SIGINT), ("xmo_opt", signal.SIGTERM)])
def test_cli_signal_cleans_up_and_exits_128_plus_n(tmp_path, tool, sig):
    xml = tmp_path / "out.xml"
    _write(0, xml)
    action = {signal.SIGTERM: "term", signal.SIGHUP: "hup", signal.SIGINT: "int"}[sig]
    src = str(_mlir(tmp_path, 1))
    args = ["convert", src, "-o", str(xml)] if tool == "xmo_main" else [src, "-t", "ov-ir", "-o", str(xml)]
    p = _xmo(*args, tool=tool, env={pair.FAULT_ENV: f"bin-partial:{action}"})
    _, err = p.communicate(timeout=300)
    assert p.returncode == 128 + sig, err
    assert "Traceback" not in err and err.count("\n") == 1, err
    assert _files(tmp_path) == ["out.bin", "out.xml", "src"]
    assert stress.check_pair(xml, openvino=False) == 0


# -- failing renames, disk full ----------------------------------------------------------------


def test_failing_rename_at_every_position(tmp_path, monkeypatch):
    """The k-th rename of a write fails: a one-line error, the old pair
    intact, nothing else left."""
    real = os.rename
    for nth in range(1, 10):
        folder = tmp_path / str(nth)
        folder.mkdir()
        xml = folder / "out.xml"
        _write(0, xml)
        calls = {"n": 0}

        def failing(src, dst, nth=nth):
            calls["n"] += 1
            if calls["n"] == nth:
                raise OSError(errno.EIO, os.strerror(errno.EIO), str(dst))
            return real(src, dst)

        monkeypatch.setattr(pair.os, "rename", failing)
        try:
            _write(1, xml)
            wrote = True
        except IRWriteError as e:
            assert "\n" not in str(e) and "Input/output error" in str(e), str(e)
            wrote = False
        finally:
            monkeypatch.setattr(pair.os, "rename", real)
        assert _files(folder) == ["out.bin", "out.xml"], nth
        assert stress.check_pair(xml, openvino=False) == (1 if wrote else 0), nth
        if wrote:  # more positions than the write has renames
            break
    else:
        raise AssertionError("a write with more than 9 renames")


def test_disk_full_via_the_hook(tmp_path):
    xml = tmp_path / "out.xml"
    _write(0, xml)
    for point in ("bin-partial", "bin-written", "xml-written"):
        p = _xmo("convert", str(_mlir(tmp_path, 1)), "-o", str(xml),
                 env={pair.FAULT_ENV: f"{point}:enospc"})
        _, err = p.communicate(timeout=300)
        assert p.returncode == 1, err
        assert err.startswith("xmo: error: ") and err.count("\n") == 1, err
        assert "No space left on device" in err, err
        assert _files(tmp_path) == ["out.bin", "out.xml", "src"]
        assert stress.check_pair(xml, openvino=False) == 0


def _mount_tmpfs(path: Path, size: str) -> bool:
    path.mkdir()
    r = subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={size}", "tmpfs", str(path)],
                       capture_output=True, check=False)
    return r.returncode == 0


def test_disk_full_on_a_small_tmpfs(tmp_path):
    """A real ENOSPC (a 1.5 MiB tmpfs: the old pair fits, a second .bin does
    not); needs the right to mount, else skipped (the hook and the file size
    limit below cover the same path)."""
    mnt = tmp_path / "small"
    try:
        mounted = _mount_tmpfs(mnt, "1536k")
    except FileNotFoundError:
        mounted = False
    if not mounted:
        pytest.skip("cannot mount a tmpfs here")
    try:
        xml = mnt / "out.xml"
        _write(0, xml)
        with pytest.raises(IRWriteError, match="No space left on device"):
            _write(1, xml)
        assert _files(mnt) == ["out.bin", "out.xml"]
        assert stress.check_pair(xml, openvino=False) == 0
    finally:
        subprocess.run(["umount", "--lazy", str(mnt)], check=False)  # mapped by read_ir


def test_write_failing_midway_file_size_limit(tmp_path):
    """RLIMIT_FSIZE makes the .bin's writes fail (EFBIG) halfway, without
    privileges: a one-line error, the old pair intact."""
    xml = tmp_path / "out.xml"
    _write(0, xml)
    code = ("import resource, signal, sys\n"
            "signal.signal(signal.SIGXFSZ, signal.SIG_IGN)\n"
            "resource.setrlimit(resource.RLIMIT_FSIZE, (1 << 19, 1 << 19))\n"
            "from xmo.tools.xmo_main import main\n"
            "sys.exit(main(sys.argv[1:]))\n")
    r = subprocess.run([sys.executable, "-c", code, "convert", str(_mlir(tmp_path, 1)), "-o", str(xml)],
                       capture_output=True, text=True, timeout=300, check=False,
                       env=dict(os.environ, XMO_NO_PROGRESS="1"))
    assert r.returncode == 1, r.stderr
    assert r.stderr.startswith("xmo: error: ") and r.stderr.count("\n") == 1, r.stderr
    assert "File too large" in r.stderr
    assert _files(tmp_path) == ["out.bin", "out.xml", "src"]
    assert stress.check_pair(xml, openvino=False) == 0


# -- the record and xmo's reader --------------------------------------------------------------


def test_the_xml_records_its_bin(tmp_path):
    xml = tmp_path / "out.xml"
    serialize(stress.make_module(3, n=(5 << 20) // 2), xml)  # 10 MiB: three blocks
    import hashlib

    data = xml.with_suffix(".bin").read_bytes()
    blocks = b"".join(hashlib.sha256(data[i : i + (4 << 20)]).digest()
                      for i in range(0, len(data), 4 << 20))
    assert pair.read_record(xml.read_bytes()) == (len(data), hashlib.sha256(blocks).hexdigest())
    lines = xml.read_text().splitlines()
    assert lines[0] == '<?xml version="1.0"?>' and lines[1].startswith("<?xmo-bin ")
    assert pair.strip_record(xml.read_bytes()).decode().splitlines()[1].startswith("<net ")


def test_reader_refuses_a_bin_of_another_model(tmp_path):
    a, b = tmp_path / "a.xml", tmp_path / "b.xml"
    _write(0, a)
    _write(1, b)
    a.with_suffix(".bin").write_bytes(b.with_suffix(".bin").read_bytes())  # same size, other bytes
    with pytest.raises(IRReadError, match=r"^.*a\.bin does not belong to .*a\.xml") as e:
        read_ir(a)
    assert "\n" not in str(e.value)
    a.with_suffix(".bin").write_bytes(b"\0" * 16)
    with pytest.raises(IRReadError, match=r"a\.bin does not belong to .*a\.xml.*16 bytes"):
        read_ir(a)
    a.with_suffix(".bin").unlink()
    with pytest.raises(IRReadError, match=r"a\.bin"):
        read_ir(a)


def test_a_pair_resaved_by_openvino_reads(tmp_path):
    """OpenVINO drops the record (a processing instruction, not runtime
    info): its own .xml and .bin read back in xmo."""
    xml = tmp_path / "out.xml"
    _write(2, xml)
    ov.save_model(ov.Core().read_model(str(xml)), str(tmp_path / "again.xml"), compress_to_fp16=True)
    assert pair.read_record((tmp_path / "again.xml").read_bytes()) is None
    read_ir(tmp_path / "again.xml")


def test_reading_back_does_not_keep_the_weights_in_memory(tmp_path):
    """The digest is computed with reads into small buffers, not through the
    map: reading a 128 MB pair does not make it resident."""
    code = (
        "import sys\n"
        "from xmo.backends.ir import read_ir\n"
        "def rss():\n"
        "    return int(open('/proc/self/statm').read().split()[1]) * 4096 >> 20\n"
        "before = rss()\n"
        "m = read_ir(sys.argv[1])\n"
        "print(rss() - before)\n"
    )
    xml = tmp_path / "big.xml"
    serialize(stress.make_module(1, n=32 << 20), xml)
    r = subprocess.run([sys.executable, "-c", code, str(xml)], capture_output=True, text=True,
                       timeout=300, check=True)
    assert int(r.stdout.strip().splitlines()[-1]) < 32, r.stdout


def test_reader_undoes_an_interrupted_commit(tmp_path):
    """A writer killed in the middle of its commit: the next reader undoes it
    from the journal (the old pair; nothing left), as a database does."""
    xml = tmp_path / "out.xml"
    _write(0, xml)
    p = _child(1, xml, fault="xml-placed:kill")
    assert p.exitcode == -signal.SIGKILL
    assert not xml.with_suffix(".bin").exists()  # the new .xml, no .bin yet
    assert stress.module_model(read_ir(xml)) == 0
    assert _files(tmp_path) == ["out.bin", "out.xml"]
    assert stress.check_pair(xml) == 0


def test_nothing_is_left_after_a_write(tmp_path):
    xml = tmp_path / "out.xml"
    for k in range(3):
        _write(k, xml)
        assert _files(tmp_path) == ["out.bin", "out.xml"]
    assert np.fromfile(xml.with_suffix(".bin"), np.float32)[0] == 3


def test_bin_sink_digest_is_the_files(tmp_path):
    """BinSink hashes what it writes as it goes: payloads small (gathered) and
    large, split across 4 MiB blocks, and ranges copied from another file,
    give the bytes in order and the digest file_digest reads back."""
    rng = np.random.default_rng(0)
    src_bytes = rng.integers(0, 256, 6 << 20, dtype=np.uint8).tobytes()
    (tmp_path / "src").write_bytes(src_bytes)
    parts = [rng.integers(0, 256, n, dtype=np.uint8) for n in (10, 70_000, 5 << 20, 3, 1 << 16)]
    sink = pair.BinSink(os.open(tmp_path / "out", os.O_RDWR | os.O_CREAT, 0o644))
    src = os.open(tmp_path / "src", os.O_RDONLY)
    try:
        want = b""
        for p in parts[:3]:
            sink.write(memoryview(p))
            want += p.tobytes()
        assert sink.copy_from(src, 100, 4 << 20) == 4 << 20
        want += src_bytes[100 : 100 + (4 << 20)]
        for p in parts[3:]:
            sink.write(memoryview(p))
            want += p.tobytes()
        assert sink.copy_from(src, len(src_bytes) - 10, 50) == 10  # the source ends first
        want += src_bytes[-10:]
        size, digest = sink.digest()
    finally:
        os.close(src)
        sink.close()
    assert (tmp_path / "out").read_bytes() == want and size == len(want)
    fd = os.open(tmp_path / "out", os.O_RDONLY)
    try:
        assert pair.file_digest(fd) == (size, digest)
    finally:
        os.close(fd)


def test_bin_sink_write_error_is_raised(tmp_path):
    (tmp_path / "ro").write_bytes(b"")
    sink = pair.BinSink(os.open(tmp_path / "ro", os.O_RDONLY))
    try:
        sink.write(memoryview(np.zeros(1 << 20, np.uint8)))
        with pytest.raises(OSError) as e:
            sink.flush()
        assert e.value.errno == errno.EBADF
        with pytest.raises(OSError):
            sink.write(b"x")
    finally:
        sink.close()
