"""MatMul and Einsum (ScaledDotProductAttention: attention.py)."""

from __future__ import annotations

import numpy as np

from xmo.backends.cpu.fusion import mark_producer
from xmo.backends.cpu.node import KernelNode
from xmo.backends.cpu.registry import register_kernel


@register_kernel("ov.MatMul")
def _matmul(node: KernelNode, a: np.ndarray, b: np.ndarray) -> np.ndarray:
    if node.attr("transpose_a", False) and a.ndim >= 2:
        a = np.swapaxes(a, -1, -2)
    if node.attr("transpose_b", False) and b.ndim >= 2:
        b = np.swapaxes(b, -1, -2)
    if a.dtype == np.float16:
        return np.matmul(a.astype(np.float32), b.astype(np.float32))
    return np.matmul(a, b)


mark_producer("MatMul", _matmul)  # a new array: its bias and activation may run in it


@register_kernel("ov.Einsum")
def _einsum(node: KernelNode, *inputs: np.ndarray) -> np.ndarray:
    eq = str(node.attr("equation", "")).replace(" ", "")
    return np.einsum(eq, *inputs, optimize=len(inputs) > 2)

