"""A compiled model's inputs and outputs: :class:`PortInfo`, :class:`ModelOutputs`."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np


@dataclass(frozen=True)
class PortInfo:
    """A model input or output: its names, element type and declared shape."""

    names: tuple[str, ...]
    dtype: np.dtype | None
    shape: tuple[int, ...] | None
    etype: str | None = None

    @property
    def name(self) -> str:
        return self.names[0] if self.names else ""


def output_index(ports: Sequence[PortInfo]) -> dict[str, int]:
    """Each name of ``ports`` -> the index of the first port carrying it."""
    by_name: dict[str, int] = {}
    for i, p in enumerate(ports):
        for n in p.names:
            by_name.setdefault(n, i)
    return by_name


class ModelOutputs(Sequence[np.ndarray]):
    """A model's outputs: a list in Result order, also indexable by name."""

    def __init__(self, arrays: list[np.ndarray], ports: Sequence[PortInfo],
                 by_name: dict[str, int] | None = None) -> None:
        """``by_name``: :func:`output_index` of ``ports`` when the caller keeps
        one (it is not copied), else built here."""
        self._arrays = arrays
        self._ports = ports
        self._by_name = output_index(ports) if by_name is None else by_name

    def __len__(self) -> int:
        return len(self._arrays)

    def __getitem__(self, key: Any) -> Any:
        if isinstance(key, str):
            try:
                return self._arrays[self._by_name[key]]
            except KeyError:
                raise KeyError(
                    f"no output named '{key}' (outputs: {sorted(self._by_name)})"
                ) from None
        return self._arrays[key]

    def __iter__(self) -> Iterator[np.ndarray]:
        return iter(self._arrays)

    def __contains__(self, key: object) -> bool:
        if isinstance(key, str):
            return key in self._by_name
        return any(key is a for a in self._arrays)

    def names(self) -> list[str]:
        return list(self._by_name)

    def to_dict(self) -> dict[str, np.ndarray]:
        """Output arrays keyed by each output's first name."""
        return {p.name or str(i): a for i, (p, a) in enumerate(zip(self._ports, self._arrays))}

    def __repr__(self) -> str:
        return f"ModelOutputs({[p.name for p in self._ports]})"
