"""The GraphDef's function library in the TF frontend and the ``tf`` dialect:
FunctionDefs load as ``tf.Function`` symbols that call ops name, node outputs
``node:out_arg:index`` resolve to ports, the verifier checks calls, and
malformed libraries give one-line errors naming the function and node."""

from __future__ import annotations

import numpy as np
import pytest
from tf_graphs import Graph, func_attr, out
from xdsl.utils.exceptions import VerifyException

import xmo.dialects.tf as tfd
from xmo.context import attach_context, make_context
from xmo.frontends.tf import TFFrontendError, load_tf


def _load(g: Graph):
    ctx = make_context()
    m = load_tf(g.g, ctx)
    attach_context(m, ctx)
    return m


def _functions(m) -> dict[str, tfd.FunctionOp]:
    return {op.function_name: op for op in m.body.block.ops if isinstance(op, tfd.FunctionOp)}


def _call_graph() -> Graph:
    """y = f(x) with f(a) = Split(a)[1] * 2 (a PartitionedCall)."""
    g = Graph()
    x = g.placeholder("x", np.float32, [2, 4])
    f = g.function("f", [("a", np.float32)], [[2, 4]])
    f.const("dim", np.int32(1))
    f.node("Split", "s", [out("dim"), "a"], T=np.float32, num_split=2)
    f.const("two", np.float32(2))
    f.node("Mul", "m", [out("s", "output", 1), out("two")], T=np.float32)
    f.returns([("y", out("m", "z"), np.float32)])
    g.node("PartitionedCall", "call", [x], T=None, Tin=[np.float32], Tout=[np.float32],
           f=func_attr("f"))
    g.node("Identity", "y", ["call"], T=np.float32)
    return g


def test_function_loads_as_a_symbol_with_ports_resolved():
    m = _load(_call_graph())
    m.verify()
    fn = _functions(m)["f"]
    assert [a.data for a in fn.arg_names.data] == ["a"]
    assert [a.data for a in fn.result_names.data] == ["y"]
    assert str(fn.body.block.args[0].type) == "tensor<2x4xf32>"  # from _output_shapes
    ops = {op.tf_name: op for op in fn.body.block.ops if isinstance(op, tfd.TFNodeOp)}
    mul = ops["m"]
    assert mul.operands[0] is ops["s"].results[1]  # "s:output:1" is port 1
    assert fn.returned_values() == [mul.results[0]]
    call = next(op for op in m.body.block.ops if isinstance(op, tfd.TFNodeOp) and op.tf_name == "call")
    assert call.attr("f") == "f"
    # functions come first, then the graph
    assert isinstance(next(iter(m.body.block.ops)), tfd.FunctionOp)


def test_only_called_functions_load():
    g = _call_graph()
    unused = g.function("unused", [("b", np.float32)])
    unused.returns([("o", "b", np.float32)])
    assert set(_functions(_load(g))) == {"f"}


def test_textual_round_trip_of_functions():
    from xdsl.parser import Parser

    m = _load(_call_graph())
    text = str(m)
    ctx = make_context()
    back = Parser(ctx, text).parse_module()
    attach_context(back, ctx)
    back.verify()
    assert str(back) == text


def _while_graph(body_returns: int = 2, cond_name: str = "cond") -> Graph:
    """while i < 3: i, v = i + 1, v * 2"""
    g = Graph()
    v = g.placeholder("v", np.float32, [2])
    g.const("i0", np.int32(0))
    c = g.function("cond", [("i", np.int32), ("v", np.float32)])
    c.const("three", np.int32(3))
    c.node("Less", "lt", ["i", out("three")], T=np.int32)
    c.returns([("ok", out("lt", "z"), np.bool_)])
    b = g.function("body", [("i", np.int32), ("v", np.float32)])
    b.const("one", np.int32(1))
    b.node("AddV2", "inc", ["i", out("one")], T=np.int32)
    b.const("two", np.float32(2))
    b.node("Mul", "dbl", ["v", out("two")], T=np.float32)
    rets = [("i_out", out("inc", "z"), np.int32), ("v_out", out("dbl", "z"), np.float32)]
    b.returns(rets[:body_returns])
    g.node("While", "w", ["i0", v], T=[np.int32, np.float32], cond=func_attr(cond_name),
           body=func_attr("body"), parallel_iterations=10)
    g.node("Identity", "out", ["w:1"], T=np.float32)
    return g


def test_while_verifies():
    _load(_while_graph()).verify()


def test_verifier_checks_what_the_function_returns():
    m = _load(_while_graph(body_returns=1))
    with pytest.raises(VerifyException, match="function 'body' \\('body'\\) returns 1 value, the node needs 2"):
        m.verify()


def test_call_of_a_missing_function_is_one_line():
    with pytest.raises(TFFrontendError) as e:
        _load(_while_graph(cond_name="nope"))
    msg = str(e.value)
    assert msg == (
        "node 'w' (While): 'cond' calls function 'nope', which the graph's function library "
        "does not have"
    )


@pytest.mark.parametrize(
    "inp, msg",
    [
        ("nothing", "function 'f': node 'm' (Mul): input 'nothing' names no argument or node output"),
        (out("s", "bogus", 0), "function 'f': node 'm' (Mul): input 's:bogus:0': node 's' (Split) "
                                "has no output 'bogus' (its OpDef's: output)"),
        (out("s", "output", 2), "function 'f': node 'm' (Mul): input 's:output:2': output 'output' "
                                 "of node 's' (Split) has 2 values"),
    ],
)
def test_bad_function_inputs_are_one_line(inp, msg):
    g = _call_graph()
    f = g.g.library.function[0]
    m = next(n for n in f.node_def if n.name == "m")
    m.input[0] = inp
    with pytest.raises(TFFrontendError) as e:
        _load(g)
    assert str(e.value).startswith(msg), str(e.value)
    assert "\n" not in str(e.value)


# -- TF1 while-loop frames --------------------------------------------------------------

DATA = __import__("pathlib").Path(__file__).parent / "data" / "tf"
_FRAME_OPS = {"Enter", "Exit", "Merge", "Switch", "NextIteration", "LoopCond"}


def _compute_ops(fn) -> list[tuple[str, int]]:
    import collections

    return sorted(collections.Counter(
        n.op for n in fn.node_def if n.op not in ("Identity", "NoOp", "Const")
    ).items())


@pytest.mark.parametrize("name, loops", [("lstm", 1), ("bilstm", 2), ("stacked_lstm", 2)])
def test_frames_are_raised_to_while_nodes_like_the_functional_freeze(name, loops):
    """The lowered freeze's frames become While nodes whose body functions do
    what the functional freeze's bodies do (same compute ops)."""
    from xmo.frontends.tf import read_graph_def
    from xmo.frontends.tf.frames import raise_frames

    raised = raise_frames(read_graph_def(DATA / f"{name}.pb"))
    assert not {n.op for n in raised.node} & _FRAME_OPS
    whiles = [n for n in raised.node if n.op == "While"]
    assert len(whiles) == loops
    lib = {f.signature.name: f for f in raised.library.function}
    functional = read_graph_def(DATA / f"{name}_functional.pb")
    want = sorted(_compute_ops(f) for f in functional.library.function if "body" in f.signature.name)
    got = sorted(_compute_ops(lib[w.attr["body"].func.name]) for w in whiles)
    assert got == want
    # the frame name names the While
    if name == "lstm":
        assert whiles[0].name == "functional_1/lstm_1/while"


def test_a_malformed_frame_is_one_line():
    from xmo.frontends.tf import read_graph_def

    g = read_graph_def(DATA / "simple_rnn.pb")
    merge = next(n for n in g.node if n.op == "Merge")
    enter = next(n for n in g.node if n.op == "Enter")
    merge.input[1] = enter.name  # a Merge of two Enters
    with pytest.raises(TFFrontendError) as e:
        load_tf(g, make_context())
    msg = str(e.value)
    assert msg.startswith("while-loop frame 'functional_1/simple_rnn_1/while': Merge '")
    assert msg.endswith("does not merge an Enter and a NextIteration") and "\n" not in msg
