"""Weights: numpy payloads behind dense_resource, held by reference."""

from __future__ import annotations

import io

import numpy as np
import pytest
from xdsl.dialects.builtin import DenseIntOrFPElementsAttr, DenseResourceAttr, ModuleOp
from xdsl.parser import Parser
from xdsl.targets.mlir import MLIRTarget

from xmo.context import make_context, weight_store
from xmo.dialects.ov import ConstantOp, ResultOp
from xmo.dialects.ov.weights import WeightStoreError, constant_array, make_constant_attr


def _print(ctx, module) -> str:
    s = io.StringIO()
    MLIRTarget().emit(ctx, module, s)
    return s.getvalue()


def test_large_constant_is_a_resource_without_copy(ctx):
    arr = np.arange(1000, dtype=np.float32).reshape(10, 100)
    c = ConstantOp.from_array(arr, store=weight_store(ctx), name="fc/w")
    assert isinstance(c.value, DenseResourceAttr)
    view = c.get_array()
    assert view.shape == (10, 100) and view.dtype == np.float32
    assert np.shares_memory(view, arr), "the store must hold the caller's array"


def test_small_constant_is_inline(ctx):
    c = ConstantOp.from_array(np.array([1, 2, 3], np.int64), store=weight_store(ctx))
    assert isinstance(c.value, DenseIntOrFPElementsAttr)
    np.testing.assert_array_equal(c.get_array(), [1, 2, 3])


@pytest.mark.parametrize(
    "dtype", [np.float32, np.float16, np.float64, np.int8, np.uint8, np.int32, np.int64, np.bool_]
)
def test_text_round_trip_per_dtype(dtype):
    ctx = make_context()
    rng = np.random.default_rng(0)
    big = (rng.standard_normal((7, 11)) * 10).astype(dtype)
    small = big.reshape(-1)[:3].copy()
    ops = [
        ConstantOp.from_array(big, store=weight_store(ctx)),
        ConstantOp.from_array(small, store=weight_store(ctx)),
    ]
    ops += [ResultOp.new(o.results[0]) for o in list(ops)]
    m = ModuleOp(ops)
    m.verify()
    text = _print(ctx, m)
    ctx2 = make_context()
    m2 = Parser(ctx2, text).parse_module()
    m2.verify()
    consts = [o for o in m2.walk() if isinstance(o, ConstantOp)]
    np.testing.assert_array_equal(consts[0].get_array(), big)
    np.testing.assert_array_equal(consts[1].get_array(), small)
    assert _print(ctx2, m2).count("dense_resource") == 1


def test_elided_payloads_are_not_printed():
    ctx = make_context(elide_weights_larger_than=16)
    c = ConstantOp.from_array(np.zeros(100, np.float32), store=weight_store(ctx))
    text = _print(ctx, ModuleOp([c, ResultOp.new(c.results[0])]))
    assert "dense_resource<" in text and "dialect_resources" not in text


def test_handles_are_unique_across_live_contexts():
    a, b = make_context(), make_context()
    ca = ConstantOp.from_array(np.ones(100, np.float32), store=weight_store(a), name="w")
    cb = ConstantOp.from_array(np.zeros(100, np.float32), store=weight_store(b), name="w")
    assert ca.value.resource_handle != cb.value.resource_handle
    assert ca.get_array().sum() == 100 and cb.get_array().sum() == 0


def test_missing_payload_is_a_clear_error(ctx):
    text = """
    builtin.module {
      %0 = "ov.Constant"() <{value = dense_resource<nothing_here> : tensor<100xf32>}> : () -> tensor<100xf32>
    }"""
    m = Parser(ctx, text).parse_module()
    c = next(o for o in m.walk() if isinstance(o, ConstantOp))
    with pytest.raises(WeightStoreError, match="nothing_here.*no payload"):
        c.get_array()


def test_memmap_payload_stays_mapped(tmp_path, ctx):
    path = tmp_path / "w.bin"
    np.arange(4096, dtype=np.float32).tofile(path)
    mm = np.memmap(path, dtype=np.float32, mode="r")
    attr = make_constant_attr(mm, store=weight_store(ctx))
    view = constant_array(attr)
    assert np.shares_memory(view, mm)
    assert view[4095] == 4095
