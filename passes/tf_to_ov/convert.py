"""``convert-tf-to-ov``: legalize a ``tf``-dialect module into the ``ov`` dialect.

The shared driver (:mod:`xmo.passes.to_ov.driver`) does the walk, the value
map, the report and the naming; :class:`TFHooks` says what is TensorFlow's.

Graph I/O: ``tf.Placeholder`` becomes ``ov.Parameter``, ``tf.Const``
``ov.Constant`` (the same weight payload, no copy) and ``tf.Output``
``ov.Result``; every other node goes through the converter registered for its
TF type (:mod:`.registry`). Identity-like nodes (Identity, IdentityN, Snapshot,
StopGradient, PlaceholderWithDefault, ...) pass values through.

Only nodes a graph output depends on are converted: NoOp, pure-control nodes
and dead branches vanish, and a node that cannot be converted (a string
constant, an extra FusedBatchNorm output) matters only when it is used.

TF1 conditionals (``tf.cond`` lowered to ``Switch`` / ``Merge`` in a frozen
graph) convert when the predicate folds to a constant (a Const, a
``PlaceholderWithDefault(False)`` learning phase, any constant sub-graph):
the ``Switch`` converter forwards its input to the taken port and returns
:data:`~.builder.DEAD` for the other, and this pass propagates deadness as
TensorFlow's executor does -- a node with a dead data input, or a control
input from a dead node, is dead and is never converted (so the untaken
branch may hold ops xmo cannot convert); a ``Merge`` forwards its one live
input. Deadness needs the control edges of the branches (their constants
hang on ``^pivot`` nodes), so when the graph has a ``Switch`` the nodes the
converted ones reach through control edges are followed too (not
converted), and the predicate of every ``Switch`` among them is converted.
It happens here rather than in a front-phase rewrite of the ``tf`` module
because the predicate is known only as a converted value: the constant
evaluator folds whatever sub-graph computes it. A predicate that is not a
constant (a real input) leaves the ``Switch`` in the unsupported-ops report.

Names: output port ``k`` of node ``n`` becomes the tensor names ``n:k`` (and
``n`` for port 0) of the ov value that replaces it, so pass-through nodes add
their names to the value they forward; the op producing port 0 takes the node
name as friendly name (an op producing only port ``k`` takes ``n:k``); the
other ops a converter emits are named ``<node>/<Type>_<i>``. TF's
channels-last semantics are kept: see :mod:`.layout`.

Nodes that cannot be converted are collected; the pass then raises
:class:`~xmo.passes.to_ov.report.UnsupportedOpsError` with one report listing
every unconvertible op type with its count and node names, and leaves the
module untouched.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import (
    ArrayAttr,
    DenseIntOrFPElementsAttr,
    DenseResourceAttr,
    ModuleOp,
    StringAttr,
)
from xdsl.ir import Operation, SSAValue
from xdsl.passes import ModulePass
from xdsl.traits import SymbolTable
from xmo.dialects.ov import ConstantOp
from xmo.dialects.ov.weights import WeightStore
from xmo.dialects.tf import FunctionOp, ReturnOp
from xmo.passes.tf_to_ov.builder import TF_ATTRIBUTES, ConstEvaluator, TFBuilder
from xmo.passes.tf_to_ov.registry import lookup
from xmo.passes.to_ov.builder import DEAD, Builder, NotConvertible, ConverterNode
from xmo.passes.to_ov.driver import (
    LegalizationHooks,
    Legalizer,
    OpInfo,
    OVValue,
    ValueScope,
    legalize,
)
from xmo.passes.to_ov.registry import ConverterFn

#: nodes whose output ``k`` is their input ``k``
PASS_THROUGH = frozenset(
    {
        "Identity", "IdentityN", "Snapshot", "StopGradient", "PreventGradient",
        "PlaceholderWithDefault", "EnsureShape", "CheckNumerics", "DebugIdentity",
        "DebugIdentityV2", "DebugIdentityV3",
    }
)  # fmt: skip


def _str(a) -> str:
    if isinstance(a, StringAttr):
        return a.data
    return "" if a is None else str(a)


def node_name_of(op: Operation) -> str:
    return _str(op.properties.get("node_name")) or op.name


def tf_type_of(op: Operation) -> str:
    t = getattr(op, "tf_type", None)
    if isinstance(t, str) and t:
        return t
    if op.name == "tf.Unknown":
        return _str(op.properties.get("op_type")) or "Unknown"
    return op.name.removeprefix("tf.")


#: TF1 control-flow ops that route a value by a predicate (input 1)
SWITCH = frozenset({"Switch"})
#: TF1 control-flow ops that forward their one live input
MERGE = frozenset({"Merge"})


def control_input_names(op: Operation) -> list[str]:
    """Node names of ``op``'s control inputs (``^name``)."""
    ci = op.properties.get("control_inputs")
    return [_str(c) for c in ci.data] if isinstance(ci, ArrayAttr) else []


def _live_ops(ops: Sequence[Operation]) -> tuple[set[Operation], set[Operation]]:
    """``(live, control)``: the ops some ``tf.Output`` depends on through data
    edges (converted), and -- in a graph with a ``Switch`` -- the ops they
    depend on through control edges (followed for deadness only, see the
    module docstring; a ``Switch`` among them is live). The block is in
    topological order, so one backward walk settles every op."""
    has_switch = any(tf_type_of(op) in SWITCH for op in ops)
    by_name = {node_name_of(op): op for op in ops} if has_switch else {}
    live: set[Operation] = set()
    control: set[Operation] = set()
    for op in reversed(ops):
        if op.name == "tf.Output" or (op in control and tf_type_of(op) in SWITCH):
            live.add(op)
        if op in live:
            mark = live
        elif op in control:
            mark = control
        else:
            continue
        for v in op.operands:
            owner = v.owner
            if isinstance(owner, Operation):
                mark.add(owner)
        for c in control_input_names(op):
            src = by_name.get(c)
            if src is not None and src not in live:
                control.add(src)
    return live, control - live


def output_names(name: str, n: int) -> list[list[str]]:
    """Tensor names of each output port of node ``name``."""
    return [[name, f"{name}:0"] if k == 0 else [f"{name}:{k}"] for k in range(n)]


def _pass_through(node: ConverterNode, b: TFBuilder) -> list[OVValue]:
    return list(node.inputs[: len(node.op.results)])


class TFHooks(LegalizationHooks):
    """What is TensorFlow's in the legalization (see the module docstring):
    liveness, control edges and deadness, Placeholder / Const, pass-through
    nodes, the constant evaluator, ``node:port`` names."""

    foreign_op_problem = "not a TensorFlow graph op"
    non_tensor_problem = "is not supported by OpenVINO"

    def __init__(self) -> None:
        self.live: set[Operation] = set()
        self.control: set[Operation] = set()
        self.dead: set[SSAValue] = set()
        self.dead_nodes: set[str] = set()
        self.evaluator = ConstEvaluator()

    def start(self, ops: Sequence[Operation]) -> None:
        self.live, self.control = _live_ops(ops)

    def skip(self, op: Operation, lz: Legalizer) -> bool:
        if op not in self.live and op not in self.control:
            return True
        if op.name == "tf.Output" or not op.name.startswith("tf."):
            return False
        name = node_name_of(op)
        ctrl = control_input_names(op) if self.control or self.dead_nodes else []
        if any(c in lz.poisoned_names for c in ctrl):
            lz.poison(op, name)
            return True
        if self._is_dead(op, ctrl):
            self.dead.update(op.results)
            self.dead_nodes.add(name)
            for r in op.results:
                lz.values[r] = DEAD
            return True
        if op not in self.live:  # followed through control edges for deadness only
            if lz.has_poisoned_input(op):
                lz.poison(op, name)
            return True
        return False

    def _is_dead(self, op: Operation, ctrl: Sequence[str]) -> bool:
        """TensorFlow's deadness: a Merge is dead when all its data inputs are; any
        other node when one of its data inputs is, or one of its control inputs
        is a dead node."""
        dead = self.dead
        if not dead:
            return False
        if tf_type_of(op) in MERGE:
            return bool(op.operands) and all(v in dead for v in op.operands)
        return any(v in dead for v in op.operands) or any(c in self.dead_nodes for c in ctrl)

    def graph_output(self, op: Operation) -> tuple[SSAValue, str, list[str]] | None:
        if op.name != "tf.Output":
            return None
        tname = _str(op.properties.get("tensor_name"))
        return op.operands[0], tname, [tname]

    def convert_source(self, op: Operation, lz: Legalizer) -> bool:
        if op.name == "tf.Unknown" or not op.name.startswith("tf."):
            return False
        op_type = tf_type_of(op)
        name = node_name_of(op)
        if op_type == "Placeholder":
            lz.parameter(op, key=op_type, name=name, tensor_names=output_names(name, 1)[0],
                         claim_name=True)
        elif op_type == "Const":
            c, why = _constant(lz, op, name)
            if why or c is None:
                lz.fail(op_type, name, why or "no value", op)
            else:
                lz.constant(op, c, claim_name=True)
        else:
            return False
        return True

    def is_node(self, op: Operation) -> bool:
        return op.name.startswith("tf.")

    def describe(self, op: Operation, index: int) -> OpInfo:
        name = node_name_of(op)
        op_type = tf_type_of(op)
        return OpInfo(op_type, name, op_type, [f"{name}:{k}" for k in range(len(op.results))])

    def unconvertible(self, op: Operation, info: OpInfo) -> str | None:
        if info.op_type not in PASS_THROUGH and lookup(info.op_type) is None:
            return _no_converter(op)  # unconvertible on its own too: the report lists it
        return None

    def builder(self, store: WeightStore, info: OpInfo) -> TFBuilder:
        return TFBuilder(store, info.name, self.evaluator)

    def prepare(self, op: Operation, info: OpInfo, scope: ValueScope) -> tuple[ConverterFn, ConverterNode]:
        inputs = [scope.values.get(v) for v in op.operands]
        if any(v is None for v in inputs):
            raise NotConvertible("an input has no value")
        node = ConverterNode(op, inputs, info.name, info.op_type, info.output_names,
                      attributes=TF_ATTRIBUTES, evaluator=self.evaluator, scope=scope)
        if info.op_type in PASS_THROUGH:
            return _pass_through, node
        # tf.Unknown (an op type the dialect has no OpDef for) still
        # converts when there is a converter; its attrs have no defaults
        fn = lookup(info.op_type)
        if fn is None:
            raise NotConvertible(_no_converter(op))
        return fn, node

    def missing_output(self, op: Operation, info: OpInfo, index: int) -> str | None:
        live = self.live
        if any(u.operation in live for u in op.results[index].uses):
            return f"output {index} is not supported"
        return None

    def converted(self, op: Operation, info: OpInfo, outs: Sequence[OVValue]) -> None:
        for res, v in zip(op.results, outs):
            if v is DEAD:
                self.dead.add(res)

    def tensor_names(self, op: Operation, info: OpInfo, index: int) -> list[str]:
        return output_names(info.name, len(op.results))[index]


def _no_converter(op: Operation) -> str:
    return "unknown operation" if op.name == "tf.Unknown" else "no converter for this operation"


def _constant(
    lz: Legalizer, op: Operation, name: str, tensor_names: bool = True
) -> tuple[ConstantOp | None, str | None]:
    value = op.properties.get("value")
    if not isinstance(value, DenseIntOrFPElementsAttr | DenseResourceAttr):
        return None, f"constants of type {op.results[0].type} are not supported"
    why = lz.tensor_type_problem(value.type)
    if why:
        return None, why
    c = lz.dense_constant(value, name)
    if tensor_names:
        c.set_tensor_names(0, output_names(name, 1)[0])
    return c, None


# ---------------------------------------------------------------------------
# Functions of the library
# ---------------------------------------------------------------------------


def called_function(node: ConverterNode, attr: str) -> FunctionOp:
    """The ``tf.Function`` the call node's ``#tf.func`` attr ``attr`` names."""
    name = node.attr(attr)
    fn = SymbolTable.lookup_symbol(node.op, str(name)) if name else None
    if not isinstance(fn, FunctionOp):
        raise node.unsupported(f"'{attr}' names no function of the graph ('{name}')")
    return fn


def _needed_ops(block_ops: Sequence[Operation], roots: Sequence[SSAValue]) -> set[Operation]:
    """The ops of a function body the values ``roots`` depend on (data edges)."""
    needed: set[Operation] = set()
    stack = [v.owner for v in roots if isinstance(v.owner, Operation)]
    while stack:
        op = stack.pop()
        if op in needed:
            continue
        needed.add(op)
        stack.extend(v.owner for v in op.operands if isinstance(v.owner, Operation))
    return needed


def convert_function(
    node: ConverterNode,
    b: Builder,
    fn: FunctionOp,
    args: Sequence[OVValue],
    prefix: str,
    *,
    results: Sequence[int] | None = None,
) -> list[OVValue]:
    """Inline function ``fn`` into ``b``: its arguments are ``args`` (ov values
    or conversion values, e.g. tensor lists), its nodes convert with their
    converters (a Const becomes a Constant), named ``<prefix>/<node>``.

    Returns the ov values of the function's results, of those listed in
    ``results`` only (the others None): only the nodes they depend on are
    converted. Raises :class:`~xmo.passes.to_ov.builder.NotConvertible`
    naming the function and the node that fails. For converters of call ops
    (``node.scope`` is set by the driver).
    """
    outer: ValueScope | None = node.scope
    if outer is None:
        raise NotConvertible("function conversion needs the converter's scope")
    block = fn.body.block
    fname = fn.function_name
    if len(args) != len(block.args):
        raise NotConvertible(f"function '{fname}' takes {len(block.args)} arguments, {len(args)} given")
    ret = block.last_op
    assert isinstance(ret, ReturnOp)
    wanted = range(len(ret.operands)) if results is None else list(results)
    local: dict[SSAValue, OVValue] = dict(zip(block.args, args))
    scope = outer.nested(local)
    lz = outer.legalizer
    hooks = lz.hooks
    needed = _needed_ops(list(block.ops), [ret.operands[i] for i in wanted])
    for index, op in enumerate(block.ops):
        if op is ret or op not in needed:
            continue
        info = hooks.describe(op, index)
        name = f"{prefix}/{info.name}"
        where = f"function '{fname}' node '{info.name}' ({info.op_type})"
        if info.op_type == "Const":
            c, why = _constant(lz, op, name, tensor_names=False)
            if why or c is None:
                raise NotConvertible(f"{where}: {why or 'no value'}")
            b.ops.append(c)
            local[op.results[0]] = c.results[0]
            continue
        if info.op_type == "Placeholder":
            raise NotConvertible(f"{where}: a function has no placeholders")
        outs = lz.convert_inner(op, info, scope, b, name, where)
        for res, v in zip(op.results, outs):
            local[res] = v
    values: list[OVValue] = [None] * len(ret.operands)
    for i in wanted:
        v = ret.operands[i]
        if v not in scope.values:
            raise NotConvertible(f"function '{fname}': result {i} has no value")
        values[i] = scope.values[v]
    return values


@dataclass(frozen=True)
class ConvertTFToOVPass(ModulePass):
    """Legalize the tf dialect into the ov dialect (see module docstring)."""

    name = "convert-tf-to-ov"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        convert_tf_to_ov(op, ctx)


def convert_tf_to_ov(module: ModuleOp, ctx: Context) -> None:
    """Legalize ``module`` in place (raises
    :class:`~xmo.passes.to_ov.report.UnsupportedOpsError`)."""
    legalize(module, ctx, TFHooks())


__all__: Sequence[str] = [
    "MERGE",
    "called_function",
    "convert_function",
    "PASS_THROUGH",
    "SWITCH",
    "ConvertTFToOVPass",
    "TFHooks",
    "convert_tf_to_ov",
]
