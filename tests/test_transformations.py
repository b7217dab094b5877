"""Transformation kinds: patterns, MatcherPass, GraphRewrite, ModelPass,
Manager (type re-inference, verification, disabling), ConstantFolding, and
their use as ordinary xDSL / xmo-opt passes."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pytest
from xdsl.parser import Parser
from xdsl.passes import ModulePass
from xmo.context import make_context
from xmo.dialects.ov.base import OVOp
from xmo.graph import Graph, GraphError, copy_runtime_info, replace_node
from xmo.passes.transformations import (
    ConstantFolding,
    GraphRewrite,
    InitNodeInfo,
    Manager,
    Match,
    MatcherPass,
    ModelPass,
    TransformationError,
    any_input,
    attrs_match,
    constant,
    consumers_count,
    has_static_rank,
    has_static_shape,
    or_,
    rank_equals,
    shape_matches,
    type_matches,
    value_matches,
    wrap_type,
)
from xmo.passes.transformations.pattern import match

SRC = """
builtin.module {
  %x = "ov.Parameter"() <{friendly_name = "x", tensor_names = [["x"]]}> : () -> tensor<2x3xf32>
  %y = "ov.Parameter"() <{friendly_name = "y"}> : () -> tensor<?x3xf32>
  %c = "ov.Constant"() <{value = dense<2.0> : tensor<f32>, friendly_name = "two"}> : () -> tensor<f32>
  %n = "ov.Negative"(%x) <{friendly_name = "neg"}> : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %m = "ov.Multiply"(%c, %n) <{friendly_name = "mul"}> : (tensor<f32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  %sp = "ov.SoftPlus"(%m) <{friendly_name = "sp"}> : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %t = "ov.Tanh"(%sp) <{friendly_name = "tanh"}> : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %mish = "ov.Multiply"(%t, %m) <{friendly_name = "mish"}> : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  %n2 = "ov.Negative"(%y) <{friendly_name = "neg_y"}> : (tensor<?x3xf32>) -> tensor<?x3xf32>
  "ov.Result"(%mish) <{friendly_name = "out"}> : (tensor<2x3xf32>) -> ()
  "ov.Result"(%n2) <{friendly_name = "out_y"}> : (tensor<?x3xf32>) -> ()
}
"""


def parse(src: str = SRC):
    ctx = make_context()
    m = Parser(ctx, src).parse_module()
    m.verify()
    return ctx, m


def names(module) -> list[tuple[str, str | None]]:
    return [
        (op.OV_TYPE, op.get_friendly_name())
        for op in module.body.block.ops
        if isinstance(op, OVOp)
    ]


class ConvertNegative(MatcherPass):
    name = "test-convert-negative"

    def pattern(self):
        return wrap_type("Negative")

    def callback(self, m: Match) -> bool:
        neg = m.root
        mul = m.graph.create_node("Multiply", [neg.in_port(0).get_source(), -1])
        mul.name = neg.name
        copy_runtime_info(neg, [mul, mul.in_node(1)])
        replace_node(neg, mul)
        return True


class MishFusion(MatcherPass):
    name = "test-mish-fusion"

    def pattern(self):
        x = any_input(label="x")
        sp = wrap_type("SoftPlus", [x], consumers_count(1))
        t = wrap_type("Tanh", [sp], consumers_count(1))
        return wrap_type("Multiply", [x, t])

    def callback(self, m: Match) -> bool:
        mish = m.graph.create_node("Mish", [m["x"]])
        copy_runtime_info(m.nodes(), mish)
        mish.name = m.root.name
        replace_node(m.root, mish)
        return True


class Both(GraphRewrite):
    name = "test-both"
    matchers = (ConvertNegative, MishFusion)


# -- patterns ----------------------------------------------------------------------


def test_patterns_and_predicates():
    ctx, m = parse()
    g = Graph(m, ctx)
    node = {x.name: x for x in g.nodes()}

    def matches(pat, name):
        return match(g, pat, node[name].op) is not None

    assert matches(wrap_type("Negative"), "neg")
    assert matches(wrap_type(["Relu", "Negative"]), "neg")
    assert not matches(wrap_type("Relu"), "neg")
    assert matches(wrap_type("Negative", [any_input()]), "neg")
    assert not matches(
        wrap_type("Negative", [any_input(), any_input()]), "neg"
    )  # arity
    assert matches(wrap_type("Negative", predicate=has_static_shape()), "neg")
    assert not matches(wrap_type("Negative", predicate=has_static_shape()), "neg_y")
    assert matches(
        wrap_type("Negative", predicate=has_static_rank() & rank_equals(2)), "neg_y"
    )
    assert matches(wrap_type("Negative", predicate=shape_matches([None, 3])), "neg_y")
    assert not matches(wrap_type("Negative", predicate=shape_matches([2, 3])), "neg_y")
    assert matches(wrap_type("Negative", predicate=type_matches("f16", "f32")), "neg")
    assert not matches(wrap_type("Negative", predicate=~type_matches("f32")), "neg")
    assert matches(wrap_type("Multiply", predicate=consumers_count(2)), "mul")
    assert matches(
        wrap_type(
            "Multiply",
            predicate=consumers_count(1) | attrs_match(auto_broadcast="numpy"),
        ),
        "mul",
    )
    assert not matches(
        wrap_type("Multiply", predicate=attrs_match(auto_broadcast="none")), "mul"
    )
    assert matches(
        wrap_type("Multiply", [constant(value_matches(2.0)), any_input()]), "mul"
    )
    assert matches(
        wrap_type("Multiply", [any_input(), constant(value_matches(lambda v: v == 2))]),
        "mul",
    )
    assert not matches(
        wrap_type("Multiply", [constant(value_matches(3.0)), any_input()]), "mul"
    )
    assert matches(or_(wrap_type("Relu"), wrap_type("Negative")), "neg")
    assert matches(wrap_type("Relu") | wrap_type("Multiply"), "mul")
    # an op class selects one version
    from xmo.dialects.ov import op_class

    assert matches(wrap_type(op_class("Negative")), "neg")


def test_commutative_inputs_and_repeated_patterns():
    ctx, m = parse()
    g = Graph(m, ctx)
    mish = g.get_node_by_name("mish")
    x = any_input(label="x")
    t = wrap_type("Tanh", [wrap_type("SoftPlus", [x])], label="t")
    pat = wrap_type("Multiply", [x, t])  # written in the other order than the IR
    found = match(g, pat, mish.op)
    assert found is not None
    assert found["x"] == g.get_node_by_name("mul").out_port(0)
    assert found.node(t).name == "tanh" and found[t] == found["t"]
    assert "x" in found and "nope" not in found and found.get("nope") is None
    assert [nd.name for nd in found.nodes()] == ["mish", "tanh", "sp"]
    with pytest.raises(KeyError):
        found["nope"]
    # the repeated pattern must match the same value both times
    y = any_input()
    assert match(g, wrap_type("Multiply", [y, y]), mish.op) is None


def test_matcher_pass_runs_alone_and_reports_change():
    ctx, m = parse()
    assert ConvertNegative().run(ctx, m) is True
    assert ("Negative", "neg") not in names(m)
    assert names(m).count(("Multiply", "neg")) == 1 and ("Multiply", "neg_y") in names(
        m
    )
    m.verify()
    assert ConvertNegative().run(ctx, m) is False  # nothing left to match


def test_graph_rewrite_applies_several_matchers_in_one_traversal():
    ctx, m = parse()
    assert Both().run(ctx, m)
    assert [t for t, _ in names(m)].count("Mish") == 1
    assert ("Mish", "mish") in names(m) and ("Negative", "neg") not in names(m)
    m.verify()


def test_graph_rewrite_disabled_option_and_add_matcher():
    ctx, m = parse()
    Both(disabled=("test-mish-fusion",)).apply(ctx, m)
    assert ("Mish", "mish") not in names(m) and ("Negative", "neg") not in names(m)
    ctx, m = parse()
    r = GraphRewrite()
    r.add_matcher(MishFusion)
    assert [x.name for x in r.get_matchers()] == ["test-mish-fusion"]
    r.run(ctx, m)
    assert ("Mish", "mish") in names(m) and ("Negative", "neg") in names(m)


def test_new_ops_are_not_visited_unless_registered():
    visited = []

    class NegToNegNeg(MatcherPass):
        name = "neg-twice"

        def pattern(self):
            return wrap_type("Negative")

        def callback(self, m):
            neg = m.root
            visited.append(neg.name)
            if neg.name.endswith("/outer"):
                return False
            inner = m.graph.create_node(
                "Negative", [neg.in_port(0).get_source()], name="inner"
            )
            outer = m.graph.create_node("Negative", [inner], name=f"{neg.name}/outer")
            replace_node(neg, outer)
            m.register_new_node(outer)  # visited next; "inner" is not
            return True

    ctx, m = parse()
    assert NegToNegNeg().run(ctx, m)
    assert visited == ["neg", "neg/outer", "neg_y", "neg_y/outer"]
    assert [t for t, _ in names(m)].count("Negative") == 4
    m.verify()


def test_callback_errors_propagate_with_the_matcher_named():
    class Broken(MatcherPass):
        name = "broken"

        def pattern(self):
            return wrap_type("Negative")

        def callback(self, m):
            m.root.in_port(0).get_source().connect(
                m.root.in_port(0)
            )  # already connected
            return True

    ctx, m = parse()
    with pytest.raises(GraphError, match="already connected") as info:
        Broken().run(ctx, m)
    assert (
        "in matcher broken at 'neg' (Negative)"
        in getattr(info.value, "__notes__", [""])[0]
    )


def test_matcher_names_must_be_unique_and_patterns_real():
    class Dup(GraphRewrite):
        name = "dup"
        matchers = (ConvertNegative, ConvertNegative)

    ctx, m = parse()
    with pytest.raises(TransformationError, match="unique: test-convert-negative"):
        Dup().run(ctx, m)

    class NoPattern(MatcherPass):
        name = "no-pattern"

        def pattern(self):
            return "Negative"

    with pytest.raises(TransformationError, match="not a Pattern"):
        NoPattern().run(ctx, m)


def test_dead_ops_are_not_rewritten():
    calls = []

    class Count(MatcherPass):
        name = "count"

        def pattern(self):
            return wrap_type("Tanh")

        def callback(self, m):
            calls.append(m.root.name)
            return False

    ctx, m = parse()
    Graph(m, ctx)  # nothing changes
    g = Graph(m, ctx)
    g.get_node_by_name("mish").in_port(0).disconnect()
    g.get_node_by_name("mish").in_port(0).connect(g.get_node_by_name("mul").out_port(0))
    Count().run(ctx, m)  # the Tanh has no consumer any more
    assert calls == []


# -- ModelPass, Manager ---------------------------------------------------------------


@dataclass(frozen=True)
class ScaleParameters(ModelPass):
    """Multiply every model input by ``factor``."""

    name = "test-scale-parameters"
    factor: float = 2.0

    def run_on_model(self, graph: Graph) -> bool:
        for p in graph.parameters():
            mul = graph.create_node("Multiply", [p.out_port(0), self.factor])
            p.out_port(0).get_connection().set_source(mul.out_port(0))
        return bool(graph.parameters())


def test_model_pass():
    ctx, m = parse()
    assert ScaleParameters(3.0).run(ctx, m)
    g = Graph(m, ctx)
    neg = g.get_node_by_name("neg")
    assert neg.in_node(0).type == "Multiply"
    assert neg.in_node(0).in_port(1).data.get_value() == 3.0
    m.verify()


def test_manager_runs_passes_reinfers_and_verifies():
    class Broken(ModulePass):
        name = "test-break-types"

        def apply(self, ctx, op):
            # a raw edit that leaves types behind: the Manager infers again
            for o in op.body.block.ops:
                if o.name == "ov.Parameter" and o.get_friendly_name() == "y":
                    from xdsl.rewriter import Rewriter
                    from xmo.dialects.ov.base import tensor

                    Rewriter.replace_value_with_new_type(
                        o.results[0], tensor("f32", [5, 3])
                    )

    ctx, m = parse()
    mgr = Manager(ctx)
    mgr.register_pass(InitNodeInfo)
    mgr.register_pass(Both())
    mgr.register_pass(Broken())
    assert mgr.run_passes(m)
    g = Graph(m, ctx)
    assert g.get_node_by_name("neg_y").out_port(0).data.get_shape() == [5, 3]
    assert g.get_node_by_name("mish").get_rt_info() == {
        "fused_names": ["mish", "sp", "tanh"]
    }
    assert Manager(ctx).run_passes(m) is False


def test_manager_disables_passes_and_matchers():
    ctx, m = parse()
    mgr = Manager(ctx)
    mgr.register_pass(Both())
    mgr.register_pass(ConvertNegative())
    mgr.get_pass_config().disable(
        "test-convert-negative"
    )  # the matcher inside Both too
    assert mgr.is_disabled("test-convert-negative")
    mgr.run_passes(m)
    assert ("Negative", "neg") in names(m) and ("Mish", "mish") in names(m)
    mgr.enable("test-convert-negative")
    mgr.run_passes(m)
    assert ("Negative", "neg") not in names(m)


def test_manager_reports_the_failing_pass():
    class Corrupt(ModulePass):
        name = "test-corrupt"

        def apply(self, ctx, op):
            for o in op.body.block.ops:
                if o.name == "ov.Multiply":
                    o.properties["auto_broadcast"] = __import__(
                        "xdsl.dialects.builtin", fromlist=["StringAttr"]
                    ).StringAttr("bogus")
                    break

    ctx, m = parse()
    mgr = Manager(ctx, infer_types=False)
    mgr.register_pass(Corrupt())
    with pytest.raises(TransformationError, match="after pass test-corrupt:"):
        mgr.run_passes(m)
    with pytest.raises(TypeError, match="needs a ModulePass"):
        mgr.register_pass(object())  # type: ignore[arg-type]


def test_constant_folding_after_a_rewrite_that_creates_constants():
    class NegateConstants(MatcherPass):
        name = "test-negate-constants"

        def pattern(self):
            return wrap_type("Multiply", [constant(), any_input()])

        def callback(self, m):
            c = m.root.in_node(0)
            neg = m.graph.create_node("Negative", [c])  # a constant sub-graph
            m.root.in_port(0).disconnect()
            neg.out_port(0).connect(m.root.in_port(0))
            return True

    ctx, m = parse()
    mgr = Manager(ctx)
    mgr.register_pass(NegateConstants())
    mgr.register_pass(ConstantFolding())
    mgr.run_passes(m)
    g = Graph(m, ctx)
    mul = g.get_node_by_name("mul")
    assert mul.in_node(0).type == "Constant"
    assert np.all(mul.in_port(0).data.get_value() == -2.0)
    assert ConstantFolding().run(ctx, m) is False


def test_init_node_info_pass():
    ctx, m = parse()
    assert InitNodeInfo().run(ctx, m)
    g = Graph(m, ctx)
    assert g.get_node_by_name("tanh").get_rt_info() == {"fused_names": ["tanh"]}


# -- as ordinary passes --------------------------------------------------------------


def test_registered_for_xmo_opt(tmp_path, capsys):
    from xmo.passes import get_all_passes
    from xmo.tools.xmo_opt import main

    assert get_all_passes()["ov-init-node-info"]() is InitNodeInfo
    src = tmp_path / "m.mlir"
    src.write_text(SRC)
    assert main([str(src), "-p", "ov-init-node-info"]) == 0
    out = capsys.readouterr().out
    assert 'rt_info = {fused_names = ["tanh"]}' in out


def test_extension_passes_for_xmo_opt(tmp_path, capsys):
    from xmo.tools.xmo_opt import main

    ext = tmp_path / "ext"
    (ext / "passes").mkdir(parents=True)
    (ext / "passes" / "neg.py").write_text(
        """
from xmo.graph import replace_node
from xmo.passes.transformations import MatcherPass, wrap_type


class NegToRelu(MatcherPass):
    name = "neg-to-relu"

    def pattern(self):
        return wrap_type("Negative")

    def callback(self, m):
        r = m.graph.create_node("Relu", [m.root.in_port(0).get_source()], name=m.root.name)
        replace_node(m.root, r)
        return True
"""
    )
    src = tmp_path / "m.mlir"
    src.write_text(SRC)
    assert main([str(src), "--extensions", str(ext), "-p", "neg-to-relu"]) == 0
    out = capsys.readouterr().out
    assert '"ov.Relu"(%x) <{friendly_name = "neg"}>' in out
    assert main([str(src), "-p", "neg-to-relu"]) == 1
