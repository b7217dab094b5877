"""OpenVINO IR backend: serialize / read_ir, checked against the real openvino runtime."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
import xml.etree.ElementTree as ET
from pathlib import Path

import numpy as np
import pytest

ov = pytest.importorskip("openvino")

from xdsl.dialects.builtin import ModuleOp, StringAttr  # noqa: E402

from xmo.backends.ir import IRReadError, IRWriteError, read_ir, serialize  # noqa: E402
from xmo.backends.ir import serializer as ir_serializer  # noqa: E402
from xmo.context import make_context, weight_store  # noqa: E402
from xmo.dialects.ov import ConstantOp, ParameterOp, ResultOp, op_class  # noqa: E402
from xmo.dialects.ov.base import inference_for, tensor  # noqa: E402

ONNX_LIGHT = Path(__import__("onnx").__file__).parent / "backend/test/data/light"
LIGHT_MODELS = sorted(p.name for p in ONNX_LIGHT.glob("*.onnx")) if ONNX_LIGHT.is_dir() else []

CPU_CONFIG = {"INFERENCE_PRECISION_HINT": "f32"}


# ---------------------------------------------------------------------------
# helpers
# ---------------------------------------------------------------------------


def _op(ov_type, inputs, out_type, attrs=None, **kw):
    """An op with explicit result types (works with or without shape inference)."""
    return op_class(ov_type).make(inputs, attrs, result_types=[out_type], **kw)


def _compile(xml: Path):
    core = ov.Core()
    return core.compile_model(core.read_model(str(xml)), "CPU", CPU_CONFIG)


def _run(xml: Path, inputs: list[np.ndarray]) -> list[np.ndarray]:
    compiled = _compile(xml)
    res = compiled(inputs)
    return [np.asarray(res[o]) for o in compiled.outputs]


def _layers(xml: Path) -> list[ET.Element]:
    return ET.parse(xml).getroot().find("layers").findall("layer")


def _edges(xml: Path) -> list[tuple[int, int, int, int]]:
    return [
        tuple(int(e.get(k)) for k in ("from-layer", "from-port", "to-layer", "to-port"))
        for e in ET.parse(xml).getroot().find("edges").findall("edge")
    ]


def _read_or_skip(xml: Path, **kw) -> ModuleOp:
    """read_ir, skipping the test only when the op table lacks an op class."""
    try:
        return read_ir(xml, **kw)
    except IRReadError as e:
        if "unknown operation type" in str(e):
            pytest.skip(f"op class not generated yet: {e}")
        raise


def _add_chain_module(store):
    """x -> Add(c1) -> Add(c2) -> Result, c1 == c2 (dedup), names with a comma."""
    p = ParameterOp.new("f32", [2, 3], name="x", tensor_names=["in,put", "x"])
    w = (np.arange(6, dtype=np.float32).reshape(2, 3) + 1) * 10
    c1 = ConstantOp.from_array(w, store=store, name="c1")
    c2 = ConstantOp.from_array(w.copy(), store=store)
    t = tensor("f32", [2, 3])
    a1 = _op("Add", [p, c1], t, name="add1", tensor_names=[["sum,1", "s"]])
    a2 = _op("Add", [a1, c2], t, tensor_names=[["y"]])
    r = ResultOp.new(a2.results[0], name="out")
    return ModuleOp([p, c1, c2, a1, a2, r], sym_name=StringAttr("add_chain")), w


# ---------------------------------------------------------------------------
# serializer: round trip through openvino
# ---------------------------------------------------------------------------


def test_serialize_runs_in_openvino(tmp_path):
    ctx = make_context()
    module, w = _add_chain_module(weight_store(ctx))
    xml = tmp_path / "m.xml"
    serialize(module, xml)
    assert (tmp_path / "m.bin").exists()
    x = np.random.default_rng(0).random((2, 3), dtype=np.float32)
    (out,) = _run(xml, [x])
    np.testing.assert_allclose(out, (x + w) + w, rtol=1e-6)  # OpenVINO may reassociate
    assert sorted(os.listdir(tmp_path)) == ["m.bin", "m.xml"]  # no temp files left


def test_layer_ids_ports_and_edges(tmp_path):
    ctx = make_context()
    module, _ = _add_chain_module(weight_store(ctx))
    xml = tmp_path / "m.xml"
    serialize(module, xml)
    root = ET.parse(xml).getroot()
    assert root.get("version") == "11" and root.get("name") == "add_chain"
    layers = _layers(xml)
    assert [int(lyr.get("id")) for lyr in layers] == list(range(6))
    assert [lyr.get("type") for lyr in layers] == [
        "Parameter", "Const", "Const", "Add", "Add", "Result",
    ]  # fmt: skip
    assert all(lyr.get("version") == "opset1" for lyr in layers)
    add = layers[3]
    assert [p.get("id") for p in add.find("input").findall("port")] == ["0", "1"]
    assert [p.get("id") for p in add.find("output").findall("port")] == ["2"]
    assert [d.text for d in add.find("output/port").findall("dim")] == ["2", "3"]
    assert add.find("data").get("auto_broadcast") == "numpy"  # defaults are written
    param = layers[0].find("data")
    assert param.get("shape") == "2,3" and param.get("element_type") == "f32"
    assert sorted(_edges(xml)) == [
        (0, 0, 3, 0), (1, 0, 3, 1), (2, 0, 4, 1), (3, 2, 4, 0), (4, 2, 5, 0),
    ]  # fmt: skip
    assert root.find("rt_info") is not None


def test_identical_constants_are_stored_once(tmp_path):
    ctx = make_context()
    store = weight_store(ctx)
    big = np.random.default_rng(1).random((64, 64), dtype=np.float32)  # in the store
    p = ParameterOp.new("f32", [64, 64], name="x")
    c1 = ConstantOp.from_array(big, store=store)
    c2 = ConstantOp.from_array(big.copy(), store=store)
    c3 = ConstantOp.from_array(big * 2, store=store)
    t = tensor("f32", [64, 64])
    a1 = _op("Add", [p, c1], t)
    a2 = _op("Add", [a1, c2], t)
    a3 = _op("Add", [a2, c3], t)
    module = ModuleOp([p, c1, c2, c3, a1, a2, a3, ResultOp.new(a3.results[0])])
    xml = tmp_path / "d.xml"
    serialize(module, xml)
    consts = [lyr.find("data") for lyr in _layers(xml) if lyr.get("type") == "Const"]
    assert consts[0].get("offset") == consts[1].get("offset")
    assert consts[0].get("offset") != consts[2].get("offset")
    assert (tmp_path / "d.bin").stat().st_size == 2 * big.nbytes
    x = np.random.default_rng(2).random((64, 64), dtype=np.float32)
    (out,) = _run(xml, [x])
    np.testing.assert_allclose(out, x + big + big + big * 2, rtol=1e-6)


def test_tensor_and_friendly_names_seen_by_openvino(tmp_path):
    ctx = make_context()
    module, _ = _add_chain_module(weight_store(ctx))
    xml = tmp_path / "n.xml"
    serialize(module, xml)
    model = ov.Core().read_model(str(xml))
    assert model.get_friendly_name() == "add_chain"
    assert model.inputs[0].get_names() == {"in,put", "x"}
    assert model.inputs[0].get_node().get_friendly_name() == "x"
    assert model.outputs[0].get_names() == {"y"}
    assert model.outputs[0].get_node().get_friendly_name() == "out"
    names = {op.get_friendly_name() for op in model.get_ops()}
    assert {"x", "c1", "add1", "out"} <= names
    assert len(names) == len(model.get_ops())  # generated names are unique
    add1 = next(op for op in model.get_ops() if op.get_friendly_name() == "add1")
    assert add1.output(0).get_names() == {"sum,1", "s"}
    layers = _layers(xml)
    assert layers[3].find("output/port").get("names") == "sum\\,1,s"
    assert layers[-1].get("output_names") == "y"  # as OpenVINO writes Results


def test_ir_type_spellings_match_openvino(tmp_path):
    """OpenVINO writes Relu/PRelu/Softmax/Constant as ReLU/PReLU/SoftMax/Const."""
    ctx = make_context()
    p = ParameterOp.new("f32", [2, 3], name="x")
    slope = ConstantOp.from_array(np.array([0.25], np.float32), store=weight_store(ctx))
    t = tensor("f32", [2, 3])
    relu = _op("Relu", [p], t, name="relu")
    prelu = _op("PRelu", [p, slope], t, name="prelu")
    soft = _op("Softmax", [relu], t, {"axis": 1}, name="softmax")
    ops_ = [p, slope, relu, prelu, soft]
    module = ModuleOp(ops_ + [ResultOp.new(soft.results[0]), ResultOp.new(prelu.results[0])])
    xml = tmp_path / "t.xml"
    serialize(module, xml)
    types = {lyr.get("name"): lyr.get("type") for lyr in _layers(xml)}
    assert types["relu"] == "ReLU" and types["prelu"] == "PReLU"
    assert types["softmax"] == "SoftMax"

    from openvino import opset8

    x = opset8.parameter([2, 3], np.float32, name="x")
    ref = ov.Model([opset8.result(opset8.softmax(opset8.relu(x), 1))], [x], "ref")
    ov.save_model(ref, str(tmp_path / "ref.xml"))
    ref_types = {lyr.get("type") for lyr in _layers(tmp_path / "ref.xml")}
    assert {"ReLU", "SoftMax"} <= ref_types

    xv = np.array([[-1.0, 0.5, 2.0], [3.0, -2.0, 0.0]], np.float32)
    soft_out, prelu_out = _run(xml, [xv])
    e = np.exp(np.maximum(xv, 0) - np.maximum(xv, 0).max(1, keepdims=True))
    np.testing.assert_allclose(soft_out, e / e.sum(1, keepdims=True), rtol=1e-6)
    np.testing.assert_array_equal(prelu_out, np.where(xv < 0, 0.25 * xv, xv))
    m2 = read_ir(xml)
    assert [op.name for op in m2.ops if op.name not in ("ov.Parameter", "ov.Constant", "ov.Result")] == [
        "ov.Relu", "ov.PRelu", "ov.Softmax",
    ]  # fmt: skip


def test_dynamic_dims_and_dynamic_rank(tmp_path):
    p1 = ParameterOp.new("f32", [1, -1, 4], name="a")
    p2 = ParameterOp.new("f32", None, name="b")
    add = _op("Add", [p1, p2], tensor("f32", None))
    module = ModuleOp([p1, p2, add, ResultOp.new(add.results[0])])
    xml = tmp_path / "dyn.xml"
    serialize(module, xml)
    layers = _layers(xml)
    assert layers[0].find("data").get("shape") == "1,?,4"
    assert [d.text for d in layers[0].find("output/port").findall("dim")] == ["1", "-1", "4"]
    assert layers[1].find("data").get("shape") == "..."  # like OpenVINO: no <dim>
    assert layers[1].find("output/port").findall("dim") == []
    model = ov.Core().read_model(str(xml))
    assert str(model.inputs[0].get_partial_shape()) == "[1,?,4]"
    assert model.inputs[1].get_partial_shape().rank.is_dynamic
    # the CPU plugin refuses dynamic-rank Parameters: run dynamic dims only
    p = ParameterOp.new("f32", [1, -1, 4], name="a")
    c = ConstantOp.from_array(np.full((4,), 2.0, np.float32))
    add = _op("Add", [p, c], tensor("f32", [1, -1, 4]))
    xml2 = tmp_path / "dyn2.xml"
    serialize(ModuleOp([p, c, add, ResultOp.new(add.results[0])]), xml2)
    for n in (3, 5):
        a = np.ones((1, n, 4), np.float32)
        (out,) = _run(xml2, [a])
        np.testing.assert_array_equal(out, a + 2.0)
    # and back: dynamic rank survives read_ir
    m2 = read_ir(xml)
    types = [op.results[0].type for op in m2.ops if op.name == "ov.Parameter"]
    assert types[0] == tensor("f32", [1, -1, 4])
    assert types[1] == tensor("f32", None)


def _ov_precisions(tmp_path) -> dict[str, str]:
    """element_type -> port precision, as openvino.save_model writes them."""
    types = {
        "f32": ov.Type.f32, "f16": ov.Type.f16, "bf16": ov.Type.bf16,
        "f64": ov.Type.f64, "i4": ov.Type.i4, "i8": ov.Type.i8, "i16": ov.Type.i16,
        "i32": ov.Type.i32, "i64": ov.Type.i64, "u1": ov.Type.u1, "u4": ov.Type.u4,
        "u8": ov.Type.u8, "u16": ov.Type.u16, "u32": ov.Type.u32,
        "u64": ov.Type.u64, "boolean": ov.Type.boolean,
    }  # fmt: skip
    from openvino import opset13 as ops

    results = []
    for t in types.values():
        results.append(ops.result(ops.constant(ov.Tensor(t, [8]))))
    ov.save_model(ov.Model(results, [], "p"), str(tmp_path / "ovp.xml"), compress_to_fp16=False)
    out = {}
    for lyr in _layers(tmp_path / "ovp.xml"):
        if lyr.get("type") == "Const":
            out[lyr.find("data").get("element_type")] = lyr.find("output/port").get("precision")
    return out


def test_precision_strings_match_openvino(tmp_path):
    expected = _ov_precisions(tmp_path)
    ctx = make_context()
    store = weight_store(ctx)
    ops = []
    for i, etype in enumerate(expected):
        from xmo.dialects.ov import element_types as et

        nbytes = et.byte_size(etype, 8)
        raw = np.full(nbytes, i + 1, np.uint8)
        if etype in et.PACKED_BITS:
            from xdsl.dialects.builtin import DenseResourceAttr, TensorType

            attr = DenseResourceAttr.from_params(
                store.add(raw, etype), TensorType(et.to_xdsl(etype), [8])
            )
            c = ConstantOp.create(result_types=[attr.type], properties={"value": attr})
        elif etype == "boolean":
            c = ConstantOp.from_array(np.ones(8, np.bool_), "boolean", store=store)
        else:
            c = ConstantOp.from_array(raw.view(et.numpy_dtype(etype)), etype, store=store)
        ops += [c, ResultOp.new(c.results[0])]
    xml = tmp_path / "prec.xml"
    serialize(ModuleOp(ops), xml)
    ours = {
        lyr.find("data").get("element_type"): lyr.find("output/port").get("precision")
        for lyr in _layers(xml)
        if lyr.get("type") == "Const"
    }
    assert ours == expected
    assert expected["u1"] == "BIN"  # not "U1"
    model = ov.Core().read_model(str(xml))
    assert [o.get_element_type().get_type_name() for o in model.outputs] == list(expected)
    # and our reader maps every precision back
    from xmo.dialects.ov import element_types as et

    m2 = read_ir(xml)
    back = [
        et.from_xdsl(op.results[0].type.get_element_type())
        for op in m2.ops
        if op.name == "ov.Constant"
    ]
    assert back == list(expected)


def test_packed_and_bool_constants_round_trip_bytes(tmp_path):
    ctx = make_context()
    store = weight_store(ctx)
    from xdsl.dialects.builtin import DenseResourceAttr, TensorType

    from xmo.dialects.ov import element_types as et

    raw = np.arange(5, dtype=np.uint8) * 37  # u4 x 10 -> 5 bytes
    attr = DenseResourceAttr.from_params(store.add(raw, "q"), TensorType(et.to_xdsl("u4"), [10]))
    c = ConstantOp.create(result_types=[attr.type], properties={"value": attr})
    b = ConstantOp.from_array(np.array([True, False, True]), "boolean", store=store)
    module = ModuleOp([c, b, ResultOp.new(c.results[0]), ResultOp.new(b.results[0])])
    xml = tmp_path / "pk.xml"
    serialize(module, xml)
    data = (tmp_path / "pk.bin").read_bytes()
    d0 = _layers(xml)[0].find("data")
    off, size = int(d0.get("offset")), int(d0.get("size"))
    assert data[off : off + size] == raw.tobytes()
    m2 = read_ir(xml)
    consts = [op for op in m2.ops if op.name == "ov.Constant"]
    np.testing.assert_array_equal(consts[0].get_array(), raw)
    np.testing.assert_array_equal(consts[1].get_array(), [True, False, True])


# ---------------------------------------------------------------------------
# atomicity and refusals
# ---------------------------------------------------------------------------


def test_failure_midway_leaves_nothing(tmp_path, monkeypatch):
    ctx = make_context()
    module, _ = _add_chain_module(weight_store(ctx))
    calls = {"n": 0}
    real_store = ir_serializer._Writer._store

    def failing_store(self, raw, *args):
        calls["n"] += 1
        if calls["n"] == 2:
            raise RuntimeError("disk full (simulated)")
        return real_store(self, raw, *args)

    monkeypatch.setattr(ir_serializer._Writer, "_store", failing_store)
    with pytest.raises(RuntimeError, match="disk full"):
        serialize(module, tmp_path / "f.xml")
    assert os.listdir(tmp_path) == []


def test_failure_keeps_previous_files(tmp_path):
    ctx = make_context()
    module, _ = _add_chain_module(weight_store(ctx))
    xml = tmp_path / "keep.xml"
    serialize(module, xml)
    before = (xml.read_bytes(), (tmp_path / "keep.bin").read_bytes())
    from xdsl.dialects.test import TestOp

    bad = ModuleOp([TestOp.create()])
    with pytest.raises(IRWriteError, match="not an ov operation"):
        serialize(bad, xml, verify=False)
    assert (xml.read_bytes(), (tmp_path / "keep.bin").read_bytes()) == before
    assert sorted(os.listdir(tmp_path)) == ["keep.bin", "keep.xml"]


def test_only_control_flow_ops_have_bodies(tmp_path):
    """Loop, TensorIterator and If are written with their bodies
    (tests/test_ir_control.py); another op with a region has no IR form."""
    from typing import ClassVar

    from xdsl.ir import Block, Region
    from xdsl.irdl import region_def

    from xmo.dialects.ov.base import OVOp, ov_op

    @ov_op
    class FakeBodyOp(OVOp):
        name = "ov.FakeBodyOpForTest"
        OV_TYPE: ClassVar[str] = "FakeBody"
        OV_VERSION: ClassVar[str] = "opset1"
        OV_INPUTS: ClassVar[tuple[str, ...]] = ("inputs*",)
        body = region_def()

    p = ParameterOp.new("f32", [2], name="x")
    op = FakeBodyOp.create(
        operands=[p.results[0]], result_types=[tensor("f32", [2])], regions=[Region(Block())]
    )
    module = ModuleOp([p, op, ResultOp.new(op.results[0])])
    with pytest.raises(IRWriteError, match="only Loop, TensorIterator and If have bodies"):
        serialize(module, tmp_path / "body.xml", verify=False)
    assert os.listdir(tmp_path) == []


def test_streaming_peak_memory(tmp_path):
    """A 256 MB constant is written without a second in-memory copy."""
    script = textwrap.dedent(
        f"""
        import resource, numpy as np
        from xdsl.dialects.builtin import ModuleOp
        from xmo.context import make_context, weight_store
        from xmo.dialects.ov import ConstantOp, ResultOp
        from xmo.backends.ir import serialize
        ctx = make_context()
        w = np.ones((64, 1024, 1024), np.float32)  # 256 MB, touched
        before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        c = ConstantOp.from_array(w, store=weight_store(ctx))
        serialize(ModuleOp([c, ResultOp.new(c.results[0])]), {str(tmp_path / "big.xml")!r})
        after = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        print((after - before) // 1024)
        """
    )
    out = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, check=True
    )
    grown_mb = int(out.stdout.strip().splitlines()[-1])
    assert (tmp_path / "big.bin").stat().st_size == 256 * 1024 * 1024
    assert grown_mb < 64, f"peak RSS grew by {grown_mb} MB while writing 256 MB"


# ---------------------------------------------------------------------------
# reader
# ---------------------------------------------------------------------------


def _compare_ir_outputs(xml_a: Path, xml_b: Path, seed: int = 0) -> None:
    core = ov.Core()
    ma, mb = core.read_model(str(xml_a)), core.read_model(str(xml_b))
    rng = np.random.default_rng(seed)
    inputs = []
    for i in ma.inputs:
        shape = [d.get_length() if d.is_static else 3 for d in i.get_partial_shape()]
        dt = i.get_element_type().to_dtype()
        inputs.append((rng.random(shape) * 2 - 1).astype(dt))
    ca = core.compile_model(ma, "CPU", CPU_CONFIG)
    cb = core.compile_model(mb, "CPU", CPU_CONFIG)
    ra, rb = ca(inputs), cb(inputs)
    assert len(ra) == len(rb)
    for oa, ob in zip(ca.outputs, cb.outputs):
        assert oa.get_names() == ob.get_names()
        np.testing.assert_array_equal(ra[oa], rb[ob])
    assert [i.get_names() for i in ma.inputs] == [i.get_names() for i in mb.inputs]


def test_read_model_saved_by_openvino(tmp_path):
    from openvino import opset13 as ops

    x = ops.parameter([2, 4], np.float32, name="x")
    x.output(0).set_names({"x,in", "x"})
    y = ops.parameter([4], np.float32, name="y")
    a = ops.add(x, ops.constant(np.linspace(0, 1, 8, dtype=np.float32).reshape(2, 4)))
    a.set_friendly_name("first_add")
    b = ops.add(a, y)
    b.output(0).set_names({"out,0"})
    model = ov.Model([ops.result(b), ops.result(a)], [x, y], "ovmodel")
    src = tmp_path / "src.xml"
    ov.save_model(model, str(src), compress_to_fp16=False)

    ctx = make_context()
    module = read_ir(src, ctx=ctx)
    assert module.sym_name.data == "ovmodel"
    params = [op for op in module.ops if op.name == "ov.Parameter"]
    assert [p.get_friendly_name() for p in params] == ["x", "y"]
    assert set(params[0].get_tensor_names(0)) == {"x,in", "x"}
    adds = [op for op in module.ops if op.name == "ov.Add"]
    assert "first_add" in [a.get_friendly_name() for a in adds]
    assert [op.name for op in module.ops][-2:] == ["ov.Result", "ov.Result"]

    dst = tmp_path / "dst.xml"
    serialize(module, dst)
    _compare_ir_outputs(src, dst)
    m2 = ov.Core().read_model(str(dst))
    assert m2.outputs[0].get_names() == {"out,0"}


def test_names_with_commas_and_backslashes(tmp_path):
    from openvino import opset13 as ops

    x = ops.parameter([3], np.float32, name="x")
    names = {"a\\b", "c\\,d", "e,f", "g"}
    x.output(0).set_names(names)
    model = ov.Model([ops.result(ops.add(x, x))], [x], "names")
    src = tmp_path / "s.xml"
    ov.save_model(model, str(src))
    module = read_ir(src)
    (param,) = [op for op in module.ops if op.name == "ov.Parameter"]
    assert set(param.get_tensor_names(0)) == names
    dst = tmp_path / "d.xml"
    serialize(module, dst)
    assert ov.Core().read_model(str(dst)).inputs[0].get_names() == names


def test_overwrite_the_file_that_was_read(tmp_path):
    """Weights are memory-mapped from the .bin being replaced: still safe."""
    from openvino import opset13 as ops

    w = np.random.default_rng(6).random((64, 64), dtype=np.float32)
    x = ops.parameter([64, 64], np.float32, name="x")
    model = ov.Model([ops.result(ops.add(x, ops.constant(w)))], [x], "inplace")
    xml = tmp_path / "m.xml"
    ov.save_model(model, str(xml), compress_to_fp16=False)
    module = read_ir(xml)
    serialize(module, xml)
    serialize(module, xml)  # the map now points at a replaced (unlinked) file
    x_in = np.ones((64, 64), np.float32)
    (out,) = _run(xml, [x_in])
    np.testing.assert_array_equal(out, x_in + w)
    assert sorted(os.listdir(tmp_path)) == ["m.bin", "m.xml"]


def test_reader_constants_are_memory_mapped(tmp_path):
    from openvino import opset13 as ops

    w = np.random.default_rng(3).random((32, 32), dtype=np.float32)
    x = ops.parameter([32, 32], np.float32, name="x")
    model = ov.Model([ops.result(ops.add(x, ops.constant(w)))], [x], "mm")
    src = tmp_path / "mm.xml"
    ov.save_model(model, str(src), compress_to_fp16=False)
    ctx = make_context()
    module = read_ir(src, ctx=ctx)
    (const,) = [op for op in module.ops if op.name == "ov.Constant"]
    arr = const.get_array()
    np.testing.assert_array_equal(arr, w)
    base = arr
    while base is not None and not isinstance(base, np.memmap):
        base = base.base
    assert isinstance(base, np.memmap), "payload was copied instead of mapped"
    assert not arr.flags.writeable


def test_read_ir_without_context_keeps_weights_alive(tmp_path):
    ctx = make_context()
    module, w = _add_chain_module(weight_store(ctx))
    big = np.random.default_rng(5).random((16, 16), dtype=np.float32)
    c = ConstantOp.from_array(big, store=weight_store(ctx), name="big")
    module.body.block.add_ops([c, ResultOp.new(c.results[0])])
    xml = tmp_path / "k.xml"
    serialize(module, xml)
    del module, ctx
    m2 = read_ir(xml)
    import gc

    gc.collect()
    (big_op,) = [op for op in m2.ops if op.get_friendly_name() == "big"]
    np.testing.assert_array_equal(big_op.get_array(), big)


def test_read_serialize_read_is_stable(tmp_path):
    ctx = make_context()
    module, _ = _add_chain_module(weight_store(ctx))
    a = tmp_path / "a.xml"
    serialize(module, a)
    m1 = read_ir(a)
    b = tmp_path / "b.xml"
    serialize(m1, b)
    assert a.read_bytes() == b.read_bytes()
    assert (tmp_path / "a.bin").read_bytes() == (tmp_path / "b.bin").read_bytes()


def test_read_compressed_fp16_model(tmp_path):
    """save_model's default fp16 compression adds Convert ops."""
    from openvino import opset13 as ops

    x = ops.parameter([1, 8], np.float32, name="x")
    w = np.random.default_rng(4).random((1, 8), dtype=np.float32)
    model = ov.Model([ops.result(ops.add(x, ops.constant(w)))], [x], "c16")
    src = tmp_path / "c16.xml"
    ov.save_model(model, str(src))  # compress_to_fp16=True
    module = _read_or_skip(src)
    dst = tmp_path / "c16_out.xml"
    serialize(module, dst)
    _compare_ir_outputs(src, dst)


@pytest.mark.skipif(not LIGHT_MODELS, reason="onnx wheel has no light test models")
@pytest.mark.parametrize("name", LIGHT_MODELS)
def test_light_onnx_models_round_trip(tmp_path, name):
    """convert_model(onnx) -> save_model -> `xmo-opt src.xml -t ov-ir -o dst.xml`:
    identical outputs."""
    from xmo.tools.xmo_opt import main as xmo_opt

    model = ov.convert_model(str(ONNX_LIGHT / name))
    src = tmp_path / "src.xml"
    ov.save_model(model, str(src), compress_to_fp16=False)
    del model
    try:
        dst = tmp_path / "dst.xml"
        assert xmo_opt([str(src), "-t", "ov-ir", "-o", str(dst)]) == 0
        _compare_ir_outputs(src, dst)
        # same layers, same (deduplicated) weights
        assert len(_layers(dst)) == len(_layers(src))
        assert (tmp_path / "dst.bin").stat().st_size == (tmp_path / "src.bin").stat().st_size
    finally:  # some of these models carry hundreds of MB of weights
        for f in tmp_path.iterdir():
            f.unlink()


def test_light_model_fp16_compressed_round_trip(tmp_path):
    name = "light_squeezenet.onnx"
    if name not in LIGHT_MODELS:
        pytest.skip(f"{name} is not in this onnx wheel")
    src = tmp_path / "src.xml"
    ov.save_model(ov.convert_model(str(ONNX_LIGHT / name)), str(src))  # f16 + Convert
    module = _read_or_skip(src)
    dst = tmp_path / "dst.xml"
    serialize(module, dst)
    _compare_ir_outputs(src, dst)


# ---------------------------------------------------------------------------
# reader: rejected files
# ---------------------------------------------------------------------------


def _valid_ir(tmp_path) -> Path:
    ctx = make_context()
    module, _ = _add_chain_module(weight_store(ctx))
    xml = tmp_path / "v.xml"
    serialize(module, xml)
    return xml


def _edit(xml: Path, fn) -> Path:
    tree = ET.parse(xml)
    fn(tree.getroot())
    out = xml.with_name("edited.xml")
    tree.write(out)
    out.with_suffix(".bin").write_bytes(xml.with_suffix(".bin").read_bytes())
    return out


def _layer(root, name):
    return next(lyr for lyr in root.find("layers") if lyr.get("name") == name)


def test_rejects_output_dim_contradicting_shape_inference(tmp_path):
    if inference_for("ov.Add") is None:
        pytest.skip("no shape inference registered for ov.Add yet")

    def change(root):
        # Add output 2x3 -> 2x5, and the Result's input with it (consistent edge)
        for lyr in (_layer(root, "add1"),):
            lyr.find("output/port").findall("dim")[1].text = "5"
        for lyr in root.find("layers"):
            if lyr.get("type") == "Add" and lyr.get("name") != "add1":
                lyr.find("input/port").findall("dim")[1].text = "5"

    bad = _edit(_valid_ir(tmp_path), change)
    ov.Core().read_model(str(bad))  # openvino itself does not notice
    with pytest.raises(IRReadError, match="layer 'add1'") as e:
        read_ir(bad)
    assert "\n" not in str(e.value)


def test_rejects_convolution_output_dims_contradicting_inference(tmp_path):
    if inference_for("ov.Convolution") is None:
        pytest.skip("no shape inference registered for ov.Convolution yet")
    from openvino import opset13 as ops

    x = ops.parameter([1, 3, 8, 8], np.float32, name="x")
    w = ops.constant(np.ones((4, 3, 3, 3), np.float32))
    conv = ops.convolution(x, w, [1, 1], [0, 0], [0, 0], [1, 1])
    conv.set_friendly_name("conv")
    src = tmp_path / "conv.xml"
    ov.save_model(ov.Model([ops.result(conv)], [x], "c"), str(src), compress_to_fp16=False)
    read_ir(src)  # the original is fine

    def change(root):  # 6x6 -> 7x7 on both ends of the edge: consistent, but wrong
        for lyr in root.find("layers"):
            port = {"conv": "output/port", "Result": "input/port"}.get(
                "conv" if lyr.get("name") == "conv" else lyr.get("type")
            )
            if port:
                for d in lyr.find(port).findall("dim")[2:]:
                    d.text = "7"

    bad = _edit(src, change)
    with pytest.raises(IRReadError, match=r"layer 'conv' \(id \d+, Convolution\).*output 0"):
        read_ir(bad)


def test_rejects_port_dims_disagreeing_along_an_edge(tmp_path):
    def change(root):
        _layer(root, "out").find("input/port").findall("dim")[0].text = "7"

    bad = _edit(_valid_ir(tmp_path), change)
    with pytest.raises(IRReadError, match=r"layer 'out'.*input port 0 has dims \[7, 3\]"):
        read_ir(bad)


def test_rejects_wrong_precision(tmp_path):
    def change(root):
        _layer(root, "add1").find("input/port").set("precision", "FP16")

    with pytest.raises(IRReadError, match="layer 'add1'.*precision FP16"):
        read_ir(_edit(_valid_ir(tmp_path), change))


def test_rejects_const_beyond_bin(tmp_path):
    def change(root):
        _layer(root, "c1").find("data").set("offset", "1000")

    bad = _edit(_valid_ir(tmp_path), change)
    with pytest.raises(IRReadError, match="layer 'c1'.*beyond the end"):
        read_ir(bad)


def test_rejects_const_size_mismatch(tmp_path):
    def change(root):
        _layer(root, "c1").find("data").set("size", "20")

    with pytest.raises(IRReadError, match="layer 'c1'.*size 20"):
        read_ir(_edit(_valid_ir(tmp_path), change))


def test_rejects_dangling_edge(tmp_path):
    def change(root):
        ET.SubElement(
            root.find("edges"),
            "edge",
            {"from-layer": "42", "from-port": "0", "to-layer": "3", "to-port": "0"},
        )

    with pytest.raises(IRReadError, match="no layer with id 42"):
        read_ir(_edit(_valid_ir(tmp_path), change))


def test_rejects_missing_duplicate_and_bad_port_edges(tmp_path):
    xml = _valid_ir(tmp_path)

    def drop(root):
        edges = root.find("edges")
        edges.remove(next(e for e in edges if e.get("to-layer") == "5"))

    with pytest.raises(IRReadError, match="layer 'out'.*input port 0 has no edge"):
        read_ir(_edit(xml, drop))

    def dup(root):
        ET.SubElement(
            root.find("edges"),
            "edge",
            {"from-layer": "0", "from-port": "0", "to-layer": "3", "to-port": "1"},
        )

    with pytest.raises(IRReadError, match="more than one edge"):
        read_ir(_edit(xml, dup))

    def bad_port(root):
        e = next(e for e in root.find("edges") if e.get("to-layer") == "5")
        e.set("from-port", "1")

    with pytest.raises(IRReadError, match="has no output port 1"):
        read_ir(_edit(xml, bad_port))


def test_rejects_cycle(tmp_path):
    def change(root):
        e = next(e for e in root.find("edges") if e.get("to-layer") == "3" and e.get("to-port") == "0")
        e.set("from-layer", "4")
        e.set("from-port", "2")

    with pytest.raises(IRReadError, match="cycle"):
        read_ir(_edit(_valid_ir(tmp_path), change))


def test_rejects_unknown_type_and_attribute(tmp_path):
    xml = _valid_ir(tmp_path)

    def unknown_type(root):
        _layer(root, "add1").set("type", "FancyAdd")

    with pytest.raises(IRReadError, match="layer 'add1'.*unknown operation type 'FancyAdd'"):
        read_ir(_edit(xml, unknown_type))

    def unknown_version(root):
        _layer(root, "add1").set("version", "opset99")

    with pytest.raises(IRReadError, match="version 'opset99'"):
        read_ir(_edit(xml, unknown_version))

    def unknown_attr(root):
        _layer(root, "add1").find("data").set("alpha", "1")

    with pytest.raises(IRReadError, match="layer 'add1'.*unknown attribute 'alpha'"):
        read_ir(_edit(xml, unknown_attr))


def test_rejects_malformed_xml(tmp_path):
    bad = tmp_path / "bad.xml"
    bad.write_text("<net version='11'><layers>")
    with pytest.raises(IRReadError, match="not well-formed"):
        read_ir(bad)
