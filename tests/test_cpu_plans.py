"""Kernel plans (backends/cpu/node.py ``plan_with``): the generated run
function calls the function a kernel's plan made for the step (attributes
and constant inputs read once, no node argument) and gets what the kernel
returns step by step -- negative and out-of-range indices, shrunk slices,
lengths that do not split, integer division by zero -- errors still naming
the op."""

from __future__ import annotations

import re
import warnings
from typing import Any

import numpy as np
import pytest
from xdsl.dialects.builtin import ModuleOp

from xmo.backends.cpu import CompiledModel, KernelError
from xmo.dialects.ov import ConstantOp, ParameterOp, ResultOp, op_class
from xmo.dialects.ov import element_types as et
from xmo.dialects.ov.base import tensor


def _const(a: Any, dtype: Any = np.int64) -> ConstantOp:
    return ConstantOp.from_array(np.asarray(a, dtype))


def _model(kind: str, inputs: list[Any], out: list[tuple[str, list[int]]], dynamic: bool = False,
           **attrs: Any) -> tuple[CompiledModel, list[np.ndarray]]:
    """One op of ``kind``: arrays are parameters (``dynamic``: of unknown
    dims), ConstantOps constants."""
    ops: list[Any] = []
    feeds = []
    for v in inputs:
        if isinstance(v, ConstantOp):
            ops.append(v)
        else:
            dims = [-1] * v.ndim if dynamic else list(v.shape)
            p = ParameterOp.new(et.from_numpy(v.dtype), dims, name=f"p{len(feeds)}")
            ops.append(p)
            feeds.append(v)
    op = op_class(kind).make([o.results[0] for o in ops], attrs,
                             result_types=[tensor(e, d) for e, d in out], name="the_op")
    module = ModuleOp([*ops, op, *(ResultOp.new(r) for r in op.results)])
    return CompiledModel(module), feeds


def _same(model: CompiledModel, feeds: list[np.ndarray]) -> list[np.ndarray]:
    """Step by step, then the generated function: equal, and the step planned."""
    first = [np.array(a) for a in model(feeds)]
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no floating-point warnings either way
        second = list(model(feeds))
    for a, b in zip(first, second):
        assert a.dtype == b.dtype and a.shape == b.shape
        np.testing.assert_array_equal(a, b)
    # the planned call takes the values only (the kernel takes its node first)
    assert re.search(r"\bk\d+\((v|c)\d+", model.runner.source), model.runner.source
    return second


RNG = np.random.default_rng(7)
X = RNG.standard_normal((2, 3, 4)).astype(np.float32)

CASES = [
    pytest.param("Divide", [np.array([7, -7, 5], np.int32), np.array([2, 2, 0], np.int32)],
                 [("i32", [3])], {"m_pythondiv": False}, id="Divide-i32-by-zero"),
    pytest.param("Divide", [np.array([1.0, 0.0, -1.0], np.float32),
                            np.array([0.0, 0.0, 0.0], np.float32)],
                 [("f32", [3])], {}, id="Divide-f32-by-zero"),
    pytest.param("Power", [np.array([2, 3], np.int32), np.array([3, 2], np.int32)],
                 [("i32", [2])], {}, id="Power-i32"),
    pytest.param("Select", [np.array([[1], [0]], np.int32), X[0, :2], X[1, :2]],
                 [("f32", [2, 4])], {}, id="Select-int-cond"),
    pytest.param("Convert", [np.array([-2, 0, 3], np.int32)], [("f32", [3])],
                 {"destination_type": "f32"}, id="Convert-i32-f32"),
    pytest.param("Gather", [X, np.array([[-1, 0]], np.int64), _const(-1)], [("f32", [2, 3, 1, 2])],
                 {"batch_dims": 0}, id="Gather-negative"),
    pytest.param("Gather", [X, np.array([0, 9], np.int64), _const(1)], [("f32", [2, 2, 4])],
                 {"batch_dims": 0}, id="Gather-out-of-range-zeros"),
    pytest.param("GatherND", [X, np.array([[-1, 2], [0, -3]], np.int64)], [("f32", [2, 4])],
                 {"batch_dims": 0}, id="GatherND-negative"),
    pytest.param("GatherElements", [X, np.array([[[-1, 0, 1, 2]]] * 2, np.int64)],
                 [("f32", [2, 1, 4])], {"axis": 1}, id="GatherElements-negative"),
    pytest.param("Slice", [X, _const([3, -1]), _const([-4, -100]), _const([-1, -2]), _const([2, -2])],
                 [("f32", [2, 2, 3])], {}, id="Slice-backwards"),
    pytest.param("StridedSlice", [X, _const([1, 2, 3]), _const([2, 3, 4]), _const([1, 1, 1])],
                 [("f32", [])], {"begin_mask": [0, 0, 0], "end_mask": [0, 0, 0],
                                 "shrink_axis_mask": [1, 1, 1]}, id="StridedSlice-scalar"),
    pytest.param("StridedSlice", [X, _const([0, 0]), _const([1, 2]), _const([1, 1])],
                 [("f32", [1, 1, 3, 4])], {"begin_mask": [0, 0], "end_mask": [0, 0],
                                           "new_axis_mask": [0, 1]}, id="StridedSlice-new-axis"),
    pytest.param("Concat", [X, X[:, :1]], [("f32", [2, 4, 4])], {"axis": -2}, id="Concat"),
    pytest.param("Reshape", [X, np.array([4, -1], np.int64)], [("f32", [-1, -1])],
                 {"special_zero": False}, id="Reshape-dynamic"),
    pytest.param("ReduceMax", [np.zeros((2, 0, 3), np.float32), _const([1])], [("f32", [2, 1, 3])],
                 {"keep_dims": True}, id="ReduceMax-empty"),
    pytest.param("ReduceMean", [np.arange(6, dtype=np.int32).reshape(2, 3), _const([-1])],
                 [("i32", [2])], {"keep_dims": False}, id="ReduceMean-i32"),
    pytest.param("MVN", [X, _const([-1])], [("f32", [2, 3, 4])],
                 {"normalize_variance": True, "eps": 1e-5, "eps_mode": "inside_sqrt"}, id="MVN"),
    pytest.param("Broadcast", [X[:, :1], _const([2, 3, 4])], [("f32", [2, 3, 4])],
                 {"mode": "numpy"}, id="Broadcast"),
    pytest.param("Broadcast", [X[:, :1], _const([3, 1])], [("f32", [2, 3, 4])],
                 {"mode": "bidirectional"}, id="Broadcast-bidirectional"),
    pytest.param("Broadcast", [X[:1, :, :1], _const([2, 1, 1, 5])], [("f32", [2, 1, 3, 5])],
                 {"mode": "bidirectional"}, id="Broadcast-bidirectional-rank"),
    pytest.param("VariadicSplit", [X, _const(2), _const([1, 3])], [("f32", [2, 3, 1]),
                                                                   ("f32", [2, 3, 3])],
                 {}, id="VariadicSplit"),
    pytest.param("Split", [X, _const(-1)], [("f32", [2, 3, 2])] * 2, {"num_splits": 2},
                 id="Split"),
]


@pytest.mark.parametrize("kind,inputs,out,attrs", CASES)
def test_planned_step_matches_the_kernel(kind, inputs, out, attrs):
    model, feeds = _model(kind, inputs, out, **attrs)
    _same(model, feeds)


def test_split_lengths_that_do_not_fit_take_the_kernel():
    """Lengths summing to less than the dim: numpy's reading, as the kernel."""
    model, feeds = _model("VariadicSplit", [X, _const(2), _const([1, 2])],
                          [("f32", [2, 3, 1]), ("f32", [2, 3, 1]), ("f32", [2, 3, -1])])
    for _ in range(2):  # step by step, then the planned step's fallback to the kernel
        with pytest.raises(KernelError, match="the_op.*2 outputs, op has 3"):
            model(feeds)
    assert re.search(r"\bk\d+\(v\d+, c\d+, c\d+\)", model.runner.source)


def test_bidirectional_broadcast_that_does_not_fit_names_the_op():
    model, feeds = _model("Broadcast", [X, _const([3, 5])], [("f32", [-1, -1, -1])],
                          dynamic=True, mode="bidirectional")
    for _ in range(2):  # step by step, then the planned step
        with pytest.raises(KernelError, match="the_op"):
            model(feeds)


def test_planned_step_errors_name_the_op():
    model, _ = _model("Concat", [X, X[:, :1]], [("f32", [2, -1, 4])], dynamic=True, axis=1)
    good = [X, X[:, :1]]
    model(good)
    model(good)  # the generated function from now on
    assert re.search(r"= k\d+\(v\d+, v\d+\)", model.runner.source)
    with pytest.raises(KernelError, match=r"Concat .*'the_op'"):
        model([X, np.zeros((2, 1, 5), np.float32)])
    model, _ = _model("GatherND", [X, np.array([[0, 3]], np.int64)], [("f32", [1, 4])],
                      batch_dims=0)
    bad = [X, np.array([[0, 3]], np.int64)]
    for _ in range(2):  # step by step, then planned: both name the op
        with pytest.raises(KernelError, match=r"GatherND .*'the_op'"):
            model(bad)


def test_constants_a_plan_cannot_read_leave_the_step_to_the_kernel():
    """Bounds of different lengths: no plan; the kernel's error, named, each run."""
    model, feeds = _model("StridedSlice", [X, _const([0, 0]), _const([1]), _const([1, 1])],
                          [("f32", [-1, -1, -1])], begin_mask=[0, 0], end_mask=[0, 0])
    for _ in range(2):
        with pytest.raises(KernelError, match=r"StridedSlice .*'the_op'"):
            model(feeds)
    assert re.search(r"= k\d+\(n\d+, v\d+", model.runner.source)


def test_observer_and_profile_keep_the_kernels():
    model, feeds = _model("Gather", [X, np.array([1], np.int64), _const(0)], [("f32", [1, 3, 4])],
                          batch_dims=0)
    want = _same(model, feeds)
    seen: list[str] = []
    got = model(feeds, observer=lambda op, outs: seen.append(op.name))
    np.testing.assert_array_equal(got[0], want[0])
    assert seen == ["ov.Gather"]
    assert model.profile(feeds, runs=2).total > 0
