"""``ov-fuse-linear`` and ``ov-cse``: positive cases and near misses.

Each graph is checked for the exact op counts left, identical outputs on
xmo's CPU backend before and after, a verifying module, and the names of the
outputs; one graph also runs in the OpenVINO runtime.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from ov_graphs import F32, G, check_pass
from xdsl.dialects.builtin import ModuleOp
from xmo import compile_model
from xmo.passes.ov_cse import OVCSEPass
from xmo.passes.ov_fuse_linear import OVFuseLinearPass


def _run(g: G, pass_: Any, expect: dict[str, int]) -> ModuleOp:
    return check_pass(g, pass_, expect)


def _conv_chain(g: G, scale_shape: tuple[int, ...] = (1, 4, 1, 1)) -> Any:
    x = g.param([1, 3, 8, 8], "x")
    y = g.conv(x, 4, name="conv")
    y = g.op("Add", [y, g.randc(1, 4, 1, 1)], name="bias")
    y = g.op("Multiply", [y, g.randc(*scale_shape)], name="bn/mul")
    y = g.op("Add", [y, g.randc(1, 4, 1, 1)], name="bn/add", names=["bn:0"])
    return y


def test_conv_bias_scale_shift_become_conv_and_one_add() -> None:
    g = G()
    g.result(g.op("Relu", [_conv_chain(g)], name="relu"), "out")
    m = _run(g, OVFuseLinearPass(), {"Convolution": 1, "Multiply": 0, "Add": 1})
    add = next(o for o in m.body.block.ops if o.name == "ov.Add")
    assert add.get_friendly_name() == "bn/add"
    assert add.get_tensor_names(0) == ["bn:0"]


def test_scalar_scale_fuses() -> None:
    g = G()
    g.result(_conv_chain(g, scale_shape=()), "out")
    _run(g, OVFuseLinearPass(), {"Multiply": 0, "Add": 1})


def test_spatial_scale_is_a_near_miss() -> None:
    g = G()
    g.result(_conv_chain(g, scale_shape=(1, 1, 8, 1)), "out")
    # the Multiply moves before the bias Add but cannot enter the weights
    _run(g, OVFuseLinearPass(), {"Multiply": 1, "Add": 1})


def test_conv_with_a_second_user_is_not_fused() -> None:
    g = G()
    x = g.param([1, 3, 8, 8], "x")
    y = g.conv(x, 4)
    z = g.op("Multiply", [y, g.randc(1, 4, 1, 1)])
    g.result(z, "z")
    g.result(g.op("Relu", [y]), "y")
    _run(g, OVFuseLinearPass(), {"Multiply": 1, "Convolution": 1})


@pytest.mark.parametrize("kind", ["GroupConvolution", "ConvolutionBackpropData"])
def test_grouped_and_transposed_convolutions(kind: str) -> None:
    g = G()
    x = g.param([1, 4, 6, 6], "x")
    attrs = dict(strides=[1, 1], dilations=[1, 1], pads_begin=[1, 1], pads_end=[1, 1])
    if kind == "GroupConvolution":
        y = g.op(kind, [x, g.randc(2, 3, 2, 3, 3)], attrs)  # 2 groups, 6 outputs
        c = 6
    else:
        y = g.op(kind, [x, g.randc(4, 5, 3, 3)], attrs)  # 5 outputs
        c = 5
    y = g.op("Multiply", [y, g.randc(1, c, 1, 1)])
    g.result(y, "out")
    _run(g, OVFuseLinearPass(), {"Multiply": 0, kind: 1})


def test_batch_norm_after_conv_folds() -> None:
    g = G()
    x = g.param([2, 3, 8, 8], "x")
    y = g.conv(x, 4)
    var = g.const(np.abs(g.rng.standard_normal(4)) + 0.5)
    y = g.op("BatchNormInference", [y, g.randc(4), g.randc(4), g.randc(4), var],
             {"epsilon": 1e-3}, name="bn")
    g.result(y, "out")
    m = _run(g, OVFuseLinearPass(), {"BatchNormInference": 0, "Multiply": 0, "Add": 1})
    assert next(o for o in m.body.block.ops if o.name == "ov.Add").get_friendly_name() == "bn"


def test_batch_norm_without_conv_stays() -> None:
    g = G()
    x = g.param([2, 4, 8, 8], "x")
    var = g.const(np.abs(g.rng.standard_normal(4)) + 0.5)
    g.result(g.op("BatchNormInference", [x, g.randc(4), g.randc(4), g.randc(4), var],
                  {"epsilon": 1e-3}), "out")
    _run(g, OVFuseLinearPass(), {"BatchNormInference": 1})


@pytest.mark.parametrize("transpose_b", [False, True])
def test_matmul_column_scale(transpose_b: bool) -> None:
    g = G()
    x = g.param([3, 5], "x")
    w = g.randc(7, 5) if transpose_b else g.randc(5, 7)
    y = g.op("MatMul", [x, w], {"transpose_a": False, "transpose_b": transpose_b})
    g.result(g.op("Multiply", [y, g.randc(7)]), "out")
    _run(g, OVFuseLinearPass(), {"Multiply": 0, "MatMul": 1})


def test_zero_pad_enters_convolution(tmp_path) -> None:
    g = G()
    x = g.param([1, 3, 8, 8], "x")
    p = g.op("Pad", [x, g.i64([0, 0, 1, 2]), g.i64([0, 0, 2, 1]), g.const(0.0)],
             {"pad_mode": "constant"})
    g.result(g.conv(p, 4, name="conv"), "out")
    m = _run(g, OVFuseLinearPass(), {"Pad": 0, "Convolution": 1})
    conv = next(o for o in m.body.block.ops if o.name == "ov.Convolution")
    assert list(conv.attr("pads_begin")) == [2, 3] and list(conv.attr("pads_end")) == [3, 2]
    # the OpenVINO runtime agrees
    import openvino as ov
    from xmo.backends.ir import serialize

    serialize(m, tmp_path / "m.xml")
    feeds = g.feeds()
    core = ov.Core()
    got = core.compile_model(core.read_model(str(tmp_path / "m.xml")), "CPU", F32)(feeds)
    want = compile_model(m)(feeds)
    np.testing.assert_allclose(next(iter(got.values())), want[0], rtol=1e-4, atol=1e-4)


def test_nonzero_or_channel_pad_stays() -> None:
    g = G()
    x = g.param([1, 3, 8, 8], "x")
    p = g.op("Pad", [x, g.i64([0, 0, 1, 1]), g.i64([0, 0, 1, 1]), g.const(1.0)],
             {"pad_mode": "constant"})
    q = g.op("Pad", [x, g.i64([0, 1, 1, 1]), g.i64([0, 0, 1, 1]), g.const(0.0)],
             {"pad_mode": "constant"})
    g.result(g.conv(p, 4), "a")
    g.result(g.conv(q, 4), "b")
    _run(g, OVFuseLinearPass(), {"Pad": 2})


def test_cse_merges_identical_ops_and_constants() -> None:
    g = G()
    x = g.param([2, 6], "x")
    a = g.op("Tanh", [x], name="t1", names=["t1:0"])
    b = g.op("Tanh", [x], name="t2", names=["t2:0"])
    c1 = g.const(np.full((6,), 2.0))
    c2 = g.const(np.full((6,), 2.0))
    s = g.op("Add", [g.op("Multiply", [a, c1]), g.op("Multiply", [b, c2])])
    g.result(s, "out")
    g.result(b, "t2")
    m = _run(g, OVCSEPass(), {"Tanh": 1, "Multiply": 1, "Constant": 1})
    tanh = next(o for o in m.body.block.ops if o.name == "ov.Tanh")
    assert tanh.get_friendly_name() == "t1"
    assert set(tanh.get_tensor_names(0)) == {"t1:0", "t2:0"}


def test_cse_keeps_ops_with_different_attributes() -> None:
    g = G()
    x = g.param([2, 6], "x")
    a = g.op("Clamp", [x], {"min": 0.0, "max": 1.0})
    b = g.op("Clamp", [x], {"min": 0.0, "max": 2.0})
    g.result(g.op("Add", [a, b]), "out")
    _run(g, OVCSEPass(), {"Clamp": 2})


def _tied(g: G, transposed: np.ndarray) -> None:
    """A token embedding Gather from W and a MatMul by ``transposed``."""
    w = g.rng.standard_normal((12, 8)).astype(np.float32)
    ids = g.param([2, 3], "ids", "i64")
    x = g.param([2, 8], "x")
    g.result(g.op("Gather", [g.const(w), ids, g.i64(0)]), "emb")
    g.result(g.op("MatMul", [x, g.const(transposed(w))], name="lm_head", names=["logits"]), "logits")


def test_cse_matmul_reads_the_transposed_twin_of_a_weight() -> None:
    """GPT-2's tied LM head: the MatMul's W^T is read as W with transpose_b."""
    from xmo.passes.ov_dce import OVDeadCodeEliminationPass

    g = G()
    _tied(g, lambda w: np.ascontiguousarray(w.T))
    m = g.module()
    feeds = [np.array([[0, 5, 11], [3, 3, 7]]), g.rng.standard_normal((2, 8)).astype(np.float32)]
    before = compile_model(m.clone())(feeds)
    OVCSEPass().apply(g.ctx, m)
    OVDeadCodeEliminationPass().apply(g.ctx, m)
    m.verify()
    shapes = [o.results[0].type.get_shape() for o in m.body.block.ops if o.name == "ov.Constant"]
    assert shapes.count((12, 8)) == 1 and (8, 12) not in shapes
    mm = next(o for o in m.body.block.ops if o.name == "ov.MatMul")
    assert mm.operands[1].type.get_shape() == (12, 8) and mm.attr("transpose_b") is True
    assert mm.get_friendly_name() == "lm_head" and mm.get_tensor_names(0) == ["logits"]
    for a, b in zip(compile_model(m)(feeds), before):
        np.testing.assert_allclose(a, b, rtol=1e-6, atol=1e-6)


def _one_entry_off(w: np.ndarray) -> np.ndarray:
    """w^T with one entry changed that the sampled pre-check does not read
    (row 2 of W is not among its 8 sampled rows of 12): the full compare
    must still tell them apart."""
    t = np.ascontiguousarray(w.T)
    t[3, 2] += 1
    return t


@pytest.mark.parametrize("transposed", [lambda w: np.ascontiguousarray(w.T) + 1, _one_entry_off],
                         ids=["all-entries", "one-unsampled-entry"])
def test_cse_transposed_twin_near_miss_other_values(transposed) -> None:
    g = G()
    _tied(g, transposed)
    m = g.module()
    OVCSEPass().apply(g.ctx, m)
    mm = next(o for o in m.body.block.ops if o.name == "ov.MatMul")
    assert mm.attr("transpose_b") is False and mm.operands[1].type.get_shape() == (8, 12)
