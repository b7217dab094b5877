#!/usr/bin/env python3
"""Latency of xmo's CPU backend against onnxruntime on the nine light models.

Both in this process, the same input (``arange(n)/n``), the same thread count
(1 and 2: onnxruntime's intra-op threads; xmo's numpy/BLAS and numba threads),
alternating runs, medians; also checks xmo's outputs against onnxruntime.

    python benchmarks/bench_latency_light.py [--runs 10] [--threads 1,2]
"""

from __future__ import annotations

import argparse
import statistics
import time
from pathlib import Path

import numpy as np
import onnx

LIGHT = Path(onnx.__file__).parent / "backend" / "test" / "data" / "light"


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=10)
    ap.add_argument("--threads", default="1,2")
    ap.add_argument("--models")
    args = ap.parse_args()
    import numba
    import onnxruntime as ort
    from threadpoolctl import threadpool_limits

    import xmo

    models = sorted(LIGHT.glob("light_*.onnx"))
    if args.models:
        keep = set(args.models.split(","))
        models = [m for m in models if m.stem[len("light_"):] in keep]
    print("| model | threads | xmo ms | onnxruntime ms | ratio | max abs diff |")
    print("| --- | ---: | ---: | ---: | ---: | ---: |")
    ratios: dict[int, list[float]] = {}
    for m in models:
        compiled = xmo.compile_model(m)
        port = compiled.inputs[0]
        shape = tuple(port.shape)
        n = int(np.prod(shape))
        x = (np.arange(n, dtype=np.float32).reshape(shape) / n).astype(np.float32)
        for threads in [int(t) for t in args.threads.split(",")]:
            so = ort.SessionOptions()
            so.intra_op_num_threads = threads
            so.inter_op_num_threads = 1
            sess = ort.InferenceSession(str(m), so, providers=["CPUExecutionProvider"])
            name = sess.get_inputs()[0].name
            numba.set_num_threads(threads)
            with threadpool_limits(threads):
                ours = compiled([x])[0]
                ref = sess.run(None, {name: x})[0]
                tx, to = [], []
                for _ in range(args.runs):
                    t0 = time.perf_counter(); compiled([x]); tx.append(time.perf_counter() - t0)
                    t0 = time.perf_counter(); sess.run(None, {name: x}); to.append(time.perf_counter() - t0)
            mx, mo = statistics.median(tx) * 1e3, statistics.median(to) * 1e3
            ratios.setdefault(threads, []).append(mx / mo)
            diff = float(np.max(np.abs(ours.astype(np.float64) - ref)))
            print(f"| {m.stem[6:]} | {threads} | {mx:.1f} | {mo:.1f} | {mx / mo:.2f} | {diff:.2g} |")
    for t, r in ratios.items():
        print(f"median ratio xmo/onnxruntime, {t} thread(s): {statistics.median(r):.2f}")


if __name__ == "__main__":
    main()
