"""The ONNX frontend (xmo.frontends.onnx): ONNX models -> onnx-dialect modules."""

from __future__ import annotations

import glob
import io
import os
import warnings
from pathlib import Path

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper, numpy_helper
from xdsl.dialects.builtin import (
    DYNAMIC_INDEX,
    DenseIntOrFPElementsAttr,
    DenseResourceAttr,
    ModuleOp,
    NoneType,
    UnrankedTensorType,
)
from xdsl.ir import Operation
from xdsl.parser import Parser
from xdsl.printer import Printer
from xmo.context import make_context, weight_store
from xmo.dialects.onnx import CustomOp, NoValueOp, ONNXOp, YieldOp
from xmo.dialects.onnx.base import InitializerOp, InputOp, OutputOp
from xmo.dialects.ov.weights import constant_array
from xmo.frontends import UnsupportedModelFormat, load_framework_model
from xmo.frontends.onnx import OnnxFrontendError, load_onnx

DATA = Path(onnx.__file__).parent / "backend" / "test" / "data"
LIGHT = sorted(glob.glob(str(DATA / "light" / "*.onnx")))
D = DYNAMIC_INDEX
STORED = sorted(glob.glob(str(DATA / "*" / "*" / "model.onnx")))


# ---------------------------------------------------------------------------
# helpers
# ---------------------------------------------------------------------------


def _count_nodes(graph: onnx.GraphProto) -> int:
    n = 0
    for node in graph.node:
        n += 1
        for a in node.attribute:
            if a.HasField("g"):
                n += _count_nodes(a.g)
            for g in a.graphs:
                n += _count_nodes(g)
    return n


def _node_ops(module: ModuleOp) -> list[Operation]:
    return [op for op in module.walk() if isinstance(op, ONNXOp | CustomOp)]


def _check(model: onnx.ModelProto, module: ModuleOp) -> None:
    module.verify()
    assert len(_node_ops(module)) == _count_nodes(model.graph)
    g = model.graph
    inits = {t.name for t in g.initializer}
    top = list(module.body.block.ops)
    assert [op.tensor_name.data for op in top if isinstance(op, InputOp)] == [
        vi.name for vi in g.input if vi.name not in inits
    ]
    assert [op.tensor_name.data for op in top if isinstance(op, OutputOp)] == [
        vi.name for vi in g.output
    ]
    assert sum(isinstance(op, InitializerOp) for op in top) == len(g.initializer)


def _print(module: ModuleOp) -> str:
    s = io.StringIO()
    Printer(stream=s).print_op(module)
    return s.getvalue()


def _model(nodes, inputs, outputs, initializers=(), opset=18, **kw) -> onnx.ModelProto:
    graph = helper.make_graph(nodes, "g", inputs, outputs, initializer=list(initializers))
    imports = kw.pop("opset_imports", [helper.make_opsetid("", opset)])
    return helper.make_model(graph, opset_imports=imports, **kw)


def _vi(name, elem=TensorProto.FLOAT, shape=None):
    return helper.make_tensor_value_info(name, elem, shape)


def _top(module: ModuleOp, cls):
    return [op for op in module.body.block.ops if isinstance(op, cls)]


# ---------------------------------------------------------------------------
# Models shipped with the onnx wheel
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("path", LIGHT, ids=lambda p: Path(p).stem)
def test_light_models_load(path):
    assert LIGHT, "onnx wheel has no light models"
    model = onnx.load(path)
    module = load_onnx(path, make_context())
    _check(model, module)


def test_stored_test_models_load():
    """Every model.onnx of the wheel's test data (pytorch-converted, simple...)."""
    assert len(STORED) > 50
    for path in STORED:
        model = onnx.load(path)
        try:
            module = load_onnx(path, make_context())
            _check(model, module)
        except Exception as e:  # pragma: no cover - report the model
            raise AssertionError(f"{path}: {e}") from e


@pytest.fixture(scope="module")
def node_cases():
    from onnx.backend.test.case import node

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with np.errstate(all="ignore"):
            cases = node.collect_testcases(None)
    return sorted(cases, key=lambda c: c.name)


def test_node_test_models_load(node_cases):
    """A deterministic sample (~300) of the onnx node test models, plus all
    models with subgraphs or non-default domains."""
    assert len(node_cases) > 1000
    sample = [
        c
        for i, c in enumerate(node_cases)
        if i % 7 == 0
        or any(n.op_type in ("If", "Loop", "Scan", "SequenceMap") for n in c.model.graph.node)
        or any(n.domain not in ("", "ai.onnx") for n in c.model.graph.node)
    ]
    assert len(sample) >= 200
    for c in sample:
        try:
            module = load_onnx(c.model, make_context())
            _check(c.model, module)
        except Exception as e:  # pragma: no cover - report the case
            raise AssertionError(f"{c.name}: {e}") from e


def test_round_trip_through_text(node_cases):
    ctx = make_context()
    case = next(c for c in node_cases if c.name == "test_loop11")
    module = load_onnx(case.model, ctx)
    text = _print(module)
    again = Parser(ctx, text).parse_module()
    again.verify()
    assert _print(again) == text


# ---------------------------------------------------------------------------
# Structure and names
# ---------------------------------------------------------------------------


def test_structure_names_and_hints():
    w = np.arange(12, dtype=np.float32).reshape(3, 4)
    model = _model(
        [
            helper.make_node("MatMul", ["x:0", "w"], ["mm/out"], name="my matmul"),
            helper.make_node("Relu", ["mm/out"], ["1y"]),
        ],
        [_vi("x:0", shape=["batch", 3])],
        [_vi("1y", shape=["batch", 4])],
        [numpy_helper.from_array(w, "w")],
    )
    ctx = make_context()  # keep it alive: it owns the weights
    module = load_onnx(model, ctx)
    _check(model, module)
    (inp,) = _top(module, InputOp)
    assert inp.tensor_name.data == "x:0"
    assert str(inp.result.type) == "tensor<?x3xf32>"
    assert inp.result.type.get_shape() == (D, 3)
    assert [p.data for p in inp.dim_params] == ["batch", ""]
    (init,) = _top(module, InitializerOp)
    assert init.tensor_name.data == "w" and init.overridable is None
    np.testing.assert_array_equal(constant_array(init.value), w)
    mm, relu = _node_ops(module)
    assert mm.node_name.data == "my matmul"
    assert [s.data for s in mm.output_names] == ["mm/out"]
    assert relu.node_name is None
    assert [s.data for s in relu.output_names] == ["1y"]
    assert mm.results[0].type.get_shape() == (D, 4)
    text = _print(module)
    assert "%x = " in text  # xDSL drops a "_<digits>" suffix
    assert "%mm_out = " in text and "%v1y = " in text
    (out,) = _top(module, OutputOp)
    assert out.tensor_name.data == "1y" and out.value is relu.results[0]


def test_absent_inputs_and_outputs():
    model = _model(
        [
            helper.make_node("Clip", ["x", "", "hi"], ["y"]),
            helper.make_node(
                "BatchNormalization", ["x4", "s", "b", "m", "v"], ["z", "", "rv"],
                training_mode=1,
            ),
        ],
        [_vi("x", shape=[2]), _vi("hi", shape=[]), _vi("x4", shape=[2, 3])]
        + [_vi(n, shape=[3]) for n in "sbmv"],
        [_vi("y", shape=[2]), _vi("z", shape=[2, 3]), _vi("rv", shape=[3])],
        opset=15,
    )
    module = load_onnx(model, make_context())
    module.verify()
    clip, bn = _node_ops(module)
    assert isinstance(clip.operands[1].owner, NoValueOp)
    assert isinstance(bn.results[1].type, NoneType)
    assert [s.data for s in bn.output_names] == ["z", "", "rv"]


def test_ir3_initializers_are_inputs_and_ir4_defaults_are_overridable():
    w = numpy_helper.from_array(np.ones(3, np.float32), "w")
    nodes = [helper.make_node("Add", ["x", "w"], ["y"])]
    ins = [_vi("x", shape=[3]), _vi("w", shape=[3])]
    m4 = _model(nodes, ins, [_vi("y", shape=[3])], [w])
    module = load_onnx(m4, make_context())
    _check(m4, module)
    (init,) = _top(module, InitializerOp)
    assert init.overridable is not None
    m3 = _model(nodes, ins, [_vi("y", shape=[3])], [w], ir_version=3, opset=6)
    (init,) = _top(load_onnx(m3, make_context()), InitializerOp)
    assert init.overridable is None


def test_unsorted_nodes_are_ordered():
    model = _model(
        [helper.make_node("Relu", ["a"], ["b"]), helper.make_node("Neg", ["x"], ["a"])],
        [_vi("x", shape=[2])],
        [_vi("b", shape=[2])],
    )
    module = load_onnx(model, make_context())
    module.verify()
    assert [op.name for op in _node_ops(module)] == ["onnx.Neg", "onnx.Relu"]


def test_unknown_domain_becomes_custom():
    t = numpy_helper.from_array(np.arange(100, dtype=np.int64), "t")
    node = helper.make_node(
        "FancyOp", ["x"], ["y", "z"], domain="com.example", name="fancy",
        alpha=0.5, n=3, mode="fast", ints=[1, 2], names=["a", "b"], table=t,
    )
    model = _model(
        [node, helper.make_node("Relu", ["y"], ["r"])],
        [_vi("x", shape=[2])],
        [_vi("r"), _vi("z")],
        opset_imports=[helper.make_opsetid("", 18), helper.make_opsetid("com.example", 2)],
    )
    ctx = make_context()  # keep it alive: it owns the weights
    module = load_onnx(model, ctx)
    module.verify()
    custom = next(op for op in module.walk() if isinstance(op, CustomOp))
    assert (custom.domain.data, custom.op_type.data, custom.version.value.data) == (
        "com.example", "FancyOp", 2,
    )
    attrs = custom.attrs.data
    assert attrs["alpha"].value.data == 0.5 and attrs["n"].value.data == 3
    assert attrs["mode"].data == "fast"
    assert tuple(attrs["ints"].get_values()) == (1, 2)
    assert [s.data for s in attrs["names"]] == ["a", "b"]
    np.testing.assert_array_equal(constant_array(attrs["table"]), np.arange(100))
    assert custom.node_name.data == "fancy"
    assert [s.data for s in custom.output_names] == ["y", "z"]
    assert len(custom.results) == 2


def test_newer_version_than_generated_and_unknown_type_become_custom():
    model = _model(
        [helper.make_node("Relu", ["x"], ["y"]), helper.make_node("NoSuchOp", ["y"], ["z"])],
        [_vi("x", shape=[2])],
        [_vi("z", shape=[2])],
        opset=1000,
    )
    model.ir_version = 10
    module = load_onnx(model, make_context())
    module.verify()
    ops = _node_ops(module)
    assert all(isinstance(op, ONNXOp | CustomOp) for op in ops)
    assert isinstance(ops[1], CustomOp) and ops[1].op_type.data == "NoSuchOp"


def test_non_utf8_string_attribute_kept_safely():
    node = helper.make_node("Custom", ["x"], ["y"], domain="d", s=b"\xff\xfeok")
    model = _model(
        [node], [_vi("x")], [_vi("y")],
        opset_imports=[helper.make_opsetid("", 18), helper.make_opsetid("d", 1)],
    )
    module = load_onnx(model, make_context())
    module.verify()
    (op,) = _node_ops(module)
    assert op.attributes["onnx.raw_strings"].data["s"].data == b"\xff\xfeok"
    _print(module)  # printable


# ---------------------------------------------------------------------------
# Subgraphs
# ---------------------------------------------------------------------------


def test_if_and_loop_subgraphs_are_regions():
    then_g = helper.make_graph(
        [helper.make_node("Add", ["x", "outer"], ["t"])], "then", [], [_vi("t", shape=[2])]
    )
    else_g = helper.make_graph(
        [helper.make_node("Sub", ["x", "outer"], ["e"])], "else", [], [_vi("e", shape=[2])]
    )
    body = helper.make_graph(
        [
            helper.make_node("Identity", ["c_in"], ["c_out"]),
            helper.make_node("Add", ["v_in", "outer"], ["v_out"]),
        ],
        "body",
        [_vi("i", TensorProto.INT64, []), _vi("c_in", TensorProto.BOOL, []), _vi("v_in")],
        [_vi("c_out", TensorProto.BOOL, []), _vi("v_out")],
    )
    model = _model(
        [
            helper.make_node("Neg", ["x"], ["outer"]),
            helper.make_node("If", ["c"], ["r"], then_branch=then_g, else_branch=else_g),
            helper.make_node("Loop", ["n", "", "r"], ["l"], body=body),
        ],
        [_vi("x", shape=[2]), _vi("c", TensorProto.BOOL, []), _vi("n", TensorProto.INT64, [])],
        [_vi("l", shape=[2])],
    )
    module = load_onnx(model, make_context())
    _check(model, module)
    if_op = next(op for op in module.walk() if op.name.startswith("onnx.If"))
    loop = next(op for op in module.walk() if op.name.startswith("onnx.Loop"))
    neg = next(op for op in module.walk() if op.name.startswith("onnx.Neg"))
    assert len(if_op.regions) == 2
    else_r, then_r = if_op.regions  # REGIONS order: else_branch, then_branch
    add = then_r.block.first_op
    assert add.name.startswith("onnx.Add") and add.operands[1] is neg.results[0]
    assert isinstance(then_r.block.last_op, YieldOp)
    assert else_r.block.first_op.name.startswith("onnx.Sub")
    (body_r,) = loop.regions
    assert len(body_r.block.args) == 3
    assert [a.name_hint for a in body_r.block.args] == ["i", "c_in", "v_in"]
    assert isinstance(loop.operands[1].owner, NoValueOp)
    inner_add = list(body_r.block.ops)[1]
    assert inner_add.operands[1] is neg.results[0]
    assert inner_add.operands[0] is body_r.block.args[2]


def test_subgraph_with_own_initializer():
    then_g = helper.make_graph(
        [helper.make_node("Add", ["x", "k"], ["t"])], "then", [], [_vi("t", shape=[2])],
        initializer=[numpy_helper.from_array(np.ones(2, np.float32), "k")],
    )
    else_g = helper.make_graph([], "else", [], [_vi("x", shape=[2])])
    model = _model(
        [helper.make_node("If", ["c"], ["r"], then_branch=then_g, else_branch=else_g)],
        [_vi("x", shape=[2]), _vi("c", TensorProto.BOOL, [])],
        [_vi("r", shape=[2])],
    )
    module = load_onnx(model, make_context())
    _check(model, module)
    if_op = next(op for op in module.walk() if op.name.startswith("onnx.If"))
    ops = list(if_op.regions[1].block.ops)
    assert isinstance(ops[0], InitializerOp) and ops[0].tensor_name.data == "k"
    yield_else = if_op.regions[0].block.last_op
    assert isinstance(yield_else.operands[0].owner, InputOp)


# ---------------------------------------------------------------------------
# Weights
# ---------------------------------------------------------------------------


def _resource_bytes(ctx, attr):
    assert isinstance(attr, DenseResourceAttr)
    return weight_store(ctx).get_bytes(attr.resource_handle.data)


def test_weights_are_dense_resource_views():
    w = np.random.default_rng(0).standard_normal((64, 32)).astype(np.float32)
    c = np.arange(300, dtype=np.int64)
    model = _model(
        [
            helper.make_node("MatMul", ["x", "w"], ["y"]),
            helper.make_node("Constant", [], ["c"], value=numpy_helper.from_array(c, "c")),
        ],
        [_vi("x", shape=[1, 64])],
        [_vi("y", shape=[1, 32]), _vi("c", TensorProto.INT64, [300])],
        [numpy_helper.from_array(w, "w")],
    )
    ctx = make_context()
    module = load_onnx(model.SerializeToString(), ctx)
    _check(model, module)
    (init,) = _top(module, InitializerOp)
    raw = _resource_bytes(ctx, init.value)
    assert raw.base is not None  # a view of the protobuf bytes, not a copy
    np.testing.assert_array_equal(constant_array(init.value), w)
    const = next(op for op in _node_ops(module) if op.name.startswith("onnx.Constant"))
    np.testing.assert_array_equal(constant_array(const.value), c)
    assert isinstance(const.value, DenseResourceAttr)


@pytest.mark.parametrize(
    "dtype,elem",
    [
        (np.float32, TensorProto.FLOAT), (np.float16, TensorProto.FLOAT16),
        (np.int8, TensorProto.INT8), (np.uint16, TensorProto.UINT16),
        (np.bool_, TensorProto.BOOL), (np.float64, TensorProto.DOUBLE),
        (np.int32, TensorProto.INT32), (np.uint64, TensorProto.UINT64),
    ],
)  # fmt: skip
def test_typed_fields_are_converted(dtype, elem):
    arr = (np.arange(40) % 3).astype(dtype)
    t = helper.make_tensor("t", elem, [40], arr.tolist() if elem != TensorProto.FLOAT16 else arr, raw=False)
    assert not t.HasField("raw_data")
    model = _model(
        [helper.make_node("Identity", ["t"], ["y"])], [], [_vi("y", elem, [40])], [t]
    )
    ctx = make_context()  # keep it alive: it owns the weights
    module = load_onnx(model, ctx)
    module.verify()
    (init,) = _top(module, InitializerOp)
    np.testing.assert_array_equal(constant_array(init.value), arr)


def test_exotic_element_types_are_raw_resources():
    t = helper.make_tensor("f8", TensorProto.FLOAT8E4M3FN, [4], [1.0, 2.0, 0.5, 0.0])
    i4 = helper.make_tensor("i4", TensorProto.INT4, [5], [1, -2, 3, -4, 5])
    model = _model(
        [helper.make_node("Identity", ["f8"], ["y"]), helper.make_node("Identity", ["i4"], ["z"])],
        [], [_vi("y", TensorProto.FLOAT8E4M3FN, [4]), _vi("z", TensorProto.INT4, [5])], [t, i4],
        opset=21,
    )
    ctx = make_context()
    module = load_onnx(model, ctx)
    module.verify()
    f8, q4 = _top(module, InitializerOp)
    assert isinstance(f8.value, DenseResourceAttr) and _resource_bytes(ctx, f8.value).size == 4
    assert _resource_bytes(ctx, q4.value).size == 3  # packed, two per byte


def test_string_tensors():
    t = helper.make_tensor("s", TensorProto.STRING, [2], [b"a", b"b\xc3\xa9"])
    model = _model(
        [helper.make_node("Identity", ["s"], ["y"])], [], [_vi("y", TensorProto.STRING, [2])], [t]
    )
    module = load_onnx(model, make_context())
    module.verify()
    (init,) = _top(module, InitializerOp)
    assert [s.data for s in init.value.values] == ["a", "bé"]


# ---------------------------------------------------------------------------
# External data
# ---------------------------------------------------------------------------


def _external_model(folder: Path, location: str, write_to: Path | None = None) -> Path:
    """A model whose initializer 'w' is external at ``location``."""
    folder.mkdir(parents=True, exist_ok=True)
    w = np.arange(256, dtype=np.float32)
    target = write_to if write_to is not None else folder / location
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_bytes(b"\0" * 16 + w.tobytes())
    t = onnx.TensorProto(name="w", data_type=TensorProto.FLOAT, dims=[256])
    t.data_location = TensorProto.EXTERNAL
    for k, v in (("location", location), ("offset", "16"), ("length", str(w.nbytes))):
        e = t.external_data.add()
        e.key, e.value = k, v
    model = _model(
        [helper.make_node("Relu", ["w"], ["y"])], [], [_vi("y", shape=[256])], [t]
    )
    path = folder / "model.onnx"
    path.write_bytes(model.SerializeToString())
    return path


def test_external_data_is_memory_mapped(tmp_path):
    path = _external_model(tmp_path / "m", "weights/w.bin")
    ctx = make_context()
    module = load_onnx(path, ctx)
    module.verify()
    (init,) = _top(module, InitializerOp)
    raw = _resource_bytes(ctx, init.value)
    base, maps = raw, []
    while base is not None:
        if isinstance(base, np.memmap):
            maps.append(base)
        base = getattr(base, "base", None) if isinstance(base, np.ndarray) else None
    assert maps and all(np.shares_memory(raw, m) for m in maps)
    assert not raw.flags.writeable
    np.testing.assert_array_equal(constant_array(init.value), np.arange(256, dtype=np.float32))


def test_external_data_protobuf_large_path_via_framework_loader(tmp_path):
    path = _external_model(tmp_path / "m", "w.bin")
    module = load_framework_model(path, make_context())
    module.verify()


def test_external_data_symlink_inside_folder_is_fine(tmp_path):
    folder = tmp_path / "m"
    path = _external_model(folder, "real.bin")
    os.symlink(folder / "real.bin", folder / "link.bin")
    model = onnx.load(path, load_external_data=False)
    model.graph.initializer[0].external_data[0].value = "link.bin"
    path.write_bytes(model.SerializeToString())
    load_onnx(path, make_context()).verify()


def test_external_data_dotdot_refused(tmp_path):
    path = _external_model(tmp_path / "m", "../w.bin")
    with pytest.raises(OnnxFrontendError, match=r"tensor 'w'.*'\.\.'"):
        load_onnx(path, make_context())


def test_external_data_absolute_path_refused(tmp_path):
    target = tmp_path / "elsewhere" / "w.bin"
    path = _external_model(tmp_path / "m", str(target), write_to=target)
    with pytest.raises(OnnxFrontendError, match=r"tensor 'w'.*absolute"):
        load_onnx(path, make_context())


def test_external_data_escaping_symlink_refused(tmp_path):
    outside = tmp_path / "outside" / "w.bin"
    folder = tmp_path / "m"
    path = _external_model(folder, "link.bin", write_to=outside)
    os.symlink(outside, folder / "link.bin")
    with pytest.raises(OnnxFrontendError, match=r"tensor 'w'.*outside the model's folder"):
        load_onnx(path, make_context())


def test_external_data_missing_file_and_bad_range(tmp_path):
    path = _external_model(tmp_path / "m", "w.bin")
    (tmp_path / "m" / "w.bin").write_bytes(b"\0" * 10)
    with pytest.raises(OnnxFrontendError, match=r"tensor 'w'.*outside w.bin"):
        load_onnx(path, make_context())
    (tmp_path / "m" / "w.bin").unlink()
    with pytest.raises(OnnxFrontendError, match=r"tensor 'w'.*no such file"):
        load_onnx(path, make_context())


def test_external_data_needs_a_folder_for_in_memory_models(tmp_path):
    path = _external_model(tmp_path / "m", "w.bin")
    model = onnx.load(path, load_external_data=False)
    with pytest.raises(OnnxFrontendError, match=r"tensor 'w'.*base_dir"):
        load_onnx(model, make_context())
    load_onnx(model, make_context(), base_dir=tmp_path / "m").verify()


# ---------------------------------------------------------------------------
# Malformed models
# ---------------------------------------------------------------------------


def _one_line(e: pytest.ExceptionInfo) -> str:
    msg = str(e.value)
    assert "\n" not in msg and msg
    return msg


def test_truncated_file(tmp_path):
    data = Path(LIGHT[0]).read_bytes()
    bad = tmp_path / "truncated.onnx"
    bad.write_bytes(data[: len(data) // 2 + 3])
    with pytest.raises(OnnxFrontendError) as e:
        load_onnx(bad, make_context())
    assert "truncated.onnx" in _one_line(e) or "not a valid ONNX model" in _one_line(e)


@pytest.mark.parametrize("data", [b"\xff" * 64, b"garbage, not a model at all", b""])
def test_garbage_bytes(data):
    with pytest.raises(OnnxFrontendError) as e:
        load_onnx(data, make_context())
    _one_line(e)


def test_missing_file(tmp_path):
    with pytest.raises(OnnxFrontendError, match="no such file"):
        load_onnx(tmp_path / "nope.onnx", make_context())


def test_dangling_input():
    model = _model(
        [helper.make_node("Relu", ["nowhere"], ["y"], name="r")], [], [_vi("y")]
    )
    with pytest.raises(OnnxFrontendError) as e:
        load_onnx(model, make_context())
    assert "node 'r'" in _one_line(e) and "'nowhere'" in str(e.value)


def test_dangling_graph_output():
    model = _model([helper.make_node("Relu", ["x"], ["y"])], [_vi("x")], [_vi("zz")])
    with pytest.raises(OnnxFrontendError, match="output 'zz'"):
        load_onnx(model, make_context())


def test_cycle():
    model = _model(
        [
            helper.make_node("Relu", ["b"], ["a"], name="n1"),
            helper.make_node("Neg", ["a"], ["b"], name="n2"),
        ],
        [], [_vi("a")],
    )
    with pytest.raises(OnnxFrontendError, match="cycle"):
        load_onnx(model, make_context())


def test_duplicate_output_names():
    model = _model(
        [
            helper.make_node("Relu", ["x"], ["y"], name="first"),
            helper.make_node("Neg", ["x"], ["y"], name="second"),
        ],
        [_vi("x")], [_vi("y")],
    )
    with pytest.raises(OnnxFrontendError, match="'y'.*'first'.*'second'"):
        load_onnx(model, make_context())
    model = _model([helper.make_node("Relu", ["x"], ["x"], name="n")], [_vi("x")], [_vi("x")])
    with pytest.raises(OnnxFrontendError, match="'x'"):
        load_onnx(model, make_context())


def test_wrong_attribute_type():
    node = helper.make_node("Transpose", ["x"], ["y"], name="t")
    node.attribute.append(helper.make_attribute("perm", 1.5))
    model = _model([node], [_vi("x", shape=[2, 3])], [_vi("y")])
    with pytest.raises(OnnxFrontendError, match=r"node 't'.*'perm'.*FLOAT.*INTS"):
        load_onnx(model, make_context())


def test_missing_required_attribute_and_bad_arity():
    model = _model([helper.make_node("Cast", ["x"], ["y"], name="c")], [_vi("x")], [_vi("y")])
    with pytest.raises(OnnxFrontendError, match=r"node 'c'.*required attribute 'to'"):
        load_onnx(model, make_context())
    model = _model([helper.make_node("Relu", ["x", "x"], ["y"], name="r")], [_vi("x")], [_vi("y")])
    with pytest.raises(OnnxFrontendError, match=r"node 'r'.*2 inputs"):
        load_onnx(model, make_context())


def test_bad_tensor_payload():
    t = numpy_helper.from_array(np.ones(10, np.float32), "w")
    t.raw_data = t.raw_data[:-4]
    model = _model([helper.make_node("Relu", ["w"], ["y"])], [], [_vi("y")], [t])
    with pytest.raises(OnnxFrontendError, match=r"tensor 'w'.*36 bytes"):
        load_onnx(model, make_context())


# ---------------------------------------------------------------------------
# Input shapes, dispatch
# ---------------------------------------------------------------------------


def test_input_shape_override():
    model = _model(
        [helper.make_node("Relu", ["x"], ["y"])],
        [_vi("x", shape=[1, 3, 224, 224])],
        [_vi("y", shape=[1, 3, 224, 224])],
    )
    module = load_onnx(model, make_context(), input_shapes={"x": ["N", 3, None, 224]})
    module.verify()
    (inp,) = _top(module, InputOp)
    assert inp.result.type.get_shape() == (D, 3, D, 224)
    assert [p.data for p in inp.dim_params] == ["N", "", "", ""]
    (relu,) = _node_ops(module)
    t = relu.results[0].type
    assert isinstance(t, UnrankedTensorType) or t.get_shape()[0] == D
    with pytest.raises(OnnxFrontendError, match="no input 'nope'"):
        load_onnx(model, make_context(), input_shapes={"nope": [1]})
    static = load_onnx(model, make_context(), input_shapes={"x": [8, 3, 224, 224]})
    (relu,) = _node_ops(static)
    assert relu.results[0].type.get_shape() == (8, 3, 224, 224)


def test_unknown_rank_input_is_unranked():
    model = _model([helper.make_node("Relu", ["x"], ["y"])], [_vi("x")], [_vi("y")])
    module = load_onnx(model, make_context())
    (inp,) = _top(module, InputOp)
    assert isinstance(inp.result.type, UnrankedTensorType)
    assert inp.dim_params is None


def test_load_framework_model_dispatch(tmp_path):
    model = onnx.load(LIGHT[0])
    path = tmp_path / "m.ONNX"
    path.write_bytes(model.SerializeToString())
    for m in (model, model.SerializeToString(), path, str(path)):
        module = load_framework_model(m, make_context())
        assert isinstance(module, ModuleOp)
        module.verify()
    other = tmp_path / "m.pth"
    other.write_bytes(b"\0")
    with pytest.raises(UnsupportedModelFormat, match="no frontend for this model format"):
        load_framework_model(other, make_context())


def test_small_constants_are_inline():
    model = _model(
        [helper.make_node("Reshape", ["x", "shape"], ["y"])],
        [_vi("x", shape=[2, 3])],
        [_vi("y", shape=[3, 2])],
        [numpy_helper.from_array(np.array([3, 2], np.int64), "shape")],
    )
    module = load_onnx(model, make_context())
    module.verify()
    (init,) = _top(module, InitializerOp)
    assert isinstance(init.value, DenseIntOrFPElementsAttr)
    (reshape,) = _node_ops(module)
    assert reshape.results[0].type.get_shape() == (3, 2)
