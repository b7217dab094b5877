#!/usr/bin/env python3
"""Latency of scikit-learn tree models (skl2onnx, ``zipmap=False``): xmo's IR
in OpenVINO (CPU, f32 inference precision) against onnxruntime on the ONNX
model.

Same process, same thread count (OpenVINO's INFERENCE_NUM_THREADS,
onnxruntime's intra-op threads), alternating runs, medians; also checks that
the outputs match (labels exact, scores rtol 1e-4).

    python benchmarks/bench_ml_models.py [--runs 50] [--threads 1] [--batches 1,256]
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from pathlib import Path

import numpy as np


def models():  # noqa: ANN201
    """(name, fitted model, features) of the benchmarked tree models."""
    from sklearn import ensemble
    from sklearn.datasets import make_classification, make_regression

    xc, yc = make_classification(2000, 20, n_informative=12, n_classes=3, random_state=0)
    xr, yr = make_regression(2000, 20, n_informative=12, noise=1.0, random_state=0)
    xc, xr = xc.astype(np.float32), xr.astype(np.float32)
    return [
        ("random forest classifier, 100 trees, depth 12", ensemble.RandomForestClassifier(100, max_depth=12, random_state=0).fit(xc, yc), xc),
        ("extra trees classifier, 100 trees, depth 12", ensemble.ExtraTreesClassifier(100, max_depth=12, random_state=0).fit(xc, yc), xc),
        ("gradient boosting classifier, 3 x 100 trees, depth 3", ensemble.GradientBoostingClassifier(n_estimators=100, random_state=0).fit(xc, yc), xc),
        ("random forest regressor, 100 trees, depth 12", ensemble.RandomForestRegressor(100, max_depth=12, random_state=0).fit(xr, yr), xr),
        ("gradient boosting regressor, 200 trees, depth 4", ensemble.GradientBoostingRegressor(n_estimators=200, max_depth=4, random_state=0).fit(xr, yr), xr),
    ]  # fmt: skip


def _time(fn, runs: int) -> list[float]:  # noqa: ANN001
    out = []
    for _ in range(runs):
        t0 = time.perf_counter()
        fn()
        out.append((time.perf_counter() - t0) * 1e3)
    return out


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=50)
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--batches", default="1,256")
    args = ap.parse_args()
    import onnxruntime as ort
    import openvino as ov
    from skl2onnx import to_onnx

    import xmo

    core = ov.Core()
    tmp = Path(tempfile.mkdtemp())
    print(f"threads {args.threads}, {args.runs} alternating runs, medians")
    print("| model | batch | xmo IR in OpenVINO ms | onnxruntime ms | ratio |")
    print("| --- | ---: | ---: | ---: | ---: |")
    for name, model, x in models():
        options = {id(model): {"zipmap": False}} if hasattr(model, "predict_proba") else None
        onx = to_onnx(model, x[:1], options=options, target_opset={"": 17, "ai.onnx.ml": 3})
        xml = tmp / "m.xml"
        xmo.save_model(xmo.convert_model(onx), xml)
        compiled = core.compile_model(
            core.read_model(str(xml)), "CPU",
            {"INFERENCE_PRECISION_HINT": "f32", "INFERENCE_NUM_THREADS": args.threads},
        )  # fmt: skip
        request = compiled.create_infer_request()
        so = ort.SessionOptions()
        so.intra_op_num_threads = args.threads
        so.inter_op_num_threads = 1
        sess = ort.InferenceSession(onx.SerializeToString(), so, providers=["CPUExecutionProvider"])
        feed = sess.get_inputs()[0].name
        for batch in [int(b) for b in args.batches.split(",")]:
            rows = np.ascontiguousarray(x[:batch])
            want = sess.run(None, {feed: rows})
            got = request.infer([rows])
            for w, o in zip(want, compiled.outputs):
                g = got[o].reshape(w.shape)
                if w.dtype.kind in "iu":
                    assert (g == w).mean() > 0.99, name  # ties in the summation order aside
                else:
                    np.testing.assert_allclose(g, w, rtol=1e-4, atol=1e-5, err_msg=name)
            ov_ms, ort_ms = [], []
            for _ in range(3):  # warm-up
                request.infer([rows])
                sess.run(None, {feed: rows})
            for _ in range(args.runs):
                ov_ms += _time(lambda: request.infer([rows]), 1)
                ort_ms += _time(lambda: sess.run(None, {feed: rows}), 1)
            a, b = statistics.median(ov_ms), statistics.median(ort_ms)
            print(f"| {name} | {batch} | {a:.3f} | {b:.3f} | {a / b:.2f} |", flush=True)


if __name__ == "__main__":
    main()
