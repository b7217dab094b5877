"""The generated ``ov`` opset table agrees with the installed openvino wheel.

These checks read openvino directly (opset tables, NodeFactory, the opset
functions); only the last one runs the generator.
"""

from __future__ import annotations

import pathlib
import re

import pytest

ov = pytest.importorskip("openvino")

import openvino.opset1 as o1  # noqa: E402
from openvino import PartialShape, Type  # noqa: E402
from openvino.utils.node_factory import NodeFactory  # noqa: E402

from xmo.dialects.ov import OPS_BY_TYPE, OPS_BY_TYPE_VERSION  # noqa: E402
from xmo.dialects.ov import ops as generated  # noqa: E402
from xmo.dialects.ov.base import OVOp, port_counts  # noqa: E402

_REG = re.compile(r"^_OPENVINO_OP_REG\((\w+),\s*ov::op::(v\d+)\)", re.MULTILINE)
_OPSETS = pathlib.Path(ov.__file__).parent / "include" / "openvino" / "opsets"


def _tables() -> dict[int, list[tuple[str, str]]]:
    return {
        n: _REG.findall((_OPSETS / f"opset{n}_tbl.hpp").read_text())
        for n in range(1, 17)
    }


TABLES = _tables()
FIRST: dict[tuple[str, str], int] = {}
for _n in sorted(TABLES):
    for _pair in TABLES[_n]:
        FIRST.setdefault(_pair, _n)
NEWEST = set(TABLES[16])


def _node(name: str, version: str, opset: int):
    """A default-constructed node (Assign/ReadValue-6 need a Variable)."""
    if (name, version) in {("Assign", "v6"), ("ReadValue", "v6")}:
        import openvino.opset6 as o6

        value = o6.read_value("t", Type.f32, PartialShape([1]))
        return value if name == "ReadValue" else o6.assign(value, "t")
    return NodeFactory(f"opset{opset}").create(name)


def _type_name(name: str, version: str, opset: int) -> str:
    if name == "Constant":  # NodeFactory cannot create it
        return name
    return _node(name, version, opset).get_type_info().name


# ---------------------------------------------------------------------------
# (a) every opset16 op, and every older version, has its class
# ---------------------------------------------------------------------------


def test_opset16_table_size() -> None:
    assert len(TABLES[16]) == 203


@pytest.mark.parametrize("pair", sorted(NEWEST), ids=lambda p: f"{p[0]}-{p[1]}")
def test_newest_op_has_class(pair: tuple[str, str]) -> None:
    name, version = pair
    opset = FIRST[pair]
    ov_type = _type_name(name, version, opset)
    cls = OPS_BY_TYPE[ov_type]
    assert cls.OV_TYPE == ov_type
    assert cls.OV_VERSION == f"opset{opset}"
    assert cls.name == f"ov.{ov_type}"


OLDER = sorted(p for p in FIRST if p not in NEWEST)


@pytest.mark.parametrize("pair", OLDER, ids=lambda p: f"{p[0]}-{p[1]}")
def test_older_op_has_class(pair: tuple[str, str]) -> None:
    name, version = pair
    opset = FIRST[pair]
    ov_type = _type_name(name, version, opset)
    cls = OPS_BY_TYPE_VERSION[(ov_type, f"opset{opset}")]
    assert cls.name == f"ov.{ov_type}_opset{opset}"
    assert cls.__name__ == f"{ov_type}Opset{opset}Op"


def test_generated_ops_are_exactly_the_table() -> None:
    expected = {
        (_type_name(n, v, o), f"opset{o}")
        for (n, v), o in FIRST.items()
        if n not in {"Parameter", "Constant", "Result", "If", "Loop", "TensorIterator"}
    }
    got = {(c.OV_TYPE, c.OV_VERSION) for c in generated.GENERATED_OPS}
    assert got == expected
    assert len(generated.GENERATED_OPS) == len(expected)
    assert len({c.name for c in generated.GENERATED_OPS}) == len(expected)


# ---------------------------------------------------------------------------
# (b) version examples
# ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("ov_type", "version", "op_name"),
    [
        ("MaxPool", "opset14", "ov.MaxPool"),
        ("MaxPool", "opset8", "ov.MaxPool_opset8"),
        ("MaxPool", "opset1", "ov.MaxPool_opset1"),
        ("Softmax", "opset8", "ov.Softmax"),
        ("Softmax", "opset1", "ov.Softmax_opset1"),
        ("Gather", "opset8", "ov.Gather"),
        ("TopK", "opset11", "ov.TopK"),
        ("Interpolate", "opset11", "ov.Interpolate"),
        ("Squeeze", "opset15", "ov.Squeeze"),
        ("AvgPool", "opset16", "ov.AvgPool"),
        ("AvgPool", "opset14", "ov.AvgPool_opset14"),
    ],
)
def test_version_examples(ov_type: str, version: str, op_name: str) -> None:
    cls = OPS_BY_TYPE_VERSION[(ov_type, version)]
    assert cls.name == op_name
    if "_opset" not in op_name:
        assert OPS_BY_TYPE[ov_type] is cls


def test_version_examples_from_tables() -> None:
    for pair, opset in [
        (("MaxPool", "v14"), 14),
        (("Softmax", "v8"), 8),
        (("Gather", "v8"), 8),
        (("TopK", "v11"), 11),
        (("Interpolate", "v11"), 11),
        (("Squeeze", "v15"), 15),
        (("AvgPool", "v16"), 16),
    ]:
        assert FIRST[pair] == opset
        assert pair in NEWEST


# ---------------------------------------------------------------------------
# (c) attribute names
# ---------------------------------------------------------------------------

NEWEST_GENERATED = sorted(
    (p for p in NEWEST if p[0] not in {"Parameter", "Constant", "Result"}),
)


@pytest.mark.parametrize("pair", NEWEST_GENERATED, ids=lambda p: f"{p[0]}-{p[1]}")
def test_attribute_names(pair: tuple[str, str]) -> None:
    name, version = pair
    node = _node(name, version, FIRST[pair])
    cls = OPS_BY_TYPE[node.get_type_info().name]
    expected = list(node.get_attributes())
    assert [a.name for a in cls.OV_ATTRS] == expected


def test_attribute_kinds_sample() -> None:
    kinds = {
        ("MaxPool", "kernel"): "i64[]",
        ("MaxPool", "index_element_type"): "etype",
        ("Convert", "destination_type"): "etype",
        ("PriorBox", "min_size"): "f64[]",
        ("LSTMSequence", "activations"): "str[]",
        ("LSTMSequence", "activations_alpha"): "f64[]",
        ("Softmax", "axis"): "i64",
        ("MVN", "eps"): "f64",
        ("MatMul", "transpose_a"): "bool",
        ("Add", "auto_broadcast"): "str",
        ("ReadValue", "variable_shape"): "shape",
    }
    for (op, attr), kind in kinds.items():
        assert OPS_BY_TYPE[op].attr_spec(attr).kind == kind, (op, attr)
    assert OPS_BY_TYPE["Convolution"].attr_spec("strides").required
    assert OPS_BY_TYPE["Concat"].attr_spec("axis").required
    assert not OPS_BY_TYPE["MatMul"].attr_spec("transpose_a").required


# ---------------------------------------------------------------------------
# (d) input (and output) counts of common ops
# ---------------------------------------------------------------------------


def _p(shape: list[int], etype: Type = Type.f32):
    return o1.parameter(shape, etype)


def _i64(values: list[int]):
    import numpy as np

    return o1.constant(np.array(values, dtype=np.int64))


def _f32(value: float):
    import numpy as np

    return o1.constant(np.array(value, dtype=np.float32))


def _nf(opset: int, name: str, args: list, attrs: dict | None = None):
    """Build an op from exactly ``args`` (no inputs filled in)."""
    return NodeFactory(f"opset{opset}").create(
        name, [a.output(0) for a in args], attrs or {}
    )


def _cases():
    import openvino.opset1 as s1
    import openvino.opset3 as s3
    import openvino.opset4 as s4
    import openvino.opset5 as s5
    import openvino.opset6 as s6
    import openvino.opset7 as s7
    import openvino.opset8 as s8
    import openvino.opset9 as s9
    import openvino.opset10 as s10
    import openvino.opset11 as s11
    import openvino.opset12 as s12
    import openvino.opset13 as s13
    import openvino.opset14 as s14
    import openvino.opset15 as s15
    import openvino.opset16 as s16

    x = lambda: _p([1, 3, 8, 8])  # noqa: E731
    w = lambda: _p([4, 3, 3, 3])  # noqa: E731
    boxes = lambda: _p([1, 10, 4])  # noqa: E731
    scores = lambda: _p([1, 2, 10])  # noqa: E731
    # op type -> (node with only required inputs, node with every optional input)
    return {
        "Add": (lambda: s1.add(x(), x()), None),
        "Multiply": (lambda: s1.multiply(x(), x()), None),
        "Relu": (lambda: s1.relu(x()), None),
        "Sigmoid": (lambda: s1.sigmoid(x()), None),
        "Erf": (lambda: s1.erf(x()), None),
        "MatMul": (lambda: s1.matmul(x(), x(), False, True), None),
        "Convolution": (
            lambda: s1.convolution(x(), w(), [1, 1], [0, 0], [0, 0], [1, 1]),
            None,
        ),
        "GroupConvolution": (
            lambda: s1.group_convolution(
                x(), _p([3, 1, 1, 3, 3]), [1, 1], [0, 0], [0, 0], [1, 1]
            ),
            None,
        ),
        "ConvolutionBackpropData": (
            lambda: s1.convolution_backprop_data(x(), _p([3, 4, 3, 3]), [1, 1]),
            lambda: s1.convolution_backprop_data(
                x(), _p([3, 4, 3, 3]), [1, 1], _i64([10, 10])
            ),
        ),
        "MaxPool": (
            lambda: s14.max_pool(x(), [1, 1], [1, 1], [0, 0], [0, 0], [2, 2]),
            None,
        ),
        "AvgPool": (
            lambda: s16.avg_pool(x(), [1, 1], [0, 0], [0, 0], [2, 2], True),
            None,
        ),
        "Concat": (lambda: s1.concat([x()], 1), lambda: s1.concat([x(), x()], 1)),
        "Reshape": (lambda: s1.reshape(x(), _i64([3, -1]), False), None),
        "Transpose": (lambda: s1.transpose(x(), _i64([0, 2, 3, 1])), None),
        "Squeeze": (
            lambda: s15.squeeze(_p([1, 3])),
            lambda: s15.squeeze(_p([1, 3]), _i64([0])),
        ),
        "Unsqueeze": (lambda: s1.unsqueeze(x(), _i64([0])), None),
        "Gather": (lambda: s8.gather(x(), _i64([0]), _i64([1])), None),
        "Softmax": (lambda: s8.softmax(x(), 1), None),
        "Split": (lambda: s1.split(x(), _i64(1), 3), None),
        "VariadicSplit": (
            lambda: s1.variadic_split(x(), _i64(1), _i64([1, 2])),
            None,
        ),
        "StridedSlice": (
            lambda: _nf(1, "StridedSlice", [x(), _i64([0]), _i64([1])],
                        {"begin_mask": [0], "end_mask": [0]}),
            lambda: s1.strided_slice(
                x(), _i64([0]), _i64([1]), _i64([1]), [0], [0]
            ),
        ),
        "Slice": (
            lambda: _nf(8, "Slice", [x(), _i64([0]), _i64([1]), _i64([1])]),
            lambda: s8.slice(x(), _i64([0]), _i64([1]), _i64([1]), _i64([1])),
        ),
        "Pad": (
            lambda: s12.pad(x(), _i64([0, 0, 1, 1]), _i64([0, 0, 1, 1]), "constant"),
            lambda: s12.pad(
                x(), _i64([0, 0, 1, 1]), _i64([0, 0, 1, 1]), "constant", _f32(0.0)
            ),
        ),
        "Broadcast": (
            lambda: s3.broadcast(_p([3]), _i64([2, 3])),
            lambda: s3.broadcast(_p([3]), _i64([2, 3]), _i64([1]), "EXPLICIT"),
        ),
        "TopK": (lambda: s11.topk(x(), _i64(2), 1, "max", "value"), None),
        "Interpolate": (
            lambda: s11.interpolate(x(), _i64([1, 3, 16, 16]), "nearest", "sizes"),
            lambda: s11.interpolate(
                x(), _i64([16, 16]), "nearest", "sizes", axes=_i64([2, 3])
            ),
        ),
        "Convert": (lambda: s1.convert(x(), "f16"), None),
        "ReduceMean": (lambda: s1.reduce_mean(x(), _i64([1])), None),
        "Select": (
            lambda: s1.select(_p([1, 3, 8, 8], Type.boolean), x(), x()),
            None,
        ),
        "Clamp": (lambda: s1.clamp(x(), 0.0, 6.0), None),
        "Tile": (lambda: s1.tile(x(), _i64([1, 1, 2, 2])), None),
        "ShapeOf": (lambda: s3.shape_of(x()), None),
        "Range": (lambda: s16.range(_i64(0), _i64(5), _i64(1), "i64"), None),
        "NonMaxSuppression": (
            # the Python function fills in the optional inputs
            lambda: _nf(9, "NonMaxSuppression", [boxes(), scores()]),
            lambda: s9.non_max_suppression(
                boxes(), scores(), _i64(5), _f32(0.5), _f32(0.1), _f32(0.0)
            ),
        ),
        "ScaledDotProductAttention": (
            lambda: s13.scaled_dot_product_attention(
                _p([1, 4, 8]), _p([1, 4, 8]), _p([1, 4, 8])
            ),
            lambda: s13.scaled_dot_product_attention(
                _p([1, 4, 8]), _p([1, 4, 8]), _p([1, 4, 8]), _p([1, 4, 4]), _f32(1.0)
            ),
        ),
        "DFT": (
            lambda: s7.dft(_p([4, 8, 2]), _i64([1])),
            lambda: s7.dft(_p([4, 8, 2]), _i64([1]), _i64([8])),
        ),
        "Unique": (
            lambda: s10.unique(_p([10])),
            lambda: s10.unique(_p([10]), _i64(0)),
        ),
        "Swish": (lambda: _nf(4, "Swish", [x()]), lambda: s4.swish(x(), _f32(1.0))),
        "MVN": (lambda: s6.mvn(x(), _i64([2, 3]), True, 1e-5, "inside_sqrt"), None),
        "FakeQuantize": (
            lambda: s1.fake_quantize(x(), _f32(0), _f32(1), _f32(0), _f32(1), 256),
            None,
        ),
        "BatchNormInference": (
            lambda: s5.batch_norm_inference(
                x(), _p([3]), _p([3]), _p([3]), _p([3]), 1e-5
            ),
            None,
        ),
        "Einsum": (
            lambda: s7.einsum([_p([2, 3])], "ij->ji"),
            lambda: s7.einsum([_p([2, 3]), _p([3, 4])], "ij,jk->ik"),
        ),
        "ConvertPromoteTypes": (
            lambda: s14.convert_promote_types(x(), _p([1], Type.f16)),
            None,
        ),
    }


CASES = _cases()

#: Ops whose C++ validation adds its optional inputs itself (Slice adds ``axes``),
#: though IR with fewer inputs is valid.
FILLS_OPTIONAL_INPUTS = frozenset({"Slice", "StridedSlice"})


@pytest.mark.parametrize("ov_type", sorted(CASES))
def test_port_counts_agree_with_openvino(ov_type: str) -> None:
    make_min, make_max = CASES[ov_type]
    cls: type[OVOp] = OPS_BY_TYPE[ov_type]
    lo, hi = port_counts(cls.OV_INPUTS)
    node = make_min()
    assert node.get_type_info().name == ov_type
    assert node.get_type_info().version_id == cls.OV_VERSION
    if ov_type in FILLS_OPTIONAL_INPUTS:
        assert node.get_input_size() in (lo, hi)
    else:
        assert node.get_input_size() == lo
    if make_max is not None:
        n = make_max().get_input_size()
        if hi is None:
            assert n >= lo
        else:
            assert n == hi
    else:
        assert hi is None or hi == lo
    out_lo, out_hi = port_counts(cls.OV_OUTPUTS)
    n_out = node.get_output_size()
    assert n_out >= out_lo and (out_hi is None or n_out <= out_hi)


# ---------------------------------------------------------------------------
# (e) the checked-in ops.py is what the generator produces
# ---------------------------------------------------------------------------


def test_ops_py_is_up_to_date() -> None:
    import importlib.metadata

    from xmo.tools import gen_ov_opset

    path = pathlib.Path(generated.__file__)
    text = path.read_text()
    header = re.search(r"from openvino==(\S+?)\.?$", text.splitlines()[0])
    assert header is not None, "ops.py has no generator header"
    if header.group(1) != importlib.metadata.version("openvino"):
        pytest.skip(f"ops.py was generated from openvino {header.group(1)}")
    assert gen_ov_opset.render() == text, (
        "dialects/ov/ops.py is stale: run `python tools/gen_ov_opset.py`"
    )


# ---------------------------------------------------------------------------
# The specialised IRDL verifier (dialects/ov/base.py: _install_fast_verify)
# ---------------------------------------------------------------------------


def test_fast_verifier_rejects_what_the_generic_one_rejects():
    from xdsl.dialects.builtin import IntegerAttr, StringAttr, i32, i64
    from xdsl.dialects.test import TestOp
    from xdsl.utils.exceptions import VerifyException

    from xmo.dialects.ov import ParameterOp, op_class

    add = op_class("Add")
    assert add.get_irdl_definition().verify.__qualname__.startswith("_install_fast_verify")
    x = ParameterOp.new("f32", [2], name="x")

    def fresh():
        return add.make([x, x])

    fresh().verify()
    bad = fresh()
    bad.properties["friendly_name"] = IntegerAttr(1, i64)  # wrong kind of property
    with pytest.raises(VerifyException):
        bad.verify()
    bad = fresh()
    bad.properties["no_such_property"] = StringAttr("x")
    with pytest.raises(VerifyException, match="no_such_property"):
        bad.verify()
    scalar = TestOp.create(result_types=[i32])  # an operand that is not a tensor
    bad = add.create(operands=[scalar.results[0], x.results[0]], result_types=[x.results[0].type])
    with pytest.raises(VerifyException):
        bad.verify()
    bad = fresh()
    bad.attributes["extra"] = StringAttr("x")  # discardable attributes: generic path
    add.get_irdl_definition().verify(bad)  # what the generic verifier does with them
