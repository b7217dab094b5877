"""The ONNX frontend's error type."""

from __future__ import annotations
from xmo.errors import ModelError, printable


class OnnxFrontendError(ModelError):
    """A model the ONNX frontend cannot read (malformed, unsafe or unsupported).

    The message is one line and names the offending tensor or node.
    """

    def __init__(self, msg: object = "") -> None:
        # names from the file may hold newlines / control characters: escape them
        super().__init__(printable(str(msg)))
