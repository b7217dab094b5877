"""xmo.graph: Graph, Node, Port, Connection -- every method, with fan-out,
unconnected optional inputs and a multi-output op (Split), and the errors."""

from __future__ import annotations

import numpy as np
import pytest
from xdsl.parser import Parser
from xmo.context import make_context
from xmo.graph import Connection, Graph, GraphError, Node, Port

# x -> Split(3) -> s0 feeds Add and Relu (fan-out), s1 feeds Add, s2 a Result;
# Add -> Pad (its optional pad value input unconnected) -> Result.
SRC = """
builtin.module {
  %x = "ov.Parameter"() <{friendly_name = "x", tensor_names = [["x"]]}> : () -> tensor<2x6xf32>
  %axis = "ov.Constant"() <{value = dense<1> : tensor<i64>, friendly_name = "axis"}> : () -> tensor<i64>
  %s:3 = "ov.Split"(%x, %axis) <{num_splits = 3 : i64, friendly_name = "split", tensor_names = [["s0"], ["s1"], ["s2"]]}> : (tensor<2x6xf32>, tensor<i64>) -> (tensor<2x2xf32>, tensor<2x2xf32>, tensor<2x2xf32>)
  %a = "ov.Add"(%s#0, %s#1) <{friendly_name = "add"}> : (tensor<2x2xf32>, tensor<2x2xf32>) -> tensor<2x2xf32>
  %r = "ov.Relu"(%s#0) <{friendly_name = "relu", tensor_names = [["relu_out"]]}> : (tensor<2x2xf32>) -> tensor<2x2xf32>
  %pb = "ov.Constant"() <{value = dense<[0, 1]> : tensor<2xi64>, friendly_name = "pb"}> : () -> tensor<2xi64>
  %pe = "ov.Constant"() <{value = dense<[0, 1]> : tensor<2xi64>, friendly_name = "pe"}> : () -> tensor<2xi64>
  %p = "ov.Pad"(%a, %pb, %pe) <{friendly_name = "pad", tensor_names = [["pad_out"]]}> : (tensor<2x2xf32>, tensor<2xi64>, tensor<2xi64>) -> tensor<2x4xf32>
  "ov.Result"(%p) <{friendly_name = "out_pad"}> : (tensor<2x4xf32>) -> ()
  "ov.Result"(%r) <{friendly_name = "out_relu"}> : (tensor<2x2xf32>) -> ()
  "ov.Result"(%s#2) <{friendly_name = "out_s2"}> : (tensor<2x2xf32>) -> ()
}
"""


@pytest.fixture
def g() -> Graph:
    ctx = make_context()
    module = Parser(ctx, SRC).parse_module()
    module.verify()
    return Graph(module, ctx)


def n(g: Graph, name: str) -> Node:
    node = g.get_node_by_name(name)
    assert node is not None, name
    return node


def valid(g: Graph) -> None:
    g.finalize()
    g.module.verify()


# -- Graph --------------------------------------------------------------------


def test_get_op_nodes_by_type_attribute_and_name(g):
    assert [x.name for x in g.get_op_nodes("Constant")] == ["axis", "pb", "pe"]
    assert [x.name for x in g.get_op_nodes(type="Split", num_splits=3)] == ["split"]
    assert g.get_op_nodes(type="Split", num_splits=2) == []
    assert [x.name for x in g.get_op_nodes(["Add", "Relu"])] == ["add", "relu"]
    assert [x.name for x in g.get_op_nodes(name="relu")] == ["relu"]
    # a filter on an attribute the op does not have excludes it
    assert g.get_op_nodes(num_splits=3) == [n(g, "split")]
    assert len(g.results()) == 3 and [p.name for p in g.parameters()] == ["x"]
    assert g.get_node_by_name("nope") is None


def test_get_node_by_name_refuses_ambiguous_names(g):
    n(g, "relu").name = "add"
    with pytest.raises(GraphError, match="2 ops are named 'add'"):
        g.get_node_by_name("add")


def test_one_node_object_per_op(g):
    split = n(g, "split")
    assert g.node(split.op) is split
    assert split.out_port(0).get_destinations()[1].node is n(g, "relu")


# -- Node ---------------------------------------------------------------------


def test_node_identity_and_attributes(g):
    split = n(g, "split")
    assert split.type == "Split" and split.version == "opset1" and split.name == "split"
    assert split["num_splits"] == 3 and split.num_splits == 3
    assert "num_splits" in split and "axis" not in split
    assert split.get("nope", 7) == 7 and split.soft_get("num_splits") == 3
    assert split.attrs() == {"num_splits": 3}
    with pytest.raises(KeyError, match="'split' \\(Split\\) has no attribute 'nope'"):
        split["nope"]
    with pytest.raises(AttributeError):
        split.nope  # noqa: B018
    split.name = "splitter"
    assert split.op.get_friendly_name() == "splitter" and g.changed


def test_setting_an_attribute_reinfers_types_downstream():
    ctx = make_context()
    m = Parser(
        ctx,
        """
builtin.module {
  %x = "ov.Parameter"() : () -> tensor<2x3xf32>
  %ax = "ov.Constant"() <{value = dense<1> : tensor<i64>}> : () -> tensor<i64>
  %s = "ov.ReduceSum"(%x, %ax) <{friendly_name = "sum"}> : (tensor<2x3xf32>, tensor<i64>) -> tensor<2xf32>
  %e = "ov.Exp"(%s) <{friendly_name = "exp"}> : (tensor<2xf32>) -> tensor<2xf32>
  "ov.Result"(%e) : (tensor<2xf32>) -> ()
}""",
    ).parse_module()
    g = Graph(m, ctx)
    n(g, "sum")["keep_dims"] = True
    assert n(g, "sum").out_port(0).data.get_shape() == [2, 1]
    assert n(g, "exp").out_port(0).data.get_shape() == [2, 1]
    valid(g)


def test_runtime_info_view(g):
    relu = n(g, "relu")
    assert dict(relu.rt_info) == {} and len(relu.rt_info) == 0
    relu.rt_info["fused_names"] = ["relu", "clamp"]
    relu.rt_info["level"] = 3
    relu.set_rt_info("flag")
    assert relu.get_rt_info() == {
        "fused_names": ["relu", "clamp"],
        "level": 3,
        "flag": "",
    }
    assert relu.rt_info["fused_names_0"] == ["relu", "clamp"]  # OpenVINO's key
    del relu.rt_info["level"]
    assert "level" not in relu.rt_info
    with pytest.raises(KeyError):
        del relu.rt_info["level"]


def test_port_lookup_and_dicts(g):
    pad, split, add = n(g, "pad"), n(g, "split"), n(g, "add")
    assert list(pad.in_ports()) == [0, 1, 2, 3]  # the optional pad value too
    assert list(pad.in_ports(connected_only=True)) == [0, 1, 2]
    assert list(split.out_ports()) == [0, 1, 2] and list(add.out_ports()) == [0]
    assert pad.has_port("in", 3) and not pad.has_port("in", 4)
    assert pad.is_in_port_connected(2) and not pad.is_in_port_connected(3)
    assert split.is_out_port_connected(2)
    with pytest.raises(
        GraphError, match="'pad' \\(Pad\\) has no input port 4 \\(4 input ports\\)"
    ):
        pad.in_port(4)
    with pytest.raises(GraphError, match="has no output port 3"):
        split.out_port(3)
    with pytest.raises(GraphError, match="no output port 0"):
        g.results()[0].out_port(0)
    assert add.in_node(1) is split and [x.name for x in split.out_nodes(0)] == [
        "add",
        "relu",
    ]
    assert pad.in_node(3) is None


# -- Port: queries ----------------------------------------------------------------


def test_port_attributes_and_equality(g):
    add = n(g, "add")
    p = add.in_port(1)
    assert (p.node, p.idx, p.type) == (add, 1, "in")
    assert p == add.in_port(1) and p != add.in_port(0) and len({p, add.in_port(1)}) == 1
    assert repr(p) == "<input 1 of 'add' (Add)>"


def test_get_source(g):
    split, add, pad = n(g, "split"), n(g, "add"), n(g, "pad")
    assert add.in_port(1).get_source() == split.out_port(1)
    assert pad.in_port(3).get_source() is None  # unconnected optional input
    with pytest.raises(GraphError, match="get_source is for input ports"):
        split.out_port(0).get_source()


def test_get_destinations_and_destination(g):
    split, add, relu = n(g, "split"), n(g, "add"), n(g, "relu")
    assert split.out_port(0).get_destinations() == [add.in_port(0), relu.in_port(0)]
    assert split.out_port(1).get_destination() == add.in_port(1)
    assert split.out_port(2).get_destination().node.type == "Result"
    with pytest.raises(
        GraphError, match="output 0 of 'split' \\(Split\\)> has 2 consumers"
    ):
        split.out_port(0).get_destination()
    with pytest.raises(GraphError, match="get_destinations is for output ports"):
        add.in_port(0).get_destinations()
    with pytest.raises(GraphError, match="get_destinations is for output ports"):
        add.in_port(0).get_destination()
    split.out_port(1).disconnect()
    assert split.out_port(1).get_destination() is None
    assert split.out_port(1).get_destinations() == []


def test_port_data(g):
    split, pad, x = n(g, "split"), n(g, "pad"), n(g, "x")
    assert split.out_port(1).data.get_shape() == [2, 2]
    assert split.out_port(1).data.get_element_type() == "f32"
    assert split.out_port(1).data.get_value() is None
    assert split.in_port(1).data.get_value() == 1  # the axis constant
    assert pad.in_port(1).data.get_value().tolist() == [0, 1]
    assert pad.in_port(3).data.get_shape() is None  # unconnected
    assert pad.in_port(3).data.get_value() is None
    assert pad.in_port(3).data.get_element_type() is None
    assert str(x.out_port(0).data.get_type()) == "tensor<2x6xf32>"


def test_tensor_names_on_ports(g):
    split, relu = n(g, "split"), n(g, "relu")
    assert split.out_port(2).get_tensor_names() == ["s2"]
    assert relu.in_port(0).get_tensor_names() == ["s0"]
    relu.out_port(0).add_tensor_names(["r2", "relu_out"])
    assert relu.out_port(0).get_tensor_names() == ["relu_out", "r2"]
    with pytest.raises(GraphError, match="tensor names belong to output ports"):
        relu.in_port(0).set_tensor_names(["a"])


def test_get_connection(g):
    split, add, relu, pad = n(g, "split"), n(g, "add"), n(g, "relu"), n(g, "pad")
    c = split.out_port(0).get_connection()
    assert isinstance(c, Connection)
    assert c.get_source() == split.out_port(0)
    assert c.get_destinations() == [add.in_port(0), relu.in_port(0)]
    c_in = relu.in_port(0).get_connection()
    assert c_in.get_source() == split.out_port(0) and c_in.get_destinations() == [
        relu.in_port(0)
    ]
    assert pad.in_port(3).get_connection() is None  # unconnected optional input
    split.out_port(1).disconnect()
    assert split.out_port(1).get_connection() is None  # no consumers


# -- Port: edits ------------------------------------------------------------------


def test_disconnect_input_then_finalize_refuses(g):
    add = n(g, "add")
    add.in_port(1).disconnect()
    assert not add.in_port(1).is_connected() and add.in_port(1).disconnected()
    assert (
        add.in_port(1).get_source() is None and add.in_port(1).get_connection() is None
    )
    assert n(g, "split").out_port(1).get_destination() is None
    add.in_port(1).disconnect()  # twice is harmless
    with pytest.raises(
        GraphError, match="'add' \\(Add\\): input port 1 is not connected"
    ):
        g.finalize()


def test_disconnect_trailing_optional_input_removes_it(g):
    pad = n(g, "pad")
    c = g.create_constant(np.float32(5.0), name="five")
    c.out_port(0).connect(pad.in_port(3))
    assert len(pad.op.operands) == 4 and pad.in_port(3).data.get_value() == 5.0
    pad.in_port(3).disconnect()
    assert len(pad.op.operands) == 3 and pad.in_port(3).get_source() is None
    valid(g)
    assert g.get_node_by_name("five") is None  # orphaned constant erased


def test_disconnect_output_disconnects_every_consumer(g):
    split, add, relu = n(g, "split"), n(g, "add"), n(g, "relu")
    split.out_port(0).disconnect()
    assert not add.in_port(0).is_connected() and not relu.in_port(0).is_connected()
    assert not split.out_port(0).is_connected()


def test_connect_both_directions(g):
    x, add, relu = n(g, "x"), n(g, "add"), n(g, "relu")
    relu.in_port(0).disconnect()
    x.out_port(0).connect(relu.in_port(0))  # out -> in
    assert relu.in_port(0).get_source() == x.out_port(0)
    assert relu.out_port(0).data.get_shape() == [2, 6]  # re-inferred
    add.in_port(1).disconnect()
    add.in_port(1).connect(n(g, "split").out_port(0))  # in -> out
    assert add.in_port(1).get_source().idx == 0
    assert n(g, "split").out_port(0).get_destinations() == [
        add.in_port(0),
        add.in_port(1),
    ]
    valid(g)
    # the Result follows the new type of the Relu
    assert str(g.results()[1].in_port(0).data.get_type()) == "tensor<2x6xf32>"


def test_connect_errors(g):
    x, add, relu, split = n(g, "x"), n(g, "add"), n(g, "relu"), n(g, "split")
    with pytest.raises(GraphError, match="cannot connect two input ports"):
        add.in_port(0).connect(relu.in_port(0))
    with pytest.raises(GraphError, match="cannot connect two output ports"):
        add.out_port(0).connect(relu.out_port(0))
    with pytest.raises(
        GraphError, match="is already connected to <output 0 of 'split'"
    ):
        x.out_port(0).connect(relu.in_port(0))
    with pytest.raises(GraphError, match="connect needs a Port"):
        x.out_port(0).connect(relu)  # type: ignore[arg-type]
    split.in_port(0).disconnect()
    with pytest.raises(GraphError, match="would create a cycle"):
        relu.out_port(0).connect(split.in_port(0))
    other = Graph(Parser(make_context(), SRC).parse_module())
    with pytest.raises(GraphError, match="different graphs"):
        other.get_node_by_name("x").out_port(0).connect(split.in_port(0))


def test_connect_optional_input_port(g):
    pad = n(g, "pad")
    pad["pad_mode"] = "constant"
    value = g.create_constant(np.float32(2.0))
    value.out_port(0).connect(pad.in_port(3))
    assert pad.in_port(3).get_source() == value.out_port(0)
    assert pad.in_port(3).get_connection().get_source().node is value
    valid(g)
    assert len(pad.op.operands) == 4


def test_rewiring_example_from_the_issue():
    """``op4.in_port(1).disconnect(); op3.out_port(0).connect(op4.in_port(1))``"""
    ctx = make_context()
    m = Parser(
        ctx,
        """
builtin.module {
  %x = "ov.Parameter"() <{friendly_name = "op1"}> : () -> tensor<4xf32>
  %b = "ov.Relu"(%x) <{friendly_name = "op2"}> : (tensor<4xf32>) -> tensor<4xf32>
  %c = "ov.Exp"(%x) <{friendly_name = "op3"}> : (tensor<4xf32>) -> tensor<4xf32>
  %d = "ov.Add"(%x, %b) <{friendly_name = "op4"}> : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  "ov.Result"(%d) : (tensor<4xf32>) -> ()
}""",
    ).parse_module()
    g = Graph(m, ctx)
    op3, op4 = n(g, "op3"), n(g, "op4")
    op4.in_port(1).disconnect()
    op3.out_port(0).connect(op4.in_port(1))
    assert op4.in_port(1).get_source().node is op3
    valid(g)
    # op2 lost its consumer and is gone; op3 now reaches the output
    assert [x.name for x in g.nodes()] == ["op1", "op3", "op4", None]


# -- Connection -------------------------------------------------------------------------


def test_connection_set_source_moves_every_consumer(g):
    x, split, add, relu = n(g, "x"), n(g, "split"), n(g, "add"), n(g, "relu")
    c = split.out_port(1).get_connection()
    c.set_source(split.out_port(0))
    assert c.get_source() == split.out_port(0)
    assert add.in_port(1).get_source() == split.out_port(0)
    # fan-out: both consumers of s0 move to x's output
    relu_before = relu.out_port(0).data.get_shape()
    assert relu_before == [2, 2]
    c2 = (
        n(g, "relu").in_port(0).get_connection()
    )  # an input's connection: only that port
    c2.set_source(x.out_port(0))
    assert relu.in_port(0).get_source() == x.out_port(0)
    assert add.in_port(0).get_source() == split.out_port(0)
    assert relu.out_port(0).data.get_shape() == [2, 6]
    valid(g)


def test_connection_set_source_skips_the_new_source_itself(g):
    """Inserting an op after a node: the new op keeps reading the node."""
    split, add, relu = n(g, "split"), n(g, "add"), n(g, "relu")
    neg = g.create_node("Negative", [split.out_port(0)], name="neg")
    split.out_port(0).get_connection().set_source(neg.out_port(0))
    assert neg.in_port(0).get_source() == split.out_port(0)
    assert add.in_port(0).get_source() == neg.out_port(0)
    assert relu.in_port(0).get_source() == neg.out_port(0)
    valid(g)
    ops = [o.name for o in g.nodes()]
    assert ops.index("neg") < ops.index("add")  # SSA order restored


def test_connection_set_source_errors(g):
    split, add, relu = n(g, "split"), n(g, "add"), n(g, "relu")
    with pytest.raises(GraphError, match="set_source needs an output port"):
        split.out_port(0).get_connection().set_source(add.in_port(0))
    c = split.out_port(1).get_connection()  # feeds add
    with pytest.raises(GraphError, match="would create a cycle"):
        n(g, "x").out_port(0).get_connection().set_source(relu.out_port(0))
    assert c.get_destination() == add.in_port(1)
    with pytest.raises(GraphError, match="has 2 destinations"):
        split.out_port(0).get_connection().get_destination()


def test_connection_set_destination(g):
    split, add, relu = n(g, "split"), n(g, "add"), n(g, "relu")
    c = split.out_port(0).get_connection()
    c.set_destination(add.in_port(1))  # it now feeds exactly add.in(1)
    assert c.get_destinations() == [add.in_port(1)]
    assert split.out_port(0).get_destinations() == [add.in_port(1)]
    assert not add.in_port(0).is_connected() and not relu.in_port(0).is_connected()
    assert not split.out_port(1).is_connected()  # add.in(1) left its old source
    with pytest.raises(GraphError, match="set_destination needs an input port"):
        c.set_destination(relu.out_port(0))


def test_connection_add_destination_remove_insert_node(g):
    split, add, relu, x = n(g, "split"), n(g, "add"), n(g, "relu"), n(g, "x")
    c = split.out_port(2).get_connection()
    relu.in_port(0).disconnect()
    c.add_destination(relu.in_port(0))
    assert split.out_port(2).get_destinations()[0] == relu.in_port(0)
    with pytest.raises(GraphError, match="already connected"):
        c.add_destination(add.in_port(0))
    neg = g.create_node("Negative", [None], name="neg")
    split.out_port(0).get_connection().insert_node(neg)
    assert neg.in_port(0).get_source() == split.out_port(0)
    assert add.in_port(0).get_source() == neg.out_port(0)
    assert neg.out_port(0).data.get_shape() == [2, 2]  # inferred once connected
    c.remove()
    assert not split.out_port(2).is_connected()
    relu.in_port(0).connect(x.out_port(0))
    g.results()[2].in_port(0).connect(split.out_port(2))
    valid(g)


# -- variadic ports ---------------------------------------------------------------------


CONCAT = """
builtin.module {
  %x = "ov.Parameter"() <{friendly_name = "x"}> : () -> tensor<2x3xf32>
  %y = "ov.Parameter"() <{friendly_name = "y"}> : () -> tensor<2x1xf32>
  %c = "ov.Concat"(%x, %y) <{axis = 1 : i64, friendly_name = "concat"}> : (tensor<2x3xf32>, tensor<2x1xf32>) -> tensor<2x4xf32>
  "ov.Result"(%c) : (tensor<2x4xf32>) -> ()
}
"""


def test_add_and_delete_input_ports_of_a_variadic_op():
    ctx = make_context()
    g = Graph(Parser(ctx, CONCAT).parse_module(), ctx)
    concat, x, y = n(g, "concat"), n(g, "x"), n(g, "y")
    p = concat.add_input_port()
    assert p.idx == 2 and not p.is_connected() and list(concat.in_ports()) == [0, 1, 2]
    x.out_port(0).connect(p)
    assert concat.out_port(0).data.get_shape() == [2, 7]
    q = concat.add_input_port(0)
    y.out_port(0).connect(q)
    assert [concat.in_port(i).get_source().node.name for i in range(4)] == [
        "y",
        "x",
        "y",
        "x",
    ]
    assert concat.out_port(0).data.get_shape() == [2, 8]
    concat.delete_input_port(1)
    assert [concat.in_port(i).get_source().node.name for i in range(3)] == [
        "y",
        "y",
        "x",
    ]
    assert concat.out_port(0).data.get_shape() == [2, 5]
    concat.delete_input_port(0)
    concat.delete_input_port(0)
    with pytest.raises(GraphError, match="needs at least 1 inputs"):
        concat.delete_input_port(0)
    with pytest.raises(GraphError, match="has no input port 5"):
        concat.delete_input_port(5)
    valid(g)


def test_unconnected_variadic_port_is_an_error_at_finalize():
    ctx = make_context()
    g = Graph(Parser(ctx, CONCAT).parse_module(), ctx)
    n(g, "concat").add_input_port()
    with pytest.raises(
        GraphError, match="'concat' \\(Concat\\): input port 2 is not connected"
    ):
        g.finalize()


def test_fixed_ports_cannot_be_added_or_deleted(g):
    add, relu = n(g, "add"), n(g, "relu")
    with pytest.raises(GraphError, match="fixed set of input ports"):
        add.add_input_port()
    with pytest.raises(GraphError, match="fixed set of input ports"):
        add.delete_input_port(1)
    with pytest.raises(GraphError, match="fixed set of output ports"):
        relu.add_output_port()
    with pytest.raises(GraphError, match="fixed set of output ports"):
        relu.delete_output_port(0)


def test_output_ports_of_split(g):
    split = n(g, "split")
    old_op = split.op
    with pytest.raises(GraphError, match="still has consumers"):
        split.delete_output_port(2)
    split["num_splits"] = 2  # the outputs follow below
    g.results()[2].erase()
    split.delete_output_port(2)
    assert split.op is not old_op and g.node(split.op) is split
    assert list(split.out_ports()) == [0, 1]
    assert split.out_port(0).data.get_shape() == [2, 3]
    assert split.out_port(1).get_tensor_names() == ["s1"]
    assert [d.node.name for d in split.out_port(0).get_destinations()] == [
        "add",
        "relu",
    ]
    split["num_splits"] = 3
    p = split.add_output_port()
    assert p.idx == 2 and not p.is_connected() and p.data.get_shape() == [2, 2]
    assert split.out_port(0).data.get_shape() == [2, 2]
    valid(g)


# -- creating ops ------------------------------------------------------------------


def test_create_node_and_constants(g):
    relu = n(g, "relu")
    # a Python number takes the element type of the first tensor input
    mul = g.create_node("Multiply", [relu.out_port(0), 0.5], name="half")
    assert mul.in_port(1).data.get_element_type() == "f32"
    assert mul.out_port(0).data.get_shape() == [2, 2]
    ints = g.create_constant(np.array([1, 2], dtype=np.int32))
    assert ints.out_port(0).data.get_element_type() == "i32"
    big = g.create_constant(np.ones((64, 64), np.float32), name="big")
    assert big.op.properties["value"].name == "dense_resource"  # in the weight store
    assert np.all(big.out_port(0).data.get_value() == 1)
    conv = g.create_node("Convert", [relu], {"destination_type": "f16"})
    assert conv.out_port(0).data.get_element_type() == "f16"
    # ops without shape inference (older versions here) take explicit types
    t = relu.out_port(0).data.get_type()
    old = g.create_node(
        "Softmax", [relu], {"axis": 1}, version="opset1", result_types=[t]
    )
    assert old.version == "opset1" and old.out_port(0).data.get_type() == t
    with pytest.raises(GraphError, match="Softmax_opset1 has no shape inference"):
        g.create_node("Softmax", [relu], {"axis": 1}, version="opset1")


def test_create_node_errors(g):
    split, relu = n(g, "split"), n(g, "relu")
    with pytest.raises(GraphError, match="unknown op type 'Nope'"):
        g.create_node("Nope", [relu])
    with pytest.raises(GraphError, match="has 3 outputs; give one of its out ports"):
        g.create_node("Relu", [split])
    with pytest.raises(GraphError, match="is an input port; give an output port"):
        g.create_node("Relu", [relu.in_port(0)])
    with pytest.raises(GraphError, match="cannot create Relu: .*no attribute 'nope'"):
        g.create_node("Relu", [relu], {"nope": 1})
    with pytest.raises(GraphError, match="cannot create Relu: .*no attribute 'nope'"):
        g.create_node("Relu", [None], {"nope": 1})
    with pytest.raises(GraphError, match="cannot create MatMul"):
        g.create_node("MatMul", [n(g, "x"), n(g, "x")])


def test_port_data_set_value(g):
    pb, pad = n(g, "pb"), n(g, "pad")
    pb.out_port(0).data.set_value([1, 1])
    assert pb.out_port(0).data.get_element_type() == "i64"
    assert pad.out_port(0).data.get_shape() == [3, 4]
    with pytest.raises(
        GraphError, match="set_value needs the output port of a Constant"
    ):
        pad.out_port(0).data.set_value([1])


def test_finalize_restores_order_and_reports_inference_failures(g):
    add, relu = n(g, "add"), n(g, "relu")
    # feed the Add from an op created after it in the block
    e = g.create_node("Exp", [n(g, "x")], name="exp")
    add.in_port(1).disconnect()
    e.out_port(0).connect(add.in_port(1))  # 2x6 + 2x2: inference fails for now
    with pytest.raises(GraphError, match="'add' \\(Add\\):"):
        g.finalize()
    add.in_port(1).disconnect()
    relu.out_port(0).connect(add.in_port(1))
    valid(g)


def test_erased_nodes_refuse_edits(g):
    relu = n(g, "relu")
    with pytest.raises(GraphError, match="still has consumers"):
        relu.erase()
    g.results()[1].erase()
    relu.erase()
    assert not relu.alive and relu.name == "relu"  # names stay readable
    with pytest.raises(GraphError, match="is no longer in the graph"):
        relu.add_input_port()
    with pytest.raises(GraphError, match="is no longer in the graph"):
        relu.out_port(0).connect(n(g, "add").in_port(0))
    valid(g)


def test_graph_needs_a_module():
    with pytest.raises(GraphError, match="needs a builtin.module"):
        Graph("model")  # type: ignore[arg-type]


def test_ports_are_plain_values(g):
    p = n(g, "add").in_port(0)
    assert isinstance(p, Port) and p.graph is g


def test_bodies_are_graphs_of_their_own(tmp_path):
    """A Loop is one node of its graph; ``node.bodies`` / ``graph.graphs()``
    reach into its body, where the usual API edits it."""
    onnx = pytest.importorskip("onnx")
    import xmo
    from onnx import TensorProto as T
    from onnx import helper

    body = helper.make_graph(
        [helper.make_node("Identity", ["c"], ["c_out"]),
         helper.make_node("Mul", ["v", "k"], ["v_out"], name="scale")],
        "body",
        [helper.make_tensor_value_info("i", T.INT64, []), helper.make_tensor_value_info("c", T.BOOL, []),
         helper.make_tensor_value_info("v", T.FLOAT, [2])],
        [helper.make_tensor_value_info("c_out", T.BOOL, []),
         helper.make_tensor_value_info("v_out", T.FLOAT, [2])],
        [helper.make_tensor("k", T.FLOAT, [], [2.0])],
    )  # fmt: skip
    g_onnx = helper.make_graph(
        [helper.make_node("Loop", ["M", "", "x"], ["y"], body=body, name="loop")], "g",
        [helper.make_tensor_value_info("M", T.INT64, []), helper.make_tensor_value_info("x", T.FLOAT, [2])],
        [helper.make_tensor_value_info("y", T.FLOAT, [2])],
    )  # fmt: skip
    path = tmp_path / "loop.onnx"
    onnx.save(helper.make_model(g_onnx, opset_imports=[helper.make_opsetid("", 17)]), str(path))
    module = xmo.convert_model(str(path))
    g = Graph(module)
    (loop,) = g.get_op_nodes("Loop")
    (body_g,) = loop.bodies
    assert [gr.block for gr in g.graphs()] == [g.block, body_g.block]
    assert g.get_op_nodes("Multiply") == []  # the top-level graph stops at the Loop
    (mul,) = body_g.get_op_nodes("Multiply")
    assert mul.name == "loop/body/scale"  # body nodes are named under their loop
    assert mul.in_port(1).data.get_value() == 2.0
    mul.in_node(1).out_port(0).data.set_value(np.array(3.0, np.float32))
    body_g.finalize()
    module.verify()
    feeds = {"M": np.array(4, np.int64), "x": np.array([1.0, -0.5], np.float32)}
    assert xmo.run(module, feeds)[0].tolist() == [81.0, -40.5]
    assert isinstance(mul, Node)
