"""Robustness fuzzing of ``xmo convert`` and ``xmo-opt`` on malformed inputs.

Every case is a model file (or a few files: IR ``.xml`` + ``.bin``, ONNX
external data) derived from a valid model by one mutation: truncations, byte
flips, dangling names, cycles, duplicate names, missing weights, wrong
attribute types, negative / enormous / zero dims, payloads beyond the file,
unsafe paths, deep nesting. Kinds: ``onnx``, ``pb``, ``pbtxt``, ``ir``,
``mlir``, ``kaldi`` (nnet1 / nnet3, text and binary), ``mxnet`` (a ``-symbol.json`` + ``.params`` pair: byte mutations of
either, arrays missing / extra / of the wrong shape, dangling and backward
input entries, deep JSON, bad magic), ``caffe`` (a deploy ``.prototxt`` with its
``.caffemodel``); ``files``, structure-aware cases of the files around a model
rather than its bytes: external data hard-linked to a file outside the
model's folder, FIFOs and devices where a model, an IR ``.bin``, external
data, an extension file or an ``--input`` ``.npy`` is expected, inputs
truncated while the command runs (in a process of their own: a SIGBUS must
end in one line), and ``xmo run --output-dir`` with output names that
collide when made file names carelessly; and ``bombs``, small models that
ask for huge resources (:mod:`xmo.tools.resource_bombs`: doubling chains,
shape and constant bombs, nested and doubling loops, many initializers,
enormous IR dims), each run in a process of its own under a 2 GiB
address-space cap.

A case passes when ``xmo convert`` either

* fails cleanly: non-zero exit code, stderr's error is one line
  ``xmo: error: ...`` (no traceback), no file left in the output folder, or
* succeeds (only for random mutations that may leave a valid model):
  exit code 0 with the ``.xml`` and ``.bin`` written;

and finishes within the time limit. Cases built to be invalid must fail.
``xmo run`` cases pass when every output has a file of its own. Cases that
truncate a file (or read a device) always run in a process of their own,
under a 2 GiB address-space cap. ``bombs`` must not run out of memory (the
memory budget refuses first).
``--tool xmo-opt`` runs the same cases through ``xmo-opt MODEL [-p
legalization] -t ov-ir -o m.xml`` (its error line starts ``xmo-opt: error:``).

    python -m xmo.tools.fuzz_inputs --cases 2000 --seed 1
    python -m xmo.tools.fuzz_inputs --cases 50 --subprocess   # real processes
    python -m xmo.tools.fuzz_inputs --cases 500 --tool xmo-opt
    python -m xmo.tools.fuzz_inputs --kinds bombs --cases 3000 --memory-cap 2G

``tests/test_robustness.py`` runs a few hundred cases of the same generator.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import os
import random
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
TF_DATA = ROOT / "tests" / "data" / "tf"
KINDS = ("onnx", "pb", "pbtxt", "ir", "mlir", "kaldi", "mxnet", "caffe")
#: structure-aware kinds (the files around a model, not its bytes)
FILE_KINDS = ("files",)
#: structure-aware resource bombs (run in capped processes of their own)
BOMB_KINDS = ("bombs",)
ALL_KINDS = KINDS + FILE_KINDS + BOMB_KINDS
#: address-space cap of a case's own process
PROCESS_MEMORY_CAP = 2 << 30
TOOLS = ("xmo", "xmo-opt")
#: xmo-opt passes that legalize a framework dialect before ``-t ov-ir``
_OPT_PIPELINES = {
    "onnx": "onnx-canonicalize,convert-onnx-to-ov",
    "pb": "convert-tf-to-ov",
    "pbtxt": "convert-tf-to-ov",
    "kaldi": "convert-kaldi-to-ov",
    "mxnet": "convert-mxnet-to-ov",
    "caffe": "convert-caffe-to-ov",
}


def command(case: Case, model: Path, out: Path, tool: str) -> list[str]:
    """Arguments of ``tool`` (without the program) converting ``case``
    (``xmo run`` cases: running it, outputs to ``out``)."""
    args = [a.replace("{in}", str(model.parent)) for a in case.args]
    if case.command == "run":
        return ["run", str(model), "--output-dir", str(out), *args]
    if tool == "xmo":
        return ["convert", str(model), "-o", str(out / "m.xml"), *args]
    pipeline = _OPT_PIPELINES.get(case.kind) or _OPT_PIPELINES.get(Path(case.model).suffix[1:])
    if pipeline and case.kind in BOMB_KINDS:  # bombs are for constant folding too
        pipeline += ",ov-constant-fold"
    return [str(model), *(["-p", pipeline] if pipeline else []), "-t", "ov-ir",
            "-o", str(out / "m.xml")]


@dataclass
class Case:
    kind: str
    name: str
    model: str  # file name of the model among ``files``
    files: dict[str, bytes]
    must_fail: bool = True
    args: list[str] = field(default_factory=list)
    symlinks: dict[str, str] = field(default_factory=dict)  # link name -> target (absolute)
    #: files made FIFOs (named pipes) in the input folder
    fifos: list[str] = field(default_factory=list)
    #: files beside the input folder (outside the model's folder)
    outside: dict[str, bytes] = field(default_factory=dict)
    #: link name in the input folder -> a file of ``outside`` (a hard link)
    hardlinks: dict[str, str] = field(default_factory=dict)
    #: (file of the input folder, new size, seconds, from when the file is
    #: mapped (else from the start)): truncated while the command runs
    truncate: tuple[str, int, float, bool] | None = None
    #: "convert", or "run" (``xmo run MODEL --output-dir OUT``; xmo only)
    command: str = "convert"
    #: the tools the case is for
    tools: tuple[str, ...] = ("xmo", "xmo-opt")
    #: ``xmo run`` cases: the model's output names (each gets a file of its own)
    outputs: list[str] = field(default_factory=list)
    #: the output folder's files (name -> bytes) when ``xmo`` succeeds: what it
    #: writes from the intact inputs (a truncated input must not change them)
    expect: dict[str, bytes] | None = None

    def __str__(self) -> str:
        return f"{self.kind}:{self.name}"

    @property
    def needs_process(self) -> bool:
        """Whether the case runs in a process of its own (a truncation may
        end the process by SIGBUS; a device may be read without end; a
        resource bomb runs under :data:`PROCESS_MEMORY_CAP`)."""
        return (self.kind in BOMB_KINDS or self.truncate is not None
                or any(t.startswith("/dev/") for t in self.symlinks.values()))


@dataclass
class Outcome:
    case: Case
    rc: int | None
    seconds: float
    problem: str | None  # None: the case passed
    stderr: str = ""


# ---------------------------------------------------------------------------
# Base models
# ---------------------------------------------------------------------------


def _onnx_base() -> object:
    """A small valid ONNX model: Conv, Relu, broadcasting Add, Reshape, MatMul."""
    import onnx
    from onnx import TensorProto, helper, numpy_helper

    rng = np.random.default_rng(0)
    w = numpy_helper.from_array(rng.standard_normal((4, 3, 3, 3)).astype(np.float32), "w")
    b = numpy_helper.from_array(rng.standard_normal((1, 4, 1, 1)).astype(np.float32), "b")
    shape = numpy_helper.from_array(np.array([1, -1], np.int64), "shape")
    fc = numpy_helper.from_array(rng.standard_normal((4 * 6 * 6, 5)).astype(np.float32), "fc")
    nodes = [
        helper.make_node("Conv", ["x", "w"], ["c"], name="conv", pads=[1, 1, 1, 1], strides=[1, 1]),
        helper.make_node("Relu", ["c"], ["r"], name="relu"),
        helper.make_node("Add", ["r", "b"], ["a"], name="add"),
        helper.make_node("Reshape", ["a", "shape"], ["f"], name="flat"),
        helper.make_node("MatMul", ["f", "fc"], ["y"], name="fc"),
    ]
    graph = helper.make_graph(
        nodes,
        "fuzz",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 3, 6, 6])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 5])],
        [w, b, shape, fc],
    )
    m = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    m.ir_version = 8
    onnx.checker.check_model(m)
    return m


_CACHE: dict[str, object] = {}


def _cached(key: str, make: Callable[[], object]) -> object:
    if key not in _CACHE:
        _CACHE[key] = make()
    return _CACHE[key]


def _ir_base() -> tuple[bytes, bytes]:
    """The ONNX base model converted to IR: (xml, bin)."""
    import xmo

    with tempfile.TemporaryDirectory() as d:
        xml = Path(d) / "m.xml"
        xmo.save_model(xmo.convert_model(_onnx_base()), xml)
        return xml.read_bytes(), xml.with_suffix(".bin").read_bytes()


def _tf_bases() -> list[tuple[str, bytes]]:
    return [(p.name, p.read_bytes()) for p in sorted(TF_DATA.glob("*.pb")) if p.stat().st_size < 100_000]


# ---------------------------------------------------------------------------
# Byte-level mutations (the result may still be valid)
# ---------------------------------------------------------------------------


def _truncate(rng: random.Random, data: bytes) -> tuple[str, bytes]:
    n = rng.randrange(0, len(data))
    return f"truncate@{n}", data[:n]


def _flip(rng: random.Random, data: bytes) -> tuple[str, bytes]:
    b = bytearray(data)
    k = rng.choice((1, 1, 2, 4, 16))
    for _ in range(k):
        i = rng.randrange(len(b))
        b[i] = rng.randrange(256)
    return f"flip{k}", bytes(b)


def _byte_case(rng: random.Random, kind: str, model: str, data: bytes, extra: dict | None = None) -> Case:
    name, out = rng.choice((_truncate, _flip))(rng, data)
    return Case(kind, name, model, {model: out, **(extra or {})}, must_fail=False)


# ---------------------------------------------------------------------------
# ONNX
# ---------------------------------------------------------------------------


def _onnx_structural(rng: random.Random) -> Case:
    import onnx
    from onnx import helper

    m = onnx.ModelProto()
    m.CopyFrom(_cached("onnx", _onnx_base))
    g = m.graph
    files: dict[str, bytes] = {}
    symlinks: dict[str, str] = {}
    must_fail = True
    kind = rng.choice(
        (
            "dangling_input", "cycle", "duplicate_output", "duplicate_node_output",
            "missing_initializer", "attr_type", "attr_string", "negative_dim",
            "enormous_dim", "zero_size_weight", "declared_size_beyond_data",
            "external_dotdot", "external_absolute", "external_symlink", "external_beyond",
            "bad_dtype", "no_output", "unknown_opset", "bad_perm", "empty_graph",
            "output_not_produced", "huge_reshape", "bad_reshape", "rank_mismatch",
            "zero_dim_input", "control_char_names",
        )
    )
    node = {n.name: n for n in g.node}
    init = {t.name: t for t in g.initializer}
    if kind == "dangling_input":
        node[rng.choice(list(node))].input[0] = "nowhere"
    elif kind == "cycle":
        node["conv"].input[0] = "y"
    elif kind == "duplicate_output":
        node["relu"].output[0] = "c"
    elif kind == "duplicate_node_output":
        node["add"].output[0] = "r"
    elif kind == "missing_initializer":
        victim = rng.choice(["w", "b", "fc", "shape"])
        g.initializer.remove(init[victim])
    elif kind == "attr_type":
        a = next(a for a in node["conv"].attribute if a.name == "strides")
        a.CopyFrom(helper.make_attribute("strides", 1.5))
    elif kind == "attr_string":
        a = next(a for a in node["conv"].attribute if a.name == "pads")
        a.CopyFrom(helper.make_attribute("pads", "same"))
    elif kind == "negative_dim":
        g.input[0].type.tensor_type.shape.dim[rng.randrange(4)].dim_value = -rng.randrange(2, 100)
    elif kind == "enormous_dim":
        g.input[0].type.tensor_type.shape.dim[rng.randrange(4)].dim_value = 1 << rng.choice((31, 40, 62))
    elif kind == "zero_size_weight":
        t = init[rng.choice(["w", "fc"])]
        t.dims[0] = 0
        t.raw_data = b""
    elif kind == "declared_size_beyond_data":
        t = init[rng.choice(["w", "fc", "b"])]
        t.dims[0] = rng.choice((t.dims[0] + 1, 1 << 20, 1 << 40))
    elif kind.startswith("external"):
        t = init["fc"]
        payload = t.raw_data
        t.ClearField("raw_data")
        t.data_location = onnx.TensorProto.EXTERNAL
        loc = {
            "external_dotdot": "../outside.bin",
            "external_absolute": "/etc/passwd",
            "external_symlink": "link.bin",
            "external_beyond": "w.bin",
        }[kind]
        if kind == "external_beyond":
            files["w.bin"] = payload[: len(payload) // 2]
        if kind == "external_symlink":
            symlinks["link.bin"] = "/etc/hostname" if os.path.exists("/etc/hostname") else "/etc/passwd"
        t.external_data.add(key="location", value=loc)
    elif kind == "bad_dtype":
        init["w"].data_type = rng.choice((0, 99, 8))  # undefined, unknown, string
    elif kind == "no_output":
        del g.output[:]
    elif kind == "unknown_opset":
        m.opset_import[0].version = rng.choice((0, 999))
        must_fail = m.opset_import[0].version == 0  # newer: the latest known schemas
    elif kind == "bad_perm":
        n = helper.make_node("Transpose", ["y"], ["t"], name="tr", perm=[0, 5])
        g.node.append(n)
        g.output[0].name = "t"
        g.output[0].type.tensor_type.ClearField("shape")
    elif kind == "empty_graph":
        del g.node[:]
    elif kind == "output_not_produced":
        g.output[0].name = "ghost"
    elif kind == "huge_reshape":
        init["shape"].raw_data = np.array([1 << 40, 1 << 40], np.int64).tobytes()
    elif kind == "bad_reshape":
        init["shape"].raw_data = np.array([7, -1], np.int64).tobytes()
    elif kind == "control_char_names":  # names reach the error line escaped
        n = node[rng.choice(list(node))]
        orig_op, orig_in = n.op_type, n.input[0]
        n.name = "evil\nname\x1c\r"
        n.op_type = rng.choice(("Frobnicate\n", orig_op))
        n.input[0] = rng.choice(("dangling\n\x85", orig_in))
        must_fail = n.op_type != orig_op or n.input[0] != orig_in
    elif kind == "zero_dim_input":  # an empty tensor flowing through: may convert
        g.input[0].type.tensor_type.shape.dim[rng.choice((0, 2))].dim_value = 0
        must_fail = False
    elif kind == "rank_mismatch":
        del g.input[0].type.tensor_type.shape.dim[-1]
    data = m.SerializeToString()
    return Case("onnx", kind, "m.onnx", {"m.onnx": data, **files}, must_fail=must_fail,
                symlinks=symlinks)


def onnx_case(rng: random.Random) -> Case:
    if rng.random() < 0.4:
        import onnx

        if rng.random() < 0.5:
            data = _cached("onnx_bytes", lambda: onnx.ModelProto.SerializeToString(_onnx_base()))
        else:
            data = _cached("demo_bytes", (ROOT / "models" / "demo.onnx").read_bytes)
        return _byte_case(rng, "onnx", "m.onnx", data)  # type: ignore[arg-type]
    return _onnx_structural(rng)


# ---------------------------------------------------------------------------
# TensorFlow GraphDef
# ---------------------------------------------------------------------------


def _tf_structural(rng: random.Random, text: bool) -> Case:
    from xmo.frontends.tf import schema

    name, data = rng.choice(_cached("tf", _tf_bases))  # type: ignore[arg-type]
    g = schema.parse_binary(data)
    nodes = list(g.node)
    with_inputs = [n for n in nodes if any(not i.startswith("^") for i in n.input)]
    consts = [n for n in nodes if n.op == "Const"]
    phs = [n for n in nodes if n.op == "Placeholder"]
    kind = rng.choice(
        (
            "dangling_input", "cycle", "duplicate_name", "bad_port", "const_size_mismatch",
            "const_beyond_data", "negative_dim", "enormous_dim", "bad_dtype", "missing_attr",
            "wrong_attr_type", "no_nodes", "empty_name", "placeholder_neg_dim",
        )
    )
    if kind == "dangling_input":
        rng.choice(with_inputs).input[0] = "nowhere"
    elif kind == "cycle":
        # a node reading its own output, or two nodes reading each other
        a = rng.choice(with_inputs)
        a.input[0] = a.name
    elif kind == "duplicate_name":
        rng.choice(nodes[1:]).name = nodes[0].name
    elif kind == "bad_port":
        n = rng.choice(with_inputs)
        n.input[0] = n.input[0].split(":")[0] + ":" + str(rng.choice((7, 99999, -1)))
    elif kind == "const_size_mismatch":
        t = rng.choice(consts).attr["value"].tensor
        t.tensor_shape.dim.add(size=rng.choice((3, 1000)))
        t.tensor_content = b"\0" * 5
    elif kind == "const_beyond_data":
        t = rng.choice(consts).attr["value"].tensor
        del t.tensor_shape.dim[:]
        t.tensor_shape.dim.add(size=1 << 40)
        t.tensor_content = b"\0" * 16
    elif kind == "negative_dim":
        t = rng.choice(consts).attr["value"].tensor
        t.tensor_shape.dim.add(size=-rng.randrange(2, 50))
    elif kind == "enormous_dim":
        t = rng.choice(consts).attr["value"].tensor
        del t.tensor_shape.dim[:]
        t.tensor_shape.dim.add(size=1 << 31)
        t.tensor_shape.dim.add(size=1 << 31)
    elif kind == "bad_dtype":
        n = rng.choice(consts)
        n.attr["value"].tensor.dtype = rng.choice((0, 77, 200))
        n.attr["dtype"].type = n.attr["value"].tensor.dtype
    elif kind == "missing_attr":
        n = rng.choice([n for n in nodes if n.attr])
        del n.attr[rng.choice(sorted(n.attr))]
        must = False  # an attribute with a default may go
        return _tf_finish(g, text, name, kind, must)
    elif kind == "wrong_attr_type":
        n = rng.choice([n for n in nodes if any(not k.startswith("_") for k in n.attr)])
        key = rng.choice(sorted(k for k in n.attr if not k.startswith("_")))  # "_": dropped
        n.attr[key].Clear()
        n.attr[key].s = b"\xff\xfe"
        return _tf_finish(g, text, name, kind, n.op not in ("NoOp",))
    elif kind == "no_nodes":
        del g.node[:]
    elif kind == "empty_name":
        rng.choice(nodes).name = ""
    elif kind == "placeholder_neg_dim":
        if not phs:
            rng.choice(with_inputs).input[0] = "nowhere"
        else:
            p = rng.choice(phs)
            p.attr["shape"].shape.dim.add(size=-7)
    return _tf_finish(g, text, name, kind, True)


def _tf_finish(g: object, text: bool, base: str, kind: str, must_fail: bool) -> Case:
    from google.protobuf import text_format

    if text:
        return Case("pbtxt", f"{base}:{kind}", "m.pbtxt",
                    {"m.pbtxt": text_format.MessageToString(g).encode()}, must_fail=must_fail)
    return Case("pb", f"{base}:{kind}", "m.pb", {"m.pb": g.SerializeToString()},  # type: ignore[attr-defined]
                must_fail=must_fail)


def pb_case(rng: random.Random) -> Case:
    if rng.random() < 0.4:
        name, data = rng.choice(_cached("tf", _tf_bases))  # type: ignore[arg-type]
        c = _byte_case(rng, "pb", "m.pb", data)
        c.name = f"{name}:{c.name}"
        return c
    return _tf_structural(rng, text=False)


def pbtxt_case(rng: random.Random) -> Case:
    r = rng.random()
    if r < 0.3:
        text = (TF_DATA / "shapes.pbtxt").read_bytes()
        c = _byte_case(rng, "pbtxt", "m.pbtxt", text)
        return c
    if r < 0.4:
        depth = rng.choice((200, 5000, 100000))
        nested = b'node { name: "a" op: "Const" attr { key: "value" value { list { ' + \
            b"func { attr { key: \"k\" value { " * depth + b"} } }" * depth + b" } } } }"
        return Case("pbtxt", f"deep_nesting{depth}", "m.pbtxt", {"m.pbtxt": nested})
    if r < 0.45:
        return Case("pbtxt", "garbage", "m.pbtxt",
                    {"m.pbtxt": bytes(rng.randrange(256) for _ in range(rng.randrange(1, 200)))})
    return _tf_structural(rng, text=True)


# ---------------------------------------------------------------------------
# OpenVINO IR
# ---------------------------------------------------------------------------


def ir_case(rng: random.Random) -> Case:
    import re

    xml_b, bin_b = _cached("ir", _ir_base)  # type: ignore[misc]
    xml = xml_b.decode()
    kind = rng.choice(
        (
            "bytes_xml", "truncate_bin", "missing_bin", "drop_edge", "bad_port", "bad_layer",
            "offset_beyond", "size_beyond", "duplicate_layer", "bad_precision", "bad_dim",
            "negative_dim", "entity_expansion", "unknown_type", "no_layers", "huge_offset",
            "dup_edge",
        )
    )
    files = {"m.bin": bin_b}
    must_fail = True
    edges = re.findall(r"<edge [^>]*/>", xml)
    if kind == "bytes_xml":
        name, out = rng.choice((_truncate, _flip))(rng, xml_b)
        return Case("ir", f"xml_{name}", "m.xml", {"m.xml": out, "m.bin": bin_b}, must_fail=False)
    if kind == "truncate_bin":
        files["m.bin"] = bin_b[: rng.randrange(len(bin_b))]
    elif kind == "missing_bin":
        del files["m.bin"]
    elif kind == "drop_edge":
        xml = xml.replace(rng.choice(edges), "", 1)
    elif kind == "bad_port":
        e = rng.choice(edges)
        xml = xml.replace(e, re.sub(r'to-port="\d+"', 'to-port="77"', e), 1)
    elif kind == "bad_layer":
        e = rng.choice(edges)
        xml = xml.replace(e, re.sub(r'from-layer="\d+"', 'from-layer="9999"', e), 1)
    elif kind == "dup_edge":
        e = rng.choice(edges)
        xml = xml.replace(e, e + e, 1)
    elif kind in ("offset_beyond", "size_beyond", "huge_offset"):
        datas = re.findall(r'offset="\d+" size="\d+"', xml)
        d = rng.choice(datas)
        off, size = map(int, re.findall(r"\d+", d))
        if kind == "offset_beyond":
            new = f'offset="{len(bin_b) + 8}" size="{size}"'
        elif kind == "size_beyond":
            new = f'offset="{off}" size="{size + len(bin_b)}"'
        else:
            new = f'offset="{1 << 62}" size="{1 << 62}"'
        xml = xml.replace(d, new, 1)
    elif kind == "duplicate_layer":
        ids = re.findall(r'<layer id="(\d+)"', xml)
        xml = xml.replace(f'<layer id="{ids[-1]}"', f'<layer id="{ids[0]}"', 1)
    elif kind == "bad_precision":
        precs = re.findall(r'precision="[A-Z0-9]+"', xml)
        xml = xml.replace(rng.choice(precs), 'precision="FP7"', 1)
    elif kind in ("bad_dim", "negative_dim"):
        dims = re.findall(r"<dim>\d+</dim>", xml)
        d = rng.choice(dims)
        xml = xml.replace(d, "<dim>abc</dim>" if kind == "bad_dim" else "<dim>-5</dim>", 1)
    elif kind == "entity_expansion":
        lol = (
            '<?xml version="1.0"?>\n<!DOCTYPE net [\n<!ENTITY a "aaaaaaaaaa">\n'
            + "".join(f'<!ENTITY {chr(98 + i)} "{("&" + chr(97 + i) + ";") * 10}">\n' for i in range(8))
            + ']>\n<net name="&i;" version="11"><layers/><edges/></net>\n'
        )
        xml = lol
    elif kind == "unknown_type":
        types = re.findall(r'type="[A-Za-z]+" version="opset\d+"', xml)
        xml = xml.replace(rng.choice(types), 'type="Frobnicate" version="opset1"', 1)
    elif kind == "no_layers":
        xml = re.sub(r"<layers>.*</layers>", "<layers></layers>", xml, flags=re.DOTALL)
    return Case("ir", kind, "m.xml", {"m.xml": xml.encode(), **files}, must_fail=must_fail)


# ---------------------------------------------------------------------------
# MLIR
# ---------------------------------------------------------------------------


def mlir_case(rng: random.Random) -> Case:
    src = rng.choice(sorted((ROOT / "tests" / "data" / "models").glob("*.mlir")))
    text = src.read_text()
    kind = rng.choice(("bytes", "drop_line", "unknown_op", "bad_type", "bad_operand", "empty",
                       "deep_nesting", "not_utf8"))
    lines = text.splitlines()
    must_fail = True
    body = [i for i, ln in enumerate(lines) if '= "ov.' in ln]
    if kind == "bytes":
        c = _byte_case(rng, "mlir", "m.mlir", text.encode())
        c.name = f"{src.stem}:{c.name}"
        return c
    if kind == "drop_line":
        del lines[rng.choice(body)]  # a later op reads a value no longer defined
        must_fail = False  # unless nothing reads it
    elif kind == "unknown_op":
        i = rng.choice(body)
        lines[i] = lines[i].replace('"ov.', '"ov.Frobnicate', 1)
    elif kind == "bad_type":
        i = rng.choice(body)
        lines[i] = lines[i].replace("tensor<", "tensor<7x", 1) if "-> tensor<" in lines[i] else "%zz = garbage"
        must_fail = False  # a shape that does not matter may pass
    elif kind == "bad_operand":
        i = rng.choice(body)
        lines[i] = lines[i].replace('"(%', '"(%undefined_value, %', 1) if '"(%' in lines[i] else "@@"
    elif kind == "empty":
        lines = []
        must_fail = True
    elif kind == "deep_nesting":
        lines = ["builtin.module {"] + ["builtin.module {"] * 5000 + ["}"] * 5001
    elif kind == "not_utf8":
        return Case("mlir", kind, "m.mlir", {"m.mlir": b"\xff\xfe" + text.encode()})
    return Case("mlir", f"{src.stem}:{kind}", "m.mlir", {"m.mlir": "\n".join(lines).encode()},
                must_fail=must_fail)


# ---------------------------------------------------------------------------
# Files around a model (structure-aware)
# ---------------------------------------------------------------------------

#: names that collide when outputs are made file names by replacing characters
_COLLIDING_NAMES = ("a/b", "a_b", "a:b", "a%2Fb", "a b", ".", "..", "A", "a", "x:0", "x_0",
                    "dir/../x", "\u00e9", "e\u0301", "\\", "\x01")


def weights_model(k: int, fold: bool) -> tuple[bytes, bytes]:
    """(an ONNX model y = x @ w, or x @ (w + w) with ``fold``, with its k x k
    f32 ``w`` in external data ``w.bin``; the bytes of ``w.bin``)."""
    from onnx import TensorProto, helper

    t = TensorProto(name="w", data_type=TensorProto.FLOAT, dims=[k, k])
    t.data_location = TensorProto.EXTERNAL
    t.external_data.add(key="location", value="w.bin")
    nodes = [helper.make_node("MatMul", ["x", "w2" if fold else "w"], ["y"], name="mm")]
    if fold:
        nodes.insert(0, helper.make_node("Add", ["w", "w"], ["w2"], name="twice"))
    g = helper.make_graph(nodes, "g", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, k])],
                          [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, k])], [t])
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)])
    m.ir_version = 8
    w = (np.arange(k * k, dtype=np.float32) % 97).tobytes()
    return m.SerializeToString(), w


def _external_fc() -> tuple[bytes, bytes]:
    """The ONNX base model with its ``fc`` weight in external data ``w.bin``."""
    import onnx

    m = onnx.ModelProto()
    m.CopyFrom(_cached("onnx", _onnx_base))
    t = next(t for t in m.graph.initializer if t.name == "fc")
    payload = t.raw_data
    t.ClearField("raw_data")
    t.data_location = onnx.TensorProto.EXTERNAL
    t.external_data.add(key="location", value="w.bin")
    return m.SerializeToString(), payload


def _mlir_string(text: str) -> str:
    """``text`` as an MLIR string literal (``"``, ``\\`` and control characters as ``\\HH``)."""
    return '"' + "".join(f"\\{ord(c):02X}" if c in '"\\' or ord(c) < 0x20 else c
                         for c in text) + '"'


def _outputs_mlir(names: list[str]) -> bytes:
    """An ov module with one output per name (x + i: distinct, none merge)."""
    lines = ['builtin.module {',
             '  %x = "ov.Parameter"() <{friendly_name = "x", tensor_names = [["x"]]}> '
             ': () -> tensor<2xf32>']
    for i, n in enumerate(names):
        lines += [f'  %c{i} = "ov.Constant"() <{{value = dense<{i}.0> : tensor<2xf32>}}> '
                  ": () -> tensor<2xf32>",
                  f'  %y{i} = "ov.Add"(%x, %c{i}) <{{friendly_name = "r{i}", tensor_names = '
                  f"[[{_mlir_string(n)}]]}}> : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>",
                  f'  "ov.Result"(%y{i}) : (tensor<2xf32>) -> ()']
    return ("\n".join(lines) + "\n}\n").encode()


def _outputs_of(files: dict[str, bytes], model: str, run: bool) -> dict[str, bytes]:
    """The output folder ``xmo`` writes from the intact ``files`` (convert:
    ``m.xml`` and ``m.bin``; run: one ``.npy`` per output)."""
    from xmo.tools.xmo_main import main

    with tempfile.TemporaryDirectory() as d:
        case = Case("files", "expected", model, files, must_fail=False,
                    command="run" if run else "convert")
        path, out = _materialize(case, Path(d))
        if run:
            shutil.rmtree(out)
        err = io.StringIO()
        with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(err):
            rc = main(command(case, path, out, "xmo"))
        if rc != 0:
            raise RuntimeError(f"the intact {model} does not convert: {err.getvalue().strip()}")
        return {p.name: _without_input_folder(p.read_bytes(), path.parent)
                for p in sorted(out.iterdir())}


def _without_input_folder(data: bytes, folder: Path) -> bytes:
    """``data`` with the input folder's path (an IR records its input model's
    path) as ``{in}``."""
    return data.replace(os.fsencode(folder), b"{in}")


def _truncation_time(rng: random.Random) -> tuple[float, bool]:
    """When a case truncates its input: half the cases up to 0.15 s after
    the command mapped the file (while it folds, digests or copies it), the
    others up to 1.6 s after the start (before the file is read, while it is
    read, or after the command ended: it takes ~1 s)."""
    if rng.random() < 0.5:
        return rng.uniform(0.0, 0.15), True
    return rng.uniform(0.05, 1.6), False


def files_case(rng: random.Random) -> Case:
    kind = rng.choice((
        "hard_link_external", "one_link_external", "fifo_model", "fifo_bin", "fifo_external",
        "fifo_npy", "fifo_extension", "device_model", "truncate_external", "truncate_bin",
        "colliding_outputs",
    ))  # fmt: skip
    if kind in ("hard_link_external", "one_link_external"):
        model, payload = _cached("external_fc", _external_fc)  # type: ignore[misc]
        if kind == "one_link_external":  # the control: a file of its own converts
            return Case("files", kind, "m.onnx", {"m.onnx": model, "w.bin": payload}, must_fail=False)
        return Case("files", kind, "m.onnx", {"m.onnx": model}, outside={"secret.bin": payload},
                    hardlinks={"w.bin": "secret.bin"})
    if kind == "fifo_model":
        name = "m." + rng.choice(("onnx", "xml", "mlir", "pb", "pbtxt"))
        return Case("files", f"{kind}:{name}", name, {}, fifos=[name])
    if kind == "fifo_bin":
        xml_b, _ = _cached("ir", _ir_base)  # type: ignore[misc]
        return Case("files", kind, "m.xml", {"m.xml": xml_b}, fifos=["m.bin"])
    if kind == "fifo_external":
        model, _ = _cached("external_fc", _external_fc)  # type: ignore[misc]
        return Case("files", kind, "m.onnx", {"m.onnx": model}, fifos=["w.bin"])
    if kind == "fifo_npy":
        data = _cached("onnx_bytes", lambda: _onnx_base().SerializeToString())  # type: ignore[attr-defined]
        return Case("files", kind, "m.onnx", {"m.onnx": data}, fifos=["x.npy"], command="run",
                    args=["--input", "x={in}/x.npy"], tools=("xmo",))
    if kind == "fifo_extension":
        data = _cached("onnx_bytes", lambda: _onnx_base().SerializeToString())  # type: ignore[attr-defined]
        sub = rng.choice(("ops", "middle", "kernels"))
        return Case("files", f"{kind}:{sub}", "m.onnx", {"m.onnx": data}, fifos=[f"ext/{sub}/e.py"],
                    args=["--extensions", "{in}/ext"], tools=("xmo",))
    if kind == "device_model":
        name = "m." + rng.choice(("onnx", "xml", "mlir", "pb"))
        return Case("files", f"{kind}:{name}", name, {},
                    symlinks={name: rng.choice(("/dev/zero", "/dev/null"))})
    if kind == "truncate_external":
        fold = rng.random() < 0.5
        model, w = _cached(f"weights{fold}", lambda: weights_model(2048, fold))  # type: ignore[misc]
        files = {"m.onnx": model, "w.bin": w}
        size = rng.choice((0, 1000, len(w) // 2))
        expect = _cached(f"weights{fold}:out", lambda: _outputs_of(files, "m.onnx", False))
        return Case("files", f"{kind}:{'fold' if fold else 'matmul'}", "m.onnx", files,
                    must_fail=False, truncate=("w.bin", size, *_truncation_time(rng)),
                    expect=expect)  # type: ignore[arg-type]
    if kind == "truncate_bin":
        def ir() -> tuple[bytes, bytes]:
            import xmo

            model, w = _cached("weightsFalse", lambda: weights_model(2048, False))  # type: ignore[misc]
            with tempfile.TemporaryDirectory() as d:
                (Path(d) / "w.bin").write_bytes(w)  # type: ignore[arg-type]
                (Path(d) / "m.onnx").write_bytes(model)  # type: ignore[arg-type]
                xmo.save_model(xmo.convert_model(Path(d) / "m.onnx"), Path(d) / "m.xml")
                return (Path(d) / "m.xml").read_bytes(), (Path(d) / "m.bin").read_bytes()

        xml_b, bin_b = _cached("weights_ir", ir)  # type: ignore[misc]
        files = {"m.xml": xml_b, "m.bin": bin_b}
        cmd = rng.choice(("convert", "run"))
        expect = _cached(f"weights_ir:{cmd}", lambda: _outputs_of(files, "m.xml", cmd == "run"))
        return Case("files", f"{kind}:{cmd}", "m.xml", files, must_fail=False,
                    truncate=("m.bin", rng.choice((0, 1000)), *_truncation_time(rng)),
                    command=cmd, expect=expect)  # type: ignore[arg-type]
    # colliding_outputs
    names = rng.sample(_COLLIDING_NAMES, rng.randrange(2, 7))
    return Case("files", kind, "m.mlir", {"m.mlir": _outputs_mlir(names)}, must_fail=False,
                command="run", tools=("xmo",), outputs=names)


# MXNet (symbol + params pairs)
# ---------------------------------------------------------------------------

MXNET_DATA = ROOT / "tests" / "data" / "mxnet"
#: the fixture mutated (small: a bidirectional GRU and a tanh RNN)
MXNET_BASE = "gru_bi"


def _mxnet_base() -> tuple[dict, bytes]:
    folder = MXNET_DATA / MXNET_BASE
    import json

    doc = json.loads((folder / f"{MXNET_BASE}-symbol.json").read_text())
    return doc, (folder / f"{MXNET_BASE}-0000.params").read_bytes()


def _mxnet_files(doc: object, params: bytes) -> dict[str, bytes]:
    import json

    text = doc if isinstance(doc, bytes) else json.dumps(doc).encode()
    return {"m-symbol.json": text, "m-0000.params": params}


def _params_with(arrays: dict) -> bytes:
    from xmo.frontends.mxnet import write_params

    with tempfile.TemporaryDirectory() as d:
        write_params(Path(d) / "p.params", arrays)
        return (Path(d) / "p.params").read_bytes()


def mxnet_case(rng: random.Random) -> Case:
    import copy

    from xmo.frontends.mxnet.params import parse_params

    doc, params = _cached("mxnet", _mxnet_base)  # type: ignore[misc]
    doc = copy.deepcopy(doc)
    arrays = {f"{p.kind}:{p.name}": np.array(p.array)
              for p in parse_params(np.frombuffer(params, np.uint8))}
    r = rng.randrange(11)
    if r < 4:  # bytes of the params file or of the symbol
        if r < 2:
            name, out = rng.choice((_truncate, _flip))(rng, params)
            return Case("mxnet", f"params_{name}", "m-symbol.json", _mxnet_files(doc, out), must_fail=False)
        name, out = rng.choice((_truncate, _flip))(rng, _mxnet_files(doc, params)["m-symbol.json"])
        return Case("mxnet", f"symbol_{name}", "m-symbol.json", _mxnet_files(out, params), must_fail=False)
    nodes = doc["nodes"]
    ops = [i for i, n in enumerate(nodes) if n["op"] != "null" and n["inputs"]]
    if r == 4:
        arrays.pop(rng.choice(sorted(arrays)))
        return Case("mxnet", "missing_array", "m-symbol.json", _mxnet_files(doc, _params_with(arrays)))
    if r == 5:
        arrays["arg:stray_weight"] = np.zeros(3, np.float32)
        return Case("mxnet", "extra_array", "m-symbol.json", _mxnet_files(doc, _params_with(arrays)))
    if r == 6:
        key = rng.choice(sorted(arrays))
        arrays[key] = np.zeros(arrays[key].size + rng.choice((1, 7)), np.float32)
        return Case("mxnet", "array_shape", "m-symbol.json", _mxnet_files(doc, _params_with(arrays)))
    if r == 7:
        n = nodes[rng.choice(ops)]
        n["inputs"][0] = [rng.choice((len(nodes) + 5, -1)), 0, 0]
        return Case("mxnet", "dangling_entry", "m-symbol.json", _mxnet_files(doc, params))
    if r == 8:
        i = rng.choice(ops)
        nodes[i]["inputs"][0] = [i, 0, 0]
        return Case("mxnet", "backward_entry", "m-symbol.json", _mxnet_files(doc, params))
    if r == 9:
        depth = rng.choice((2000, 100000))
        text = b'{"nodes": ' + b"[" * depth + b"]" * depth + b"}"
        return Case("mxnet", f"deep_json{depth}", "m-symbol.json", _mxnet_files(text, params))
    bad = bytearray(params)
    bad[24:28] = bytes(rng.randrange(256) for _ in range(4))  # the first array's magic
    return Case("mxnet", "array_magic", "m-symbol.json", _mxnet_files(doc, bytes(bad)),
                must_fail=bytes(bad[24:28]) not in (params[24:28],))


# ---------------------------------------------------------------------------
# Resource bombs (structure-aware)
# ---------------------------------------------------------------------------


def bombs_case(rng: random.Random) -> Case:
    """A small model asking for huge resources (:func:`resource_bombs.random_bomb`)."""
    from xmo.tools import resource_bombs

    b = resource_bombs.random_bomb(rng)
    return Case("bombs", b.name, b.model, b.files, must_fail=b.must_fail)


# ---------------------------------------------------------------------------
# Kaldi
# ---------------------------------------------------------------------------

KALDI_DATA = ROOT / "tests" / "data" / "kaldi"
#: fixture -> the file name a case gives it (the suffix picks the frontend)
_KALDI_FILES = {"tdnn_bin.raw": "m.raw", "tdnn_text.raw": "m.raw", "dnn_bin.nnet": "m.nnet",
                "lstm_text.nnet": "m.nnet", "tdnn_bin.mdl": "m.mdl"}


def kaldi_case(rng: random.Random) -> Case:
    """nnet1 / nnet3 files, text and binary: byte mutations, and structural
    ones that must fail (truncation, an unknown component, a bad token, a bad
    descriptor, a node reading nothing, huge matrix dims, negative counts)."""
    src = rng.choice(sorted(_KALDI_FILES))
    model = _KALDI_FILES[src]
    data = (KALDI_DATA / src).read_bytes()
    if rng.random() < 0.4:
        c = _byte_case(rng, "kaldi", model, data)
        c.name = f"{src}:{c.name}"
        return c
    kind = rng.choice(("truncate", "unknown_component", "bad_token", "bad_descriptor",
                       "dangling_node", "huge_matrix", "negative_count", "garbage",
                       "missing_end"))
    out = data
    if kind == "truncate":
        out = data[: rng.randrange(1, max(2, len(data) - 8))]
    elif kind == "unknown_component":
        tok = b"RectifiedLinearComponent" if b"RectifiedLinear" in data else b"Softmax"
        out = data.replace(tok, b"Mystery" + tok[:3])
    elif kind == "bad_token":
        tok = rng.choice((b"<NumComponents>", b"<ComponentName>", b"<!EndOfComponent>", b"</Nnet"))
        out = data.replace(tok, tok[:-2] + b"?>", 1) if tok in data else data[:-8]
    elif kind == "bad_descriptor":
        out = data.replace(b"Offset(", b"Ofset(", 1) if b"Offset(" in data else b"\0B<Nnet> <Splice> \x04"
    elif kind == "dangling_node":
        out = data.replace(b"input=tdnn1.affine", b"input=nowhere", 1) if b"input=tdnn1" in data else data[:5]
    elif kind == "huge_matrix":
        i = data.find(b"FM ")
        out = (data[: i + 3] + b"\x04\xff\xff\xff\x0f\x04\xff\xff\xff\x0f" + data[i + 13 :]
               if i >= 0 else data.replace(b"[", b"[ 1 2\n 3", 1))
    elif kind == "negative_count":
        i = data.find(b"<NumComponents> ")
        out = (data[: i + 16] + (b"\x04\xff\xff\xff\xff" if data[:2] == b"\0B" else b"-3 ")
               + data[i + 16 + (5 if data[:2] == b"\0B" else 3):] if i >= 0 else data[:-20])
    elif kind == "garbage":
        out = bytes(rng.randrange(256) for _ in range(rng.randrange(1, 200)))
    elif kind == "missing_end":
        out = data.replace(b"</Nnet3>", b"").replace(b"</Nnet>", b"")
    return Case("kaldi", f"{src}:{kind}", model, {model: out})


# ---------------------------------------------------------------------------
# Caffe (.prototxt + .caffemodel)
# ---------------------------------------------------------------------------


def _caffe_base() -> tuple[bytes, bytes]:
    from xmo.tools.make_caffe_models import MODELS

    with tempfile.TemporaryDirectory() as d:
        proto, model = MODELS["convs"]().write(Path(d))
        return proto.read_bytes(), model.read_bytes()


def caffe_case(rng: random.Random) -> Case:
    """A deploy prototxt with its caffemodel beside it, one of them mutated:
    truncated / flipped caffemodel bytes, prototxt syntax errors, a bottom no
    layer produces, a blob whose shape does not match its data, deep nesting,
    the caffemodel alone (its own structure)."""
    proto, model = _cached("caffe", _caffe_base)  # type: ignore[misc]
    r = rng.random()
    files = {"m.prototxt": proto, "m.caffemodel": model}
    if r < 0.35:
        name, data = rng.choice((_truncate, _flip))(rng, model)
        return Case("caffe", f"caffemodel_{name}", "m.prototxt",
                    {**files, "m.caffemodel": data}, must_fail=False)
    if r < 0.5:
        c = _byte_case(rng, "caffe", "m.prototxt", proto, {"m.caffemodel": model})
        c.name = f"prototxt_{c.name}"
        return c
    if r < 0.6:
        cut = rng.randrange(1, len(proto))
        broken = proto[:cut] + b" } { :: " + proto[cut:]
        return Case("caffe", "prototxt_syntax", "m.prototxt", {**files, "m.prototxt": broken})
    if r < 0.7:
        return Case("caffe", "dangling_bottom", "m.prototxt",
                    {**files, "m.prototxt": proto.replace(b'bottom: "grp"', b'bottom: "nowhere"', 1)})
    if r < 0.8:
        from xmo.frontends.caffe import schema

        net = schema.NetParameter()
        net.ParseFromString(model)
        layer = next(lay for lay in net.layer if len(lay.blobs))
        layer.blobs[0].shape.dim[0] += rng.choice((1, 7, 1 << 40))
        return Case("caffe", "blob_shape_mismatch", "m.prototxt",
                    {**files, "m.caffemodel": net.SerializeToString()})
    if r < 0.85:
        depth = rng.choice((200, 5000, 100000))
        nested = b'layer { name: "a" type: "Scale" scale_param { filler { ' * 1 + \
            b"bias_filler { " * depth + b"} " * depth + b"} } }"
        return Case("caffe", f"deep_nesting{depth}", "m.prototxt", {"m.prototxt": nested})
    if r < 0.9:
        return Case("caffe", "unknown_layer", "m.prototxt",
                    {**files, "m.prototxt": proto.replace(b'type: "Deconvolution"', b'type: "Mystery"', 1)})
    return Case("caffe", "caffemodel_alone", "m.caffemodel", {"m.caffemodel": model},
                must_fail=False)


GENERATORS: dict[str, Callable[[random.Random], Case]] = {
    "kaldi": kaldi_case,
    "onnx": onnx_case, "pb": pb_case, "pbtxt": pbtxt_case, "ir": ir_case, "mlir": mlir_case,
    "mxnet": mxnet_case,
    "caffe": caffe_case,
    "files": files_case,
    "bombs": bombs_case,
}


def generate(n: int, seed: int, kinds: tuple[str, ...] = KINDS) -> Iterator[Case]:
    rng = random.Random(seed)
    for i in range(n):
        yield GENERATORS[kinds[i % len(kinds)]](rng)


# ---------------------------------------------------------------------------
# Running
# ---------------------------------------------------------------------------


class _Hang(BaseException):
    """Raised by the timer in an in-process run (not an ``Exception``: the CLI
    must not catch it)."""


def _materialize(case: Case, work: Path) -> tuple[Path, Path]:
    inp, out = work / "in", work / "out"
    shutil.rmtree(work, ignore_errors=True)
    inp.mkdir(parents=True)
    out.mkdir()
    for fname, data in case.files.items():
        (inp / fname).write_bytes(data)
    for link, target in case.symlinks.items():
        os.symlink(target, inp / link)
    for fifo in case.fifos:
        (inp / fifo).parent.mkdir(parents=True, exist_ok=True)
        os.mkfifo(inp / fifo)
    if case.outside:
        (work / "outside").mkdir()
    for fname, data in case.outside.items():
        (work / "outside" / fname).write_bytes(data)
    for link, target in case.hardlinks.items():
        os.link(work / "outside" / target, inp / link)
    return inp / case.model, out


def _check(case: Case, rc: int | None, stderr: str, out: Path, tool: str = "xmo") -> str | None:
    left = sorted(p.name for p in out.iterdir()) if out.is_dir() else []
    if "Traceback" in stderr:
        return "traceback on stderr"
    if rc == 0 and case.expect is not None and tool == "xmo":
        if case.must_fail:
            return "succeeded on an invalid model"
        if left != sorted(case.expect):
            return f"succeeded but wrote {left}, not {sorted(case.expect)}"
        differ = [n for n in left
                  if _without_input_folder((out / n).read_bytes(), out.parent / "in") != case.expect[n]]
        return f"succeeded but {differ} differ from what the intact input gives" if differ else None
    if rc == 0 and case.command == "run":
        return _check_run_outputs(case, stderr, out)
    if rc == 0:
        if case.must_fail:
            return "succeeded on an invalid model"
        if left != ["m.bin", "m.xml"]:
            return f"succeeded but wrote {left}"
        from xmo.backends.ir import read_ir

        try:  # what was written reads back
            read_ir(out / "m.xml")
        except Exception as e:  # noqa: BLE001
            return f"succeeded but the IR does not read back: {str(e)[:200]}"
        if case.kind in BOMB_KINDS:  # huge dims: OpenVINO must accept them too
            import openvino as ov

            try:
                ov.Core().read_model(str(out / "m.xml"))
            except RuntimeError as e:
                return f"succeeded but OpenVINO refuses the IR: {str(e).strip()[:200]}"
        return None
    if rc is None:
        return "no exit code"
    prefix = f"{tool}: error: "
    errs = [ln for ln in stderr.splitlines() if ln.startswith(prefix)]
    if len(errs) != 1:
        return f"expected one {prefix.strip()!r} line, got {len(errs)}: {stderr.strip()[-300:]!r}"
    lines = stderr.strip().splitlines()
    i = lines.index(errs[0])
    rest = lines[i + 1:]
    if rest and not ("cannot be converted" in errs[0] and all(ln.startswith(" ") for ln in rest)):
        return f"error message is not one line: {stderr.strip()[-300:]!r}"
    if len(errs[0]) > 2000:
        return "error line longer than 2000 characters"
    if case.kind in BOMB_KINDS and any(s in stderr for s in _OUT_OF_MEMORY):
        return f"ran out of memory instead of refusing: {errs[0][-200:]!r}"
    if left:
        return f"files left in the output folder: {left}"
    return None


def _check_run_outputs(case: Case, stdout_and_err: str, out: Path) -> str | None:
    """``xmo run --output-dir``: one file per output, named by its name."""
    from urllib.parse import unquote

    if case.must_fail:
        return "succeeded on an invalid model"
    files = sorted(p.name for p in out.iterdir()) if out.is_dir() else []
    got = sorted(unquote(f[: -len(".npy")]) for f in files if f.endswith(".npy"))
    if case.outputs and got != sorted(case.outputs):
        return f"outputs {sorted(case.outputs)!r} written as files {files!r}"
    return None


def _skipped(case: Case, tool: str) -> Outcome | None:
    if tool in case.tools:
        return None
    return Outcome(case, None, 0.0, None, f"(not a case for {tool})")


#: what running out of memory prints (a bomb must be refused before)
_OUT_OF_MEMORY = ("MemoryError", "Unable to allocate", "bad_alloc", "Cannot allocate memory")


#: set by :func:`cap_this_process`: cases that need a capped process run here
_THIS_PROCESS_CAPPED = False


def cap_this_process(nbytes: int = PROCESS_MEMORY_CAP) -> None:
    """Cap this process's address space; resource bombs then run in it
    (``--memory-cap``: much faster than a process each)."""
    import resource

    global _THIS_PROCESS_CAPPED
    resource.setrlimit(resource.RLIMIT_AS, (nbytes, nbytes))
    _THIS_PROCESS_CAPPED = True


def run_in_process(case: Case, work: Path, timeout: float = 30.0, tool: str = "xmo") -> Outcome:
    skipped = _skipped(case, tool)
    if skipped is not None:
        return skipped
    if case.needs_process and not (_THIS_PROCESS_CAPPED and case.kind in BOMB_KINDS):
        return run_subprocess(case, work, timeout, tool)
    if tool == "xmo":
        from xmo.tools.xmo_main import main
    else:
        from xmo.tools.xmo_opt import main

    model, out = _materialize(case, work)
    if case.command == "run":
        shutil.rmtree(out)  # created by the run
    argv = command(case, model, out, tool)
    err, std = io.StringIO(), io.StringIO()

    def _alarm(signum, frame):
        raise _Hang()

    old = signal.signal(signal.SIGALRM, _alarm)
    signal.setitimer(signal.ITIMER_REAL, timeout)
    t0 = time.perf_counter()
    rc: int | None
    problem = None
    try:
        with contextlib.redirect_stderr(err), contextlib.redirect_stdout(std):
            try:
                rc = main(argv)
            except SystemExit as e:
                rc = e.code if isinstance(e.code, int) else 1
    except _Hang:
        rc, problem = None, f"no answer within {timeout:g} s"
    except BaseException as e:  # noqa: BLE001 - report what escaped the CLI
        rc, problem = None, f"escaped the CLI: {type(e).__name__}: {str(e)[:200]}"
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, old)
    dt = time.perf_counter() - t0
    stderr = err.getvalue()
    if problem is None:
        problem = _check(case, rc, stderr, out, tool)
    return Outcome(case, rc, dt, problem, stderr)


def _cap_memory() -> None:
    import resource

    resource.setrlimit(resource.RLIMIT_AS, (PROCESS_MEMORY_CAP, PROCESS_MEMORY_CAP))


def _wait_until_mapped(p: subprocess.Popen, path: Path, timeout: float) -> None:
    """Until the process ``p`` maps ``path`` (polling ``/proc/PID/maps``), ends,
    or ``timeout`` passes."""
    maps, name = f"/proc/{p.pid}/maps", str(path)
    end = time.monotonic() + timeout
    while p.poll() is None and time.monotonic() < end:
        try:
            with open(maps) as f:
                if any(line.rstrip("\n").endswith(name) for line in f):
                    return
        except OSError:
            return
        time.sleep(0.001)


def run_subprocess(case: Case, work: Path, timeout: float = 60.0, tool: str = "xmo") -> Outcome:
    """``case`` in a process of its own (``python -m``, under
    :data:`PROCESS_MEMORY_CAP`); a case's truncation happens while it runs."""
    skipped = _skipped(case, tool)
    if skipped is not None:
        return skipped
    model, out = _materialize(case, work)
    if case.command == "run":
        shutil.rmtree(out)  # created by the run
    module = "xmo.tools.xmo_main" if tool == "xmo" else "xmo.tools.xmo_opt"
    cmd = [sys.executable, "-m", module, *command(case, model, out, tool)]
    env = dict(os.environ, XMO_NO_PROGRESS="1")
    env.pop("XMO_DEBUG", None)
    t0 = time.perf_counter()
    p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env,
                         preexec_fn=_cap_memory)
    try:
        if case.truncate is not None:
            name, size, after, from_mapped = case.truncate
            target = model.parent / name
            if from_mapped:
                _wait_until_mapped(p, target, timeout)
            try:
                p.wait(timeout=after)
            except subprocess.TimeoutExpired:
                os.truncate(target, size)
        _, stderr = p.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        p.kill()
        p.communicate()
        return Outcome(case, None, time.perf_counter() - t0, f"no answer within {timeout:g} s")
    dt = time.perf_counter() - t0
    rc = p.returncode
    problem = _check(case, rc, stderr, out, tool)
    if problem is None and rc is not None and rc < 0:
        problem = f"ended by signal {-rc}"
    return Outcome(case, rc, dt, problem, stderr)


def run_cases(cases: list[Case], work: Path, *, use_subprocess: bool = False,
              timeout: float = 30.0, tool: str = "xmo") -> list[Outcome]:
    out = []
    for i, c in enumerate(cases):
        run = run_subprocess if use_subprocess else run_in_process
        out.append(run(c, work / f"case{i:05d}", timeout, tool))
        shutil.rmtree(work / f"case{i:05d}", ignore_errors=True)
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="fuzz_inputs", description=__doc__.split("\n\n")[0])
    ap.add_argument("--cases", type=int, default=500)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--kinds", default=",".join(ALL_KINDS),
                    help="comma-separated: " + ",".join(ALL_KINDS))
    ap.add_argument("--timeout", type=float, default=30.0, help="seconds per case")
    ap.add_argument("--subprocess", action="store_true", help="run each case in a new process")
    ap.add_argument("--memory-cap", metavar="SIZE",
                    help="cap this process's address space (e.g. 2G) and run the bombs in it "
                    "instead of a capped process each")
    ap.add_argument("--tool", choices=TOOLS, default="xmo", help="the command under test")
    ap.add_argument("-v", "--verbose", action="store_true")
    args = ap.parse_args(argv)
    kinds = tuple(k for k in args.kinds.split(",") if k)
    bad = [k for k in kinds if k not in GENERATORS]
    if bad:
        ap.error(f"unknown kinds: {bad}")
    os.environ.setdefault("XMO_NO_PROGRESS", "1")
    if args.memory_cap:
        from xmo.budget import parse_size

        cap_this_process(parse_size(args.memory_cap))
    counts: dict[str, list[int]] = {k: [0, 0, 0] for k in kinds}  # tried, failed, rc==0
    #: the ``files`` generators: tried, exit 0, exit 1, failed, slowest seconds
    by_gen: dict[str, list[float]] = {}
    failures = []
    slowest: tuple[float, str] = (0.0, "")
    with tempfile.TemporaryDirectory(prefix="xmo-fuzz-") as d:
        t0 = time.perf_counter()
        for i, case in enumerate(generate(args.cases, args.seed, kinds)):
            run = run_subprocess if args.subprocess else run_in_process
            o = run(case, Path(d) / "case", args.timeout, args.tool)
            c = counts[case.kind]
            c[0] += 1
            c[2] += o.rc == 0
            slowest = max(slowest, (o.seconds, str(case)))
            if case.kind in FILE_KINDS + BOMB_KINDS:
                g = by_gen.setdefault(case.name.split(":")[0], [0, 0, 0, 0, 0.0])
                g[0] += 1
                g[1] += o.rc == 0
                g[2] += o.rc == 1
                g[3] += o.problem is not None
                g[4] = max(g[4], o.seconds)
            if o.problem:
                c[1] += 1
                failures.append(o)
                tail = " | ".join(o.stderr.strip().splitlines()[-3:])[-400:]
                print(f"FAIL #{i} {case}: {o.problem} [stderr: {tail}]", flush=True)
            elif args.verbose:
                print(f"ok   #{i} {case} rc={o.rc} {o.seconds:.2f}s "
                      f"{o.stderr.strip().splitlines()[-1][:150] if o.stderr.strip() else ''}")
        dt = time.perf_counter() - t0
    print(f"{args.cases} cases through {args.tool} in {dt:.1f} s (seed {args.seed}):")
    for k, (n, f, ok) in counts.items():
        print(f"  {k:6s} {n:5d} tried, {f} failures, {ok} converted (valid after mutation)")
    for name, (n, ok, one, f, sec) in sorted(by_gen.items()):
        print(f"    {name:20s} {n:5d} tried: {ok} exit 0, {one} exit 1, {f} failures, "
              f"slowest {sec:.1f} s")
    print(f"  slowest case: {slowest[1]} in {slowest[0]:.1f} s")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
