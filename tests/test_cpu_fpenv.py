"""The CPU backend's process settings: denormals flushed during runs
(``xmo.backends.cpu.fpenv``, FTZ/DAZ) and the glibc malloc policy
(``xmo.backends.cpu.memory``)."""

from __future__ import annotations

import platform
import subprocess
import sys
import textwrap
import threading

import numpy as np
import onnx
import pytest
from onnx import helper

import xmo
from xmo.backends.cpu import fpenv, memory, threads
from xmo.backends.cpu.kernels.activations import _FLOAT_ONLY
from xmo.backends.cpu.registry import kernel_for, register_kernel

X86 = platform.machine().lower() in ("x86_64", "amd64")
needs_mxcsr = pytest.mark.skipif(not X86 or fpenv.mxcsr_swap() is None,
                                 reason="MXCSR: x86-64 with numba only")
TINY = np.finfo(np.float32).tiny
DENORMAL = np.float32(1e-40)


@pytest.fixture(scope="module")
def model_path(tmp_path_factory: pytest.TempPathFactory) -> str:
    """``a = x + x`` (a denormal operand: DAZ), ``b = y * y`` (a denormal
    result: FTZ), ``r = Relu(y)``."""
    f = onnx.TensorProto.FLOAT
    graph = helper.make_graph(
        [helper.make_node("Add", ["x", "x"], ["a"]),
         helper.make_node("Mul", ["y", "y"], ["b"]),
         helper.make_node("Relu", ["y"], ["r"])],
        "denormals",
        [helper.make_tensor_value_info("x", f, [4]), helper.make_tensor_value_info("y", f, [4])],
        [helper.make_tensor_value_info(n, f, [4]) for n in ("a", "b", "r")],
    )
    path = tmp_path_factory.mktemp("fpenv") / "denormals.onnx"
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)]), str(path))
    return str(path)


@pytest.fixture(scope="module")
def module(model_path: str):
    return xmo.convert_model(model_path)


FEED = {"x": np.full(4, DENORMAL), "y": np.full(4, 1e-20, np.float32)}


@pytest.fixture(autouse=True)
def default_mode():
    yield
    fpenv.set_flush_denormals(None)  # process-wide: the default for other tests


def _mxcsr() -> int:
    return int(fpenv.mxcsr_swap()(0, 0))  # mask 0: read only


@needs_mxcsr
def test_denormals_flushed_when_on(module):
    out = xmo.compile_model(module, flush_denormals=True)(FEED)
    assert fpenv.flush_denormals() is True
    assert (out["a"] == 0).all() and (out["b"] == 0).all()


def test_denormals_preserved_when_off(module):
    out = xmo.compile_model(module, flush_denormals=False)(FEED)
    assert fpenv.flush_denormals() is False
    np.testing.assert_array_equal(out["a"], np.full(4, 2 * DENORMAL))
    assert (out["b"] > 0).all() and (out["b"] < TINY).all()


def test_env_sets_the_default(monkeypatch):
    monkeypatch.setenv(fpenv.ENV, "keep")
    assert fpenv.set_flush_denormals(None) is False
    monkeypatch.setenv(fpenv.ENV, "flush")
    assert fpenv.set_flush_denormals(None) is True
    monkeypatch.setenv(fpenv.ENV, "sometimes")
    with pytest.raises(ValueError, match="flush or keep"):
        fpenv.set_flush_denormals(None)
    with pytest.raises(ValueError, match="True, False or None"):
        fpenv.set_flush_denormals(1)  # type: ignore[arg-type]


@needs_mxcsr
def test_mxcsr_set_during_a_run_and_restored_after(module):
    compiled = xmo.compile_model(module, flush_denormals=True)
    before = _mxcsr()
    assert before & fpenv.FTZ_DAZ == 0
    seen = []
    compiled(FEED, observer=lambda op, outs: seen.append(_mxcsr()))
    assert seen and all(s & fpenv.FTZ_DAZ == fpenv.FTZ_DAZ for s in seen)
    assert _mxcsr() & fpenv.FTZ_DAZ == 0
    compiled(FEED)
    compiled(FEED)  # the generated function
    assert _mxcsr() & fpenv.FTZ_DAZ == 0


@needs_mxcsr
def test_mxcsr_restored_after_a_kernel_raises(module):
    saved = kernel_for("ov.Relu")

    @register_kernel("ov.Relu", override=True)
    def boom(node, x):
        raise RuntimeError("boom")

    try:
        compiled = xmo.compile_model(module, flush_denormals=True)
    finally:
        register_kernel("ov.Relu", override=True)(saved)
    for _ in range(3):  # step by step, then the generated function
        with pytest.raises(Exception, match="boom"):
            compiled(FEED)
        assert _mxcsr() & fpenv.FTZ_DAZ == 0


@needs_mxcsr
def test_the_compiled_swap_is_cached_once_across_processes(tmp_path):
    """Each process loads the one cached MXCSR swap instead of compiling and
    caching another copy (a nested ``swap`` added a cache entry per process)."""
    import os

    code = "from xmo.backends.cpu import fpenv; assert fpenv.mxcsr_swap() is not None"
    env = dict(os.environ, NUMBA_CACHE_DIR=str(tmp_path))
    counts = []
    for _ in range(3):
        subprocess.run([sys.executable, "-c", code], check=True, env=env, timeout=300)
        counts.append(len([p for p in tmp_path.rglob("*.nbc") if "swap" in p.name]))
    assert counts == [1, 1, 1], counts


@needs_mxcsr
def test_pool_workers_follow_the_mode():
    def worker_bits() -> int:
        seen: list[int] = []
        done = threading.Event()

        def job() -> None:
            seen.append(_mxcsr())
            done.set()

        threads.pool().wake(job, 1)
        assert done.wait(10)
        return seen[0] & fpenv.FTZ_DAZ

    threads.set_threads(2)
    try:
        fpenv.set_flush_denormals(True)
        assert worker_bits() == fpenv.FTZ_DAZ
        fpenv.set_flush_denormals(False)
        assert worker_bits() == 0
    finally:
        threads.set_threads(None)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_sigmoid_and_softplus_give_no_denormals(dtype):
    """Without FTZ too: 0 where the exact result is below the smallest normal."""
    tiny = np.finfo(dtype).tiny
    x = -np.linspace(-40, 800, 84001).astype(dtype)
    with np.errstate(all="ignore"):
        for name in ("Sigmoid", "SoftPlus", "Mish"):
            r = _FLOAT_ONLY[name](x)
            assert not ((r != 0) & (np.abs(r) < tiny)).any(), name
        r = _FLOAT_ONLY["Sigmoid"](x)
        exact = 1 / (1 + np.exp(-x.astype(np.longdouble)))
    normal = exact >= tiny
    np.testing.assert_allclose(r[normal], exact[normal].astype(dtype), rtol=4 * np.finfo(dtype).eps)
    assert (r[~normal] == 0).all()


# -- malloc policy -------------------------------------------------------------
@pytest.fixture
def counted_mallopt(monkeypatch):
    calls: list[tuple[int, int]] = []
    monkeypatch.setattr(memory, "_applied", None)
    monkeypatch.setattr(memory, "_glibc_mallopt", lambda: lambda p, v: calls.append((p, v)) or 1)
    for name in (memory.ENV, "GLIBC_TUNABLES", *memory.USER_TUNING):
        monkeypatch.delenv(name, raising=False)
    return calls


def test_malloc_policy_applied_once(counted_mallopt, module):
    xmo.compile_model(module)
    xmo.compile_model(module)
    assert memory.applied_policy() == "arena"
    assert counted_mallopt == [(-3, memory.MMAP_THRESHOLD), (-1, memory.TRIM_THRESHOLD)]


@pytest.mark.parametrize("env", [(memory.ENV, "default"), ("MALLOC_TRIM_THRESHOLD_", "4096"),
                                 ("GLIBC_TUNABLES", "glibc.malloc.trim_threshold=4096")])
def test_malloc_left_alone(counted_mallopt, monkeypatch, module, env):
    monkeypatch.setenv(*env)
    xmo.compile_model(module)
    assert memory.applied_policy() == "default" and counted_mallopt == []


def test_bad_malloc_policy_is_refused(counted_mallopt, monkeypatch):
    monkeypatch.setenv(memory.ENV, "huge")
    with pytest.raises(ValueError, match="arena, default"):
        memory.apply_malloc_policy()


def test_malloc_policy_not_applied_by_import_or_conversion(model_path):
    code = textwrap.dedent(f"""
        import sys, xmo
        xmo.convert_model({model_path!r})
        assert "xmo.backends.cpu.memory" not in sys.modules
        xmo.compile_model({model_path!r})
        from xmo.backends.cpu import memory
        print(memory.applied_policy())
    """)
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300,
                       check=False)
    assert r.returncode == 0, r.stderr
    glibc = sys.platform.startswith("linux") and platform.libc_ver()[0] == "glibc"
    assert r.stdout.split()[-1] == ("arena" if glibc else "default")
