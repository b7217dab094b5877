"""``convert-kaldi-to-ov``: legalize a ``kaldi``-dialect module into ``ov``.

The shared driver does the walk, the value map, the report and the names;
:class:`KaldiHooks` says what is Kaldi's: ``kaldi.Input`` becomes an
``ov.Parameter`` (``[frames, features]``), ``kaldi.Output`` an
``ov.Result``, a ``kaldi.Component`` goes to the converter of its component
type and a ``kaldi.Descriptor`` to the converter of its kind; a component
type without a converter (or that the dialect does not know) is reported.
Friendly and tensor names are the node names (descriptor ops of a node are
named ``<node>/<Type>_<i>``).

The hooks keep the time margins of every converted value (see
:mod:`xmo.passes.kaldi_to_ov`) and give them to the converters through
:class:`KaldiNode`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from xdsl.context import Context
from xdsl.dialects.builtin import DictionaryAttr, FloatAttr, IntegerAttr, IntegerType, ModuleOp, StringAttr
from xdsl.ir import Attribute, Operation, SSAValue
from xdsl.passes import ModulePass

from xmo.dialects.kaldi import (
    COMPONENTS,
    ComponentOp,
    DescriptorOp,
    InputOp,
    OutputOp,
    recurrence_groups,
)
from xmo.dialects.ov.weights import constant_array
from xmo.passes.kaldi_to_ov.frames import Margins
from xmo.passes.kaldi_to_ov.recurrence import convert_loop
from xmo.passes.kaldi_to_ov.registry import lookup
from xmo.passes.to_ov.builder import AttributeReader, ConverterNode, NotConvertible
from xmo.passes.to_ov.driver import LegalizationHooks, Legalizer, OpInfo, ValueScope, legalize
from xmo.passes.to_ov.registry import ConverterFn



class KaldiAttributes(AttributeReader):
    """Component fields (``kaldi.Component`` ``fields``) as Python values:
    ints, floats, bools, numpy arrays."""

    def raw(self, op: Operation, name: str) -> Attribute | None:
        f = op.properties.get("fields")
        return f.data.get(name) if isinstance(f, DictionaryAttr) else None

    def value(self, op: Operation, name: str, default: Any) -> Any:
        a = self.raw(op, name)
        if a is None:
            return default
        if isinstance(a, IntegerAttr):
            v = a.value.data
            return bool(v) if isinstance(a.type, IntegerType) and a.type.width.data == 1 else int(v)
        if isinstance(a, FloatAttr):
            return float(a.value.data)
        if isinstance(a, StringAttr):
            return a.data
        try:
            return constant_array(a)
        except (TypeError, ValueError):
            return a


KALDI_ATTRIBUTES = KaldiAttributes()


class KaldiNode(ConverterNode):
    """A converter node that also knows the time margins of its inputs
    (``margins``) and takes those of its output (``out_margins``; by default
    those of input 0: a frame-wise component)."""

    def __init__(self, *args: Any, margins: Sequence[Margins], **kw: Any) -> None:
        super().__init__(*args, **kw)
        self.margins = list(margins)
        self.out_margins: Margins = self.margins[0] if self.margins else (0, 0)

    def args(self) -> list[float]:
        """The numbers of a descriptor (``kaldi.Descriptor`` ``args``)."""
        a = self.op.properties.get("args")
        return [] if a is None else [x.value.data for x in a.data]  # type: ignore[attr-defined]


def _name(op: Operation) -> str:
    n = op.properties.get("node_name")
    return n.data if isinstance(n, StringAttr) else op.name


class KaldiHooks(LegalizationHooks):
    """What is Kaldi's in the legalization (see the module docstring)."""

    foreign_op_problem = "not a Kaldi network op"

    def __init__(self) -> None:
        self.margins: dict[SSAValue, Margins] = {}
        self.node: KaldiNode | None = None
        #: converting the body of a recurrent loop (one frame: no margins)
        self.in_body = False
        self.loops: dict[Operation, list[Operation]] = {}

    def start(self, ops: Sequence[Operation]) -> None:
        for loop in recurrence_groups(ops):
            for op in loop:
                self.loops[op] = loop

    def skip(self, op: Operation, lz: Legalizer) -> bool:
        loop = self.loops.get(op)
        if loop is None:
            return False
        if op is loop[0]:
            convert_loop(self, lz, loop)
        return True

    def graph_output(self, op: Operation) -> tuple[SSAValue, str, list[str]] | None:
        if not isinstance(op, OutputOp):
            return None
        name = _name(op)
        return op.value, name, [name]

    def convert_source(self, op: Operation, lz: Legalizer) -> bool:
        if not isinstance(op, InputOp):
            return False
        name = _name(op)
        lz.parameter(op, key="Input", name=name, tensor_names=[name], claim_name=True)
        self.margins[op.results[0]] = (0, 0)
        return True

    def is_node(self, op: Operation) -> bool:
        return isinstance(op, ComponentOp | DescriptorOp)

    def describe(self, op: Operation, index: int) -> OpInfo:
        name = _name(op)
        if isinstance(op, ComponentOp):
            t = op.component_type.data
            return OpInfo(t, name, t, [name])
        kind = op.kind.data  # type: ignore[attr-defined]
        return OpInfo(kind, f"{name}/{kind}_{index}", kind, [""])

    def unconvertible(self, op: Operation, info: OpInfo) -> str | None:
        if isinstance(op, ComponentOp) and lookup(info.op_type) is None:
            return _no_converter(info.op_type)  # reported even after a failed input
        return None

    def prepare(self, op: Operation, info: OpInfo, scope: ValueScope) -> tuple[ConverterFn, ConverterNode]:
        if isinstance(op, DescriptorOp) and info.op_type == "Recurrent":
            raise NotConvertible(
                f"recurrent connection to '{op.target.data if op.target else '?'}' "  # type: ignore[union-attr]
                "(IfDefined(Offset(...)) of a node computed later) is not supported"
            )
        fn = lookup(info.op_type)
        if fn is None:
            raise NotConvertible(_no_converter(info.op_type) if isinstance(op, ComponentOp)
                                 else "descriptor not supported")
        inputs = [scope.values.get(v) for v in op.operands]
        if any(v is None for v in inputs):
            raise NotConvertible("an input has no value")
        node = KaldiNode(op, inputs, info.name, info.op_type, info.output_names,
                         attributes=KALDI_ATTRIBUTES, scope=scope,
                         margins=[(0, 0) if self.in_body else self.margins.get(v, (0, 0))
                                  for v in op.operands])
        self.node = node
        return fn, node

    def converted(self, op: Operation, info: OpInfo, outs: Sequence[Any]) -> None:
        assert self.node is not None
        self.margins[op.results[0]] = self.node.out_margins

    def friendly_name(self, info: OpInfo, index: int, used: set[str]) -> str | None:
        return None if info.name in used else info.name


def _no_converter(component_type: str) -> str:
    if component_type not in COMPONENTS:
        return "unknown component type"
    return "no converter for this component"


@dataclass(frozen=True)
class ConvertKaldiToOVPass(ModulePass):
    """Legalize the kaldi dialect into the ov dialect (see the module docstring)."""

    name = "convert-kaldi-to-ov"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        convert_kaldi_to_ov(op, ctx)


def convert_kaldi_to_ov(module: ModuleOp, ctx: Context) -> dict[str, Margins]:
    """Legalize ``module`` in place; returns each graph output's time margins
    (raises :class:`~xmo.passes.to_ov.report.UnsupportedOpsError`)."""
    hooks = KaldiHooks()
    outs = [(_name(op), op.value) for op in module.body.block.ops if isinstance(op, OutputOp)]
    legalize(module, ctx, hooks)
    return {name: hooks.margins.get(v, (0, 0)) for name, v in outs}


__all__ = ["KALDI_ATTRIBUTES", "ConvertKaldiToOVPass", "KaldiAttributes", "KaldiHooks",
           "KaldiNode", "Margins", "convert_kaldi_to_ov"]
