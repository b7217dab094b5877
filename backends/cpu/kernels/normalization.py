"""MVN, NormalizeL2, BatchNormInference."""

from __future__ import annotations

import numpy as np

from collections.abc import Callable

from xmo.backends.cpu.dtypes import etype_dtype, tensor_dims
from xmo.backends.cpu.kernels._common import float_work, norm_axes
from xmo.backends.cpu.kernels.rows import ROW_DTYPES, SPLIT_MIN, row_kernels, run_rows
from xmo.backends.cpu.node import KernelNode, input_etype, plan_with
from xmo.backends.cpu.registry import register_kernel


def _plan_mvn(node: KernelNode, consts: tuple) -> Callable[..., np.ndarray] | None:
    """LayerNorm (the last axis, variance normalized, f32/f64): one numba pass
    per row, its attributes read once."""
    dims = tensor_dims(node.op.operands[0].type)
    dtype = etype_dtype(input_etype(node, 0))
    axes = consts[1]
    if dims is None or dtype not in ROW_DTYPES or not isinstance(axes, np.ndarray) \
            or not node.attr("normalize_variance", False):
        return None
    rank = len(dims)
    if rank == 0 or [int(a) + rank if int(a) < 0 else int(a) for a in axes.reshape(-1).tolist()] != [rank - 1]:
        return None
    rk = row_kernels()
    if rk is None:
        return None
    mvn = rk.mvn
    eps = float(np.asarray(node.attr("eps", 0.0), dtype))
    inside = str(node.attr("eps_mode", "inside_sqrt")).lower() == "inside_sqrt"
    empty = np.empty

    def layer_norm(x: np.ndarray, axes: np.ndarray) -> np.ndarray:
        out = empty(x.shape, x.dtype)
        n = x.shape[-1]
        size = out.size
        if size:
            rows = size // n
            x2 = x.reshape(rows, n) if x.flags.c_contiguous else np.ascontiguousarray(x).reshape(rows, n)
            if size < SPLIT_MIN:  # one range: the kernel called directly
                mvn(x2, eps, inside, out.reshape(rows, n), 0, rows)
            else:
                run_rows(mvn, rows, n, x2, eps, inside, out.reshape(rows, n))
        return out

    return layer_norm


@register_kernel("ov.MVN")
@plan_with(_plan_mvn)
def _mvn(node: KernelNode, x: np.ndarray, axes: np.ndarray) -> np.ndarray:
    x = float_work(x)
    # axes and attributes read once per node (while the same axes array and rank come in)
    hit = node.cache.get("mvn")
    if hit is None or hit[0] is not axes or hit[1] != x.ndim or hit[2] != x.dtype:
        hit = (axes, x.ndim, x.dtype, tuple(sorted(set(norm_axes(axes, x.ndim, node)))),
               bool(node.attr("normalize_variance", False)),
               float(np.asarray(node.attr("eps", 0.0), x.dtype)),
               str(node.attr("eps_mode", "inside_sqrt")).lower() == "inside_sqrt")
        if type(axes) is np.ndarray and not axes.flags.writeable:
            node.cache["mvn"] = hit
    ax, normalize, eps_f, inside = hit[3:]
    if ax == (x.ndim - 1,) and x.size and x.dtype in ROW_DTYPES and normalize:
        rk = row_kernels()
        if rk is not None:  # LayerNorm: one numba pass per row
            out = np.empty(x.shape, x.dtype)
            n = x.shape[-1]
            run_rows(rk.mvn, x.size // n, n, np.ascontiguousarray(x).reshape(-1, n), eps_f, inside,
                     out.reshape(-1, n))
            return out
    y = np.subtract(x, np.mean(x, axis=ax, keepdims=True))
    if node.attr("normalize_variance", False):
        eps = np.asarray(node.attr("eps", 0.0), x.dtype)
        var = np.mean(np.square(y), axis=ax, keepdims=True)
        if str(node.attr("eps_mode", "inside_sqrt")).lower() == "inside_sqrt":
            var += eps
            np.sqrt(var, out=var)
        else:
            np.sqrt(var, out=var)
            var += eps
        y /= var  # in place: y is this kernel's own buffer
    return y


@register_kernel("ov.NormalizeL2")
def _normalize_l2(node: KernelNode, x: np.ndarray, axes: np.ndarray) -> np.ndarray:
    x = float_work(x)
    ax = tuple(sorted(set(norm_axes(axes, x.ndim, node))))
    sq = np.sum(np.square(x), axis=ax, keepdims=True) if ax else np.square(x)
    eps = np.asarray(node.attr("eps", 0.0), x.dtype)
    if str(node.attr("eps_mode", "add")).lower() == "add":
        return x / np.sqrt(sq + eps)
    return x / np.sqrt(np.maximum(sq, eps))


def _batch_norm(node: KernelNode, x, gamma, beta, mean, var) -> np.ndarray:
    x = float_work(x)
    shape = (1, -1) + (1,) * (x.ndim - 2)
    eps = node.attr("epsilon", 0.0)
    scale = gamma.reshape(shape) / np.sqrt(var.reshape(shape) + eps)
    return ((x - mean.reshape(shape)) * scale + beta.reshape(shape)).astype(x.dtype)


@register_kernel("ov.BatchNormInference")
def _batch_norm_v5(node: KernelNode, x, gamma, beta, mean, var) -> np.ndarray:
    return _batch_norm(node, x, gamma, beta, mean, var)


@register_kernel("ov.BatchNormInference_opset1")
def _batch_norm_v1(node: KernelNode, gamma, beta, x, mean, var) -> np.ndarray:
    return _batch_norm(node, x, gamma, beta, mean, var)


@register_kernel("ov.GroupNormalization")
def _group_norm(node: KernelNode, x: np.ndarray, scale: np.ndarray, bias: np.ndarray) -> np.ndarray:
    x = float_work(x)
    g = int(node.attr("num_groups", 1))
    n, c = x.shape[:2]
    xg = x.reshape(n, g, -1)
    mean = xg.mean(axis=2, keepdims=True)
    var = xg.var(axis=2, keepdims=True)
    y = ((xg - mean) / np.sqrt(var + node.attr("epsilon", 0.0))).reshape(x.shape)
    shape = (1, c) + (1,) * (x.ndim - 2)
    return (y * scale.reshape(shape) + bias.reshape(shape)).astype(x.dtype)


def window_sum(a: np.ndarray, axis: int, before: int, after: int) -> np.ndarray:
    """Sum of ``a`` over the window ``[i - before, i + after]`` along ``axis``
    (clipped to the array), by a cumulative sum."""
    n = a.shape[axis]
    widths = [(0, 0)] * a.ndim
    widths[axis] = (1, 0)
    c = np.cumsum(np.pad(a, widths), axis=axis)  # c[k] = sum a[:k]
    hi = np.minimum(np.arange(n) + after + 1, n)
    lo = np.maximum(np.arange(n) - before, 0)
    return np.take(c, hi, axis=axis) - np.take(c, lo, axis=axis)


@register_kernel("ov.LRN")
def _lrn(node: KernelNode, x: np.ndarray, axes: np.ndarray) -> np.ndarray:
    xf = float_work(x)
    ax = sorted(set(norm_axes(axes, x.ndim, node)))
    size = int(node.attr("size", 1))
    alpha, beta, bias = (float(node.attr(k, d)) for k, d in (("alpha", 1e-4), ("beta", 0.75),
                                                               ("bias", 1.0)))
    before = (size - 1) // 2
    s = np.square(xf.astype(np.float64) if xf.dtype != np.float32 else xf)
    for a in ax:
        s = window_sum(s, a, before, size - 1 - before)
    scale = (bias + (alpha / size ** len(ax)) * s) ** beta
    return (xf / scale).astype(x.dtype, copy=False)
