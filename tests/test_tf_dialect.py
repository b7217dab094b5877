"""The ``tf`` dialect: generated OpDef facts, attribute forms, verifier, text round trip."""

from __future__ import annotations

import io
import os
import subprocess
from pathlib import Path

import numpy as np
import pytest
from xdsl.dialects.builtin import (
    DYNAMIC_INDEX,
    ArrayAttr,
    DenseArrayBase,
    DenseResourceAttr,
    IntegerAttr,
    ModuleOp,
    StringAttr,
    TensorType,
    UnrankedTensorType,
    f32,
    i1,
    i32,
    i64,
)
from xdsl.parser import Parser
from xdsl.targets.mlir import MLIRTarget
from xdsl.utils.exceptions import VerifyException

import xmo.dialects.tf as tf
from xmo.context import attach_context, make_context, weight_store
from xmo.dialects.attr_spec import AttributeValueError
from xmo.dialects.tf import dtypes
from xmo.dialects.tf.base import check_attr, from_attr, infer_kind, to_attr
from xmo.dialects.tf.types import (
    BytesHexAttr,
    FuncAttr,
    OpaqueTensorAttr,
    ShapeAttr,
    StringTensorAttr,
    StringType,
    UnknownType,
    element_type,
    xmo_type_name,
)
from textual_ir import assert_same_ir_text

ROOT = Path(__file__).resolve().parent.parent
TF_PYTHON = Path("/work/tfenv/bin/python")

#: ops the brief requires (plus a sample of the "more common inference ops")
REQUIRED_OPS = """
Conv2D DepthwiseConv2dNative Conv2DBackpropInput FusedBatchNorm FusedBatchNormV2
FusedBatchNormV3 BiasAdd Relu Relu6 Elu Sigmoid Tanh Softmax MaxPool AvgPool Mean Sum
Max Min Prod MatMul BatchMatMulV2 Add AddV2 Sub Mul RealDiv Rsqrt Sqrt Square Pow
Maximum Minimum ConcatV2 Pack Unpack Reshape Transpose Squeeze ExpandDims
StridedSlice Slice Pad PadV2 MirrorPad Shape Fill Tile Cast ResizeBilinear
ResizeNearestNeighbor SpaceToDepth DepthToSpace Placeholder PlaceholderWithDefault
Const Identity IdentityN NoOp Abs Neg Exp Log Floor Ceil Round Sign Sin Cos Erf
LeakyRelu Selu Softplus LogSoftmax Reciprocal Greater GreaterEqual Less LessEqual
Equal NotEqual LogicalAnd LogicalOr LogicalNot Select SelectV2 Range GatherV2
GatherNd OneHot ArgMax ArgMin TopKV2 Split SplitV FloorDiv FloorMod
SquaredDifference AddN Conv3D MaxPool3D AvgPool3D LRN Snapshot StopGradient
ZerosLike OnesLike Size Rank ShapeN BroadcastTo ClipByValue Cumsum ReverseV2 Einsum
BatchToSpaceND SpaceToBatchND NonMaxSuppressionV3 NonMaxSuppressionV4
NonMaxSuppressionV5 CropAndResize ResizeBicubic
""".split()


def _print(ctx, module) -> str:
    s = io.StringIO()
    MLIRTarget().emit(ctx, module, s)
    return s.getvalue()


def _roundtrip(module: ModuleOp, ctx) -> ModuleOp:
    text = _print(ctx, module)
    ctx2 = make_context()
    back = Parser(ctx2, text).parse_module()
    attach_context(back, ctx2)  # keeps its weight store alive
    back.verify()
    assert_same_ir_text(_print(ctx2, back), text)
    return back


# ---------------------------------------------------------------------------
# Registration and generated facts
# ---------------------------------------------------------------------------


def test_dialect_is_registered_in_make_context():
    ctx = make_context()
    for name in ("tf.Conv2D", "tf.Unknown", "tf.Output", "tf.Placeholder", "tf.Const"):
        assert ctx.get_optional_op(name) is not None, name
    assert ctx.get_optional_attr("tf.shape") is not None


def test_required_ops_are_generated():
    missing = [o for o in REQUIRED_OPS if o not in tf.OPS_BY_TYPE]
    assert not missing
    assert len(tf.GENERATED_OPS) >= 140
    for op in tf.GENERATED_OPS:
        assert op.name == "tf." + op.TF_TYPE
        assert issubclass(op, tf.TFOp)
    assert tf.op_class("Conv2D") is tf.OPS_BY_TYPE["Conv2D"]
    assert tf.op_class("NoSuchOp") is None
    assert tf.op_class("_FusedConv2D").__name__ == "InternalFusedConv2DOp"
    assert issubclass(tf.PlaceholderOp, tf.PlaceholderBase)
    assert issubclass(tf.ConstOp, tf.ConstBase)
    assert not issubclass(tf.UnknownOp, tf.TFOp)


def test_conv2d_opdef_facts():
    c = tf.op_class("Conv2D")
    # contract: INPUTS/OUTPUTS are (name, kind) pairs, ATTRS AttrSpecs (name, kind, default, required)
    assert [tuple(a) for a in c.INPUTS] == [("input", "single"), ("filter", "single")]
    assert [tuple(a) for a in c.OUTPUTS] == [("output", "single")]
    for a in c.ATTRS:
        assert a.kind in tf.base.ATTR_KINDS
        assert a.required == (a.name in c.REQUIRED_ATTRS)
    spec = {s.name: s for s in c.ATTRS}
    assert spec["strides"].kind == "list(int)" and "strides" in c.REQUIRED_ATTRS
    assert spec["dilations"].default == (1, 1, 1, 1)
    assert spec["data_format"].default == "NHWC"
    assert spec["use_cudnn_on_gpu"].default is True
    assert set(c.ALLOWED_VALUES["padding"]) == {"SAME", "VALID", "EXPLICIT"}
    assert "f32" in c.ALLOWED_VALUES["T"] and "bf16" in c.ALLOWED_VALUES["T"]
    assert c.INPUT_TYPES[0] == tf.TypeRule(type_attr="T")


def test_variadic_and_fixed_type_rules():
    concat = tf.op_class("ConcatV2")
    assert [tuple(a) for a in concat.INPUTS] == [("values", "variadic"), ("axis", "single")]
    assert concat.INPUT_TYPES[0] == tf.TypeRule(type_attr="T", number_attr="N")
    assert concat.MINIMUMS["N"] == 2
    assert concat.attr_spec("Tidx").default == "i32"
    ident = tf.op_class("IdentityN")
    assert ident.INPUT_TYPES[0].type_list_attr == "T"
    split = tf.op_class("Split")
    assert split.INPUT_TYPES[0] == tf.TypeRule(type="i32")
    assert split.OUTPUT_TYPES[0] == tf.TypeRule(type_attr="T", number_attr="num_split")
    shape = tf.op_class("Shape")
    assert shape.attr_spec("out_type").default == "i32"
    ph = tf.PlaceholderOp
    assert ph.attr_spec("shape").default is None and "shape" not in ph.REQUIRED_ATTRS
    assert len(tf.op_class("FusedBatchNormV3").OUTPUTS) == 6
    assert tf.op_class("Assert").IS_STATEFUL and not tf.op_class("Relu").IS_STATEFUL


def test_dtype_table_matches_schema_enum():
    from xmo.frontends.tf.schema import DataType

    for enum, d in dtypes.DTYPES.items():
        assert DataType.Value(d.name) == enum
        assert DataType.Value(d.name + "_REF") == enum + 100
        assert dtypes.xmo_name(enum + 100) == d.xmo
        assert xmo_type_name(element_type(d.xmo)) == d.xmo
    assert dtypes.xmo_name(0) == "tf.unknown"
    assert dtypes.xmo_name(999) == "tf.unknown"


def test_generator_check_mode():
    if not TF_PYTHON.exists():
        pytest.skip("needs the TensorFlow venv")
    env = dict(os.environ, TF_CPP_MIN_LOG_LEVEL="3")
    r = subprocess.run(
        [str(TF_PYTHON), str(ROOT / "tools" / "gen_tf_dialect.py"), "--check"],
        capture_output=True,
        text=True,
        env=env,
        timeout=300,
    )
    assert r.returncode == 0, r.stderr[-2000:]


def test_generated_file_is_current_with_the_curated_list():
    # the curated list lives in the generator; without TF we can still check
    # that every listed op has a class
    from xmo.tools import gen_tf_dialect as gen

    assert set(gen.all_ops()) == set(tf.OPS_BY_TYPE)


# ---------------------------------------------------------------------------
# Attribute forms
# ---------------------------------------------------------------------------

ATTR_CASES = [
    ("int", 3, IntegerAttr(3, i64)),
    ("float", 0.5, None),
    ("bool", True, IntegerAttr(1, i1)),
    ("string", "SAME", StringAttr("SAME")),
    ("string", b"\xff\x00", BytesHexAttr.get(b"\xff\x00")),
    ("type", "f32", f32),
    ("type", "boolean", i1),
    ("type", "tf.string", StringType()),
    ("shape", [1, -1, 3], ShapeAttr.get([1, -1, 3])),
    ("shape", [], ShapeAttr.get([])),
    ("shape", None, ShapeAttr.get(None)),
    ("func", "my_fn", FuncAttr.get("my_fn")),
    ("list(int)", [1, 2], DenseArrayBase.from_list(i64, [1, 2])),
    ("list(float)", [0.5, 2.0], None),
    ("list(bool)", [True, False], DenseArrayBase.from_list(i1, [True, False])),
    ("list(string)", ["a", "b"], ArrayAttr([StringAttr("a"), StringAttr("b")])),
    ("list(type)", ["f32", "i64"], ArrayAttr([f32, i64])),
    ("list(shape)", [[2], None], ArrayAttr([ShapeAttr.get([2]), ShapeAttr.get(None)])),
    ("list(func)", ["f", "g"], None),
    ("list(int)", [], DenseArrayBase.from_list(i64, [])),
]


@pytest.mark.parametrize("kind,value,attr", ATTR_CASES)
def test_attribute_conversion_both_ways(kind, value, attr):
    a = to_attr(kind, value)
    if attr is not None:
        assert a == attr
    assert check_attr(kind, a) is None
    assert from_attr(kind, a) == value
    inferred = infer_kind(a)
    assert inferred == kind or (inferred == "list(int)" and kind == "list(int)")
    assert from_attr(None, a) == value  # kind inferred (tf.Unknown)


def test_tensor_attribute_forms(ctx):
    store = weight_store(ctx)
    small = to_attr("tensor", np.array([1, 2], np.int32))
    assert from_attr("tensor", small).tolist() == [1, 2]
    big = to_attr("tensor", np.arange(100, dtype=np.float32), store)
    assert isinstance(big, DenseResourceAttr)
    np.testing.assert_array_equal(from_attr("tensor", big), np.arange(100, dtype=np.float32))
    strings = to_attr("tensor", np.array([b"a", b"\xff"], dtype=object))
    assert isinstance(strings, StringTensorAttr)
    assert strings.type == TensorType(StringType(), [2])
    assert from_attr("tensor", strings).tolist() == ["a", b"\xff"]


@pytest.mark.parametrize(
    "kind,attr",
    [
        ("int", IntegerAttr(1, i32)),
        ("float", IntegerAttr(1, i64)),
        ("bool", IntegerAttr(1, i64)),
        ("string", IntegerAttr(1, i64)),
        ("type", StringAttr("f32")),
        ("shape", StringAttr("[1]")),
        ("list(int)", ArrayAttr([IntegerAttr(1, i64)])),
        ("list(type)", ArrayAttr([StringAttr("f32")])),
        ("tensor", StringAttr("x")),
        ("func", StringAttr("f")),
    ],
)
def test_check_attr_rejects_wrong_forms(kind, attr):
    assert check_attr(kind, attr) is not None
    with pytest.raises(AttributeValueError):
        from_attr(kind, attr)


# ---------------------------------------------------------------------------
# Ops: construction, attr API, verifier
# ---------------------------------------------------------------------------


def _placeholder(name="x", dims=(-1, 3), dtype="f32"):
    t = TensorType(element_type(dtype), [DYNAMIC_INDEX if d < 0 else d for d in dims])
    return tf.PlaceholderOp.make(name, attrs={"dtype": dtype, "shape": list(dims)}, result_types=[t])


def test_attr_api_defaults_and_missing():
    x = _placeholder()
    conv = tf.op_class("Conv2D").make(
        "conv", [x, x], attrs={"T": "f32", "strides": [1, 2, 2, 1], "padding": "SAME"}
    )
    assert conv.tf_type == "Conv2D" and conv.tf_name == "conv"
    assert conv.attr("strides") == [1, 2, 2, 1]
    assert conv.attr("dilations") == [1, 1, 1, 1]  # OpDef default
    assert conv.attr("data_format") == "NHWC"
    assert not conv.has_attr("dilations") and conv.has_attr("strides")
    assert conv.attr("nope", 7) == 7
    assert conv.attr("explicit_paddings") == []
    assert conv.attr_names() == ["T", "strides", "padding"]
    conv.set_attr("data_format", "NCHW")
    assert conv.attr("data_format") == "NCHW"
    assert conv.results[0].type == UnrankedTensorType(f32)
    conv.verify()


def test_required_attr_missing_gives_callers_default():
    x = _placeholder()
    r = tf.op_class("Relu").create(
        operands=[x.results[0]],
        result_types=[UnrankedTensorType(f32)],
        properties={"node_name": StringAttr("r")},
    )
    assert r.attr("T") is None and r.attr("T", "f32") == "f32"
    with pytest.raises(VerifyException, match="missing required attribute 'T'"):
        r.verify()


def test_result_types_from_opdef_rules():
    x = _placeholder()
    split = tf.op_class("Split").make("s", [x, x], attrs={"T": "f32", "num_split": 3})
    assert len(split.results) == 3
    ident = tf.op_class("IdentityN").make("i", [x, x], attrs={"T": ["f32", "i64"]})
    assert [r.type for r in ident.results] == [UnrankedTensorType(f32), UnrankedTensorType(i64)]
    cast = tf.op_class("Cast").make("c", [x], attrs={"SrcT": "f32", "DstT": "boolean"})
    assert cast.results[0].type == UnrankedTensorType(i1)
    shape = tf.op_class("Shape").make("sh", [x], attrs={"T": "f32"})  # out_type default i32
    assert shape.results[0].type == UnrankedTensorType(i32)
    bn = tf.op_class("FusedBatchNormV3").make("bn", [x] * 5, attrs={"T": "f32", "U": "f32"})
    assert len(bn.results) == 6
    assert bn.output_values("y") == [bn.results[0]]
    assert bn.output_values("reserve_space_3") == [bn.results[5]]
    nms = tf.op_class("NonMaxSuppressionV5").make("n", [x] * 6, attrs={"T": "f32"})
    assert [r.type for r in nms.results] == [
        UnrankedTensorType(i32), UnrankedTensorType(f32), UnrankedTensorType(i32)
    ]
    assert tf.op_class("StringJoin") is None  # not curated: tf.Unknown


def test_input_groups_of_variadic_ops():
    x = _placeholder()
    ax = tf.ConstOp.make(
        "ax", attrs={"value": np.array(1, np.int32), "dtype": "i32"},
        result_types=[TensorType(i32, [])],
    )
    concat = tf.op_class("ConcatV2").make("cat", [x, x, x, ax], attrs={"T": "f32", "N": 3})
    assert concat.input_values("values") == [x.results[0]] * 3
    assert concat.input_value("axis") is ax.results[0]
    with pytest.raises(KeyError):
        concat.input_values("nope")
    concat.verify()


def test_verifier_errors():
    x = _placeholder()
    relu = tf.op_class("Relu")
    bad_count = relu.make("r", [x, x], attrs={"T": "f32"})
    with pytest.raises(VerifyException, match="expected 1 operands"):
        bad_count.verify()
    conv = tf.op_class("Conv2D").make(
        "c", [x, x], attrs={"T": "f32", "strides": [1, 1, 1, 1], "padding": "FOO"}
    )
    with pytest.raises(VerifyException, match="'FOO' is not one of"):
        conv.verify()
    wrong_kind = relu.make("r", [x], attrs={"T": "f32"})
    wrong_kind.properties["T"] = IntegerAttr(1, i64)
    with pytest.raises(VerifyException, match=r"attribute 'T' \(type\)"):
        wrong_kind.verify()
    wrong_type = relu.make("r", [x], attrs={"T": "f32"}, result_types=[UnrankedTensorType(i64)])
    with pytest.raises(VerifyException, match="element type i64, the OpDef says f32"):
        wrong_type.verify()
    concat = tf.op_class("ConcatV2").make("cat", [x, x], attrs={"T": "f32", "N": 1})
    with pytest.raises(VerifyException, match="must be >= 2"):
        concat.verify()
    no_name = relu.make("r", [x], attrs={"T": "f32"})
    del no_name.properties["node_name"]
    with pytest.raises(VerifyException, match="node_name"):
        no_name.verify()


def test_extra_attributes_are_accepted():
    x = _placeholder()
    relu = tf.op_class("Relu").make("r", [x], attrs={"T": "f32", "new_attr": IntegerAttr(2, i64)})
    relu.verify()
    assert relu.attr("new_attr") == 2 and relu.attr_kind("new_attr") == "int"


def test_placeholder_and_const_checks(ctx):
    x = _placeholder(dims=(2, 3))
    assert x.input_shape == [2, 3] and x.attr("dtype") == "f32"
    x.verify()
    bad = tf.PlaceholderOp.make(
        "x", attrs={"dtype": "f32", "shape": [2, 4]}, result_types=[TensorType(f32, [2, 3])]
    )
    with pytest.raises(VerifyException, match="does not match shape attr"):
        bad.verify()
    c = tf.ConstOp.make(
        "c", attrs={"value": np.ones((2, 2), np.float32), "dtype": "f32"},
        result_types=[TensorType(f32, [2, 2])],
    )
    c.verify()
    assert c.array.shape == (2, 2)
    c2 = tf.ConstOp.make(
        "c", attrs={"value": np.ones((2, 2), np.float32), "dtype": "f32"},
        result_types=[TensorType(f32, [4])],
    )
    with pytest.raises(VerifyException, match="differs from the value's type"):
        c2.verify()


def test_unknown_op_api():
    x = _placeholder()
    u = tf.UnknownOp.make(
        "MyOp", "u", [x], [UnrankedTensorType(UnknownType())] * 2,
        attrs={"k": IntegerAttr(4, i64), "fn": FuncAttr.get("f", {"T": f32}), "l": ArrayAttr([])},
        control_inputs=["x"],
    )
    u.verify()
    assert u.tf_type == "MyOp" and u.tf_name == "u"
    assert u.attr("k") == 4 and u.attr("fn") == "f" and u.attr("l") == []
    assert u.func_attrs("fn") == {"T": "f32"}
    assert u.attr("missing", "dflt") == "dflt"
    assert u.control_input_names == ["x"]
    assert u.attr_names() == ["k", "fn", "l"]
    with pytest.raises(AttributeValueError):
        tf.UnknownOp.make("MyOp", "u", [], [], attrs={"node_name": StringAttr("no")})


def test_textual_round_trip_of_every_form():
    ctx = make_context()
    store = weight_store(ctx)
    x = _placeholder()
    s = _placeholder("s", (2,), "tf.string")
    big = tf.ConstOp.make(
        "w", attrs={"value": np.arange(64, dtype=np.float32).reshape(8, 8), "dtype": "f32"},
        result_types=[TensorType(f32, [8, 8])], store=store,
    )
    strings = tf.ConstOp.make(
        "strs", attrs={"value": np.array([b"a", b"\xfe"], dtype=object), "dtype": "tf.string"},
        result_types=[TensorType(StringType(), [2])],
    )
    from xmo.dialects.ov.weights import make_constant_attr

    cplx_t = TensorType(element_type("tf.complex64"), [2])
    cplx = tf.ConstOp.create(
        result_types=[cplx_t],
        properties={
            "node_name": StringAttr("cplx"),
            "dtype": element_type("tf.complex64"),
            "value": OpaqueTensorAttr(
                cplx_t, make_constant_attr(np.zeros(16, np.uint8), "u8", store)
            ),
        },
    )
    ident = tf.op_class("IdentityN").make(
        "idn", [x, s], attrs={"T": ["f32", "tf.string"]}, control_inputs=["w", "strs"]
    )
    u = tf.UnknownOp.make(
        "Weird", "weird", [ident.results[0], big, cplx], [UnrankedTensorType(UnknownType())],
        attrs={
            "shp": ShapeAttr.get([1, -1]),
            "shapes": to_attr("list(shape)", [[1], None]),
            "fn": FuncAttr.get("f", {"T": f32, "n": IntegerAttr(1, i64)}),
            "raw": BytesHexAttr.get(b"\x00\x01"),
            "types": to_attr("list(type)", ["f32", "tf.resource", "tf.variant"]),
            "fl": to_attr("list(float)", [0.1, 1e-8]),
            "bl": to_attr("list(bool)", [True]),
            "t": to_attr("tensor", np.array([[1, 2]], np.int64)),
        },
    )
    outs = [tf.OutputOp(u, "weird"), tf.OutputOp(ident.results[1], "idn:1")]
    m = ModuleOp([x, s, big, strings, cplx, ident, u, *outs])
    m.verify()
    back = _roundtrip(m, ctx)
    ops = list(back.body.block.ops)
    assert ops[-1].tensor_name.data == "idn:1"
    w = ops[2]
    assert isinstance(w.properties["value"], DenseResourceAttr)
    np.testing.assert_array_equal(w.attr("value"), np.arange(64, dtype=np.float32).reshape(8, 8))
    assert ops[3].attr("value").tolist() == ["a", b"\xfe"]
    assert ops[4].attr("value").dtype == np.complex64
    weird = ops[6]
    assert weird.attr("shapes") == [[1], None] and weird.attr("raw") == b"\x00\x01"
    assert weird.attr("types") == ["f32", "tf.resource", "tf.variant"]
    assert weird.attr("t").tolist() == [[1, 2]]
