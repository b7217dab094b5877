#!/usr/bin/env python3
"""Conversion time of two xmo installations, side by side (an A/B of a change).

Each run starts one process per installation (``--a`` and ``--b``: the
``python`` of each venv, e.g. main's and a branch's), alternating which goes
first; each process imports xmo once, converts every model (``convert_model``
+ ``save_model``) one untimed time, then times ``--repeat`` conversions of
each (the fastest counts) by wall time or, with ``--clock cpu``, by the
process's CPU time (steadier when other work shares the machine). The table
gives per-model medians over the runs and the ratio b / a; the last line the
median ratio over all models. Models: the nine light ONNX CNNs of
the onnx wheel and the TensorFlow fixtures of ``tests/data/tf``.

    python benchmarks/bench_convert_ab.py --a /work/main/.venv/bin/python \\
        --b .venv/bin/python --runs 5
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

CHILD = r"""
import json, sys, tempfile, time, logging
from pathlib import Path
logging.disable(logging.CRITICAL)
import xmo
paths = json.loads(sys.argv[1])
clock = time.process_time if sys.argv[2] == "cpu" else time.perf_counter
repeat = int(sys.argv[3])
out = {}
with tempfile.TemporaryDirectory() as tmp:
    for rep in range(1 + repeat):
        for p in paths:
            t0 = clock()
            try:
                m = xmo.convert_model(p)
                xmo.save_model(m, Path(tmp) / "m.xml")
            except Exception as e:
                out[p] = None
                continue
            if rep and out.get(p, 0) is not None:
                t = clock() - t0
                out[p] = t if p not in out else min(out[p], t)
print(json.dumps(out))
"""


def models() -> list[str]:
    import onnx  # the benchmark's own interpreter needs onnx only to find the light models

    light = Path(onnx.__file__).parent / "backend" / "test" / "data" / "light"
    tf = ROOT / "tests" / "data" / "tf"
    return [str(p) for p in sorted(light.glob("light_*.onnx"))] + [
        str(p) for p in sorted(tf.glob("*.pb")) if p.stem != "fft_mri"
    ]


def run_once(python: str, paths: list[str], clock: str, repeat: int) -> dict[str, float | None]:
    res = subprocess.run(
        [python, "-c", CHILD, json.dumps(paths), clock, str(repeat)],
        capture_output=True, text=True, check=True,
    )
    return json.loads(res.stdout.strip().splitlines()[-1])


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--a", required=True, help="python of installation A (the baseline)")
    ap.add_argument("--b", required=True, help="python of installation B (the change)")
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--clock", choices=("wall", "cpu"), default="wall",
                    help="wall time, or the process's CPU time (steadier on a busy machine; "
                    "leaves out time waiting for I/O or other processes)")
    ap.add_argument("--repeat", type=int, default=1,
                    help="timed conversions per process; the fastest counts")
    args = ap.parse_args(argv)
    paths = models()
    times: dict[str, dict[str, list[float]]] = {"a": {}, "b": {}}
    for r in range(args.runs):
        order = ("a", "b") if r % 2 == 0 else ("b", "a")
        for which in order:
            for p, t in run_once(getattr(args, which), paths, args.clock, args.repeat).items():
                if t is not None:
                    times[which].setdefault(p, []).append(t)
        print(f"run {r + 1}/{args.runs} done", file=sys.stderr)
    ratios = []
    print(f"{'model':28} {'a ms':>9} {'b ms':>9} {'b/a':>6}")
    for p in paths:
        ta, tb = times["a"].get(p), times["b"].get(p)
        if not ta or not tb:
            print(f"{Path(p).stem:28} {'-':>9} {'-':>9}  (failed in {'a' if not ta else 'b'})")
            continue
        ma, mb = statistics.median(ta), statistics.median(tb)
        ratios.append(mb / ma)
        print(f"{Path(p).stem:28} {ma * 1e3:9.1f} {mb * 1e3:9.1f} {mb / ma:6.2f}")
    if ratios:
        print(f"median ratio b/a over {len(ratios)} models: {statistics.median(ratios):.3f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
