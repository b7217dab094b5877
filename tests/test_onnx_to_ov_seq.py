"""Sequence converters (family sequence.py): small ONNX graphs whose sequences
stay inside the graph (stacked and ragged layouts, run-time positions),
converted by xmo, run in OpenVINO (CPU, f32) and compared with onnxruntime on
the same inputs. Each case is compiled once and run with several feeds."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import onnx
import pytest
import xmo
from onnx_models import assert_matches, compile_in_openvino
from onnx import TensorProto, helper

ort = pytest.importorskip("onnxruntime")
ov = pytest.importorskip("openvino")

_rng = np.random.default_rng(0)


def f32(*shape: int) -> np.ndarray:
    return _rng.standard_normal(shape).astype(np.float32)


def i64(v: Any) -> np.ndarray:
    return np.asarray(v, dtype=np.int64)


N = helper.make_node


@dataclass
class Case:
    name: str
    nodes: list[onnx.NodeProto]
    #: graph inputs with the values of the first feed
    inputs: dict[str, np.ndarray]
    outputs: list[str]
    #: further feeds: overrides of some inputs (typically positions)
    variants: list[dict[str, np.ndarray]] = field(default_factory=list)
    #: graph inputs whose dims are declared symbolic
    dynamic: tuple[str, ...] = ()

    def __str__(self) -> str:
        return self.name


def _model(c: Case) -> onnx.ModelProto:
    ins = [
        helper.make_tensor_value_info(
            n,
            helper.np_dtype_to_tensor_dtype(v.dtype),
            [f"{n}_{i}" for i in range(v.ndim)] if n in c.dynamic else list(v.shape),
        )
        for n, v in c.inputs.items()
    ]
    outs = [helper.make_empty_tensor_value_info(o) for o in c.outputs]
    graph = helper.make_graph(c.nodes, c.name, ins, outs)
    m = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 18)])
    m.ir_version = 8
    return onnx.shape_inference.infer_shapes(m, strict_mode=True)


X, Y, Z = f32(2, 3, 4), f32(1, 3, 4), f32(3, 3, 4)
P = [{"p": i64(p), "q": i64(q)} for p, q in [(0, 0), (1, 2), (-1, -1), (2, -3), (-2, 1), (-2, 2)]]

CASES = [
    # ragged along axis 0: ONNX simple/test_sequence_model1
    Case("insert_ragged_at", [
        N("SequenceEmpty", [], ["s0"]),
        N("SequenceInsert", ["s0", "x"], ["s1"]),
        N("SequenceInsert", ["s1", "y"], ["s2"]),
        N("SequenceInsert", ["s2", "z", "p"], ["s3"]),
        N("SequenceAt", ["s3", "q"], ["out"]),
        N("SequenceLength", ["s3"], ["n"]),
    ], {"x": X, "y": Y, "z": Z, "p": i64(1), "q": i64(0)}, ["out", "n"], P),
    Case("construct_ragged_erase_at", [
        N("SequenceConstruct", ["x", "y", "z"], ["s1"]),
        N("SequenceErase", ["s1", "p"], ["s2"]),
        N("SequenceAt", ["s2", "q"], ["out"]),
        N("SequenceLength", ["s2"], ["n"]),
        N("ConcatFromSequence", ["s2"], ["cat"], axis=0),
    ], {"x": X, "y": Y, "z": Z, "p": i64(1), "q": i64(0)}, ["out", "n", "cat"],
        [{"p": i64(p), "q": i64(q)} for p, q in [(0, 1), (2, -1), (-1, -2), (-3, 0)]]),
    Case("erase_last_then_insert", [
        N("SequenceConstruct", ["x", "y", "z"], ["s1"]),
        N("SequenceErase", ["s1"], ["s2"]),
        N("SequenceInsert", ["s2", "z", "p"], ["s3"]),
        N("SequenceInsert", ["s3", "y"], ["s4"]),
        N("ConcatFromSequence", ["s4"], ["cat"], axis=-3),
        N("SequenceAt", ["s4", "q"], ["out"]),
    ], {"x": X, "y": Y, "z": Z, "p": i64(0), "q": i64(0)}, ["cat", "out"], P[:5]),
    # a stacked sequence turned ragged by an insert at a run-time position
    Case("stacked_becomes_ragged", [
        N("SequenceConstruct", ["x", "x2"], ["s1"]),
        N("SequenceInsert", ["s1", "z", "p"], ["s2"]),
        N("SequenceAt", ["s2", "q"], ["out"]),
        N("ConcatFromSequence", ["s2"], ["cat"], axis=0),
    ], {"x": X, "x2": f32(2, 3, 4), "z": Z, "p": i64(1), "q": i64(1)}, ["out", "cat"],
        [{"p": i64(p), "q": i64(q)} for p, q in [(0, 0), (2, 2), (-1, -2), (-2, 0)]]),
    # ragged along axis 1
    Case("ragged_axis1", [
        N("SequenceConstruct", ["a", "b"], ["s1"]),
        N("SequenceInsert", ["s1", "c", "p"], ["s2"]),
        N("SequenceAt", ["s2", "q"], ["out"]),
        N("ConcatFromSequence", ["s2"], ["cat"], axis=1),
    ], {"a": f32(2, 3), "b": f32(2, 5), "c": f32(2, 1), "p": i64(1), "q": i64(0)}, ["out", "cat"],
        [{"p": i64(p), "q": i64(q)} for p, q in [(0, 2), (-1, -1), (2, 1)]]),
    # ragged sequence of equal shapes concatenated along another axis
    Case("ragged_equal_concat_other_axis", [
        N("SequenceConstruct", ["x", "y"], ["s1"]),
        N("SequenceErase", ["s1", "p"], ["s2"]),
        N("SequenceInsert", ["s2", "x2"], ["s3"]),
        N("ConcatFromSequence", ["s3"], ["cat"], axis=2),
        N("ConcatFromSequence", ["s3"], ["stk"], axis=-1, new_axis=1),
    ], {"x": X, "y": Y, "x2": f32(2, 3, 4), "p": i64(1)}, ["cat", "stk"]),
    # symbolic dims: kept ragged, read back as stacked
    Case("dynamic_dims", [
        N("SequenceConstruct", ["d", "e"], ["s1"]),
        N("SequenceAt", ["s1", "q"], ["out"]),
        N("ConcatFromSequence", ["s1"], ["cat"], axis=1),
        N("ConcatFromSequence", ["s1"], ["stk"], axis=0, new_axis=1),
    ], {"d": f32(2, 3), "e": f32(2, 3), "q": i64(1)}, ["out", "cat", "stk"],
        [{"q": i64(-2)}], dynamic=("d", "e")),
    Case("dynamic_ragged", [
        N("SequenceConstruct", ["d", "e"], ["s1"]),
        N("SequenceInsert", ["s1", "d", "p"], ["s2"]),
        N("SequenceAt", ["s2", "q"], ["out"]),
        N("ConcatFromSequence", ["s2"], ["cat"], axis=0),
    ], {"d": f32(2, 3), "e": f32(4, 3), "p": i64(1), "q": i64(1)}, ["out", "cat"],
        [{"p": i64(-1), "q": i64(2)}], dynamic=("d", "e")),
    # stacked: equal shapes
    Case("stacked_erase_insert", [
        N("SequenceConstruct", ["x", "x2", "x3"], ["s1"]),
        N("SequenceErase", ["s1", "p"], ["s2"]),
        N("SequenceInsert", ["s2", "x", "q"], ["s3"]),
        N("SequenceAt", ["s3", "q"], ["out"]),
        N("SequenceLength", ["s3"], ["n"]),
        N("ConcatFromSequence", ["s3"], ["cat"], axis=1),
        N("ConcatFromSequence", ["s3"], ["stk"], axis=-1, new_axis=1),
    ], {"x": X, "x2": f32(2, 3, 4), "x3": f32(2, 3, 4), "p": i64(1), "q": i64(0)},
        ["out", "n", "cat", "stk"],
        [{"p": i64(p), "q": i64(q)} for p, q in [(0, 2), (-1, -1), (2, 1)]]),
    Case("scalars", [
        N("SequenceConstruct", ["s", "t"], ["s1"]),
        N("SequenceInsert", ["s1", "s", "p"], ["s2"]),
        N("ConcatFromSequence", ["s2"], ["stk"], axis=0, new_axis=1),
        N("SequenceAt", ["s2", "q"], ["out"]),
    ], {"s": f32(), "t": f32(), "p": i64(1), "q": i64(-1)}, ["stk", "out"]),
    # SplitToSequence
    Case("split_no_sizes", [
        N("SplitToSequence", ["x"], ["s1"], axis=1, keepdims=0),
        N("SequenceAt", ["s1", "q"], ["out"]),
        N("SequenceLength", ["s1"], ["n"]),
        N("SplitToSequence", ["x"], ["s2"], axis=-1),
        N("ConcatFromSequence", ["s2"], ["cat"], axis=-1),
    ], {"x": X, "q": i64(1)}, ["out", "n", "cat"], [{"q": i64(-3)}]),
    Case("split_uneven_const", [
        N("Constant", [], ["sp"], value=helper.make_tensor("sp", TensorProto.INT64, [2], [1, 3])),
        N("SplitToSequence", ["x", "sp"], ["s1"], axis=2),
        N("SequenceAt", ["s1", "q"], ["out"]),
        N("SequenceLength", ["s1"], ["n"]),
        N("SequenceInsert", ["s1", "w", "p"], ["s2"]),
        N("ConcatFromSequence", ["s2"], ["cat"], axis=2),
    ], {"x": X, "w": f32(2, 3, 2), "p": i64(1), "q": i64(1)}, ["out", "n", "cat"],
        [{"p": i64(0), "q": i64(0)}, {"p": i64(-1), "q": i64(-1)}]),
    Case("split_runtime_sizes", [
        N("SplitToSequence", ["x", "sp"], ["s1"], axis=0),
        N("SequenceAt", ["s1", "q"], ["out"]),
        N("SequenceLength", ["s1"], ["n"]),
    ], {"x": f32(6, 2), "sp": i64([1, 2, 3]), "q": i64(2)}, ["out", "n"],
        [{"q": i64(0)}, {"q": i64(-2)}]),
    Case("split_scalar_uneven", [
        N("Constant", [], ["sp"], value=helper.make_tensor("sp", TensorProto.INT64, [], [2])),
        N("SplitToSequence", ["x", "sp"], ["s1"], axis=1),
        N("SequenceAt", ["s1", "q"], ["out"]),
        N("SequenceLength", ["s1"], ["n"]),
    ], {"x": f32(3, 5), "q": i64(-1)}, ["out", "n"], [{"q": i64(0)}, {"q": i64(1)}]),
    Case("split_scalar_runtime", [
        N("SplitToSequence", ["x", "sp"], ["s1"], axis=0),
        N("SequenceAt", ["s1", "q"], ["out"]),
        N("SequenceLength", ["s1"], ["n"]),
    ], {"x": f32(7, 2), "sp": i64(3), "q": i64(2)}, ["out", "n"],
        [{"sp": i64(7), "q": i64(0)}, {"sp": i64(2), "q": i64(-1)}]),
    Case("split_even_scalar", [
        N("Constant", [], ["sp"], value=helper.make_tensor("sp", TensorProto.INT64, [], [2])),
        N("SplitToSequence", ["x", "sp"], ["s1"], axis=-1),
        N("SequenceAt", ["s1", "q"], ["out"]),
        N("ConcatFromSequence", ["s1"], ["stk"], axis=0, new_axis=1),
    ], {"x": X, "q": i64(1)}, ["out", "stk"]),
]


@pytest.mark.parametrize("case", CASES, ids=str)
def test_against_onnxruntime(case: Case, tmp_path: Path) -> None:
    model = _model(case)
    sess = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    compiled = compile_in_openvino(model, tmp_path)
    req = compiled.create_infer_request()
    by_name = {p.get_any_name(): p for p in compiled.inputs}
    for variant in [{}, *case.variants]:
        feeds = {**case.inputs, **variant}
        want = sess.run(None, feeds)
        req.infer({by_name[n]: v for n, v in feeds.items() if n in by_name})
        assert len(compiled.outputs) == len(want)
        for i, w in enumerate(want):
            msg = f"output {case.outputs[i]} with {variant}"
            assert_matches(req.get_output_tensor(i).data, w, msg)


def test_elements_differing_in_two_dims_are_reported() -> None:
    case = Case("two_dims", [
        N("SequenceConstruct", ["a", "b"], ["s1"]),
        N("SequenceAt", ["s1", "q"], ["out"]),
    ], {"a": f32(2, 3), "b": f32(3, 4), "q": i64(0)}, ["out"])
    with pytest.raises(Exception, match="SequenceConstruct"):
        xmo.convert_model(_model(case))
