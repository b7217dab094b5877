"""A Kaldi model file -> :class:`KaldiModel` (plain records, no IR).

Reads nnet1 (``<Nnet>`` ... ``</Nnet>``: a chain of ``<Type> out in ...
<!EndOfComponent>`` layers) and nnet3 (``<Nnet3>``: the config lines
``input-node`` / ``component-node`` / ``dim-range-node`` / ``output-node``
with their descriptors, then ``<NumComponents>`` and ``<ComponentName> name
<Type> ... </Type>`` components), in text or binary form; ``.mdl`` files
start with a transition model, which is skipped (the nnet3 ``AmNnetSimple``
priors after the network are ignored). nnet2 models are refused.

An nnet1 chain becomes the same records as an nnet3 graph: input ``input``,
one component node per layer (``<Type>_<i>``), output ``output``; a
ParallelComponent becomes dim-range nodes splitting its input, the nodes of
its nested networks (``<name>/<k>/<Type>_<i>``) and an append node.

Component fields are read with the kinds :data:`xmo.dialects.kaldi.COMPONENTS`
declares (other fields: the kind the reader guesses); the fields of a
component type the table does not know are skipped (the component still
loads, by type and name). The numpy reference of the tests reads models
with this module too.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field
from typing import Any

from xmo.dialects.kaldi import COMPONENTS, ComponentSpec
from xmo.frontends.kaldi.reader import KaldiFrontendError, KaldiStream
from xmo.input_files import open_input

#: descriptor functions nnet3 configs use (``Name(args)``)
DESCRIPTOR_FUNCTIONS = frozenset({"Append", "Sum", "Offset", "Scale", "Const", "IfDefined",
                                  "Failover", "ReplaceIndex", "Round", "Switch"})
#: descriptor nesting beyond this is refused (a malicious file)
MAX_DEPTH = 200


@dataclass
class Component:
    """One component: its type (token without brackets), name and fields."""

    type: str
    name: str
    fields: dict[str, Any] = field(default_factory=dict)
    known: bool = True
    #: nnet1's output and input dims (None in nnet3)
    dims: tuple[int, int] | None = None


@dataclass
class Desc:
    """A descriptor term: ``kind`` ``node`` (``name``), a function with
    ``children`` and numeric ``args``, or ``DimRange``."""

    kind: str
    name: str = ""
    children: list[Desc] = field(default_factory=list)
    args: list[Any] = field(default_factory=list)


@dataclass
class NetNode:
    """A network node: ``input`` (``dim``), ``component`` (``component``,
    ``input``), ``dim-range`` (``input``: a ``DimRange`` term), ``append``
    (an nnet1 ParallelComponent's outputs, ``input``: an ``Append`` term) or
    ``output``."""

    kind: str
    name: str
    input: Desc | None = None
    component: str = ""
    dim: int = 0


@dataclass
class KaldiModel:
    """A whole model: ``nnet1`` or ``nnet3``, binary or text, nodes, components."""

    format: str
    binary: bool
    nodes: list[NetNode]
    components: dict[str, Component]

    @property
    def inputs(self) -> list[NetNode]:
        return [n for n in self.nodes if n.kind == "input"]

    @property
    def outputs(self) -> list[NetNode]:
        return [n for n in self.nodes if n.kind == "output"]


# ---------------------------------------------------------------------------
# Components
# ---------------------------------------------------------------------------


def _read_fields(s: KaldiStream, spec: ComponentSpec, end: str, what: str) -> dict[str, Any]:
    fields: dict[str, Any] = {}
    positional = list(spec.positional)
    while True:
        head = s.peek(1)
        if not head:
            raise s.error(f"truncated file: {what} has no {end}")
        if head == b"<":
            tok = s.token()
            if tok == end:
                return fields
            tag = tok[1:-1]
            kind = spec.fields.get(tag)
            value = s.read_kind(kind) if kind else s.read_guess()
            if value is not None:
                fields[tag] = value
            continue
        if not positional:
            raise s.error(f"{what}: unexpected value {s.peek(12)!r}")
        name, kind = positional.pop(0)
        fields[name] = s.read_kind(kind)


def _skip_to(s: KaldiStream, marker: str, what: str) -> None:
    if s.find(marker.encode()) < 0:
        raise s.error(f"truncated file: {what} has no {marker}")


def _read_nnet3_components(s: KaldiStream) -> dict[str, Component]:
    s.expect("<NumComponents>")
    n = s.read_int()
    if n < 0:
        raise s.error(f"{n} components")
    comps: dict[str, Component] = {}
    for _ in range(n):
        s.expect("<ComponentName>")
        name = s.word()
        tok = s.token()
        ctype = tok[1:-1]
        end = f"</{ctype}>"
        spec = COMPONENTS.get(ctype)
        what = f"component '{name}' ({ctype})"
        if spec is None or spec.nnet1:
            _skip_to(s, end, what)
            comps[name] = Component(ctype, name, known=False)
        else:
            comps[name] = Component(ctype, name, _read_fields(s, spec, end, what))
    s.expect("</Nnet3>")
    return comps


def _read_nnet1(s: KaldiStream) -> tuple[list[NetNode], dict[str, Component]]:
    nodes: list[NetNode] = []
    comps: dict[str, Component] = {}
    layers = _read_layers(s, "", 0)
    if not layers:
        raise s.error("the network has no layers")
    first = layers[0]
    in_dim = first[0].dims[1] if isinstance(first, tuple) else first.dims[1]  # type: ignore[union-attr]
    nodes.append(NetNode("input", "input", dim=in_dim))
    last = _chain(layers, "input", nodes, comps)
    nodes.append(NetNode("output", "output", Desc("node", last)))
    return nodes, comps


#: an nnet1 layer: a component, or a ParallelComponent (itself, its nested chains)
Layer = Any


def _read_layers(s: KaldiStream, prefix: str, depth: int) -> list[Layer]:
    """The layers of an nnet1 chain, up to its ``</Nnet>``."""
    if depth > 8:
        raise s.error("ParallelComponents nested too deeply")
    layers: list[Layer] = []
    while True:
        if s.at_end():
            raise s.error("truncated file: no </Nnet>")
        tok = s.token()
        if tok == "</Nnet>":
            return layers
        ctype = tok[1:-1]
        if ctype in ("NumComponents", "Components"):
            raise s.error("nnet2 models are not supported (nnet1 and nnet3 are)")
        out_dim, in_dim = s.read_int(), s.read_int()
        name = f"{prefix}{ctype}_{len(layers)}"
        what = f"layer '{name}'"
        spec = COMPONENTS.get(ctype)
        if ctype == "ParallelComponent":
            comp = Component(ctype, name, dims=(out_dim, in_dim))
            layers.append((comp, _read_parallel(s, name, depth)))
            continue
        if spec is None or not spec.nnet1:
            _skip_to(s, "<!EndOfComponent>", what)
            comp = Component(ctype, name, known=False, dims=(out_dim, in_dim))
        else:
            comp = Component(ctype, name, _read_fields(s, spec, "<!EndOfComponent>", what),
                             dims=(out_dim, in_dim))
        layers.append(comp)


def _read_parallel(s: KaldiStream, name: str, depth: int) -> list[list[Layer]]:
    """A ParallelComponent's nested networks (``<NestedNnetCount> n``, then
    ``<NestedNnet> i <Nnet> ... </Nnet>`` each, ``</ParallelComponent>``)."""
    s.expect("<NestedNnetCount>")
    n = s.read_int()
    if not 0 < n <= 1024:
        raise s.error(f"ParallelComponent '{name}' with {n} nested networks")
    nested = []
    for k in range(n):
        s.expect("<NestedNnet>")
        s.read_int()
        s.expect("<Nnet>")
        layers = _read_layers(s, f"{name}/{k}/", depth + 1)
        if not layers:
            raise s.error(f"ParallelComponent '{name}': nested network {k} has no layers")
        nested.append(layers)
    s.expect("</ParallelComponent>")
    if s.peek(17) == b"<!EndOfComponent>":
        s.token()
    return nested


def _layer_in_dim(layer: Layer) -> int:
    comp = layer[0] if isinstance(layer, tuple) else layer
    return comp.dims[1]


def _chain(layers: list[Layer], src: str, nodes: list[NetNode], comps: dict[str, Component]) -> str:
    """Nodes of an nnet1 chain reading ``src``; the name of its last node. A
    ParallelComponent becomes dim-range nodes splitting its input, its nested
    chains, and an append node of their outputs."""
    prev = src
    for layer in layers:
        if isinstance(layer, tuple):
            comp, nested = layer
            outs, offset = [], 0
            for k, chain in enumerate(nested):
                dim = _layer_in_dim(chain[0])
                part = f"{comp.name}/{k}/input"
                nodes.append(NetNode("dim-range", part, Desc("DimRange", children=[Desc("node", prev)],
                                                           args=[offset, dim])))
                offset += dim
                outs.append(Desc("node", _chain(chain, part, nodes, comps)))
            nodes.append(NetNode("append", comp.name, Desc("Append", children=outs)))
            prev = comp.name
            continue
        comps[layer.name] = layer
        nodes.append(NetNode("component", layer.name, Desc("node", prev), component=layer.name))
        prev = layer.name
    return prev


# ---------------------------------------------------------------------------
# nnet3 config lines and descriptors
# ---------------------------------------------------------------------------

_KEY = re.compile(r"\s*([A-Za-z0-9_-]+)=")
_DESC_TOKEN = re.compile(r"\s*(?:([A-Za-z_][A-Za-z0-9_.\-]*)|(-?[0-9][0-9.eE+\-]*)|([(),]))")


def _config_fields(line: str, s: KaldiStream) -> tuple[str, dict[str, str]]:
    kind, _, rest = line.strip().partition(" ")
    fields: dict[str, str] = {}
    i = 0
    while i < len(rest):
        if rest[i].isspace():
            i += 1
            continue
        m = _KEY.match(rest, i)
        if m is None:
            raise s.error(f"bad config line {line.strip()[:80]!r}")
        j = k = m.end()
        depth = 0
        while k < len(rest) and (depth > 0 or not rest[k].isspace()):
            depth += {"(": 1, ")": -1}.get(rest[k], 0)
            k += 1
        fields[m.group(1)] = rest[j:k]
        i = k
    return kind, fields


def parse_descriptor(text: str, where: str = "descriptor") -> Desc:
    """An nnet3 descriptor (``Append(Offset(input, -1), input)``) -> :class:`Desc`."""
    toks: list[str] = []
    pos = 0
    text = text.strip()
    while pos < len(text):
        m = _DESC_TOKEN.match(text, pos)
        if m is None or m.end() == pos:
            raise KaldiFrontendError(f"{where}: bad descriptor {text[:80]!r}")
        toks.append(m.group(m.lastindex or 0))
        pos = m.end()
    at = 0

    def take() -> str:
        nonlocal at
        if at >= len(toks):
            raise KaldiFrontendError(f"{where}: descriptor ends early: {text[:80]!r}")
        at += 1
        return toks[at - 1]

    def num(t: str) -> float:
        try:
            return float(t)
        except ValueError:
            raise KaldiFrontendError(f"{where}: expected a number in {text[:80]!r}, found {t!r}") from None

    def term(depth: int) -> Desc:
        if depth > MAX_DEPTH:
            raise KaldiFrontendError(f"{where}: descriptor nested too deeply")
        t = take()
        if at < len(toks) and toks[at] == "(":
            if t not in DESCRIPTOR_FUNCTIONS:
                raise KaldiFrontendError(f"{where}: unknown descriptor function {t!r}")
            take()
            d = Desc(t)
            while True:
                nxt = toks[at] if at < len(toks) else ""
                if nxt and (nxt[0].isdigit() or nxt[0] == "-") or nxt in ("t", "x"):
                    v = take()
                    d.args.append(v if v in ("t", "x") else num(v))
                else:
                    d.children.append(term(depth + 1))
                sep = take()
                if sep == ")":
                    return d
                if sep != ",":
                    raise KaldiFrontendError(f"{where}: expected ',' or ')' in {text[:80]!r}")
        if t in "(),":
            raise KaldiFrontendError(f"{where}: unexpected {t!r} in {text[:80]!r}")
        return Desc("node", t)

    d = term(0)
    if at != len(toks):
        raise KaldiFrontendError(f"{where}: trailing text in descriptor {text[:80]!r}")
    return d


def _read_config(s: KaldiStream) -> list[NetNode]:
    s.line()  # the rest of the <Nnet3> line
    nodes: list[NetNode] = []
    while True:
        if s.pos >= len(s.buf):
            raise s.error("truncated file: the nnet3 config has no end")
        line = s.line()
        if not line.strip():
            break
        kind, f = _config_fields(line, s)
        name = f.get("name", "")
        where = f"{s.what}: {kind} '{name}'"
        if not name:
            raise s.error(f"{kind} line without a name")
        try:
            if kind == "input-node":
                nodes.append(NetNode("input", name, dim=int(f.get("dim", "0"))))
            elif kind == "component-node":
                nodes.append(NetNode("component", name, parse_descriptor(f.get("input", ""), where),
                                  component=f.get("component", "")))
            elif kind == "output-node":
                nodes.append(NetNode("output", name, parse_descriptor(f.get("input", ""), where)))
            elif kind == "dim-range-node":
                src = Desc("node", f.get("input-node", ""))
                rng = Desc("DimRange", children=[src],
                           args=[int(f.get("dim-offset", "0")), int(f.get("dim", "0"))])
                nodes.append(NetNode("dim-range", name, rng))
            else:
                raise s.error(f"unknown config line '{kind}'")
        except ValueError as e:
            if isinstance(e, KaldiFrontendError):
                raise
            raise KaldiFrontendError(f"{where}: {e}") from None
    return nodes


# ---------------------------------------------------------------------------
# Files
# ---------------------------------------------------------------------------


def read_kaldi_bytes(data: bytes, what: str) -> KaldiModel:
    """A model from the bytes of a ``.nnet`` / ``.mdl`` / ``.raw`` file."""
    s = KaldiStream(data, what)
    if s.at_end():
        raise s.error("empty file, not a Kaldi model")
    if s.peek(1) != b"<":
        raise s.error("not a Kaldi model (expected \\0B or a <Token>)")
    tok = s.token()
    if tok == "<TransitionModel>":
        _skip_to(s, "</TransitionModel>", "the transition model")
        tok = s.token()
    if tok == "<Nnet3>":
        nodes = _read_config(s)
        comps = _read_nnet3_components(s)
        fmt = "nnet3"
    elif tok == "<Nnet>":
        nodes, comps = _read_nnet1(s)
        fmt = "nnet1"
    else:
        raise s.error(f"not a Kaldi nnet1/nnet3 model (starts with {tok[:40]})")
    model = KaldiModel(fmt, s.binary, nodes, comps)
    _check(model, what)
    return model


def _check(model: KaldiModel, what: str) -> None:
    names: set[str] = set()
    for n in model.nodes:
        if n.name in names:
            raise KaldiFrontendError(f"{what}: node '{n.name}' defined twice")
        names.add(n.name)
        if n.kind == "input" and n.dim <= 0:
            raise KaldiFrontendError(f"{what}: input '{n.name}' has dim {n.dim}")
        if n.kind == "component" and n.component not in model.components:
            raise KaldiFrontendError(f"{what}: node '{n.name}' uses component '{n.component}', which the file does not have")
    for n in model.nodes:
        for ref in refs(n.input):
            if ref not in names:
                raise KaldiFrontendError(f"{what}: node '{n.name}' reads '{ref}', which is not a node")
    if not model.outputs:
        raise KaldiFrontendError(f"{what}: the network has no output-node")


def refs(d: Desc | None) -> list[str]:
    if d is None:
        return []
    if d.kind == "node":
        return [d.name]
    return [r for c in d.children for r in refs(c)]


def read_kaldi(model: Any) -> KaldiModel:
    """A model from a path (or the bytes of a file)."""
    if isinstance(model, bytes | bytearray):
        return read_kaldi_bytes(bytes(model), "Kaldi model bytes")
    if not isinstance(model, str | os.PathLike):
        raise KaldiFrontendError(f"cannot load a Kaldi model from a {type(model).__name__}")
    path = os.fspath(model)
    try:
        with open_input(path, KaldiFrontendError) as f:
            data = f.read()
    except OSError as e:
        raise KaldiFrontendError(f"{path}: cannot read: {e.strerror or e}") from None
    return read_kaldi_bytes(data, path)


__all__ = [
    "Component",
    "Desc",
    "KaldiModel",
    "NetNode",
    "parse_descriptor",
    "read_kaldi",
    "read_kaldi_bytes",
    "refs",
]
