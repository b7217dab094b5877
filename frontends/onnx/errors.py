"""The ONNX frontend's error type."""

from __future__ import annotations


class OnnxFrontendError(ValueError):
    """A model the ONNX frontend cannot read (malformed, unsafe or unsupported).

    The message is one line and names the offending tensor or node.
    """
