"""``convert-mxnet-to-ov``: legalize an ``mxnet``-dialect module into the ``ov`` dialect.

The shared driver (:mod:`xmo.passes.to_ov.driver`) does the walk, the value
map, the report and the naming; :class:`MXNetHooks` says what is MXNet's:

* ``mxnet.Var`` becomes ``ov.Parameter`` (a graph input) or ``ov.Constant``
  (a parameter of the ``.params`` file, the same mapped payload); a label
  variable that only loss layers use (``softmax_label``) is no graph input:
  it maps to an absent input;
* ``mxnet.Output`` becomes ``ov.Result``;
* ``mxnet.Node`` goes through the converter of its operator (:mod:`.registry`);
  a ``Custom`` node through the converter of ``Custom:<op_type>``, which only
  an extension provides: without one it is reported under that key.

Names: output ``k`` of node ``n`` gives the ov value the tensor names
``n``, ``n_output``, ``n_output0`` (k = 0) or ``n_output<k>``; the op producing
output 0 takes ``n`` as friendly name.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Operation, SSAValue
from xdsl.passes import ModulePass

from xmo.dialects.mxnet import NodeOp, OutputOp, VarOp
from xmo.frontends.mxnet.loader import LOSS_OPS, output_names
from xmo.passes.mxnet_to_ov.registry import custom_key, lookup
from xmo.passes.to_ov.builder import AttributeReader, ConverterNode, NotConvertible
from xmo.passes.to_ov.driver import LegalizationHooks, Legalizer, OpInfo, ValueScope, legalize
from xmo.passes.to_ov.registry import ConverterFn


class MXNetAttributes(AttributeReader):
    """MXNet attributes: the strings of the node's ``attrs`` (no defaults:
    converters give MXNet's, see :mod:`.attrs`)."""

    def value(self, op: Operation, name: str, default):  # noqa: ANN001, ANN201
        if isinstance(op, NodeOp):
            return op.attr(name, default)
        return default

    def raw(self, op: Operation, name: str):  # noqa: ANN201
        return op.attrs.data.get(name) if isinstance(op, NodeOp) else None


#: the attribute reader of ``mxnet`` nodes
MXNET_ATTRIBUTES = MXNetAttributes()


def report_key(op: NodeOp) -> str:
    """The registry key and report group of a node (``Custom:<op_type>`` for Custom)."""
    if op.mx_type == "Custom":
        return custom_key(op.attr("op_type", "") or "?")
    return op.mx_type


def is_label(op: VarOp) -> bool:
    """A variable that only loss layers use, as their label (not their data)."""
    uses = list(op.out.uses)
    return bool(uses) and all(
        isinstance(u.operation, NodeOp) and u.operation.mx_type in LOSS_OPS and u.index > 0
        for u in uses
    )


class MXNetHooks(LegalizationHooks):
    """What is MXNet's in the legalization (see the module docstring)."""

    foreign_op_problem = "not an MXNet graph op"

    def skip(self, op: Operation, lz: Legalizer) -> bool:
        if isinstance(op, VarOp) and not op.is_param and (not op.out.uses or is_label(op)):
            lz.values[op.out] = None  # an absent input of the loss layers
            return True
        return False

    def graph_output(self, op: Operation) -> tuple[SSAValue, str, list[str]] | None:
        if not isinstance(op, OutputOp):
            return None
        name = op.tensor_name.data
        return op.value, name, [name]

    def convert_source(self, op: Operation, lz: Legalizer) -> bool:
        if not isinstance(op, VarOp):
            return False
        name = op.node_name.data
        if not op.is_param:
            lz.parameter(op, key="Input", name=name, tensor_names=[name], claim_name=True)
            return True
        why = lz.tensor_type_problem(op.out.type)
        if why:
            lz.fail("Parameter", name, why, op)
            return True
        c = lz.dense_constant(op.value, name)
        c.set_tensor_names(0, [name])
        lz.constant(op, c, claim_name=True)
        return True

    def is_node(self, op: Operation) -> bool:
        return isinstance(op, NodeOp)

    def describe(self, op: Operation, index: int) -> OpInfo:
        assert isinstance(op, NodeOp)
        name = op.node_name.data
        return OpInfo(report_key(op), name, op.mx_type,
                      [output_names(name, k)[1] for k in range(len(op.results))])

    def unconvertible(self, op: Operation, info: OpInfo) -> str | None:
        if lookup(info.key) is None:
            return _no_converter(info)  # the report lists it although its input failed
        return None

    def prepare(self, op: Operation, info: OpInfo, scope: ValueScope) -> tuple[ConverterFn, ConverterNode]:
        inputs = [scope.values.get(v) for v in op.operands]
        node = ConverterNode(op, inputs, info.name, info.op_type, info.output_names,
                             attributes=MXNET_ATTRIBUTES, scope=scope)
        fn = lookup(info.key)
        if fn is None:
            raise NotConvertible(_no_converter(info))
        return fn, node

    def tensor_names(self, op: Operation, info: OpInfo, index: int) -> list[str]:
        return output_names(info.name, index)


def _no_converter(info: OpInfo) -> str:
    if info.key.startswith("Custom:"):
        return (f"custom operator '{info.key.removeprefix('Custom:')}': no extension provides "
                "its extractor (--extensions DIR with front/mxnet/)")
    return "no converter for this operator"


@dataclass(frozen=True)
class ConvertMXNetToOVPass(ModulePass):
    """Legalize the mxnet dialect into the ov dialect (see module docstring)."""

    name = "convert-mxnet-to-ov"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        convert_mxnet_to_ov(op, ctx)


def convert_mxnet_to_ov(module: ModuleOp, ctx: Context) -> None:
    """Legalize ``module`` in place (raises
    :class:`~xmo.passes.to_ov.report.UnsupportedOpsError`)."""
    legalize(module, ctx, MXNetHooks())


__all__: Sequence[str] = [
    "MXNET_ATTRIBUTES",
    "ConvertMXNetToOVPass",
    "MXNetAttributes",
    "MXNetHooks",
    "convert_mxnet_to_ov",
    "is_label",
    "report_key",
]
