"""Gathers, scatters and slices."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from xmo.backends.cpu.dtypes import tensor_dims
from xmo.backends.cpu.kernels._common import ints, norm_axis, scalar
from xmo.backends.cpu.node import KernelNode, plan_with
from xmo.backends.cpu.registry import register_kernel


def _rank(node: KernelNode, i: int) -> int | None:
    """Declared rank of the op's input ``i`` (None when unranked)."""
    dims = tensor_dims(node.op.operands[i].type)
    return None if dims is None else len(dims)


def _const_axis(node: KernelNode, axis: object, rank: int | None) -> int | None:
    """A constant (or attribute) axis in ``[0, rank)``; None when unknown or
    out of range (the kernel then runs, and reports it)."""
    if rank is None or axis is None or (isinstance(axis, np.ndarray) and axis.size != 1):
        return None
    a = int(scalar(axis)) if isinstance(axis, np.ndarray) else int(axis)  # type: ignore[call-overload]
    a = a + rank if a < 0 else a
    return a if 0 <= a < max(rank, 1) else None


def _wrap(idx: np.ndarray, size: int | np.ndarray) -> np.ndarray:
    idx = idx.astype(np.int64)
    return np.where(idx < 0, idx + size, idx)


# ---------------------------------------------------------------------------
# Gathers
# ---------------------------------------------------------------------------


def _plan_gather(node: KernelNode, consts: tuple) -> Callable[..., np.ndarray] | None:
    ax = _const_axis(node, consts[2], _rank(node, 0))
    if ax is None or int(node.attr("batch_dims", 0)) != 0:
        return None
    take = np.take

    def gather(data: np.ndarray, indices: np.ndarray, axis: np.ndarray) -> np.ndarray:
        try:
            return take(data, indices, axis=ax)
        except IndexError:  # an index outside [-dim, dim): zeros there (the kernel)
            return _gather(node, data, indices, axis)

    return gather


@register_kernel("ov.Gather", "ov.Gather_opset7", "ov.Gather_opset1")
@plan_with(_plan_gather)
def _gather(node: KernelNode, data: np.ndarray, indices: np.ndarray, axis: np.ndarray) -> np.ndarray:
    # axis (usually the same constant array every run) parsed once per rank
    hit = node.cache.get("axis")
    if hit is None or hit[0] is not axis or hit[1] != data.ndim:
        hit = (axis, data.ndim, norm_axis(scalar(axis), data.ndim, node),
               int(node.attr("batch_dims", 0)))
        node.cache["axis"] = hit
    ax, bd = hit[2], hit[3]
    if bd < 0:
        bd += indices.ndim
    if bd == 0:
        # the common case, one numpy call; an index outside [-dim, dim)
        # (OpenVINO gives zeros there) takes the general path below
        try:
            return np.take(data, indices, axis=ax)
        except IndexError:
            pass
    b_shape = data.shape[:bd]
    a_shape = data.shape[bd:ax]
    r_shape = data.shape[ax + 1:]
    i_shape = indices.shape[bd:]
    dim = data.shape[ax]
    B, A, R = int(np.prod(b_shape)), int(np.prod(a_shape)), int(np.prod(r_shape))
    d = data.reshape(B, A, dim, R)
    idx = _wrap(indices.reshape(B, -1), dim)
    valid = (idx >= 0) & (idx < dim)
    safe = np.where(valid, idx, 0)
    out = d[np.arange(B)[:, None], :, safe]  # [B, I, A, R]
    if not valid.all():
        out = np.where(valid[:, :, None, None], out, np.zeros((), data.dtype))
    out = out.transpose(0, 2, 1, 3)
    return out.reshape(b_shape + a_shape + i_shape + r_shape)


def _plan_gather_nd(node: KernelNode, consts: tuple) -> Callable[..., np.ndarray] | None:
    dims = tensor_dims(node.op.operands[1].type)
    if int(node.attr("batch_dims", 0)) != 0 or not dims or dims[-1] < 1:
        return None
    k = range(dims[-1])
    # numpy's own indexing (negative indices wrap)
    return lambda data, indices: data[tuple(indices[..., j] for j in k)]


@register_kernel("ov.GatherND", "ov.GatherND_opset5")
@plan_with(_plan_gather_nd)
def _gather_nd(node: KernelNode, data: np.ndarray, indices: np.ndarray) -> np.ndarray:
    bd = int(node.attr("batch_dims", 0))
    k = indices.shape[-1]
    if bd == 0 and k:  # numpy's own indexing (negative indices wrap)
        return data[tuple(indices[..., j] for j in range(k))]
    b_shape = data.shape[:bd]
    B = int(np.prod(b_shape))
    d = data.reshape((B,) + data.shape[bd:])
    idx = indices.reshape(B, -1, k)
    sub = []
    for j in range(k):
        sub.append(_wrap(idx[..., j], d.shape[1 + j]))
    out = d[(np.arange(B)[:, None],) + tuple(sub)]  # [B, M, rest...]
    shape = indices.shape[:-1] + data.shape[bd + k:]
    if node.op.name == "ov.GatherND_opset5" and bd > 0:
        shape = (B,) + indices.shape[bd:-1] + data.shape[bd + k:]
    return out.reshape(shape)


def _plan_gather_elements(node: KernelNode, consts: tuple) -> Callable[..., np.ndarray] | None:
    ax = _const_axis(node, node.attr("axis", 0), _rank(node, 0))
    if ax is None:
        return None
    along = np.take_along_axis
    return lambda data, indices: along(data, indices, axis=ax)


@register_kernel("ov.GatherElements")
@plan_with(_plan_gather_elements)
def _gather_elements(node: KernelNode, data: np.ndarray, indices: np.ndarray) -> np.ndarray:
    # numpy's indexing wraps negative indices
    return np.take_along_axis(data, indices, axis=norm_axis(node.attr("axis", 0), data.ndim, node))


# ---------------------------------------------------------------------------
# Scatters
# ---------------------------------------------------------------------------


@register_kernel("ov.ScatterUpdate")
def _scatter_update(
    node: KernelNode, data: np.ndarray, indices: np.ndarray, updates: np.ndarray, axis: np.ndarray
) -> np.ndarray:
    ax = norm_axis(scalar(axis), data.ndim, node)
    out = data.copy()
    om = np.moveaxis(out, ax, 0)
    ni = indices.ndim
    # updates: data[:ax] + indices.shape + data[ax+1:] -> indices dims first
    u = np.moveaxis(updates, list(range(ax, ax + ni)), list(range(ni)))
    u = u.reshape((-1,) + om.shape[1:])
    om[_wrap(indices.reshape(-1), data.shape[ax])] = u
    return out


_UFUNCS = {
    "sum": np.add, "sub": np.subtract, "prod": np.multiply,
    "min": np.minimum, "max": np.maximum,
}


@register_kernel("ov.ScatterNDUpdate", "ov.ScatterNDUpdate_opset4")
def _scatter_nd_update(
    node: KernelNode, data: np.ndarray, indices: np.ndarray, updates: np.ndarray
) -> np.ndarray:
    out = data.copy()
    k = indices.shape[-1]
    idx = indices.reshape(-1, k)
    sub = tuple(_wrap(idx[:, j], data.shape[j]) for j in range(k))
    u = updates.reshape((-1,) + data.shape[k:])
    red = str(node.attr("reduction", "none")).lower()
    if red == "none":
        out[sub] = u
    else:
        if data.dtype == np.bool_ and red in ("sum", "prod"):
            fn = np.logical_or if red == "sum" else np.logical_and
        else:
            fn = _UFUNCS[red]
        fn.at(out, sub, u)
    return out


@register_kernel("ov.ScatterElementsUpdate", "ov.ScatterElementsUpdate_opset3")
def _scatter_elements_update(
    node: KernelNode, data: np.ndarray, indices: np.ndarray, updates: np.ndarray, axis: np.ndarray
) -> np.ndarray:
    ax = norm_axis(scalar(axis), data.ndim, node)
    grid = list(np.indices(indices.shape, sparse=True))
    grid[ax] = _wrap(indices, data.shape[ax])
    sub = tuple(np.broadcast_to(g, indices.shape).reshape(-1) for g in grid)
    u = updates.reshape(-1)
    out = data.copy()
    red = str(node.attr("reduction", "none")).lower()
    if red == "none":
        out[sub] = u
        return out
    use_init = bool(node.attr("use_init_val", True))
    if red == "mean":
        acc = out.astype(np.float64)
        cnt = np.zeros(data.shape, np.int64)
        if not use_init:
            acc[sub] = 0
        else:
            cnt[sub] = 1
        np.add.at(acc, sub, u)
        np.add.at(cnt, sub, 1)
        mean = acc / np.maximum(cnt, 1)
        if data.dtype.kind != "f":
            mean = np.floor(mean)
        touched = np.zeros(data.shape, bool)
        touched[sub] = True
        return np.where(touched, mean, out).astype(data.dtype)
    fn = _UFUNCS[red]
    if not use_init:
        ident = {"sum": 0, "prod": 1}.get(red)
        if ident is None:
            info = np.finfo(data.dtype) if data.dtype.kind == "f" else np.iinfo(data.dtype)
            ident = info.max if red == "min" else info.min
        out[sub] = ident
    fn.at(out, sub, u)
    return out


# ---------------------------------------------------------------------------
# Slices
# ---------------------------------------------------------------------------


def _mask(node: KernelNode, name: str, n: int) -> list[int]:
    m = [int(v) for v in (node.attr(name, ()) or ())]
    return m + [0] * (n - len(m))


def _strided_index(node: KernelNode, begin: np.ndarray, end: np.ndarray,
                   stride: np.ndarray | None) -> tuple[object, ...]:
    """The numpy index of a StridedSlice."""
    b, e = ints(begin), ints(end)
    n = len(b)
    s = ints(stride) if stride is not None else [1] * n
    bm, em = _mask(node, "begin_mask", n), _mask(node, "end_mask", n)
    nm, sm = _mask(node, "new_axis_mask", n), _mask(node, "shrink_axis_mask", n)
    elm = _mask(node, "ellipsis_mask", n)
    index: list[object] = []
    seen_ellipsis = False
    for i in range(n):
        if elm[i] and not seen_ellipsis:
            index.append(Ellipsis)
            seen_ellipsis = True
        elif nm[i]:
            index.append(np.newaxis)
        elif sm[i]:
            index.append(b[i])
        else:
            index.append(slice(None if bm[i] else b[i], None if em[i] else e[i], s[i]))
    return tuple(index)


def _const_inputs(consts: tuple, first: int) -> bool:
    """Every input from ``first`` on a constant array."""
    return all(isinstance(c, np.ndarray) for c in consts[first:])


def _plan_strided_slice(node: KernelNode, consts: tuple) -> Callable[..., np.ndarray] | None:
    if not _const_inputs(consts, 1) or len({c.size for c in consts[1:]}) != 1:
        return None  # bounds of different lengths: the kernel reports it
    index = _strided_index(node, *consts[1:4], *([None] * (4 - len(consts))))
    if Ellipsis not in index:
        index += (Ellipsis,)  # an array (a view) even when every dim is shrunk
    elif any(type(i) is int for i in index):
        return None
    return lambda data, *bounds: data[index]  # a view (the kernel copies)


@register_kernel("ov.StridedSlice")
@plan_with(_plan_strided_slice)
def _strided_slice(
    node: KernelNode, data: np.ndarray, begin: np.ndarray, end: np.ndarray,
    stride: np.ndarray | None = None,
) -> np.ndarray:
    return np.array(data[_strided_index(node, begin, end, stride)])


def _slice_index(node: KernelNode, rank: int, start: np.ndarray, stop: np.ndarray,
                 step: np.ndarray, axes: np.ndarray | None) -> tuple[slice, ...]:
    """The numpy index of a Slice of a rank-``rank`` input."""
    st, sp, stp = ints(start), ints(stop), ints(step)
    ax = list(range(len(st))) if axes is None else [norm_axis(a, rank, node) for a in ints(axes)]
    index: list[slice] = [slice(None)] * rank
    for a, b, e, s in zip(ax, st, sp, stp):
        index[a] = slice(b, e, s)
    return tuple(index)


def _plan_slice(node: KernelNode, consts: tuple) -> Callable[..., np.ndarray] | None:
    rank = _rank(node, 0)
    if rank is None or not _const_inputs(consts, 1):
        return None
    st, sp, stp = (ints(c) for c in consts[1:4])
    if len(consts) > 4 and any(_const_axis(node, a, rank) is None for a in ints(consts[4])):
        return None  # an axis out of range: the kernel reports it
    if 0 in stp or not len(st) == len(sp) == len(stp):
        return None
    index = _slice_index(node, rank, *consts[1:4], consts[4] if len(consts) > 4 else None)
    return lambda data, *bounds: data[index]  # a view (the kernel copies)


@register_kernel("ov.Slice")
@plan_with(_plan_slice)
def _slice(
    node: KernelNode, data: np.ndarray, start: np.ndarray, stop: np.ndarray, step: np.ndarray,
    axes: np.ndarray | None = None,
) -> np.ndarray:
    return np.array(data[_slice_index(node, data.ndim, start, stop, step, axes)])
