"""Frozen TensorFlow GraphDef -> ``tf``-dialect module (see the package docstring)."""

from __future__ import annotations

import heapq
import os
import re
from collections.abc import Mapping, Sequence
from typing import Any, NamedTuple

import numpy as np
from xdsl.context import Context
from xdsl.dialects.builtin import (
    ArrayAttr,
    ModuleOp,
    StringAttr,
    TensorType,
    UnrankedTensorType,
)
from xdsl.ir import Attribute, Block, Operation, Region, SSAValue

from xmo.budget import ResourceLimitError
from xmo.context import weight_store
from xmo.dialects.ov.base import tensor
from xmo.dialects.ov.weights import WeightStore
from xmo.dialects.tf import FUNCTION_CALLS, OPS_BY_TYPE, FunctionOp, OutputOp, ReturnOp, TFOp, UnknownOp
from xmo.dialects.tf import dtypes as tfd
from xmo.dialects.tf.base import RESERVED_PROPERTIES, from_attr
from xmo.dialects.tf.types import FuncAttr, ShapeAttr, UnknownType, element_type, xmo_type_name
from xmo.frontends.protobuf_file import mapped_message
from xmo.frontends.tf import schema
from xmo.frontends.tf.frames import FrameError, has_frames, raise_frames
from xmo.frontends.tf.attrs import AttrDecodeError, attr_from_proto
from xmo.errors import ModelError, first_line, printable

#: op types that are never default graph outputs (inputs and constants)
_NOT_OUTPUTS = frozenset({"Const", "Placeholder"})
#: op types ``input_shapes`` / ``inputs`` may name
_INPUT_OPS = ("Placeholder", "PlaceholderWithDefault")
#: suffixes read as protobuf text format
TEXT_SUFFIXES = (".pbtxt", ".prototxt", ".txt")


class TFFrontendError(ModelError):
    """A GraphDef the TF frontend cannot read; the message is one line naming the
    file, node or tensor at fault."""

    def __init__(self, msg: object = "") -> None:
        # names from the file may hold newlines / control characters: escape them
        super().__init__(printable(str(msg)))


# ---------------------------------------------------------------------------
# Reading
# ---------------------------------------------------------------------------


def read_graph_def(model: Any) -> Any:
    """A GraphDef (of :mod:`.schema`) from a path (``.pbtxt``/``.prototxt``/
    ``.txt``: text format, anything else binary), serialized bytes, a schema
    GraphDef (returned as is) or any other ``tensorflow.GraphDef`` message
    (TensorFlow's own class: re-parsed from its serialization)."""
    if isinstance(model, str | os.PathLike):
        path = os.fspath(model)
        try:
            with mapped_message(path, "a GraphDef", TFFrontendError) as data:
                if path.lower().endswith(TEXT_SUFFIXES):
                    return _parse_text(bytes(data), path)
                return _parse_binary(data, path)
        except OSError as e:
            raise TFFrontendError(f"{path}: cannot read: {e.strerror or e}") from None
    if isinstance(model, bytes | bytearray | memoryview):
        return _parse_binary(bytes(model), "GraphDef bytes")
    if isinstance(model, schema.GraphDef):
        return model
    desc = getattr(model, "DESCRIPTOR", None)
    if getattr(desc, "full_name", None) == "tensorflow.GraphDef":
        return _parse_binary(model.SerializeToString(), "GraphDef message")
    raise TFFrontendError(
        f"cannot load a TensorFlow graph from a {type(model).__name__} "
        "(expected a .pb/.pbtxt path, bytes or a GraphDef)"
    )


def _parse_binary(data: bytes | memoryview, what: str) -> Any:
    from google.protobuf.message import DecodeError

    if not data:
        raise TFFrontendError(f"{what}: empty, not a TensorFlow GraphDef")
    try:
        g = schema.GraphDef()
        g.ParseFromString(data)
    except (DecodeError, ValueError, RuntimeError) as e:
        raise TFFrontendError(
            f"{what}: not a valid TensorFlow GraphDef (truncated or corrupt protobuf: "
            f"{first_line(e)})"
        ) from None
    if not len(g.node):
        raise TFFrontendError(
            f"{what}: the GraphDef has no nodes (xmo reads frozen GraphDefs, not "
            "SavedModel saved_model.pb or checkpoint files)"
        )
    return g


def _parse_text(data: bytes, what: str) -> Any:
    from google.protobuf import text_format

    try:
        g = schema.parse_text(data.decode("utf-8"))
    except UnicodeDecodeError:
        raise TFFrontendError(f"{what}: not a text GraphDef (not UTF-8)") from None
    except RecursionError:
        raise TFFrontendError(f"{what}: not a valid text GraphDef: nested too deeply") from None
    except text_format.ParseError as e:
        raise TFFrontendError(f"{what}: not a valid text GraphDef: {first_line(e)}") from None
    if not len(g.node):
        raise TFFrontendError(f"{what}: the GraphDef has no nodes")
    return g


# ---------------------------------------------------------------------------
# Names
# ---------------------------------------------------------------------------

_BAD_CHARS = re.compile(r"[^\w$.-]", re.ASCII)
_NUM_SUFFIX = re.compile(r"(_\d+)+$")


def name_hint(name: str) -> str | None:
    """An SSA name hint close to a node name (``conv1/BiasAdd`` -> ``conv1_BiasAdd``).

    Trailing ``_<digits>`` are dropped (``conv_1`` -> ``conv``): the printer
    numbers repeated hints itself with such suffixes, and a hint that kept
    one could clash with them. The exact name is the ``node_name`` property.
    """
    if not name:
        return None
    h = _NUM_SUFFIX.sub("", _BAD_CHARS.sub("_", name))
    if not h:
        return "v"
    if h[0].isdigit() or h[0] in "$.-":
        h = "v" + h
    return h


def parse_tensor_name(name: str) -> tuple[str, int]:
    """``"node"`` -> (node, 0); ``"node:k"`` -> (node, k). ValueError when malformed."""
    node, sep, port = name.rpartition(":")
    if not sep:
        node, port = name, "0"
    if not node or not port.isdigit() or ":" in node or node.startswith("^"):
        raise ValueError(f"'{name}' is not a tensor name (node or node:port)")
    return node, int(port)


def tensor_name(node: str, port: int) -> str:
    return node if port == 0 else f"{node}:{port}"


def _label(nd: Any, i: int) -> str:
    if nd.name:
        return f"node '{nd.name}' ({nd.op or 'no op'})"
    return f"node #{i} ({nd.op or 'no op'})"


# ---------------------------------------------------------------------------
# Entry points
# ---------------------------------------------------------------------------


def load_tf(
    model: Any,
    ctx: Context,
    *,
    input_shapes: Mapping[str, Sequence[int | str | None] | None] | None = None,
    outputs: Sequence[str] | None = None,
    inputs: Sequence[str] | None = None,
) -> ModuleOp:
    """Load a frozen TensorFlow graph into a ``tf``-dialect module.

    ``model``: a ``.pb`` (binary) / ``.pbtxt`` (text) path, serialized bytes or
    a GraphDef message. ``input_shapes``: Placeholder name -> dims (int >= 0
    static; -1, None or a string dynamic; a None value: unknown rank).
    ``outputs``: tensor names (``"node"``/``"node:k"``); when given, only the
    nodes they depend on (data and control edges) are kept. ``inputs``: node
    names that must be graph inputs (``--input`` names without a shape).
    ``ctx`` must be an xmo context (``make_context()``): weights go into its
    weight store.

    A ``PlaceholderWithDefault`` is its default value, unless ``inputs`` or
    ``input_shapes`` names it: then it loads as a ``tf.Placeholder`` (its
    ``shape`` attribute, or the dims given), as OpenVINO's TF frontend makes
    it a Parameter when the user overrides the inputs with it.
    """
    graph = read_graph_def(model)
    if has_frames(graph):
        try:
            graph = raise_frames(graph)
        except FrameError as e:
            raise TFFrontendError(str(e)) from None
    ctx.get_optional_op("tf.Output")  # loads the tf dialect if registered
    return _Loader(graph, weight_store(ctx), input_shapes, outputs, inputs).run()


def graph_input_shapes(model: Any) -> dict[str, list[int] | None]:
    """Placeholder name -> dims (-1 unknown) or None (unknown rank), graph order."""
    graph = read_graph_def(model)
    out: dict[str, list[int] | None] = {}
    for nd in graph.node:
        if nd.op == "Placeholder":
            out[nd.name] = _placeholder_dims(nd)
    return out


def _placeholder_dims(nd: Any) -> list[int] | None:
    """Dims of a Placeholder: its ``shape`` attr, else ``_output_shapes[0]``."""
    dims: list[int] | None = None
    if "shape" in nd.attr and nd.attr["shape"].WhichOneof("value") == "shape":
        sp = nd.attr["shape"].shape
        if not sp.unknown_rank:
            bad = [int(d.size) for d in sp.dim if d.size < -1]  # -1: unknown
            if bad:
                raise TFFrontendError(
                    f"Placeholder '{nd.name}': negative dimension {bad[0]} in its shape"
                )
            return [max(int(d.size), -1) for d in sp.dim]
    if "_output_shapes" in nd.attr:
        shapes = nd.attr["_output_shapes"].list.shape
        if len(shapes) and not shapes[0].unknown_rank:
            dims = [max(int(d.size), -1) for d in shapes[0].dim]
    return dims


# ---------------------------------------------------------------------------
# The loader
# ---------------------------------------------------------------------------


class _Node:
    """One NodeDef with its parsed inputs and (later) its converted attrs."""

    __slots__ = ("attrs", "cls", "control", "data", "index", "label", "n_out", "nd", "py", "raw")

    def __init__(self, index: int, nd: Any) -> None:
        self.index = index
        self.nd = nd
        self.label = _label(nd, index)
        self.data: list[tuple[str, int]] = []
        self.raw: list[str] = []  # the data input strings as written
        self.control: list[str] = []
        self.cls: type[TFOp] | None = None
        self.attrs: dict[str, Attribute] = {}
        self.py: dict[str, Any] = {}
        self.n_out = 0


class _Loader:
    def __init__(
        self,
        graph: Any,
        store: WeightStore,
        input_shapes: Mapping[str, Sequence[int | str | None] | None] | None,
        outputs: Sequence[str] | None,
        inputs: Sequence[str] | None = None,
    ) -> None:
        self.graph = graph
        self.store = store
        self.input_shapes = dict(input_shapes or {})
        self.inputs = [inputs] if isinstance(inputs, str) else list(inputs or [])
        #: PlaceholderWithDefault nodes loaded as Placeholders (graph inputs)
        self.default_inputs: set[str] = set()
        if isinstance(outputs, str):
            outputs = [outputs]
        self.outputs = None if outputs is None else list(outputs)

    def run(self) -> ModuleOp:
        nodes = self._index()
        by_name = {n.nd.name: n for n in nodes}
        shapes = self._check_input_shapes(by_name)
        requested = self._parse_outputs(by_name)
        kept = self._kept(nodes, by_name, requested)
        for n in kept:
            self._convert_attrs(n)
        self._count_outputs(kept, requested)
        self._check_edges(kept, by_name)
        if requested is None:
            requested = self._default_outputs(kept)
        else:
            for node, port in requested:
                n = by_name[node]
                if port >= n.n_out:
                    raise TFFrontendError(
                        f"outputs: '{tensor_name(node, port)}': {n.label} has "
                        f"{n.n_out} output{'s' if n.n_out != 1 else ''}"
                    )
        order = self._order(kept)
        module = ModuleOp([])
        block = module.body.block
        for fn in self._functions(kept):
            block.add_op(fn)
        values: dict[str, list[SSAValue]] = {}
        for n in order:
            op = self._build(n, values, shapes)
            block.add_op(op)
            values[n.nd.name] = list(op.results)
        for node, port in requested:
            block.add_op(OutputOp(values[node][port], tensor_name(node, port)))
        return module

    # -- structure -------------------------------------------------------------
    def _index(self) -> list[_Node]:
        nodes: list[_Node] = []
        seen: dict[str, int] = {}
        for i, nd in enumerate(self.graph.node):
            n = _Node(i, nd)
            if not nd.name:
                raise TFFrontendError(f"{n.label}: the node has no name")
            if nd.name in seen:
                raise TFFrontendError(
                    f"{n.label}: the name is used by node #{seen[nd.name]} too"
                )
            if not nd.op:
                raise TFFrontendError(f"{n.label}: the node has no op type")
            seen[nd.name] = i
            for inp in nd.input:
                if inp.startswith("^"):
                    if not inp[1:] or ":" in inp[1:]:
                        raise TFFrontendError(f"{n.label}: malformed control input '{inp}'")
                    n.control.append(inp[1:])
                    continue
                try:
                    n.data.append(parse_tensor_name(inp))
                    n.raw.append(inp)
                except ValueError:
                    raise TFFrontendError(
                        f"{n.label}: malformed input '{inp}' (expected node, node:port "
                        "or ^node)"
                    ) from None
            nodes.append(n)
        return nodes

    def _check_input_shapes(self, by_name: dict[str, _Node]) -> dict[str, list[int] | None]:
        """Dims overrides by Placeholder name; records the PlaceholderWithDefault
        nodes ``inputs`` / ``input_shapes`` name (they become graph inputs)."""
        out: dict[str, list[int] | None] = {}
        placeholders = [n.nd.name for n in by_name.values() if n.nd.op in _INPUT_OPS]

        def input_node(key: str, what: str) -> str:
            name = key[:-2] if key.endswith(":0") and key[:-2] in by_name else key
            n = by_name.get(name)
            if n is None or n.nd.op not in _INPUT_OPS:
                raise TFFrontendError(
                    f"{what}: the graph has no Placeholder '{key}' "
                    f"(placeholders: {', '.join(placeholders) or 'none'})"
                )
            if n.nd.op == "PlaceholderWithDefault":
                self.default_inputs.add(name)
            return name

        for key in self.inputs:
            input_node(str(key), "inputs")
        for key, dims in self.input_shapes.items():
            out[input_node(key, "input_shapes")] = _override_dims(key, dims)
        return out

    def _parse_outputs(self, by_name: dict[str, _Node]) -> list[tuple[str, int]] | None:
        if self.outputs is None:
            return None
        out: list[tuple[str, int]] = []
        for t in self.outputs:
            try:
                node, port = parse_tensor_name(str(t))
            except ValueError as e:
                raise TFFrontendError(f"outputs: {e}") from None
            if node not in by_name:
                raise TFFrontendError(f"outputs: the graph has no node '{node}'")
            out.append((node, port))
        return out

    def _kept(
        self,
        nodes: list[_Node],
        by_name: dict[str, _Node],
        requested: list[tuple[str, int]] | None,
    ) -> list[_Node]:
        """Nodes to convert: all, or the ancestors of the requested outputs."""
        if requested is None:
            kept = nodes
        else:
            mark: set[str] = set()
            stack = [node for node, _ in requested]
            while stack:
                name = stack.pop()
                if name in mark:
                    continue
                mark.add(name)
                n = by_name.get(name)
                if n is None:
                    continue  # reported below
                stack.extend(src for src, _ in n.data)
                stack.extend(n.control)
            kept = [n for n in nodes if n.nd.name in mark]
        for n in kept:
            for (src, _), raw in zip(n.data, n.raw):
                if src not in by_name:
                    raise TFFrontendError(f"{n.label}: input '{raw}' names no node of the graph")
            for src in n.control:
                if src not in by_name:
                    raise TFFrontendError(
                        f"{n.label}: control input '^{src}' names no node of the graph"
                    )
        return kept

    def _convert_attrs(self, n: _Node) -> None:
        nd = n.nd
        cls = OPS_BY_TYPE.get(nd.op)
        n.cls = cls
        hint = name_hint(nd.name) or "w"
        for key in sorted(nd.attr):
            if key.startswith("_"):
                continue
            if key in RESERVED_PROPERTIES:
                raise TFFrontendError(
                    f"{n.label}: attribute name '{key}' clashes with a tf dialect property"
                )
            spec = cls.attr_spec(key) if cls is not None else None
            kind = spec.kind if spec is not None else None
            try:
                a = attr_from_proto(nd.attr[key], kind, self.store, hint)
            except AttrDecodeError as e:
                raise TFFrontendError(f"{n.label}: attribute '{key}' {e}") from None
            except ResourceLimitError as e:
                raise e.at(nd.name, nd.op) from None
            n.attrs[key] = a
            if spec is not None and spec.kind != "tensor":
                n.py[key] = from_attr(spec.kind, a)
        if cls is None:
            return
        for req in sorted(cls.REQUIRED_ATTRS):
            if req not in n.attrs:
                raise TFFrontendError(f"{n.label}: missing required attribute '{req}'")
        counts = cls.arg_counts(cls.INPUT_TYPES, n.py)
        if all(c is not None for c in counts):
            want = sum(c for c in counts if c is not None)
            if want != len(n.data):
                raise TFFrontendError(
                    f"{n.label}: has {len(n.data)} data input{'s' if len(n.data) != 1 else ''}, "
                    f"the {nd.op} OpDef expects {want}"
                )

    def _count_outputs(
        self, kept: list[_Node], requested: list[tuple[str, int]] | None
    ) -> None:
        used: dict[str, int] = {}
        for n in kept:
            for src, port in n.data:
                used[src] = max(used.get(src, 0), port)
        for node, port in requested or ():
            used[node] = max(used.get(node, 0), port)
        for n in kept:
            if n.cls is None:
                n.n_out = 1 + used.get(n.nd.name, 0)
                continue
            els = n.cls.result_element_types(n.py)
            if els is None:  # required attrs are checked, so only odd OpDefs get here
                raise TFFrontendError(f"{n.label}: cannot tell its number of outputs")
            n.n_out = len(els)

    def _check_edges(self, kept: list[_Node], by_name: dict[str, _Node]) -> None:
        for n in kept:
            for (src, port), raw in zip(n.data, n.raw):
                s = by_name.get(src)
                if s is None:
                    continue  # a function's argument

                if port >= s.n_out:
                    raise TFFrontendError(
                        f"{n.label}: input '{raw}': {s.label} has "
                        f"{s.n_out} output{'s' if s.n_out != 1 else ''}"
                    )

    def _default_outputs(self, kept: list[_Node]) -> list[tuple[str, int]]:
        consumed: set[str] = set()
        for n in kept:
            consumed.update(src for src, _ in n.data)
            consumed.update(n.control)
        return [
            (n.nd.name, 0)
            for n in kept
            if n.nd.name not in consumed and n.n_out > 0 and n.nd.op not in _NOT_OUTPUTS
        ]

    def _order(self, kept: list[_Node]) -> list[_Node]:
        """Topological order (data + control edges), stable in graph order."""
        pos = {n.nd.name: i for i, n in enumerate(kept)}
        users: list[list[int]] = [[] for _ in kept]
        pending = [0] * len(kept)
        for i, n in enumerate(kept):
            # (a function's nodes also read its arguments, which are no nodes)
            deps = {pos[src] for src, _ in n.data if src in pos} | {pos[c] for c in n.control}
            pending[i] = len(deps)
            for d in deps:
                users[d].append(i)
        ready = [i for i, p in enumerate(pending) if p == 0]
        heapq.heapify(ready)
        order: list[_Node] = []
        while ready:
            i = heapq.heappop(ready)
            order.append(kept[i])
            for u in users[i]:
                pending[u] -= 1
                if pending[u] == 0:
                    heapq.heappush(ready, u)
        if len(order) != len(kept):
            stuck = [kept[i] for i, p in enumerate(pending) if p > 0]
            hint = ""
            if any(n.nd.op in ("NextIteration", "Enter", "Merge") for n in stuck):
                hint = " (TF1 while-loop control flow is not supported)"
            raise TFFrontendError(
                f"the graph has a cycle through {stuck[0].label}{hint}"
            )
        return order

    # -- functions ---------------------------------------------------------------
    def _functions(self, kept: list[_Node]) -> list[FunctionOp]:
        """The library's functions the kept nodes call, and those they call
        in turn (``tf.Function`` ops, in the order they are first called)."""
        library = {f.signature.name: f for f in self.graph.library.function}
        todo: list[_FunctionRef] = [ref for n in kept for ref in _function_refs(n)]
        loaded: dict[str, FunctionOp] = {}
        while todo:
            label, attr, fname, called = todo.pop(0)
            if fname in loaded:
                continue
            fdef = library.get(fname)
            if fdef is None:
                if not called:
                    continue  # not a call op: its attr only names the function
                raise TFFrontendError(
                    f"{label}: '{attr}' calls function '{fname}', which the graph's "
                    "function library does not have"
                )
            try:
                fn, refs = _FunctionLoader(self, fdef).run()
            except TFFrontendError as e:
                raise TFFrontendError(f"function '{fname}': {e}") from None
            loaded[fname] = fn
            todo.extend(refs)
        return list(loaded.values())

    # -- ops ---------------------------------------------------------------------
    def _build(
        self, n: _Node, values: dict[str, list[SSAValue]], shapes: dict[str, list[int] | None]
    ) -> Operation:
        nd = n.nd
        operands = [values[src][port] for src, port in n.data]
        op_type = nd.op
        if op_type == "PlaceholderWithDefault" and nd.name in self.default_inputs:
            # a graph input: a Placeholder with the same dtype / shape attrs
            op_type, operands = "Placeholder", []
            n.cls = OPS_BY_TYPE["Placeholder"]
        props: dict[str, Attribute] = {"node_name": StringAttr(nd.name)}
        if n.control:
            props["control_inputs"] = ArrayAttr([StringAttr(c) for c in n.control])
        if n.cls is None:
            props["op_type"] = StringAttr(nd.op)
            props.update(n.attrs)
            op: Operation = UnknownOp.create(
                operands=operands,
                result_types=[UnrankedTensorType(UnknownType()) for _ in range(n.n_out)],
                properties=props,
            )
        else:
            props.update(n.attrs)
            if op_type == "Placeholder":
                result_types = [self._placeholder_type(n, props, shapes)]
            elif op_type == "Const":
                result_types = [self._const_type(n)]
            else:
                els = n.cls.result_element_types(n.py)
                assert els is not None
                result_types = [UnrankedTensorType(e) for e in els]
            op = n.cls.create(operands=operands, result_types=result_types, properties=props)
        hint = name_hint(nd.name)
        for r in op.results:
            r.name_hint = hint
        return op

    def _placeholder_type(
        self, n: _Node, props: dict[str, Attribute], shapes: dict[str, list[int] | None]
    ) -> Attribute:
        el = element_type(n.py.get("dtype") or tfd.UNKNOWN)
        if n.nd.name in shapes:
            dims = shapes[n.nd.name]
            props["shape"] = ShapeAttr.get(dims)
        else:
            dims = _placeholder_dims(n.nd)
        if dims is None:
            return UnrankedTensorType(el)
        return tensor(el, dims)

    def _const_type(self, n: _Node) -> Attribute:
        value = n.attrs.get("value")
        t = getattr(value, "type", None)
        if not isinstance(t, TensorType):
            raise TFFrontendError(f"{n.label}: the 'value' attribute is not a tensor")
        want = n.py.get("dtype")
        got_name = xmo_type_name(t.get_element_type())
        if want is not None and got_name is not None and want != got_name:
            raise TFFrontendError(
                f"{n.label}: dtype attribute {_dt(want)} differs from the value's {_dt(got_name)}"
            )
        return t


class _FunctionRef(NamedTuple):
    """A function a node's attr names; ``called``: the node is a call op
    (:data:`~xmo.dialects.tf.FUNCTION_CALLS`), so the library must have it
    (other ops' functions are loaded when the library has them)."""

    label: str
    attr: str
    name: str
    called: bool


def _function_refs(n: _Node) -> list[_FunctionRef]:
    """The functions node ``n``'s attrs name."""
    refs = []
    calls = FUNCTION_CALLS.get(n.nd.op, {})
    for key, a in n.attrs.items():
        items = a.data if isinstance(a, ArrayAttr) else (a,)
        for x in items:
            if isinstance(x, FuncAttr):
                refs.append(_FunctionRef(n.label, key, x.func_name.data, key in calls))
    return refs


class _FunctionLoader:
    """One FunctionDef -> a ``tf.Function`` (see :class:`~xmo.dialects.tf.FunctionOp`).

    Inside a function a node reads an argument by its name and a node
    output as ``node:out_arg:index`` (the output arg of the node's OpDef and
    the index within it), which becomes a port from the OpDef and the
    node's attrs; otherwise the nodes load as a graph's do (attrs, types,
    topological order, ``^control`` inputs).
    """

    def __init__(self, loader: _Loader, fdef: Any) -> None:
        self.loader = loader
        self.fdef = fdef
        self.args: dict[str, int] = {}

    def run(self) -> tuple[FunctionOp, list[_FunctionRef]]:
        fdef = self.fdef
        sig = fdef.signature
        arg_types = []
        for i, a in enumerate(sig.input_arg):
            if a.name in self.args:
                raise TFFrontendError(f"argument '{a.name}' is declared twice")
            self.args[a.name] = i
            arg_types.append(self._arg_type(i, a))
        nodes: list[_Node] = []
        by_name: dict[str, _Node] = {}
        pending: list[tuple[_Node, int, str, int, str]] = []
        for i, nd in enumerate(fdef.node_def):
            n = _Node(i, nd)
            if not nd.name or not nd.op:
                raise TFFrontendError(f"{n.label}: the node has no name or no op type")
            if nd.name in by_name or nd.name in self.args:
                raise TFFrontendError(f"{n.label}: the name is used twice")
            by_name[nd.name] = n
            nodes.append(n)
        for n in nodes:
            for inp in n.nd.input:
                if inp.startswith("^"):
                    if inp[1:] not in by_name:
                        raise TFFrontendError(
                            f"{n.label}: control input '{inp}' names no node of the function"
                        )
                    n.control.append(inp[1:])
                    continue
                src, port, out_arg = self._input(inp, by_name, n.label)
                if out_arg is not None:
                    pending.append((n, len(n.data), src, port, out_arg))
                n.data.append((src, port))
                n.raw.append(inp)
        loader = self.loader
        for n in nodes:
            loader._convert_attrs(n)
        ports = _OutputPorts(by_name)
        for n, k, src, idx, out_arg in pending:
            n.data[k] = (src, ports.port(src, out_arg, idx, n.label, n.raw[k]))
        rets = []
        for oa in sig.output_arg:
            if oa.name not in fdef.ret:
                raise TFFrontendError(f"output '{oa.name}' has no value in the function's ret map")
            src, port, out_arg = self._input(fdef.ret[oa.name], by_name, f"output '{oa.name}'")
            if out_arg is not None:
                port = ports.port(src, out_arg, port, f"output '{oa.name}'", fdef.ret[oa.name])
            rets.append((src, port))
        loader._count_outputs(nodes, [r for r in rets if r[0] in by_name])
        loader._check_edges(nodes, by_name)
        order = loader._order(nodes)
        block = Block(arg_types=arg_types)
        values: dict[str, list[SSAValue]] = {}
        for a, arg in zip(sig.input_arg, block.args):
            arg.name_hint = name_hint(a.name)
            values[a.name] = [arg]
        refs: list[_FunctionRef] = []
        for n in order:
            op = loader._build(n, values, {})
            block.add_op(op)
            values[n.nd.name] = list(op.results)
            refs.extend(_function_refs(n))
        for (src, port), oa in zip(rets, sig.output_arg):
            if port >= len(values[src]):
                raise TFFrontendError(
                    f"output '{oa.name}': '{fdef.ret[oa.name]}' is not an output of its node"
                )
        block.add_op(ReturnOp([values[src][port] for src, port in rets]))
        fn = FunctionOp(
            sig.name,
            [a.name for a in sig.input_arg],
            [a.name for a in sig.output_arg],
            Region(block),
            is_stateful=bool(sig.is_stateful),
        )
        return fn, refs

    def _arg_type(self, i: int, a: Any) -> Attribute:
        """An argument's type: its dtype, dims from ``_output_shapes`` if recorded."""
        if a.number_attr or a.type_list_attr or not a.type:
            raise TFFrontendError(
                f"argument '{a.name}' has no concrete type (only functions of frozen "
                "graphs, whose arguments have one, are read)"
            )
        el = element_type(tfd.xmo_name(a.type))
        dims = None
        if i in self.fdef.arg_attr:
            attrs = self.fdef.arg_attr[i].attr
            if "_output_shapes" in attrs:
                shapes = attrs["_output_shapes"].list.shape
                if len(shapes) == 1 and not shapes[0].unknown_rank:
                    dims = [max(int(d.size), -1) for d in shapes[0].dim]
        return UnrankedTensorType(el) if dims is None else tensor(el, dims)

    def _input(
        self, inp: str, by_name: dict[str, _Node], where: str
    ) -> tuple[str, int, str | None]:
        """``(source, port or index, out_arg or None)`` of a function input string:
        ``arg``, ``node:out_arg:index`` (the port is resolved later) or ``node[:port]``."""
        parts = inp.split(":")
        if len(parts) == 1 and inp in self.args:
            return inp, 0, None
        if len(parts) == 3 and parts[0] in by_name and parts[1] and parts[2].isdigit():
            return parts[0], int(parts[2]), parts[1]
        if len(parts) <= 2 and parts[0] in by_name and (len(parts) == 1 or parts[1].isdigit()):
            return parts[0], int(parts[1]) if len(parts) == 2 else 0, None
        raise TFFrontendError(
            f"{where}: input '{inp}' names no argument or node output of the function "
            "(expected arg, node:out_arg:index or ^node)"
        )


class _OutputPorts:
    """Ports of ``node:out_arg:index`` references, from the node's OpDef."""

    def __init__(self, by_name: dict[str, _Node]) -> None:
        self.by_name = by_name
        #: unknown op types: the one output arg name their consumers use
        self.unknown_arg: dict[str, str] = {}

    def port(self, src: str, out_arg: str, idx: int, where: str, raw: str) -> int:
        n = self.by_name[src]
        cls = n.cls
        if cls is None:
            # no OpDef: only one output arg can be told apart (index = port)
            first = self.unknown_arg.setdefault(src, out_arg)
            if first != out_arg:
                raise TFFrontendError(
                    f"{where}: input '{raw}': cannot tell the ports of the outputs "
                    f"'{first}' and '{out_arg}' of {n.label} (no OpDef for it)"
                )
            return idx
        counts = cls.arg_counts(cls.OUTPUT_TYPES, n.py)
        offset = 0
        for arg, c in zip(cls.OUTPUTS, counts):
            if c is None:
                break
            if arg.name == out_arg:
                if idx >= c:
                    raise TFFrontendError(
                        f"{where}: input '{raw}': output '{out_arg}' of {n.label} has {c} "
                        f"value{'s' if c != 1 else ''}"
                    )
                return offset + idx
            offset += c
        raise TFFrontendError(
            f"{where}: input '{raw}': {n.label} has no output '{out_arg}' "
            f"(its OpDef's: {', '.join(a.name for a in cls.OUTPUTS) or 'none'})"
        )


def _dt(xmo: str) -> str:
    enum = tfd.enum_of(xmo)
    return tfd.DTYPES[enum].name if enum else xmo


def _override_dims(name: str, dims: Sequence[int | str | None] | None) -> list[int] | None:
    if dims is None:
        return None
    if isinstance(dims, str | bytes) or not isinstance(dims, Sequence | np.ndarray):
        raise TFFrontendError(f"input_shapes['{name}']: expected a list of dims, got {dims!r}")
    out: list[int] = []
    for d in dims:
        if d is None or isinstance(d, str):
            out.append(-1)
        elif isinstance(d, int | np.integer) and not isinstance(d, bool) and d >= -1:
            out.append(int(d))
        else:
            raise TFFrontendError(
                f"input_shapes['{name}']: bad dim {d!r} (use an int >= 0, -1/None or a symbol)"
            )
    return out


__all__ = [
    "TFFrontendError",
    "graph_input_shapes",
    "load_tf",
    "name_hint",
    "parse_tensor_name",
    "read_graph_def",
]
