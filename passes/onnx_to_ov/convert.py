"""``convert-onnx-to-ov``: legalize an ``onnx``-dialect module into the ``ov`` dialect.

The shared driver (:mod:`xmo.passes.to_ov.driver`) does the walk, the value
map, the report and the naming; :class:`ONNXHooks` says what is ONNX's:

Graph inputs become ``ov.Parameter``, initializers ``ov.Constant`` (the same
weight payload, no copy), graph outputs ``ov.Result``; every node goes through
the converter registered for its type and version (:mod:`.registry`; the
extractors of the extensions the conversion loaded first, for ``onnx.Custom``
nodes only those). Nodes with sub-graphs (If, Loop, Scan) have converters
that inline them with :func:`convert_block`, or make them the bodies of ov
control-flow ops with :func:`convert_body` (a sub-graph's outer values become
body Parameters); ONNX sequences live in
:class:`~xmo.passes.to_ov.builder.SeqValue` during conversion.

Names: the ONNX tensor name of each node output becomes a tensor name of the
ov value that replaces it, and the op producing the node's first output takes
the node's name as its friendly name (the other ops a converter emits are
named ``<node>/<Type>_<i>``).

Nodes that cannot be converted are collected; the pass then raises
:class:`~xmo.passes.to_ov.report.UnsupportedOpsError` with one report listing
every unconvertible op type with its count and node names, and leaves the
module untouched.
"""

from __future__ import annotations

from collections import ChainMap
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import (
    DenseIntOrFPElementsAttr,
    DenseResourceAttr,
    ModuleOp,
    NoneType,
)
from xdsl.ir import Block, Operation, Region, SSAValue
from xdsl.passes import ModulePass
from xmo.dialects.onnx import CustomOp, NoValueOp, ONNXOp, op_versions
from xmo.dialects.onnx.base import InitializerOp, InputOp, OutputOp, YieldOp
from xmo.dialects.ov import ConstantOp, ParameterOp
from xmo.passes.onnx_canonicalize import aliases_of
from xmo.passes.onnx_to_ov.builder import ONNX_ATTRIBUTES
from xmo.passes.onnx_to_ov.registry import lookup
from xmo.passes.to_ov.bodies import Body, BodyCapture, assemble_body
from xmo.passes.to_ov.builder import Builder, NotConvertible, ConverterNode
from xmo.passes.to_ov.driver import (
    LegalizationHooks,
    Legalizer,
    OpInfo,
    OVValue,
    ValueScope,
    legalize,
)
from xmo.passes.to_ov.registry import ConverterFn


class ONNXHooks(LegalizationHooks):
    """What is ONNX's in the legalization (see the module docstring)."""

    foreign_op_problem = "not an ONNX graph op"
    non_tensor_problem = "is not a tensor"
    #: only the op producing the first converted output takes the node name
    name_every_output_op = False

    def graph_output(self, op: Operation) -> tuple[SSAValue, str, list[str]] | None:
        if isinstance(op, OutputOp):
            return op.operands[0], op.tensor_name.data, []
        return None

    def convert_source(self, op: Operation, lz: Legalizer) -> bool:
        if isinstance(op, NoValueOp):
            lz.values[op.results[0]] = None
        elif isinstance(op, InputOp):
            name = op.tensor_name.data
            lz.parameter(op, key="graph input", name=name,
                         tensor_names=[name, *aliases_of(op, 0)], claim_name=False)
        elif isinstance(op, InitializerOp):
            c, why = initializer_constant(lz, op)
            if why or c is None:
                lz.fail("initializer", op.tensor_name.data, why or "no value", op)
            else:
                c.set_tensor_names(0, [op.tensor_name.data, *aliases_of(op, 0)])
                lz.constant(op, c, claim_name=False)
        else:
            return False
        return True

    def is_node(self, op: Operation) -> bool:
        return isinstance(op, ONNXOp | CustomOp)

    def describe(self, op: Operation, index: int) -> OpInfo:
        if isinstance(op, CustomOp):
            domain, op_type, version = op.domain.data, op.op_type.data, op.version.value.data
        else:
            domain, op_type, version = op.ONNX_DOMAIN, op.ONNX_TYPE, op.SINCE_VERSION  # type: ignore[attr-defined]
        names = op.output_names  # type: ignore[attr-defined]
        out_names = [s.data for s in names.data] if names is not None else []
        out_names += [""] * (len(op.results) - len(out_names))
        node_name = op.node_name.data if op.node_name is not None else ""  # type: ignore[attr-defined]
        label = node_name or next((n for n in out_names if n), f"{op_type}_{index}")
        key = f"{domain + ':' if domain not in ('', 'ai.onnx') else ''}{op_type}"
        return OpInfo(key, label, op_type, out_names, domain, version)

    def prepare(self, op: Operation, info: OpInfo, scope: ValueScope) -> tuple[ConverterFn, ConverterNode]:
        # onnx.Custom: an op newer than its opset import has only extensions'
        # extractors; an op type with no ONNX schema at all (com.microsoft's
        # contrib ops) also built-in converters, keyed by the domain's opset version
        custom = isinstance(op, CustomOp)
        builtins = not custom or not op_versions(info.domain, info.op_type)  # type: ignore[arg-type]
        fn = lookup(info.domain, info.op_type, info.version, builtins=builtins)  # type: ignore[arg-type]
        if fn is None:
            raise NotConvertible(_no_converter(custom, info))
        inputs = [scope.values.get(v) for v in op.operands]
        node = ConverterNode(
            op, inputs, info.name, info.op_type, info.output_names,
            domain=info.domain, version=info.version, attributes=ONNX_ATTRIBUTES, scope=scope,
        )
        return fn, node

    def missing_output(self, op: Operation, info: OpInfo, index: int) -> str | None:
        if info.output_names[index] and op.results[index].uses:
            return f"output {index} is not produced by the converter"
        return None

    def tensor_names(self, op: Operation, info: OpInfo, index: int) -> list[str]:
        return [n for n in [info.output_names[index], *aliases_of(op, index)] if n]

    def friendly_name(self, info: OpInfo, index: int, used: set[str]) -> str | None:
        return info.name if info.name not in used else f"{info.name}:{index}"


def _no_converter(custom: bool, info: OpInfo) -> str:
    """The reason a node without a converter is refused."""
    if not custom:
        return f"no converter for opset version {info.version}"
    if info.domain == "com.microsoft":
        return (f"xmo has no converter for onnxruntime's contrib op com.microsoft:{info.op_type} "
                "(see README, 'com.microsoft')")  # fmt: skip
    return "unknown operation"


def initializer_constant(lz: Legalizer, op: InitializerOp) -> tuple[ConstantOp | None, str | None]:
    """The ``ov.Constant`` of an initializer (named after it), or why there is none."""
    value = op.value
    why = lz.tensor_type_problem(op.results[0].type)
    if why is None and not isinstance(value, DenseIntOrFPElementsAttr | DenseResourceAttr):
        why = "only dense tensors can be constants"
    if why:
        return None, why
    return lz.dense_constant(value, op.tensor_name.data), None


def convert_block(
    node: ConverterNode,
    b: Builder,
    region: Region | Block,
    args: Sequence[OVValue],
    prefix: str | None = None,
    scope: ValueScope | None = None,
) -> list[OVValue]:
    """Inline a sub-graph: convert the ops of ``region``'s block into ``b``.

    For converters with ``handles_regions = True``. ``args`` are the ov values
    of the block arguments (the sub-graph inputs); values of enclosing graphs
    resolve through the scope of ``node``. Inner ops are named
    ``<prefix>/<inner node>`` (``prefix`` defaults to the node's name).
    Returns the ov values of the ``onnx.Yield`` operands (the sub-graph
    outputs); raises :class:`~xmo.passes.to_ov.builder.NotConvertible` when an inner node fails.
    ``scope``: the scope the sub-graph sees (default: the node's; a body's
    capturing scope from :func:`convert_body`).
    """
    outer: ValueScope | None = node.scope if scope is None else scope
    if outer is None:
        raise NotConvertible("sub-graph conversion needs the converter's scope")
    block = region.block if isinstance(region, Region) else region
    if len(args) != len(block.args):
        raise NotConvertible(
            f"sub-graph has {len(block.args)} inputs, {len(args)} values given"
        )
    prefix = node.name if prefix is None else prefix
    local: dict[SSAValue, OVValue] = dict(zip(block.args, args))
    scope = outer.nested(local)
    lz = outer.legalizer

    def get(v: SSAValue) -> OVValue:
        if v in outer.poisoned:
            raise NotConvertible("sub-graph uses a value that could not be converted")
        if v not in scope.values and not isinstance(v.type, NoneType):
            raise NotConvertible("sub-graph uses a value with no conversion")
        return scope.values.get(v)

    for index, op in enumerate(block.ops):
        if isinstance(op, YieldOp):
            return [get(v) for v in op.operands]
        if isinstance(op, NoValueOp):
            local[op.results[0]] = None
        elif isinstance(op, InitializerOp):
            c, why = initializer_constant(lz, op)
            if why or c is None:
                raise NotConvertible(f"sub-graph initializer '{op.tensor_name.data}': {why}")
            c.set_friendly_name(f"{prefix}/{op.tensor_name.data}")
            b.ops.append(c)
            local[op.results[0]] = c.results[0]
        elif isinstance(op, ONNXOp | CustomOp):
            info = lz.hooks.describe(op, index)
            for v in op.operands:
                get(v)
            outs = lz.convert_inner(
                op, info, scope, b, f"{prefix}/{info.name}",
                f"sub-graph node '{info.name}' ({info.key})",
            )
            for res, v in zip(op.results, outs):
                local[res] = v
        else:
            raise NotConvertible(f"sub-graph op {op.name} is not an ONNX graph op")
    raise NotConvertible("sub-graph does not end with onnx.Yield")


class _Capture(Mapping[SSAValue, OVValue]):
    """The outer values a body sees: each outer ONNX value looked up is
    captured (:class:`~xmo.passes.to_ov.bodies.BodyCapture`: a cloned
    Constant, or a body Parameter the op feeds)."""

    def __init__(self, outer: ValueScope, capture: BodyCapture) -> None:
        self.outer = outer
        self.capture = capture

    def __contains__(self, v: object) -> bool:
        return v in self.outer.values

    def __getitem__(self, v: SSAValue) -> OVValue:
        mapped = self.outer.values[v]
        if mapped is None:
            return None
        if not isinstance(mapped, SSAValue):
            raise NotConvertible(f"a body uses an outer {mapped.kind} (only tensors are passed in)")  # type: ignore[attr-defined]
        return self.capture.value(mapped)

    def __iter__(self) -> Iterator[SSAValue]:
        return iter(self.outer.values)

    def __len__(self) -> int:
        return len(self.outer.values)


def convert_body(
    node: ConverterNode,
    region: Region,
    input_params: Sequence[ParameterOp],
    prefix: str,
    outputs: Callable[[Builder, list[OVValue]], Sequence[SSAValue]] | None = None,
    *,
    arg_values: Sequence[OVValue] | None = None,
    extra_ops: Sequence[Operation] = (),
) -> Body:
    """Legalize the sub-graph ``region`` into an ov body region: its block
    arguments are fed from ``input_params`` (the body's first Parameters, made
    by the caller), or from ``arg_values`` when given (values of those
    Parameters or of ``extra_ops``, ops the caller made for the body), outer values it uses become more Parameters (or cloned
    Constants), its outputs ``ov.Result`` s (``outputs`` may rewrite them,
    emitting into the body's builder, e.g. an Unsqueeze of scan outputs).
    Nested sub-graphs capture through this body."""
    outer: ValueScope | None = node.scope
    if outer is None:
        raise NotConvertible("sub-graph conversion needs the converter's scope")
    capture = BodyCapture(prefix)
    scope = ValueScope(ChainMap({}, _Capture(outer, capture)), outer.poisoned, outer.legalizer)  # type: ignore[arg-type]
    inner = Builder(outer.legalizer.store, prefix)
    args: list[OVValue] = (
        [p.results[0] for p in input_params] if arg_values is None else list(arg_values)
    )
    outs = convert_block(node, inner, region, args, prefix, scope)
    if outputs is not None:
        vals = list(outputs(inner, outs))
    else:
        vals = []
        for i, v in enumerate(outs):
            if not isinstance(v, SSAValue):
                raise NotConvertible(f"sub-graph output {i} is not a tensor")
            vals.append(v)
    return assemble_body(input_params, capture, inner.ops, vals, extra_ops)


@dataclass(frozen=True)
class ConvertONNXToOVPass(ModulePass):
    """Legalize the onnx dialect into the ov dialect (see module docstring)."""

    name = "convert-onnx-to-ov"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        convert_onnx_to_ov(op, ctx)


def convert_onnx_to_ov(module: ModuleOp, ctx: Context) -> None:
    """Legalize ``module`` in place (raises
    :class:`~xmo.passes.to_ov.report.UnsupportedOpsError`)."""
    legalize(module, ctx, ONNXHooks())


__all__: Sequence[str] = [
    "ConvertONNXToOVPass",
    "ONNXHooks",
    "convert_block",
    "convert_body",
    "convert_onnx_to_ov",
]
