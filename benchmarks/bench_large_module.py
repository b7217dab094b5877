#!/usr/bin/env python3
"""Time parse / verify / print / serialize of a 10k-op ov module.

    python benchmarks/bench_large_module.py [--ops 10000] [--no-xdsl-patches]

The module is a chain of Add / Multiply / Relu ops on a 1x64 tensor with small
inline constants (every third op is a Constant), ended by a Result. It parses
the way ``xmo`` does, with xmo's xDSL patches (``--no-xdsl-patches``: xDSL as
shipped; docs/xdsl-patches.md).
"""

from __future__ import annotations

import argparse
import io
import tempfile
import time
from pathlib import Path

import numpy as np
from xdsl.dialects.builtin import ModuleOp
from xdsl.parser import Parser
from xdsl.printer import Printer

from xmo import xdsl_speedups
from xmo.backends.ir import read_ir, serialize
from xmo.context import make_context
from xmo.dialects.ov import ConstantOp, ParameterOp, ResultOp, op_class


def build(n_ops: int) -> ModuleOp:
    add, mul, relu = op_class("Add"), op_class("Multiply"), op_class("Relu")
    ops = [ParameterOp.new("f32", [1, 64], name="x", tensor_names=["x"])]
    v = ops[0].results[0]
    i = 0
    while len(ops) < n_ops - 1:
        c = ConstantOp.from_array(np.full((64,), 1.0 + i % 7, np.float32)[:1].reshape(1))
        kind = (add, mul, relu)[i % 3]
        op = kind.make([v]) if kind is relu else kind.make([v, c.results[0]])
        if kind is not relu:
            ops.append(c)
        ops.append(op)
        v = op.results[0]
        i += 1
    ops.append(ResultOp.new(v))
    return ModuleOp(ops)


def timed(label: str, fn, results: dict):
    t0 = time.perf_counter()
    out = fn()
    results[label] = time.perf_counter() - t0
    return out


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--ops", type=int, default=10_000)
    ap.add_argument("--no-xdsl-patches", action="store_true", help="parse with xDSL as shipped")
    args = ap.parse_args()
    if not args.no_xdsl_patches:
        xdsl_speedups.apply()
    r: dict[str, float] = {}
    module = timed("build", lambda: build(args.ops), r)
    n = sum(1 for _ in module.walk()) - 1
    buf = io.StringIO()
    timed("print", lambda: Printer(stream=buf).print_op(module), r)
    text = buf.getvalue()
    ctx = make_context()
    parsed = timed("parse", lambda: Parser(ctx, text).parse_module(), r)
    timed("verify", parsed.verify, r)
    with tempfile.TemporaryDirectory() as d:
        xml = Path(d) / "m.xml"
        timed("serialize", lambda: serialize(parsed, xml), r)
        timed("read_ir (incl. verify)", lambda: read_ir(xml, ctx=make_context()), r)
    print(f"ov module with {n} ops ({len(text) / 1e6:.1f} MB of text)")
    print("| step | seconds | us/op |")
    print("| --- | ---: | ---: |")
    for k, v in r.items():
        print(f"| {k} | {v:.2f} | {v / n * 1e6:.0f} |")


if __name__ == "__main__":
    main()
