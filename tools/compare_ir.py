#!/usr/bin/env python3
"""Diff the IR xmo writes for a model against the IR OpenVINO's own converter writes.

    python tools/compare_ir.py MODEL [--subgraphs] [--keep DIR] [--input ...]

Converts ``MODEL`` (ONNX, TensorFlow frozen graph: whatever both read) with
``xmo.convert_model`` and with ``openvino.convert_model`` (written with
``compress_to_fp16=False``) and prints:

* layers in all and without Constants, Transposes, for both and the difference;
* layers by type side by side (types whose counts differ first);
* with ``--subgraphs``, the sub-graph level differences, matched by tensor
  names (both tools keep the framework's tensor names on the tensors they
  keep): for each tensor both IRs name, the layers each uses to compute it
  from other such tensors (Constants and Parameters left out); where the
  layer types differ, the regions are grouped and counted, e.g.
  ``5 | Add x2, Divide, Multiply x2, ReduceMean x2, Sqrt, Subtract | Add, MVN, Multiply``
  reads "five times, xmo computes with these nine layers what ovc computes
  with MVN + Multiply + Add". Then, for each layer type OpenVINO has more of
  (``MVN``, ``Gelu``, ``ScaledDotProductAttention``...), the groups it is in.

The functions are reused by ``benchmarks/bench_graph_quality.py``.
"""

from __future__ import annotations

import argparse
import collections
import sys
import tempfile
import xml.etree.ElementTree as ET
from dataclasses import dataclass, field
from pathlib import Path

#: how far the sub-graph walks go (layers)
WALK_LIMIT = 60


@dataclass
class Layer:
    id: str
    type: str
    name: str
    #: output port id -> tensor names
    outputs: dict[str, list[str]] = field(default_factory=dict)
    #: input port id -> (producer layer id, producer port id), in port order
    inputs: list[tuple[str, str]] = field(default_factory=list)


@dataclass
class IRGraph:
    """The top-level graph of an IR ``.xml`` (bodies of Loop / If are not walked)."""

    layers: dict[str, Layer]
    #: tensor name -> (layer id, port id)
    by_tensor: dict[str, tuple[str, str]]
    #: layer id -> consumer layer ids
    consumers: dict[str, list[str]]

    @classmethod
    def read(cls, xml: Path) -> IRGraph:
        root = ET.parse(xml).getroot()
        layers: dict[str, Layer] = {}
        in_ports: dict[str, list[str]] = {}
        for la in root.find("layers"):  # type: ignore[union-attr]
            layer = Layer(la.get("id", ""), la.get("type", ""), la.get("name", ""))
            out = la.find("output")
            for p in out if out is not None else ():
                names = p.get("names")
                layer.outputs[p.get("id", "")] = _split_names(names) if names else []
            inp = la.find("input")
            in_ports[layer.id] = [p.get("id", "") for p in inp] if inp is not None else []
            layers[layer.id] = layer
        edges: dict[tuple[str, str], tuple[str, str]] = {}
        consumers: dict[str, list[str]] = collections.defaultdict(list)
        for e in root.find("edges"):  # type: ignore[union-attr]
            src = (e.get("from-layer", ""), e.get("from-port", ""))
            dst = (e.get("to-layer", ""), e.get("to-port", ""))
            edges[dst] = src
            consumers[src[0]].append(dst[0])
        for lid, ports in in_ports.items():
            layers[lid].inputs = [edges[(lid, p)] for p in ports if (lid, p) in edges]
        by_tensor = {n: (lid, pid) for lid, la in layers.items() for pid, ns in la.outputs.items() for n in ns}
        return cls(layers, by_tensor, dict(consumers))

    def counts(self) -> collections.Counter[str]:
        return collections.Counter(la.type for la in self.layers.values())

    def input_names(self, layer: Layer) -> set[str]:
        return {n for lid, pid in layer.inputs for n in self.layers[lid].outputs.get(pid, [])}


def _split_names(text: str) -> list[str]:
    """A port's ``names``: comma-separated, ``\\,`` an escaped comma."""
    out, cur, i = [], [], 0
    while i < len(text):
        if text[i] == "\\" and i + 1 < len(text) and text[i + 1] == ",":
            cur.append(",")
            i += 2
            continue
        if text[i] == ",":
            out.append("".join(cur))
            cur = []
        else:
            cur.append(text[i])
        i += 1
    out.append("".join(cur))
    return [n for n in out if n]


@dataclass(frozen=True)
class IRStats:
    layers: int
    non_constant: int
    transposes: int
    by_type: dict[str, int]

    @classmethod
    def of(cls, xml: Path) -> IRStats:
        c = IRGraph.read(xml).counts()
        total = sum(c.values())
        return cls(total, total - c.get("Const", 0), c.get("Transpose", 0), dict(c))


def convert_both(model: Path, out: Path, input: str | None = None) -> tuple[Path, Path]:  # noqa: A002
    """``out/xmo.xml`` and ``out/ovc.xml`` for ``model`` (f32 weights both);
    ``input``: xmo's ``--input`` text (``x[1,3,64,64],y[1,?]``), given to
    OpenVINO as (name, shape) pairs."""
    import openvino as ov
    import xmo
    from xmo.options import parse_input_spec

    xmo_opts, ov_opts = {}, {}
    if input:
        xmo_opts["input"] = input
        ov_opts["input"] = [name if shape is None else (name, [-1 if d is None else d for d in shape])
                            for name, shape in parse_input_spec(input).items()]
    xmo_xml, ov_xml = out / "xmo.xml", out / "ovc.xml"
    xmo.save_model(xmo.convert_model(str(model), **xmo_opts), xmo_xml)
    ov.save_model(ov.convert_model(str(model), **ov_opts), str(ov_xml), compress_to_fp16=False)
    return xmo_xml, ov_xml


def type_table(a: collections.Counter[str], b: collections.Counter[str]) -> list[tuple[str, int, int]]:
    """(type, xmo, ovc): differing counts first (largest difference first), then the equal ones."""
    types = set(a) | set(b)
    return sorted(((t, a.get(t, 0), b.get(t, 0)) for t in types),
                  key=lambda r: (r[1] == r[2], -abs(r[1] - r[2]), r[0]))


def _multiset(c: collections.Counter[str]) -> str:
    return ", ".join(f"{k} x{v}" if v > 1 else k for k, v in sorted(c.items())) or "-"


def _region(g: IRGraph, start: str, common: set[str]) -> collections.Counter[str]:
    """Types of the layers computing ``start``'s output from tensors named in
    ``common`` (and Parameters / Constants, which are left out)."""
    seen: set[str] = set()
    todo = [start]
    types: collections.Counter[str] = collections.Counter()
    while todo and len(seen) < WALK_LIMIT:
        lid = todo.pop()
        if lid in seen:
            continue
        seen.add(lid)
        la = g.layers[lid]
        if la.type in ("Const", "Parameter"):
            continue
        types[la.type] += 1
        for src, port in la.inputs:
            if not set(g.layers[src].outputs.get(port, [])) & common:
                todo.append(src)
    return types


def region_diffs(x: IRGraph, o: IRGraph) -> list[tuple[int, str, str, str]]:
    """Sub-graphs between the tensors both IRs name, where the two differ.

    For each tensor named in both (one per OpenVINO output port), the layers
    each IR uses to compute it from other such tensors; regions whose layer
    types differ are grouped by (xmo types, ovc types): (count, xmo types,
    ovc types, one example tensor name), largest groups first."""
    common = set(x.by_tensor) & set(o.by_tensor)
    groups: dict[tuple[str, str], list[str]] = collections.defaultdict(list)
    for lid, la in o.layers.items():
        for ns in la.outputs.values():
            names = [n for n in ns if n in common]
            if not names or la.type in ("Const", "Parameter"):
                continue
            ro = _region(o, lid, common)
            rx = _region(x, x.by_tensor[names[0]][0], common)
            if ro != rx:
                groups[(_multiset(rx), _multiset(ro))].append(names[0])
    rows = [(len(v), kx, ko, v[0]) for (kx, ko), v in groups.items()]
    return sorted(rows, key=lambda r: (-r[0], r[1], r[2]))


def subgraph_report(xmo_xml: Path, ov_xml: Path, limit: int = 40) -> list[str]:
    x, o = IRGraph.read(xmo_xml), IRGraph.read(ov_xml)
    cx, co = x.counts(), o.counts()
    rows = region_diffs(x, o)
    lines = ["regions (tensors named in both, computed differently): count | xmo | ovc | e.g."]
    lines += [f"  {n} | {kx} | {ko} | {ex}" for n, kx, ko, ex in rows[:limit]]
    if len(rows) > limit:
        lines.append(f"  ... {len(rows) - limit} more groups")
    for t, nx, no in type_table(cx, co):
        if no > nx and t != "Const":
            where = [f"{n} x ({kx})" for n, kx, ko, _ in rows if t in ko.replace(",", " ").split()]
            lines.append(f"ovc {t} {no} / xmo {nx}: xmo computes it with " + ("; ".join(where) or "?"))
    return lines


def report(xmo_xml: Path, ov_xml: Path, subgraphs: bool) -> str:
    sx, so = IRStats.of(xmo_xml), IRStats.of(ov_xml)
    out = ["| | xmo | ovc | xmo - ovc |", "| --- | ---: | ---: | ---: |"]
    for label, a, b in (("layers", sx.layers, so.layers), ("non-Constant", sx.non_constant, so.non_constant),
                        ("Transpose", sx.transposes, so.transposes)):
        out.append(f"| {label} | {a} | {b} | {a - b:+d} |")
    out += ["", "| type | xmo | ovc | xmo - ovc |", "| --- | ---: | ---: | ---: |"]
    for t, a, b in type_table(collections.Counter(sx.by_type), collections.Counter(so.by_type)):
        out.append(f"| {t} | {a} | {b} | {a - b:+d} |" if a != b else f"| {t} | {a} | {b} | |")
    if subgraphs:
        out += ["", "sub-graphs:", *subgraph_report(xmo_xml, ov_xml)]
    return "\n".join(out)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("model", type=Path)
    ap.add_argument("--subgraphs", action="store_true", help="sub-graph level differences")
    ap.add_argument("--keep", type=Path, help="write both IRs into this folder (xmo.xml, ovc.xml)")
    ap.add_argument("--input", help="input shapes for both converters, xmo's --input form: 'x[1,3,64,64],y[1,?]'")
    args = ap.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="compare-ir-") as tmp:
        out = args.keep or Path(tmp)
        out.mkdir(parents=True, exist_ok=True)
        xmo_xml, ov_xml = convert_both(args.model, out, args.input)
        print(f"{args.model.name}")
        print(report(xmo_xml, ov_xml, args.subgraphs))
    return 0


if __name__ == "__main__":
    sys.exit(main())
