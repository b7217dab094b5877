#!/usr/bin/env python3
"""``xmo convert`` against OpenVINO's ``ovc`` at scale: time, peak RSS, linearity.

    python benchmarks/bench_convert_scale.py [--runs 3] [--groups light,real,zoo,tf,graphs]
                                             [--sizes 5000,50000] [--gb 2.0] [--dir D]

Groups (``--groups``, comma-separated; default ``light,real,tf,graphs``):

* ``light``: the nine light ONNX models of ``onnx/backend/test/data/light``;
* ``real``: the models of ``tests/data/real`` (``tools/make_real_models.py``),
  labelled by family: ``transformers`` (GPT-2 and BERT exported by TorchScript
  and dynamo, ViT, Whisper's encoder), ``cnn`` (ConvNeXt, EfficientNet-B0,
  MobileNetV3-Small, RegNet-Y; ONNX) and ``keras`` (the frozen Keras ``.pb``
  graphs, given like the ``tf`` group); the summary gives one median per family;
* ``zoo``: the full-size models of the benchmark cache (``$XMO_BENCH_MODELS``
  or ``~/.cache/xmo/bench_models``, made by ``tools/make_real_models.py --size full``;
  not in the default groups), labelled by their manifest's family:
  ``transformers`` (BERT-small, GPT-2 width, ViT-Ti, whisper-tiny's encoder),
  ``cnn`` (torchvision classifiers and DeepLabV3), ``keras`` (frozen Keras
  applications, ``.pb``) and ``ocr_detection`` (a CRNN, a PicoDet-style
  detector); one median per family;
* ``tf``: the TensorFlow frozen graphs of ``tests/data/tf`` (those needing
  xmo extensions skipped), given to both tools as ``.pb`` without ``--input``;
* ``graphs``: generated ONNX graphs (``xmo.tools.make_large_models``): a deep
  chain (MatMul/Add/activation blocks with residual Adds on ``x[1, 64]``) and
  a wide DAG (blocks of 50 parallel Mul+activation branches, Concat, 1x1 Conv,
  residual Add on ``x[1, 8, 8, 8]``) of about ``--sizes`` nodes each, plus a
  ``--baseline``-node one of each (start-up cost, for the net linearity);
* ``weights``: the ``--gb`` GiB external-data MLP of ``bench_large_weights.py``;
* ``detection``: torchvision's SSDlite and Faster R-CNN (MobileNetV3, 320) of
  ``tests/test_detection_models.py``, rebuilt with their weights
  (``tests/detection_models.py``).

Each conversion is a whole process (interpreter start, imports, conversion, IR
writing): ``xmo convert MODEL -o OUT.xml`` and ``ovc MODEL --output_model OUT.xml
--compress_to_fp16=False`` (f32 IR on both sides; ovc compresses by default),
alternating which goes first, ``--runs`` times each after one warm-up run of
each tool, into a fresh output folder each time. Per model: median wall time of
each tool and their ratio (xmo / ovc, < 1: xmo faster), median peak RSS of each
(the child's ``ru_maxrss`` from ``wait4``; the tools are spawned from a small
launcher interpreter, so the benchmark's own memory does not count) and their
ratio, IR layer counts; the CPU ratio compares the children's user + system CPU
time (all threads: steadier than wall time on a shared machine, but ovc's
parallel work counts in full there).
Then the median ratios per group and overall, and for the generated graphs the
growth of time with node count: time(largest) / time(smallest) per tool and
kind against the node ratio, whole process and net of the baseline graph's
time. Python bytecode caching is left on (``PYTHONDONTWRITEBYTECODE`` is
removed from the children's environment); the generated models are written to
a temp dir (page cache warm) and deleted afterwards.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import tempfile
import time
import xml.etree.ElementTree as ET
from dataclasses import dataclass, field
from pathlib import Path

import onnx
from _measure import find_tool, run_measured, run_measured_cpu  # benchmarks/_measure.py

from xmo.tools.bench_models import FAMILIES as ZOO_FAMILIES
from xmo.tools.bench_models import model_entries

ROOT = Path(__file__).resolve().parents[1]
LIGHT = Path(onnx.__file__).parent / "backend" / "test" / "data" / "light"
TF_DATA = ROOT / "tests" / "data" / "tf"
REAL_DATA = ROOT / "tests" / "data" / "real"
GROUPS = ("light", "real", "zoo", "tf", "graphs", "weights", "detection")
REAL_FAMILIES = ("transformers", "cnn", "keras")
FAMILIES = {"real": REAL_FAMILIES, "zoo": ZOO_FAMILIES}  # groups reported per family
TRANSFORMERS = ("gpt2", "bert", "vit", "whisper")
TOOLS = ("xmo", "ovc")


@dataclass
class Case:
    group: str
    name: str
    path: Path
    nodes: int
    kind: str = ""  # graphs: chain / wide; real, zoo: the family (FAMILIES)
    baseline: bool = False  # graphs: the small start-up reference, not in the medians
    times: dict[str, list[float]] = field(default_factory=lambda: {t: [] for t in TOOLS})
    peaks: dict[str, list[int]] = field(default_factory=lambda: {t: [] for t in TOOLS})
    cpus: dict[str, list[float]] = field(default_factory=lambda: {t: [] for t in TOOLS})
    layers: dict[str, int] = field(default_factory=dict)
    failed: dict[str, str] = field(default_factory=dict)

    def med(self, tool: str) -> float:
        return statistics.median(self.times[tool])

    def cpu(self, tool: str) -> float:
        return statistics.median(self.cpus[tool])

    def rss(self, tool: str) -> float:
        return statistics.median(self.peaks[tool])

    @property
    def ok(self) -> bool:
        return not self.failed and all(self.times[t] for t in TOOLS)


def layer_count(xml: Path) -> int:
    return sum(1 for _ in ET.parse(xml).getroot().iter("layer"))


def onnx_nodes(path: Path) -> int:
    return len(onnx.load(str(path), load_external_data=False).graph.node)


def light_cases() -> list[Case]:
    return [Case("light", m.stem[len("light_"):], m, onnx_nodes(m))
            for m in sorted(LIGHT.glob("light_*.onnx"))]


def tf_cases() -> list[Case]:
    manifest = json.loads((TF_DATA / "manifest.json").read_text())
    entries = manifest["models"] if isinstance(manifest, dict) and "models" in manifest else manifest
    if isinstance(entries, dict):
        entries = [dict(name=k, **v) for k, v in entries.items()]
    # models made for an extension example (fft_mri) need xmo extensions; ovc
    # cannot convert the ones marked openvino_unsupported
    return [Case("tf", e["name"], TF_DATA / e.get("file", f"{e['name']}.pb"), int(e.get("node_count", 0)))
            for e in entries if not e.get("extensions") and not e.get("openvino_unsupported")]


def real_family(name: str, framework: str) -> str:
    if framework == "tf":
        return "keras"
    return "transformers" if name.startswith(TRANSFORMERS) else "cnn"


def real_cases() -> list[Case]:
    entries = json.loads((REAL_DATA / "manifest.json").read_text())["models"]
    return [Case("real", name, REAL_DATA / e["file"], int(e.get("node_count", 0)),
                 kind=real_family(name, e["framework"]))
            for name, e in entries.items()]


def zoo_cases() -> list[Case]:
    return [Case("zoo", name, path, int(e.get("node_count", 0)), kind=e["family"])
            for name, path, e in model_entries()]


def graph_cases(work: Path, sizes: list[int], baseline: int, kinds: set[str]) -> list[Case]:
    from xmo.tools.make_large_models import write_chain_graph, write_wide_graph

    cases = []
    for kind, write in (("chain", write_chain_graph), ("wide", write_wide_graph)):
        if kind not in kinds:
            continue
        for n in ([baseline] if baseline else []) + sizes:
            t0 = time.perf_counter()
            m = write(work / f"{kind}_{n}.onnx", n)
            print(f"generated {m.path.name}: {m.n_nodes} nodes, {m.n_initializers} initializers, "
                  f"{m.path.stat().st_size / 2**20:.1f} MiB in {time.perf_counter() - t0:.1f} s",
                  flush=True)
            cases.append(Case("graphs", f"{kind}-{n}", m.path, m.n_nodes, kind=kind,
                              baseline=bool(baseline) and n == baseline))
    return cases


def weights_cases(work: Path, gb: float) -> list[Case]:
    from xmo.tools.make_large_models import write_large_mlp

    t0 = time.perf_counter()
    m = write_large_mlp(work / "large_mlp.onnx", gb)
    print(f"generated {m.path.name}: {m.layers} layers, {m.weight_bytes / 2**30:.2f} GiB of "
          f"external data in {time.perf_counter() - t0:.1f} s", flush=True)
    return [Case("weights", f"mlp-{m.weight_bytes / 2**30:.1f}GiB", m.path, onnx_nodes(m.path))]


def detection_cases(work: Path) -> list[Case]:
    import sys

    sys.path.insert(0, str(ROOT / "tests"))
    import detection_models as dm

    cases = []
    for name in sorted(dm.MODELS):
        path = work / f"{name}.onnx"
        onnx.save(dm.load(name), str(path))
        cases.append(Case("detection", name, path, onnx_nodes(path)))
    return cases


def commands(model: Path, out: Path) -> dict[str, list[str]]:
    return {
        "xmo": [find_tool("xmo"), "convert", str(model), "-o", str(out / "xmo" / "model.xml")],
        "ovc": [find_tool("ovc"), str(model), "--output_model", str(out / "ovc" / "model.xml"),
                "--compress_to_fp16=False"],
    }


def measure(case: Case, runs: int, out: Path, env: dict[str, str]) -> None:
    cmds = commands(case.path, out)
    for r in range(runs):
        for tool in TOOLS if r % 2 == 0 else TOOLS[::-1]:
            if tool in case.failed:
                continue
            # fresh output folder: no time spent replacing the last run's .bin
            shutil.rmtree(out / tool, ignore_errors=True)
            (out / tool).mkdir(parents=True)
            log = out / f"{tool}.log"
            wall, peak, rc, cpu = run_measured_cpu(cmds[tool], log, env)
            if rc:
                tail = log.read_text(errors="replace").strip().splitlines()
                case.failed[tool] = f"exit {rc}: {tail[-1] if tail else ''}"[:200]
                print(f"  {case.name} {tool} FAILED ({case.failed[tool]})", flush=True)
                continue
            case.times[tool].append(wall)
            case.peaks[tool].append(peak)
            case.cpus[tool].append(cpu)
            if r == 0:
                case.layers[tool] = layer_count(out / tool / "model.xml")
    if case.ok:
        print(f"  {case.group}/{case.name}: xmo {case.med('xmo'):.2f} s ({case.cpu('xmo'):.2f} s CPU) "
              f"{case.rss('xmo') / 2**20:.0f} MiB, ovc {case.med('ovc'):.2f} s ({case.cpu('ovc'):.2f} s CPU) "
              f"{case.rss('ovc') / 2**20:.0f} MiB", flush=True)


def _median_ratio(cases: list[Case], what: str) -> str:
    if not cases:
        return "-"
    if what == "time":
        rs = [c.med("xmo") / c.med("ovc") for c in cases]
    elif what == "cpu":
        rs = [c.cpu("xmo") / c.cpu("ovc") for c in cases]
    else:
        rs = [c.rss("xmo") / c.rss("ovc") for c in cases]
    return f"{statistics.median(rs):.2f}"


def report(cases: list[Case], runs: int) -> None:
    mib = 2**20
    print()
    print("| group | model | nodes | xmo convert s | ovc s | time ratio | CPU ratio | xmo peak RSS MiB "
          "| ovc peak RSS MiB | RSS ratio | xmo layers | ovc layers |")
    print("| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
    for c in cases:
        if not c.ok:
            cells = []
            for t in TOOLS:
                cells.append(f"failed ({c.failed[t]})" if t in c.failed else
                             f"{c.med(t):.2f}" if c.times[t] else "-")
            print(f"| {c.group} | {c.name} | {c.nodes} | {cells[0]} | {cells[1]} | - | - | - | - | - | - | - |")
            continue
        x, o = c.med("xmo"), c.med("ovc")
        px, po = c.rss("xmo"), c.rss("ovc")
        name = f"{c.name} (baseline)" if c.baseline else c.name
        group = f"{c.group}/{c.kind}" if c.group in FAMILIES else c.group
        print(f"| {group} | {name} | {c.nodes} | {x:.2f} | {o:.2f} | {x / o:.2f} "
              f"| {c.cpu('xmo') / c.cpu('ovc'):.2f} "
              f"| {px / mib:.0f} | {po / mib:.0f} | {px / po:.2f} "
              f"| {c.layers.get('xmo', '-')} | {c.layers.get('ovc', '-')} |")

    good = [c for c in cases if c.ok and not c.baseline]
    print()
    print("| group | models | median time ratio xmo/ovc | median CPU ratio | median peak RSS ratio xmo/ovc |")
    print("| --- | ---: | ---: | ---: | ---: |")
    for g in GROUPS:
        gc = [c for c in good if c.group == g]
        if gc:
            print(f"| {g} | {len(gc)} | {_median_ratio(gc, 'time')} | {_median_ratio(gc, 'cpu')} "
                  f"| {_median_ratio(gc, 'rss')} |")
        for fam in FAMILIES.get(g, ()):
            fc = [c for c in gc if c.kind == fam]
            if fc:
                print(f"| {g}/{fam} | {len(fc)} | {_median_ratio(fc, 'time')} "
                      f"| {_median_ratio(fc, 'cpu')} | {_median_ratio(fc, 'rss')} |")
    print(f"| all | {len(good)} | {_median_ratio(good, 'time')} | {_median_ratio(good, 'cpu')} "
          f"| {_median_ratio(good, 'rss')} |")

    graphs = [c for c in cases if c.ok and c.group == "graphs"]
    kinds = sorted({c.kind for c in graphs})
    lin = []
    for kind in kinds:
        ks = sorted((c for c in graphs if c.kind == kind and not c.baseline), key=lambda c: c.nodes)
        base = next((c for c in graphs if c.kind == kind and c.baseline), None)
        if len(ks) < 2:
            continue
        small, big = ks[0], ks[-1]
        for t in TOOLS:
            whole = big.med(t) / small.med(t)
            net = "-"
            if base is not None and small.med(t) > base.med(t):
                net = f"{(big.med(t) - base.med(t)) / (small.med(t) - base.med(t)):.2f}"
            us = (big.med(t) - (base.med(t) if base else 0.0)) / big.nodes * 1e6
            lin.append(f"| {kind} | {t} | {small.nodes} -> {big.nodes} ({big.nodes / small.nodes:.1f}x) "
                       f"| {small.med(t):.2f} -> {big.med(t):.2f} | {whole:.2f} | {net} | {us:.0f} |")
    if lin:
        print()
        print("| graph | tool | nodes | time s | time ratio | net time ratio | us per node (largest, net) |")
        print("| --- | --- | --- | --- | ---: | ---: | ---: |")
        print("\n".join(lin))
        print("\n(net: minus the time of the baseline graph of the same kind, i.e. without "
              "process start-up and imports)")
    failed = [c for c in cases if not c.ok]
    print(f"\nmedians of {runs} alternating runs per model, whole process, after one warm-up run "
          f"of each tool; f32 IR on both sides (ovc --compress_to_fp16=False); peak RSS = the "
          f"child's ru_maxrss; failed conversions ({len(failed)}) are left out of the medians")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--groups", default="light,real,tf,graphs",
                    help=f"comma-separated, of {','.join(GROUPS)} (default: light,real,tf,graphs)")
    ap.add_argument("--sizes", default="5000,50000", help="graphs: node counts (default 5000,50000)")
    ap.add_argument("--kinds", default="chain,wide", help="graphs: chain, wide or both")
    ap.add_argument("--baseline", type=int, default=100,
                    help="graphs: node count of the start-up reference graph (0: none)")
    ap.add_argument("--gb", type=float, default=2.0, help="weights: GiB of f32 external data")
    ap.add_argument("--models", help="comma-separated model names to keep (e.g. resnet50,cnn)")
    ap.add_argument("--dir", type=Path, default=None, help="where to write (default: a temp dir)")
    args = ap.parse_args()
    groups = [g for g in args.groups.split(",") if g]
    if bad := set(groups) - set(GROUPS):
        raise SystemExit(f"unknown groups: {sorted(bad)} (known: {', '.join(GROUPS)})")
    sizes = [int(s) for s in args.sizes.split(",") if s]
    kinds = set(args.kinds.split(","))
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}

    if args.dir is not None:
        args.dir.mkdir(parents=True, exist_ok=True)
    work = Path(tempfile.mkdtemp(prefix="xmo_scale_", dir=args.dir))
    try:
        cases: list[Case] = []
        for g in GROUPS:
            if g not in groups:
                continue
            if g == "light":
                cases += light_cases()
            elif g == "real":
                cases += real_cases()
            elif g == "zoo":
                cases += zoo_cases()
            elif g == "tf":
                cases += tf_cases()
            elif g == "graphs":
                cases += graph_cases(work, sizes, args.baseline, kinds)
            elif g == "detection":
                cases += detection_cases(work)
            else:
                cases += weights_cases(work, args.gb)
        if args.models:
            keep = set(args.models.split(","))
            cases = [c for c in cases if c.name in keep]
        if not cases:
            raise SystemExit("no models selected")
        out = work / "out"
        # warm-up: bytecode caches, page cache of both tools' modules
        warm = min(light_cases(), key=lambda c: c.path.stat().st_size)
        for tool, cmd in commands(warm.path, out).items():
            shutil.rmtree(out / tool, ignore_errors=True)
            (out / tool).mkdir(parents=True)
            run_measured(cmd, out / f"{tool}.log", env)
        for c in cases:
            measure(c, args.runs, out, env)
        report(cases, args.runs)
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
