#!/usr/bin/env python3
"""Write the bundled default models of the quick start (seeded weights).

* ``models/demo.onnx``: a small ONNX CNN classifier, image[1,3,32,32] ->
  Conv(16)+BatchNormalization+Relu -> MaxPool -> Conv(32)+Relu ->
  GlobalAveragePool -> Flatten -> Gemm(10) -> Softmax.
* ``models/demo.mlir``: a CNN written directly in the ``ov`` dialect
  (Conv3x3(8)+bias -> Relu -> MaxPool2 -> Conv3x3(16)+bias -> Relu -> AvgPool2
  -> Reshape -> MatMul(10)+bias -> Softmax), for ``xmo-opt`` and the tests.

    python tools/make_demo_model.py            # rewrites both
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
OUT_ONNX = OUT.with_suffix(".onnx")


def build_onnx():  # noqa: ANN201
    import onnx
    from onnx import TensorProto, helper, numpy_helper

    rng = np.random.default_rng(7)

    def w(name: str, *shape: int, scale: float = 0.3):
        return numpy_helper.from_array((rng.standard_normal(shape) * scale).astype(np.float32), name)

    inits = [
        w("conv1.weight", 16, 3, 3, 3), w("conv1.bias", 16, scale=0.1),
        numpy_helper.from_array((rng.random(16) + 0.5).astype(np.float32), "bn.scale"),
        w("bn.bias", 16, scale=0.1), w("bn.mean", 16, scale=0.1),
        numpy_helper.from_array((rng.random(16) + 0.5).astype(np.float32), "bn.var"),
        w("conv2.weight", 32, 16, 3, 3, scale=0.1), w("conv2.bias", 32, scale=0.1),
        w("fc.weight", 10, 32, scale=0.5), w("fc.bias", 10, scale=0.1),
    ]  # fmt: skip
    nodes = [
        helper.make_node("Conv", ["image", "conv1.weight", "conv1.bias"], ["c1"], name="conv1", pads=[1, 1, 1, 1]),
        helper.make_node("BatchNormalization", ["c1", "bn.scale", "bn.bias", "bn.mean", "bn.var"], ["b1"], name="bn1"),
        helper.make_node("Relu", ["b1"], ["r1"], name="relu1"),
        helper.make_node("MaxPool", ["r1"], ["p1"], name="pool1", kernel_shape=[2, 2], strides=[2, 2]),
        helper.make_node("Conv", ["p1", "conv2.weight", "conv2.bias"], ["c2"], name="conv2", pads=[1, 1, 1, 1]),
        helper.make_node("Relu", ["c2"], ["r2"], name="relu2"),
        helper.make_node("GlobalAveragePool", ["r2"], ["g"], name="gap"),
        helper.make_node("Flatten", ["g"], ["f"], name="flatten"),
        helper.make_node("Gemm", ["f", "fc.weight", "fc.bias"], ["logits"], name="fc", transB=1),
        helper.make_node("Softmax", ["logits"], ["probabilities"], name="softmax", axis=1),
    ]  # fmt: skip
    graph = helper.make_graph(
        nodes,
        "xmo_demo_cnn",
        [helper.make_tensor_value_info("image", TensorProto.FLOAT, [1, 3, 32, 32])],
        [helper.make_tensor_value_info("probabilities", TensorProto.FLOAT, [1, 10])],
        inits,
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)], producer_name="xmo")
    model.ir_version = 8
    onnx.checker.check_model(model)
    return model


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
    import onnx

    onnx.save(build_onnx(), OUT_ONNX)
    print(f"wrote {OUT_ONNX} ({OUT_ONNX.stat().st_size} bytes)")


if __name__ == "__main__":
    main()
