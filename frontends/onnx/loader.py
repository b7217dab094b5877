"""ONNX ModelProto -> ``onnx``-dialect module (see the package docstring)."""

from __future__ import annotations

import heapq
import os
import re
from collections.abc import Iterable, Mapping, Sequence
from typing import TYPE_CHECKING

from xdsl.context import Context
from xdsl.dialects.builtin import (
    DYNAMIC_INDEX,
    ArrayAttr,
    BytesAttr,
    DenseArrayBase,
    DictionaryAttr,
    Float32Type,
    FloatAttr,
    IntegerAttr,
    IntegerType,
    ModuleOp,
    NoneType,
    StringAttr,
    TensorType,
    UnitAttr,
    UnrankedTensorType,
    i64,
)
from xdsl.ir import Attribute, Block, Operation, Region, SSAValue
from xmo.context import weight_store
from xmo.dialects.onnx import CustomOp, NoValueOp, ONNXOp, YieldOp, op_class
from xmo.dialects.onnx.base import InitializerOp, InputOp, OutputOp, port_at
from xmo.dialects.onnx.types import type_key
from xmo.frontends.onnx import tensors as tz
from xmo.frontends.onnx.contrib_types import IMPLICIT_OPSETS, contrib_result_type
from xmo.frontends.onnx.errors import OnnxFrontendError
from xmo.frontends.onnx.graphs import FreeNamesCache, free_names, subgraphs, used_names
from xmo.frontends.onnx.inference import INFER_STRIP_BYTES, infer_graph
from xmo.frontends.onnx.wire import lift_payloads
from xmo.frontends.protobuf_file import mapped_array

if TYPE_CHECKING:
    import onnx

f32 = Float32Type()
#: type given to values whose type neither the model nor inference knows
PLACEHOLDER = UnrankedTensorType(f32)

_ATTR_TYPE_NAMES = {
    1: "FLOAT", 2: "INT", 3: "STRING", 4: "TENSOR", 5: "GRAPH", 6: "FLOATS",
    7: "INTS", 8: "STRINGS", 9: "TENSORS", 10: "GRAPHS", 11: "SPARSE_TENSOR",
    12: "SPARSE_TENSORS", 13: "TYPE_PROTO", 14: "TYPE_PROTOS",
}  # fmt: skip


# ---------------------------------------------------------------------------
# Entry point
# ---------------------------------------------------------------------------


def load_onnx(
    model: str | os.PathLike[str] | bytes | onnx.ModelProto,
    ctx: Context,
    input_shapes: Mapping[str, Sequence[int | str | None]] | None = None,
    *,
    base_dir: str | os.PathLike[str] | None = None,
    shape_inference: bool = True,
    inputs: Sequence[str] | None = None,
) -> ModuleOp:
    """Load an ONNX model into an ``onnx``-dialect module.

    ``model``: a path, serialized bytes or an ``onnx.ModelProto``. External
    data is looked up in ``base_dir`` (default: the model file's folder; for
    bytes/ModelProto there is none unless given). ``input_shapes`` overrides
    graph input shapes (int = static dim, str = symbolic dim, None = dynamic).
    ``inputs``: names that must be graph inputs (``--input`` names given
    without a shape); a name that is not one is an error listing the inputs.
    ``ctx`` must be an xmo context (``make_context()``): weights go into its
    weight store.
    """
    import onnx

    owned = True
    model_file = None
    if isinstance(model, str | os.PathLike):
        path = os.fspath(model)
        if base_dir is None:
            base_dir = os.path.dirname(os.path.abspath(path))
        proto, model_file = _read(path, lift=True)
    elif isinstance(model, bytes | bytearray | memoryview):
        proto = _parse(bytes(model), "model bytes")
    elif isinstance(model, onnx.ModelProto):
        proto, owned = model, False
    else:
        raise OnnxFrontendError(
            f"cannot load an ONNX model from a {type(model).__name__} "
            "(expected a path, bytes or onnx.ModelProto)"
        )
    if not proto.HasField("graph"):
        raise OnnxFrontendError("not an ONNX model: it has no graph")
    if len(proto.functions):
        proto, owned = _inline_local_functions(proto), True
    _ensure_ops_loaded(ctx)
    return _Loader(
        proto, ctx, tz.ExternalData(base_dir, model_file), input_shapes, owned, shape_inference, inputs
    ).run()


def read_model_proto(path: str | os.PathLike[str], *, payloads: bool = True) -> onnx.ModelProto:
    """The ``ModelProto`` of the ONNX file ``path`` (a regular file within
    protobuf's size limit), its external data not loaded. ``payloads=False``:
    for a caller that reads the graph's structure only (its inputs, nodes),
    the large initializer payloads are left in the file (their tensors name
    :data:`xmo.frontends.onnx.wire.LIFTED` as external data: not loadable)."""
    return _read(os.fspath(path), lift=not payloads)[0]


#: smaller model files are parsed whole: the walk costs about 0.4 us per node
#: and there is little to lift
LIFT_FILES_OVER = 4 << 20


def _read(path: str, lift: bool) -> tuple[onnx.ModelProto, tz.LiftedPayloads | None]:
    """The proto of the ONNX file ``path`` parsed from its read-only map;
    with ``lift``, the main graph's large initializer payloads left in that
    map (:mod:`xmo.frontends.onnx.wire`): the proto and where those payloads
    are (None when nothing was lifted)."""
    try:
        mm = mapped_array(path, "an ONNX model", OnnxFrontendError)
    except OSError as e:
        raise OnnxFrontendError(f"{path}: cannot read: {e.strerror or e}") from None
    view = memoryview(mm)
    lifted = lift_payloads(view, INFER_STRIP_BYTES, tz.payload_nbytes) if lift and mm.size > LIFT_FILES_OVER else None
    if lifted is None:
        return _parse(view, path), None
    message, spans = lifted
    return _parse(message, path), tz.LiftedPayloads(mm, spans)


def _inline_local_functions(proto: onnx.ModelProto) -> onnx.ModelProto:
    """Replace calls of model-local functions by their bodies (so every node
    is an operator with a schema or a truly unknown op)."""
    import onnx.inliner

    try:
        return onnx.inliner.inline_local_functions(proto)
    except Exception as e:  # noqa: BLE001 - a malformed function is the model's fault
        raise OnnxFrontendError(f"cannot inline the model's local functions: {e}") from None


def _parse(data: bytes | memoryview, what: str) -> onnx.ModelProto:
    import onnx
    from google.protobuf.message import DecodeError

    if not data:
        raise OnnxFrontendError(f"{what}: empty, not an ONNX model")
    proto = onnx.ModelProto()
    try:
        proto.ParseFromString(data)
    except (DecodeError, ValueError, RuntimeError) as e:
        msg = str(e).splitlines()[0] if str(e) else type(e).__name__
        raise OnnxFrontendError(
            f"{what}: not a valid ONNX model (truncated or corrupt protobuf: {msg})"
        ) from None
    return proto


def _ensure_ops_loaded(ctx: Context) -> None:
    """Make onnx.Input/Output/Initializer parseable in ``ctx``.

    A context with the ``onnx`` dialect registered (``make_context``) loads
    it when a parse first needs it -- not here: loading it completes all 654
    op classes (``dialects.onnx.base.define``), which a conversion does not
    need. Other contexts get the ops the loader itself creates.
    """
    if "onnx" in ctx.registered_dialect_names:
        return
    loaded = {op.name for op in ctx.loaded_ops}
    for op in (InputOp, OutputOp, InitializerOp):
        if op.name not in loaded:
            ctx.load_op(op)


# ---------------------------------------------------------------------------
# Names
# ---------------------------------------------------------------------------

_BAD_CHARS = re.compile(r"[^\w$.-]", re.ASCII)


def name_hint(name: str) -> str | None:
    """An SSA name hint close to a tensor name (None if nothing usable is left)."""
    if not name:
        return None
    h = _BAD_CHARS.sub("_", name)
    if h[0].isdigit():
        h = "v" + h
    return h


def _node_label(node: onnx.NodeProto, index: int) -> str:
    kind = f"{node.domain + '.' if node.domain else ''}{node.op_type}"
    if node.name:
        return f"node '{node.name}' ({kind})"
    return f"node #{index} ({kind})"


# ---------------------------------------------------------------------------
# Scopes and types
# ---------------------------------------------------------------------------


class _Scope:
    """Tensor name -> SSA value for one graph, chained to the enclosing graph."""

    def __init__(self, parent: _Scope | None = None) -> None:
        self.values: dict[str, SSAValue] = {}
        self.parent = parent

    def lookup(self, name: str) -> SSAValue | None:
        s: _Scope | None = self
        while s is not None:
            v = s.values.get(name)
            if v is not None:
                return v
            s = s.parent
        return None


class _Types:
    """Tensor name -> TypeProto known for one graph (declared + inferred)."""

    def __init__(
        self,
        graph: onnx.GraphProto,
        inferred: onnx.GraphProto | None,
        parent: _Types | None,
        drop_declared_shapes: bool,
    ) -> None:
        self.parent = parent
        self.map: dict[str, onnx.TypeProto] = {}
        self.weak: set[str] = set()  # names whose declared shape is unreliable
        for vi in (*graph.value_info, *graph.output):
            if vi.HasField("type"):
                self.map[vi.name] = vi.type
                if drop_declared_shapes:
                    self.weak.add(vi.name)
        if inferred is not None:
            for vi in (*inferred.value_info, *inferred.output):
                if vi.HasField("type"):
                    self.map[vi.name] = vi.type
                    self.weak.discard(vi.name)

    def get(self, name: str) -> Attribute | None:
        t: _Types | None = self
        while t is not None:
            tp = t.map.get(name)
            if tp is not None:
                x = tz.xdsl_type(tp)
                if x is not None and name in t.weak and isinstance(x, TensorType):
                    x = UnrankedTensorType(x.get_element_type())
                return x
            t = t.parent
        return None


def _attr_type(a: onnx.AttributeProto) -> str:
    """ONNX attribute type name, guessed from the set field for old models."""
    if a.type:
        return _ATTR_TYPE_NAMES.get(a.type, "UNDEFINED")
    for field, kind in (
        ("f", "FLOAT"), ("i", "INT"), ("s", "STRING"), ("t", "TENSOR"),
        ("g", "GRAPH"), ("sparse_tensor", "SPARSE_TENSOR"), ("tp", "TYPE_PROTO"),
    ):  # fmt: skip
        if a.HasField(field):
            return kind
    for field, kind in (
        ("floats", "FLOATS"), ("ints", "INTS"), ("strings", "STRINGS"),
        ("tensors", "TENSORS"), ("graphs", "GRAPHS"),
        ("sparse_tensors", "SPARSE_TENSORS"), ("type_protos", "TYPE_PROTOS"),
    ):  # fmt: skip
        if len(getattr(a, field)):
            return kind
    return "UNDEFINED"


# ---------------------------------------------------------------------------
# The loader
# ---------------------------------------------------------------------------


class _Loader:
    def __init__(
        self,
        model: onnx.ModelProto,
        ctx: Context,
        external: tz.ExternalData,
        input_shapes: Mapping[str, Sequence[int | str | None]] | None,
        owned: bool,
        shape_inference: bool,
        inputs: Sequence[str] | None = None,
    ) -> None:
        self.model = model
        self.inputs = list(inputs or ())
        self.ctx = ctx
        self.store = weight_store(ctx)
        self.external = external
        self.input_shapes = dict(input_shapes or {})
        self.owned = owned
        self.do_inference = shape_inference
        self.free_cache: FreeNamesCache = {}
        self.opsets: dict[str, int] = {}
        for imp in model.opset_import:
            dom = "" if imp.domain in ("", "ai.onnx") else imp.domain
            self.opsets[dom] = int(imp.version)
        if not model.opset_import:  # IR < 3: implicitly opset 1
            self.opsets[""] = 1

    # -- driver ----------------------------------------------------------------
    def run(self) -> ModuleOp:
        graph = self.model.graph
        names = {vi.name for vi in graph.input}
        for what, given in (("input_shapes", self.input_shapes), ("inputs", self.inputs)):
            for k in given:
                if k not in names:
                    raise OnnxFrontendError(
                        f"{what}: the model has no input '{k}' "
                        f"(inputs: {', '.join(sorted(names)) or 'none'})"
                    )
        inferred = self._infer() if self.do_inference else None
        types = _Types(graph, inferred, None, bool(self.input_shapes))
        module = ModuleOp([])
        self._build_graph(graph, inferred, module.body.block, _Scope(), types, True, [])
        return module

    def _infer(self) -> onnx.GraphProto | None:
        """ONNX shape inference (:mod:`.inference`; None on failure)."""
        return infer_graph(self.model, self.input_shapes)

    # -- graphs ------------------------------------------------------------------
    def _build_graph(
        self,
        graph: onnx.GraphProto,
        inferred: onnx.GraphProto | None,
        block: Block,
        scope: _Scope,
        types: _Types,
        is_main: bool,
        arg_types: list[Attribute],
    ) -> None:
        """Fill ``block`` with ``graph``; subgraph inputs become block arguments."""
        where = "graph" if is_main else f"subgraph '{graph.name}'"
        local: dict[str, str] = {}  # name -> what defines it (for messages)

        def define(name: str, what: str, value: SSAValue) -> None:
            if name in local:
                raise OnnxFrontendError(
                    f"{where}: tensor '{name}' is defined twice ({local[name]} and {what})"
                )
            local[name] = what
            scope.values[name] = value
            if value.name_hint is None:
                value.name_hint = name_hint(name)

        # one pass over the initializers' names (a model may have millions)
        dense_names = [t.name for t in graph.initializer]
        init_names = set(dense_names)
        init_names.update(s.values.name for s in graph.sparse_initializer)
        ir4 = self.model.ir_version >= 4 or not self.model.ir_version

        # graph inputs
        seen_inputs: set[str] = set()
        for i, vi in enumerate(graph.input):
            if not vi.name:
                raise OnnxFrontendError(f"{where}: input #{i} has no name")
            if vi.name in seen_inputs:
                raise OnnxFrontendError(f"{where}: input '{vi.name}' is listed twice")
            seen_inputs.add(vi.name)
            if is_main:
                if vi.name in init_names:
                    continue  # the initializer defines it
                op = self._input_op(vi)
                block.add_op(op)
                define(vi.name, "a graph input", op.result)
            else:
                t = arg_types[i] if i < len(arg_types) else PLACEHOLDER
                arg = block.insert_arg(t, len(block.args))
                if vi.name in init_names:
                    continue
                define(vi.name, "a subgraph input", arg)

        # initializers (those nothing reads and that are not graph inputs are
        # left out: they would be dropped at the end anyway)
        seen_init = set(dense_names)
        if "" in seen_init or len(seen_init) != len(dense_names):
            _check_initializer_names(dense_names, where)
        keep = used_names(graph, self.free_cache) | seen_inputs
        for i in [i for i, n in enumerate(dense_names) if n in keep]:
            t = graph.initializer[i]
            value = tz.tensor_attr(t, self.store, self.external)
            op = InitializerOp.create(
                result_types=[tz.tensor_type_of(t)],
                properties={"name": StringAttr(t.name), "value": value},
            )
            if ir4 and t.name in seen_inputs:
                op.properties["overridable"] = UnitAttr()
            block.add_op(op)
            define(t.name, "an initializer", op.result)
            self._release(t)
        for s in graph.sparse_initializer:
            name = s.values.name
            if name in seen_init:
                raise OnnxFrontendError(f"{where}: initializer '{name}' is listed twice")
            seen_init.add(name)
            if name not in keep:
                continue
            op = InitializerOp.create(
                result_types=[tz.sparse_type(s)],
                properties={
                    "name": StringAttr(name),
                    "value": tz.sparse_attr(s, self.store, self.external, name),
                },
            )
            if ir4 and name in seen_inputs:
                op.properties["overridable"] = UnitAttr()
            block.add_op(op)
            define(name, "a sparse initializer", op.result)

        # nodes, in topological order
        novalue: list[SSAValue] = []
        for idx in self._order(graph, scope, where, seen_inputs | init_names):
            node = graph.node[idx]
            inferred_node = inferred.node[idx] if inferred is not None else None
            op = self._node_op(node, idx, inferred_node, block, scope, types, novalue)
            label = _node_label(node, idx)
            outs = list(node.output)
            for name, res in zip(outs, op.results):
                if name:
                    define(name, label, res)

        # outputs
        if is_main and not graph.output:
            raise OnnxFrontendError(f"{where}: the graph has no outputs")
        seen_out: set[str] = set()
        values: list[SSAValue] = []
        for vi in graph.output:
            if vi.name in seen_out:
                raise OnnxFrontendError(f"{where}: output '{vi.name}' is listed twice")
            seen_out.add(vi.name)
            v = scope.lookup(vi.name)
            if v is None:
                raise OnnxFrontendError(
                    f"{where}: output '{vi.name}' is not produced by any node, "
                    "input or initializer"
                )
            values.append(v)
            if is_main:
                block.add_op(OutputOp.create(operands=[v], properties={"name": StringAttr(vi.name)}))
        if not is_main:
            block.add_op(YieldOp(values))

    def _release(self, t: onnx.TensorProto) -> None:
        """Drop a large raw payload from a proto we own (the store holds it now)."""
        if self.owned and t.HasField("raw_data") and tz.stored_bytes(t) > INFER_STRIP_BYTES:
            t.ClearField("raw_data")

    def _input_op(self, vi: onnx.ValueInfoProto) -> InputOp:
        props: dict[str, Attribute] = {"name": StringAttr(vi.name)}
        override = self.input_shapes.get(vi.name)
        tp = vi.type
        t: Attribute | None = tz.xdsl_type(tp) if vi.HasField("type") else None
        params: list[str] = []
        if tp.WhichOneof("value") == "tensor_type" and tp.tensor_type.HasField("shape"):
            params = tz.dims_of(tp.tensor_type.shape)[1]
            bad = [d.dim_value for d in tp.tensor_type.shape.dim if d.dim_value < -1]
            if bad and override is None:  # -1: some exporters' spelling of "dynamic"
                raise OnnxFrontendError(f"input '{vi.name}' has a negative dimension {bad[0]}")
        if override is not None:
            el = t.get_element_type() if isinstance(t, TensorType | UnrankedTensorType) else None
            if el is None:
                raise OnnxFrontendError(
                    f"input_shapes: input '{vi.name}' is not a tensor of known element type"
                )
            dims, params = _override_dims(vi.name, override)
            t = TensorType(el, dims)
        if t is None:
            t = PLACEHOLDER
        if any(params) and isinstance(t, TensorType):
            props["dim_params"] = ArrayAttr([StringAttr(p) for p in params])
        return InputOp.create(result_types=[t], properties=props)

    # -- ordering ------------------------------------------------------------------
    def _order(
        self, graph: onnx.GraphProto, scope: _Scope, where: str, local_defs: set[str]
    ) -> list[int]:
        """Node indices in topological order (stable: the file order when valid);
        ``local_defs``: the names of the graph's inputs and initializers."""
        nodes = graph.node
        producer: dict[str, int] = {}
        for i, node in enumerate(nodes):
            for o in node.output:
                if not o:
                    continue
                if o in producer:
                    raise OnnxFrontendError(
                        f"{where}: tensor '{o}' is produced by both "
                        f"{_node_label(nodes[producer[o]], producer[o])} and "
                        f"{_node_label(node, i)}"
                    )
                producer[o] = i
        for o, i in producer.items():
            if o in local_defs:
                raise OnnxFrontendError(
                    f"{where}: {_node_label(nodes[i], i)} output '{o}' redefines a "
                    "graph input or initializer"
                )
        deps: list[set[int]] = []
        users: list[list[int]] = [[] for _ in nodes]
        for i, node in enumerate(nodes):
            needed = set(node.input)
            for g in subgraphs(node):
                needed |= free_names(g, self.free_cache)
            d: set[int] = set()
            for name in needed:
                if not name or name in local_defs:
                    continue
                p = producer.get(name)
                if p is None:
                    if scope.lookup(name) is None:
                        raise OnnxFrontendError(
                            f"{where}: {_node_label(node, i)} uses tensor '{name}', "
                            "which no node, graph input or initializer produces"
                        )
                    continue
                if p == i:
                    raise OnnxFrontendError(
                        f"{where}: {_node_label(node, i)} uses its own output '{name}' (cycle)"
                    )
                d.add(p)
            deps.append(d)
            for p in d:
                users[p].append(i)
        pending = [len(d) for d in deps]
        ready = [i for i, n in enumerate(pending) if n == 0]
        heapq.heapify(ready)
        order: list[int] = []
        while ready:
            i = heapq.heappop(ready)
            order.append(i)
            for u in users[i]:
                pending[u] -= 1
                if pending[u] == 0:
                    heapq.heappush(ready, u)
        if len(order) != len(nodes):
            stuck = min(i for i, n in enumerate(pending) if n > 0)
            raise OnnxFrontendError(
                f"{where}: the nodes form a cycle (through {_node_label(nodes[stuck], stuck)})"
            )
        return order

    # -- nodes -------------------------------------------------------------------
    def _node_op(
        self,
        node: onnx.NodeProto,
        idx: int,
        inferred_node: onnx.NodeProto | None,
        block: Block,
        scope: _Scope,
        types: _Types,
        novalue: list[SSAValue],
    ) -> Operation:
        label = _node_label(node, idx)
        domain = "" if node.domain in ("", "ai.onnx") else node.domain
        version = self.opsets.get(domain, 0) or IMPLICIT_OPSETS.get(domain, 0)
        cls = op_class(domain, node.op_type, version) if version else None

        # operands
        names = list(node.input)
        while names and not names[-1]:
            names.pop()
        operands: list[SSAValue] = []
        for name in names:
            if not name:
                if not novalue:
                    nv = NoValueOp()
                    block.add_op(nv)
                    novalue.append(nv.result)
                operands.append(novalue[0])
                continue
            v = scope.lookup(name)
            assert v is not None  # checked by _order
            operands.append(v)

        outs = list(node.output)
        while outs and not outs[-1]:
            outs.pop()
        seen: set[str] = set()
        for o in outs:
            if o and o in seen:
                raise OnnxFrontendError(f"{label}: output '{o}' is listed twice")
            seen.add(o)

        if cls is not None:
            self._check_schema(cls, node, label, len(operands), len(outs))

        # attributes (graphs become regions)
        props: dict[str, Attribute] = {}
        regions: dict[str, Region] = {}
        raw_strings: dict[str, Attribute] = {}
        unknown: dict[str, Attribute] = {}
        specs = {s.name: s for s in cls.ATTRS} if cls is not None else {}
        seen_attrs: set[str] = set()
        graph_order: list[str] = []
        for a in node.attribute:
            if a.name in seen_attrs:
                raise OnnxFrontendError(f"{label}: attribute '{a.name}' is given twice")
            seen_attrs.add(a.name)
            kind = _attr_type(a)
            if a.ref_attr_name:
                raise OnnxFrontendError(
                    f"{label}: attribute '{a.name}' refers to a function attribute "
                    f"'{a.ref_attr_name}' outside a function"
                )
            spec = specs.get(a.name)
            if spec is not None and spec.kind != kind:
                raise OnnxFrontendError(
                    f"{label}: attribute '{a.name}' has type {kind}, the "
                    f"{node.op_type}-{cls.SINCE_VERSION} schema expects {spec.kind}"
                )
            if kind in ("GRAPH", "GRAPHS"):
                inf_attr = None
                if inferred_node is not None:
                    inf_attr = next(
                        (x for x in inferred_node.attribute if x.name == a.name), None
                    )
                graphs = [a.g] if kind == "GRAPH" else list(a.graphs)
                inf_graphs = (
                    ([inf_attr.g] if kind == "GRAPH" else list(inf_attr.graphs))
                    if inf_attr is not None
                    else []
                )
                for j, g in enumerate(graphs):
                    key = a.name if kind == "GRAPH" else f"{a.name}[{j}]"
                    ig = inf_graphs[j] if j < len(inf_graphs) else None
                    arg_types = self._subgraph_arg_types(node, g, operands, types, ig)
                    regions[key] = self._region(g, ig, scope, types, arg_types)
                    graph_order.append(key)
                continue
            value = self._attr_value(a, kind, label, raw_strings)
            if cls is not None and spec is None:
                unknown[a.name] = value
            else:
                props[a.name] = value

        # result types
        result_types: list[Attribute] = []
        for i, o in enumerate(outs):
            if not o:
                result_types.append(NoneType())
                continue
            t = types.get(o)
            if t is None and cls is None:
                t = contrib_result_type(node.domain, node.op_type, i, operands)
            if t is None:
                t = _fallback_type(cls, i, operands)
            result_types.append(t)

        props["output_names"] = ArrayAttr([StringAttr(o) for o in outs])
        if node.name:
            props["node_name"] = StringAttr(node.name)

        if cls is None:
            custom_props: dict[str, Attribute] = {
                "domain": StringAttr(node.domain),
                "op_type": StringAttr(node.op_type),
                "version": IntegerAttr(version, i64),
                "output_names": props.pop("output_names"),
            }
            if "node_name" in props:
                custom_props["node_name"] = props.pop("node_name")
            if props:
                custom_props["attrs"] = DictionaryAttr(props)
            if graph_order:
                custom_props["graph_attrs"] = ArrayAttr([StringAttr(k) for k in graph_order])
            op: Operation = CustomOp.create(
                operands=operands,
                result_types=result_types,
                properties=custom_props,
                regions=[regions[k] for k in graph_order],
            )
        else:
            op = cls.create(
                operands=operands,
                result_types=result_types,
                properties=props,
                regions=[regions.get(n) or _empty_graph_region() for n in cls.REGIONS],
            )
            if unknown:
                op.attributes["onnx.unknown_attrs"] = DictionaryAttr(unknown)
        if raw_strings:
            op.attributes["onnx.raw_strings"] = DictionaryAttr(raw_strings)
        block.add_op(op)
        return op

    def _check_schema(
        self, cls: type[ONNXOp], node: onnx.NodeProto, label: str, n_in: int, n_out: int
    ) -> None:
        for what, n, lo, hi in (
            ("inputs", n_in, cls.MIN_INPUTS, cls.MAX_INPUTS),
            ("outputs", n_out, cls.MIN_OUTPUTS, cls.MAX_OUTPUTS),
        ):
            if n < lo or (hi is not None and n > hi):
                want = f"{lo}" if lo == hi else (f"at least {lo}" if hi is None else f"{lo} to {hi}")
                raise OnnxFrontendError(
                    f"{label}: has {n} {what}, the {node.op_type}-{cls.SINCE_VERSION} "
                    f"schema expects {want}"
                )
        given = {a.name for a in node.attribute}
        for spec in cls.ATTRS:
            if spec.required and spec.name not in given:
                raise OnnxFrontendError(
                    f"{label}: missing required attribute '{spec.name}' "
                    f"({node.op_type}-{cls.SINCE_VERSION})"
                )

    def _attr_value(
        self, a: onnx.AttributeProto, kind: str, label: str, raw_strings: dict[str, Attribute]
    ) -> Attribute:
        try:
            match kind:
                case "INT":
                    return IntegerAttr(int(a.i), i64)
                case "FLOAT":
                    return FloatAttr(float(a.f), f32)
                case "STRING":
                    s, exact = _string(a.s)
                    if not exact:
                        raw_strings[a.name] = BytesAttr(bytes(a.s))
                    return StringAttr(s)
                case "INTS":
                    return DenseArrayBase.from_list(i64, [int(v) for v in a.ints])
                case "FLOATS":
                    return DenseArrayBase.from_list(f32, [float(v) for v in a.floats])
                case "STRINGS":
                    decoded = [_string(v) for v in a.strings]
                    if not all(ok for _, ok in decoded):
                        raw_strings[a.name] = ArrayAttr([BytesAttr(bytes(v)) for v in a.strings])
                    return ArrayAttr([StringAttr(s) for s, _ in decoded])
                case "TENSOR":
                    return tz.tensor_attr(a.t, self.store, self.external, a.t.name or a.name)
                case "TENSORS":
                    return ArrayAttr(
                        [tz.tensor_attr(t, self.store, self.external, a.name) for t in a.tensors]
                    )
                case "SPARSE_TENSOR":
                    return tz.sparse_attr(a.sparse_tensor, self.store, self.external, a.name)
                case "SPARSE_TENSORS":
                    return ArrayAttr(
                        [tz.sparse_attr(s, self.store, self.external, a.name) for s in a.sparse_tensors]
                    )
                case "TYPE_PROTO":
                    return tz.type_attr(a.tp)
                case "TYPE_PROTOS":
                    return ArrayAttr([tz.type_attr(t) for t in a.type_protos])
        except OnnxFrontendError as e:
            raise OnnxFrontendError(f"{label}: attribute '{a.name}': {e}") from None
        except (ValueError, OverflowError, TypeError) as e:
            raise OnnxFrontendError(f"{label}: attribute '{a.name}' ({kind}): {e}") from None
        raise OnnxFrontendError(f"{label}: attribute '{a.name}' has no value / unknown type")

    # -- subgraphs -----------------------------------------------------------------
    def _subgraph_arg_types(
        self,
        node: onnx.NodeProto,
        g: onnx.GraphProto,
        operands: list[SSAValue],
        types: _Types,
        inferred: onnx.GraphProto | None,
    ) -> list[Attribute]:
        out: list[Attribute] = []
        inf_inputs = list(inferred.input) if inferred is not None else []
        for i, vi in enumerate(g.input):
            t = tz.xdsl_type(vi.type) if vi.HasField("type") else None
            if t is None and i < len(inf_inputs) and inf_inputs[i].HasField("type"):
                t = tz.xdsl_type(inf_inputs[i].type)
            if t is None and node.op_type == "Loop" and node.domain in ("", "ai.onnx"):
                if i == 0:
                    t = TensorType(IntegerType(64), [])
                elif i == 1:
                    t = TensorType(IntegerType(1), [])
                elif i < len(operands) and not isinstance(operands[i].type, NoneType):
                    ot = operands[i].type
                    t = type_key(ot) if isinstance(ot, TensorType) else ot
            out.append(t if t is not None else PLACEHOLDER)
        return out

    def _region(
        self,
        g: onnx.GraphProto,
        inferred: onnx.GraphProto | None,
        scope: _Scope,
        types: _Types,
        arg_types: list[Attribute],
    ) -> Region:
        if inferred is not None and len(inferred.node) != len(g.node):
            inferred = None
        block = Block()
        sub_types = _Types(g, inferred, types, bool(self.input_shapes))
        self._build_graph(g, inferred, block, _Scope(scope), sub_types, False, arg_types)
        return Region(block)


# ---------------------------------------------------------------------------
# Helpers
# ---------------------------------------------------------------------------


def _check_initializer_names(names: Sequence[str], where: str) -> None:
    """Raise for the first initializer without a name or listed twice."""
    seen: set[str] = set()
    for name in names:
        if not name:
            raise OnnxFrontendError(f"{where}: an initializer has no name")
        if name in seen:
            raise OnnxFrontendError(f"{where}: initializer '{name}' is listed twice")
        seen.add(name)


def _string(b: bytes) -> tuple[str, bool]:
    """bytes -> (str, exact); non-UTF-8 bytes are backslash-escaped."""
    try:
        return b.decode("utf-8"), True
    except UnicodeDecodeError:
        return b.decode("utf-8", errors="backslashreplace"), False


def _empty_graph_region() -> Region:
    return Region(Block([YieldOp()]))


def _fallback_type(cls: type[ONNXOp] | None, i: int, operands: list[SSAValue]) -> Attribute:
    """Type of a result nothing describes: the schema's constraint, else a placeholder.

    Order: the element type bound by an input of the same constraint, the
    constraint's only type, tensor(float) when allowed, the first allowed type;
    an unranked f32 tensor when nothing is known (onnx.Custom).
    """
    if cls is None:
        return PLACEHOLDER
    port = port_at(cls.OUTPUTS, i)
    if port is None:
        return PLACEHOLDER
    allowed = [t for t in cls.TYPE_CONSTRAINTS.get(port.type, ()) if not isinstance(t, str)]
    for j, v in enumerate(operands):
        p = port_at(cls.INPUTS, j)
        if p is not None and p.type == port.type and not isinstance(v.type, NoneType):
            k = type_key(v.type)
            if not allowed or k in allowed:
                return k
    if len(allowed) == 1:
        return allowed[0]
    if not allowed or PLACEHOLDER in allowed:
        return PLACEHOLDER
    return allowed[0]


def _override_dims(name: str, shape: Sequence[int | str | None]) -> tuple[list[int], list[str]]:
    dims: list[int] = []
    params: list[str] = []
    if isinstance(shape, str | bytes) or not isinstance(shape, Iterable):
        raise OnnxFrontendError(f"input_shapes['{name}']: expected a list of dims, got {shape!r}")
    for d in shape:
        if d is None:
            dims.append(DYNAMIC_INDEX)
            params.append("")
        elif isinstance(d, str):
            dims.append(DYNAMIC_INDEX)
            params.append(d)
        elif isinstance(d, int) and not isinstance(d, bool) and d >= 0:
            dims.append(d)
            params.append("")
        elif isinstance(d, int) and d == -1:
            dims.append(DYNAMIC_INDEX)
            params.append("")
        else:
            raise OnnxFrontendError(
                f"input_shapes['{name}']: bad dim {d!r} (use an int >= 0, a symbol or None)"
            )
    return dims, params


__all__ = ["OnnxFrontendError", "load_onnx", "name_hint"]
