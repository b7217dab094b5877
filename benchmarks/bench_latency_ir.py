#!/usr/bin/env python3
"""xmo's IR against OpenVINO's IR in the same OpenVINO runtime (light models).

Per model: ``xmo.convert_model`` + ``xmo.save_model`` and
``openvino.convert_model`` + ``openvino.save_model(compress_to_fp16=False)``;
both IRs are read back and compiled on CPU with ``INFERENCE_PRECISION_HINT=f32``,
``NUM_STREAMS=1``, ``INFERENCE_NUM_THREADS`` 1 and 2, then run alternately on
the same input (``--runs`` times each after a warm-up, the order flipping
every run), medians compared. Which model is compiled first matters (an A/A
run of OpenVINO's IR against a copy of itself measured the first-compiled one
up to 7% slower), so every measurement is made twice, once with each IR
compiled first, and the samples of both rounds pooled.
Also prints both IRs' layer counts and the largest difference between their
outputs (and, with ``--fp16``, of xmo's ``--compress_to_fp16`` IR against
OpenVINO's f32 IR).

    python benchmarks/bench_latency_ir.py [--runs 20] [--threads 1,2] [--models resnet50,...] [--fp16]
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
import xml.etree.ElementTree as ET
from pathlib import Path

import numpy as np
import onnx

LIGHT = Path(onnx.__file__).parent / "backend" / "test" / "data" / "light"


def layers(xml: Path) -> int:
    return sum(1 for _ in ET.parse(xml).getroot().iter("layer"))


def arange_feeds(model) -> list[np.ndarray]:  # noqa: ANN001 - an openvino Model
    """One input per model input: ``arange / size`` in its (static) shape."""
    feeds = []
    for p in model.inputs:
        shape = [int(s) for s in p.get_partial_shape().to_shape()]
        n = int(np.prod(shape))
        feeds.append((np.arange(n, dtype=np.float32) / max(n, 1)).reshape(shape))
    return feeds


def alternating_latency(core, xml_x: Path, xml_o: Path, feeds, runs: int, cfg: dict[str, str]):  # noqa: ANN001
    """Latency samples of two IRs run alternately on the same inputs.

    Both are compiled twice, once with each first (the first-compiled model
    can be up to 7% slower), 2 warm-up runs each, then ``runs`` runs each
    with the order flipping every run; the samples of both rounds pooled.
    Returns (seconds of ``xml_x``, seconds of ``xml_o``, outputs of ``xml_x``,
    outputs of ``xml_o``)."""
    tx: list[float] = []
    to: list[float] = []
    yx: list[np.ndarray] = []
    yo: list[np.ndarray] = []
    for x_first in (True, False):
        paths = [xml_x, xml_o]
        order = paths if x_first else paths[::-1]
        compiled = {p: core.compile_model(core.read_model(p), "CPU", cfg) for p in order}
        cx, co = compiled[paths[0]], compiled[paths[1]]
        rx, ro = cx.create_infer_request(), co.create_infer_request()
        yx = [np.array(v) for v in rx.infer(feeds).values()]
        yo = [np.array(v) for v in ro.infer(feeds).values()]
        for _ in range(2):
            rx.infer(feeds)
            ro.infer(feeds)
        for i in range(runs):
            pair = [(rx, tx), (ro, to)]
            for req, times in pair if i % 2 == 0 else pair[::-1]:
                t0 = time.perf_counter()
                req.infer(feeds)
                times.append(time.perf_counter() - t0)
        del rx, ro, cx, co, compiled
    return tx, to, yx, yo


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=20)
    ap.add_argument("--threads", default="1,2")
    ap.add_argument("--models")
    ap.add_argument("--fp16", action="store_true", help="also check the compress_to_fp16 IR")
    args = ap.parse_args()
    import openvino as ov
    import xmo

    core = ov.Core()
    models = sorted(LIGHT.glob("light_*.onnx"))
    if args.models:
        keep = set(args.models.split(","))
        models = [m for m in models if m.stem[len("light_"):] in keep]
    threads = [int(t) for t in args.threads.split(",")]
    print("| model | threads | xmo layers | ov layers | xmo IR ms | ov IR ms | ratio | max abs diff |")
    print("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
    ratios = []
    fp16_rows = []
    with tempfile.TemporaryDirectory() as d:
        out = Path(d)
        for m in models:
            name = m.stem[len("light_"):]
            xmo.save_model(xmo.convert_model(str(m)), out / f"{name}.x.xml")
            ov.save_model(ov.convert_model(str(m)), out / f"{name}.o.xml", compress_to_fp16=False)
            if args.fp16:
                xmo.save_model(xmo.convert_model(str(m)), out / f"{name}.x16.xml", compress_to_fp16=True)
            lx, lo = layers(out / f"{name}.x.xml"), layers(out / f"{name}.o.xml")
            for nt in threads:
                cfg = {"INFERENCE_PRECISION_HINT": "f32", "NUM_STREAMS": "1",
                       "INFERENCE_NUM_THREADS": str(nt), "PERFORMANCE_HINT": "LATENCY"}
                feeds = arange_feeds(core.read_model(out / f"{name}.o.xml"))
                tx, to, yx, yo = alternating_latency(
                    core, out / f"{name}.x.xml", out / f"{name}.o.xml", feeds, args.runs, cfg)
                diff = max(float(np.max(np.abs(a - b))) for a, b in zip(yx, yo))
                mx, mo = statistics.median(tx) * 1e3, statistics.median(to) * 1e3
                ratios.append(mx / mo)
                print(f"| {name} | {nt} | {lx} | {lo} | {mx:.2f} | {mo:.2f} | {mx / mo:.2f} | {diff:.2e} |",
                      flush=True)
                if args.fp16 and nt == threads[0]:
                    c16 = core.compile_model(core.read_model(out / f"{name}.x16.xml"), "CPU", cfg)
                    y16 = [np.array(v) for v in c16.create_infer_request().infer(feeds).values()]
                    d16 = max(float(np.max(np.abs(a - b))) for a, b in zip(y16, yo))
                    scale = max(float(np.max(np.abs(b))) for b in yo)
                    fp16_rows.append((name, d16, scale))
    print(f"\nmedian latency ratio xmo IR / OpenVINO IR: {statistics.median(ratios):.3f} "
          f"(f32, 1 stream, threads {args.threads}, {args.runs} alternating runs)")
    if fp16_rows:
        print("\n| model | compress_to_fp16 max abs diff vs OpenVINO f32 | max abs output |")
        print("| --- | ---: | ---: |")
        for name, d16, scale in fp16_rows:
            print(f"| {name} | {d16:.2e} | {scale:.2e} |")


if __name__ == "__main__":
    main()
