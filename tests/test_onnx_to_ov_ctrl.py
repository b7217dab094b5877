"""control.py (If, Loop, Scan inlined): small ONNX models converted by xmo, run
in OpenVINO (CPU, f32) and compared with onnxruntime."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import onnx
import pytest
import xmo
from onnx import TensorProto, helper, numpy_helper

ort = pytest.importorskip("onnxruntime")
ov = pytest.importorskip("openvino")

_r = np.random.default_rng(5)
F = TensorProto.FLOAT
I64 = TensorProto.INT64
B = TensorProto.BOOL


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
def _if_branches() -> tuple[onnx.GraphProto, onnx.GraphProto]:
    then_g = helper.make_graph(
        [helper.make_node("Add", ["x", "y"], ["t"])], "then", [], [_vi("t", F, [2, 3])]
    )
    else_g = helper.make_graph(
        [helper.make_node("Mul", ["x", "y"], ["e0"]), helper.make_node("Relu", ["e0"], ["e"])],
        "else", [], [_vi("e", F, [2, 3])],
    )  # fmt: skip
    return then_g, else_g


def if_dynamic() -> tuple[onnx.ModelProto, dict]:
    then_g, else_g = _if_branches()
    node = helper.make_node("If", ["c"], ["z"], then_branch=then_g, else_branch=else_g)
    m = _model(
        [node],
        [_vi("c", B, []), _vi("x", F, [2, 3]), _vi("y", F, [2, 3])],
        [_vi("z", F, [2, 3])],
    )
    return m, {"c": np.array(False), "x": _f(2, 3), "y": _f(2, 3)}


def if_dynamic_true() -> tuple[onnx.ModelProto, dict]:
    m, feeds = if_dynamic()
    feeds["c"] = np.array(True)
    return m, feeds


def if_const_shapes_differ() -> tuple[onnx.ModelProto, dict]:
    # the branches' outputs differ in shape: only the taken branch is inlined
    then_g = helper.make_graph(
        [helper.make_node("ReduceSum", ["x"], ["t"], keepdims=0)],
        "then",
        [],
        [_vi("t", F, [])],
    )
    else_g = helper.make_graph(
        [helper.make_node("Identity", ["x"], ["e"])], "else", [], [_vi("e", F, [2, 3])]
    )
    node = helper.make_node("If", ["c"], ["z"], then_branch=then_g, else_branch=else_g)
    m = _model(
        [node], [_vi("x", F, [2, 3])], [_vi("z", F, [])], [_init("c", np.array(True))]
    )
    return m, {"x": _f(2, 3)}


def if_shape_condition_nested() -> tuple[onnx.ModelProto, dict]:
    # condition computed from the (static) shape of x; a nested If inside
    inner_then = helper.make_graph(
        [helper.make_node("Neg", ["x"], ["it"])], "it", [], [_vi("it", F, [2, 3])]
    )
    inner_else = helper.make_graph(
        [helper.make_node("Abs", ["x"], ["ie"])], "ie", [], [_vi("ie", F, [2, 3])]
    )
    then_g = helper.make_graph(
        [helper.make_node("If", ["c2"], ["t0"], then_branch=inner_then, else_branch=inner_else),
         helper.make_node("Add", ["t0", "y"], ["t"])],
        "then", [], [_vi("t", F, [2, 3])],
    )  # fmt: skip
    else_g = helper.make_graph(
        [helper.make_node("Identity", ["y"], ["e"])], "else", [], [_vi("e", F, [2, 3])]
    )
    nodes = [
        helper.make_node("Size", ["x"], ["n"]),
        helper.make_node("Equal", ["n", "six"], ["c"]),
        helper.make_node("If", ["c"], ["z"], then_branch=then_g, else_branch=else_g),
    ]
    m = _model(
        nodes,
        [_vi("x", F, [2, 3]), _vi("y", F, [2, 3]), _vi("c2", B, [])],
        [_vi("z", F, [2, 3])],
        [_init("six", np.array(6, np.int64))],
    )
    return m, {"x": _f(2, 3), "y": _f(2, 3), "c2": np.array(True)}


# -- Scan --------------------------------------------------------------------------
def _scan_body() -> onnx.GraphProto:
    # state s [3] += x_t [3]; scan output y_t = s * x_t
    return helper.make_graph(
        [helper.make_node("Add", ["s_in", "x_t"], ["s_out"]),
         helper.make_node("Mul", ["s_out", "x_t"], ["y_t"])],
        "body", [_vi("s_in", F, [3]), _vi("x_t", F, [3])],
        [_vi("s_out", F, [3]), _vi("y_t", F, [3])],
    )  # fmt: skip


def scan_forward() -> tuple[onnx.ModelProto, dict]:
    node = helper.make_node(
        "Scan", ["s0", "x"], ["s", "y"], body=_scan_body(), num_scan_inputs=1
    )
    m = _model(
        [node],
        [_vi("s0", F, [3]), _vi("x", F, [4, 3])],
        [_vi("s", F, [3]), _vi("y", F, [4, 3])],
    )
    return m, {"s0": _f(3), "x": _f(4, 3)}


def scan_axes_directions() -> tuple[onnx.ModelProto, dict]:
    node = helper.make_node(
        "Scan", ["s0", "x"], ["s", "y"], body=_scan_body(), num_scan_inputs=1,
        scan_input_axes=[-1], scan_input_directions=[1],
        scan_output_axes=[1], scan_output_directions=[1],
    )  # fmt: skip
    m = _model(
        [node],
        [_vi("s0", F, [3]), _vi("x", F, [3, 5])],
        [_vi("s", F, [3]), _vi("y", F, [3, 5])],
    )
    return m, {"s0": _f(3), "x": _f(3, 5)}


def scan_two_inputs_no_state() -> tuple[onnx.ModelProto, dict]:
    body = helper.make_graph(
        [helper.make_node("Sub", ["a_t", "b_t"], ["y_t"])],
        "body", [_vi("a_t", F, [2]), _vi("b_t", F, [2])], [_vi("y_t", F, [2])],
    )  # fmt: skip
    node = helper.make_node(
        "Scan", ["a", "b"], ["y"], body=body, num_scan_inputs=2,
        scan_input_axes=[0, 1], scan_input_directions=[0, 1],
    )  # fmt: skip
    m = _model(
        [node], [_vi("a", F, [3, 2]), _vi("b", F, [2, 3])], [_vi("y", F, [3, 2])]
    )
    return m, {"a": _f(3, 2), "b": _f(2, 3)}


def scan8_batch() -> tuple[onnx.ModelProto, dict]:
    node = helper.make_node(
        "Scan", ["", "s0", "x"], ["s", "y"], body=_scan_body(), num_scan_inputs=1
    )
    m = _model(
        [node], [_vi("s0", F, [2, 3]), _vi("x", F, [2, 4, 3])],
        [_vi("s", F, [2, 3]), _vi("y", F, [2, 4, 3])], opset=8,
    )  # fmt: skip
    return m, {"s0": _f(2, 3), "x": _f(2, 4, 3)}


# -- Loop --------------------------------------------------------------------------
def _loop_body(stop_after: int | None) -> onnx.GraphProto:
    # v += x * i; scan output v; cond_out = i < stop_after (or cond_in)
    nodes = [
        helper.make_node("Cast", ["i"], ["fi"], to=F),
        helper.make_node("Mul", ["x", "fi"], ["xi"]),
        helper.make_node("Add", ["v_in", "xi"], ["v_out"]),
        helper.make_node("Identity", ["v_out"], ["scan_v"]),
    ]
    if stop_after is None:
        nodes.append(helper.make_node("Identity", ["cond_in"], ["cond_out"]))
    else:
        nodes += [
            helper.make_node(
                "Constant",
                [],
                ["lim"],
                value=_init("lim", np.array(stop_after, np.int64)),
            ),
            helper.make_node("Less", ["i", "lim"], ["cond_out"]),
        ]
    return helper.make_graph(
        nodes, "body", [_vi("i", I64, []), _vi("cond_in", B, []), _vi("v_in", F, [2])],
        [_vi("cond_out", B, []), _vi("v_out", F, [2]), _vi("scan_v", F, [2])],
    )  # fmt: skip


def loop_const_trip() -> tuple[onnx.ModelProto, dict]:
    node = helper.make_node("Loop", ["M", "", "v0"], ["v", "vs"], body=_loop_body(None))
    m = _model(
        [node], [_vi("x", F, [2]), _vi("v0", F, [2])], [_vi("v", F, [2]), _vi("vs", F, [4, 2])],
        [_init("M", np.array(4, np.int64))],
    )  # fmt: skip
    return m, {"x": _f(2), "v0": _f(2)}


def loop_early_exit() -> tuple[onnx.ModelProto, dict]:
    # M = 10 but the body's condition turns false after iteration 2 (3 iterations)
    node = helper.make_node(
        "Loop", ["M", "cond", "v0"], ["v", "vs"], body=_loop_body(2)
    )
    m = _model(
        [node], [_vi("x", F, [2]), _vi("v0", F, [2])], [_vi("v", F, [2]), _vi("vs", F, [3, 2])],
        [_init("M", np.array(10, np.int64)), _init("cond", np.array(True))],
    )  # fmt: skip
    return m, {"x": _f(2), "v0": _f(2)}


def loop_no_trip_count() -> tuple[onnx.ModelProto, dict]:
    node = helper.make_node("Loop", ["", "cond", "v0"], ["v", "vs"], body=_loop_body(4))
    m = _model(
        [node], [_vi("x", F, [2]), _vi("v0", F, [2])], [_vi("v", F, [2]), _vi("vs", F, [5, 2])],
        [_init("cond", np.array(True))],
    )  # fmt: skip
    return m, {"x": _f(2), "v0": _f(2)}


_CASES: list[Callable[[], tuple[onnx.ModelProto, dict]]] = [
    if_dynamic, if_dynamic_true, if_const_shapes_differ, if_shape_condition_nested,
    scan_forward, scan_axes_directions, scan_two_inputs_no_state, scan8_batch,
    loop_const_trip, loop_early_exit, loop_no_trip_count,
]  # fmt: skip

_CORE = ov.Core()


@pytest.mark.parametrize("case", _CASES, ids=lambda c: c.__name__)
def test_matches_onnxruntime(case, tmp_path) -> None:
    model, feeds = case()
    onnx.checker.check_model(model)
    expected = ort.InferenceSession(
        model.SerializeToString(), providers=["CPUExecutionProvider"]
    ).run(None, feeds)
    module = xmo.convert_model(model)
    path = tmp_path / "m.xml"
    xmo.save_model(module, str(path))
    compiled = _CORE.compile_model(
        str(path), "CPU", {"INFERENCE_PRECISION_HINT": "f32"}
    )
    res = compiled(feeds)
    outs = [res[o] for o in compiled.outputs]
    assert len(outs) == len(expected)
    for got, exp in zip(outs, expected):
        assert np.shape(got) == np.shape(exp)
        np.testing.assert_allclose(got, exp, rtol=1e-4, atol=1e-5)


def _op_names(model: onnx.ModelProto) -> list[str]:
    return [op.name for op in xmo.convert_model(model).walk()]


def test_loop_dynamic_trip_count_not_unrolled() -> None:
    # was refused ("trip count is not a constant"): now an ov.Loop
    # (run and compared in test_onnx_to_ov_ctrl_ops.py)
    node = helper.make_node("Loop", ["M", "", "v0"], ["v", "vs"], body=_loop_body(None))
    m = _model(
        [node], [_vi("M", I64, []), _vi("x", F, [2]), _vi("v0", F, [2])],
        [_vi("v", F, [2]), _vi("vs", F, [None, 2])],
    )  # fmt: skip
    assert _op_names(m).count("ov.Loop") == 1


def test_loop_over_unroll_limit_not_unrolled() -> None:
    # was refused ("unroll limit"): now an ov.Loop
    node = helper.make_node("Loop", ["M", "", "v0"], ["v", "vs"], body=_loop_body(None))
    m = _model(
        [node], [_vi("x", F, [2]), _vi("v0", F, [2])], [_vi("v", F, [2]), _vi("vs", F, [1000, 2])],
        [_init("M", np.array(1000, np.int64))],
    )  # fmt: skip
    assert _op_names(m).count("ov.Loop") == 1


def test_scan_dynamic_length_not_unrolled() -> None:
    # was refused ("scan length is dynamic"): now an ov.TensorIterator
    node = helper.make_node(
        "Scan", ["s0", "x"], ["s", "y"], body=_scan_body(), num_scan_inputs=1
    )
    m = _model(
        [node],
        [_vi("s0", F, [3]), _vi("x", F, ["T", 3])],
        [_vi("s", F, [3]), _vi("y", F, ["T", 3])],
    )
    assert _op_names(m).count("ov.TensorIterator") == 1


def test_if_incompatible_branches_become_an_ov_if() -> None:
    then_g = helper.make_graph(
        [helper.make_node("ReduceSum", ["x"], ["t"], keepdims=0)],
        "then",
        [],
        [_vi("t", F, [])],
    )
    else_g = helper.make_graph(
        [helper.make_node("Identity", ["x"], ["e"])], "else", [], [_vi("e", F, [2, 3])]
    )
    node = helper.make_node("If", ["c"], ["z"], then_branch=then_g, else_branch=else_g)
    m = _model([node], [_vi("c", B, []), _vi("x", F, [2, 3])], [_vi("z", F, None)])
    # was refused ("differ under a dynamic condition"): now an ov.If
    names = _op_names(m)
    assert "ov.If" in names and "ov.Select" not in names


def test_inner_names_prefixed() -> None:
    model, _ = if_dynamic()
    module = xmo.convert_model(model)
    names = [
        op.get_friendly_name()
        for op in module.body.block.ops
        if hasattr(op, "get_friendly_name")
    ]
    assert any(n.startswith("z/then/") for n in names), names
    assert any(n.startswith("z/else/") for n in names), names


def _retyping_loop(trip_count_input: bool) -> onnx.ModelProto:
    """A Loop whose body yields its carried f32 value as i32 (invalid ONNX)."""
    body = helper.make_graph(
        [helper.make_node("Identity", ["c"], ["c_out"]),
         helper.make_node("Cast", ["s"], ["s_out"], to=TensorProto.INT32)],
        "body", [_vi("i", I64, []), _vi("c", TensorProto.BOOL, []), _vi("s", F, [2])],
        [_vi("c_out", TensorProto.BOOL, []), _vi("s_out", TensorProto.INT32, [2])],
    )  # fmt: skip
    node = helper.make_node("Loop", ["n", "", "x"], ["y"], body=body, name="myloop")
    inputs = [_vi("x", F, [2])] + ([_vi("n", I64, [])] if trip_count_input else [])
    inits = [] if trip_count_input else [_init("n", np.array(3, np.int64))]
    g = helper.make_graph([node], "g", inputs, [_vi("y", F, [2])], inits)
    return helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)])


@pytest.mark.parametrize("trip_count_input", [True, False], ids=["ov_loop", "unrolled"])
def test_back_edge_of_another_type_is_one_line(trip_count_input, tmp_path) -> None:
    import subprocess
    import sys

    path = tmp_path / "m.onnx"
    onnx.save(_retyping_loop(trip_count_input), str(path))
    out = tmp_path / "out"
    r = subprocess.run(
        [sys.executable, "-m", "xmo.tools.xmo_main", "convert", str(path), "-o", str(out / "m.xml")],
        capture_output=True, text=True, check=False,
    )
    assert r.returncode == 1
    assert r.stderr.strip().splitlines() == [
        "xmo: error: node 'myloop' (Loop): loop-carried value 0: the body yields i32 for a "
        "value that enters the loop as f32"
    ]
    assert not out.exists() or not any(out.iterdir())
