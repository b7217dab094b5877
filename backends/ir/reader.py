"""Read OpenVINO IR (v10/v11 ``.xml`` + ``.bin``) into an ``ov``-dialect module.

Every layer maps to the op class of its ``type``/``version`` (``Const`` is
``ov.Constant``). The ``.bin`` is memory-mapped read-only and constant payloads
are registered in the context's weight store as views of the map (no copies);
constants of at most ``INLINE_MAX_BYTES`` become inline ``dense<...>``. Both
files must be regular files (:mod:`xmo.input_files`). Attribute values are
decoded from the writer's escaping of what XML cannot hold
(:func:`~xmo.backends.ir._common.unescape_illegal`): names read back as they
were written.

Unlike OpenVINO's own reader, this one checks what it reads: the ``.bin``
against the size and digest the ``.xml`` records (an IR written by xmo, see
:mod:`xmo.backends.ir.pair`: a ``.bin`` that does not belong to the ``.xml``
is refused; a write of the pair under way is waited for, an interrupted one
undone, and the pair read again), edges (missing, duplicate, dangling,
cycles), constant ranges against the ``.bin`` size, port precisions and dims
against each other and against shape inference. Every problem raises
:class:`IRReadError` with a one-line message naming the layer.
"""

from __future__ import annotations

import heapq
import os
import xml.etree.ElementTree as ET
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, BinaryIO

import numpy as np
from xdsl.context import Context
from xdsl.dialects.builtin import (
    ArrayAttr,
    DenseResourceAttr,
    IntegerAttr,
    ModuleOp,
    StringAttr,
    TensorType,
    UnrankedTensorType,
    i64,
)
from xdsl.ir import Attribute, Block, Region, SSAValue
from xdsl.utils.exceptions import VerifyException

from xmo.backends.ir import pair
from xmo.backends.ir._common import (
    ELEMENT_TYPE_OF_PRECISION,
    OV_TYPE_OF_IR_TYPE,
    IRReadError,
    parse_shape_text,
    unescape_illegal,
    unescape_names,
)
from xmo.budget import DimensionLimitError, check_dims
from xmo.context import attach_context, make_context, weight_store
from xmo.dialects.attr_spec import AttributeValueError
from xmo.dialects.ov import attributes as ov_attrs
from xmo.dialects.ov import element_types as et
from xmo.dialects.ov import rt_info
from xmo.dialects.ov import op_class
from xmo.dialects.ov.base import OVOp, ShapeInferenceError, constant_value_of, tensor
from xmo.dialects.ov.control_ops import CONTROL_OPS, IfOp
from xmo.dialects.ov.shape_inference.control import infer_control_types
from xmo.dialects.ov.port_map import (
    ConcatOutput,
    InputDesc,
    InputSlice,
    InvariantInput,
    LastOutput,
    MergedInput,
    OutputDesc,
    to_attr,
)
from xmo.dialects.ov.weights import WeightStore, make_constant_attr
from xmo.errors import first_line
from xmo.input_files import InputFileError, map_input, open_input

__all__ = ["IRReadError", "read_ir"]

_SUPPORTED_VERSIONS = ("10", "11")
#: Largest IR ``.xml`` read. The XML holds only the graph (weights live in the
#: ``.bin``): about 400 bytes a layer (a 5,000-node ONNX chain: 8,077 layers
#: in 3.3 MB), so 1 GiB is millions of layers; ElementTree needs many times
#: the file's size in memory, so a bigger file is refused up front.
MAX_XML_BYTES = 1 << 30
#: Reads of a pair that is being replaced (see :func:`read_ir`)
_PAIR_ATTEMPTS = 3
#: How much of the ``.xml``'s start holds the record of its ``.bin``
_HEAD_BYTES = 256


class _PairError(IRReadError):
    """The ``.xml`` and ``.bin`` at the path are not one pair (yet)."""

    def __init__(self, msg: str, xml_path: Path, xml_id: tuple[int, int] | None) -> None:
        super().__init__(msg)
        self.xml_path = xml_path
        self.xml_id = xml_id

    def xml_replaced(self) -> bool:
        """Whether the path names another ``.xml`` than the one read."""
        try:
            st = os.stat(self.xml_path)
        except OSError:
            return False
        return (st.st_dev, st.st_ino) != self.xml_id


@dataclass
class _Port:
    id: int
    precision: str | None
    dims: list[int]
    names: list[str]


@dataclass
class _Layer:
    index: int  # position in the file
    id: int
    name: str
    type: str
    version: str
    data: dict[str, str]
    inputs: list[_Port]
    outputs: list[_Port]
    output_names: list[str] | None
    rt_info: dict[str, Any] = field(default_factory=dict)
    #: the layer's element (read again for the bodies of Loop, TensorIterator, If)
    element: ET.Element | None = None
    # filled while building
    sources: dict[int, tuple[int, int]] = field(default_factory=dict)
    op: OVOp | None = None

    @property
    def label(self) -> str:
        return f"layer '{self.name}' (id {self.id}, {self.type})"


def read_ir(
    xml_path: str | os.PathLike[str],
    bin_path: str | os.PathLike[str] | None = None,
    ctx: Context | None = None,
) -> ModuleOp:
    """Read an OpenVINO IR model into a verified ``builtin.module`` of ``ov`` ops.

    ``bin_path`` defaults to ``xml_path`` with the suffix ``.bin``. Weights go to
    the weight store of ``ctx`` (an xmo context, see :func:`xmo.context.make_context`);
    without ``ctx`` a fresh context is created. Either way the module keeps its
    context alive (:func:`xmo.context.attach_context`).
    """
    xml_path = Path(xml_path)
    bin_path = Path(bin_path) if bin_path is not None else xml_path.with_suffix(".bin")
    if ctx is None:
        ctx = make_context()
    store = weight_store(ctx)
    for attempt in range(1, _PAIR_ATTEMPTS + 1):
        try:
            module = _Reader(xml_path, bin_path, store).read()
            break
        except _PairError as e:
            # a writer replacing the pair: wait for it (or undo an interrupted one), read again
            again = pair.settle(xml_path, bin_path) or e.xml_replaced()
            if attempt == _PAIR_ATTEMPTS or not again:
                raise IRReadError(str(e)) from None
    attach_context(module, ctx)  # the module keeps its weights alive
    return module


def _unescape_attributes(root: ET.Element) -> None:
    """Undo the writer's escaping of what XML cannot hold in every attribute
    value (:func:`~xmo.backends.ir._common.unescape_illegal`): names and
    values read back as they were written."""
    for el in root.iter():
        for key, value in el.attrib.items():
            if "\\" in value:
                el.attrib[key] = unescape_illegal(value)


def _children(el: ET.Element | None) -> list[ET.Element]:
    return list(el) if el is not None else []


def _int(text: str | None, what: str) -> int:
    if text is None:
        raise IRReadError(f"{what} is missing")
    try:
        return int(text)
    except ValueError:
        raise IRReadError(f"{what} is not an integer: '{text}'") from None


class _Reader:
    def __init__(self, xml_path: Path, bin_path: Path, store: WeightStore) -> None:
        self.xml_path = xml_path
        self.bin_path = bin_path
        self.store = store
        self._bin: np.ndarray | None = None
        self._bin_loaded = False
        #: the .bin checked against the record, mapped from this file
        self._bin_file: BinaryIO | None = None

    # -- parsing ------------------------------------------------------------
    def read(self) -> ModuleOp:
        try:
            return self._read()
        finally:
            if self._bin_file is not None:
                self._bin_file.close()

    def _read(self) -> ModuleOp:
        xml_id = None
        try:
            with self._open(self.xml_path, None) as f:
                st = os.fstat(f.fileno())
                xml_id = (st.st_dev, st.st_ino)
                if st.st_size > MAX_XML_BYTES:
                    raise IRReadError(
                        f"{self.xml_path}: {st.st_size} bytes, more than the "
                        f"{MAX_XML_BYTES >> 20} MiB an IR .xml may have (its weights belong in "
                        "the .bin)"
                    )
                record = pair.read_record(f.read(_HEAD_BYTES))
                f.seek(0)
                root = ET.parse(f).getroot()
        except ET.ParseError as e:
            raise IRReadError(f"{self.xml_path}: not well-formed XML: {e}") from None
        except OSError as e:
            raise IRReadError(f"{self.xml_path}: cannot read: {e.strerror}") from None
        if record is not None:
            self._check_bin(record, xml_id)
        if root.tag != "net":
            raise IRReadError(f"{self.xml_path}: root element is <{root.tag}>, not <net>")
        _unescape_attributes(root)
        version = root.get("version")
        if version not in _SUPPORTED_VERSIONS:
            raise IRReadError(
                f"{self.xml_path}: IR version {version} is not supported "
                f"(supported: {', '.join(_SUPPORTED_VERSIONS)})"
            )
        order, by_id = self._graph(root, f"{self.xml_path}")
        ops = [layer.op for layer in order]
        name = root.get("name")
        module = ModuleOp(ops, sym_name=StringAttr(name) if name else None)
        model_info = self._model_rt_info(root.find("rt_info"), ())
        if model_info:
            try:
                rt_info.set_model_rt_info(module, model_info)
            except rt_info.RtInfoError as e:
                raise IRReadError(f"{self.xml_path}: <rt_info> of <net>: {e}") from None
        self._verify(order, module)
        return module

    def _graph(self, root: ET.Element, where: str) -> tuple[list[_Layer], dict[int, _Layer]]:
        """The layers of a graph (the net, or a body), built into ops, in
        the order they go into the block; and the layers by id."""
        layers_el = root.find("layers")
        if layers_el is None:
            raise IRReadError(f"{where}: no <layers> section")
        layers = [self._layer(i, el) for i, el in enumerate(layers_el.findall("layer"))]
        by_id: dict[int, _Layer] = {}
        for layer in layers:
            if layer.id in by_id:
                raise IRReadError(
                    f"{layer.label}: duplicate layer id {layer.id} "
                    f"(also '{by_id[layer.id].name}')"
                )
            by_id[layer.id] = layer
        self._edges(root, by_id)
        order = self._topological_order(layers, by_id)
        for layer in order:
            self._build(layer, by_id)
        self._merge_output_names(order, by_id)
        return order, by_id

    def _model_rt_info(self, el: ET.Element | None, path: tuple[str, ...]) -> dict[str, Any]:
        """The net's ``<rt_info>`` as a nested dict: an element with a ``value``
        is a key (its text kept as text, as OpenVINO does), one without is a
        section; ``<info name="KEY" ...>`` is OpenVINO's spelling of a key that
        is no XML name."""
        if len(path) >= rt_info.MAX_MODEL_RT_INFO_DEPTH:
            raise IRReadError(
                f"{self.xml_path}: <rt_info> of <net>: '{'/'.join(path)}' is nested "
                f"deeper than {rt_info.MAX_MODEL_RT_INFO_DEPTH} sections"
            )
        out: dict[str, Any] = {}
        for child in _children(el):
            if not isinstance(child.tag, str):  # comments, processing instructions
                continue
            key = rt_info.model_ir_key(child.tag, child.get("name"))
            value = child.get("value")
            out[key] = value if value is not None else self._model_rt_info(child, (*path, key))
        return out

    def _layer(self, index: int, el: ET.Element) -> _Layer:
        name = el.get("name")
        lid = _int(el.get("id"), f"layer #{index}: attribute 'id'")
        what = f"layer '{name}' (id {lid})"
        ltype = el.get("type")
        if ltype is None:
            raise IRReadError(f"{what}: attribute 'type' is missing")
        if name is None:
            raise IRReadError(f"layer id {lid} ({ltype}): attribute 'name' is missing")
        data_el = el.find("data")
        data = dict(data_el.attrib) if data_el is not None else {}
        out_names = el.get("output_names")
        return _Layer(
            index=index,
            id=lid,
            name=name,
            type=ltype,
            version=el.get("version", "opset1"),
            data=data,
            inputs=self._ports(el.find("input"), what),
            outputs=self._ports(el.find("output"), what),
            output_names=unescape_names(out_names) if out_names is not None else None,
            rt_info=dict(
                rt_info.decode_ir(a.get("name", ""), a.get("version"), a.get("value"))
                for a in _children(el.find("rt_info"))
                if a.tag == "attribute" and a.get("name")
            ),
            element=el,
        )

    @staticmethod
    def _ports(el: ET.Element | None, what: str) -> list[_Port]:
        if el is None:
            return []
        ports = []
        for p in el.findall("port"):
            pid = _int(p.get("id"), f"{what}: port attribute 'id'")
            dims = []
            for d in p.findall("dim"):
                text = (d.text or "").strip()
                try:
                    v = int(text)
                except ValueError:
                    # bounded dims ("1..10") are read as dynamic
                    if ".." in text or text == "?":
                        v = -1
                    else:
                        raise IRReadError(
                            f"{what}: port {pid} has a bad <dim> '{text}'"
                        ) from None
                if v < -1:
                    raise IRReadError(f"{what}: port {pid} has a negative <dim> {v}")
                dims.append(v if v >= 0 else -1)
            try:
                check_dims(dims)
            except DimensionLimitError as e:
                raise IRReadError(f"{what}: port {pid}: {e}") from None
            names = p.get("names")
            ports.append(
                _Port(pid, p.get("precision"), dims, unescape_names(names) if names else [])
            )
        return ports

    def _edges(self, root: ET.Element, by_id: dict[int, _Layer]) -> None:
        edges_el = root.find("edges")
        edges = edges_el.findall("edge") if edges_el is not None else []
        for e in edges:
            fl = _int(e.get("from-layer"), "edge: 'from-layer'")
            fp = _int(e.get("from-port"), "edge: 'from-port'")
            tl = _int(e.get("to-layer"), "edge: 'to-layer'")
            tp = _int(e.get("to-port"), "edge: 'to-port'")
            desc = f"edge {fl}:{fp} -> {tl}:{tp}"
            if fl not in by_id:
                raise IRReadError(f"{desc}: no layer with id {fl}")
            if tl not in by_id:
                raise IRReadError(f"{desc}: no layer with id {tl}")
            src, dst = by_id[fl], by_id[tl]
            out_ids = [p.id for p in src.outputs]
            if fp not in out_ids:
                raise IRReadError(f"{desc}: {src.label} has no output port {fp}")
            if tp not in [p.id for p in dst.inputs]:
                raise IRReadError(f"{desc}: {dst.label} has no input port {tp}")
            if tp in dst.sources:
                raise IRReadError(
                    f"{desc}: input port {tp} of {dst.label} has more than one edge"
                )
            dst.sources[tp] = (fl, out_ids.index(fp))
        for layer in by_id.values():
            for p in layer.inputs:
                if p.id not in layer.sources:
                    raise IRReadError(f"{layer.label}: input port {p.id} has no edge")

    @staticmethod
    def _topological_order(layers: list[_Layer], by_id: dict[int, _Layer]) -> list[_Layer]:
        """Parameters first, Results last, each in file order; the rest topologically."""
        indeg: dict[int, int] = {}
        users: dict[int, list[int]] = {layer.id: [] for layer in layers}
        for layer in layers:
            producers = {src for src, _ in layer.sources.values()}
            indeg[layer.id] = len(producers)
            for src in producers:
                users[src].append(layer.id)
        params = [lyr for lyr in layers if lyr.type == "Parameter"]
        results = [lyr for lyr in layers if lyr.type == "Result"]
        heap = [(lyr.index, lyr.id) for lyr in layers if indeg[lyr.id] == 0]
        heapq.heapify(heap)
        body: list[_Layer] = []
        done = 0
        while heap:
            _, lid = heapq.heappop(heap)
            done += 1
            layer = by_id[lid]
            if layer.type not in ("Parameter", "Result"):
                body.append(layer)
            for u in users[lid]:
                indeg[u] -= 1
                if indeg[u] == 0:
                    heapq.heappush(heap, (by_id[u].index, u))
        if done != len(layers):
            stuck = [lyr.name for lyr in layers if indeg[lyr.id] > 0]
            shown = ", ".join(f"'{n}'" for n in stuck[:5])
            more = f" and {len(stuck) - 5} more" if len(stuck) > 5 else ""
            raise IRReadError(f"the graph has a cycle through layers {shown}{more}")
        return params + body + results

    # -- building ops ---------------------------------------------------------
    def _build(self, layer: _Layer, by_id: dict[int, _Layer]) -> OVOp:
        ov_type = OV_TYPE_OF_IR_TYPE.get(layer.type, layer.type)
        try:
            cls = op_class(ov_type, layer.version)
        except KeyError:
            raise IRReadError(
                f"{layer.label}: unknown operation type '{layer.type}' "
                f"version '{layer.version}'"
            ) from None
        operands: list[SSAValue] = []
        for p in sorted(layer.inputs, key=lambda p: p.id):
            fl, out_index = layer.sources[p.id]
            src_op = by_id[fl].op
            assert src_op is not None  # topological order
            value = src_op.results[out_index]
            self._check_input_port(layer, p, value, by_id[fl])
            operands.append(value)
        props: dict[str, Attribute] = {"friendly_name": StringAttr(layer.name)}
        if ov_type == "Parameter":
            result_types = [self._parameter_type(layer)]
        elif ov_type == "Constant":
            value_attr = self._constant_value(layer)
            props["value"] = value_attr
            result_types = [value_attr.type]  # type: ignore[attr-defined]
            self._check_output_ports(layer, result_types)
        else:
            attrs = self._attributes(cls, layer)
            props.update(attrs)
        regions: list[Region] = []
        if issubclass(cls, CONTROL_OPS):
            regions = self._bodies(cls, layer, props)
            result_types = self._control_result_types(cls, layer, operands, regions, props)
        elif ov_type not in ("Parameter", "Constant"):
            result_types = self._result_types(cls, layer, operands)
        if not regions and layer.element is not None and any(
            layer.element.find(t) is not None for t in ("body", "then_body", "else_body")
        ):
            raise IRReadError(f"{layer.label}: a {layer.type} layer has no body")
        names = [p.names for p in layer.outputs]
        if any(names):
            props["tensor_names"] = ArrayAttr(
                [ArrayAttr([StringAttr(n) for n in ns]) for ns in names]
            )
        if layer.rt_info:
            props["rt_info"] = rt_info.to_dict_attr(layer.rt_info)
        op = cls.create(
            operands=operands, result_types=result_types, properties=props, regions=regions
        )
        layer.op = op
        return op

    # -- bodies ---------------------------------------------------------------
    def _bodies(
        self, cls: type[OVOp], layer: _Layer, props: dict[str, Attribute]
    ) -> list[Region]:
        """The regions of a Loop, TensorIterator or If layer; its port maps
        go to ``props``."""
        el = layer.element
        assert el is not None
        in_ids = [p.id for p in layer.inputs]
        out_ids = [p.id for p in layer.outputs]
        if cls is IfOp:
            regions = []
            for prefix in ("then", "else"):
                region, params, results = self._body(layer, el, f"{prefix}_body")
                inputs, outputs, special = self._port_map(
                    layer, el.find(f"{prefix}_port_map"), params, results, in_ids, out_ids, {}
                )
                if special or any(not isinstance(e, InvariantInput | LastOutput)
                                  for e in (*inputs, *outputs)):
                    raise IRReadError(
                        f"{layer.label}: {prefix}_port_map: an If branch has only "
                        "plain inputs and outputs"
                    )
                props[f"{prefix}_input_map"] = to_attr(inputs)
                props[f"{prefix}_output_map"] = to_attr(outputs)
                regions.append(region)
            return regions
        region, params, results = self._body(layer, el, "body")
        back: dict[int, int] = {}
        for e in _children(el.find("back_edges")):
            src = _int(e.get("from-layer"), f"{layer.label}: back edge 'from-layer'")
            dst = _int(e.get("to-layer"), f"{layer.label}: back edge 'to-layer'")
            if src not in results or dst not in params:
                raise IRReadError(
                    f"{layer.label}: back edge {src} -> {dst} does not go from a body "
                    "Result to a body Parameter"
                )
            back[params[dst]] = results[src]
        inputs, outputs, special = self._port_map(
            layer, el.find("port_map"), params, results, in_ids, out_ids, back
        )
        props["input_map"] = to_attr(inputs)
        props["output_map"] = to_attr(outputs)
        for key, index in special.items():
            if cls.name != "ov.Loop":
                raise IRReadError(f"{layer.label}: a {layer.type} has no special body ports")
            props[key] = IntegerAttr(index, i64)
        return [region]

    def _body(
        self, layer: _Layer, el: ET.Element, tag: str
    ) -> tuple[Region, dict[int, int], dict[int, int]]:
        """A body's region and its layer ids -> index among its Parameters
        (Results)."""
        body_el = el.find(tag)
        if body_el is None:
            raise IRReadError(f"{layer.label}: no <{tag}>")
        order, _ = self._graph(body_el, f"{layer.label}: <{tag}>")
        params = {lyr.id: i for i, lyr in enumerate(x for x in order if x.type == "Parameter")}
        results = {lyr.id: i for i, lyr in enumerate(x for x in order if x.type == "Result")}
        ops = [lyr.op for lyr in order]
        self._verify_layers(order)
        return Region(Block(ops)), params, results  # type: ignore[arg-type]

    @staticmethod
    def _port_map(
        layer: _Layer, el: ET.Element | None, params: dict[int, int],
        results: dict[int, int], in_ids: list[int], out_ids: list[int],
        back: dict[int, int],
    ) -> tuple[list[InputDesc], list[OutputDesc], dict[str, int]]:
        inputs: list[InputDesc] = []
        outputs: list[OutputDesc] = []
        special: dict[str, int] = {}
        for entry in _children(el):
            what = f"{layer.label}: port map <{entry.tag}>"
            a = entry.attrib

            def num(key: str, default: int | None = None) -> int:
                if key not in a and default is not None:
                    return default
                return _int(a.get(key), f"{what}: '{key}'")

            internal = num("internal_layer_id")
            purpose = a.get("purpose")
            table = params if entry.tag == "input" else results
            if entry.tag not in ("input", "output") or internal not in table:
                raise IRReadError(
                    f"{what}: internal_layer_id {internal} is not a body "
                    f"{'Parameter' if entry.tag == 'input' else 'Result'}"
                )
            index = table[internal]
            if purpose is not None:
                key = {"current_iteration": "current_iteration_input_idx",
                       "execution_condition": "body_condition_output_idx"}.get(purpose)
                if key is None:
                    raise IRReadError(f"{what}: unknown purpose '{purpose}'")
                special[key] = index
                continue
            port = num("external_port_id")
            ids = in_ids if entry.tag == "input" else out_ids
            if port not in ids:
                raise IRReadError(f"{what}: the layer has no {entry.tag} port {port}")
            external = ids.index(port)
            slicing = {k: num(k, d) for k, d in
                       (("start", 0), ("stride", 1), ("end", -1), ("part_size", 1))}
            if entry.tag == "input":
                if "axis" in a:
                    inputs.append(InputSlice(external, index, num("axis"), **slicing))
                elif index in back:
                    inputs.append(MergedInput(external, index, back[index]))
                else:
                    inputs.append(InvariantInput(external, index))
            elif "axis" in a:
                outputs.append(ConcatOutput(index, external, num("axis"), **slicing))
            else:
                outputs.append(LastOutput(index, external))
        return inputs, outputs, special

    def _attributes(self, cls: type[OVOp], layer: _Layer) -> dict[str, Attribute]:
        specs = {s.name: s for s in cls.OV_ATTRS}
        out: dict[str, Attribute] = {}
        for key, text in layer.data.items():
            spec = specs.get(key)
            if spec is None:
                raise IRReadError(
                    f"{layer.label}: unknown attribute '{key}' for {cls.name} "
                    f"(known: {', '.join(specs) or 'none'})"
                )
            try:
                out[key] = ov_attrs.to_attr(spec.kind, ov_attrs.from_xml(spec.kind, text))
            except AttributeValueError as e:
                raise IRReadError(f"{layer.label}: attribute '{key}': {e}") from None
        return out

    def _element_type(self, layer: _Layer, text: str | None, what: str) -> str:
        if text is None:
            raise IRReadError(f"{layer.label}: {what} is missing")
        if text not in et.OV_ELEMENT_TYPES:
            raise IRReadError(f"{layer.label}: {what} '{text}' is not supported")
        return text

    def _port_element_type(self, layer: _Layer, port: _Port) -> str | None:
        if port.precision is None:
            return None
        etype = ELEMENT_TYPE_OF_PRECISION.get(port.precision.upper())
        if etype is None:
            raise IRReadError(
                f"{layer.label}: port {port.id} has unsupported precision "
                f"'{port.precision}'"
            )
        return etype

    def _port_type(self, layer: _Layer, port: _Port) -> Attribute:
        etype = self._port_element_type(layer, port)
        if etype is None:
            raise IRReadError(f"{layer.label}: output port {port.id} has no precision")
        return tensor(etype, port.dims)

    def _parameter_type(self, layer: _Layer) -> Attribute:
        etype = self._element_type(layer, layer.data.get("element_type"), "element_type")
        shape_attr = layer.data.get("shape")
        if shape_attr is None:
            raise IRReadError(f"{layer.label}: attribute 'shape' is missing")
        try:
            shape = parse_shape_text(shape_attr)
        except ValueError:
            raise IRReadError(f"{layer.label}: bad shape '{shape_attr}'") from None
        extra = set(layer.data) - {"shape", "element_type"}
        if extra:
            raise IRReadError(
                f"{layer.label}: unknown attribute '{sorted(extra)[0]}' for ov.Parameter"
            )
        t = tensor(etype, shape)
        self._check_output_ports(layer, [t])
        return t

    def _check_output_ports(self, layer: _Layer, types: list[Attribute]) -> None:
        if len(layer.outputs) != len(types):
            raise IRReadError(
                f"{layer.label}: has {len(layer.outputs)} output ports, expected "
                f"{len(types)}"
            )
        for port, t in zip(layer.outputs, types):
            self._check_port(layer, port, t, "output")

    def _check_port(self, layer: _Layer, port: _Port, t: Attribute, kind: str) -> None:
        assert isinstance(t, TensorType | UnrankedTensorType)
        etype = self._port_element_type(layer, port)
        have = et.from_xdsl(t.get_element_type())
        if etype is not None and etype != have:
            raise IRReadError(
                f"{layer.label}: {kind} port {port.id} has precision {port.precision}, "
                f"but the value is {have}"
            )
        if isinstance(t, UnrankedTensorType):
            if port.dims:
                raise IRReadError(
                    f"{layer.label}: {kind} port {port.id} has dims {port.dims}, "
                    "but the value has dynamic rank"
                )
            return
        shape = list(t.get_shape())
        if len(shape) != len(port.dims) or any(
            a != b and a >= 0 and b >= 0 for a, b in zip(shape, port.dims)
        ):
            raise IRReadError(
                f"{layer.label}: {kind} port {port.id} has dims {port.dims}, but the "
                f"value has shape {_shape_str(shape)}"
            )

    def _check_input_port(
        self, layer: _Layer, port: _Port, value: SSAValue, src: _Layer
    ) -> None:
        try:
            self._check_port(layer, port, value.type, "input")
        except IRReadError as e:
            raise IRReadError(f"{e} (from {src.label})") from None

    def _result_types(
        self, cls: type[OVOp], layer: _Layer, operands: list[SSAValue]
    ) -> list[Attribute]:
        declared = [self._port_type(layer, p) for p in layer.outputs]
        ambiguous = [i for i, p in enumerate(layer.outputs) if not p.dims]
        if not ambiguous:
            return declared
        # A port without <dim> is a scalar or a dynamic-rank value: ask shape
        # inference which one, else guess from the inputs.
        inferred: list[Attribute] | None = None
        try:
            attrs = {s.name: s.default for s in cls.OV_ATTRS}
            for k, text in layer.data.items():
                spec = cls.attr_spec(k)
                attrs[k] = ov_attrs.from_xml(spec.kind, text)
            inferred = cls.infer_types(
                [v.type for v in operands],
                attrs,
                const_getter=lambda i: constant_value_of(operands[i]),
                num_outputs=len(layer.outputs),
            )
        except Exception:  # no inference, or inputs it rejects: verify reports it
            inferred = None
        any_unranked = any(isinstance(v.type, UnrankedTensorType) for v in operands)
        for i in ambiguous:
            t = declared[i]
            assert isinstance(t, TensorType)
            if inferred is not None and i < len(inferred):
                inf = inferred[i]
                if isinstance(inf, UnrankedTensorType):
                    declared[i] = UnrankedTensorType(t.get_element_type())
            elif any_unranked:
                declared[i] = UnrankedTensorType(t.get_element_type())
        return declared

    def _control_result_types(
        self, cls: type[OVOp], layer: _Layer, operands: list[SSAValue],
        regions: list[Region], props: dict[str, Attribute],
    ) -> list[Attribute]:
        """The declared output types of a Loop / TensorIterator / If; a port
        without <dim> is a scalar or of dynamic rank as the bodies say."""
        declared = [self._port_type(layer, p) for p in layer.outputs]
        if all(p.dims for p in layer.outputs):
            return declared
        try:
            inferred = infer_control_types(
                cls, [v.type for v in operands], regions, props, len(layer.outputs),
                lambda i: constant_value_of(operands[i]),
            )
        except ShapeInferenceError:
            return declared  # the op's verifier reports what is wrong
        for i, p in enumerate(layer.outputs):
            if not p.dims and i < len(inferred) and isinstance(inferred[i], UnrankedTensorType):
                declared[i] = UnrankedTensorType(inferred[i].get_element_type())
        return declared

    # -- constants ------------------------------------------------------------
    def _open(self, path: Path, xml_id: tuple[int, int] | None) -> BinaryIO:
        """``path`` opened by :func:`~xmo.input_files.open_input` (a regular
        file); a missing one is a :class:`_PairError`: a writer may be
        replacing the pair."""
        try:
            return open_input(path, IRReadError)
        except IRReadError:
            if os.path.lexists(path):
                raise
            raise _PairError(f"{path}: no such file", self.xml_path, xml_id) from None

    def _check_bin(self, record: tuple[int, str], xml_id: tuple[int, int] | None) -> None:
        """The ``.bin`` has the size and digest the ``.xml`` records (read
        through small buffers: the weights do not become resident); it is
        then the file the constants map."""
        size, want = record
        xml, bin_ = self.xml_path, self.bin_path
        try:
            f = self._open(bin_, xml_id)
        except _PairError:
            if size == 0:  # nothing to read from it
                return
            raise _PairError(f"{bin_} is missing: {xml.name} was written with a {size}-byte "
                             f"{bin_.name}", xml, xml_id) from None
        except IRReadError as e:
            raise IRReadError(f"weights file {e}") from None
        self._bin_file = f
        try:
            have = os.fstat(f.fileno()).st_size
            if have == size:
                have, digest = pair.file_digest(f.fileno())
        except OSError as e:
            raise IRReadError(f"cannot read weights file {bin_}: {e.strerror}") from None
        if have != size:
            raise _PairError(f"{bin_} does not belong to {xml}: {xml.name} was written with a "
                             f"{size}-byte .bin, {bin_.name} has {have} bytes", xml, xml_id)
        if digest != want:
            raise _PairError(f"{bin_} does not belong to {xml}: {xml.name} was written with a "
                             f".bin of digest {want[:16]}..., {bin_.name} has {digest[:16]}...",
                             xml, xml_id)

    def _bin_map(self, layer: _Layer) -> np.ndarray:
        if not self._bin_loaded:
            self._bin_loaded = True
            try:
                if self._bin_file is not None:  # the .bin checked against the record
                    self._bin = map_input(self._bin_file)
                else:
                    with open_input(self.bin_path) as f:
                        self._bin = map_input(f)
            except InputFileError as e:
                raise IRReadError(f"{layer.label}: weights file {e}") from None
            except OSError as e:
                raise IRReadError(
                    f"{layer.label}: cannot map weights file {self.bin_path}: {e.strerror}"
                ) from None
        assert self._bin is not None
        return self._bin

    def _constant_value(self, layer: _Layer) -> Attribute:
        d = layer.data
        extra = set(d) - {"element_type", "shape", "offset", "size"}
        if extra:
            raise IRReadError(
                f"{layer.label}: unknown attribute '{sorted(extra)[0]}' for ov.Constant"
            )
        etype = self._element_type(layer, d.get("element_type"), "element_type")
        try:
            shape = parse_shape_text(d.get("shape", ""))
        except ValueError:
            raise IRReadError(f"{layer.label}: bad shape '{d.get('shape')}'") from None
        if shape is None or any(s < 0 for s in shape):
            raise IRReadError(f"{layer.label}: a constant needs a static shape")
        offset = _int(d.get("offset"), f"{layer.label}: attribute 'offset'")
        size = _int(d.get("size"), f"{layer.label}: attribute 'size'")
        n = int(np.prod(shape, dtype=np.int64))
        need = et.byte_size(etype, n)
        if size != need:
            raise IRReadError(
                f"{layer.label}: size {size} does not match {etype} shape "
                f"{_shape_str(shape)} ({need} bytes)"
            )
        if offset < 0:
            raise IRReadError(f"{layer.label}: negative offset {offset}")
        if need == 0:
            raw = np.zeros(0, dtype=np.uint8)
        else:
            mm = self._bin_map(layer)
            if offset + size > mm.size:
                raise IRReadError(
                    f"{layer.label}: bytes {offset}..{offset + size} are beyond the end "
                    f"of {self.bin_path.name} ({mm.size} bytes)"
                )
            raw = mm[offset : offset + size]
        hint = layer.name
        if etype in et.PACKED_BITS:
            handle = self.store.add(raw, name_hint=hint)
            return DenseResourceAttr.from_params(
                handle, tensor(etype, shape)
            )
        arr: Any = raw.view(et.numpy_dtype(etype)).reshape(shape)
        return make_constant_attr(arr, etype, self.store, name_hint=hint)

    # -- Result names and verification -----------------------------------------
    @staticmethod
    def _merge_output_names(order: list[_Layer], by_id: dict[int, _Layer]) -> None:
        """A Result's ``output_names`` become names of the tensor it consumes."""
        for layer in order:
            if layer.type != "Result" or not layer.output_names or not layer.sources:
                continue
            fl, out_index = next(iter(layer.sources.values()))
            src = by_id[fl].op
            assert src is not None
            have = src.get_tensor_names(out_index)
            extra = [n for n in layer.output_names if n not in have]
            if extra:
                src.set_tensor_names(out_index, have + extra)

    @staticmethod
    def _verify_layers(order: list[_Layer]) -> None:
        for layer in order:
            op = layer.op
            assert op is not None
            try:
                op.verify_()
            except (VerifyException, ValueError, KeyError, TypeError) as e:
                raise IRReadError(f"{layer.label}: {first_line(e)}") from None

    def _verify(self, order: list[_Layer], module: ModuleOp) -> None:
        self._verify_layers(order)
        try:
            module.verify()
        except VerifyException as e:
            raise IRReadError(f"model does not verify: {first_line(e)}") from None



def _shape_str(shape: list[int]) -> str:
    return "[" + ",".join("?" if s < 0 else str(s) for s in shape) + "]"

