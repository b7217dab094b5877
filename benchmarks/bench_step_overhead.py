#!/usr/bin/env python3
"""Fixed cost per step of xmo's CPU backend: a chain of ``--steps`` Adds of
two model inputs (``y = x + b`` repeated, [1, 4] f32: nothing to fuse or
fold, each Add a step of its own), against onnxruntime on the same model,
one thread each, alternating blocks of runs, medians.

    python benchmarks/bench_step_overhead.py [--steps 50] [--runs 2000] [--block 100]
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from pathlib import Path

import numpy as np
import onnx
from onnx import TensorProto, helper


def chain_model(steps: int) -> onnx.ModelProto:
    nodes = [helper.make_node("Add", ["x" if i == 0 else f"t{i - 1}", "b"],
                              ["y" if i == steps - 1 else f"t{i}"]) for i in range(steps)]
    graph = helper.make_graph(
        nodes, "chain",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 4]),
         helper.make_tensor_value_info("b", TensorProto.FLOAT, [1, 4])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 4])])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--steps", type=int, default=50)
    ap.add_argument("--runs", type=int, default=2000)
    ap.add_argument("--block", type=int, default=100)
    args = ap.parse_args()
    import onnxruntime as ort

    import xmo
    from xmo.backends.cpu.threads import set_threads

    set_threads(1)
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "chain.onnx"
        onnx.save(chain_model(args.steps), path)
        model = xmo.compile_model(path)
        so = ort.SessionOptions()
        so.intra_op_num_threads = so.inter_op_num_threads = 1
        sess = ort.InferenceSession(str(path), so, providers=["CPUExecutionProvider"])
    feeds = {"x": np.ones((1, 4), np.float32), "b": np.full((1, 4), 0.5, np.float32)}
    assert np.array_equal(model(feeds)[0], sess.run(None, feeds)[0])
    tx: list[float] = []
    to: list[float] = []
    while len(tx) < args.runs:
        for _ in range(args.block):
            t0 = time.perf_counter(); model(feeds); tx.append(time.perf_counter() - t0)
        for _ in range(args.block):
            t0 = time.perf_counter(); sess.run(None, feeds); to.append(time.perf_counter() - t0)
    mx, mo = statistics.median(tx) * 1e6, statistics.median(to) * 1e6
    n = len(getattr(model, "_steps", ())) or args.steps
    print(f"{args.steps} Adds ({n} steps): xmo {mx:.1f} us per run ({mx / n:.2f} us per step), "
          f"onnxruntime {mo:.1f} us ({mo / args.steps:.2f} us per Add), ratio {mx / mo:.2f}")


if __name__ == "__main__":
    main()
