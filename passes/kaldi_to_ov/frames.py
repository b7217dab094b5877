"""Time margins of Kaldi values and their alignment (see :mod:`xmo.passes.kaldi_to_ov`).

A value's margins ``(left, right)`` say which input frames its rows are:
row ``i`` is frame ``i + left``, and ``right`` frames are missing at the end.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from xdsl.ir import SSAValue

from xmo.passes.to_ov.builder import Builder

#: time margins of a value: (frames consumed on the left, on the right)
Margins = tuple[int, int]

_END = np.iinfo(np.int64).max


def align(
    b: Builder, values: Sequence[SSAValue], margins: Sequence[Margins], offsets: Sequence[int]
) -> tuple[list[SSAValue], Margins]:
    """``values[k]`` read at time ``t + offsets[k]``, each sliced to the frames
    they all have: (the slices, their margins)."""
    left = max(m[0] - o for m, o in zip(margins, offsets))
    right = max(m[1] + o for m, o in zip(margins, offsets))
    out = []
    for v, (ml, mr), o in zip(values, margins, offsets):
        begin = left + o - ml
        drop = right - mr - o
        if begin or drop:
            v = b.out("Slice", [v, b.i64([begin]), b.i64([-drop if drop else _END]),
                                b.i64([1]), b.i64([0])])
        out.append(v)
    return out, (left, right)


__all__ = ["Margins", "align"]
