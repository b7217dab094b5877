"""``ov-transpose-sinking``: NHWC graphs as a TensorFlow frontend emits them
(``Transpose -> NCHW op -> Transpose`` around every layout-sensitive op).

Every graph is checked for the exact number of Transposes left, identical
outputs before/after on xmo's CPU backend, a verifying module and unchanged
Result tensor names; some are also compiled in the OpenVINO runtime from the
serialized IR, with other batch sizes where the batch is dynamic.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from ov_graphs import C2N, C2N5, F32, N2C, N2C5, G  # noqa: E402
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import SSAValue
from xmo import compile_model
from xmo.dialects.ov import ResultOp
from xmo.dialects.ov.base import constant_value_of, dims_of
from xmo.passes import get_all_passes
from xmo.passes.transpose_sinking import OVTransposeSinkingPass


def count(module: ModuleOp, name: str = "ov.Transpose") -> int:
    return sum(1 for o in module.body.block.ops if o.name == name)


def result_names(module: ModuleOp) -> list[set[str]]:
    out = []
    for o in module.body.block.ops:
        if isinstance(o, ResultOp):
            v = o.operands[0]
            out.append(set(v.owner.get_tensor_names(v.index)))
    return out


def _close(got: Any, want: Any, msg: str, tol: float = 1e-5) -> None:
    got, want = np.asarray(got), np.asarray(want)
    assert got.shape == want.shape, f"{msg}: shape {got.shape} != {want.shape}"
    np.testing.assert_allclose(got, want, rtol=tol, atol=tol, err_msg=msg)


def sink(g: G, expected: int, feeds: list[np.ndarray] | None = None,
         **options: Any) -> tuple[ModuleOp, list[np.ndarray], list[np.ndarray]]:
    """Run the pass on ``g``'s module; check count, numerics, names, verification.
    Returns (module, feeds, reference outputs)."""
    m = g.module()
    m.verify()
    feeds = feeds if feeds is not None else g.feeds(2)
    ref = list(compile_model(m)(feeds))
    names = result_names(m)
    OVTransposeSinkingPass(**options).apply(g.ctx, m)
    m.verify()
    assert count(m) == expected, f"{count(m)} Transposes left, expected {expected}:\n{m}"
    got = list(compile_model(m)(feeds))
    assert len(got) == len(ref)
    for i, (a, b) in enumerate(zip(got, ref)):
        _close(a, b, f"output {i}")
    assert result_names(m) == names
    return m, feeds, ref


def run_openvino(m: ModuleOp, tmp_path, feeds: list[np.ndarray], reshape: dict | None = None):
    ov = pytest.importorskip("openvino")
    from xmo.backends.ir import serialize

    xml = tmp_path / "sunk.xml"
    serialize(m, xml)
    core = ov.Core()
    model = core.read_model(str(xml))
    if reshape:
        model.reshape(reshape)
    compiled = core.compile_model(model, "CPU", F32)
    res = compiled(feeds)
    return [np.asarray(res[o]) for o in compiled.outputs], compiled


# ---------------------------------------------------------------------------
# The reference graph of the brief
# ---------------------------------------------------------------------------


def _reference_graph(batch: int = -1) -> G:
    """Parameter NHWC -> T -> Conv -> T -> Add(bias) -> Relu -> T -> MaxPool -> T
    -> Concat with a strided-conv branch -> ReduceMean(axes [1,2]) -> Result,
    plus a shape sub-graph ShapeOf -> Gather -> Concat -> Reshape (flatten)."""
    g = G()
    x = g.param([batch, 8, 8, 3], "x")
    a = g.nhwc_conv(x, 4, name="conv1")
    a = g.op("Add", [a, g.randc(4)], name="bias")
    a = g.op("Relu", [a], name="relu")
    p = g.nhwc_pool(a, name="pool")
    b = g.nhwc_conv(x, 5, stride=2, name="conv2")
    cat = g.op("Concat", [p, b], dict(axis=3), name="cat")
    mean = g.op("ReduceMean", [cat, g.i64([1, 2])], dict(keep_dims=False), name="mean")
    g.result(mean, "features")
    shape = g.op("ShapeOf", [a], name="shape")
    bdim = g.op("Gather", [shape, g.i64([0]), g.i64(0)], name="batch")
    new_shape = g.op("Concat", [bdim, g.i64([-1])], dict(axis=0), name="new_shape")
    flat = g.op("Reshape", [a, new_shape], dict(special_zero=False), name="flatten")
    g.result(flat, "flat")
    return g


def test_reference_graph(tmp_path) -> None:
    g = _reference_graph()
    assert count(g.module()) == 6
    # 2 transposes left: after the input (two convs share it) and before the
    # flattening Reshape, which needs the NHWC element order
    m, feeds, ref = sink(g, 2)
    ops = [o.name for o in m.body.block.ops]
    assert "ov.ShapeOf" in ops  # not folded: the batch stays dynamic
    reduce = next(o for o in m.body.block.ops if o.name == "ov.ReduceMean")
    assert list(reduce.operands[1].owner.get_array()) == [2, 3]
    cat = next(o for o in m.body.block.ops if o.name == "ov.Concat" and o.get_friendly_name() == "cat")
    assert cat.attr("axis") == 1
    # the Transpose before the Reshape stands in for relu: it has its name
    t = next(o for o in m.body.block.ops if o.name == "ov.Transpose" and o.operands[0].owner.name == "ov.Relu")
    assert t.get_friendly_name() == "relu"
    assert t.operands[0].owner.get_friendly_name() == "relu/sunk"
    # the bias Add's stand-in vanished: it got its own name back
    assert any(o.get_friendly_name() == "bias" and o.name == "ov.Add" for o in m.body.block.ops)
    # OpenVINO: same outputs, output names, and other batch sizes
    got, compiled = run_openvino(m, tmp_path, feeds)
    for a, b in zip(got, ref):
        _close(a, b, "openvino", 1e-4)
    assert [o.get_names() for o in compiled.outputs] == [{"features"}, {"flat"}]
    og = _reference_graph()  # same seed: same weights (keep og: it owns them)
    original = og.module()
    for batch in (1, 3):
        f = g.feeds(batch)
        want = list(compile_model(original)(f))
        res = compiled(f)
        for o, w in zip(compiled.outputs, want):
            _close(res[o], w, f"openvino batch {batch}", 1e-4)
            assert res[o].shape[0] == batch


def test_static_batch_model_stays_reshapeable(tmp_path) -> None:
    """A static-batch model keeps its ShapeOf: OpenVINO can reshape it."""
    g = _reference_graph(batch=2)
    m, _, _ = sink(g, 2)
    assert count(m, "ov.ShapeOf") == 1
    dyn = _reference_graph(batch=-1)
    feeds = dyn.feeds(5)
    want = list(compile_model(dyn.module())(feeds))
    got, _ = run_openvino(m, tmp_path, feeds, reshape={"x": [5, 8, 8, 3]})
    for a, b in zip(got, want):
        _close(a, b, "reshaped to batch 5", 1e-4)


# ---------------------------------------------------------------------------
# Network-like graphs
# ---------------------------------------------------------------------------


def _resnet_like() -> G:
    g = G(1)
    x = g.param([-1, 8, 8, 4], "image")
    # block 1: identity shortcut
    a = g.nhwc_conv(x, 4, name="b1/conv1")
    a = g.op("Relu", [g.op("Add", [a, g.randc(4)], name="b1/bias1")], name="b1/relu1")
    a = g.nhwc_conv(a, 4, name="b1/conv2")
    a = g.op("Add", [a, x], name="b1/add")
    y = g.op("Relu", [a], name="b1/out")
    # block 2: projection shortcut, stride 2
    a = g.nhwc_conv(y, 8, stride=2, name="b2/conv1")
    a = g.op("Relu", [a], name="b2/relu1")
    a = g.nhwc_conv(a, 8, name="b2/conv2")
    s = g.nhwc_conv(y, 8, stride=2, name="b2/proj")
    a = g.op("Add", [a, s], name="b2/add")
    a = g.op("Relu", [a], name="b2/out")
    g.result(a, "logits_map")
    return g


def test_resnet_blocks(tmp_path) -> None:
    """Residual additions with an NHWC shortcut: the shortcut's existing
    Transpose to NCHW is reused, so all inner transposes vanish."""
    g = _resnet_like()
    before = count(g.module())
    assert before == 10
    m, feeds, ref = sink(g, 2)
    got, _ = run_openvino(m, tmp_path, feeds)
    _close(got[0], ref[0], "openvino", 1e-4)


def test_multiple_consumers() -> None:
    """A Transpose feeding Relu, Sigmoid and another conv sinks into each."""
    g = G(2)
    x = g.param([-1, 6, 6, 3], "x")
    a = g.nhwc_conv(x, 4, name="conv")
    g.result(g.op("Relu", [a], name="relu"), "r1")
    s = g.op("Sigmoid", [a], name="sig")
    g.result(g.nhwc_conv(s, 2, name="conv_s"), "r2")
    g.result(g.nhwc_conv(a, 2, name="conv_b"), "r3")
    assert count(g.module()) == 6
    # left: after x, before each of the 3 outputs
    m, _, _ = sink(g, 4)
    # non-transpose work is never duplicated
    for op_name in ("ov.Relu", "ov.Sigmoid", "ov.Convolution"):
        assert count(m, op_name) == {"ov.Convolution": 3}.get(op_name, 1)


def test_multiple_consumers_with_result() -> None:
    """A Transpose that also feeds a Result stays for it; its clones sink."""
    g = G(3)
    x = g.param([2, 4, 4, 3], "x")
    a = g.nhwc_conv(x, 4, name="conv")
    g.result(a, "nhwc_out")
    b = g.op("Exp", [g.op("Negative", [a], name="neg")], name="exp")
    g.result(g.nhwc_pool(b, name="pool"), "pooled")
    sink(g, 3)


def test_split_and_concat(tmp_path) -> None:
    g = G(4)
    x = g.param([-1, 6, 6, 3], "x")
    a = g.nhwc_conv(x, 6, name="conv")
    s1, s2 = g.op("Split", [a, g.i64(3)], dict(num_splits=2), name="split", n=2)
    v1, v2, v3 = g.op("VariadicSplit", [s2, g.i64(-1), g.i64([1, -1, 1])], name="vsplit", n=3)
    c = g.op("Concat", [g.op("Relu", [s1]), g.op("Sigmoid", [v1]), v2, g.op("Tanh", [v3])],
             dict(axis=-1), name="cat")
    g.result(g.nhwc_conv(c, 2, name="conv2"), "out")
    g.result(v2, "middle")
    # after x, before each output
    m, feeds, ref = sink(g, 3)
    middle = next(o for o in m.body.block.ops if o.get_tensor_names(0) == ["middle"])
    assert middle.name == "ov.Transpose" and middle.get_friendly_name() == "vsplit:1"
    got, _ = run_openvino(m, tmp_path, feeds)
    for a_, b_ in zip(got, ref):
        _close(a_, b_, "openvino", 1e-4)


def test_pad_between_convs() -> None:
    g = G(5)
    x = g.param([1, 6, 6, 3], "x")
    a = g.nhwc_conv(x, 4, name="conv")
    a = g.op("Pad", [a, g.i64([0, 1, 2, 0]), g.i64([0, 2, 1, 0]), g.const(0.5)],
             dict(pad_mode="constant"), name="pad")
    a = g.op("Pad", [a, g.i64([0, 1, 1, 0]), g.i64([0, 1, 0, 0])], dict(pad_mode="reflect"),
             name="pad2")
    g.result(g.nhwc_pool(a, name="pool"), "out")
    sink(g, 2)


def test_input_transpose_moves_above_pad_and_preprocessing() -> None:
    """Keras' stem: x * s + b (Rescaling), ZeroPadding2D, Conv2D: the
    Transpose before the convolution moves up to the input (the Pad then
    meets the convolution in NCHW, with its pads in that order)."""
    g = G(23)
    x = g.param([1, 6, 6, 3], "x")
    a = g.op("Add", [g.op("Multiply", [x, g.const(1 / 127.5)], name="scale"), g.randc(1, 1, 1, 3)], name="shift")
    a = g.op("Pad", [a, g.i64([0, 1, 2, 0]), g.i64([0, 2, 1, 0]), g.const(0.0)], dict(pad_mode="constant"),
             name="pad")
    g.result(g.nhwc_conv(a, 4, name="conv"), "out")
    m, _, _ = sink(g, 2)
    ops = [o for o in m.body.block.ops if o.name != "ov.Constant"]
    assert [o.name for o in ops[:5]] == ["ov.Parameter", "ov.Transpose", "ov.Multiply", "ov.Add", "ov.Pad"]
    pad = ops[4]
    assert pad.get_friendly_name() == "pad"
    assert constant_value_of(pad.operands[1]).tolist() == [0, 0, 1, 2]
    assert constant_value_of(pad.operands[2]).tolist() == [0, 0, 2, 1]


def test_input_transpose_near_miss_input_read_twice() -> None:
    """The input also feeds another branch: the Transpose stays below the Pad."""
    g = G(24)
    x = g.param([1, 6, 6, 3], "x")
    a = g.op("Pad", [x, g.i64([0, 1, 1, 0]), g.i64([0, 1, 1, 0]), g.const(0.0)], dict(pad_mode="constant"))
    g.result(g.nhwc_conv(a, 4, name="conv"), "out")
    g.result(g.op("Relu", [x]), "side")
    m, _, _ = sink(g, 2)
    pad = next(o for o in m.body.block.ops if o.name == "ov.Pad")
    assert pad.operands[0].owner.name == "ov.Parameter"


def test_squeeze_excite_block(tmp_path) -> None:
    """ReduceMean keep_dims -> Squeeze -> FC-ish -> Unsqueeze -> Multiply: the
    Transpose dies at the Squeeze; the one before the next conv moves back
    through Multiply and Unsqueeze and vanishes (backward sinking)."""
    g = G(6)
    x = g.param([-1, 6, 6, 3], "x")
    a = g.nhwc_conv(x, 4, name="conv")
    se = g.op("ReduceMean", [a, g.i64([1, 2])], dict(keep_dims=True), name="se/mean")
    se = g.op("Squeeze", [se, g.i64([1, 2])], name="se/squeeze")
    se = g.op("Sigmoid", [g.op("Multiply", [se, g.randc(4)], name="se/scale")], name="se/gate")
    se = g.op("Unsqueeze", [se, g.i64([1, 2])], name="se/unsqueeze")
    a = g.op("Multiply", [a, se], name="se/apply")
    g.result(g.nhwc_conv(a, 2, name="conv2"), "out")
    m, feeds, ref = sink(g, 2)
    got, _ = run_openvino(m, tmp_path, feeds)
    _close(got[0], ref[0], "openvino", 1e-4)


def test_squeeze_excite_without_backward() -> None:
    g = G(6)
    x = g.param([-1, 6, 6, 3], "x")
    a = g.nhwc_conv(x, 4, name="conv")
    se = g.op("ReduceMean", [a, g.i64([1, 2])], dict(keep_dims=True), name="se/mean")
    se = g.op("Squeeze", [se, g.i64([1, 2])], name="se/squeeze")
    se = g.op("Unsqueeze", [se, g.i64([1, 2])], name="se/unsqueeze")
    a = g.op("Multiply", [a, se], name="se/apply")
    g.result(g.nhwc_conv(a, 2, name="conv2"), "out")
    # forward only: Multiply(conv-branch, unsqueezed) is blocked at the
    # NHWC Unsqueeze, so a transpose stays before it
    sink(g, 4, backward=False)


def test_keep_dims_false_and_unsqueeze_rank_changes() -> None:
    g = G(7)
    x = g.param([2, 5, 6, 3], "x")
    t = g.T(x, N2C)
    r = g.op("ReduceSum", [t, g.i64([3])], dict(keep_dims=False), name="rsum")  # [2,3,5]
    u = g.op("Unsqueeze", [r, g.i64([0, -1])], name="unsq")  # [1,2,3,5,1]
    g.result(g.op("Relu", [u], name="relu"), "out")
    g.result(g.op("ReduceMax", [t, g.i64([0, 1])], dict(keep_dims=False), name="rmax"), "out2")
    # ReduceMax over N and C of NCHW: the remaining HW order equals x's, no transpose;
    # ReduceSum over W leaves [N, C, H] of x's [N, H, C]: one transpose, sunk to the end
    sink(g, 1)


def test_5d_layout() -> None:
    g = G(8)
    x = g.param([-1, 4, 4, 4, 2], "x")
    t = g.T(x, N2C5)
    c = g.op("Convolution", [t, g.randc(3, 2, 1, 1, 1)], dict(
        strides=[1, 1, 1], dilations=[1, 1, 1], pads_begin=[0, 0, 0], pads_end=[0, 0, 0]))
    a = g.T(c, C2N5)
    a = g.op("Clamp", [a], dict(min=-0.5, max=0.5), name="clamp")
    a = g.op("Multiply", [a, g.randc(1, 1, 1, 3)], name="scale")
    g.result(g.op("Softmax", [a], dict(axis=-1), name="softmax"), "probs")
    # one after the input, one before the output (moved down from the conv)
    m, _, _ = sink(g, 2)
    softmax = next(o for o in m.body.block.ops if o.name == "ov.Softmax")
    assert softmax.attr("axis") == 1
    (use,) = softmax.results[0].uses
    assert use.operation.name == "ov.Transpose"
    assert next(iter(use.operation.results[0].uses)).operation.name == "ov.Result"


# ---------------------------------------------------------------------------
# Single-op sinking: T(x, NCHW->NHWC) -> op -> T(NHWC->NCHW) cancels
# ---------------------------------------------------------------------------


def _unary(name: str, attrs: dict | None = None, extra: list | None = None):
    return lambda g, t: g.op(name, [t, *(extra(g) if extra else [])], attrs)


SAME_RANK_CASES = {
    "Relu": _unary("Relu"),
    "Clamp": _unary("Clamp", dict(min=-1.0, max=0.5)),
    "Sigmoid": _unary("Sigmoid"),
    "Tanh": _unary("Tanh"),
    "Elu": _unary("Elu", dict(alpha=0.7)),
    "Exp": _unary("Exp"),
    "Abs": _unary("Abs"),
    "Negative": _unary("Negative"),
    "Erf": _unary("Erf"),
    "Gelu": _unary("Gelu", dict(approximation_mode="TANH")),
    "HSwish": _unary("HSwish"),
    "SoftPlus": _unary("SoftPlus"),
    "Floor": _unary("Floor"),
    "Ceiling": _unary("Ceiling"),
    "Swish": _unary("Swish", extra=lambda g: [g.const(1.5)]),
    "HardSigmoid": _unary("HardSigmoid", extra=lambda g: [g.const(0.2), g.const(0.5)]),
    "Convert": lambda g, t: g.op("Convert", [g.op("Convert", [t], dict(destination_type="f16"))],
                                 dict(destination_type="f32")),
    "Sqrt": lambda g, t: g.op("Sqrt", [g.op("Abs", [t])]),
    "LogicalNot": lambda g, t: g.op("Select", [
        g.op("LogicalNot", [g.op("Greater", [t, g.const(0.0)])]), t, g.const(-1.0)]),
    "Add-const-C": lambda g, t: g.op("Add", [t, g.randc(3)]),
    "Sub-const-4d": lambda g, t: g.op("Subtract", [g.randc(1, 4, 1, 3), t]),
    "Mul-scalar": lambda g, t: g.op("Multiply", [t, g.const(3.0)]),
    "Div-ones": lambda g, t: g.op("Divide", [t, g.const([[[2.0]]])]),
    "Max-same-order": lambda g, t: g.op("Maximum", [t, g.T(g.param([2, 3, 4, 5], "y"), C2N)]),
    "Min-self": lambda g, t: g.op("Minimum", [t, t]),
    "Power": lambda g, t: g.op("Power", [g.op("Abs", [t]), g.const([0.5, 1, 2])]),
    "SquaredDifference": lambda g, t: g.op("SquaredDifference", [t, g.randc(5, 1)]),
    "Less-Select": lambda g, t: g.op("Select", [g.op("Less", [t, g.randc(3)]), t, g.randc(4, 1, 1)]),
    "PRelu-C": lambda g, t: g.op("PRelu", [t, g.const([0.1, 0.2, 0.3])]),  # numpy: last dim
    "PRelu-channel": lambda g, t: g.op("PRelu", [t, g.const([0.1, 0.2, 0.3, 0.4])]),  # dim 1 is 4
    "FakeQuantize": lambda g, t: g.op("FakeQuantize", [
        t, g.const(-1.0), g.const([1, 2, 3]), g.const(-1.0), g.const(1.0)], dict(levels=16)),
    "Concat-const": lambda g, t: g.op("Concat", [t, g.randc(2, 4, 5, 2)], dict(axis=3)),
    "Softmax": lambda g, t: g.op("Softmax", [t], dict(axis=3)),
    "LogSoftmax": lambda g, t: g.op("LogSoftmax", [t], dict(axis=-2)),
    "ReduceMean-keep": lambda g, t: g.op("ReduceMean", [t, g.i64([1, 2])], dict(keep_dims=True)),
    "ReduceL2-keep": lambda g, t: g.op("ReduceL2", [t, g.i64([-1])], dict(keep_dims=True)),
    "ReduceProd-keep": lambda g, t: g.op("ReduceProd", [t, g.i64([2])], dict(keep_dims=True)),
    "Pad": lambda g, t: g.op("Pad", [t, g.i64([0, 1, 0, 2]), g.i64([1, 0, 1, 0])], dict(pad_mode="edge")),
    "Tile": lambda g, t: g.op("Tile", [t, g.i64([2, 1, 3])]),
    "Slice": lambda g, t: g.op("Slice", [t, g.i64([1, 0]), g.i64([4, 5]), g.i64([2, 2]), g.i64([1, -1])]),
    "Slice-no-axes": lambda g, t: g.op("Slice", [t, g.i64([0, 1, 3]), g.i64([2, 4, 0]), g.i64([1, 1, -1])]),
    "StridedSlice": lambda g, t: g.op("StridedSlice", [t, g.i64([0, 1, 1]), g.i64([0, 4, 5]), g.i64([1, 1, 2])],
                                      dict(begin_mask=[1, 0, 0], end_mask=[1, 0, 0])),
    "Interpolate": lambda g, t: g.op("Interpolate", [t, g.i64([8, 6]), g.i64([1, 2])],
                                     dict(mode="nearest", shape_calculation_mode="sizes")),
    "Gather-1d": lambda g, t: g.op("Gather", [t, g.i64([2, 0, 1]), g.i64(-1)]),
    "CumSum": lambda g, t: g.op("CumSum", [t, g.i64(1)], dict(reverse=True)),
    # Reverse-1 has no shape inference in xmo: explicit result type
    "Reverse": lambda g, t: g.typed("Reverse_opset1", [t, g.i64([1, 3])], dict(mode="index"), t.type),
    "Reverse-mask": lambda g, t: g.typed("Reverse_opset1", [t, g.const([0, 1, 1, 0], np.bool_)],
                                         dict(mode="mask"), t.type),
    "TopK": lambda g, t: g.op("TopK", [t, g.i64(2)], dict(axis=2, mode="max", sort="value"), n=2)[0],
    "MVN": lambda g, t: g.op("MVN", [t, g.i64([3])], dict(eps=1e-5, normalize_variance=True,
                                                          eps_mode="INSIDE_SQRT")),
    "NormalizeL2": lambda g, t: g.op("NormalizeL2", [t, g.i64([3])], dict(eps=1e-6, eps_mode="add")),
}


@pytest.mark.parametrize("case", sorted(SAME_RANK_CASES))
def test_same_rank_op_cancels(case: str) -> None:
    g = G(9)
    x = g.param([2, 3, 4, 5], "x")
    t = g.T(x, C2N)  # [2,4,5,3]: "NHWC" with C=3
    y = SAME_RANK_CASES[case](g, t)
    g.result(g.T(y, N2C), "out")
    assert count(g.module()) >= 2
    sink(g, 0)


OPENVINO_CASES = ["Interpolate", "MVN", "NormalizeL2", "StridedSlice", "Slice-no-axes",
                  "PRelu-channel", "FakeQuantize", "TopK", "Reverse"]


@pytest.mark.parametrize("case", OPENVINO_CASES)
def test_same_rank_op_in_openvino(case: str, tmp_path) -> None:
    g = G(10)
    x = g.param([2, 3, 4, 5], "x")
    y = SAME_RANK_CASES[case](g, g.T(x, C2N))
    g.result(g.T(y, N2C), "out")
    m, feeds, ref = sink(g, 0)
    got, _ = run_openvino(m, tmp_path, feeds)
    _close(got[0], ref[0], "openvino", 1e-4)


RANK_CHANGING_CASES = {
    # name: (builder, transposes left)
    "ReduceMean-axes12": (lambda g, t: g.op("ReduceMean", [t, g.i64([1, 2])]), 0),
    "ReduceMax-axis3": (lambda g, t: g.op("ReduceMax", [t, g.i64([3])]), 0),
    "ReduceSum-axis1": (lambda g, t: g.op("ReduceSum", [t, g.i64([1])]), 1),
    "Squeeze": (lambda g, t: g.op("Squeeze", [g.op("ReduceMin", [t, g.i64([2])], dict(keep_dims=True)),
                                              g.i64([2])]), 1),
    "Squeeze-all": (lambda g, t: g.op("Squeeze", [g.op("ReduceMin", [t, g.i64([1, 2])],
                                                       dict(keep_dims=True))]), 0),
    "Unsqueeze": (lambda g, t: g.op("Unsqueeze", [t, g.i64([0, 3])]), 1),
    "Gather-scalar": (lambda g, t: g.op("Gather", [t, g.i64(1), g.i64(3)]), 0),
    "Gather-scalar-moved": (lambda g, t: g.op("Gather", [t, g.i64(2), g.i64(1)]), 1),
    "ShapeOf": (lambda g, t: g.op("ShapeOf", [t]), 0),
}


@pytest.mark.parametrize("case", sorted(RANK_CHANGING_CASES))
def test_rank_changing_op(case: str) -> None:
    g = G(11)
    x = g.param([2, 3, 4, 5], "x")
    build, left = RANK_CHANGING_CASES[case]
    y = build(g, g.T(x, C2N))
    if case == "ShapeOf":
        y = g.op("Convert", [y], dict(destination_type="f32"))
    g.result(y, "out")
    m, _, _ = sink(g, left)
    if case == "ShapeOf":
        assert count(m, "ov.ShapeOf") == 1 and count(m, "ov.Gather") == 1


# ---------------------------------------------------------------------------
# Cleanup rules
# ---------------------------------------------------------------------------


def test_cancel_merge_identity_and_fold() -> None:
    g = G(12)
    x = g.param([2, 3, 4, 5], "x")
    a = g.T(g.T(x, [0, 2, 3, 1]), [0, 3, 1, 2], name="back")  # cancels
    g.result(g.op("Relu", [a], name="relu"), "cancelled")
    b = g.T(g.T(x, [1, 0, 2, 3]), [0, 1, 3, 2], name="merged")  # merges into one
    g.result(b, "merged_out")
    c = g.T(x, [0, 1, 2, 3], name="noop")  # identity
    g.result(g.op("Exp", [c], name="exp"), "identity")
    w = g.T(g.randc(3, 5), [1, 0], name="wT")  # constant: folds
    g.result(g.op("MatMul", [g.op("Reshape", [x, g.i64([-1, 5])], dict(special_zero=False)), w]),
             "matmul")
    m, _, _ = sink(g, 1)
    t = next(o for o in m.body.block.ops if o.name == "ov.Transpose")
    assert t.get_friendly_name() == "merged"
    assert list(t.operands[1].owner.get_array()) == [1, 0, 3, 2]
    assert t.get_tensor_names(0) == ["merged_out"]
    assert any(o.get_friendly_name() == "wT" and o.name == "ov.Constant" for o in m.body.block.ops)


def test_cancel_before_result_moves_names() -> None:
    """T2(Relu(T1(x))) -> Result: everything cancels; the Result keeps its name."""
    g = G(13)
    x = g.param([-1, 4, 4, 3], "x")
    y = g.T(g.op("Relu", [g.T(x, N2C, name="t1")], name="relu"), C2N, name="t2")
    g.result(y, "y")
    m, _, _ = sink(g, 0)
    relu = next(o for o in m.body.block.ops if o.name == "ov.Relu")
    assert relu.get_tensor_names(0) == ["y"]
    assert relu.get_friendly_name() == "relu"


def test_large_constant_folds() -> None:
    """Folding a Transpose of a constant never grows data: any size folds."""
    g = G(14)
    x = g.param([1, 512, 600], "x")
    w = g.T(g.randc(600, 512), [1, 0])  # 1.2 MB
    g.result(g.op("Add", [x, w]), "out")
    sink(g, 0)


def _add_of_transposed_and_raw() -> G:
    g = G(15)
    a = g.param([2, 3, 4, 5], "a")
    b = g.param([2, 4, 5, 3], "b")
    y = g.op("Add", [g.T(a, C2N), b], name="add")
    g.result(g.T(y, N2C, name="out_t"), "out")
    return g


def test_backward_through_add_with_parameter() -> None:
    """Add(T(a), b) -> T(inverse) -> Result: moving the last Transpose above the
    Add cancels one and adds one on b: 2 -> 1 (forward sinking alone cannot:
    b is a raw input)."""
    m, _, _ = sink(_add_of_transposed_and_raw(), 1)
    add = next(o for o in m.body.block.ops if o.name == "ov.Add")
    assert add.get_tensor_names(0) == ["out"]
    assert add.get_friendly_name() == "add"
    sink(_add_of_transposed_and_raw(), 2, backward=False)


def test_non_constant_order_and_reshape_block() -> None:
    g = G(16)
    x = g.param([2, 3, 4, 5], "x")
    order = g.param([4], "order", etype="i64")
    g.result(g.op("Relu", [g.op("Transpose", [x, order])]), "dyn")
    t = g.T(x, C2N)
    g.result(g.op("Reshape", [g.op("Relu", [t]), g.i64([2, -1])], dict(special_zero=False)), "flat")
    m = g.module()
    feeds = [g.rng.standard_normal((2, 3, 4, 5)).astype(np.float32), np.array([0, 2, 1, 3])]
    ref = list(compile_model(m)(feeds))
    OVTransposeSinkingPass().apply(g.ctx, m)
    m.verify()
    assert count(m) == 2
    for a, b in zip(compile_model(m)(feeds), ref):
        _close(a, b, "out")


def test_no_transposes_is_a_noop() -> None:
    g = G(17)
    x = g.param([2, 3, 4, 5], "x")
    g.result(g.op("Relu", [g.op("Add", [x, g.randc(5)])]), "out")
    m = g.module()
    text = str(m)
    OVTransposeSinkingPass().apply(g.ctx, m)
    assert str(m) == text


def test_nothing_to_sink_is_a_noop() -> None:
    g = G(18)
    x = g.param([2, 4, 4, 3], "x")
    g.result(g.nhwc_conv(x, 2), "out")
    m = g.module()
    text = str(m)
    OVTransposeSinkingPass().apply(g.ctx, m)
    assert str(m) == text


def test_rt_info_is_carried() -> None:
    g = G(19)
    x = g.param([2, 4, 4, 3], "x")
    t = g.T(x, N2C, name="t")
    t.owner.set_rt_info("layout_origin", "nhwc")
    r = g.op("Relu", [t], name="relu")
    r.owner.set_rt_info("fused_names", "relu")
    g.result(r, "out")
    m, _, _ = sink(g, 1)
    relu = next(o for o in m.body.block.ops if o.name == "ov.Relu")
    tr = next(o for o in m.body.block.ops if o.name == "ov.Transpose")
    assert relu.get_rt_info() == {"fused_names": "relu"}
    assert tr.get_rt_info() == {"layout_origin": "nhwc"}
    assert tr.get_friendly_name() == "relu" and relu.get_friendly_name() == "relu/sunk"


def test_registered_and_options() -> None:
    assert get_all_passes()["ov-transpose-sinking"]() is OVTransposeSinkingPass
    assert OVTransposeSinkingPass(backward=False).backward is False


def test_compressed_constant_operand() -> None:
    """A bias behind a decompression Convert (f16 -> f32) is transposed at the
    constant; the Convert and its rt_info stay."""
    g = G(20)
    x = g.param([2, 4, 4, 3], "x")
    a = g.nhwc_conv(x, 4)
    cvt = g.op("Convert", [g.const(g.rng.standard_normal((1, 4, 4)), np.float16)],
               dict(destination_type="f32"), name="bias/decompress")
    cvt.owner.set_rt_info("decompression")
    g.result(g.op("Add", [a, cvt], name="add"), "out")
    m, _, _ = sink(g, 2)
    convert = next(o for o in m.body.block.ops if o.name == "ov.Convert")
    assert convert.get_rt_info() == {"decompression": ""}
    assert convert.get_friendly_name() == "bias/decompress"
    assert str(convert.operands[0].type) == "tensor<1x4x1x4xf16>"


def test_blocked_by_nhwc_input() -> None:
    """Concat of a transposed conv output with a raw NHWC input: nothing sinks
    (a Transpose on the input would only move the cost)."""
    g = G(21)
    x = g.param([2, 4, 4, 3], "x")
    y = g.param([2, 4, 4, 2], "y")
    c = g.op("Concat", [g.nhwc_conv(x, 4), y], dict(axis=3), name="cat")
    g.result(g.op("Relu", [c]), "out")
    sink(g, 2)


# ---------------------------------------------------------------------------
# Random NHWC graphs
# ---------------------------------------------------------------------------


def _random_graph(seed: int, n_ops: int = 40) -> G:
    """Random mixes of NHWC convs/pools/BatchNorm (Transpose-wrapped), elementwise
    ops with constants or other branches, Concat, SE blocks, Split, Pad,
    Interpolate, Softmax, FakeQuantize, Slice, arbitrary Transposes, Gather,
    TopK, StridedSlice, reductions; a few outputs, some flattened through a
    ShapeOf sub-graph."""
    g = G(seed)
    r = np.random.default_rng(seed + 1000)
    pool = [g.param([-1 if r.random() < 0.5 else 2, 4, 4, 3], "x0")]
    if r.random() < 0.5:
        pool.append(g.param([dims_of(pool[0].type)[0], 4, 4, 5], "x1"))

    def ch(v: SSAValue) -> int:
        return dims_of(v.type)[3]

    for i in range(n_ops):
        k = int(r.integers(19))
        v = pool[int(r.integers(len(pool)))]
        if k == 0:
            out = g.nhwc_conv(v, int(r.integers(1, 6)), name=f"conv{i}")
        elif k == 1:
            out = g.op(["Relu", "Sigmoid", "Tanh", "Abs", "Negative"][int(r.integers(5))], [v])
        elif k == 2:
            same = [w for w in pool if dims_of(w.type)[1:] == dims_of(v.type)[1:] and w is not v]
            kind = int(r.integers(4))
            if kind == 0:
                o = same[int(r.integers(len(same)))] if same else g.const(2.0)
            elif kind == 1:
                o = g.randc(ch(v))
            elif kind == 2:
                o = g.randc(1, 1, dims_of(v.type)[2], ch(v))
            else:
                o = g.const(0.5)
            ins = [v, o] if r.random() < 0.5 else [o, v]
            out = g.op(["Add", "Multiply", "Maximum", "Subtract"][int(r.integers(4))], ins)
        elif k == 3:
            same = [w for w in pool if dims_of(w.type)[1:3] == dims_of(v.type)[1:3]]
            out = g.op("Concat", [v, same[int(r.integers(len(same)))]], dict(axis=int(r.choice([3, -1]))))
        elif k == 4:
            se = g.op("ReduceMean", [v, g.i64([1, 2])], dict(keep_dims=True))
            if r.random() < 0.5:
                se = g.op("Unsqueeze", [g.op("Squeeze", [se, g.i64([1, 2])]), g.i64([1, 2])])
            out = g.op("Multiply", [v, g.op("Sigmoid", [se])])
        elif k == 5 and ch(v) % 2 == 0:
            out, rest = g.op("Split", [v, g.i64(3)], dict(num_splits=2), n=2)
            pool.append(rest)
        elif k == 6:
            p = g.op("Pad", [v, g.i64([0, 1, 1, 0]), g.i64([0, 1, 1, 0])], dict(pad_mode="edge"))
            out = g.nhwc_pool(g.op("Relu", [p]), name=f"pool{i}")
            out = g.op("Interpolate", [out, g.i64([4, 4]), g.i64([1, 2])],
                       dict(mode="nearest", shape_calculation_mode="sizes"))
        elif k == 7:
            out = g.op("Softmax", [v], dict(axis=3))
        elif k == 8:
            c = ch(v)
            bn = g.op("BatchNormInference", [g.T(v, N2C), g.randc(c), g.randc(c), g.randc(c),
                                             g.const(np.abs(g.rng.standard_normal(c)) + 0.5)],
                      dict(epsilon=1e-3))
            out = g.T(bn, C2N)
        elif k == 9:
            out = g.op("FakeQuantize", [v, g.const(-1.0), g.const(1.0), g.const(-1.0), g.const(1.0)],
                       dict(levels=255))
        elif k == 10:
            out = g.op("Slice", [v, g.i64([0]), g.i64([ch(v)]), g.i64([1]), g.i64([3])])
        elif k == 11:
            out = g.T(g.op("Relu", [g.T(v, N2C)]), C2N)
        elif k == 12:
            out = g.T(v, [0] + [int(j) + 1 for j in r.permutation(3)])
        elif k == 13:
            out = g.op("Add", [v, v]) if r.random() < 0.5 else g.op(
                "Concat", [v, g.op("Abs", [v])], dict(axis=2))
        elif k == 14:
            ax = int(r.integers(1, 4))
            out = g.op("Unsqueeze", [g.op("Negative", [g.op("Gather", [v, g.i64(0), g.i64(ax)])]),
                                     g.i64([ax])])
        elif k == 15:
            top = g.op("TopK", [v, g.i64(1)], dict(axis=3, mode="max", sort="value"), n=2)[0]
            out = g.op("Multiply", [v, top])
        elif k == 16:
            out = g.op("StridedSlice", [v, g.i64([0, 0, 1]), g.i64([0, 0, 100]), g.i64([1, 1, 1])],
                       dict(begin_mask=[1, 1, 0], end_mask=[1, 1, 0]))
            out = g.op("Pad", [out, g.i64([0, 0, 1, 0]), g.i64([0, 0, 0, 0])])
        elif k == 17:
            ax = int(r.integers(1, 4))
            red = g.op("ReduceSum", [v, g.i64([ax])], dict(keep_dims=False))
            out = g.op("Add", [v, g.op("Unsqueeze", [g.op("Sigmoid", [red]), g.i64([ax])])])
        else:
            soft = g.op("Softmax", [v], dict(axis=int(r.integers(4))))
            out = g.op("Select", [g.op("Greater", [v, g.const(0.0)]), v, soft])
        pool.append(out)
    for i, v in enumerate(dict.fromkeys(pool[-3:])):
        if r.random() < 0.3:
            b = g.op("Gather", [g.op("ShapeOf", [v]), g.i64([0]), g.i64(0)])
            v = g.op("Reshape", [v, g.op("Concat", [b, g.i64([-1])], dict(axis=0))],
                     dict(special_zero=False))
        g.result(v, f"out{i}")
    return g


@pytest.mark.parametrize("seed", range(24))
def test_random_graph(seed: int) -> None:
    g = _random_graph(seed)
    m = g.module()
    m.verify()
    feeds = g.feeds(2)
    ref = list(compile_model(m)(feeds))
    names, before = result_names(m), count(m)
    OVTransposeSinkingPass().apply(g.ctx, m)
    m.verify()
    assert count(m) <= before
    for i, (a, b) in enumerate(zip(compile_model(m)(feeds), ref)):
        _close(a, b, f"output {i}", 1e-4)
    assert result_names(m) == names


@pytest.mark.parametrize("seed", [3, 7, 11])
def test_random_graph_in_openvino(seed: int, tmp_path) -> None:
    """The sunk model computes in OpenVINO what the original computes there."""
    g = _random_graph(seed)
    m = g.module()
    feeds = g.feeds(2)
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    ref, _ = run_openvino(m, tmp_path / "a", feeds)
    OVTransposeSinkingPass().apply(g.ctx, m)
    got, _ = run_openvino(m, tmp_path / "b", feeds)
    for i, (a, b) in enumerate(zip(got, ref)):
        _close(a, b, f"output {i}", 2e-4)


def test_prelu_channel_slope_matching_last_dim_too(tmp_path) -> None:  # noqa: ANN001
    """PRelu's 1-D slope equal to both dim 1 and the last dim is per channel
    (OpenVINO's rule; xmo's CPU kernel was fixed to agree): sinking keeps it so."""
    g = G(22)
    x = g.param([2, 3, 3, 4], "x")
    t = g.T(x, C2N)  # [2, 3, 4, 3]
    y = g.op("PRelu", [t, g.const([0.1, 0.5, 2.0])], name="prelu")
    g.result(g.T(y, N2C), "out")
    m = g.module()
    feeds = [-np.abs(g.rng.standard_normal((2, 3, 3, 4))).astype(np.float32)]
    (tmp_path / "a").mkdir()
    ref, _ = run_openvino(m, tmp_path / "a", feeds)
    slope = np.array([0.1, 0.5, 2.0], np.float32)
    want = np.transpose(np.transpose(feeds[0], C2N) * slope[None, :, None, None], N2C)
    _close(ref[0], want, "openvino reads it per channel")
    m, _, xmo_ref = sink(g, 0, feeds)
    _close(xmo_ref[0], want, "xmo reads it per channel")
    got, _ = run_openvino(m, tmp_path, feeds)
    _close(got[0], want, "after sinking, in openvino")


# ---------------------------------------------------------------------------
# The engine: rules decline with Skip (rolled back); other errors propagate
# ---------------------------------------------------------------------------


def _relu_graph() -> G:
    g = G(5)
    x = g.param([1, 4, 4, 3], "x")
    r = g.op("Relu", [g.T(x, N2C, name="t1")], name="relu")
    g.result(g.T(r, C2N, name="t2"), "y")
    return g


def _replace_rule(monkeypatch, name: str, rule) -> None:  # noqa: ANN001
    from xmo.passes.transpose_sinking import engine

    monkeypatch.setitem(engine.FORWARD_RULES, name, rule)


@pytest.mark.parametrize("signal", ["skip", "shape-inference"])
def test_a_declined_rule_is_rolled_back(monkeypatch, signal) -> None:  # noqa: ANN001
    """A rule declines with Skip, or shape inference of an op it built rejects
    it (a VerifyException): what it built is erased, the graph is as before."""
    from xmo.dialects.ov.base import ShapeInferenceError
    from xmo.passes.transpose_sinking.engine import Skip

    def declines(s, op, t, p):  # noqa: ANN001, ANN202
        s.rebuild(op, [t.operands[0]], fallback_perm=p)  # built, then declined
        s.transpose(t.operands[0], (0, 2, 1, 3), op)
        if signal == "skip":
            raise Skip("declined on purpose")
        raise ShapeInferenceError("the new operands do not fit")

    _replace_rule(monkeypatch, "ov.Relu", declines)
    g = _relu_graph()
    m = g.module()
    before = [o.name for o in m.body.block.ops]
    OVTransposeSinkingPass(backward=False).apply(g.ctx, m)
    m.verify()
    assert [o.name for o in m.body.block.ops] == before
    assert count(m) == 2


@pytest.mark.parametrize("error", [RuntimeError, ValueError, KeyError, AssertionError])
def test_an_error_in_a_rule_is_not_swallowed(monkeypatch, error) -> None:  # noqa: ANN001
    def broken(s, op, t, p):  # noqa: ANN001, ANN202
        raise error("a bug in a rule")

    _replace_rule(monkeypatch, "ov.Relu", broken)
    g = _relu_graph()
    with pytest.raises(error, match="a bug in a rule"):
        OVTransposeSinkingPass().apply(g.ctx, g.module())


def test_an_error_in_a_backward_rule_is_not_swallowed(monkeypatch) -> None:  # noqa: ANN001
    from xmo.passes.transpose_sinking import engine

    def broken(op, q):  # noqa: ANN001, ANN202
        raise IndexError("a bug in a backward rule")

    monkeypatch.setitem(engine.BACKWARD_RULES, "ov.Relu", broken)
    g = G(6)
    x = g.param([1, 3, 4, 4], "x")
    g.result(g.T(g.op("Relu", [x], name="relu"), C2N, name="t"), "y")
    with pytest.raises(IndexError, match="a bug in a backward rule"):
        OVTransposeSinkingPass().apply(g.ctx, g.module())


def test_one_rule_per_op_name() -> None:
    from xmo.passes.transpose_sinking.engine import backward_rule, forward_rule

    with pytest.raises(ValueError, match="two forward transpose sinking rules for ov.Relu"):
        forward_rule("ov.Relu")(lambda s, op, t, p: False)
    with pytest.raises(ValueError, match="two backward transpose sinking rules for ov.Squeeze"):
        backward_rule("ov.Squeeze")(lambda op, q: None)



# ---------------------------------------------------------------------------
# Reshape: a Transpose that moves only size-1 dimensions is a reshape
# ---------------------------------------------------------------------------


def _tf_squeeze_excite(target: str = "unit", special_zero: bool = False) -> G:
    """Keras' squeeze-excite as TF freezes it: ReduceMean (keep_dims false)
    -> Reshape to [N, 1, 1, C] with N read from ShapeOf (StridedSlice with
    shrink) -> 1x1 conv (NCHW, Transposes around) -> Multiply."""
    g = G(21)
    x = g.param([-1, 6, 6, 3], "x")
    a = g.nhwc_conv(x, 4, name="conv")
    se = g.op("ReduceMean", [a, g.i64([1, 2])], dict(keep_dims=False), name="se/squeeze")
    shp = g.op("ShapeOf", [se], dict(output_type="i32"), name="se/shape")
    n = g.op("StridedSlice", [shp, g.i64([0]), g.i64([1]), g.i64([1])], dict(
        begin_mask=[0], end_mask=[0], new_axis_mask=[0], shrink_axis_mask=[1],
        ellipsis_mask=[0]), name="se/batch")
    n = g.op("Unsqueeze", [n, g.i64([0])], name="se/batch1")
    one = g.const([1], np.int32)
    pieces = {"unit": [n, one, one, g.const([4], np.int32)],
              "nonunit": [n, g.const([2], np.int32), one, g.const([2], np.int32)],
              "zero": [n, g.const([0], np.int32), g.const([1], np.int32), g.const([4], np.int32)]}
    shape = g.op("Concat", pieces[target], dict(axis=0), name="se/target")
    if target == "zero":
        se = g.op("Unsqueeze", [se, g.i64([1])], name="se/unsq")  # [N, 1, 4]
    r = g.op("Reshape", [se, shape], dict(special_zero=special_zero), name="se/reshape",
             names=["se/reshape:0"])
    t = g.T(r, N2C, name="se/reduce/to_nchw")
    cin = 2 if target == "nonunit" else 4
    c = g.op("Convolution", [t, g.randc(4, cin, 1, 1)], dict(
        strides=[1, 1], dilations=[1, 1], pads_begin=[0, 0], pads_end=[0, 0]), name="se/reduce")
    r = g.op("Sigmoid", [g.T(c, C2N, name="se/reduce/to_nhwc")], name="se/gate")
    if target == "unit":
        g.result(g.op("Multiply", [a, r], name="se/excite"), "out")
    else:
        g.result(r, "out")
    return g


def _n1(module: ModuleOp, name: str):
    return next(o for o in module.body.block.ops if o.name == name)


def test_reshape_absorbs_transpose_of_dynamic_target(tmp_path) -> None:
    """The Transpose after the [N, 1, 1, C] Reshape becomes the Reshape's
    target reordered to [N, C, 1, 1] (its Concat pieces swapped): one
    Transpose left after the input, one before the output."""
    from xmo.graph.rt_info import get_fused_names, init_node_info
    from xmo.graph import Graph

    g = _tf_squeeze_excite()
    init_node_info(Graph(g.module(), g.ctx))
    m, feeds, ref = sink(g, 2)
    r = _n1(m, "ov.Reshape")
    assert r.get_friendly_name() == "se/reshape"
    assert r.operands[1].owner.name == "ov.Concat"
    assert r.operands[1].owner.get_friendly_name() == "se/target"
    assert "se/reshape:0" not in r.get_tensor_names(0)  # the NHWC value is gone
    assert set(get_fused_names(r)) == {"se/reshape", "se/reduce/to_nchw"}
    got, _ = run_openvino(m, tmp_path, feeds)
    _close(got[0], ref[0], "openvino", 1e-4)


def test_reshape_absorb_near_misses() -> None:
    """Non-unit dims that would change order, and with special_zero an
    element 0 that would move: the Transpose stays."""
    sink(_tf_squeeze_excite("nonunit"), 3)
    m, _, _ = sink(_tf_squeeze_excite("zero", special_zero=True), 3)
    assert count(m, "ov.Reshape") == 1


def test_reshape_absorbs_constant_target() -> None:
    g = G(22)
    x = g.param([2, 6], "x")
    r = g.op("Reshape", [x, g.i64([2, 1, 1, 6])], dict(special_zero=False), name="r")
    g.result(g.op("Relu", [g.T(r, N2C, name="t")], name="relu"), "y")
    m, _, _ = sink(g, 0)
    assert list(constant_value_of(_n1(m, "ov.Reshape").operands[1])) == [2, 6, 1, 1]


def test_reshape_forward_drops_unit_dim_transpose() -> None:
    """Reshape(T(x, p)) with p moving only size-1 dims reads x directly;
    a Transpose that reorders two non-unit dims stays."""
    g = G(23)
    x = g.param([-1, 4, 1, 1], "x")
    t = g.T(x, C2N, name="t")  # [N, 1, 1, 4]
    g.result(g.op("Reshape", [t, g.i64([-1, 4])], dict(special_zero=False), name="flat"), "y")
    sink(g, 0)
    g = G(24)
    x = g.param([-1, 4, 2, 1], "x")
    t = g.T(x, C2N, name="t")  # [N, 2, 1, 4]: 4 and 2 swap
    g.result(g.op("Reshape", [t, g.i64([-1, 8])], dict(special_zero=False), name="flat"), "y")
    sink(g, 1)
    g = G(25)
    x = g.param([-1, 4, 1, 1], "x")
    t = g.T(x, C2N, name="t")
    g.result(g.op("Reshape", [t, g.i64([0, 4])], dict(special_zero=True), name="flat"), "y")
    sink(g, 1)  # special_zero with a 0 in the target: not through


def test_unsqueeze_and_transpose_become_one_reshape(tmp_path) -> None:
    """Keras' Conv1D on a one-channel waveform: [N, T, 1] -> ExpandDims ->
    NCHW Transpose -> conv. The Transpose moves only size-1 dims: Unsqueeze
    and Transpose become one Reshape (N kept by special_zero)."""
    from xmo.graph import Graph
    from xmo.graph.rt_info import get_fused_names, init_node_info

    g = G(26)
    x = g.param([-1, 16, 1], "x")
    a = g.op("Unsqueeze", [x, g.i64([1])], name="expand")  # [N, 1, 16, 1]
    t = g.T(a, N2C, name="expand/to_nchw")  # [N, 1, 1, 16]
    c = g.op("Convolution", [t, g.randc(4, 1, 1, 3)], dict(
        strides=[1, 1], dilations=[1, 1], pads_begin=[0, 1], pads_end=[0, 1]), name="conv")
    g.result(g.op("Squeeze", [c, g.i64([2])], name="squeeze"), "y")
    init_node_info(Graph(g.module(), g.ctx))
    m, feeds, ref = sink(g, 0)
    r = _n1(m, "ov.Reshape")
    assert r.operands[0].owner.name == "ov.Parameter"
    assert list(constant_value_of(r.operands[1])) == [0, 1, 1, 16] and r.attr("special_zero")
    assert r.get_friendly_name() == "expand"
    assert set(get_fused_names(r)) == {"expand", "expand/to_nchw"}
    assert count(m, "ov.Unsqueeze") == 0
    got, _ = run_openvino(m, tmp_path, feeds)
    _close(got[0], ref[0], "openvino", 1e-4)


def test_squeeze_absorb_and_near_miss() -> None:
    """T(Squeeze(x)) moving only size-1 dims -> Reshape; with two channels
    the same Transpose moves data: it stays."""
    g = G(27)
    x = g.param([-1, 1, 6, 1], "x")
    s = g.op("Squeeze", [x, g.i64([1])], name="sq")  # [N, 6, 1]
    g.result(g.op("Relu", [g.T(s, [0, 2, 1], name="t")], name="relu"), "y")  # [N, 1, 6]
    m, _, _ = sink(g, 0)
    assert list(constant_value_of(_n1(m, "ov.Reshape").operands[1])) == [0, 1, 6]
    g = G(28)
    x = g.param([-1, 16, 2], "x")
    a = g.op("Unsqueeze", [x, g.i64([1])], name="expand")  # [N, 1, 16, 2]
    g.result(g.op("Relu", [g.T(a, N2C, name="t")], name="relu"), "y")  # [N, 2, 1, 16]
    m, _, _ = sink(g, 1)
    assert count(m, "ov.Reshape") == 0
