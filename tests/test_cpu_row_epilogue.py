"""CPU backend: the one-pass row form of a product's bias + activation
(backends/cpu/fusion.py row_layout, kernels/rows.py bias_act): one value per
channel of an NCHW convolution, each activation against numpy formulas; the
layouts that must not take it; standalone activations and affine steps."""

from __future__ import annotations

import math

import numpy as np
import pytest
from xdsl.dialects.builtin import ModuleOp

from xmo import compile_model
from xmo.backends.cpu.fusion import AffineKernel, EpilogueKernel, row_layout
from xmo.backends.cpu.kernels.rows import row_kernels
from xmo.dialects.ov import ConstantOp, ParameterOp, ResultOp, op_class
from xmo.dialects.ov.base import tensor

pytestmark = pytest.mark.skipif(row_kernels() is None, reason="numba missing")

RNG = np.random.default_rng(11)


def _ref(act: str, v: np.ndarray) -> np.ndarray:
    """The activations in f64 (parameters as in :data:`ACTS`)."""
    v = v.astype(np.float64)
    with np.errstate(over="ignore", invalid="ignore"):
        sp = np.logaddexp(0, v)
        table = {
            "Relu": lambda: np.maximum(v, 0),
            "Clamp": lambda: np.clip(v, -0.5, 1.25),
            "Sigmoid": lambda: 1 / (1 + np.exp(-v)),
            "Swish": lambda: v / (1 + np.exp(-v)),
            "SwishBeta": lambda: v / (1 + np.exp(-0.75 * v)),
            "HSwish": lambda: v * np.clip(v + 3, 0, 6) / 6,
            "HSigmoid": lambda: np.clip(v + 3, 0, 6) / 6,
            "HardSigmoid": lambda: np.clip(0.2 * v + 0.5, 0, 1),
            "Tanh": lambda: np.tanh(v),
            "Gelu": lambda: 0.5 * v * (1 + np.vectorize(math.erf)(v / math.sqrt(2))),
            "Elu": lambda: np.where(v > 0, v, 0.7 * np.expm1(np.minimum(v, 0))),
            "Mish": lambda: v * np.tanh(sp),
            "SoftPlus": lambda: sp,
        }
        return table[act]()  # inside errstate: the lambdas run here


ACTS = ["Relu", "Clamp", "Sigmoid", "Swish", "SwishBeta", "HSwish", "HSigmoid", "HardSigmoid",
        "Tanh", "Gelu", "Elu", "Mish", "SoftPlus"]


def _act_op(act: str, x, t, etype: str) -> tuple[list, object]:
    """(constant ops, the activation op) of ``act`` on ``x``."""
    dt = np.float32 if etype == "f32" else np.float64
    consts: list = []
    if act == "SwishBeta":
        consts = [ConstantOp.from_array(np.array(0.75, dt))]
        return consts, op_class("Swish").make([x, *consts], {}, result_types=[t], name="act")
    if act == "HardSigmoid":
        consts = [ConstantOp.from_array(np.array(0.2, dt)), ConstantOp.from_array(np.array(0.5, dt))]
        return consts, op_class(act).make([x, *consts], {}, result_types=[t], name="act")
    attrs = {"Clamp": {"min": -0.5, "max": 1.25}, "Elu": {"alpha": 0.7},
             "Gelu": {"approximation_mode": "ERF"}}.get(act, {})
    return consts, op_class(act).make([x], attrs, result_types=[t], name="act")


def _conv_chain(act: str | None, bias: np.ndarray, scale: np.ndarray | None = None,
                etype: str = "f32", shared: bool = False) -> tuple[ModuleOp, np.ndarray]:
    """act(Conv1x1(x, w) + bias [* scale]), x: [2, 3, 5, 7], 6 output channels."""
    dt = np.float32 if etype == "f32" else np.float64
    x = ParameterOp.new(etype, [2, 3, 5, 7], name="x")
    w = RNG.standard_normal((6, 3, 1, 1)).astype(dt)
    wc = ConstantOp.from_array(w)
    t = tensor(etype, [2, 6, 5, 7])
    conv = op_class("Convolution").make(
        [x, wc], {"strides": [1, 1], "dilations": [1, 1], "pads_begin": [0, 0],
                  "pads_end": [0, 0]}, result_types=[t], name="conv")
    bc = ConstantOp.from_array(bias.astype(dt))
    last = op_class("Add").make([conv, bc], {}, result_types=[t], name="bias")
    ops = [x, wc, bc, conv, last]
    if scale is not None:
        sc = ConstantOp.from_array(scale.astype(dt))
        last = op_class("Multiply").make([last, sc], {}, result_types=[t], name="scale")
        ops += [sc, last]
    if act is not None:
        consts, last = _act_op(act, last, t, etype)
        ops += [*consts, last]
    ops.append(ResultOp.new(last.results[0]))
    if shared:
        ops.append(ResultOp.new(conv.results[0]))
    return ModuleOp(ops), w


def _conv_ref(x: np.ndarray, w: np.ndarray) -> np.ndarray:
    return np.einsum("nchw,oc->nohw", x.astype(np.float64), w[:, :, 0, 0].astype(np.float64))


@pytest.mark.parametrize("act", ACTS)
def test_conv_per_channel_bias_and_activation_one_pass(act):
    bias = RNG.standard_normal((1, 6, 1, 1)).astype(np.float32)
    module, w = _conv_chain(act, bias)
    model = compile_model(module)
    (step,) = model._steps
    assert isinstance(step.kernel, EpilogueKernel)
    assert step.kernel.rows is not None
    layout = step.kernel.rows[0]
    assert layout[2] == 6 and layout[4] == 35  # one value per row of [2*6, 5*7], period 6
    x = (RNG.standard_normal((2, 3, 5, 7)) * 3).astype(np.float32)
    want = _ref(act, _conv_ref(x, w) + bias)
    np.testing.assert_allclose(model([x])[0], want, rtol=1e-5, atol=1e-5)
    # the unfused schedule (each op its own kernel) agrees
    np.testing.assert_allclose(model([x], observer=lambda op, outs: None)[0], want, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("act", ["Swish", "Sigmoid", "HSwish", "Elu", "Gelu"])
def test_conv_bias_scale_f64(act):
    """f64 (the activation by libm, Gelu keeps its numpy kernel), bias and scale."""
    bias = RNG.standard_normal((6, 1, 1))
    scale = RNG.standard_normal((1, 6, 1, 1))
    module, w = _conv_chain(act, bias, scale, etype="f64")
    model = compile_model(module)
    (step,) = model._steps
    assert step.kernel.step_type.endswith("+Add+Multiply+" + act)
    assert (step.kernel.rows is not None) == (act != "Gelu")
    x = RNG.standard_normal((2, 3, 5, 7)) * 3
    want = _ref(act, (_conv_ref(x, w) + bias) * scale)
    np.testing.assert_allclose(model([x])[0], want, rtol=1e-12, atol=1e-12)


def test_bias_varying_along_spatial_dims_is_per_column():
    """[1, 1, 5, 7]: constant over the channels, not per channel: the rows of
    [12, 35] with one value per column; [1, 6, 5, 1]: per row of [60, 7]."""
    for bias, period, inner in (((1, 1, 5, 7), 0, 35), ((1, 6, 5, 1), 30, 7)):
        b = RNG.standard_normal(bias).astype(np.float32)
        module, w = _conv_chain("Swish", b)
        model = compile_model(module)
        layout = model._steps[0].kernel.rows[0]
        assert (layout[2], layout[4]) == (period, inner)
        x = RNG.standard_normal((2, 3, 5, 7)).astype(np.float32)
        np.testing.assert_allclose(model([x])[0], _ref("Swish", _conv_ref(x, w) + b), rtol=1e-5, atol=1e-5)


def test_shared_product_is_not_fused():
    bias = RNG.standard_normal((1, 6, 1, 1)).astype(np.float32)
    module, w = _conv_chain("Sigmoid", bias, shared=True)
    model = compile_model(module)
    assert not any(isinstance(st.kernel, EpilogueKernel) for st in model._steps)
    x = RNG.standard_normal((2, 3, 5, 7)).astype(np.float32)
    out = model([x])
    np.testing.assert_allclose(out[0], _ref("Sigmoid", _conv_ref(x, w) + bias), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(out[1], _conv_ref(x, w), rtol=1e-5, atol=1e-5)


def test_row_layout_cases():
    s = (2, 6, 5, 7)
    c = np.arange(6, dtype=np.float32).reshape(1, 6, 1, 1)
    a, b, period, q, inner, _ = row_layout(None, c, s)
    assert a is None and period == 6 and (q, inner) == (2, 35) and b.tolist() == list(range(6))
    # a scale per channel with a bias per (channel, row): the rows of the last dim
    a, b, period, q, inner, _ = row_layout(c, np.ones((6, 5, 1), np.float32), s)
    assert period == 30 and inner == 7 and a.shape == b.shape == (30,) and a[5] == 1 and a[29] == 5
    # one value: every row
    assert row_layout(None, np.float32(2).reshape(()), s)[2:5] == (1, 3, 7)
    # a dynamic dim between the varying ones: none; after them: rows of unknown length
    assert row_layout(None, np.ones((2, 1, 7), np.float32), (2, -1, 7)) is None
    assert row_layout(None, c, (-1, 6, -1, 7))[2:5] == (6, 2, -1)
    assert row_layout(None, None, ()) is None


def test_standalone_activations_one_pass_and_edges():
    """Standalone activation steps (the one-pass kernel): NaN, infinities,
    non-contiguous input, f16 and integer inputs keep their numpy results;
    Sigmoid and Swish never return subnormals."""
    for act in ACTS:
        x = ParameterOp.new("f32", [4, 9], name="x")
        consts, op = _act_op(act, x, tensor("f32", [4, 9]), "f32")
        model = compile_model(ModuleOp([x, *consts, op, ResultOp.new(op.results[0])]))
        v = (RNG.standard_normal((4, 9)) * 40).astype(np.float32)
        v[0, :5] = [np.nan, np.inf, -np.inf, -200.0, -0.0]
        got = model([v])[0]
        want = _ref(act, v)
        assert np.array_equal(np.isnan(got[0, 1:]), np.isnan(want[0, 1:]))
        np.testing.assert_allclose(got[1:], want[1:], rtol=2e-6, atol=1e-6)
        assert np.isnan(got[0, 0])
        if act in ("Sigmoid", "Swish", "SwishBeta"):
            assert got[0, 3] == 0 and not np.any((got != 0) & (np.abs(got) < np.finfo(np.float32).tiny))
    # non-contiguous input (a transposed view) and f16
    x = ParameterOp.new("f16", [3, 8], name="x")
    op = op_class("Swish").make([x], {}, result_types=[tensor("f16", [3, 8])], name="act")
    model = compile_model(ModuleOp([x, op, ResultOp.new(op.results[0])]))
    v = RNG.standard_normal((8, 3)).astype(np.float16).T
    got = model([v])[0]
    assert got.dtype == np.float16
    np.testing.assert_allclose(got, _ref("Swish", v.astype(np.float32)), rtol=2e-3, atol=1e-3)
    x = ParameterOp.new("i32", [5], name="x")
    op = op_class("Relu").make([x], {}, result_types=[tensor("i32", [5])], name="act")
    model = compile_model(ModuleOp([x, op, ResultOp.new(op.results[0])]))
    np.testing.assert_array_equal(model([np.array([-2, -1, 0, 1, 2], np.int32)])[0], [0, 0, 0, 1, 2])


def test_affine_step_alone_takes_the_row_pass_when_large():
    """x * a + b per channel on a parameter (no product): bit-exact to numpy's
    f32 multiply then add; the row form from 4096 elements on."""
    for shape in ([1, 4, 3, 3], [2, 16, 16, 16]):
        x = ParameterOp.new("f32", shape, name="x")
        t = tensor("f32", shape)
        a = RNG.standard_normal((1, shape[1], 1, 1)).astype(np.float32)
        b = RNG.standard_normal((shape[1], 1, 1)).astype(np.float32)
        ac, bc = ConstantOp.from_array(a), ConstantOp.from_array(b)
        mul = op_class("Multiply").make([x, ac], {}, result_types=[t], name="mul")
        add = op_class("Add").make([mul, bc], {}, result_types=[t], name="add")
        model = compile_model(ModuleOp([x, ac, bc, mul, add, ResultOp.new(add.results[0])]))
        (step,) = model._steps
        assert isinstance(step.kernel, AffineKernel) and step.kernel.rows is not None
        v = RNG.standard_normal(shape).astype(np.float32)
        np.testing.assert_array_equal(model([v])[0], v * a + b)
