"""Nodes, ports and connections: the Model Optimizer-style editing API.

* :class:`Node` wraps one op: ``type``, ``name`` (friendly name), attributes
  (``node["axis"]``, ``node.axis``), runtime info (``node.rt_info``), ports.
* :class:`Port` is input ``idx`` (``type == "in"``, an operand) or output
  ``idx`` (``type == "out"``, a result) of a node. Input ports are the op's
  declared ports: an optional input the op does not use is an *unconnected*
  port (``get_source()`` is None); variadic ops (Concat) have as many ports as
  inputs, see :meth:`Node.add_input_port`.
* :class:`Connection` is a source output port and the input ports it feeds
  (for an input port's connection: just that port).

Ports are (node, index, kind) triples, not references to SSA values, so they
stay valid while types are re-inferred; after ``delete_input_port`` the ports
above the deleted index name the next input.
"""

from __future__ import annotations

from collections.abc import Iterator, MutableMapping, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np
from xdsl.dialects.builtin import TensorType, UnrankedTensorType
from xdsl.ir import Attribute, Operation, SSAValue
from xmo.context import weight_store
from xmo.dialects.ov import element_types as et
from xmo.dialects.ov import rt_info as rt
from xmo.dialects.ov.base import OVOp, constant_value_of, dims_of, port_counts, tensor
from xmo.dialects.ov.weights import make_constant_attr
from xmo.graph.base import GraphError, describe, is_placeholder

if TYPE_CHECKING:
    from xmo.graph.graph import Graph


def _normalize(v: Any) -> Any:
    if isinstance(v, list | tuple | np.ndarray):
        return tuple(
            _normalize(x) for x in (v.tolist() if isinstance(v, np.ndarray) else v)
        )
    if isinstance(v, np.generic):
        return v.item()
    return v


class RtInfo(MutableMapping[str, Any]):
    """A node's runtime info as a mutable mapping (writes go to the op)."""

    def __init__(self, node: Node) -> None:
        self._node = node

    def _op(self) -> OVOp:
        op = self._node.op
        if not isinstance(op, OVOp):
            raise GraphError(f"{op.name} has no runtime info")
        return op

    def __getitem__(self, key: str) -> Any:
        return self._op().get_rt_info()[rt.canonical_key(key)]

    def __setitem__(self, key: str, value: Any) -> None:
        self._op().set_rt_info(key, value)
        self._node.graph.changed = True

    def __delitem__(self, key: str) -> None:
        info = self._op().get_rt_info()
        if rt.canonical_key(key) not in info:
            raise KeyError(key)
        self._op().del_rt_info(key)
        self._node.graph.changed = True

    def __iter__(self) -> Iterator[str]:
        return iter(self._op().get_rt_info())

    def __len__(self) -> int:
        return len(self._op().get_rt_info())

    def __repr__(self) -> str:
        return repr(self._op().get_rt_info())


class Node:
    """One op of a :class:`~xmo.graph.Graph` (get it with ``graph.node(op)``)."""

    def __init__(self, graph: Graph, op: Operation) -> None:
        self.graph = graph
        self.op = op
        self._erased = False

    def __repr__(self) -> str:
        return f"<Node {describe(self.op)}>"

    def _check_alive(self) -> None:
        if self._erased or self.op.parent is not self.graph.block:
            raise GraphError(f"{describe(self.op)} is no longer in the graph")

    @property
    def alive(self) -> bool:
        return not self._erased and self.op.parent is self.graph.block

    # -- identity --------------------------------------------------------------
    @property
    def type(self) -> str:
        """The OpenVINO op type (``"Add"``)."""
        return self.op.OV_TYPE if isinstance(self.op, OVOp) else self.op.name

    @property
    def version(self) -> str | None:
        return self.op.OV_VERSION if isinstance(self.op, OVOp) else None

    @property
    def name(self) -> str | None:
        """The friendly name (None when the op has none)."""
        return self.op.get_friendly_name() if isinstance(self.op, OVOp) else None

    @name.setter
    def name(self, value: str | None) -> None:
        self._ov().set_friendly_name(value)
        self.graph.changed = True

    # -- bodies ----------------------------------------------------------------
    @property
    def bodies(self) -> list[Graph]:
        """The bodies of a Loop / TensorIterator (one) or If (then, else) as
        graphs of their own (their Parameters and Results are the body's
        inputs and outputs); empty for any other op. Editing a body does not
        change the op's port maps: keep its Parameters and Results."""
        return [
            type(self.graph)(self.graph.module, self.graph.ctx, region.block)
            for region in self.op.regions
        ]

    def _ov(self) -> OVOp:
        if not isinstance(self.op, OVOp):
            raise GraphError(f"{self.op.name} is not an ov op")
        return self.op

    # -- attributes ------------------------------------------------------------
    def __getitem__(self, key: str) -> Any:
        op = self._ov()
        try:
            return op.attr(key)
        except KeyError:
            raise KeyError(f"{describe(op)} has no attribute '{key}'") from None

    def __setitem__(self, key: str, value: Any) -> None:
        op = self._ov()
        try:
            op.set_attr(key, value)
        except KeyError:
            raise KeyError(f"{describe(op)} has no attribute '{key}'") from None
        self.graph._notify(op)
        self.graph._propagate([op])

    def __contains__(self, key: str) -> bool:
        return self.has(key)

    def has(self, key: str) -> bool:
        """True when the op type has attribute ``key``."""
        return isinstance(self.op, OVOp) and any(
            s.name == key for s in self.op.OV_ATTRS
        )

    def get(self, key: str, default: Any = None) -> Any:
        return self[key] if self.has(key) else default

    soft_get = get

    def attrs(self) -> dict[str, Any]:
        """Every attribute's value (defaults filled in)."""
        return self._ov().attr_values() if isinstance(self.op, OVOp) else {}

    def matches_attr(self, key: str, value: Any) -> bool:
        if key == "name":
            return self.name == value
        if key == "version":
            return self.version == value
        if key == "type":
            return self.type == value
        if not self.has(key):
            return False
        return _normalize(self[key]) == _normalize(value)

    def __getattr__(self, item: str) -> Any:
        if item.startswith("_"):
            raise AttributeError(item)
        op = self.__dict__.get("op")
        if isinstance(op, OVOp) and any(s.name == item for s in op.OV_ATTRS):
            return op.attr(item)
        raise AttributeError(f"{type(self).__name__} has no attribute '{item}'")

    # -- runtime info ----------------------------------------------------------
    @property
    def rt_info(self) -> RtInfo:
        """The runtime info (a mutable mapping; see :mod:`xmo.dialects.ov.rt_info`)."""
        return RtInfo(self)

    def get_rt_info(self) -> dict[str, Any]:
        return self._ov().get_rt_info()

    def set_rt_info(self, key: str, value: Any = "") -> None:
        self.rt_info[key] = value

    # -- ports -----------------------------------------------------------------
    def _input_counts(self) -> tuple[int, int | None]:
        if isinstance(self.op, OVOp):
            return port_counts(self.op.OV_INPUTS)
        return len(self.op.operands), len(self.op.operands)

    def _variadic_outputs(self) -> bool:
        return isinstance(self.op, OVOp) and any(
            n.endswith("*") for n in self.op.OV_OUTPUTS
        )

    def _num_in_ports(self) -> int:
        _, hi = self._input_counts()
        n = len(self.op.operands)
        return n if hi is None else max(n, hi)

    def in_port(self, idx: int) -> Port:
        """Input port ``idx`` (it may be unconnected)."""
        if not 0 <= idx < self._num_in_ports():
            raise GraphError(
                f"{describe(self.op)} has no input port {idx} "
                f"({self._num_in_ports()} input ports)"
            )
        return Port(self, idx, "in")

    def out_port(self, idx: int = 0) -> Port:
        if not 0 <= idx < len(self.op.results):
            raise GraphError(
                f"{describe(self.op)} has no output port {idx} "
                f"({len(self.op.results)} output ports)"
            )
        return Port(self, idx, "out")

    def in_ports(self, connected_only: bool = False) -> dict[int, Port]:
        """Input ports by index (all declared ones unless ``connected_only``)."""
        ports = {i: Port(self, i, "in") for i in range(self._num_in_ports())}
        if connected_only:
            ports = {i: p for i, p in ports.items() if p.is_connected()}
        return ports

    def out_ports(self) -> dict[int, Port]:
        return {i: Port(self, i, "out") for i in range(len(self.op.results))}

    def has_port(self, kind: str, idx: int) -> bool:
        if kind == "in":
            return 0 <= idx < self._num_in_ports()
        return 0 <= idx < len(self.op.results)

    def is_in_port_connected(self, idx: int) -> bool:
        return self.has_port("in", idx) and Port(self, idx, "in").is_connected()

    def is_out_port_connected(self, idx: int) -> bool:
        return self.has_port("out", idx) and Port(self, idx, "out").is_connected()

    def in_node(self, idx: int = 0) -> Node | None:
        """The node feeding input ``idx`` (None when unconnected)."""
        src = self.in_port(idx).get_source()
        return src.node if src is not None else None

    def out_nodes(self, idx: int = 0) -> list[Node]:
        """The nodes consuming output ``idx``."""
        return [p.node for p in self.out_port(idx).get_destinations()]

    def add_input_port(self, idx: int | None = None) -> Port:
        """Add an unconnected input port to a variadic op (at the end, or at
        ``idx``, shifting the ports above it)."""
        self._check_alive()
        _, hi = self._input_counts()
        if hi is not None:
            raise GraphError(
                f"{describe(self.op)} has a fixed set of input ports; only ops with "
                "a variadic input (Concat) take add_input_port"
            )
        values = list(self.op.operands)
        idx = len(values) if idx is None else idx
        if not 0 <= idx <= len(values):
            raise GraphError(f"{describe(self.op)}: cannot add input port {idx}")
        t = values[-1].type if values else tensor("f32", None)
        values.insert(idx, self.graph.placeholder(t))
        self.graph._set_operands(self.op, values)
        return Port(self, idx, "in")

    def delete_input_port(self, idx: int) -> None:
        """Remove input port ``idx`` of a variadic op (disconnecting it); the
        ports above it move down by one."""
        self._check_alive()
        lo, hi = self._input_counts()
        if hi is not None:
            raise GraphError(
                f"{describe(self.op)} has a fixed set of input ports; disconnect "
                f"port {idx} instead"
            )
        values = list(self.op.operands)
        if not 0 <= idx < len(values):
            raise GraphError(f"{describe(self.op)} has no input port {idx}")
        if len(values) - 1 < lo:
            raise GraphError(f"{describe(self.op)} needs at least {lo} inputs")
        del values[idx]
        self.graph._set_operands(self.op, values)

    def add_output_port(self, idx: int | None = None) -> Port:
        """Add an output to an op with variadic outputs (Split); update the
        attribute that sets their number (``num_splits``) as well."""
        self._check_alive()
        if not self._variadic_outputs():
            raise GraphError(f"{describe(self.op)} has a fixed set of output ports")
        n = len(self.op.results)
        idx = n if idx is None else idx
        if not 0 <= idx <= n:
            raise GraphError(f"{describe(self.op)}: cannot add output port {idx}")
        types = [r.type for r in self.op.results]
        types.insert(
            idx,
            types[idx - 1] if idx > 0 else (types[0] if types else tensor("f32", None)),
        )
        mapping: list[int | None] = list(range(n))
        mapping.insert(idx, None)
        self.graph._recreate(self, types, mapping)
        return Port(self, idx, "out")

    def delete_output_port(self, idx: int) -> None:
        """Remove unconsumed output ``idx`` of an op with variadic outputs."""
        self._check_alive()
        if not self._variadic_outputs():
            raise GraphError(f"{describe(self.op)} has a fixed set of output ports")
        port = self.out_port(idx)
        if port.is_connected():
            raise GraphError(f"{port} still has consumers; disconnect it first")
        n = len(self.op.results)
        types = [r.type for i, r in enumerate(self.op.results) if i != idx]
        mapping: list[int | None] = [i for i in range(n) if i != idx]
        self.graph._recreate(self, types, mapping)

    def _drop_trailing_placeholders(self) -> None:
        """Remove unconnected optional inputs at the end (variadic ports stay)."""
        lo, hi = self._input_counts()
        if hi is None:
            return
        values = list(self.op.operands)
        n = len(values)
        while len(values) > lo and is_placeholder(values[-1]):
            values.pop()
        if len(values) != n:
            self.graph._set_operands(self.op, values)

    def erase(self) -> None:
        """Remove the op (its outputs must have no consumers)."""
        self._check_alive()
        for p in self.out_ports().values():
            if p.is_connected():
                raise GraphError(
                    f"{p} still has consumers; cannot erase {describe(self.op)}"
                )
        for v in self.op.operands:
            if isinstance(v.owner, Operation) and v.owner.parent is self.graph.block:
                self.graph._candidates.add(v.owner)
        self.graph._erase(self.op)


class PortData:
    """The tensor at a port: its type, shape and (for constants) value."""

    def __init__(self, port: Port) -> None:
        self._port = port

    def _value(self) -> SSAValue | None:
        return self._port._value()

    def get_type(self) -> Attribute | None:
        v = self._value()
        return v.type if v is not None else None

    def get_shape(self) -> list[int] | None:
        """Dims (-1 for a dynamic one); None for a dynamic rank or an
        unconnected input port."""
        v = self._value()
        return dims_of(v.type) if v is not None else None

    def get_element_type(self) -> str | None:
        v = self._value()
        if v is None or not isinstance(v.type, TensorType | UnrankedTensorType):
            return None
        return et.from_xdsl(v.type.get_element_type())

    def get_value(self) -> np.ndarray | None:
        """The value when a Constant produces the tensor, else None."""
        v = self._value()
        return constant_value_of(v) if v is not None else None

    def set_value(self, value: Any, element_type: str | None = None) -> None:
        """Replace the value of a Constant's output (re-infers consumers)."""
        port = self._port
        node = port.node
        if port.type != "out" or node.type != "Constant":
            raise GraphError(
                f"set_value needs the output port of a Constant, got {port}"
            )
        node._check_alive()
        arr = np.asarray(value)
        store = None
        if node.graph.ctx is not None:
            store = weight_store(node.graph.ctx)
        if element_type is None:
            element_type = self.get_element_type()
        attr = make_constant_attr(arr, element_type, store, name_hint=node.name or "w")
        node.op.properties["value"] = attr
        node.graph._retype(node.op.results[0], attr.type)  # type: ignore[attr-defined]
        node.graph._notify(node.op)
        node.graph._propagate([u.operation for u in node.op.results[0].uses])


class Port:
    """Input or output ``idx`` of a node (``type`` is ``"in"`` or ``"out"``)."""

    __slots__ = ("idx", "node", "type")

    def __init__(self, node: Node, idx: int, type: str) -> None:
        self.node = node
        self.idx = idx
        self.type = type

    def __eq__(self, other: object) -> bool:
        return (
            isinstance(other, Port)
            and other.node is self.node
            and other.idx == self.idx
            and other.type == self.type
        )

    def __hash__(self) -> int:
        return hash((id(self.node), self.idx, self.type))

    def __repr__(self) -> str:
        kind = "input" if self.type == "in" else "output"
        return f"<{kind} {self.idx} of {describe(self.node.op)}>"

    @property
    def graph(self) -> Graph:
        return self.node.graph

    @property
    def data(self) -> PortData:
        return PortData(self)

    def _value(self) -> SSAValue | None:
        op = self.node.op
        if self.type == "in":
            if self.idx < len(op.operands):
                v = op.operands[self.idx]
                return None if is_placeholder(v) else v
            return None
        return op.results[self.idx]

    # -- queries -----------------------------------------------------------------
    def is_connected(self) -> bool:
        if self.type == "in":
            return self._value() is not None
        return bool(self.node.op.results[self.idx].uses)

    def disconnected(self) -> bool:
        return not self.is_connected()

    def get_source(self) -> Port | None:
        """The output port feeding this input port (None when unconnected)."""
        if self.type != "in":
            raise GraphError(f"get_source is for input ports; {self} is an output port")
        v = self._value()
        if v is None:
            return None
        owner = v.owner
        if not isinstance(owner, Operation) or owner.parent is not self.graph.block:
            raise GraphError(f"{self} reads a value from outside the graph")
        return Port(self.graph.node(owner), v.index, "out")  # type: ignore[attr-defined]

    def get_destinations(self) -> list[Port]:
        """The input ports this output feeds, in block order."""
        if self.type != "out":
            raise GraphError(
                f"get_destinations is for output ports; {self} is an input port"
            )
        uses = list(self.node.op.results[self.idx].uses)
        if len(uses) > 1:
            pos = self.graph._positions()
            uses.sort(key=lambda u: (pos.get(u.operation, float("inf")), u.index))
        return [Port(self.graph.node(u.operation), u.index, "in") for u in uses]

    def get_destination(self) -> Port | None:
        """The one input port this output feeds (None when unconsumed; an
        error when it feeds several)."""
        dests = self.get_destinations()
        if len(dests) > 1:
            raise GraphError(
                f"{self} has {len(dests)} consumers; use get_destinations()"
            )
        return dests[0] if dests else None

    def get_connection(self) -> Connection | None:
        """This port's connection (None when the port is unconnected)."""
        if self.type == "in":
            src = self.get_source()
            return Connection(self.graph, src, [self]) if src is not None else None
        dests = self.get_destinations()
        return Connection(self.graph, self, dests) if dests else None

    # -- names -------------------------------------------------------------------
    def get_tensor_names(self) -> list[str]:
        """Tensor names of this output (of the source, for an input port)."""
        if self.type == "in":
            src = self.get_source()
            return src.get_tensor_names() if src is not None else []
        op = self.node.op
        return op.get_tensor_names(self.idx) if isinstance(op, OVOp) else []

    def set_tensor_names(self, names: Sequence[str]) -> None:
        if self.type != "out":
            raise GraphError(
                f"tensor names belong to output ports; {self} is an input port"
            )
        self.node._ov().set_tensor_names(self.idx, list(dict.fromkeys(names)))
        self.graph.changed = True

    def add_tensor_names(self, names: Sequence[str]) -> None:
        self.set_tensor_names([*self.get_tensor_names(), *names])

    # -- edits -------------------------------------------------------------------
    def disconnect(self) -> None:
        """Disconnect this input port, or every consumer of this output port."""
        if self.type == "out":
            for d in self.get_destinations():
                d.disconnect()
            return
        node = self.node
        node._check_alive()
        v = self._value()
        if v is None:
            return
        values = list(node.op.operands)
        values[self.idx] = self.graph.placeholder(v.type)
        lo, hi = node._input_counts()
        if hi is not None and self.idx >= lo:
            # an unused optional input is simply absent
            while len(values) > lo and is_placeholder(values[-1]):
                values.pop()
        self.graph._set_operands(node.op, values)

    def connect(self, other: Port) -> None:
        """Connect an output port to an unconnected input port (either way round)."""
        if not isinstance(other, Port):
            raise GraphError(f"connect needs a Port, got {type(other).__name__}")
        if self.type == other.type:
            kind = "input" if self.type == "in" else "output"
            raise GraphError(f"cannot connect two {kind} ports ({self} and {other})")
        src, dst = (self, other) if self.type == "out" else (other, self)
        if src.graph is not dst.graph:
            raise GraphError(f"{src} and {dst} belong to different graphs")
        src.node._check_alive()
        dst.node._check_alive()
        if not dst.node.has_port("in", dst.idx):
            raise GraphError(f"{describe(dst.node.op)} has no input port {dst.idx}")
        if dst.is_connected():
            raise GraphError(
                f"{dst} is already connected to {dst.get_source()}; disconnect it "
                "first (or use get_connection().set_source())"
            )
        if self.graph.depends(src.node.op, dst.node.op):
            raise GraphError(f"connecting {src} to {dst} would create a cycle")
        self.graph._set_operand(dst.node.op, dst.idx, src.node.op.results[src.idx])


class Connection:
    """A source output port and the input ports it feeds.

    A connection is a snapshot taken by :meth:`Port.get_connection`; its
    methods edit the graph and update the snapshot.
    """

    def __init__(
        self, graph: Graph, source: Port | None, destinations: Sequence[Port]
    ) -> None:
        self.graph = graph
        self._source = source
        self._destinations = list(destinations)

    def __repr__(self) -> str:
        return f"<Connection {self._source} -> {self._destinations}>"

    def get_source(self) -> Port | None:
        return self._source

    def get_destinations(self) -> list[Port]:
        return list(self._destinations)

    def get_destination(self) -> Port | None:
        if len(self._destinations) > 1:
            raise GraphError(
                f"the connection from {self._source} has {len(self._destinations)} "
                "destinations; use get_destinations()"
            )
        return self._destinations[0] if self._destinations else None

    def set_source(self, port: Port) -> None:
        """Every destination now reads from output ``port``. A destination on
        ``port``'s own node keeps its source (an op cannot consume itself), so
        inserting an op after a node is ``conn.set_source(new.out_port(0))``."""
        if not isinstance(port, Port) or port.type != "out":
            raise GraphError(f"set_source needs an output port, got {port}")
        port.node._check_alive()
        dests = [d for d in self._destinations if d.node is not port.node]
        for d in dests:
            d.node._check_alive()
            if self.graph.depends(port.node.op, d.node.op):
                raise GraphError(f"feeding {d} from {port} would create a cycle")
        value = port.node.op.results[port.idx]
        for d in dests:
            self.graph._set_operand(d.node.op, d.idx, value)
        self._source = port

    def set_destination(self, port: Port) -> None:
        """The source now feeds exactly input ``port`` (other destinations are
        disconnected; ``port`` leaves its previous source)."""
        if not isinstance(port, Port) or port.type != "in":
            raise GraphError(f"set_destination needs an input port, got {port}")
        if self._source is None:
            raise GraphError("this connection has no source")
        for d in self._destinations:
            if d != port:
                d.disconnect()
        if port.get_source() != self._source:
            port.disconnect()
            self._source.connect(port)
        self._destinations = [port]

    def add_destination(self, port: Port) -> None:
        """Feed one more (unconnected) input port from the source."""
        if self._source is None:
            raise GraphError("this connection has no source")
        self._source.connect(port)
        self._destinations.append(port)

    def remove(self) -> None:
        """Disconnect every destination."""
        for d in self._destinations:
            d.disconnect()
        self._destinations = []

    def insert_node(self, node: Node, in_idx: int = 0, out_idx: int = 0) -> None:
        """Put ``node`` on this connection: the source feeds its input
        ``in_idx`` and its output ``out_idx`` feeds the destinations."""
        if self._source is None:
            raise GraphError("this connection has no source")
        node.in_port(in_idx).disconnect()
        dests = self._destinations
        self._source.connect(node.in_port(in_idx))
        out = node.out_port(out_idx)
        Connection(self.graph, self._source, dests).set_source(out)
        self._source = out


__all__ = ["Connection", "Node", "Port", "PortData", "RtInfo"]
