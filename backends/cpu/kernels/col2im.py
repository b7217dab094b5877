"""Col2Im (opset15): sum sliding blocks back into an image (the adjoint of im2col).

One strided slice-add per kernel tap (never a loop over pixels)."""

from __future__ import annotations

import numpy as np

from xmo.backends.cpu.kernels._common import ints, spatial_attr
from xmo.backends.cpu.node import KernelNode
from xmo.backends.cpu.registry import register_kernel


@register_kernel("ov.Col2Im")
def _col2im(node: KernelNode, data: np.ndarray, output_size: np.ndarray,
            kernel_size: np.ndarray) -> np.ndarray:
    size, kernel = ints(output_size), ints(kernel_size)
    nsp = len(size)
    strides = spatial_attr(node, "strides", nsp)
    dil = spatial_attr(node, "dilations", nsp)
    pb = spatial_attr(node, "pads_begin", nsp, default=0)
    pe = spatial_attr(node, "pads_end", nsp, default=0)
    batched = data.ndim == 3
    x = data if batched else data[None]
    kp = int(np.prod(kernel))
    n, ck, _ = x.shape
    c = ck // kp
    padded = [s + b + e for s, b, e in zip(size, pb, pe)]
    blocks = [(p - ((k - 1) * d + 1)) // st + 1
              for p, k, d, st in zip(padded, kernel, dil, strides)]
    cols = x.reshape((n, c, kp) + tuple(blocks))
    out = np.zeros((n, c) + tuple(padded), x.dtype)
    for j, offs in enumerate(np.ndindex(*kernel)):
        idx = tuple(slice(o * d, o * d + st * (b - 1) + 1, st)
                    for o, d, st, b in zip(offs, dil, strides, blocks))
        out[(slice(None), slice(None)) + idx] += cols[:, :, j]
    out = out[(slice(None), slice(None)) + tuple(slice(b, b + s) for b, s in zip(pb, size))]
    return out if batched else out[0]
