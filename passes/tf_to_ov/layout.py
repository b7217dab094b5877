"""Layouts: TensorFlow's channels-last tensors around OpenVINO's channels-first ops.

A layout-sensitive op with ``data_format`` NHWC (NDHWC, NWC) is emitted as::

    Transpose(x, [0, 3, 1, 2]) -> NCHW ov op -> Transpose(y, [0, 2, 3, 1])

and its HWIO (DHWIO) filter as ``Transpose(w, [3, 2, 0, 1])`` (OIHW). The
transposes are plain ``ov.Transpose`` ops with constant i64 permutations so that
``ov-transpose-sinking`` can cancel pairs of them and ``ov-constant-fold`` can
fold the ones on constants. NCHW ops need none of this.

Attribute vectors given in ``data_format`` order (strides, dilations, ksize,
explicit paddings) are reduced to their spatial entries with :func:`spatial`.
"""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.ir import SSAValue
from xmo.passes.tf_to_ov.builder import TFBuilder
from xmo.passes.to_ov.builder import ConverterNode


def to_channels_first_perm(rank: int) -> list[int]:
    """``[0, r-1, 1, ..., r-2]``: NHWC -> NCHW (NDHWC -> NCDHW)."""
    return [0, rank - 1, *range(1, rank - 1)]


def to_channels_last_perm(rank: int) -> list[int]:
    """``[0, 2, ..., r-1, 1]``: NCHW -> NHWC (NCDHW -> NDHWC)."""
    return [0, *range(2, rank), 1]


def filter_perm(rank: int) -> list[int]:
    """``[r-1, r-2, 0, ..., r-3]``: HWIO -> OIHW (DHWIO -> OIDHW)."""
    return [rank - 1, rank - 2, *range(rank - 2)]


def to_nchw(b: TFBuilder, x: SSAValue, rank: int) -> SSAValue:
    return b.transpose(x, to_channels_first_perm(rank))


def to_nhwc(b: TFBuilder, y: SSAValue, rank: int) -> SSAValue:
    return b.transpose(y, to_channels_last_perm(rank))


def hwio_to_oihw(b: TFBuilder, w: SSAValue, rank: int) -> SSAValue:
    return b.transpose(w, filter_perm(rank))


def spatial(node: ConverterNode, values: Sequence[int], rank: int, what: str) -> list[int]:
    """The spatial entries of a per-dimension attribute in ``data_format`` order."""
    values = [int(v) for v in values]
    if len(values) != rank:
        raise node.unsupported(f"{what} must have {rank} values, got {len(values)}")
    if node.channels_last:
        batch, channel, sp = values[0], values[-1], values[1:-1]
    else:
        batch, channel, sp = values[0], values[1], values[2:]
    if what in ("strides", "dilations", "ksize") and (batch != 1 or channel != 1):
        raise node.unsupported(f"{what} on the batch or channel dimension")
    return sp


def spatial_pads(node: ConverterNode, rank: int) -> tuple[list[int], list[int]]:
    """pads_begin / pads_end from ``explicit_paddings`` (pairs in data_format order)."""
    p = node.int_list("explicit_paddings")
    if len(p) != 2 * rank:
        raise node.unsupported(f"explicit_paddings must have {2 * rank} values")
    begins, ends = p[0::2], p[1::2]
    if node.channels_last:
        nc = (begins[0], ends[0], begins[-1], ends[-1])
        pb, pe = begins[1:-1], ends[1:-1]
    else:
        nc = (begins[0], ends[0], begins[1], ends[1])
        pb, pe = begins[2:], ends[2:]
    if any(nc):
        raise node.unsupported("explicit padding of the batch or channel dimension")
    return pb, pe


def channel_axis(node: ConverterNode, rank: int) -> int:
    return rank - 1 if node.channels_last else 1


class Layout:
    """In/out of the channels-first world for one node (no-ops for NCHW)."""

    def __init__(self, node: ConverterNode, b: TFBuilder, rank: int) -> None:
        self.node, self.b, self.rank = node, b, rank
        self.last = node.channels_last

    def enter(self, x: SSAValue) -> SSAValue:
        return to_nchw(self.b, x, self.rank) if self.last else x

    def leave(self, y: SSAValue) -> SSAValue:
        return to_nhwc(self.b, y, self.rank) if self.last else y


__all__ = [
    "Layout",
    "channel_axis",
    "filter_perm",
    "hwio_to_oihw",
    "spatial",
    "spatial_pads",
    "to_channels_first_perm",
    "to_channels_last_perm",
    "to_nchw",
    "to_nhwc",
]
