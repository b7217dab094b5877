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
    # The CPU backend's runner compiles one function per schedule from source
    # made of indices only (no model name or value enters it: checked by
    # tests/test_cpu_runner.py::test_model_names_never_enter_the_source).
    exec_of_own_source = {"backends/cpu/runner.py"}
    hits, loads = [], []
    for p in _SOURCES:
        if p.resolve() == this:
            continue
        text = p.read_text(encoding="utf-8", errors="replace")
        rel = str(p.relative_to(ROOT))
        for i, line in enumerate(text.splitlines(), 1):
            code = line.split("#", 1)[0]
            if rel in exec_of_own_source:
                code = code.replace("exec(code, g)", "")
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


# ---------------------------------------------------------------------------
# External data: a hard link is not a way out of the model's folder
# ---------------------------------------------------------------------------


def test_external_data_hard_link_to_a_file_outside_is_refused(tmp_path, capsys):
    """The folder check is path-based; a hard link has no other path to check,
    so external data must be a file with one link (copy it into the folder)."""
    outside = tmp_path / "outside"
    outside.mkdir()
    secret = outside / "secret.bin"
    secret.write_bytes(np.arange(4, dtype=np.float32).tobytes())
    path = _external(tmp_path / "m", "w.bin")
    os.link(secret, tmp_path / "m" / "w.bin")
    with pytest.raises(OnnxFrontendError, match=r"w\.bin' has 2 hard links"):
        load_onnx(path, make_context())
    out = tmp_path / "out"
    assert main(["convert", str(path), "-o", str(out / "m.xml")]) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "hard links" in err
    assert not out.exists()
    # once the link is gone the same bytes are accepted: a file of its own
    os.unlink(tmp_path / "m" / "w.bin")
    (tmp_path / "m" / "w.bin").write_bytes(secret.read_bytes())
    load_onnx(path, make_context())


# ---------------------------------------------------------------------------
# Every input path must be a regular file: FIFOs and devices are never opened
# ---------------------------------------------------------------------------


class _Hang(BaseException):
    pass


def _run_with_deadline(fn, seconds: float = 20.0):  # noqa: ANN001, ANN202
    """``fn()``; a FIFO that is opened blocks forever: fail instead of hanging."""
    import signal

    def alarm(signum, frame):  # noqa: ANN001
        raise _Hang()

    old = signal.signal(signal.SIGALRM, alarm)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        return fn()
    except _Hang:
        pytest.fail(f"no answer within {seconds} s (an input was opened as a FIFO?)")
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, old)


def _fifo_case(kind: str, d: Path) -> tuple[str, list[str]]:
    """(tool, argv) of a command whose input ``kind`` is a FIFO (or a device)."""
    import xmo

    out = str(d / "out" / "m.xml")
    demo = str(ROOT / "models" / "demo.onnx")
    if kind in ("model.xml", "model.mlir", "model.onnx", "model.pb", "model.pbtxt"):
        os.mkfifo(d / kind)
        return "xmo", ["convert", str(d / kind), "-o", out]
    if kind == "device.mlir":  # /dev/zero would be read forever
        os.symlink("/dev/zero", d / "m.mlir")
        return "xmo", ["convert", str(d / "m.mlir"), "-o", out]
    if kind == "ir.bin":
        xmo.save_model(xmo.convert_model(ROOT / "models" / "demo.mlir"), d / "m.xml")
        os.unlink(d / "m.bin")
        os.mkfifo(d / "m.bin")
        return "xmo", ["convert", str(d / "m.xml"), "-o", out]
    if kind == "extension.py":
        (d / "ext" / "ops").mkdir(parents=True)
        os.mkfifo(d / "ext" / "ops" / "op.py")
        return "xmo", ["convert", demo, "-o", out, "--extensions", str(d / "ext")]
    if kind == "transformations_config":
        os.mkfifo(d / "cfg.json")
        return "xmo", ["convert", demo, "-o", out, "--transformations_config", str(d / "cfg.json")]
    if kind == "input.npy":
        os.mkfifo(d / "x.npy")
        return "xmo", ["run", demo, "--input", f"image={d / 'x.npy'}"]
    if kind in ("xmo-opt.mlir", "xmo-opt.xml", "xmo-opt.onnx"):
        name = "m." + kind.split(".")[1]
        os.mkfifo(d / name)
        return "xmo-opt", [str(d / name), "-t", "ov-ir", "-o", out]
    raise AssertionError(kind)


FIFO_KINDS = ["model.xml", "model.mlir", "model.onnx", "model.pb", "model.pbtxt", "device.mlir",
              "ir.bin", "extension.py", "transformations_config", "input.npy", "xmo-opt.mlir",
              "xmo-opt.xml", "xmo-opt.onnx"]


def _capped_process(tool: str, argv: list[str]) -> tuple[int, str]:
    """Run the command in a process of its own under a 2 GiB address-space
    cap and a time limit (reading /dev/zero would take all the memory)."""
    import resource
    import subprocess
    import sys

    def cap() -> None:
        resource.setrlimit(resource.RLIMIT_AS, (2 << 30, 2 << 30))

    module = "xmo.tools.xmo_main" if tool == "xmo" else "xmo.tools.xmo_opt"
    r = subprocess.run([sys.executable, "-m", module, *argv], capture_output=True, text=True,
                       timeout=120, preexec_fn=cap, check=False,
                       env=dict(os.environ, XMO_NO_PROGRESS="1"))
    return r.returncode, r.stderr


@pytest.mark.parametrize("kind", FIFO_KINDS)
def test_fifo_and_device_inputs_are_refused_not_opened(kind, tmp_path, capsys):
    from xmo.tools import xmo_opt

    tool, argv = _fifo_case(kind, tmp_path)
    if kind.startswith("device"):
        rc, err = _capped_process(tool, argv)
    else:
        run = main if tool == "xmo" else xmo_opt.main
        rc = _run_with_deadline(lambda: run(argv))
        err = capsys.readouterr().err
    assert rc == 1, err
    assert err.count("\n") == 1 and err.startswith(f"{tool}: error: "), err
    assert re.search(r"(a FIFO \(named pipe\)|a character device), not a regular file", err), err
    assert not (tmp_path / "out").exists()


# ---------------------------------------------------------------------------
# .mlir input: a size limit, and parse errors as one clean line
# ---------------------------------------------------------------------------


def test_mlir_size_limit(tmp_path, monkeypatch, capsys):
    from xmo import mlir_file
    from xmo.tools import xmo_opt

    src = ROOT / "models" / "demo.mlir"
    monkeypatch.setattr(mlir_file, "MAX_MLIR_BYTES", src.stat().st_size - 1)
    out = tmp_path / "out" / "m.xml"
    assert main(["convert", str(src), "-o", str(out)]) == 1
    err = capsys.readouterr().err
    assert re.fullmatch(r"xmo: error: .*demo.mlir: \d+ bytes, more than the \d+ bytes a \.mlir "
                        r"file may have \(.*\)\n", err), err
    assert xmo_opt.main([str(src)]) == 1
    assert "more than the" in capsys.readouterr().err
    monkeypatch.setattr(mlir_file, "MAX_MLIR_BYTES", src.stat().st_size)
    assert main(["convert", str(src), "-o", str(out)]) == 0  # exactly at the limit: read


@pytest.mark.parametrize("tool", ["xmo", "xmo-opt"])
def test_mlir_parse_error_with_a_nul_is_one_clean_line(tool, tmp_path, capsys):
    from xmo.tools import xmo_opt

    bad = tmp_path / "nul.mlir"
    bad.write_bytes(b'builtin.module {\n  %0 = "ov.Parameter"() \x00\x1b[2J : () -> tensor<2xf32>\n}\n')
    if tool == "xmo":
        rc = main(["convert", str(bad), "-o", str(tmp_path / "out" / "m.xml")])
    else:
        rc = xmo_opt.main([str(bad)])
    err = capsys.readouterr().err
    assert rc == 1 and err.count("\n") == 1 and err.endswith("\n")
    assert all(c.isprintable() for c in err[:-1]), repr(err)
    assert "nul.mlir:2:" in err and "\\x00" in err
