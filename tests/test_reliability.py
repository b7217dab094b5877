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
from xmo.tools import fuzz_inputs as fz

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


# ---------------------------------------------------------------------------
# Mapped inputs truncated while xmo runs: one error line, nothing left behind
# ---------------------------------------------------------------------------

#: runs an ``xmo`` command in a process of its own (``cli()``, as the console
#: script does) after arranging for ``PATH`` to be truncated to ``SIZE`` bytes
#: at a point of the run: "load" (after the model is loaded: folding, digests,
#: the CPU backend read the mapped weights next) or "write" (when the IR
#: writer stores its first weight)
_TRUNCATING_XMO = r"""
import os, sys
point, path, size = sys.argv[1], sys.argv[2], int(sys.argv[3])
if point == "load":
    from xmo import api
    real_read, real_convert = api.read_model, api._convert
    def read_model(*a, **k):
        m = real_read(*a, **k); os.truncate(path, size); return m
    def _convert(model, frontend, **k):
        if frontend is not None:
            real_load = frontend.load
            def load(*a, **kw):
                m = real_load(*a, **kw); os.truncate(path, size); return m
            object.__setattr__(frontend, "load", load)
        return real_convert(model, frontend, **k)
    api.read_model, api._convert = read_model, _convert
elif point == "write":
    from xmo.backends.ir import serializer
    real_store = serializer._Writer._store
    def _store(self, raw, *args):
        os.truncate(path, size); return real_store(self, raw, *args)
    serializer._Writer._store = _store
from xmo.tools.xmo_main import cli
sys.argv = ["xmo", *sys.argv[4:]]
sys.exit(cli())
"""


def _external_model(folder: Path, k: int = 1024, fold: bool = False) -> Path:
    """y = x @ w (``fold``: x @ (w + w), a constant sub-graph folding reads)
    with a k x k f32 ``w`` in external data ``w.bin`` (the fuzzer's model)."""
    model, weights = fz.weights_model(k, fold)
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "m.onnx").write_bytes(model)
    (folder / "w.bin").write_bytes(weights)
    return folder / "m.onnx"


def _xmo_process(*args: str, timeout: float = 300) -> subprocess.CompletedProcess:
    env = dict(os.environ, XMO_NO_PROGRESS="1")
    env.pop("XMO_DEBUG", None)
    return subprocess.run([sys.executable, "-c", _TRUNCATING_XMO, *args], capture_output=True,
                          text=True, env=env, timeout=timeout, check=False)


def _one_error_line(r: subprocess.CompletedProcess, pattern: str) -> None:
    import re

    assert r.returncode == 1, (r.returncode, r.stderr[-2000:])
    assert r.stderr.count("\n") == 1 and r.stderr.startswith("xmo: error: "), r.stderr[-2000:]
    assert re.search(pattern, r.stderr), r.stderr


_SHRANK = r"w\.bin shrank to 1000 bytes while xmo was reading it"


@pytest.mark.parametrize("point,fold", [("load", True), ("write", False)])
def test_external_data_truncated_during_convert(tmp_path, point, fold):
    """Truncated after loading (constant folding reads it next: SIGBUS) or
    while the IR is written (the writer copies from the file: a short count):
    exit 1, one line, no output folder, no temporary file."""
    model = _external_model(tmp_path / "m", fold=fold)
    out = tmp_path / "out" / "m.xml"
    r = _xmo_process(point, str(tmp_path / "m" / "w.bin"), "1000", "convert", str(model), "-o", str(out))
    _one_error_line(r, _SHRANK)
    assert not (tmp_path / "out").exists()


def test_ir_bin_truncated_before_run(tmp_path):
    """``xmo run`` of an IR whose ``.bin`` shrinks after reading: the CPU
    backend's reads of the mapped weights end in one line, exit 1."""
    model = _external_model(tmp_path / "m")
    (tmp_path / "ir").mkdir()
    xmo.save_model(xmo.convert_model(model), tmp_path / "ir" / "m.xml")
    r = _xmo_process("load", str(tmp_path / "ir" / "m.bin"), "1000", "run", str(tmp_path / "ir" / "m.xml"))
    _one_error_line(r, r"m\.bin shrank to 1000 bytes while xmo was reading it")


def test_external_data_truncated_at_random_times(tmp_path):
    """A process truncating the external data while ``xmo convert`` runs, at
    times spread over the conversion: every run ends with exit 0 and a
    complete IR (truncated after the weights were copied) or exit 1 and one
    line; never a signal, never a file left in the output folder."""
    import random
    import time

    model = _external_model(tmp_path / "m", k=2048)
    data = (tmp_path / "m" / "w.bin").read_bytes()
    t0 = time.perf_counter()
    r = _xmo_process("none", "-", "0", "convert", str(model), "-o", str(tmp_path / "ref" / "m.xml"))
    assert r.returncode == 0, r.stderr
    took = time.perf_counter() - t0
    rng = random.Random(3)
    outcomes = []
    for i in range(6):
        (tmp_path / "m" / "w.bin").write_bytes(data)
        out = tmp_path / f"out{i}"
        env = dict(os.environ, XMO_NO_PROGRESS="1")
        p = subprocess.Popen([sys.executable, "-m", "xmo.tools.xmo_main", "convert", str(model),
                              "-o", str(out / "m.xml")], stderr=subprocess.PIPE, text=True, env=env)
        time.sleep(rng.uniform(0.3, 1.0) * took)
        os.truncate(tmp_path / "m" / "w.bin", rng.choice((0, 1000, len(data) // 2)))
        _, err = p.communicate(timeout=300)
        outcomes.append(p.returncode)
        assert p.returncode in (0, 1), (p.returncode, err[-2000:])
        if p.returncode == 0:
            assert sorted(q.name for q in out.iterdir()) == ["m.bin", "m.xml"]
            assert (out / "m.bin").read_bytes() == (tmp_path / "ref" / "m.bin").read_bytes()
        else:
            assert err.count("\n") == 1 and err.startswith("xmo: error: "), err[-2000:]
            assert not out.exists() or not list(out.iterdir()), list(out.iterdir())


# ---------------------------------------------------------------------------
# Names: the escaping of what XML cannot hold is reversible
# ---------------------------------------------------------------------------


def test_escaped_names_stay_distinct_and_read_back(tmp_path):
    """``i\\x01`` (a control character) and ``i\\\\x01`` (a backslash, then
    "x01") used to be written as the same name; now every name reads back as
    it was, through xmo's reader and through OpenVINO (distinct names)."""
    import numpy as np
    import openvino as ov
    from onnx import TensorProto, helper

    from xmo.backends.ir import read_ir

    names = ["i\x01", "i\\x01", "i\\\\x01", "a\\", "b\\\x02", "\\u0041", "c\\"]
    # y_k = x * (k + 1): distinct ops, so none merge (one name per tensor)
    nodes = [helper.make_node("Mul", ["x", f"c{k}"], [n], name=f"node {n}")
             for k, n in enumerate(names)]
    consts = [helper.make_tensor(f"c{k}", TensorProto.FLOAT, [], [k + 1.0]) for k in range(len(names))]
    g = helper.make_graph(nodes, "g", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2])],
                          [helper.make_tensor_value_info(n, TensorProto.FLOAT, [2]) for n in names],
                          consts)
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)])
    xmo.save_model(xmo.convert_model(m), tmp_path / "m.xml", verify_ir=True)
    back = read_ir(tmp_path / "m.xml")
    got_tensors = set()
    got_layers = set()
    for op in back.body.block.ops:
        got_layers.add(op.get_friendly_name())
        for j in range(len(op.results)):
            got_tensors.update(op.get_tensor_names(j))
    assert set(names) <= got_tensors, got_tensors
    assert {f"node {n}" for n in names} <= got_layers, got_layers
    model = ov.Core().read_model(str(tmp_path / "m.xml"))
    written = [next(iter(o.get_names())) for o in model.outputs]
    assert len(set(written)) == len(names)
    compiled = ov.Core().compile_model(model, "CPU")
    assert len(compiled({0: np.array([-1, 2], np.float32)})) == len(names)
