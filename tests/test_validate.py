"""``xmo validate``: statuses of every kind, resuming, the Dask cluster, exports.

One module-scoped run of the generated suite (``tools/make_validate_models.py``:
two good models and one of each failure) on a local pool of two; the other
tests reuse its database. Limits are short (a 4 s hang, 1 GiB of memory).
The report's rendering in Chromium: ``tests/test_validate_report.py``.
"""

from __future__ import annotations

import csv
import io
import json
import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from xmo.tools.make_validate_models import EXPECTED, make_suite
from xmo.validate.db import ResultsDB
from xmo.validate.manifest import ManifestError, Task, read_manifest
from xmo.validate.runner import Progress
from xmo.validate.worker import Result, compare

LIMITS = ["--timeout", "60", "--memory-limit", "1G"]


def xmo_validate(*args: str, **kw) -> subprocess.CompletedProcess:  # noqa: ANN003
    return subprocess.run([sys.executable, "-m", "xmo.tools.xmo_main", "validate", *args],
                          capture_output=True, text=True, timeout=240, **kw)


@pytest.fixture(scope="module")
def suite(tmp_path_factory) -> Path:  # noqa: ANN001
    return make_suite(tmp_path_factory.mktemp("validate") / "models", good=2, hang_timeout=4)


@pytest.fixture(scope="module")
def local_run(suite: Path) -> tuple[Path, subprocess.CompletedProcess]:
    out = suite.parent
    r = xmo_validate("--manifest", str(suite), "--jobs", "2", *LIMITS, "--db", str(out / "v.db"),
                     "--json", str(out / "v.json"), "--csv", str(out / "v.csv"),
                     "--report", str(out / "report.html"))
    return out, r


def _by_name(path: Path) -> dict[str, dict]:
    return {r["name"].removesuffix(".onnx"): r for r in json.loads(path.read_text())}


def test_every_status_on_a_local_pool(local_run) -> None:  # noqa: ANN001
    out, r = local_run
    assert r.returncode == 1, r.stderr  # not all passed
    got = {name: res["status"] for name, res in _by_name(out / "v.json").items()}
    assert got == {"good_00": "pass", "good_01": "pass", **EXPECTED}, r.stdout
    assert "2 pass, 2 mismatch, 1 unsupported, 1 error, 1 crash, 1 timeout, 2 oom" in r.stdout


def test_what_is_recorded(local_run) -> None:  # noqa: ANN001
    out, _ = local_run
    res = _by_name(out / "v.json")
    good = res["good_00"]
    assert good["max_abs"] is not None and good["max_abs"] < 1e-5
    assert good["layers"] >= 3 and good["layers_by_type"]["ReLU"] == 1
    assert good["convert_s"] > 0 and good["peak_rss"] > 10 * 2**20
    assert good["latency_ms"]["openvino"] > 0 and good["pass_seconds"]
    assert "Frobnicate" in res["unsupported"]["details"]
    assert "cannot be converted" in res["unsupported"]["error"]
    assert res["mismatch"]["max_abs"] == pytest.approx(0.5, rel=1e-3)
    assert "first divergent tensor: 'mm' (node 'matmul', MatMul)" in res["diverge"]["divergence"]
    assert "SIGSEGV" in res["crash"]["error"] and res["crash"]["step"] == "convert"
    assert "within 4 s" in res["hang"]["error"]
    assert "1.0 GiB" in res["hog"]["error"]
    assert "not a valid ONNX model" in res["broken"]["error"]
    rows = list(csv.DictReader(io.StringIO((out / "v.csv").read_text())))
    assert {row["name"]: row["status"] for row in rows}["crash.onnx"] == "crash"


def test_a_rerun_skips_what_is_unchanged(local_run, suite: Path) -> None:  # noqa: ANN001
    out, _ = local_run
    r = xmo_validate("--manifest", str(suite), *LIMITS, "--db", str(out / "v.db"))
    assert "10 models, 10 unchanged since the last run" in r.stdout, r.stdout + r.stderr
    assert "0 to run" in r.stdout


def test_retry_failed_and_changed_files(local_run, suite: Path) -> None:  # noqa: ANN001
    out, _ = local_run
    tasks = {Path(t.model).stem: t for t in read_manifest(suite)}
    with ResultsDB(out / "v.db") as db:
        for name in ("good_00", "crash"):
            t = tasks[name]
            t.memory_limit = 1 << 30
            assert db.done(t, t.key(), retry_failed=False)
        assert db.done(tasks["good_00"], tasks["good_00"].key(), retry_failed=True)
        assert not db.done(tasks["crash"], tasks["crash"].key(), retry_failed=True)
        t = tasks["good_00"]
        t.atol = 0.5  # another option: another validation
        assert not db.done(t, t.key(), retry_failed=False)


def test_killed_half_way_then_resumed(suite: Path, tmp_path: Path) -> None:
    models = suite.parent
    manifest = tmp_path / "m.txt"
    names = ["good_00", "good_01"]
    manifest.write_text("# a line manifest\n" + "\n".join(str(models / f"{n}.onnx") for n in names) + "\n")
    # then the hang (keeps a worker busy when the driver is killed) and good_00 with other options
    lines = [{"model": str(models / "hang.onnx"), "extensions": [str(models / "ext_hang")], "timeout": 30},
             {"model": str(models / "good_00.onnx"), "name": "again", "atol": 1e-4}]
    jmanifest = tmp_path / "m.json"
    jmanifest.write_text(json.dumps([*(str(models / f"{n}.onnx") for n in names), *lines]))
    db = tmp_path / "k.db"
    proc = subprocess.Popen([sys.executable, "-m", "xmo.tools.xmo_main", "validate", "--manifest",
                             str(jmanifest), *LIMITS, "--db", str(db)],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                            env=dict(os.environ, TMPDIR=str(tmp_path)))  # what SIGKILL leaves: here
    deadline = time.monotonic() + 120
    done = 0
    while time.monotonic() < deadline and done < 2:
        time.sleep(0.2)
        if db.exists():
            with sqlite3.connect(db) as c:
                try:
                    done = c.execute("SELECT count(*) FROM results").fetchone()[0]
                except sqlite3.OperationalError:
                    done = 0
    assert done == 2, "the first two models did not finish in time"
    time.sleep(1.0)  # the hang's worker is running now
    workers = _children(proc.pid)
    assert workers, "no worker running when the driver is killed"
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    with sqlite3.connect(db) as c:
        before = dict(c.execute("SELECT name, finished FROM results").fetchall())
    assert set(before) == {"good_00.onnx", "good_01.onnx"}
    time.sleep(0.5)
    assert not [p for p in workers if _alive(p)], "a worker outlived its killed driver"
    # the rerun skips the two finished models; the hang (now with a short limit) and 'again' run
    lines[0]["timeout"] = 2
    jmanifest.write_text(json.dumps([*(str(models / f"{n}.onnx") for n in names), *lines]))
    r = xmo_validate("--manifest", str(jmanifest), *LIMITS, "--db", str(db))
    assert "4 models, 2 unchanged since the last run" in r.stdout, r.stdout + r.stderr
    with sqlite3.connect(db) as c:
        after = dict(c.execute("SELECT name, finished FROM results").fetchall())
        statuses = dict(c.execute("SELECT name, status FROM results").fetchall())
    assert {k: after[k] for k in before} == before  # not redone
    assert statuses == {"good_00.onnx": "pass", "good_01.onnx": "pass", "hang.onnx": "timeout", "again": "pass"}
    # the line manifest names the same two models: nothing to run
    r = xmo_validate("--manifest", str(manifest), *LIMITS, "--db", str(db))
    assert "2 models, 2 unchanged" in r.stdout, r.stdout + r.stderr


def test_sigterm_ends_the_running_workers(suite: Path, tmp_path: Path) -> None:
    models = suite.parent
    manifest = tmp_path / "hang.json"
    manifest.write_text(json.dumps([{"model": str(models / "hang.onnx"), "extensions": [str(models / "ext_hang")]}]))
    tmp = tmp_path / "tmp"
    tmp.mkdir()
    proc = subprocess.Popen([sys.executable, "-m", "xmo.tools.xmo_main", "validate", "--manifest",
                             str(manifest), *LIMITS, "--db", str(tmp_path / "t.db")],
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
                            env=dict(os.environ, TMPDIR=str(tmp)))
    deadline = time.monotonic() + 60
    workers: list[int] = []
    while not workers and time.monotonic() < deadline:
        time.sleep(0.2)
        workers = _children(proc.pid)
    assert workers, "no worker started"
    proc.terminate()
    _, err = proc.communicate(timeout=30)
    assert proc.returncode == 128 + signal.SIGTERM, err
    time.sleep(0.3)
    assert not [p for p in workers if _alive(p)], "a worker outlived its terminated driver"
    assert os.listdir(tmp) == []  # the workers' folders went with them


def _children(pid: int) -> list[int]:
    out = []
    for d in Path("/proc").iterdir():
        if d.name.isdigit():
            try:
                status = (d / "status").read_text()
            except OSError:
                continue
            ppid = next((ln.split()[1] for ln in status.splitlines() if ln.startswith("PPid:")), "")
            if ppid == str(pid):
                out.append(int(d.name))
    return out


def _alive(pid: int) -> bool:
    try:
        state = next(ln for ln in Path(f"/proc/{pid}/status").read_text().splitlines()
                     if ln.startswith("State:"))
    except (OSError, StopIteration):
        return False
    return "Z" not in state.split()[1]


def test_on_a_dask_local_cluster(suite: Path, tmp_path: Path) -> None:
    distributed = pytest.importorskip("distributed", reason="the test extra pins distributed")
    models = suite.parent
    keep = [e for e in json.loads(suite.read_text()) if Path(e["model"]).stem in ("good_00", "good_01", "crash", "hang", "hog")]
    manifest = models / "dask.json"
    manifest.write_text(json.dumps(keep))
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, dashboard_address=None,
                                  silence_logs=40) as cluster:
        r = xmo_validate("--manifest", str(manifest), *LIMITS, "--db", str(tmp_path / "d.db"),
                         "--scheduler", cluster.scheduler_address, "--json", str(tmp_path / "d.json"))
        assert len(cluster.scheduler.workers) == 2  # no worker lost to a crash or the memory hog
    got = {n: res["status"] for n, res in _by_name(tmp_path / "d.json").items()}
    assert got == {"good_00": "pass", "good_01": "pass", "crash": "crash", "hang": "timeout",
                   "hog": "oom"}, r.stdout + r.stderr
    assert f"on {cluster.scheduler_address}" in r.stdout


def test_manifests(tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_text("# models\nx.onnx\n\nsub/y.onnx  # the second\n")
    tasks = read_manifest(tmp_path / "a.txt")
    assert [t.model for t in tasks] == [str(tmp_path / "x.onnx"), str(tmp_path / "sub/y.onnx")]
    (tmp_path / "b.yaml").write_text("- x.onnx\n- model: y.onnx\n  input: 'x[1,3]'\n  rtol: 0.01\n")
    if pytest.importorskip("yaml"):
        b = read_manifest(tmp_path / "b.yaml", defaults={"atol": 1e-3})
        assert (b[1].input, b[1].rtol, b[1].atol, b[0].atol) == ("x[1,3]", 0.01, 1e-3, 1e-3)
    (tmp_path / "c.json").write_text('[{"model": "x.onnx", "tolerance": 1}]')
    with pytest.raises(ManifestError, match="unknown key.*tolerance"):
        read_manifest(tmp_path / "c.json")
    (tmp_path / "d.json").write_text('{"model": "x.onnx"}')
    with pytest.raises(ManifestError, match="a list of models"):
        read_manifest(tmp_path / "d.json")


def test_the_key_follows_the_files_and_options(tmp_path: Path) -> None:
    m = tmp_path / "m.onnx"
    m.write_bytes(b"1")
    key = Task(str(m)).key()
    assert key == Task(str(m), name="other", timeout=3).key()
    assert key != Task(str(m), rtol=0.1).key()
    ext = tmp_path / "ext"
    (ext / "front" / "onnx").mkdir(parents=True)
    (ext / "front" / "onnx" / "e.py").write_text("A = 1\n")
    with_ext = Task(str(m), extensions=[str(ext)]).key()
    (ext / "front" / "onnx" / "e.py").write_text("A = 2\n")
    assert with_ext != Task(str(m), extensions=[str(ext)]).key() != key
    m.write_bytes(b"2")
    assert key != Task(str(m)).key()


def test_compare() -> None:
    import numpy as np

    ok, max_abs, max_rel, why = compare({"y": np.array([1.0, 2.0])}, {"y": np.array([1.0, 2.1])}, 1e-3, 1e-5)
    assert not ok and max_abs == pytest.approx(0.1) and "1 of 2 values differ" in why
    assert compare({"z": np.ones(2)}, {"y": np.ones(2)}, 0, 0)[0]  # by position
    assert not compare({"y": np.ones(3)}, {"y": np.ones(2)}, 0, 0)[0]


def test_progress_line_only_on_a_terminal() -> None:
    quiet = io.StringIO()
    p = Progress(3, stream=quiet)
    p.start()
    p.finish(Result("a", "a.onnx", status="pass"))
    assert quiet.getvalue() == ""
    shown = io.StringIO()
    p = Progress(3, stream=shown, enabled=True)
    p.start()
    p.start()
    p.finish(Result("a", "a.onnx", status="crash"))
    assert "1/3 done, 1 failed, 1 running, ETA" in shown.getvalue()


def test_no_models_is_one_line(tmp_path: Path) -> None:
    r = xmo_validate("--db", str(tmp_path / "x.db"))
    assert r.returncode == 1 and r.stderr.strip() == "xmo: error: xmo validate: give MODELs or --manifest FILE"
