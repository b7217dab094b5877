"""CPU backend: a product's bias and activation fused into its step
(backends/cpu/fusion.py, fuse_epilogues)."""

from __future__ import annotations

import numpy as np
from xdsl.dialects.builtin import ModuleOp

from xmo import compile_model
from xmo.backends.cpu.fusion import EpilogueKernel
from xmo.dialects.ov import ConstantOp, ParameterOp, ResultOp, op_class
from xmo.dialects.ov.base import tensor

RNG = np.random.default_rng(7)


def _conv_bias_act(act: str = "Relu", shared: bool = False) -> tuple[ModuleOp, np.ndarray, np.ndarray]:
    """y = act(Conv(x, w) + b), x: [1, 3, 6, 6]; with ``shared`` the conv
    result is also a model output (no fusion)."""
    x = ParameterOp.new("f32", [1, 3, 6, 6], name="x")
    w = RNG.standard_normal((4, 3, 3, 3)).astype(np.float32)
    b = RNG.standard_normal((1, 4, 1, 1)).astype(np.float32)
    wc, bc = ConstantOp.from_array(w), ConstantOp.from_array(b)
    t = tensor("f32", [1, 4, 4, 4])
    conv = op_class("Convolution").make(
        [x, wc], {"strides": [1, 1], "dilations": [1, 1], "pads_begin": [0, 0],
                  "pads_end": [0, 0]}, result_types=[t], name="conv")
    add = op_class("Add").make([conv, bc], {}, result_types=[t], name="bias")
    y = op_class(act).make([add], {}, result_types=[t], name="act")
    ops = [x, wc, bc, conv, add, y, ResultOp.new(y.results[0])]
    if shared:
        ops.append(ResultOp.new(conv.results[0]))
    return ModuleOp(ops), w, b


def _reference(x: np.ndarray, w: np.ndarray, b: np.ndarray) -> np.ndarray:
    cols = np.lib.stride_tricks.sliding_window_view(x[0], (3, 3), axis=(1, 2))  # [3,4,4,3,3]
    return np.einsum("chwij,mcij->mhw", cols, w)[None] + b


def test_conv_bias_relu_is_one_step():
    module, w, b = _conv_bias_act()
    model = compile_model(module)
    (step,) = model._steps
    assert isinstance(step.kernel, EpilogueKernel) and step.node.name == "act"
    assert step.kernel.step_type == "Convolution+Add+Relu"
    x = RNG.standard_normal((1, 3, 6, 6)).astype(np.float32)
    want = np.maximum(_reference(x, w, b), 0)
    for _ in range(2):
        np.testing.assert_allclose(model([x])[0], want, rtol=1e-5, atol=1e-5)
    # the unfused schedule (observer) gives the same values
    seen: list[str] = []
    out = model([x], observer=lambda op, outs: seen.append(op.get_friendly_name()))
    assert seen == ["conv", "bias", "act"]
    np.testing.assert_allclose(out[0], want, rtol=1e-5, atol=1e-5)
    assert [s.type for s in model.profile([x]).steps] == ["Convolution+Add+Relu"]


def test_conv_result_used_twice_is_not_fused():
    module, w, b = _conv_bias_act(shared=True)
    model = compile_model(module)
    assert not any(isinstance(st.kernel, EpilogueKernel) for st in model._steps)
    x = RNG.standard_normal((1, 3, 6, 6)).astype(np.float32)
    out = model([x])
    np.testing.assert_allclose(out[1], _reference(x, w, b) - b, rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(out[0], np.maximum(_reference(x, w, b), 0), rtol=1e-5, atol=1e-5)


def test_non_activation_consumer_keeps_only_the_bias():
    # Abs is not an epilogue activation: the bias fuses, Abs stays a step
    module, w, b = _conv_bias_act(act="Abs")
    model = compile_model(module)
    assert [getattr(st.kernel, "step_type", st.node.type) for st in model._steps] == [
        "Convolution+Add", "Abs"]
    x = RNG.standard_normal((1, 3, 6, 6)).astype(np.float32)
    np.testing.assert_allclose(model([x])[0], np.abs(_reference(x, w, b)), rtol=1e-5, atol=1e-5)


def _matmul_add(bias: np.ndarray) -> ModuleOp:
    """MatMul(x: f32 [?, 4], w) + bias, the rows dynamic."""
    x = ParameterOp.new("f32", [-1, 4], name="x")
    w = ConstantOp.from_array(np.arange(12, dtype=np.float32).reshape(4, 3) / 10)
    b = ConstantOp.from_array(bias)
    t = tensor("f32", [-1, 3])
    mm = op_class("MatMul").make([x, w], {"transpose_a": False, "transpose_b": False},
                                 result_types=[t], name="mm")
    add = op_class("Add").make([mm, b], {}, result_types=[t], name="add")
    return ModuleOp([x, w, b, mm, add, ResultOp.new(add.results[0])])


def test_bias_on_dynamic_rows_fuses():
    bias = np.array([1.0, 2.0, 3.0], np.float32)
    model = compile_model(_matmul_add(bias))
    assert [getattr(st.kernel, "step_type", st.node.type) for st in model._steps] == ["MatMul+Add"]
    w = np.arange(12, dtype=np.float32).reshape(4, 3) / 10
    for n in (1, 5):
        x = RNG.standard_normal((n, 4)).astype(np.float32)
        np.testing.assert_allclose(model([x])[0], x @ w + bias, rtol=1e-6)


def test_constant_growing_a_dynamic_dim_is_not_fused():
    # bias [2, 3] against [?, 3]: the result is 2 rows only when x has 1 -- not affine
    bias = np.ones((2, 3), np.float32)
    model = compile_model(_matmul_add(bias))
    assert [getattr(st.kernel, "step_type", st.node.type) for st in model._steps] == [
        "MatMul", "Add"]
    x = RNG.standard_normal((2, 4)).astype(np.float32)
    w = np.arange(12, dtype=np.float32).reshape(4, 3) / 10
    np.testing.assert_allclose(model([x])[0], x @ w + 1, rtol=1e-6)
