"""The results of ``xmo validate``: one SQLite file (``--db``, default
``xmo-validate.db``), written by the driver only.

Table ``results``: one row per model entry (its name and path); ``key`` is
:meth:`Task.key` (the digest of its files and options). Table ``calls``: one
row per :class:`CallTask` (its kind and name, e.g. ``onnx-conformance`` and
``openvino/node/test_abs``), keyed by :meth:`CallTask.key`. A rerun skips a
task whose row has the same key, unless the row failed and ``--retry-failed``
is given. Each result is committed as it arrives, so a driver killed half-way
loses only the tasks that were running.
"""

from __future__ import annotations

import csv
import json
import sqlite3
from pathlib import Path
from typing import Any

from xmo.validate.manifest import CallTask, Task
from xmo.validate.worker import CallResult, Result

#: columns of the CSV export (and of the table, besides ``data``)
COLUMNS = ("name", "model", "status", "error", "max_abs", "max_rel", "layers", "transposes",
           "ovc_layers", "convert_s", "peak_rss", "model_bytes", "seconds", "finished")

_SCHEMA = """
CREATE TABLE IF NOT EXISTS results (
    id TEXT PRIMARY KEY, key TEXT NOT NULL,
    name TEXT, model TEXT, status TEXT, error TEXT, max_abs REAL, max_rel REAL,
    layers INTEGER, transposes INTEGER, ovc_layers INTEGER, convert_s REAL, peak_rss INTEGER,
    model_bytes INTEGER, seconds REAL, finished REAL,
    data TEXT NOT NULL
)
"""
_CALLS_SCHEMA = """
CREATE TABLE IF NOT EXISTS calls (
    kind TEXT NOT NULL, name TEXT NOT NULL, key TEXT NOT NULL,
    status TEXT, error TEXT, peak_rss INTEGER, seconds REAL, finished REAL,
    data TEXT NOT NULL,
    PRIMARY KEY (kind, name)
)
"""


def task_id(task: Task) -> str:
    return f"{task.name}\0{task.model}"


class ResultsDB:
    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        self.conn = sqlite3.connect(str(self.path), timeout=30)
        self.conn.execute("PRAGMA journal_mode=WAL")
        self.conn.execute("PRAGMA synchronous=NORMAL")  # WAL: a killed driver still loses nothing committed
        self.conn.execute(_SCHEMA)
        self.conn.execute(_CALLS_SCHEMA)
        self.conn.commit()

    def close(self) -> None:
        self.conn.close()

    def __enter__(self) -> ResultsDB:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def done(self, task: Task | CallTask, key: str, retry_failed: bool) -> bool:
        """Whether ``task`` (whose key is ``key``) needs no new run."""
        if isinstance(task, CallTask):
            row = self.conn.execute("SELECT key, status FROM calls WHERE kind = ? AND name = ?",
                                    (task.kind, task.name)).fetchone()
        else:
            row = self.conn.execute("SELECT key, status FROM results WHERE id = ?", (task_id(task),)).fetchone()
        if row is None or row[0] != key:
            return False
        return row[1] == "pass" or not retry_failed

    def put(self, task: Task | CallTask, result: Result | CallResult) -> None:
        d = result.to_json()
        if isinstance(task, CallTask):
            self.conn.execute(
                "INSERT OR REPLACE INTO calls (kind, name, key, status, error, peak_rss, seconds, finished, data) "
                "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (task.kind, task.name, result.key, result.status, result.error, result.peak_rss,
                 result.seconds, result.finished, json.dumps(d)),
            )
        else:
            self.conn.execute(
                f"INSERT OR REPLACE INTO results (id, key, {', '.join(COLUMNS)}, data) "
                f"VALUES (?, ?, {', '.join('?' for _ in COLUMNS)}, ?)",
                (task_id(task), result.key, *(d[c] for c in COLUMNS), json.dumps(d)),
            )
        self.conn.commit()

    def get(self, task: Task | CallTask) -> Result | CallResult | None:
        if isinstance(task, CallTask):
            row = self.conn.execute("SELECT data FROM calls WHERE kind = ? AND name = ?",
                                    (task.kind, task.name)).fetchone()
            return CallResult.from_json(json.loads(row[0])) if row else None
        row = self.conn.execute("SELECT data FROM results WHERE id = ?", (task_id(task),)).fetchone()
        return Result.from_json(json.loads(row[0])) if row else None

    def all(self) -> list[Result]:
        """Every model's result."""
        return [Result.from_json(json.loads(r[0]))
                for r in self.conn.execute("SELECT data FROM results ORDER BY name, model")]

    def calls(self, kind: str) -> list[CallResult]:
        """Every result of the call tasks of ``kind``."""
        return [CallResult.from_json(json.loads(r[0]))
                for r in self.conn.execute("SELECT data FROM calls WHERE kind = ? ORDER BY name", (kind,))]


def write_json(results: list[Result], path: str | Path) -> None:
    Path(path).write_text(json.dumps([r.to_json() for r in results], indent=1))


def write_csv(results: list[Result], path: str | Path) -> None:
    with open(path, "w", newline="") as f:
        w = csv.writer(f)
        w.writerow([*COLUMNS, "latency_ms", "divergence"])
        for r in results:
            d: dict[str, Any] = r.to_json()
            lat = ";".join(f"{k}={v}" for k, v in r.latency_ms.items())
            w.writerow([*(d[c] for c in COLUMNS), lat, r.divergence])
