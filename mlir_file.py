"""Reading a textual IR (``.mlir``) file: a regular file, within a size limit.

``xmo convert`` / ``xmo.read_model`` and ``xmo-opt`` read ``.mlir`` files
through :func:`open_mlir`. xDSL parses the whole text at once and builds
Python objects for every operation and attribute, so the file's size bounds
the memory a parse takes. Measured with xDSL 0.75 (peak RSS over the
interpreter with xmo imported, ``xmo.read_model``): a chain of ``ov.Add``
ops with names, ~150 bytes of text per op, takes 17 bytes of memory per
byte of text (10k ops in 1.5 MB: +24 MB; 100k ops in 15.2 MB: +244 MB, and
200 s to parse); a ``dense_resource`` weight written as hex text takes about
120 (a 4 MiB payload in 8.4 MB of text: +0.98 GB; 64 MiB in 134 MB: +15.5
GB; a 7.8 MB payload in 15.6 MB of text is a ``MemoryError`` under a 2 GiB
address-space cap). Parsing takes ~1-2 ms per op. 4 MiB of text is then
~27k ops (~70 MB, ~30-60 s) or a 2 MiB weight (~0.5 GB); a bigger file is
refused before it is read. Real models keep their weights in an IR's
``.bin`` or a framework's files; ``.mlir`` is for tests, passes and their
dumps.
"""

from __future__ import annotations

import os
from typing import BinaryIO

from xmo.input_files import open_input

__all__ = ["MAX_MLIR_BYTES", "open_mlir"]

#: Largest ``.mlir`` file read (see the module docstring)
MAX_MLIR_BYTES = 4 << 20


def open_mlir(path: str | os.PathLike[str], error: type[Exception]) -> BinaryIO:
    """``path`` opened for reading when it is a regular file of at most
    :data:`MAX_MLIR_BYTES`; ``error`` with one line otherwise."""
    f = open_input(path, error)
    size = os.fstat(f.fileno()).st_size
    if size > MAX_MLIR_BYTES:
        f.close()
        limit = (f"{MAX_MLIR_BYTES >> 20} MiB" if MAX_MLIR_BYTES % (1 << 20) == 0
                 else f"{MAX_MLIR_BYTES} bytes")
        raise error(
            f"{os.fspath(path)}: {size} bytes, more than the {limit} a .mlir file may have "
            "(weights belong in an IR's .bin)"
        )
    return f
