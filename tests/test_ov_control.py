"""ov.Loop / ov.TensorIterator / ov.If: port maps, the body builder, effects,
shape inference (fixed points, dynamic trip counts, branch merging)."""

from __future__ import annotations

import numpy as np
import pytest
from xdsl.dialects.builtin import ArrayAttr, DictionaryAttr, IntegerAttr, ModuleOp, StringAttr, i64
from xdsl.utils.exceptions import VerifyException

from xmo.dialects.ov import (
    ConstantOp,
    IfOp,
    LoopOp,
    ParameterOp,
    ResultOp,
    TensorIteratorOp,
    op_class,
)
from xmo.dialects.ov.base import ShapeInferenceError, tensor
from xmo.dialects.ov.control_ops import body_parameters, body_results, make_body
from xmo.dialects.ov.port_map import (
    ConcatOutput,
    InputSlice,
    InvariantInput,
    LastOutput,
    MergedInput,
    PortMapError,
    inputs_from_attr,
    outputs_from_attr,
    to_attr,
)
from xmo.dialects.ov.traits import is_pure, removable_if_unused

Add = op_class("Add")
Concat = op_class("Concat")
ReadValue = op_class("ReadValue")


def test_port_map_entries_round_trip():
    ins = [InputSlice(4, 3, axis=1, start=-1, stride=-1, end=0, part_size=2),
           MergedInput(2, 1, 0), InvariantInput(3, 2)]
    outs = [ConcatOutput(2, 1, axis=0), LastOutput(1, 0)]
    assert inputs_from_attr(to_attr(ins)) == ins
    assert outputs_from_attr(to_attr(outs)) == outs
    no_back_edge = DictionaryAttr(
        {"kind": StringAttr("merged"), "external": IntegerAttr(1, i64),
         "parameter": IntegerAttr(0, i64)}
    )
    with pytest.raises(PortMapError, match="a 'merged' entry needs result"):
        inputs_from_attr(ArrayAttr([no_back_edge]))
    with pytest.raises(PortMapError, match="not one of concat, last"):
        outputs_from_attr(to_attr(ins[:1]))


def _loop(trip: int | None, carried=(2,), first=True, go_on=True):
    """Loop adding x to a carried value, concatenating it per iteration."""
    n = (ParameterOp.new("i64", [], name="n") if trip is None
         else ConstantOp.from_array(np.array(trip, np.int64)))
    cond = ConstantOp.from_array(np.array(first))
    v0 = ParameterOp.new("f32", list(carried), name="v0")
    x = ParameterOp.new("f32", [2], name="x")

    def body(i, v, xx):
        s = Add.make([v, xx])
        return [ConstantOp.from_array(np.array(go_on)), s, s]

    region = make_body(
        [tensor("i64", []), tensor("f32", list(carried)), tensor("f32", [2])], body
    )
    loop = LoopOp.new(
        n, cond, [v0, x], region, [MergedInput(2, 1, 1), InvariantInput(3, 2)],
        [LastOutput(1, 0), ConcatOutput(2, 1, axis=0)],
        body_condition_output_idx=0, current_iteration_input_idx=0,
    )
    module = ModuleOp([n, cond, v0, x, loop, *(ResultOp.new(r) for r in loop.results)])
    module.verify()
    return loop


@pytest.mark.parametrize(
    "trip, first, go_on, concat",
    [(None, True, True, "?x2"), (3, True, True, "6"), (3, False, True, "0"),
     (3, True, False, "2"), (-1, True, True, "?")],
)
def test_loop_iterations(trip, first, go_on, concat):
    loop = _loop(trip, first=first, go_on=go_on)
    want = {"?x2": [-1], "6": [6], "0": [0], "2": [2], "?": [-1]}[concat]
    assert loop.results[1].type == tensor("f32", want)
    assert loop.results[0].type == tensor("f32", [2])


def test_merged_parameter_widens_to_a_fixed_point():
    """The carried value grows every iteration: its dim becomes dynamic; a
    back edge of another rank gives a dynamic rank."""
    v0 = ParameterOp.new("f32", [1, 2])
    xs = ParameterOp.new("f32", [5, 2])
    def grow(acc_type):
        return make_body(
            [tensor("f32", [1, 2]), acc_type],
            lambda part, acc: [Concat.make([acc, part], {"axis": 0})],
        )

    ti = TensorIteratorOp.new(
        [xs, v0], grow(tensor("f32", [-1, 2])),
        [InputSlice(0, 0, axis=0), MergedInput(1, 1, 0)], [LastOutput(0, 0)],
    )
    assert ti.results[0].type == tensor("f32", [-1, 2])
    ModuleOp([v0, xs, ti, ResultOp.new(ti.results[0])]).verify()
    # the carried parameter must take every value of the fixed point
    with pytest.raises(ShapeInferenceError, match=r"body parameter 1 is tensor<1x2xf32>, "
                       r"its values are tensor<\?x2xf32>"):
        TensorIteratorOp.new(
            [xs, v0], grow(tensor("f32", [1, 2])),
            [InputSlice(0, 0, axis=0), MergedInput(1, 1, 0)], [LastOutput(0, 0)],
        )
    # back edge of another rank
    region = make_body(
        [tensor("f32", [1, 2]), tensor("f32", None)],
        lambda part, acc: [op_class("Unsqueeze").make(
            [acc, ConstantOp.from_array(np.array([0], np.int64))])],
    )
    ti = TensorIteratorOp.new(
        [xs, v0], region, [InputSlice(0, 0, axis=0), MergedInput(1, 1, 0)],
        [LastOutput(0, 0)],
    )
    assert ti.results[0].type == tensor("f32", None)


def test_tensor_iterator_counts_slices():
    xs = ParameterOp.new("f32", [7, 4])
    region = make_body([tensor("f32", [7, 2])], lambda p: [Add.make([p, p])])
    ti = TensorIteratorOp.new(
        [xs], region, [InputSlice(0, 0, axis=1, start=-1, stride=-2, end=0, part_size=2)],
        [ConcatOutput(0, 0, axis=1, part_size=2)],
    )
    assert ti.results[0].type == tensor("f32", [7, 4])


def _if(cond_value):
    c = (ParameterOp.new("boolean", [], name="c") if cond_value is None
         else ConstantOp.from_array(np.array(cond_value)))
    x = ParameterOp.new("f32", [2, 3])
    y = ParameterOp.new("f32", [4])
    then_body = make_body([tensor("f32", [2, 3])], lambda p: [p])
    else_body = make_body([tensor("f32", [4])], lambda p: [p])
    op = IfOp.new(
        c, [x, y],
        then_body, ([InvariantInput(1, 0)], [LastOutput(0, 0)]),
        else_body, ([InvariantInput(2, 0)], [LastOutput(0, 0)]),
    )
    ModuleOp([c, x, y, op, ResultOp.new(op.results[0])]).verify()
    return op


def test_if_types():
    assert _if(None).results[0].type == tensor("f32", None)  # ranks differ
    assert _if(True).results[0].type == tensor("f32", [2, 3])
    assert _if(False).results[0].type == tensor("f32", [4])


def test_body_helpers():
    loop = _loop(3)
    assert [p.results[0].type for p in body_parameters(loop.body)] == [
        tensor("i64", []), tensor("f32", [2]), tensor("f32", [2])]
    assert len(body_results(loop.body)) == 3
    outside = ParameterOp.new("f32", [2])
    with pytest.raises(VerifyException, match="outside"):
        ModuleOp([outside])
        make_body([tensor("f32", [2])], lambda p: [Add.make([p, outside])])


def test_effects_are_the_bodies():
    loop = _loop(3)
    assert is_pure(loop) and removable_if_unused(loop)
    x = ParameterOp.new("f32", [2])
    region = make_body(
        [tensor("f32", [2])],
        lambda p: [ReadValue.make([p], {"variable_id": "v"}, result_types=[p.type])],
    )
    ti_in = ParameterOp.new("f32", [3, 2])
    ti = TensorIteratorOp.new(
        [ti_in, x], make_body([tensor("f32", [1, 2]), tensor("f32", [2])],
                              lambda s, p: [Add.make([p, p])]),
        [InputSlice(0, 0, axis=0), InvariantInput(1, 1)], [LastOutput(0, 0)],
    )
    assert is_pure(ti)
    stateful = TensorIteratorOp.new(
        [ti_in, x], region, [InputSlice(0, 0, axis=0)], [LastOutput(0, 0)],
        result_types=[tensor("f32", [2])],
    )
    assert not is_pure(stateful) and not removable_if_unused(stateful)


@pytest.mark.parametrize(
    "entry, dim, n",
    [(InputSlice(0, 0, axis=0), 5, 5), (InputSlice(0, 0, 0, start=-1, stride=-1, end=0), 5, 5),
     (InputSlice(0, 0, 0, stride=2, part_size=2), 6, 3),
     (InputSlice(0, 0, 0, start=-1, stride=-2, end=0, part_size=2), 6, 3),
     (InputSlice(0, 0, 0, part_size=4), 3, 0)],
)
def test_slice_iterations(entry, dim, n):
    from xmo.dialects.ov.shape_inference.control import slice_iterations

    assert slice_iterations(entry, dim) == n

