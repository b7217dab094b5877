#!/usr/bin/env python3
"""Write ``models/demo.mlir``: the bundled default model of the quick start.

A small CNN classifier in the ``ov`` dialect with seeded random weights:
image[1,3,32,32] -> Conv3x3(8)+bias -> Relu -> MaxPool2 -> Conv3x3(16)+bias ->
Relu -> AvgPool2 -> Reshape[1,1024] -> MatMul(10)+bias -> Softmax.

    python tools/make_demo_model.py            # rewrites models/demo.mlir
"""

from __future__ import annotations

import io
from pathlib import Path

import numpy as np
from xdsl.dialects.builtin import ModuleOp, StringAttr
from xdsl.targets.mlir import MLIRTarget

from xmo.context import make_context, weight_store
from xmo.dialects.ov import ConstantOp, ParameterOp, ResultOp, op_class

OUT = Path(__file__).resolve().parents[1] / "models" / "demo.mlir"


def build() -> tuple[ModuleOp, object]:
    ctx = make_context()
    store = weight_store(ctx)
    rng = np.random.default_rng(2026)
    ops: list = []

    def const(name: str, array: np.ndarray) -> ConstantOp:
        c = ConstantOp.from_array(array, store=store, name=name)
        ops.append(c)
        return c

    def add(op):
        ops.append(op)
        return op

    image = add(ParameterOp.new("f32", [1, 3, 32, 32], name="image", tensor_names=["image"]))
    x = image.results[0]
    for i, (cin, cout) in enumerate([(3, 8), (8, 16)], start=1):
        w = const(f"conv{i}.weight", (rng.standard_normal((cout, cin, 3, 3)) * 0.5).astype(np.float32))
        b = const(f"conv{i}.bias", (rng.standard_normal((1, cout, 1, 1)) * 0.1).astype(np.float32))
        conv = add(op_class("Convolution").make(
            [x, w],
            {"strides": (1, 1), "pads_begin": (1, 1), "pads_end": (1, 1), "dilations": (1, 1)},
            name=f"conv{i}",
        ))
        biased = add(op_class("Add").make([conv, b], name=f"conv{i}.add"))
        relu = add(op_class("Relu").make([biased], name=f"relu{i}"))
        pool_attrs = {"strides": (2, 2), "pads_begin": (0, 0), "pads_end": (0, 0), "kernel": (2, 2)}
        if i == 1:
            pool = add(op_class("MaxPool").make(
                [relu], {**pool_attrs, "dilations": (1, 1)}, name="pool1"))
        else:
            pool = add(op_class("AvgPool").make(
                [relu], {**pool_attrs, "exclude-pad": True, "dilations": (1, 1)}, name="pool2"))
        x = pool.results[0]
    shape = const("flatten.shape", np.array([1, -1], np.int64))
    flat = add(op_class("Reshape").make([x, shape], {"special_zero": False}, name="flatten"))
    fc_w = const("fc.weight", (rng.standard_normal((1024, 10)) * 0.05).astype(np.float32))
    fc_b = const("fc.bias", (rng.standard_normal((1, 10)) * 0.1).astype(np.float32))
    fc = add(op_class("MatMul").make([flat, fc_w], name="fc"))
    logits = add(op_class("Add").make([fc, fc_b], name="logits"))
    probs = add(op_class("Softmax").make(
        [logits], {"axis": 1}, name="probabilities", tensor_names=[["probabilities"]]))
    ops.append(ResultOp.new(probs.results[0], name="probabilities/sink"))
    module = ModuleOp(ops, sym_name=StringAttr("xmo_demo_cnn"))
    module.verify()
    return module, ctx


def main() -> None:
    module, ctx = build()
    buf = io.StringIO()
    buf.write("// The quick start's default model (written by tools/make_demo_model.py).\n")
    MLIRTarget().emit(ctx, module, buf)
    OUT.write_text(buf.getvalue())
    print(f"wrote {OUT} ({OUT.stat().st_size} bytes)")


if __name__ == "__main__":
    main()
