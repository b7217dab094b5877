"""The CPU backend's native tasks (``kernels/par_jit.py`` on numba's TBB
layer, ``threads.native_tasks``): every split site computes the same values
bit for bit on the native launchers as on the helper pool, the launchers are
really taken, the denormal mode reaches TBB's threads, and the layer
survives a fork and concurrent callers."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest

import xmo
from xmo.backends.cpu import fpenv, threads
from xmo.backends.cpu.kernels import convolution as conv
from xmo.backends.cpu.kernels import depthwise, gemm_epi, matmul, rows
from xmo.backends.cpu.kernels import panel_conv as pc
from xmo.backends.cpu.kernels.packed import pack

threads.set_threads(2)
NATIVE = threads.native_tasks()
pytestmark = pytest.mark.skipif(NATIVE is None, reason="no native tasks here (TBB, x86-64 Linux)")
if NATIVE is not None:
    from xmo.backends.cpu.kernels import par_jit
RNG = np.random.default_rng(38)
REAL = Path(__file__).resolve().parent / "data" / "real"


@pytest.fixture(autouse=True)
def two_threads():
    threads.set_threads(2)
    yield
    threads.set_pool(None)
    threads.set_threads(None)


def _f32(*shape: int) -> np.ndarray:
    return RNG.uniform(-1, 1, shape).astype(np.float32)


def _relu(rows: int, period: int | None = None) -> tuple:
    """An epilogue: per-row scale and bias (period ``rows``), then Relu."""
    period = rows if period is None else period
    return (_f32(period) + 2, _f32(period), period,
            np.array([rows_act("RELU"), 0, 0, 0, 0], np.float64))


def rows_act(name: str) -> int:
    return getattr(rows, f"ACT_{name}")


def both(fn: Callable[[], object], launcher: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """``fn()`` on the pool and on the native launchers: the same arrays bit
    for bit, and the native run went through ``par_jit.<launcher>``."""
    threads.set_pool("python")
    want = fn()
    threads.set_pool("native")
    calls = []
    real = getattr(par_jit, launcher)

    def counted(*args):
        calls.append(1)
        return real(*args)

    monkeypatch.setattr(par_jit, launcher, counted)
    got = fn()
    assert calls, f"par_jit.{launcher} was not taken"
    for a, b in zip(want if isinstance(want, tuple) else (want,),
                    got if isinstance(got, tuple) else (got,)):
        np.testing.assert_array_equal(a, b)
        assert a.dtype == b.dtype and a.shape == b.shape


@pytest.mark.parametrize("epi", [False, True])
def test_depthwise(epi, monkeypatch):
    x, w = _f32(1, 32, 56, 56), depthwise.depthwise_weights(_f32(32, 1, 1, 3, 3))
    e = _relu(32) if epi else None
    both(lambda: depthwise.depthwise_conv(x, w, 1, (1, 1), (1, 1), (1, 1), (56, 56), e),
         "depthwise", monkeypatch)


@pytest.mark.parametrize("epi", [False, True])
def test_grouped(epi, monkeypatch):
    x, w = _f32(1, 64, 28, 28), _f32(8, 8, 8, 3, 3)
    e = _relu(64) if epi else None
    both(lambda: conv.small_group_conv(x, w, (1, 1), (1, 1), (1, 1), (28, 28), e),
         "grouped", monkeypatch)


@pytest.mark.parametrize("k,launcher", [(32, "gemm_strided_epi"), (96, "sgemm_rows_epi")])
def test_gemm_epi(k, launcher, monkeypatch):
    """Few input channels: the in-place micro-kernel; more: numpy's BLAS."""
    a, b = _f32(128, k), _f32(k, 2048)  # b under gemm_epi's bytes for row ranges
    e = _relu(128)
    both(lambda: gemm_epi.gemm_epi(a, b, e), launcher, monkeypatch)
    both(lambda: conv.pointwise_epi(a, b[None], e), launcher, monkeypatch)


def test_blas_operands_with_row_strides(monkeypatch):
    """Row views of wider arrays (leading dimensions past the columns)."""
    wide = _f32(128, 200)
    a, b = wide[:, :96], _f32(96, 3000)[:, :2048]
    e = _relu(128)
    both(lambda: gemm_epi.gemm_epi(a, b, e), "sgemm_rows_epi", monkeypatch)


@pytest.mark.parametrize("m,k,n", [(512, 128, 64), (16, 128, 2048)])
def test_gemm_rows_and_columns(m, k, n, monkeypatch):
    """Row ranges (``a`` the larger) and column ranges of ``b``."""
    a, b = _f32(m, k), _f32(k, n)

    def run():
        out = np.empty((m, n), np.float32)
        matmul.gemm(a, b, out)
        return out

    both(run, "sgemm_blocks", monkeypatch)


@pytest.mark.parametrize("m", [64, 512])
def test_packed_matrix(m, monkeypatch):
    packed = pack(_f32(256, 512))
    a = _f32(m, 256)
    both(lambda: packed.matmul(a), "gemm_panels", monkeypatch)
    relu = (np.empty(0, np.float32), np.empty(0, np.float32), 0,
            np.array([rows_act("RELU"), 0, 0, 0, 0], np.float64))
    both(lambda: packed.matmul_epi(a, relu), "gemm_panels_epi", monkeypatch)


@pytest.mark.parametrize("epi", [False, True])
@pytest.mark.parametrize("xs,ws", [
    ((1, 32, 30, 30), (64, 32, 3, 3)),   # pixel tasks
    ((1, 64, 9, 9), (37, 64, 3, 3)),     # few pixels: tasks split the filters
    ((2, 16, 20, 20), (24, 16, 3, 3)),   # two images
])
def test_panel_conv(xs, ws, epi, monkeypatch):
    x, w = _f32(*xs), _f32(*ws)
    wm = np.ascontiguousarray(w.reshape(ws[0], -1))
    dims = (xs[2], xs[3])
    e = _relu(ws[0]) if epi else None
    both(lambda: pc.panel_conv(x, wm, ws[2:], (1, 1), (1, 1), (1, 1), dims, e),
         "panel_conv", monkeypatch)
    tiles = pc.panel_kernels().pack_tiles(wm)
    both(lambda: pc.panel_conv(x, wm, ws[2:], (1, 1), (1, 1), (1, 1), dims, e, tiles=tiles),
         "panel_conv", monkeypatch)


@pytest.mark.parametrize("epi", [False, True])
def test_packed_filters_conv(epi, monkeypatch):
    x, w = _f32(1, 32, 20, 20), _f32(64, 32, 3, 3)
    filters = pack(pc.filters_rows(w))
    e = _relu(64) if epi else None
    both(lambda: pc.packed_filters_conv(x, filters, (3, 3), (1, 1), (1, 1), (1, 1), (20, 20), e),
         "filters_conv", monkeypatch)
    both(lambda: pc.packed_filters_conv(x, filters, (3, 3), (1, 1), (1, 1), (1, 1), (20, 20), e),
         "im2row", monkeypatch)


def test_row_kernels(monkeypatch):
    rk = rows.row_kernels()
    r, n = 512, 384
    x = _f32(r, n)
    eps, inside = np.float32(1e-5), True

    def run(kernel, args):
        def go():
            out = np.empty((r, n), np.float32)
            rows.run_rows(kernel, r, n, *args(out))
            return out
        return go

    a, b, period, prm = _relu(r)
    both(run(rk.bias_act, lambda o: (x.reshape(-1), o.reshape(-1), a, b, period, prm, n)),
         "bias_act", monkeypatch)
    both(run(rk.mvn, lambda o: (x, eps, inside, o)), "mvn", monkeypatch)
    both(run(rk.mvn_affine, lambda o: (x, eps, inside, _AFF[0], _AFF[1], o)), "mvn_affine",
         monkeypatch)
    flat = x.reshape(-1)

    def elementwise(kernel):
        def go():
            out = np.empty(flat.size, np.float32)
            rows.run_rows(kernel, flat.size, 1, flat, out)
            return out
        return go

    both(elementwise(rk.erf), "erf", monkeypatch)
    both(elementwise(rk.gelu_tanh), "gelu_tanh", monkeypatch)


def test_blas_stays_on_one_thread():
    """The launchers call numpy's own BLAS, on the one thread it is set to."""
    from threadpoolctl import threadpool_info

    a, b = _f32(12, 128, 64), _f32(12, 64, 128)
    np.testing.assert_array_equal(matmul.sized_matmul(a, b), np.matmul(a, b))
    assert {i["num_threads"] for i in threadpool_info() if i["user_api"] == "blas"} == {1}


def test_softmax_rows(monkeypatch):
    rk = rows.row_kernels()
    x = _f32(1200, 197) * 8

    def run():
        out = np.empty_like(x)
        rows.run_rows(rk.softmax_range, 1200, 197, x, out)
        return out

    both(run, "softmax", monkeypatch)


@pytest.mark.parametrize("bs", [12, 1])
def test_batched_matmul(bs, monkeypatch):
    """Ranges of a batch of products; ``b`` one matrix for all (bs 1)."""
    a, b = _f32(12, 128, 64), _f32(bs, 64, 128)
    both(lambda: matmul.sized_matmul(a, b), "sgemm_batch", monkeypatch)


@pytest.mark.parametrize("epi", [False, True])
def test_stem_conv(epi, monkeypatch):
    x, w = _f32(1, 3, 96, 96), _f32(16, 3, 3, 3)
    ws = conv.stem_weights(w.reshape(16, -1))
    e = _relu(16) if epi else None
    both(lambda: conv.stem_conv(x, ws, 16, (3, 3), (1, 1), (1, 1), (1, 1), (96, 96), e),
         "stem", monkeypatch)


@pytest.mark.parametrize("epi", [False, True])
def test_tiny_depthwise(epi, monkeypatch):
    monkeypatch.setattr(depthwise, "MACS_PER_TASK", 1)  # tasks on a tiny map
    x, w = _f32(2, 40, 4, 4), _f32(40, 1, 1, 5, 5)
    e = _relu(40) if epi else None
    run = depthwise.tiny_depthwise_plan(x, w, (1, 1), (1, 1), (2, 2), (4, 4), e)
    both(lambda: run(x), "depthwise_tiny", monkeypatch)


_AFF = (RNG.uniform(0.5, 2, 384).astype(np.float32), RNG.uniform(-1, 1, 384).astype(np.float32))


def test_denormals_are_flushed_on_tbb_threads():
    """Flush mode: every task (TBB's threads too) reads denormals as 0; keep
    mode: they survive the same kernel."""
    rk = rows.row_kernels()
    r, n = 64, 4096
    x = np.full((r, n), np.float32(1e-40))  # a denormal
    ident = (np.ones(r, np.float32), np.zeros(r, np.float32), r,
             np.array([rows_act("NONE"), 0, 0, 0, 0], np.float64))
    try:
        for flush in (True, False):
            fpenv.set_flush_denormals(flush)
            out = np.empty_like(x)
            NATIVE.bias_act(x.reshape(-1), out.reshape(-1), *ident, n,
                            np.array([0, r // 4, r // 2, 3 * r // 4, r], np.int64),
                            threads.TASK_MXCSR)
            if flush:
                assert not out.any()
            else:
                assert (out == x).all()
    finally:
        fpenv.set_flush_denormals(None)


def _real(name: str) -> tuple[object, dict]:
    feeds = dict(np.load(REAL / f"{name}.inputs.npz"))
    return xmo.compile_model(str(REAL / f"{name}.onnx"), threads=2), feeds


@pytest.mark.parametrize("name", ["convnext", "efficientnet_b0", "regnet_y", "vit"])
def test_real_models_equal_on_both(name):
    """A whole model's outputs, bit for bit, on both (its plans made anew)."""
    outs = []
    for kind in ("python", "native"):
        threads.set_pool(kind)
        model, feeds = _real(name)
        model(feeds)
        outs.append([np.asarray(v) for v in model(feeds)])
    for a, b in zip(*outs):
        np.testing.assert_array_equal(a, b)


def test_concurrent_callers():
    """Two Python threads running one model at once on the native tasks."""
    model, feeds = _real("efficientnet_b0")
    want = [np.asarray(v) for v in model(feeds)]
    got: list = []
    errors: list = []

    def run():
        try:
            for _ in range(3):
                got.append([np.asarray(v) for v in model(feeds)])
        except BaseException as e:  # noqa: BLE001 (reported below)
            errors.append(e)

    ts = [threading.Thread(target=run) for _ in range(2)]
    for t in ts:
        t.start()
    for t in ts:
        t.join()
    assert not errors and len(got) == 6
    for outs in got:
        for a, b in zip(want, outs):
            np.testing.assert_array_equal(a, b)


def test_fork_after_native_tasks():
    """A child forked (from the main thread, in a fresh process) after the
    parent ran native tasks runs them too, with the same outputs."""
    code = f"""
import os, numpy as np, xmo
from xmo.backends.cpu import threads
model = xmo.compile_model({str(REAL / "efficientnet_b0.onnx")!r}, threads=2)
feeds = dict(np.load({str(REAL / "efficientnet_b0.inputs.npz")!r}))
want = [np.asarray(v) for v in model(feeds)]
assert threads.native_tasks() is not None
pid = os.fork()
if pid == 0:
    outs = [np.asarray(v) for v in model(feeds)]
    os._exit(0 if all(np.array_equal(a, b) for a, b in zip(want, outs)) else 2)
_, status = os.waitpid(pid, 0)
print("child", os.waitstatus_to_exitcode(status))
"""
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=False,
                       timeout=600)
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip().splitlines()[-1] == "child 0"


def test_pool_switch_from_the_environment():
    code = ("import json\nfrom xmo.backends.cpu import threads\nthreads.set_threads(2)\n"
            "print(json.dumps(threads.native_tasks() is not None))\n")
    for value, want in (("python", False), ("native", True), ("", True)):
        env = dict(os.environ, XMO_CPU_POOL=value)
        r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                           env=env, check=False)
        assert r.returncode == 0, r.stderr
        assert json.loads(r.stdout.strip().splitlines()[-1]) is want
    env = dict(os.environ, XMO_CPU_POOL="spin")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env,
                       check=False)
    assert r.returncode != 0 and "XMO_CPU_POOL='spin': expected native or python" in r.stderr


def test_set_pool_refuses_other_kinds():
    with pytest.raises(ValueError, match="pool must be"):
        threads.set_pool("omp")


def test_one_thread_takes_no_native_tasks():
    threads.set_threads(1)
    assert threads.native_tasks() is None
