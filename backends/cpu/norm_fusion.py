"""LayerNorm fusion on the CPU backend's schedule: an MVN over the last axis
(variance normalized, f32/f64) whose single user is a fused affine step with
one value per column or one value in all (the LayerNorm's scale and shift:
:class:`~xmo.backends.cpu.fusion.AffineKernel`) runs as one step, one numba
pass per row (``rows_jit.mvn_affine``), bit-exact with the two steps. An
input seen through a transpose that moved the normalized axis last (an NCHW
map normalized over its channels as NHWC: ConvNeXt's LayerNorm after the
depthwise convolution) is read in place, a tile of rows moved at a time
(``rows_jit.mvn_affine_cols``): the same values, no strided numpy pass."""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping

import numpy as np

from xmo.backends.cpu.fusion import AffineKernel
from xmo.backends.cpu.node import Kernel, KernelCall, KernelNode, call_named, checked_outputs, op_type
from xmo.backends.cpu.registry import is_builtin_kernel


class LayerNormKernel:
    """An MVN (``mvn``: node, kernel) and its affine step (``affine``: node,
    kernel) as one step named after the affine step; ``a``/``b``: the
    affine constants as one value per column of the last dim (``n``), empty
    for none; ``eps``, ``inside``: the MVN's attributes."""

    def __init__(self, mvn: tuple[KernelNode, Kernel], affine: tuple[KernelNode, AffineKernel],
                 n: int, eps: float, inside: bool) -> None:
        self.mvn = mvn
        self.affine = affine
        self.ops = [mvn[0].op, *affine[1].ops]
        aff = affine[1]
        dtype = aff.dtype
        none = np.empty(0, dtype)
        self.a = none if aff.a is None else np.ascontiguousarray(np.broadcast_to(aff.a.reshape(-1), (n,)))
        self.b = none if aff.b is None else np.ascontiguousarray(np.broadcast_to(aff.b.reshape(-1), (n,)))
        self.n, self.eps, self.inside, self.dtype = n, eps, inside, dtype

    @property
    def step_type(self) -> str:
        return "+".join(op_type(o) for o in self.ops)

    def _two_steps(self, x: np.ndarray, axes: np.ndarray) -> np.ndarray:
        mnode, mkernel = self.mvn
        res = checked_outputs(mnode, call_named(mnode, mkernel, mnode, x, axes))[0]
        return self.affine[1].run(res, True)  # the MVN's own new array

    def __call__(self, node: KernelNode, x: np.ndarray, axes: np.ndarray) -> np.ndarray:
        return self.plan(node, (None, None))(x, axes)

    def plan(self, node: KernelNode, consts: tuple) -> Callable[[np.ndarray, np.ndarray], np.ndarray]:
        """The step's function (see :mod:`.node`): the one pass on an input of
        the dtype and last dim, C-contiguous or with its last axis moved there
        by a transpose (:func:`~xmo.backends.cpu.kernels.rows.last_axis_at`),
        else the two steps."""
        from xmo.backends.cpu.kernels.rows import (  # the kernels import the backend
            SPLIT_MIN, last_axis_at, row_kernels, run_rows)

        kernel = row_kernels().mvn_affine
        cols = row_kernels().mvn_affine_cols
        dtype, n, eps, inside, a, b = self.dtype, self.n, self.eps, self.inside, self.a, self.b
        two_steps = self._two_steps

        def layer_norm(x: np.ndarray, axes: np.ndarray) -> np.ndarray:
            if x.dtype is not dtype or not x.ndim or x.shape[-1] != n or not x.size:
                return two_steps(x, axes)
            rows = x.size // n
            out = np.empty(x.shape, dtype)
            if x.flags.c_contiguous:
                fn, args = kernel, (x.reshape(rows, n), eps, inside, a, b, out.reshape(rows, n))
            else:  # a transposed view of an array with the normalized axis not last
                moved = last_axis_at(x)
                if moved is None:
                    return two_steps(x, axes)
                k, flat = moved
                fn, args = cols, (flat, eps, inside, a, b, out.reshape(rows, n),
                                  math.prod(x.shape[k:-1]))
            if rows * n < SPLIT_MIN:  # one range: the kernel called directly
                fn(*args, 0, rows)
            else:
                run_rows(fn, rows, n, *args)
            return out

        return layer_norm


def _layer_norm_mvn(node: KernelNode, kernel: Kernel, args: tuple[int, ...],
                    consts: Mapping[int, np.ndarray]) -> tuple[int, float, bool] | None:
    """(n, eps, inside_sqrt) when the step is the built-in MVN over the last
    axis (constant), variance normalized, of an f32/f64 result whose last dim
    ``n`` is static."""
    from xmo.backends.cpu.kernels.rows import ROW_DTYPES  # the kernels import the backend

    if node.op.name != "ov.MVN" or not is_builtin_kernel("ov.MVN", kernel) or len(args) != 2:
        return None
    dtype, shape = node.out_dtypes[0], node.out_shapes[0]
    if dtype not in ROW_DTYPES or node.out_etypes[0] not in ("f32", "f64") or not shape:
        return None
    axes = consts.get(args[1])
    if not isinstance(axes, np.ndarray) or axes.dtype.kind not in "iu" or axes.size != 1:
        return None
    rank = len(shape)
    ax = int(axes.reshape(-1)[0])
    if (ax + rank if ax < 0 else ax) != rank - 1 or shape[-1] < 1:
        return None
    if not node.attr("normalize_variance", False):
        return None
    eps = float(np.asarray(node.attr("eps", 0.0), dtype))
    inside = str(node.attr("eps_mode", "inside_sqrt")).lower() == "inside_sqrt"
    return shape[-1], eps, inside


def _per_column(c: np.ndarray | None, n: int) -> bool:
    """``c`` is None, one value, or one value per column of a last dim of ``n``."""
    return c is None or c.size == 1 or (c.shape[-1] == n and c.size == n)


def fuse_layer_norms(
    steps: list[KernelCall],
    consts: Mapping[int, np.ndarray],
    keep: set[int],
) -> list[KernelCall]:
    """Steps with each last-axis MVN (see :func:`_layer_norm_mvn`) whose
    result's single user is a fused affine step of the same dtype and shape,
    its constants one per column or one in all, run as one
    :class:`LayerNormKernel` step at the affine step's place (with numba;
    the MVN's result must not be in ``keep``)."""
    from xmo.backends.cpu.kernels.rows import row_kernels  # the kernels import the backend

    if row_kernels() is None:
        return steps
    users: dict[int, list[int]] = {}
    for i, (_, _, args, _) in enumerate(steps):
        for a in set(args):
            users.setdefault(a, []).append(i)
    replace: dict[int, KernelCall] = {}
    drop: set[int] = set()
    for i, (node, kernel, args, outs) in enumerate(steps):
        info = _layer_norm_mvn(node, kernel, args, consts) if len(outs) == 1 else None
        if info is None or outs[0] in keep:
            continue
        u = users.get(outs[0], [])
        if len(u) != 1:
            continue
        j = u[0]
        anode, akernel, aargs, aouts = steps[j]
        n = info[0]
        if (not isinstance(akernel, AffineKernel) or aargs != outs
                or akernel.dtype != node.out_dtypes[0]
                or akernel.shape != tuple(node.out_shapes[0])
                or not (_per_column(akernel.a, n) and _per_column(akernel.b, n))):
            continue
        drop.add(i)
        replace[j] = (anode, LayerNormKernel((node, kernel), (anode, akernel), *info), args, aouts)
    return [replace.get(i, s) for i, s in enumerate(steps) if i not in drop]
