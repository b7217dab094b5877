#!/usr/bin/env python3
"""Peak RSS of reading an IR with 1 GB of weights and re-serializing it.

    python benchmarks/bench_weights_rss.py [--gb 1.0]

Writes a model (Parameter -> Add(const_k) chain, 16 distinct f32 constants of
GB/16 each) as IR with xmo's serializer, then, in a fresh process, reads it
with ``read_ir`` (weights memory-mapped) and serializes it again. Reports the
child's peak RSS against the weight bytes, and the baseline RSS of a process
that only imports xmo.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import textwrap
from pathlib import Path

CHILD = textwrap.dedent(
    """
    import json, sys, time
    from xmo.backends.ir import read_ir, serialize
    from xmo.context import make_context
    def hwm_kb():  # VmHWM: peak RSS of this process image (ru_maxrss survives exec)
        for line in open("/proc/self/status"):
            if line.startswith("VmHWM:"):
                return int(line.split()[1])
    base = hwm_kb()
    if sys.argv[1] == "baseline":
        print(json.dumps({"peak_kb": base})); sys.exit()
    t0 = time.perf_counter()
    m = read_ir(sys.argv[1], ctx=make_context())
    t1 = time.perf_counter()
    serialize(m, sys.argv[2])
    t2 = time.perf_counter()
    peak = hwm_kb()
    print(json.dumps({"peak_kb": peak, "read_s": t1 - t0, "write_s": t2 - t1}))
    """
)


def make_model(path: Path, total_bytes: int, parts: int = 16) -> int:
    import numpy as np
    from xdsl.dialects.builtin import ModuleOp

    from xmo.backends.ir import serialize
    from xmo.context import make_context, weight_store
    from xmo.dialects.ov import ConstantOp, ParameterOp, ResultOp, op_class

    ctx = make_context()
    store = weight_store(ctx)
    n = total_bytes // 4 // parts
    ops = [ParameterOp.new("f32", [n], name="x", tensor_names=["x"])]
    v = ops[0].results[0]
    add = op_class("Add")
    for k in range(parts):
        c = ConstantOp.from_array(np.full((n,), float(k), np.float32), store=store)
        a = add.make([v, c.results[0]])
        ops += [c, a]
        v = a.results[0]
    ops.append(ResultOp.new(v))
    serialize(ModuleOp(ops), path)
    return n * 4 * parts


def run_child(*args: str) -> dict:
    out = subprocess.run(
        [sys.executable, "-c", CHILD, *args], capture_output=True, text=True
    )
    if out.returncode:
        raise SystemExit(f"child failed:\n{out.stderr}")
    return json.loads(out.stdout)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--gb", type=float, default=1.0)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory(dir=".") as d:
        src, dst = Path(d) / "big.xml", Path(d) / "copy.xml"
        weight_bytes = make_model(src, int(args.gb * (1 << 30)))
        src, dst = src.resolve(), dst.resolve()
        base = run_child("baseline")
        res = run_child(str(src), str(dst))
        same = src.with_suffix(".bin").read_bytes() == dst.with_suffix(".bin").read_bytes()
    peak = res["peak_kb"] * 1024
    print(f"weights: {weight_bytes / 2**20:.0f} MiB")
    print(f"baseline RSS (python + xmo imported): {base['peak_kb'] / 1024:.0f} MiB")
    print(f"peak RSS read_ir + serialize: {peak / 2**20:.0f} MiB "
          f"= {peak / weight_bytes:.2f}x the weight bytes "
          f"(read {res['read_s']:.2f} s, write {res['write_s']:.2f} s)")
    print(f".bin identical after the round trip: {same}")


if __name__ == "__main__":
    main()
