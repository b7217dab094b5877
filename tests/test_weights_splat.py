"""Splat payloads: one value repeated, kept so until its bytes are needed.

ConstantOfShape weights (the onnx wheel's light models), folded spreads of
one value and batch-norm scales of such weights stay :class:`Splat` s in the
weight store; fingerprints, byte comparisons and the ``.bin`` are those of
the bytes they stand for."""

from __future__ import annotations

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper, numpy_helper

import xmo
from xmo.context import weight_store
from xmo.dialects.ov import ConstantOp
from xmo.dialects.ov.base import constant_value_of
from xmo.dialects.ov.weights import (
    Splat,
    constant_splat,
    fingerprint,
    same_bytes,
)


def _splat(value, count: int) -> Splat:
    return Splat(np.asarray(value).reshape(-1).view(np.uint8), count)


@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.int64])
@pytest.mark.parametrize("count", [3, 1000, 300_001])  # whole hash and sampled
def test_splat_has_the_fingerprint_of_its_bytes(dtype, count):
    s = _splat(dtype(1.5) if dtype != np.int64 else dtype(-7), count)
    full = s.materialize()
    assert full.nbytes == s.nbytes == count * np.dtype(dtype).itemsize
    assert fingerprint(s) == fingerprint(full)
    assert b"".join(bytes(p) for p in s.chunks(1000)) == full.tobytes()
    assert np.array_equal(s.window(5, 37), full[5:42])


def test_splat_byte_comparisons():
    zeros32, zeros64 = _splat(np.float32(0), 400), _splat(np.int64(0), 200)
    assert same_bytes(zeros32, zeros64)  # the same bytes, other element sizes
    assert same_bytes(zeros32, np.zeros(1600, np.uint8))
    other = np.zeros(1600, np.uint8)
    other[-1] = 1
    assert not same_bytes(zeros32, other)
    assert not same_bytes(_splat(np.float32(1), 400), zeros32)
    assert not same_bytes(_splat(np.float32(0), 401), zeros32)


def test_broadcast_constant_is_a_splat_until_read(ctx):
    store = weight_store(ctx)
    c = ConstantOp.from_array(np.broadcast_to(np.float32(0.25), (64, 32)), store=store)
    splat = constant_splat(c.value)
    assert splat is not None and splat.count == 64 * 32
    view = constant_value_of(c.results[0], splat_view=True)
    assert view.shape == (64, 32) and not any(view.strides)
    arr = c.get_array()  # made now, once
    assert arr.flags.c_contiguous and (arr == np.float32(0.25)).all()
    assert c.get_array() is not None and np.shares_memory(c.get_array(), arr)


def _conv_bn(scale: np.ndarray, splat_weights: bool) -> onnx.ModelProto:
    """Conv (weights by ConstantOfShape, or the same values as an initializer)
    and a BatchNormalization with ``scale``, plus a second Conv of equal
    weights (CSE: one copy in the .bin)."""
    c = len(scale)
    shape = np.array([c, 8, 3, 3], np.int64)
    nodes, inits = [], [numpy_helper.from_array(shape, "w_shape")]
    for w in ("w", "w2"):
        if splat_weights:
            nodes.append(helper.make_node(
                "ConstantOfShape", ["w_shape"], [w],
                value=numpy_helper.from_array(np.array([0.02], np.float32))))
        else:
            inits.append(numpy_helper.from_array(np.full(shape, 0.02, np.float32), w))
    for name, v in (("s", scale), ("b", np.zeros(c)), ("m", np.zeros(c)), ("v", np.ones(c))):
        inits.append(numpy_helper.from_array(np.asarray(v, np.float32), name))
    nodes += [
        helper.make_node("Conv", ["x", "w"], ["y"], pads=[1, 1, 1, 1]),
        helper.make_node("BatchNormalization", ["y", "s", "b", "m", "v"], ["z"]),
        helper.make_node("Conv", ["x2", "w2"], ["y2"], pads=[1, 1, 1, 1]),
        helper.make_node("Add", ["z", "y2"], ["out"]),
    ]
    graph = helper.make_graph(
        nodes, "g",
        [helper.make_tensor_value_info(x, TensorProto.FLOAT, [1, 8, 6, 6]) for x in ("x", "x2")],
        [helper.make_tensor_value_info("out", TensorProto.FLOAT, [1, c, 6, 6])],
        inits)
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])


def _weights(module) -> list[ConstantOp]:
    return [
        op.operands[1].owner for op in module.walk()
        if getattr(op, "OV_TYPE", None) == "Convolution"
    ]


@pytest.mark.parametrize(
    ("scale", "stays_splat"),
    [(np.full(16, 1.5), True),  # one scale: the fused weights are a splat too
     (np.linspace(0.5, 2.0, 16), False)],  # per-channel scales: made
)
def test_splat_weights_convert_to_the_same_ir(tmp_path, scale, stays_splat):
    got = xmo.convert_model(_conv_bn(scale, splat_weights=True))
    fused, plain = _weights(got)
    assert constant_splat(plain.value) is not None
    assert (constant_splat(fused.value) is not None) == stays_splat
    xmo.save_model(got, tmp_path / "splat.xml")
    want = xmo.convert_model(_conv_bn(scale, splat_weights=False))
    for f, p in zip(_weights(want), (fused, plain)):
        np.testing.assert_array_equal(f.get_array(), p.get_array())
    xmo.save_model(want, tmp_path / "dense.xml")
    assert (tmp_path / "splat.bin").read_bytes() == (tmp_path / "dense.bin").read_bytes()
