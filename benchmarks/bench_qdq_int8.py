#!/usr/bin/env python3
"""Latency of a QDQ-quantized CNN: xmo's IR against OpenVINO's IR, int8.

A float CNN (three 3x3 convolutions with ReLU, a MatMul head; random weights,
input ``--size``) and two models of the real-model suite (tests/data/real: bert_ts,
its MatMul / Gemm layers; regnet_y, every op; per channel, calibrated on their own
inputs) are quantized by ``onnxruntime.quantization.quantize_static``
(QDQ, u8 activations, i8 weights, per channel or per tensor), converted by
``xmo.convert_model`` and ``openvino.convert_model``; both IRs are compiled on
CPU with no precision hint (the plugin runs int8), ``NUM_STREAMS=1``, and run
alternately (``alternating_latency`` of ``bench_latency_ir.py``). Prints
medians, the runtime precision of the convolutions / matmuls of both compiled
models, and the largest difference to onnxruntime.

    python benchmarks/bench_qdq_int8.py [--runs 50] [--threads 1,2] [--size 64] [--models cnn,bert,regnet]
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
from pathlib import Path

import numpy as np
import onnx
from bench_latency_ir import alternating_latency
from onnx import TensorProto, helper
from onnx import numpy_helper as nh


def float_cnn(size: int) -> onnx.ModelProto:
    rng = np.random.default_rng(0)
    chans = [3, 32, 64, 64]
    inits, nodes, x = [], [], "x"
    for i in range(3):
        w = rng.standard_normal((chans[i + 1], chans[i], 3, 3)) * (1.5 / np.sqrt(9 * chans[i]))
        inits += [nh.from_array(w.astype(np.float32), f"w{i}"),
                  nh.from_array((rng.standard_normal(chans[i + 1]) * 0.1).astype(np.float32), f"b{i}")]
        nodes += [helper.make_node("Conv", [x, f"w{i}", f"b{i}"], [f"c{i}"], pads=[1, 1, 1, 1],
                                   strides=[1 if i == 0 else 2] * 2),
                  helper.make_node("Relu", [f"c{i}"], [f"r{i}"])]
        x = f"r{i}"
    flat = chans[-1] * (size // 4) ** 2
    inits += [nh.from_array((rng.standard_normal((flat, 100)) / np.sqrt(flat)).astype(np.float32), "wm"),
              nh.from_array(np.array([1, -1], np.int64), "shp")]
    nodes += [helper.make_node("Reshape", [x, "shp"], ["f"]), helper.make_node("MatMul", ["f", "wm"], ["y"])]
    g = helper.make_graph(nodes, "cnn", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 3, size, size])],
                          [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 100])], inits)
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)])
    m.ir_version = 8
    return m


def precisions(compiled) -> str:  # noqa: ANN001
    out = []
    for op in compiled.get_runtime_model().get_ops():
        rt = op.get_rt_info()
        if rt["layerType"].astype(str) in ("Convolution", "FullyConnected", "MatMul"):
            out.append(rt["runtimePrecision"].astype(str))
    return ",".join(sorted(set(out)))


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=50)
    ap.add_argument("--threads", default="1,2")
    ap.add_argument("--size", type=int, default=64)
    ap.add_argument("--models", default="cnn,bert,regnet")
    args = ap.parse_args()
    import onnxruntime as ort
    import openvino as ov
    from onnxruntime import quantization as q

    import xmo

    core = ov.Core()
    rng = np.random.default_rng(1)
    shape = (1, 3, args.size, args.size)

    class Calibration(q.CalibrationDataReader):
        def __init__(self) -> None:
            self.data = iter([{"x": rng.standard_normal(shape).astype(np.float32)} for _ in range(8)])

        def get_next(self) -> dict | None:
            return next(self.data, None)

    print("| model, quantization | threads | xmo IR ms | ov IR ms | ratio | xmo precision | ov precision | "
          "max abs diff to onnxruntime (xmo / ov) |")
    print("| --- | ---: | ---: | ---: | ---: | --- | --- | --- |")
    models = args.models.split(",")
    real = Path(__file__).resolve().parents[1] / "tests" / "data" / "real"
    with tempfile.TemporaryDirectory() as d:
        out = Path(d)
        onnx.save(float_cnn(args.size), out / "f.onnx")
        cases = []  # (label, quantized model, feeds)
        feeds = {"x": rng.standard_normal(shape).astype(np.float32)}
        for per_channel in (False, True) if "cnn" in models else ():
            src = out / f"q{int(per_channel)}.onnx"
            q.quantize_static(str(out / "f.onnx"), str(src), Calibration(), quant_format=q.QuantFormat.QDQ,
                              per_channel=per_channel, activation_type=q.QuantType.QUInt8,
                              weight_type=q.QuantType.QInt8)
            cases.append(("CNN, per channel" if per_channel else "CNN, per tensor", src, feeds))
        real_models = {"bert": ("bert_ts", ["MatMul", "Gemm"]), "regnet": ("regnet_y", None)}
        for key, (name, op_types) in real_models.items():
            if key not in models:
                continue
            real_feeds = dict(np.load(real / f"{name}.inputs.npz"))

            class RealCalibration(q.CalibrationDataReader):
                def __init__(self, feeds: dict) -> None:
                    self.data = iter([feeds])

                def get_next(self) -> dict | None:
                    return next(self.data, None)

            src = out / f"{name}.onnx"
            q.quantize_static(str(real / f"{name}.onnx"), str(src), RealCalibration(real_feeds),
                              quant_format=q.QuantFormat.QDQ, per_channel=True,
                              activation_type=q.QuantType.QUInt8, weight_type=q.QuantType.QInt8,
                              op_types_to_quantize=op_types)
            cases.append((f"{name}, per channel", src, real_feeds))
        for kind, src, feeds in cases:
            want = ort.InferenceSession(str(src)).run(None, feeds)[0]
            xmo.save_model(xmo.convert_model(str(src)), out / "x.xml")
            ov.save_model(ov.convert_model(str(src)), out / "o.xml", compress_to_fp16=False)
            for nt in (int(t) for t in args.threads.split(",")):
                cfg = {"NUM_STREAMS": "1", "INFERENCE_NUM_THREADS": str(nt), "PERFORMANCE_HINT": "LATENCY"}
                tx, to, yx, yo = alternating_latency(core, out / "x.xml", out / "o.xml", feeds, args.runs, cfg)
                px = precisions(core.compile_model(core.read_model(out / "x.xml"), "CPU", cfg))
                po = precisions(core.compile_model(core.read_model(out / "o.xml"), "CPU", cfg))
                mx, mo = statistics.median(tx) * 1e3, statistics.median(to) * 1e3
                dx, do = float(np.abs(yx[0] - want).max()), float(np.abs(yo[0] - want).max())
                print(f"| {kind} | {nt} | {mx:.3f} | {mo:.3f} | {mx / mo:.2f} | {px} | {po} | {dx:.2e} / {do:.2e} |",
                      flush=True)

if __name__ == "__main__":
    main()
