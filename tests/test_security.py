"""Security: what a model file may make xmo do.

* external data stays inside the model's folder (``..``, absolute paths and
  escaping symlinks: tests/test_onnx_frontend.py; here: symlinked folders and
  non-regular files);
* sizes a file declares are checked against what it holds before anything is
  allocated (ONNX, GraphDef value lists, IR ``.bin`` ranges) and oversized or
  deeply nested text is refused with a clear error;
* nothing in a model is executed: no eval/exec/pickle anywhere in the tree,
  ``.npy`` inputs are read without pickles, XML entities are not expanded
  without bound and external entities are not fetched;
* extensions load only from folders the user names.
"""

from __future__ import annotations

import os
import re
import time
from pathlib import Path

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper, numpy_helper
from xmo.backends.ir import IRReadError, read_ir
from xmo.context import make_context
from xmo.frontends.onnx import OnnxFrontendError, load_onnx
from xmo.frontends.tf import TFFrontendError, load_tf, schema
from xmo.tools.xmo_main import main

ROOT = Path(__file__).resolve().parent.parent


def _relu_model(init: TensorProto) -> onnx.ModelProto:
    g = helper.make_graph(
        [helper.make_node("Relu", [init.name], ["y"])], "g", [],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)], [init],
    )
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)])
    m.ir_version = 8
    return m


def _external(folder: Path, location: str) -> Path:
    t = TensorProto(name="w", data_type=TensorProto.FLOAT, dims=[4])
    t.data_location = TensorProto.EXTERNAL
    t.external_data.add(key="location", value=location)
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "m.onnx"
    path.write_bytes(_relu_model(t).SerializeToString())
    return path


# ---------------------------------------------------------------------------
# External data confinement (the other cases: tests/test_onnx_frontend.py)
# ---------------------------------------------------------------------------


def test_external_data_through_a_symlinked_folder_is_refused(tmp_path):
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "w.bin").write_bytes(np.ones(4, np.float32).tobytes())
    path = _external(tmp_path / "m", "sub/w.bin")
    os.symlink(outside, tmp_path / "m" / "sub")
    with pytest.raises(OnnxFrontendError, match="outside the model's folder"):
        load_onnx(path, make_context())


def test_external_data_must_be_a_regular_file(tmp_path):
    """A FIFO (or a folder) as location: refused, never opened (a FIFO would block)."""
    path = _external(tmp_path / "m", "pipe")
    os.mkfifo(tmp_path / "m" / "pipe")
    t0 = time.perf_counter()
    with pytest.raises(OnnxFrontendError, match="no such file"):
        load_onnx(path, make_context())
    (tmp_path / "m" / "dir").mkdir()
    path = _external(tmp_path / "m", "dir")
    with pytest.raises(OnnxFrontendError, match="no such file"):
        load_onnx(path, make_context())
    assert time.perf_counter() - t0 < 10


# ---------------------------------------------------------------------------
# Size limits
# ---------------------------------------------------------------------------


def test_onnx_declared_size_far_beyond_the_file():
    t = numpy_helper.from_array(np.ones(4, np.float32), "w")
    del t.dims[:]
    t.dims.extend([1 << 40, 1 << 40])  # 2**80 elements: no int64 wrap-around either
    with pytest.raises(OnnxFrontendError, match=r"tensor 'w': raw_data has 16 bytes"):
        load_onnx(_relu_model(t), make_context())


def test_graphdef_value_list_cannot_expand_to_a_memory_bomb():
    g = schema.GraphDef()
    n = g.node.add(name="c", op="Const")
    n.attr["dtype"].type = schema.DataType.Value("DT_FLOAT")
    t = n.attr["value"].tensor
    t.dtype = schema.DataType.Value("DT_FLOAT")
    for d in (1 << 20, 1 << 20, 1 << 10):  # one float_val broadcast to 2**50 values
        t.tensor_shape.dim.add(size=d)
    t.float_val.append(1.0)
    t0 = time.perf_counter()
    with pytest.raises(TFFrontendError, match=r"node 'c'.*expands to \d+ bytes.*2 GiB"):
        load_tf(g.SerializeToString(), make_context())
    assert time.perf_counter() - t0 < 5


@pytest.mark.parametrize("name", ["shapes.pbtxt", "cnn.pb"])
def test_graphdef_file_size_limit(monkeypatch, name):
    from xmo.frontends import protobuf_file

    src = ROOT / "tests" / "data" / "tf" / name
    monkeypatch.setattr(protobuf_file, "MAX_PROTOBUF_BYTES", src.stat().st_size - 1)
    with pytest.raises(TFFrontendError, match=r"bytes, more than the .* a GraphDef \(protobuf"):
        load_tf(src, make_context())


def test_onnx_file_size_limit(monkeypatch):
    """A file beyond protobuf's 2 GiB is refused before it is read (weights
    that big belong in external data)."""
    from xmo.frontends import protobuf_file

    src = ROOT / "models" / "demo.onnx"
    monkeypatch.setattr(protobuf_file, "MAX_PROTOBUF_BYTES", src.stat().st_size - 1)
    with pytest.raises(OnnxFrontendError, match=r"demo.onnx: \d+ bytes, more than the .* an ONNX model"):
        load_onnx(src, make_context())
    monkeypatch.setattr(protobuf_file, "MAX_PROTOBUF_BYTES", src.stat().st_size)
    load_onnx(src, make_context())  # exactly at the limit: read


def test_deeply_nested_pbtxt_is_a_clear_error(tmp_path):
    depth = 20000
    text = 'node { name: "a" op: "Const" attr { key: "value" value { list { ' + \
        'func { attr { key: "k" value { ' * depth + "} } }" * depth + " } } } }"
    p = tmp_path / "deep.pbtxt"
    p.write_text(text)
    with pytest.raises(TFFrontendError, match="deep.pbtxt: not a valid text GraphDef"):
        load_tf(p, make_context())


def _ir(tmp_path: Path) -> Path:
    import xmo

    t = numpy_helper.from_array(np.arange(4, dtype=np.float32), "w")
    xml = tmp_path / "m.xml"
    xmo.save_model(xmo.convert_model(_relu_model(t)), xml)
    return xml


@pytest.mark.parametrize("offset,size", [(1 << 62, 16), (0, 1 << 62), ((1 << 63) - 8, 16)])
def test_ir_bin_range_beyond_the_file(tmp_path, offset, size):
    xml = _ir(tmp_path)
    text = xml.read_text()
    text, n = re.subn(r'offset="\d+" size="\d+"', f'offset="{offset}" size="{size}"', text)
    assert n
    xml.write_text(text)
    with pytest.raises(IRReadError, match=r"layer .*(beyond the end|does not match)"):
        read_ir(xml)


def test_ir_xml_size_limit(tmp_path, monkeypatch):
    from xmo.backends.ir import reader

    xml = _ir(tmp_path)
    monkeypatch.setattr(reader, "MAX_XML_BYTES", xml.stat().st_size - 1)
    with pytest.raises(IRReadError, match=r"m.xml: \d+ bytes, more than the .* an IR .xml"):
        read_ir(xml)
    monkeypatch.setattr(reader, "MAX_XML_BYTES", xml.stat().st_size)
    read_ir(xml)


def test_ir_xml_entity_expansion_and_external_entities(tmp_path):
    (tmp_path / "m.bin").write_bytes(b"")
    lol = ('<?xml version="1.0"?>\n<!DOCTYPE net [\n<!ENTITY a "aaaaaaaaaa">\n'
           + "".join(f'<!ENTITY {chr(98 + i)} "{("&" + chr(97 + i) + ";") * 10}">\n' for i in range(8))
           + ']>\n<net name="&i;" version="11"><layers/><edges/></net>\n')
    (tmp_path / "m.xml").write_text(lol)
    t0 = time.perf_counter()
    with pytest.raises(IRReadError):
        read_ir(tmp_path / "m.xml")
    assert time.perf_counter() - t0 < 5
    secret = tmp_path / "secret.txt"
    secret.write_text("TOP-SECRET")
    xxe = (f'<?xml version="1.0"?>\n<!DOCTYPE net [<!ENTITY x SYSTEM "file://{secret}">]>\n'
           '<net name="&x;" version="11"><layers/><edges/></net>\n')
    (tmp_path / "m.xml").write_text(xxe)
    with pytest.raises(IRReadError) as e:
        read_ir(tmp_path / "m.xml")
    assert "TOP-SECRET" not in str(e.value)


# ---------------------------------------------------------------------------
# Nothing in a model is executed
# ---------------------------------------------------------------------------

# the project's own files: not venvs (.venv, .venv-latest), .git or build output
_SOURCES = [p for p in ROOT.rglob("*.py")
            if not any(part.startswith(".") or part in ("__pycache__", "build")
                       for part in p.relative_to(ROOT).parts)]


def test_no_eval_exec_or_pickle_in_the_tree():
    """Model contents never reach eval/exec/pickle; every np.load refuses pickles."""
    this = Path(__file__).resolve()
    banned = re.compile(
        r"(?<![\w.])(eval|exec)\(|\bpickle\b|\bmarshal\.loads?\b|\bshelve\b|yaml\.load\(|"
        r"\bdill\b|\bcloudpickle\b|torch\.load\("
    )
    hits, loads = [], []
    for p in _SOURCES:
        if p.resolve() == this:
            continue
        text = p.read_text(encoding="utf-8", errors="replace")
        for i, line in enumerate(text.splitlines(), 1):
            code = line.split("#", 1)[0]
            if banned.search(code) and "allow_pickle=False" not in code:
                hits.append(f"{p.relative_to(ROOT)}:{i}: {line.strip()}")
        if {"tests", "benchmarks"} & set(p.relative_to(ROOT).parts):
            continue  # they read the repository's own fixtures (numpy's default refuses pickles too)
        for m in re.finditer(r"np\.load\(", text):
            call = text[m.start(): text.find(")", m.start()) + 1]
            if "allow_pickle=False" not in call:
                loads.append(f"{p.relative_to(ROOT)}: {call}")
    assert not hits, "\n".join(hits)
    assert not loads, "np.load without allow_pickle=False:\n" + "\n".join(loads)


def test_pickled_npy_input_is_refused(tmp_path, capsys):
    obj = tmp_path / "x.npy"
    np.save(obj, np.array([{"a": 1}], dtype=object), allow_pickle=True)
    rc = main(["run", str(ROOT / "models" / "demo.onnx"), "--input", f"image={obj}"])
    err = capsys.readouterr().err
    assert rc == 1 and err.startswith("xmo: error: cannot read") and "Traceback" not in err


# ---------------------------------------------------------------------------
# Extensions load only from folders the user names
# ---------------------------------------------------------------------------


def test_extension_folders_beside_the_model_or_in_cwd_are_not_loaded(tmp_path, monkeypatch):
    import xmo

    sentinel = tmp_path / "ran.txt"
    code = f"open({str(sentinel)!r}, 'w').write('ran')\n"
    folder = tmp_path / "m"
    for sub in ("ops", "passes", "kernels", "front", "front/onnx", "middle", "back"):
        (folder / sub).mkdir(parents=True)
        (folder / sub / "evil.py").write_text(code)
    (folder / "evil.py").write_text(code)
    (folder / "extensions.py").write_text(code)
    t = numpy_helper.from_array(np.arange(4, dtype=np.float32), "w")
    model = folder / "m.onnx"
    model.write_bytes(_relu_model(t).SerializeToString())
    monkeypatch.chdir(folder)
    (tmp_path / "out").mkdir()
    monkeypatch.delenv("XMO_EXTENSIONS", raising=False)
    xmo.save_model(xmo.convert_model(model), tmp_path / "out" / "m.xml")
    assert main(["convert", str(model), "-o", str(tmp_path / "out" / "m2.xml")]) == 0
    assert not sentinel.exists()


def test_only_extensions_py_imports_files():
    """Loading Python files from disk happens in one place (xmo/extensions.py),
    which loads only the folders passed to it."""
    pat = re.compile(r"spec_from_file_location|exec_module|SourceFileLoader|runpy\.|__import__\(")
    users = sorted(
        str(p.relative_to(ROOT)) for p in _SOURCES
        if "tests" not in p.relative_to(ROOT).parts and pat.search(p.read_text(errors="replace"))
    )
    # tools/gen_tf_dialect.py: a developer generator loading the repo's own dtypes.py
    assert users == ["extensions.py", "tools/gen_tf_dialect.py"], users
