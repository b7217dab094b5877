"""Op classes IRDL-defined on first use (the ``onnx`` and ``ov`` dialects).

``irdl_op_definition`` completes an op class in place: it builds the class's
``OpDef`` (constraints of every field) and installs accessors (a few tenths
of a millisecond per class: about 0.1 s for the 654 generated ``onnx`` ops,
50-60 ms for the 241 ``ov`` ops with their fast verifier). A dialect with hundreds of generated ops declares them with
:func:`defer` on a base class deriving from :class:`DeferredOperation`, so an
import builds none of them, and each class is completed when first needed:

* an op of it is created (``Cls(...)``, ``Cls.create(...)``: ``__new__``);
* its definition is asked for (``Cls.get_irdl_definition()``: the parser,
  the verifier, xDSL's printers);
* its traits are read (``Cls.traits``, ``Cls.has_trait(...)``);
* :func:`define_all` runs (before a dialect's whole op list is used).

A class completed this way is the same as one decorated with
``irdl_op_definition`` at import (same ``OpDef``, same accessors), and the
``finish`` step a dialect passes to :func:`defer` runs right after.
"""

from __future__ import annotations

import keyword
import threading
from collections.abc import Callable, Iterable
from typing import Any, TypeVar

from xdsl.irdl import IRDLOperation, OpDef, irdl_op_definition

_OpT = TypeVar("_OpT", bound=IRDLOperation)

#: deferred op classes not completed yet -> (their own ``traits`` field or
#: None, the dialect's finishing step or None)
_PENDING: dict[type[IRDLOperation], tuple[Any, Callable[[type[Any]], None] | None]] = {}
#: classes being completed (by the thread holding ``_LOCK``)
_COMPLETING: set[type[IRDLOperation]] = set()
_LOCK = threading.RLock()


class DeferredOperation(IRDLOperation):
    """Base of op classes declared with :func:`defer`: completes one on first use."""

    def __new__(cls, *args: Any, **kwargs: Any) -> Any:  # noqa: ARG004
        if cls in _PENDING:  # a deferred class used for the first time
            define(cls)
        return super().__new__(cls)

    @classmethod
    def get_irdl_definition(cls) -> OpDef:  # replaced on the class by its definition
        if cls not in _PENDING:
            raise TypeError(f"{cls.__name__} is not an IRDL-defined op class")
        return define(cls).get_irdl_definition()


class _TraitsOnFirstRead:
    """Stands for ``traits`` on a deferred class: reading it completes the class
    (whose definition merges the traits of every base, so a pending class's own
    ``traits_def`` alone would be the wrong answer)."""

    def __init__(self, cls: type[IRDLOperation]) -> None:
        self.cls = cls

    def __get__(self, obj: object, owner: type[Any]) -> Any:
        define(self.cls)
        return owner.traits


def defer(cls: type[_OpT], finish: Callable[[type[Any]], None] | None = None) -> type[_OpT]:
    """Declare ``cls`` (a :class:`DeferredOperation`) to be IRDL-defined on
    first use, then completed by ``finish(cls)`` (e.g. traits every op of the
    dialect gets, a specialised verifier)."""
    if not issubclass(cls, DeferredOperation):
        raise TypeError(f"{cls.__name__} must derive from DeferredOperation to be deferred")
    _PENDING[cls] = (cls.__dict__.get("traits"), finish)
    cls.traits = _TraitsOnFirstRead(cls)  # type: ignore[assignment]
    return cls


def define(cls: type[_OpT]) -> type[_OpT]:
    """Complete ``cls`` now if :func:`defer` deferred it (no-op otherwise).

    Thread-safe: a class leaves the pending set only once complete, and a
    thread meeting one being completed waits for it."""
    if cls not in _PENDING:
        return cls
    with _LOCK:
        entry = _PENDING.get(cls)
        if entry is None or cls in _COMPLETING:  # done meanwhile / this thread's own call
            return cls
        _COMPLETING.add(cls)
        try:
            for base in cls.__mro__[1:]:  # a deferred base first: its fields are read
                define(base)
            own_traits, finish = entry
            if own_traits is None:
                del cls.traits
            else:
                cls.traits = own_traits
            irdl_op_definition(cls)
            if finish is not None:
                finish(cls)
            del _PENDING[cls]
        finally:
            _COMPLETING.discard(cls)
    return cls


def define_all(classes: Iterable[type[IRDLOperation]] | None = None) -> None:
    """Complete every deferred class among ``classes`` (all when None)."""
    for cls in list(_PENDING if classes is None else classes):
        define(cls)


def reserved_field_names(base: type) -> frozenset[str]:
    """Names a generated op class derived from ``base`` cannot use as fields."""
    return frozenset({n for c in base.mro() for n in vars(c)}
                     | {"name", "traits", "irdl_options", "assembly_format", "custom_directives"})


def python_field_name(attr_name: str, reserved: frozenset[str]) -> str:
    """Python field under which a framework attribute ``attr_name`` is declared:
    non-identifier characters become ``_``; ``_`` is appended on a clash with
    ``reserved``, a keyword or a leading digit."""
    f = attr_name if attr_name.isidentifier() else "".join(
        c if c.isalnum() or c == "_" else "_" for c in attr_name
    )
    if f in reserved or keyword.iskeyword(f) or f[:1].isdigit():
        f += "_"
    return f
