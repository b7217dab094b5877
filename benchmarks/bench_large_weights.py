#!/usr/bin/env python3
"""``xmo convert`` against ``ovc`` on an ONNX model with >= 2 GiB of external weights.

    python benchmarks/bench_large_weights.py [--gb 2.0] [--n 4096] [--runs 3]
                                             [--dir D] [--keep] [--no-check]

Generates an MLP-like ONNX model (``xmo.tools.make_large_models``: Gemm /
MatMul+Add + Relu layers on ``x[1, N]``, N x N float32 weights in one external
data file, a few weights and biases byte-identical copies under other names)
without holding the weights in memory, then runs, alternating which goes
first, ``xmo convert MODEL -o OUT.xml`` and
``ovc MODEL --output_model OUT.xml --compress_to_fp16=False`` (f32 on both
sides; ``ovc`` compresses to f16 by default), each as a whole process.
Reports median wall time, the time ratio, each child's peak RSS (``ru_maxrss``
from ``wait4``: file-backed pages of mapped weights count) against the weight
bytes, and both ``.bin`` sizes (identical tensors written once: xmo's should be
the unique bytes). Then checks once that both IRs compute the same as
onnxruntime in the OpenVINO runtime (CPU, f32 inference precision), each in
its own process. Page cache is warm for both (the generator just wrote the
file); the model is deleted afterwards unless ``--keep``.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import textwrap
import time
from pathlib import Path

from _measure import find_tool, run_measured  # benchmarks/_measure.py

from xmo.tools.make_large_models import write_large_mlp

CHECK = textwrap.dedent(
    """
    import json, sys
    import numpy as np
    what, path, n, seed = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
    x = np.random.default_rng(seed).standard_normal((1, n)).astype(np.float32)
    if what == "ort":
        import onnxruntime as ort
        s = ort.InferenceSession(path, providers=["CPUExecutionProvider"])
        y = s.run(None, {s.get_inputs()[0].name: x})[0]
    else:
        import openvino as ov
        core = ov.Core()
        c = core.compile_model(core.read_model(path), "CPU",
                               {"INFERENCE_PRECISION_HINT": "f32"})
        y = c(x)[c.output(0)]
    print(json.dumps(np.asarray(y, np.float64).ravel().tolist()))
    """
)


def run_tool(cmd: list[str], log: Path) -> tuple[float, int]:
    """(wall seconds, peak RSS bytes) of ``cmd``, spawned from a small launcher
    (see ``_measure.py``) so the benchmark's own memory does not count."""
    wall, peak, rc = run_measured(cmd, log, dict(os.environ))
    if rc:
        tail = log.read_text(errors="replace")[-3000:]
        raise SystemExit(f"{' '.join(cmd)} failed ({rc}):\n{tail}")
    return wall, peak


def _outputs(what: str, path: Path, n: int, seed: int) -> list[float] | str:
    r = subprocess.run(
        [sys.executable, "-c", CHECK, what, str(path), str(n), str(seed)],
        capture_output=True, text=True, check=False,
    )
    if r.returncode:
        return (r.stderr.strip().splitlines() or ["failed"])[-1]
    return json.loads(r.stdout)


def _max_diff(a: list[float], b: list[float]) -> float:
    return max(abs(x - y) for x, y in zip(a, b, strict=True))


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--gb", type=float, default=2.0, help="GiB of float32 weights")
    ap.add_argument("--n", type=int, default=4096, help="width of the layers")
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--dir", type=Path, default=None, help="where to write (default: a temp dir)")
    ap.add_argument("--keep", action="store_true", help="keep the model and IRs")
    ap.add_argument("--no-check", action="store_true", help="skip the output check")
    args = ap.parse_args()

    xmo, ovc = find_tool("xmo"), find_tool("ovc")
    if args.dir is not None:
        args.dir.mkdir(parents=True, exist_ok=True)
    work = Path(tempfile.mkdtemp(prefix="xmo_large_", dir=args.dir))
    try:
        t0 = time.perf_counter()
        m = write_large_mlp(work / "large_mlp.onnx", args.gb, args.n)
        print(
            f"model: {m.layers} layers of {m.n}x{m.n} + head, "
            f"{m.weight_bytes / 2**30:.3f} GiB of f32 external data "
            f"({m.dup_bytes / 2**20:.0f} MiB in {len(m.duplicates)} byte-identical copies; "
            f"unique {m.unique_bytes / 2**30:.3f} GiB), .onnx {m.path.stat().st_size} bytes, "
            f"written in {time.perf_counter() - t0:.1f} s"
        )
        out = {"xmo": work / "xmo" / "model.xml", "ovc": work / "ovc" / "model.xml"}
        cmds = {
            "xmo": [xmo, "convert", str(m.path), "-o", str(out["xmo"])],
            "ovc": [ovc, str(m.path), "--output_model", str(out["ovc"]),
                    "--compress_to_fp16=False"],
        }
        times: dict[str, list[float]] = {"xmo": [], "ovc": []}
        peaks: dict[str, list[int]] = {"xmo": [], "ovc": []}
        for r in range(args.runs):
            order = ("xmo", "ovc") if r % 2 == 0 else ("ovc", "xmo")
            for tool in order:
                # fresh output folder: no time spent replacing the last run's .bin
                shutil.rmtree(out[tool].parent, ignore_errors=True)
                out[tool].parent.mkdir()
                wall, peak = run_tool(cmds[tool], work / f"{tool}.log")
                times[tool].append(wall)
                peaks[tool].append(peak)
                print(f"run {r + 1} {tool}: {wall:.2f} s, peak RSS {peak / 2**20:.0f} MiB")
        bins = {k: v.with_suffix(".bin").stat().st_size for k, v in out.items()}

        w = m.weight_bytes
        tx, to = statistics.median(times["xmo"]), statistics.median(times["ovc"])
        px, po = statistics.median(peaks["xmo"]), statistics.median(peaks["ovc"])
        print()
        print("| weights | xmo convert s | ovc s | time ratio | xmo peak RSS | ovc peak RSS "
              "| xmo .bin | ovc .bin |")
        print("| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
        print(
            f"| {w / 2**30:.2f} GiB | {tx:.2f} | {to:.2f} | {tx / to:.2f} "
            f"| {px / 2**20:.0f} MiB = {px / w:.2f}x | {po / 2**20:.0f} MiB = {po / w:.2f}x "
            f"| {bins['xmo'] / 2**20:.1f} MiB | {bins['ovc'] / 2**20:.1f} MiB |"
        )
        print(
            f"\nmedians of {args.runs} alternating runs, whole process; peak RSS = the child's "
            f"ru_maxrss over the weight bytes ({w} B); identical tensors: "
            f"{w - bins['xmo']} B fewer in xmo's .bin than the weights "
            f"(duplicates: {m.dup_bytes} B), ovc's .bin {w - bins['ovc']} B fewer"
        )
        if bins["xmo"] > m.unique_bytes + (1 << 20):
            print(f"WARNING: xmo's .bin is larger than the unique weight bytes ({m.unique_bytes})")

        if not args.no_check:
            ref = _outputs("ort", m.path, m.n, 0)
            got = {k: _outputs("ov", v, m.n, 0) for k, v in out.items()}
            for k, v in got.items():
                if isinstance(v, str):
                    print(f"check: {k} IR failed in OpenVINO: {v}")
            if isinstance(ref, str):
                print(f"check: onnxruntime could not run the model ({ref}); comparing the IRs")
                if not any(isinstance(v, str) for v in got.values()):
                    print(f"max abs diff xmo IR vs ovc IR: {_max_diff(got['xmo'], got['ovc']):.3g}")
            else:
                scale = max(abs(v) for v in ref)
                for k, v in got.items():
                    if not isinstance(v, str):
                        print(f"max abs diff {k} IR (OpenVINO, f32) vs onnxruntime: "
                              f"{_max_diff(v, ref):.3g} (outputs up to {scale:.3g})")
    finally:
        if args.keep:
            print(f"kept: {work}")
        else:
            shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
