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

    python -m xmo.tools.make_large_models OUT.onnx [--gb 2.0] [--n 4096]
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


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("out", type=Path)
    ap.add_argument("--gb", type=float, default=2.0)
    ap.add_argument("--n", type=int, default=4096)
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args()
    m = write_large_mlp(args.out, args.gb, args.n, seed=args.seed)
    print(
        f"{m.path}: {m.layers} layers, {m.weight_bytes / 2**30:.3f} GiB of weights "
        f"({m.dup_bytes / 2**20:.0f} MiB duplicated) in {m.data_path.name}"
    )


if __name__ == "__main__":
    main()
