"""The TensorFlow frontend: GraphDefs built with xmo's own schema (no TensorFlow)."""

from __future__ import annotations

import collections
import io
import json
import re
from pathlib import Path

import ml_dtypes
import numpy as np
import pytest
from google.protobuf import text_format
from xdsl.dialects.builtin import (
    DenseResourceAttr,
    ModuleOp,
    TensorType,
    UnrankedTensorType,
    bf16,
    f16,
    f32,
    i1,
    i32,
    i64,
)
from xdsl.parser import Parser
from xdsl.targets.mlir import MLIRTarget

import xmo.dialects.tf as tfd
from xmo.context import attach_context, make_context
from xmo.dialects.ov.weights import constant_array
from xmo.dialects.tf.types import OpaqueTensorAttr, StringTensorAttr, StringType, UnknownType
from xmo.frontends import framework_input_shapes, load_framework_model
from xmo.frontends.tf import TFFrontendError, graph_input_shapes, load_tf, read_graph_def
from xmo.frontends.tf.frames import has_frames, raise_frames
from xmo.frontends.tf.attrs import attr_from_proto, attr_to_proto
from xmo.frontends.tf.schema import (
    AttrValue,
    DataType,
    GraphDef,
    NodeDef,
    TensorProto,
    TensorShapeProto,
    has_function_library,
    parse_text,
)
from textual_ir import assert_same_ir_text

DATA = Path(__file__).resolve().parent / "data" / "tf"
DT = DataType

# ---------------------------------------------------------------------------
# GraphDef builders
# ---------------------------------------------------------------------------


def shape_proto(dims):
    sp = TensorShapeProto()
    if dims is None:
        sp.unknown_rank = True
    else:
        for d in dims:
            sp.dim.add(size=d)
    return sp


def tensor(dtype, dims, **fields):
    tp = TensorProto(dtype=dtype)
    tp.tensor_shape.CopyFrom(shape_proto(dims))
    for k, v in fields.items():
        if k == "tensor_content" or k == "float8_val":
            setattr(tp, k, v)
        else:
            getattr(tp, k).extend(v)
    return tp


def node(name, op, inputs=(), **attrs):
    """NodeDef; attrs: AttrValue, TensorProto (tensor), or (field, value) pairs."""
    nd = NodeDef(name=name, op=op, input=list(inputs))
    for k, v in attrs.items():
        if isinstance(v, AttrValue):
            nd.attr[k].CopyFrom(v)
        elif isinstance(v, TensorProto):
            nd.attr[k].tensor.CopyFrom(v)
        else:
            field, value = v
            if field == "shape":
                nd.attr[k].shape.CopyFrom(shape_proto(value))
            else:
                setattr(nd.attr[k], field, value)
    return nd


def T(dtype=DT.DT_FLOAT):
    return ("type", dtype)


def placeholder(name, dims=None, dtype=DT.DT_FLOAT):
    return node(name, "Placeholder", dtype=T(dtype), shape=("shape", dims))


def const(name, tp):
    return node(name, "Const", dtype=T(tp.dtype), value=tp)


def graph(*nodes):
    g = GraphDef()
    g.node.extend(nodes)
    return g


def load(g, **kw):
    ctx = make_context()
    m = load_tf(g, ctx, **kw)
    attach_context(m, ctx)
    m.verify()
    return m


def ops(m):
    return list(m.body.block.ops)


def by_name(m):
    return {op.node_name.data: op for op in ops(m) if hasattr(op, "node_name")}


def outputs(m):
    return [op.tensor_name.data for op in ops(m) if op.name == "tf.Output"]


def const_value(g, name="c"):
    m = load(g)
    return by_name(m)[name]


def single_const(tp):
    """Load a graph holding just Const 'c' (+ an Identity so it is an output)."""
    return const_value(graph(const("c", tp), node("i", "Identity", ["c"], T=T(tp.dtype))))


def _print(m):
    from xmo.context import context_of

    s = io.StringIO()
    MLIRTarget().emit(context_of(m), m, s)
    return s.getvalue()


# ---------------------------------------------------------------------------
# Schema
# ---------------------------------------------------------------------------


def test_schema_round_trip_and_unknown_fields():
    g = graph(placeholder("x", [1, 2]), node("r", "Relu", ["x"], T=T()))
    g.versions.producer = 1700
    data = g.SerializeToString()
    # append a FunctionDefLibrary (field 2) the schema does not declare
    lib = b"\x12\x04\x0a\x02\x0a\x00"
    g2 = GraphDef()
    g2.ParseFromString(data + lib)
    assert has_function_library(g2) and not has_function_library(g)
    assert lib in g2.SerializeToString()  # kept, not dropped
    assert g2.node[1].op == "Relu" and g2.versions.producer == 1700
    # text format skips fields the schema leaves out
    txt = text_format.MessageToString(g) + 'library { function { signature { name: "f" } } }\n'
    assert len(parse_text(txt).node) == 2
    assert DT.Name(DT.DT_HALF) == "DT_HALF" and DT.DT_BFLOAT16 == 14


def test_attr_value_round_trip_through_attributes(ctx):
    from xmo.context import weight_store

    store = weight_store(ctx)
    cases = [
        AttrValue(i=-3),
        AttrValue(f=0.25),
        AttrValue(b=True),
        AttrValue(s=b"VALID"),
        AttrValue(s=b"\xff\xfe"),
        AttrValue(type=DT.DT_HALF),
        AttrValue(shape=shape_proto([2, -1])),
        AttrValue(shape=shape_proto(None)),
        AttrValue(list=AttrValue.ListValue(i=[1, 2, 3])),
        AttrValue(list=AttrValue.ListValue(f=[0.5])),
        AttrValue(list=AttrValue.ListValue(b=[True, False])),
        AttrValue(list=AttrValue.ListValue(s=[b"a", b"b"])),
        AttrValue(list=AttrValue.ListValue(type=[DT.DT_FLOAT, DT.DT_STRING])),
        AttrValue(list=AttrValue.ListValue(shape=[shape_proto([1]), shape_proto(None)])),
        AttrValue(tensor=tensor(DT.DT_INT32, [2], tensor_content=np.array([1, 2], np.int32).tobytes())),
    ]
    f = AttrValue()
    f.func.name = "body"
    f.func.attr["T"].type = DT.DT_INT64
    cases.append(f)
    for av in cases:
        a = attr_from_proto(av, None, store)
        back = attr_to_proto(a)
        assert back == av, (av, a, back)


# ---------------------------------------------------------------------------
# Constants: every encoding
# ---------------------------------------------------------------------------


def test_const_tensor_content_is_a_zero_copy_view():
    arr = np.arange(24, dtype=np.float32).reshape(2, 3, 4)
    c = single_const(tensor(DT.DT_FLOAT, [2, 3, 4], tensor_content=arr.tobytes()))
    assert isinstance(c.properties["value"], DenseResourceAttr)
    got = c.attr("value")
    np.testing.assert_array_equal(got, arr)
    assert c.results[0].type == TensorType(f32, [2, 3, 4])
    base = got
    while isinstance(base, np.ndarray):
        base = base.base
    assert isinstance(base, bytes), "payload must be a view of the protobuf bytes"


@pytest.mark.parametrize(
    "dtype,field,values,np_dtype,el",
    [
        (DT.DT_FLOAT, "float_val", [1.5, -2.0, 3.25, 0.0], np.float32, f32),
        (DT.DT_DOUBLE, "double_val", [1e-300, 2.0, 3.0, 4.0], np.float64, None),
        (DT.DT_INT32, "int_val", [1, -2, 3, 2**31 - 1], np.int32, i32),
        (DT.DT_INT16, "int_val", [1, -2, 3, 4], np.int16, None),
        (DT.DT_INT8, "int_val", [1, -2, 3, -128], np.int8, None),
        (DT.DT_UINT8, "int_val", [1, 2, 255, 0], np.uint8, None),
        (DT.DT_UINT16, "int_val", [1, 2, 65535, 0], np.uint16, None),
        (DT.DT_INT64, "int64_val", [1, -2, 2**40, 0], np.int64, i64),
        (DT.DT_UINT32, "uint32_val", [1, 2, 2**32 - 1, 0], np.uint32, None),
        (DT.DT_UINT64, "uint64_val", [1, 2, 2**64 - 1, 0], np.uint64, None),
        (DT.DT_BOOL, "bool_val", [True, False, True, True], np.bool_, i1),
    ],
)
def test_const_typed_fields(dtype, field, values, np_dtype, el):
    c = single_const(tensor(dtype, [2, 2], **{field: values}))
    got = c.attr("value")
    np.testing.assert_array_equal(got, np.array(values, np_dtype).reshape(2, 2))
    assert got.dtype == np.dtype(np_dtype)
    if el is not None:
        assert c.results[0].type == TensorType(el, [2, 2])


def test_const_half_and_bfloat16_bit_patterns():
    h = np.array([1.0, -2.5, 65504.0], np.float16)
    c = single_const(tensor(DT.DT_HALF, [3], half_val=h.view(np.uint16).astype(np.int32).tolist()))
    np.testing.assert_array_equal(c.attr("value"), h)
    assert c.results[0].type == TensorType(f16, [3])
    b = np.array([1.0, -2.5, 3.0e38], ml_dtypes.bfloat16)
    c = single_const(tensor(DT.DT_BFLOAT16, [3], half_val=b.view(np.uint16).astype(np.int32).tolist()))
    assert c.results[0].type == TensorType(bf16, [3])
    np.testing.assert_array_equal(c.attr("value"), b.view(np.uint16))  # raw bf16 bits
    # tensor_content works for both too
    c = single_const(tensor(DT.DT_BFLOAT16, [3], tensor_content=b.tobytes()))
    np.testing.assert_array_equal(c.attr("value").view(ml_dtypes.bfloat16), b)


def test_const_scalar_and_short_lists_broadcast_like_tensorflow():
    c = single_const(tensor(DT.DT_FLOAT, [2, 3], float_val=[7.0]))
    np.testing.assert_array_equal(c.attr("value"), np.full((2, 3), 7.0, np.float32))
    c = single_const(tensor(DT.DT_INT32, [5], int_val=[1, 2]))
    assert c.attr("value").tolist() == [1, 2, 2, 2, 2]  # last value repeats
    c = single_const(tensor(DT.DT_INT64, [3]))
    assert c.attr("value").tolist() == [0, 0, 0]  # no value: zeros
    c = single_const(tensor(DT.DT_FLOAT, [0, 4]))
    assert c.attr("value").shape == (0, 4)
    c = single_const(tensor(DT.DT_FLOAT, [], float_val=[3.0]))
    assert c.results[0].type == TensorType(f32, []) and c.attr("value").tolist() == 3.0
    big = single_const(tensor(DT.DT_FLOAT, [100, 100], float_val=[0.5]))
    assert isinstance(big.properties["value"], DenseResourceAttr)
    assert float(big.attr("value").sum()) == 5000.0


def test_const_strings():
    c = single_const(tensor(DT.DT_STRING, [3], string_val=[b"a", b"\xff\x00", "é".encode()]))
    v = c.properties["value"]
    assert isinstance(v, StringTensorAttr)
    assert c.results[0].type == TensorType(StringType(), [3])
    assert c.attr("value").tolist() == ["a", b"\xff\x00", "é"]
    c = single_const(tensor(DT.DT_STRING, [2, 2], string_val=[b"x"]))
    assert c.attr("value").tolist() == [["x", "x"], ["x", "x"]]
    # TF's tensor_content encoding of strings: varint lengths, then the bytes
    content = bytes([1, 3]) + b"a" + b"bcd"
    c = single_const(tensor(DT.DT_STRING, [2], tensor_content=content))
    assert c.attr("value").tolist() == ["a", "bcd"]


def test_string_placeholder_and_ops_never_crash():
    g = graph(
        placeholder("s", [-1], DT.DT_STRING),
        node("id", "Identity", ["s"], T=T(DT.DT_STRING)),
        node("len", "StringLength", ["id"], T=T(DT.DT_STRING)),
    )
    m = load(g)
    n = by_name(m)
    assert n["s"].results[0].type.get_element_type() == StringType()
    assert n["id"].results[0].type == UnrankedTensorType(StringType())
    assert n["len"].name == "tf.Unknown"
    _print(m)


def test_const_other_types():
    # complex: opaque raw bytes with the numpy complex view
    c = single_const(tensor(DT.DT_COMPLEX64, [2], scomplex_val=[1.0, 2.0, 3.0, 4.0]))
    assert isinstance(c.properties["value"], OpaqueTensorAttr)
    assert c.attr("value").tolist() == [1 + 2j, 3 + 4j]
    # quantized: opaque, storage view
    c = single_const(tensor(DT.DT_QUINT8, [3], int_val=[1, 2, 255]))
    assert c.attr("value").tolist() == [1, 2, 255] and c.attr("dtype") == "tf.quint8"
    # float8 values (bytes field)
    f8 = np.array([1.0, -0.5], ml_dtypes.float8_e4m3fn)
    c = single_const(tensor(DT.DT_FLOAT8_E4M3FN, [2], float8_val=f8.tobytes()))
    np.testing.assert_array_equal(c.attr("value").astype(np.float32), [1.0, -0.5])
    # int4: one value per int_val entry, packed two per byte
    c = single_const(tensor(DT.DT_INT4, [3], int_val=[1, -2, 7]))
    assert str(c.results[0].type) == "tensor<3xi4>"
    assert constant_array(c.properties["value"]).tolist() == [0xE1, 0x07]


@pytest.mark.parametrize(
    "tp,msg",
    [
        (tensor(DT.DT_FLOAT, [2, 2], float_val=[1, 2, 3, 4, 5]), "float_val has 5 values, the shape holds 4"),
        (tensor(DT.DT_FLOAT, [2, 2], tensor_content=b"\x00" * 12), "tensor_content has 12 bytes"),
        (tensor(0, [1]), "no dtype"),
        (tensor(77, [1]), "unknown dtype 77"),
        (tensor(DT.DT_FLOAT, None), "unknown rank"),
        (tensor(DT.DT_FLOAT, [-1, 2]), "unknown dims"),
        (tensor(DT.DT_STRING, [2], tensor_content=b"\x05ab"), "malformed string tensor_content"),
        (tensor(DT.DT_RESOURCE, [1]), "DT_RESOURCE constants are not supported"),
    ],
)
def test_const_errors(tp, msg):
    g = graph(node("c", "Const", dtype=T(max(int(tp.dtype), 1)), value=tp))
    with pytest.raises(TFFrontendError, match=re.escape(msg)) as e:
        load_tf(g, make_context())
    assert "node 'c' (Const): attribute 'value'" in str(e.value)
    assert "\n" not in str(e.value)


def test_const_dtype_mismatch():
    g = graph(node("c", "Const", dtype=T(DT.DT_INT32), value=tensor(DT.DT_FLOAT, [1], float_val=[1])))
    with pytest.raises(TFFrontendError, match="dtype attribute DT_INT32 differs from the value's DT_FLOAT"):
        load_tf(g, make_context())


# ---------------------------------------------------------------------------
# Placeholders and input shapes
# ---------------------------------------------------------------------------


def test_placeholder_shapes():
    g = graph(
        placeholder("a", [-1, 224, 224, 3]),
        placeholder("b", None),
        placeholder("c", []),
        node("d", "Placeholder", dtype=T(DT.DT_INT64)),
    )
    nd = g.node[3]
    nd.attr["_output_shapes"].list.shape.add().CopyFrom(shape_proto([4, -1]))
    m = load(g)
    n = by_name(m)
    assert str(n["a"].results[0].type) == "tensor<?x224x224x3xf32>"
    assert n["b"].results[0].type == UnrankedTensorType(f32)
    assert n["c"].results[0].type == TensorType(f32, [])
    assert str(n["d"].results[0].type) == "tensor<4x?xi64>"  # from _output_shapes
    assert "_output_shapes" not in n["d"].properties
    assert graph_input_shapes(g) == {"a": [-1, 224, 224, 3], "b": None, "c": [], "d": [4, -1]}
    assert outputs(m) == []


def test_input_shapes_override():
    g = graph(placeholder("x", [-1, -1, 3]), node("r", "Relu", ["x"], T=T()))
    m = load(g, input_shapes={"x": [1, None, 3]})
    x = by_name(m)["x"]
    assert str(x.results[0].type) == "tensor<1x?x3xf32>"
    assert x.attr("shape") == [1, -1, 3]
    m = load(g, input_shapes={"x:0": [2, 5, 3]})
    assert str(by_name(m)["x"].results[0].type) == "tensor<2x5x3xf32>"
    m = load(g, input_shapes={"x": None})
    assert by_name(m)["x"].results[0].type == UnrankedTensorType(f32)
    with pytest.raises(TFFrontendError, match=r"input_shapes: the graph has no Placeholder 'r' \(placeholders: x\)"):
        load_tf(g, make_context(), input_shapes={"r": [1]})
    with pytest.raises(TFFrontendError, match="bad dim -5"):
        load_tf(g, make_context(), input_shapes={"x": [-5]})


# ---------------------------------------------------------------------------
# Edges: ports, control inputs, order
# ---------------------------------------------------------------------------


def test_control_inputs_and_topological_order():
    # nodes listed consumers-first; a control edge orders "late" before "r"
    g = graph(
        node("r", "Relu", ["x", "^late", "^x"], T=T()),
        node("late", "NoOp"),
        placeholder("x", [2]),
    )
    m = load(g)
    names = [op.node_name.data for op in ops(m) if hasattr(op, "node_name")]
    assert names == ["late", "x", "r"]
    r = by_name(m)["r"]
    assert len(r.operands) == 1 and r.control_input_names == ["late", "x"]
    assert outputs(m) == ["r"]


def test_ports_of_multi_output_ops():
    g = graph(
        placeholder("x", [6]),
        const("dim", tensor(DT.DT_INT32, [], int_val=[0])),
        node("split", "Split", ["dim", "x"], T=T(), num_split=("i", 3)),
        node("a", "AddV2", ["split:2", "split:1"], T=T()),
        node("u", "Mystery", ["x"]),
        node("b", "Identity", ["u:2"], T=T()),
    )
    m = load(g)
    n = by_name(m)
    assert len(n["split"].results) == 3
    assert n["a"].operands[0] is n["split"].results[2]
    assert n["a"].operands[1] is n["split"].results[1]
    assert len(n["u"].results) == 3  # 1 + highest port used
    assert n["u"].results[0].type == UnrankedTensorType(UnknownType())
    assert outputs(m) == ["a", "b"]


def test_default_outputs_exclude_consts_placeholders_and_no_output_nodes():
    g = graph(
        placeholder("x", [2]),
        placeholder("unused", [2]),
        const("k", tensor(DT.DT_FLOAT, [2], float_val=[1])),
        node("add", "AddV2", ["x", "k"], T=T()),
        node("neg", "Neg", ["add"], T=T()),
        node("abs", "Abs", ["add"], T=T()),
        node("init", "NoOp", ["^neg"]),
        node("assert", "Assert", ["c", "x"], T=AttrValue(list=AttrValue.ListValue(type=[DT.DT_FLOAT]))),
        const("c", tensor(DT.DT_BOOL, [], bool_val=[True])),
    )
    m = load(g)
    assert outputs(m) == ["abs"]  # neg is consumed by ^neg, the rest have no outputs
    assert isinstance(ops(m)[-1], tfd.OutputOp)


def test_explicit_outputs_prune_the_graph():
    g = graph(
        placeholder("x", [2]),
        placeholder("y", [2]),
        node("a", "Neg", ["x"], T=T()),
        node("b", "Unsupported", ["y"]),
        node("s", "Split", ["d", "a"], T=T(), num_split=("i", 2)),
        const("d", tensor(DT.DT_INT32, [], int_val=[0])),
    )
    m = load(g, outputs=["s:1", "a"])
    assert outputs(m) == ["s:1", "a"]
    assert set(by_name(m)) == {"x", "a", "s", "d"}  # y and b are cut away
    out = ops(m)[-2]
    assert out.value is by_name(m)["s"].results[1]
    for bad, msg in [
        (["nope"], "outputs: the graph has no node 'nope'"),
        (["a:1"], "outputs: 'a:1': node 'a' (Neg) has 1 output"),
        (["^a"], "is not a tensor name"),
    ]:
        with pytest.raises(TFFrontendError, match=re.escape(msg)):
            load_tf(g, make_context(), outputs=bad)


def test_unknown_op_keeps_every_attribute():
    fn = AttrValue()
    fn.func.name = "my_fn"
    fn.func.attr["T"].type = DT.DT_FLOAT
    g = graph(
        placeholder("x", [2]),
        node(
            "u",
            "FancyOp",
            ["x"],
            ints=AttrValue(list=AttrValue.ListValue(i=[1, 2])),
            floats=AttrValue(list=AttrValue.ListValue(f=[0.5])),
            strs=AttrValue(list=AttrValue.ListValue(s=[b"a"])),
            types=AttrValue(list=AttrValue.ListValue(type=[DT.DT_INT32, DT.DT_STRING])),
            shapes=AttrValue(list=AttrValue.ListValue(shape=[shape_proto([1, -1]), shape_proto(None)])),
            shp=("shape", [3]),
            ty=T(DT.DT_HALF),
            f=fn,
            t=tensor(DT.DT_INT64, [2], int64_val=[4, 5]),
            b=("b", True),
            fl=("f", 1.5),
            n=("i", -7),
            s=("s", b"text"),
            empty=AttrValue(list=AttrValue.ListValue()),
            _hidden=("i", 1),
        ),
    )
    m = load(g)
    u = by_name(m)["u"]
    assert isinstance(u, tfd.UnknownOp) and u.tf_type == "FancyOp"
    got = {k: u.attr(k) for k in u.attr_names()}
    t = got.pop("t")
    assert t.tolist() == [4, 5]
    assert got == {
        "ints": [1, 2], "floats": [0.5], "strs": ["a"], "types": ["i32", "tf.string"],
        "shapes": [[1, -1], None], "shp": [3], "ty": "f16", "f": "my_fn", "b": True,
        "fl": 1.5, "n": -7, "s": "text", "empty": [],
    }  # fmt: skip
    assert u.func_attrs("f") == {"T": "f32"}
    assert "_hidden" not in u.properties
    _roundtrip(m)


def test_generated_op_attrs_follow_the_opdef():
    g = graph(
        placeholder("x", [1, 8, 8, 3]),
        const("w", tensor(DT.DT_FLOAT, [3, 3, 3, 4], float_val=[0.1])),
        node(
            "conv", "Conv2D", ["x", "w"], T=T(),
            strides=AttrValue(list=AttrValue.ListValue(i=[1, 1, 1, 1])),
            padding=("s", b"SAME"),
            explicit_paddings=AttrValue(list=AttrValue.ListValue()),
        ),
    )
    m = load(g)
    conv = by_name(m)["conv"]
    assert conv.attr("explicit_paddings") == [] and conv.attr("dilations") == [1, 1, 1, 1]
    assert str(conv.properties["explicit_paddings"]) == "array<i64>"
    assert conv.results[0].type == UnrankedTensorType(f32)


# ---------------------------------------------------------------------------
# Errors
# ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    "nodes,msg",
    [
        ([node("r", "Relu", ["missing:0"], T=T())], "node 'r' (Relu): input 'missing:0' names no node of the graph"),
        ([node("r", "NoOp", ["^ghost"])], "node 'r' (NoOp): control input '^ghost' names no node"),
        ([node("a", "Neg", ["b"], T=T()), node("b", "Neg", ["a"], T=T())], "the graph has a cycle through node 'a' (Neg)"),
        ([node("a", "NoOp"), node("a", "NoOp")], "node 'a' (NoOp): the name is used by node #0 too"),
        ([node("", "NoOp")], "node #0 (NoOp): the node has no name"),
        ([node("a", "")], "node 'a' (no op): the node has no op type"),
        ([placeholder("x"), node("r", "Relu", ["x:y:0"], T=T())], "node 'r' (Relu): malformed input 'x:y:0'"),
        ([placeholder("x"), node("r", "Relu", ["x"])], "node 'r' (Relu): missing required attribute 'T'"),
        ([placeholder("x"), node("r", "Relu", ["x", "x"], T=T())], "node 'r' (Relu): has 2 data inputs, the Relu OpDef expects 1"),
        ([placeholder("x"), node("r", "Relu", ["x"], T=("i", 1))], "node 'r' (Relu): attribute 'T' is a int, the OpDef expects type"),
        ([placeholder("x"), node("r", "Relu", ["x:1"], T=T())], "node 'r' (Relu): input 'x:1': node 'x' (Placeholder) has 1 output"),
        ([node("p", "Placeholder")], "node 'p' (Placeholder): missing required attribute 'dtype'"),
        ([node("c", "Const", dtype=T())], "node 'c' (Const): missing required attribute 'value'"),
        ([placeholder("x"), node("u", "Custom", ["x"], node_name=("i", 1))], "attribute name 'node_name' clashes"),
    ],
)
def test_graph_errors(nodes, msg):
    with pytest.raises(TFFrontendError) as e:
        load_tf(graph(*nodes), make_context())
    assert msg in str(e.value)
    assert "\n" not in str(e.value)


def test_cycle_through_tf1_loop_names_the_problem():
    g = graph(
        placeholder("x", [1]),
        node("merge", "Merge", ["x", "next"], T=T(), N=("i", 2)),
        node("next", "NextIteration", ["merge"], T=T()),
    )
    with pytest.raises(TFFrontendError, match="TF1 while-loop control flow is not supported"):
        load_tf(g, make_context())


def test_file_errors(tmp_path):
    ctx = make_context()
    with pytest.raises(TFFrontendError, match="no such file"):
        load_tf(tmp_path / "none.pb", ctx)
    bad = tmp_path / "bad.pb"
    bad.write_bytes(b"\x0a\xff\xff\xff\xff\x0f garbage")
    with pytest.raises(TFFrontendError, match=r"bad.pb: not a valid TensorFlow GraphDef \(truncated or corrupt protobuf"):
        load_tf(bad, ctx)
    empty = tmp_path / "empty.pb"
    empty.write_bytes(b"")
    with pytest.raises(TFFrontendError, match="empty, not a TensorFlow GraphDef"):
        load_tf(empty, ctx)
    saved_model = tmp_path / "saved_model.pb"
    saved_model.write_bytes(b"\x08\x01\x12\x00")  # schema version + an empty meta graph
    with pytest.raises(TFFrontendError, match="the GraphDef has no nodes"):
        load_tf(saved_model, ctx)
    txt = tmp_path / "bad.pbtxt"
    txt.write_text('node { name: "a" op: "NoOp" \n')
    with pytest.raises(TFFrontendError, match="bad.pbtxt: not a valid text GraphDef"):
        load_tf(txt, ctx)
    with pytest.raises(TFFrontendError, match="cannot load a TensorFlow graph from a int"):
        load_tf(3, ctx)


# ---------------------------------------------------------------------------
# Files, dispatch, round trip
# ---------------------------------------------------------------------------

SMALL = graph(
    placeholder("x", [-1, 3]),
    const("k", tensor(DT.DT_FLOAT, [3, 2], float_val=[0.5])),
    node("mm", "MatMul", ["x", "k"], T=T()),
    node("init", "NoOp"),
    node("relu", "Relu", ["mm", "^init"], T=T()),
)


def test_pb_and_pbtxt_files_and_dispatch(tmp_path):
    pb = tmp_path / "m.pb"
    pb.write_bytes(SMALL.SerializeToString())
    txt = tmp_path / "m.pbtxt"
    txt.write_text(text_format.MessageToString(SMALL))
    texts = []
    for path in (pb, txt, str(pb), SMALL.SerializeToString()):
        ctx = make_context()
        m = load_tf(path, ctx)
        m.verify()
        texts.append(str(m))
    assert len(set(texts)) == 1
    ctx = make_context()
    m = load_framework_model(txt, ctx, input_shapes={"x": [4, 3]})
    assert str(by_name(m)["x"].results[0].type) == "tensor<4x3xf32>"
    m = load_framework_model(SMALL, make_context(), outputs=["mm"])
    assert outputs(m) == ["mm"]
    assert framework_input_shapes(pb) == {"x": [-1, 3]}
    assert framework_input_shapes(SMALL) == {"x": [-1, 3]}


def test_xmo_opt_reads_pb_files(tmp_path, capsys):
    from xmo.tools.xmo_opt import main

    pb = tmp_path / "m.pb"
    pb.write_bytes(SMALL.SerializeToString())
    assert main([str(pb)]) == 0
    out = capsys.readouterr().out
    assert '"tf.MatMul"' in out and 'control_inputs = ["init"]' in out
    assert '"tf.Output"(%relu) <{tensor_name = "relu"}>' in out


def _roundtrip(m: ModuleOp) -> ModuleOp:
    text = _print(m)
    ctx2 = make_context()
    back = Parser(ctx2, text).parse_module()
    attach_context(back, ctx2)
    back.verify()
    s = io.StringIO()
    MLIRTarget().emit(ctx2, back, s)
    assert_same_ir_text(s.getvalue(), text)
    return back


def test_textual_round_trip():
    g = graph(
        placeholder("in/x", [-1, 4]),
        placeholder("s", [2], DT.DT_STRING),
        const("w", tensor(DT.DT_FLOAT, [4, 4], tensor_content=np.eye(4, dtype=np.float32).tobytes())),
        const("b16", tensor(DT.DT_BFLOAT16, [2], half_val=[0x3F80, 0x4000])),
        const("h", tensor(DT.DT_HALF, [2], half_val=[0x3C00, 0x4000])),
        const("flag", tensor(DT.DT_BOOL, [2], bool_val=[True])),
        const("str", tensor(DT.DT_STRING, [1], string_val=[b"\x01\xff"])),
        const("cx", tensor(DT.DT_COMPLEX128, [1], dcomplex_val=[1.0, -1.0])),
        node("mm", "MatMul", ["in/x", "w"], T=T(), transpose_b=("b", True)),
        node("split", "Split", ["d", "mm"], T=T(), num_split=("i", 2)),
        const("d", tensor(DT.DT_INT32, [], int_val=[1])),
        node("id", "IdentityN", ["split:1", "s"], T=AttrValue(list=AttrValue.ListValue(type=[DT.DT_FLOAT, DT.DT_STRING]))),
        node("u", "Custom", ["id:1", "cx", "b16", "h", "flag", "str"], shp=("shape", None)),
    )
    m = load(g)
    back = _roundtrip(m)
    n = by_name(back)
    np.testing.assert_array_equal(n["w"].attr("value"), np.eye(4, dtype=np.float32))
    assert n["cx"].attr("value").tolist() == [1 - 1j]
    assert n["str"].attr("value").tolist() == [b"\x01\xff"]
    assert n["flag"].attr("value").tolist() == [True, True]


# ---------------------------------------------------------------------------
# Fixtures made with TensorFlow (tests/data/tf)
# ---------------------------------------------------------------------------

def _fixtures() -> list:
    """The ``.pb`` fixtures; those the manifest marks ``xmo_load_pending`` (the
    frontend cannot load them yet) as strict xfails."""
    if not DATA.is_dir():
        return []
    models = json.loads((DATA / "manifest.json").read_text())["models"]
    pending = {v["file"]: v["xmo_load_pending"] for v in models.values() if v.get("xmo_load_pending")}
    return [
        pytest.param(p.name, marks=pytest.mark.xfail(strict=True, reason=f"xmo_load_pending: {pending[p.name]}"))
        if p.name in pending else p.name
        for p in sorted(DATA.glob("*.pb"))
    ]


@pytest.mark.parametrize("name", _fixtures())
def test_fixture_loads(name):
    manifest = json.loads((DATA / "manifest.json").read_text())["models"]
    info = next((v for v in manifest.values() if v["file"] == name), None)
    m = load(DATA / name)
    hist = collections.Counter(op.tf_type for op in ops(m) if isinstance(op, tfd.base.TFNodeOp))
    if info is None or not info.get("extensions"):
        # only models made for an extension example hold ops no dialect class knows
        assert not any(isinstance(op, tfd.UnknownOp) for op in ops(m))
    if info is None:
        return
    gd = read_graph_def(DATA / name)
    if has_frames(gd):
        # TF1 while loops load raised to While nodes (frontends/tf/frames.py)
        assert dict(hist) == collections.Counter(n.op for n in raise_frames(gd).node)
    else:
        assert dict(hist) == info["op_histogram"]
    assert outputs(m) == [o["name"].removesuffix(":0") for o in info["outputs"]]
    assert graph_input_shapes(DATA / name) == {i["name"]: i["shape"] for i in info["inputs"]}
    if info.get("text_file"):
        m2 = load(DATA / info["text_file"])
        assert str(m2) == str(m)
    _roundtrip(m)


def test_round_trip_with_colliding_handles_alive():
    """Re-parsing while other stores hold the same handle names renames them
    (``x`` -> ``x_0``, ``x_0`` -> ``x_0_0``); the IR is still the same."""
    keep = [load(DATA / "cnn.pb") for _ in range(2)]
    m = load(DATA / "cnn.pb")
    keep += [_roundtrip(m), _roundtrip(m)]
    assert len(keep) == 4
