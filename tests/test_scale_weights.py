"""Large weights at a small scale: external data memory-mapped on the way in,
identical tensors written once, streamed (in-kernel copy) to the ``.bin``.

The 2 GiB version against ``ovc`` is ``benchmarks/bench_large_weights.py``."""

from __future__ import annotations

import mmap

import numpy as np
import pytest
from xdsl.dialects.builtin import DenseResourceAttr
from onnx_models import ir_and_onnxruntime
from xmo.tools.make_large_models import write_large_mlp

N = 512  # 1 MiB per weight: 8 layers + head = about 8 MiB


@pytest.fixture(scope="module")
def model(tmp_path_factory):
    return write_large_mlp(tmp_path_factory.mktemp("large") / "mlp.onnx", gb=8 / 1024, n=N, dup_every=4)


@pytest.fixture(scope="module")
def ir(model, tmp_path_factory):
    from xmo.api import convert_model, save_model

    xml = tmp_path_factory.mktemp("ir") / "mlp.xml"
    save_model(convert_model(model.path), xml, verify=False)
    return xml


def _mapped(arr: np.ndarray) -> bool:
    a = arr
    while isinstance(a, np.ndarray):
        if isinstance(a.base, mmap.mmap):
            return isinstance(a, np.memmap)
        a = a.base
    return False


def _resource_payloads(module) -> list[np.ndarray]:
    from xmo.dialects.ov.weights import resource_bytes

    out = []
    for op in module.walk():
        for attr in [*op.properties.values(), *op.attributes.values()]:
            if isinstance(attr, DenseResourceAttr):
                out.append(resource_bytes(attr.resource_handle.data))
    return out


def test_generator(model):
    assert model.layers == 8 and model.path.stat().st_size < 64 << 10
    assert model.data_path.stat().st_size >= model.weight_bytes
    assert model.dup_bytes == N * N * 4 + N * 4  # layer 4's weight and bias
    assert set(model.duplicates) == {"layer4.weight", "layer4.bias"}


def test_external_data_is_memory_mapped(model):
    from xmo.api import convert_model, read_model

    for module in (read_model(model.path), convert_model(model.path)):
        big = [p for p in _resource_payloads(module) if p.nbytes >= N * N * 4]
        assert big, "no weight payloads found"
        assert all(_mapped(p) for p in big)


def test_identical_tensors_written_once(model, ir):
    size = ir.with_suffix(".bin").stat().st_size
    assert model.unique_bytes <= size < model.unique_bytes + 1024
    assert size <= model.weight_bytes - model.dup_bytes + 1024


def test_serializer_dedups_without_cse(tmp_path):
    from xdsl.dialects.builtin import ModuleOp
    from xmo.backends.ir import serialize
    from xmo.context import make_context, weight_store
    from xmo.dialects.ov import ConstantOp, ParameterOp, ResultOp, op_class

    store = weight_store(make_context())
    rng = np.random.default_rng(1)
    a = rng.random((256, 256), dtype=np.float32)
    b = rng.random((256, 256), dtype=np.float32)
    b2 = b.copy()  # equal bytes, another array
    a_mid = a.copy()
    a_mid.flat[10_000] += 1  # outside the sampled blocks: same fingerprint, other bytes
    ops = [p := ParameterOp.new("f32", [256, 256], name="x", tensor_names=["x"])]
    v = p.results[0]
    for arr in (a, b, b2, a_mid, a):
        c = ConstantOp.from_array(arr, store=store)
        add = op_class("Add").make([v, c.results[0]])
        ops += [c, add]
        v = add.results[0]
    ops.append(ResultOp.new(v))
    serialize(ModuleOp(ops), tmp_path / "m.xml")
    assert (tmp_path / "m.bin").stat().st_size == 3 * a.nbytes


def test_roundtrip_over_the_mapped_bin(ir, tmp_path):
    """The in-kernel copy reads the mapped file; serializing over that very
    file twice (the second time its path names the first rewrite) keeps the bytes."""
    import shutil

    from xmo.backends.ir import read_ir, serialize
    from xmo.context import make_context

    xml = tmp_path / "m.xml"
    shutil.copy(ir, xml)
    shutil.copy(ir.with_suffix(".bin"), xml.with_suffix(".bin"))
    want = xml.with_suffix(".bin").read_bytes()
    m = read_ir(xml, ctx=make_context())
    serialize(m, xml)
    assert xml.with_suffix(".bin").read_bytes() == want
    # the path now names another file (the rewrite); make its bytes differ
    xml.with_suffix(".bin").unlink()
    xml.with_suffix(".bin").write_bytes(b"\1" * len(want))
    serialize(m, xml)
    assert xml.with_suffix(".bin").read_bytes() == want


def test_ir_matches_onnxruntime(model, ir):
    pytest.importorskip("onnxruntime")
    pytest.importorskip("openvino")
    got, ref = ir_and_onnxruntime(model.path, ir, {model.input_name: model.input_data(0)})
    assert got.shape == ref.shape
    np.testing.assert_allclose(got, ref, rtol=1e-4, atol=1e-4 * max(1.0, float(np.abs(ref).max())))
