"""Many nodes at a small scale: the chain and wide graphs of
``xmo.tools.make_large_models`` (about 300 nodes) are valid ONNX, convert,
compute what onnxruntime computes in OpenVINO, and give an IR without blow-up.

The 5k / 50k-node versions against ``ovc`` are ``benchmarks/bench_convert_scale.py``."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from collections import Counter

import numpy as np
import pytest
from onnx_models import ir_and_onnxruntime
from xmo.tools.make_large_models import write_chain_graph, write_wide_graph

N_NODES = 300
WRITERS = {"chain": write_chain_graph, "wide": write_wide_graph}


@pytest.fixture(scope="module", params=sorted(WRITERS))
def graph(request, tmp_path_factory):
    return WRITERS[request.param](tmp_path_factory.mktemp(request.param) / "g.onnx", N_NODES)


@pytest.fixture(scope="module")
def ir(graph, tmp_path_factory):
    from xmo.api import convert_model, save_model

    xml = tmp_path_factory.mktemp("ir") / f"{graph.kind}.xml"
    save_model(convert_model(graph.path), xml)
    return xml


def test_generator(graph):
    import onnx

    onnx.checker.check_model(str(graph.path), full_check=True)
    model = onnx.load(str(graph.path))
    assert model.opset_import[0].version == 17
    assert len(model.graph.node) == graph.n_nodes
    assert abs(graph.n_nodes - N_NODES) <= 0.05 * N_NODES
    ops = Counter(n.op_type for n in model.graph.node)
    if graph.kind == "chain":
        assert {"MatMul", "Add", "Relu", "Sigmoid", "Tanh", "Softmax"} <= set(ops)
        assert ops["Add"] > ops["MatMul"]  # the residual Adds
    else:
        assert {"Mul", "Relu", "Sigmoid", "Tanh", "Abs", "Concat", "Conv", "GlobalAveragePool"} <= set(ops)
        assert ops["Mul"] == 50 * ops["Concat"]


def test_seeded(graph, tmp_path):
    again = WRITERS[graph.kind](tmp_path / "again.onnx", N_NODES)
    assert again.path.read_bytes() == graph.path.read_bytes()


def test_no_blowup(graph, ir):
    """One IR layer per ONNX node and initializer at most, + Parameter and Result."""
    layers = list(ET.parse(ir).getroot().iter("layer"))
    ops = [layer for layer in layers if layer.get("type") != "Const"]
    assert len(layers) <= graph.n_nodes + graph.n_initializers + 4
    assert len(ops) <= graph.n_nodes + 4


def test_ir_matches_onnxruntime(graph, ir):
    pytest.importorskip("onnxruntime")
    pytest.importorskip("openvino")
    got, ref = ir_and_onnxruntime(graph.path, ir, {graph.input_name: graph.input_data(0)})
    assert got.shape == ref.shape
    assert np.isfinite(ref).all() and float(np.std(ref)) > 0
    np.testing.assert_allclose(got, ref, rtol=1e-4, atol=1e-4 * max(1.0, float(np.abs(ref).max())))
