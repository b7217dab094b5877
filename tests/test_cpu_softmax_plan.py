"""CPU backend: the planned Softmax over the last axis (kernels/activations.py
_plan_softmax: the numba row kernel called directly, rows on the pool when
large) in the generated run function, against the formula; other axes and
dtypes keep the kernel."""

from __future__ import annotations

import numpy as np
import pytest
from xdsl.dialects.builtin import ModuleOp

from xmo import compile_model
from xmo.backends.cpu.kernels import activations
from xmo.backends.cpu.kernels.rows import SPLIT_MIN, row_kernels
from xmo.backends.cpu.node import KernelNode
from xmo.dialects.ov import ParameterOp, ResultOp, op_class
from xmo.dialects.ov.base import tensor

pytestmark = pytest.mark.skipif(row_kernels() is None, reason="numba missing")


def _softmax_module(etype: str, shape: list[int], axis: int) -> ModuleOp:
    x = ParameterOp.new(etype, shape, name="x")
    sm = op_class("Softmax").make([x], {"axis": axis}, result_types=[tensor(etype, shape)], name="sm")
    return ModuleOp([x, sm, ResultOp.new(sm.results[0])])


def _ref(x: np.ndarray, axis: int) -> np.ndarray:
    e = np.exp(x.astype(np.float64) - x.max(axis=axis, keepdims=True))
    return e / e.sum(axis=axis, keepdims=True)


@pytest.mark.parametrize("etype,shape,axis", [
    ("f32", [2, 4, 12, 12], -1), ("f64", [3, 7, 33], 2), ("f32", [2, 6, 100, 130], 3),
    ("f32", [2, 4, 12, 12], 1), ("f16", [3, 5, 9], -1)])
def test_softmax_planned_last_axis(etype, shape, axis):
    dt = {"f32": np.float32, "f64": np.float64, "f16": np.float16}[etype]
    module = _softmax_module(etype, shape, axis)
    (op,) = [o for o in module.ops if o.name.startswith("ov.Softmax")]
    planned = activations._plan_softmax(KernelNode(op), (None,))
    assert (planned is not None) == (axis in (-1, len(shape) - 1) and etype != "f16")
    model = compile_model(module)
    rng = np.random.default_rng(len(shape) + axis)
    for _ in range(3):  # the step loop, then the generated run function
        x = (rng.standard_normal(shape) * 4).astype(dt)
        got = model([x])[0]
        assert got.dtype == dt
        tol = {"f32": 1e-6, "f64": 1e-13, "f16": 2e-3}[etype]
        np.testing.assert_allclose(got, _ref(x, axis), rtol=tol, atol=tol * 1e-3)
    if planned is not None:
        np.testing.assert_array_equal(planned(x), activations._softmax(KernelNode(op), x))
        assert (np.prod(shape) >= SPLIT_MIN) == (shape[-1] == 130)  # both branches covered
