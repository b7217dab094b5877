#!/usr/bin/env python3
"""TensorFlow frozen graphs: xmo against OpenVINO's own TF frontend.

For every fixture of ``tests/data/tf/manifest.json`` (or ``--models``):

* IR size: total layers and Transpose layers of the IR each tool writes
  (xmo: ``xmo.convert_model`` + ``xmo.save_model``; OpenVINO:
  ``openvino.convert_model`` + ``openvino.save_model(compress_to_fp16=False)``),
  counted the same way in both ``.xml`` files;
* numerics: both IRs run in the OpenVINO CPU runtime (f32 inference
  precision) on the fixture's input; max abs difference to TensorFlow's
  stored reference output;
* conversion time: parse + convert in this process, the two tools
  alternating ``--runs`` times on the same file after one warm-up each (the
  order flips every run); at each switch of tool, ``--pause`` seconds of idle
  time and one untimed conversion come before the timed one, so neither tool
  is measured while the other's threads still run or with cold caches (see
  ``--pause``); medians and their ratio (xmo / OpenVINO; < 1 means xmo is
  faster).

    python benchmarks/bench_tf_layout.py [--runs 5] [--pause 0.5] [--models mobilenetv2,unet]
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
import xml.etree.ElementTree as ET
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT / "tests" / "data" / "tf"


def layer_counts(xml: Path) -> tuple[int, int]:
    layers = list(ET.parse(xml).getroot().iter("layer"))
    return len(layers), sum(1 for layer in layers if layer.get("type") == "Transpose")


def run_ir(xml: Path, feeds: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    """Outputs by every tensor name of each output port."""
    import openvino as ov

    core = ov.Core()
    model = core.read_model(str(xml))
    compiled = core.compile_model(model, "CPU", {"INFERENCE_PRECISION_HINT": "f32"})
    inputs = {}
    for port in compiled.inputs:
        names = port.get_names()
        key = next((k for k in feeds if k in names or f"{k}:0" in names), None)
        if key is None:
            raise SystemExit(f"{xml.name}: no fixture input for {sorted(names)}")
        inputs[port] = feeds[key]
    res = compiled(inputs)
    return {n: np.asarray(res[p]) for p in compiled.outputs for n in p.get_names()}


def max_diff(got: dict[str, np.ndarray], ref: dict[str, np.ndarray]) -> float:
    """Largest |got - ref| over the reference outputs (nan: an output is missing)."""
    worst = 0.0
    for name, r in ref.items():
        g = got.get(name, got.get(name.removesuffix(":0")))
        if g is None or g.shape != r.shape:
            return float("nan")
        if r.size:
            worst = max(worst, float(np.max(np.abs(g.astype(np.float64) - r))))
    return worst


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument(
        "--pause", type=float, default=0.5,
        help="seconds of idle time before each switch of tool (default 0.5): right "
        "after openvino.convert_model its worker threads keep spinning for a while, "
        "and an xmo conversion started then was measured up to 3x slower on this "
        "2-core machine",
    )
    ap.add_argument("--models", help="comma-separated fixture names (default: all)")
    args = ap.parse_args()
    import openvino as ov
    import xmo

    manifest = json.loads((DATA / "manifest.json").read_text())
    entries = manifest["models"] if isinstance(manifest, dict) and "models" in manifest else manifest
    if isinstance(entries, dict):
        entries = [dict(name=k, **v) for k, v in entries.items()]
    # models made for an extension example (fft_mri) have their own figures
    # (tests/test_fft_extension.py, docs/extensions.md)
    entries = [e for e in entries if not e.get("extensions")]
    # models OpenVINO's own TF frontend cannot convert have nothing to compare with
    entries = [e for e in entries if not e.get("openvino_unsupported")]
    if args.models:
        keep = set(args.models.split(","))
        entries = [e for e in entries if e["name"] in keep]
    rows = []
    with tempfile.TemporaryDirectory() as d:
        tmp = Path(d)
        for e in entries:
            name = e["name"]
            pb = DATA / e.get("file", f"{name}.pb")
            feeds = dict(np.load(DATA / f"{name}.inputs.npz"))
            ref = dict(np.load(DATA / f"{name}.outputs.npz"))

            def conv_xmo(pb: Path = pb) -> object:
                return xmo.convert_model(pb)

            def conv_ov(pb: Path = pb) -> object:
                return ov.convert_model(str(pb))

            m_x, m_o = conv_xmo(), conv_ov()  # warm-up
            xml_x, xml_o = tmp / f"{name}_xmo.xml", tmp / f"{name}_ov.xml"
            xmo.save_model(m_x, xml_x)
            ov.save_model(m_o, str(xml_o), compress_to_fp16=False)
            t_x, t_o = [], []
            for i in range(args.runs):
                pair = [(conv_xmo, t_x), (conv_ov, t_o)]
                for conv, times in pair if i % 2 == 0 else pair[::-1]:
                    time.sleep(args.pause)  # OpenVINO's idle worker threads settle
                    conv()  # untimed: each timed run follows a run of the same tool
                    t0 = time.perf_counter()
                    conv()
                    times.append(time.perf_counter() - t0)
            out_x = run_ir(xml_x, feeds)
            out_o = run_ir(xml_o, feeds)
            lx, tx = layer_counts(xml_x)
            lo, to = layer_counts(xml_o)
            mx, mo = statistics.median(t_x), statistics.median(t_o)
            rows.append((name, lx, lo, tx, to, max_diff(out_x, ref), max_diff(out_o, ref),
                         mx * 1e3, mo * 1e3, mx / mo))
    print(f"{'model':<14}{'layers xmo/ov':>15}{'Transpose xmo/ov':>18}"
          f"{'maxdiff xmo':>13}{'maxdiff ov':>12}{'convert ms xmo/ov':>20}{'ratio':>7}")
    for r in rows:
        print(f"{r[0]:<14}{r[1]:>7}/{r[2]:<7}{r[3]:>9}/{r[4]:<8}{r[5]:>13.2e}{r[6]:>12.2e}"
              f"{r[7]:>11.0f}/{r[8]:<8.0f}{r[9]:>7.2f}")
    print(f"(OpenVINO {ov.__version__}, f32 inference; conversion medians over {args.runs} "
          "alternating runs in one process)")


if __name__ == "__main__":
    sys.exit(main())
