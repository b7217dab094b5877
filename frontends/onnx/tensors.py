"""ONNX tensors and types -> xDSL attributes and types.

Payloads are never converted to Python lists:

* ``raw_data`` -> ``np.frombuffer`` on the protobuf bytes (protobuf's upb
  backend copies them out of the message); a large one of a model read from a
  file was lifted before parsing (:mod:`xmo.frontends.onnx.wire`) and is a
  slice of the model file's map, as external data is
* external data -> a slice of a read-only ``numpy.memmap`` of the file (one map
  per file); the location must be a relative path inside the model's folder
  (no ``..``, not absolute, no symlink whose real path leaves the folder) and
  name a regular file with one link (no hard link to a file elsewhere)
* typed repeated fields (``float_data``, ``int32_data`` holding f16/bf16/
  bool/int8/float8 values, ...) -> one conversion into a new numpy array in the
  raw little-endian layout ``raw_data`` would have had

The payload then becomes ``dense<...>`` (small, OpenVINO element types) or
``dense_resource<...>`` in the context's weight store (by reference).
"""

from __future__ import annotations

import math
import os
import re
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np
from xdsl.dialects.builtin import (
    DYNAMIC_INDEX,
    ArrayAttr,
    DenseArrayBase,
    DenseResourceAttr,
    DictionaryAttr,
    Float32Type,
    StringAttr,
    TensorType,
    UnrankedTensorType,
    i64,
)
from xdsl.ir import Attribute
from xmo import budget
from xmo.dialects.onnx.types import (
    ELEMENT_TYPES,
    MapType,
    OptType,
    SeqType,
    StringTensorAttr,
    StringType,
)
from xmo.dialects.ov import element_types as et
from xmo.dialects.ov.base import tensor
from xmo.dialects.ov.weights import WeightStore, make_constant_attr
from xmo.frontends.onnx.errors import OnnxFrontendError
from xmo.frontends.onnx.wire import LIFTED
from xmo.input_files import map_input, open_input

if TYPE_CHECKING:
    import onnx

f32 = Float32Type()

#: ONNX TensorProto.DataType value -> (ONNX element type name, bits per element)
_DTYPES: dict[int, tuple[str, int]] = {
    1: ("float", 32), 2: ("uint8", 8), 3: ("int8", 8), 4: ("uint16", 16),
    5: ("int16", 16), 6: ("int32", 32), 7: ("int64", 64), 8: ("string", 0),
    9: ("bool", 8), 10: ("float16", 16), 11: ("double", 64), 12: ("uint32", 32),
    13: ("uint64", 64), 14: ("complex64", 64), 15: ("complex128", 128),
    16: ("bfloat16", 16), 17: ("float8e4m3fn", 8), 18: ("float8e4m3fnuz", 8),
    19: ("float8e5m2", 8), 20: ("float8e5m2fnuz", 8), 21: ("uint4", 4),
    22: ("int4", 4), 23: ("float4e2m1", 4), 24: ("float8e8m0", 8),
    25: ("uint2", 2), 26: ("int2", 2), 27: ("float6e2m3", 6), 28: ("float6e3m2", 6),
}  # fmt: skip

#: data types whose values sit one per int32_data entry, stored in 8/16 bits
_INT32_AS_U8 = {2, 3, 9, 17, 18, 19, 20, 24}
_INT32_AS_U16 = {4, 5, 10, 16}
#: packed types whose int32_data entries are whole packed bytes
_INT32_PACKED = {21, 22, 23, 25, 26}

_EXTERNAL = 1  # TensorProto.DataLocation.EXTERNAL


def element_type_of(data_type: int) -> Attribute | None:
    """ONNX data type number -> xDSL element type (None: undefined/unknown)."""
    entry = _DTYPES.get(data_type)
    return ELEMENT_TYPES[entry[0]] if entry else None


def dtype_name(data_type: int) -> str:
    entry = _DTYPES.get(data_type)
    return entry[0] if entry else f"data type {data_type}"


# ---------------------------------------------------------------------------
# Types
# ---------------------------------------------------------------------------


def dims_of(shape: onnx.TensorShapeProto) -> tuple[list[int], list[str]]:
    """Static dims (DYNAMIC_INDEX for unknown) and dim_param symbols ("" if none)."""
    dims: list[int] = []
    params: list[str] = []
    for d in shape.dim:
        which = d.WhichOneof("value")
        if which == "dim_value" and d.dim_value >= 0:
            dims.append(int(d.dim_value))
            params.append("")
        else:
            dims.append(DYNAMIC_INDEX)
            params.append(d.dim_param if which == "dim_param" else "")
    return dims, params


def xdsl_type(tp: onnx.TypeProto) -> Attribute | None:
    """ONNX TypeProto -> xDSL type; None when the type (or its element type) is unknown.

    Sparse tensors are given the dense tensor type of their values.
    """
    kind = tp.WhichOneof("value")
    if kind in ("tensor_type", "sparse_tensor_type"):
        tt = getattr(tp, kind)
        el = element_type_of(tt.elem_type)
        if el is None:
            return None
        if not tt.HasField("shape"):
            return UnrankedTensorType(el)
        return tensor(el, dims_of(tt.shape)[0])
    if kind == "sequence_type":
        inner = xdsl_type(tp.sequence_type.elem_type)
        return SeqType(inner) if inner is not None else None
    if kind == "optional_type":
        inner = xdsl_type(tp.optional_type.elem_type)
        return OptType(inner) if inner is not None else None
    if kind == "map_type":
        key = element_type_of(tp.map_type.key_type)
        val = xdsl_type(tp.map_type.value_type)
        if key is None or val is None:
            return None
        if isinstance(val, TensorType | UnrankedTensorType):
            val = val.get_element_type()
        return MapType(key, val)
    return None


def type_attr(tp: onnx.TypeProto) -> Attribute:
    """A TYPE_PROTO attribute value: the xDSL type, or a placeholder string."""
    t = xdsl_type(tp)
    return t if t is not None else StringAttr(f"unknown type: {tp}".replace("\n", " "))


# ---------------------------------------------------------------------------
# Payloads
# ---------------------------------------------------------------------------


@dataclass(frozen=True)
class LiftedPayloads:
    """The map of a model file whose large payloads were lifted
    (:mod:`xmo.frontends.onnx.wire`) and their (offset, length) spans."""

    model_file: np.ndarray
    spans: frozenset[tuple[int, int]]


class ExternalData:
    """Resolves and memory-maps external tensor data inside one folder."""

    def __init__(
        self, base_dir: str | os.PathLike[str] | None, lifted: LiftedPayloads | None = None
    ) -> None:
        self.base_dir = os.fspath(base_dir) if base_dir is not None else None
        self._maps: dict[str, np.ndarray] = {}
        #: location ``wire.LIFTED`` at one of these spans reads the model file
        self.lifted = lifted

    def resolve(self, tensor_name: str, location: str) -> str:
        what = f"tensor '{tensor_name}': external data location '{location}'"
        if self.base_dir is None:
            raise OnnxFrontendError(
                f"{what}: the model was not loaded from a file, so external data "
                "cannot be located (pass base_dir=...)"
            )
        if not location:
            raise OnnxFrontendError(f"tensor '{tensor_name}': external data has no location")
        if "\x00" in location:
            raise OnnxFrontendError(f"{what} contains a NUL character")
        if (
            os.path.isabs(location)
            or location.startswith(("/", "\\"))
            or re.match(r"^[A-Za-z]:", location)
        ):
            raise OnnxFrontendError(
                f"{what} is an absolute path; it must be relative to the model's folder"
            )
        if ".." in re.split(r"[\\/]+", location):
            raise OnnxFrontendError(
                f"{what} contains '..'; it must stay inside the model's folder"
            )
        base = os.path.realpath(self.base_dir)
        real = os.path.realpath(os.path.join(base, location))
        if os.path.commonpath([base, real]) != base:
            raise OnnxFrontendError(
                f"{what} resolves to {real}, outside the model's folder {base} "
                "(symbolic link?)"
            )
        if not os.path.isfile(real):
            raise OnnxFrontendError(f"{what}: no such file in {base}")
        return real

    @staticmethod
    def _map(tensor_name: str, location: str, path: str) -> np.ndarray:
        """The file ``path`` mapped, once it is known to be a regular file with
        one link: a hard link has no path of its own to check, and its other
        names may be anywhere (the bytes of a file outside the folder would
        reach the IR), so a file with more than one is refused."""
        with open_input(path, OnnxFrontendError) as f:
            links = os.fstat(f.fileno()).st_nlink
            if links != 1:
                raise OnnxFrontendError(
                    f"tensor '{tensor_name}': external data file '{location}' has {links} "
                    "hard links: its other names may lie outside the model's folder (copy "
                    "the file into the folder instead of linking it)"
                )
            return map_input(f)

    def read(self, t: onnx.TensorProto) -> np.ndarray:
        """Flat uint8 memmap slice holding ``t``'s external payload (a copy
        when the slice is not aligned to ``t``'s element size)."""
        info = {e.key: e.value for e in t.external_data}
        location = info.get("location", "")
        lifted = self.lifted.model_file if self.lifted is not None and location == LIFTED else None
        path = "the model file" if lifted is not None else self.resolve(t.name, location)
        try:
            offset = int(info.get("offset", 0) or 0)
            length = int(info["length"]) if info.get("length") else None
        except ValueError:
            raise OnnxFrontendError(
                f"tensor '{t.name}': external data offset/length are not integers"
            ) from None
        if lifted is not None:
            if (offset, length) not in self.lifted.spans:  # type: ignore[union-attr]
                self.resolve(t.name, location)  # not lifted by the walk: refused as any NUL location
            mm = lifted
        else:
            mm = self._maps.get(path)
            if mm is None:
                mm = self._map(t.name, location, path)
                self._maps[path] = mm
        end = mm.size if length is None else offset + length
        if offset < 0 or end > mm.size or end < offset:
            raise OnnxFrontendError(
                f"tensor '{t.name}': external data [{offset}, {end}) lies outside "
                f"{os.path.basename(path)} ({mm.size} bytes)"
            )
        view = mm[offset:end]
        if t.data_type in _DTYPES and view.ctypes.data % _alignment(t.data_type):
            # a misaligned view: an aligned copy (a lifted payload's copy stands
            # for the one parsing made before, which is not charged either)
            if lifted is None:
                budget.charge(view.size, f"tensor '{t.name}'")
            view = np.array(view)  # a plain array (memmap.copy() would stay a memmap)
        return view


def _typed_field_bytes(t: onnx.TensorProto, n: int) -> np.ndarray | None:
    """Raw little-endian layout of a tensor stored in typed repeated fields."""
    dt = t.data_type
    if dt in (1, 14):
        arr = np.asarray(t.float_data, dtype=np.float32)
    elif dt in (11, 15):
        arr = np.asarray(t.double_data, dtype=np.float64)
    elif dt == 7:
        arr = np.asarray(t.int64_data, dtype=np.int64)
    elif dt in (12, 13):
        arr = np.asarray(t.uint64_data, dtype=np.uint64)
        if dt == 12:
            arr = arr.astype(np.uint32)
    elif dt == 6:
        arr = np.asarray(t.int32_data, dtype=np.int32)
    elif dt in _INT32_AS_U8 or dt in _INT32_PACKED:
        arr = np.asarray(t.int32_data, dtype=np.int64).astype(np.uint8)
    elif dt in _INT32_AS_U16:
        arr = np.asarray(t.int32_data, dtype=np.int64).astype(np.uint16)
    else:
        return None
    return arr.view(np.uint8).reshape(-1)


def stored_bytes(t: onnx.TensorProto) -> int:
    """About the bytes ``t``'s payload takes, from its data type and dims.

    Not ``t.ByteSize()``: protobuf's upb backend serializes the message to
    measure it, a copy of every weight (0.1 s of convnext_tiny's conversion).
    Strings and unknown types fall back to it."""
    n = payload_nbytes(t.data_type, math.prod(t.dims))
    return t.ByteSize() if n is None else n


def payload_nbytes(data_type: int, n: int) -> int | None:
    """Bytes of ``n`` elements of ``data_type`` stored raw (None: strings or
    an unknown type)."""
    entry = _DTYPES.get(data_type)
    if entry is None or entry[1] == 0:
        return None
    return _expected_bytes(data_type, n)


def _alignment(data_type: int) -> int:
    """Address alignment a payload of ``data_type`` needs to be viewed as its
    numpy type (numpy's aligned flag, which compiled kernels expect)."""
    bits = _DTYPES[data_type][1]
    return max(1, min(8, bits // 8))


def _expected_bytes(data_type: int, n: int) -> int:
    bits = _DTYPES[data_type][1]
    return (n * bits + 7) // 8


def tensor_payload(
    t: onnx.TensorProto, external: ExternalData
) -> tuple[np.ndarray | list[bytes], list[int]]:
    """(flat uint8 payload or list of strings, dims) of a TensorProto."""
    name = t.name or "<unnamed>"
    if t.data_type not in _DTYPES:
        raise OnnxFrontendError(
            f"tensor '{name}': unsupported or undefined data type {t.data_type}"
        )
    if t.HasField("segment"):
        raise OnnxFrontendError(f"tensor '{name}': segmented tensors are not supported")
    dims = [int(d) for d in t.dims]
    if any(d < 0 for d in dims):
        raise OnnxFrontendError(f"tensor '{name}': negative dimension in {dims}")
    n = math.prod(dims)
    if t.data_type == 8:  # string
        values = list(t.string_data)
        if len(values) != n:
            raise OnnxFrontendError(
                f"tensor '{name}': {len(values)} strings for shape {dims}"
            )
        return values, dims
    if t.data_location == _EXTERNAL:
        raw = external.read(t)
        where = "external data"
    elif t.HasField("raw_data"):
        raw = np.frombuffer(t.raw_data, dtype=np.uint8)
        where = "raw_data"
    else:
        budget.charge(_expected_bytes(t.data_type, n), f"tensor '{name}'")
        conv = _typed_field_bytes(t, n)
        if conv is None:  # float6 in int32_data: let onnx repack it
            from onnx import numpy_helper

            try:
                packed = numpy_helper.from_array(numpy_helper.to_array(t)).raw_data
            except Exception as e:  # noqa: BLE001
                raise OnnxFrontendError(
                    f"tensor '{name}': cannot read {dtype_name(t.data_type)} data: {e}"
                ) from None
            conv = np.frombuffer(packed, dtype=np.uint8)
        raw = conv
        where = "typed data"
    want = _expected_bytes(t.data_type, n)
    if raw.size != want:
        raise OnnxFrontendError(
            f"tensor '{name}': {where} has {raw.size} bytes, "
            f"{dtype_name(t.data_type)} shape {dims} needs {want}"
        )
    return raw, dims


def _decode(b: bytes) -> str:
    return b.decode("utf-8", errors="backslashreplace")


def payload_attr(
    data_type: int,
    payload: np.ndarray | list[bytes],
    dims: list[int],
    store: WeightStore,
    name_hint: str,
) -> Attribute:
    """Constant attribute for a payload from :func:`tensor_payload`."""
    el = element_type_of(data_type)
    assert el is not None
    if isinstance(payload, list):
        return StringTensorAttr(
            TensorType(StringType(), dims), ArrayAttr([StringAttr(_decode(s)) for s in payload])
        )
    hint = name_hint or "w"
    if et.is_ov_element_type(el):
        ov = et.from_xdsl(el)
        if ov not in et.PACKED_BITS:
            typed = payload.view(et.numpy_dtype(ov)).reshape(dims)
            return make_constant_attr(typed, ov, store, hint)
    # packed or non-OpenVINO element types: raw bytes by reference
    return DenseResourceAttr.from_params(store.add(payload, hint), tensor(el, dims))


def tensor_attr(
    t: onnx.TensorProto, store: WeightStore, external: ExternalData, name_hint: str = ""
) -> Attribute:
    payload, dims = tensor_payload(t, external)
    return payload_attr(t.data_type, payload, dims, store, name_hint or t.name)


def tensor_type_of(t: onnx.TensorProto) -> Attribute:
    el = element_type_of(t.data_type)
    if el is None:
        raise OnnxFrontendError(
            f"tensor '{t.name}': unsupported or undefined data type {t.data_type}"
        )
    return tensor(el, [int(d) for d in t.dims])


def sparse_attr(
    st: onnx.SparseTensorProto, store: WeightStore, external: ExternalData, hint: str
) -> DictionaryAttr:
    """A sparse tensor, kept generic: ``{values, indices, dims}``."""
    return DictionaryAttr(
        {
            "values": tensor_attr(st.values, store, external, hint + "_values"),
            "indices": tensor_attr(st.indices, store, external, hint + "_indices"),
            "dims": DenseArrayBase.from_list(i64, [int(d) for d in st.dims]),
        }
    )


def sparse_type(st: onnx.SparseTensorProto) -> Attribute:
    el = element_type_of(st.values.data_type) or f32
    return TensorType(el, [int(d) for d in st.dims])
