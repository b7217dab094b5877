#!/usr/bin/env python3
"""Start-up against OpenVINO's ``ovc``, whole processes, side by side.

    python benchmarks/bench_startup.py [--runs 21] [--nodes 10] [--also XMO]

Pairs, each run as a child process (interpreter start, imports, work, exit):

* ``xmo --version`` against ``ovc --help`` (the cheapest command of each);
* ``xmo convert M -o OUT.xml`` against ``ovc M --output_model OUT.xml
  --compress_to_fp16=False`` on a generated ``--nodes``-node ONNX chain
  (``xmo.tools.make_large_models.write_chain_graph``: MatMul/Add/activation
  blocks with residual Adds).

The tools alternate (the order flips every run) after one warm-up run of each
command; medians of ``--runs``. ``--also XMO`` adds the same xmo commands run by
another ``xmo`` executable (e.g. another checkout's venv, for before/after in
the same run). Python bytecode caching is on in the children
(``PYTHONDONTWRITEBYTECODE`` removed), as for an installed package; with it
off, every xmo process compiles its modules from source again.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import tempfile
from pathlib import Path

from _measure import find_tool, run_measured  # benchmarks/_measure.py


def commands(model: Path, out: Path, also: str | None) -> dict[str, dict[str, list[str]]]:
    xmo = [find_tool("xmo")]
    ovc = [find_tool("ovc")]
    pairs = {
        "start-up (--version / --help)": {
            "xmo": [*xmo, "--version"],
            "ovc": [*ovc, "--help"],
        },
        "convert": {
            "xmo": [*xmo, "convert", str(model), "-o", str(out / "xmo" / "model.xml")],
            "ovc": [*ovc, str(model), "--output_model", str(out / "ovc" / "model.xml"),
                    "--compress_to_fp16=False"],
        },
    }
    if also:
        entry = [also]
        pairs["start-up (--version / --help)"]["xmo (--also)"] = [*entry, "--version"]
        pairs["convert"]["xmo (--also)"] = [*entry, "convert", str(model), "-o",
                                            str(out / "also" / "model.xml")]
    return pairs


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=21)
    ap.add_argument("--nodes", type=int, default=10, help="ONNX nodes of the converted model")
    ap.add_argument("--also", metavar="PYTHON", help="another xmo executable to time too (before/after)")
    args = ap.parse_args()
    from xmo.tools.make_large_models import write_chain_graph

    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    work = Path(tempfile.mkdtemp(prefix="xmo_startup_"))
    try:
        m = write_chain_graph(work / f"chain_{args.nodes}.onnx", args.nodes)
        out = work / "out"
        for d in ("xmo", "ovc", "also"):
            (out / d).mkdir(parents=True)
        pairs = commands(m.path, out, args.also)
        times: dict[tuple[str, str], list[float]] = {}
        for what, cmds in pairs.items():
            for tool, cmd in cmds.items():  # warm-up: bytecode and page caches
                _, _, rc = run_measured(cmd, work / "log", env)
                if rc:
                    raise SystemExit(f"{' '.join(cmd)}: exit {rc}\n{(work / 'log').read_text()}")
        for r in range(args.runs):
            for what, cmds in pairs.items():
                order = list(cmds) if r % 2 == 0 else list(cmds)[::-1]
                for tool in order:
                    wall, _, rc = run_measured(cmds[tool], work / "log", env)
                    if rc:
                        raise SystemExit(f"{tool} {what}: exit {rc}")
                    times.setdefault((what, tool), []).append(wall)
        print(f"\n{m.n_nodes}-node ONNX model; medians of {args.runs} alternating runs, seconds\n")
        tools = list(next(iter(pairs.values())))
        print("| command | " + " | ".join(tools) + " | xmo / ovc |")
        print("| --- | " + " | ".join("---:" for _ in tools) + " | ---: |")
        for what in pairs:
            med = {t: statistics.median(times[(what, t)]) for t in tools}
            cells = " | ".join(f"{med[t]:.2f}" for t in tools)
            print(f"| {what} | {cells} | {med['xmo'] / med['ovc']:.2f} |")
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
