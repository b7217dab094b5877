"""Shape manipulation: Reshape, Transpose, Concat, Split, VariadicSplit, Squeeze,
Unsqueeze, DepthToSpace, SpaceToDepth, ShapeOf."""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np

from xmo.backends.cpu.dtypes import tensor_dims
from xmo.backends.cpu.kernels._common import frozen_ints, ints, norm_axes, norm_axis, scalar
from xmo.backends.cpu.node import KernelNode, plan_with
from xmo.backends.cpu.registry import register_kernel


def _plan_reshape(node: KernelNode, consts: tuple) -> Callable[..., np.ndarray] | None:
    if node.attr("special_zero", False):
        return None

    def reshape(x: np.ndarray, shape: np.ndarray) -> np.ndarray:
        return x.reshape(frozen_ints(node, "shape", shape))

    return reshape


@register_kernel("ov.Reshape")
@plan_with(_plan_reshape)
def _reshape(node: KernelNode, x: np.ndarray, shape: np.ndarray) -> np.ndarray:
    dims = frozen_ints(node, "shape", shape)
    if node.attr("special_zero", False) and 0 in dims:
        dims = tuple(x.shape[i] if d == 0 and i < x.ndim else d for i, d in enumerate(dims))
    return x.reshape(dims)


@register_kernel("ov.Transpose")
def _transpose(node: KernelNode, x: np.ndarray, order: np.ndarray) -> np.ndarray:
    key = (frozen_ints(node, "order", order), x.ndim)
    hit = node.cache.get("perm")
    if hit is None or hit[0] != key:
        perm = list(key[0]) or list(range(x.ndim))[::-1]
        hit = (key, norm_axes(perm, x.ndim, node))
        node.cache["perm"] = hit
    return np.transpose(x, hit[1])


def _plan_concat(node: KernelNode, consts: tuple) -> Callable[..., np.ndarray] | None:
    dims = tensor_dims(node.op.operands[0].type) if node.op.operands else None
    if dims is None:
        return None
    rank = len(dims)
    ax = int(node.attr("axis", 0))
    ax = ax + rank if ax < 0 else ax
    if not 0 <= ax < max(rank, 1):
        return None
    cat = np.concatenate
    return lambda *xs: cat(xs, axis=ax)


@register_kernel("ov.Concat")
@plan_with(_plan_concat)
def _concat(node: KernelNode, *xs: np.ndarray) -> np.ndarray:
    axis = norm_axis(node.attr("axis", 0), xs[0].ndim, node)
    return np.concatenate(xs, axis=axis)


def _split_views(x: np.ndarray, ax: int, lengths: Sequence[int]) -> list[np.ndarray]:
    """Views of ``x`` along ``ax``, ``lengths`` long each (as np.split, cheaper)."""
    lead = (slice(None),) * ax
    out = []
    start = 0
    for n in lengths:
        out.append(x[lead + (slice(start, start + n),)])
        start += n
    return out


def _plan_split(node: KernelNode, consts: tuple) -> Callable[..., list[np.ndarray]] | None:
    """Views of the input, their slices made once (a constant axis and
    lengths, none -1; the kernel when the dim does not split so)."""
    dims = tensor_dims(node.op.operands[0].type)
    if dims is None or not all(isinstance(c, np.ndarray) for c in consts[1:]) or consts[1].size != 1:
        return None
    rank = len(dims)
    ax = int(scalar(consts[1]))
    ax = ax + rank if ax < 0 else ax
    if not 0 <= ax < rank:
        return None
    if len(consts) > 2:
        lengths = ints(consts[2])
        if min(lengths, default=0) < 0:
            return None
        total = sum(lengths)
    else:
        n = int(node.attr("num_splits", node.num_outputs))
        if n < 1 or dims[ax] < 0 or dims[ax] % n:
            return None
        total, lengths = dims[ax], [dims[ax] // n] * n
    lead = (slice(None),) * ax
    starts = [sum(lengths[:i]) for i in range(len(lengths))]
    index = [lead + (slice(b, b + n),) for b, n in zip(starts, lengths)]
    kernel = _variadic_split if len(consts) > 2 else _split

    def split(x: np.ndarray, *args: np.ndarray) -> list[np.ndarray]:
        if x.shape[ax] != total:
            return kernel(node, x, *args)
        return [x[i] for i in index]

    return split


@register_kernel("ov.Split")
@plan_with(_plan_split)
def _split(node: KernelNode, x: np.ndarray, axis: np.ndarray):
    ax = norm_axis(scalar(axis), x.ndim, node)
    n = int(node.attr("num_splits", node.num_outputs))
    if x.shape[ax] % n:
        raise node.error(f"dimension {x.shape[ax]} does not split into {n} parts")
    return _split_views(x, ax, [x.shape[ax] // n] * n)


@register_kernel("ov.VariadicSplit")
@plan_with(_plan_split)
def _variadic_split(node: KernelNode, x: np.ndarray, axis: np.ndarray, lengths: np.ndarray):
    ax = norm_axis(scalar(axis), x.ndim, node)
    ls = list(frozen_ints(node, "lengths", lengths))
    if -1 in ls:
        ls[ls.index(-1)] = x.shape[ax] - (sum(ls) + 1)
    if any(n < 0 for n in ls) or sum(ls) != x.shape[ax]:
        return np.split(x, np.cumsum(ls)[:-1], axis=ax)  # numpy's reading of bad lengths
    return _split_views(x, ax, ls)


@register_kernel("ov.Squeeze", "ov.Squeeze_opset1")
def _squeeze(node: KernelNode, x: np.ndarray, axes: np.ndarray | None = None) -> np.ndarray:
    if axes is None:
        return x.reshape([d for d in x.shape if d != 1])
    ax = set(norm_axes(axes, x.ndim, node))
    skip = bool(node.attr("allow_axis_skip", False))
    keep = []
    for i, d in enumerate(x.shape):
        if i in ax and d == 1:
            continue
        if i in ax and not skip:
            raise node.error(f"cannot squeeze axis {i} of size {d}")
        keep.append(d)
    return x.reshape(keep)


@register_kernel("ov.Unsqueeze")
def _unsqueeze(node: KernelNode, x: np.ndarray, axes: np.ndarray) -> np.ndarray:
    # the axes (usually the same constant array every run) parsed once per rank
    hit = node.cache.get("axes")
    if hit is None or hit[0] is not axes or hit[1] != x.ndim:
        rank = x.ndim + len(ints(axes))
        hit = (axes, x.ndim, sorted(set(norm_axes(axes, rank, node))))
        node.cache["axes"] = hit
    shape = list(x.shape)
    for a in hit[2]:
        shape.insert(a, 1)
    return x.reshape(shape)


@register_kernel("ov.ShapeOf", "ov.ShapeOf_opset1")
def _shape_of(node: KernelNode, x: np.ndarray) -> np.ndarray:
    return np.array(x.shape, dtype=node.out_dtype(0, np.int64))


@register_kernel("ov.DepthToSpace")
def _depth_to_space(node: KernelNode, x: np.ndarray) -> np.ndarray:
    bs = int(node.attr("block_size", 1))
    n, c, *sp = x.shape
    k = len(sp)
    c_out = c // bs**k
    if node.attr("mode", "blocks_first") == "blocks_first":
        y = x.reshape([n] + [bs] * k + [c_out] + sp)
        # [N, b1..bk, C', D1..Dk] -> [N, C', D1, b1, D2, b2, ...]
        perm = [0, k + 1] + [a for i in range(k) for a in (k + 2 + i, 1 + i)]
    else:
        y = x.reshape([n, c_out] + [bs] * k + sp)
        perm = [0, 1] + [a for i in range(k) for a in (k + 2 + i, 2 + i)]
    return y.transpose(perm).reshape([n, c_out] + [d * bs for d in sp])


@register_kernel("ov.SpaceToDepth")
def _space_to_depth(node: KernelNode, x: np.ndarray) -> np.ndarray:
    bs = int(node.attr("block_size", 1))
    n, c, *sp = x.shape
    k = len(sp)
    y = x.reshape([n, c] + [a for d in sp for a in (d // bs, bs)])
    blocks = [3 + 2 * i for i in range(k)]
    dims = [2 + 2 * i for i in range(k)]
    if node.attr("mode", "blocks_first") == "blocks_first":
        perm = [0] + blocks + [1] + dims
    else:
        perm = [0, 1] + blocks + dims
    return y.transpose(perm).reshape([n, c * bs**k] + [d // bs for d in sp])


@register_kernel("ov.Roll")
def _roll(node: KernelNode, x: np.ndarray, shift: np.ndarray, axes: np.ndarray) -> np.ndarray:
    ax = norm_axes(axes, x.ndim, node)
    sh = ints(shift)
    if len(sh) == 1 and len(ax) > 1:
        sh = sh * len(ax)
    return np.roll(x, sh, axis=ax)


@register_kernel("ov.ShuffleChannels")
def _shuffle_channels(node: KernelNode, x: np.ndarray) -> np.ndarray:
    ax = norm_axis(node.attr("axis", 1), x.ndim, node)
    g = int(node.attr("group", 1))
    c = x.shape[ax]
    y = x.reshape(x.shape[:ax] + (g, c // g) + x.shape[ax + 1:])
    return np.swapaxes(y, ax, ax + 1).reshape(x.shape)


@register_kernel("ov.Reverse_opset1")
def _reverse(node: KernelNode, x: np.ndarray, axes: np.ndarray) -> np.ndarray:
    if str(node.attr("mode", "index")).lower() == "mask":
        ax = [i for i, m in enumerate(np.asarray(axes).reshape(-1)) if m]
    else:
        ax = norm_axes(axes, x.ndim, node)
    return np.flip(x, axis=tuple(ax)) if ax else x.copy()
