"""Passes with bodies: every pass of the default pipeline leaves verifiable IR
with the same outputs when Loop / TensorIterator / If are present, works
inside the bodies where it should (folding, CSE, DCE, fusions, fp16
compression, shape refinement, linear fusions) and never moves a value across a body's
boundary; a Loop or If whose inputs are all constants folds through the CPU
kernels."""

from __future__ import annotations

import numpy as np
import pytest
from control_flow_irs import write_irs
from xdsl.dialects.builtin import ModuleOp

from xmo.backends.cpu import CompiledModel
from xmo.backends.ir import read_ir
from xmo.context import attach_context, context_of, make_context, weight_store
from xmo.dialects.ov import ConstantOp, IfOp, LoopOp, ParameterOp, ResultOp, op_class
from xmo.dialects.ov.base import tensor
from xmo.dialects.ov.control_ops import make_body
from xmo.dialects.ov.port_map import ConcatOutput, InvariantInput, LastOutput, MergedInput
from xmo.passes import get_all_passes

PIPELINE_PASSES = [
    "ov-infer-shapes", "ov-constant-fold", "ov-transpose-sinking", "ov-cse", "ov-fusions",
    "ov-fuse-linear", "ov-dce", "ov-compress-fp16", "ov-loop-to-sequence",
]


def _run(module: ModuleOp, name: str) -> None:
    ctx = context_of(module)
    if ctx is None:
        ctx = make_context()
        attach_context(module, ctx)
    get_all_passes()[name]()().apply(ctx, module)
    module.verify()


def _names(block) -> list[str]:
    return [op.name for op in block.ops]


def _model():
    """A Loop (run-time trip count) whose body holds a constant sub-graph, a
    duplicate op, a dead op, a Swish pattern and a 64-element weight; a
    Transpose before it."""
    ctx = make_context()
    store = weight_store(ctx)
    o = {n: op_class(n) for n in ("Add", "Multiply", "Relu", "Sigmoid", "Transpose", "MatMul")}
    n = ParameterOp.new("i64", [], name="n")
    x = ParameterOp.new("f32", [8, 8], name="x")
    perm = ConstantOp.from_array(np.array([1, 0], np.int64))
    xt = o["Transpose"].make([x, perm])
    go = ConstantOp.from_array(np.array(True))
    w = np.random.default_rng(0).standard_normal((8, 8)).astype(np.float32) / 8

    def body(v):
        c = o["Add"].make([ConstantOp.from_array(np.float32(1.5)),
                           ConstantOp.from_array(np.float32(0.5))])  # folds to 2
        r1, r2 = o["Relu"].make([v]), o["Relu"].make([v])  # CSE
        o["Sigmoid"].make([r1])  # dead
        s = o["Multiply"].make([r2, o["Sigmoid"].make([r2])])  # Swish
        m = o["MatMul"].make([s, ConstantOp.from_array(w, store=store)])
        out = o["Add"].make([o["Multiply"].make([m, c]), r1])
        return [ConstantOp.from_array(np.array(True)), out]

    region = make_body([tensor("f32", [-1, 8])], body)  # refined to [8, 8]
    loop = LoopOp.new(n, go, [xt], region, [MergedInput(2, 0, 1)], [LastOutput(1, 0)],
                      body_condition_output_idx=0)
    module = ModuleOp([n, x, perm, xt, go, loop, ResultOp.new(loop.results[0], name="y")])
    attach_context(module, ctx)
    module.verify()
    return module, loop


def _outputs(module, feed):
    return [np.asarray(a) for a in CompiledModel(module)(feed)]


FEED = {"n": np.array(3, np.int64),
        "x": np.random.default_rng(1).standard_normal((8, 8)).astype(np.float32)}


@pytest.mark.parametrize("name", PIPELINE_PASSES)
def test_pass_keeps_outputs(name):
    module, _ = _model()
    want = _outputs(module, FEED)
    _run(module, name)
    got = _outputs(module, FEED)
    tol = 1e-2 if name == "ov-compress-fp16" else 1e-5
    for a, b in zip(want, got):
        np.testing.assert_allclose(b, a, rtol=tol, atol=tol)


def _body_ops(module) -> list[str]:
    loop = next(op for op in module.body.block.ops if isinstance(op, LoopOp))
    return _names(loop.body.block)


def test_passes_work_inside_bodies():
    module, _ = _model()
    before = _body_ops(module)
    _run(module, "ov-cse")
    assert _body_ops(module).count("ov.Relu") == 1 and before.count("ov.Relu") == 2
    _run(module, "ov-dce")
    assert _body_ops(module).count("ov.Sigmoid") == 1
    _run(module, "ov-constant-fold")
    assert "ov.Add" in _body_ops(module) and _body_ops(module).count("ov.Add") == 1
    _run(module, "ov-fusions")
    assert "ov.Swish" in _body_ops(module)
    _run(module, "ov-compress-fp16")
    body = _body_ops(module)
    assert "ov.Convert" in body  # the body's weight, decompressed inside the body


def test_infer_shapes_refines_body_parameters():
    module, loop = _model()
    param = next(iter(loop.body.block.ops))
    assert param.results[0].type == tensor("f32", [-1, 8])
    _run(module, "ov-infer-shapes")
    assert param.results[0].type == tensor("f32", [8, 8])


def test_transpose_sinking_stops_at_the_body():
    module, _ = _model()
    body_before = _body_ops(module)
    _run(module, "ov-transpose-sinking")
    assert "ov.Transpose" in _names(module.body.block)
    assert _body_ops(module) == body_before


def _constant_loop_and_if():
    add = op_class("Add")
    n = ConstantOp.from_array(np.array(4, np.int64))
    go = ConstantOp.from_array(np.array(True))
    v0 = ConstantOp.from_array(np.array([1.0, 2.0], np.float32))
    step = ConstantOp.from_array(np.array([0.5, -1.0], np.float32))
    unsq = op_class("Unsqueeze")
    region = make_body(
        [tensor("f32", [2]), tensor("f32", [2])],
        lambda v, s: [ConstantOp.from_array(np.array(True)), add.make([v, s]),
                      unsq.make([add.make([v, s]), ConstantOp.from_array(np.array([0], np.int64))])],
    )
    loop = LoopOp.new(n, go, [v0, step], region, [MergedInput(2, 0, 1), InvariantInput(3, 1)],
                      [LastOutput(1, 0), ConcatOutput(2, 1, axis=0)], body_condition_output_idx=0,
                      name="loop")
    cond = ConstantOp.from_array(np.array(False))
    iff = IfOp.new(
        cond, [loop.results[0]],
        make_body([tensor("f32", [2])], lambda p: [add.make([p, p])]), ([InvariantInput(1, 0)], [LastOutput(0, 0)]),
        make_body([tensor("f32", [2])], lambda p: [op_class("Negative").make([p])]),
        ([InvariantInput(1, 0)], [LastOutput(0, 0)]), name="branch",
    )
    ops = [n, go, v0, step, loop, cond, iff]
    module = ModuleOp([*ops, ResultOp.new(loop.results[1], name="all"),
                       ResultOp.new(iff.results[0], name="picked")])
    module.verify()
    return module


def test_constant_control_flow_folds():
    module = _constant_loop_and_if()
    want = _outputs(module, {})
    _run(module, "ov-constant-fold")
    _run(module, "ov-dce")
    assert {op.name for op in module.body.block.ops} == {"ov.Constant", "ov.Result"}
    for a, b in zip(want, _outputs(module, {})):
        np.testing.assert_array_equal(a, b)
    np.testing.assert_allclose(want[1], -np.array([3.0, -2.0]))


@pytest.fixture(scope="module")
def irs(tmp_path_factory):
    return write_irs(tmp_path_factory.mktemp("control_irs_passes"))


@pytest.mark.parametrize("case", ["if", "loop", "loop_cond", "scan", "nested", "ti", "ti_reverse"])
def test_passes_on_openvino_written_irs(irs, case):
    xml, feed = irs[case]
    module = read_ir(xml)
    want = _outputs(module, feed)
    for name in PIPELINE_PASSES:
        _run(module, name)
    got = _outputs(module, feed)
    for a, b in zip(want, got):
        np.testing.assert_allclose(b, a, rtol=1e-2, atol=1e-2)


def test_fuse_linear_inside_a_body():
    """A Multiply by a constant after a MatMul folds into the body's weights."""
    matmul, mul = op_class("MatMul"), op_class("Multiply")
    n = ParameterOp.new("i64", [], name="n")
    x = ParameterOp.new("f32", [4, 4], name="x")
    go = ConstantOp.from_array(np.array(True))
    w = np.random.default_rng(2).standard_normal((4, 4)).astype(np.float32)
    body = make_body([tensor("f32", [4, 4])], lambda v: [
        ConstantOp.from_array(np.array(True)),
        mul.make([matmul.make([v, ConstantOp.from_array(w)]),
                  ConstantOp.from_array(np.full((1, 4), 0.5, np.float32))]),
    ])
    loop = LoopOp.new(n, go, [x], body, [MergedInput(2, 0, 1)], [LastOutput(1, 0)],
                      body_condition_output_idx=0)
    module = ModuleOp([n, x, go, loop, ResultOp.new(loop.results[0], name="y")])
    want = _outputs(module, FEED | {"x": FEED["x"][:4, :4].copy()})
    _run(module, "ov-fuse-linear")
    assert "ov.Multiply" not in _names(loop.body.block)
    got = _outputs(module, FEED | {"x": FEED["x"][:4, :4].copy()})
    np.testing.assert_allclose(got[0], want[0], rtol=1e-5, atol=1e-5)


def test_new_fusions_inside_a_body():
    """Keras' LayerNormalization (mvn-affine-fusion, with rsqrt-to-power on the
    way) and a Negative read by a Multiply (negative-fold) inside a Loop body."""
    o = {n: op_class(n) for n in ("Add", "Multiply", "Negative", "ReduceMean", "SquaredDifference",
                                  "Sqrt", "Divide")}
    n = ParameterOp.new("i64", [], name="n")
    x = ParameterOp.new("f32", [4, 8], name="x")
    go = ConstantOp.from_array(np.array(True))
    rng = np.random.default_rng(3)
    gamma, beta = (rng.uniform(0.5, 1.5, (1, 8)).astype(np.float32) for _ in range(2))

    def body(v):
        v = o["Multiply"].make([o["Negative"].make([v]), ConstantOp.from_array(np.float32(0.5))])
        axes = ConstantOp.from_array(np.array([-1], np.int64))
        mean = o["ReduceMean"].make([v, axes], {"keep_dims": True})
        var = o["ReduceMean"].make([o["SquaredDifference"].make([v, mean]), axes], {"keep_dims": True})
        inv = o["Divide"].make([ConstantOp.from_array(np.float32(1.0)), o["Sqrt"].make(
            [o["Add"].make([var, ConstantOp.from_array(np.float32(1e-6))])])])
        inv = o["Multiply"].make([inv, ConstantOp.from_array(gamma)])
        shift = o["Add"].make([o["Multiply"].make([o["Negative"].make([mean]), inv]), ConstantOp.from_array(beta)])
        return [ConstantOp.from_array(np.array(True)), o["Add"].make([o["Multiply"].make([v, inv]), shift])]

    loop = LoopOp.new(n, go, [x], make_body([tensor("f32", [4, 8])], body), [MergedInput(2, 0, 1)],
                      [LastOutput(1, 0)], body_condition_output_idx=0)
    module = ModuleOp([n, x, go, loop, ResultOp.new(loop.results[0], name="y")])
    feed = FEED | {"x": FEED["x"][:4].copy()}
    want = _outputs(module, feed)
    _run(module, "ov-fusions")
    _run(module, "ov-dce")
    body_ops = _names(loop.body.block)
    assert "ov.MVN" in body_ops and "ov.Negative" not in body_ops and "ov.ReduceMean" not in body_ops
    np.testing.assert_allclose(_outputs(module, feed)[0], want[0], rtol=1e-4, atol=1e-4)
