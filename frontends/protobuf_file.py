"""Reading a binary protobuf model file (ONNX ``ModelProto``, TF ``GraphDef``).

One place for what both frontends need before protobuf parses a file: the
2 GiB limit of a protobuf message (a bigger file is refused with a clear
error before anything is read, instead of being read whole and failing
inside protobuf) and a read-only memory map as the parser's input (no
second in-memory copy of the file; protobuf copies what it keeps).
"""

from __future__ import annotations

import contextlib
import mmap
import os
from collections.abc import Iterator
from typing import TYPE_CHECKING

from xmo.input_files import map_input, open_input, register_map, unregister_map

if TYPE_CHECKING:
    import numpy as np

#: Largest protobuf model file read: a protobuf message cannot exceed 2 GiB.
MAX_PROTOBUF_BYTES = 1 << 31


def check_size(path: str, size: int, what: str, error: type[Exception]) -> None:
    """Raise ``error`` when a file of ``size`` bytes cannot be one protobuf message."""
    if size > MAX_PROTOBUF_BYTES:
        raise error(
            f"{path}: {size} bytes, more than the {MAX_PROTOBUF_BYTES >> 30} GiB "
            f"{what} (protobuf message) can hold"
        )


@contextlib.contextmanager
def mapped_message(path: str, what: str, error: type[Exception]) -> Iterator[memoryview | bytes]:
    """The bytes of the protobuf file ``path`` (a read-only map; ``b""`` when
    empty), after the checks: a regular file (:func:`xmo.input_files.open_input`;
    ``error`` otherwise) within the size limit. ``what`` names the message in
    errors ("an ONNX model"); ``error`` is the frontend's error class. The map
    is recorded while the parser reads it (a file truncated meanwhile is
    named by :mod:`xmo.bus_error`). ``OSError`` from reading or mapping
    propagates (the caller words it)."""
    with open_input(path, error) as f:
        size = os.fstat(f.fileno()).st_size
        check_size(path, size, what, error)
        if size == 0:
            yield b""
            return
        with mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ) as mm:
            register_map(mm, f)
            view = memoryview(mm)
            try:
                yield view
            finally:
                view.release()
                unregister_map(mm)


def mapped_array(path: str, what: str, error: type[Exception]) -> np.ndarray:
    """The protobuf file ``path`` as a read-only ``numpy.memmap`` (flat
    ``uint8``), after :func:`mapped_message`'s checks, kept by whoever holds
    it or a slice of it: for a frontend that reads payloads in place
    (:mod:`xmo.frontends.onnx.wire`). ``OSError`` propagates."""
    with open_input(path, error) as f:
        check_size(path, os.fstat(f.fileno()).st_size, what, error)
        return map_input(f)
