"""CPU backend: MatMul with a constant f32 matrix on that matrix packed once
(kernels/matmul.py ``_packed_weights``, kernels/packed.py): 2-D, batched-1
and transposed weights, static and dynamic rows, each fused epilogue kind,
on 1 and 2 threads, against f64 references; the memory rule of ``pack``."""

from __future__ import annotations

import gc
import math

import numpy as np
import pytest
from xdsl.dialects.builtin import ModuleOp

from xmo import compile_model
from xmo.backends.cpu import threads
from xmo.backends.cpu.kernels import packed
from xmo.dialects.ov import ConstantOp, ParameterOp, ResultOp, op_class
from xmo.dialects.ov.base import tensor

pytestmark = pytest.mark.skipif(packed.panel_kernels() is None, reason="numba missing")

RNG = np.random.default_rng(31)
K, N = 130, 150


@pytest.fixture
def calls(monkeypatch):
    """The packed products run: ("matmul" | "epi", rows)."""
    seen: list[tuple[str, int]] = []
    real_mm, real_epi = packed.PackedMatrix.matmul, packed.PackedMatrix.matmul_epi

    def mm(self, a, out=None):
        seen.append(("matmul", a.shape[0]))
        return real_mm(self, a, out)

    def epi(self, a, e):
        seen.append(("epi", a.shape[0]))
        return real_epi(self, a, e)

    monkeypatch.setattr(packed.PackedMatrix, "matmul", mm)
    monkeypatch.setattr(packed.PackedMatrix, "matmul_epi", epi)
    return seen


def _erf(x: np.ndarray) -> np.ndarray:
    return np.vectorize(math.erf)(x)


ACTS = {  # name: (attrs, f64 reference)
    "Relu": ({}, lambda x: np.maximum(x, 0)),
    "Gelu": ({"approximation_mode": "ERF"}, lambda x: 0.5 * x * (1 + _erf(x / math.sqrt(2)))),
    "Sigmoid": ({}, lambda x: 1 / (1 + np.exp(-x))),
    "Swish": ({}, lambda x: x / (1 + np.exp(-x))),
    "HSwish": ({}, lambda x: x * np.clip(x + 3, 0, 6) / 6),
    "Clamp": ({"min": -0.5, "max": 0.75}, lambda x: np.clip(x, -0.5, 0.75)),
}


def _model(x_dims: list[int], w: np.ndarray, transpose_b: bool = False,
           bias: np.ndarray | None = None, act: str | None = None) -> ModuleOp:
    """act(x @ w (+ bias)); ``x_dims`` may hold -1."""
    x = ParameterOp.new("f32", x_dims, name="x")
    wc = ConstantOp.from_array(w)
    n = w.shape[-2] if transpose_b else w.shape[-1]
    t = tensor("f32", [*x_dims[:-1], n])
    y = op_class("MatMul").make([x, wc], {"transpose_a": False, "transpose_b": transpose_b},
                                result_types=[t], name="mm")
    ops = [x, wc, y]
    if bias is not None:
        bc = ConstantOp.from_array(bias)
        y = op_class("Add").make([y, bc], {}, result_types=[t], name="bias")
        ops += [bc, y]
    if act is not None:
        y = op_class(act).make([y], ACTS[act][0], result_types=[t], name="act")
        ops.append(y)
    return ModuleOp([*ops, ResultOp.new(y.results[0])])


def _check(module: ModuleOp, x: np.ndarray, w2: np.ndarray, bias: np.ndarray | None = None,
           act: str | None = None) -> None:
    """Three runs (step by step, then the generated function: equal bit for
    bit) against the f64 reference: the product within an f32 sum's bound."""
    model = compile_model(module, threads=threads.threads())
    runs = [model([x])[0].copy() for _ in range(3)]
    for r in runs[1:]:
        np.testing.assert_array_equal(r, runs[0])
    x64, w64 = x.astype(np.float64), w2.astype(np.float64)
    ref = x64 @ w64
    bound = 4 * w2.shape[0] * np.finfo(np.float32).eps * (np.abs(x64) @ np.abs(w64))
    if bias is not None:
        ref = ref + bias
    if act is not None:
        ref = ACTS[act][1](ref)
    assert runs[0].shape == ref.shape and runs[0].dtype == np.float32
    # every activation here has a slope of at most ~1.13 (Gelu)
    assert np.all(np.abs(runs[0] - ref) <= 1.2 * bound + 2e-6 * np.abs(ref) + 1e-6)


@pytest.mark.parametrize("form", ["2d", "batched1", "transposed"])
def test_constant_weight_forms(nthreads, calls, form):
    x = RNG.standard_normal((2, 37, K)).astype(np.float32)
    w2 = (RNG.standard_normal((K, N)) * 0.2).astype(np.float32)
    w = {"2d": w2, "batched1": w2[None], "transposed": np.ascontiguousarray(w2.T)}[form]
    _check(_model([2, 37, K], w, transpose_b=form == "transposed"), x, w2)
    assert calls and all(c == ("matmul", 74) for c in calls)


def test_dynamic_rows(nthreads, calls):
    """[-1, -1, K] at plan time: packed, the rows taken at call time; a
    product too small to split (3 rows) on the same panels."""
    w2 = (RNG.standard_normal((K, N)) * 0.2).astype(np.float32)
    model = _model([-1, -1, K], w2)
    for shape in [(1, 77, K), (3, 41, K), (1, 3, K), (1, 77, K)]:
        x = RNG.standard_normal(shape).astype(np.float32)
        _check(model, x, w2)
    assert {rows for _, rows in calls} == {77, 123, 3}


@pytest.mark.parametrize("act", [None, *ACTS])
@pytest.mark.parametrize("dims", [[1, 83, K], [-1, K]], ids=["static", "dynamic"])
def test_fused_epilogue_kinds(nthreads, calls, act, dims):
    """MatMul + bias (+ activation): the epilogue in the packed product's row
    ranges (static or dynamic rows)."""
    x = RNG.standard_normal((1, 83, K) if len(dims) == 3 else (83, K)).astype(np.float32)
    w2 = (RNG.standard_normal((K, N)) * 0.2).astype(np.float32)
    bias = RNG.standard_normal(N).astype(np.float32)
    _check(_model(dims, w2, bias=bias, act=act), x, w2, bias, act)
    assert ("epi", 83) in calls


@pytest.mark.parametrize("act", ["Gelu", "Swish"])
def test_fused_epilogue_after_a_panel_split(nthreads, calls, monkeypatch, act):
    """A matrix over ``ROWS_EPI_MAX_BYTES`` (forced here) with fewer rows than
    columns: the product split in panels, then the epilogue as a row pass."""
    monkeypatch.setattr(packed, "ROWS_EPI_MAX_BYTES", 0)
    x = RNG.standard_normal((1, 83, K)).astype(np.float32)
    w2 = (RNG.standard_normal((K, N)) * 0.2).astype(np.float32)
    bias = RNG.standard_normal(N).astype(np.float32)
    _check(_model([1, 83, K], w2, bias=bias, act=act), x, w2, bias, act)
    assert ("epi", 83) in calls


def test_memory_rule_keeps_blas(monkeypatch, calls):
    """Over the packed-bytes cap the matrix is not packed: the BLAS product,
    same values within the bound; packed matrices are freed with their model."""
    gc.collect()
    before = packed.live_packed_bytes()
    w2 = (RNG.standard_normal((K, N)) * 0.2).astype(np.float32)
    x = RNG.standard_normal((1, 90, K)).astype(np.float32)
    monkeypatch.setattr(packed, "MAX_PACKED_BYTES", packed.packed_bytes(K, N) - 1)
    _check(_model([1, 90, K], w2), x, w2)
    assert calls == [] and packed.live_packed_bytes() == before
    monkeypatch.setattr(packed, "MAX_PACKED_BYTES", packed.packed_bytes(K, N))
    model = compile_model(_model([1, 90, K], w2))
    model([x])
    assert calls and packed.live_packed_bytes() == before + packed.packed_bytes(K, N)
    del model
    gc.collect()
    assert packed.live_packed_bytes() == before
