"""The MXNet frontend: the .params reader, the symbol loader, checkpoint file
detection, malformed files (one-line ModelErrors, nothing written), Custom
operators without their extension, MXNet's Reshape codes."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import numpy as np
import pytest

from xmo.errors import ModelError
from xmo.frontends.mxnet import (
    MXNetFrontendError,
    ParamsError,
    checkpoint_files,
    load_mxnet,
    read_params,
    write_params,
)
from xmo.passes.mxnet_to_ov.families.tensor import mxnet_reshape
from xmo.passes.to_ov.builder import NotConvertible
from xmo.tools.xmo_main import main

DATA = Path(__file__).parent / "data" / "mxnet"
REPO = Path(__file__).resolve().parents[1]


def _fc_model(folder: Path, *, key: str = "attrs", weight=None, extra=None, epoch: int = 0) -> Path:
    """data[2,4] -> FullyConnected(3) -> relu, written by hand (symbol + params)."""
    nodes = [
        {"op": "null", "name": "data", key: {"__shape__": "(2, 4)"}, "inputs": []},
        {"op": "null", "name": "fc_weight", "inputs": []},
        {"op": "null", "name": "fc_bias", "inputs": []},
        {"op": "FullyConnected", "name": "fc", key: {"num_hidden": "3"},
         "inputs": [[0, 0, 0], [1, 0, 0], [2, 0, 0]]},
        {"op": "Activation", "name": "relu", key: {"act_type": "relu"}, "inputs": [[3, 0]]},
    ]
    sym = {"nodes": nodes, "arg_nodes": [0, 1, 2], "heads": [[4, 0, 0]]}
    (folder / "fc-symbol.json").write_text(json.dumps(sym))
    rng = np.random.default_rng(0)
    arrays = {
        "arg:fc_weight": rng.standard_normal((3, 4)).astype(np.float32) if weight is None else weight,
        "arg:fc_bias": rng.standard_normal(3).astype(np.float32),
    }
    arrays.update(extra or {})
    write_params(folder / f"fc-{epoch:04d}.params", arrays)
    return folder / "fc-symbol.json"


def test_params_roundtrip_views(tmp_path):
    a = np.arange(12, dtype=np.float32).reshape(3, 4)
    write_params(tmp_path / "x.params", {"arg:a": a, "aux:b": np.ones(2, np.float16), "c": np.arange(3)})
    got = read_params(tmp_path / "x.params")
    assert [(p.name, p.kind, p.array.dtype.name) for p in got] == [
        ("a", "arg", "float32"), ("b", "aux", "float16"), ("c", "arg", "int64")]
    np.testing.assert_array_equal(got[0].array, a)
    assert not got[0].array.flags.owndata  # a view of the mapped file


def test_params_written_by_mxnet():
    params = read_params(DATA / "resnet" / "resnet-0000.params")
    kinds = {p.kind for p in params}
    assert kinds == {"arg", "aux"}
    by = {p.name: p.array for p in params}
    assert by["stem_conv_weight"].shape == (16, 3, 3, 3)
    assert by["stem_bn_moving_var"].min() > 0


@pytest.mark.parametrize("key", ["attrs", "attr", "param"])
def test_attribute_spellings_and_two_element_entries(tmp_path, key):
    import xmo

    sym = _fc_model(tmp_path, key=key)
    x = np.random.default_rng(1).standard_normal((2, 4)).astype(np.float32)
    by = {p.name: p.array for p in read_params(tmp_path / "fc-0000.params")}
    want = np.maximum(x @ by["fc_weight"].T + by["fc_bias"], 0)
    got = xmo.compile_model(xmo.convert_model(str(sym)))({"data": x})[0]
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)


def test_every_node_loads_unknown_ones_are_reported(tmp_path):
    import xmo
    from xmo.context import make_context
    from xmo.passes.to_ov.report import UnsupportedOpsError

    sym = _fc_model(tmp_path)
    doc = json.loads(sym.read_text())
    doc["nodes"][4]["op"] = "_contrib_FancyOp"
    sym.write_text(json.dumps(doc))
    module = load_mxnet(sym, make_context())
    names = [op.name for op in module.body.block.ops]
    assert names == ["mxnet.Var"] * 3 + ["mxnet.Node"] * 2 + ["mxnet.Output"]
    with pytest.raises(UnsupportedOpsError, match=r"_contrib_FancyOp \(1\): relu"):
        xmo.convert_model(str(sym))


def test_checkpoint_files(tmp_path):
    sym = _fc_model(tmp_path)
    shutil.copy(tmp_path / "fc-0000.params", tmp_path / "fc-0012.params")
    shutil.copy(tmp_path / "fc-0000.params", tmp_path / "fc-0003.params")
    assert checkpoint_files(sym) == (str(sym), str(tmp_path / "fc-0012.params"))
    assert checkpoint_files(sym, epoch=3)[1] == str(tmp_path / "fc-0003.params")
    assert checkpoint_files(tmp_path / "fc-0003.params") == (str(sym), str(tmp_path / "fc-0003.params"))
    other = tmp_path / "w.params"
    shutil.copy(tmp_path / "fc-0000.params", other)
    assert checkpoint_files(sym, params=other)[1] == str(other)
    with pytest.raises(MXNetFrontendError, match="no params file .*epoch 7"):
        checkpoint_files(sym, epoch=7)


def test_cli_converts_symbol_and_params_path(tmp_path):
    sym = _fc_model(tmp_path)
    assert main(["convert", str(sym), "-o", str(tmp_path / "a.xml")]) == 0
    assert (tmp_path / "a.bin").exists()
    assert main(["convert", str(tmp_path / "fc-0000.params"), "-o", str(tmp_path / "b.xml")]) == 0
    alt = tmp_path / "alt.params"
    shutil.copy(tmp_path / "fc-0000.params", alt)
    (tmp_path / "fc-0000.params").unlink()
    assert main(["convert", str(sym), "--input_params", str(alt), "-o", str(tmp_path / "c.xml")]) == 0


def _truncate(p: Path) -> None:
    p.write_bytes(p.read_bytes()[:-7])


def _bad_magic(p: Path) -> None:
    b = bytearray(p.read_bytes())
    b[0] = 0x13
    p.write_bytes(bytes(b))


MALFORMED = {
    "bad JSON": (lambda d: (d / "fc-symbol.json").write_text('{"nodes": [}'), "invalid JSON at line 1"),
    "truncated params": (lambda d: _truncate(d / "fc-0000.params"), "truncated at byte"),
    "bad params magic": (lambda d: _bad_magic(d / "fc-0000.params"), "bad magic"),
    "missing array": (lambda d: write_params(d / "fc-0000.params", {
        "arg:fc_weight": np.zeros((3, 4), np.float32)}),
        "no array 'fc_bias' .the bias of FullyConnected 'fc'."),
    "extra array": (lambda d: _fc_model(d, extra={"arg:old_weight": np.zeros(2, np.float32)}),
                    "arrays the symbol has no variable for: old_weight"),
    "shape mismatch": (lambda d: _fc_model(d, weight=np.zeros((5, 4), np.float32)),
                       r"'fc_weight' has shape \(5, 4\), FullyConnected 'fc' needs \(3, \?\)"),
    "not topological": (lambda d: _swap_nodes(d / "fc-symbol.json"), "is not before it"),
    "no heads": (lambda d: _edit(d / "fc-symbol.json", heads=[]), "no 'heads'"),
}


def _edit(p: Path, **kw) -> None:
    doc = json.loads(p.read_text())
    doc.update(kw)
    p.write_text(json.dumps(doc))


def _swap_nodes(p: Path) -> None:
    doc = json.loads(p.read_text())
    doc["nodes"][4]["inputs"] = [[4, 0, 0]]
    p.write_text(json.dumps(doc))


@pytest.mark.parametrize("case", sorted(MALFORMED))
def test_malformed_one_line_error_nothing_written(tmp_path, case, capsys):
    import xmo

    _fc_model(tmp_path)
    damage, pattern = MALFORMED[case]
    damage(tmp_path)
    with pytest.raises(ModelError, match=pattern) as info:
        xmo.convert_model(str(tmp_path / "fc-symbol.json"))
    assert "\n" not in str(info.value)
    out = tmp_path / "out" / "m.xml"
    assert main(["convert", str(tmp_path / "fc-symbol.json"), "-o", str(out)]) == 1
    assert not (tmp_path / "out").exists()
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1, err


def test_params_errors_are_model_errors(tmp_path):
    (tmp_path / "e.params").write_bytes(b"")
    with pytest.raises(ParamsError, match="empty"):
        read_params(tmp_path / "e.params")
    assert issubclass(MXNetFrontendError, ModelError)


def test_custom_operator_without_its_extension(tmp_path):
    import xmo
    from xmo.passes.to_ov.report import UnsupportedOpsError

    sym = DATA / "custom_op" / "custom_op-symbol.json"
    with pytest.raises(UnsupportedOpsError) as info:
        xmo.convert_model(str(sym))
    text = str(info.value)
    assert "Custom:scaled_softsign (1): softsign" in text
    assert "no extension provides its extractor" in text
    module = xmo.convert_model(str(sym), extensions=[str(REPO / "examples" / "mxnet_custom_op")])
    assert any(op.name == "ov.SoftSign" for op in module.body.block.ops)


def test_resnet_inputs_and_names():
    import xmo

    module = xmo.convert_model(str(DATA / "resnet" / "resnet-symbol.json"))
    ops = list(module.body.block.ops)
    assert [p.get_friendly_name() for p in ops if p.name == "ov.Parameter"] == ["data"]  # no label
    result = next(op for op in ops if op.name == "ov.Result")
    src = result.operands[0]
    assert "softmax_output" in src.owner.get_tensor_names(src.index)
    assert any(op.name == "ov.BatchNormInference" or op.name == "ov.Convolution" for op in ops)


class _Node:
    def unsupported(self, why: str) -> NotConvertible:
        return NotConvertible(why)


@pytest.mark.parametrize("src, spec, reverse, want", [
    ((2, 3, 4), (4, 0, 2), False, (4, 3, 2)),
    ((2, 3, 4), (2, 0, 0), False, (2, 3, 4)),
    ((2, 3, 4), (6, 1, -1), False, (6, 1, 4)),
    ((2, 3, 4), (3, -1, 8), False, (3, 1, 8)),
    ((2, 3, 4), (-1,), False, (24,)),
    ((2, 3, 4), (-2,), False, (2, 3, 4)),
    ((2, 3, 4), (2, -2), False, (2, 3, 4)),
    ((2, 3, 4), (-2, 1, 1), False, (2, 3, 4, 1, 1)),
    ((2, 3, 4), (-3, 4), False, (6, 4)),
    ((2, 3, 4, 5), (-3, -3), False, (6, 20)),
    ((2, 3, 4), (0, -3), False, (2, 12)),
    ((2, 3, 4), (-3, -2), False, (6, 4)),
    ((2, 3, 4), (-4, 1, 2, -2), False, (1, 2, 3, 4)),
    ((2, 3, 4), (2, -4, -1, 3, -2), False, (2, 1, 3, 4)),
    ((10, 5, 4), (-1, 0), False, (40, 5)),
    ((10, 5, 4), (-1, 0), True, (50, 4)),
])
def test_reshape_codes(src, spec, reverse, want):
    """MXNet's documented Reshape examples."""
    assert tuple(mxnet_reshape(_Node(), list(src), list(spec), reverse)) == want


def test_reshape_unknown_batch():
    assert mxnet_reshape(_Node(), [-1, 3, 4], [0, -1], False) == [0, -1]  # special zero
    with pytest.raises(NotConvertible):
        mxnet_reshape(_Node(), [-1, -1, 4], [-3, -1], False)


def test_row_sparse_and_empty_arrays_written_by_mxnet():
    """``mx.nd.save`` of a row_sparse array (rows 1 and 3 set), a 1x1 and an empty array."""
    got = {p.name: p for p in read_params(DATA / "row_sparse.params")}
    want = np.zeros((5, 3), np.float32)
    want[1] = 1
    want[3] = [1, 2, 3]
    assert got["w"].stype == "row_sparse"
    np.testing.assert_array_equal(got["w"].array, want)
    assert got["v3"].array.tolist() == [[1.5]]
    assert got["e"].array.shape == (0,)


def test_row_sparse_bomb_is_refused():
    import struct

    from xmo.budget import ResourceLimitError
    from xmo.frontends.mxnet.params import V2_MAGIC, parse_params

    b = (struct.pack("<QQQ", 0x112, 0, 1) + struct.pack("<Ii", V2_MAGIC, 1) + struct.pack("<iq", 1, 0)
         + struct.pack("<iqq", 2, 1 << 20, 1 << 20) + struct.pack("<iiii", 1, 0, 0, 6)
         + struct.pack("<iq", 1, 0) + struct.pack("<Q", 0))
    with pytest.raises(ResourceLimitError):
        parse_params(np.frombuffer(b, np.uint8))
