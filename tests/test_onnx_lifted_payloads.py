"""Large initializer payloads of an ONNX file are read in place
(``frontends/onnx/wire.py``): the message is parsed without them and the
weights are views of the file's map, not two protobuf copies. Same values,
same IR, same errors as the plain parse; anything the walk does not lift
(typed data, a size that does not match the dims, a ``segment``, a Constant
node's tensor, small payloads, bytes or a ModelProto given in memory) loads
as before."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper, numpy_helper
from xdsl.dialects.builtin import DenseResourceAttr
from xmo.context import make_context, weight_store
from xmo.dialects.onnx.base import InitializerOp
from xmo.dialects.ov.weights import constant_array
from xmo.frontends.onnx import OnnxFrontendError, load_onnx
from xmo.frontends.onnx import tensors as tz
from xmo.frontends.onnx.inference import INFER_STRIP_BYTES
from xmo.frontends.onnx.loader import LIFT_FILES_OVER
from xmo.frontends.onnx.wire import LIFTED, lift_payloads

BIG = INFER_STRIP_BYTES // 4 + 17  # f32 elements: just above the lifting size


def _model(inits: list[TensorProto], nodes=None) -> onnx.ModelProto:
    nodes = nodes or [helper.make_node("Identity", [t.name], [f"y_{t.name}"]) for t in inits]
    outs = [helper.make_tensor_value_info(n.output[0], TensorProto.UNDEFINED, None) for n in nodes]
    g = helper.make_graph(nodes, "g", [], outs, initializer=inits)
    return helper.make_model(g, opset_imports=[helper.make_opsetid("", 18)])


def _weights(n: int = BIG, seed: int = 0, dtype=np.float32) -> np.ndarray:
    return np.random.default_rng(seed).standard_normal(n).astype(dtype)


def _inits(module) -> dict[str, InitializerOp]:
    return {op.properties["name"].data: op for op in module.body.block.ops if isinstance(op, InitializerOp)}


def _maps_behind(ctx, attr) -> list[np.memmap]:
    assert isinstance(attr, DenseResourceAttr)
    base, maps = weight_store(ctx).get_bytes(attr.resource_handle.data), []
    while isinstance(base, np.ndarray):
        if isinstance(base, np.memmap):
            maps.append(base)
        base = base.base
    return maps


def _save(tmp_path: Path, model: onnx.ModelProto, name: str = "m.onnx") -> Path:
    """``model`` written to a file large enough to be walked (an unread
    filler initializer is appended: the loader leaves it out)."""
    filler = np.zeros(LIFT_FILES_OVER // 4, np.float32)
    model.graph.initializer.append(numpy_helper.from_array(filler, "zz_unread_filler"))
    path = tmp_path / name
    path.write_bytes(model.SerializeToString())
    return path


def test_large_initializers_are_views_of_the_model_file(tmp_path):
    w, v = _weights(), _weights(BIG + 3, 1, np.float64)
    small = _weights(100, 2)
    path = _save(tmp_path, _model([numpy_helper.from_array(w, "w"), numpy_helper.from_array(v, "v"),
                                   numpy_helper.from_array(small, "s")]))
    ctx = make_context()
    module = load_onnx(path, ctx)
    module.verify()
    inits = _inits(module)
    for name, want in (("w", w), ("v", v), ("s", small)):
        np.testing.assert_array_equal(constant_array(inits[name].properties["value"]), want)
    for name in ("w", "v"):  # aligned in this file or copied once, never a protobuf copy
        got = weight_store(ctx).get_bytes(inits[name].properties["value"].resource_handle.data)
        assert got.ctypes.data % got.dtype.itemsize == 0
    data = path.read_bytes()
    aligned = [n for n, a in (("w", w), ("v", v)) if data.find(a.tobytes()) % a.dtype.itemsize == 0]
    for name in aligned:
        maps = _maps_behind(ctx, inits[name].properties["value"])
        assert maps and all(m.filename == str(path) for m in maps)


@pytest.mark.parametrize("pad", range(4))
def test_a_misaligned_payload_is_copied_once_and_aligned(tmp_path, pad):
    """The payload's file offset moves with the length of the name before it."""
    w = _weights()
    path = _save(tmp_path, _model([numpy_helper.from_array(w, "w" + "x" * pad)]))
    ctx = make_context()
    (init,) = _inits(load_onnx(path, ctx)).values()
    got = weight_store(ctx).get_bytes(init.properties["value"].resource_handle.data)
    assert got.ctypes.data % 4 == 0
    np.testing.assert_array_equal(constant_array(init.properties["value"]), w)
    offset = path.read_bytes().find(w.tobytes())
    assert bool(_maps_behind(ctx, init.properties["value"])) == (offset % 4 == 0)


def test_the_lifted_message_parses_to_the_same_model_but_the_payloads(tmp_path):
    w = _weights()
    t = numpy_helper.from_array(w.reshape(1, -1), "w")
    t.doc_string = "after the payload"
    model = _model([t, numpy_helper.from_array(_weights(10), "s")])
    data = model.SerializeToString()
    result = lift_payloads(memoryview(data), INFER_STRIP_BYTES, tz.payload_nbytes)
    assert result is not None
    lifted, spans = result
    assert len(lifted) < len(data) - w.nbytes + 200
    got = onnx.ModelProto()
    got.ParseFromString(lifted)
    gt = got.graph.initializer[0]
    assert gt.data_location == TensorProto.EXTERNAL and not gt.HasField("raw_data")
    info = {e.key: e.value for e in gt.external_data}
    assert info["location"] == LIFTED and int(info["length"]) == w.nbytes
    offset = int(info["offset"])
    assert data[offset:offset + w.nbytes] == w.tobytes() and spans == {(offset, w.nbytes)}
    gt.ClearField("external_data")
    gt.ClearField("data_location")
    gt.raw_data = w.tobytes()
    assert got == model  # everything else as it was, the small tensor included


def _raw_tensor(name: str, dims: list[int], payload: bytes) -> TensorProto:
    t = TensorProto(name=name, data_type=TensorProto.FLOAT, dims=dims)
    t.raw_data = payload
    return t


@pytest.mark.parametrize("case", ["size-mismatch", "typed-data", "segment", "negative-dim"])
def test_tensors_the_walk_leaves_load_as_before(tmp_path, case):
    w = _weights()
    if case == "size-mismatch":
        t = _raw_tensor("w", [BIG - 1], w.tobytes())
    elif case == "typed-data":
        t = TensorProto(name="w", data_type=TensorProto.FLOAT, dims=[BIG], float_data=w.tolist())
    elif case == "segment":
        t = numpy_helper.from_array(w, "w")
        t.segment.begin, t.segment.end = 0, BIG
    else:
        t = _raw_tensor("w", [-1, BIG], w.tobytes())
    model = _model([t])
    assert lift_payloads(memoryview(model.SerializeToString()), INFER_STRIP_BYTES, tz.payload_nbytes) is None
    path = _save(tmp_path, model)
    if case == "typed-data":
        ctx = make_context()
        (init,) = _inits(load_onnx(path, ctx)).values()
        np.testing.assert_array_equal(constant_array(init.properties["value"]), w)
        return
    with pytest.raises(OnnxFrontendError) as from_file:
        load_onnx(path, make_context())
    with pytest.raises(OnnxFrontendError) as from_proto:
        load_onnx(model, make_context(), base_dir=tmp_path)
    assert str(from_file.value) == str(from_proto.value)
    assert "external data" not in str(from_file.value)


def test_a_constant_node_keeps_its_payload_in_the_message(tmp_path):
    w = _weights()
    node = helper.make_node("Constant", [], ["c"], value=numpy_helper.from_array(w, "c"))
    model = _model([], [node])
    assert lift_payloads(memoryview(model.SerializeToString()), INFER_STRIP_BYTES, tz.payload_nbytes) is None
    module = load_onnx(_save(tmp_path, model), make_context())
    module.verify()


@pytest.mark.parametrize("cut", [0.3, 0.7, 0.999])
def test_a_truncated_file_gives_the_plain_parse_error(tmp_path, cut):
    data = _model([numpy_helper.from_array(_weights(), "w"), numpy_helper.from_array(_weights(), "v")]
                  ).SerializeToString()
    path = tmp_path / "cut.onnx"
    path.write_bytes(data[: int(len(data) * cut)])
    assert lift_payloads(memoryview(path.read_bytes()), INFER_STRIP_BYTES, tz.payload_nbytes) is None
    with pytest.raises(OnnxFrontendError, match="not a valid ONNX model"):
        load_onnx(path, make_context())


def test_the_lifted_location_names_only_what_the_walk_lifted(tmp_path):
    """A tensor of the file that itself says LIFTED (a span the walk did not
    lift) is refused as any location with a NUL character is."""
    w = _weights()
    forged = _raw_tensor("f", [4], b"")
    forged.ClearField("raw_data")
    forged.data_location = TensorProto.EXTERNAL
    for k, v in (("location", LIFTED), ("offset", "0"), ("length", "16")):
        e = forged.external_data.add()
        e.key, e.value = k, v
    path = _save(tmp_path, _model([numpy_helper.from_array(w, "w"), forged]))
    with pytest.raises(OnnxFrontendError, match="tensor 'f'.*NUL character"):
        load_onnx(path, make_context())


def test_the_lifted_location_is_no_file_for_a_model_given_in_memory(tmp_path):
    """Only a model read from its file has lifted payloads: the same external
    data in a ModelProto given in memory names no file (a NUL character)."""
    t = _raw_tensor("w", [BIG], b"")
    t.ClearField("raw_data")
    t.data_location = TensorProto.EXTERNAL
    for k, v in (("location", LIFTED), ("offset", "0"), ("length", str(4 * BIG))):
        e = t.external_data.add()
        e.key, e.value = k, v
    with pytest.raises(OnnxFrontendError, match="NUL character"):
        load_onnx(_model([t]), make_context(), base_dir=tmp_path)


def test_converted_ir_is_the_same_from_the_file_and_from_memory(tmp_path):
    import xmo

    w = _weights(8 * (BIG // 4)).reshape(-1, 8)
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 8])
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, w.shape[0]])
    g = helper.make_graph([helper.make_node("MatMul", ["x", "wt"], ["y"]),
                           ], "g", [x], [y],
                          initializer=[numpy_helper.from_array(np.ascontiguousarray(w.T), "wt")])
    model = helper.make_model(g, opset_imports=[helper.make_opsetid("", 18)])
    path = _save(tmp_path, model)
    xmo.save_model(xmo.convert_model(path), tmp_path / "a.xml")
    xmo.save_model(xmo.convert_model(model), tmp_path / "b.xml")
    assert (tmp_path / "a.bin").read_bytes() == (tmp_path / "b.bin").read_bytes()
    a = (tmp_path / "a.xml").read_text()
    b = (tmp_path / "b.xml").read_text()
    strip = lambda s: "\n".join(l for l in s.splitlines() if "input_model" not in l and "is_python_object" not in l)  # noqa: E731
    assert strip(a) == strip(b)


@pytest.mark.parametrize(("elements", "lifted"), [(INFER_STRIP_BYTES // 4, False), (INFER_STRIP_BYTES // 4 + 1, True)])
def test_payloads_over_the_inference_strip_size_are_lifted(elements, lifted):
    """The same bound as shape inference's stripping (``light_tensor``): a
    lifted tensor never reaches onnx's shape inference with its location."""
    data = _model([numpy_helper.from_array(_weights(elements), "w")]).SerializeToString()
    got = lift_payloads(memoryview(data), INFER_STRIP_BYTES, tz.payload_nbytes)
    assert (got is not None) == lifted


def test_input_shapes_read_the_structure_only(tmp_path):
    """``--batch`` reads the inputs' shapes first: without the payloads."""
    from xmo.frontends.onnx import graph_input_shapes, read_model_proto

    w = _weights(8 * (BIG // 4)).reshape(8, -1)
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, ["n", 8])
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, ["n", w.shape[1]])
    g = helper.make_graph([helper.make_node("MatMul", ["x", "w"], ["y"])], "g", [x], [y],
                          initializer=[numpy_helper.from_array(w, "w")])
    model = helper.make_model(g, opset_imports=[helper.make_opsetid("", 18)])
    path = _save(tmp_path, model)
    assert graph_input_shapes(path) == graph_input_shapes(model) == {"x": [-1, 8]}
    structure = read_model_proto(path, payloads=False)
    assert not structure.graph.initializer[0].HasField("raw_data")
    assert read_model_proto(path) == model


def test_misaligned_copies_of_lifted_payloads_are_not_charged_but_external_ones_are(tmp_path):
    """A lifted payload's aligned copy stands for the copy parsing made before
    (never charged); a misaligned external-data file's copy is a new
    allocation and counts against ``--memory-limit``."""
    from xmo import budget

    w = _weights()
    for pad in range(4):  # some of these offsets are misaligned
        folder = tmp_path / f"p{pad}"
        folder.mkdir()
        path = _save(folder, _model([numpy_helper.from_array(w, "w" + "x" * pad)]))
        with budget.memory_budget(w.nbytes // 2):
            load_onnx(path, make_context())
    folder = tmp_path / "ext"
    folder.mkdir()
    (folder / "w.bin").write_bytes(b"\0" * 3 + w.tobytes())
    t = TensorProto(name="w", data_type=TensorProto.FLOAT, dims=[w.size])
    t.data_location = TensorProto.EXTERNAL
    for k, v in (("location", "w.bin"), ("offset", "3"), ("length", str(w.nbytes))):
        e = t.external_data.add()
        e.key, e.value = k, v
    path = folder / "m.onnx"
    path.write_bytes(_model([t]).SerializeToString())
    ctx = make_context()
    (init,) = _inits(load_onnx(path, ctx)).values()
    got = weight_store(ctx).get_bytes(init.properties["value"].resource_handle.data)
    assert got.ctypes.data % 4 == 0
    np.testing.assert_array_equal(constant_array(init.properties["value"]), w)
    with budget.memory_budget(w.nbytes // 2), pytest.raises(Exception, match="memory limit"):
        load_onnx(path, make_context())
