"""``ov-infer-shapes``: refine every ov op's result types from its inputs.

Walks the module in SSA order and replaces each result type by the inferred
one when the inferred type is more precise (e.g. after an input shape was
made static). A declared type that contradicts the inferred one is an error.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.passes import ModulePass
from xdsl.rewriter import Rewriter
from xdsl.utils.exceptions import VerifyException

from xmo.dialects.ov.base import OVOp, types_compatible
from xmo.dialects.ov.control_ops import CONTROL_OPS


def refine_op_types(op: OVOp) -> bool:
    """Re-infer ``op``'s result types in place; True when a type changed.
    A Loop, TensorIterator or If also gets its body parameters' types
    refined from its inputs (the body ops follow when they are refined)."""
    if isinstance(op, CONTROL_OPS):
        _refine_body_parameters(op)
    inferred = op.inferred_result_types()
    if inferred is None:
        return False
    changed = False
    for result, new_type in zip(list(op.results), inferred):
        if result.type == new_type:
            continue
        if not types_compatible(result.type, new_type):
            raise VerifyException(
                f"{op.name}: output {result.index} is {result.type}, inputs give {new_type}"
            )
        Rewriter.replace_value_with_new_type(result, new_type)
        changed = True
    return changed


def _refine_body_parameters(op: OVOp) -> None:
    from xmo.dialects.ov.shape_inference.control import body_parameter_types, meet_types

    for param, given in body_parameter_types(op):
        declared = param.results[0].type
        new = meet_types(declared, given)
        if new != declared:
            Rewriter.replace_value_with_new_type(param.results[0], new)


@dataclass(frozen=True)
class OVInferShapesPass(ModulePass):
    """Propagate shapes and element types through all ov ops."""

    name = "ov-infer-shapes"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        for o in op.walk():
            if isinstance(o, OVOp):
                refine_op_types(o)
