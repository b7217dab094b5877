"""The small steps of squeeze-excitation blocks on the CPU backend (issue #18):
ReduceMean over the last axes as one numba row pass (``rows_jit.row_mean``),
the gate product ``x * s[N, C, 1, 1]`` as one row-scale pass
(``rows_jit.row_scale``, in place), a pointwise convolution on a 1x1 map as
one ``np.dot``. Each against the unfused schedule (observer run) and numpy, in
f32 and f64, batch 2, and the near misses that keep numpy's forms."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from xdsl.dialects.builtin import ModuleOp

from xmo.backends.cpu import CompiledModel
from xmo.backends.cpu.fusion import ElemChainKernel, EpilogueKernel
from xmo.backends.cpu.kernels.reductions import last_axes_mean
from xmo.backends.cpu.kernels.rows import row_kernels
from xmo.dialects.ov import ConstantOp, ParameterOp, ResultOp, op_class
from xmo.dialects.ov.base import tensor

pytestmark = pytest.mark.skipif(row_kernels() is None, reason="numba missing")

RNG = np.random.default_rng(30)
ETYPE = {np.float32: "f32", np.float64: "f64"}


def _f(shape: tuple[int, ...], dtype: Any) -> np.ndarray:
    return RNG.standard_normal(shape).astype(dtype)


def _op(kind: str, inputs: list[Any], dims: list[int], name: str, etype: str, **attrs: Any) -> Any:
    return op_class(kind).make(inputs, attrs, result_types=[tensor(etype, dims)], name=name)


def _runs(model: CompiledModel, feeds: list[np.ndarray]) -> tuple[np.ndarray, np.ndarray]:
    """(unfused step-by-step result, generated function's result, run twice: the
    in-place steps see fresh buffers)."""
    ref = np.array(model(feeds, observer=lambda op, outs: None)[0])
    got = [np.array(model([np.array(f) for f in feeds])[0]) for _ in range(2)]
    np.testing.assert_array_equal(got[0], got[1])
    return ref, got[1]


def _mean_model(shape: list[int], axes: list[int], keep: bool, etype: str) -> CompiledModel:
    x = ParameterOp.new(etype, shape, name="x")
    m = _op("Relu", [x], shape, "m", etype)
    ax = ConstantOp.from_array(np.array(axes, np.int64))
    red = [1 if i in axes else d for i, d in enumerate(shape)] if keep else \
        [d for i, d in enumerate(shape) if i not in axes]
    r = _op("ReduceMean", [m, ax], red, "pool", etype, keep_dims=keep)
    return CompiledModel(ModuleOp([x, m, ax, r, ResultOp.new(r.results[0])]), threads=2)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("shape,axes,keep", [
    pytest.param([2, 8, 5, 5], [2, 3], True, id="nchw-keep"),
    pytest.param([2, 8, 5, 5], [2, 3], False, id="nchw"),
    pytest.param([3, 7, 33], [2], True, id="rank3"),
    pytest.param([2, 8, 5, 5], [1, 2, 3], True, id="chw"),
    pytest.param([1, 32, 64, 64], [2, 3], True, id="large"),
    pytest.param([2, 8, 5, 5], [1, 2], True, id="not-last-axes"),  # near miss: numpy
])
def test_reduce_mean_last_axes(dtype: Any, shape: list[int], axes: list[int], keep: bool) -> None:
    model = _mean_model(shape, axes, keep, ETYPE[dtype])
    x = _f(tuple(shape), dtype)
    ref, got = _runs(model, [x])
    np.testing.assert_array_equal(got, ref)  # kernel and plan: the same sums
    want = np.maximum(x, 0).astype(np.float64).mean(axis=tuple(axes), keepdims=keep)
    assert got.dtype == dtype and got.shape == want.shape
    np.testing.assert_allclose(got, want, rtol=1e-6 if dtype == np.float32 else 1e-13, atol=1e-7)


def test_reduce_mean_plan_forms() -> None:
    f32 = np.dtype(np.float32)
    assert last_axes_mean((2, 8, 5, 5), (1, 2), True, f32) is None  # not the last axes
    assert last_axes_mean((2, 8), (0, 1), True, f32) is None  # every axis: numpy
    mean = last_axes_mean((2, 8, 5, 5), (2, 3), True, f32)
    x = _f((2, 5, 5, 8), np.float32).transpose(0, 3, 1, 2)  # not contiguous: numpy's sum
    want = np.add.reduce(x, axis=(2, 3), keepdims=True) / np.float32(25)
    np.testing.assert_array_equal(mean(x, None), want)


def _gate_model(shape: list[int], s_dims: list[int], etype: str, s_first: bool,
                keep_map: bool = False) -> CompiledModel:
    """m = Convolution(x, 1x1 identity) (a new array); s = Sigmoid(p); y = s * m (or m * s)."""
    x = ParameterOp.new(etype, shape, name="x")
    p = ParameterOp.new(etype, s_dims, name="p")
    c = shape[1]
    w = ConstantOp.from_array(np.eye(c, dtype=np.float32 if etype == "f32" else np.float64
                                     ).reshape((c, c) + (1,) * (len(shape) - 2)))
    nsp = len(shape) - 2
    m = _op("Convolution", [x, w], shape, "m", etype, strides=[1] * nsp, dilations=[1] * nsp,
            pads_begin=[0] * nsp, pads_end=[0] * nsp)
    s = _op("Sigmoid", [p], s_dims, "s", etype)
    y = _op("Multiply", [s, m] if s_first else [m, s], shape, "gate", etype)
    ops = [x, p, w, m, s, y, ResultOp.new(y.results[0])]
    if keep_map:
        ops.append(ResultOp.new(m.results[0]))
    return CompiledModel(ModuleOp(ops), threads=2)


def _gate_step(model: CompiledModel) -> Any:
    (k,) = [st for st in model._steps if st.node.type == "Multiply"]
    return k


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("shape,s_dims,s_first,form", [
    pytest.param([2, 8, 5, 5], [2, 8, 1, 1], True, "plan", id="batch2"),
    pytest.param([2, 8, 5, 5], [1, 8, 1, 1], False, "plan", id="shared-scale"),
    pytest.param([1, 6, 9], [1, 6, 1], True, "plan", id="rank3"),
    # a large map: the single-op chain step (fusion.ElemChainKernel)
    pytest.param([1, 32, 64, 64], [1, 32, 1, 1], True, "chain", id="chain-large"),
    pytest.param([2, 8, 32, 32], [1, 8, 1, 1], False, "chain", id="chain-shared"),
    pytest.param([2, 8, 5, 5], [1, 1, 1, 1], True, None, id="one-scale"),  # near miss
    pytest.param([2, 8, 5, 5], [2, 8, 5, 1], True, None, id="per-row-of-map"),  # near miss
    # any per-row source of the chain step: a value per row of the map's last axis
    pytest.param([2, 8, 32, 32], [2, 8, 32, 1], True, "chain", id="chain-per-row-of-map"),
    pytest.param([2, 8, 32, 32], [1, 1, 32, 32], True, None, id="chain-per-column"),  # near miss
])
def test_gate_multiply(dtype: Any, shape: list[int], s_dims: list[int], s_first: bool,
                       form: str | None) -> None:
    model = _gate_model(shape, s_dims, ETYPE[dtype], s_first)
    x, p = _f(tuple(shape), dtype), _f(tuple(s_dims), dtype)
    ref, got = _runs(model, [x, p])
    np.testing.assert_array_equal(got, ref)  # one rounding per element, as numpy
    assert got.dtype == dtype
    src = model.runner.source
    (i,) = [j for j, st in enumerate(model._steps) if st.node.type == "Multiply"]
    kernel = model._steps[i].kernel
    if isinstance(kernel, ElemChainKernel):
        assert (kernel.scale is not None) is (form == "chain")
        assert "ok = so(x)" in src, src  # into the dead map
    else:
        assert ", out=x) if ok else" in src, src  # in place into the dead map
        fn = model.runner._fn.__globals__[f"k{i}"]
        assert getattr(fn, "in_place_ok", False) is (form == "plan")
    assert form != "chain" or isinstance(kernel, ElemChainKernel)


def test_gate_multiply_keeps_a_live_map_and_odd_layouts() -> None:
    model = _gate_model([2, 8, 5, 5], [2, 8, 1, 1], "f32", True, keep_map=True)
    x, p = _f((2, 8, 5, 5), np.float32), _f((2, 8, 1, 1), np.float32)
    out = model([x, p])
    assert "out=x" not in model.runner.source
    np.testing.assert_array_equal(np.array(out[1]), x)  # the identity convolution's map
    np.testing.assert_allclose(np.array(out[0]), x / (1 + np.exp(-p.astype(np.float64))),
                               rtol=1e-6, atol=1e-7)
    # the planned function itself on non-contiguous operands: numpy's product
    (i,) = [j for j, st in enumerate(model._steps) if st.node.type == "Multiply"]
    fn = model.runner._fn.__globals__[f"k{i}"]
    m = _f((2, 5, 5, 8), np.float32).transpose(0, 3, 1, 2)
    s = _f((2, 8, 1, 2), np.float32)[..., :1]
    np.testing.assert_array_equal(fn(s, m), s * m)
    np.testing.assert_array_equal(fn(s.copy(), m), s * m)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("n,c,m,hw", [
    pytest.param(1, 24, 96, 1, id="expand"),
    pytest.param(2, 96, 24, 1, id="reduce-batch2"),
    pytest.param(2, 24, 16, 2, id="2x2-map"),  # near miss: the GEMM form
])
def test_pointwise_conv_on_1x1_map(dtype: Any, n: int, c: int, m: int, hw: int) -> None:
    etype = ETYPE[dtype]
    x = ParameterOp.new(etype, [n, c, hw, hw], name="x")
    w = _f((m, c, 1, 1), dtype)
    b = _f((1, m, 1, 1), dtype)
    wc, bc = ConstantOp.from_array(w), ConstantOp.from_array(b)
    conv = _op("Convolution", [x, wc], [n, m, hw, hw], "conv", etype, strides=[1, 1],
               dilations=[1, 1], pads_begin=[0, 0], pads_end=[0, 0])
    add = _op("Add", [conv, bc], [n, m, hw, hw], "bias", etype)
    act = _op("Sigmoid", [add], [n, m, hw, hw], "act", etype)
    model = CompiledModel(ModuleOp([x, wc, bc, conv, add, act, ResultOp.new(act.results[0])]),
                          threads=2)
    xv = _f((n, c, hw, hw), dtype)
    ref, got = _runs(model, [xv])
    want = 1 / (1 + np.exp(-(np.einsum("mc,nchw->nmhw", w[:, :, 0, 0].astype(np.float64),
                                       xv.astype(np.float64)) + b)))
    tol = 1e-5 if dtype == np.float32 else 1e-12
    np.testing.assert_allclose(got, want, rtol=tol, atol=tol)
    np.testing.assert_allclose(ref, want, rtol=tol, atol=tol)
    assert got.dtype == dtype


def _conv_act_model(n: int, c: int, m: int, b_dims: list[int], act: str, etype: str,
                    dtype: Any) -> tuple[CompiledModel, np.ndarray, np.ndarray]:
    """Convolution(x [n, c, 1, 1], w [m, c, 1, 1]) + b (``b_dims``) then ``act``."""
    x = ParameterOp.new(etype, [n, c, 1, 1], name="x")
    w, b = _f((m, c, 1, 1), dtype), _f(tuple(b_dims), dtype)
    wc, bc = ConstantOp.from_array(w), ConstantOp.from_array(b)
    conv = _op("Convolution", [x, wc], [n, m, 1, 1], "conv", etype, strides=[1, 1],
               dilations=[1, 1], pads_begin=[0, 0], pads_end=[0, 0])
    add = _op("Add", [conv, bc], [n, m, 1, 1], "bias", etype)
    ops: list[Any] = [x, wc, bc, conv, add]
    if act == "HardSigmoid":
        al = ConstantOp.from_array(np.array(0.2, dtype))
        be = ConstantOp.from_array(np.array(0.5, dtype))
        a = _op("HardSigmoid", [add, al, be], [n, m, 1, 1], "act", etype)
        ops += [al, be, a]
    else:
        a = _op(act, [add], [n, m, 1, 1], "act", etype)
        ops.append(a)
    ops.append(ResultOp.new(a.results[0]))
    return CompiledModel(ModuleOp(ops), threads=2), w, b


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("act", ["Relu", "HardSigmoid", "HSwish"])
@pytest.mark.parametrize("n,c,m,b_dims,fused", [
    pytest.param(1, 40, 144, [1, 144, 1, 1], True, id="per-channel"),
    pytest.param(2, 24, 8, [1, 8, 1, 1], True, id="per-channel-batch2"),
    pytest.param(2, 24, 8, [8, 1, 1], True, id="per-channel-rank3-bias"),
    pytest.param(2, 24, 8, [1, 1, 1, 1], True, id="one-value"),
    pytest.param(2, 24, 8, [2, 8, 1, 1], True, id="per-image-and-channel"),  # rows of one
    pytest.param(2, 24, 8, [2, 1, 1, 1], False, id="per-image"),  # near miss: the row pass
])
def test_1x1_map_epilogue_fused(dtype: Any, act: str, n: int, c: int, m: int,
                                b_dims: list[int], fused: bool) -> None:
    """A convolution on a 1x1 map hands its bias and activation to its plan
    (EpilogueKernel.epi: one value per row of its [N*C, 1] view, applied
    right after the product), bit-identical to the unfused kernel's result."""
    model, w, b = _conv_act_model(n, c, m, b_dims, act, ETYPE[dtype], dtype)
    (step,) = [st for st in model._steps if isinstance(st.kernel, EpilogueKernel)]
    assert step.kernel.step_type == f"Convolution+Add+{act}"
    assert (step.kernel.epi() is not None) == fused
    xv = _f((n, c, 1, 1), dtype)
    ref, got = _runs(model, [xv])
    np.testing.assert_array_equal(got, ref)
    y = np.einsum("mc,nchw->nmhw", w[:, :, 0, 0].astype(np.float64), xv.astype(np.float64)) + b
    want = {"Relu": np.maximum(y, 0), "HardSigmoid": np.clip(0.2 * y + 0.5, 0, 1),
            "HSwish": y * np.clip(y + 3, 0, 6) / 6}[act]
    tol = 1e-5 if dtype == np.float32 else 1e-12
    np.testing.assert_allclose(got, want, rtol=tol, atol=tol)
    assert got.dtype == dtype and got.shape == (n, m, 1, 1)
