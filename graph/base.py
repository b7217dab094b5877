"""What :mod:`.graph` and :mod:`.node` share: the error, placeholder values of
disconnected ports, and op descriptions for messages."""

from __future__ import annotations

from xdsl.ir import Operation, SSAValue
from xdsl.irdl import IRDLOperation, irdl_op_definition, result_def

from xmo.dialects.ov.base import OVOp
from xmo.errors import TransformationError


class GraphError(TransformationError):
    """A graph edit that cannot be done (the message names the op and port)."""


@irdl_op_definition
class DisconnectedOp(IRDLOperation):
    """Placeholder producer of a disconnected input port (never in a block)."""

    name = "xmo_graph.disconnected"
    output = result_def()


def is_placeholder(value: SSAValue) -> bool:
    """True for the value a disconnected input port reads."""
    return isinstance(value.owner, DisconnectedOp)


def describe(op: Operation) -> str:
    """``'name' (Type)`` or ``Type`` for messages."""
    if isinstance(op, OVOp):
        n = op.get_friendly_name()
        return f"'{n}' ({op.OV_TYPE})" if n else op.OV_TYPE
    return op.name
