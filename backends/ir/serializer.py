"""Write an ``ov``-dialect module as OpenVINO IR v11 (``.xml`` + ``.bin``).

The module's body holds ``ov`` ops in SSA (hence topological) order; ``ov.Result``
ops are moved to the end, keeping their relative order (the IR's output order is
the order of the Result layers in the file, likewise for Parameters).

Weights are streamed into the ``.bin`` one constant at a time (each large
payload is written from a memoryview, never copied; small ones are gathered
into one write), identical payloads are stored once; a thread beside the
writer's writes them and others hash them for the ``.bin``'s digest
(:class:`xmo.backends.ir.pair.BinSink`) while the ``.xml`` is built. The two files are written and put in place as one pair by
:class:`xmo.backends.ir.pair.PairWriter`: concurrent writers of one path take
turns, the ``.xml`` records the ``.bin``'s size and digest, and a write that
fails or is interrupted leaves the previous pair.
"""

from __future__ import annotations

import mmap
import os
import re
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any, NamedTuple

import numpy as np
from xdsl.dialects.builtin import (
    DenseIntOrFPElementsAttr,
    DenseResourceAttr,
    DictionaryAttr,
    ModuleOp,
    TensorType,
    UnrankedTensorType,
)
from xdsl.ir import Attribute, Operation, OpResult, Region, SSAValue
from xdsl.utils.exceptions import VerifyException
from xmo.backends.ir._common import (
    IR_TYPE_OF_OV_TYPE,
    PRECISION_OF,
    IRWriteError,
    escape_illegal,
    escape_names,
    shape_text,
)
from xmo.backends.ir.pair import BinSink, PairWriter, fault_point
from xmo.dialects.ov import attributes as ov_attrs
from xmo.dialects.ov import element_types as et
from xmo.dialects.ov import rt_info
from xmo.dialects.ov.base import OVOp
from xmo.dialects.ov.control_ops import (
    CONTROL_OPS,
    IfOp,
    body_parameters,
    body_results,
    graph_blocks,
    label,
)
from xmo.dialects.ov.port_map import (
    ConcatOutput,
    InputDesc,
    InputSlice,
    LastOutput,
    MergedInput,
    OutputDesc,
)
from xmo.dialects.ov.weights import (
    Splat,
    WeightStoreError,
    constant_array,
    constant_splat,
    fingerprint,
    payload_fingerprint,
    resource_bytes,
    same_bytes,
)
from xmo.input_files import mapped_file, shrank_message

__all__ = ["IRWriteError", "serialize"]


def serialize(
    module: ModuleOp,
    xml_path: str | os.PathLike[str],
    bin_path: str | os.PathLike[str] | None = None,
    *,
    verify: bool = True,
    verify_ir: bool = False,
) -> None:
    """Write ``module`` as OpenVINO IR v11 to ``xml_path`` and ``bin_path``.

    ``bin_path`` defaults to ``xml_path`` with the suffix ``.bin``. With
    ``verify`` (the default) the module is verified first. ``verify_ir`` reads
    the written files back with :func:`xmo.backends.ir.read_ir` before they
    replace anything and checks every layer against ``module``: op type and
    each output's dims and element type (the reader itself checks the port
    dims and precisions against shape inference). On any error, signal or
    kill the previous pair at the path stays (see :mod:`xmo.backends.ir.pair`)
    and no temporary is left behind.
    """
    xml_path = Path(xml_path)
    bin_path = Path(bin_path) if bin_path is not None else xml_path.with_suffix(".bin")
    for folder in {xml_path.parent, bin_path.parent}:
        if not folder.is_dir():
            raise IRWriteError(f"{folder}: output folder does not exist")
    if verify:
        try:
            module.verify()
        except VerifyException as e:
            raise IRWriteError(f"module does not verify: {_one_line(e)}") from e

    with PairWriter(xml_path, bin_path) as files:
        try:
            writer = _Writer(module, files.bin)
            text = writer.build()
        except OSError as e:
            raise IRWriteError(f"cannot write {bin_path}: {e.strerror}") from e
        xml_tmp, bin_tmp = files.finish(text)
        if verify_ir:
            _check_written(writer.ops, writer.names, xml_tmp, bin_tmp)
        files.commit()


#: what an attribute value may need escaped (XML's specials, the characters
#: XML cannot hold, a backslash)
_XML_SPECIAL = re.compile('[&<>"\n\r\t\\\\\x00-\x08\x0b\x0c\x0e-\x1f\ud800-\udfff\ufffe\uffff]')
_ATTR_ESCAPES = str.maketrans({"&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;",
                               "\n": "&#10;", "\r": "&#13;", "\t": "&#09;"})


def _escape(value: str) -> str:
    """An attribute value as written: what XML cannot hold escaped reversibly
    (:func:`~xmo.backends.ir._common.escape_illegal`, which xmo's reader
    undoes), then XML-escaped."""
    if not _XML_SPECIAL.search(value):
        return value
    return escape_illegal(value).translate(_ATTR_ESCAPES)


def _tag(pad: str, tag: str, attrs: dict[str, str] | Sequence[tuple[str, str]],
         empty: bool) -> str:
    """One line at indentation ``pad``: ``<tag a="v" ... />`` when ``empty``,
    else the start tag ``<tag a="v" ...>`` (the layout ElementTree's
    ``indent(space="\\t")`` gives, written directly)."""
    items = attrs.items() if isinstance(attrs, dict) else attrs
    head = pad + "<" + tag + "".join(f' {k}="{_escape(v)}"' for k, v in items)
    return head + (" />\n" if empty else ">\n")


def _check_written(ops: list[OVOp], names: list[str], xml_path: Path, bin_path: Path) -> None:
    """The IR just written, read back, has ``ops``' layers (named ``names``)
    with their types."""
    from xmo.backends.ir._common import IRReadError
    from xmo.backends.ir.reader import read_ir

    try:
        back = list(read_ir(xml_path, bin_path).body.block.ops)
    except IRReadError as e:
        raise IRWriteError(f"the written IR does not read back: {_one_line(e)}") from None
    if len(back) != len(ops):
        raise IRWriteError(f"the written IR reads back as {len(back)} layers, not {len(ops)}")
    by_name = {op.get_friendly_name(): op for op in back}  # the reader may reorder layers
    if len(by_name) != len(back) or set(by_name) != set(names):
        raise IRWriteError("the written IR's layer names do not read back one to one")
    for layer_id, (op, name) in enumerate(zip(ops, names)):
        got = by_name[name]
        want_types = [r.type for r in op.results]
        got_types = [r.type for r in got.results]
        if got.name != op.name or got_types != want_types:
            raise IRWriteError(
                f"layer {layer_id} ('{op.get_friendly_name() or op.OV_TYPE}'): written as "
                f"{got.name} {', '.join(map(str, got_types))}, the module has "
                f"{op.name} {', '.join(map(str, want_types))}"
            )


def _one_line(e: BaseException) -> str:
    lines = [ln.strip() for ln in str(e).splitlines() if ln.strip()]
    # xDSL diagnostics print the whole module; keep the "does not verify" line.
    for ln in lines:
        if "does not verify" in ln or "Error" in ln:
            return ln
    return lines[-1] if lines else type(e).__name__


def _precision(t: Attribute, where: str) -> str:
    if not isinstance(t, TensorType | UnrankedTensorType):
        raise IRWriteError(f"{where}: type {t} is not a tensor type")
    name = et.from_xdsl(t.get_element_type())
    try:
        return PRECISION_OF[name]
    except KeyError:
        raise IRWriteError(f"{where}: element type {name} has no IR precision") from None


def _dims(t: Attribute) -> list[int] | None:
    if isinstance(t, TensorType):
        return [int(d) for d in t.get_shape()]
    return None


_POOLING = frozenset({"AvgPool", "MaxPool"})


def _slicing(e: InputSlice | ConcatOutput) -> list[tuple[str, str]]:
    """A sliced input's / concatenated output's attributes after the ids, in
    OpenVINO's order."""
    return [("start", str(e.start)), ("end", str(e.end)), ("stride", str(e.stride)),
            ("part_size", str(e.part_size))]


def _mapping_identity(addr: int) -> tuple[int, int, int] | None:
    """(major, minor, inode) of the file mapped at ``addr``, from /proc/self/maps."""
    try:
        with open("/proc/self/maps") as f:
            for line in f:
                parts = line.split(None, 5)
                lo, _, hi = parts[0].partition("-")
                if int(lo, 16) <= addr < int(hi, 16):
                    major, _, minor = parts[3].partition(":")
                    ino = int(parts[4])
                    return (int(major, 16), int(minor, 16), ino) if ino else None
    except (OSError, ValueError, IndexError):
        pass
    return None


def _mapped_file_range(
    raw: np.ndarray, cache: dict[int, tuple[object, tuple[int, int, int] | None]]
) -> tuple[str, int, tuple[int, int, int], int] | None:
    """(file, offset, file identity, bytes mapped) of a contiguous payload that
    views a read-only ``numpy.memmap`` of a file (e.g. ONNX external data),
    else None. The identity (device and inode, as mapped) lets the caller
    check that the path still names the mapped file. ``cache``: id(mmap) ->
    (mmap, identity): the record of :mod:`xmo.input_files` for maps made
    there, else one /proc/self/maps scan per map."""
    a: object = raw
    root = None
    while isinstance(a, np.ndarray):
        if isinstance(a.base, mmap.mmap):
            root = a
            break
        a = a.base
    if not isinstance(root, np.memmap) or getattr(root, "mode", None) != "r":
        return None
    filename = getattr(root, "filename", None)
    if not filename or not raw.flags.c_contiguous:
        return None
    start = raw.__array_interface__["data"][0] - root.__array_interface__["data"][0]
    if start < 0 or start + raw.nbytes > root.nbytes:
        return None
    ident = cache.get(id(root.base))
    if ident is None or ident[0] is not root.base:
        known = mapped_file(root.base)
        ident = (root.base, (os.major(known.dev), os.minor(known.dev), known.ino)
                 if known is not None else
                 _mapping_identity(root.__array_interface__["data"][0]))
        cache[id(root.base)] = ident
    if ident[1] is None:
        return None
    return os.fspath(filename), int(root.offset) + start, ident[1], int(root.offset) + root.nbytes


class _Source(NamedTuple):
    """Where a mapped payload's bytes are read from: its file, open."""

    fd: int
    pos: int
    path: str
    mapped: int  # the bytes the map covered (the file's size then)


class _Writer:
    def __init__(self, module: ModuleOp, bin_file: BinSink) -> None:
        self.module = module
        self.bin = bin_file
        self.offset = 0
        #: (fingerprint, size) -> [(payload, offset in the .bin)]
        self.blobs: dict[tuple[bytes, int], list[tuple[np.ndarray, int]]] = {}
        self._map_ident: dict[int, tuple[object, tuple[int, int, int] | None]] = {}
        #: (path, identity) -> the mapped file open for reading (None: the
        #: path names another file now)
        self._sources: dict[tuple[str, tuple[int, int, int]], int | None] = {}
        self.layer_of: dict[Operation, int] = {}
        self.used_names: set[str] = set()
        self.counter = 0

    # -- ordering and names ---------------------------------------------------
    @staticmethod
    def _ordered_ops(graph_ops: Iterable[Operation]) -> list[OVOp]:
        """A graph's layers: its ops with the Results moved to the end."""
        body: list[OVOp] = []
        results: list[OVOp] = []
        for op in graph_ops:
            if not isinstance(op, OVOp):
                raise IRWriteError(
                    f"operation {op.name} is not an ov operation and cannot be "
                    "written as OpenVINO IR"
                )
            if op.regions and not isinstance(op, CONTROL_OPS):
                raise IRWriteError(
                    f"{op.name} ('{op.get_friendly_name() or op.OV_TYPE}'): only Loop, "
                    "TensorIterator and If have bodies in OpenVINO IR"
                )
            (results if op.name == "ov.Result" else body).append(op)
        return body + results

    def _layer_name(self, op: OVOp) -> str:
        name = op.get_friendly_name()
        if name is not None:
            return name
        while True:
            candidate = f"{op.OV_TYPE}_{self.counter}"
            self.counter += 1
            if candidate not in self.used_names:
                self.used_names.add(candidate)
                return candidate

    # -- the document ---------------------------------------------------------
    def build(self) -> str:
        """The IR document (the .bin is written on the way)."""
        try:
            return self._build()
        finally:
            for fd in self._sources.values():
                if fd is not None:
                    os.close(fd)
            self._sources.clear()

    def _build(self) -> str:
        ops = self._ordered_ops(self.module.ops)
        self.ops = ops  # layer i is ops[i]
        for block in graph_blocks(self.module):  # the bodies' layers too
            for op in block.ops:
                n = op.get_friendly_name() if isinstance(op, OVOp) else None
                if n is not None:
                    self.used_names.add(n)
        name_attr = self.module.sym_name
        out = ['<?xml version="1.0"?>\n', _tag("", "net", {
            "name": name_attr.data if name_attr is not None else "model", "version": "11",
        }, empty=False)]
        self.names: list[str] = self._graph(ops, "", out)  # layer i's name
        self._model_rt_info(out)
        out.append("</net>\n")
        return "".join(out)

    def _graph(self, ops: list[OVOp], pad: str, out: list[str]) -> list[str]:
        """``<layers>`` and ``<edges>`` of a graph (the model, or a body whose
        element is at indentation ``pad``); returns the layers' names."""
        edges: list[tuple[int, int, int, int]] = []
        names: list[str] = []
        for layer_id, op in enumerate(ops):
            self.layer_of[op] = layer_id
        if ops:
            out.append(pad + "\t<layers>\n")
            for layer_id, op in enumerate(ops):
                names.append(self._layer(op, layer_id, edges, out, pad))
            out.append(pad + "\t</layers>\n")
        else:
            out.append(pad + "\t<layers />\n")
        if edges:
            out.append(pad + "\t<edges>\n")
            out.extend(
                f'{pad}\t\t<edge from-layer="{fl}" from-port="{fp}" to-layer="{tl}" to-port="{tp}" />\n'
                for fl, fp, tl, tp in sorted(edges)
            )
            out.append(pad + "\t</edges>\n")
        else:
            out.append(pad + "\t<edges />\n")
        return names

    def _model_rt_info(self, out: list[str]) -> None:
        """The net's ``<rt_info>``: the module's ``ov.rt_info``, a nested element
        per key (OpenVINO's layout, keys in the attribute's sorted order)."""
        try:
            # checked and sorted again: the attribute may come from textual IR
            info = rt_info.to_model_attr(rt_info.get_model_rt_info(self.module))
        except rt_info.RtInfoError as e:
            raise IRWriteError(f"model runtime info: {e}") from e
        if not info.data:
            out.append("\t<rt_info />\n")
            return
        out.append("\t<rt_info>\n")
        self._rt_section(info, "\t\t", out)
        out.append("\t</rt_info>\n")

    def _rt_section(self, info: DictionaryAttr, pad: str, out: list[str]) -> None:
        for key, value in info.data.items():
            tag, attrs = rt_info.model_ir_tag(key)
            if isinstance(value, DictionaryAttr):
                if not value.data:
                    out.append(_tag(pad, tag, attrs, empty=True))
                    continue
                out.append(_tag(pad, tag, attrs, empty=False))
                self._rt_section(value, pad + "\t", out)
                out.append(f"{pad}</{tag}>\n")
            else:
                text = rt_info.encode_model_ir(value)
                out.append(_tag(pad, tag, [*attrs, ("value", text)], empty=True))

    def _source(self, value: SSAValue, op: OVOp, i: int) -> tuple[int, int]:
        owner = value.owner
        if not isinstance(owner, Operation) or owner not in self.layer_of:
            raise IRWriteError(
                f"{op.name} ('{op.get_friendly_name() or op.OV_TYPE}'): input {i} is "
                "not produced by an op of the module"
            )
        assert isinstance(value, OpResult)
        return self.layer_of[owner], len(owner.operands) + value.index

    def _layer(
        self, op: OVOp, layer_id: int, edges: list[tuple[int, int, int, int]], out: list[str],
        pad: str,
    ) -> str:
        name = self._layer_name(op)
        where = f"{op.name} '{name}'"
        ir_type = IR_TYPE_OF_OV_TYPE.get(op.OV_TYPE, op.OV_TYPE)
        head = [("id", str(layer_id)), ("name", name), ("type", ir_type),
                ("version", op.OV_VERSION)]
        if op.name == "ov.Result":
            v = op.operands[0]
            src = v.owner
            if isinstance(src, OVOp) and isinstance(v, OpResult):
                names = src.get_tensor_names(v.index)
                if names:
                    head.append(("output_names", escape_names(names)))
        p3 = pad + "\t\t\t"
        body: list[str] = []
        bodies = op.regions_by_name() if isinstance(op, CONTROL_OPS) else None
        if bodies is not None:
            self._port_maps(op, p3, body)
        data = self._data(op, where)
        if data:
            body.append(_tag(p3, "data", data, empty=True))
        info = op.get_rt_info()
        if info:
            body.append(p3 + "<rt_info>\n")
            for key in sorted(info):
                try:
                    rt_name, rt_version, text = rt_info.encode_ir(key, info[key])
                except rt_info.RtInfoError as e:
                    raise IRWriteError(f"{where}: runtime info '{key}': {e}") from e
                attrs = {"name": rt_name, "version": rt_version}
                if text is not None:
                    attrs["value"] = text
                body.append(_tag(p3 + "\t", "attribute", attrs, empty=True))
            body.append(p3 + "</rt_info>\n")
        if op.operands:
            body.append(p3 + "<input>\n")
            for i, v in enumerate(op.operands):
                self._port(i, v.type, None, f"{where} input {i}", body, p3)
                fl, fp = self._source(v, op, i)
                edges.append((fl, fp, layer_id, i))
            body.append(p3 + "</input>\n")
        if op.results:
            body.append(p3 + "<output>\n")
            base = len(op.operands)
            for j, r in enumerate(op.results):
                self._port(
                    base + j, r.type, op.get_tensor_names(j), f"{where} output {j}", body, p3
                )
            body.append(p3 + "</output>\n")
        if bodies is not None:
            for tag, region in bodies:
                body.append(f"{p3}<{tag}>\n")
                self._graph(self._ordered_ops(region.block.ops), p3, body)
                body.append(f"{p3}\t<rt_info />\n{p3}</{tag}>\n")
        if body:
            out.append(_tag(pad + "\t\t", "layer", head, empty=False))
            out.extend(body)
            out.append(pad + "\t\t</layer>\n")
        else:
            out.append(_tag(pad + "\t\t", "layer", head, empty=True))
        return name

    def _port(
        self, port_id: int, t: Attribute, names: Sequence[str] | None, where: str,
        out: list[str], p3: str,
    ) -> None:
        attrs = [("id", str(port_id)), ("precision", _precision(t, where))]
        if names:
            attrs.append(("names", escape_names(names)))
        dims = _dims(t)
        if not dims:
            out.append(_tag(p3 + "\t", "port", attrs, empty=True))
            return
        out.append(_tag(p3 + "\t", "port", attrs, empty=False))
        out.extend(f"{p3}\t\t<dim>{d if d >= 0 else -1}</dim>\n" for d in dims)
        out.append(p3 + "\t</port>\n")

    # -- port maps of the ops with bodies ---------------------------------------
    def _port_maps(self, op: OVOp, p3: str, out: list[str]) -> None:
        """If's ``<else_port_map>`` / ``<then_port_map>``; Loop's and
        TensorIterator's ``<port_map>`` (special ports last) and
        ``<back_edges>``: OpenVINO's layout. The layer ids they name are the
        bodies' (ids of a body restart at 0)."""
        if isinstance(op, IfOp):
            for which, tag in ((False, "else_port_map"), (True, "then_port_map")):
                region, inputs, outputs = op.branch(which)
                self._port_map(op, region, inputs, outputs, [], tag, p3, out)
            return
        region = op.body  # type: ignore[attr-defined]
        special: list[tuple[str, str, int]] = []
        params, results = body_parameters(region), body_results(region)
        it = op.current_iteration_parameter()  # type: ignore[attr-defined]
        if it >= 0:
            special.append(("input", "current_iteration", self._layer_id(params[it])))
        cond = op.condition_result()  # type: ignore[attr-defined]
        if cond >= 0:
            special.append(("output", "execution_condition", self._layer_id(results[cond])))
        inputs = op.input_descs()  # type: ignore[attr-defined]
        self._port_map(op, region, inputs, op.output_descs(), special, "port_map", p3, out)  # type: ignore[attr-defined]
        back = [e for e in inputs if isinstance(e, MergedInput)]
        if back:
            out.append(p3 + "<back_edges>\n")
            for e in back:
                out.append(_tag(p3 + "\t", "edge", [
                    ("from-layer", str(self._layer_id(results[e.result]))),
                    ("to-layer", str(self._layer_id(params[e.parameter]))),
                ], empty=True))
            out.append(p3 + "</back_edges>\n")

    def _layer_id(self, op: Operation) -> int:
        if op not in self.layer_of:
            # ids of a body are assigned when it is written: number it now
            parent = op.parent_block()
            assert parent is not None
            for layer_id, o in enumerate(self._ordered_ops(parent.ops)):
                self.layer_of[o] = layer_id
        return self.layer_of[op]

    def _port_map(
        self, op: OVOp, region: Region, inputs: Sequence[InputDesc],
        outputs: Sequence[OutputDesc], special: list[tuple[str, str, int]], tag: str,
        p3: str, out: list[str],
    ) -> None:
        params, results = body_parameters(region), body_results(region)
        n_in = len(op.operands)
        lines: list[str] = []
        for e in inputs:
            attrs = [("external_port_id", str(e.external)),
                     ("internal_layer_id", str(self._layer_id(params[e.parameter])))]
            if isinstance(e, InputSlice):
                attrs = [("axis", str(e.axis)), *attrs, *_slicing(e)]
            lines.append(_tag(p3 + "\t", "input", attrs, empty=True))
        for e in outputs:
            if isinstance(e, LastOutput) and e.iteration != -1:
                raise IRWriteError(
                    f"{label(op)}: an output of iteration {e.iteration} (not the last) "
                    "has no OpenVINO IR form"
                )
            attrs = [("external_port_id", str(n_in + e.external)),
                     ("internal_layer_id", str(self._layer_id(results[e.result])))]
            if isinstance(e, ConcatOutput):
                attrs = [("axis", str(e.axis)), *attrs, *_slicing(e)]
            lines.append(_tag(p3 + "\t", "output", attrs, empty=True))
        for kind, purpose, layer_id in special:
            lines.append(_tag(p3 + "\t", kind, [
                ("external_port_id", "-1"), ("internal_layer_id", str(layer_id)),
                ("purpose", purpose)], empty=True))
        if lines:
            out.append(f"{p3}<{tag}>\n")
            out.extend(lines)
            out.append(f"{p3}</{tag}>\n")

    # -- <data> ---------------------------------------------------------------
    def _data(self, op: OVOp, where: str) -> dict[str, str]:
        if op.name == "ov.Parameter":
            t = op.results[0].type
            _precision(t, where)
            assert isinstance(t, TensorType | UnrankedTensorType)
            return {
                "shape": shape_text(_dims(t)),
                "element_type": et.from_xdsl(t.get_element_type()),
            }
        if op.name == "ov.Constant":
            return self._const_data(op, where)
        data: dict[str, str] = {}
        for spec in op.OV_ATTRS:
            try:
                value: Any = op.attr(spec.name)
            except ov_attrs.AttributeValueError as e:
                raise IRWriteError(f"{where}: attribute '{spec.name}': {e}") from e
            if value is None:
                if spec.required:
                    raise IRWriteError(
                        f"{where}: required attribute '{spec.name}' is missing"
                    )
                continue
            if spec.name == "dilations" and not value and op.OV_TYPE in _POOLING:
                # OpenVINO's CPU plugin crashes on AvgPool-16 with empty
                # dilations (its own default): write the explicit ones.
                value = (1,) * len(op.attr("kernel"))
            data[spec.name] = ov_attrs.to_xml(spec.kind, value)
        return data

    def _const_data(self, op: OVOp, where: str) -> dict[str, str]:
        t = op.results[0].type
        if not isinstance(t, TensorType):
            raise IRWriteError(f"{where}: a constant needs a static shape, got {t}")
        etype = et.from_xdsl(t.get_element_type())
        shape = [int(d) for d in t.get_shape()]
        if any(d < 0 for d in shape):
            raise IRWriteError(f"{where}: a constant needs a static shape, got {t}")
        n = int(np.prod(shape, dtype=np.int64))
        expected = et.byte_size(etype, n)
        raw = self._payload(op, where)
        if raw.nbytes != expected:
            raise IRWriteError(
                f"{where}: payload has {raw.nbytes} bytes, {t} needs {expected}"
            )
        # checked to hold the payload: read next
        src = None if isinstance(raw, Splat) else self._mapped_source(raw)
        offset = self._store(raw, payload_fingerprint(op.properties.get("value"), raw), src)
        return {
            "element_type": etype,
            "shape": shape_text(shape, sep=", "),
            "offset": str(offset),
            "size": str(raw.nbytes),
        }

    @staticmethod
    def _payload(op: OVOp, where: str) -> np.ndarray | Splat:
        """The constant's bytes as a flat contiguous uint8 array (a view if
        possible), or as its :class:`Splat` when it is one not made yet."""
        value = op.properties.get("value")
        splat = constant_splat(value)
        if splat is not None:
            return splat
        try:
            if isinstance(value, DenseResourceAttr):
                raw = resource_bytes(value.resource_handle.data)
            elif isinstance(value, DenseIntOrFPElementsAttr):
                arr = constant_array(value)
                if arr.dtype == np.bool_:
                    arr = arr.astype(np.uint8)
                raw = np.ascontiguousarray(arr).reshape(-1).view(np.uint8)
            else:
                raise IRWriteError(f"{where}: constant has no value")
        except (WeightStoreError, ValueError, TypeError) as e:
            if isinstance(e, IRWriteError):
                raise
            raise IRWriteError(f"{where}: cannot read the constant's payload: {e}") from e
        return np.ascontiguousarray(raw).reshape(-1)

    def _store(self, raw: np.ndarray | Splat, digest: bytes | None = None,
               src: _Source | None = None) -> int:
        """Append ``raw`` to the .bin unless identical bytes are already there.

        Payloads are keyed by size and a cheap fingerprint (whole hash when
        small, sampled blocks when large) and compared byte for byte only when
        fingerprints collide, so a unique memory-mapped weight is read once,
        by the write. ``src``: the mapped file ``raw`` views, which the bytes
        are copied from (:meth:`_mapped_source`)."""
        if not isinstance(raw, Splat):
            raw = raw.reshape(-1).view(np.uint8)
        key = (fingerprint(raw) if digest is None else digest, raw.nbytes)
        same = self.blobs.setdefault(key, [])
        for old, offset in same:
            if same_bytes(raw, old):
                return offset
        offset = self.offset
        if isinstance(raw, Splat):
            for piece in raw.chunks():  # by pieces: the payload is never made whole
                self.bin.write(memoryview(piece))
        elif src is None:
            self.bin.write(memoryview(raw).cast("B"))
        else:
            self._copy_mapped(raw.nbytes, src)
        self.offset += raw.nbytes
        same.append((raw, offset))
        if offset == 0:
            self.bin.flush()  # the first payload is in the file
            fault_point("bin-partial")
        return offset

    def _mapped_source(self, raw: np.ndarray) -> _Source | None:
        """The file a payload that views a read-only memory map of it (ONNX
        external data, a .bin read by ``read_ir``) is copied from, open,
        after checking that the file still holds the payload: a file that
        shrank is an :class:`IRWriteError` here, before anything reads the
        map's pages past its end (a SIGBUS). None when ``raw`` is not such a
        view, or its path names another file now (replaced since it was
        mapped: the bytes are written from the map)."""
        found = _mapped_file_range(raw.reshape(-1), self._map_ident)
        if found is None:
            return None
        path, pos, ident, mapped = found
        key = (path, ident)
        if key not in self._sources:
            self._sources[key] = _open_same_file(path, ident)
        fd = self._sources[key]
        if fd is None:
            return None
        size = os.fstat(fd).st_size
        if size < pos + raw.nbytes:
            raise IRWriteError(shrank_message(path, size, mapped))
        return _Source(fd, pos, path, mapped)

    def _copy_mapped(self, count: int, src: _Source) -> None:
        """Append ``count`` bytes of ``src``'s file
        (:meth:`~xmo.backends.ir.pair.BinSink.copy_from`: in the kernel where
        it can, never from the map, whose pages past the file's end would
        fault). A short copy (the file shrank meanwhile) is an
        :class:`IRWriteError`."""
        if self.bin.copy_from(src.fd, src.pos, count) < count:
            raise IRWriteError(shrank_message(src.path, os.fstat(src.fd).st_size, src.mapped))


def _open_same_file(path: str, ident: tuple[int, int, int]) -> int | None:
    """``path`` open for reading when it still is the file of identity
    ``ident`` (device major, minor, inode), else None. Opened non-blocking:
    a FIFO put at the path is not waited on."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    except OSError:
        return None
    st = os.fstat(fd)
    if (os.major(st.st_dev), os.minor(st.st_dev), st.st_ino) != ident:
        os.close(fd)  # the path names another file now (replaced since mapped)
        return None
    return fd
