#!/usr/bin/env python3
"""Fixed cost per step of xmo's CPU backend: a chain of ``--steps`` Adds of
two model inputs (``y = x + b`` repeated, [1, 4] f32: nothing to fuse or
fold, each Add a step of its own), against onnxruntime on the same model,
one thread each, alternating blocks of runs, medians. ``--op``: another
binary ONNX op (``Div``, ``Max``...) or ``Concat`` (``y = concat(x, b)``
on the last axis, then a Slice back to [1, 4], two steps per link), and the
same ufunc/numpy calls made directly for comparison. Product steps:
``--op Conv`` (a 1x1 Conv with bias, then Relu, on [1, 8, 1, 1]: one fused
step per link), ``--op ConvSigmoid`` (the same with Sigmoid), ``--op MatMul``
([1, 8] times a constant [8, 8], plus a bias, then Relu), against the bare
``np.matmul`` (+ bias, activation) per link.

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
from onnx import TensorProto, helper, numpy_helper


#: product-step links: (ONNX op, activation)
PRODUCTS = {"Conv": ("Conv", "Relu"), "ConvSigmoid": ("Conv", "Sigmoid"), "MatMul": ("MatMul", "Relu")}
#: channels of a product-step link
_C = 8


def product_model(steps: int, op: str) -> onnx.ModelProto:
    """``steps`` links of product + bias + activation on [1, 8, 1, 1] ([1, 8]
    for MatMul), constant weights (one fused step each)."""
    kind, act = PRODUCTS[op]
    rng = np.random.default_rng(0)
    shape = [1, _C, 1, 1] if kind == "Conv" else [1, _C]
    nodes, inits = [], []
    for i in range(steps):
        src, dst = "x" if i == 0 else f"t{i - 1}", "y" if i == steps - 1 else f"t{i}"
        w = rng.standard_normal((_C, _C, 1, 1) if kind == "Conv" else (_C, _C)).astype(np.float32) * 0.3
        b = rng.standard_normal(_C).astype(np.float32) * 0.1
        inits += [numpy_helper.from_array(w, f"w{i}"), numpy_helper.from_array(b, f"b{i}")]
        if kind == "Conv":
            nodes.append(helper.make_node("Conv", [src, f"w{i}", f"b{i}"], [f"p{i}"]))
        else:
            nodes.append(helper.make_node("MatMul", [src, f"w{i}"], [f"m{i}"]))
            nodes.append(helper.make_node("Add", [f"m{i}", f"b{i}"], [f"p{i}"]))
        nodes.append(helper.make_node(act, [f"p{i}"], [dst]))
    graph = helper.make_graph(
        nodes, "chain",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, shape),
         helper.make_tensor_value_info("b", TensorProto.FLOAT, shape)],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, shape)], inits)
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])


def numpy_products(steps: int, op: str, model: onnx.ModelProto) -> Any:
    """The product chain as bare numpy calls: ``np.matmul``, bias, activation."""
    kind, act = PRODUCTS[op]
    init = {t.name: numpy_helper.to_array(t) for t in model.graph.initializer}
    ws = [init[f"w{i}"].reshape(_C, _C) for i in range(steps)]
    bs = [init[f"b{i}"].reshape(_C, 1) if kind == "Conv" else init[f"b{i}"] for i in range(steps)]

    def run(x: np.ndarray, b: np.ndarray) -> np.ndarray:
        shape = x.shape
        x = x.reshape(_C, 1) if kind == "Conv" else x
        for w, c in zip(ws, bs):
            x = np.matmul(w, x) if kind == "Conv" else np.matmul(x, w)
            np.add(x, c, out=x)
            if act == "Relu":
                np.maximum(x, 0, out=x)
            else:
                np.negative(x, out=x); np.exp(x, out=x); np.add(x, 1, out=x)
                np.reciprocal(x, out=x)
        return x.reshape(shape)

    return run


def chain_model(steps: int, op: str = "Add") -> onnx.ModelProto:
    if op in PRODUCTS:
        return product_model(steps, op)
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
    ap.add_argument("--op", default="Add",
                    help="binary ONNX op, Concat (Concat + Slice), or a product step: "
                         + ", ".join(PRODUCTS))
    args = ap.parse_args()
    import onnxruntime as ort

    import xmo
    from xmo.backends.cpu.threads import set_threads

    set_threads(1)
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "chain.onnx"
        proto = chain_model(args.steps, args.op)
        onnx.save(proto, path)
        model = xmo.compile_model(path)
        so = ort.SessionOptions()
        so.intra_op_num_threads = so.inter_op_num_threads = 1
        sess = ort.InferenceSession(str(path), so, providers=["CPUExecutionProvider"])
    if args.op in PRODUCTS:
        shape = (1, _C, 1, 1) if PRODUCTS[args.op][0] == "Conv" else (1, _C)
        feeds = {"x": np.linspace(-1, 1, _C, dtype=np.float32).reshape(shape),
                 "b": np.zeros(shape, np.float32)}
        direct = numpy_products(args.steps, args.op, proto)
    else:
        feeds = {"x": np.ones((1, 4), np.float32), "b": np.full((1, 4), 0.5, np.float32)}
        direct = numpy_chain(args.steps, args.op)
    np.testing.assert_allclose(model(feeds)[0], sess.run(None, feeds)[0], rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(direct(feeds["x"], feeds["b"]), sess.run(None, feeds)[0],
                               rtol=1e-5, atol=1e-6)
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
