"""Unique (opset10): unique elements or slices, first indices, inverse indices
and counts; sorted ascending or in order of first occurrence."""

from __future__ import annotations

import numpy as np

from xmo.backends.cpu.kernels._common import norm_axis, scalar
from xmo.backends.cpu.node import KernelNode
from xmo.backends.cpu.registry import register_kernel


@register_kernel("ov.Unique")
def _unique(node: KernelNode, x: np.ndarray, axis: np.ndarray | None = None):
    ax = None if axis is None else norm_axis(scalar(axis), x.ndim, node)
    data = x.reshape(-1) if ax is None else x
    vals, first, inverse, counts = np.unique(
        data, return_index=True, return_inverse=True, return_counts=True, axis=ax
    )
    inverse = inverse.reshape(-1)
    if not bool(node.attr("sorted", True)):
        order = np.argsort(first, kind="stable")  # by first occurrence
        rank = np.empty_like(order)
        rank[order] = np.arange(order.size)
        vals = vals[order] if ax is None else np.take(vals, order, axis=ax)
        first, counts, inverse = first[order], counts[order], rank[inverse]
    return (
        vals,
        first.astype(node.out_dtype(1, np.int64)),
        inverse.astype(node.out_dtype(2, np.int64)),
        counts.astype(node.out_dtype(3, np.int64)),
    )
