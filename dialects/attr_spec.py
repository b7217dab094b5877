"""What every dialect says about an op attribute.

* :class:`AttrSpec` -- one attribute of an op class: its name, its *kind*,
  its default value and whether the op requires it. The ``ov``, ``onnx`` and
  ``tf`` ops list them in a ClassVar (``OV_ATTRS``, ``ATTRS``); each dialect
  has its own kinds (``ov``: ``i64``, ``f64[]``... in
  :mod:`xmo.dialects.ov.attributes`; ``onnx``: the ONNX attribute types
  ``INT``, ``FLOATS``, ``GRAPH``... in :mod:`xmo.dialects.onnx.base`; ``tf``:
  the OpDef kinds ``int``, ``list(type)``... in :mod:`xmo.dialects.tf.base`).
* :class:`AttributeValueError` -- a value that does not fit an attribute's kind.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from xmo.errors import XmoError


class AttributeValueError(XmoError, ValueError):
    """An attribute value that does not fit its declared kind."""


@dataclass(frozen=True, slots=True)
class AttrSpec:
    """One attribute of an op: name, kind (of the op's dialect), default
    value (a Python value; None when there is none) and whether it is
    required (the op's specification gives it no default)."""

    name: str
    kind: str
    default: Any = None
    required: bool = False


__all__ = ["AttrSpec", "AttributeValueError"]
