"""Helpers of the Caffe converters: window parameters, axes, channel constants."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from xdsl.ir import SSAValue

from xmo.passes.to_ov.builder import Builder, ConverterNode


def param(node: ConverterNode, field: str | None = None):  # noqa: ANN201 - a protobuf message
    """The layer's parameter message (proto2 defaults for what is not set)."""
    return node.op.param(field)


def pair(node: ConverterNode, p, name: str, default: int | None, n: int = 2) -> list[int]:  # noqa: ANN001
    """A window parameter of a Convolution/Pooling message: ``name_h``/
    ``name_w``, else the (repeated or single) ``name`` (``kernel_size`` for
    ``kernel``), else ``default``."""
    fields = p.DESCRIPTOR.fields_by_name
    h, w = f"{name}_h", f"{name}_w"
    if n == 2 and h in fields and (p.HasField(h) or p.HasField(w)):
        return [int(getattr(p, h)), int(getattr(p, w))]
    if name == "kernel":
        name = "kernel_size"
    desc = fields.get(name)
    if desc is not None and desc.is_repeated:
        vals = [int(v) for v in getattr(p, name)]
    elif desc is not None and p.HasField(name):
        vals = [int(getattr(p, name))]
    else:
        vals = []
    if not vals:
        if default is None:
            raise node.unsupported(f"'{name}' is not set")
        vals = [default]
    if len(vals) == 1:
        vals = vals * n
    if len(vals) != n:
        raise node.unsupported(f"'{name}' has {len(vals)} values for {n} spatial dims")
    return vals


def norm_axis(node: ConverterNode, axis: int, rank: int | None) -> int:
    if axis >= 0:
        return axis
    if rank is None:
        raise node.unsupported("a negative axis needs the input's rank")
    return axis + rank


def static_dims(node: ConverterNode, i: int, what: str) -> list[int]:
    dims = node.shape(i)
    if dims is None or any(d < 0 for d in dims):
        raise node.unsupported(f"{what} needs the static shape of input {i}, got {dims}")
    return dims


def along_axis(b: Builder, values: np.ndarray, axis: int, rank: int) -> SSAValue:
    """A f32 constant shaped to broadcast ``values`` (whose dims start at
    ``axis``) against a rank-``rank`` tensor: ``[1]*axis + shape + [1]*rest``."""
    arr = np.asarray(values, dtype=np.float32)
    shape = [1] * axis + list(arr.shape) + [1] * (rank - axis - arr.ndim)
    return b.const(arr.reshape(shape))


def flatten_from(b: Builder, x: SSAValue, axis: int, dims: Sequence[int] | None) -> SSAValue:
    """``x`` reshaped to ``dims[:axis] + [prod(dims[axis:])]``."""
    if dims is not None and all(d >= 0 for d in dims):
        return b.reshape(x, [*dims[:axis], int(np.prod(dims[axis:], dtype=np.int64))])
    return b.reshape(x, [0] * axis + [-1], special_zero=True)


__all__ = ["along_axis", "flatten_from", "norm_axis", "pair", "param", "static_dims"]
