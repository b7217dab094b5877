"""OpenVINO IR with Loop, TensorIterator and If as OpenVINO itself writes it:
small ONNX models (onnx.helper) converted by ``openvino.convert_model`` and
saved by ``openvino.save_model``, plus a TensorIterator built with OpenVINO's
own API. Shared by the IR, CPU backend and pass tests of control flow.

:func:`write_irs` returns ``{case: (xml path, inputs)}``.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

F32 = {"INFERENCE_PRECISION_HINT": "f32"}


def _onnx_models():
    from onnx import TensorProto as T
    from onnx import helper as h

    f = T.FLOAT
    vi = h.make_tensor_value_info
    models = {}

    # If on a run-time condition, each branch reading another input
    then_g = h.make_graph([h.make_node("Add", ["x", "x"], ["t"])], "then", [], [vi("t", f, [2, 3])])
    else_g = h.make_graph([h.make_node("Mul", ["y", "x"], ["e"])], "else", [], [vi("e", f, [2, 3])])
    g = h.make_graph(
        [h.make_node("If", ["c"], ["z"], then_branch=then_g, else_branch=else_g)], "ifm",
        [vi("c", T.BOOL, []), vi("x", f, [2, 3]), vi("y", f, [2, 3])], [vi("z", f, [2, 3])],
    )
    models["if"] = (g, 13, {"c": np.array(False), "x": _data((2, 3)), "y": _data((2, 3), 1)})

    # Loop with a run-time trip count: carried value, scan output, the
    # iteration number used in the body, weights in the body
    body = h.make_graph(
        [
            h.make_node("Cast", ["i"], ["fi"], to=f),
            h.make_node("Add", ["v_in", "x"], ["a"]),
            h.make_node("Mul", ["a", "w"], ["b"]),
            h.make_node("Add", ["b", "fi"], ["v_out"]),
            h.make_node("Identity", ["cond_in"], ["cond_out"]),
            h.make_node("Mul", ["v_out", "v_out"], ["s"]),
        ],
        "body",
        [vi("i", T.INT64, []), vi("cond_in", T.BOOL, []), vi("v_in", f, [2])],
        [vi("cond_out", T.BOOL, []), vi("v_out", f, [2]), vi("s", f, [2])],
        initializer=[h.make_tensor("w", f, [2], [0.5, -1.5])],
    )
    g = h.make_graph(
        [h.make_node("Loop", ["M", "", "v0"], ["v", "vs"], body=body)], "loopm",
        [vi("M", T.INT64, []), vi("v0", f, [2]), vi("x", f, [2])],
        [vi("v", f, [2]), vi("vs", f, [None, 2])],
    )
    models["loop"] = (g, 13, {"M": np.array(4, np.int64), "v0": _data((2,)), "x": _data((2,), 2)})

    # Loop stopped by a data-dependent condition (and a large trip count)
    body = h.make_graph(
        [
            h.make_node("Add", ["v_in", "x"], ["v_out"]),
            h.make_node("ReduceSum", ["v_out"], ["total"], keepdims=0),
            h.make_node("Less", ["total", "limit"], ["cond_out"]),
        ],
        "body",
        [vi("i", T.INT64, []), vi("cond_in", T.BOOL, []), vi("v_in", f, [2])],
        [vi("cond_out", T.BOOL, []), vi("v_out", f, [2])],
        initializer=[h.make_tensor("limit", f, [], [10.0])],
    )
    g = h.make_graph(
        [h.make_node("Loop", ["M", "go", "v0"], ["v"], body=body)], "loopc",
        [vi("M", T.INT64, []), vi("go", T.BOOL, []), vi("v0", f, [2]), vi("x", f, [2])],
        [vi("v", f, [2])],
    )
    models["loop_cond"] = (g, 13, {
        "M": np.array(100, np.int64), "go": np.array(True),
        "v0": _data((2,)), "x": np.array([1.0, 0.5], np.float32)})

    # Scan: a TensorIterator with a back edge, one input read backwards
    sb = h.make_graph(
        [h.make_node("Add", ["s_in", "xi"], ["s_out"]), h.make_node("Mul", ["s_out", "yi"], ["o"])],
        "sb",
        [vi("s_in", f, [2]), vi("xi", f, [2]), vi("yi", f, [2])],
        [vi("s_out", f, [2]), vi("o", f, [2])],
    )
    g = h.make_graph(
        [h.make_node("Scan", ["s0", "xs", "ys"], ["s", "os"], body=sb, num_scan_inputs=2,
                     scan_input_directions=[0, 1])],
        "scanm",
        [vi("s0", f, [2]), vi("xs", f, [5, 2]), vi("ys", f, [5, 2])],
        [vi("s", f, [2]), vi("os", f, [5, 2])],
    )
    models["scan"] = (g, 11, {"s0": _data((2,)), "xs": _data((5, 2), 1), "ys": _data((5, 2), 2)})

    # an If inside a Loop body
    inner_then = h.make_graph([h.make_node("Add", ["v_in", "one"], ["it"])], "it", [],
                              [vi("it", f, [2])])
    inner_else = h.make_graph([h.make_node("Sub", ["v_in", "one"], ["ie"])], "ie", [],
                              [vi("ie", f, [2])])
    body = h.make_graph(
        [
            h.make_node("Mod", ["i", "two"], ["r"]),
            h.make_node("Equal", ["r", "zero"], ["even"]),
            h.make_node("If", ["even"], ["v_out"], then_branch=inner_then, else_branch=inner_else),
            h.make_node("Identity", ["cond_in"], ["cond_out"]),
        ],
        "body",
        [vi("i", T.INT64, []), vi("cond_in", T.BOOL, []), vi("v_in", f, [2])],
        [vi("cond_out", T.BOOL, []), vi("v_out", f, [2])],
        initializer=[h.make_tensor("two", T.INT64, [], [2]), h.make_tensor("zero", T.INT64, [], [0]),
                     h.make_tensor("one", f, [2], [1.0, 3.0])],
    )
    g = h.make_graph(
        [h.make_node("Loop", ["M", "", "v0"], ["v"], body=body)], "nested",
        [vi("M", T.INT64, []), vi("v0", f, [2])], [vi("v", f, [2])],
    )
    models["nested"] = (g, 13, {"M": np.array(5, np.int64), "v0": _data((2,))})
    return models


def _data(shape, seed: int = 0) -> np.ndarray:
    return np.random.default_rng(seed).standard_normal(shape).astype(np.float32)


def _tensor_iterator_model(start: int, stride: int, end: int):
    """A TensorIterator with only a sliced input (parts of 2 rows, read from
    ``start`` to ``end`` by ``stride``) and a concatenated output (no back
    edge), made with OpenVINO's API."""
    import openvino as ov
    import openvino.opset8 as ops

    x = ops.parameter([6, 2], np.float32, name="xs")
    bp = ops.parameter([2, 2], np.float32, name="bp")
    res = ops.result(ops.relu(bp))
    ti = ops.tensor_iterator()
    ti.set_body(ov.Model([res], [bp], "body"))
    ti.set_sliced_input(bp, x.output(0), start, stride, 2, end, 0)
    out = ti.get_concatenated_slices(res.output(0), 0, 2, 2, -1, 0)
    return ov.Model([out], [x], "ti"), {"xs": _data((6, 2), 3)}


def write_irs(folder: Path) -> dict[str, tuple[Path, dict[str, np.ndarray]]]:
    import onnx
    import openvino as ov
    from onnx import helper as h

    out: dict[str, tuple[Path, dict[str, np.ndarray]]] = {}
    for name, (graph, opset, inputs) in _onnx_models().items():
        path = folder / f"{name}.onnx"
        onnx.save(h.make_model(graph, opset_imports=[h.make_opsetid("", opset)]), path)
        xml = folder / f"{name}.xml"
        ov.save_model(ov.convert_model(path), xml, compress_to_fp16=False)
        out[name] = (xml, inputs)
    for name, (start, stride, end) in {"ti": (0, 2, -1), "ti_reverse": (-1, -2, 0)}.items():
        model, inputs = _tensor_iterator_model(start, stride, end)
        xml = folder / f"{name}.xml"
        ov.save_model(model, xml, compress_to_fp16=False)
        out[name] = (xml, inputs)
    return out


def run_openvino(xml: Path, inputs: dict[str, np.ndarray]) -> list[np.ndarray]:
    import openvino as ov

    compiled = ov.Core().compile_model(str(xml), "CPU", F32)
    request = compiled.create_infer_request()
    by_name = {}
    for port in compiled.inputs:
        name = port.get_names() and port.get_any_name() or port.get_node().get_friendly_name()
        by_name[port] = inputs[name]
    result = request.infer(by_name)
    return [np.asarray(result[o]) for o in compiled.outputs]


def layer_count(xml: Path) -> int:
    """Layers in the file, those inside bodies included."""
    import xml.etree.ElementTree as ET

    return len(ET.parse(xml).getroot().findall(".//layer"))
