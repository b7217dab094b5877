"""Shape, indexing and loss converters (families shape.py, indexing.py,
losses.py): small ONNX models converted by xmo, run in OpenVINO (CPU, f32) and
compared with onnxruntime on the same inputs."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import onnx
import pytest
import xmo
from onnx_models import assert_matches, compile_in_openvino
from onnx import TensorProto, helper, numpy_helper

ort = pytest.importorskip("onnxruntime")
ov = pytest.importorskip("openvino")

_rng = np.random.default_rng(0)


def f32(*shape: int) -> np.ndarray:
    return _rng.standard_normal(shape).astype(np.float32)


def i64(values: Any) -> np.ndarray:
    return np.asarray(values, dtype=np.int64)


@dataclass
class Case:
    name: str
    op: str
    inputs: dict[str, np.ndarray]  # graph inputs (fed at run time)
    consts: dict[str, np.ndarray] = field(default_factory=dict)  # initializers
    attrs: dict[str, Any] = field(default_factory=dict)
    order: list[str] | None = None  # node input names ("" = absent)
    outputs: int = 1
    opset: int = 18
    #: numpy reference for ops onnxruntime lacks (inputs -> outputs)
    reference: Any = None
    #: declare graph input dims as symbolic (dynamic) instead of static
    dynamic: bool = False

    def __str__(self) -> str:
        return self.name


def _model(c: Case) -> onnx.ModelProto:
    names = c.order if c.order is not None else [*c.inputs, *c.consts]
    outs = [f"y{i}" for i in range(c.outputs)]
    node = helper.make_node(c.op, names, outs, **c.attrs)
    graph = helper.make_graph(
        [node],
        c.name,
        [
            helper.make_tensor_value_info(
                n,
                helper.np_dtype_to_tensor_dtype(v.dtype),
                [f"{n}{i}" for i in range(v.ndim)] if c.dynamic else list(v.shape),
            )
            for n, v in c.inputs.items()
        ],
        [helper.make_empty_tensor_value_info(o) for o in outs],
        [numpy_helper.from_array(v, n) for n, v in c.consts.items()],
    )
    m = helper.make_model(graph, opset_imports=[helper.make_opsetid("", c.opset)])
    m.ir_version = 8
    return onnx.shape_inference.infer_shapes(m, strict_mode=True)


_F32_EDGES = np.concatenate([
    np.asarray([0.0, -0.0, 1.0, -2.5, 3.75, np.inf, -np.inf, np.nan, 1e-45, -3e-39, 1.1754942e-38,
                1.17549435e-38, 3.4028235e38, -3.4028235e38, 0.1, 1 / 3, 16777217.0, 2.0**-126,
                2.0**127, 1.9999999], np.float32),
    (_rng.standard_normal(64) * 10.0 ** _rng.integers(-30, 30, 64)).astype(np.float32),
])


def _tensor_scatter_ref(cache, update, wi, axis, circular):
    out = cache.copy()
    axis %= cache.ndim
    for prefix in np.ndindex(cache.shape[:axis]):
        for s in range(update.shape[axis]):
            j = wi[prefix[0]] + s
            if circular:
                j %= cache.shape[axis]
            out[(*prefix, j)] = update[(*prefix, s)]
    return out


CASES = [
    # -- shape.py ----------------------------------------------------------------
    Case("reshape_zero_neg", "Reshape", {"x": f32(2, 3, 4)}, {"s": i64([0, -1])}),
    Case("reshape_allowzero", "Reshape", {"x": f32(2, 0, 4)}, {"s": i64([0, 8])},
         attrs={"allowzero": 1}),
    Case("reshape_dynamic_shape", "Reshape", {"x": f32(2, 3, 4), "s": i64([4, 0, -1])}),
    Case("flatten_axis2", "Flatten", {"x": f32(2, 3, 4, 5)}, attrs={"axis": 2}),
    Case("flatten_neg_axis", "Flatten", {"x": f32(2, 3, 4)}, attrs={"axis": -3}),
    Case("transpose_default", "Transpose", {"x": f32(2, 3, 4)}),
    Case("transpose_perm", "Transpose", {"x": f32(2, 3, 4)}, attrs={"perm": [1, 2, 0]}),
    Case("squeeze_v11_attr", "Squeeze", {"x": f32(1, 3, 1)}, attrs={"axes": [-1]}, opset=11),
    Case("squeeze_all", "Squeeze", {"x": f32(1, 3, 1)}),
    Case("squeeze_input", "Squeeze", {"x": f32(1, 3, 1)}, {"a": i64([0])}),
    Case("unsqueeze_v11_attr", "Unsqueeze", {"x": f32(3, 4)}, attrs={"axes": [0, -1]}, opset=11),
    Case("unsqueeze_dynamic_axes", "Unsqueeze", {"x": f32(3, 4), "a": i64([-1, 1])}),
    Case("concat_neg", "Concat", {"a": f32(2, 3), "b": f32(2, 1)}, attrs={"axis": -1}),
    Case("split_attr_v11", "Split", {"x": f32(6, 2)}, attrs={"split": [1, 5]}, outputs=2,
         opset=11),
    Case("split_input", "Split", {"x": f32(2, 7)}, {"s": i64([3, 4])}, attrs={"axis": 1},
         outputs=2),
    Case("split_equal", "Split", {"x": f32(6, 2)}, outputs=3, opset=13),
    Case("split_num_outputs_uneven", "Split", {"x": f32(7, 2)},
         attrs={"num_outputs": 3}, outputs=3),
    Case("shape_start_end", "Shape", {"x": f32(2, 3, 4, 5)}, attrs={"start": 1, "end": -1}),
    Case("size", "Size", {"x": f32(2, 3, 4)}),
    Case("expand_bidir", "Expand", {"x": f32(3, 1)}, {"s": i64([2, 1, 4])}),
    Case("tile_const", "Tile", {"x": f32(2, 3)}, {"r": i64([2, 1])}),
    Case("tile_dynamic", "Tile", {"x": f32(2, 3), "r": i64([1, 3])}),
    Case("constantofshape_int", "ConstantOfShape", {}, {"s": i64([2, 3])},
         attrs={"value": numpy_helper.from_array(np.asarray([7], dtype=np.int32))}),
    Case("constantofshape_default", "ConstantOfShape", {"s": i64([3])}),
    Case("range_float", "Range", {"a": np.float32(1.5), "b": np.float32(7),
                                  "d": np.float32(0.5)}),
    Case("range_int_neg", "Range", {}, {"a": i64(10), "b": i64(2), "d": i64(-3)}),
    Case("eyelike_k", "EyeLike", {"x": f32(3, 5)}, attrs={"k": 1}),
    Case("eyelike_dtype", "EyeLike", {"x": f32(4, 3)},
         attrs={"k": -1, "dtype": TensorProto.INT32}),
    Case("dropout_mask", "Dropout", {"x": f32(2, 3)}, outputs=2),
    Case("bitcast_u16_i16", "BitCast", {"x": np.asarray([0, 65535, 32768], np.uint16)},
         attrs={"to": TensorProto.INT16}, opset=26,
         reference=lambda x: [x.view(np.int16)]),
    Case("bitcast_i8_u8", "BitCast", {"x": np.asarray([-1, 127, -128], np.int8)},
         attrs={"to": TensorProto.UINT8}, opset=26, reference=lambda x: [x.view(np.uint8)]),
    Case("bitcast_i32_f32_edges", "BitCast", {"x": _F32_EDGES.view(np.int32)},
         attrs={"to": TensorProto.FLOAT}, opset=26, reference=lambda x: [x.view(np.float32)]),
    # -- indexing.py ----------------------------------------------------------------
    Case("gather_neg", "Gather", {"x": f32(5, 3)}, {"i": i64([[-1, 0], [2, -5]])}),
    Case("gather_axis1_dyn", "Gather", {"x": f32(2, 5), "i": i64([4, -2])}, attrs={"axis": 1}),
    Case("gather_elements_neg", "GatherElements", {"x": f32(3, 3), "i": i64([[-1, 0], [1, -3]])},
         attrs={"axis": 1}),
    Case("gathernd_batch", "GatherND", {"x": f32(2, 3, 4), "i": i64([[[1, 2]], [[2, 3]]])},
         attrs={"batch_dims": 1}),
    Case("scatter_elements_add", "ScatterElements",
         {"x": f32(3, 4), "i": i64([[1, 1], [-1, 0]]), "u": f32(2, 2)},
         attrs={"axis": 1, "reduction": "add"}),
    Case("scatter_elements_max", "ScatterElements",
         {"x": f32(3, 4), "i": i64([[1, 1], [2, 0]]), "u": f32(2, 2)},
         attrs={"axis": 0, "reduction": "max"}),
    Case("scatter_v9", "Scatter", {"x": f32(3, 3), "i": i64([[1, 0, 2]]), "u": f32(1, 3)},
         opset=9),
    Case("scatternd_mul", "ScatterND", {"x": f32(4, 3), "i": i64([[1], [3], [1]]), "u": f32(3, 3)},
         attrs={"reduction": "mul"}),
    Case("slice_v1_attrs", "Slice", {"x": f32(4, 6)},
         attrs={"starts": [1, -4], "ends": [1000, -1], "axes": [0, 1]}, opset=9),
    Case("slice_neg_step", "Slice", {"x": f32(5, 6)},
         {"s": i64([-1, 4]), "e": i64([-2**63, 0]), "a": i64([0, -1]), "st": i64([-2, -1])}),
    Case("slice_dyn_no_steps", "Slice", {"x": f32(5, 6), "s": i64([1]), "e": i64([2**63 - 1])}),
    Case("pad_v2_reflect", "Pad", {"x": f32(3, 4)}, attrs={"pads": [1, 2, 1, 0], "mode": "reflect"},
         opset=2),
    Case("pad_constant_value", "Pad", {"x": f32(2, 3)},
         {"p": i64([0, 1, 2, 0]), "v": np.asarray(1.5, np.float32)}),
    Case("pad_axes_edge", "Pad", {"x": f32(2, 3, 4)}, {"p": i64([1, 2, 0, 1]), "a": i64([-1, 0])},
         attrs={"mode": "edge"}, order=["x", "p", "", "a"]),
    Case("pad_negative", "Pad", {"x": f32(4, 5)}, {"p": i64([-1, 1, 0, -2])}),
    Case("pad_wrap", "Pad", {"x": f32(2, 3)}, {"p": i64([1, 4, 2, 1])}, attrs={"mode": "wrap"},
         opset=19),
    Case("trilu_lower_k", "Trilu", {"x": f32(2, 4, 5)}, {"k": i64(1)}, attrs={"upper": 0}),
    Case("trilu_upper", "Trilu", {"x": f32(4, 3)}),
    Case("onehot_axis", "OneHot", {"i": i64([[0, -1], [5, 2]])},
         {"d": np.asarray(4, np.float32), "v": np.asarray([0, 3], np.float32)},
         attrs={"axis": 1}),
    Case("nonzero", "NonZero", {"x": np.asarray([[1, 0], [0, 3]], np.float32)}),
    Case("compress_axis", "Compress", {"x": f32(3, 2), "c": np.asarray([True, False, True])},
         attrs={"axis": 0}),
    Case("compress_flat_short", "Compress", {"x": f32(2, 3), "c": np.asarray([False, True])}),
    Case("reversesequence", "ReverseSequence", {"x": f32(4, 3, 2), "l": i64([1, 4, 3])},
         attrs={"batch_axis": 1, "time_axis": 0}),
    Case("unique_sorted", "Unique", {"x": np.asarray([2, 1, 1, 3, 4, 3], np.float32)},
         outputs=4),
    Case("unique_unsorted_axis", "Unique",
         {"x": np.asarray([[1, 0, 0], [1, 0, 0], [2, 3, 4]], np.float32)},
         attrs={"sorted": 0, "axis": 0}, outputs=4),
    Case("det_batched_3x3", "Det", {"x": f32(2, 3, 3)}),
    Case("det_4x4", "Det", {"x": f32(4, 4)}),
    # -- dynamic input shapes ---------------------------------------------------------
    Case("dyn_flatten", "Flatten", {"x": f32(2, 3, 4)}, attrs={"axis": 2}, dynamic=True),
    Case("dyn_split_uneven", "Split", {"x": f32(2, 7)}, attrs={"num_outputs": 3, "axis": 1},
         outputs=3, dynamic=True),
    Case("dyn_reshape", "Reshape", {"x": f32(2, 3, 4)}, {"s": i64([0, -1])}, dynamic=True),
    Case("dyn_transpose", "Transpose", {"x": f32(2, 3, 4)}, dynamic=True),
    Case("dyn_gather_elements", "GatherElements", {"x": f32(3, 4), "i": i64([[0, -1], [2, 1]])},
         attrs={"axis": 1}, dynamic=True),
    Case("dyn_pad_wrap", "Pad", {"x": f32(3, 4), "p": i64([1, 2, 2, 3])}, attrs={"mode": "wrap"},
         opset=19, dynamic=True),
    Case("dyn_trilu", "Trilu", {"x": f32(2, 3, 5)}, attrs={"upper": 1}, dynamic=True),
    Case("dyn_eyelike", "EyeLike", {"x": f32(3, 4)}, attrs={"k": 2}, dynamic=True),
    Case("dyn_tensorscatter", "TensorScatter",
         {"c": f32(2, 3, 6, 4), "u": f32(2, 3, 2, 4), "w": i64([5, 1])},
         attrs={"mode": "circular"}, opset=24, dynamic=True,
         reference=lambda c, u, w: [_tensor_scatter_ref(c, u, w, -2, True)]),
    Case("dyn_nll_weight_ii", "NegativeLogLikelihoodLoss",
         {"x": f32(4, 3), "t": i64([0, 2, 1, 2]), "w": f32(3)}, attrs={"ignore_index": 2},
         dynamic=True),
    # -- losses.py ----------------------------------------------------------------
    Case("nll_mean_weight_ii", "NegativeLogLikelihoodLoss",
         {"x": f32(3, 5, 2), "t": i64([[0, 4], [1, -1], [4, 2]]), "w": f32(5)},
         attrs={"ignore_index": -1}),
    Case("nll_none", "NegativeLogLikelihoodLoss", {"x": f32(3, 5), "t": i64([0, 4, 2])},
         attrs={"reduction": "none"}),
    Case("nll_sum_ii", "NegativeLogLikelihoodLoss", {"x": f32(2, 3, 2),
                                                     "t": i64([[2, 1], [1, 1]])},
         attrs={"reduction": "sum", "ignore_index": 1}),
    Case("sce_mean_log_prob", "SoftmaxCrossEntropyLoss", {"x": f32(3, 4), "t": i64([0, 3, 1])},
         outputs=2),
    Case("sce_none_weight_ii", "SoftmaxCrossEntropyLoss",
         {"x": f32(2, 4, 3), "t": i64([[0, 3, 2], [2, 2, 1]]), "w": f32(4)},
         attrs={"reduction": "none", "ignore_index": 2}),
]


@pytest.mark.parametrize("case", CASES, ids=str)
def test_against_onnxruntime(case: Case, tmp_path: Path) -> None:
    model = _model(case)
    feeds = {n: np.asarray(v) for n, v in case.inputs.items()}
    if case.reference is not None:
        want = case.reference(*feeds.values())
    else:
        sess = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
        want = sess.run(None, feeds)

    compiled = compile_in_openvino(model, tmp_path)
    req = compiled.create_infer_request()
    by_name = {p.get_any_name(): p for p in compiled.inputs}
    req.infer({by_name[n]: v for n, v in feeds.items()})
    assert len(compiled.outputs) == len(want)
    for i, w in enumerate(want):
        assert_matches(req.get_output_tensor(i).data, w, f"output {i}")


def test_det_too_large_is_reported() -> None:
    case = Case("det_big", "Det", {"x": f32(8, 8)})
    with pytest.raises(Exception, match="Det"):
        xmo.convert_model(_model(case))
