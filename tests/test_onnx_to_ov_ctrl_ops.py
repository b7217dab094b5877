"""control.py, the general case: If / Loop / Scan decided at run time become
ov.If / ov.Loop / ov.TensorIterator with bodies. Small ONNX models converted by xmo, run in OpenVINO
(CPU, f32) and on xmo's CPU backend, compared with onnxruntime."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import onnx
import pytest
import xmo
from onnx import TensorProto, helper, numpy_helper

ort = pytest.importorskip("onnxruntime")
ov = pytest.importorskip("openvino")

F = TensorProto.FLOAT
I64 = TensorProto.INT64
B = TensorProto.BOOL
_r = np.random.default_rng(16)


def _f(*shape: int) -> np.ndarray:
    return _r.standard_normal(shape).astype(np.float32)


def _vi(name: str, t: int, shape) -> onnx.ValueInfoProto:
    return helper.make_tensor_value_info(name, t, shape)


def _model(nodes, inputs, outputs, inits=(), opset=17) -> onnx.ModelProto:
    g = helper.make_graph(nodes, "g", inputs, outputs, initializer=list(inits))
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", opset)])
    m.ir_version = 8
    return m


def _init(name: str, value) -> onnx.TensorProto:
    return numpy_helper.from_array(np.asarray(value), name)


# -- If ----------------------------------------------------------------------------
def _if_shapes(keepdims: int) -> onnx.ModelProto:
    # then: ReduceSum (1x1, or a scalar), else: x * y (2x3): an ov.If, not a Select
    then_g = helper.make_graph(
        [helper.make_node("ReduceSum", ["x"], ["t"], keepdims=keepdims)], "then", [],
        [_vi("t", F, None)],
    )  # fmt: skip
    else_g = helper.make_graph(
        [helper.make_node("Mul", ["x", "y"], ["e"])], "else", [], [_vi("e", F, None)]
    )
    node = helper.make_node("If", ["c"], ["z"], then_branch=then_g, else_branch=else_g)
    return _model(
        [node], [_vi("c", B, []), _vi("x", F, [2, 3]), _vi("y", F, [2, 3])], [_vi("z", F, None)]
    )


def _if_feeds(c: bool) -> dict:
    return {"c": np.array(c), "x": _f(2, 3), "y": _f(2, 3)}


def if_shapes_differ() -> tuple[onnx.ModelProto, list[dict]]:
    return _if_shapes(1), [_if_feeds(True), _if_feeds(False)]


def if_ranks_differ() -> tuple[onnx.ModelProto, list[dict]]:
    return _if_shapes(0), [_if_feeds(True), _if_feeds(False)]


def if_batched_nms() -> tuple[onnx.ModelProto, list[dict]]:
    # torchvision's batched_nms as its ONNX export has it: no boxes -> an empty
    # keep list, else NMS over boxes offset per class; then the kept boxes are
    # gathered and split into coordinates (with a Slice of the NMS rows in the
    # If body this crashed OpenVINO 2026.4's CPU plugin)
    i64 = lambda name, v: helper.make_node(  # noqa: E731
        "Constant", [], [name], value=numpy_helper.from_array(np.asarray(v, np.int64)))
    then_g = helper.make_graph([i64("empty", np.zeros(0))], "then", [], [_vi("empty", I64, [0])])
    else_g = helper.make_graph(
        [helper.make_node("ReduceMax", ["boxes"], ["mx"], keepdims=0),
         helper.make_node("Cast", ["idxs"], ["fi"], to=F),
         helper.make_node("Add", ["mx", "one"], ["mx1"]),
         helper.make_node("Mul", ["fi", "mx1"], ["off"]),
         helper.make_node("Unsqueeze", ["off", "ax1"], ["off2"]),
         helper.make_node("Add", ["boxes", "off2"], ["b2"]),
         helper.make_node("Unsqueeze", ["b2", "ax0"], ["b3"]),
         helper.make_node("Unsqueeze", ["scores", "ax01"], ["s3"]),
         helper.make_node("NonMaxSuppression", ["b3", "s3", "max_out", "iou"], ["sel"]),
         i64("col", [2]),
         helper.make_node("Gather", ["sel", "col"], ["kc"], axis=1),
         helper.make_node("Squeeze", ["kc", "ax1"], ["keep_e"])],
        "else", [], [_vi("keep_e", I64, ["K"])],
    )  # fmt: skip
    nodes = [
        helper.make_node("Shape", ["boxes"], ["shp"]),
        helper.make_node("ReduceProd", ["shp"], ["numel"], keepdims=0),
        helper.make_node("Equal", ["numel", "zero"], ["none"]),
        helper.make_node("If", ["none"], ["keep"], then_branch=then_g, else_branch=else_g),
        helper.make_node("Slice", ["keep", "ax0", "top"], ["kept"]),
        helper.make_node("Gather", ["idxs", "kept"], ["labels"]),
        helper.make_node("Gather", ["boxes", "kept"], ["kb"]),
        helper.make_node("Split", ["kb", "ones4"], ["x1", "y1", "x2", "y2"], axis=1),
        # scaled back to the image (by 1 here), as torchvision's resize_boxes does
        *[n for c in ("x1", "y1", "x2", "y2") for n in (
            helper.make_node("Squeeze", [c, "ax1"], [c + "s"]),
            helper.make_node("Mul", [c + "s", "ratio"], [c + "r"]),
            helper.make_node("Unsqueeze", [c + "r", "ax1"], [c + "u"]))],
        helper.make_node("Concat", ["x1u", "y1u", "x2u", "y2u"], ["out_boxes"], axis=1),
    ]
    inits = [
        _init("one", np.float32(1)), _init("zero", np.int64(0)), _init("ax0", np.array([0])),
        _init("ax1", np.array([1])), _init("ax01", np.array([0, 1])), _init("top", np.array([300])),
        _init("max_out", np.array([2**63 - 1])), _init("iou", np.array([0.3], np.float32)),
        _init("ones4", np.array([1, 1, 1, 1])),
        _init("ratio", np.float32(1)),
    ]  # fmt: skip
    m = _model(
        nodes, [_vi("boxes", F, ["N", 4]), _vi("scores", F, ["N"]), _vi("idxs", I64, ["N"])],
        [_vi("out_boxes", F, ["D", 4]), _vi("labels", I64, ["D"])], inits,
    )  # fmt: skip
    xy = _r.uniform(0, 40, (60, 2))
    boxes = np.concatenate([xy, xy + _r.uniform(4, 12, (60, 2))], 1).astype(np.float32)
    some = {"boxes": boxes, "scores": _r.permutation(60).astype(np.float32) / 60,
            "idxs": _r.integers(0, 3, 60)}
    none = {"boxes": np.zeros((0, 4), np.float32), "scores": np.zeros(0, np.float32),
            "idxs": np.zeros(0, np.int64)}
    return m, [some, none]


# -- Loop --------------------------------------------------------------------------
def _loop_body(inner: list | None = None) -> onnx.GraphProto:
    # v += x * i (x from the outer graph); scan output v; cond_out = sum(v) < lim
    nodes = [
        helper.make_node("Cast", ["i"], ["fi"], to=F),
        helper.make_node("Mul", ["x", "fi"], ["xi"]),
        helper.make_node("Add", ["v_in", "xi"], ["v_out"]),
        *(inner or [helper.make_node("Identity", ["v_out"], ["scan_v"])]),
        helper.make_node("ReduceSum", ["v_out"], ["s"], keepdims=0),
        helper.make_node("Less", ["s", "lim"], ["cond_out"]),
    ]
    return helper.make_graph(
        nodes, "body", [_vi("i", I64, []), _vi("cond_in", B, []), _vi("v_in", F, [2])],
        [_vi("cond_out", B, []), _vi("v_out", F, [2]), _vi("scan_v", F, [2])],
    )  # fmt: skip


def _loop_model(body: onnx.GraphProto, extra_inputs=()) -> onnx.ModelProto:
    node = helper.make_node("Loop", ["M", "c", "v0"], ["v", "vs"], body=body)
    return _model(
        [node],
        [_vi("M", I64, []), _vi("c", B, []), _vi("x", F, [2]), _vi("v0", F, [2]),
         _vi("lim", F, []), *extra_inputs],
        [_vi("v", F, [2]), _vi("vs", F, [None, 2])],
    )  # fmt: skip


def _loop_feeds(m: int, c: bool, lim: float, **extra) -> dict:
    return {
        "M": np.array(m, np.int64), "c": np.array(c), "x": np.abs(_f(2)) + 0.5,
        "v0": _f(2), "lim": np.array(lim, np.float32), **extra,
    }  # fmt: skip


def loop_runtime() -> tuple[onnx.ModelProto, list[dict]]:
    # run-time trip count, condition and exit: all trips, an early exit, no iteration... 
    return _loop_model(_loop_body()), [
        _loop_feeds(5, True, 100.0), _loop_feeds(7, True, 6.0), _loop_feeds(1, True, 100.0),
    ]


def loop_if_in_body() -> tuple[onnx.ModelProto, list[dict]]:
    # the scan output is chosen by an If inside the body on a run-time condition
    # whose branches see the outer graph's w and the body's v_out
    then_g = helper.make_graph(
        [helper.make_node("Mul", ["v_out", "w"], ["t"])], "then", [], [_vi("t", F, [2])]
    )
    else_g = helper.make_graph(
        [helper.make_node("Sub", ["v_out", "w"], ["e"])], "else", [], [_vi("e", F, [2])]
    )
    inner = [
        helper.make_node("Greater", ["fi", "half"], ["big"]),
        helper.make_node("If", ["big"], ["scan_v"], then_branch=then_g, else_branch=else_g),
    ]
    m = _loop_model(_loop_body(inner), [_vi("w", F, [2]), _vi("half", F, [])])
    return m, [
        _loop_feeds(5, True, 100.0, w=_f(2), half=np.array(1.5, np.float32)),
        _loop_feeds(6, True, 100.0, w=_f(2), half=np.array(3.5, np.float32)),
    ]


def loop_in_if() -> tuple[onnx.ModelProto, list[dict]]:
    # then: a run-time Loop over the outer values (a 2-vector); else: x (a 2-vector, not a Select)
    loop = helper.make_node("Loop", ["M", "", "v0"], ["t", "ts"], body=_loop_body())
    then_g = helper.make_graph([loop], "then", [], [_vi("t", F, [2]), _vi("ts", F, None)])
    else_g = helper.make_graph(
        [helper.make_node("Identity", ["x"], ["e"]),
         helper.make_node("Unsqueeze", ["x", "zero"], ["es"])],
        "else", [], [_vi("e", F, [2]), _vi("es", F, None)],
    )  # fmt: skip
    node = helper.make_node("If", ["c"], ["z", "zs"], then_branch=then_g, else_branch=else_g)
    m = _model(
        [node],
        [_vi("M", I64, []), _vi("c", B, []), _vi("x", F, [2]), _vi("v0", F, [2]),
         _vi("lim", F, [])],
        [_vi("z", F, [2]), _vi("zs", F, None)], [_init("zero", np.array([0], np.int64))],
    )  # fmt: skip
    return m, [_loop_feeds(4, True, 100.0), _loop_feeds(4, False, 100.0)]


# -- Scan --------------------------------------------------------------------------
def scan_dynamic_length() -> tuple[onnx.ModelProto, list[dict]]:
    # state s += x_t * w (w from the outer graph); scan outputs y_t = s (stacked
    # backwards on axis 0) and z_t = x_t - b_t (b scanned backwards along axis 1,
    # stacked on axis 1); the scan length T is known only at run time
    body = helper.make_graph(
        [helper.make_node("Mul", ["x_t", "w"], ["xw"]),
         helper.make_node("Add", ["s_in", "xw"], ["s_out"]),
         helper.make_node("Identity", ["s_out"], ["y_t"]),
         helper.make_node("Sub", ["x_t", "b_t"], ["z_t"])],
        "body", [_vi("s_in", F, [3]), _vi("x_t", F, [3]), _vi("b_t", F, [3])],
        [_vi("s_out", F, [3]), _vi("y_t", F, [3]), _vi("z_t", F, [3])],
    )  # fmt: skip
    node = helper.make_node(
        "Scan", ["s0", "x", "b"], ["s", "y", "z"], body=body, num_scan_inputs=2,
        scan_input_axes=[0, 1], scan_input_directions=[0, 1],
        scan_output_axes=[0, 1], scan_output_directions=[1, 0],
    )  # fmt: skip
    m = _model(
        [node],
        [_vi("s0", F, [3]), _vi("x", F, ["T", 3]), _vi("b", F, [3, "T"]), _vi("w", F, [3])],
        [_vi("s", F, [3]), _vi("y", F, ["T", 3]), _vi("z", F, [3, "T"])],
    )  # fmt: skip
    return m, [
        {"s0": _f(3), "x": _f(t, 3), "b": _f(3, t), "w": _f(3)} for t in (4, 1)
    ]


_CASES: list[Callable[[], tuple[onnx.ModelProto, list[dict]]]] = [
    if_shapes_differ, if_ranks_differ, if_batched_nms, loop_runtime, loop_if_in_body,
    loop_in_if, scan_dynamic_length,
]
#: OpenVINO's CPU plugin refuses an If whose output rank is dynamic
_NOT_ON_OV = {"if_ranks_differ"}

_CORE = ov.Core()


def _expected(model: onnx.ModelProto, feeds: dict) -> list[np.ndarray]:
    sess = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    return sess.run(None, feeds)


def _close(got, exp) -> None:
    assert np.shape(got) == np.shape(exp)
    np.testing.assert_allclose(got, exp, rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("case", _CASES, ids=lambda c: c.__name__)
def test_openvino_matches_onnxruntime(case, tmp_path) -> None:
    if case.__name__ in _NOT_ON_OV:
        pytest.skip("OpenVINO's CPU plugin refuses an If with a dynamic output rank")
    model, feeds_list = case()
    module = xmo.convert_model(model)
    path = tmp_path / "m.xml"
    xmo.save_model(module, str(path))
    compiled = _CORE.compile_model(str(path), "CPU", {"INFERENCE_PRECISION_HINT": "f32"})
    for feeds in feeds_list:
        expected = _expected(model, feeds)
        res = compiled(feeds)
        outs = [res[o] for o in compiled.outputs]
        assert len(outs) == len(expected)
        for got, exp in zip(outs, expected):
            _close(got, exp)


@pytest.mark.parametrize("case", _CASES, ids=lambda c: c.__name__)
def test_xmo_cpu_matches_onnxruntime(case, tmp_path) -> None:
    model, feeds_list = case()
    path = tmp_path / "m.onnx"
    onnx.save(model, str(path))
    for feeds in feeds_list:
        expected = _expected(model, feeds)
        got = xmo.run(str(path), feeds)
        outs = list(got.values()) if isinstance(got, dict) else list(got)
        assert len(outs) == len(expected)
        for g, exp in zip(outs, expected):
            _close(np.asarray(g), exp)


def _op_names(module) -> list[str]:
    return [op.name for op in module.walk()]


def test_if_shapes_differ_is_an_ov_if() -> None:
    names = _op_names(xmo.convert_model(if_shapes_differ()[0]))
    assert "ov.If" in names and "ov.Select" not in names


def test_loop_runtime_is_an_ov_loop() -> None:
    names = _op_names(xmo.convert_model(loop_runtime()[0]))
    assert names.count("ov.Loop") == 1


def test_loop_over_unroll_limit_is_an_ov_loop() -> None:
    # a constant trip count over the unroll limit: an ov.Loop (was refused)
    node = helper.make_node("Loop", ["M", "", "v0"], ["v", "vs"], body=_loop_body())
    m = _model(
        [node], [_vi("x", F, [2]), _vi("v0", F, [2]), _vi("lim", F, [])],
        [_vi("v", F, [2]), _vi("vs", F, [None, 2])], [_init("M", np.array(1000, np.int64))],
    )  # fmt: skip
    names = _op_names(xmo.convert_model(m))
    assert names.count("ov.Loop") == 1


def test_scan_dynamic_length_is_a_tensor_iterator() -> None:
    names = _op_names(xmo.convert_model(scan_dynamic_length()[0]))
    assert names.count("ov.TensorIterator") == 1


@pytest.mark.parametrize("case", _CASES, ids=lambda c: c.__name__)
def test_ir_round_trip_on_xmo_cpu(case, tmp_path) -> None:
    """Written as IR, read back by xmo and run on its CPU backend (an If
    output of dynamic rank is a port without dims: the reader asks the
    bodies whether it is a scalar)."""
    model, feeds_list = case()
    path = tmp_path / "m.xml"
    xmo.save_model(xmo.convert_model(model), str(path))
    back = xmo.read_model(str(path))
    for feeds in feeds_list:
        expected = _expected(model, feeds)
        got = xmo.run(back, feeds)
        outs = list(got.values()) if isinstance(got, dict) else list(got)
        assert len(outs) == len(expected)
        for g, exp in zip(outs, expected):
            _close(np.asarray(g), exp)
