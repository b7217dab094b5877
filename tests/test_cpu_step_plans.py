"""Plans of product steps and of the small steps of squeeze-excitation blocks
(backends/cpu: Convolution, GroupConvolution, MatMul, the fused epilogue and
affine steps, ReduceMean, binary ufuncs into their dead input): the generated
run function gets what the kernels give step by step, bit for bit, on static
and dynamic shapes, and errors still name the op."""

from __future__ import annotations

import re
import warnings
from typing import Any

import numpy as np
import pytest
from xdsl.dialects.builtin import ModuleOp

from xmo.backends.cpu import CompiledModel, KernelError, kernel_for, register_kernel
from xmo.backends.cpu.fusion import AffineKernel, EpilogueKernel
from xmo.dialects.ov import ConstantOp, ParameterOp, ResultOp, op_class
from xmo.dialects.ov.base import tensor

RNG = np.random.default_rng(29)
CONV = {"strides": [1, 1], "dilations": [1, 1], "pads_begin": [0, 0], "pads_end": [0, 0]}


def _f(*shape: int, dtype: Any = np.float32) -> np.ndarray:
    return RNG.standard_normal(shape).astype(dtype)


def _op(kind: str, inputs: list[Any], dims: list[int], name: str, etype: str = "f32",
        **attrs: Any) -> Any:
    return op_class(kind).make(inputs, attrs, result_types=[tensor(etype, dims)], name=name)


def _same(model: CompiledModel, feeds: list[np.ndarray], planned: str | None = None) -> list[np.ndarray]:
    """Step by step, then the generated function: equal bit for bit (twice:
    the in-place steps see fresh buffers each run). ``planned``: a regex the
    generated source must match."""
    first = [np.array(a) for a in model(feeds)]
    for _ in range(2):
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            second = [np.array(a) for a in model(feeds)]
        for a, b in zip(first, second):
            assert a.dtype == b.dtype and a.shape == b.shape
            np.testing.assert_array_equal(a, b)
    if planned is not None:
        assert re.search(planned, model.runner.source), model.runner.source
    return second


def _conv_model(x_dims: list[int], w: np.ndarray, out_dims: list[int], group: bool = False,
                bias: np.ndarray | None = None, act: str | None = None, etype: str = "f32",
                **attrs: Any) -> CompiledModel:
    x = ParameterOp.new(etype, x_dims, name="x")
    wc = ConstantOp.from_array(w)
    ops: list[Any] = [x, wc]
    y = _op("GroupConvolution" if group else "Convolution", [x, wc], out_dims, "conv", etype,
            **{**CONV, **attrs})
    ops.append(y)
    if bias is not None:
        bc = ConstantOp.from_array(bias)
        y = _op("Add", [y, bc], out_dims, "bias", etype)
        ops += [bc, y]
    if act is not None:
        y = _op(act, [y], out_dims, "act", etype)
        ops.append(y)
    return CompiledModel(ModuleOp([*ops, ResultOp.new(y.results[0])]))


PLANNED = r"= k\d+\(v\d+, c\d+\)"  # the step's function, no node argument


@pytest.mark.parametrize("x_shape,w,out,group,attrs", [
    pytest.param((1, 8, 1, 1), _f(8, 8, 1, 1), [1, 8, 1, 1], False, {}, id="pointwise-1x1"),
    pytest.param((2, 6, 5, 5), _f(4, 6, 1, 1), [2, 4, 5, 5], False, {}, id="pointwise-batch"),
    pytest.param((1, 3, 9, 9), _f(5, 3, 3, 3), [1, 5, 5, 5], False,
                 {"strides": [2, 2], "pads_begin": [1, 1], "pads_end": [1, 1]}, id="3x3-s2"),
    pytest.param((1, 8, 7, 7), _f(8, 1, 1, 3, 3), [1, 8, 7, 7], True,
                 {"pads_begin": [1, 1], "pads_end": [1, 1]}, id="depthwise"),
    pytest.param((1, 8, 4, 4), _f(2, 3, 4, 3, 3), [1, 6, 4, 4], True,
                 {"auto_pad": "same_upper"}, id="grouped-same"),
    pytest.param((1, 4, 8, 8), _f(6, 4, 4, 4), [1, 6, 2, 2], False,
                 {"strides": [4, 4]}, id="patches"),
])
def test_planned_convolutions_match_the_kernel(x_shape, w, out, group, attrs):
    model = _conv_model(list(x_shape), w, out, group, **attrs)
    _same(model, [_f(*x_shape)], PLANNED)
    assert re.search(r"\bk\d+\(v0, c\d+\)", model.runner.source)


def test_convolution_on_dynamic_dims_keeps_its_plan_per_shape():
    w = _f(4, 3, 3, 3)
    model = _conv_model([1, 3, -1, -1], w, [1, 4, -1, -1])
    for hw in (5, 8, 5):
        x = _f(1, 3, hw, hw)
        got = _same(model, [x])
        assert got[0].shape == (1, 4, hw - 2, hw - 2)
    assert re.search(r"= k\d+\(n\d+, v0, c\d+\)", model.runner.source)  # the kernel


def test_f64_and_f16_convolutions():
    w64 = _f(4, 3, 1, 1, dtype=np.float64)
    _same(_conv_model([1, 3, 4, 4], w64, [1, 4, 4, 4], etype="f64"), [_f(1, 3, 4, 4, dtype=np.float64)],
          PLANNED)
    w16 = _f(4, 3, 1, 1, dtype=np.float16)
    model = _conv_model([1, 3, 4, 4], w16, [1, 4, 4, 4], etype="f16")
    _same(model, [_f(1, 3, 4, 4, dtype=np.float16)])
    assert re.search(r"= k\d+\(n\d+, v0, c\d+\)", model.runner.source)  # f16: the kernel


def _matmul_model(a_dims: list[int], b: np.ndarray | list[int], out: list[int],
                  etype: str = "f32", **attrs: Any) -> CompiledModel:
    a = ParameterOp.new(etype, a_dims, name="a")
    if isinstance(b, np.ndarray):
        bv: Any = ConstantOp.from_array(b)
    else:
        bv = ParameterOp.new(etype, b, name="b")
    y = _op("MatMul", [a, bv], out, "mm", etype, **attrs)
    params = [a] + ([bv] if isinstance(bv, ParameterOp) else [])
    return CompiledModel(ModuleOp([*params, *([bv] if isinstance(bv, ConstantOp) else []), y,
                                   ResultOp.new(y.results[0])]))


@pytest.mark.parametrize("a_shape,a_dims,b,out,attrs", [
    pytest.param((1, 8), [1, 8], _f(8, 8), [1, 8], {}, id="row-times-matrix"),
    pytest.param((2, 5, 8), [2, 5, 8], _f(6, 8), [2, 5, 6], {"transpose_b": True}, id="rows-tb"),
    pytest.param((1, 1, 5, 8), [1, 1, 5, 8], _f(1, 8, 6), [1, 1, 5, 6], {}, id="one-matrix"),
    pytest.param((8, 5), [8, 5], _f(8, 6), [5, 6], {"transpose_a": True}, id="ta"),
    pytest.param((3, 5, 8), [-1, -1, 8], _f(8, 6), [-1, -1, 6], {}, id="dynamic"),
    pytest.param((3, 5, 8), [3, 5, 8], _f(3, 8, 6), [3, 5, 6], {}, id="batched"),
    pytest.param((256, 512), [256, 512], _f(512, 64), [256, 64], {}, id="split-size"),
])
def test_planned_matmuls_match_the_kernel(a_shape, a_dims, b, out, attrs):
    model = _matmul_model(a_dims, b, out, **attrs)
    _same(model, [_f(*a_shape)], PLANNED)


def test_matmul_of_two_inputs_and_f16():
    model = _matmul_model([2, 3, 4], [2, 5, 4], [2, 3, 5], transpose_b=True)
    _same(model, [_f(2, 3, 4), _f(2, 5, 4)], r"= k\d+\(v0, v\d+\)")
    model = _matmul_model([3, 4], _f(4, 5, dtype=np.float16), [3, 5], etype="f16")
    _same(model, [_f(3, 4, dtype=np.float16)], r"= k\d+\(n\d+, v0, c\d+\)")


@pytest.mark.parametrize("shape,act,dtype", [
    ((1, 8, 1, 1), "Relu", np.float32),  # a squeeze-excitation conv
    ((1, 8, 1, 1), "Sigmoid", np.float64),
    ((1, 16, 24, 24), "HSwish", np.float32),  # the row pass
    ((1, 16, 24, 24), None, np.float32),  # bias alone, large: the row pass
    ((1, 8, 3, 3), None, np.float64),  # bias alone, small: numpy in place
    ((1, 8, 3, 3), "Elu", np.float32),
])
def test_fused_conv_epilogues_planned(shape, act, dtype):
    c = shape[1]
    etype = "f32" if dtype == np.float32 else "f64"
    model = _conv_model(list(shape), _f(c, c, 1, 1, dtype=dtype), list(shape),
                        bias=_f(1, c, 1, 1, dtype=dtype), act=act, etype=etype)
    (step,) = model._steps
    assert isinstance(step.kernel, EpilogueKernel)
    _same(model, [_f(*shape, dtype=dtype)], PLANNED)


def test_fused_matmul_bias_gelu_planned_static_and_dynamic():
    for dims in ([4, 16], [-1, 16]):
        a = ParameterOp.new("f32", dims, name="a")
        w, b = ConstantOp.from_array(_f(16, 8)), ConstantOp.from_array(_f(8))
        mm = _op("MatMul", [a, w], dims[:1] + [8], "mm")
        add = _op("Add", [mm, b], dims[:1] + [8], "bias")
        y = _op("Gelu", [add], dims[:1] + [8], "act")
        model = CompiledModel(ModuleOp([a, w, b, mm, add, y, ResultOp.new(y.results[0])]))
        assert isinstance(model._steps[0].kernel, EpilogueKernel)
        for rows in (4, 4) if dims[0] > 0 else (4, 9):
            _same(model, [_f(rows, 16)], PLANNED)


def test_errors_in_fused_steps_name_the_op():
    w = _f(4, 3, 1, 1)
    model = _conv_model([1, -1, 4, 4], w, [1, 4, 4, 4], bias=_f(1, 4, 1, 1), act="Relu")
    assert isinstance(model._steps[0].kernel, EpilogueKernel)
    good = _f(1, 3, 4, 4)
    model([good])
    model([good])  # the generated function from now on
    for _ in range(2):
        with pytest.raises(KernelError, match=r"Convolution .*'conv'"):
            model([_f(1, 5, 4, 4)])

    def broken(node, x):
        raise ZeroDivisionError("no luck")

    saved = kernel_for("ov.Relu")
    try:
        register_kernel("ov.Relu", override=True)(broken)
        model = _conv_model([1, 3, 4, 4], w, [1, 4, 4, 4], bias=_f(1, 4, 1, 1), act="Relu")
        assert isinstance(model._steps[0].kernel, EpilogueKernel)
        for _ in range(3):  # step by step, then the planned step
            with pytest.raises(KernelError, match=r"Relu .*'act': ZeroDivisionError: no luck"):
                model([good])
        assert re.search(PLANNED, model.runner.source)
    finally:
        register_kernel("ov.Relu", override=True)(saved)


def test_affine_steps_bound():
    for shape in ([2, 3, 4], [2, 64, 64]):  # numpy in place; the row pass
        x = ParameterOp.new("f32", shape, name="x")
        r = _op("Relu", [x], shape, "r")  # not a parameter: the affine step may take it
        c = [ConstantOp.from_array(_f(shape[1], 1)), ConstantOp.from_array(_f(shape[1], 1))]
        mul = _op("Multiply", [r, c[0]], shape, "mul")
        add = _op("Add", [mul, c[1]], shape, "add")
        model = CompiledModel(ModuleOp([x, r, *c, mul, add, ResultOp.new(add.results[0]),
                                        ResultOp.new(r.results[0])]))
        assert any(isinstance(s.kernel, AffineKernel) for s in model._steps)
        feeds = [_f(*shape)]
        got = _same(model, feeds, r"= k\d+\(v\d+\)")
        np.testing.assert_array_equal(got[1], np.maximum(feeds[0], 0))  # r kept intact


def _se_model(shape: list[int], keep_map: bool = False) -> CompiledModel:
    """x -> Relu -> m; s = Sigmoid(ReduceMean(m, [2, 3], keepdims)); y = s * m;
    ``keep_map``: m is also a model output (not written in place)."""
    n, c = shape[:2]
    x = ParameterOp.new("f32", shape, name="x")
    m = _op("Relu", [x], shape, "m")
    axes = ConstantOp.from_array(np.array([2, 3], np.int64))
    red = _op("ReduceMean", [m, axes], [n, c, 1, 1], "pool", keep_dims=True)
    s = _op("Sigmoid", [red], [n, c, 1, 1], "scale")
    y = _op("Multiply", [s, m], shape, "se")
    ops = [x, m, axes, red, s, y, ResultOp.new(y.results[0])]
    if keep_map:
        ops.append(ResultOp.new(m.results[0]))
    return CompiledModel(ModuleOp(ops))


def test_squeeze_excitation_steps():
    model = _se_model([2, 8, 5, 5])
    x = _f(2, 8, 5, 5)
    got = _same(model, [x], r"x = v\d+; v\d+ = None; ok = so\(x\)")
    m = np.maximum(x, 0)
    want = m * (1 / (1 + np.exp(-m.mean(axis=(2, 3), keepdims=True))))
    np.testing.assert_allclose(got[0], want, rtol=1e-6)
    src = model.runner.source
    assert re.search(r"= k\d+\(v\d+, x, out=x\) if ok else k\d+\(v\d+, x\)", src), src
    (pool,) = [i for i, st in enumerate(model._steps) if st.node.type == "ReduceMean"]
    assert re.search(rf"= k{pool}\(v\d+, c\d+\)", src), src  # ReduceMean planned too
    # the map is a model output: the product into a new array, the map intact
    model = _se_model([2, 8, 5, 5], keep_map=True)
    got = _same(model, [x])
    assert "out=x" not in model.runner.source
    np.testing.assert_array_equal(got[1], m)


def test_in_place_step_leaves_a_value_still_viewed():
    """The dead input is written only when nothing else holds it: not when a
    live view (a model output) reads its buffer."""
    x = ParameterOp.new("f32", [2, 6], name="x")
    p = ParameterOp.new("f32", [2, 6], name="p")
    m = _op("Relu", [x], [2, 6], "m")
    shape = ConstantOp.from_array(np.array([3, 4], np.int64))
    view = _op("Reshape", [m, shape], [3, 4], "view", special_zero=False)
    mul = _op("Multiply", [m, p], [2, 6], "mul")
    model = CompiledModel(ModuleOp([x, p, m, shape, view, mul,
                                    ResultOp.new(mul.results[0]), ResultOp.new(view.results[0])]))
    xs, ps = _f(2, 6), _f(2, 6)
    got = _same(model, [xs, ps], r"k\d+\(x, v1, out=x\) if ok")
    mm = np.maximum(xs, 0)
    np.testing.assert_array_equal(got[0], mm * ps)
    np.testing.assert_array_equal(got[1], mm.reshape(3, 4))


def test_in_place_step_on_a_transposed_view_keeps_the_layout():
    """A dead input that is a transposed view: not written (a new C-contiguous
    array, as step by step), so later steps see the same layout."""
    x = ParameterOp.new("f32", [2, 3, 4], name="x")
    p = ParameterOp.new("f32", [2, 4, 3], name="p")
    r = _op("Relu", [x], [2, 3, 4], "r")
    perm = ConstantOp.from_array(np.array([0, 2, 1], np.int64))
    t = _op("Transpose", [r, perm], [2, 4, 3], "t")
    add = _op("Add", [t, p], [2, 4, 3], "add")
    model = CompiledModel(ModuleOp([x, p, r, perm, t, add, ResultOp.new(add.results[0])]))
    xs, ps = _f(2, 3, 4), _f(2, 4, 3)
    first = model([xs, ps])[0]
    for _ in range(2):
        got = model([xs, ps])[0]
        assert got.flags.c_contiguous == first.flags.c_contiguous
        np.testing.assert_array_equal(got, first)
    assert "flags.c_contiguous" in model.runner.source
