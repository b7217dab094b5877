"""``convert-tf-to-ov``: legalize a ``tf``-dialect module into the ``ov`` dialect.

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

import logging
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import (
    ArrayAttr,
    DenseIntOrFPElementsAttr,
    DenseResourceAttr,
    ModuleOp,
    StringAttr,
    TensorType,
    UnrankedTensorType,
)
from xdsl.ir import Operation, SSAValue
from xdsl.passes import ModulePass
from xmo.context import weight_store
from xmo.dialects.ov import ConstantOp, ParameterOp, ResultOp
from xmo.dialects.ov import element_types as et
from xmo.dialects.ov.base import OVOp, dims_of
from xmo.passes.tf_to_ov.builder import (
    DEAD,
    ConstEvaluator,
    ConversionFailure,
    TFBuilder,
    TFNode,
)
from xmo.passes.tf_to_ov.registry import lookup
from xmo.passes.to_ov.builder import converter_outputs
from xmo.passes.to_ov.report import UnsupportedOpsError

log = logging.getLogger("xmo.convert")

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


def _tensor_type_ok(t) -> str | None:
    if not isinstance(t, TensorType | UnrankedTensorType):
        return f"type {t} is not supported by OpenVINO"
    if not et.is_ov_element_type(t.get_element_type()):
        return f"element type {t.get_element_type()} has no OpenVINO equivalent"
    return None


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


def add_tensor_names(v: SSAValue, names: Sequence[str]) -> None:
    owner = v.owner
    if not isinstance(owner, OVOp):
        return
    idx = v.index  # type: ignore[attr-defined]
    have = owner.get_tensor_names(idx)
    extra = [n for n in names if n and n not in have]
    if extra:
        owner.set_tensor_names(idx, [*have, *extra])


@dataclass
class _Converter:
    ctx: Context

    def run(self, module: ModuleOp) -> None:
        store = weight_store(self.ctx)
        ops = list(module.body.block.ops)
        live, control = _live_ops(ops)
        value_map: dict[SSAValue, SSAValue | None] = {}
        poisoned: set[SSAValue] = set()
        poisoned_nodes: set[str] = set()  # followed through control edges
        dead: set[SSAValue] = set()
        dead_nodes: set[str] = set()
        failures: dict[str, list[tuple[str, str]]] = defaultdict(list)
        new_ops: list[Operation] = []
        used_names: set[str] = set()
        evaluator = ConstEvaluator()

        def poison(op: Operation) -> None:
            poisoned.update(op.results)
            poisoned_nodes.add(node_name_of(op))

        def fail(key: str, name: str, why: str, op: Operation) -> None:
            failures[key].append((name, why))
            poison(op)

        def live_use(res: SSAValue) -> bool:
            return any(u.operation in live for u in res.uses)

        for op in ops:
            if op not in live and op not in control:
                continue
            if op.name == "tf.Output":
                v = op.operands[0]
                tname = _str(op.properties.get("tensor_name"))
                if v in poisoned:
                    continue
                if v in dead:
                    failures["graph output"].append(
                        (tname, "the output is in a control-flow branch that is not taken")
                    )
                    continue
                mapped = value_map.get(v)
                if mapped is None:
                    failures["graph output"].append((tname, "output has no value"))
                    continue
                add_tensor_names(mapped, [tname])
                new_ops.append(ResultOp.new(mapped))
                continue
            if not op.name.startswith("tf."):
                fail(op.name, op.name, "not a TensorFlow graph op", op)
                continue
            name = node_name_of(op)
            op_type = tf_type_of(op)
            ctrl = control_input_names(op) if control or dead_nodes else []
            if any(c in poisoned_nodes for c in ctrl):
                poison(op)
                continue
            if _is_dead(op, op_type, ctrl, dead, dead_nodes):
                dead.update(op.results)
                dead_nodes.add(name)
                for r in op.results:
                    value_map[r] = DEAD  # type: ignore[assignment]
                continue
            if op not in live:  # followed through control edges for deadness only
                if any(v in poisoned for v in op.operands):
                    poison(op)
                continue
            if op.name != "tf.Unknown" and op_type == "Placeholder":
                t = op.results[0].type
                why = _tensor_type_ok(t)
                if why:
                    fail(op_type, name, why, op)
                    continue
                p = ParameterOp.new(
                    et.from_xdsl(t.get_element_type()),
                    dims_of(t),
                    name=name,
                    tensor_names=output_names(name, 1)[0],
                )
                used_names.add(name)
                new_ops.append(p)
                value_map[op.results[0]] = p.results[0]
                continue
            if op.name != "tf.Unknown" and op_type == "Const":
                c, why = _constant(op, name)
                if why or c is None:
                    fail(op_type, name, why or "no value", op)
                    continue
                used_names.add(name)
                new_ops.append(c)
                value_map[op.results[0]] = c.results[0]
                continue
            if any(v in poisoned for v in op.operands):
                poison(op)
                if op_type not in PASS_THROUGH and lookup(op_type) is None:
                    # unconvertible on its own too: the report lists it
                    fail(op_type, name, _no_converter(op), op)
                continue
            b = TFBuilder(store, name, evaluator)
            try:
                outs = self._convert_node(op, op_type, name, value_map, evaluator, b, live_use)
            except ConversionFailure as e:
                fail(op_type, name, str(e), op)
                continue
            new_ops.extend(b.ops)
            for res, v in zip(op.results, outs):
                if v is DEAD:
                    dead.add(res)
            self._name_outputs(op, name, outs, set(b.ops), value_map, used_names)
            if log.isEnabledFor(logging.DEBUG):
                log.debug(
                    "%s '%s' -> %d ov ops; outputs %s", op_type, name, len(b.ops),
                    ", ".join(f"{k}: {v.type}" for k, v in enumerate(outs) if v is not None),
                )

        if failures:
            raise UnsupportedOpsError(dict(failures))
        block = module.body.block
        for op in reversed(list(block.ops)):
            op.detach()
            op.erase(safe_erase=False)
        block.add_ops(new_ops)

    @staticmethod
    def _convert_node(op, op_type, name, value_map, evaluator, b, live_use):
        inputs = [value_map.get(v) for v in op.operands]
        if any(v is None for v in inputs):
            raise ConversionFailure("an input has no value")
        node = TFNode(op, inputs, name, op_type, [f"{name}:{k}" for k in range(len(op.results))], evaluator)
        if op_type in PASS_THROUGH:
            outs: list[SSAValue | None] = list(inputs[: len(op.results)])
        else:
            # tf.Unknown (an op type the dialect has no OpDef for) still
            # converts when there is a converter; its attrs have no defaults
            fn = lookup(op_type)
            if fn is None:
                raise ConversionFailure(_no_converter(op))
            outs = converter_outputs(fn(node, b))
        outs += [None] * (len(op.results) - len(outs))
        for k, (res, v) in enumerate(zip(op.results, outs)):
            if v is None and live_use(res):
                raise ConversionFailure(f"output {k} is not supported")
        return outs[: len(op.results)]

    @staticmethod
    def _name_outputs(op, name, outs, created, value_map, used_names) -> None:
        named: set[Operation] = set()
        for k, (res, v) in enumerate(zip(op.results, outs)):
            if v is None:
                continue
            value_map[res] = v
            if v is DEAD:
                continue
            add_tensor_names(v, output_names(name, len(op.results))[k])
            owner = v.owner
            if isinstance(owner, OVOp) and owner in created and owner not in named:
                named.add(owner)
                fname = name if k == 0 else f"{name}:{k}"
                if fname in used_names:
                    continue
                owner.set_friendly_name(fname)
                used_names.add(fname)


def _is_dead(
    op: Operation, op_type: str, ctrl: Sequence[str], dead: set[SSAValue], dead_nodes: set[str]
) -> bool:
    """TensorFlow's deadness: a Merge is dead when all its data inputs are; any
    other node when one of its data inputs is, or one of its control inputs
    is a dead node."""
    if not dead:
        return False
    if op_type in MERGE:
        return bool(op.operands) and all(v in dead for v in op.operands)
    return any(v in dead for v in op.operands) or any(c in dead_nodes for c in ctrl)


def _no_converter(op: Operation) -> str:
    return "unknown operation" if op.name == "tf.Unknown" else "no converter for this operation"


def _constant(op: Operation, name: str) -> tuple[ConstantOp | None, str | None]:
    value = op.properties.get("value")
    if not isinstance(value, DenseIntOrFPElementsAttr | DenseResourceAttr):
        return None, f"constants of type {op.results[0].type} are not supported"
    why = _tensor_type_ok(value.type)
    if why:
        return None, why
    c = ConstantOp.create(result_types=[value.type], properties={"value": value})
    c.set_friendly_name(name)
    c.set_tensor_names(0, output_names(name, 1)[0])
    return c, None


@dataclass(frozen=True)
class ConvertTFToOVPass(ModulePass):
    """Legalize the tf dialect into the ov dialect (see module docstring)."""

    name = "convert-tf-to-ov"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        _Converter(ctx).run(op)


def convert_tf_to_ov(module: ModuleOp, ctx: Context) -> None:
    """Legalize ``module`` in place (raises :class:`UnsupportedOpsError`)."""
    _Converter(ctx).run(module)


__all__: Sequence[str] = [
    "MERGE",
    "PASS_THROUGH",
    "SWITCH",
    "ConvertTFToOVPass",
    "UnsupportedOpsError",
    "convert_tf_to_ov",
]
