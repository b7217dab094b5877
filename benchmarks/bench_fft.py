#!/usr/bin/env python3
"""2-D FFT: xmo's numba kernel vs numpy.fft vs OpenVINO's DFT/IDFT, in one process.

    python benchmarks/bench_fft.py [--sizes 64,100,128,256,300,512,1024] [--runs 9]
                                   [--batch 8]

For every N, a [batch, N, N, 2] float32 tensor (random normal) is transformed
over axes (1, 2), forward and inverse (the inverse scaled by 1/(N*N)).

Sizes: 64, 128, 256, 512, 1024 are powers of two (radix-4/2 stages);
100 = 2^2 * 5^2 and 300 = 2^2 * 3 * 5^2 are non-powers of two handled by the
mixed-radix (4, 3, 5) Stockham path, not Bluestein.

What is timed (each call returns a fresh result array):

* xmo: ``fft2d(x, inverse)`` on the native ``[..., N, N, 2]`` float32 layout;
* numpy: ``numpy.fft.fft2`` / ``ifft2`` directly on the equivalent complex64
  ``[batch, N, N]`` array -- the conversion from / to the ``[..., 2]`` real
  layout is NOT included in numpy's time (numpy is single-threaded);
* OpenVINO: an opset7 DFT / IDFT on ``[batch, N, N, 2]`` f32 with axes [1, 2],
  compiled on CPU with ``INFERENCE_PRECISION_HINT=f32``; one infer request,
  created once and reused (input set, ``infer()``; the output stays in
  OpenVINO's tensor, no copy).

Note on numpy: in numpy 2.x, ``fft2`` on complex64 is several times slower
than ``ifft2`` on the same array (measured 23 ms vs 5 ms at [8, 256, 256]);
with ``norm="forward"`` the two swap speeds, so the slow path follows the
integer normalization factor 1 (apparently a cast to the double-precision
loop), not the direction.  The inverse rows are therefore the fair
comparison against numpy's single-precision speed.

The three competitors run alternately inside every round (xmo, numpy,
OpenVINO, xmo, ...) after a warm-up call each; the table shows the median
over ``--runs`` rounds.  The error column is max|xmo - numpy| / max|numpy|
with numpy computed in complex128.
"""

from __future__ import annotations

import argparse
import os
import platform
import time

import numpy as np
from xmo.backends.cpu.fft import fft2d

try:
    import openvino as ov
    import openvino.opset7 as ops7
except ImportError:  # pragma: no cover
    ov = None


def _ov_request(shape: tuple[int, ...], inverse: bool):
    if ov is None:
        return None
    p = ops7.parameter(list(shape), np.float32, name="x")
    axes = ops7.constant(np.array([1, 2], np.int64))
    node = ops7.idft(p, axes) if inverse else ops7.dft(p, axes)
    model = ov.Model([node], [p], "fft")
    compiled = ov.Core().compile_model(model, "CPU", {"INFERENCE_PRECISION_HINT": "f32"})
    return compiled.create_infer_request()


def _time(fn) -> float:
    t0 = time.perf_counter()
    fn()
    return time.perf_counter() - t0


def bench(n: int, batch: int, inverse: bool, runs: int) -> dict:
    rng = np.random.default_rng(n)
    x = rng.standard_normal((batch, n, n, 2)).astype(np.float32)
    z = np.ascontiguousarray(x.view(np.complex64)[..., 0])  # same values, complex64
    np_fn = np.fft.ifft2 if inverse else np.fft.fft2
    req = _ov_request(x.shape, inverse)

    def run_xmo():
        return fft2d(x, inverse)

    def run_np():
        return np_fn(z)

    def run_ov():
        req.infer({0: x})

    # warm-up (numba compile / load from cache, plans, OpenVINO first infer)
    y = run_xmo()
    run_np()
    if req is not None:
        run_ov()
    ref = np_fn(z.astype(np.complex128))
    got = y[..., 0].astype(np.float64) + 1j * y[..., 1]
    err = float(np.max(np.abs(got - ref)) / np.max(np.abs(ref)))

    tx, tn, to = [], [], []
    for _ in range(runs):
        tx.append(_time(run_xmo))
        tn.append(_time(run_np))
        if req is not None:
            to.append(_time(run_ov))
    med = lambda v: float(np.median(v)) * 1e3 if v else float("nan")
    return {"n": n, "dir": "inverse" if inverse else "forward", "xmo": med(tx),
            "numpy": med(tn), "ov": med(to), "err": err}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--sizes", default="64,100,128,256,300,512,1024")
    ap.add_argument("--runs", type=int, default=9)
    ap.add_argument("--batch", type=int, default=8)
    args = ap.parse_args()
    if args.runs < 1:
        ap.error("--runs must be >= 1")
    sizes = [int(s) for s in args.sizes.split(",") if s]
    try:
        cores = len(os.sched_getaffinity(0))
    except AttributeError:  # pragma: no cover
        cores = os.cpu_count()
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    print(f"# {platform.processor() or platform.machine()}, {cores} cores, "
          f"load average {load:.1f}; numpy {np.__version__}"
          + (f", OpenVINO {ov.__version__}" if ov is not None else ", OpenVINO not installed"))
    print(f"# [{args.batch}, N, N, 2] float32, median of {args.runs} alternating runs (ms)\n")
    print("| N | direction | xmo ms | numpy ms | OpenVINO ms | xmo/numpy | xmo/OpenVINO "
          "| max rel err vs numpy |")
    print("|---:|---|---:|---:|---:|---:|---:|---:|")
    for n in sizes:
        for inverse in (False, True):
            r = bench(n, args.batch, inverse, args.runs)
            print(f"| {r['n']} | {r['dir']} | {r['xmo']:.2f} | {r['numpy']:.2f} | {r['ov']:.2f} "
                  f"| {r['xmo'] / r['numpy']:.2f} | {r['xmo'] / r['ov']:.2f} | {r['err']:.1e} |",
                  flush=True)


if __name__ == "__main__":
    main()
