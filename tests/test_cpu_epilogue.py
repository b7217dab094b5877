"""CPU backend: a product's bias and activation fused into its step
(backends/cpu/fusion.py, fuse_epilogues)."""

from __future__ import annotations

import math

import numpy as np
from xdsl.dialects.builtin import ModuleOp

from xmo import compile_model
from xmo.backends.cpu.fusion import EpilogueKernel
from xmo.dialects.ov import ConstantOp, ParameterOp, ResultOp, op_class
from xmo.dialects.ov.base import tensor

from conv_paths import conv_bias_act

RNG = np.random.default_rng(7)


def _conv_bias_act(act: str = "Relu", shared: bool = False) -> tuple[ModuleOp, np.ndarray, np.ndarray]:
    """y = act(Conv(x, w) + b), x: [1, 3, 6, 6], w: [4, 3, 3, 3]."""
    w = RNG.standard_normal((4, 3, 3, 3)).astype(np.float32)
    b = RNG.standard_normal((1, 4, 1, 1)).astype(np.float32)
    return conv_bias_act([1, 3, 6, 6], w, b, act, shared), w, b


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


def _matmul_epilogue(x_shape: list[int], w: np.ndarray, bias: np.ndarray | None,
                     scale: np.ndarray | None, act: str | None, mode: str = "ERF",
                     etype: str = "f32") -> ModuleOp:
    """act(MatMul(x, w) [+ bias] [* scale]) with x an N-D parameter."""
    x = ParameterOp.new(etype, x_shape, name="x")
    wc = ConstantOp.from_array(w)
    t = tensor(etype, [*x_shape[:-1], w.shape[1]])
    mm = op_class("MatMul").make([x, wc], {"transpose_a": False, "transpose_b": False},
                                 result_types=[t], name="mm")
    ops = [x, wc, mm]
    last = mm
    for c, kind in ((bias, "Add"), (scale, "Multiply")):
        if c is not None:
            cc = ConstantOp.from_array(c)
            last = op_class(kind).make([last, cc], {}, result_types=[t], name=kind.lower())
            ops += [cc, last]
    if act is not None:
        attrs = {"approximation_mode": mode} if act == "Gelu" else {}
        last = op_class(act).make([last], attrs, result_types=[t], name="act")
        ops.append(last)
    return ModuleOp([*ops, ResultOp.new(last.results[0])])


def _gelu_erf(v: np.ndarray) -> np.ndarray:
    v = v.astype(np.float64)
    erf = np.vectorize(math.erf, otypes=[np.float64])
    return 0.5 * v * (1 + erf(v / np.sqrt(2)))


def test_matmul_bias_scale_gelu_is_one_row_pass():
    """[2, 5, 8] x [8, 6], per-column bias and scale, Gelu(erf): one step whose
    epilogue runs in one pass over the rows (the row kernel)."""
    w = RNG.standard_normal((8, 6)).astype(np.float32)
    b = RNG.standard_normal((1, 1, 6)).astype(np.float32)
    s = RNG.standard_normal(6).astype(np.float32)
    model = compile_model(_matmul_epilogue([2, 5, 8], w, b, s, "Gelu"))
    (step,) = model._steps
    assert step.kernel.step_type == "MatMul+Add+Multiply+Gelu"
    assert step.kernel.rows is not None
    x = RNG.standard_normal((2, 5, 8)).astype(np.float32) * 2
    want = _gelu_erf((x @ w + b) * s)
    np.testing.assert_allclose(model([x])[0], want, rtol=1e-6, atol=1e-6)
    # the unfused schedule (observer) agrees
    out = model([x], observer=lambda op, outs: None)
    np.testing.assert_allclose(out[0], want, rtol=1e-6, atol=1e-6)


def test_matmul_bias_alone_and_gelu_alone_take_the_row_pass():
    w = RNG.standard_normal((8, 6)).astype(np.float32)
    x = RNG.standard_normal((3, 4, 8)).astype(np.float32)
    b = np.float32(0.5)  # one value: expanded to one per column
    bias_only = compile_model(_matmul_epilogue([3, 4, 8], w, np.array(b), None, None))
    gelu_only = compile_model(_matmul_epilogue([3, 4, 8], w, None, None, "Gelu"))
    assert bias_only._steps[0].kernel.rows is not None
    assert gelu_only._steps[0].kernel.rows is not None
    np.testing.assert_allclose(bias_only([x])[0], x @ w + b, rtol=1e-6, atol=1e-6)
    np.testing.assert_allclose(gelu_only([x])[0], _gelu_erf(x @ w), rtol=1e-6, atol=1e-6)


def test_row_pass_near_misses_keep_the_generic_epilogue():
    """A bias varying along the rows and a dynamic dim between its varying
    dims, Gelu's tanh form and f64 Gelu: fused, but not the row pass; same
    values. (A bias varying along the rows alone takes the row pass, one
    value per row block.)"""
    w = RNG.standard_normal((8, 6)).astype(np.float32)
    x = RNG.standard_normal((2, 5, 8)).astype(np.float32)
    per_row = RNG.standard_normal((1, 5, 1)).astype(np.float32)
    m = compile_model(_matmul_epilogue([2, 5, 8], w, per_row, None, "Gelu"))
    assert m._steps[0].kernel.step_type == "MatMul+Add+Gelu" and m._steps[0].kernel.rows is not None
    assert m._steps[0].kernel.rows[0][2] == 5  # one value per row, every 5 rows
    np.testing.assert_allclose(m([x])[0], _gelu_erf(x @ w + per_row), rtol=1e-5, atol=1e-6)
    around = RNG.standard_normal((2, 1, 6)).astype(np.float32)  # [2, ?, 6]: the ? between
    m = compile_model(_matmul_epilogue([2, -1, 8], w, around, None, "Gelu"))
    assert m._steps[0].kernel.step_type == "MatMul+Add+Gelu" and m._steps[0].kernel.rows is None
    np.testing.assert_allclose(m([x])[0], _gelu_erf(x @ w + around), rtol=1e-5, atol=1e-6)
    tanh = compile_model(_matmul_epilogue([2, 5, 8], w, None, None, "Gelu", mode="TANH"))
    assert tanh._steps[0].kernel.rows is None
    y = (x @ w).astype(np.float64)
    want = 0.5 * y * (1 + np.tanh(np.sqrt(2 / np.pi) * (y + 0.044715 * y**3)))
    np.testing.assert_allclose(tanh([x])[0], want, rtol=1e-5, atol=1e-6)
    w64 = w.astype(np.float64)
    f64 = compile_model(_matmul_epilogue([2, 5, 8], w64, None, None, "Gelu", etype="f64"))
    assert f64._steps[0].kernel.rows is None
    np.testing.assert_allclose(f64([x.astype(np.float64)])[0], _gelu_erf(x.astype(np.float64) @ w64),
                               rtol=1e-12, atol=1e-12)


def test_large_products_split_over_threads_match_numpy():
    """With two threads a large product is cut by rows (the left operand
    larger) or by columns (the right one larger); an N-D left operand is one
    GEMM of its rows, also when it is not contiguous."""
    from xmo.backends.cpu import threads
    from xmo.backends.cpu.kernels.matmul import product

    try:
        threads.set_threads(2)
        for m, k, n in ((301, 64, 70), (7, 300, 1000), (1, 2048, 600)):
            a = RNG.standard_normal((m, k)).astype(np.float32)
            b = RNG.standard_normal((k, n)).astype(np.float32)
            np.testing.assert_allclose(product(a, b), a @ b, rtol=1e-5, atol=1e-4)
        a = RNG.standard_normal((3, 80, 40, 64)).astype(np.float32)
        b = RNG.standard_normal((1, 64, 50)).astype(np.float32)
        for lhs in (a, a.transpose(0, 2, 1, 3)):
            got = product(lhs, b)
            assert got.shape == lhs.shape[:-1] + (50,)
            np.testing.assert_allclose(got, np.matmul(lhs, b), rtol=1e-5, atol=1e-4)
        ints = np.arange(24, dtype=np.int64).reshape(2, 3, 4)
        np.testing.assert_array_equal(product(ints, np.ones((4, 2), np.int64)), ints @ np.ones((4, 2), np.int64))
    finally:
        threads.set_threads(None)
