#!/usr/bin/env python3
"""Latency of xmo's CPU backend against onnxruntime: the nine light models,
or (``--suite real``) the small real models of ``tests/data/real`` (ONNX ones,
fed their recorded inputs; made by ``tools/make_real_models.py``).

Both in this process, the same inputs (light: ``arange(n)/n``), the same thread
count (1 and 2: onnxruntime's intra-op threads; xmo's numpy/BLAS and numba
threads), alternating runs, medians; also checks xmo's outputs against
onnxruntime.

    python benchmarks/bench_latency_light.py [--suite light|real] [--runs 10] [--threads 1,2]
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
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


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--suite", choices=("light", "real"), default="light")
    ap.add_argument("--runs", type=int, default=10)
    ap.add_argument("--threads", default="1,2")
    ap.add_argument("--models")
    args = ap.parse_args()
    import numba
    import onnxruntime as ort
    from threadpoolctl import threadpool_limits

    import xmo

    models = light_models() if args.suite == "light" else real_models()
    if args.models:
        keep = set(args.models.split(","))
        models = [m for m in models if m[0] in keep]
    print("| model | threads | xmo ms | onnxruntime ms | ratio | max abs diff |")
    print("| --- | ---: | ---: | ---: | ---: | ---: |")
    ratios: dict[int, list[float]] = {}
    for name, path, feeds in models:
        compiled = xmo.compile_model(path)
        if feeds is None:
            port = compiled.inputs[0]
            shape = tuple(port.shape)
            n = int(np.prod(shape))
            x = (np.arange(n, dtype=np.float32).reshape(shape) / n).astype(np.float32)
        for threads in [int(t) for t in args.threads.split(",")]:
            so = ort.SessionOptions()
            so.intra_op_num_threads = threads
            so.inter_op_num_threads = 1
            sess = ort.InferenceSession(str(path), so, providers=["CPUExecutionProvider"])
            ort_feeds = feeds if feeds is not None else {sess.get_inputs()[0].name: x}
            ours_in = feeds if feeds is not None else [x]
            numba.set_num_threads(threads)
            with threadpool_limits(threads):
                ours = compiled(ours_in)
                ref = sess.run(None, ort_feeds)
                tx, to = [], []
                for _ in range(args.runs):
                    t0 = time.perf_counter(); compiled(ours_in); tx.append(time.perf_counter() - t0)
                    t0 = time.perf_counter(); sess.run(None, ort_feeds); to.append(time.perf_counter() - t0)
            mx, mo = statistics.median(tx) * 1e3, statistics.median(to) * 1e3
            ratios.setdefault(threads, []).append(mx / mo)
            diff = max(float(np.max(np.abs(np.asarray(a, np.float64) - b), initial=0.0))
                       for a, b in zip(ours, ref))
            print(f"| {name} | {threads} | {mx:.2f} | {mo:.2f} | {mx / mo:.2f} | {diff:.2g} |")
    for t, r in ratios.items():
        print(f"median ratio xmo/onnxruntime, {t} thread(s): {statistics.median(r):.2f}")


if __name__ == "__main__":
    main()
