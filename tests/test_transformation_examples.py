"""The documented transformation examples (examples/transformations): each is
applied to a model, checked for structure, names and runtime info, computed
with xmo's CPU backend and with OpenVINO from the written IR, and compared
with numpy."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import openvino as ov
import pytest
from xdsl.parser import Parser
from xmo import compile_model
from xmo.backends.ir import serialize
from xmo.context import make_context
from xmo.dialects.ov.base import OVOp
from xmo.extensions import load_extension_ops, load_extension_passes
from xmo.graph import Graph
from xmo.passes.transformations import InitNodeInfo, Manager

EXAMPLES = Path(__file__).resolve().parents[1] / "examples" / "transformations"
PASSES = load_extension_passes(EXAMPLES)
RNG = np.random.default_rng(7)


def parse(src: str):
    ctx = make_context()
    load_extension_ops(ctx, EXAMPLES)
    module = Parser(ctx, src).parse_module()
    module.verify()
    return ctx, module


def apply(ctx, module, *names: str, **options):
    mgr = Manager(ctx)
    for name in names:
        mgr.register_pass(PASSES[name](**options) if options else PASSES[name]())
    changed = mgr.run_passes(module)
    return changed


def ops(module) -> list[tuple[str, str | None]]:
    return [
        (op.OV_TYPE, op.get_friendly_name())
        for op in module.body.block.ops
        if isinstance(op, OVOp)
    ]


def node(ctx, module, name: str):
    found = Graph(module, ctx).get_node_by_name(name)
    assert found is not None, name
    return found


def run_both(module, tmp_path, inputs: dict[str, np.ndarray]):
    """(xmo CPU outputs, OpenVINO outputs, OpenVINO model) of ``module``."""
    ours = [np.asarray(v) for v in compile_model(module)(inputs)]
    xml = tmp_path / "model.xml"
    serialize(module, xml)
    model = ov.Core().read_model(str(xml))
    compiled = ov.Core().compile_model(
        model, "CPU", {"INFERENCE_PRECISION_HINT": "f32"}
    )
    res = compiled(inputs)
    theirs = [np.asarray(res[o]) for o in compiled.outputs]
    return ours, theirs, model


def ov_layer(model, name: str):
    return next(op for op in model.get_ordered_ops() if op.get_friendly_name() == name)


def ov_fused(model, name: str) -> str:
    return ov_layer(model, name).get_rt_info()["fused_names_0"].astype(str)


# -- replacing Negative with Multiply by -1 ------------------------------------------------

NEG = """
builtin.module {
  %x = "ov.Parameter"() <{friendly_name = "x", tensor_names = [["x"]]}> : () -> tensor<2x3xf32>
  %i = "ov.Parameter"() <{friendly_name = "i", tensor_names = [["i"]]}> : () -> tensor<4xi32>
  %n = "ov.Negative"(%x) <{friendly_name = "neg", tensor_names = [["y"]], rt_info = {fused_names = ["neg"]}}> : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %ni = "ov.Negative"(%i) <{friendly_name = "neg_i", tensor_names = [["yi"]]}> : (tensor<4xi32>) -> tensor<4xi32>
  "ov.Result"(%n) <{friendly_name = "out"}> : (tensor<2x3xf32>) -> ()
  "ov.Result"(%ni) <{friendly_name = "out_i"}> : (tensor<4xi32>) -> ()
}
"""


def test_convert_negative(tmp_path):
    ctx, m = parse(NEG)
    assert apply(ctx, m, "convert-negative")
    assert ("Multiply", "neg") in ops(m) and ("Multiply", "neg_i") in ops(m)
    assert all(t != "Negative" for t, _ in ops(m))
    mul = node(ctx, m, "neg")
    assert mul.get_rt_info() == {"fused_names": ["neg"]}
    assert mul.in_port(1).data.get_value() == -1
    assert node(ctx, m, "neg_i").in_port(1).data.get_element_type() == "i32"
    x = RNG.standard_normal((2, 3)).astype(np.float32)
    i = np.arange(4, dtype=np.int32)
    ours, theirs, model = run_both(m, tmp_path, {"x": x, "i": i})
    for got in (ours, theirs):
        np.testing.assert_array_equal(got[0], -x)
        np.testing.assert_array_equal(got[1], -i)
    assert ov_layer(model, "neg").get_type_name() == "Multiply"
    assert ov_fused(model, "neg") == "neg"
    assert [o.get_names() for o in model.outputs] == [{"y"}, {"yi"}]


# -- inserting an op after a node ------------------------------------------------------------

INSERT = """
builtin.module {
  %x = "ov.Parameter"() <{friendly_name = "x", tensor_names = [["x"]]}> : () -> tensor<2x3xf32>
  %r = "ov.Relu"(%x) <{friendly_name = "conv", tensor_names = [["conv_out"]]}> : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %e = "ov.Exp"(%r) <{friendly_name = "exp", tensor_names = [["e"]]}> : (tensor<2x3xf32>) -> tensor<2x3xf32>
  "ov.Result"(%e) <{friendly_name = "out"}> : (tensor<2x3xf32>) -> ()
  "ov.Result"(%r) <{friendly_name = "out_conv"}> : (tensor<2x3xf32>) -> ()
}
"""


def test_insert_scale_moves_the_consumers(tmp_path):
    ctx, m = parse(INSERT)
    assert apply(ctx, m, "insert-scale", node="conv", scale=0.5)
    scale = node(ctx, m, "conv/scale")
    assert scale.in_node(0).name == "conv"
    assert [d.node.name for d in scale.out_port(0).get_destinations()] == [
        "exp",
        "out_conv",
    ]
    assert node(ctx, m, "conv").out_port(0).get_tensor_names() == ["conv_out"]
    x = RNG.standard_normal((2, 3)).astype(np.float32)
    ours, theirs, _ = run_both(m, tmp_path, {"x": x})
    for got in (ours, theirs):
        np.testing.assert_allclose(got[0], np.exp(np.maximum(x, 0) * 0.5), rtol=1e-6)
        np.testing.assert_allclose(got[1], np.maximum(x, 0) * 0.5, rtol=1e-6)


def test_insert_scale_can_move_the_names():
    ctx, m = parse(INSERT)
    apply(ctx, m, "insert-scale", node="conv", scale=2.0, move_names=True)
    assert node(ctx, m, "conv/scale").out_port(0).get_tensor_names() == ["conv_out"]
    assert node(ctx, m, "conv").out_port(0).get_tensor_names() == []


def test_insert_scale_names_a_missing_node():
    ctx, m = parse(INSERT)
    with pytest.raises(Exception, match="insert-scale: no op named 'nope'"):
        apply(ctx, m, "insert-scale", node="nope")


# -- eliminating an op with its names kept ---------------------------------------------------

ELIM = """
builtin.module {
  %x = "ov.Parameter"() <{friendly_name = "x", tensor_names = [["x"]]}> : () -> tensor<2x3xf32>
  %r = "ov.Relu"(%x) <{friendly_name = "relu", rt_info = {fused_names = ["relu"]}}> : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %c = "ov.Convert"(%r) <{destination_type = "f32", friendly_name = "to_f32", tensor_names = [["y"]], rt_info = {fused_names = ["to_f32"]}}> : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %h = "ov.Convert"(%x) <{destination_type = "f16", friendly_name = "to_f16", tensor_names = [["h"]]}> : (tensor<2x3xf32>) -> tensor<2x3xf16>
  "ov.Result"(%c) <{friendly_name = "out"}> : (tensor<2x3xf32>) -> ()
  "ov.Result"(%h) <{friendly_name = "out_h"}> : (tensor<2x3xf16>) -> ()
}
"""


def test_eliminate_nop_convert_keeps_names(tmp_path):
    ctx, m = parse(ELIM)
    assert apply(ctx, m, "eliminate-nop-convert")
    assert ops(m) == [
        ("Parameter", "x"),
        ("Relu", "to_f32"),  # the survivor took the eliminated op's name
        ("Convert", "to_f16"),  # a real conversion stays
        ("Result", "out"),
        ("Result", "out_h"),
    ]
    relu = node(ctx, m, "to_f32")
    assert relu.out_port(0).get_tensor_names() == ["y"]
    assert relu.get_rt_info() == {"fused_names": ["relu", "to_f32"]}
    x = RNG.standard_normal((2, 3)).astype(np.float32)
    ours, theirs, model = run_both(m, tmp_path, {"x": x})
    for got in (ours, theirs):
        np.testing.assert_array_equal(got[0], np.maximum(x, 0))
    assert [o.get_names() for o in model.outputs] == [{"y"}, {"h"}]
    assert ov_fused(model, "to_f32") == "relu,to_f32"


# -- Divide -> Power(-1) + Multiply ---------------------------------------------------------------

DIV = """
builtin.module {
  %x = "ov.Parameter"() <{friendly_name = "x", tensor_names = [["x"]]}> : () -> tensor<2x3xf32>
  %y = "ov.Parameter"() <{friendly_name = "y", tensor_names = [["y"]]}> : () -> tensor<3xf32>
  %i = "ov.Parameter"() <{friendly_name = "i", tensor_names = [["i"]]}> : () -> tensor<3xi32>
  %d = "ov.Divide"(%x, %y) <{friendly_name = "div", tensor_names = [["q"]], rt_info = {fused_names = ["div"], primitives_priority = "cpu:ref"}}> : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  %di = "ov.Divide"(%i, %i) <{friendly_name = "div_i"}> : (tensor<3xi32>, tensor<3xi32>) -> tensor<3xi32>
  "ov.Result"(%d) <{friendly_name = "out"}> : (tensor<2x3xf32>) -> ()
  "ov.Result"(%di) <{friendly_name = "out_i"}> : (tensor<3xi32>) -> ()
}
"""


def test_convert_divide(tmp_path):
    ctx, m = parse(DIV)
    assert apply(ctx, m, "convert-divide")
    assert ("Multiply", "div") in ops(m) and ("Divide", "div_i") in ops(m)
    mul = node(ctx, m, "div")
    power = mul.in_node(1)
    assert power.type == "Power" and power.name is None
    assert power.in_port(1).data.get_value() == -1.0
    info = {"fused_names": ["div"], "primitives_priority": "cpu:ref"}
    for n in (mul, power, power.in_node(1)):
        assert n.get_rt_info() == info
    x = RNG.standard_normal((2, 3)).astype(np.float32)
    y = RNG.uniform(0.5, 2.0, 3).astype(np.float32)
    i = np.array([1, 2, 3], np.int32)
    ours, theirs, model = run_both(m, tmp_path, {"x": x, "y": y, "i": i})
    for got in (ours, theirs):
        np.testing.assert_allclose(got[0], x / y, rtol=1e-6)
    assert ov_layer(model, "div").get_type_name() == "Multiply"
    assert ov_fused(model, "div") == "div"
    assert model.outputs[0].get_names() == {"q"}


# -- Mish fusion -----------------------------------------------------------------------------------

MISH = """
builtin.module {
  %x = "ov.Parameter"() <{friendly_name = "x", tensor_names = [["x"]]}> : () -> tensor<2x5xf32>
  %a = "ov.Relu"(%x) <{friendly_name = "relu"}> : (tensor<2x5xf32>) -> tensor<2x5xf32>
  %sp = "ov.SoftPlus"(%a) <{friendly_name = "softplus"}> : (tensor<2x5xf32>) -> tensor<2x5xf32>
  %t = "ov.Tanh"(%sp) <{friendly_name = "tanh"}> : (tensor<2x5xf32>) -> tensor<2x5xf32>
  %m = "ov.Multiply"(%a, %t) <{friendly_name = "mish_mul", tensor_names = [["mish"]]}> : (tensor<2x5xf32>, tensor<2x5xf32>) -> tensor<2x5xf32>
  %sp2 = "ov.SoftPlus"(%x) <{friendly_name = "softplus2"}> : (tensor<2x5xf32>) -> tensor<2x5xf32>
  %t2 = "ov.Tanh"(%sp2) <{friendly_name = "tanh2", tensor_names = [["t2"]]}> : (tensor<2x5xf32>) -> tensor<2x5xf32>
  %m2 = "ov.Multiply"(%t2, %x) <{friendly_name = "not_mish", tensor_names = [["m2"]]}> : (tensor<2x5xf32>, tensor<2x5xf32>) -> tensor<2x5xf32>
  "ov.Result"(%m) <{friendly_name = "out"}> : (tensor<2x5xf32>) -> ()
  "ov.Result"(%m2) <{friendly_name = "out2"}> : (tensor<2x5xf32>) -> ()
  "ov.Result"(%t2) <{friendly_name = "out_t2"}> : (tensor<2x5xf32>) -> ()
}
"""


def mish(v: np.ndarray) -> np.ndarray:
    return v * np.tanh(np.log1p(np.exp(v)))


def test_mish_fusion(tmp_path):
    ctx, m = parse(MISH)
    mgr = Manager(ctx)
    mgr.register_pass(InitNodeInfo())
    mgr.register_pass(PASSES["mish-fusion"]())
    assert mgr.run_passes(m)
    # the second chain's Tanh is also a model output: not fused
    assert ("Mish", "mish_mul") in ops(m) and ("Multiply", "not_mish") in ops(m)
    assert ("SoftPlus", "softplus") not in ops(m) and ("Tanh", "tanh") not in ops(m)
    fused = node(ctx, m, "mish_mul")
    assert fused.get_rt_info() == {"fused_names": ["mish_mul", "softplus", "tanh"]}
    assert fused.in_node(0).name == "relu"
    assert fused.out_port(0).get_tensor_names() == ["mish"]
    x = RNG.standard_normal((2, 5)).astype(np.float32)
    ours, theirs, model = run_both(m, tmp_path, {"x": x})
    for got in (ours, theirs):
        np.testing.assert_allclose(got[0], mish(np.maximum(x, 0)), rtol=1e-5, atol=1e-6)
        np.testing.assert_allclose(got[1], mish(x), rtol=1e-5, atol=1e-6)
    assert ov_layer(model, "mish_mul").get_type_name() == "Mish"
    assert ov_fused(model, "mish_mul") == "mish_mul,softplus,tanh"


# -- Pack -> Unsqueeze + Concat ----------------------------------------------------------------------

PACK = """
builtin.module {
  %a = "ov.Parameter"() <{friendly_name = "a", tensor_names = [["a"]]}> : () -> tensor<2x3xf32>
  %b = "ov.Parameter"() <{friendly_name = "b", tensor_names = [["b"]]}> : () -> tensor<2x3xf32>
  %p = "ov.Pack"(%a, %b, %a) <{axis = 1 : i64, friendly_name = "pack", tensor_names = [["packed"]], rt_info = {fused_names = ["pack"]}}> : (tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3x3xf32>
  %q = "ov.Pack"(%a, %b) <{axis = -1 : i64, friendly_name = "pack_last"}> : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3x2xf32>
  "ov.Result"(%p) <{friendly_name = "out"}> : (tensor<2x3x3xf32>) -> ()
  "ov.Result"(%q) <{friendly_name = "out_last"}> : (tensor<2x3x2xf32>) -> ()
}
"""


def test_pack_to_unsqueeze_concat(tmp_path):
    ctx, m = parse(PACK)
    assert apply(ctx, m, "pack-to-unsqueeze-concat")
    assert all(t != "Pack" for t, _ in ops(m))
    concat = node(ctx, m, "pack")
    assert concat.type == "Concat" and concat["axis"] == 1
    assert [p.get_source().node.type for p in concat.in_ports().values()] == [
        "Unsqueeze"
    ] * 3
    assert concat.in_node(1).name == "pack/unsqueeze_1"
    assert concat.in_node(1).get_rt_info() == {"fused_names": ["pack"]}
    assert concat.out_port(0).get_tensor_names() == ["packed"]
    a = RNG.standard_normal((2, 3)).astype(np.float32)
    b = RNG.standard_normal((2, 3)).astype(np.float32)
    ours, theirs, model = run_both(m, tmp_path, {"a": a, "b": b})
    for got in (ours, theirs):
        np.testing.assert_array_equal(got[0], np.stack([a, b, a], axis=1))
        np.testing.assert_array_equal(got[1], np.stack([a, b], axis=-1))
    assert model.outputs[0].get_names() == {"packed"}


# -- Squeeze: axes attribute -> axes input -------------------------------------------------------------

SQUEEZE = """
builtin.module {
  %x = "ov.Parameter"() <{friendly_name = "x", tensor_names = [["x"]]}> : () -> tensor<1x3x1x4xf32>
  %s = "ov.Squeeze_xmo_example"(%x) <{squeeze_dims = array<i64: 0, -2>, friendly_name = "squeeze", tensor_names = [["s"]]}> : (tensor<1x3x1x4xf32>) -> tensor<3x4xf32>
  %t = "ov.Squeeze_xmo_example"(%x) <{friendly_name = "squeeze_all"}> : (tensor<1x3x1x4xf32>) -> tensor<3x4xf32>
  "ov.Result"(%s) <{friendly_name = "out"}> : (tensor<3x4xf32>) -> ()
  "ov.Result"(%t) <{friendly_name = "out_all"}> : (tensor<3x4xf32>) -> ()
}
"""


def test_squeeze_axes_to_input(tmp_path):
    ctx, m = parse(SQUEEZE)
    assert apply(ctx, m, "squeeze-axes-to-input")
    sq = node(ctx, m, "squeeze")
    assert (sq.type, sq.version) == ("Squeeze", "opset15")
    assert sq.in_port(1).data.get_value().tolist() == [0, -2]
    everything = node(ctx, m, "squeeze_all")
    assert everything.version == "opset15" and list(
        everything.in_ports(connected_only=True)
    ) == [0]
    x = RNG.standard_normal((1, 3, 1, 4)).astype(np.float32)
    ours, theirs, model = run_both(m, tmp_path, {"x": x})
    for got in (ours, theirs):
        np.testing.assert_array_equal(got[0], x.reshape(3, 4))
        np.testing.assert_array_equal(got[1], x.reshape(3, 4))
    assert model.outputs[0].get_names() == {"s"}


# -- port and connection rewiring ---------------------------------------------------------------------

REWIRE = """
builtin.module {
  %x = "ov.Parameter"() <{friendly_name = "op1", tensor_names = [["x"]]}> : () -> tensor<4xf32>
  %b = "ov.Relu"(%x) <{friendly_name = "op2"}> : (tensor<4xf32>) -> tensor<4xf32>
  %c = "ov.Exp"(%x) <{friendly_name = "op3"}> : (tensor<4xf32>) -> tensor<4xf32>
  %d = "ov.Add"(%x, %b) <{friendly_name = "op4", tensor_names = [["y"]]}> : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  "ov.Result"(%d) : (tensor<4xf32>) -> ()
}
"""


def test_rewire_input(tmp_path):
    ctx, m = parse(REWIRE)
    assert apply(ctx, m, "rewire-input", node="op4", port=1, source="op3")
    assert [n for _, n in ops(m)] == ["op1", "op3", "op4", None]
    x = RNG.standard_normal(4).astype(np.float32)
    ours, theirs, _ = run_both(m, tmp_path, {"x": x})
    for got in (ours, theirs):
        np.testing.assert_allclose(got[0], x + np.exp(x), rtol=1e-5, atol=1e-6)


# -- the GraphRewrite of the examples -------------------------------------------------------------------


def test_example_rewrites_in_one_traversal_and_disabling():
    src = NEG.replace(
        '"ov.Result"(%n)',
        '%d = "ov.Divide"(%n, %n) <{friendly_name = "div"}> : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>\n  "ov.Result"(%d)',
    )
    ctx, m = parse(src)
    assert apply(ctx, m, "example-rewrites")
    assert not any(t in ("Negative", "Divide") for t, _ in ops(m))
    ctx, m = parse(src)
    assert apply(ctx, m, "example-rewrites", disabled=("convert-divide",))
    assert ("Divide", "div") in ops(m) and ("Multiply", "neg") in ops(m)
    ctx, m = parse(src)
    mgr = Manager(ctx)
    mgr.register_pass(PASSES["example-rewrites"]())
    mgr.disable("convert-negative")
    mgr.run_passes(m)
    assert ("Negative", "neg") in ops(m) and ("Multiply", "div") in ops(m)
