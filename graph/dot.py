"""A Graphviz (``dot``) picture of an ``ov`` module.

One box per op (type, friendly name; a small constant shows its value), one
edge per operand labelled with the tensor's element type and shape. Used by
the ``XMO_ENABLE_VISUALIZE_TRACING`` pass tracing; render the text with
``dot -Tsvg``.
"""

from __future__ import annotations

import numpy as np
from xdsl.dialects.builtin import ModuleOp, TensorType, UnrankedTensorType
from xdsl.ir import Attribute, Operation, OpResult
from xmo.dialects.ov import element_types as et
from xmo.dialects.ov.base import OVOp, constant_value_of

_FILL = {
    "Parameter": "#cfe2f3",
    "Result": "#d9d9d9",
    "Constant": "#fff2cc",
}


def _esc(text: str) -> str:
    return text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n")


def type_label(t: Attribute) -> str:
    """``f32[1,3,?,?]`` for a tensor type."""
    if isinstance(t, TensorType | UnrankedTensorType):
        try:
            e = et.from_xdsl(t.get_element_type())
        except Exception:  # noqa: BLE001
            e = str(t.get_element_type())
        if isinstance(t, UnrankedTensorType):
            return f"{e}[...]"
        dims = ",".join(str(d) if d >= 0 else "?" for d in t.get_shape())
        return f"{e}[{dims}]"
    return str(t)


def _op_label(op: Operation) -> str:
    if not isinstance(op, OVOp):
        return op.name
    lines = [op.OV_TYPE]
    name = op.get_friendly_name()
    if name:
        lines.append(name if len(name) <= 48 else name[:45] + "...")
    if op.OV_TYPE == "Constant":
        v = constant_value_of(op.results[0])
        if v is not None and v.size <= 8:
            lines.append(np.array2string(np.asarray(v), separator=",", threshold=8))
        else:
            lines.append(type_label(op.results[0].type))
    return "\n".join(lines)


def to_dot(module: ModuleOp, title: str | None = None) -> str:
    """The module's top-level ops as a ``digraph``."""
    ids: dict[Operation, str] = {}
    out = [
        "digraph xmo {",
        "  rankdir=TB;",
        '  node [shape=box, style="rounded,filled", fontname="Helvetica", fontsize=10];',
        '  edge [fontname="Helvetica", fontsize=8];',
    ]
    if title:
        out.append(f'  labelloc="t"; label="{_esc(title)}";')
    for i, op in enumerate(module.body.block.ops):
        ids[op] = f"n{i}"
        fill = _FILL.get(op.OV_TYPE if isinstance(op, OVOp) else "", "#ffffff")
        out.append(f'  n{i} [label="{_esc(_op_label(op))}", fillcolor="{fill}"];')
    for op in module.body.block.ops:
        for j, v in enumerate(op.operands):
            owner = v.owner
            if not isinstance(owner, Operation) or owner not in ids:
                continue
            label = type_label(v.type)
            if isinstance(v, OpResult) and len(owner.results) > 1:
                label = f"{v.index}: {label}"
            if len(op.operands) > 1:
                label = f"{label} -> {j}"
            out.append(f'  {ids[owner]} -> {ids[op]} [label="{_esc(label)}"];')
    out.append("}")
    return "\n".join(out) + "\n"


__all__ = ["to_dot", "type_label"]
