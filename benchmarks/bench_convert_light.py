#!/usr/bin/env python3
"""``xmo convert`` against OpenVINO's ``ovc`` on the nine light ONNX models.

Whole process (interpreter start, imports, conversion, IR writing), the two
tools alternating on the same model, ``--runs`` times each; per model the
median wall times, their ratio, and the IR layer count of both (f32 IR:
``ovc --compress_to_fp16=False``). Python bytecode caching is left on (the
normal condition; ``PYTHONDONTWRITEBYTECODE`` is removed from the children's
environment).

    python benchmarks/bench_convert_light.py [--runs 3] [--models resnet50,...]
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
import xml.etree.ElementTree as ET
from pathlib import Path

import onnx

LIGHT = Path(onnx.__file__).parent / "backend" / "test" / "data" / "light"
BIN = Path(sys.executable).parent


def layers(xml: Path) -> tuple[int, int]:
    root = ET.parse(xml).getroot()
    ls = list(root.iter("layer"))
    return len(ls), sum(1 for l in ls if l.get("type") == "Transpose")


def timed(cmd: list[str], env: dict[str, str]) -> float:
    t0 = time.perf_counter()
    r = subprocess.run(cmd, capture_output=True, text=True, env=env)
    dt = time.perf_counter() - t0
    if r.returncode:
        raise SystemExit(f"{cmd[0]} failed:\n{r.stderr[-2000:]}")
    return dt


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--models", help="comma-separated short names (default: all nine)")
    args = ap.parse_args()
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    models = sorted(LIGHT.glob("light_*.onnx"))
    if args.models:
        keep = set(args.models.split(","))
        models = [m for m in models if m.stem[len("light_"):] in keep]
    rows = []
    with tempfile.TemporaryDirectory() as d:
        out = Path(d)
        # warm-up: bytecode caches, numba cache, page cache of the model files
        timed([str(BIN / "xmo"), "convert", str(models[0]), "-o", str(out / "w.xml")], env)
        timed([str(BIN / "ovc"), str(models[0]), "--output_model", str(out / "w_ov.xml"),
               "--compress_to_fp16=False"], env)
        for m in models:
            xs, os_ = [], []
            for _ in range(args.runs):
                xs.append(timed([str(BIN / "xmo"), "convert", str(m), "-o", str(out / "x.xml")], env))
                os_.append(timed([str(BIN / "ovc"), str(m), "--output_model", str(out / "o.xml"),
                                  "--compress_to_fp16=False"], env))
            lx, tx = layers(out / "x.xml")
            lo, to = layers(out / "o.xml")
            rows.append((m.stem[len("light_"):], statistics.median(xs), statistics.median(os_), lx, lo, tx, to))
    print("| model | xmo convert s | ovc s | time ratio | xmo layers | ovc layers |")
    print("| --- | ---: | ---: | ---: | ---: | ---: |")
    for name, x, o, lx, lo, _, _ in rows:
        print(f"| {name} | {x:.2f} | {o:.2f} | {x / o:.2f} | {lx} | {lo} |")
    ratios = [r[1] / r[2] for r in rows]
    print(f"\nmedian time ratio xmo/ovc: {statistics.median(ratios):.2f} "
          f"({args.runs} alternating runs per model, whole process)")


if __name__ == "__main__":
    main()
