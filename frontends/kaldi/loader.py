""":class:`~xmo.frontends.kaldi.model.KaldiModel` -> ``kaldi``-dialect module."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
from xdsl.context import Context
from xdsl.dialects.builtin import (
    ArrayAttr,
    DictionaryAttr,
    FloatAttr,
    IntegerAttr,
    IntegerType,
    ModuleOp,
    StringAttr,
    UnrankedTensorType,
    f32,
    i64,
)
from xdsl.ir import Attribute, Operation, SSAValue

from xmo.context import weight_store
from xmo.dialects.kaldi import (
    RESERVED_PROPERTIES,
    ComponentOp,
    DescriptorOp,
    InputOp,
    OutputOp,
    order_groups,
)
from xmo.dialects.ov.base import tensor
from xmo.dialects.ov.weights import WeightStore, make_constant_attr
from xmo.frontends.kaldi.model import Component, Desc, KaldiModel, NetNode, read_kaldi, refs
from xmo.frontends.kaldi.reader import KaldiFrontendError

_UNRANKED = UnrankedTensorType(f32)


def field_attr(value: Any, store: WeightStore | None, hint: str) -> Attribute:
    """A component field as an attribute (see :mod:`xmo.dialects.kaldi`)."""
    if isinstance(value, bool):
        return IntegerAttr(int(value), IntegerType(1))
    if isinstance(value, int):
        return IntegerAttr(value, i64)
    if isinstance(value, float):
        return FloatAttr(value, f32)
    if isinstance(value, np.ndarray):
        etype = "i64" if value.dtype.kind in "iu" else "f32"
        return make_constant_attr(value, etype, store, name_hint=hint)
    return StringAttr(str(value))


class _Builder:
    def __init__(self, model: KaldiModel, store: WeightStore, shapes: Mapping[str, Sequence[int]]):
        self.model = model
        self.store = store
        self.shapes = shapes
        self.by_name = {n.name: n for n in model.nodes}
        self.values: dict[str, SSAValue] = {}
        self.visiting: set[str] = set()
        self.ops: list[Operation] = []
        self.fields: dict[str, dict[str, Attribute]] = {}
        self.loop = _loops(model)
        #: targets of recurrences, emitted after the outputs if nothing else reads them
        self.pending: list[str] = []

    def component_props(self, comp: Component) -> dict[str, Attribute]:
        props = self.fields.get(comp.name)
        if props is None:
            props = {}
            for k, v in comp.fields.items():
                if k in RESERVED_PROPERTIES:
                    raise KaldiFrontendError(f"component '{comp.name}': field name '{k}' is reserved")
                props[k] = field_attr(v, self.store, f"{comp.name}/{k}")
            if comp.dims is not None:
                props["output_dim"] = IntegerAttr(comp.dims[0], i64)
                props["input_dim"] = IntegerAttr(comp.dims[1], i64)
            self.fields[comp.name] = props
        return props

    def node(self, name: str) -> SSAValue:
        v = self.values.get(name)
        if v is not None:
            return v
        if name in self.visiting:
            raise KaldiFrontendError(f"node '{name}' depends on itself without a time delay")
        n = self.by_name[name]
        self.visiting.add(name)
        try:
            v = self._node(n)
        finally:
            self.visiting.discard(name)
        self.values[name] = v
        return v

    def _node(self, n: NetNode) -> SSAValue:
        if n.kind == "input":
            dims = list(self.shapes.get(n.name, [-1, n.dim]))
            op: Operation = InputOp.create(result_types=[tensor("f32", dims)],
                                           properties={"node_name": StringAttr(n.name)})
            self.ops.append(op)
            return op.results[0]
        assert n.input is not None
        src = self.desc(n.input, n.name, 0)
        if n.kind in ("dim-range", "append", "output"):
            return src
        comp = self.model.components[n.component]
        props: dict[str, Attribute] = {
            "component_type": StringAttr(comp.type),
            "node_name": StringAttr(n.name),
            "component_name": StringAttr(comp.name),
            "fields": DictionaryAttr(self.component_props(comp)),
        }
        op = ComponentOp.create(operands=[src], result_types=[_UNRANKED], properties=props)
        self.ops.append(op)
        return op.results[0]

    def recurrence(self, d: Desc, owner: str) -> SSAValue | None:
        """A ``Recurrent`` op for ``IfDefined(Offset(x, -k))`` (or a bare
        ``Offset(x, -k)``) where ``x`` is in ``owner``'s loop; None otherwise."""
        ifdef = d.kind == "IfDefined" and len(d.children) == 1
        off = d.children[0] if ifdef else d
        if not (off.kind == "Offset" and len(off.children) == 1 and off.children[0].kind == "node"):
            return None
        target = off.children[0].name
        loop = self.loop.get(owner)
        if loop is None or self.loop.get(target) != loop:
            return None
        delay = -int(off.args[0]) if len(off.args) == 1 else 0
        args = [IntegerAttr(delay, i64)] if ifdef and delay > 0 else []
        op = DescriptorOp.create(result_types=[_UNRANKED], properties={
            "kind": StringAttr("Recurrent"), "node_name": StringAttr(owner),
            "target": StringAttr(target), "args": ArrayAttr(args)})
        self.ops.append(op)
        self.pending.append(target)
        return op.results[0]

    def desc(self, d: Desc, owner: str, depth: int) -> SSAValue:
        if d.kind == "node":
            return self.node(d.name)
        rec = self.recurrence(d, owner)
        if rec is not None:
            return rec
        ins = [self.desc(c, owner, depth + 1) for c in d.children]
        args = [IntegerAttr(int(a), i64) if float(a).is_integer() else FloatAttr(float(a), f32)
                for a in d.args if not isinstance(a, str)]
        props: dict[str, Attribute] = {"kind": StringAttr(d.kind), "node_name": StringAttr(owner),
                                       "args": ArrayAttr(args)}
        op = DescriptorOp.create(operands=ins, result_types=[_UNRANKED], properties=props)
        self.ops.append(op)
        return op.results[0]


def build_module(model: KaldiModel, ctx: Context, *,
                 input_shapes: Mapping[str, Sequence[int]] | None = None) -> ModuleOp:
    """The ``kaldi`` module of ``model`` (only what its outputs depend on)."""
    shapes = dict(input_shapes or {})
    for name, dims in shapes.items():
        node = next((n for n in model.inputs if n.name == name), None)
        if node is None:
            raise KaldiFrontendError(f"no input named '{name}' (inputs: {', '.join(n.name for n in model.inputs)})")
        if len(dims) != 2 or dims[1] not in (-1, node.dim):
            raise KaldiFrontendError(f"input '{name}' is [frames, {node.dim}], not {list(dims)}")
    b = _Builder(model, weight_store(ctx), shapes)
    try:
        for n in model.inputs:
            b.node(n.name)
        outs = [(n.name, b.node(n.name)) for n in model.outputs]
        while b.pending:
            b.node(b.pending.pop())
    except RecursionError:
        raise KaldiFrontendError("the network is nested too deeply") from None
    try:
        ops = order_groups(b.ops)
    except ValueError as e:
        raise KaldiFrontendError(str(e)) from None
    ops += [OutputOp.create(operands=[v], properties={"node_name": StringAttr(name)})
            for name, v in outs]
    return ModuleOp(ops)


def _loops(model: KaldiModel) -> dict[str, int]:
    """Node -> its loop (strongly connected component of the node graph) for
    the nodes of loops (Tarjan's algorithm, iterative)."""
    edges = {n.name: refs(n.input) for n in model.nodes}
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    on_stack: set[str] = set()
    stack: list[str] = []
    loops: dict[str, int] = {}
    count = 0
    for root in edges:
        if root in index:
            continue
        work = [(root, 0)]
        while work:
            v, i = work.pop()
            if i == 0:
                index[v] = low[v] = len(index)
                stack.append(v)
                on_stack.add(v)
            succ = edges.get(v, [])
            if i < len(succ):
                work.append((v, i + 1))
                w = succ[i]
                if w not in index:
                    work.append((w, 0))
                elif w in on_stack:
                    low[v] = min(low[v], index[w])
                continue
            if work:
                parent = work[-1][0]
                low[parent] = min(low[parent], low[v])
            if low[v] == index[v]:
                comp = []
                while True:
                    w = stack.pop()
                    on_stack.discard(w)
                    comp.append(w)
                    if w == v:
                        break
                if len(comp) > 1 or v in succ:
                    for w in comp:
                        loops[w] = count
                    count += 1
    return loops


def load_kaldi(model: Any, ctx: Context, *, input_shapes: Mapping[str, Sequence[int]] | None = None,
               inputs: Sequence[str] | None = None, **_: Any) -> ModuleOp:
    """Load a Kaldi ``.nnet`` / ``.mdl`` / ``.raw`` file into a ``kaldi`` module.

    ``input_shapes``: input name -> ``[frames, features]`` (frames -1: any
    number, the default). ``inputs`` is accepted for the API's sake (every
    input-node is an input).
    """
    del inputs
    return build_module(read_kaldi(model), ctx, input_shapes=input_shapes)


def graph_input_shapes(model: Any) -> dict[str, list[int] | None]:
    """Input name -> ``[-1, features]``."""
    return {n.name: [-1, n.dim] for n in read_kaldi(model).inputs}


__all__ = ["build_module", "field_attr", "graph_input_shapes", "load_kaldi"]
