"""ConstantOfShape of a known shape converts to the Constant that
``ov-constant-fold`` would make of its Broadcast (up to the fold guard's
1 MiB floor); an unknown shape, or a bigger result, stays a Broadcast."""

from __future__ import annotations

from collections import Counter

import numpy as np
import xmo
from onnx import TensorProto, helper, numpy_helper


def _model(shape: list[int], dynamic: bool) -> object:
    value = numpy_helper.from_array(np.asarray([0.25], dtype=np.float32))
    node = helper.make_node("ConstantOfShape", ["s"], ["c"], name="cos", value=value)
    add = helper.make_node("Add", ["x", "c"], ["y"], name="add")
    s = helper.make_tensor_value_info("s", TensorProto.INT64, [len(shape)])
    inits = [] if dynamic else [numpy_helper.from_array(np.asarray(shape, np.int64), "s")]
    graph = helper.make_graph(
        [node, add], "g",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, shape), *([s] if dynamic else [])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, shape)],
        initializer=inits,
    )
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])


def _convert(shape: list[int], dynamic: bool = False):  # noqa: ANN202
    # without constant folding: what the converter itself emits
    return xmo.convert_model(_model(shape, dynamic), disable_transforms="ov-constant-fold")


def _ops(module) -> Counter:  # noqa: ANN001
    return Counter(op.name.removeprefix("ov.") for op in module.walk())


def test_known_shape_is_a_constant() -> None:
    module = _convert([2, 3, 4])
    assert _ops(module)["Broadcast"] == 0
    c = next(op for op in module.walk() if op.name == "ov.Constant" and op.get_friendly_name() == "cos")
    assert c.get_tensor_names(0) == ["c"]
    np.testing.assert_array_equal(c.get_array(), np.full([2, 3, 4], 0.25, np.float32))
    x = np.arange(24, dtype=np.float32).reshape(2, 3, 4)
    (y,) = list(xmo.compile_model(module)({"x": x}))
    np.testing.assert_array_equal(np.asarray(y), x + 0.25)


def test_unknown_shape_stays_a_broadcast() -> None:
    assert _ops(_convert([2, 3], dynamic=True))["Broadcast"] == 1


def test_big_result_stays_a_broadcast() -> None:
    """Over 1 MiB the fold's size guard decides (an Add input: it stays an op)."""
    assert _ops(_convert([512, 1024]))["Broadcast"] == 1
    assert _ops(xmo.convert_model(_model([512, 1024], False)))["Broadcast"] == 1
