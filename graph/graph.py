"""``Graph``: a node/port view of an ``ov``-dialect module for transformation authors.

A :class:`Graph` wraps a ``builtin.module`` of ``ov`` ops (the top-level block;
ops with nested regions are treated as opaque nodes). It hands out one
:class:`~xmo.graph.node.Node` per op and edits the IR in place:

* **Ports and connections** (see :mod:`xmo.graph.node`) rewire operands.
  A disconnected input port reads a value of a detached placeholder op until
  it is connected again; :meth:`Graph.finalize` refuses to leave one behind
  (a trailing optional input is simply removed).
* **Types**: whenever an op's inputs (or attributes) change, its result types
  are inferred again and the change propagates to its consumers. An op whose
  inference fails in the middle of a rewiring is retried by ``finalize``.
* **Order**: new ops are inserted before the op a matcher matched, or right
  after their latest input when that comes later (constants without one go
  after the leading Parameters). The graph keeps block positions while the block is in SSA order,
  which makes cycle checks cheap; an edit that breaks the order makes the
  next query (or ``finalize``) sort the block topologically again.
* **Dead ops**: ops whose outputs lost all consumers (replaced ops, created
  but unused nodes) are erased with the producers only they kept alive; other
  unused ops of the module are left alone.

Inside a :class:`~xmo.passes.transformations.MatcherPass` callback the graph
routes every insertion, modification and removal through xDSL's
``PatternRewriter``, so the pattern walker's worklist stays valid.
"""

from __future__ import annotations

import heapq
from collections import deque
from collections.abc import Iterable, Iterator, Mapping, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np
from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp, TensorType, UnrankedTensorType
from xdsl.ir import Attribute, Block, Operation, SSAValue
from xdsl.rewriter import InsertPoint, Rewriter
from xmo.context import context_of, weight_store
from xmo.dialects.ov import ConstantOp, op_class
from xmo.dialects.ov import element_types as et
from xmo.dialects.ov.base import OVOp, tensor
from xmo.dialects.ov.traits import removable_if_unused
from xmo.graph.base import DisconnectedOp, GraphError, describe, is_placeholder
from xmo.graph.node import Node, Port

if TYPE_CHECKING:
    from xdsl.pattern_rewriter import PatternRewriter, PatternRewriteWalker




class Graph:
    """A node/port view of ``module`` (see the module docstring).

    ``ctx`` (default: the context attached to the module) supplies the weight
    store for large constants; without one constants are stored inline.
    ``body``: the block of a Loop / TensorIterator / If body inside ``module``
    to view instead of the model's own graph (its Parameters and Results are
    the body's inputs and outputs; ``xmo.dialects.ov.control_ops.graph_blocks``
    lists them). A graph never reaches into a body: a Loop is one node, whose
    ``node.bodies`` are graphs of their own; :meth:`graphs` walks them all.
    """

    def __init__(
        self, module: ModuleOp, ctx: Context | None = None, body: Block | None = None
    ) -> None:
        if not isinstance(module, ModuleOp):
            raise GraphError(
                f"Graph needs a builtin.module, got {type(module).__name__}"
            )
        self.module = module
        self._block = body if body is not None else module.body.block
        self.ctx = ctx if ctx is not None else context_of(module)
        self._nodes: dict[Operation, Node] = {}
        self._rewriter: PatternRewriter | None = None
        self._walker: PatternRewriteWalker | None = None
        self._anchor: Operation | None = None
        #: ops that may have lost their last consumer
        self._candidates: set[Operation] = set()
        #: ops whose type inference failed, with the reason
        self._pending: dict[Operation, str] = {}
        #: op -> position in the block while it is known to be in SSA order
        self._pos: dict[Operation, float] | None = None
        #: True once anything was edited through this graph
        self.changed = False

    @property
    def block(self) -> Block:
        return self._block

    def __repr__(self) -> str:
        name = self.module.sym_name
        return f"<Graph {name.data if name else 'model'}: {len(self.block.ops)} ops>"

    # -- nodes -----------------------------------------------------------------
    def node(self, op: Operation) -> Node:
        """The node of ``op`` (one Node object per op and graph)."""
        n = self._nodes.get(op)
        if n is not None:
            return n
        if op.parent is not self.block:
            raise GraphError(f"{describe(op)} is not an op of this graph")
        n = Node(self, op)
        self._nodes[op] = n
        return n

    def nodes(self) -> list[Node]:
        """Every ov op of the graph, in block order."""
        return [self.node(op) for op in self.block.ops if isinstance(op, OVOp)]

    def __iter__(self) -> Iterator[Node]:
        return iter(self.nodes())

    def get_op_nodes(
        self, type: str | Iterable[str] | None = None, **attr_filters: Any
    ) -> list[Node]:
        """Nodes of an op type (a name or several) whose attributes equal the
        filters; ``name=`` filters on the friendly name, ``version=`` on the
        IR version. A filter naming an attribute the op does not have excludes it.
        """
        types = (
            None if type is None else ({type} if isinstance(type, str) else set(type))
        )
        out = []
        for n in self.nodes():
            if types is not None and n.type not in types:
                continue
            if all(n.matches_attr(k, v) for k, v in attr_filters.items()):
                out.append(n)
        return out

    def graphs(self) -> Iterator[Graph]:
        """This graph, then the bodies of its control-flow nodes, nested
        ones included (depth first, in block order)."""
        yield self
        for op in list(self._block.ops):
            if op.regions:
                for body in self.node(op).bodies:
                    yield from body.graphs()

    def get_node_by_name(self, name: str) -> Node | None:
        """The node with friendly name ``name`` (error when several have it)."""
        found = self.get_op_nodes(name=name)
        if len(found) > 1:
            raise GraphError(f"{len(found)} ops are named '{name}'")
        return found[0] if found else None

    def parameters(self) -> list[Node]:
        return self.get_op_nodes("Parameter")

    def results(self) -> list[Node]:
        return self.get_op_nodes("Result")

    # -- creating ops ----------------------------------------------------------
    def create_node(
        self,
        type: str | type[OVOp],
        inputs: Sequence[Any] = (),
        attrs: Mapping[str, Any] | None = None,
        *,
        name: str | None = None,
        version: str | None = None,
        tensor_names: Sequence[Sequence[str]] | None = None,
        result_types: Sequence[Attribute] | None = None,
        num_outputs: int | None = None,
    ) -> Node:
        """Create an op and insert it; result types are inferred.

        ``type``: an IR type name (newest version unless ``version``) or an op
        class. ``inputs``, one per input port: an output ``Port``, a ``Node``
        with one output, an ``SSAValue``, a value to make a Constant of (a
        numpy array keeps its dtype; Python numbers and lists take the element
        type of the first tensor input), or None for a disconnected port (its
        types are inferred once every input is connected).
        """
        cls = self._op_class(type, version)
        values: list[SSAValue | None] = []
        first_etype: str | None = None
        for v in inputs:
            if v is None or isinstance(
                v, np.ndarray | np.generic | int | float | bool | list | tuple
            ):
                values.append(None)
                continue
            value = self._as_value(v, f"{cls.OV_TYPE} input {len(values)}")
            if first_etype is None and isinstance(
                value.type, TensorType | UnrankedTensorType
            ):
                first_etype = et.from_xdsl(value.type.get_element_type())
            values.append(value)
        for i, v in enumerate(inputs):
            if v is not None and values[i] is None:
                if isinstance(v, np.ndarray | np.generic):
                    c = self.create_constant(v)
                else:
                    c = self.create_constant(v, element_type=first_etype)
                values[i] = c.op.results[0]
        disconnected = [i for i, v in enumerate(values) if v is None]
        operands = [
            v if v is not None else self.placeholder(tensor("f32", None))
            for v in values
        ]
        try:
            op = cls.make(
                operands,
                attrs,
                result_types=result_types,
                num_outputs=num_outputs,
                name=name,
                tensor_names=tensor_names,
            )
        except Exception as e:
            if not disconnected:
                raise GraphError(f"cannot create {cls.OV_TYPE}: {e}") from e
            # Types are unknown until the inputs are connected.
            n_out = (
                num_outputs
                if num_outputs is not None
                else sum(1 for p in cls.OV_OUTPUTS if not p.endswith("*")) or 1
            )
            try:
                op = cls.make(
                    operands,
                    attrs,
                    result_types=[tensor("f32", None)] * n_out,
                    name=name,
                    tensor_names=tensor_names,
                )
            except Exception as e2:  # noqa: BLE001
                raise GraphError(f"cannot create {cls.OV_TYPE}: {e2}") from e
        if disconnected:
            self._pending[op] = f"inputs {disconnected} are not connected"
        self._insert(op)
        self._candidates.add(op)
        return self.node(op)

    def create_constant(
        self,
        value: Any,
        element_type: str | None = None,
        *,
        name: str | None = None,
    ) -> Node:
        """A Constant holding ``value`` (numpy dtype, or ``element_type``)."""
        arr = np.asarray(value)
        if element_type is None and not isinstance(value, np.ndarray | np.generic):
            if arr.dtype == np.float64:
                element_type = "f32"
            elif arr.dtype.kind in "iu" and arr.dtype.itemsize == 8:
                element_type = "i64"
        store = None
        if self.ctx is not None:
            try:
                store = weight_store(self.ctx)
            except (TypeError, KeyError, ValueError):
                store = None
        op = ConstantOp.from_array(arr, element_type, store=store, name=name)
        self._insert(op)
        self._candidates.add(op)
        return self.node(op)

    @staticmethod
    def _op_class(type_: str | type[OVOp], version: str | None) -> type[OVOp]:
        if isinstance(type_, str):
            try:
                return op_class(type_, version)
            except KeyError:
                v = f" version {version}" if version else ""
                raise GraphError(f"unknown op type '{type_}'{v}") from None
        if isinstance(type_, type) and issubclass(type_, OVOp):
            return type_
        raise GraphError(f"an op type is a name or an OVOp class, got {type_!r}")

    def _as_value(self, v: Any, what: str) -> SSAValue:
        if isinstance(v, Port):
            if v.type != "out":
                raise GraphError(f"{what}: {v} is an input port; give an output port")
            v.node._check_alive()
            return v.node.op.results[v.idx]
        if isinstance(v, Node):
            v._check_alive()
            if len(v.op.results) != 1:
                raise GraphError(
                    f"{what}: {v} has {len(v.op.results)} outputs; give one of its "
                    "out ports"
                )
            return v.op.results[0]
        if isinstance(v, Operation):
            return SSAValue.get(v)
        if isinstance(v, SSAValue):
            return v
        raise GraphError(f"{what}: cannot use {type(v).__name__} as an input")

    # -- low-level edits (used by ports, connections and the helpers) ----------
    def placeholder(self, t: Attribute) -> SSAValue:
        """A fresh value for a disconnected input port."""
        return DisconnectedOp.create(result_types=[t]).results[0]

    def _insert(self, op: Operation) -> None:
        """Insert a new op: before the anchor (the matched op), or right after
        its latest input when that comes later; constants without an anchor
        go right after the leading Parameters. Keeps the block in SSA order."""
        self.changed = True
        pos = self._positions()
        anchor = self._anchor
        if anchor is not None and anchor.parent is not self.block:
            anchor = None
        latest: Operation | None = None
        for v in op.operands:
            owner = v.owner
            if (
                isinstance(owner, Operation)
                and owner in pos
                and (latest is None or pos[owner] > pos[latest])
            ):
                latest = owner
        if anchor is not None and (latest is None or pos[latest] < pos[anchor]):
            point = InsertPoint.before(anchor)
        elif latest is not None:
            point = InsertPoint.after(latest)
        else:
            first = self.block.first_op  # after the leading Parameters
            while first is not None and first.name == "ov.Parameter":
                first = first.next_op
            point = (
                InsertPoint.before(first)
                if first is not None
                else InsertPoint.at_end(self.block)
            )
        if self._rewriter is not None:
            self._rewriter.insert(op, point)
        else:
            Rewriter.insert_op(op, point)
        self._place(op)

    # -- block positions (for SSA order and cheap cycle checks) ------------------
    def _positions(self) -> dict[Operation, float]:
        """Position of every op in the (topologically ordered) block."""
        if self._pos is None:
            self.ensure_order()
        assert self._pos is not None
        return self._pos

    def _place(self, op: Operation) -> None:
        """Give an op just inserted a position between its neighbours."""
        pos = self._pos
        if pos is None:
            return
        prev, nxt = op.prev_op, op.next_op
        lo = pos.get(prev) if prev is not None else None
        hi = pos.get(nxt) if nxt is not None else None
        if (prev is not None and lo is None) or (nxt is not None and hi is None):
            self._pos = None
            return
        if lo is None and hi is None:
            p = 0.0
        elif lo is None:
            p = hi - 1.0  # type: ignore[operator]
        elif hi is None:
            p = lo + 1.0
        else:
            p = (lo + hi) / 2
            if not lo < p < hi:  # out of float precision: renumber later
                self._pos = None
                return
        pos[op] = p
        self._check_order(op)

    def _check_order(self, op: Operation) -> None:
        """Forget positions when ``op`` reads a value defined after it."""
        pos = self._pos
        if pos is None:
            return
        p = pos.get(op)
        for v in op.operands:
            owner = v.owner
            if not isinstance(owner, Operation) or owner.parent is not self.block:
                continue
            q = pos.get(owner)
            if p is None or q is None or q >= p:
                self._pos = None
                return

    def depends(self, op: Operation, other: Operation) -> bool:
        """True when ``op`` (transitively) consumes a result of ``other``."""
        if op is other:
            return True
        pos = self._positions()
        p, q = pos.get(op), pos.get(other)
        if p is None or q is None:
            return depends_on(op, other)
        if p < q:
            return False  # the block is in SSA order
        seen: set[Operation] = set()
        stack = [op]
        while stack:
            cur = stack.pop()
            for v in cur.operands:
                owner = v.owner
                if owner is other:
                    return True
                if not isinstance(owner, Operation) or owner in seen:
                    continue
                r = pos.get(owner)
                if r is None or r > q:  # only ops after ``other`` can lead to it
                    seen.add(owner)
                    stack.append(owner)
        return False

    def _notify(self, op: Operation) -> None:
        self.changed = True
        if self._rewriter is not None and op.parent is not None:
            self._rewriter.notify_op_modified(op)

    def _set_operands(self, op: Operation, values: Sequence[SSAValue]) -> None:
        """Replace ``op``'s operand list; re-infer types from ``op`` on."""
        for old in op.operands:
            if isinstance(old.owner, Operation) and old.owner.parent is self.block:
                self._candidates.add(old.owner)
        op.operands = list(values)
        self._check_order(op)
        self._notify(op)
        self._propagate([op])

    def _set_operand(self, op: Operation, index: int, value: SSAValue) -> None:
        values = list(op.operands)
        while len(values) <= index:
            values.append(self.placeholder(value.type))
        values[index] = value
        self._set_operands(op, values)

    def _retype(self, value: SSAValue, t: Attribute) -> None:
        if self._rewriter is not None:
            self._rewriter.replace_value_with_new_type(value, t)
        else:
            Rewriter.replace_value_with_new_type(value, t)

    def _replace_uses(self, old: SSAValue, new: SSAValue) -> None:
        if self._rewriter is not None:
            self._rewriter.replace_all_uses_with(old, new)
        else:
            old.replace_all_uses_with(new)

    def _erase(self, op: Operation) -> None:
        self.changed = True
        self._pending.pop(op, None)
        self._candidates.discard(op)
        node = self._nodes.pop(op, None)
        if self._pos is not None:
            self._pos.pop(op, None)
        if self._rewriter is not None:
            self._rewriter.erase(op)
        else:
            op.detach()
            op.erase()
        if node is not None:
            node._erased = True

    def _recreate(
        self,
        node: Node,
        result_types: Sequence[Attribute],
        result_map: Sequence[int | None],
    ) -> None:
        """Rebuild ``node``'s op with other results; ``result_map[j]`` is the old
        result whose consumers new result ``j`` takes over (None: a new one)."""
        old = node.op
        props = dict(old.properties)
        names = [
            old.get_tensor_names(i) if isinstance(old, OVOp) else []
            for i in range(len(old.results))
        ]
        props.pop("tensor_names", None)
        new = type(old).create(
            operands=list(old.operands),
            result_types=list(result_types),
            properties=props,
            attributes=dict(old.attributes),
        )
        new_names = [names[m] if m is not None else [] for m in result_map]
        if isinstance(new, OVOp) and any(new_names):
            for j, ns in enumerate(new_names):
                if ns:
                    new.set_tensor_names(j, ns)
        self._insert_before(new, old)
        self._place(new)
        for j, m in enumerate(result_map):
            if m is not None:
                self._replace_uses(old.results[m], new.results[j])
        self._nodes.pop(old, None)
        self._pending.pop(old, None)
        self._candidates.discard(old)
        if self._rewriter is not None:
            self._rewriter.erase(old)
        else:
            old.detach()
            old.erase()
        node.op = new
        self._nodes[new] = node
        self.changed = True
        self._propagate([new])

    def _insert_before(self, op: Operation, before: Operation) -> None:
        if self._rewriter is not None:
            self._rewriter.insert(op, InsertPoint.before(before))
        else:
            Rewriter.insert_op(op, InsertPoint.before(before))

    # -- type inference ----------------------------------------------------------
    def _infer(self, op: Operation) -> bool:
        """Re-infer ``op``'s result types; True when one changed."""
        if not isinstance(op, OVOp) or op.parent is not self.block:
            return False
        if any(is_placeholder(v) for v in op.operands):
            self._pending[op] = "an input port is not connected"
            return False
        try:
            inferred = op.inferred_result_types()
        except Exception as e:  # noqa: BLE001 - retried by finalize()
            self._pending[op] = str(e)
            return False
        if inferred is None:
            self._pending.pop(op, None)
            return False
        if len(inferred) != len(op.results):
            self._pending[op] = (
                f"shape inference gives {len(inferred)} outputs, the op has "
                f"{len(op.results)}"
            )
            return False
        self._pending.pop(op, None)
        changed = False
        for r, t in zip(list(op.results), inferred):
            if r.type != t:
                self._retype(r, t)
                changed = True
        return changed

    def _propagate(self, ops: Iterable[Operation]) -> None:
        """Re-infer ``ops`` and, while types change, their consumers."""
        work = deque(ops)
        visits = 0
        limit: int | None = None
        while work:
            op = work.popleft()
            visits += 1
            if visits % 4096 == 0:  # a guard, not a bound of a DAG's walk
                if limit is None:
                    limit = 16 * (len(self.block.ops) + 16)
                if visits > limit:
                    break
            if self._infer(op):
                for r in op.results:
                    for u in r.uses:
                        work.append(u.operation)

    def infer_types(self) -> None:
        """Re-infer every op's result types in block order (raises on failure)."""
        self.ensure_order()
        for op in list(self.block.ops):
            if isinstance(op, OVOp):
                self._infer(op)
                if op in self._pending:
                    raise GraphError(f"{describe(op)}: {self._pending[op]}")

    # -- maintenance ---------------------------------------------------------------
    def remove_dead(self, ops: Iterable[Operation] | None = None) -> int:
        """Erase ops (from ``ops``; default: the ones edits may have orphaned)
        that have results but no consumers, then the producers only they kept
        alive. Ops with effects (Parameters, Results, state, random ops) stay.
        Returns the count."""
        if ops is None:
            work = list(self._candidates)
            self._candidates.clear()
        else:
            work = list(ops)
        erased = 0
        while work:
            op = work.pop()
            if op.parent is not self.block or not isinstance(op, OVOp):
                continue
            if not op.results or not removable_if_unused(op):
                continue
            if any(r.uses for r in op.results):
                continue
            producers = [
                v.owner
                for v in op.operands
                if isinstance(v.owner, Operation) and v.owner.parent is self.block
            ]
            self._erase(op)
            erased += 1
            work.extend(producers)
        return erased

    def ensure_order(self) -> None:
        """Reorder the block topologically if edits broke SSA order (stable)."""
        ops = list(self.block.ops)
        pos = {op: i for i, op in enumerate(ops)}
        ordered = True
        for op in ops:
            for v in op.operands:
                owner = v.owner
                if isinstance(owner, Operation) and pos.get(owner, -1) > pos[op]:
                    ordered = False
                    break
            if not ordered:
                break
        if ordered:
            self._pos = {op: float(i) for i, op in enumerate(ops)}
            return
        indeg = {op: 0 for op in ops}
        users: dict[Operation, list[Operation]] = {op: [] for op in ops}
        for op in ops:
            for v in op.operands:
                owner = v.owner
                if isinstance(owner, Operation) and owner in pos:
                    indeg[op] += 1
                    users[owner].append(op)
        heap = [pos[op] for op in ops if indeg[op] == 0]
        heapq.heapify(heap)
        order: list[Operation] = []
        while heap:
            op = ops[heapq.heappop(heap)]
            order.append(op)
            for u in users[op]:
                indeg[u] -= 1
                if indeg[u] == 0:
                    heapq.heappush(heap, pos[u])
        if len(order) != len(ops):
            stuck = [describe(op) for op in ops if indeg[op] > 0][:5]
            raise GraphError(f"the graph has a cycle through {', '.join(stuck)}")
        for op in ops:
            self.block.detach_op(op)
        self.block.add_ops(order)
        self._pos = {op: float(i) for i, op in enumerate(order)}
        self.changed = True

    def finalize(self) -> None:
        """Make the module valid again after edits: drop trailing disconnected
        optional inputs, reject other disconnected ports, erase orphaned ops,
        finish pending type inference, restore topological order."""
        for op in list(self.block.ops):
            if any(is_placeholder(v) for v in op.operands):
                node = self.node(op)
                node._drop_trailing_placeholders()
                for i, v in enumerate(op.operands):
                    if is_placeholder(v):
                        raise GraphError(
                            f"{describe(op)}: input port {i} is not connected"
                        )
        self.remove_dead()
        self.ensure_order()
        for _ in range(4):
            if not self._pending:
                break
            pending = [op for op in self.block.ops if op in self._pending]
            self._pending = {
                op: m for op, m in self._pending.items() if op.parent is self.block
            }
            self._propagate(pending)
        for op in self.block.ops:
            if op in self._pending:
                raise GraphError(f"{describe(op)}: {self._pending[op]}")
        self._pending.clear()

    #: MO's name for :meth:`finalize`
    clean_up = finalize

    # -- matcher support -------------------------------------------------------------
    def register_new_node(self, node: Node) -> None:
        """Have the running matchers visit ``node`` too (OpenVINO's
        ``MatcherPass::register_new_node``); no effect outside a matcher."""
        if self._walker is not None:
            self._walker._worklist.push(node.op)  # pyright: ignore[reportPrivateUsage]

    def _bind(self, rewriter: PatternRewriter | None, anchor: Operation | None) -> None:
        self._rewriter = rewriter
        self._anchor = anchor


def users_of(op: Operation) -> list[Operation]:
    """Distinct ops consuming any result of ``op`` (first-use order)."""
    seen: dict[Operation, None] = {}
    for r in op.results:
        for u in r.uses:
            seen.setdefault(u.operation, None)
    return list(seen)


def depends_on(op: Operation, other: Operation) -> bool:
    """True when ``op`` (transitively) consumes a result of ``other``."""
    if op is other:
        return True
    seen: set[Operation] = set()
    stack = [op]
    while stack:
        cur = stack.pop()
        for v in cur.operands:
            owner = v.owner
            if not isinstance(owner, Operation) or owner in seen:
                continue
            if owner is other:
                return True
            seen.add(owner)
            stack.append(owner)
    return False


__all__ = ["Graph", "depends_on", "users_of"]
