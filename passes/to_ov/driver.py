"""The legalization driver every frontend shares: a framework-dialect module
becomes an ``ov``-dialect module.

:func:`legalize` walks the framework ops of the module body in order and
keeps what every legalization needs:

* the value map (framework value -> ov value, or a
  :class:`~xmo.passes.to_ov.builder.ConversionValue` such as an ONNX sequence
  or a dead TF branch) in a :class:`ValueScope`;
* poisoned values: the results of an op that failed, and of every op that
  depends on one (those are not converted and not reported again);
* the failures, raised at the end as one
  :class:`~xmo.passes.to_ov.report.UnsupportedOpsError` (the module is then
  left untouched); otherwise the module body is replaced by the ov ops;
* names: each node's output tensor names go to the ov values that replace
  them, the op producing a node output takes the node name as its friendly
  name (the other ops a converter emits keep ``<node>/<Type>_<i>``);
* element-type checks of graph inputs and constants
  (:meth:`Legalizer.tensor_type_problem`), graph inputs (``ov.Parameter``),
  constants (``ov.Constant``, the same payload) and outputs (``ov.Result``);
* the converter call (:meth:`Legalizer.run_converter`: lookup through the
  hooks, outputs the converter does not produce) and one debug log line per
  node.

What differs between frameworks is a :class:`LegalizationHooks` object: how an
op's key, name, type and outputs are read (:meth:`~LegalizationHooks.describe`),
which ops are graph inputs, constants and outputs, which ops are walked at
all (TF: only what a graph output depends on; dead branches), how a
converter is found and its :class:`~xmo.passes.to_ov.builder.ConverterNode` made, the
tensor and friendly names of outputs. A new frontend writes one hooks class
and a thin pass around :func:`legalize`.
"""

from __future__ import annotations

import logging
from collections import ChainMap, defaultdict
from collections.abc import MutableMapping, Sequence
from dataclasses import dataclass, replace
from typing import ClassVar

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp, TensorType, UnrankedTensorType
from xdsl.ir import Attribute, Operation, SSAValue

from xmo.budget import ResourceLimitError
from xmo.errors import NodeError
from xmo.context import weight_store
from xmo.dialects.ov import ConstantOp, ParameterOp, ResultOp
from xmo.dialects.ov import element_types as et
from xmo.dialects.ov.base import OVOp, dims_of
from xmo.dialects.ov.weights import WeightStore
from xmo.passes.to_ov.builder import (
    Builder,
    NotConvertible,
    ConversionValue,
    ConverterNode,
    converter_outputs,
)
from xmo.passes.to_ov.registry import ConverterFn
from xmo.passes.to_ov.report import UnsupportedOpsError

log = logging.getLogger("xmo.convert")

#: what a framework value maps to during conversion (None: an absent optional input)
OVValue = SSAValue | ConversionValue | None


@dataclass(frozen=True)
class OpInfo:
    """A framework op as the driver reads it.

    ``key``: the op's group in the unsupported-ops report (``Relu``,
    ``com.example:Scale``); ``name``: the node name (friendly name of the op
    producing its output, prefix of the names of the others); ``op_type``:
    its type (the converter's ``node.type``); ``output_names``: one per
    result (the converter's ``node.output_names``; ``""`` for a nameless
    one); ``domain``/``version``: the registry key's (ONNX).
    """

    key: str
    name: str
    op_type: str
    output_names: Sequence[str]
    domain: str = ""
    version: int | None = None


@dataclass
class ValueScope:
    """The framework values visible to a node -> their ov values, the
    poisoned ones, and the legalization that converts them (a nested scope
    of a sub-graph sees the enclosing graphs' values through a ChainMap)."""

    values: MutableMapping[SSAValue, OVValue]
    poisoned: set[SSAValue]
    legalizer: Legalizer

    def nested(self, local: dict[SSAValue, OVValue]) -> ValueScope:
        """A scope whose own values are ``local``, seeing this one's too."""
        return ValueScope(ChainMap(local, self.values), self.poisoned, self.legalizer)  # type: ignore[arg-type]


class LegalizationHooks:
    """What one framework tells the shared driver (see the module docstring).

    The defaults suit a framework whose nodes have unique names and whose
    graph inputs, constants and outputs are plain ops; ONNX
    (:mod:`xmo.passes.onnx_to_ov.convert`) and TF
    (:mod:`xmo.passes.tf_to_ov.convert`) override what differs. A hooks
    object serves one conversion (it may keep state, e.g. TF's liveness).
    """

    #: the reason reported for an op that is not of this framework's dialect
    foreign_op_problem: ClassVar[str] = "not a graph op of this framework"
    #: the end of the reason reported for a graph input or constant whose type
    #: is not a tensor (``type <t> ...``)
    non_tensor_problem: ClassVar[str] = "is not a tensor"
    #: whether every distinct op producing a node output takes a friendly
    #: name (:meth:`friendly_name`), or only the first
    name_every_output_op: ClassVar[bool] = True

    # -- the walk ----------------------------------------------------------------------
    def start(self, ops: Sequence[Operation]) -> None:
        """Called once with the ops of the module body, before the walk."""

    def skip(self, op: Operation, lz: Legalizer) -> bool:
        """True when ``op`` is not converted (it may poison or map its results
        through ``lz``); called first for every op."""
        return False

    def graph_output(self, op: Operation) -> tuple[SSAValue, str, list[str]] | None:
        """For a graph output op: (the value, the output's name, tensor names
        the value takes); None for other ops."""
        return None

    def convert_source(self, op: Operation, lz: Legalizer) -> bool:
        """Convert ``op`` when it is a graph input, a constant or another op
        with no converter of its own (using ``lz.parameter``/``lz.constant``);
        False for other ops."""
        return False

    def is_node(self, op: Operation) -> bool:
        """Whether ``op`` is a node of this framework's dialect (others are
        reported with :attr:`foreign_op_problem`)."""
        raise NotImplementedError

    def describe(self, op: Operation, index: int) -> OpInfo:
        """How the driver reads node ``op`` (``index``: its position in its block)."""
        raise NotImplementedError

    # -- converting one node ------------------------------------------------------------------
    def unconvertible(self, op: Operation, info: OpInfo) -> str | None:
        """Why a node that depends on a failed one could not convert anyway
        (it is then reported too); None: it is only skipped."""
        return None

    def builder(self, store: WeightStore, info: OpInfo) -> Builder:
        """The builder a node's converter emits into."""
        return Builder(store, info.name)

    def prepare(self, op: Operation, info: OpInfo, scope: ValueScope) -> tuple[ConverterFn, ConverterNode]:
        """The converter of ``op`` and the node it gets; raise
        :class:`~xmo.passes.to_ov.builder.NotConvertible` when there is no
        converter (or the node cannot be given one)."""
        raise NotImplementedError

    def missing_output(self, op: Operation, info: OpInfo, index: int) -> str | None:
        """Why the node fails when its converter gives no value for output
        ``index``; None when that output is not needed."""
        if op.results[index].uses:
            return f"output {index} is not produced by the converter"
        return None

    def converted(self, op: Operation, info: OpInfo, outs: Sequence[OVValue]) -> None:
        """Called after a node converted (before its outputs are named)."""

    # -- names ----------------------------------------------------------------------------------
    def tensor_names(self, op: Operation, info: OpInfo, index: int) -> list[str]:
        """The tensor names output ``index`` gives the ov value replacing it."""
        name = info.output_names[index] if index < len(info.output_names) else ""
        return [name] if name else []

    def friendly_name(self, info: OpInfo, index: int, used: set[str]) -> str | None:
        """The friendly name of the op producing output ``index`` (``used``:
        the names given so far); None to keep the builder's name."""
        name = info.name if index == 0 else f"{info.name}:{index}"
        return None if name in used else name


class Legalizer:
    """The state of one legalization: the hooks, the weight store, the value
    scope, failures, emitted ops and the friendly names given."""

    def __init__(self, hooks: LegalizationHooks, store: WeightStore) -> None:
        self.hooks = hooks
        self.store = store
        self.scope = ValueScope({}, set(), self)
        #: node names of poisoned nodes (frameworks with control edges)
        self.poisoned_names: set[str] = set()
        self.failures: defaultdict[str, list[tuple[str, str]]] = defaultdict(list)
        self.new_ops: list[Operation] = []
        self.used_names: set[str] = set()

    @property
    def values(self) -> MutableMapping[SSAValue, OVValue]:
        return self.scope.values

    @property
    def poisoned(self) -> set[SSAValue]:
        return self.scope.poisoned

    # -- failures ------------------------------------------------------------------------
    def poison(self, op: Operation, name: str) -> None:
        """``op`` and what depends on it are not converted."""
        self.scope.poisoned.update(op.results)
        self.poisoned_names.add(name)

    def fail(self, key: str, name: str, why: str, op: Operation | None = None) -> None:
        """Report node ``name`` under ``key`` (and poison ``op``)."""
        self.failures[key].append((name, why))
        if op is not None:
            self.poison(op, name)

    def has_poisoned_input(self, op: Operation) -> bool:
        poisoned = self.scope.poisoned
        return any(v in poisoned for v in op.operands)

    # -- graph inputs, constants, outputs ------------------------------------------------------
    def tensor_type_problem(self, t: Attribute) -> str | None:
        """Why a value of type ``t`` cannot be an ov tensor (None when it can)."""
        if not isinstance(t, TensorType | UnrankedTensorType):
            return f"type {t} {self.hooks.non_tensor_problem}"
        if not et.is_ov_element_type(t.get_element_type()):
            return f"element type {t.get_element_type()} has no OpenVINO equivalent"
        return None

    def emit(self, op: Operation) -> None:
        self.new_ops.append(op)

    def parameter(
        self, op: Operation, *, key: str, name: str, tensor_names: list[str], claim_name: bool
    ) -> None:
        """``op``'s (only) result becomes a graph input named ``name``
        (``claim_name``: the name is taken for friendly names)."""
        t = op.results[0].type
        why = self.tensor_type_problem(t)
        if why:
            self.fail(key, name, why, op)
            return
        try:
            p = ParameterOp.new(
                et.from_xdsl(t.get_element_type()),  # type: ignore[union-attr]
                dims_of(t),
                name=name,
                tensor_names=tensor_names,
            )
        except ResourceLimitError as e:
            raise e.at(name, "Parameter") from None
        if claim_name:
            self.used_names.add(name)
        self.emit(p)
        self.values[op.results[0]] = p.results[0]

    @staticmethod
    def dense_constant(value: Attribute, name: str) -> ConstantOp:
        """An ``ov.Constant`` of a dense (inline or resource) value, named ``name``."""
        c = ConstantOp.create(result_types=[value.type], properties={"value": value})  # type: ignore[attr-defined]
        c.set_friendly_name(name)
        return c

    def constant(self, op: Operation, c: ConstantOp, *, claim_name: bool) -> None:
        """``c`` replaces ``op``'s (only) result (``claim_name``: its friendly
        name is taken for friendly names)."""
        name = c.get_friendly_name()
        if claim_name and name is not None:
            self.used_names.add(name)
        self.emit(c)
        self.values[op.results[0]] = c.results[0]

    def _graph_output(self, v: SSAValue, name: str, tensor_names: list[str]) -> None:
        if v in self.scope.poisoned:
            return
        mapped = self.values.get(v)
        if mapped is None:
            why = "output has no value"
        elif isinstance(mapped, ConversionValue):
            why = mapped.output_problem
        else:
            add_tensor_names(mapped, tensor_names)
            self.emit(ResultOp.new(mapped))
            return
        self.failures["graph output"].append((name, why))

    # -- nodes ----------------------------------------------------------------------------
    def run(self, module: ModuleOp) -> None:
        """Legalize ``module`` in place (raises :class:`UnsupportedOpsError`)."""
        hooks = self.hooks
        ops = list(module.body.block.ops)
        hooks.start(ops)
        for index, op in enumerate(ops):
            if hooks.skip(op, self):
                continue
            out = hooks.graph_output(op)
            if out is not None:
                self._graph_output(*out)
            elif hooks.convert_source(op, self):
                continue
            elif not hooks.is_node(op):
                self.fail(op.name, op.name, hooks.foreign_op_problem, op)
            else:
                self._convert_node(op, hooks.describe(op, index))
        if self.failures:
            raise UnsupportedOpsError(dict(self.failures))
        block = module.body.block
        for op in reversed(list(block.ops)):
            op.detach()
            op.erase(safe_erase=False)
        block.add_ops(self.new_ops)

    def _convert_node(self, op: Operation, info: OpInfo) -> None:
        hooks = self.hooks
        if self.has_poisoned_input(op):
            self.poison(op, info.name)
            why = hooks.unconvertible(op, info)
            if why is not None:
                self.fail(info.key, info.name, why, op)
            return
        b = hooks.builder(self.store, info)
        try:
            outs = self.run_converter(op, info, self.scope, b)
        except NotConvertible as e:
            self.fail(info.key, info.name, str(e), op)
            return
        except NodeError as e:
            raise e.at(info.name, info.op_type) from None
        self.new_ops.extend(b.ops)
        hooks.converted(op, info, outs)
        self._name_outputs(op, info, outs, set(b.ops))
        if log.isEnabledFor(logging.DEBUG):
            log.debug(
                "%s '%s' -> %d ov ops; outputs %s",
                info.op_type,
                info.name,
                len(b.ops),
                ", ".join(
                    f"{n or '-'}: {v.type if isinstance(v, SSAValue) else v.kind}"  # type: ignore[union-attr]
                    for n, v in zip(info.output_names, outs)
                    if v is not None
                ),
            )

    def run_converter(
        self, op: Operation, info: OpInfo, scope: ValueScope, b: Builder
    ) -> list[OVValue]:
        """Convert node ``op`` into ``b`` with the values of ``scope``: one
        entry per result (at least); raises
        :class:`~xmo.passes.to_ov.builder.NotConvertible`."""
        hooks = self.hooks
        fn, node = hooks.prepare(op, info, scope)
        if op.regions and any(r.blocks for r in op.regions) and not getattr(fn, "handles_regions", False):
            raise NotConvertible("sub-graph operations are not supported yet")
        outs = converter_outputs(fn(node, b))
        if len(outs) < len(op.results):
            outs += [None] * (len(op.results) - len(outs))
        for k, v in enumerate(outs[: len(op.results)]):
            if v is None:
                why = hooks.missing_output(op, info, k)
                if why is not None:
                    raise NotConvertible(why)
        return outs

    def convert_inner(
        self,
        op: Operation,
        info: OpInfo,
        scope: ValueScope,
        b: Builder,
        name: str,
        where: str,
    ) -> list[OVValue]:
        """Convert node ``op`` of a sub-graph (an ONNX sub-graph, a TF
        function) into ``b`` with the values of ``scope``: its ops are named
        after ``name`` (the first op giving an output takes ``name``); a
        :class:`~xmo.passes.to_ov.builder.NotConvertible` comes back as
        ``<where>: <why>``, a :class:`~xmo.errors.NodeError` names ``name``."""
        named = replace(info, name=name)
        inner = self.hooks.builder(self.store, named)
        try:
            outs = self.run_converter(op, named, scope, inner)
        except NotConvertible as e:
            raise NotConvertible(f"{where}: {e}") from None
        except NodeError as e:
            raise e.at(name, info.op_type) from None
        b.ops.extend(inner.ops)
        created = set(inner.ops)
        first = next((v for v in outs if isinstance(v, SSAValue) and v.owner in created), None)
        if first is not None and isinstance(first.owner, OVOp):
            first.owner.set_friendly_name(name)
        return outs

    def _name_outputs(
        self, op: Operation, info: OpInfo, outs: Sequence[OVValue], created: set[Operation]
    ) -> None:
        hooks = self.hooks
        values = self.scope.values
        named: set[Operation] = set()
        for k, (res, v) in enumerate(zip(op.results, outs)):
            if v is None:
                continue
            values[res] = v
            if not isinstance(v, SSAValue):
                continue  # lives only during conversion
            add_tensor_names(v, hooks.tensor_names(op, info, k))
            owner = v.owner
            if not isinstance(owner, OVOp) or owner not in created or owner in named:
                continue
            if named and not hooks.name_every_output_op:
                continue
            named.add(owner)
            fname = hooks.friendly_name(info, k, self.used_names)
            if fname is not None:
                owner.set_friendly_name(fname)
                self.used_names.add(fname)


def add_tensor_names(v: SSAValue, names: Sequence[str]) -> None:
    """Give the ov value ``v`` the tensor names of ``names`` it does not have."""
    owner = v.owner
    if not isinstance(owner, OVOp):
        return
    idx = v.index  # type: ignore[attr-defined]
    have = owner.get_tensor_names(idx)
    extra = [n for n in names if n and n not in have]
    if extra:
        owner.set_tensor_names(idx, [*have, *extra])


def legalize(module: ModuleOp, ctx: Context, hooks: LegalizationHooks) -> None:
    """Legalize ``module`` in place with a framework's ``hooks`` (raises
    :class:`~xmo.passes.to_ov.report.UnsupportedOpsError`, leaving the module
    untouched, when nodes cannot be converted)."""
    Legalizer(hooks, weight_store(ctx)).run(module)


__all__ = [
    "LegalizationHooks",
    "Legalizer",
    "OVValue",
    "OpInfo",
    "ValueScope",
    "add_tensor_names",
    "legalize",
]
