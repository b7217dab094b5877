"""``convert-onnx-to-ov``: legalize an ``onnx``-dialect module into the ``ov`` dialect.

Graph inputs become ``ov.Parameter``, initializers ``ov.Constant`` (the same
weight payload, no copy), graph outputs ``ov.Result``; every node goes through
the converter registered for its type and version (:mod:`.registry`; the
extractors of the extensions the conversion loaded first, for ``onnx.Custom``
nodes only those).

Names: the ONNX tensor name of each node output becomes a tensor name of the
ov value that replaces it, and the op producing the node's first output takes
the node's name as its friendly name (the other ops a converter emits are
named ``<node>/<Type>_<i>``).

Nodes that cannot be converted are collected; the pass then raises
:class:`UnsupportedOpsError` with one report listing every unconvertible op
type with its count and node names, and leaves the module untouched.
"""

from __future__ import annotations

import logging
from collections import ChainMap, defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import (
    DenseIntOrFPElementsAttr,
    DenseResourceAttr,
    ModuleOp,
    NoneType,
    TensorType,
    UnrankedTensorType,
)
from xdsl.ir import Block, Operation, Region, SSAValue
from xdsl.passes import ModulePass
from xmo.context import weight_store
from xmo.dialects.onnx import CustomOp, NoValueOp, ONNXOp
from xmo.dialects.onnx.base import InitializerOp, InputOp, OutputOp, YieldOp
from xmo.dialects.ov import ConstantOp, ParameterOp, ResultOp
from xmo.dialects.ov import element_types as et
from xmo.dialects.ov.base import OVOp, dims_of
from xmo.passes.onnx_to_ov.builder import Builder, ConversionFailure, Node, SeqValue
from xmo.passes.to_ov.builder import converter_outputs
from xmo.passes.to_ov.report import UnsupportedOpsError
from xmo.passes.onnx_canonicalize import aliases_of
from xmo.passes.onnx_to_ov.registry import lookup

log = logging.getLogger("xmo.convert")


def _tensor_type_ok(t) -> str | None:  # noqa: ANN001
    if not isinstance(t, TensorType | UnrankedTensorType):
        return f"type {t} is not a tensor"
    if not et.is_ov_element_type(t.get_element_type()):
        return f"element type {t.get_element_type()} has no OpenVINO equivalent"
    return None


@dataclass
class _Converter:
    ctx: Context

    def run(self, module: ModuleOp) -> None:
        store = weight_store(self.ctx)
        value_map: dict[SSAValue, SSAValue | None] = {}
        poisoned: set[SSAValue] = set()
        failures: dict[str, list[tuple[str, str]]] = defaultdict(list)
        new_ops: list[Operation] = []
        used_names: set[str] = set()

        def fail(key: str, name: str, why: str, op: Operation) -> None:
            failures[key].append((name, why))
            poisoned.update(op.results)

        for index, op in enumerate(module.body.block.ops):
            if isinstance(op, NoValueOp):
                value_map[op.results[0]] = None
            elif isinstance(op, InputOp):
                name = op.tensor_name.data
                t = op.results[0].type
                why = _tensor_type_ok(t)
                if why:
                    fail("graph input", name, why, op)
                    continue
                p = ParameterOp.new(
                    et.from_xdsl(t.get_element_type()),
                    dims_of(t),
                    name=name,
                    tensor_names=[name, *aliases_of(op, 0)],
                )
                new_ops.append(p)
                value_map[op.results[0]] = p.results[0]
            elif isinstance(op, InitializerOp):
                name = op.tensor_name.data
                c, why = _initializer_constant(op)
                if why:
                    fail("initializer", name, why, op)
                    continue
                c.set_tensor_names(0, [name, *aliases_of(op, 0)])
                new_ops.append(c)
                value_map[op.results[0]] = c.results[0]
            elif isinstance(op, OutputOp):
                v = op.operands[0]
                if v in poisoned:
                    continue
                mapped = value_map.get(v)
                if mapped is None or isinstance(mapped, SeqValue):
                    why = "sequence graph outputs are not supported" if mapped is not None else "output has no value"
                    failures["graph output"].append((op.tensor_name.data, why))
                    continue
                new_ops.append(ResultOp.new(mapped))
            elif isinstance(op, ONNXOp | CustomOp):
                self._convert_node(op, index, store, value_map, poisoned, fail, new_ops, used_names)
            else:
                fail(op.name, op.name, "not an ONNX graph op", op)

        if failures:
            raise UnsupportedOpsError(dict(failures))
        block = module.body.block
        for op in reversed(list(block.ops)):
            op.detach()
            op.erase(safe_erase=False)
        block.add_ops(new_ops)

    def _convert_node(self, op, index, store, value_map, poisoned, fail, new_ops, used_names):  # noqa: ANN001, PLR0913
        info = _NodeInfo.of(op, index)
        label, key, out_names = info.label, info.key, info.out_names
        if any(v in poisoned for v in op.operands):
            poisoned.update(op.results)
            return
        scope = _Scope(value_map, poisoned)
        b = Builder(store, label)
        try:
            outs = _run_converter(info, op, label, scope, b)
        except ConversionFailure as e:
            fail(key, label, str(e), op)
            return
        new_ops.extend(b.ops)
        created = set(b.ops)
        first_owner_named = False
        for i, (res, v) in enumerate(zip(op.results, outs)):
            if v is None:
                continue
            value_map[res] = v
            if isinstance(v, SeqValue):
                continue  # sequences live only during conversion
            owner = v.owner
            new_names = [n for n in [out_names[i], *aliases_of(op, i)] if n]
            if isinstance(owner, OVOp) and new_names:
                idx = v.index  # type: ignore[attr-defined]
                names = owner.get_tensor_names(idx)
                extra = [n for n in new_names if n not in names]
                if extra:
                    owner.set_tensor_names(idx, [*names, *extra])
            if isinstance(owner, OVOp) and owner in created and not first_owner_named:
                first_owner_named = True
                fname = label if label not in used_names else f"{label}:{i}"
                owner.set_friendly_name(fname)
                used_names.add(fname)
        if log.isEnabledFor(logging.DEBUG):
            log.debug(
                "%s '%s' -> %d ov ops; outputs %s",
                info.op_type,
                label,
                len(b.ops),
                ", ".join(
                    f"{n or '-'}: {v.type if isinstance(v, SSAValue) else 'sequence'}"
                    for n, v in zip(out_names, outs)
                    if v is not None
                ),
            )


@dataclass(frozen=True)
class _NodeInfo:
    domain: str
    op_type: str
    version: int
    out_names: list[str]
    label: str
    key: str

    @staticmethod
    def of(op: Operation, index: int) -> _NodeInfo:
        if isinstance(op, CustomOp):
            domain, op_type, version = op.domain.data, op.op_type.data, op.version.value.data
        else:
            domain, op_type, version = op.ONNX_DOMAIN, op.ONNX_TYPE, op.SINCE_VERSION
        out_names = (
            [s.data for s in op.output_names.data] if op.output_names is not None else []
        )
        out_names += [""] * (len(op.results) - len(out_names))
        node_name = op.node_name.data if op.node_name is not None else ""
        label = node_name or next((n for n in out_names if n), f"{op_type}_{index}")
        key = f"{domain + ':' if domain not in ('', 'ai.onnx') else ''}{op_type}"
        return _NodeInfo(domain, op_type, version, out_names, label, key)


@dataclass
class _Scope:
    """ONNX values visible to a node (enclosing graphs included) -> ov values."""

    values: Mapping[SSAValue, SSAValue | SeqValue | None]
    poisoned: set[SSAValue]


def _initializer_constant(op: InitializerOp) -> tuple[ConstantOp | None, str | None]:
    value = op.value
    why = _tensor_type_ok(op.results[0].type)
    if why is None and not isinstance(value, DenseIntOrFPElementsAttr | DenseResourceAttr):
        why = "only dense tensors can be constants"
    if why:
        return None, why
    c = ConstantOp.create(result_types=[value.type], properties={"value": value})
    c.set_friendly_name(op.tensor_name.data)
    return c, None


def _run_converter(  # noqa: PLR0913
    info: _NodeInfo, op: Operation, name: str, scope: _Scope, b: Builder
) -> list[SSAValue | SeqValue | None]:
    """Convert one node into ``b``; raises :class:`ConversionFailure`."""
    # onnx.Custom (no schema xmo knows): only extensions' extractors apply
    fn = lookup(info.domain, info.op_type, info.version, builtins=not isinstance(op, CustomOp))
    if fn is None:
        raise ConversionFailure(
            "unknown operation"
            if isinstance(op, CustomOp)
            else f"no converter for opset version {info.version}"
        )
    if op.regions and any(r.blocks for r in op.regions) and not getattr(fn, "handles_regions", False):
        raise ConversionFailure("sub-graph operations are not supported yet")
    inputs = [scope.values.get(v) for v in op.operands]
    node = Node(op, inputs, name, info.domain, info.op_type, info.version, info.out_names)
    node.scope = scope  # type: ignore[attr-defined]  # for convert_block
    outs = converter_outputs(fn(node, b))
    if len(outs) < len(op.results):
        outs += [None] * (len(op.results) - len(outs))
    for i, (res, v) in enumerate(zip(op.results, outs)):
        if v is None and info.out_names[i] and res.uses:
            raise ConversionFailure(f"output {i} is not produced by the converter")
    return outs


def convert_block(
    node: Node,
    b: Builder,
    region: Region | Block,
    args: Sequence[SSAValue | SeqValue | None],
    prefix: str | None = None,
) -> list[SSAValue | SeqValue | None]:
    """Inline a sub-graph: convert the ops of ``region``'s block into ``b``.

    For converters with ``handles_regions = True``. ``args`` are the ov values
    of the block arguments (the sub-graph inputs); values of enclosing graphs
    resolve through the scope of ``node``. Inner ops are named
    ``<prefix>/<inner node>`` (``prefix`` defaults to the node's name).
    Returns the ov values of the ``onnx.Yield`` operands (the sub-graph
    outputs); raises :class:`ConversionFailure` when an inner node fails.
    """
    outer: _Scope | None = getattr(node, "scope", None)
    if outer is None:
        raise ConversionFailure("sub-graph conversion needs the converter's scope")
    block = region.block if isinstance(region, Region) else region
    if len(args) != len(block.args):
        raise ConversionFailure(
            f"sub-graph has {len(block.args)} inputs, {len(args)} values given"
        )
    prefix = node.name if prefix is None else prefix
    local: dict[SSAValue, SSAValue | SeqValue | None] = dict(zip(block.args, args))
    scope = _Scope(ChainMap(local, outer.values), outer.poisoned)  # type: ignore[arg-type]

    def get(v: SSAValue) -> SSAValue | SeqValue | None:
        if v in outer.poisoned:
            raise ConversionFailure("sub-graph uses a value that could not be converted")
        if v not in scope.values and not isinstance(v.type, NoneType):
            raise ConversionFailure("sub-graph uses a value with no conversion")
        return scope.values.get(v)

    for index, op in enumerate(block.ops):
        if isinstance(op, YieldOp):
            return [get(v) for v in op.operands]
        if isinstance(op, NoValueOp):
            local[op.results[0]] = None
        elif isinstance(op, InitializerOp):
            c, why = _initializer_constant(op)
            if why or c is None:
                raise ConversionFailure(f"sub-graph initializer '{op.tensor_name.data}': {why}")
            c.set_friendly_name(f"{prefix}/{op.tensor_name.data}")
            b.ops.append(c)
            local[op.results[0]] = c.results[0]
        elif isinstance(op, ONNXOp | CustomOp):
            info = _NodeInfo.of(op, index)
            for v in op.operands:
                get(v)
            name = f"{prefix}/{info.label}"
            inner = Builder(b.store, name)
            try:
                outs = _run_converter(info, op, name, scope, inner)
            except ConversionFailure as e:
                raise ConversionFailure(
                    f"sub-graph node '{info.label}' ({info.key}): {e}"
                ) from None
            b.ops.extend(inner.ops)
            created = set(inner.ops)
            for res, v in zip(op.results, outs):
                local[res] = v
            first = next(
                (v for v in outs if isinstance(v, SSAValue) and v.owner in created), None
            )
            if first is not None and isinstance(first.owner, OVOp):
                first.owner.set_friendly_name(name)
        else:
            raise ConversionFailure(f"sub-graph op {op.name} is not an ONNX graph op")
    raise ConversionFailure("sub-graph does not end with onnx.Yield")


@dataclass(frozen=True)
class ConvertONNXToOVPass(ModulePass):
    """Legalize the onnx dialect into the ov dialect (see module docstring)."""

    name = "convert-onnx-to-ov"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        _Converter(ctx).run(op)


def convert_onnx_to_ov(module: ModuleOp, ctx: Context) -> None:
    """Legalize ``module`` in place (raises :class:`UnsupportedOpsError`)."""
    _Converter(ctx).run(module)


__all__: Sequence[str] = [
    "ConvertONNXToOVPass",
    "UnsupportedOpsError",
    "convert_block",
    "convert_onnx_to_ov",
]
