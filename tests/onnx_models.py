"""Test helpers: small ONNX models for the converter family tests."""

from __future__ import annotations

import numpy as np
import onnx
from onnx import helper, numpy_helper


def single_node_model(
    name: str,
    op: str,
    opset: int,
    inputs: dict,
    consts: dict,
    attrs: dict,
    n_out: int,
    ir_version: int = 8,
) -> onnx.ModelProto:
    """One ``op`` node reading graph ``inputs`` then initializer ``consts``
    (an empty name stands for an absent optional input), outputs ``y0..``."""
    names = [*inputs, *consts]
    outs = [f"y{i}" for i in range(n_out)]
    graph = helper.make_graph(
        [helper.make_node(op, names, outs, **attrs)],
        name,
        [
            helper.make_tensor_value_info(k, helper.np_dtype_to_tensor_dtype(v.dtype), list(v.shape))
            for k, v in inputs.items()
            if k
        ],
        [helper.make_empty_tensor_value_info(o) for o in outs],
        [numpy_helper.from_array(np.asarray(v), k) for k, v in consts.items() if k],
    )
    m = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])
    m.ir_version = ir_version
    return m
