#!/usr/bin/env python3
"""Fixed cost per step of xmo's CPU backend: a chain of ``--steps`` Adds of
two model inputs (``y = x + b`` repeated, [1, 4] f32: nothing to fuse or
fold, each Add a step of its own), against onnxruntime on the same model,
one thread each, alternating blocks of runs, medians. ``--op``: another
binary ONNX op (``Div``, ``Max``...) or ``Concat`` (``y = concat(x, b)``
on the last axis, then a Slice back to [1, 4], two steps per link), and the
same ufunc/numpy calls made directly for comparison.

    python benchmarks/bench_step_overhead.py [--steps 50] [--runs 2000] [--block 100] [--op Add]
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

import numpy as np
import onnx
from onnx import TensorProto, helper


def chain_model(steps: int, op: str = "Add") -> onnx.ModelProto:
    if op == "Concat":
        nodes, inits = [], [helper.make_tensor(n, TensorProto.INT64, [1], [v])
                            for n, v in (("s0", 0), ("s4", 4), ("ax", 1))]
        for i in range(steps):
            src, dst = "x" if i == 0 else f"t{i - 1}", "y" if i == steps - 1 else f"t{i}"
            nodes.append(helper.make_node("Concat", [src, "b"], [f"c{i}"], axis=1))
            nodes.append(helper.make_node("Slice", [f"c{i}", "s0", "s4", "ax"], [dst]))
    else:
        inits = []
        nodes = [helper.make_node(op, ["x" if i == 0 else f"t{i - 1}", "b"],
                                  ["y" if i == steps - 1 else f"t{i}"]) for i in range(steps)]
    graph = helper.make_graph(
        nodes, "chain",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 4]),
         helper.make_tensor_value_info("b", TensorProto.FLOAT, [1, 4])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 4])], inits)
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])


def numpy_chain(steps: int, op: str) -> Any:
    """The same chain as direct numpy calls (the floor a step could reach)."""
    fn = {"Add": np.add, "Sub": np.subtract, "Mul": np.multiply, "Div": np.divide,
          "Max": np.maximum, "Min": np.minimum, "Pow": np.power}.get(op)

    def run(x: np.ndarray, b: np.ndarray) -> np.ndarray:
        for _ in range(steps):
            x = np.concatenate((x, b), axis=1)[:, :4] if fn is None else fn(x, b)
        return x

    return run


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--steps", type=int, default=50)
    ap.add_argument("--runs", type=int, default=2000)
    ap.add_argument("--block", type=int, default=100)
    ap.add_argument("--op", default="Add", help="binary ONNX op, or Concat (Concat + Slice)")
    args = ap.parse_args()
    import onnxruntime as ort

    import xmo
    from xmo.backends.cpu.threads import set_threads

    set_threads(1)
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "chain.onnx"
        onnx.save(chain_model(args.steps, args.op), path)
        model = xmo.compile_model(path)
        so = ort.SessionOptions()
        so.intra_op_num_threads = so.inter_op_num_threads = 1
        sess = ort.InferenceSession(str(path), so, providers=["CPUExecutionProvider"])
    feeds = {"x": np.ones((1, 4), np.float32), "b": np.full((1, 4), 0.5, np.float32)}
    np.testing.assert_allclose(model(feeds)[0], sess.run(None, feeds)[0], rtol=1e-6)
    direct = numpy_chain(args.steps, args.op)
    tx: list[float] = []
    to: list[float] = []
    tn: list[float] = []
    while len(tx) < args.runs:
        for _ in range(args.block):
            t0 = time.perf_counter(); model(feeds); tx.append(time.perf_counter() - t0)
        for _ in range(args.block):
            t0 = time.perf_counter(); sess.run(None, feeds); to.append(time.perf_counter() - t0)
        for _ in range(args.block):
            t0 = time.perf_counter(); direct(feeds["x"], feeds["b"]); tn.append(time.perf_counter() - t0)
    mx, mo, mn = (statistics.median(t) * 1e6 for t in (tx, to, tn))
    n = len(getattr(model, "_steps", ())) or args.steps
    print(f"{args.steps} {args.op} ({n} steps): xmo {mx:.1f} us per run ({mx / n:.2f} us per step), "
          f"numpy directly {mn:.1f} us ({(mx - mn) / n:.2f} us per step over it), "
          f"onnxruntime {mo:.1f} us, ratio {mx / mo:.2f}")


if __name__ == "__main__":
    main()
