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


def compile_in_openvino(model: onnx.ModelProto, tmp_path):  # noqa: ANN001, ANN201
    """``xmo.convert_model`` -> ``xmo.save_model`` -> OpenVINO CPU (f32 pinned)."""
    import openvino as ov

    import xmo

    xml = tmp_path / "m.xml"
    xmo.save_model(xmo.convert_model(model), xml)
    core = ov.Core()
    return core.compile_model(core.read_model(str(xml)), "CPU", {"INFERENCE_PRECISION_HINT": "f32"})


def ir_and_onnxruntime(model_path, ir, feeds: dict):  # noqa: ANN001, ANN201
    """(OpenVINO's output of the IR at ``ir``, CPU with f32 pinned;
    onnxruntime's of the ONNX model at ``model_path``), first outputs, for
    ``feeds``."""
    import onnxruntime as ort
    import openvino as ov

    ref = ort.InferenceSession(str(model_path), providers=["CPUExecutionProvider"]).run(None, feeds)[0]
    core = ov.Core()
    compiled = core.compile_model(core.read_model(str(ir)), "CPU", {"INFERENCE_PRECISION_HINT": "f32"})
    return compiled(list(feeds.values()))[compiled.output(0)], ref


def assert_matches(got, want, msg: str, rtol: float = 1e-4, atol: float = 1e-5) -> None:  # noqa: ANN001
    """Same shape; integers and booleans exact, floats within tolerance."""
    got, want = np.asarray(got), np.asarray(want)
    assert got.shape == want.shape, f"{msg}: shape {got.shape} != {want.shape}"
    if want.dtype.kind in "biu":
        np.testing.assert_array_equal(got.astype(want.dtype), want, err_msg=msg)
    else:
        np.testing.assert_allclose(got, want, rtol=rtol, atol=atol, err_msg=msg)
