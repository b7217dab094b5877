"""Whether a loop becomes a Sequence op, and as what.

:func:`plan` puts :mod:`.loop` and :mod:`.cell` together: the loop read as
a recurrent loop, its cell recognised with the carried values as its states
(LSTM: which of the two is h is tried both ways), and every output of the
loop one the Sequence op gives (every step's h, the last h or c).
:func:`is_recurrent` asks the same of a loop whose outputs have no consumers
yet (the ONNX frontend, deciding whether to unroll a Scan or Loop).
"""

from __future__ import annotations

from dataclasses import dataclass

from xmo.dialects.ov.control_ops import LoopOp, TensorIteratorOp
from xmo.passes.loop_to_sequence.cell import CellMatch, CellVariables, match_cell
from xmo.passes.loop_to_sequence.loop import RecurrentLoop, State, recurrent_loop


@dataclass(frozen=True)
class Plan:
    """A loop, its cell, its hidden state and (LSTM) its cell state."""

    loop: RecurrentLoop
    cell: CellMatch
    h: State
    c: State | None


def recognise(loop: RecurrentLoop) -> tuple[CellMatch, State, State | None] | None:
    """The cell of ``loop`` with its hidden state (and LSTM cell state)."""
    states = loop.states
    if len(states) == 1:
        (h,) = states
        cell = match_cell(CellVariables(loop.step, h.param, h.new), loop.const)
        return None if cell is None else (cell, h, None)
    if len(states) == 2:
        for h, c in (states, states[::-1]):
            cell = match_cell(
                CellVariables(loop.step, h.param, h.new, c.param, c.new), loop.const
            )
            if cell is not None:
                return cell, h, c
    return None


def plan(op: LoopOp | TensorIteratorOp, used_only: bool = True) -> Plan | None:
    """How ``op`` becomes a Sequence op, or None; ``used_only``: only the
    outputs something reads must be ones the Sequence op gives."""
    loop = recurrent_loop(op, used_only)
    found = None if loop is None else recognise(loop)
    if loop is None or found is None:
        return None
    cell, h, c = found
    if any(s.value is not h.new for s in loop.sequences):
        return None
    if any(f.value is not h.new and (c is None or f.value is not c.new) for f in loop.finals):
        return None
    return Plan(loop, cell, h, c)


def is_recurrent(op: LoopOp | TensorIteratorOp) -> bool:
    """Whether ``ov-loop-to-sequence`` turns ``op`` into a Sequence op
    whatever reads its outputs."""
    return plan(op, used_only=False) is not None


__all__ = ["Plan", "is_recurrent", "plan", "recognise"]
