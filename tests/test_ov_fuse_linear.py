"""``ov-fuse-linear`` rewrite by rewrite: each fires on its pattern and stays
away from the near misses (a second user of an intermediate value, a constant
that is not per channel, integer types, padding that is not zero).

More cases (convolution chains, batch norms, MatMul, zero padding) are in
``test_ov_fusions.py``.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from ov_graphs import G, check_pass, op_counts
from xmo.passes.ov_fuse_linear import OVFuseLinearPass


def _run(g: G, expect: dict[str, int]) -> Any:
    return check_pass(g, OVFuseLinearPass(), expect)


def _only(m: Any, ov_type: str) -> Any:
    (op,) = [o for o in m.body.block.ops if o.name == f"ov.{ov_type}"]
    return op


def _named(m: Any, name: str) -> Any:
    (op,) = [o for o in m.body.block.ops if o.get_friendly_name() == name]
    return op


def _conv(g: G, x: Any, name: str = "conv") -> Any:
    return g.conv(x, 4, name=name)


# -- Multiply(Multiply) / Add(Add) ----------------------------------------------


def test_multiply_chain_merges_and_keeps_the_last_name() -> None:
    g = G()
    x = g.param([2, 4], "x")
    y = g.op("Multiply", [x, g.randc(4)], name="m1")
    y = g.op("Multiply", [y, g.randc(2, 1)], name="m2", names=["m2:0"])
    g.result(y, "out")
    m = _run(g, {"Multiply": 1})
    mul = _only(m, "Multiply")
    assert mul.get_friendly_name() == "m2" and mul.get_tensor_names(0) == ["m2:0"]


def test_multiply_chain_with_a_second_user_stays() -> None:
    g = G()
    x = g.param([2, 4], "x")
    y = g.op("Multiply", [x, g.randc(4)], name="inner")
    g.result(g.op("Multiply", [y, g.randc(4)], name="outer"), "out")
    g.result(g.op("Relu", [y]), "other")
    m = _run(g, {"Multiply": 2})
    assert _named(m, "outer").operands[0].owner is _named(m, "inner")


def test_add_chain_merges() -> None:
    g = G()
    x = g.param([2, 4], "x")
    y = g.op("Add", [g.randc(4), x])  # the constant on either side
    g.result(g.op("Add", [y, g.randc(1)], name="a2"), "out")
    m = _run(g, {"Add": 1})
    assert _only(m, "Add").get_friendly_name() == "a2"


def test_add_chain_with_a_second_user_stays() -> None:
    g = G()
    x = g.param([2, 4], "x")
    y = g.op("Add", [x, g.randc(4)], name="inner")
    g.result(g.op("Add", [y, g.randc(4)], name="outer"), "out")
    g.result(g.op("Relu", [y]), "other")
    m = _run(g, {"Add": 2})
    assert _named(m, "outer").operands[0].owner is _named(m, "inner")


def test_integer_chains_stay() -> None:
    g = G()
    x = g.param([2, 4], "x", etype="i32")
    y = g.op("Multiply", [x, g.const([1, 2, 3, 4], np.int32)])
    y = g.op("Multiply", [y, g.const(3, np.int32)])
    z = g.op("Add", [x, g.const([1, 2, 3, 4], np.int32)])
    z = g.op("Add", [z, g.const(3, np.int32)])
    g.result(y, "y")
    g.result(z, "z")
    m = g.module()
    OVFuseLinearPass().apply(g.ctx, m)
    m.verify()
    assert op_counts(m)["Multiply"] == 2 and op_counts(m)["Add"] == 2


def test_chain_without_numpy_broadcast_stays() -> None:
    g = G()
    x = g.param([2, 4], "x")
    y = g.op("Multiply", [x, g.randc(2, 4)], {"auto_broadcast": "none"})
    g.result(g.op("Multiply", [y, g.randc(2, 4)]), "out")
    _run(g, {"Multiply": 2})


# -- Multiply(Add) -> Add(Multiply) ----------------------------------------------


def test_multiply_moves_before_add() -> None:
    g = G()
    x = g.param([2, 4], "x")
    y = g.op("Add", [x, g.randc(4)], name="add")
    g.result(g.op("Multiply", [y, g.randc(4)], name="mul", names=["mul:0"]), "out")
    m = _run(g, {"Multiply": 1, "Add": 1})
    add, mul = _only(m, "Add"), _only(m, "Multiply")
    assert mul.operands[0] is m.body.block.first_op.results[0]  # Multiply(x, c)
    assert add.operands[0] is mul.results[0]
    assert add.get_friendly_name() == "mul" and add.get_tensor_names(0) == ["mul:0"]
    assert mul.get_friendly_name() == "mul/moved"


def test_multiply_after_add_with_a_second_user_stays() -> None:
    g = G()
    x = g.param([2, 4], "x")
    y = g.op("Add", [x, g.randc(4)])
    g.result(g.op("Multiply", [y, g.randc(4)]), "out")
    g.result(g.op("Relu", [y]), "other")
    m = _run(g, {"Multiply": 1, "Add": 1})
    assert _only(m, "Multiply").operands[0] is _only(m, "Add").results[0]


# -- Multiply into convolution / MatMul weights ------------------------------------


def test_multiply_into_conv_takes_the_multiply_name() -> None:
    g = G()
    x = g.param([1, 3, 8, 8], "x")
    y = g.op("Multiply", [_conv(g, x), g.randc(1, 4, 1, 1)], name="scale", names=["s:0"])
    g.result(y, "out")
    m = _run(g, {"Multiply": 0, "Convolution": 1})
    conv = _only(m, "Convolution")
    assert conv.get_friendly_name() == "scale" and conv.get_tensor_names(0) == ["s:0"]
    assert conv.operands[1].owner.get_friendly_name() == "conv/fused_weights"


def test_full_tensor_scale_is_not_per_channel() -> None:
    g = G()
    x = g.param([1, 3, 8, 8], "x")
    g.result(g.op("Multiply", [_conv(g, x), g.randc(1, 4, 8, 8)]), "out")
    _run(g, {"Multiply": 1, "Convolution": 1})


def test_conv_with_non_constant_weights_stays() -> None:
    # f16 weights behind a Convert (a compressed model): not a constant
    g = G()
    x = g.param([1, 3, 8, 8], "x")
    w = g.op("Convert", [g.const(g.rng.standard_normal((4, 3, 3, 3)), np.float16)],
             {"destination_type": "f32"})
    y = g.op("Convolution", [x, w], dict(strides=[1, 1], dilations=[1, 1],
                                         pads_begin=[1, 1], pads_end=[1, 1]))
    g.result(g.op("Multiply", [y, g.randc(1, 4, 1, 1)]), "out")
    _run(g, {"Multiply": 1})


def test_matmul_row_scale_is_not_per_column() -> None:
    g = G()
    x = g.param([3, 5], "x")
    y = g.op("MatMul", [x, g.randc(5, 7)], {"transpose_a": False, "transpose_b": False})
    g.result(g.op("Multiply", [y, g.randc(3, 1)]), "out")
    _run(g, {"Multiply": 1, "MatMul": 1})


def test_matmul_with_a_second_user_stays() -> None:
    g = G()
    x = g.param([3, 5], "x")
    y = g.op("MatMul", [x, g.randc(5, 7)], {"transpose_a": False, "transpose_b": False})
    g.result(g.op("Multiply", [y, g.randc(7)]), "out")
    g.result(g.op("Relu", [y]), "other")
    _run(g, {"Multiply": 1, "MatMul": 1})


def test_matmul_with_variable_weights_stays() -> None:
    g = G()
    x = g.param([3, 5], "x")
    w = g.param([5, 7], "w")
    y = g.op("MatMul", [x, w], {"transpose_a": False, "transpose_b": False})
    g.result(g.op("Multiply", [y, g.randc(7)]), "out")
    _run(g, {"Multiply": 1, "MatMul": 1})


# -- BatchNormInference ------------------------------------------------------------


def _bn(g: G, y: Any, name: str = "bn", gamma: Any = None) -> Any:
    var = g.const(np.abs(g.rng.standard_normal(4)) + 0.5)
    gamma = g.randc(4) if gamma is None else gamma
    return g.op("BatchNormInference", [y, gamma, g.randc(4), g.randc(4), var],
                {"epsilon": 1e-3}, name=name)


def test_batch_norm_folds_and_the_conv_keeps_its_name() -> None:
    g = G()
    x = g.param([1, 3, 8, 8], "x")
    g.result(_bn(g, _conv(g, x, "conv1")), "out")
    m = _run(g, {"BatchNormInference": 0, "Multiply": 0, "Add": 1})
    # the scale Multiply was the pass's own: the convolution keeps its name
    assert _only(m, "Convolution").get_friendly_name() == "conv1"
    assert _only(m, "Add").get_friendly_name() == "bn"


def test_batch_norm_after_conv_with_a_second_user_stays() -> None:
    g = G()
    x = g.param([1, 3, 8, 8], "x")
    y = _conv(g, x)
    g.result(_bn(g, y), "out")
    g.result(g.op("Relu", [y]), "other")
    _run(g, {"BatchNormInference": 1, "Multiply": 0})


def test_batch_norm_with_a_variable_gamma_stays() -> None:
    g = G()
    x = g.param([1, 3, 8, 8], "x")
    gamma = g.param([4], "gamma")
    g.result(_bn(g, _conv(g, x), gamma=gamma), "out")
    _run(g, {"BatchNormInference": 1})


# -- zero Pad into convolution -----------------------------------------------------


def _pad(g: G, x: Any, begin: list[int], end: list[int], value: float = 0.0,
         mode: str = "constant") -> Any:
    inputs = [x, g.i64(begin), g.i64(end)]
    if mode == "constant":
        inputs.append(g.const(value))
    return g.op("Pad", inputs, {"pad_mode": mode})


def test_zero_pad_enters_group_convolution() -> None:
    g = G()
    x = g.param([1, 4, 8, 8], "x")
    p = _pad(g, x, [0, 0, 1, 0], [0, 0, 0, 1])
    y = g.op("GroupConvolution", [p, g.randc(2, 3, 2, 3, 3)],
             dict(strides=[1, 1], dilations=[1, 1], pads_begin=[0, 0], pads_end=[0, 0]),
             name="gconv")
    g.result(y, "out")
    m = _run(g, {"Pad": 0, "GroupConvolution": 1})
    conv = _only(m, "GroupConvolution")
    assert list(conv.attr("pads_begin")) == [1, 0] and list(conv.attr("pads_end")) == [0, 1]
    assert conv.get_friendly_name() == "gconv"


def test_pads_that_do_not_enter_the_convolution() -> None:
    g = G()
    x = g.param([1, 3, 8, 8], "x")
    negative = _pad(g, x, [0, 0, 1, -1], [0, 0, 1, 1])
    reflect = _pad(g, x, [0, 0, 1, 1], [0, 0, 1, 1], mode="reflect")
    nonzero = _pad(g, x, [0, 0, 1, 1], [0, 0, 1, 1], value=0.5)
    shared = _pad(g, x, [0, 0, 1, 1], [0, 0, 1, 1])
    for i, p in enumerate((negative, reflect, nonzero, shared)):
        g.result(_conv(g, p, f"conv{i}"), f"out{i}")
    g.result(g.op("Relu", [shared]), "other")
    _run(g, {"Pad": 4, "Convolution": 4})


def test_pad_before_same_upper_convolution_stays() -> None:
    g = G()
    x = g.param([1, 3, 8, 8], "x")
    p = _pad(g, x, [0, 0, 1, 1], [0, 0, 1, 1])
    y = g.op("Convolution", [p, g.randc(4, 3, 3, 3)],
             dict(strides=[1, 1], dilations=[1, 1], pads_begin=[0, 0], pads_end=[0, 0],
                  auto_pad="same_upper"))
    g.result(y, "out")
    _run(g, {"Pad": 1, "Convolution": 1})


# -- the dispatch the pass runs its patterns through ---------------------------------


def test_op_type_dispatch_tries_only_the_pattern_of_the_op_class() -> None:
    from xdsl.pattern_rewriter import PatternRewriter, PatternRewriteWalker, RewritePattern
    from xmo.dialects.ov.ops import AddOp, ReluOp
    from xmo.passes.pattern_dispatch import OpTypeDispatch

    seen: list[str] = []

    class Record(RewritePattern):
        def match_and_rewrite(self, op: Any, rewriter: PatternRewriter, /) -> None:
            seen.append(op.name)

    g = G()
    x = g.param([2], "x")
    g.result(g.op("Relu", [g.op("Add", [x, g.randc(2)])]), "out")
    walker = PatternRewriteWalker(OpTypeDispatch({AddOp: Record(), ReluOp: Record()}),
                                  apply_recursively=False)
    assert not walker.rewrite_module(g.module())
    assert seen == ["ov.Add", "ov.Relu"]
