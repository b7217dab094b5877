"""``onnx-canonicalize``: front-phase normalization of the ``onnx`` dialect.

Runs before ``convert-onnx-to-ov`` and removes nodes that only forward a value:

* ``Identity`` (tensor inputs);
* ``Dropout`` in inference mode (no ``training_mode`` input, or a constant
  false one) whose mask output is unused.

Tensor names survive: the removed node's output name is recorded as an alias
of the forwarded value's producer (discardable attribute ``onnx.aliases``, one
list per result), and the legalization adds aliases to the OpenVINO tensor
names, the way OpenVINO merges names when it eliminates such nodes.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import (
    ArrayAttr,
    ModuleOp,
    NoneType,
    StringAttr,
    TensorType,
    UnrankedTensorType,
)
from xdsl.ir import Operation, SSAValue
from xdsl.passes import ModulePass

from xmo.dialects.onnx import ONNXOp

ALIASES = "onnx.aliases"


def aliases_of(op: Operation, index: int) -> list[str]:
    """Extra tensor names recorded for result ``index`` of ``op``."""
    a = op.attributes.get(ALIASES)
    if not isinstance(a, ArrayAttr) or index >= len(a.data):
        return []
    entry = a.data[index]
    return [s.data for s in entry.data] if isinstance(entry, ArrayAttr) else []  # type: ignore[union-attr]


def _add_alias(value: SSAValue, name: str) -> None:
    owner = value.owner
    if not isinstance(owner, Operation) or not name:
        return
    current = [aliases_of(owner, i) for i in range(len(owner.results))]
    idx = value.index  # type: ignore[attr-defined]
    if name not in current[idx]:
        current[idx].append(name)
    owner.attributes[ALIASES] = ArrayAttr(
        [ArrayAttr([StringAttr(n) for n in names]) for names in current]
    )


def _output_name(op: ONNXOp, i: int) -> str:
    names = op.output_names
    if names is None or i >= len(names.data):
        return ""
    return names.data[i].data


def _forwarded(op: Operation) -> SSAValue | None:
    """The value ``op`` merely forwards, or None."""
    if not isinstance(op, ONNXOp) or op.regions:
        return None
    if op.ONNX_TYPE == "Identity" and len(op.operands) == 1:
        v = op.operands[0]
        if isinstance(v.type, TensorType | UnrankedTensorType):
            return v
    if op.ONNX_TYPE == "Dropout" and op.operands:
        if any(r.uses for r in op.results[1:]):
            return None  # the mask is used
        if len(op.operands) >= 3 and not isinstance(op.operands[2].type, NoneType):
            return None  # training_mode given: may be true at run time
        return op.operands[0]
    return None


@dataclass(frozen=True)
class ONNXCanonicalizePass(ModulePass):
    """Remove forwarding nodes from an onnx-dialect module (names kept)."""

    name = "onnx-canonicalize"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        for o in list(op.walk()):
            src = _forwarded(o)
            if src is None or o.results[0].type != src.type:
                continue
            _add_alias(src, _output_name(o, 0))  # type: ignore[arg-type]
            for name in aliases_of(o, 0):
                _add_alias(src, name)
            o.results[0].replace_all_uses_with(src)
            if all(not r.uses for r in o.results):
                o.detach()
                o.erase()


def canonicalize_onnx(module: ModuleOp, ctx: Context) -> None:
    ONNXCanonicalizePass().apply(ctx, module)
