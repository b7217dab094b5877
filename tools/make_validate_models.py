#!/usr/bin/env python3
"""Generated models for ``xmo validate``: good ones and one of each failure.

    python tools/make_validate_models.py OUT_DIR [--good 42]

writes ``OUT_DIR/manifest.json`` listing:

* ``good_NN.onnx``: tiny ONNX graphs of several shapes (Add/Relu, MatMul +
  bias, Conv, Softmax, Transpose chains, ReduceMean), sizes spread by NN;
* ``mismatch.onnx``: MatMul -> Tanh with given reference outputs off by 0.5;
* ``diverge.onnx``: the same model checked with ``rtol = atol = 0`` (float
  rounding differs between runtimes: the first diverging tensor is the MatMul's);
* ``unsupported.onnx``: an op of a domain nobody converts (``com.example.Frobnicate``);
* ``broken.onnx``: bytes that are not a model (an ``error``);
* ``crash.onnx`` + ``ext_crash/``: an extension dereferencing NULL when loaded (SIGSEGV);
* ``hang.onnx`` + ``ext_hang/``: an extension sleeping for an hour;
* ``hog.onnx`` + ``ext_hog/``: an extension filling 3 GiB of memory;
* ``bomb.onnx``: ``ConstantOfShape`` of 2**30 floats (``tools/resource_bombs.py``).

Used by ``tests/test_validate.py`` and ``benchmarks/bench_validate.py``.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import numpy as np

#: the status each generated special model must end with (the good ones: "pass")
EXPECTED = {"mismatch": "mismatch", "diverge": "mismatch", "unsupported": "unsupported", "broken": "error",
            "crash": "crash", "hang": "timeout", "hog": "oom", "bomb": "oom"}

_EXTENSIONS = {
    "crash": "import ctypes\n\nctypes.string_at(0)  # SIGSEGV: the crash xmo validate must contain\n",
    "hang": "import time\n\ntime.sleep(3600)  # the hang xmo validate must time out\n",
    "hog": "HOG = b'x' * (3 << 30)  # 3 GiB, written: resident memory beyond any test limit\n",
}


def _save(model, path: Path) -> None:  # noqa: ANN001
    import onnx

    onnx.checker.check_model(model)
    onnx.save(model, str(path))


def _graph(name: str, nodes: list, inputs: list, outputs: list, inits: list, opset: int = 17):  # noqa: ANN202
    from onnx import helper

    g = helper.make_graph(nodes, name, inputs, outputs, inits)
    return helper.make_model(g, opset_imports=[helper.make_opsetid("", opset)], ir_version=8)


def good_model(i: int):  # noqa: ANN201
    """A small valid model; the kind and size vary with ``i``."""
    from onnx import TensorProto, helper, numpy_helper

    rng = np.random.default_rng(i)
    f = TensorProto.FLOAT
    n = 4 + 4 * (i % 7)
    kind = i % 6
    if kind == 0:
        nodes = [helper.make_node("Add", ["x", "b"], ["s"]), helper.make_node("Relu", ["s"], ["y"])]
        inits = [numpy_helper.from_array(rng.standard_normal((1, n)).astype(np.float32), "b")]
        ins, outs = [helper.make_tensor_value_info("x", f, [1, n])], [helper.make_tensor_value_info("y", f, [1, n])]
    elif kind == 1:
        w = rng.standard_normal((n * 4, n)).astype(np.float32) / n
        nodes = [helper.make_node("MatMul", ["x", "w"], ["m"]), helper.make_node("Add", ["m", "b"], ["y"])]
        inits = [numpy_helper.from_array(w, "w"), numpy_helper.from_array(np.ones(n, np.float32), "b")]
        ins = [helper.make_tensor_value_info("x", f, [2, n * 4])]
        outs = [helper.make_tensor_value_info("y", f, [2, n])]
    elif kind == 2:
        w = rng.standard_normal((n, 3, 3, 3)).astype(np.float32) / 9
        nodes = [helper.make_node("Conv", ["x", "w"], ["c"], pads=[1, 1, 1, 1]), helper.make_node("Relu", ["c"], ["y"])]
        inits = [numpy_helper.from_array(w, "w")]
        ins = [helper.make_tensor_value_info("x", f, [1, 3, 8, 8])]
        outs = [helper.make_tensor_value_info("y", f, [1, n, 8, 8])]
    elif kind == 3:
        nodes = [helper.make_node("Mul", ["x", "k"], ["m"]), helper.make_node("Softmax", ["m"], ["y"], axis=-1)]
        inits = [numpy_helper.from_array(np.full((1, n), 2.0, np.float32), "k")]
        ins, outs = [helper.make_tensor_value_info("x", f, [3, n])], [helper.make_tensor_value_info("y", f, [3, n])]
    elif kind == 4:
        nodes = [helper.make_node("Transpose", ["x"], ["t"], perm=[0, 2, 1]),
                 helper.make_node("Sigmoid", ["t"], ["s"]),
                 helper.make_node("Transpose", ["s"], ["y"], perm=[0, 2, 1])]
        inits = []
        ins = [helper.make_tensor_value_info("x", f, [1, n, 5])]
        outs = [helper.make_tensor_value_info("y", f, [1, n, 5])]
    else:
        nodes = [helper.make_node("ReduceMean", ["x"], ["r"], axes=[1], keepdims=1),
                 helper.make_node("Sub", ["x", "r"], ["y"])]
        inits = []
        ins, outs = [helper.make_tensor_value_info("x", f, [2, n])], [helper.make_tensor_value_info("y", f, [2, n])]
    return _graph(f"good_{i}", nodes, ins, outs, inits)


def _add_model(name: str):  # noqa: ANN202
    from onnx import TensorProto, helper

    f = TensorProto.FLOAT
    nodes = [helper.make_node("Relu", ["x"], ["y"])]
    return _graph(name, nodes, [helper.make_tensor_value_info("x", f, [1, 4])],
                  [helper.make_tensor_value_info("y", f, [1, 4])], [])


def make_suite(out: Path, good: int = 42, specials: tuple[str, ...] = tuple(EXPECTED),
               hang_timeout: float | None = None) -> Path:
    """Write the models and ``out/manifest.json``; the manifest's path
    (``hang_timeout``: the hanging model's own time limit, default the run's)."""
    import onnx
    from onnx import TensorProto, helper, numpy_helper

    from xmo.tools.resource_bombs import constant_of_shape

    out.mkdir(parents=True, exist_ok=True)
    entries: list[dict] = []
    for i in range(good):
        _save(good_model(i), out / f"good_{i:02d}.onnx")
        entries.append({"model": f"good_{i:02d}.onnx"})
    f = TensorProto.FLOAT
    for kind in ("mismatch", "diverge"):
        if kind not in specials:
            continue
        rng = np.random.default_rng(7)
        w = rng.standard_normal((512, 16)).astype(np.float32)
        nodes = [helper.make_node("MatMul", ["x", "w"], ["mm"], name="matmul"),
                 helper.make_node("Tanh", ["mm"], ["y"], name="tanh")]
        model = _graph(kind, nodes, [helper.make_tensor_value_info("x", f, [1, 512])],
                       [helper.make_tensor_value_info("y", f, [1, 16])], [numpy_helper.from_array(w, "w")])
        _save(model, out / f"{kind}.onnx")
        entry: dict = {"model": f"{kind}.onnx"}
        if kind == "mismatch":  # reference outputs off by 0.5: a mismatch whatever the runtimes round
            x = np.arange(512, dtype=np.float32).reshape(1, 512) / 512
            np.savez(out / "mismatch_ref.npz", y=np.tanh(x @ w) + np.float32(0.5))
            entry["outputs"] = "mismatch_ref.npz"
        else:
            entry.update(rtol=0.0, atol=0.0)
        entries.append(entry)
    if "unsupported" in specials:
        nodes = [helper.make_node("Frobnicate", ["x"], ["y"], domain="com.example", name="frob")]
        g = helper.make_graph(nodes, "unsupported", [helper.make_tensor_value_info("x", f, [1, 4])],
                              [helper.make_tensor_value_info("y", f, [1, 4])])
        model = helper.make_model(g, opset_imports=[helper.make_opsetid("", 17),
                                                    helper.make_opsetid("com.example", 1)], ir_version=8)
        onnx.save(model, str(out / "unsupported.onnx"))
        entries.append({"model": "unsupported.onnx"})
    if "broken" in specials:
        (out / "broken.onnx").write_bytes(b"this is not an ONNX model\n")
        entries.append({"model": "broken.onnx"})
    for kind in ("crash", "hang", "hog"):
        if kind not in specials:
            continue
        ext = out / f"ext_{kind}" / "front" / "onnx"
        ext.mkdir(parents=True, exist_ok=True)
        (ext / f"{kind}.py").write_text(_EXTENSIONS[kind])
        _save(_add_model(kind), out / f"{kind}.onnx")
        entries.append({"model": f"{kind}.onnx", "extensions": [f"ext_{kind}"]})
        if kind == "hang" and hang_timeout is not None:
            entries[-1]["timeout"] = hang_timeout
    if "bomb" in specials:
        bomb = constant_of_shape(1 << 30)
        (out / "bomb.onnx").write_bytes(bomb.files[bomb.model])
        entries.append({"model": "bomb.onnx"})
    manifest = out / "manifest.json"
    manifest.write_text(json.dumps(entries, indent=1))
    return manifest


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("out", type=Path)
    ap.add_argument("--good", type=int, default=42)
    args = ap.parse_args(argv)
    print(make_suite(args.out, args.good))
    return 0


if __name__ == "__main__":
    sys.exit(main())
