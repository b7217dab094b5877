"""``ov-fusions`` (passes/ov_fusions): each fusion, positive and near miss.

Every graph is run on xmo's CPU backend before and after the pass (same
outputs), the module verifies, the op counts left are checked, and the fused
op keeps the replaced op's friendly name and tensor names.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pytest
from ov_graphs import G, check_pass, op_counts
from xdsl.dialects.builtin import ModuleOp
from xmo import compile_model
from xmo.dialects.ov.base import constant_value_of
from xmo.passes.ov_fusions import OVFusionsPass


def _run(g: G, expect: dict[str, int], rtol: float = 1e-4, atol: float = 1e-5) -> ModuleOp:
    return check_pass(g, OVFusionsPass(), expect, rtol, atol)


def _named(m: ModuleOp, ov_type: str) -> Any:
    return next(o for o in m.body.block.ops if o.name == f"ov.{ov_type}")


def _c(g: G, v: float) -> Any:
    return g.const(np.float32(v))


# -- activations ----------------------------------------------------------------------


def test_softplus() -> None:
    g = G()
    x = g.param([2, 8], "x")
    y = g.op("Log", [g.op("Add", [g.op("Exp", [x]), _c(g, 1.0)])], name="sp", names=["y"])
    g.result(y, "y")
    m = _run(g, {"SoftPlus": 1, "Exp": 0, "Log": 0})
    sp = _named(m, "SoftPlus")
    assert sp.get_friendly_name() == "sp" and sp.get_tensor_names(0) == ["y"]


def test_softplus_near_miss_add_two() -> None:
    g = G()
    x = g.param([2, 8], "x")
    g.result(g.op("Log", [g.op("Add", [g.op("Exp", [x]), _c(g, 2.0)])]), "y")
    _run(g, {"SoftPlus": 0, "Log": 1})


def test_mish_from_exp_log() -> None:
    g = G()
    x = g.param([2, 8], "x")
    sp = g.op("Log", [g.op("Add", [g.op("Exp", [x]), _c(g, 1.0)])])
    g.result(g.op("Multiply", [g.op("Tanh", [sp]), x], name="mish"), "y")
    m = _run(g, {"Mish": 1, "Tanh": 0, "SoftPlus": 0, "Multiply": 0})
    assert _named(m, "Mish").get_friendly_name() == "mish"


def test_mish_near_miss_other_input() -> None:
    g = G()
    x = g.param([2, 8], "x")
    z = g.param([2, 8], "z")
    g.result(g.op("Multiply", [z, g.op("Tanh", [g.op("SoftPlus", [x])])]), "y")
    _run(g, {"Mish": 0, "Tanh": 1})


@pytest.mark.parametrize("beta", [None, 1.5])
def test_swish(beta: float | None) -> None:
    g = G()
    x = g.param([2, 8], "x")
    s = x if beta is None else g.op("Multiply", [x, _c(g, beta)])
    g.result(g.op("Multiply", [x, g.op("Sigmoid", [s])], name="swish"), "y")
    m = _run(g, {"Swish": 1, "Sigmoid": 0, "Multiply": 0})
    assert len(_named(m, "Swish").operands) == (1 if beta is None else 2)


def test_swish_near_miss_sigmoid_shared() -> None:
    g = G()
    x = g.param([2, 8], "x")
    s = g.op("Sigmoid", [x])
    g.result(g.op("Multiply", [x, s]), "y")
    g.result(s, "s")
    _run(g, {"Swish": 0, "Sigmoid": 1})


@pytest.mark.parametrize("form", ["clamp_mul", "clamp_div", "relu_min"])
def test_hsigmoid(form: str) -> None:
    g = G()
    x = g.param([2, 8], "x")
    a = g.op("Add", [x, _c(g, 3.0)])
    if form == "relu_min":
        r = g.op("Minimum", [g.op("Relu", [a]), _c(g, 6.0)])
    else:
        r = g.op("Clamp", [a], {"min": 0.0, "max": 6.0})
    if form == "clamp_div":
        y = g.op("Divide", [r, _c(g, 6.0)], name="hs")
    else:
        y = g.op("Multiply", [r, _c(g, 1 / 6)], name="hs")
    g.result(y, "y")
    m = _run(g, {"HSigmoid": 1, "Add": 0, "Clamp": 0, "Minimum": 0})
    assert _named(m, "HSigmoid").get_friendly_name() == "hs"


def test_hsigmoid_near_miss_add_two() -> None:
    g = G()
    x = g.param([2, 8], "x")
    r = g.op("Clamp", [g.op("Add", [x, _c(g, 2.0)])], {"min": 0.0, "max": 6.0})
    g.result(g.op("Multiply", [r, _c(g, 1 / 6)]), "y")
    _run(g, {"HSigmoid": 0, "Clamp": 1})


@pytest.mark.parametrize("form", ["hsigmoid", "x_relu6_div"])
def test_hswish(form: str) -> None:
    g = G()
    x = g.param([2, 8], "x")
    r = g.op("Clamp", [g.op("Add", [x, _c(g, 3.0)])], {"min": 0.0, "max": 6.0})
    if form == "hsigmoid":
        y = g.op("Multiply", [x, g.op("Multiply", [r, _c(g, 1 / 6)])], name="hw")
    else:
        y = g.op("Divide", [g.op("Multiply", [x, r]), _c(g, 6.0)], name="hw")
    g.result(y, "y")
    m = _run(g, {"HSwish": 1, "HSigmoid": 0, "Clamp": 0, "Multiply": 0})
    assert _named(m, "HSwish").get_friendly_name() == "hw"


def test_hswish_near_miss_clamp_to_five() -> None:
    g = G()
    x = g.param([2, 8], "x")
    r = g.op("Clamp", [g.op("Add", [x, _c(g, 3.0)])], {"min": 0.0, "max": 5.0})
    g.result(g.op("Multiply", [x, g.op("Multiply", [r, _c(g, 1 / 6)])]), "y")
    _run(g, {"HSwish": 0, "HSigmoid": 0, "Clamp": 1})


@pytest.mark.parametrize("form", ["a", "b", "c"])
def test_gelu_erf(form: str) -> None:
    g = G()
    x = g.param([2, 8], "x")
    erf = g.op("Erf", [g.op("Divide", [x, _c(g, math.sqrt(2))])])
    one = g.op("Add", [erf, _c(g, 1.0)])
    if form == "a":
        y = g.op("Multiply", [g.op("Multiply", [x, _c(g, 0.5)]), one], name="gelu")
    elif form == "b":
        y = g.op("Multiply", [g.op("Multiply", [x, one]), _c(g, 0.5)], name="gelu")
    else:
        y = g.op("Multiply", [x, g.op("Multiply", [one, _c(g, 0.5)])], name="gelu")
    g.result(y, "y")
    m = _run(g, {"Gelu": 1, "Erf": 0, "Multiply": 0})
    gelu = _named(m, "Gelu")
    assert gelu.get_friendly_name() == "gelu"
    assert gelu.attr("approximation_mode") == "ERF"


def test_gelu_erf_near_miss_wrong_scale() -> None:
    g = G()
    x = g.param([2, 8], "x")
    erf = g.op("Erf", [g.op("Multiply", [x, _c(g, 0.5)])])
    one = g.op("Add", [erf, _c(g, 1.0)])
    g.result(g.op("Multiply", [g.op("Multiply", [x, _c(g, 0.5)]), one]), "y")
    _run(g, {"Gelu": 0, "Erf": 1})


@pytest.mark.parametrize("neg", ["negative", "scale"])
def test_gelu_erfc(neg: str) -> None:
    """TensorFlow's 0.5 * x * Erfc(-x / sqrt(2)), Erfc converted as 1 - Erf."""
    g = G()
    x = g.param([2, 8], "x")
    r = 1 / math.sqrt(2)
    arg = g.op("Multiply", [g.op("Negative", [x]), _c(g, r)]) if neg == "negative" else g.op(
        "Multiply", [x, _c(g, -r)])
    erfc = g.op("Subtract", [_c(g, 1.0), g.op("Erf", [arg])])
    y = g.op("Multiply", [g.op("Multiply", [_c(g, 0.5), x]), erfc], name="gelu", names=["g"])
    g.result(y, "g")
    m = _run(g, {"Gelu": 1, "Erf": 0, "Negative": 0, "Subtract": 0, "Multiply": 0})
    assert _named(m, "Gelu").get_friendly_name() == "gelu"
    assert _named(m, "Gelu").attr("approximation_mode") == "ERF"


def test_gelu_erfc_near_miss_positive_argument() -> None:
    """1 - Erf(+x / sqrt(2)) is not GELU."""
    g = G()
    x = g.param([2, 8], "x")
    erfc = g.op("Subtract", [_c(g, 1.0), g.op("Erf", [g.op("Multiply", [x, _c(g, 1 / math.sqrt(2))])])])
    g.result(g.op("Multiply", [g.op("Multiply", [_c(g, 0.5), x]), erfc]), "y")
    _run(g, {"Gelu": 0, "Erf": 1})


@pytest.mark.parametrize("cube", ["power", "mul"])
def test_gelu_tanh(cube: str) -> None:
    g = G()
    x = g.param([2, 8], "x")
    if cube == "power":
        x3 = g.op("Power", [x, _c(g, 3.0)])
    else:
        x3 = g.op("Multiply", [g.op("Multiply", [x, x]), x])
    inner = g.op("Add", [x, g.op("Multiply", [x3, _c(g, 0.044715)])])
    t = g.op("Tanh", [g.op("Multiply", [inner, _c(g, math.sqrt(2 / math.pi))])])
    one = g.op("Add", [t, _c(g, 1.0)])
    g.result(g.op("Multiply", [g.op("Multiply", [x, _c(g, 0.5)]), one], name="gelu"), "y")
    m = _run(g, {"Gelu": 1, "Tanh": 0, "Power": 0, "Multiply": 0}, rtol=1e-3, atol=1e-4)
    assert _named(m, "Gelu").attr("approximation_mode") == "TANH"


def test_gelu_tanh_near_miss_square() -> None:
    g = G()
    x = g.param([2, 8], "x")
    x2 = g.op("Power", [x, _c(g, 2.0)])
    inner = g.op("Add", [x, g.op("Multiply", [x2, _c(g, 0.044715)])])
    t = g.op("Tanh", [g.op("Multiply", [inner, _c(g, math.sqrt(2 / math.pi))])])
    one = g.op("Add", [t, _c(g, 1.0)])
    g.result(g.op("Multiply", [g.op("Multiply", [x, _c(g, 0.5)]), one]), "y")
    _run(g, {"Gelu": 0, "Tanh": 1})


# -- normalization --------------------------------------------------------------------


def _mvn(g: G, x: Any, axes: list[int], axes2: list[int] | None = None, inside: bool = True) -> Any:
    mean = g.op("ReduceMean", [x, g.i64(axes)], {"keep_dims": True})
    d = g.op("Subtract", [x, mean])
    var = g.op("ReduceMean", [g.op("Power", [d, _c(g, 2.0)]), g.i64(axes2 or axes)], {"keep_dims": True})
    if inside:
        den = g.op("Sqrt", [g.op("Add", [var, _c(g, 1e-5)])])
    else:
        den = g.op("Add", [g.op("Sqrt", [var]), _c(g, 1e-5)])
    return g.op("Divide", [d, den], name="mvn", names=["n"])


@pytest.mark.parametrize("inside", [True, False])
def test_mvn_layer_norm(inside: bool) -> None:
    g = G()
    x = g.param([2, 4, 16], "x")
    y = _mvn(g, x, [-1], inside=inside)
    y = g.op("Add", [g.op("Multiply", [y, g.randc(16)]), g.randc(16)])
    g.result(y, "y")
    m = _run(g, {"MVN": 1, "ReduceMean": 0, "Sqrt": 0, "Divide": 0})
    mvn = _named(m, "MVN")
    assert mvn.get_friendly_name() == "mvn" and mvn.get_tensor_names(0) == ["n"]
    assert mvn.attr("eps_mode") == ("INSIDE_SQRT" if inside else "OUTSIDE_SQRT")


def test_mvn_near_miss_different_axes() -> None:
    g = G()
    x = g.param([2, 4, 16], "x")
    g.result(_mvn(g, x, [-1], [1]), "y")
    _run(g, {"MVN": 0, "ReduceMean": 2})


@pytest.mark.parametrize("form", ["sqdiff_power", "reciprocal"])
def test_mvn_other_spellings(form: str) -> None:
    """SquaredDifference and x * Power(var + eps, -0.5); d * (1 / Sqrt(var + eps))."""
    g = G()
    x = g.param([2, 4, 16], "x")
    mean = g.op("ReduceMean", [x, g.i64([-1])], {"keep_dims": True})
    d = g.op("Subtract", [x, mean])
    sq = g.op("SquaredDifference", [x, mean]) if form == "sqdiff_power" else g.op("Multiply", [d, d])
    var_eps = g.op("Add", [g.op("ReduceMean", [sq, g.i64([2])], {"keep_dims": True}), _c(g, 1e-5)])
    if form == "sqdiff_power":
        inv = g.op("Power", [var_eps, _c(g, -0.5)])
    else:
        inv = g.op("Divide", [_c(g, 1.0), g.op("Sqrt", [var_eps])])
    g.result(g.op("Multiply", [d, inv], name="mvn", names=["n"]), "n")
    m = _run(g, {"MVN": 1, "ReduceMean": 0, "Multiply": 0, "Subtract": 0})
    assert _named(m, "MVN").get_tensor_names(0) == ["n"]


def _keras_ln(g: G, x: Any, gamma: bool = True, beta: bool = True, var_axes: list[int] | None = None) -> Any:
    """Keras 3's LayerNormalization as TensorFlow computes it, Rsqrt converted."""
    mean = g.op("ReduceMean", [x, g.i64([-1])], {"keep_dims": True})
    sq = g.op("SquaredDifference", [x, mean])
    var = g.op("ReduceMean", [sq, g.i64(var_axes or [-1])], {"keep_dims": True})
    inv = g.op("Divide", [_c(g, 1.0), g.op("Sqrt", [g.op("Add", [var, _c(g, 1e-6)])])])
    if gamma:
        inv = g.op("Multiply", [inv, g.randc(1, 1, 16)])
    res = g.op("Multiply", [g.op("Negative", [mean]), inv])
    if beta:
        res = g.op("Add", [res, g.randc(1, 1, 16)])
    return g.op("Add", [g.op("Multiply", [x, inv]), res], name="ln", names=["ln:0"])


@pytest.mark.parametrize("gamma,beta", [(True, True), (False, True), (True, False)])
def test_mvn_affine_keras_layer_norm(gamma: bool, beta: bool) -> None:
    g = G()
    x = g.param([2, 4, 16], "x")
    g.result(_keras_ln(g, x, gamma, beta), "ln:0")
    m = _run(g, {"MVN": 1, "ReduceMean": 0, "Negative": 0, "SquaredDifference": 0,
                 "Multiply": int(gamma), "Add": int(beta)})
    last = [o for o in m.body.block.ops if o.name != "ov.Result"][-1]
    assert last.get_friendly_name() == "ln" and last.get_tensor_names(0) == ["ln:0"]
    assert _named(m, "MVN").get_friendly_name() == "ln/MVN"


def test_mvn_affine_keras_group_norm() -> None:
    """Keras' GroupNormalization: the same form over a grouped view's axes."""
    g = G()
    x = g.param([2, 3, 3, 2, 4], "x")  # [N, H, W, groups, channels per group]
    axes = [1, 2, 4]
    mean = g.op("ReduceMean", [x, g.i64(axes)], {"keep_dims": True})
    var = g.op("ReduceMean", [g.op("SquaredDifference", [x, mean]), g.i64(axes)], {"keep_dims": True})
    inv = g.op("Divide", [_c(g, 1.0), g.op("Sqrt", [g.op("Add", [var, _c(g, 1e-3)])])])
    inv = g.op("Multiply", [inv, g.randc(1, 1, 1, 2, 4)])
    res = g.op("Add", [g.op("Multiply", [g.op("Negative", [mean]), inv]), g.randc(1, 1, 1, 2, 4)])
    g.result(g.op("Add", [g.op("Multiply", [x, inv]), res], name="gn"), "y")
    m = _run(g, {"MVN": 1, "ReduceMean": 0, "Multiply": 1, "Add": 1})
    assert constant_value_of(_named(m, "MVN").operands[1]).tolist() == axes


def test_mvn_affine_near_miss_variance_over_other_axes() -> None:
    g = G()
    x = g.param([2, 4, 16], "x")
    g.result(_keras_ln(g, x, var_axes=[1]), "y")
    _run(g, {"MVN": 0, "ReduceMean": 2, "Negative": 1})


def test_mvn_affine_near_miss_mean_shared() -> None:
    g = G()
    x = g.param([2, 4, 16], "x")
    y = _keras_ln(g, x)
    g.result(y, "y")
    mean = next(o for o in g.ops if o.name == "ov.ReduceMean").results[0]
    g.result(g.op("Relu", [mean]), "m")
    _run(g, {"MVN": 0, "ReduceMean": 2})


@pytest.mark.parametrize("mode", ["max", "add"])
def test_normalize_l2(mode: str) -> None:
    g = G()
    x = g.param([2, 8, 4], "x")
    ss = g.op("ReduceSum", [g.op("Multiply", [x, x]), g.i64([1])], {"keep_dims": True})
    e = g.op("Maximum" if mode == "max" else "Add", [ss, _c(g, 1e-12)])
    g.result(g.op("Divide", [x, g.op("Sqrt", [e])], name="l2"), "y")
    m = _run(g, {"NormalizeL2": 1, "ReduceSum": 0, "Divide": 0})
    n = _named(m, "NormalizeL2")
    assert n.attr("eps_mode") == mode and n.get_friendly_name() == "l2"


def test_normalize_l2_near_miss_other_tensor() -> None:
    g = G()
    x = g.param([2, 8, 4], "x")
    z = g.param([2, 8, 4], "z")
    ss = g.op("ReduceSum", [g.op("Multiply", [x, x]), g.i64([1])], {"keep_dims": True})
    e = g.op("Maximum", [ss, _c(g, 1e-12)])
    g.result(g.op("Divide", [z, g.op("Sqrt", [e])]), "y")
    _run(g, {"NormalizeL2": 0, "ReduceSum": 1})


# -- shape ops ------------------------------------------------------------------------


def test_shuffle_channels() -> None:
    g = G()
    x = g.param([1, 6, 4, 4], "x")
    r = g.op("Reshape", [x, g.i64([1, 2, 3, 4, 4])], {"special_zero": False})
    t = g.T(r, [0, 2, 1, 3, 4])
    g.result(g.op("Reshape", [t, g.i64([1, 6, 4, 4])], {"special_zero": False}, name="sc"), "y")
    m = _run(g, {"ShuffleChannels": 1, "Reshape": 0, "Transpose": 0})
    sc = _named(m, "ShuffleChannels")
    assert sc.attr("group") == 2 and sc.get_friendly_name() == "sc"


def test_shuffle_channels_near_miss_other_perm() -> None:
    g = G()
    x = g.param([1, 6, 4, 4], "x")
    r = g.op("Reshape", [x, g.i64([1, 2, 3, 4, 4])], {"special_zero": False})
    t = g.T(r, [0, 2, 1, 4, 3])
    g.result(g.op("Reshape", [t, g.i64([1, 6, 4, 4])], {"special_zero": False}), "y")
    _run(g, {"ShuffleChannels": 0, "Transpose": 1})


def test_reshape_chain() -> None:
    g = G()
    x = g.param([2, 3, 4], "x")
    r = g.op("Reshape", [x, g.i64([6, 4])], {"special_zero": False})
    g.result(g.op("Reshape", [r, g.i64([4, 6])], {"special_zero": False}, name="r2"), "y")
    m = _run(g, {"Reshape": 1})
    assert _named(m, "Reshape").get_friendly_name() == "r2"


def test_squeeze_unsqueeze_pair_cancels() -> None:
    g = G()
    x = g.param([2, 1, 4], "x")
    s = g.op("Squeeze", [x, g.i64([1])])
    u = g.op("Unsqueeze", [s, g.i64([1])])
    g.result(g.op("Relu", [u]), "y")
    _run(g, {"Squeeze": 0, "Unsqueeze": 0, "Reshape": 0, "Relu": 1})


def test_unsqueeze_squeeze_other_axis_becomes_reshape() -> None:
    g = G()
    x = g.param([2, 1, 4], "x")
    u = g.op("Unsqueeze", [x, g.i64([0])])
    s = g.op("Squeeze", [u, g.i64([2])])
    g.result(g.op("Relu", [s]), "y")
    _run(g, {"Squeeze": 0, "Unsqueeze": 0, "Reshape": 1})


def test_reshape_chain_near_miss_shared_inner() -> None:
    g = G()
    x = g.param([2, 3, 4], "x")
    r = g.op("Reshape", [x, g.i64([6, 4])], {"special_zero": False})
    g.result(g.op("Reshape", [r, g.i64([4, 6])], {"special_zero": False}), "y")
    g.result(g.op("Relu", [r]), "z")
    _run(g, {"Reshape": 2})


# -- padding --------------------------------------------------------------------------


def _pad(g: G, x: Any, value: float) -> Any:
    return g.op("Pad", [x, g.i64([0, 0, 1, 2]), g.i64([0, 0, 1, 0]), _c(g, value)],
                {"pad_mode": "constant"})


def _pool_attrs(**kw: Any) -> dict:
    a = dict(strides=[1, 1], pads_begin=[0, 0], pads_end=[0, 0], kernel=[3, 3])
    a.update(kw)
    return a


def test_zero_pad_into_avgpool_counting_padding() -> None:
    g = G()
    x = g.param([1, 2, 6, 6], "x")
    p = _pad(g, x, 0.0)
    g.result(g.op("AvgPool", [p], _pool_attrs(**{"exclude-pad": False}), name="pool"), "y")
    m = _run(g, {"Pad": 0, "AvgPool": 1})
    pool = _named(m, "AvgPool")
    assert list(pool.attr("pads_begin")) == [1, 2] and pool.get_friendly_name() == "pool"


def test_pad_into_avgpool_near_miss_exclude_pad() -> None:
    g = G()
    x = g.param([1, 2, 6, 6], "x")
    p = _pad(g, x, 0.0)
    g.result(g.op("AvgPool", [p], _pool_attrs(**{"exclude-pad": True})), "y")
    _run(g, {"Pad": 1})


def test_minus_inf_pad_into_maxpool() -> None:
    g = G()
    x = g.param([1, 2, 6, 6], "x")
    p = _pad(g, x, -np.inf)
    y = g.op("MaxPool", [p], _pool_attrs(dilations=[1, 1]), name="pool", n=2)[0]
    g.result(y, "y")
    _run(g, {"Pad": 0, "MaxPool": 1})


def test_zero_pad_into_maxpool_is_a_near_miss() -> None:
    g = G()
    x = g.param([1, 2, 6, 6], "x")
    p = _pad(g, x, 0.0)
    y = g.op("MaxPool", [p], _pool_attrs(dilations=[1, 1]), n=2)[0]
    g.result(y, "y")
    _run(g, {"Pad": 1})


# -- arithmetic canonicalization ------------------------------------------------------


def test_decomposed_batch_norm_reaches_conv_weights() -> None:
    """(conv - m) / s * g + b: Subtract/Divide become Add/Multiply here and
    ov-fuse-linear folds them into the weights and one bias Add."""
    from xmo.passes.ov_fuse_linear import OVFuseLinearPass

    g = G()
    x = g.param([1, 3, 8, 8], "x")
    y = g.conv(x, 4, name="conv")
    y = g.op("Subtract", [y, g.randc(4, 1, 1)])
    y = g.op("Divide", [y, g.const(np.abs(g.rng.standard_normal((4, 1, 1))) + 0.5)])
    y = g.op("Multiply", [y, g.randc(4, 1, 1)])
    y = g.op("Add", [y, g.randc(4, 1, 1)], name="bn")
    g.result(y, "y")
    m = _run(g, {"Subtract": 0, "Divide": 0, "Add": 2, "Multiply": 2})
    feeds = g.feeds()
    before = compile_model(m.clone())(feeds)
    OVFuseLinearPass().apply(g.ctx, m)
    c = op_counts(m)
    assert (c["Convolution"], c["Add"], c["Multiply"], c["Subtract"]) == (1, 1, 0, 0), c
    np.testing.assert_allclose(compile_model(m)(feeds)[0], before[0], rtol=1e-4, atol=1e-4)


def test_subtract_of_two_tensors_stays() -> None:
    g = G()
    x = g.param([2, 4], "x")
    z = g.param([2, 4], "z")
    g.result(g.op("Subtract", [x, z]), "y")
    g.result(g.op("Divide", [x, _c(g, 0.0)]), "w")
    _run(g, {"Subtract": 1, "Divide": 1})


def test_transpose_pair_cancels() -> None:
    g = G()
    x = g.param([1, 2, 3, 4], "x")
    t = g.T(g.T(x, [0, 2, 3, 1]), [0, 3, 1, 2])
    g.result(g.op("Relu", [t]), "y")
    _run(g, {"Transpose": 0})


def test_transpose_pair_merges() -> None:
    g = G()
    x = g.param([1, 2, 3, 4], "x")
    t = g.T(g.T(x, [0, 2, 3, 1]), [0, 2, 1, 3], name="t2")
    g.result(t, "y")
    m = _run(g, {"Transpose": 1})
    assert _named(m, "Transpose").get_friendly_name() == "t2"


def test_transpose_pair_near_miss_shared_inner() -> None:
    g = G()
    x = g.param([1, 2, 3, 4], "x")
    t1 = g.T(x, [0, 2, 3, 1])
    g.result(g.T(t1, [0, 3, 1, 2]), "y")
    g.result(t1, "z")
    _run(g, {"Transpose": 2})


def test_transpose_of_unit_dims_becomes_reshape() -> None:
    """NHWC -> NCHW of a squeeze-excite vector moves only 1s: a Reshape."""
    g = G()
    x = g.param([2, 1, 1, 6], "x")
    g.result(g.T(x, [0, 3, 1, 2], name="t"), "y")
    m = _run(g, {"Transpose": 0, "Reshape": 1})
    r = _named(m, "Reshape")
    assert r.get_friendly_name() == "t" and r.get_tensor_names(0) == ["y"]
    assert r.attr("special_zero") is False


def test_transpose_of_unit_dims_dynamic_batch() -> None:
    """A dynamic dimension the Transpose leaves in place: special_zero."""
    g = G()
    x = g.param([-1, 1, 1, 6], "x")
    g.result(g.T(x, [0, 3, 1, 2], name="t"), "y")
    m = g.module()
    feed = [g.rng.standard_normal((3, 1, 1, 6)).astype(np.float32)]
    want = compile_model(m.clone())(feed)
    OVFusionsPass().apply(g.ctx, m)
    m.verify()
    r = _named(m, "Reshape")
    assert r.attr("special_zero") is True and str(r.results[0].type) == "tensor<?x6x1x1xf32>"
    np.testing.assert_array_equal(compile_model(m)(feed)[0], want[0])


def test_transpose_to_reshape_near_miss_reorders_data() -> None:
    g = G()
    x = g.param([2, 1, 3, 6], "x")
    g.result(g.T(x, [0, 3, 1, 2]), "y")
    _run(g, {"Transpose": 1, "Reshape": 0})


# -- rsqrt, negative --------------------------------------------------------------------


@pytest.mark.parametrize("form", ["divide", "power"])
def test_rsqrt_to_power(form: str) -> None:
    g = G()
    x = g.param([2, 8], "x")
    s = g.op("Sqrt", [g.op("Add", [g.op("Multiply", [x, x]), _c(g, 1.0)])])
    y = g.op("Divide", [_c(g, 1.0), s], name="rs") if form == "divide" else g.op(
        "Power", [s, _c(g, -1.0)], name="rs")
    g.result(y, "y")
    m = _run(g, {"Power": 1, "Sqrt": 0, "Divide": 0})
    p = _named(m, "Power")
    assert p.get_friendly_name() == "rs" and p.get_tensor_names(0) == ["y"]


def test_rsqrt_near_miss_two_over_sqrt() -> None:
    g = G()
    x = g.param([2, 8], "x")
    s = g.op("Sqrt", [g.op("Add", [g.op("Multiply", [x, x]), _c(g, 1.0)])])
    g.result(g.op("Divide", [_c(g, 2.0), s]), "y")
    _run(g, {"Power": 0, "Sqrt": 1, "Divide": 1})


@pytest.mark.parametrize("reader", ["Multiply", "Add", "Subtract"])
def test_negative_fold(reader: str) -> None:
    g = G()
    x = g.param([2, 8], "x")
    z = g.param([2, 8], "z")
    neg = g.op("Negative", [x])
    other = g.randc(8) if reader == "Multiply" else z
    ins = [neg, other] if reader == "Multiply" else [other, neg]
    g.result(g.op(reader, ins, name="r", names=["r"]), "r")
    want = {"Add": "Subtract", "Subtract": "Add", "Multiply": "Multiply"}[reader]
    m = _run(g, {"Negative": 0, want: 1})
    assert _named(m, want).get_friendly_name() == "r"


def test_negative_fold_near_miss_shared() -> None:
    g = G()
    x = g.param([2, 8], "x")
    neg = g.op("Negative", [x])
    g.result(g.op("Multiply", [neg, g.randc(8)]), "y")
    g.result(neg, "n")
    _run(g, {"Negative": 1, "Multiply": 1})


def test_negative_fold_near_miss_minuend() -> None:
    """-x - y stays (no op takes the Negative in)."""
    g = G()
    x = g.param([2, 8], "x")
    z = g.param([2, 8], "z")
    g.result(g.op("Subtract", [g.op("Negative", [x]), z]), "y")
    _run(g, {"Negative": 1, "Subtract": 1})
