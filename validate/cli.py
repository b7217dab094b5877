"""``xmo validate MODEL... | --manifest FILE``: see the README's "Validating many models"."""

from __future__ import annotations

import argparse
import sys
from collections import Counter
from pathlib import Path

from xmo.errors import XmoError

DEFAULT_DB = "xmo-validate.db"


def add_parser(sub: argparse._SubParsersAction) -> argparse.ArgumentParser:
    p = sub.add_parser(
        "validate",
        help="convert and check many models, each in an isolated process",
        description="Per model, in a process of its own with a time and a memory limit: convert "
        "with xmo (and ovc with --with-ovc), run the reference (onnxruntime for ONNX, or given "
        "outputs) and the IR (OpenVINO f32 and/or xmo's CPU backend), compare, name the first "
        "diverging tensor on a mismatch. Results go to an SQLite file; a rerun skips models "
        "whose files and options are unchanged.",
    )
    p.add_argument("models", nargs="*", metavar="MODEL")
    p.add_argument("--manifest", metavar="FILE",
                   help="models to validate: one a line, or a JSON/YAML list of paths or "
                   "objects (model, input, inputs, outputs, rtol, atol, extensions, name, timeout)")
    p.add_argument("--db", default=DEFAULT_DB, metavar="FILE",
                   help=f"SQLite results file (default {DEFAULT_DB})")
    p.add_argument("--retry-failed", action="store_true", help="rerun the models that did not pass")
    p.add_argument("--jobs", "-j", type=int, default=1, metavar="N", help="models at a time (local pool)")
    p.add_argument("--scheduler", metavar="ADDRESS",
                   help="run on a Dask distributed cluster (tcp://host:8786); needs xmo[dask]")
    p.add_argument("--reuse-workers", action="store_true",
                   help="keep each worker process for model after model (a fresh one after a crash, "
                   "timeout or out-of-memory) instead of a fresh process per model: saves the "
                   "start-up (~3.5 s of imports) per model")
    p.add_argument("--timeout", type=float, default=600.0, metavar="S",
                   help="seconds per model (default 600)")
    p.add_argument("--memory-limit", "--memory_limit", dest="memory_limit", default="4G",
                   metavar="SIZE", help="resident memory per model, e.g. 4G (default)")
    p.add_argument("--runtime", choices=["openvino", "cpu", "both"], default="openvino",
                   help="run the IR on OpenVINO (CPU, f32; default), xmo's CPU backend, or both")
    p.add_argument("--with-ovc", action="store_true",
                   help="also convert with OpenVINO's converter (layers side by side)")
    p.add_argument("--input", help="xmo's --input for MODELs given on the command line")
    p.add_argument("--rtol", type=float, help="relative tolerance (default 1e-3)")
    p.add_argument("--atol", type=float, help="absolute tolerance (default 1e-5)")
    p.add_argument("--json", metavar="FILE", help="write this run's results as JSON")
    p.add_argument("--csv", metavar="FILE", help="write this run's results as CSV")
    p.add_argument("--report", metavar="FILE.html", help="write the HTML report")
    p.add_argument("--progress", choices=["auto", "on", "off"], default="auto",
                   help="the progress line (auto: on a terminal)")
    p.add_argument("--log_level", "--log-level", dest="log_level", default="WARNING",
                   choices=["DEBUG", "INFO", "WARNING", "ERROR", "CRITICAL"])
    return p


def tasks_of(args: argparse.Namespace) -> list:  # noqa: ANN201 - list[Task]
    from xmo.budget import parse_size
    from xmo.tools.compare import ATOL, RTOL
    from xmo.validate.manifest import Task, read_manifest

    tol = {"rtol": RTOL if args.rtol is None else args.rtol, "atol": ATOL if args.atol is None else args.atol}
    tasks = [Task(str(Path(m).resolve()), input=args.input, **tol) for m in args.models]
    if args.manifest:
        tasks += read_manifest(args.manifest, defaults=tol)
    if not tasks:
        raise XmoError("xmo validate: give MODELs or --manifest FILE")
    try:
        limit = parse_size(args.memory_limit)
    except ValueError as e:
        raise XmoError(f"--memory-limit: {e}") from None
    for t in tasks:
        t.runtime, t.with_ovc, t.memory_limit = args.runtime, args.with_ovc, limit
    return tasks


def cmd_validate(args: argparse.Namespace) -> int:
    from xmo.validate.db import ResultsDB, write_csv, write_json
    from xmo.validate.runner import Progress, run_tasks
    from xmo.validate.worker import STATUSES

    if args.jobs < 1:
        raise XmoError(f"--jobs: N must be at least 1, got {args.jobs}")
    tasks = tasks_of(args)
    with ResultsDB(args.db) as db:
        todo = [t for t in tasks if not db.done(t, t.key(), args.retry_failed)]
        skipped = len(tasks) - len(todo)
        where = f"on {args.scheduler}" if args.scheduler else f"{args.jobs} at a time"
        print(f"[ xmo ] validate: {len(tasks)} models, {skipped} unchanged since the last run "
              f"({args.db}), {len(todo)} to run {where}", flush=True)
        progress = Progress(len(todo), enabled={"auto": None, "on": True, "off": False}[args.progress])
        try:
            for task, result in run_tasks(todo, jobs=args.jobs, scheduler=args.scheduler,
                                          timeout=args.timeout, memory_limit=todo[0].memory_limit if todo else 0,
                                          progress=progress, reuse_workers=args.reuse_workers):
                db.put(task, result)
                if not progress.enabled:
                    print(f"[ xmo ] {result.status:11} {result.name}"
                          + (f": {result.error}" if result.error else ""), flush=True)
        finally:
            progress.close()
        results = [r for r in (db.get(t) for t in tasks) if r is not None]
    counts = Counter(r.status for r in results)
    print("[ xmo ] " + ", ".join(f"{counts[s]} {s}" for s in STATUSES if counts[s]))
    if args.json:
        write_json(results, args.json)
    if args.csv:
        write_csv(results, args.csv)
    if args.report:
        from xmo.validate.report import write_report

        write_report(results, args.report)
        print(f"[ xmo ] report: {Path(args.report).resolve()}")
    return 0 if counts["pass"] == len(results) else 1


