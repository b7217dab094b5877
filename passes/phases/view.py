"""A dialect-neutral view of a module for phase transformations.

Front transformations see framework-dialect ops (``tf``, ``onnx``), middle and
back ones ``ov`` ops; :class:`OpView` gives both the same face: ``type`` (the
framework or IR op type), ``name`` (node / friendly name), ``attr(k)``,
``in_node(i)``, ``const(i)`` (numpy value of a constant input), ``out_nodes``.
:class:`ModuleView` lists ops, replaces values and removes dead ops.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import numpy as np
from xdsl.dialects.builtin import ModuleOp, StringAttr
from xdsl.ir import Block, Operation, SSAValue


def op_type(op: Operation) -> str:
    """Framework or IR type of an op: ``StridedSlice`` for ``tf.StridedSlice``
    and for a ``tf.Unknown`` of that op type, ``FFT`` for ``ov.FFT``."""
    t = getattr(op, "OV_TYPE", None)
    if isinstance(t, str) and t:
        return t
    if op.name == "tf.Unknown":
        a = op.properties.get("op_type")
        return a.data if isinstance(a, StringAttr) else "Unknown"
    t = getattr(op, "TF_TYPE", None)
    if isinstance(t, str) and t:
        return t
    return op.name.split(".", 1)[-1]


def op_name(op: Operation) -> str:
    """Node name (framework ops) or friendly name (ov ops), '' when unnamed."""
    for key in ("node_name", "friendly_name", "name_hint"):
        a = op.properties.get(key)
        if isinstance(a, StringAttr):
            return a.data
    return ""


def op_attr(op: Operation, key: str, default: Any = None) -> Any:
    """Python value of attribute ``key`` (OpDef / IR defaults filled in)."""
    if getattr(op, "OV_TYPE", None):  # ov ops
        try:
            return op.attr(key)  # type: ignore[attr-defined]
        except (KeyError, AttributeError, ValueError):
            return default
    getter = getattr(op, "attr", None)
    if callable(getter):  # tf ops
        try:
            v = getter(key, default)
        except (KeyError, AttributeError, ValueError, TypeError):
            v = default
        return v.decode() if isinstance(v, bytes) else v
    a = op.properties.get(key, op.attributes.get(key))
    if a is None:
        return default
    return getattr(a, "data", a)


def value_of(v: SSAValue) -> np.ndarray | None:
    """numpy value of ``v`` when a constant op (``tf.Const``, ``ov.Constant``) makes it."""
    owner = v.owner
    if not isinstance(owner, Operation):
        return None
    if owner.name == "ov.Constant":
        from xmo.dialects.ov.base import constant_value_of

        return constant_value_of(v)
    if owner.name == "tf.Const":
        from xmo.dialects.tf.base import tensor_array

        try:
            return tensor_array(owner.properties["value"])
        except Exception:  # noqa: BLE001 - not a numeric constant
            return None
    return None


class OpView:
    """One op as a transformation sees it (compared and hashed by its op)."""

    __slots__ = ("op",)

    def __init__(self, op: Operation) -> None:
        self.op = op

    def __eq__(self, other: object) -> bool:
        return isinstance(other, OpView) and other.op is self.op

    def __hash__(self) -> int:
        return id(self.op)

    def __repr__(self) -> str:
        return f"<{self.type} '{self.name}'>"

    @property
    def type(self) -> str:
        return op_type(self.op)

    @property
    def name(self) -> str:
        return op_name(self.op)

    def attr(self, key: str, default: Any = None) -> Any:
        return op_attr(self.op, key, default)

    def __getitem__(self, key: str) -> Any:
        return self.attr(key)

    def in_value(self, i: int) -> SSAValue:
        return self.op.operands[i]

    def out_value(self, i: int = 0) -> SSAValue:
        return self.op.results[i]

    def in_node(self, i: int) -> OpView | None:
        owner = self.op.operands[i].owner
        return OpView(owner) if isinstance(owner, Operation) else None

    def in_port_of(self, i: int) -> int:
        """Output port number of the producer feeding input ``i``."""
        return getattr(self.op.operands[i], "index", 0)

    def out_nodes(self, i: int = 0) -> list[OpView]:
        return [OpView(u.operation) for u in self.op.results[i].uses]

    def const(self, i: int) -> np.ndarray | None:
        """Value of input ``i`` when a constant produces it."""
        if i >= len(self.op.operands):
            return None
        return value_of(self.op.operands[i])


class ModuleView:
    """Ops of a module's top block (or any block), with a few edits."""

    def __init__(self, module: ModuleOp | Block, ctx: Any = None) -> None:
        self.block = module.body.block if isinstance(module, ModuleOp) else module
        self.ctx = ctx
        self.changed = False

    def ops(self) -> Iterator[OpView]:
        for op in list(self.block.ops):
            yield OpView(op)

    def get_op_nodes(self, type: str | None = None, **attrs: Any) -> list[OpView]:
        out = []
        for n in self.ops():
            if type is not None and n.type != type:
                continue
            if all(n.attr(k) == v for k, v in attrs.items()):
                out.append(n)
        return out

    def replace_value(self, old: SSAValue, new: SSAValue) -> None:
        """Every use of ``old`` reads ``new``."""
        old.replace_all_uses_with(new)
        self.changed = True

    def insert_before(self, op: Operation, before: OpView | Operation) -> None:
        anchor = before.op if isinstance(before, OpView) else before
        self.block.insert_op_before(op, anchor)
        self.changed = True

    def remove_dead(self, keep: frozenset[str] = frozenset()) -> int:
        """Erase ops whose results are all unused (graph outputs and inputs stay).

        An op that declares its memory effects (every ``ov`` op) goes only when
        xDSL's ``would_be_trivially_dead`` says so (not Parameters, state or
        random ops); framework-dialect ops declare none and go unless they are
        graph inputs."""
        from xdsl.traits import IsTerminator, MemoryEffect
        from xdsl.transforms.dead_code_elimination import would_be_trivially_dead

        removed = 0
        again = True
        while again:
            again = False
            for op in reversed(list(self.block.ops)):
                if not op.results or op.get_trait(IsTerminator) is not None:
                    continue
                if op.get_traits_of_type(MemoryEffect):
                    if not would_be_trivially_dead(op):
                        continue
                elif op.name in _FRAMEWORK_INPUTS:
                    continue
                if op_type(op) in keep:
                    continue
                if any(r.uses for r in op.results):
                    continue
                op.detach()
                op.erase()
                removed += 1
                again = True
        if removed:
            self.changed = True
        return removed


#: graph inputs of the framework dialects (whose ops declare no effects):
#: ``remove_dead`` keeps them
_FRAMEWORK_INPUTS = frozenset({"tf.Placeholder", "onnx.Input"})
