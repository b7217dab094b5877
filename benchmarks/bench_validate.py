#!/usr/bin/env python3
"""The "done when" of issue #20 on generated models: ``xmo validate`` over a
manifest of 50 (42 good ONNX models, a mismatch, a located divergence, an
unsupported op, a broken file, a crash, a hang, a memory hog and a memory
bomb: ``tools/make_validate_models.py``).

1. ``--jobs 2`` on this machine, every status checked;
2. the same manifest on a Dask ``LocalCluster`` (2 workers), into another database;
3. a run killed (SIGKILL of the driver) half-way, then resumed: the models
   finished before the kill are not redone;
4. the HTML report (``--report``), and with ``--screenshot FILE.png`` a
   picture of it taken by headless Chromium.

    python benchmarks/bench_validate.py [--out DIR] [--good 42] [--with-ovc] [--reuse-workers]
        [--screenshot docs/validate-report.png]
"""

from __future__ import annotations

import argparse
import json
import shutil
import signal
import sqlite3
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CHROMIUM_FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                  "--disable-background-networking", "--disable-component-update", "--disable-sync",
                  "--hide-scrollbars"]


def validate(*args: str) -> tuple[subprocess.CompletedProcess, float]:
    t0 = time.perf_counter()
    r = subprocess.run([sys.executable, "-m", "xmo.tools.xmo_main", "validate", *args],
                       capture_output=True, text=True)
    return r, time.perf_counter() - t0


def statuses(db: Path) -> dict[str, str]:
    with sqlite3.connect(db) as c:
        return dict(c.execute("SELECT name, status FROM results").fetchall())


def check(db: Path, expected: dict[str, str], what: str) -> None:
    got = statuses(db)
    wrong = {k: (got.get(k), v) for k, v in expected.items() if got.get(k) != v}
    print(f"{what}: {len(got)} models, statuses {'all as expected' if not wrong else f'WRONG: {wrong}'}")
    if wrong:
        sys.exit(1)


def main(argv: list[str] | None = None) -> int:
    from xmo.tools.make_validate_models import EXPECTED, make_suite

    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", type=Path)
    ap.add_argument("--good", type=int, default=42)
    ap.add_argument("--with-ovc", action="store_true")
    ap.add_argument("--screenshot", type=Path)
    ap.add_argument("--skip-dask", action="store_true")
    ap.add_argument("--reuse-workers", action="store_true", help="xmo validate --reuse-workers in every run")
    args = ap.parse_args(argv)
    out = args.out or Path(tempfile.mkdtemp(prefix="xmo-bench-validate-"))
    manifest = make_suite(out / "models", good=args.good, hang_timeout=10)
    n = args.good + len(EXPECTED)
    expected = {**{f"good_{i:02d}.onnx": "pass" for i in range(args.good)},
                **{f"{k}.onnx": v for k, v in EXPECTED.items()}}
    limits = ["--timeout", "120", "--memory-limit", "2G", "--progress", "off"]
    extra = ["--with-ovc"] if args.with_ovc else []
    extra += ["--reuse-workers"] if args.reuse_workers else []
    print(f"{n} models in {out / 'models'}")

    db = out / "local.db"
    r, secs = validate("--manifest", str(manifest), "--jobs", "2", *limits, *extra, "--db", str(db),
                       "--report", str(out / "report.html"), "--json", str(out / "local.json"))
    print(f"--jobs 2: {secs:.1f} s; {r.stdout.strip().splitlines()[-2]}")
    check(db, expected, "--jobs 2")

    if not args.skip_dask:
        from distributed import LocalCluster

        with LocalCluster(n_workers=2, threads_per_worker=1, dashboard_address=None, silence_logs=40) as cluster:
            r, secs = validate("--manifest", str(manifest), *limits, *extra, "--db", str(out / "dask.db"),
                               "--scheduler", cluster.scheduler_address)
            workers = len(cluster.scheduler.workers)
        print(f"Dask LocalCluster(n_workers=2): {secs:.1f} s, {workers} workers alive at the end; "
              f"{r.stdout.strip().splitlines()[-1]}")
        check(out / "dask.db", expected, "Dask")

    db = out / "killed.db"
    proc = subprocess.Popen([sys.executable, "-m", "xmo.tools.xmo_main", "validate", "--manifest",
                             str(manifest), "--jobs", "2", *limits, *extra, "--db", str(db)],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    t0 = time.perf_counter()
    while True:
        time.sleep(0.2)
        done = len(statuses(db)) if db.exists() else 0
        if done >= n // 2:
            break
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    with sqlite3.connect(db) as c:
        before = dict(c.execute("SELECT name, finished FROM results").fetchall())
    print(f"killed the driver (SIGKILL) after {time.perf_counter() - t0:.1f} s with {len(before)} of {n} done")
    r, secs = validate("--manifest", str(manifest), "--jobs", "2", *limits, *extra, "--db", str(db))
    with sqlite3.connect(db) as c:
        after = dict(c.execute("SELECT name, finished FROM results").fetchall())
    redone = [k for k in before if after[k] != before[k]]
    print(f"resumed: {secs:.1f} s; {r.stdout.strip().splitlines()[0]}; redone: {redone or 'none'}")
    check(db, expected, "killed and resumed")
    if redone:
        return 1

    print(f"report: {out / 'report.html'}")
    if args.screenshot:
        chromium = shutil.which("chromium")
        if not chromium:
            print("no chromium: no screenshot")
            return 1
        with tempfile.TemporaryDirectory() as profile:
            subprocess.run([chromium, *CHROMIUM_FLAGS, f"--user-data-dir={profile}", "--window-size=1280,1100",
                            f"--screenshot={args.screenshot.resolve()}", (out / "report.html").as_uri()],
                           check=True, capture_output=True, timeout=120)
        print(f"screenshot: {args.screenshot}")
    print(json.dumps({"models": n}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
