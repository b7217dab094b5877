"""convert-tf-to-ov, TF2 functional control flow: PartitionedCall (inlined),
If / StatelessIf (a constant predicate inlines a branch, else ``ov.If``),
While / StatelessWhile (``ov.Loop``) and TensorLists (sliced inputs,
concatenated outputs), and the one-line errors of loops xmo refuses.

Small GraphDefs with function libraries built with xmo's schema, converted
with xmo, run in OpenVINO and on xmo's CPU backend, compared with OpenVINO's
own TF frontend (or numpy where it lacks the op); the Keras fixtures of
tests/data/tf (``*_functional``) are in test_tf_models.py."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from tf_graphs import Graph, check_tf, func_attr, out

pytest.importorskip("openvino")

DATA = Path(__file__).parent / "data" / "tf"
rng = np.random.default_rng(16)


def _ops(block) -> list[str]:
    return [o.name for o in block.ops]


def _loop(module):
    (loop,) = [o for o in module.body.block.ops if o.name == "ov.Loop"]
    return loop


# -- calls and If -------------------------------------------------------------------------


def _scale_function(g: Graph, name: str, factor: float) -> str:
    f = g.function(name, [("a", np.float32)])
    f.const("k", np.float32(factor))
    f.node("Mul", "m", ["a", out("k")], T=np.float32)
    return f.returns([("y", out("m", "z"), np.float32)])


def test_partitioned_call_is_inlined(tmp_path):
    g = Graph()
    x = g.placeholder("x", np.float32, [2, 3])
    _scale_function(g, "f", 3.0)
    g.node("StatefulPartitionedCall", "call", [x], T=None, Tin=[np.float32], Tout=[np.float32],
           f=func_attr("f"))
    g.node("Relu", "y", ["call"], T=np.float32)
    module = check_tf(g, {"x": rng.standard_normal((2, 3)).astype(np.float32)}, tmp_path)
    assert "ov.Multiply" in _ops(module.body.block)


def _if_graph(pred_const: bool | None) -> Graph:
    g = Graph()
    x = g.placeholder("x", np.float32, [-1, 4])
    if pred_const is None:
        g.placeholder("p", np.bool_, [])
    else:
        g.const("p", np.bool_(pred_const))
    _scale_function(g, "then", 2.0)
    e = g.function("else", [("a", np.float32)])
    e.node("Sigmoid", "s", ["a"], T=np.float32)
    e.returns([("y", out("s", "y"), np.float32)])
    g.node("StatelessIf", "if", ["p", x], T=None, Tcond=np.bool_, Tin=[np.float32],
           Tout=[np.float32], then_branch=func_attr("then"), else_branch=func_attr("else"))
    g.node("Identity", "y", ["if"], T=np.float32)
    return g


@pytest.mark.parametrize("pred", [True, False])
def test_if_with_a_constant_predicate_inlines_the_branch(pred, tmp_path):
    xv = rng.standard_normal((3, 4)).astype(np.float32)
    want = xv * 2 if pred else 1 / (1 + np.exp(-xv))
    module = check_tf(_if_graph(pred), {"x": xv}, tmp_path, want=[want])
    assert "ov.If" not in _ops(module.body.block)


@pytest.mark.parametrize("pred", [True, False])
def test_if_with_a_runtime_predicate_is_an_ov_if(pred, tmp_path):
    xv = rng.standard_normal((3, 4)).astype(np.float32)
    module = check_tf(_if_graph(None), {"x": xv, "p": np.bool_(pred)}, tmp_path)
    (op,) = [o for o in module.body.block.ops if o.name == "ov.If"]
    assert [o.name for o in op.then_body.block.ops] == [
        "ov.Parameter", "ov.Constant", "ov.Multiply", "ov.Result"]


# -- While ----------------------------------------------------------------------------


def _while_graph(*, bound_from_input: bool = False, data_cond: bool = False) -> Graph:
    """``i, v = 0, x; while i < 3 (or i < n, or sum(v) < 100): i, v = i + 1, v * 2 + w``"""
    g = Graph()
    x = g.placeholder("x", np.float32, [-1, 3])
    g.const("i0", np.int32(0))
    g.const("w", np.float32([1, 2, 3]))
    if bound_from_input:
        g.placeholder("n", np.int32, [])
    else:
        g.const("n", np.int32(3))
    c = g.function("cond", [("i", np.int32), ("v", np.float32), ("w", np.float32), ("n", np.int32)])
    if data_cond:
        c.const("ax", np.int32([0, 1]))
        c.node("Sum", "s", ["v", out("ax")], T=np.float32, Tidx=np.int32, keep_dims=False)
        c.const("lim", np.float32(100))
        c.node("Less", "lt", [out("s"), out("lim")], T=np.float32)
    else:
        c.node("Less", "lt", ["i", "n"], T=np.int32)
    c.returns([("ok", out("lt", "z"), np.bool_)])
    b = g.function("body", [("i", np.int32), ("v", np.float32), ("w", np.float32), ("n", np.int32)])
    b.const("one", np.int32(1))
    b.node("AddV2", "inc", ["i", out("one")], T=np.int32)
    b.const("two", np.float32(2))
    b.node("Mul", "dbl", ["v", out("two")], T=np.float32)
    b.node("AddV2", "add", [out("dbl", "z"), "w"], T=np.float32)
    b.returns([("i_out", out("inc", "z"), np.int32), ("v_out", out("add", "z"), np.float32),
               ("w_out", "w", np.float32), ("n_out", "n", np.int32)])
    g.node("StatelessWhile", "loop", ["i0", x, "w", "n"],
           T=[np.int32, np.float32, np.float32, np.int32], cond=func_attr("cond"),
           body=func_attr("body"), parallel_iterations=10)
    g.node("Identity", "v", ["loop:1"], T=np.float32)
    g.node("Identity", "steps", ["loop:0"], T=np.int32)
    return g


def test_while_with_a_constant_trip_count(tmp_path):
    xv = rng.standard_normal((2, 3)).astype(np.float32)
    module = check_tf(_while_graph(), {"x": xv}, tmp_path)
    loop = _loop(module)
    trip = loop.operands[0].owner
    assert trip.name == "ov.Constant" and int(trip.value.get_values()[0]) == 3
    body = _ops(loop.body.block)
    # the condition is the trip count: no Less in the body, a constant true
    assert "ov.Less" not in body and body.count("ov.Parameter") == 2  # i and v; w is cloned


def test_while_with_a_trip_count_from_an_input(tmp_path):
    xv = rng.standard_normal((2, 3)).astype(np.float32)
    for n in (0, 4):
        check_tf(_while_graph(bound_from_input=True), {"x": xv, "n": np.int32(n)}, tmp_path)


def test_while_with_a_data_dependent_condition(tmp_path):
    xv = np.abs(rng.standard_normal((2, 3))).astype(np.float32)
    module = check_tf(_while_graph(data_cond=True), {"x": xv}, tmp_path)
    loop = _loop(module)
    assert int(loop.operands[0].owner.value.get_values()[0]) == -1
    assert "ov.Less" in _ops(loop.body.block)


def _list_loop(length: int, trip: int) -> Graph:
    """ys[t] = xs[t] * 2 for t < trip, xs a TensorList of ``length`` rows."""
    g = Graph()
    x = g.placeholder("x", np.float32, [length, -1])
    g.const("es", np.int32(-1))
    g.node("TensorListFromTensor", "xs", [x, "es"], T=None, element_dtype=np.float32,
           shape_type=np.int32)
    g.const("n", np.int32(trip))
    g.node("TensorListReserve", "ys", ["es", "n"], T=None, element_dtype=np.float32,
           shape_type=np.int32)
    g.const("t0", np.int32(0))
    args = [("t", np.int32), ("xs", "variant"), ("ys", "variant")]
    c = g.function("cond", args)
    c.const("lim", np.int32(trip))
    c.node("Less", "lt", ["t", out("lim")], T=np.int32)
    c.returns([("ok", out("lt", "z"), np.bool_)])
    b = g.function("body", args)
    b.const("es", np.int32(-1))
    b.node("TensorListGetItem", "get", ["xs", "t", out("es")], T=None, element_dtype=np.float32)
    b.const("two", np.float32(2))
    b.node("Mul", "dbl", [out("get", "item"), out("two")], T=np.float32)
    b.node("TensorListSetItem", "set", ["ys", "t", out("dbl", "z")], T=None,
           element_dtype=np.float32)
    b.const("one", np.int32(1))
    b.node("AddV2", "inc", ["t", out("one")], T=np.int32)
    b.returns([("t_out", out("inc", "z"), np.int32), ("xs_out", "xs", "variant"),
               ("ys_out", out("set", "output_handle"), "variant")])
    g.node("While", "loop", ["t0", "xs", "ys"], T=[np.int32, "variant", "variant"],
           cond=func_attr("cond"), body=func_attr("body"), parallel_iterations=10)
    g.node("TensorListStack", "stack", ["loop:2", "es"], T=None, element_dtype=np.float32)
    g.node("Identity", "y", ["stack"], T=np.float32)
    return g


def test_tensor_lists_become_a_sliced_input_and_a_concatenated_output(tmp_path):
    xv = rng.standard_normal((5, 3)).astype(np.float32)
    module = check_tf(_list_loop(5, 5), {"x": xv}, tmp_path, want=[xv * 2])
    loop = _loop(module)
    kinds = [e.data["kind"].data for e in loop.input_map.data]  # type: ignore[attr-defined]
    assert kinds == ["slice"]  # the counter t is not carried
    assert [e.data["kind"].data for e in loop.output_map.data] == ["concat"]  # type: ignore[attr-defined]


def test_a_reserved_list_keeps_its_unwritten_rows_as_zeros(tmp_path):
    g = _list_loop(5, 3)
    # reserve 5 rows, write 3
    ys = next(n for n in g.g.node if n.name == "n")
    ys.attr["value"].tensor.int_val[:] = [5]
    xv = rng.standard_normal((5, 3)).astype(np.float32)
    want = np.concatenate([xv[:3] * 2, np.zeros((2, 3), np.float32)])
    check_tf(g, {"x": xv}, tmp_path, want=[want])


def test_tensor_list_ops_outside_loops(tmp_path):
    g = Graph()
    x = g.placeholder("x", np.float32, [4, 3])
    g.const("es", np.int32(-1))
    g.node("TensorListFromTensor", "l", [x, "es"], T=None, element_dtype=np.float32,
           shape_type=np.int32)
    g.const("i", np.int32(2))
    g.node("TensorListGetItem", "it", ["l", "i", "es"], T=None, element_dtype=np.float32)
    g.node("TensorListLength", "n", ["l"], T=None)
    g.node("TensorListElementShape", "s", ["l"], T=None, shape_type=np.int32)
    g.node("TensorListSetItem", "l2", ["l", "i", "it"], T=None, element_dtype=np.float32)
    g.node("TensorListStack", "st", ["l2", "es"], T=None, element_dtype=np.float32)
    xv = np.arange(12, dtype=np.float32).reshape(4, 3)
    # OpenVINO's TF frontend has no TensorListElementShape: numpy references
    check_tf(g, {"x": xv}, tmp_path, outputs=["it", "n", "s", "st"],
             want=[xv[2], np.int32(4), np.int32([3]), xv])


# -- refusals: one line naming the node, nothing written ------------------------------------


def _refused(g: Graph, tmp_path: Path, capsys) -> str:
    from xmo.tools.xmo_main import main

    pb = g.save(tmp_path / "m.pb")
    assert main(["convert", str(pb), "-o", str(tmp_path / "m.xml")]) == 1
    assert not (tmp_path / "m.xml").exists() and not (tmp_path / "m.bin").exists()
    return capsys.readouterr().err


def test_a_list_read_beyond_its_length_is_refused(tmp_path, capsys):
    err = _refused(_list_loop(4, 6), tmp_path, capsys)
    assert "loop" in err and "reads element 4 of the tensor list of loop variable 1, which has 4 elements" in err


def test_a_constant_read_beyond_the_length_is_refused(tmp_path, capsys):
    g = Graph()
    x = g.placeholder("x", np.float32, [4, 3])
    g.const("es", np.int32(-1))
    g.node("TensorListFromTensor", "l", [x, "es"], T=None, element_dtype=np.float32,
           shape_type=np.int32)
    g.const("i", np.int32(7))
    g.node("TensorListGetItem", "it", ["l", "i", "es"], T=None, element_dtype=np.float32)
    err = _refused(g, tmp_path, capsys)
    assert "TensorListGetItem (1): it" in err and "reads element 7 of a tensor list of 4 elements" in err


def test_a_back_edge_of_another_type_is_refused(tmp_path, capsys):
    g = _while_graph()
    body = next(f for f in g.g.library.function if f.signature.name == "body")
    cast = body.node_def.add(name="half", op="Cast", input=[out("add", "z")])
    cast.attr["SrcT"].type = 1  # DT_FLOAT
    cast.attr["DstT"].type = 19  # DT_HALF
    body.ret["v_out"] = out("half", "y")
    err = _refused(g, tmp_path, capsys)
    assert err.strip().splitlines() == [
        "xmo: error: node 'loop' (StatelessWhile): loop variable 1: the body yields f16 for a "
        "value that enters the loop as f32"
    ]


def test_a_body_that_does_not_convert_names_the_inner_node(tmp_path, capsys):
    g = _while_graph()
    body = next(f for f in g.g.library.function if f.signature.name == "body")
    node = next(n for n in body.node_def if n.name == "dbl")
    node.op = "FrobnicateV7"
    err = _refused(g, tmp_path, capsys)
    assert "StatelessWhile (1): loop" in err
    assert "function 'body' node 'dbl' (FrobnicateV7): unknown operation" in err


# -- the Keras fixtures -------------------------------------------------------------------


def test_keras_lstm_loop_body_is_clean():
    """The functional LSTM: one Loop with a constant trip count, no condition
    in the body, only h and c carried, x sliced, the weights cloned into it."""
    import xmo

    module = xmo.convert_model(DATA / "lstm_functional.pb")
    loop = _loop(module)
    assert int(loop.operands[0].owner.value.get_values()[0]) == 6
    body = _ops(loop.body.block)
    assert body.count("ov.Parameter") == 3 and body.count("ov.MatMul") == 2
    assert not {"ov.Less", "ov.LogicalAnd", "ov.Convert"} & set(body)
    manifest = json.loads((DATA / "manifest.json").read_text())["models"]
    ov_layers = manifest["lstm_functional"]["openvino"]["layers"]
    ours = sum(1 for _ in module.walk()) - 1  # every op but the module
    assert ours < ov_layers


def test_tf1_tensor_arrays_outside_loops(tmp_path):
    """TensorArrayV3: an unstack (ScatterV3 at 0..n-1), a read at a constant
    index, a write, the size and a gather of some rows."""
    g = Graph()
    x = g.placeholder("x", np.float32, [4, 3])
    g.const("size", np.int32(4))
    g.node("TensorArrayV3", "ta", ["size"], T=None, dtype=np.float32)
    g.const("all", np.int32([0, 1, 2, 3]))
    g.node("TensorArrayScatterV3", "sc", ["ta", "all", x, "ta:1"], T=np.float32)
    g.const("i", np.int32(1))
    g.node("TensorArrayReadV3", "rd", ["ta", "i", "sc"], T=None, dtype=np.float32)
    g.node("TensorArrayWriteV3", "wr", ["ta", "i", "rd_twice", "sc"], T=np.float32)
    g.const("two", np.float32(2))
    g.node("Mul", "rd_twice", ["rd", "two"], T=np.float32)
    g.node("TensorArraySizeV3", "n", ["ta", "wr"], T=None)
    g.const("some", np.int32([3, 1]))
    g.node("TensorArrayGatherV3", "ga", ["ta", "some", "wr"], T=None, dtype=np.float32)
    g.node("TensorArrayGatherV3", "stack", ["ta", "all", "wr"], T=None, dtype=np.float32)
    xv = np.arange(12, dtype=np.float32).reshape(4, 3)
    after = xv.copy()
    after[1] *= 2
    module = check_tf(g, {"x": xv}, tmp_path, outputs=["rd", "n", "ga", "stack"],
                      want=[xv[1], np.int32(4), after[[3, 1]], after])
    assert "ov.ScatterUpdate" in _ops(module.body.block)


def _control_flow_fixtures() -> list[str]:
    models = json.loads((DATA / "manifest.json").read_text())["models"]
    return [k for k, v in models.items() if "lower_control_flow" in v and not v.get("xmo_pending")]


@pytest.mark.parametrize("name", _control_flow_fixtures())
def test_fixture_ir_round_trip_on_xmo_cpu(name, tmp_path):
    """The control-flow fixtures written as IR, read back by xmo (bodies,
    port maps, back edges) and run on its CPU backend match TensorFlow."""
    import xmo

    m = json.loads((DATA / "manifest.json").read_text())["models"][name]
    ins = dict(np.load(DATA / m["inputs_file"]))
    outs = dict(np.load(DATA / m["outputs_file"]))
    path = tmp_path / "m.xml"
    xmo.save_model(xmo.convert_model(DATA / m["file"]), str(path))
    back = xmo.read_model(str(path))
    got = xmo.compile_model(back)(ins)
    for value, spec in zip(got, m["outputs"]):
        ref = outs[spec["name"]]
        np.testing.assert_allclose(np.asarray(value), ref, rtol=1e-3, atol=1e-4, err_msg=f"{name} {spec['label']}")
