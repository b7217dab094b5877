"""The traits ov ops declare (xmo.dialects.ov.traits) and what xDSL's generic
passes make of them."""

from __future__ import annotations

from typing import ClassVar

import pytest
from xdsl.parser import Parser
from xdsl.traits import (
    Commutative,
    ConstantLike,
    MemoryEffect,
    Pure,
    is_side_effect_free,
)
from xdsl.transforms.common_subexpression_elimination import cse
from xdsl.transforms.dead_code_elimination import region_dce, would_be_trivially_dead

from xmo.context import make_context
from xmo.dialects.ov import ALL_OPS, ConstantOp
from xmo.dialects.ov.control_ops import CONTROL_OPS
from xmo.dialects.ov.base import OVOp, ov_op
from xmo.dialects.ov.traits import (
    BodyEffects,
    Elementwise,
    ElementwiseBroadcast,
    ElementwiseUnary,
    ModelInterface,
    RandomGenerator,
    Reduction,
    StateVariable,
    is_pure,
    removable_if_unused,
)

#: every op with side effects, by name
EFFECTFUL = {
    "ov.Parameter": ModelInterface,
    "ov.Result": ModelInterface,
    "ov.Assign": StateVariable,
    "ov.Assign_opset3": StateVariable,
    "ov.ReadValue": StateVariable,
    "ov.ReadValue_opset3": StateVariable,
    "ov.RandomUniform": RandomGenerator,
    "ov.Multinomial": RandomGenerator,
}


@pytest.mark.parametrize("op", ALL_OPS, ids=lambda op: op.name)
def test_pure_unless_state_random_or_graph_io(op):
    effects = op.get_traits_of_type(MemoryEffect)
    assert len(effects) == 1, f"{op.name} declares {len(effects)} effect traits"
    if op in CONTROL_OPS:  # the effects of their bodies: tests/test_ov_control.py
        assert isinstance(effects[0], BodyEffects)
    elif op.name in EFFECTFUL:
        assert not op.has_trait(Pure)
        assert not is_side_effect_free(op)
        assert not is_pure(op.create())
        assert not removable_if_unused(op.create())
        assert not would_be_trivially_dead(op)
        found = effects[0].get_effects(op)
        assert found and {type(e.resource) for e in found} == {EFFECTFUL[op.name]}
    else:
        assert op.has_trait(Pure)
        assert is_side_effect_free(op)
        assert is_pure(op.create())
        assert removable_if_unused(op.create())
        assert would_be_trivially_dead(op)


def test_effects_by_kind():
    from xdsl.traits import MemoryEffectKind as K
    from xdsl.traits import get_effects

    def kinds(name: str) -> set:
        op = next(o for o in ALL_OPS if o.name == name)
        return {e.kind for e in get_effects(op)}  # type: ignore[union-attr]

    assert kinds("ov.ReadValue") == {K.READ, K.WRITE}
    assert kinds("ov.Assign") == {K.WRITE}
    assert kinds("ov.RandomUniform") == {K.READ, K.WRITE}
    assert kinds("ov.Result") == {K.WRITE}
    assert kinds("ov.Parameter") == {K.ALLOC}


def test_constant_is_constant_like():
    assert ConstantOp.has_trait(ConstantLike)
    assert ConstantOp.has_trait(Pure)
    assert [o.name for o in ALL_OPS if o.has_trait(ConstantLike)] == ["ov.Constant"]
    c = ConstantOp.from_array(__import__("numpy").array([1.0, 2.0], "float32"))
    assert ConstantLike.get_constant_value(c.results[0]) is c.value


def _by_name(trait) -> set[str]:
    return {o.name for o in ALL_OPS if o.has_trait(trait)}


def test_commutative():
    assert _by_name(Commutative) == {
        "ov.Add", "ov.Multiply", "ov.Maximum", "ov.Minimum", "ov.Equal",
        "ov.NotEqual", "ov.LogicalAnd", "ov.LogicalOr", "ov.LogicalXor",
        "ov.Xor_opset1", "ov.SquaredDifference", "ov.BitwiseAnd", "ov.BitwiseOr",
        "ov.BitwiseXor",
    }  # fmt: skip


def test_elementwise_kinds():
    unary, broadcast = _by_name(ElementwiseUnary), _by_name(ElementwiseBroadcast)
    assert {"ov.Relu", "ov.Gelu", "ov.Gelu_opset2", "ov.Convert", "ov.Swish"} <= unary
    assert {"ov.Add", "ov.Select", "ov.FakeQuantize", "ov.Xor_opset1"} <= broadcast
    assert not unary & broadcast
    assert _by_name(Elementwise) == unary | broadcast | {"ov.PRelu"}
    assert not {"ov.Softmax", "ov.MatMul", "ov.Reshape"} & _by_name(Elementwise)
    for name in broadcast:
        op = next(o for o in ALL_OPS if o.name == name)
        assert any(s.name == "auto_broadcast" for s in op.OV_ATTRS), name


def test_reductions():
    assert _by_name(Reduction) == {
        f"ov.Reduce{n}"
        for n in ("Sum", "Mean", "Max", "Min", "Prod", "L1", "L2", "LogicalAnd", "LogicalOr")
    }


def test_an_extension_op_without_effects_is_pure():
    @ov_op
    class TraitTestOp(OVOp):
        name = "ov.TraitTest"
        OV_TYPE: ClassVar[str] = "TraitTest"
        OV_INPUTS: ClassVar[tuple[str, ...]] = ("data",)

    assert TraitTestOp.has_trait(Pure)
    assert not OVOp.__dict__.get("traits")  # the base class is left alone


STATEFUL = """
builtin.module {
  %x = "ov.Parameter"() <{friendly_name = "x"}> : () -> tensor<2xf32>
  %unused_in = "ov.Parameter"() <{friendly_name = "unused"}> : () -> tensor<2xf32>
  %s = "ov.ReadValue"(%x) <{variable_id = "v"}> : (tensor<2xf32>) -> tensor<2xf32>
  %r = "ov.ReadValue"(%x) <{variable_id = "w"}> : (tensor<2xf32>) -> tensor<2xf32>
  %a = "ov.Add"(%x, %s) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
  %as = "ov.Assign"(%a) <{variable_id = "v"}> : (tensor<2xf32>) -> tensor<2xf32>
  %shape = "ov.Constant"() <{value = dense<2> : tensor<1xi64>}> : () -> tensor<1xi64>
  %lo = "ov.Constant"() <{value = dense<0.0> : tensor<f32>}> : () -> tensor<f32>
  %hi = "ov.Constant"() <{value = dense<1.0> : tensor<f32>}> : () -> tensor<f32>
  %u1 = "ov.RandomUniform"(%shape, %lo, %hi) <{output_type = "f32"}> : (tensor<1xi64>, tensor<f32>, tensor<f32>) -> tensor<2xf32>
  %u2 = "ov.RandomUniform"(%shape, %lo, %hi) <{output_type = "f32"}> : (tensor<1xi64>, tensor<f32>, tensor<f32>) -> tensor<2xf32>
  %dead1 = "ov.Relu"(%x) : (tensor<2xf32>) -> tensor<2xf32>
  %dead2 = "ov.Tanh"(%dead1) : (tensor<2xf32>) -> tensor<2xf32>
  %t1 = "ov.Tanh"(%x) : (tensor<2xf32>) -> tensor<2xf32>
  %t2 = "ov.Tanh"(%x) : (tensor<2xf32>) -> tensor<2xf32>
  %m = "ov.Multiply"(%t1, %t2) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
  "ov.Result"(%m) : (tensor<2xf32>) -> ()
}
"""


def _parse(text: str):
    module = Parser(make_context(), text).parse_module()
    module.verify()
    return module


def _names(module) -> list[str]:
    return [o.name for o in module.body.block.ops]


def test_xdsl_dce_keeps_effects_and_removes_unused_pure_ops():
    module = _parse(STATEFUL)
    region_dce(module.body)
    module.verify()
    assert _names(module) == [
        "ov.Parameter", "ov.Parameter", "ov.ReadValue", "ov.ReadValue", "ov.Add",
        "ov.Assign", "ov.Constant", "ov.Constant", "ov.Constant",
        "ov.RandomUniform", "ov.RandomUniform",
        "ov.Tanh", "ov.Tanh", "ov.Multiply", "ov.Result",
    ]  # fmt: skip


def test_xdsl_cse_merges_pure_ops_only():
    module = _parse(STATEFUL)
    cse(module)
    region_dce(module.body)
    names = _names(module)
    assert names.count("ov.Tanh") == 1  # %t1 and %t2 merged
    assert names.count("ov.RandomUniform") == 2  # random draws never merge
    assert names.count("ov.ReadValue") == 2
    assert names.count("ov.Parameter") == 2
