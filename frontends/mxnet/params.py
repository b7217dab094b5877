"""The MXNet ``.params`` file (``mx.nd.save``, ``Module.save_checkpoint``): a list
of named NDArrays, read with numpy (the arrays are views of the mapped file).

Layout (little endian), as MXNet 0.x-1.x write it:

* ``u64`` magic ``0x112``, ``u64`` reserved;
* ``u64`` count, then that many NDArrays;
* ``u64`` count of names (0 or the array count), each ``u64`` length + bytes
  (``arg:<name>`` / ``aux:<name>`` in checkpoints; plain names from Gluon).

One NDArray: ``u32`` magic (``0xF993FAC9`` V2, ``0xF993FACA`` V3; any other
value is the legacy V1 form, where it is the ndim and dims are ``u32``), then
(V2/V3) ``i32`` storage type (0 dense, 1 row_sparse, 2 csr) and, for sparse
arrays, the storage shape; the shape (``i32`` ndim, ``i64`` dims; ndim 0 in
V2 / -1 in V3 is an empty array, nothing follows); ``i32`` dev_type, ``i32``
dev_id; ``i32`` type flag; sparse arrays then give their aux types and shapes;
then the data (C order), then the aux data of sparse arrays. A row_sparse
array (values + row indices) is made dense here (a copy); csr arrays are
refused (no weight is stored in csr form in practice).

Every malformed file raises :class:`ParamsError` with one line naming the file
and what is wrong (truncated, bad magic, unknown type flag...).
"""

from __future__ import annotations

import os
from dataclasses import dataclass

import numpy as np

from xmo.budget import charge, check_dims
from xmo.errors import ModelError, printable
from xmo.input_files import map_input, open_input

LIST_MAGIC = 0x112
V1_MAGIC_LIMIT = 32  # a legacy file starts with the ndim (small)
V2_MAGIC = 0xF993FAC9
V3_MAGIC = 0xF993FACA

#: MXNet type flag -> numpy dtype
DTYPES: dict[int, np.dtype] = {
    0: np.dtype("<f4"),
    1: np.dtype("<f8"),
    2: np.dtype("<f2"),
    3: np.dtype("u1"),
    4: np.dtype("<i4"),
    5: np.dtype("i1"),
    6: np.dtype("<i8"),
    7: np.dtype("?"),
}
#: numpy dtype name -> MXNet type flag (the writer of tests and tools)
FLAGS: dict[str, int] = {d.name: k for k, d in DTYPES.items()}

DENSE, ROW_SPARSE, CSR = 0, 1, 2
_STYPES = {DENSE: "default", ROW_SPARSE: "row_sparse", CSR: "csr"}
#: most dims / arrays / name bytes a file may declare (anything beyond is corrupt)
_MAX_NDIM = 32
_MAX_NAME = 1 << 16


class ParamsError(ModelError):
    """A ``.params`` file xmo cannot read (one line naming the file)."""

    def __init__(self, msg: object = "") -> None:
        super().__init__(printable(str(msg)))


@dataclass(frozen=True)
class Param:
    """One named array of a ``.params`` file."""

    name: str
    #: ``arg`` or ``aux`` (``arg`` for names without a prefix)
    kind: str
    array: np.ndarray
    #: the storage type in the file (``default``, ``row_sparse``)
    stype: str = "default"


class _Reader:
    def __init__(self, buf: np.ndarray, path: str) -> None:
        self.buf = buf
        self.pos = 0
        self.path = path

    def fail(self, what: str) -> ParamsError:
        return ParamsError(f"{self.path}: not a valid MXNet .params file: {what}")

    def take(self, n: int, what: str) -> np.ndarray:
        if n < 0 or self.pos + n > len(self.buf):
            raise self.fail(f"truncated at byte {self.pos} (reading {what})")
        out = self.buf[self.pos : self.pos + n]
        self.pos += n
        return out

    def scalar(self, dtype: str, what: str) -> int:
        dt = np.dtype(dtype)
        return int(self.take(dt.itemsize, what).view(dt)[0])

    def ints(self, dtype: str, n: int, what: str) -> list[int]:
        dt = np.dtype(dtype)
        return [int(v) for v in self.take(dt.itemsize * n, what).view(dt)]

    def shape(self, what: str) -> list[int] | None:
        ndim = self.scalar("<i4", f"{what} ndim")
        if ndim < 0:
            return None
        if ndim == 0:
            return []
        if ndim > _MAX_NDIM:
            raise self.fail(f"{what}: {ndim} dims")
        dims = self.ints("<i8", ndim, f"{what} dims")
        if any(d < 0 for d in dims):
            raise self.fail(f"{what}: negative dim in {dims}")
        return dims

    def array(self, dims: list[int], dtype: np.dtype, what: str) -> np.ndarray:
        n = int(np.prod(dims, dtype=np.int64)) if dims else 1
        raw = self.take(n * dtype.itemsize, f"the data of {what}")
        return raw.view(dtype).reshape(dims)


def _dtype(r: _Reader, flag: int, what: str) -> np.dtype:
    dt = DTYPES.get(flag)
    if dt is None:
        raise r.fail(f"{what}: unknown type flag {flag}")
    return dt


def _ndarray(r: _Reader, index: int) -> tuple[np.ndarray, str]:
    what = f"array {index}"
    magic = r.scalar("<u4", f"{what} magic")
    if magic not in (V2_MAGIC, V3_MAGIC):
        if magic > V1_MAGIC_LIMIT:
            raise r.fail(f"{what}: bad magic 0x{magic:08x}")
        dims = r.ints("<u4", magic, f"{what} dims")  # legacy V1: the magic is the ndim
        if not dims:
            return np.zeros(0, np.float32), "default"
        r.ints("<i4", 2, f"{what} context")
        dt = _dtype(r, r.scalar("<i4", f"{what} type"), what)
        return r.array(dims, dt, what), "default"
    stype = r.scalar("<i4", f"{what} storage type")
    if stype not in _STYPES:
        raise r.fail(f"{what}: unknown storage type {stype}")
    sshape = r.shape(f"{what} storage shape") if stype != DENSE else None
    dims = r.shape(f"{what} shape")
    if dims is None or (magic == V2_MAGIC and not dims):
        return np.zeros(0, np.float32), _STYPES[stype]
    r.ints("<i4", 2, f"{what} context")
    dt = _dtype(r, r.scalar("<i4", f"{what} type"), what)
    if stype == DENSE:
        return r.array(dims, dt, what), "default"
    naux = 1 if stype == ROW_SPARSE else 2
    aux = []
    for k in range(naux):
        at = _dtype(r, r.scalar("<i4", f"{what} aux {k} type"), what)
        ashape = r.shape(f"{what} aux {k} shape")
        aux.append((at, ashape or []))
    values = r.array(sshape or [0], dt, what)
    aux_data = [r.array(s, t, f"{what} aux {k}") for k, (t, s) in enumerate(aux)]
    if stype == CSR:
        raise r.fail(f"{what}: csr arrays are not supported (store the weights dense)")
    rows = aux_data[0].astype(np.int64).reshape(-1)
    if len(rows) != (values.shape[0] if values.ndim else 0) or (
        len(rows) and (rows.min() < 0 or rows.max() >= dims[0])
    ):
        raise r.fail(f"{what}: row_sparse row indices do not match the shape {dims}")
    check_dims(dims)
    charge(int(np.prod(dims, dtype=np.int64)) * dt.itemsize, f"{what} (row_sparse made dense)")
    dense = np.zeros(dims, dt)
    dense[rows] = values.reshape([len(rows), *dims[1:]])
    return dense, "row_sparse"


def parse_params(buf: np.ndarray, path: str = "params") -> list[Param]:
    """The named arrays of a ``.params`` payload (flat ``uint8``; arrays are views of it)."""
    r = _Reader(buf, path)
    if len(buf) == 0:
        raise r.fail("the file is empty")
    magic = r.scalar("<u8", "the magic")
    if magic != LIST_MAGIC:
        raise r.fail(f"bad magic 0x{magic:x} (expected 0x112)")
    r.scalar("<u8", "the reserved field")
    count = r.scalar("<u8", "the array count")
    if count > len(buf):
        raise r.fail(f"{count} arrays declared in {len(buf)} bytes")
    arrays = [_ndarray(r, i) for i in range(count)]
    n_names = r.scalar("<u8", "the name count")
    if n_names not in (0, count):
        raise r.fail(f"{n_names} names for {count} arrays")
    names = []
    for i in range(n_names):
        n = r.scalar("<u8", f"the length of name {i}")
        if n > _MAX_NAME:
            raise r.fail(f"name {i} is {n} bytes long")
        try:
            names.append(bytes(r.take(n, f"name {i}")).decode("utf-8"))
        except UnicodeDecodeError:
            raise r.fail(f"name {i} is not UTF-8") from None
    if r.pos != len(buf):
        raise r.fail(f"{len(buf) - r.pos} bytes after the last name")
    if not names:
        names = [str(i) for i in range(count)]
    out = []
    seen: set[str] = set()
    for full, (arr, stype) in zip(names, arrays):
        prefix, sep, rest = full.partition(":")
        kind, name = (prefix, rest) if sep and prefix in ("arg", "aux") else ("arg", full)
        if name in seen:
            raise r.fail(f"array '{name}' is stored twice")
        seen.add(name)
        out.append(Param(name, kind, arr, stype))
    return out


def read_params(path: str | os.PathLike[str]) -> list[Param]:
    """The named arrays of a ``.params`` file (mapped; arrays are views)."""
    p = os.fspath(path)
    try:
        with open_input(p, ParamsError) as f:
            buf = map_input(f)
    except OSError as e:
        raise ParamsError(f"{p}: cannot read: {e.strerror or e}") from None
    return parse_params(buf, p)


def write_params(path: str | os.PathLike[str], arrays: dict[str, np.ndarray]) -> None:
    """Write dense arrays as a ``.params`` file (V2 arrays; names as given,
    e.g. ``arg:fc_weight``): the format MXNet 1.x saves, for tests and tools."""
    parts = [np.array([LIST_MAGIC, 0, len(arrays)], "<u8").tobytes()]
    for arr in arrays.values():
        a = np.ascontiguousarray(arr)
        flag = FLAGS[a.dtype.name]
        parts.append(np.array([V2_MAGIC], "<u4").tobytes())
        parts.append(np.array([DENSE, a.ndim], "<i4").tobytes())
        parts.append(np.array(a.shape, "<i8").tobytes())
        parts.append(np.array([1, 0, flag], "<i4").tobytes())
        parts.append(a.astype(a.dtype.newbyteorder("<"), copy=False).tobytes())
    parts.append(np.array([len(arrays)], "<u8").tobytes())
    for name in arrays:
        b = name.encode("utf-8")
        parts.append(np.array([len(b)], "<u8").tobytes() + b)
    with open(path, "wb") as f:
        f.write(b"".join(parts))


__all__ = ["DTYPES", "FLAGS", "Param", "ParamsError", "parse_params", "read_params", "write_params"]
