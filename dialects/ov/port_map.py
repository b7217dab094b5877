"""Port maps of the ops with bodies (``ov.Loop``, ``ov.TensorIterator``, ``ov.If``).

A port map entry connects an input (output) of the op to a parameter (result)
of its body. Entries are stored on the op as an ``ArrayAttr`` of
``DictionaryAttr``s (``{kind = "slice", external = 2 : i64, ...}``); code
reads and writes them through the frozen dataclasses here, never through the
dictionaries:

* :class:`InputSlice` (``kind = "slice"``) -- the external input is cut
  along ``axis`` into parts of ``part_size`` (``start``/``end``/``stride``
  as OpenVINO: ``end = -1`` is the last element), one per iteration;
* :class:`MergedInput` (``"merged"``) -- the external input is the body
  parameter's initial value, later iterations take body result ``result``
  (the back edge);
* :class:`InvariantInput` (``"invariant"``) -- the same value every
  iteration (If's branch inputs are invariant inputs too);
* :class:`ConcatOutput` (``"concat"``) -- the body result of every iteration
  concatenated along ``axis``;
* :class:`LastOutput` (``"last"``) -- the body result of the last iteration
  (``iteration = -1``; If's branch outputs are last outputs too).

Indices: ``external`` is the op's input port (operand index: Loop's trip count
and execution condition are ports 0 and 1, If's condition port 0) or output
index (result index); ``parameter`` is the index among the body's
``ov.Parameter`` ops and ``result`` the index among its ``ov.Result`` ops, in
block order -- OpenVINO's numbering.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable
from dataclasses import dataclass
from typing import ClassVar

from xdsl.dialects.builtin import (
    ArrayAttr,
    DictionaryAttr,
    IntegerAttr,
    StringAttr,
    i64,
)
from xdsl.ir import Attribute
from xdsl.utils.exceptions import VerifyException

from xmo.errors import XmoError


class PortMapError(VerifyException, XmoError):
    """A port map attribute that is malformed."""


@dataclass(frozen=True)
class _Entry:
    KIND: ClassVar[str] = ""

    def to_attr(self) -> DictionaryAttr:
        """The entry as stored on the op."""
        items: dict[str, Attribute] = {"kind": StringAttr(self.KIND)}
        for f in dataclasses.fields(self):
            items[f.name] = IntegerAttr(getattr(self, f.name), i64)
        return DictionaryAttr(items)


@dataclass(frozen=True)
class InputSlice(_Entry):
    """External input ``external`` sliced along ``axis`` into body parameter ``parameter``."""

    KIND: ClassVar[str] = "slice"
    external: int
    parameter: int
    axis: int
    start: int = 0
    stride: int = 1
    end: int = -1
    part_size: int = 1


@dataclass(frozen=True)
class MergedInput(_Entry):
    """Body parameter ``parameter`` starts as external input ``external`` and
    then takes body result ``result`` of the previous iteration (a back edge)."""

    KIND: ClassVar[str] = "merged"
    external: int
    parameter: int
    result: int


@dataclass(frozen=True)
class InvariantInput(_Entry):
    """Body parameter ``parameter`` is external input ``external`` every iteration."""

    KIND: ClassVar[str] = "invariant"
    external: int
    parameter: int


@dataclass(frozen=True)
class ConcatOutput(_Entry):
    """Output ``external`` is body result ``result`` of every iteration
    concatenated along ``axis``."""

    KIND: ClassVar[str] = "concat"
    result: int
    external: int
    axis: int
    start: int = 0
    stride: int = 1
    end: int = -1
    part_size: int = 1


@dataclass(frozen=True)
class LastOutput(_Entry):
    """Output ``external`` is body result ``result`` of iteration ``iteration``
    (-1: the last one)."""

    KIND: ClassVar[str] = "last"
    result: int
    external: int
    iteration: int = -1


InputDesc = InputSlice | MergedInput | InvariantInput
OutputDesc = ConcatOutput | LastOutput

_INPUT_KINDS: dict[str, type[InputDesc]] = {
    c.KIND: c for c in (InputSlice, MergedInput, InvariantInput)
}
_OUTPUT_KINDS: dict[str, type[OutputDesc]] = {c.KIND: c for c in (ConcatOutput, LastOutput)}


def _entry_from_attr(attr: Attribute, kinds: dict[str, type], what: str) -> _Entry:
    if not isinstance(attr, DictionaryAttr):
        raise PortMapError(f"{what}: an entry is {attr}, not a dictionary")
    data = attr.data
    kind = data.get("kind")
    if not isinstance(kind, StringAttr) or kind.data not in kinds:
        raise PortMapError(
            f"{what}: entry kind {kind} is not one of {', '.join(sorted(kinds))}"
        )
    cls = kinds[kind.data]
    values: dict[str, int] = {}
    names = {f.name for f in dataclasses.fields(cls)}
    for key, value in data.items():
        if key == "kind":
            continue
        if key not in names:
            raise PortMapError(f"{what}: a '{kind.data}' entry has no field '{key}'")
        if not isinstance(value, IntegerAttr):
            raise PortMapError(f"{what}: field '{key}' is {value}, not an integer")
        values[key] = value.value.data
    try:
        return cls(**values)
    except TypeError:
        missing = sorted(
            f.name
            for f in dataclasses.fields(cls)
            if f.name not in values and f.default is dataclasses.MISSING
        )
        raise PortMapError(
            f"{what}: a '{kind.data}' entry needs {', '.join(missing)}"
        ) from None


def inputs_from_attr(attr: ArrayAttr, what: str = "input map") -> list[InputDesc]:
    """The input descriptions stored in ``attr``."""
    return [_entry_from_attr(a, _INPUT_KINDS, what) for a in attr.data]  # type: ignore[misc]


def outputs_from_attr(attr: ArrayAttr, what: str = "output map") -> list[OutputDesc]:
    """The output descriptions stored in ``attr``."""
    return [_entry_from_attr(a, _OUTPUT_KINDS, what) for a in attr.data]  # type: ignore[misc]


def to_attr(entries: Iterable[InputDesc | OutputDesc]) -> ArrayAttr:
    """Port map entries as stored on the op."""
    return ArrayAttr([e.to_attr() for e in entries])


__all__ = [
    "ConcatOutput",
    "InputDesc",
    "InputSlice",
    "InvariantInput",
    "LastOutput",
    "MergedInput",
    "OutputDesc",
    "PortMapError",
    "inputs_from_attr",
    "outputs_from_attr",
    "to_attr",
]
