"""The errors xmo raises on purpose: one base, a few kinds.

Every error xmo raises for a reason it can name -- a malformed model, an
operation it cannot convert, a transformation that broke the module, an
extension that does not load -- is an :class:`XmoError` whose message is one
line meant for the user (the unsupported-ops report lists one op type per
line). ``except xmo.XmoError`` catches them all; anything else escaping xmo
is a bug. The kinds:

* :class:`ModelError` -- an input that cannot be read: a malformed or
  unsupported model file, IR, ``.mlir`` (the frontends' and readers' errors)
* :class:`ConversionError` -- a model that reads but cannot be converted:
  unsupported operations (:class:`~xmo.passes.to_ov.report.UnsupportedOpsError`),
  conversion options that do not apply (:class:`~xmo.options.OptionError`)
* :class:`TransformationError` -- a transformation that failed or left a
  module that does not verify, or transformations that cannot be ordered
* :class:`ExtensionError` -- an extension folder that cannot be loaded
* :class:`BackendError` -- the CPU backend or the IR writer cannot do what
  is asked (a missing kernel, inputs of the wrong shape, a value IR cannot hold)

A converter that finds a problem with the node it converts, but does not
know the node's name, raises a :class:`NodeError`; the legalization driver
names the node (:meth:`NodeError.at`, the innermost node wins).

Modules keep their specific classes (``OnnxFrontendError``,
``KernelNotFoundError``...), each a subclass of one of these.
"""

from __future__ import annotations


class XmoError(Exception):
    """Base of every error xmo raises on purpose (see the module docstring)."""


class ModelError(XmoError, ValueError):
    """A model or input file that cannot be read."""


class ConversionError(XmoError):
    """A model that cannot be converted; the message says why."""


class TransformationError(XmoError):
    """A transformation that failed or left a module that does not verify
    (the message names it), or transformations that cannot be ordered."""


class ExtensionError(XmoError):
    """An extension that cannot be loaded (the message names the file)."""


class BackendError(XmoError):
    """A backend (the CPU executor, the IR writer) that cannot do what is asked."""


class NodeError(XmoError):
    """An error about one node, raised where the node is not known: whoever
    knows it names it with :meth:`at` (the innermost node wins). One line:
    ``node 'name' (OpType): message``."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message
        self.node: str | None = None
        self.op_type: str | None = None

    def at(self, node: str | None, op_type: str | None) -> NodeError:
        """Name the node the error is about, unless one is named already."""
        if self.node is None and self.op_type is None:
            self.node, self.op_type = node, op_type
        return self

    def __str__(self) -> str:
        if self.node is None and self.op_type is None:
            return self.message
        where = f"node '{self.node}'" if self.node else "a node"
        return f"{where} ({self.op_type}): {self.message}" if self.op_type else f"{where}: {self.message}"


class InvalidNodeError(NodeError, ModelError):
    """A node the model gets wrong in a way only conversion finds (a loop
    body yielding another element type than its loop-carried value)."""


__all__ = [
    "BackendError",
    "ConversionError",
    "ExtensionError",
    "InvalidNodeError",
    "ModelError",
    "NodeError",
    "TransformationError",
    "XmoError",
    "first_line",
    "printable",
]


def first_line(e: BaseException) -> str:
    """The first non-empty line of an exception's message (a ``KeyError``'s
    key without the quotes ``str`` adds), or its class name: what xmo shows
    when it wraps an error from xDSL or a library in one line of its own."""
    text = str(e.args[0]) if isinstance(e, KeyError) and len(e.args) == 1 else str(e)
    for line in text.splitlines():
        if line.strip():
            return line.strip()
    return type(e).__name__


def printable(text: str) -> str:
    """``text`` with every non-printable character as its Python escape
    (``\\n``, ``\\x00``, ``\\x1b``): names, paths and parser messages
    from a model or a file system, shown on one line that prints nothing but
    text."""
    if text.isprintable():
        return text
    return "".join(c if c.isprintable() else repr(c)[1:-1] for c in text)
