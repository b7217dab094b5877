"""Generate ONNX models with large external weights, without holding them in memory.

:func:`write_large_mlp` writes an MLP-like chain on an input ``x[1, N]``::

    h = Relu(Gemm(h, W_i, b_i, transB=1))      (even layers)
    h = Relu(Add(MatMul(h, W_i), b_i))         (odd layers)
    y = Add(MatMul(h, W_out), b_out)           (output layer, [N, classes])

Each ``N x N`` float32 weight is written to one external data file in chunks
from a seeded RNG (He-uniform values, so the activations neither vanish nor
blow up), and its TensorProto gets ``data_location = EXTERNAL`` with
``location`` / ``offset`` / ``length`` entries; the ``.onnx`` file itself is a
few kilobytes. Every ``dup_every``-th layer's weight and bias are byte-identical
copies (under their own names, stored again in the data file) of an earlier
layer of the same kind, so a converter that writes identical tensors once
produces a ``.bin`` smaller by :attr:`LargeModel.dup_bytes`.

Used by ``benchmarks/bench_large_weights.py`` and ``tests/test_scale_weights.py``.

:func:`write_chain_graph` and :func:`write_wide_graph` write graphs with many
nodes and small (inline, seeded) weights, for conversion time against node
count (``benchmarks/bench_convert_scale.py``, ``tests/test_scale_graphs.py``):

* chain, on ``x[1, width]``: blocks ``MatMul(W / sqrt(width)) -> Add(0.1 * b)
  -> Relu | Sigmoid | Tanh | Relu`` (cycling), after every 4th block a
  residual ``Add`` with the previous residual point; ``Softmax(axis=-1)``;
* wide, on ``x[1, 8, 8, 8]``: blocks of ``branches`` parallel
  ``Mul(cur, c_i[1, 8, 1, 1] = 1 + 0.01 i) -> Relu | Sigmoid | Tanh | Abs``,
  ``Concat(axis=1)``, a 1x1 ``Conv`` back to 8 channels (weights
  ``/ sqrt(8 * branches)``), residual ``Add`` with the block input;
  ``GlobalAveragePool``.

Both are opset 17 and ``onnx.checker``-clean, with about ``n_nodes`` nodes.

    python -m xmo.tools.make_large_models OUT.onnx [--gb 2.0] [--n 4096]   (MLP, external data)
    python -m xmo.tools.make_large_models mlp OUT.onnx [--gb 2.0] [--n 4096]
    python -m xmo.tools.make_large_models chain N_NODES OUT.onnx [--width 64] [--seed 0]
    python -m xmo.tools.make_large_models wide N_NODES OUT.onnx [--branches 50] [--seed 0]
"""

from __future__ import annotations

import argparse
import math
import os
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

#: bytes generated and written at a time
CHUNK_BYTES = 8 << 20
#: alignment of each tensor's offset in the data file
ALIGN = 4096


@dataclass
class LargeModel:
    """What :func:`write_large_mlp` wrote."""

    path: Path
    data_path: Path
    n: int
    layers: int
    classes: int
    weight_bytes: int = 0  # payload bytes of all initializers (duplicates included)
    dup_bytes: int = 0  # bytes of initializers identical to an earlier one
    input_name: str = "x"
    output_name: str = "y"
    duplicates: dict[str, str] = field(default_factory=dict)  # copy name -> original

    @property
    def unique_bytes(self) -> int:
        return self.weight_bytes - self.dup_bytes

    def input_data(self, seed: int = 0) -> np.ndarray:
        return np.random.default_rng(seed).standard_normal((1, self.n)).astype(np.float32)


def _write_tensor(f, rng_seed: int, shape: tuple[int, ...], scale: float) -> int:
    """Append a seeded uniform(-scale, scale) float32 tensor to ``f`` in chunks."""
    rng = np.random.default_rng(rng_seed)
    total = math.prod(shape)
    step = max(1, CHUNK_BYTES // 4)
    done = 0
    while done < total:
        k = min(step, total - done)
        chunk = rng.random(k, dtype=np.float32)
        chunk *= np.float32(2 * scale)
        chunk -= np.float32(scale)
        f.write(chunk.astype("<f4", copy=False).tobytes())
        done += k
    return total * 4


def write_large_mlp(
    path: str | os.PathLike[str],
    gb: float = 2.0,
    n: int = 4096,
    *,
    classes: int = 16,
    dup_every: int = 8,
    seed: int = 0,
) -> LargeModel:
    """Write ``path`` (.onnx) and ``path.data`` with at least ``gb`` GiB of weights.

    The number of hidden layers is the smallest that brings the initializers'
    bytes (duplicates included) to ``gb`` GiB. Layer ``i`` with
    ``i % dup_every == 0`` and ``i > 0`` reuses the weight and bias bytes of
    layer ``i - dup_every`` (same op kind, since ``dup_every`` is even).
    """
    from onnx import TensorProto, helper

    if dup_every % 2:
        raise ValueError("dup_every must be even (copies must feed the same op kind)")
    path = Path(path)
    data_path = path.with_name(path.name + ".data")
    per_layer = n * n * 4 + n * 4
    target = int(gb * (1 << 30))
    layers = max(1, -(-(target - n * classes * 4 - classes * 4) // per_layer))
    info = LargeModel(path, data_path, n, layers, classes)

    inits: list[TensorProto] = []
    # name -> (offset, length) of what is in the data file, for copies
    written: dict[str, tuple[int, int]] = {}

    def external(name: str, dims: tuple[int, ...], offset: int, length: int) -> TensorProto:
        t = TensorProto()
        t.name = name
        t.data_type = TensorProto.FLOAT
        t.dims.extend(dims)
        t.data_location = TensorProto.EXTERNAL
        for k, v in (("location", data_path.name), ("offset", str(offset)), ("length", str(length))):
            e = t.external_data.add()
            e.key, e.value = k, v
        return t

    with open(data_path, "wb") as f:

        def add(name: str, dims: tuple[int, ...], scale: float, tseed: int, copy_of: str | None) -> None:
            pad = -f.tell() % ALIGN
            if pad:
                f.write(b"\0" * pad)
            offset = f.tell()
            if copy_of is None:
                length = _write_tensor(f, tseed, dims, scale)
            else:  # byte-identical copy, stored again under another name
                src_off, length = written[copy_of]
                with open(data_path, "rb") as src:
                    src.seek(src_off)
                    left = length
                    while left:
                        buf = src.read(min(CHUNK_BYTES, left))
                        f.write(buf)
                        left -= len(buf)
                info.dup_bytes += length
                info.duplicates[name] = copy_of
            f.flush()
            written[name] = (offset, length)
            info.weight_bytes += length
            inits.append(external(name, dims, offset, length))

        nodes = []
        h = info.input_name
        w_scale = math.sqrt(6.0 / n)  # He-uniform for Relu
        for i in range(layers):
            orig = i - dup_every if (i >= dup_every and i % dup_every == 0) else None
            w, b = f"layer{i}.weight", f"layer{i}.bias"
            add(w, (n, n), w_scale, seed * 100_003 + 2 * i, None if orig is None else f"layer{orig}.weight")
            add(b, (n,), 0.1, seed * 100_003 + 2 * i + 1, None if orig is None else f"layer{orig}.bias")
            out = f"h{i}"
            if i % 2 == 0:
                nodes.append(helper.make_node("Gemm", [h, w, b], [f"{out}_lin"], name=f"fc{i}", transB=1))
            else:
                nodes.append(helper.make_node("MatMul", [h, w], [f"{out}_mm"], name=f"matmul{i}"))
                nodes.append(helper.make_node("Add", [f"{out}_mm", b], [f"{out}_lin"], name=f"add{i}"))
            nodes.append(helper.make_node("Relu", [f"{out}_lin"], [out], name=f"relu{i}"))
            h = out
        add("head.weight", (n, classes), math.sqrt(3.0 / n), seed * 100_003 + 99_991, None)
        add("head.bias", (classes,), 0.1, seed * 100_003 + 99_992, None)
        nodes.append(helper.make_node("MatMul", [h, "head.weight"], ["head_mm"], name="head_matmul"))
        nodes.append(helper.make_node("Add", ["head_mm", "head.bias"], [info.output_name], name="head_add"))

    graph = helper.make_graph(
        nodes,
        "large_mlp",
        [helper.make_tensor_value_info(info.input_name, TensorProto.FLOAT, [1, n])],
        [helper.make_tensor_value_info(info.output_name, TensorProto.FLOAT, [1, classes])],
        initializer=inits,
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)], producer_name="xmo")
    model.ir_version = 8
    with open(path, "wb") as f:
        f.write(model.SerializeToString())
    return info


@dataclass
class GraphModel:
    """What :func:`write_chain_graph` / :func:`write_wide_graph` wrote."""

    path: Path
    kind: str
    n_nodes: int
    n_initializers: int
    input_shape: tuple[int, ...]
    input_name: str = "x"
    output_name: str = "y"

    def input_data(self, seed: int = 0) -> np.ndarray:
        return np.random.default_rng(seed).standard_normal(self.input_shape).astype(np.float32)


def _save_graph(path: Path, kind: str, nodes: list, inits: list, in_shape: tuple[int, ...],
                out_shape: tuple[int, ...]) -> GraphModel:
    from onnx import TensorProto, helper

    graph = helper.make_graph(
        nodes,
        f"{kind}_graph",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, list(in_shape))],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, list(out_shape))],
        initializer=inits,
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)], producer_name="xmo")
    model.ir_version = 8
    with open(path, "wb") as f:
        f.write(model.SerializeToString())
    return GraphModel(path, kind, len(nodes), len(inits), in_shape)


def write_chain_graph(
    path: str | os.PathLike[str], n_nodes: int, width: int = 64, seed: int = 0
) -> GraphModel:
    """A deep chain of about ``n_nodes`` nodes on ``x[1, width]`` (see the module doc).

    Each block is 3 nodes (MatMul, Add, activation), every 4th block one more
    (the residual Add), plus the final Softmax.
    """
    from onnx import helper, numpy_helper

    path = Path(path)
    rng = np.random.default_rng(seed)
    # 13 nodes per 4 blocks, + Softmax
    blocks = max(1, round((n_nodes - 1) * 4 / 13))
    acts = ("Relu", "Sigmoid", "Tanh", "Relu")
    scale = np.float32(1.0 / math.sqrt(width))
    nodes, inits = [], []
    h = res = "x"
    for i in range(blocks):
        w = (rng.standard_normal((width, width), dtype=np.float32) * scale).astype(np.float32)
        b = (rng.standard_normal(width, dtype=np.float32) * np.float32(0.1)).astype(np.float32)
        inits.append(numpy_helper.from_array(w, f"w{i}"))
        inits.append(numpy_helper.from_array(b, f"b{i}"))
        nodes.append(helper.make_node("MatMul", [h, f"w{i}"], [f"mm{i}"], name=f"matmul{i}"))
        nodes.append(helper.make_node("Add", [f"mm{i}", f"b{i}"], [f"lin{i}"], name=f"add{i}"))
        nodes.append(helper.make_node(acts[i % 4], [f"lin{i}"], [f"act{i}"], name=f"act{i}"))
        h = f"act{i}"
        if i % 4 == 3:
            nodes.append(helper.make_node("Add", [h, res], [f"res{i}"], name=f"residual{i}"))
            h = res = f"res{i}"
    nodes.append(helper.make_node("Softmax", [h], ["y"], name="softmax", axis=-1))
    return _save_graph(path, "chain", nodes, inits, (1, width), (1, width))


def write_wide_graph(
    path: str | os.PathLike[str], n_nodes: int, branches: int = 50, seed: int = 0
) -> GraphModel:
    """Wide blocks (``branches`` parallel paths) with about ``n_nodes`` nodes
    on ``x[1, 8, 8, 8]`` (see the module doc).

    Each block is ``2 * branches + 3`` nodes (Mul and activation per branch,
    Concat, Conv, residual Add), plus the final GlobalAveragePool.
    """
    from onnx import helper, numpy_helper

    path = Path(path)
    rng = np.random.default_rng(seed)
    c = 8
    per_block = 2 * branches + 3
    blocks = max(1, round((n_nodes - 1) / per_block))
    acts = ("Relu", "Sigmoid", "Tanh", "Abs")
    scale = np.float32(1.0 / math.sqrt(c * branches))
    nodes, inits = [], []
    cur = "x"
    for k in range(blocks):
        outs = []
        for i in range(branches):
            m = f"m{k}_{i}"
            inits.append(numpy_helper.from_array(np.full((1, c, 1, 1), 1 + 0.01 * i, np.float32), m))
            nodes.append(helper.make_node("Mul", [cur, m], [f"mul{k}_{i}"], name=f"mul{k}_{i}"))
            nodes.append(helper.make_node(acts[i % 4], [f"mul{k}_{i}"], [f"a{k}_{i}"], name=f"act{k}_{i}"))
            outs.append(f"a{k}_{i}")
        nodes.append(helper.make_node("Concat", outs, [f"cat{k}"], name=f"concat{k}", axis=1))
        w = (rng.standard_normal((c, c * branches, 1, 1), dtype=np.float32) * scale).astype(np.float32)
        inits.append(numpy_helper.from_array(w, f"conv{k}.weight"))
        nodes.append(helper.make_node("Conv", [f"cat{k}", f"conv{k}.weight"], [f"conv{k}"], name=f"conv{k}"))
        nodes.append(helper.make_node("Add", [f"conv{k}", cur], [f"blk{k}"], name=f"residual{k}"))
        cur = f"blk{k}"
    nodes.append(helper.make_node("GlobalAveragePool", [cur], ["y"], name="gap"))
    return _save_graph(path, "wide", nodes, inits, (1, c, 8, 8), (1, c, 1, 1))


def _graph_main(argv: list[str]) -> None:
    kind = argv[0]
    ap = argparse.ArgumentParser(
        prog=f"python -m xmo.tools.make_large_models {kind}",
        description=f"write a {kind} graph of about N_NODES nodes",
    )
    ap.add_argument("n_nodes", type=int)
    ap.add_argument("out", type=Path)
    if kind == "chain":
        ap.add_argument("--width", type=int, default=64)
    else:
        ap.add_argument("--branches", type=int, default=50)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--check", action="store_true", help="run onnx.checker on the result")
    args = ap.parse_args(argv[1:])
    if kind == "chain":
        m = write_chain_graph(args.out, args.n_nodes, width=args.width, seed=args.seed)
    else:
        m = write_wide_graph(args.out, args.n_nodes, branches=args.branches, seed=args.seed)
    if args.check:
        import onnx

        onnx.checker.check_model(str(m.path))
    print(f"{m.path}: {m.kind}, {m.n_nodes} nodes, {m.n_initializers} initializers, "
          f"{m.path.stat().st_size / 2**20:.1f} MiB")


def main() -> None:
    import sys

    argv = sys.argv[1:]
    if argv and argv[0] in ("chain", "wide"):
        _graph_main(argv)
        return
    if argv and argv[0] == "mlp":
        argv = argv[1:]
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("out", type=Path)
    ap.add_argument("--gb", type=float, default=2.0)
    ap.add_argument("--n", type=int, default=4096)
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args(argv)
    m = write_large_mlp(args.out, args.gb, args.n, seed=args.seed)
    print(
        f"{m.path}: {m.layers} layers, {m.weight_bytes / 2**30:.3f} GiB of weights "
        f"({m.dup_bytes / 2**20:.0f} MiB duplicated) in {m.data_path.name}"
    )


if __name__ == "__main__":
    main()
