"""CPU backend: shape sub-graphs run as one step memoized per shape signature
(backends/cpu/shapes.py)."""

from __future__ import annotations

import numpy as np
from xdsl.dialects.builtin import ModuleOp

from xmo import compile_model
from xmo.backends.cpu.shapes import ShapeBlock
from xmo.dialects.ov import ConstantOp, ParameterOp, ResultOp, op_class
from xmo.dialects.ov.base import tensor


def _reshape_by_shape(shape_out: bool = False) -> ModuleOp:
    """y = Reshape(Relu(x), [dim0(x), 2, 2]) for x: f32 [?, 4]; with
    ``shape_out`` the ShapeOf is a model output too."""
    x = ParameterOp.new("f32", [-1, 4], name="x")
    relu = op_class("Relu").make([x], {}, result_types=[tensor("f32", [-1, 4])], name="relu")
    shape = op_class("ShapeOf").make([x], {"output_type": "i64"},
                                     result_types=[tensor("i64", [2])], name="shape")
    idx = ConstantOp.from_array(np.array(0, np.int64))
    axis = ConstantOp.from_array(np.array(0, np.int64))
    dim = op_class("Gather").make([shape, idx, axis], {"batch_dims": 0},
                                  result_types=[tensor("i64", [])], name="dim")
    dim1 = op_class("Unsqueeze").make([dim, axis], {}, result_types=[tensor("i64", [1])],
                                      name="dim1")
    rest = ConstantOp.from_array(np.array([2, 2], np.int64))
    target = op_class("Concat").make([dim1, rest], {"axis": 0},
                                     result_types=[tensor("i64", [3])], name="target")
    y = op_class("Reshape").make([relu, target], {"special_zero": False},
                                 result_types=[tensor("f32", [-1, 2, 2])], name="y")
    ops = [x, relu, shape, idx, axis, dim, dim1, rest, target, y, ResultOp.new(y.results[0])]
    if shape_out:
        ops.append(ResultOp.new(shape.results[0]))
    return ModuleOp(ops)


def test_shape_subgraph_runs_once_per_signature():
    model = compile_model(_reshape_by_shape())
    kinds = [type(st.kernel).__name__ if isinstance(st.kernel, ShapeBlock) else st.node.type
             for st in model._steps]
    assert kinds == ["Relu", "ShapeBlock", "Reshape"]
    block = next(st.kernel for st in model._steps if isinstance(st.kernel, ShapeBlock))
    assert [op.get_friendly_name() for op in block.ops] == ["shape", "dim", "dim1", "target"]
    for n in (3, 5, 3):
        x = np.linspace(-1, 1, n * 4, dtype=np.float32).reshape(n, 4)
        np.testing.assert_array_equal(model([x])[0], np.maximum(x, 0).reshape(n, 2, 2))
    assert len(block.memo) == 2  # two shapes seen
    (target,) = block.memo[((3, 4),)]
    assert not target.flags.writeable and target.tolist() == [3, 2, 2]
    # the profile names the block; an observer still sees every op
    prof = model.profile([np.zeros((2, 4), np.float32)])
    assert [s.type for s in prof.steps] == ["Relu", "ShapeSubgraph", "Reshape"]
    seen: list[str] = []
    model([np.zeros((2, 4), np.float32)], observer=lambda op, outs: seen.append(
        op.get_friendly_name()))
    assert seen == ["relu", "shape", "dim", "dim1", "target", "y"]


def test_shape_op_that_is_a_model_output_stays_a_step():
    model = compile_model(_reshape_by_shape(shape_out=True))
    assert not any(isinstance(st.kernel, ShapeBlock) for st in model._steps)
    x = np.ones((2, 4), np.float32)
    out = model([x])
    assert out[1].tolist() == [2, 4] and out[0].shape == (2, 2, 2)
    out[1][0] = 7  # the caller's array, not a shared one
    assert model([x])[1].tolist() == [2, 4]


def test_shape_op_on_tensor_values_is_not_memoized():
    # Gather of the data itself (not of a shape) depends on values: no block
    x = ParameterOp.new("i64", [-1], name="x")
    shape = op_class("ShapeOf").make([x], {"output_type": "i64"},
                                     result_types=[tensor("i64", [1])], name="shape")
    idx = ConstantOp.from_array(np.array([0], np.int64))
    axis = ConstantOp.from_array(np.array(0, np.int64))
    g = op_class("Gather").make([x, idx, axis], {"batch_dims": 0},
                                result_types=[tensor("i64", [1])], name="g")
    cat = op_class("Concat").make([shape, g], {"axis": 0},
                                  result_types=[tensor("i64", [2])], name="cat")
    model = compile_model(ModuleOp([x, shape, idx, axis, g, cat, ResultOp.new(cat.results[0])]))
    assert not any(isinstance(st.kernel, ShapeBlock) for st in model._steps)
    assert model([np.array([5, 6], np.int64)])[0].tolist() == [2, 5]
    assert model([np.array([9, 6], np.int64)])[0].tolist() == [2, 9]
