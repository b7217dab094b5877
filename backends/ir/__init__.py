"""OpenVINO IR (v11 ``.xml`` + ``.bin``) backend: write and read ``ov``-dialect modules.

* :func:`serialize` -- module -> IR files (atomic, weights streamed, deduplicated)
* :func:`read_ir` -- IR files -> verified module (weights memory-mapped)
"""

from __future__ import annotations

from xmo.backends.ir._common import IRReadError, IRWriteError
from xmo.backends.ir.reader import read_ir
from xmo.backends.ir.serializer import serialize

__all__ = ["IRReadError", "IRWriteError", "read_ir", "serialize"]
