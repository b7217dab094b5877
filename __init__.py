"""xmo: an MLIR-style model optimizer on xDSL that emits OpenVINO IR."""

from __future__ import annotations

__version__ = "0.1.0"
