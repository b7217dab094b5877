"""Discrete Fourier transforms: DFT, IDFT (opset7), RDFT, IRDFT (opset9).

Complex tensors carry their (real, imaginary) pair in a trailing dimension of 2.
"""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.ir import Attribute

from xmo.dialects.ov import element_types as et
from xmo.dialects.ov.base import DYN, InferContext, shape_infer
from xmo.dialects.ov.shape_inference._helpers import (
    const_ints,
    fmt_shape,
    merge_dim,
    normalize_axes,
    require_etype,
    require_integer,
    require_rank,
    result,
    vector_length,
)


def _prepare(ctx: InferContext, complex_input: bool) -> tuple[list[int] | None, list[int] | None]:
    """Checks shared by the family. Returns (data shape, normalized const axes)."""
    require_etype(ctx, 0, et.FLOAT_TYPES, "data")
    require_integer(ctx, 1, "axes")
    require_rank(ctx, 1, (0, 1), "axes")
    if ctx.num_inputs > 2:
        require_integer(ctx, 2, "signal_size")
        require_rank(ctx, 2, (0, 1), "signal_size")
        n_axes, n_sig = vector_length(ctx, 1), vector_length(ctx, 2)
        if n_axes is not None and n_sig is not None and n_axes != n_sig:
            raise ctx.error(f"signal_size has {n_sig} values for {n_axes} axes")
    data = ctx.shape(0)
    if data is not None:
        if complex_input:
            if len(data) < 2:
                raise ctx.error(f"complex data must have rank 2 or more, got {fmt_shape(data)}")
            merge_dim(ctx, data[-1], 2, "last dimension of complex data")
        elif len(data) < 1:
            raise ctx.error("data must have rank 1 or more")
    raw = const_ints(ctx, 1)
    if data is None or raw is None:
        return data, None
    r = len(data) - 1 if complex_input else len(data)
    return data, normalize_axes(ctx, raw, r, unique=True)


def _apply_signal_size(ctx: InferContext, out: list[int], axes: list[int]) -> None:
    if ctx.num_inputs <= 2:
        return
    sizes = const_ints(ctx, 2)
    for i, a in enumerate(axes):
        if sizes is None:
            out[a] = DYN
        elif sizes[i] != -1:
            out[a] = sizes[i]


@shape_infer("ov.DFT", "ov.IDFT")
def infer_dft(ctx: InferContext) -> Sequence[Attribute]:
    data, axes = _prepare(ctx, complex_input=True)
    t = ctx.etype(0)
    if data is None:
        return [result(t, None)]
    out = list(data)
    if axes is None:
        if ctx.num_inputs > 2:
            out[:-1] = [DYN] * (len(out) - 1)
        return [result(t, out)]
    _apply_signal_size(ctx, out, axes)
    return [result(t, out)]


@shape_infer("ov.RDFT")
def infer_rdft(ctx: InferContext) -> Sequence[Attribute]:
    data, axes = _prepare(ctx, complex_input=False)
    t = ctx.etype(0)
    if data is None:
        return [result(t, None)]
    out = list(data)
    if axes is None:
        return [result(t, [DYN] * len(out) + [2])]
    _apply_signal_size(ctx, out, axes)
    last = axes[-1]
    if out[last] >= 0:
        out[last] = out[last] // 2 + 1
    return [result(t, out + [2])]


@shape_infer("ov.IRDFT")
def infer_irdft(ctx: InferContext) -> Sequence[Attribute]:
    data, axes = _prepare(ctx, complex_input=True)
    t = ctx.etype(0)
    if data is None:
        return [result(t, None)]
    out = list(data[:-1])
    if axes is None:
        return [result(t, [DYN] * len(out))]
    last = axes[-1]
    sizes = const_ints(ctx, 2) if ctx.num_inputs > 2 else None
    _apply_signal_size(ctx, out, axes)
    if sizes is None or sizes[-1] == -1:
        if ctx.num_inputs > 2 and sizes is None:
            out[last] = DYN
        elif out[last] >= 0:
            out[last] = 2 * (out[last] - 1)
    return [result(t, out)]
