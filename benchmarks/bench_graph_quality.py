#!/usr/bin/env python3
"""Graph quality on the real-architecture suite (``tests/data/real``): xmo's IR
against OpenVINO's own conversion (ovc).

Per model: both conversions (``tools/compare_ir.py``: ``xmo.convert_model``
and ``openvino.convert_model``, f32 weights), their layers (all and without
Constants), Transposes, and -- with ``--by-type`` -- the layer types side by
side; both IRs run in OpenVINO on the model's reference inputs and must give
the framework's outputs (rtol 1e-3, atol 1e-4; ``ok`` or the largest error);
latency of both in the same runtime (f32, 1 stream, ``--threads``, compiled
twice with each first and run alternately, ``--runs`` runs each per round:
``bench_latency_ir.alternating_latency``), medians and their ratio.

    python benchmarks/bench_graph_quality.py [--runs 20] [--threads 1] [--models vit,gpt2_ts] [--by-type]
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT / "tests" / "data" / "real"
sys.path.insert(0, str(ROOT / "tools"))
import compare_ir  # noqa: E402
from bench_latency_ir import alternating_latency  # noqa: E402

RTOL, ATOL = 1e-3, 1e-4


def output_error(model, values: list[np.ndarray], refs: dict[str, np.ndarray], spec: list[dict]) -> str:  # noqa: ANN001
    """``ok`` when every reference output matches, else the worst one."""
    by_name = {}
    for port, value in zip(model.outputs, values):
        for n in port.get_names():
            by_name[n] = value
    worst = ""
    for o in spec:
        got = by_name.get(o["name"], by_name.get(o["name"].removesuffix(":0")))
        ref = refs[o["name"]]
        if got is None or got.shape != ref.shape:
            return f"{o['name']}: missing or shape {None if got is None else got.shape}"
        if not np.allclose(got, ref, rtol=RTOL, atol=ATOL):
            worst = f"max err {float(np.max(np.abs(got.astype(np.float64) - ref))):.1e}"
    return worst or "ok"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--runs", type=int, default=20)
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--models", help="comma-separated names from tests/data/real/manifest.json")
    ap.add_argument("--by-type", action="store_true", help="also print each model's layer types side by side")
    args = ap.parse_args(argv)
    import openvino as ov

    manifest = json.loads((DATA / "manifest.json").read_text())["models"]
    names = args.models.split(",") if args.models else list(manifest)
    core = ov.Core()
    cfg = {"INFERENCE_PRECISION_HINT": "f32", "NUM_STREAMS": "1",
           "INFERENCE_NUM_THREADS": str(args.threads), "PERFORMANCE_HINT": "LATENCY"}
    rows, details, ratios = [], [], []
    with tempfile.TemporaryDirectory(prefix="bench-gq-") as tmp:
        for name in names:
            m = manifest[name]
            out = Path(tmp) / name
            out.mkdir()
            xmo_xml, ov_xml = compare_ir.convert_both(DATA / m["file"], out)
            sx, so = compare_ir.IRStats.of(xmo_xml), compare_ir.IRStats.of(ov_xml)
            # keyed by a name both IRs give the input (ovc names a TF placeholder only ``name:0``)
            ov_names = set().union(*(p.get_names() for p in core.read_model(ov_xml).inputs))
            feeds = {k if k in ov_names else f"{k}:0": v for k, v in np.load(DATA / m["inputs_file"]).items()}
            refs = dict(np.load(DATA / m["outputs_file"]))
            tx, to, yx, yo = alternating_latency(core, xmo_xml, ov_xml, feeds, args.runs, cfg)
            ex = output_error(core.read_model(xmo_xml), yx, refs, m["outputs"])
            eo = output_error(core.read_model(ov_xml), yo, refs, m["outputs"])
            mx, mo = statistics.median(tx) * 1e3, statistics.median(to) * 1e3
            ratios.append(mx / mo)
            rows.append(f"| {name} | {sx.layers} | {so.layers} | {sx.non_constant} | {so.non_constant} | "
                        f"{sx.transposes} | {so.transposes} | {mx:.3f} | {mo:.3f} | {mx / mo:.2f} | {ex} | {eo} |")
            print(rows[-1], file=sys.stderr, flush=True)
            if args.by_type:
                details.append(f"\n{name}\n" + compare_ir.report(xmo_xml, ov_xml, subgraphs=False))
    print("| model | layers xmo | ovc | non-Const xmo | ovc | Transpose xmo | ovc | xmo ms | ovc ms | ratio "
          "| xmo outputs | ovc outputs |")
    print("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- | --- |")
    print("\n".join(rows))
    print(f"\nlatency ratio xmo IR / ovc IR: median {statistics.median(ratios):.3f}, max {max(ratios):.3f} "
          f"(f32, 1 stream, {args.threads} thread(s), {args.runs} alternating runs x 2 rounds)")
    print("\n".join(details))
    return 0


if __name__ == "__main__":
    sys.exit(main())
