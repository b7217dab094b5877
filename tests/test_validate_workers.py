"""Many tasks per isolated worker (``reuse_workers``): a crashing, a hanging and
a memory-hungry task among good ones end their worker, are recorded with
their status, and the tasks after them run in a fresh worker; the results go
to the database, and a rerun skips the finished ones."""

from __future__ import annotations

from pathlib import Path

import pytest

from xmo.validate.db import ResultsDB
from xmo.validate.manifest import CallTask, task_from_json
from xmo.validate.runner import run_tasks

TASKS = Path(__file__).with_name("validate_tasks.py")
LIMIT = 512 << 20


def call(function: str, name: str, timeout: float | None = None, **args) -> CallTask:  # noqa: ANN003
    return CallTask(f"{TASKS}:{function}", name, "test", args, {"v": 1}, timeout=timeout)


def plan() -> list[CallTask]:
    return [call("good", "g0", i=0), call("good", "g1", i=1), call("crash", "crash"), call("good", "g2", i=2),
            call("hang", "hang", timeout=2), call("good", "g3", i=3), call("hog", "hog"),
            call("fail", "fail"), call("good", "g4", i=4), call("mismatch", "mismatch")]


@pytest.fixture(scope="module")
def run(tmp_path_factory):  # noqa: ANN001, ANN201
    db_path = tmp_path_factory.mktemp("workers") / "r.db"
    tasks = plan()
    order = []
    with ResultsDB(db_path) as db:  # one pool slot: the tasks run in order
        for task, result in run_tasks(tasks, jobs=1, timeout=60, memory_limit=LIMIT, reuse_workers=True):
            db.put(task, result)
            order.append(task.name)
        results = {t.name: db.get(t) for t in tasks}
    return db_path, order, results


def test_statuses(run) -> None:  # noqa: ANN001
    _, order, r = run
    assert order == [t.name for t in plan()]
    assert {k: v.status for k, v in r.items()} == {
        "g0": "pass", "g1": "pass", "crash": "crash", "g2": "pass", "hang": "timeout", "g3": "pass",
        "hog": "oom", "fail": "error", "g4": "pass", "mismatch": "mismatch"}
    assert r["crash"].error == "killed by SIGSEGV (while in step 'call')"
    assert r["hang"].error == "no result within 2 s (while in step 'call')"
    assert r["hog"].error.startswith("resident memory beyond the limit 512.0 MiB")
    assert r["hog"].peak_rss > LIMIT
    assert r["fail"].error == "ValueError: a task that raises"
    assert r["mismatch"].error == "output 0: 1 of 4 values differ"
    assert r["g3"].data == {"status": "pass", "i": 3, "pid": r["g3"].data["pid"]}
    assert all(x.key == t.key() and x.seconds > 0 for t, x in zip(plan(), r.values()))


def test_one_restart_per_task_that_ends_its_worker(run) -> None:  # noqa: ANN001
    _, _, r = run
    pid = {k: v.data["pid"] for k, v in r.items() if "pid" in v.data}
    assert pid["g0"] == pid["g1"]  # reused
    assert len({pid["g1"], pid["g2"], pid["g3"], pid["g4"]}) == 4  # a fresh worker after each crash / hang / hog
    assert pid["g4"] == pid["mismatch"]  # a task that raises or fails does not end its worker


def test_resume_skips_finished_tasks(run) -> None:  # noqa: ANN001
    db_path, _, _ = run
    tasks = plan()
    with ResultsDB(db_path) as db:
        assert [t.name for t in tasks if not db.done(t, t.key(), retry_failed=False)] == []
        retry = [t for t in tasks if not db.done(t, t.key(), retry_failed=True)]
        assert [t.name for t in retry] == ["crash", "hang", "hog", "fail", "mismatch"]
        moved = call("good", "g0", i=0)
        moved.depends = {"v": 2}  # another version of what it depends on: run again
        assert not db.done(moved, moved.key(), retry_failed=False)
        assert [c.name for c in db.calls("test")] == sorted(t.name for t in tasks)
    assert task_from_json(tasks[0].to_json()) == tasks[0]


def test_a_task_killed_half_way_leaves_no_temporary_files(tmp_path) -> None:  # noqa: ANN001
    """The worker process's temporary folder goes with it: what a task made
    there before it was killed (a converted model, say) is removed."""
    import os

    note = tmp_path / "folder.txt"
    tasks = [call("leave_temp_and_hang", "leftover", timeout=2, note=str(note)), call("good", "after", i=0)]
    results = [r for _, r in run_tasks(tasks, jobs=1, timeout=60, memory_limit=LIMIT, reuse_workers=True)]
    assert [r.status for r in results] == ["timeout", "pass"]
    folder = note.read_text()
    assert os.path.basename(folder).startswith("xmo-test-leftover-")
    assert not os.path.exists(folder)


def test_models_on_reused_workers(tmp_path) -> None:  # noqa: ANN001
    """``xmo validate --reuse-workers`` over the generated suite: the same
    statuses as a fresh process per model (``tests/test_validate.py``)."""
    import json
    import subprocess
    import sys

    from xmo.tools.make_validate_models import EXPECTED, make_suite

    manifest = make_suite(tmp_path / "models", good=2, hang_timeout=4)
    r = subprocess.run([sys.executable, "-m", "xmo.tools.xmo_main", "validate", "--manifest", str(manifest),
                        "--reuse-workers", "--jobs", "2", "--timeout", "60", "--memory-limit", "1G",
                        "--db", str(tmp_path / "v.db"), "--json", str(tmp_path / "v.json")],
                       capture_output=True, text=True, timeout=240)
    got = {x["name"].removesuffix(".onnx"): x for x in json.loads((tmp_path / "v.json").read_text())}
    assert {k: v["status"] for k, v in got.items()} == {"good_00": "pass", "good_01": "pass", **EXPECTED}, r.stdout
    assert "2 pass, 2 mismatch, 1 unsupported, 1 error, 1 crash, 1 timeout, 2 oom" in r.stdout
    assert "SIGSEGV" in got["crash"]["error"] and got["crash"]["step"] == "convert"
    assert got["good_00"]["peak_rss"] > 10 * 2**20 and got["good_00"]["latency_ms"]["openvino"] > 0
