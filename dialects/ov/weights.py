"""Weights: constant payloads that stay numpy arrays.

Large constants never become Python lists or xDSL element lists. A constant's
payload is a numpy array (possibly memory-mapped) held by reference in a
:class:`WeightStore`; the IR refers to it with the builtin MLIR attribute
``dense_resource<handle> : tensor<...>``. The store is the builtin dialect's
``OpAsmDialectInterface`` of an xmo context (see :mod:`xmo.context`), so the
textual form is MLIR's::

    %w = "ov.Constant"() <{value = dense_resource<conv1_w> : tensor<64x3x7x7xf32>}> ...
    {-#
      dialect_resources: { builtin: { conv1_w: "0x04000000..." } }
    #-}

Small constants (shapes, axes, scalars) are stored inline as ordinary
``dense<...>`` attributes, so shape inference can always read them.

Handles are unique among all live stores, so an attribute can be resolved
without knowing which context created it (:func:`resource_array`).
"""

from __future__ import annotations

import hashlib
import math
import re
import weakref
from collections.abc import Iterable

import numpy as np
from xdsl.dialect_interfaces.op_asm import OpAsmDialectInterface
from xdsl.dialects.builtin import (
    Builtin,
    BytesAttr,
    DenseIntOrFPElementsAttr,
    DenseResourceAttr,
    TensorType,
)
from xdsl.ir import Attribute
from xmo.dialects.ov import element_types as et
from xmo.errors import XmoError

#: Constants with at most this many bytes are stored inline as ``dense<...>``.
INLINE_MAX_BYTES = 64

# handle -> owning store, for every live store
_LIVE_HANDLES: weakref.WeakValueDictionary[str, WeightStore] = (
    weakref.WeakValueDictionary()
)

#: name hint -> the suffix to try first for its next handle
_NEXT_SUFFIX: dict[str, int] = {}

_HANDLE_SANITIZE = re.compile(r"[^A-Za-z0-9_.$-]")


class WeightStoreError(XmoError, KeyError):
    """A ``dense_resource`` handle with no payload behind it."""

    def __str__(self) -> str:  # KeyError quotes its message otherwise
        return str(self.args[0])


class WeightStore(OpAsmDialectInterface):
    """Per-context store of weight payloads, keyed by resource handle.

    Payloads are kept as flat ``uint8`` numpy arrays (views of the caller's
    array or a memory map, never copies) and re-typed on access from the
    attribute's tensor type.
    """

    def __init__(self, elide_larger_than: int | None = None) -> None:
        super().__init__()
        self._arrays: dict[str, np.ndarray] = {}
        #: handle -> splat payload, materialized into ``_arrays`` on first need
        self._splats: dict[str, Splat] = {}
        #: handle -> fingerprint of its payload (payloads never change)
        self._digests: dict[str, bytes] = {}
        self._parsed_keys: dict[str, str] = {}
        #: When set, payloads larger than this many bytes are left out of the
        #: printed resources section (readable FileCheck output).
        self.elide_larger_than = elide_larger_than

    # -- OpAsmDialectInterface -------------------------------------------------
    def declare_resource(self, key: str) -> str:
        """Handle for ``key`` as written in a parsed file.

        The parser declares each key once for its attribute and once for its
        resources entry, so a key seen before maps to the same handle.
        """
        if key not in self._parsed_keys:
            self._parsed_keys[key] = self._unique_handle(key)
        return self._parsed_keys[key]

    def _unique_handle(self, key: str) -> str:
        key = _HANDLE_SANITIZE.sub("_", key) or "w"
        if key[0].isdigit() or key[0] in ".$-":
            key = "w" + key
        if key in _LIVE_HANDLES:
            # resume where the last search for this key stopped: a hint used
            # n times costs O(n) in all, not O(n^2)
            counter = _NEXT_SUFFIX.get(key, 0)
            while f"{key}_{counter}" in _LIVE_HANDLES:
                counter += 1
            _NEXT_SUFFIX[key] = counter + 1
            key = f"{key}_{counter}"
        self._blob_storage[key] = ""
        _LIVE_HANDLES[key] = self
        return key

    def parse_resource(self, key: str, val: str) -> None:
        if not val.startswith("0x") or len(val) < 10:
            raise ValueError(f"blob must be a hex string, got: {val[:20]!r}")
        if key not in self._blob_storage:
            raise KeyError(f"resource with key {key} wasn't declared")
        try:
            raw = bytes.fromhex(val[10:])  # skip the 4-byte alignment header
        except ValueError:
            raise ValueError(f"resource {key} is not valid hex") from None
        self._arrays[key] = np.frombuffer(raw, dtype=np.uint8)

    def lookup(self, key: str) -> str | None:
        arr = self.get_bytes(key)
        return None if arr is None else _to_hex(arr)

    def build_resources(self, keys: Iterable[str]) -> dict[str, str]:
        out: dict[str, str] = {}
        for key in keys:
            splat = self._splats.get(key)
            if splat is not None and key not in self._arrays:
                nbytes = splat.nbytes
            else:
                arr = self._arrays.get(key)
                if arr is None:
                    continue
                nbytes = arr.nbytes
            if self.elide_larger_than is not None and nbytes > self.elide_larger_than:
                continue
            out[key] = _to_hex(self.get_bytes(key))  # type: ignore[arg-type]
        return out

    # -- payload access ------------------------------------------------------
    def add(self, array: np.ndarray, name_hint: str = "w") -> str:
        """Register ``array`` (by reference) and return its new handle."""
        key = self._unique_handle(name_hint)
        self._arrays[key] = _as_bytes_view(array)
        return key

    def add_splat(self, item: np.ndarray, count: int, name_hint: str = "w") -> str:
        """Register a payload of ``item`` (one element) repeated ``count``
        times and return its new handle; its bytes are made only when
        something asks for them (:meth:`get_bytes`)."""
        key = self._unique_handle(name_hint)
        self._splats[key] = Splat(_as_bytes_view(item), count)
        return key

    def get_bytes(self, key: str) -> np.ndarray | None:
        arr = self._arrays.get(key)
        if arr is None:
            splat = self._splats.get(key)
            if splat is not None:
                arr = self._arrays[key] = splat.materialize()
        return arr

    def get_splat(self, key: str) -> Splat | None:
        """The payload of ``key`` as a :class:`Splat` when it was added as one."""
        return self._splats.get(key)

    def __contains__(self, key: str) -> bool:
        return key in self._arrays or key in self._splats

    def handles(self) -> list[str]:
        return list(self._arrays) + [k for k in self._splats if k not in self._arrays]


class Splat:
    """A payload that is one element's bytes (``item``, flat uint8) repeated
    ``count`` times, kept so until something needs all its bytes."""

    __slots__ = ("item", "count")

    def __init__(self, item: np.ndarray, count: int) -> None:
        self.item = item
        self.count = count

    @property
    def nbytes(self) -> int:
        return self.item.nbytes * self.count

    def materialize(self) -> np.ndarray:
        """All the bytes, as a new flat uint8 array."""
        return np.tile(self.item, self.count)

    def window(self, start: int, length: int) -> np.ndarray:
        """Bytes ``[start, start + length)`` of the payload (``length`` clipped
        at its end)."""
        length = max(0, min(length, self.nbytes - start))
        size = self.item.nbytes
        off = start % size
        return np.tile(self.item, -(-(off + length) // size))[off : off + length]

    def chunks(self, chunk_bytes: int = 1 << 20) -> Iterable[np.ndarray]:
        """The bytes in order, as pieces of at most about ``chunk_bytes`` (whole
        elements; the full pieces are one shared array: do not change it)."""
        per = max(1, chunk_bytes // self.item.nbytes)
        full, rest = divmod(self.count, per)
        if full:
            piece = np.tile(self.item, per)
            for _ in range(full):
                yield piece
        if rest:
            yield np.tile(self.item, rest)


def _as_bytes_view(array: np.ndarray) -> np.ndarray:
    array = np.ascontiguousarray(array)  # copies only non-contiguous input
    return array.reshape(-1).view(np.uint8)


def _to_hex(raw: np.ndarray) -> str:
    # MLIR blob: 4-byte little-endian alignment, then the payload.
    return "0x" + (16).to_bytes(4, "little").hex() + raw.tobytes().hex()


def _builtin_fallback(key: str) -> np.ndarray | None:
    """Payload parsed by a plain xDSL context (hex strings in xDSL's own store)."""
    iface = Builtin.get_interface(OpAsmDialectInterface)
    if iface is None or isinstance(iface, WeightStore):
        return None
    val = iface.lookup(key)
    if not val:
        return None
    return np.frombuffer(bytes.fromhex(val[10:]), dtype=np.uint8)


def resource_bytes(handle: str) -> np.ndarray:
    """Raw payload of a handle, from whichever live store owns it."""
    store = _LIVE_HANDLES.get(handle)
    raw = store.get_bytes(handle) if store is not None else None
    if raw is None:
        raw = _builtin_fallback(handle)
    if raw is None:
        raise WeightStoreError(
            f"dense_resource<{handle}> has no payload (elided, or its context is gone)"
        )
    return raw


def resource_splat(handle: str) -> Splat | None:
    """The payload of a handle as a :class:`Splat` when its store holds it so."""
    store = _LIVE_HANDLES.get(handle)
    return None if store is None else store.get_splat(handle)


def constant_splat(value: Attribute | None) -> Splat | None:
    """The payload of constant attribute ``value`` as a :class:`Splat` when it
    is a ``dense_resource`` added as one (:meth:`WeightStore.add_splat`)."""
    if isinstance(value, DenseResourceAttr):
        return resource_splat(value.resource_handle.data)
    return None


def splat_scalar(value: Attribute | None) -> np.ndarray | None:
    """The repeated element of a splat ``dense_resource`` (0-d, typed), else None."""
    splat = constant_splat(value)
    if splat is None:
        return None
    assert isinstance(value, DenseResourceAttr)
    name = et.from_xdsl(value.type.get_element_type())
    if name in et.PACKED_BITS:
        return None
    return splat.item.view(et.numpy_dtype(name)).reshape(())


def _typed(raw: np.ndarray, tensor_type: Attribute) -> np.ndarray:
    assert isinstance(tensor_type, TensorType)
    name = et.from_xdsl(tensor_type.get_element_type())
    shape = tuple(tensor_type.get_shape())
    n = math.prod(shape)
    expected = et.byte_size(name, n)
    if raw.nbytes != expected:
        raise ValueError(
            f"payload has {raw.nbytes} bytes, {tensor_type} needs {expected}"
        )
    if name in et.PACKED_BITS:
        return raw  # packed payload stays raw bytes
    return raw.view(et.numpy_dtype(name)).reshape(shape)


def constant_array(value: Attribute) -> np.ndarray:
    """numpy view of a constant attribute (inline ``dense`` or ``dense_resource``).

    Packed element types (i4, u4, u1) come back as their raw bytes.
    """
    if isinstance(value, DenseResourceAttr):
        return _typed(resource_bytes(value.resource_handle.data), value.type)
    if isinstance(value, DenseIntOrFPElementsAttr):
        raw = np.frombuffer(value.data.data, dtype=np.uint8)
        name = et.from_xdsl(value.get_element_type())
        shape = tuple(value.get_shape())
        n = math.prod(shape)
        if name == "boolean":
            vals = np.frombuffer(value.data.data, dtype=np.int8)
            if vals.size == 1 and n != 1:
                vals = np.broadcast_to(vals, (n,))
            return vals.astype(np.bool_).reshape(shape)
        arr = _typed_inline(raw, name, n)
        return arr.reshape(shape)
    raise TypeError(f"not a constant payload attribute: {value}")


def _is_splat_view(array: np.ndarray, element_type: str) -> bool:
    """Whether ``array`` is one element seen at every index (all strides 0)."""
    return (
        array.size > 1
        and element_type not in et.RESOURCE_ONLY
        and element_type != "boolean"
        and not array.dtype.hasobject
        and all(s == 0 for s in array.strides)
    )


def _typed_inline(raw: np.ndarray, name: str, n: int) -> np.ndarray:
    arr = raw.view(et.numpy_dtype(name))
    if arr.size == 1 and n != 1:  # splat
        arr = np.broadcast_to(arr, (n,))
    return arr


def make_constant_attr(
    array: np.ndarray,
    element_type: str | None = None,
    store: WeightStore | None = None,
    name_hint: str = "w",
    inline_max_bytes: int = INLINE_MAX_BYTES,
) -> Attribute:
    """Attribute holding ``array`` as an ``element_type`` tensor.

    Small arrays become inline ``dense<...>``; larger ones go into ``store`` by
    reference (no copy for contiguous input) as ``dense_resource``.
    """
    if element_type is None:
        element_type = et.from_numpy(array.dtype)
    from xmo.dialects.ov.base import tensor

    ttype = tensor(element_type, array.shape)
    if element_type not in et.PACKED_BITS:
        want = et.numpy_dtype(element_type)
        if array.dtype != want:
            array = array.astype(want)
    if element_type in et.RESOURCE_ONLY or (
        array.nbytes > inline_max_bytes and store is not None
    ):
        if store is None:
            raise ValueError(f"{element_type} constants need a weight store")
        if _is_splat_view(array, element_type):
            # one element broadcast (np.broadcast_to): kept as a lazy splat
            handle = store.add_splat(array.reshape(-1)[:1], array.size, name_hint)
        else:
            handle = store.add(array, name_hint)
        return DenseResourceAttr.from_params(handle, ttype)
    if element_type == "boolean":
        data = np.ascontiguousarray(array, dtype=np.int8).tobytes()
    else:
        data = np.ascontiguousarray(array).tobytes()
    return DenseIntOrFPElementsAttr(ttype, BytesAttr(data))


# ---------------------------------------------------------------------------
# Payload identity (CSE of constants, the .bin writer's deduplication)
# ---------------------------------------------------------------------------

#: payloads up to this size are hashed whole; larger ones by a sample
_WHOLE_HASH_BYTES = 1 << 16
_SAMPLE_BLOCKS = 4
_SAMPLE_BLOCK_BYTES = 1024
_COMPARE_CHUNK = 4 << 20


def fingerprint(raw: np.ndarray | Splat) -> bytes:
    """Cheap digest of a flat uint8 payload: equal payloads have equal digests.

    Small payloads are hashed whole; large ones by their size and a few evenly
    spaced blocks, so a memory-mapped weight is not read in full (only payloads
    whose fingerprints collide are compared byte for byte, see
    :func:`same_bytes`). A :class:`Splat` has the digest of its bytes, made
    from no more of them than the digest reads."""
    n = raw.nbytes
    if n <= _WHOLE_HASH_BYTES:
        if isinstance(raw, Splat):
            raw = raw.materialize()
        return hashlib.blake2b(memoryview(raw), digest_size=16).digest()
    h = hashlib.blake2b(n.to_bytes(8, "little"), digest_size=16)
    step = (n - _SAMPLE_BLOCK_BYTES) // (_SAMPLE_BLOCKS - 1)
    for i in range(_SAMPLE_BLOCKS):
        h.update(memoryview(_window(raw, i * step, _SAMPLE_BLOCK_BYTES)))
    return h.digest()


def _window(raw: np.ndarray | Splat, start: int, length: int) -> np.ndarray:
    if isinstance(raw, Splat):
        return raw.window(start, length)
    return raw[start : start + length]


def same_bytes(a: np.ndarray | Splat, b: np.ndarray | Splat) -> bool:
    """Whether two flat uint8 payloads are byte-identical (compared in chunks;
    a :class:`Splat` is compared without making all its bytes)."""
    if a.nbytes != b.nbytes:
        return False
    if a is b:
        return True
    if isinstance(a, Splat) and isinstance(b, Splat):
        if a.item.nbytes == b.item.nbytes:
            return bool(np.array_equal(a.item, b.item))
        period = math.lcm(a.item.nbytes, b.item.nbytes)
        return bool(np.array_equal(a.window(0, period), b.window(0, period)))
    if isinstance(a, np.ndarray) and isinstance(b, np.ndarray) and (
        a.__array_interface__["data"][0] == b.__array_interface__["data"][0]
    ):
        return True
    for i in range(0, a.nbytes, _COMPARE_CHUNK):
        if not np.array_equal(_window(a, i, _COMPARE_CHUNK), _window(b, i, _COMPARE_CHUNK)):
            return False
    return True


def payload_fingerprint(value: Attribute | None, raw: np.ndarray | Splat) -> bytes:
    """:func:`fingerprint` of ``raw``, the payload of constant attribute
    ``value``; for a ``dense_resource`` the digest is kept by its store, so
    the passes and the writer that each key a weight hash it once."""
    if isinstance(value, DenseResourceAttr):
        handle = value.resource_handle.data
        store = _LIVE_HANDLES.get(handle)
        if store is not None and handle in store:
            digest = store._digests.get(handle)
            if digest is None:
                digest = store._digests[handle] = fingerprint(raw)
            return digest
    return fingerprint(raw)


def fingerprint_is_digest(nbytes: int) -> bool:
    """Whether :func:`fingerprint` hashes a payload of ``nbytes`` whole (a
    128-bit BLAKE2b digest: equal fingerprints then mean equal bytes, with
    the probability of a collision far below that of a hardware fault)."""
    return nbytes <= _WHOLE_HASH_BYTES
