"""Reductions, TopK and CumSum."""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np

from xmo.backends.cpu.dtypes import etype_dtype, tensor_dims
from xmo.backends.cpu.kernels._common import norm_axes, norm_axis, scalar
from xmo.backends.cpu.kernels.rows import row_kernels
from xmo.backends.cpu.node import KernelNode, input_etype, plan_with
from xmo.backends.cpu.registry import register_kernel


def _mean(x: np.ndarray, axis: tuple[int, ...], keepdims: bool) -> np.ndarray:
    count = math.prod(x.shape[a] for a in axis)
    if count and x.dtype in (np.float32, np.float64):
        rank = x.ndim
        if (0 < len(axis) < rank and axis == tuple(range(rank - len(axis), rank))
                and x.flags.c_contiguous and row_kernels() is not None):
            # the last axes: the planned step's numba row pass (the same sums)
            return last_axes_mean(x.shape, axis, keepdims, x.dtype)(x, None)
        # np.mean's own steps (sum, then divide in place), without its Python cost
        r = np.add.reduce(x, axis=axis, keepdims=keepdims)
        return np.true_divide(r, count, out=r) if type(r) is np.ndarray else r / count
    r = np.mean(x, axis=axis, keepdims=keepdims)
    return r if x.dtype.kind == "f" else np.trunc(r).astype(x.dtype)


def _l2(x: np.ndarray, axis: tuple[int, ...], keepdims: bool) -> np.ndarray:
    return np.sqrt(np.sum(np.square(x), axis=axis, keepdims=keepdims))


#: element types whose mean is planned as one sum and one division in place
_MEAN_DTYPES = (np.dtype(np.float32), np.dtype(np.float64))

_REDUCE: dict[str, Callable[..., np.ndarray]] = {
    "ReduceSum": np.sum,
    "ReduceMean": _mean,
    "ReduceMax": np.max,
    "ReduceMin": np.min,
    "ReduceProd": np.prod,
    "ReduceL1": lambda x, axis, keepdims: np.sum(np.abs(x), axis=axis, keepdims=keepdims),
    "ReduceL2": _l2,
    "ReduceLogicalAnd": np.all,
    "ReduceLogicalOr": np.any,
}


def _empty_extreme(x: np.ndarray, ax: tuple[int, ...], keep: bool, is_max: bool) -> np.ndarray:
    """Max (min) over an empty set: the lowest (highest) value of the type."""
    if x.dtype.kind == "f":
        fill = -np.inf if is_max else np.inf
    elif x.dtype == np.bool_:
        fill = not is_max
    else:
        info = np.iinfo(x.dtype)
        fill = info.min if is_max else info.max
    shape = [1 if i in ax else d for i, d in enumerate(x.shape)]
    if not keep:
        shape = [d for i, d in enumerate(shape) if i not in ax]
    return np.full(shape, fill, x.dtype)


def last_axes_mean(dims: tuple[int, ...], ax: tuple[int, ...], keep: bool,
               dtype: np.dtype) -> Callable[..., np.ndarray] | None:
    """A float mean over the last axes of static ``dims`` (a global average
    pool: NCHW over H, W) as one numba pass over the rows of a C-contiguous
    input (``rows_jit.row_mean``, summed in f64; numpy's reduction over two
    axes costs several microseconds on the small maps of squeeze-excitation
    blocks; one thread: split over two it measured slower on maps up to
    32x112x112 with a busy machine); a non-contiguous input takes numpy's sum
    and division. None when the axes are not the last ones or numba is missing."""
    rank = len(dims)
    if ax != tuple(range(rank - len(ax), rank)) or len(ax) == rank:
        return None
    rk = row_kernels()
    if rk is None:
        return None
    kernel = rk.row_mean
    rows = math.prod(dims[:rank - len(ax)])
    n = math.prod(dims[rank - len(ax):])
    out_shape = tuple(dims[:rank - len(ax)]) + ((1,) * len(ax) if keep else ())
    empty, add, divide = np.empty, np.add.reduce, np.true_divide

    def tail_mean(x: np.ndarray, axes: np.ndarray) -> np.ndarray:
        if not x.flags.c_contiguous:
            r = add(x, axis=ax, keepdims=keep)
            return divide(r, n, out=r)
        out = empty(rows, dtype)
        kernel(x.reshape(rows, n), out, 0, rows)
        return out.reshape(out_shape)

    return tail_mean


def _make_reduce(fn: Callable[..., np.ndarray]):
    def plan(node: KernelNode, consts: tuple) -> Callable[..., np.ndarray] | None:
        dims = tensor_dims(node.op.operands[0].type)
        axes = consts[1] if len(consts) > 1 else None
        if dims is None or not isinstance(axes, np.ndarray):
            return None
        rank = len(dims)
        ax_list = [int(a) + rank if int(a) < 0 else int(a) for a in axes.reshape(-1).tolist()]
        if not ax_list or any(not 0 <= a < max(rank, 1) for a in ax_list):
            return None  # nothing reduced (a copy) or an axis out of range: the kernel
        ax = tuple(sorted(set(ax_list)))
        keep = bool(node.attr("keep_dims", False))
        extreme = fn in (np.max, np.min)
        count = math.prod(dims[a] for a in ax) if rank else 0
        if (fn is _mean and min(dims, default=-1) >= 0 and count > 0 and (keep or len(ax) < rank)
                and etype_dtype(input_etype(node, 0)) in _MEAN_DTYPES):
            # a float mean over static dims (an array result): _mean's two ufuncs, the count bound
            add, divide = np.add.reduce, np.true_divide
            tail = last_axes_mean(dims, ax, keep, etype_dtype(input_etype(node, 0)))
            if tail is not None:
                return tail

            def mean(x: np.ndarray, axes: np.ndarray) -> np.ndarray:
                r = add(x, axis=ax, keepdims=keep)
                return divide(r, count, out=r)

            return mean

        def reduce(x: np.ndarray, axes: np.ndarray) -> np.ndarray:
            if extreme and any(x.shape[a] == 0 for a in ax):
                return _empty_extreme(x, ax, keep, fn is np.max)
            r = fn(x, axis=ax, keepdims=keep)
            if r.__class__ is np.ndarray and r.dtype is x.dtype:
                return r
            return np.asarray(r).astype(x.dtype, copy=False)

        return reduce

    @plan_with(plan)
    def kernel(node: KernelNode, x: np.ndarray, axes: np.ndarray) -> np.ndarray:
        # axes and keep_dims read once per node (while the same axes array and rank come in)
        hit = node.cache.get("reduce")
        if hit is None or hit[0] is not axes or hit[1] != x.ndim:
            hit = (axes, x.ndim, tuple(sorted(set(norm_axes(axes, x.ndim, node)))),
                   bool(node.attr("keep_dims", False)))
            if type(axes) is np.ndarray and not axes.flags.writeable:
                node.cache["reduce"] = hit
        ax, keep = hit[2], hit[3]
        if not ax:
            return x.copy()
        if fn in (np.max, np.min) and any(x.shape[a] == 0 for a in ax):
            return _empty_extreme(x, ax, keep, fn is np.max)
        return np.asarray(fn(x, axis=ax, keepdims=keep)).astype(x.dtype, copy=False)

    return kernel


for _n, _f in _REDUCE.items():
    register_kernel(f"ov.{_n}")(_make_reduce(_f))


@register_kernel("ov.TopK", "ov.TopK_opset3", "ov.TopK_opset1")
def _topk(node: KernelNode, x: np.ndarray, k: np.ndarray):
    ax = norm_axis(node.attr("axis", -1), x.ndim, node)
    kk = min(int(scalar(k)), x.shape[ax])
    mode = str(node.attr("mode", "max")).lower()
    sort = str(node.attr("sort", "none")).lower()
    # stable sorts: equal values keep their lower index first
    keys = x if mode != "max" else (-x if x.dtype.kind == "f" else np.invert(x))
    order = np.argsort(keys, axis=ax, kind="stable")
    idx = np.take(order, np.arange(kk), axis=ax)
    if sort == "index":
        idx = np.sort(idx, axis=ax)
    values = np.take_along_axis(x, idx, axis=ax)
    return values, idx.astype(node.out_dtype(1, np.int32))


@register_kernel("ov.CumSum")
def _cumsum(node: KernelNode, x: np.ndarray, axis: np.ndarray | None = None) -> np.ndarray:
    ax = norm_axis(scalar(axis) if axis is not None else 0, x.ndim, node)
    exclusive = bool(node.attr("exclusive", False))
    reverse = bool(node.attr("reverse", False))
    y = np.flip(x, ax) if reverse else x
    c = np.cumsum(y, axis=ax, dtype=x.dtype)
    if exclusive:
        c = c - y
    return np.flip(c, ax) if reverse else c
