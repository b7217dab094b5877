"""Time context: nnet3 descriptors (Append, Offset, Sum, Scale, DimRange),
nnet1 Splice, TdnnComponent's time offsets.

:func:`~xmo.passes.kaldi_to_ov.frames.align` slices values of different
margins, each read at a time offset, to the frames they all have.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from xdsl.ir import SSAValue

from xmo.passes.kaldi_to_ov.convert import KaldiNode
from xmo.passes.kaldi_to_ov.frames import align
from xmo.passes.kaldi_to_ov.registry import kaldi_converter
from xmo.passes.to_ov.builder import Builder


def splice(node: KaldiNode, b: Builder, offsets: Sequence[int]) -> SSAValue:
    """Input 0 read at each of ``offsets``, concatenated along features."""
    x = node.input(0)
    if not offsets:
        raise node.unsupported("no time offsets")
    parts, node.out_margins = align(b, [x] * len(offsets), [node.margins[0]] * len(offsets),
                                    list(offsets))
    return parts[0] if len(parts) == 1 else b.concat(parts, 1)


@kaldi_converter("Offset")
def _offset(node: KaldiNode, b: Builder) -> SSAValue:
    args = node.args()
    if len(args) != 1:
        raise node.unsupported("Offset(x, t, x-offset) is not supported")
    left, right = node.margins[0]
    node.out_margins = (left - int(args[0]), right + int(args[0]))
    return node.input(0)


@kaldi_converter("Append")
def _append(node: KaldiNode, b: Builder) -> SSAValue:
    ins = [node.input(i) for i in range(node.num_inputs)]
    parts, node.out_margins = align(b, ins, node.margins, [0] * len(ins))
    return parts[0] if len(parts) == 1 else b.concat(parts, 1)


@kaldi_converter("Sum")
def _sum(node: KaldiNode, b: Builder) -> SSAValue:
    ins = [node.input(i) for i in range(node.num_inputs)]
    parts, node.out_margins = align(b, ins, node.margins, [0] * len(ins))
    out = parts[0]
    for p in parts[1:]:
        out = b.out("Add", [out, p])
    return out


@kaldi_converter("Scale")
def _scale(node: KaldiNode, b: Builder) -> SSAValue:
    x = node.input(0)
    return b.out("Multiply", [x, b.scalar_like(float(node.args()[0]), x)])


@kaldi_converter("DimRange")
def _dim_range(node: KaldiNode, b: Builder) -> SSAValue:
    offset, dim = (int(a) for a in node.args())
    dims = node.shape(0)
    if offset < 0 or dim <= 0 or (dims is not None and dims[-1] >= 0 and offset + dim > dims[-1]):
        raise node.unsupported(f"dims {offset}..{offset + dim} of a {dims and dims[-1]}-dim input")
    return b.out("Slice", [node.input(0), b.i64([offset]), b.i64([offset + dim]), b.i64([1]),
                           b.i64([1])])


@kaldi_converter("Splice")
def _splice(node: KaldiNode, b: Builder) -> SSAValue:
    offsets = node.attr("FrameOffsets")
    if offsets is None:
        raise node.unsupported("no frame offsets")
    return splice(node, b, [int(o) for o in np.asarray(offsets).reshape(-1)])
