"""The shared legalization driver (passes/to_ov/driver.py) and the one
converter registry (passes/to_ov/registry.py), with a third, made-up
framework: a ``fake`` dialect with two node ops (``fake.relu``, converted;
``fake.frob``, which has no converter), graph inputs and outputs, and one
hooks object. It shows what a new frontend writes -- the dialect, a
:class:`LegalizationHooks` subclass, a registry entry -- and that the
value map, poisoning, the report and the names come from the driver."""

from __future__ import annotations

import logging

import pytest
from xdsl.dialects.builtin import IndexType, ModuleOp, StringAttr, TensorType, f32
from xdsl.dialects import test as xdsl_test
from xdsl.ir import Attribute, Operation
from xdsl.irdl import IRDLOperation, irdl_op_definition, operand_def, prop_def, result_def

from xmo.context import make_context
from xmo.passes.to_ov.builder import NotConvertible, ConverterNode
from xmo.passes.to_ov.driver import LegalizationHooks, Legalizer, OpInfo, legalize
from xmo.passes.to_ov.registry import FrameworkConverters
from xmo.passes.to_ov.report import UnsupportedOpsError
from xmo.passes.to_ov.scoped import ConverterTable

# -- the fake framework: dialect, registry, hooks --------------------------------------------


@irdl_op_definition
class FakeInput(IRDLOperation):
    name = "fake.input"
    tensor = prop_def(StringAttr)
    out = result_def()


@irdl_op_definition
class FakeOutput(IRDLOperation):
    name = "fake.output"
    tensor = prop_def(StringAttr)
    value = operand_def()


@irdl_op_definition
class FakeRelu(IRDLOperation):
    name = "fake.relu"
    node_name = prop_def(StringAttr)
    x = operand_def()
    y = result_def()


@irdl_op_definition
class FakeFrob(IRDLOperation):
    name = "fake.frob"
    node_name = prop_def(StringAttr)
    x = operand_def()
    y = result_def()


#: the fake framework's part of the one registry (no domains, no versions)
FAKE = FrameworkConverters("fake-test", "Fake", versioned=False)


@FAKE.decorator(["relu"])
def relu(node: ConverterNode, b):
    x = node.input(0)
    return b.out("Maximum", [x, b.scalar_like(0.0, x)])


class FakeHooks(LegalizationHooks):
    foreign_op_problem = "not a fake graph op"

    def graph_output(self, op: Operation):
        if isinstance(op, FakeOutput):
            return op.value, op.tensor.data, [op.tensor.data]
        return None

    def convert_source(self, op: Operation, lz: Legalizer) -> bool:
        if not isinstance(op, FakeInput):
            return False
        name = op.tensor.data
        lz.parameter(op, key="graph input", name=name, tensor_names=[name], claim_name=True)
        return True

    def is_node(self, op: Operation) -> bool:
        return op.name.startswith("fake.")

    def describe(self, op: Operation, index: int) -> OpInfo:
        name = op.node_name.data  # type: ignore[attr-defined]
        op_type = op.name.removeprefix("fake.")
        return OpInfo(op_type, name, op_type, [name])

    def prepare(self, op, info, scope):
        fn = FAKE.lookup(info.op_type)
        if fn is None:
            raise NotConvertible("unknown operation")
        inputs = [scope.values.get(v) for v in op.operands]
        return fn, ConverterNode(op, inputs, info.name, info.op_type, info.output_names, scope=scope)


# -- helpers ------------------------------------------------------------------------------------

T = TensorType(f32, [2])


def _module(*ops: Operation) -> ModuleOp:
    return ModuleOp(list(ops))


def _input(name: str, t: Attribute = T) -> FakeInput:
    return FakeInput.create(properties={"tensor": StringAttr(name)}, result_types=[t])


def _node(cls, name: str, x) -> Operation:
    return cls.create(properties={"node_name": StringAttr(name)}, operands=[x.results[0]],
                      result_types=[T])


def _output(name: str, v: Operation) -> FakeOutput:
    return FakeOutput.create(properties={"tensor": StringAttr(name)}, operands=[v.results[0]])


def _ops(module: ModuleOp) -> list[Operation]:
    return list(module.body.block.ops)


# -- the driver's contract ------------------------------------------------------------------------


def test_converts_and_names(caplog):
    x = _input("x")
    r = _node(FakeRelu, "r", x)
    module = _module(x, r, _output("y", r))
    with caplog.at_level(logging.DEBUG, logger="xmo.convert"):
        legalize(module, make_context(), FakeHooks())
    p, zero, mx, res = _ops(module)
    assert [o.name for o in (p, zero, mx, res)] == ["ov.Parameter", "ov.Constant", "ov.Maximum", "ov.Result"]
    assert p.get_friendly_name() == "x" and p.get_tensor_names(0) == ["x"]
    # the op producing the node's output takes the node name; the others <node>/<Type>_<i>
    assert mx.get_friendly_name() == "r" and zero.get_friendly_name() == "r/Const_0"
    # the node's output name and the graph output's name
    assert mx.get_tensor_names(0) == ["r", "y"]
    assert res.operands[0] is mx.results[0]
    assert "relu 'r' -> 2 ov ops; outputs r: tensor<2xf32>" in caplog.text


def test_friendly_names_stay_unique():
    x = _input("x")
    a = _node(FakeRelu, "x", x)  # a node named like the input: the name is taken
    module = _module(x, a, _output("y", a))
    legalize(module, make_context(), FakeHooks())
    mx = next(o for o in _ops(module) if o.name == "ov.Maximum")
    assert mx.get_friendly_name() == "x/Maximum_1"


def test_poisoned_values_and_one_report():
    x = _input("x")
    f1 = _node(FakeFrob, "f1", x)
    after = _node(FakeRelu, "after", f1)  # depends on a failure: skipped, not reported
    f2 = _node(FakeFrob, "f2", x)
    bad = _input("i", TensorType(IndexType(), [2]))
    foreign = xdsl_test.TestOp.create(result_types=[T])
    module = _module(x, f1, after, f2, bad, foreign, _output("y", after), _output("z", f2))
    before = [o.name for o in _ops(module)]
    with pytest.raises(UnsupportedOpsError) as e:
        legalize(module, make_context(), FakeHooks())
    assert e.value.failures == {
        "frob": [("f1", "unknown operation"), ("f2", "unknown operation")],
        "graph input": [("i", "element type index has no OpenVINO equivalent")],
        "test.op": [("test.op", "not a fake graph op")],
    }
    assert str(e.value).splitlines()[:3] == [
        "List of operations that cannot be converted:",
        "  frob (2): f1, f2",
        "      reason: unknown operation",
    ]
    assert [o.name for o in _ops(module)] == before  # left untouched


def test_output_without_value_is_reported():
    x = _input("x")
    r = _node(FakeRelu, "r", x)
    module = _module(x, r, _output("y", r))

    class NoValue(FakeHooks):
        def convert_source(self, op, lz):
            if isinstance(op, FakeInput):
                lz.values[op.results[0]] = None  # an absent optional value
                return True
            return False

        def missing_output(self, op, info, index):
            return None

    FAKE_NONE = {"relu": lambda node, b: None}
    with pytest.raises(UnsupportedOpsError) as e, FAKE.using(FAKE_NONE):
        legalize(module, make_context(), NoValue())
    assert e.value.failures == {"graph output": [("y", "output has no value")]}


# -- the registry ----------------------------------------------------------------------------------


def test_collision_names_both_converters():
    def relu_again(node, b):
        return node.input(0)

    with pytest.raises(ValueError, match=r"a converter for Fake op relu is already registered: "
                                         r"relu \(.*test_legalize_driver.py:\d+\) and .*relu_again \("):
        FAKE.register(["relu"], relu_again)
    assert FAKE.lookup("relu") is relu


def test_versioned_ranges_one_rule():
    reg = FrameworkConverters("fake-versioned-test", "FakeV", versioned=True, default_domain="fake.std")

    def v1(node, b): ...
    def v5(node, b): ...
    def v9(node, b): ...

    reg.register(["Op"], v1, max_version=4)
    with pytest.raises(ValueError, match=r"converters for fake.std:Op overlap at version 4: .*v1 \(.*\) and .*v5 \("):
        reg.register(["Op"], v5, min_version=4, max_version=8)
    reg.register(["Op"], v5, min_version=5, max_version=8)
    reg.register(["Op"], v9, domain="fake.std", min_version=9)  # the default domain is ""
    assert [reg.lookup("Op", version=v) for v in (1, 4, 5, 8, 9, 100)] == [v1, v1, v5, v5, v9, v9]
    reg.register(["Late"], v9, domain="my.dom", min_version=3)
    assert reg.lookup("Late", domain="my.dom", version=2) is None  # strict: no range holds 2
    assert reg.lookup("Late", version=3) is None  # another domain
    assert reg.registered() == {("", "Op"): [(1, 4), (5, 8), (9, None)], ("my.dom", "Late"): [(3, None)]}
    assert reg.describe(reg.key("Late", "my.dom")) == "FakeV op my.dom:Late"


def test_extension_tables_are_scoped_and_checked():
    table = ConverterTable("fake-test", "my_ext")

    def frob(node, b):
        return node.input(0)

    with FAKE.capturing(table, "my_ext/front/fake/frob.py"):
        FAKE.decorator(["frob"])(frob)
        with pytest.raises(ValueError, match="a converter for Fake op relu is already built in: relu"):
            FAKE.decorator(["relu"])(frob)
    assert table == {"frob": frob} and table.source("frob") == "my_ext/front/fake/frob.py"
    assert FAKE.lookup("frob") is None  # only conversions that use the table
    with FAKE.using(table):
        assert FAKE.lookup("frob") is frob
        x = _input("x")
        f = _node(FakeFrob, "f", x)
        module = _module(x, f, _output("y", f))
        legalize(module, make_context(), FakeHooks())
    assert [o.name for o in _ops(module)] == ["ov.Parameter", "ov.Result"]
