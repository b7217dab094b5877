"""Math families (elementwise.py, activations.py, reductions.py,
normalization.py, quantization.py): one-node ONNX models converted by xmo, run
in OpenVINO (CPU, f32) and compared with onnxruntime on the same inputs."""

from __future__ import annotations

from typing import Any

import numpy as np
import onnx
import pytest
from onnx import helper, numpy_helper

from onnx_models import assert_matches, compile_in_openvino, single_node_model

ort = pytest.importorskip("onnxruntime")
ov = pytest.importorskip("openvino")

_r = np.random.default_rng(7)


def _f(*shape: int) -> np.ndarray:
    return _r.standard_normal(shape).astype(np.float32)


def _u8(*shape: int) -> np.ndarray:
    return _r.integers(0, 256, shape).astype(np.uint8)


def _i8(*shape: int) -> np.ndarray:
    return _r.integers(-128, 128, shape).astype(np.int8)


_ln_x, _ln_s, _ln_b = (np.random.default_rng(17).standard_normal(s).astype(np.float32) for s in ((2, 3, 4), (4,), (4,)))

# (id, op, opset, runtime inputs, initializers, attrs, number of outputs)
# an input named "" is an absent optional input
_CASES: list[tuple[str, str, int, dict, dict, dict, int]] = [
    ("clip6", "Clip", 6, {"x": _f(3, 4)}, {}, {"min": -0.5, "max": 0.7}, 1),
    ("clip13", "Clip", 13, {"x": _f(3, 4)}, {"lo": np.float32(-0.3), "hi": np.float32(0.2)}, {}, 1),
    ("clip13_int", "Clip", 13, {"x": _r.integers(-9, 9, (5,)).astype(np.int32)},
     {"": None, "hi": np.int32(3)}, {}, 1),
    ("mod_int", "Mod", 13, {"a": np.array([-7, 7, -7, 7], np.int32), "b": np.array([3, -3, -3, 3], np.int32)},
     {}, {}, 1),
    ("fmod", "Mod", 13, {"a": _f(6), "b": _f(6)}, {}, {"fmod": 1}, 1),
    ("mod_float", "Mod", 28, {"a": _f(6), "b": _f(6)}, {}, {}, 1),
    ("shl", "BitShift", 11, {"x": np.array([1, 2, 255], np.uint8), "n": np.array([1, 3, 1], np.uint8)},
     {}, {"direction": "LEFT"}, 1),
    ("round", "Round", 11, {"x": np.array([0.5, 1.5, 2.5, -0.5, -1.5, 2.4], np.float32)}, {}, {}, 1),
    ("sin", "Sin", 7, {"x": _f(4)}, {}, {}, 1),
    ("isinf_pos", "IsInf", 10, {"x": np.array([1, np.inf, -np.inf, np.nan], np.float32)}, {},
     {"detect_negative": 0}, 1),
    ("leaky", "LeakyRelu", 16, {"x": _f(2, 5)}, {}, {"alpha": 0.3}, 1),
    ("prelu", "PRelu", 16, {"x": _f(2, 3, 4)}, {"s": _f(3, 1)}, {}, 1),
    # PRelu-7+: numpy (suffix) broadcasting of a 1-D slope, not per channel
    ("prelu9_suffix", "PRelu", 9, {"x": _f(2, 3, 4)}, {"s": _f(4)}, {}, 1),
    ("prelu16_square", "PRelu", 16, {"x": _f(2, 3, 3)}, {"s": _f(3)}, {}, 1),
    ("add7_bcast", "Add", 7, {"a": _f(2, 3, 4), "b": _f(3, 1)}, {}, {}, 1),
    ("celu", "Celu", 12, {"x": _f(7)}, {}, {"alpha": 2.0}, 1),
    ("selu", "Selu", 6, {"x": _f(7)}, {}, {}, 1),
    ("hsig", "HardSigmoid", 6, {"x": _f(7)}, {}, {"alpha": 0.3, "beta": 0.4}, 1),
    ("thr", "ThresholdedRelu", 10, {"x": _f(7)}, {}, {"alpha": 0.2}, 1),
    ("shrink", "Shrink", 9, {"x": _f(9)}, {}, {"lambd": 0.4, "bias": 0.1}, 1),
    ("gelu_tanh", "Gelu", 20, {"x": _f(9)}, {}, {"approximate": "tanh"}, 1),
    ("softmax11", "Softmax", 11, {"x": _f(2, 3, 4)}, {}, {"axis": 1}, 1),
    ("logsoftmax13", "LogSoftmax", 13, {"x": _f(2, 3, 4)}, {}, {"axis": 1}, 1),
    ("hardmax13", "Hardmax", 13, {"x": _f(2, 3, 4)}, {}, {"axis": 1}, 1),
    ("hardmax11", "Hardmax", 11, {"x": _f(2, 3, 4)}, {}, {"axis": 1}, 1),
    ("rsum13", "ReduceSum", 13, {"x": _f(2, 3, 4)}, {"axes": np.array([-1, 0], np.int64)},
     {"keepdims": 0}, 1),
    ("rsum_rt_axes", "ReduceSum", 13, {"x": _f(2, 3, 4), "axes": np.array([2, 0], np.int64)}, {},
     {"keepdims": 0}, 1),
    ("rmax11", "ReduceMax", 11, {"x": _f(2, 3, 4)}, {}, {"axes": [1]}, 1),
    ("rl2", "ReduceL2", 18, {"x": _f(2, 3, 4)}, {}, {}, 1),
    ("rlse", "ReduceLogSumExp", 13, {"x": _f(2, 3)}, {}, {"axes": [1], "keepdims": 0}, 1),
    ("rsq_noop", "ReduceSumSquare", 18, {"x": _f(2, 3)}, {}, {"noop_with_empty_axes": 1}, 1),
    ("argmax_last", "ArgMax", 13, {"x": np.array([[1, 3, 3], [2, 2, 0]], np.float32)}, {},
     {"axis": 1, "select_last_index": 1, "keepdims": 0}, 1),
    ("argmin", "ArgMin", 13, {"x": _f(3, 4)}, {}, {"axis": 0}, 1),
    ("cumsum_ex_rev", "CumSum", 14, {"x": _f(3, 4)}, {"axis": np.array(1, np.int64)},
     {"exclusive": 1, "reverse": 1}, 1),
    ("topk_min", "TopK", 11, {"x": _f(3, 5)}, {"k": np.array([2], np.int64)}, {"largest": 0}, 2),
    ("bn", "BatchNormalization", 15, {"x": _f(2, 3, 4)},
     {"s": _f(3), "b": _f(3), "m": _f(3), "v": np.abs(_f(3)) + 0.1}, {}, 1),
    ("inorm", "InstanceNormalization", 6, {"x": _f(2, 3, 4, 5)}, {"s": _f(3), "b": _f(3)}, {}, 1),
    ("lnorm", "LayerNormalization", 17, {"x": _f(2, 3, 4)}, {"s": _f(3, 4), "b": _f(3, 4)},
     {"axis": 1}, 3),
    # (inputs of its own generator: the cases after it keep their draws)
    ("lnorm_y", "LayerNormalization", 17, {"x": _ln_x}, {"s": _ln_s, "b": _ln_b}, {}, 1),
    ("gnorm18", "GroupNormalization", 18, {"x": _f(2, 4, 3)}, {"s": _f(2), "b": _f(2)},
     {"num_groups": 2}, 1),
    ("lp1", "LpNormalization", 1, {"x": _f(3, 4)}, {}, {"p": 1, "axis": 0}, 1),
    ("mvn", "MeanVarianceNormalization", 13, {"x": _f(2, 3, 4)}, {}, {"axes": [0, 2]}, 1),
    ("lrn", "LRN", 13, {"x": _f(1, 5, 3, 3)}, {}, {"size": 3, "alpha": 0.01}, 1),
    ("q_axis", "QuantizeLinear", 13, {"x": _f(2, 3) * 10},
     {"s": np.array([0.1, 0.2, 0.3], np.float32), "z": np.array([1, 128, 250], np.uint8)}, {}, 1),
    ("dq_i8", "DequantizeLinear", 13, {"x": _i8(4, 3)},
     {"s": np.float32(0.05), "z": np.int8(-3)}, {}, 1),
    ("dyn_q", "DynamicQuantizeLinear", 11, {"x": _f(3, 4)}, {}, {}, 3),
    ("mmint", "MatMulInteger", 10, {"a": _u8(3, 4), "b": _u8(4, 2)},
     {"az": np.uint8(12), "bz": np.array([3, 200], np.uint8)}, {}, 1),
    ("qlmm", "QLinearMatMul", 10, {"a": _u8(2, 4)},
     {"as": np.float32(0.02), "az": np.uint8(120), "b": _u8(4, 3), "bs": np.float32(0.01),
      "bz": np.uint8(130), "ys": np.float32(0.05), "yz": np.uint8(100)}, {}, 1),
    ("convint", "ConvInteger", 10, {"x": _u8(1, 2, 5, 5)},
     {"w": _u8(3, 2, 3, 3), "xz": np.uint8(100), "wz": np.uint8(120)}, {"pads": [1, 1, 1, 1]}, 1),
    ("qlconv", "QLinearConv", 10, {"x": _u8(1, 2, 5, 5)},
     {"xs": np.float32(0.02), "xz": np.uint8(128), "w": _i8(3, 2, 3, 3),
      "ws": np.array([0.01, 0.02, 0.03], np.float32), "wz": np.zeros(3, np.int8),
      "ys": np.float32(0.1), "yz": np.uint8(110), "bias": np.array([10, -20, 30], np.int32)},
     {"strides": [2, 2]}, 1),
]  # fmt: skip


def _model(name: str, op: str, opset: int, inputs: dict, consts: dict, attrs: dict, n_out: int):
    m = single_node_model(name, op, opset, inputs, consts, attrs, n_out, ir_version=8)
    return onnx.shape_inference.infer_shapes(m)


@pytest.mark.parametrize("case", _CASES, ids=[c[0] for c in _CASES])
def test_math_op_matches_onnxruntime(case: tuple[Any, ...], tmp_path) -> None:  # noqa: ANN001
    name, op, opset, inputs, consts, attrs, n_out = case
    model = _model(*case)
    feeds = {k: np.asarray(v) for k, v in inputs.items()}
    want = ort.InferenceSession(model.SerializeToString()).run(None, feeds)
    compiled = compile_in_openvino(model, tmp_path)
    res = compiled(list(feeds.values()))
    for i, w in enumerate(want[:n_out]):
        assert_matches(res[compiled.outputs[i]], w, name)


@pytest.mark.parametrize("n_out", [1, 3])
def test_layer_norm_is_mvn_unless_its_statistics_are_read(n_out: int) -> None:
    """LayerNormalization -> MVN + Multiply + Add (as OpenVINO's frontend);
    the decomposition when the Mean / InvStdDev outputs are used."""
    import xmo

    model = _model("ln", "LayerNormalization", 17, {"x": _f(2, 3, 4)}, {"s": _f(4), "b": _f(4)}, {}, n_out)
    ops = [o.name for o in xmo.convert_model(model).body.block.ops]
    assert ("ov.MVN" in ops) == (n_out == 1)
    assert ("ov.ReduceMean" in ops) == (n_out == 3)


# Opsets onnxruntime does not implement (Add-6, PRelu-6, ...) and models its
# shape inference rejects: compared with a numpy reference instead.
# (id, op, opset, inputs, initializers, attrs, numpy reference)
_a4, _b34 = _f(2, 3, 4, 5), _f(3, 4)
_p6, _s3 = _f(2, 3, 4, 5), _f(3)
_NUMPY_CASES: list[tuple[str, str, int, dict, dict, dict, Any]] = [
    ("add6_axis1", "Add", 6, {"a": _a4, "b": _b34}, {}, {"broadcast": 1, "axis": 1},
     lambda a, b: a + b[:, :, None]),
    ("sub6_suffix", "Sub", 6, {"a": _f(2, 3, 4)}, {"b": _f(3, 4)}, {"broadcast": 1},
     lambda a, b: a - b),
    ("mul6_axis0", "Mul", 6, {"a": _f(2, 3, 4)}, {"b": _f(2)}, {"broadcast": 1, "axis": 0},
     lambda a, b: a * b[:, None, None]),
    ("div6_size1_axis0", "Div", 6, {"a": _f(2, 3), "b": _f(2, 1) + 3}, {},
     {"broadcast": 1, "axis": 0}, lambda a, b: a / b),
    ("add6_scalar", "Add", 6, {"a": _f(2, 3)}, {"b": np.float32(1.5)}, {"broadcast": 1},
     lambda a, b: a + b),
    ("add6_neg_axis", "Add", 6, {"a": _f(2, 3, 4)}, {"b": _f(3)}, {"broadcast": 1, "axis": -2},
     lambda a, b: a + b[:, None]),
    ("pow1_axis1", "Pow", 1, {"a": np.abs(_f(2, 3, 4)) + 0.5}, {"b": _f(3)},
     {"broadcast": 1, "axis": 1}, lambda a, b: a ** b[:, None]),
    ("less1_axis1", "Less", 1, {"a": _f(2, 3, 4)}, {"b": _f(3)}, {"broadcast": 1, "axis": 1},
     lambda a, b: a < b[:, None]),
    ("add6_no_broadcast", "Add", 6, {"a": _f(2, 3), "b": _f(2, 3)}, {}, {}, lambda a, b: a + b),
    # PRelu-1/6: a 1-D slope is per channel (axis 1), even when it matches the last dim
    ("prelu6_chan4d", "PRelu", 6, {"x": _p6}, {"s": _s3}, {},
     lambda x, s: np.where(x < 0, x * s[:, None, None], x)),
    ("prelu6_chan_square", "PRelu", 6, {"x": _f(2, 3, 3)}, {"s": _s3}, {},
     lambda x, s: np.where(x < 0, x * s[:, None], x)),
    ("prelu6_shared", "PRelu", 6, {"x": _f(2, 3, 4)}, {"s": np.array([0.25], np.float32)}, {},
     lambda x, s: np.where(x < 0, x * s, x)),
    # PRelu-16 with a [C] slope that cannot broadcast numpy-wise: per channel
    ("prelu16_chan_fallback", "PRelu", 16, {"x": _f(2, 3, 4)}, {"s": _s3}, {},
     lambda x, s: np.where(x < 0, x * s[:, None], x)),
]  # fmt: skip


@pytest.mark.parametrize("case", _NUMPY_CASES, ids=[c[0] for c in _NUMPY_CASES])
def test_math_op_matches_numpy(case: tuple[Any, ...], tmp_path) -> None:  # noqa: ANN001
    name, op, opset, inputs, consts, attrs, ref = case
    graph = helper.make_graph(
        [helper.make_node(op, [*inputs, *consts], ["y"], **attrs)],
        name,
        [
            helper.make_tensor_value_info(k, helper.np_dtype_to_tensor_dtype(v.dtype), list(v.shape))
            for k, v in inputs.items()
        ],
        [helper.make_empty_tensor_value_info("y")],
        [numpy_helper.from_array(np.asarray(v), k) for k, v in consts.items()],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])
    model.ir_version = 8
    want = ref(*[np.asarray(v) for v in [*inputs.values(), *consts.values()]])
    compiled = compile_in_openvino(model, tmp_path)
    got = compiled([np.asarray(v) for v in inputs.values()])[compiled.outputs[0]]
    assert_matches(got, want, name)
