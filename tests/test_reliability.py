"""Reliability: conversion is deterministic and the IR written reads back as written.

* Converting the same model twice gives byte-identical ``.xml`` and ``.bin``,
  also across processes with different hash seeds (no dict/set ordering,
  object ids or timestamps reach the IR).
* ``save_model(..., verify_ir=True)`` reads the written IR back with xmo's own
  reader and compares every layer's op and output types with the module.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import onnx
import pytest
import xmo
from xmo.backends.ir import IRWriteError, serializer

ROOT = Path(__file__).resolve().parent.parent
TF = ROOT / "tests" / "data" / "tf"
LIGHT = Path(onnx.__file__).parent / "backend" / "test" / "data" / "light"

MODELS = [
    ROOT / "models" / "demo.onnx",
    LIGHT / "light_squeezenet.onnx",
    TF / "cnn.pb",
    TF / "ops.pb",
    TF / "shapes.pbtxt",
    TF / "unet.pb",
]


def _convert_in_process(models: list[Path], out: Path, fp16: bool = False) -> None:
    out.mkdir(parents=True, exist_ok=True)
    for i, m in enumerate(models):
        xmo.save_model(xmo.convert_model(m), out / f"m{i}.xml", compress_to_fp16=fp16)


def _same_files(a: Path, b: Path) -> None:
    names = sorted(p.name for p in a.iterdir())
    assert names == sorted(p.name for p in b.iterdir())
    for n in names:
        assert (a / n).read_bytes() == (b / n).read_bytes(), f"{n} differs"


@pytest.mark.parametrize("fp16", [False, True])
def test_converting_twice_is_byte_identical(tmp_path, fp16):
    _convert_in_process(MODELS, tmp_path / "a", fp16)
    _convert_in_process(MODELS, tmp_path / "b", fp16)
    _same_files(tmp_path / "a", tmp_path / "b")


def test_byte_identical_across_processes_and_hash_seeds(tmp_path):
    models = [MODELS[0], MODELS[2], MODELS[4]]
    for seed in ("1", "2"):
        code = (
            "import sys; from xmo.tools.xmo_main import main\n"
            "for i, m in enumerate(sys.argv[2:]):\n"
            "    assert main(['convert', m, '-o', f'{sys.argv[1]}/m{i}.xml']) == 0\n"
        )
        env = dict(os.environ, PYTHONHASHSEED=seed, XMO_NO_PROGRESS="1")
        r = subprocess.run([sys.executable, "-c", code, str(tmp_path / seed), *map(str, models)],
                           capture_output=True, text=True, env=env, timeout=300, check=False)
        assert r.returncode == 0, r.stderr[-2000:]
    _same_files(tmp_path / "1", tmp_path / "2")


@pytest.mark.parametrize("model", MODELS + sorted((ROOT / "tests" / "data" / "models").glob("*.mlir")),
                         ids=lambda p: p.name)
def test_written_ir_reads_back_as_written(tmp_path, model):
    module = xmo.convert_model(model)
    xmo.save_model(module, tmp_path / "m.xml", verify_ir=True)
    xmo.save_model(module, tmp_path / "h.xml", compress_to_fp16=True, verify_ir=True)


def test_verify_ir_catches_a_writer_bug_and_leaves_nothing(tmp_path, monkeypatch):
    module = xmo.convert_model(MODELS[0])
    real = serializer._precision

    def wrong(t, where):
        p = real(t, where)
        return "FP16" if p == "FP32" else p

    monkeypatch.setattr(serializer, "_precision", wrong)
    out = tmp_path / "out"
    out.mkdir()
    with pytest.raises(IRWriteError, match="written IR"):
        xmo.save_model(module, out / "m.xml", verify_ir=True)
    assert not list(out.iterdir())


def test_names_xml_cannot_hold_are_escaped(tmp_path):
    """A node / tensor name with control characters (legal in ONNX) used to make
    the .xml not well-formed; now they are escaped and the IR reads back."""
    import numpy as np
    import openvino as ov
    from onnx import TensorProto, helper

    g = helper.make_graph(
        [helper.make_node("Relu", ["x"], ["y\x01z"], name="bad\nname\x1c")], "g",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2])],
        [helper.make_tensor_value_info("y\x01z", TensorProto.FLOAT, [2])],
    )
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)])
    xmo.save_model(xmo.convert_model(m), tmp_path / "m.xml", verify_ir=True)
    core = ov.Core()
    compiled = core.compile_model(core.read_model(str(tmp_path / "m.xml")), "CPU")
    (out,) = compiled({0: np.array([-1, 2], np.float32)}).values()
    np.testing.assert_array_equal(out, [0, 2])
