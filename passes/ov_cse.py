"""``ov-cse``: common sub-expression elimination on ov ops.

Two ops of the same class, with the same operands (the same SSA values, in
order) and the same attributes, compute the same thing: the later one is
replaced by the earlier. Constants are merged when their element type, shape
and bytes are equal (inline constants and weights up to ``max_const_bytes``;
larger payloads when they are the same stored array, or when another large
constant has the same type, then by their bytes). Payloads are keyed by a
cheap fingerprint (a 128-bit hash of the whole payload up to 64 KiB: equal
hashes merge; a hash of a few sampled blocks above, so a memory-mapped weight
is not read in full, and those are compared byte for byte when fingerprints
collide). Names follow
OpenVINO's shared-op rule: the surviving op keeps its friendly name, the
tensor names of the eliminated outputs are added to the survivor's.
Constants read as a convolution's or MatMul's bias / scale merge only with
equal ones on the same output (the CPU plugin fuses a bias only when its
Constant is not shared).

A MatMul weight that is another constant transposed (an exporter's folded
``Transpose`` of a tied embedding: GPT-2's LM head reads ``W^T`` while the
token embedding gathers from ``W``) is read as that constant with
``transpose_b`` flipped, as OpenVINO's IR has it: the model stores the
weights once (``_merge_transposed_weights``; 2-D float constants read only
as MatMul weights, compared byte for byte when the other constant has the
transposed shape).

Only ops without side effects merge (``is_pure`` of :mod:`xmo.dialects.ov.traits`:
not state, random ops, Parameters or Results), and no op with regions.

Why not xDSL's ``cse`` pass: it compares every property, so two ops that
differ only in their names (``friendly_name``, ``tensor_names``, ``rt_info``:
every converted op has its own) never merge, and it compares constants by
their attributes, so equal weights stored twice (two ``dense_resource``
handles) stay apart. Measured with the pipeline's ``ov-cse`` disabled, then
each pass plus DCE: xmo's removes 90 of densenet121's 740 ops, 30 of
resnet50's 288, 39 of shufflenet's 275, 25 of inception_v2's 356; xDSL's
``cse`` none of them (in about the same time).
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

import numpy as np
from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Attribute, Block, Operation
from xdsl.passes import ModulePass
from xmo.dialects.ov import ConstantOp, ParameterOp, ResultOp
from xmo.dialects.ov.base import OVOp, constant_value_of
from xmo.dialects.ov.control_ops import graph_blocks
from xmo.dialects.ov.traits import is_pure
from xmo.dialects.ov.weights import (
    Splat,
    constant_splat,
    fingerprint_is_digest,
    payload_fingerprint,
    same_bytes,
)

#: properties that name an op rather than define what it computes
_NAMING = {"friendly_name", "tensor_names", "rt_info"}


#: producers whose per-channel Add / Multiply the CPU plugin fuses into them
_BIASED = {"Convolution", "GroupConvolution", "ConvolutionBackpropData",
           "GroupConvolutionBackpropData", "MatMul"}


def _bias_of(op: ConstantOp) -> object | None:
    """The convolution / MatMul output a constant is the bias or scale of.

    Such constants merge only with equal ones on the same output: OpenVINO's
    CPU plugin fuses a bias only when its Constant is not shared, so equal
    biases of different layers (zeros, say) stay apart."""
    for u in op.results[0].uses:
        user = u.operation
        if getattr(user, "OV_TYPE", None) in ("Add", "Multiply") and len(user.operands) == 2:
            other = user.operands[1 - u.index]
            if getattr(other.owner, "OV_TYPE", None) in _BIASED:
                return other
    return None


def _const_key(op: ConstantOp, max_bytes: int, twins: set[Attribute] | frozenset = frozenset()) -> tuple | None:
    key = _value_key(op, max_bytes, twins)
    bias_of = _bias_of(op)
    return key if key is None or bias_of is None else (*key, "bias of", id(bias_of))


def _value_key(op: ConstantOp, max_bytes: int, twins: set[Attribute] | frozenset) -> tuple | None:
    raw = _payload(op)
    if raw is None:
        return None
    t = op.results[0].type
    if raw.nbytes > max_bytes and t not in twins:
        return ("big", t, id(op.value))
    return ("const", t, payload_fingerprint(op.properties.get("value"), raw))


def _payload(op: ConstantOp) -> np.ndarray | Splat | None:
    """The constant's bytes (flat uint8), or its :class:`Splat` (not made)."""
    splat = constant_splat(op.properties.get("value"))
    if splat is not None:
        return splat
    arr = constant_value_of(op.results[0])
    return None if arr is None else _raw(arr)


def _raw(arr: np.ndarray) -> np.ndarray:
    """Flat uint8 view (a copy only for non-contiguous input)."""
    if arr.dtype.hasobject:  # no byte view: the pointers, as tobytes() gives
        return np.frombuffer(arr.tobytes(), np.uint8)
    return np.ascontiguousarray(arr).reshape(-1).view(np.uint8)


def _nbytes(op: ConstantOp) -> int:
    t = op.results[0].type
    try:
        n = 1
        for d in t.get_shape():  # type: ignore[attr-defined]
            n *= max(d, 0)
        return n * max(1, t.get_element_type().bitwidth // 8)  # type: ignore[attr-defined]
    except Exception:  # noqa: BLE001
        return 0


def _op_key(op: OVOp) -> tuple | None:
    if not is_pure(op) or op.regions or not op.results:
        return None
    # attributes are immutable and hashable (floats compare by their bits)
    props = tuple(sorted((k, v) for k, v in op.properties.items() if k not in _NAMING))
    return (op.name, tuple(op.operands), props, tuple(r.type for r in op.results))


def _merge(dup: OVOp, keep: OVOp, names: dict[tuple[OVOp, int], dict[str, None]]) -> None:
    """Replace ``dup`` by ``keep``; ``dup``'s tensor names are collected in
    ``names`` (survivor output -> ordered names), set once at the end: a
    constant that absorbs k others would otherwise rebuild its names k times."""
    for i, (a, b) in enumerate(zip(dup.results, keep.results)):
        extra = dup.get_tensor_names(i)
        if extra:
            acc = names.get((keep, i))
            if acc is None:
                acc = names[(keep, i)] = dict.fromkeys(keep.get_tensor_names(i))
            acc.update(dict.fromkeys(extra))
        a.replace_all_uses_with(b)
    dup.detach()
    dup.erase()


@dataclass(frozen=True)
class OVCSEPass(ModulePass):
    """Merge identical ov ops and equal constants (see module docstring)."""

    name = "ov-cse"
    max_const_bytes: int = 1 << 16

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        # each graph on its own: the model's, then every body's (an op never
        # merges with one of another graph: bodies are IsolatedFromAbove)
        for block in graph_blocks(op):
            self._merge_in(block)
            _merge_transposed_weights(block)

    def _merge_in(self, block: Block) -> None:
        seen: dict[tuple, Operation] = {}
        # large constants are compared (hashed) only when another large
        # constant has the same type: equal weights made twice (a folded
        # ConstantFill per layer) merge, unique weights cost nothing
        big = Counter(
            o.results[0].type for o in block.ops
            if isinstance(o, ConstantOp) and _nbytes(o) > self.max_const_bytes
        )
        twins = {t for t, n in big.items() if n > 1}
        consts: dict[tuple, list[Operation]] = {}
        names: dict[tuple[OVOp, int], dict[str, None]] = {}
        for o in list(block.ops):
            if not isinstance(o, OVOp) or isinstance(o, ParameterOp | ResultOp):
                continue
            key = (
                _const_key(o, self.max_const_bytes, twins)
                if isinstance(o, ConstantOp) else _op_key(o)
            )
            if key is None:
                continue
            first = seen.get(key)
            if first is None:
                seen[key] = o
            elif key[0] != "const":
                _merge(o, first, names)  # type: ignore[arg-type]
            elif fingerprint_is_digest(_nbytes(o)):  # type: ignore[arg-type]
                _merge(o, first, names)  # type: ignore[arg-type]  # equal digests
            else:  # equal sampled fingerprints: merge with a constant of equal bytes
                same = consts.setdefault(key, [first])
                mine = _payload(o)  # type: ignore[arg-type]
                for c in same:
                    if same_bytes(mine, _payload(c)):  # type: ignore[arg-type]
                        _merge(o, c, names)  # type: ignore[arg-type]
                        break
                else:
                    same.append(o)
        for (keep, i), acc in names.items():
            keep.set_tensor_names(i, list(acc))


def _merge_transposed_weights(block: Block) -> None:
    """MatMul(x, C) where C == D^T for another constant D: MatMul(x, D) with
    ``transpose_b`` flipped (C then unused; see the module docstring)."""
    by_type: dict[tuple, list[ConstantOp]] = {}
    for o in block.ops:
        if isinstance(o, ConstantOp) and _nbytes(o) > 64:
            t = o.results[0].type
            shape = tuple(t.get_shape())  # type: ignore[attr-defined]
            if len(shape) == 2:
                by_type.setdefault((t.get_element_type(), shape), []).append(o)  # type: ignore[attr-defined]
    for (etype, (k, n)), consts in list(by_type.items()):
        others = by_type.get((etype, (n, k)))
        if not others or k == n:
            continue
        for c in consts:
            readers = [u for u in c.results[0].uses]
            if not readers or not all(getattr(u.operation, "OV_TYPE", None) == "MatMul" and u.index == 1
                                      for u in readers):
                continue
            value = constant_value_of(c.results[0], splat_view=True)
            if value is None or value.dtype.kind != "f":
                continue
            twin = next((d for d in others if d is not c and _is_transpose(
                constant_value_of(d.results[0], splat_view=True), value)), None)
            if twin is None:
                continue
            for u in readers:
                mm = u.operation
                mm.operands[1] = twin.results[0]
                mm.set_attr("transpose_b", not bool(mm.attr("transpose_b")))  # type: ignore[attr-defined]


def _is_transpose(d: np.ndarray | None, value: np.ndarray) -> bool:
    """``d == value.T``; a few sampled entries first, so that unequal weights
    of transposed shapes (every Linear pair of a transformer or ConvNeXt
    block, each read against each) cost no full strided compare."""
    if d is None or d.shape != value.shape[::-1]:
        return False
    k, n = value.shape
    rows = np.linspace(0, k - 1, num=min(k, 8), dtype=np.intp)
    cols = np.linspace(0, n - 1, num=min(n, 8), dtype=np.intp)
    sample = value[np.ix_(rows, cols)]
    if not np.array_equal(d[np.ix_(cols, rows)], sample.T, equal_nan=False):
        return False
    return bool(np.array_equal(d, value.T))
