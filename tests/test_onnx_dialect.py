"""The ``onnx`` dialect generated from ONNX's operator schemas."""

from __future__ import annotations

import collections
import io
import textwrap

import numpy as np
import onnx
import pytest
from onnx import defs
from xdsl.dialects.builtin import (
    DenseIntOrFPElementsAttr,
    Float32Type,
    IntegerType,
    NoneType,
    TensorType,
    UnrankedTensorType,
    i64,
)
from xdsl.ir import Block, Region
from xdsl.parser import Parser
from xdsl.printer import Printer
from xdsl.utils.exceptions import VerifyException

from xmo.context import make_context
from xmo.dialects.onnx import (
    GENERATED_OPS,
    ONNX,
    CustomOp,
    NoValueOp,
    YieldOp,
    op_class,
    op_versions,
)
from xmo.dialects.onnx import ops as generated
from xmo.dialects.attr_spec import AttrSpec
from xmo.dialects.onnx.base import Port, field_name
from xmo.dialects.onnx.types import (
    MapType,
    SeqType,
    StringType,
    parse_type_str,
    type_key,
)
from xmo.tools import gen_onnx_dialect

f32 = Float32Type()


def _ctx():
    ctx = make_context()
    if "onnx" not in ctx.registered_dialect_names:
        ctx.load_dialect(ONNX)
    return ctx


def _print(op) -> str:
    s = io.StringIO()
    Printer(stream=s).print_op(op)
    return s.getvalue()


def _parse(text: str):
    return Parser(_ctx(), text).parse_module()


def _verify_body(body: str) -> None:
    """Parse and verify ``body`` inside a function with a few typed arguments."""
    text = (
        "func.func @f(%x: tensor<2x3xf32>, %h: tensor<2x3xf16>, "
        "%i: tensor<2xi64>, %c: tensor<i1>) {\n"
        + textwrap.indent(textwrap.dedent(body), "  ")
        + "\n  func.return\n}"
    )
    _parse(text).verify()


# ---------------------------------------------------------------------------
# Generation
# ---------------------------------------------------------------------------


def test_generated_file_is_up_to_date():
    text = gen_onnx_dialect.generate()
    current = gen_onnx_dialect.OUT_PATH.read_text()
    assert current == text, "run: python tools/gen_onnx_dialect.py"
    assert f"onnx {onnx.__version__}" in current.splitlines()[0]
    assert "do not edit" in current.splitlines()[0]
    assert generated.ONNX_VERSION == onnx.__version__


def test_generation_is_deterministic():
    assert gen_onnx_dialect.generate() == gen_onnx_dialect.generate()


def test_op_counts_per_domain():
    want = collections.Counter(
        s.domain
        for s in defs.get_all_schemas_with_history()
        if s.domain in ("", "ai.onnx.ml")
    )
    got = collections.Counter(op.ONNX_DOMAIN for op in GENERATED_OPS)
    assert got == want
    assert got[""] > 600 and got["ai.onnx.ml"] > 20
    names = [op.name for op in GENERATED_OPS]
    assert len(set(names)) == len(names)
    keys = {(op.ONNX_DOMAIN, op.ONNX_TYPE, op.SINCE_VERSION) for op in GENERATED_OPS}
    assert len(keys) == len(GENERATED_OPS)
    # the dialect holds every generated op plus NoValue, Yield, Custom and the
    # graph ops Input, Output, Initializer
    assert len(list(ONNX.operations)) == len(GENERATED_OPS) + 6


def test_naming():
    assert generated.SoftmaxOp.name == "onnx.Softmax"
    assert generated.SoftmaxV11Op.name == "onnx.Softmax_v11"
    assert generated.SoftmaxV11Op.SINCE_VERSION == 11
    assert generated.MLZipMapOp.name == "onnx.ml.ZipMap"
    assert generated.MLLabelEncoderV2Op.name == "onnx.ml.LabelEncoder_v2"
    assert generated.MLLabelEncoderOp.ONNX_DOMAIN == "ai.onnx.ml"
    # newest version has the plain name; each op type has exactly one
    newest = collections.Counter(
        (op.ONNX_DOMAIN, op.ONNX_TYPE) for op in GENERATED_OPS if "_v" not in op.name
    )
    assert set(newest.values()) == {1}


def test_class_tables():
    add = generated.AddOp
    assert add.INPUTS == (Port("A", "single", "T"), Port("B", "single", "T"))
    assert add.OUTPUTS == (Port("C", "single", "T"),)
    assert add.INPUTS[0][:3] == ("A", "single", "T")
    assert UnrankedTensorType(f32) in add.TYPE_CONSTRAINTS["T"]
    assert f32 in add.allowed_element_types("T")
    clip = generated.ClipOp
    assert [p.option for p in clip.INPUTS] == ["single", "optional", "optional"]
    assert (clip.MIN_INPUTS, clip.MAX_INPUTS) == (1, 3)
    concat = generated.ConcatOp
    assert concat.INPUTS == (Port("inputs", "variadic", "T"),)
    assert (concat.MIN_INPUTS, concat.MAX_INPUTS) == (1, None)
    loop = generated.LoopOp
    assert loop.INPUTS[2] == Port("v_initial", "variadic", "V", False)
    # literal port types become single-entry constraints
    reshape = generated.ReshapeOp
    assert reshape.INPUTS[1].type == "tensor(int64)"
    assert reshape.TYPE_CONSTRAINTS["tensor(int64)"] == (UnrankedTensorType(i64),)
    # attributes: kind (the ONNX type), Python default, required
    assert generated.LeakyReluOp.ATTRS == (AttrSpec("alpha", "FLOAT", 0.01, required=False),)
    assert generated.CastOp.attr_spec("to") == AttrSpec("to", "INT", None, required=True)
    assert generated.SoftmaxV11Op.attr_spec("axis").default == 1
    assert generated.SoftmaxOp.attr_spec("axis").default == -1
    assert generated.ResizeOp.attr_spec("mode").default == "nearest"
    # non-tensor types
    zipmap = generated.MLZipMapOp
    assert set(zipmap.TYPE_CONSTRAINTS["T"]) == {
        SeqType(MapType(i64, f32)),
        SeqType(MapType(StringType(), f32)),
    }
    # every port type is described
    for op in GENERATED_OPS:
        for p in (*op.INPUTS, *op.OUTPUTS):
            assert p.type in op.TYPE_CONSTRAINTS, (op.name, p)


def test_type_strings():
    assert parse_type_str("tensor(float)") == UnrankedTensorType(f32)
    assert parse_type_str("seq(tensor(int64))") == SeqType(UnrankedTensorType(i64))
    assert parse_type_str("tensor(string)") == UnrankedTensorType(StringType())
    assert type_key(TensorType(f32, [2, 3])) == UnrankedTensorType(f32)
    with pytest.raises(ValueError):
        parse_type_str("tensor(float99)")


def test_field_name_escaping():
    assert field_name("axis") == "axis"
    assert field_name("name") == "name_"
    assert field_name("lambda") == "lambda_"
    assert field_name("operands") == "operands_"


# ---------------------------------------------------------------------------
# Lookup by opset version
# ---------------------------------------------------------------------------


def test_op_class_by_opset():
    assert op_class("", "Softmax", 11) is generated.SoftmaxV11Op
    assert op_class("", "Softmax", 12) is generated.SoftmaxV11Op
    assert op_class("", "Softmax", 13) is generated.SoftmaxOp
    assert op_class("ai.onnx", "Softmax", 21) is generated.SoftmaxOp
    assert op_class("", "Resize", 10) is generated.ResizeV10Op
    assert op_class("", "Resize", 12) is generated.ResizeV11Op
    assert op_class("", "Resize", 18).SINCE_VERSION == 18
    assert op_class("", "Resize", 100) is generated.ResizeOp
    split13, split18 = op_class("", "Split", 13), op_class("", "Split", 18)
    assert split13 is generated.SplitV13Op and split18 is generated.SplitOp
    assert "num_outputs" not in [a.name for a in split13.ATTRS]
    assert "num_outputs" in [a.name for a in split18.ATTRS]
    assert split13.INPUTS[1] == Port("split", "optional", "tensor(int64)")
    assert op_class("ai.onnx.ml", "LabelEncoder", 3) is generated.MLLabelEncoderV2Op
    assert op_class("ai.onnx.ml", "LabelEncoder", 5) is generated.MLLabelEncoderOp
    # unknown / too old
    assert op_class("", "NoSuchOp", 20) is None
    assert op_class("com.microsoft", "FusedGemm", 1) is None
    assert op_class("", "Gelu", 19) is None
    assert op_versions("", "Softmax")[:3] == (1, 11, 13)
    # every schema version is reachable through its own since_version
    for schema in defs.get_all_schemas_with_history():
        if schema.domain in ("", "ai.onnx.ml"):
            cls = op_class(schema.domain, schema.name, schema.since_version)
            assert cls is not None and cls.SINCE_VERSION == schema.since_version
    # deprecated versions are kept (and marked)
    assert op_class("", "Upsample", 10).DEPRECATED
    assert not op_class("", "Upsample", 9).DEPRECATED


# ---------------------------------------------------------------------------
# Verifier
# ---------------------------------------------------------------------------


def test_valid_ops_verify():
    _verify_body(
        """
        %n = "onnx.NoValue"() : () -> none
        %a = "onnx.Add"(%x, %x) : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
        %cl = "onnx.Clip"(%x, %n, %n) : (tensor<2x3xf32>, none, none) -> tensor<2x3xf32>
        %d = "onnx.Clip"(%x) : (tensor<2x3xf32>) -> tensor<2x3xf32>
        %r = "onnx.Reshape"(%x, %i) : (tensor<2x3xf32>, tensor<2xi64>) -> tensor<3x2xf32>
        %s:2 = "onnx.Split"(%x, %n) <{axis = 0 : i64, num_outputs = 2 : i64}> : (tensor<2x3xf32>, none) -> (tensor<1x3xf32>, tensor<1x3xf32>)
        %k = "onnx.Cast"(%x) <{to = 10 : i64}> : (tensor<2x3xf32>) -> tensor<2x3xf16>
        %q = "onnx.Concat"(%x, %x, %x) <{axis = 0 : i64}> : (tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<6x3xf32>
        %t = "onnx.Transpose"(%x) <{perm = array<i64: 1, 0>}> : (tensor<2x3xf32>) -> tensor<3x2xf32>
        %l = "onnx.LeakyRelu"(%x) <{alpha = 2.000000e-01 : f32}> : (tensor<2x3xf32>) -> tensor<2x3xf32>
        %y, %no, %yc = "onnx.LSTM"(%x, %x, %x) <{hidden_size = 4 : i64}> : (tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>) -> (tensor<*xf32>, none, tensor<*xf32>)
        """
    )


@pytest.mark.parametrize(
    "body, message",
    [
        (
            '%k = "onnx.Cast"(%x) : (tensor<2x3xf32>) -> tensor<2x3xf16>',
            "onnx.Cast: missing required attribute 'to'",
        ),
        (
            '%s = "onnx.Softmax"(%x, %x) : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>',
            "onnx.Softmax: expected exactly 1 inputs, got 2",
        ),
        (
            '%s = "onnx.Concat"() <{axis = 0 : i64}> : () -> tensor<2x3xf32>',
            "onnx.Concat: expected at least 1 inputs, got 0",
        ),
        (
            '%s = "onnx.Clip"(%x, %x, %x, %x) : (tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>',
            "onnx.Clip: expected 1 to 3 inputs, got 4",
        ),
        (
            '%s:2 = "onnx.Relu"(%x) : (tensor<2x3xf32>) -> (tensor<2x3xf32>, tensor<2x3xf32>)',
            "onnx.Relu: expected exactly 1 outputs, got 2",
        ),
        (
            '%s = "onnx.Add"(%x, %h) : (tensor<2x3xf32>, tensor<2x3xf16>) -> tensor<2x3xf32>',
            "onnx.Add: input 1 ('B') has type tensor(float16), but 'T' is already "
            "tensor(float) from input 0 ('A')",
        ),
        (
            '%s = "onnx.Add"(%x, %x) : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf16>',
            "onnx.Add: output 0 ('C') has type tensor(float16), but 'T' is already "
            "tensor(float)",
        ),
        (
            '%s = "onnx.Concat"(%x, %h) <{axis = 0 : i64}> : (tensor<2x3xf32>, tensor<2x3xf16>) -> tensor<4x3xf32>',
            "'T' is already tensor(float) from input 0 ('inputs')",
        ),
        (
            '%s = "onnx.Reshape"(%x, %x) : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>',
            "onnx.Reshape: input 1 ('shape') has type tensor<2x3xf32>, but "
            "'tensor(int64)' allows only tensor(int64)",
        ),
        (
            '%s = "onnx.Relu"(%c) : (tensor<i1>) -> tensor<i1>',
            "onnx.Relu: input 0 ('X') has type tensor<i1>, but 'T' allows only",
        ),
        (
            '%n = "onnx.NoValue"() : () -> none\n'
            '%s = "onnx.Add"(%x, %n) : (tensor<2x3xf32>, none) -> tensor<2x3xf32>',
            "onnx.Add: input 1 ('B') is not optional, it cannot be absent",
        ),
        (
            '%s = "onnx.Softmax"(%x) <{axis = 1 : i32}> : (tensor<2x3xf32>) -> tensor<2x3xf32>',
            "onnx.Softmax: attribute 'axis' (INT): expected an i64 integer",
        ),
        (
            '%s = "onnx.Transpose"(%x) <{perm = array<i32: 1, 0>}> : (tensor<2x3xf32>) -> tensor<3x2xf32>',
            "onnx.Transpose: attribute 'perm' (INTS): expected array<i64: ...>",
        ),
        (
            '%s = "onnx.Softmax"(%x) <{bogus = 1 : i64}> : (tensor<2x3xf32>) -> tensor<2x3xf32>',
            "property 'bogus' is not defined",
        ),
    ],
)
def test_verifier_errors(body, message):
    with pytest.raises(VerifyException) as e:
        _verify_body(body)
    assert message in str(e.value)


# ---------------------------------------------------------------------------
# Regions
# ---------------------------------------------------------------------------


def test_subgraph_ops_have_regions():
    assert generated.IfOp.REGIONS == ("else_branch", "then_branch")
    assert generated.LoopOp.REGIONS == ("body",)
    assert generated.ScanOp.REGIONS == ("body",)
    assert generated.ScanV8Op.REGIONS == ("body",)
    assert generated.SequenceMapOp.REGIONS == ("body",)
    with_regions = {op.ONNX_TYPE for op in GENERATED_OPS if op.REGIONS}
    assert with_regions == {"If", "Loop", "Scan", "SequenceMap"}
    for op in GENERATED_OPS:
        assert len(op.REGIONS) == len(op.get_irdl_definition().regions), op.name


def test_if_region_needs_yield():
    good = """
        %r = "onnx.If"(%c) ({
          "onnx.Yield"(%x) : (tensor<2x3xf32>) -> ()
        }, {
          %t = "onnx.Relu"(%x) : (tensor<2x3xf32>) -> tensor<2x3xf32>
          "onnx.Yield"(%t) : (tensor<2x3xf32>) -> ()
        }) : (tensor<i1>) -> tensor<2x3xf32>
    """
    _verify_body(good)
    bad = """
        %r = "onnx.If"(%c) ({
          "onnx.Yield"(%x) : (tensor<2x3xf32>) -> ()
        }, {
          %t = "onnx.Relu"(%x) : (tensor<2x3xf32>) -> tensor<2x3xf32>
        }) : (tensor<i1>) -> tensor<2x3xf32>
    """
    # xDSL itself rejects a single-block region without a terminator
    with pytest.raises(VerifyException, match="not a terminator"):
        _verify_body(bad)
    # the op's own check (verify_ alone, nested ops not verified)
    cond = Block(arg_types=[TensorType(IntegerType(1), [])])
    then_block = Block([NoValueOp()])
    else_block = Block([YieldOp([])])
    if_op = generated.IfOp.make(
        [cond.args[0]],
        [TensorType(f32, [2])],
        regions={"then_branch": Region(then_block), "else_branch": Region(else_block)},
    )
    with pytest.raises(VerifyException, match="'then_branch' region must end with"):
        if_op.verify_()
    bad_type = generated.IfOp.make([cond.args[0]], [f32])
    with pytest.raises(VerifyException, match=r"allows only .*\.\.\. \(\d+ in all\)"):
        bad_type.verify_()
    empty = '%r = "onnx.If"(%c) ({}, {}) : (tensor<i1>) -> tensor<2x3xf32>'
    with pytest.raises(VerifyException, match="exactly one block"):
        _verify_body(empty)


def test_loop_built_in_python():
    body = Block(arg_types=[TensorType(i64, []), TensorType(IntegerType(1), []), f32])
    body.add_op(YieldOp([body.args[1], body.args[2]]))
    no = NoValueOp()
    outer = Block(arg_types=[TensorType(i64, []), TensorType(f32, [2])])
    outer.add_op(no)
    loop = generated.LoopOp.make(
        [outer.args[0], no.result, outer.args[1]],
        [TensorType(f32, [2])],
        regions={"body": Region(body)},
    )
    outer.add_op(loop)
    loop.verify()
    assert loop.region_of("body").block is body
    assert loop.input_value("cond") is None
    assert loop.input_value("M") is outer.args[0]


# ---------------------------------------------------------------------------
# Attributes from Python
# ---------------------------------------------------------------------------


def test_make_and_attr_values():
    block = Block(arg_types=[TensorType(f32, [2, 3])])
    op = generated.TransposeOp.make([block.args[0]], [TensorType(f32, [3, 2])],
                                    {"perm": [1, 0]})
    op.verify()
    assert op.attr("perm") == (1, 0)
    lr = generated.LeakyReluOp.make([block.args[0]], [TensorType(f32, [2, 3])])
    assert lr.attr("alpha") == pytest.approx(0.01)
    lr.set_attr("alpha", 0.5)
    assert lr.attr("alpha") == 0.5
    const = generated.ConstantOp.make(
        [], [TensorType(i64, [2])], {"value": np.array([1, 2], dtype=np.int64)}
    )
    const.verify()
    assert isinstance(const.attr("value"), DenseIntOrFPElementsAttr)
    resize = generated.ResizeOp.make(
        [block.args[0]], [TensorType(f32, [2, 3])], {"mode": "linear"}
    )
    assert resize.attr("mode") == "linear"
    assert resize.attr("coordinate_transformation_mode") == "half_pixel"


# ---------------------------------------------------------------------------
# Text round trip
# ---------------------------------------------------------------------------

MODULE = """\
builtin.module {
  func.func @main(%x: tensor<2x3xf32>, %c: tensor<i1>) -> tensor<2x3xf32> {
    %n = "onnx.NoValue"() : () -> none
    %s = "onnx.Softmax"(%x) <{axis = 1 : i64}> : (tensor<2x3xf32>) -> tensor<2x3xf32>
    %k = "onnx.Constant"() <{value = dense<[1, 2]> : tensor<2xi64>}> : () -> tensor<2xi64>
    %p, %p_1 = "onnx.Split"(%s, %n) <{axis = 0 : i64, num_outputs = 2 : i64}> : (tensor<2x3xf32>, none) -> (tensor<1x3xf32>, tensor<1x3xf32>)
    %o = "onnx.Softmax_v11"(%x) : (tensor<2x3xf32>) -> tensor<2x3xf32>
    %i = "onnx.If"(%c) ({
      "onnx.Yield"(%x) : (tensor<2x3xf32>) -> ()
    }, {
      %r = "onnx.Relu"(%x) : (tensor<2x3xf32>) -> tensor<2x3xf32>
      "onnx.Yield"(%r) : (tensor<2x3xf32>) -> ()
    }) : (tensor<i1>) -> tensor<2x3xf32>
    %z = "onnx.ml.ZipMap"(%x) <{classlabels_strings = ["a", "b", "c"]}> : (tensor<2x3xf32>) -> !onnx.seq<!onnx.map<!onnx.string, f32>>
    %u = "onnx.Custom"(%x) <{domain = "com.microsoft", op_type = "FusedGemm", version = 1 : i64, attrs = {alpha = 1.000000e+00 : f32}}> : (tensor<2x3xf32>) -> tensor<2x3xf32>
    %sc = "onnx.Constant"() <{value = #onnx.string_tensor<tensor<2x!onnx.string>, ["a", "b"]>}> : () -> tensor<2x!onnx.string>
    %sq = "onnx.SequenceConstruct"(%x, %x) : (tensor<2x3xf32>, tensor<2x3xf32>) -> !onnx.seq<tensor<*xf32>>
    %op = "onnx.Optional"(%x) : (tensor<2x3xf32>) -> !onnx.opt<tensor<*xf32>>
    %dr = "onnx.Dropout"(%x, %n, %n) : (tensor<2x3xf32>, none, none) -> tensor<2x3xf32>
    func.return %i : tensor<2x3xf32>
  }
}"""


def test_round_trip():
    m = _parse(MODULE)
    m.verify()
    text = _print(m)
    assert text == MODULE
    m2 = _parse(text)
    m2.verify()
    assert _print(m2) == MODULE
    ops = {op.name for op in m.walk()}
    assert {"onnx.ml.ZipMap", "onnx.Softmax_v11", "onnx.Custom", "onnx.NoValue"} <= ops


def test_custom_op():
    block = Block(arg_types=[TensorType(f32, [2])])
    from xdsl.dialects.builtin import FloatAttr

    op = CustomOp.make(
        "com.microsoft", "FusedGemm", 1, [block.args[0]], [TensorType(f32, [2])],
        {"alpha": FloatAttr(1.0, f32)},
    )
    op.verify()
    assert op.domain.data == "com.microsoft" and op.op_type.data == "FusedGemm"
    with pytest.raises(VerifyException):
        CustomOp.create(operands=[], result_types=[], properties={}).verify()


def test_novalue_is_none():
    assert isinstance(NoValueOp().result.type, NoneType)
