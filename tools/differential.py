"""Differential testing: random valid ONNX graphs, xmo vs onnxruntime.

Hypothesis draws a chain of ops on a random 4-d input: elementwise ops with
numpy broadcasting (constants or a second input), unary activations,
Conv / MaxPool / AveragePool, Reshape / Transpose, reductions, Concat /
Split, Gather / Slice, MatMul, Softmax, Pad, Clip, Div. Each graph runs on onnxruntime (the reference), xmo's
CPU backend, and the IR xmo writes on the OpenVINO runtime (f32 hint);
outputs must agree.

    python -m xmo.tools.differential --examples 1000 [--seed 1] [--no-openvino]

``tests/test_differential.py`` runs a short version.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

import numpy as np
import onnx
from hypothesis import strategies as st
from onnx import TensorProto, helper, numpy_helper

OPSET = 17
RTOL, ATOL = 1e-4, 1e-4

UNARY = ("Relu", "Sigmoid", "Tanh", "Abs", "Neg", "Softplus", "Elu", "LeakyRelu", "HardSigmoid",
         "Erf")
BINARY = ("Add", "Sub", "Mul", "Max", "Min")


class _G:
    """A graph under construction: nodes, initializers, the current value."""

    def __init__(self, shape: list[int]) -> None:
        self.nodes: list[onnx.NodeProto] = []
        self.inits: list[TensorProto] = []
        self.inputs = [helper.make_tensor_value_info("x", TensorProto.FLOAT, shape)]
        self.extra_outputs: list[str] = []
        self.cur, self.shape, self.n = "x", list(shape), 0
        self.shapes: dict[str, list[int]] = {"x": list(shape)}

    def name(self, base: str) -> str:
        self.n += 1
        return f"{base}{self.n}"

    def const(self, arr: np.ndarray, base: str = "c") -> str:
        n = self.name(base)
        self.inits.append(numpy_helper.from_array(arr, n))
        return n

    def node(self, op: str, inputs: list[str], shape: list[int], n_out: int = 1, **attrs) -> list[str]:
        outs = [self.name(op.lower()) for _ in range(n_out)]
        self.nodes.append(helper.make_node(op, inputs, outs, name=self.name("n_" + op), **attrs))
        self.cur, self.shape = outs[0], list(shape)
        self.shapes[outs[0]] = list(shape)
        return outs


def _bshape(draw, shape: list[int]) -> list[int]:
    """A shape broadcastable to ``shape`` (dims set to 1, leading dims dropped)."""
    keep = draw(st.integers(0, len(shape)))
    tail = shape[len(shape) - keep:]
    return [d if draw(st.booleans()) else 1 for d in tail]


def _step(draw, g: _G, rng: np.random.Generator) -> None:
    shape, rank = g.shape, len(g.shape)
    choices = ["unary", "binary", "binary_input", "transpose", "reshape", "reduce", "concat",
               "split", "gather", "slice", "matmul", "softmax", "pad", "clip", "div"]
    if rank == 4:
        choices += ["conv", "pool"]
    kind = draw(st.sampled_from(choices))
    if kind == "unary":
        op = draw(st.sampled_from(UNARY))
        g.node(op, [g.cur], shape)
    elif kind in ("binary", "binary_input"):
        op = draw(st.sampled_from(BINARY))
        bs = _bshape(draw, shape)
        if kind == "binary":
            other = g.const(rng.standard_normal(bs).astype(np.float32))
        else:
            other = g.name("in")
            g.inputs.append(helper.make_tensor_value_info(other, TensorProto.FLOAT, bs))
        a, b = (g.cur, other) if draw(st.booleans()) else (other, g.cur)
        g.node(op, [a, b], shape)
    elif kind == "transpose":
        perm = draw(st.permutations(range(rank)))
        g.node("Transpose", [g.cur], [shape[p] for p in perm], perm=list(perm))
    elif kind == "reshape":
        if draw(st.booleans()) and rank > 1:
            new = [shape[0], int(np.prod(shape[1:]))]
            target = [0, -1]
        else:
            new = [int(np.prod(shape))]
            while len(new) < draw(st.integers(1, 4)) and new[0] % 2 == 0:
                new = [2, new[0] // 2, *new[1:]]
            target = list(new)
        g.node("Reshape", [g.cur, g.const(np.array(target, np.int64), "shape")], new)
    elif kind == "reduce":
        op = draw(st.sampled_from(("ReduceSum", "ReduceMean", "ReduceMax")))
        axes = sorted(draw(st.sets(st.integers(0, rank - 1), min_size=1, max_size=rank)))
        keep = draw(st.booleans())
        if not keep and len(axes) == rank:
            keep = True
        new = [1 if i in axes else d for i, d in enumerate(shape)] if keep else \
            [d for i, d in enumerate(shape) if i not in axes]
        if op == "ReduceSum":
            g.node(op, [g.cur, g.const(np.array(axes, np.int64), "axes")], new, keepdims=int(keep))
        else:
            g.node(op, [g.cur], new, axes=axes, keepdims=int(keep))
    elif kind == "concat":
        ax = draw(st.integers(0, rank - 1))
        extra = list(shape)
        extra[ax] = draw(st.integers(1, 3))
        other = g.const(rng.standard_normal(extra).astype(np.float32))
        new = list(shape)
        new[ax] += extra[ax]
        ins = [g.cur, other] if draw(st.booleans()) else [other, g.cur, g.cur]
        if len(ins) == 3:
            new[ax] = 2 * shape[ax] + extra[ax]
        g.node("Concat", ins, new, axis=ax)
    elif kind == "split":
        axes = [i for i, d in enumerate(shape) if d >= 2]
        if not axes:
            g.node("Relu", [g.cur], shape)
            return
        ax = draw(st.sampled_from(axes))
        first = draw(st.integers(1, shape[ax] - 1))
        sizes = g.const(np.array([first, shape[ax] - first], np.int64), "split")
        new0, new1 = list(shape), list(shape)
        new0[ax], new1[ax] = first, shape[ax] - first
        outs = g.node("Split", [g.cur, sizes], new0, n_out=2, axis=ax)
        g.extra_outputs.append(outs[1])
        g.shapes[outs[1]] = new1
    elif kind == "gather":
        ax = draw(st.integers(0, rank - 1))
        k = draw(st.integers(1, 4))
        idx = np.array(draw(st.lists(st.integers(-shape[ax], shape[ax] - 1), min_size=k, max_size=k)),
                       np.int64)
        scalar = draw(st.booleans()) and rank > 1
        if scalar:
            idx = idx[:1].reshape(())
        new = shape[:ax] + list(idx.shape) + shape[ax + 1:]
        g.node("Gather", [g.cur, g.const(idx, "idx")], new, axis=ax)
    elif kind == "slice":
        ax = draw(st.integers(0, rank - 1))
        d = shape[ax]
        step = draw(st.sampled_from((1, 1, 2, -1)))
        if step > 0:
            start = draw(st.integers(0, d - 1))
            end = draw(st.integers(start + 1, d + 2))
            n = len(range(start, min(end, d), step))
        else:
            start = draw(st.integers(0, d - 1))
            end = draw(st.integers(-d - 1, start - 1)) if start > 0 else -d - 1
            n = len(range(start, max(end, -1) if end >= 0 else (end + d if end + d >= 0 else -1), step))
        new = list(shape)
        new[ax] = n
        if n == 0:
            g.node("Relu", [g.cur], shape)
            return
        g.node("Slice", [g.cur, g.const(np.array([start], np.int64), "st"),
                         g.const(np.array([end], np.int64), "en"),
                         g.const(np.array([ax], np.int64), "ax"),
                         g.const(np.array([step], np.int64), "sp")], new)
    elif kind == "matmul":
        k = draw(st.integers(1, 5))
        w = g.const(rng.standard_normal((shape[-1], k)).astype(np.float32), "mm")
        g.node("MatMul", [g.cur, w], [*shape[:-1], k])
    elif kind == "softmax":
        g.node("Softmax", [g.cur], shape, axis=draw(st.integers(-rank, rank - 1)))
    elif kind == "pad":
        pads = [draw(st.integers(0, 2)) for _ in range(2 * rank)]
        mode = draw(st.sampled_from(("constant", "edge", "reflect")))
        if mode == "reflect":  # reflect needs pads smaller than the dim
            pads = [min(p, shape[i % rank] - 1) for i, p in enumerate(pads)]
        new = [d + pads[i] + pads[i + rank] for i, d in enumerate(shape)]
        g.node("Pad", [g.cur, g.const(np.array(pads, np.int64), "pads")], new, mode=mode)
    elif kind == "clip":
        lo = float(draw(st.floats(-2, 0, width=32)))
        hi = float(draw(st.floats(0, 2, width=32)))
        g.node("Clip", [g.cur, g.const(np.array(lo, np.float32), "lo"),
                        g.const(np.array(hi, np.float32), "hi")], shape)
    elif kind == "div":
        bs = _bshape(draw, shape)
        den = (np.abs(rng.standard_normal(bs)) + 0.5).astype(np.float32)
        g.node("Div", [g.cur, g.const(den, "den")], shape)
    elif kind == "conv":
        n, c, h, w = shape
        oc = draw(st.integers(1, 4))
        k = draw(st.integers(1, min(3, h, w)))
        s = draw(st.integers(1, 2))
        p = draw(st.integers(0, k - 1))
        wt = g.const((rng.standard_normal((oc, c, k, k)) * 0.5).astype(np.float32), "w")
        ins = [g.cur, wt]
        if draw(st.booleans()):
            ins.append(g.const(rng.standard_normal(oc).astype(np.float32), "b"))
        oh, ow = (h + 2 * p - k) // s + 1, (w + 2 * p - k) // s + 1
        g.node("Conv", ins, [n, oc, oh, ow], kernel_shape=[k, k], strides=[s, s], pads=[p, p, p, p])
    elif kind == "pool":
        n, c, h, w = shape
        k = draw(st.integers(1, min(3, h, w)))
        s = draw(st.integers(1, 2))
        op = draw(st.sampled_from(("MaxPool", "AveragePool")))
        oh, ow = (h - k) // s + 1, (w - k) // s + 1
        g.node(op, [g.cur], [n, c, oh, ow], kernel_shape=[k, k], strides=[s, s])


@st.composite
def onnx_graphs(draw) -> onnx.ModelProto:
    """A random valid ONNX model (input ``x`` and maybe more inputs)."""
    shape = [draw(st.integers(1, 2)), draw(st.integers(1, 4)), draw(st.integers(1, 6)),
             draw(st.integers(1, 6))]
    g = _G(shape)
    rng = np.random.default_rng(draw(st.integers(0, 2**31)))
    for _ in range(draw(st.integers(1, 5))):
        _step(draw, g, rng)
    outs = [g.cur, *g.extra_outputs]
    graph = helper.make_graph(g.nodes, "diff", g.inputs,
                              [helper.make_tensor_value_info(o, TensorProto.FLOAT, g.shapes[o]) for o in outs],
                              g.inits)
    m = helper.make_model(graph, opset_imports=[helper.make_opsetid("", OPSET)])
    m.ir_version = 8
    onnx.checker.check_model(m)
    onnx.shape_inference.infer_shapes(m, check_type=True, strict_mode=True)  # shapes tracked right
    return m


def feed_for(model: onnx.ModelProto, seed: int = 0) -> dict[str, np.ndarray]:
    rng = np.random.default_rng(seed)
    return {vi.name: rng.standard_normal([d.dim_value for d in vi.type.tensor_type.shape.dim])
            .astype(np.float32) for vi in model.graph.input}


def reference(model: onnx.ModelProto, feed: dict) -> list[np.ndarray]:
    import onnxruntime as ort

    so = ort.SessionOptions()
    so.intra_op_num_threads = 1
    so.graph_optimization_level = ort.GraphOptimizationLevel.ORT_DISABLE_ALL
    sess = ort.InferenceSession(model.SerializeToString(), so, providers=["CPUExecutionProvider"])
    return sess.run(None, feed)


def check(model: onnx.ModelProto, *, openvino: bool = True) -> None:
    """Raise AssertionError naming the engine and output that disagree with onnxruntime."""
    import xmo

    feed = feed_for(model)
    want = reference(model, feed)
    names = [o.name for o in model.graph.output]
    module = xmo.convert_model(model)
    got = xmo.compile_model(module)(feed)
    for i, (n, w) in enumerate(zip(names, want)):
        _close(np.asarray(got[i]), w, f"xmo CPU backend, output {n}")
    if openvino:
        import openvino as ov

        with tempfile.TemporaryDirectory() as d:
            xml = Path(d) / "m.xml"
            xmo.save_model(module, xml, verify_ir=True)
            core = ov.Core()
            compiled = core.compile_model(core.read_model(str(xml)), "CPU",
                                          {"INFERENCE_PRECISION_HINT": "f32"})
            res = compiled(feed)
            by_name = {}
            for port, val in res.items():
                for tn in port.get_names():
                    by_name[tn] = val
            for n, w in zip(names, want):
                assert n in by_name, f"OpenVINO: no output named {n} ({list(by_name)})"
                _close(np.asarray(by_name[n]), w, f"OpenVINO, output {n}")


def _close(got: np.ndarray, want: np.ndarray, what: str) -> None:
    assert got.shape == want.shape, f"{what}: shape {got.shape} != {want.shape}"
    np.testing.assert_allclose(got, want, rtol=RTOL, atol=ATOL, err_msg=what)


def main(argv: list[str] | None = None) -> int:
    from hypothesis import HealthCheck, given, settings

    ap = argparse.ArgumentParser(prog="differential", description=__doc__.split("\n\n")[0])
    ap.add_argument("--examples", type=int, default=200)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--no-openvino", action="store_true")
    args = ap.parse_args(argv)

    @settings(max_examples=args.examples, deadline=None, database=None, derandomize=False,
              suppress_health_check=list(HealthCheck))
    @given(onnx_graphs())
    def prop(model: onnx.ModelProto) -> None:
        check(model, openvino=not args.no_openvino)

    import hypothesis

    prop = hypothesis.seed(args.seed)(prop)
    try:
        prop()
    except Exception as e:  # noqa: BLE001 - report the shrunk counterexample
        print(f"FAILED: {type(e).__name__}: {e}", file=sys.stderr)
        return 1
    print(f"{args.examples} examples: xmo agrees with onnxruntime")
    return 0


if __name__ == "__main__":
    sys.exit(main())
