"""Replacement helpers and runtime info: OpenVINO's semantics, and names and
runtime info surviving every helper -- read back from the written IR by xmo's
reader and by OpenVINO's ``Core().read_model``."""

from __future__ import annotations

import xml.etree.ElementTree as ET

import numpy as np
import openvino as ov
import pytest
from xdsl.parser import Parser
from xmo.backends.ir import read_ir, serialize
from xmo.context import make_context
from xmo.dialects.ov import rt_info as rt
from xmo.graph import (
    Graph,
    GraphError,
    copy_runtime_info,
    get_fused_names,
    init_node_info,
    replace_node,
    replace_node_update_name,
    replace_output,
    replace_output_update_name,
    replace_with_subgraph,
)

SRC = """
builtin.module {
  %x = "ov.Parameter"() <{friendly_name = "x", tensor_names = [["x"]]}> : () -> tensor<2x6xf32>
  %axis = "ov.Constant"() <{value = dense<1> : tensor<i64>, friendly_name = "axis"}> : () -> tensor<i64>
  %s:3 = "ov.Split"(%x, %axis) <{num_splits = 3 : i64, friendly_name = "split", tensor_names = [["s0"], ["s1"], ["s2"]]}> : (tensor<2x6xf32>, tensor<i64>) -> (tensor<2x2xf32>, tensor<2x2xf32>, tensor<2x2xf32>)
  %a = "ov.Add"(%s#0, %s#1) <{friendly_name = "add", tensor_names = [["sum"]], rt_info = {fused_names = ["add"], primitives_priority = "cpu:ref"}}> : (tensor<2x2xf32>, tensor<2x2xf32>) -> tensor<2x2xf32>
  %r = "ov.Relu"(%a) <{friendly_name = "relu", tensor_names = [["relu_out"]], rt_info = {fused_names = ["relu"]}}> : (tensor<2x2xf32>) -> tensor<2x2xf32>
  %e = "ov.Exp"(%a) <{friendly_name = "exp", tensor_names = [["exp_out"]]}> : (tensor<2x2xf32>) -> tensor<2x2xf32>
  "ov.Result"(%r) <{friendly_name = "out_relu"}> : (tensor<2x2xf32>) -> ()
  "ov.Result"(%e) <{friendly_name = "out_exp"}> : (tensor<2x2xf32>) -> ()
  "ov.Result"(%s#2) <{friendly_name = "out_s2"}> : (tensor<2x2xf32>) -> ()
}
"""


@pytest.fixture
def g() -> Graph:
    ctx = make_context()
    module = Parser(ctx, SRC).parse_module()
    module.verify()
    return Graph(module, ctx)


def n(g: Graph, name: str):
    node = g.get_node_by_name(name)
    assert node is not None, name
    return node


def save(g: Graph, tmp_path):
    """Finalize, write IR; (xmo module read back, OpenVINO model read back)."""
    g.finalize()
    g.module.verify()
    xml = tmp_path / "m.xml"
    serialize(g.module, xml)
    return read_ir(xml), ov.Core().read_model(str(xml)), xml


def ov_op(model, name):
    return next(op for op in model.get_ordered_ops() if op.get_friendly_name() == name)


def ov_rt(op) -> dict[str, str]:
    info = op.get_rt_info()
    return {k: info[k].astype(str) for k in info}


def xmo_op(module, name):
    return next(op for op in module.body.block.ops if op.get_friendly_name() == name)


def output_names(model) -> list[set[str]]:
    return [o.get_names() for o in model.outputs]


# -- replace_output ---------------------------------------------------------------


def test_replace_output_moves_consumers_and_names(g, tmp_path):
    add, x = n(g, "add"), n(g, "x")
    tanh = g.create_node("Tanh", [n(g, "split").out_port(0)], name="tanh")
    replace_output(add.out_port(0), tanh.out_port(0))
    assert [d.node.name for d in tanh.out_port(0).get_destinations()] == ["relu", "exp"]
    assert tanh.out_port(0).get_tensor_names() == ["sum"]
    assert add.out_port(0).get_tensor_names() == []
    back, model, _ = save(g, tmp_path)
    assert g.get_node_by_name("add") is None  # orphaned, erased
    assert xmo_op(back, "tanh").get_tensor_names(0) == ["sum"]
    assert ov_op(model, "tanh").output(0).get_names() == {"sum"}
    assert x.alive


def test_replace_output_keeps_the_replacements_own_read(g):
    add = n(g, "add")
    neg = g.create_node("Negative", [add.out_port(0)], name="neg")
    replace_output(add.out_port(0), neg.out_port(0))
    assert neg.in_port(0).get_source() == add.out_port(0)
    assert [d.node.name for d in neg.out_port(0).get_destinations()] == ["relu", "exp"]
    assert neg.out_port(0).get_tensor_names() == ["sum"]
    g.finalize()
    g.module.verify()


def test_replace_output_errors(g):
    add, relu, exp = n(g, "add"), n(g, "relu"), n(g, "exp")
    with pytest.raises(GraphError, match="the old output must be an output port"):
        replace_output(add.in_port(0), relu.out_port(0))
    with pytest.raises(GraphError, match="would create a cycle"):
        replace_output(n(g, "split").out_port(0), exp.out_port(0))
    replace_output(add.out_port(0), add.out_port(0))  # a no-op


# -- replace_node -------------------------------------------------------------------


def test_replace_node_output_counts_must_match(g):
    split, relu = n(g, "split"), n(g, "relu")
    with pytest.raises(
        GraphError,
        match="'split' \\(Split\\) has 3 outputs but 'relu' \\(Relu\\) has 1",
    ):
        replace_node(split, relu)
    with pytest.raises(
        GraphError, match="'relu' \\(Relu\\) has 1 output but 2 replacement"
    ):
        replace_node(relu, [split.out_port(0), split.out_port(1)])
    with pytest.raises(GraphError, match="Result ops cannot be replaced"):
        replace_node(g.results()[0], relu)


def test_replace_node_multi_output_with_ports_and_order(g, tmp_path):
    split, x = n(g, "split"), n(g, "x")
    lengths = g.create_constant(np.array([2, 2, 2], np.int64))
    vsplit = g.create_node("VariadicSplit", [x, np.int64(1), lengths], name="vsplit")
    replace_node(split, vsplit, output_order=[1, 0, 2])
    assert n(g, "add").in_port(0).get_source() == vsplit.out_port(1)
    assert n(g, "add").in_port(1).get_source() == vsplit.out_port(0)
    assert vsplit.out_port(2).get_tensor_names() == ["s2"]
    assert vsplit.out_port(1).get_tensor_names() == ["s0"]
    assert not split.alive and g.get_node_by_name("axis") is None  # dead producer too
    _, model, _ = save(g, tmp_path)
    assert {"s2"} in output_names(model)


def test_replace_node_keeps_names_with_the_rule(g, tmp_path):
    """The usual trio: name and runtime info on the new op, then replace."""
    relu = n(g, "relu")
    clamp = g.create_node(
        "Clamp", [relu.in_port(0).get_source()], {"min": 0.0, "max": 6.0}
    )
    clamp.name = relu.name
    copy_runtime_info(relu, clamp)
    replace_node(relu, clamp)
    back, model, _ = save(g, tmp_path)
    assert xmo_op(back, "relu").OV_TYPE == "Clamp"
    assert xmo_op(back, "relu").get_rt_info() == {"fused_names": ["relu"]}
    c = ov_op(model, "relu")
    assert c.get_type_name() == "Clamp"
    assert ov_rt(c)["fused_names_0"] == "relu"
    assert {"relu_out"} in output_names(model)


def test_replace_node_update_name(g, tmp_path):
    exp = n(g, "exp")
    sig = g.create_node("Sigmoid", [exp.in_port(0).get_source()])
    exp.rt_info["fused_names"] = ["exp"]
    assert replace_node_update_name(exp, sig)
    assert sig.name == "exp" and sig.get_rt_info() == {"fused_names": ["exp"]}
    _, model, _ = save(g, tmp_path)
    assert ov_op(model, "exp").get_type_name() == "Sigmoid"
    assert {"exp_out"} in output_names(model)


def test_replace_node_update_name_refuses_to_rename_a_model_input():
    ctx = make_context()
    m = Parser(
        ctx,
        """
builtin.module {
  %x = "ov.Parameter"() <{friendly_name = "x"}> : () -> tensor<4xf32>
  %r = "ov.Relu"(%x) <{friendly_name = "relu"}> : (tensor<4xf32>) -> tensor<4xf32>
  "ov.Result"(%r) : (tensor<4xf32>) -> ()
}""",
    ).parse_module()
    g = Graph(m, ctx)
    relu = n(g, "relu")
    sig = g.create_node("Sigmoid", [n(g, "x")])
    assert not replace_node_update_name(relu, sig)
    assert relu.alive and sig.name is None


def test_replace_with_subgraph(g, tmp_path):
    exp = n(g, "exp")
    exp.rt_info["fused_names"] = ["exp"]
    exp.rt_info["decompression"] = ""  # not copyable
    a = exp.in_port(0).get_source()
    two = g.create_constant(2.0)
    mul = g.create_node("Multiply", [a, two])
    e2 = g.create_node("Exp", [mul])
    sq = g.create_node("Sqrt", [e2])
    replace_with_subgraph(exp, [two, mul, e2, sq])
    assert sq.name == "exp" and mul.name is None
    for node in (two, mul, e2, sq):
        assert node.get_rt_info() == {"fused_names": ["exp"]}
    _, model, _ = save(g, tmp_path)
    assert ov_op(model, "exp").get_type_name() == "Sqrt"
    assert ov_rt(ov_op(model, "exp"))["fused_names_0"] == "exp"
    assert {"exp_out"} in output_names(model)
    with pytest.raises(GraphError, match="no new nodes"):
        replace_with_subgraph(n(g, "relu"), [])


# -- replace_output_update_name -------------------------------------------------------------


ELIM = """
builtin.module {
  %x = "ov.Parameter"() <{friendly_name = "x", tensor_names = [["x"]]}> : () -> tensor<4xf32>
  %r = "ov.Relu"(%x) <{friendly_name = "relu", tensor_names = [["relu_out"]], rt_info = {fused_names = ["relu"]}}> : (tensor<4xf32>) -> tensor<4xf32>
  %c = "ov.Convert"(%r) <{destination_type = "f32", friendly_name = "conv", tensor_names = [["y"]], rt_info = {fused_names = ["conv"]}}> : (tensor<4xf32>) -> tensor<4xf32>
  "ov.Result"(%c) <{friendly_name = "out"}> : (tensor<4xf32>) -> ()
}
"""


def elim_graph(src: str = ELIM) -> Graph:
    ctx = make_context()
    return Graph(Parser(ctx, src).parse_module(), ctx)


def test_replace_output_update_name_keeps_output_names(tmp_path):
    g = elim_graph()
    conv, relu = n(g, "conv"), n(g, "relu")
    assert replace_output_update_name(conv.out_port(0), relu.out_port(0))
    assert relu.name == "conv"  # fed a Result: the survivor takes the name
    assert relu.out_port(0).get_tensor_names() == ["relu_out", "y"]
    assert relu.get_rt_info() == {"fused_names": ["conv", "relu"]}
    assert not conv.alive
    back, model, _ = save(g, tmp_path)
    assert [op.get_friendly_name() for op in back.body.block.ops][:2] == ["x", "conv"]
    assert output_names(model) == [{"relu_out", "y"}]
    assert ov_rt(ov_op(model, "conv"))["fused_names_0"] == "conv,relu"


def test_replace_output_update_name_refuses_when_the_tensor_is_shared():
    g = elim_graph(
        ELIM.replace(
            '  "ov.Result"(%c)',
            '  %e = "ov.Exp"(%r) : (tensor<4xf32>) -> tensor<4xf32>\n  "ov.Result"(%e) : (tensor<4xf32>) -> ()\n  "ov.Result"(%c)',
        )
    )
    conv, relu = n(g, "conv"), n(g, "relu")
    assert not replace_output_update_name(conv.out_port(0), relu.out_port(0))
    assert conv.alive and relu.name == "relu"


def test_replace_output_update_name_inside_the_graph():
    g = elim_graph(
        ELIM.replace(
            '  "ov.Result"(%c)',
            '  %e = "ov.Exp"(%c) <{friendly_name = "exp"}> : (tensor<4xf32>) -> tensor<4xf32>\n  "ov.Result"(%e)',
        )
    )
    conv, relu = n(g, "conv"), n(g, "relu")
    assert replace_output_update_name(conv.out_port(0), relu.out_port(0))
    assert relu.name == "relu"  # no Result: names stay
    assert n(g, "exp").in_port(0).get_source() == relu.out_port(0)


def test_replace_output_update_name_on_a_parameter(tmp_path):
    g = elim_graph(ELIM.replace('%c = "ov.Convert"(%r)', '%c = "ov.Convert"(%x)'))
    conv, x = n(g, "conv"), n(g, "x")
    # x also feeds the Relu (which now feeds nothing): refused
    assert not replace_output_update_name(conv.out_port(0), x.out_port(0))
    n(g, "relu").erase()
    assert replace_output_update_name(conv.out_port(0), x.out_port(0))
    assert x.name == "x"  # a Parameter keeps its name
    assert x.out_port(0).get_tensor_names() == ["x", "y"]
    _, model, _ = save(g, tmp_path)
    assert model.inputs[0].get_names() == {"x", "y"}


# -- copy_runtime_info -------------------------------------------------------------------------


def test_copy_runtime_info_one_to_one_replaces_the_targets_info(g):
    add, relu = n(g, "add"), n(g, "relu")
    relu.rt_info["mine"] = 1
    copy_runtime_info(add, relu)
    assert relu.get_rt_info() == {
        "fused_names": ["add"],
        "primitives_priority": "cpu:ref",
    }


def test_copy_runtime_info_keeps_the_target_listed_among_sources(g):
    add, relu = n(g, "add"), n(g, "relu")
    relu.rt_info["mine"] = 1
    relu.rt_info["decompression"] = ""  # not copyable from others, but its own
    copy_runtime_info([relu, add], relu)
    assert relu.get_rt_info() == {
        "decompression": "",
        "fused_names": ["add", "relu"],
        "mine": 1,
        "primitives_priority": "cpu:ref",
    }


def test_copy_runtime_info_one_to_many(g):
    add, relu, exp = n(g, "add"), n(g, "relu"), n(g, "exp")
    add.rt_info["decompression"] = ""
    copy_runtime_info(add, [relu, exp])
    for t in (relu, exp):
        assert t.get_rt_info() == {
            "fused_names": ["add"],
            "primitives_priority": "cpu:ref",
        }


def test_copy_runtime_info_many_to_one_merges(g):
    add, relu, exp, split = n(g, "add"), n(g, "relu"), n(g, "exp"), n(g, "split")
    relu.rt_info.update({"same": "a", "differs": 1, "only_relu": True})
    exp.rt_info.update({"fused_names": ["exp"], "same": "a", "differs": 2})
    copy_runtime_info([add, relu, exp], split)
    assert split.get_rt_info() == {
        "fused_names": ["add", "exp", "relu"],  # sorted union
        "primitives_priority": "cpu:ref",
        "same": "a",  # all agree
        "only_relu": True,  # one source
    }  # "differs" disagrees: dropped


def test_copy_runtime_info_many_to_many(g):
    add, relu, exp, split = n(g, "add"), n(g, "relu"), n(g, "exp"), n(g, "split")
    copy_runtime_info([add, relu], [exp, split])
    for t in (exp, split):
        assert get_fused_names(t) == ["add", "relu"]


def test_init_node_info_records_names(g):
    assert init_node_info(g)
    assert get_fused_names(n(g, "split")) == ["split"]
    assert get_fused_names(n(g, "add")) == ["add"]  # kept its own
    assert "fused_names" not in n(g, "x").get_rt_info()
    assert not init_node_info(g)


# -- runtime info: types, IR, OpenVINO ---------------------------------------------------------


def test_typed_runtime_info_round_trips_through_ir(g, tmp_path):
    relu = n(g, "relu")
    relu.rt_info.update(
        {
            "fused_names": ["relu", "bias"],
            "decompression": "",
            "old_api_map_order": [0, 2, 1],
            "custom_text": "hello",
            "custom_int": 7,
            "custom_flag": True,
        }
    )
    back, model, xml = save(g, tmp_path)
    layer = next(
        l for l in ET.parse(xml).getroot().iter("layer") if l.get("name") == "relu"
    )
    attrs = {
        a.get("name"): (a.get("version"), a.get("value")) for a in layer.find("rt_info")
    }
    assert attrs == {
        "custom_flag": ("0", "true"),
        "custom_int": ("0", "7"),
        "custom_text": ("0", "hello"),
        "decompression": ("0", None),
        "fused_names": ("0", "relu,bias"),
        "old_api_map_order": ("0", "0,2,1"),
    }
    # xmo's reader: known keys typed again, others as text
    assert xmo_op(back, "relu").get_rt_info() == {
        "custom_flag": "true",
        "custom_int": "7",
        "custom_text": "hello",
        "decompression": "",
        "fused_names": ["relu", "bias"],
        "old_api_map_order": [0, 2, 1],
    }
    # OpenVINO keeps the keys it knows, under name_version
    info = ov_rt(ov_op(model, "relu"))
    assert info["fused_names_0"] == "bias,relu"
    assert "decompression_0" in info and "old_api_map_order_0" in info
    assert not any(k.startswith("custom") for k in info)


def test_registered_keys_keep_their_type(tmp_path, g):
    rt.register_key(rt.RtInfoKey("xmo_test_level", "int"))
    try:
        n(g, "relu").rt_info["xmo_test_level"] = 3
        back, _, _ = save(g, tmp_path)
        assert xmo_op(back, "relu").get_rt_info()["xmo_test_level"] == 3
    finally:
        rt.KNOWN_KEYS.pop("xmo_test_level")


def test_set_rt_info_stays_compatible():
    from xmo.dialects.ov import ParameterOp

    p = ParameterOp.new("f32", [2])
    p.set_rt_info("decompression")
    assert p.get_rt_info() == {"decompression": ""}
    p.set_rt_info("fused_names_0", ["a"])  # OpenVINO's spelling of the key
    assert p.get_rt_info() == {"decompression": "", "fused_names": ["a"]}
    p.del_rt_info("decompression")
    p.del_rt_info("absent")
    assert p.get_rt_info() == {"fused_names": ["a"]}
    p.replace_rt_info({})
    assert p.rt_info is None
    with pytest.raises(rt.RtInfoError, match="runtime info values are"):
        p.set_rt_info("bad", {"a": 1})


def test_rt_info_prints_and_parses_in_textual_ir():
    from xmo.dialects.ov import ParameterOp

    p = ParameterOp.new("f32", [2], name="x")
    p.set_rt_info("fused_names", ["a", "b"])
    p.set_rt_info("level", 2)
    text = str(p)
    assert 'rt_info = {fused_names = ["a", "b"], level = 2 : i64}' in text
    ctx = make_context()
    m = Parser(ctx, f"builtin.module {{\n{text}\n}}").parse_module()
    assert next(iter(m.body.block.ops)).get_rt_info() == {
        "fused_names": ["a", "b"],
        "level": 2,
    }
