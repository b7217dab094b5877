#!/usr/bin/env python3
"""Latency of xmo's CPU backend against onnxruntime: the nine light models,
or (``--suite real``) the small real models of ``tests/data/real`` (ONNX ones,
fed their recorded inputs; made by ``tools/make_real_models.py``), or
(``--suite zoo``) the full-size ONNX models of the benchmark cache
(``$XMO_BENCH_MODELS`` or ``~/.cache/xmo/bench_models``; ``tools/make_real_models.py
--size full``), fed their recorded inputs, with a median per family.

Each model in a fresh process (``--one-process``: all in this one), both
runtimes in that process, f32, the same inputs (light: ``arange(n)/n``), the same
thread count (1 and 2: onnxruntime's intra-op threads; xmo's count set with
``xmo.backends.cpu.threads.set_threads``, which sizes BLAS, xmo's pool and
numba's TBB layer; ``XMO_CPU_POOL=python`` in the environment keeps xmo's
splits on its Python pool), alternating blocks of runs, medians;
also checks xmo's outputs against onnxruntime.

``--busy-neighbour``: every model is measured twice, quiet and with a second
process burning one core (a busy loop started before and killed after that
model's runs); the table gets the busy ratio and how much it rose.

    python benchmarks/bench_latency_light.py [--suite light|real|zoo] [--runs 20] [--block 5] [--pause 0.2]
        [--threads 1,2] [--models a,b] [--busy-neighbour] [--one-process]
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np
import onnx

LIGHT = Path(onnx.__file__).parent / "backend" / "test" / "data" / "light"
REAL = Path(__file__).resolve().parent.parent / "tests" / "data" / "real"


def light_models() -> list[tuple[str, Path, dict[str, np.ndarray] | None]]:
    return [(m.stem[len("light_"):], m, None) for m in sorted(LIGHT.glob("light_*.onnx"))]


def real_models() -> list[tuple[str, Path, dict[str, np.ndarray] | None]]:
    manifest = json.loads((REAL / "manifest.json").read_text())["models"]
    out = []
    for name, m in sorted(manifest.items()):
        if m["framework"] == "onnx":
            out.append((name, REAL / m["file"], dict(np.load(REAL / m["inputs_file"]))))
    return out


def zoo_models() -> list[tuple[str, Path, dict[str, np.ndarray] | None]]:
    from xmo.tools.bench_models import model_entries, models_dir, recorded_inputs

    folder = models_dir()
    return [(name, path, recorded_inputs(folder, e)) for name, path, e in model_entries(folder, "onnx")]


def zoo_families() -> dict[str, str]:
    from xmo.tools.bench_models import model_entries

    return {name: e["family"] for name, _, e in model_entries()}


def start_neighbour() -> subprocess.Popen:
    """A second process burning one core until killed."""
    p = subprocess.Popen([sys.executable, "-c", "while True: pass"])
    time.sleep(0.2)  # let it get scheduled
    return p


def alternate(ours: Callable[[], object], theirs: Callable[[], object],
              runs: int, block: int, pause: float) -> tuple[float, float]:
    """Median ms of each: blocks of ``block`` runs, alternating, ``pause``
    seconds of sleep after each block. onnxruntime's pool keeps spinning for
    tens of ms after a run (and OpenBLAS's threads after a product), which
    slows the other runtime on a 2-core machine: xmo's 64->64 3x3
    convolution on 56x56, 2 threads, medians of 12 runs in one process: 2.55
    ms with no onnxruntime run before, 3.09-3.31 ms 0-20 ms after three, 2.77
    ms 50 ms after, 2.40 ms 200 ms after (2026-12-03). Without the pause a
    whole block of a fast model ran beside the other's spin. With it, each
    block starts with one untimed run (threads woken, caches refilled after
    the sleep: the tiny models' runs of under a millisecond took up to 1.9x
    longer straight after a pause)."""
    tx, to = [], []
    done = 0
    while done < runs:
        k = min(block, runs - done)
        for run, times in ((ours, tx), (theirs, to)):
            if pause > 0:
                time.sleep(pause)
                run()
            for _ in range(k):
                t0 = time.perf_counter(); run(); times.append(time.perf_counter() - t0)
        done += k
    return statistics.median(tx) * 1e3, statistics.median(to) * 1e3


def measure(name: str, path: Path, feeds: dict[str, np.ndarray] | None, thread_counts: list[int],
            runs: int, block: int, busy: bool, pause: float) -> list[dict]:
    """One model at each thread count: a record per count (ms of each runtime,
    max abs diff, and with ``busy`` the busy-neighbour ms)."""
    import onnxruntime as ort

    import xmo
    from xmo.backends.cpu.threads import set_threads

    compiled = xmo.compile_model(path)
    if feeds is None:
        port = compiled.inputs[0]
        shape = tuple(port.shape)
        n = int(np.prod(shape))
        x = (np.arange(n, dtype=np.float32).reshape(shape) / n).astype(np.float32)
    records = []
    for threads in thread_counts:
        so = ort.SessionOptions()
        so.intra_op_num_threads = threads
        so.inter_op_num_threads = 1
        sess = ort.InferenceSession(str(path), so, providers=["CPUExecutionProvider"])
        ort_feeds = feeds if feeds is not None else {sess.get_inputs()[0].name: x}
        ours_in = feeds if feeds is not None else [x]
        set_threads(threads)
        ours = compiled(ours_in)
        ref = sess.run(None, ort_feeds)

        def run_ours() -> object:
            return compiled(ours_in)

        def run_theirs() -> object:
            return sess.run(None, ort_feeds)

        mx, mo = alternate(run_ours, run_theirs, runs, block, pause)
        diff = max(float(np.max(np.abs(np.asarray(a, np.float64) - b), initial=0.0))
                   for a, b in zip(ours, ref))
        rec = {"name": name, "threads": threads, "xmo_ms": mx, "ort_ms": mo, "diff": diff}
        if busy:
            p = start_neighbour()
            try:
                bx, bo = alternate(run_ours, run_theirs, runs, block, pause)
            finally:
                p.kill()
                p.wait()
            rec.update(busy_xmo_ms=bx, busy_ort_ms=bo)
        records.append(rec)
    return records


def measure_in_child(name: str, args: argparse.Namespace) -> list[dict]:
    """:func:`measure` of one model in a fresh process (its JSON records):
    a model measured after others in one process inherits their allocator
    state (glibc's mmap and trim thresholds move with what was freed), which
    moved a model's figure by up to 1.7x."""
    cmd = [sys.executable, __file__, "--suite", args.suite, "--runs", str(args.runs),
           "--block", str(args.block), "--pause", str(args.pause), "--threads", args.threads,
           "--models", name,
           "--child-json"]
    if args.busy_neighbour:
        cmd.append("--busy-neighbour")
    out = subprocess.run(cmd, check=True, capture_output=True, text=True).stdout
    return [json.loads(line) for line in out.splitlines() if line.startswith("{")]


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--suite", choices=("light", "real", "zoo"), default="light")
    ap.add_argument("--runs", type=int, default=20)
    ap.add_argument("--block", type=int, default=5,
                    help="runs per block; the runtimes alternate block by block")
    ap.add_argument("--pause", type=float, default=0.2,
                    help="seconds of sleep after each block (the other runtime's threads stop spinning)")
    ap.add_argument("--threads", default="1,2")
    ap.add_argument("--models")
    ap.add_argument("--busy-neighbour", action="store_true",
                    help="also measure with a second process burning one core")
    ap.add_argument("--one-process", action="store_true",
                    help="measure every model in this process (default: each in a fresh one)")
    ap.add_argument("--child-json", action="store_true", help=argparse.SUPPRESS)
    args = ap.parse_args()

    busy = args.busy_neighbour
    models = {"light": light_models, "real": real_models, "zoo": zoo_models}[args.suite]()
    if args.models:
        keep = set(args.models.split(","))
        models = [m for m in models if m[0] in keep]
    thread_counts = [int(t) for t in args.threads.split(",")]
    if args.child_json:
        for name, path, feeds in models:
            for rec in measure(name, path, feeds, thread_counts, args.runs, args.block, busy,
                               args.pause):
                print(json.dumps(rec), flush=True)
        return
    head = "| model | threads | xmo ms | onnxruntime ms | ratio | max abs diff |"
    rule = "| --- | ---: | ---: | ---: | ---: | ---: |"
    if busy:
        head += " busy: xmo ms | busy: onnxruntime ms | busy: ratio | rise |"
        rule += " ---: | ---: | ---: | ---: |"
    print(head)
    print(rule)
    ratios: dict[int, list[float]] = {}
    by_family: dict[tuple[int, str], list[float]] = {}
    families = zoo_families() if args.suite == "zoo" else {}
    busy_ratios: dict[int, list[float]] = {}
    rises: dict[int, list[float]] = {}
    for name, path, feeds in models:
        if args.one_process:
            records = measure(name, path, feeds, thread_counts, args.runs, args.block, busy,
                              args.pause)
        else:
            records = measure_in_child(name, args)
        for rec in records:
            threads, mx, mo = rec["threads"], rec["xmo_ms"], rec["ort_ms"]
            ratios.setdefault(threads, []).append(mx / mo)
            if name in families:
                by_family.setdefault((threads, families[name]), []).append(mx / mo)
            row = f"| {name} | {threads} | {mx:.2f} | {mo:.2f} | {mx / mo:.2f} | {rec['diff']:.2g} |"
            if busy:
                bx, bo = rec["busy_xmo_ms"], rec["busy_ort_ms"]
                busy_ratios.setdefault(threads, []).append(bx / bo)
                rise = (bx / bo) / (mx / mo)
                rises.setdefault(threads, []).append(rise)
                row += f" {bx:.2f} | {bo:.2f} | {bx / bo:.2f} | {rise:.2f} |"
            print(row, flush=True)
    for t, r in ratios.items():
        print(f"median ratio xmo/onnxruntime, {t} thread(s): {statistics.median(r):.2f} "
              f"(max {max(r):.2f})")
        for (ft, fam), fr in sorted(by_family.items()):
            if ft == t:
                print(f"  {fam}: median {statistics.median(fr):.2f} over {len(fr)} (max {max(fr):.2f})")
        if busy:
            print(f"  busy neighbour: median ratio {statistics.median(busy_ratios[t]):.2f}, "
                  f"median rise {statistics.median(rises[t]):.2f} (max {max(rises[t]):.2f})")




if __name__ == "__main__":
    main()
