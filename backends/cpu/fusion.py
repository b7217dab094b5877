"""Step fusion on the CPU backend's schedule.

* Affine fusion: chains of Add/Subtract/Multiply/Divide with constant operands
  run as one ``x*a + b`` step (in place when its input is dead). Only the
  built-in kernels of those ops are fused (an op whose kernel was overridden
  keeps it): :mod:`xmo.backends.cpu.kernels.elementwise` declares them with
  :func:`mark_fusable`.
* Epilogue fusion: a Convolution, GroupConvolution or MatMul followed by its
  bias (a fused affine step) and/or an activation runs as one step: the
  affine part updates the product's fresh buffer in place, the activation
  is its own kernel called on it. Producers declare with :func:`mark_producer`
  that their kernel returns a new array. When the affine constants have a
  row layout (:func:`row_layout`: one value per column, as a MatMul's bias,
  or one per row block, as a convolution's per-channel bias over NCHW) and
  the activation has a row form (see :func:`mark_row_epilogue`), both run as
  one pass over the product (numba, in place); affine steps alone too.
  When the activation is computed by the row kernel itself (no numpy form
  taking over large arrays) and the producer's kernel has a fused plan
  (:func:`~xmo.backends.cpu.node.plan_fused_with`), the producer gets the
  epilogue as ``epi = (a, b, period, prm)`` -- the constant arguments of
  ``rows_jit.bias_act`` over its output viewed as rows (NCHW: [N*C, H*W];
  MatMul: [rows, last dim]) -- and applies it to each block it finishes, in
  the same pool task (:mod:`~xmo.backends.cpu.kernels.gemm_epi`): no second
  pass over the product.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from functools import partial
from typing import Any

import numpy as np
from xdsl.ir import Operation

from xmo.backends.cpu.dtypes import tensor_dims, tensor_dtype
from xmo.backends.cpu.node import (
    Kernel, KernelCall, KernelNode, call_named, checked_outputs, op_type,
)

_AFFINE_OPS = frozenset({"Add", "Subtract", "Multiply", "Divide"})
#: the built-in kernels of the fusable ops, by op type
_BUILTIN: dict[str, Kernel] = {}


def mark_fusable(op_type: str, kernel: Kernel) -> None:
    """Declare ``kernel`` the built-in kernel of ``op_type`` (one of Add,
    Subtract, Multiply, Divide): ops it runs may be fused."""
    if op_type not in _AFFINE_OPS:
        raise ValueError(f"{op_type} is not an affine op ({sorted(_AFFINE_OPS)})")
    _BUILTIN[op_type] = kernel


#: the built-in kernels returning a new array, by op type (epilogue producers)
_PRODUCERS: dict[str, Kernel] = {}
#: activations an epilogue may end with (their first input the product)
EPILOGUE_ACTIVATIONS = frozenset({
    "Relu", "Clamp", "Sigmoid", "Tanh", "HSwish", "HSigmoid", "HardSigmoid", "Swish",
    "Gelu", "Elu", "Mish", "SoftPlus",
})


def mark_producer(op_type: str, kernel: Kernel) -> None:
    """Declare ``kernel`` the built-in kernel of ``op_type`` (Convolution,
    GroupConvolution, MatMul), returning a new array no one else holds: its
    bias and activation may be fused into its step."""
    if op_type not in ("Convolution", "GroupConvolution", "MatMul"):
        raise ValueError(f"{op_type} is not an epilogue producer")
    _PRODUCERS[op_type] = kernel


#: ``apply(x, out, a, b, period, n)``: ``out = act(x * a + b)`` over
#: C-contiguous arrays of one shape seen as rows of ``n`` (``out`` may be
#: ``x``); ``a``/``b``: one value per column (``period`` 0) or per row
#: ``r % period``, None for none
RowEpilogue = Callable[[np.ndarray, np.ndarray, "np.ndarray | None", "np.ndarray | None", int, int], None]
#: ``planner(act_node, act_extra, dtype)``: the activation's row epilogue, or None
RowPlanner = Callable[["KernelNode | None", tuple[np.ndarray, ...], np.dtype], "RowEpilogue | None"]
#: row epilogue planners, by activation kernel (None: no activation)
_ROW_PLANNERS: dict[Kernel | None, RowPlanner] = {}


def mark_row_epilogue(act_kernel: Kernel | None, planner: RowPlanner) -> None:
    """Declare that ``planner`` gives the row form of epilogues ending with
    ``act_kernel`` (None: a bias or scale without activation); it is asked
    once per fused step and returns None when that node has none."""
    _ROW_PLANNERS[act_kernel] = planner


#: how a row epilogue sees an array of a declared shape: (a, b, period,
#: q, inner, (k, m, dims)): the array as ``[-1, inner]`` rows (``inner`` the
#: product of dims ``q..``, -1 when one is dynamic); a, b one value per column
#: (period 0) or per row ``r % period``; dims ``k..m`` (static, ``dims``) are
#: those the constants vary along
RowLayout = tuple["np.ndarray | None", "np.ndarray | None", int, int, int, tuple[int, int, tuple[int, ...]]]


def row_layout(a: np.ndarray | None, b: np.ndarray | None,
               shape: tuple[int, ...]) -> RowLayout | None:
    """The layout of ``x * a + b`` over ``shape`` (``a``/``b`` broadcasting to
    it, None for none) as rows, or None. The constants vary along dims
    ``k..m`` (static): when the dims after ``m`` are all 1 they are one value
    per column of ``[-1, dims k..m]`` (a MatMul's bias); else one value per
    row of ``[-1, dims m+1..]``, repeating every ``period`` rows (a
    convolution's per-channel bias over NCHW)."""
    n = len(shape)
    if n == 0:
        return None
    consts = [(1,) * (n - c.ndim) + c.shape for c in (a, b) if c is not None]
    varying = sorted({i for cs in consts for i in range(n) if cs[i] != 1})
    if not varying:  # one value each: rows of the last dim
        one = [None if c is None else np.ascontiguousarray(c.reshape(1)) for c in (a, b)]
        inner = shape[-1] if shape[-1] >= 0 else -1
        return one[0], one[1], 1, n - 1, inner, (n, n, ())
    k, m = varying[0], varying[-1]
    dims = tuple(shape[k:m + 1])
    if any(d < 0 for d in dims):
        return None
    pick = (0,) * k + (slice(None),) * (m + 1 - k) + (0,) * (n - m - 1)
    vecs = [None if c is None else np.ascontiguousarray(
        np.broadcast_to(c.reshape((1,) * (n - c.ndim) + c.shape)[pick], dims).reshape(-1))
        for c in (a, b)]
    period = int(np.prod(dims, dtype=np.int64))
    tail = shape[m + 1:]
    if all(d == 1 for d in tail):
        return vecs[0], vecs[1], 0, k, period, (k, m + 1, dims)
    inner = -1 if any(d < 0 for d in tail) else int(np.prod(tail, dtype=np.int64))
    return vecs[0], vecs[1], period, m + 1, inner, (k, m + 1, dims)


#: fewest elements an affine step without activation runs by its row form
#: (below, numpy's one or two in-place ufuncs cost less than a numba call)
_AFFINE_ROWS_MIN = 4096


def _run_rows(layout: RowLayout, apply: RowEpilogue, x: np.ndarray, out: np.ndarray) -> None:
    """``apply`` over ``x`` (C-contiguous, not empty, of the layout's shape)
    into ``out`` (``x`` or a new C-contiguous array)."""
    a, b, period, q, inner, _ = layout
    if inner < 0:
        inner = 1
        for d in x.shape[q:]:
            inner *= d
    apply(x, out, a, b, period, inner)


class AffineKernel:
    """A fused chain of elementwise ops with constant operands: ``x*a + b``.

    ``a``/``b`` (None when 1/0) are precomputed in f64 and rounded to the
    output dtype once; ``ops`` are the fused ops (the last one names the step).
    With numba, f32/f64 arrays of the declared shape take the one-pass row
    form (``rows``: layout, apply; see :func:`row_layout`).
    """

    def __init__(self, ops: list[Operation], a: np.ndarray | None, b: np.ndarray | None,
                 dtype: np.dtype, shape: tuple[int, ...]) -> None:
        self.ops = ops
        self.a = a
        self.b = b
        self.dtype = dtype
        self.shape = shape  # the result's (and x's) declared shape, -1 for dynamic dims
        self.static = all(d >= 0 for d in shape)
        self.ndim = len(shape)
        self.rows: tuple[RowLayout, RowEpilogue] | None = None
        planner = _ROW_PLANNERS.get(None)
        layout = row_layout(a, b, shape) if planner is not None else None
        if layout is not None:
            apply = planner(None, (), dtype)
            if apply is not None:
                self.rows = (layout, apply)

    def run(self, x: np.ndarray, inplace: bool) -> np.ndarray:
        rows = self.rows
        if x.dtype != self.dtype:
            match = False
        elif self.static:
            match = x.shape == self.shape
        elif rows is None:
            match = x.ndim == self.ndim
        else:
            k, m, dims = rows[0][5]
            match = x.ndim == self.ndim and x.shape[k:m] == dims
        if not match:
            inplace = False
        elif rows is not None and x.size >= _AFFINE_ROWS_MIN and x.flags.c_contiguous:
            out = x if inplace else np.empty(x.shape, self.dtype)
            _run_rows(rows[0], rows[1], x, out)
            return out
        out = x if inplace else None
        if self.a is not None:
            out = np.multiply(x, self.a, out=out, dtype=self.dtype)
            if self.b is not None:
                if type(out) is not np.ndarray:  # 0-d operands give a numpy scalar
                    return np.asarray(out + self.b)
                np.add(out, self.b, out=out)
            return out
        if self.b is not None:
            return np.add(x, self.b, out=out, dtype=self.dtype)
        return x if inplace else np.array(x, dtype=self.dtype)

    def __call__(self, node: KernelNode, x: np.ndarray) -> np.ndarray:
        return self.run(x, False)

    def bind(self) -> Callable[[np.ndarray, bool], np.ndarray]:
        """:meth:`run` with its choices made once for a static shape: the
        function checks only that ``x`` has the dtype and shape (any other
        goes to :meth:`run`) and, for the row form, is C-contiguous."""
        if not self.static:
            return self.run
        run, dtype, shape, a, b = self.run, self.dtype, self.shape, self.a, self.b
        if self.rows is not None and int(np.prod(shape, dtype=np.int64)) >= _AFFINE_ROWS_MIN:
            (ra, rb, period, _, inner, _), apply = self.rows
            if inner < 0:
                return run

            def rows(x: np.ndarray, inplace: bool) -> np.ndarray:
                if x.dtype is not dtype or x.shape != shape or not x.flags.c_contiguous:
                    return run(x, inplace)
                out = x if inplace else np.empty(shape, dtype)
                apply(x, out, ra, rb, period, inner)
                return out

            return rows
        if not shape or (a is None and b is None):
            return run  # 0-d results (numpy scalars), or a copy
        multiply, add = np.multiply, np.add
        if a is not None and b is not None:
            def scale_shift(x: np.ndarray, inplace: bool) -> np.ndarray:
                if x.dtype is not dtype or x.shape != shape:
                    return run(x, inplace)
                out = multiply(x, a, out=x if inplace else None)
                add(out, b, out=out)
                return out

            return scale_shift
        c, ufunc = (a, multiply) if a is not None else (b, add)

        def one(x: np.ndarray, inplace: bool) -> np.ndarray:
            if x.dtype is not dtype or x.shape != shape:
                return run(x, inplace)
            return ufunc(x, c, out=x if inplace else None)

        return one

    def plan(self, node: KernelNode, consts: tuple) -> Callable[[np.ndarray], np.ndarray]:
        """The step's function in the generated run (see :mod:`.node`): not in place."""
        run = self.bind()
        return lambda x: run(x, False)

    @property
    def step_type(self) -> str:
        return "+".join(op_type(o) for o in self.ops)


def _dims_fit(dims: tuple[int, ...], known: tuple[tuple[int, int], ...],
              rank: int | None) -> bool:
    """Whether ``dims`` have the declared ``rank`` and static dims ``known``."""
    return len(dims) == rank and all(dims[i] == d for i, d in known)


class EpilogueKernel:
    """A product (Convolution, GroupConvolution, MatMul), then its affine step
    (bias, scale) in place, then an activation: one step, named after the last
    op. ``producer``/``affine``: (node, kernel); ``act``: (node, kernel,
    constant extra inputs); either of the last two may be None."""

    def __init__(self, producer: tuple[KernelNode, Kernel],
                 affine: tuple[KernelNode, AffineKernel] | None,
                 act: tuple[KernelNode, Kernel, tuple[np.ndarray, ...]] | None) -> None:
        self.producer = producer
        self.affine = affine
        self.act = act
        self.ops = [producer[0].op, *(affine[1].ops if affine else ()),
                    *([act[0].op] if act else ())]
        self.rows: tuple[RowLayout, RowEpilogue] | None = None
        self._plan_rows()

    def _plan_rows(self) -> None:
        """The one-pass row form (``self.rows``: layout, apply) when the
        affine constants have a row layout (one value per column, or per row
        block: see :func:`row_layout`) and the activation has a row epilogue."""
        pnode = self.producer[0]
        dtype = pnode.out_dtypes[0]
        shape = pnode.out_shapes[0]
        planner = _ROW_PLANNERS.get(self.act[1] if self.act else None)
        if planner is None or dtype is None or shape is None or len(shape) < 1:
            return
        a = b = None
        if self.affine is not None:
            affine = self.affine[1]
            if affine.shape != tuple(shape) or affine.dtype != dtype:
                return
            a, b = affine.a, affine.b
        layout = row_layout(a, b, tuple(shape))
        if layout is None:
            return
        anode, extra = (self.act[0], self.act[2]) if self.act else (None, ())
        apply = planner(anode, extra, dtype)
        if apply is not None:
            self.rows = (layout, apply)

    @property
    def step_type(self) -> str:
        return "+".join(op_type(o) for o in self.ops)

    def plan(self, node: KernelNode, consts: tuple) -> Callable[..., np.ndarray] | None:
        """The step's function in the generated run (see :mod:`.node`): the
        producer's plan (or its kernel), its result checked inline where the
        op declares a static shape, then the epilogue with its choices made
        once -- the row pass, or the affine step's bound run (:meth:`AffineKernel.bind`)
        and the activation's plan. A failing producer is named as in :meth:`__call__`."""
        pnode, pkernel = self.producer
        if len(consts) != 2 or pnode.one_output is None:
            return None
        want, known, rank = pnode.one_output
        shape = tuple(d for _, d in known) if rank is not None and len(known) == rank else None
        rows = self.rows
        # a MatMul's fused plan is one kernel call at any size (packed weights)
        least = 1 if self.act is not None or pnode.type == "MatMul" else _AFFINE_ROWS_MIN
        if rows is not None and rows[0][4] >= 0 and (
                int(np.prod(shape, dtype=np.int64)) >= least if shape is not None
                else rank is not None and pnode.type == "MatMul"):  # rows known at call time
            in_blocks = self._plan_in_blocks(consts, shape)
            if in_blocks is not None:
                return in_blocks
        pplan = getattr(pkernel, "plan", None)
        produce = pplan(pnode, consts) if pplan is not None else None
        if produce is None:
            produce = partial(pkernel, pnode)

        def product(x: np.ndarray, w: np.ndarray) -> np.ndarray:
            res = call_named(pnode, produce, x, w)
            if res.__class__ is not np.ndarray or res.dtype is not want or res.shape != shape:
                res = checked_outputs(pnode, res)[0]
            return res

        if rows is not None:
            (a, b, period, _, inner, _), apply = rows
            if shape is not None and inner >= 0:
                if int(np.prod(shape, dtype=np.int64)) >= least:
                    def row_pass(x: np.ndarray, w: np.ndarray) -> np.ndarray:
                        res = product(x, w)
                        if res.flags.c_contiguous:
                            apply(res, res, a, b, period, inner)
                            return res
                        return self._epilogue(res)

                    return row_pass
            else:
                def any_rows(x: np.ndarray, w: np.ndarray) -> np.ndarray:
                    res = product(x, w)
                    if res.flags.c_contiguous and res.size >= least:
                        _run_rows(rows[0], apply, res, res)
                        return res
                    return self._epilogue(res)

                return any_rows
        epilogue = self._plan_epilogue()
        return lambda x, w: epilogue(product(x, w))

    def epi(self) -> tuple[np.ndarray, np.ndarray, int, np.ndarray] | None:
        """The epilogue as a producer applies it in its blocks, ``(a, b,
        period, prm)`` (see the module doc), or None: no row form, an
        activation whose large arrays take numpy's form, or constants
        varying along other dims than the producer's rows (a
        Convolution's channels, a MatMul's last dim, or per row of it; on
        a Convolution's 1x1 map, whose rows are its elements, any per
        channel or per image-and-channel constants)."""
        if self.rows is None:
            return None
        (a, b, period, q, _, _), apply = self.rows
        pnode = self.producer[0]
        prm = getattr(apply, "prm", None)
        dtype, shape = pnode.out_dtypes[0], pnode.out_shapes[0]
        if prm is None or dtype not in prm or shape is None:
            return None
        none = np.empty(0, dtype)
        if a is None and b is None:
            return none, none, 0, prm[dtype]
        if q != (2 if pnode.type != "MatMul" else len(shape) - 1):
            # a convolution on a 1x1 map (squeeze-excitation): its rows
            # [N*C, 1] are its elements, the constants' column form (one
            # value per element e % their count) is one value per row
            if (pnode.type == "MatMul" or len(shape) < 2 or any(d != 1 for d in shape[2:])
                    or (period > 0 and q < 2)):
                return None
            if period == 0:
                period = (a if a is not None else b).size
        return (none if a is None else a, none if b is None else b, period, prm[dtype])

    def _plan_in_blocks(self, consts: tuple,
                        shape: tuple[int, ...] | None) -> Callable[..., np.ndarray] | None:
        """The producer's fused plan (its blocks apply :meth:`epi`) for a
        static result ``shape`` (None: a MatMul's dynamic rows), its
        result's dtype and shape checked; None when the producer has none
        or declines."""
        pnode, pkernel = self.producer
        plan_fused = getattr(pkernel, "plan_fused", None)
        epi = self.epi() if plan_fused is not None else None
        if epi is None:
            return None
        run = plan_fused(pnode, consts, epi)
        if run is None:
            return None
        want, known, rank = pnode.one_output

        def in_blocks(x: np.ndarray, w: np.ndarray) -> np.ndarray:
            res = call_named(pnode, run, x, w)
            if res.dtype != want or (res.shape != shape if shape is not None
                                     else not _dims_fit(res.shape, known, rank)):
                # the epilogue ran: no cast now
                raise pnode.error(f"fused product gave {res.dtype} {list(res.shape)}, "
                                  f"the op declares {want} {list(pnode.out_shapes[0] or ())}")
            return res

        return in_blocks

    def _plan_epilogue(self) -> Callable[[np.ndarray], np.ndarray]:
        """The affine step (in place) and the activation over a product's
        checked result, their choices made once (:meth:`_epilogue` planned)."""
        affine = None if self.affine is None else self.affine[1].bind()
        act = None
        if self.act is not None:
            anode, akernel, extra = self.act
            aplan = getattr(akernel, "plan", None)
            act = aplan(anode, (None, *extra)) if aplan is not None else None
            if act is None:
                act = partial(akernel, anode)
        if affine is None:
            if act is None:
                return lambda res: res
            return lambda res: act(res, *extra)
        if act is None:
            return lambda res: affine(res, True)
        fnode = self.affine[0]
        fwant, fknown, frank = fnode.one_output or (None, (), None)
        fshape = tuple(d for _, d in fknown) if frank is not None and len(fknown) == frank else None

        def affine_act(res: np.ndarray) -> np.ndarray:
            res = affine(res, True)  # the product's own new buffer
            if res.__class__ is not np.ndarray or res.dtype is not fwant or res.shape != fshape:
                res = checked_outputs(fnode, res)[0]  # the last op's result is checked by the run
            return act(res, *extra)

        return affine_act

    def _epilogue(self, res: np.ndarray) -> np.ndarray:
        """The affine step and the activation over a product's checked result."""
        if self.affine is not None:
            fnode, affine = self.affine
            res = affine.run(res, True)  # the product's own new buffer
            if self.act is not None:  # the step loop checks only the last op's result
                res = checked_outputs(fnode, res)[0]
        if self.act is not None:
            anode, akernel, extra = self.act
            res = akernel(anode, res, *extra)
        return res

    def __call__(self, node: KernelNode, *inputs: np.ndarray) -> np.ndarray:
        pnode, pkernel = self.producer
        res = checked_outputs(pnode, call_named(pnode, pkernel, pnode, *inputs))[0]
        rows = self.rows
        # checked_outputs gave the declared dtype, rank and static dims
        if (rows is not None and res.flags.c_contiguous
                and res.size >= (1 if self.act is not None else _AFFINE_ROWS_MIN)):
            _run_rows(rows[0], rows[1], res, res)
            return res
        return self._epilogue(res)


def _affine_step(node: KernelNode, kernel: Kernel, args: tuple[int, ...],
                 consts: Mapping[int, np.ndarray]) -> tuple[int, np.ndarray, str] | None:
    """(input slot, constant, role) when the step is a fusable elementwise op:
    a built-in Add/Subtract/Multiply/Divide on f32/f64 with numpy broadcast, one
    finite constant operand broadcasting to the other operand's shape (dims
    other than 1 only against static dims of the same size).
    role: "add", "sub" (x - c), "rsub" (c - x), "mul", "div" (x / c)."""
    if node.type not in _AFFINE_OPS or node.op.name != f"ov.{node.type}":
        return None
    if kernel is not _BUILTIN.get(node.type):
        return None
    if len(args) != 2 or node.num_outputs != 1:
        return None
    if str(node.attr("auto_broadcast", "numpy")).lower() != "numpy":
        return None
    dt = node.out_dtypes[0]
    shape = node.out_shapes[0]
    if dt is None or dt not in (np.dtype(np.float32), np.dtype(np.float64)):
        return None
    if node.out_etypes[0] not in ("f32", "f64") or shape is None:
        return None
    ca, cb = args[0] in consts, args[1] in consts
    if ca == cb:
        return None
    ci = 0 if ca else 1
    c = consts[args[ci]]
    xv = node.op.operands[1 - ci]
    if not isinstance(c, np.ndarray) or c.dtype != dt or c.ndim > len(shape):
        return None
    if tensor_dims(xv.type) != tuple(shape) or tensor_dtype(xv.type) != dt:
        return None
    # the result has x's shape: every dim of c is 1 or a static dim of x
    # (a dynamic dim of x only meets 1s of c)
    if any(cd != 1 and cd != xd for cd, xd in zip(reversed(c.shape), reversed(shape))):
        return None
    if not np.all(np.isfinite(c)):
        return None
    if node.type == "Divide":
        if ci == 0 or not np.all(c != 0):
            return None
        role = "div"
    elif node.type == "Subtract":
        role = "rsub" if ci == 0 else "sub"
    else:
        role = "add" if node.type == "Add" else "mul"
    return args[1 - ci], c, role


def fuse_affine(
    steps: list[KernelCall],
    consts: Mapping[int, np.ndarray],
    keep: set[int],
) -> list[KernelCall]:
    """Steps with every chain of fusable elementwise ops (see :func:`_affine_step`)
    replaced by one ``x*a + b`` step at the chain's last op (whose KernelNode -- friendly
    and tensor names -- it keeps). An intermediate result is fused away only when
    the next op of the chain is its single user and it is not in ``keep`` (model
    outputs, constants, parameters). A single op is rewritten only when that
    keeps its result bit-exact (not Divide) -- it then still gains the in-place
    update."""
    uses: dict[int, int] = {}
    for _, _, args, _ in steps:
        for a in args:
            uses[a] = uses.get(a, 0) + 1
    chains: list[list[tuple[int, int, np.ndarray, str]]] = []  # (step, x slot, c, role)
    open_chain: dict[int, int] = {}  # output slot -> chain index
    for i, (node, kernel, args, outs) in enumerate(steps):
        info = _affine_step(node, kernel, args, consts)
        if info is None:
            continue
        x, c, role = info
        ci = open_chain.pop(x, None)
        if ci is None or uses.get(x, 0) != 1 or x in keep:
            ci = len(chains)
            chains.append([])
        chains[ci].append((i, x, c, role))
        open_chain[outs[0]] = ci
    replace: dict[int, KernelCall] = {}
    drop: set[int] = set()
    for chain in chains:
        if len(chain) == 1 and chain[0][3] == "div":
            continue
        last = chain[-1][0]
        node, _, _, outs = steps[last]
        dt = node.out_dtypes[0]
        a = np.ones((), np.float64)
        b = np.zeros((), np.float64)
        for _, _, c, role in chain:
            c64 = c.astype(np.float64)
            if role == "add":
                b = b + c64
            elif role == "sub":
                b = b - c64
            elif role == "rsub":
                a, b = -a, c64 - b
            elif role == "mul":
                a, b = a * c64, b * c64
            else:
                a, b = a / c64, b / c64
        with np.errstate(over="ignore", invalid="ignore"):
            af = np.array(a, dtype=dt, order="C")
            bf = np.array(b, dtype=dt, order="C")
        if not (np.all(np.isfinite(af)) and np.all(np.isfinite(bf))):
            continue
        ops = [steps[i][0].op for i, _, _, _ in chain]
        fused = AffineKernel(
            ops,
            None if np.all(af == 1) else af,
            None if np.all(bf == 0) else bf,
            dt,
            tuple(node.out_shapes[0]),
        )
        replace[last] = (node, fused, (chain[0][1],), outs)
        drop.update(i for i, _, _, _ in chain[:-1])
    return [replace.get(i, s) for i, s in enumerate(steps) if i not in drop]


def fuse_epilogues(
    steps: list[KernelCall],
    consts: Mapping[int, np.ndarray],
    keep: set[int],
) -> list[KernelCall]:
    """Steps with each built-in product (see :func:`mark_producer`) whose
    single user is a fused affine step and/or an activation (of
    :data:`EPILOGUE_ACTIVATIONS`, other inputs constant) run as one
    :class:`EpilogueKernel` step at the last op's place. Fused only on f32/f64
    results whose intermediates are used by nothing else (not in ``keep``)."""
    users: dict[int, list[int]] = {}
    for i, (_, _, args, _) in enumerate(steps):
        for a in set(args):
            users.setdefault(a, []).append(i)

    def single_user(slot: int) -> int | None:
        u = users.get(slot, [])
        if len(u) != 1 or slot in keep:
            return None
        return u[0]

    def float_out(node: KernelNode) -> bool:
        return node.num_outputs == 1 and node.out_etypes[0] in ("f32", "f64")

    replace: dict[int, KernelCall] = {}
    drop: set[int] = set()
    for i, (node, kernel, args, outs) in enumerate(steps):
        if i in drop or _PRODUCERS.get(node.type) is not kernel or not float_out(node):
            continue
        j = single_user(outs[0])
        affine: tuple[KernelNode, AffineKernel] | None = None
        last = i
        if j is not None and isinstance(steps[j][1], AffineKernel) and steps[j][2] == outs[0:1]:
            affine = (steps[j][0], steps[j][1])
            drop.add(j)
            last = j
            j = single_user(steps[j][3][0])
        act = None
        if j is not None:
            anode, akernel, aargs, _ = steps[j]
            prev = steps[last][3][0]
            if (anode.type in EPILOGUE_ACTIVATIONS and aargs and aargs[0] == prev
                    and prev not in aargs[1:] and all(a in consts for a in aargs[1:])
                    and float_out(anode) and anode.out_dtypes[0] == node.out_dtypes[0]):
                act = (anode, akernel, tuple(consts[a] for a in aargs[1:]))
                last = j
        if last == i:
            continue
        drop.add(i)
        drop.discard(last)
        fused = EpilogueKernel((node, kernel), affine, act)
        replace[last] = (steps[last][0], fused, args, steps[last][3])
    return [replace.get(i, s) for i, s in enumerate(steps) if i not in drop]


# ---------------------------------------------------------------------------
# elementwise chains with non-constant operands (one numba pass)
# ---------------------------------------------------------------------------

#: op codes of the chain kernel (``rows_jit.elem_chain``), by affine role
_CHAIN_OPS = {"load": 0, "add": 1, "sub": 2, "rsub": 3, "mul": 4, "div": 5, "rdiv": 6}
_CHAIN_ACT, _CHAIN_RELU = 7, 8
#: activations a chain may hold: those of the row kernel without libm calls
#: (bit-exact with their standalone one-pass form)
_CHAIN_ACTS = frozenset({"Relu", "Clamp", "Sigmoid", "Swish", "HSwish", "HSigmoid", "HardSigmoid"})
#: sources (inputs and constants) of one chain step, at most
_CHAIN_SRCS = 4
#: fewest elements a chain runs by its numba pass (below, the ops one by one)
_CHAIN_MIN = 1024
#: fewest elements a single op is fused at (static shapes only): the in-place
#: update pays above (a new array is a cold one), below the planned ufunc costs less
_SINGLE_MIN = 16384
#: (rows, values) of a tile of ``rows_jit.elem_chain_tiles``: 16 rows (a
#: transposed source read 16 f32 values at a time, one cache line; more
#: rows when whole ones fit), 4096 values (the tile and a transposed
#: operand's copy: 32 KB in f32). Measured on ConvNeXt-tiny's layer-scale
#: steps, one thread: tiles of 512 took 1.6-2.2x the time of 4096; 2048 to
#: 8192 values, 8 to 32 rows: within 15% (noise)
_CHAIN_TILE = (16, 4096)
#: source layouts: one value per element, one value, per row, per column
_FULL, _SCALAR, _ROW, _COL = 0, 1, 2, 3
#: ``(node, kernel, refs)`` of one fused op, each ref an input index,
#: ``("c", array)`` for a constant or None for the carried value
_ChainOp = tuple[KernelNode, Kernel, tuple["int | tuple[str, np.ndarray] | None", ...]]


_UFUNCS: dict[str, np.ufunc] = {"Add": np.add, "Subtract": np.subtract,
                                "Multiply": np.multiply, "Divide": np.divide}


def _src_layout(dims: tuple[int, ...], shape: tuple[int, ...]) -> tuple[int, int, int] | None:
    """(mode, inner, period) of a source of ``dims`` broadcast to the result's
    ``shape``: inner is the row length it needs (0: any), period its values'
    count (per row); None when the chain kernel cannot index it."""
    n = len(shape)
    if len(dims) == n and all(d == s or d < 0 or s < 0 for d, s in zip(dims, shape)):
        # the result's shape when the dynamic dims agree (checked at run time)
        return (_FULL, 0, 0) if dims == shape or any(d < 0 for d in dims + shape) else None
    if len(dims) > n or any(d < 0 for d in dims) or any(d < 0 for d in shape):
        return None
    full = (1,) * (n - len(dims)) + dims
    varying = [i for i in range(n) if full[i] != 1]
    if not varying:
        return _SCALAR, 0, 0
    k, m = varying[0], varying[-1]
    if any(full[i] != shape[i] for i in range(k, m + 1)):
        return None
    period = int(np.prod(shape[k:m + 1], dtype=np.int64))
    if all(d == 1 for d in shape[m + 1:]):
        return _COL, period, 0
    return _ROW, int(np.prod(shape[m + 1:], dtype=np.int64)), period


class ElemChainKernel:
    """Elementwise ops (Add/Subtract/Multiply/Divide with any operands, fused
    affine steps, activations without libm calls) chained through single-user
    intermediates of one shape: one numba pass writing the result once, into
    its first input when that one dies with the step (``run(x, inplace,
    *rest)``, as :class:`AffineKernel`) or a new array. Sources: inputs of the
    result's shape, one value, or one value per row or column of it; inputs
    of the result's shape may also be transposed views with one axis
    innermost in memory (:meth:`_transposed`: the result C-contiguous).
    Anything else at run time (dtype, shape, layout, small sizes) runs the
    ops one by one (``chain``)."""

    def __init__(self, ops: list[Operation], chain: list[_ChainOp], modes: list[int],
                 consts: list[np.ndarray], code: np.ndarray, prm: np.ndarray, inner: int,
                 dtype: np.dtype, shape: tuple[int, ...], dims: list[tuple[int, ...]]) -> None:
        self.ops = ops
        self.chain = chain
        self.modes = modes  # per input
        self.code = code
        self.prm = prm
        self.inner = inner  # row length (0: the whole array)
        self.dtype = dtype
        self.shape = shape
        self.static = all(d >= 0 for d in shape)
        self.dims = dims  # declared dims of each input
        n_in = len(modes)
        pad = [np.empty(0, dtype)] * (_CHAIN_SRCS - n_in - len(consts))
        self.consts = tuple(consts) + tuple(pad)
        #: a single op: its ufunc (numpy's loop, in place when it may)
        self.ufunc: np.ufunc | None = None
        #: below :data:`_CHAIN_MIN` elements, a chain of built-in Add /
        #: Subtract / Multiply and affine steps only: their ufuncs (or the
        #: affine step's run) in turn, writing into the first one's result
        #: (the values of the ops one by one, without each kernel's call and
        #: check: a few us per op on the tiny models). Per op: (function,
        #: operand, operand): an input's index, None for the carried value
        #: or a constant array; an affine step has one operand
        self.small: list[tuple[Any, Any, Any]] | None = []
        for node, kernel, refs in chain:
            uf = _UFUNCS.get(node.type)
            ab = [r if r is None or isinstance(r, int) else r[1] for r in refs]
            if isinstance(kernel, AffineKernel) and len(ab) == 1:
                self.small.append((kernel.run, ab[0], None))
            elif (uf is None or uf is np.divide or kernel is not _BUILTIN.get(node.type)
                  or len(ab) != 2):
                self.small = None
                break
            else:
                self.small.append((uf, ab[0], ab[1]))
        self.size = math.prod(shape) if self.static else -1
        self.known = [(i, d) for i, d in enumerate(shape) if d >= 0]  # static dims
        #: a single Multiply of a map by one value per row of it (a
        #: squeeze-excitation gate): ``rows_jit.row_scale``, numpy's roundings
        self.scale: Callable[..., None] | None = None
        #: chains of 2+ ops: ``rows_jit.elem_chain_tiles`` (see :meth:`_transposed`)
        self._tiles: Callable[..., None] | None = None
        if len(chain) == 1 and chain[0][0].type in _UFUNCS:
            self.ufunc = _UFUNCS[chain[0][0].type]
            self.refs = chain[0][2]
            if (self.ufunc is np.multiply and self.static and sorted(modes) == [_FULL, _ROW]
                    and inner > 1):
                from xmo.backends.cpu.kernels import rows  # numba: a lazy import

                rk = rows.row_kernels()
                if rk is not None:
                    self.scale = rk.row_scale
            return
        from xmo.backends.cpu.kernels import rows, rows_jit  # numba: a lazy import

        self._kernel = rows_jit.elem_chain
        self._tiles = rows_jit.elem_chain_tiles
        self._innermost = rows.innermost_axis
        self._run_rows = rows.run_rows
        self._split = rows.SPLIT_MIN

    @property
    def step_type(self) -> str:
        return "+".join(op_type(o) for o in self.ops)

    def _shape_of(self, ins: tuple[np.ndarray, ...],
                  moved: list[tuple[int, np.ndarray] | None] | None = None) -> tuple[int, ...] | None:
        """The result's shape when every input fits the planned layout; with
        ``moved`` (a list to fill), inputs of the result's shape may also be
        transposed views: per input its :func:`~.kernels.rows.innermost_axis`
        or None for a C-contiguous one."""
        ref = self.shape if self.static else None
        for a, mode, dims in zip(ins, self.modes, self.dims):
            if type(a) is not np.ndarray or a.dtype != self.dtype or not a.flags.writeable:
                return None  # (numba types read-only arrays apart)
            if moved is not None:
                m = None if a.flags.c_contiguous or mode != _FULL else self._innermost(a)
                if m is None and not a.flags.c_contiguous:
                    return None
                moved.append(m)
            elif not a.flags.c_contiguous:
                return None
            if mode != _FULL:
                if a.shape != dims:
                    return None
            elif ref is None:
                if a.ndim != len(self.shape) or any(
                        d >= 0 and d != s for d, s in zip(self.shape, a.shape)):
                    return None
                ref = a.shape
            elif a.shape != ref:
                return None
        return ref

    def run(self, x: np.ndarray, inplace: bool, *rest: np.ndarray) -> np.ndarray:
        ins = (x, *rest)
        if self.small is not None and (0 <= self.size < _CHAIN_MIN
                                       or self.size < 0 and x.size < _CHAIN_MIN):
            v = self._in_turn(ins)
            if v is not None:
                return v
        shape = self._shape_of(ins)
        if self.scale is not None and shape is not None:
            full = 0 if self.modes[0] == _FULL else 1
            m, s = ins[full], ins[1 - full]
            out = m if inplace and full == 0 else np.empty(shape, self.dtype)
            inner = self.inner
            rows = m.size // inner
            # one thread: split over two it measured slower (maps up to
            # 32x112x112, busy machine; numpy's broadcast product is one thread too)
            self.scale(m.reshape(rows, inner), s.reshape(-1), out.reshape(rows, inner), 0, rows)
            return out
        if self.ufunc is not None:
            a, b = (ins[r] if isinstance(r, int) else r[1] for r in self.refs)  # type: ignore[index]
            out = x if (inplace and shape is not None and self.modes[0] == _FULL
                        and x.flags.writeable) else None
            if self.ufunc is np.divide:
                with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
                    res = self.ufunc(a, b, out=out)
            else:
                res = self.ufunc(a, b, out=out)
            return res if type(res) is np.ndarray else np.asarray(res)
        if shape is None and self._tiles is not None:
            v = self._transposed(ins)
            if v is not None:
                return v
        size = -1 if shape is None else math.prod(shape)
        if size < _CHAIN_MIN:  # small, or inputs off the planned layout
            v = self._in_turn(ins) if self.small is not None else None
            return v if v is not None else self._one_by_one(ins)
        if inplace and self.modes[0] == _FULL and x.flags.writeable:
            out = x
        else:
            out = np.empty(shape, self.dtype)
        srcs = tuple(a.reshape(-1) for a in ins) + self.consts[:_CHAIN_SRCS - len(ins)]
        inner = self.inner or size
        args = (srcs, out.reshape(-1), self.code, self.prm, inner)
        if size < self._split:
            self._kernel(*args, 0, size)
        else:
            self._run_rows(self._kernel, size, 1, *args)
        return out

    def _transposed(self, ins: tuple[np.ndarray, ...]) -> np.ndarray | None:
        """The result, C-contiguous, when the inputs of the result's shape are
        C-contiguous or transposed views with one axis ``k`` innermost in
        memory, the same for all (ConvNeXt's layer scale and residual Add
        after the Transpose back from NHWC to NCHW: k = 1), the others as
        planned and their rows (if any) the result's dims after ``k``:
        ``rows_jit.elem_chain_tiles`` reads the transposed ones a tile at a
        time; None otherwise. On ConvNeXt-tiny's layer-scale steps (x seen
        through the Transpose, the block input C-contiguous) numpy's
        strided loops took 1.8-2.4x its time; with both transposed numpy's
        loop streams in memory order (0.6x this pass) but its NHWC-ordered
        result cost the next depthwise convolution a strided copy (1.3-1.8x
        that convolution's time), which the C-contiguous result spares."""
        moved: list[tuple[int, np.ndarray] | None] = []
        shape = self._shape_of(ins, moved)
        axes = {m[0] for m in moved if m is not None}
        if shape is None or len(axes) != 1:
            return None
        k = axes.pop()
        inner = math.prod(shape[k + 1:])
        size = math.prod(shape)
        if size < _CHAIN_MIN or self.inner not in (0, inner):
            return None
        out = np.empty(shape, self.dtype)
        n_in = len(ins)
        srcs = tuple(a.reshape(-1) if m is None else m[1] for a, m in zip(ins, moved)) \
            + self.consts[:_CHAIN_SRCS - n_in]
        trans = np.zeros(_CHAIN_SRCS, np.bool_)
        trans[:n_in] = [m is not None for m in moved]
        args = (srcs, trans, out.reshape(-1), self.code, self.prm, shape[k], inner, *_CHAIN_TILE)
        rows = size // inner
        if size < self._split:
            self._tiles(*args, 0, rows)
        else:
            self._run_rows(self._tiles, rows, inner, *args)
        return out

    def _in_turn(self, ins: tuple[np.ndarray, ...]) -> np.ndarray | None:
        """The ops of :attr:`small` in turn on arrays of the chain's dtype
        (numpy's broadcasting, any layout), the first op's result checked
        against the declared shape and the others written into it; None
        when an input or that result does not fit (the ops one by one then
        name what failed)."""
        dt, want = self.dtype, self.shape
        for a in ins:
            if a.__class__ is not np.ndarray or a.dtype is not dt:
                return None
        small = self.small
        assert small is not None
        fn, ra, rb = small[0]
        a = ins[ra] if ra.__class__ is int else ra
        if rb is None:  # an affine step: on the step's input, into a new array
            v = fn(a, False)
        else:
            v = fn(a, ins[rb] if rb.__class__ is int else rb)
        if v.__class__ is not np.ndarray or v.dtype is not dt:
            return None
        if v.shape != want:
            if self.static or v.ndim != len(want):
                return None
            got = v.shape
            for i, d in self.known:
                if got[i] != d:
                    return None
        for fn, ra, rb in small[1:]:
            if rb is None and ra is None:  # an affine step on the chain's own buffer
                v = fn(v, True)
                continue
            a = v if ra is None else ins[ra] if ra.__class__ is int else ra
            b = v if rb is None else ins[rb] if rb.__class__ is int else rb
            v = fn(a, b, out=v)  # ValueError unless of v's shape
        return v

    def _one_by_one(self, ins: tuple[np.ndarray, ...]) -> np.ndarray:
        """The fused ops' own kernels in turn (the unfused results)."""
        v: np.ndarray | None = None
        for node, kernel, refs in self.chain:
            args = [v if r is None else ins[r] if isinstance(r, int) else r[1] for r in refs]
            v = checked_outputs(node, call_named(node, kernel, node, *args))[0]
        assert v is not None
        return v

    def __call__(self, node: KernelNode, *inputs: np.ndarray) -> np.ndarray:
        return self.run(inputs[0], False, *inputs[1:])


def _chain_op(node: KernelNode, kernel: Kernel, args: tuple[int, ...],
              consts: Mapping[int, np.ndarray]) -> tuple[str, Any] | None:
    """How a step may join an elementwise chain: ("bin", None) for a built-in
    Add/Subtract/Multiply/Divide, ("affine", kernel) for a fused affine step,
    ("act", params) for an activation of :data:`_CHAIN_ACTS` with constant
    extra inputs; None otherwise. f32/f64 results of a known rank only."""
    if node.num_outputs != 1 or node.out_etypes[0] not in ("f32", "f64"):
        return None
    dt, shape = node.out_dtypes[0], node.out_shapes[0]
    if dt is None or shape is None or not args:
        return None
    if isinstance(kernel, AffineKernel):
        if kernel.dtype != dt or tuple(kernel.shape) != tuple(shape) or len(args) != 1:
            return None
        return "affine", kernel
    if node.type in _AFFINE_OPS:
        if (node.op.name != f"ov.{node.type}" or kernel is not _BUILTIN.get(node.type)
                or len(args) != 2
                or str(node.attr("auto_broadcast", "numpy")).lower() != "numpy"):
            return None
        return "bin", None
    if node.type in _CHAIN_ACTS and all(a in consts for a in args[1:]):
        planner = _ROW_PLANNERS.get(kernel)
        if planner is None:
            return None
        apply = planner(node, tuple(consts[a] for a in args[1:]), dt)
        params = getattr(apply, "act", None)
        if params is None:
            return None
        return "act", params
    return None


def fuse_elementwise(
    steps: list[KernelCall],
    consts: Mapping[int, np.ndarray],
    keep: set[int],
) -> list[KernelCall]:
    """Steps with each chain of elementwise steps (see :func:`_chain_op`)
    linked by intermediates of one shape and dtype used only by the next op
    (not in ``keep``) run as one :class:`ElemChainKernel` step at the last
    op's place; a single Add/Subtract/Multiply/Divide of two non-constant
    inputs too (it gains the in-place update). Chains of 2+ ops need numba."""
    users: dict[int, list[int]] = {}
    for i, (_, _, args, _) in enumerate(steps):
        for a in set(args):
            users.setdefault(a, []).append(i)
    kinds = [_chain_op(n, k, a, consts) for n, k, a, _ in steps]
    replace: dict[int, KernelCall] = {}
    drop: set[int] = set()
    for i, (node, _, _, outs) in enumerate(steps):
        if kinds[i] is None or i in drop or i in replace:
            continue
        dt, shape = node.out_dtypes[0], tuple(node.out_shapes[0])
        chain = [i]
        while True:
            o = steps[chain[-1]][3][0]
            u = users.get(o, [])
            if len(u) != 1 or o in keep:
                break
            j = u[0]
            nj, _, aj, _ = steps[j]
            if (kinds[j] is None or j in replace or j in drop or aj.count(o) != 1
                    or nj.out_dtypes[0] != dt
                    or tuple(nj.out_shapes[0]) != shape
                    or (kinds[j][0] != "bin" and aj[0] != o)):
                break
            chain.append(j)
        fused = _plan_chain(steps, chain, kinds, consts, keep, users, dt, shape)
        if fused is None:
            continue
        kernel, args = fused
        drop.update(chain[:-1])
        replace[chain[-1]] = (steps[chain[-1]][0], kernel, args, steps[chain[-1]][3])
    return [replace.get(i, s) for i, s in enumerate(steps) if i not in drop]


def _plan_chain(steps: list[KernelCall], chain: list[int], kinds: list[Any],
                consts: Mapping[int, np.ndarray], keep: set[int], users: dict[int, list[int]],
                dt: np.dtype, shape: tuple[int, ...]) -> tuple[ElemChainKernel, tuple[int, ...]] | None:
    """The fused step of ``chain`` (kernel, input slots), or None when it is
    not worth it (one op without two non-constant inputs) or the kernel
    cannot take its sources."""
    first_node, _, first_args, _ = steps[chain[0]]
    if len(chain) == 1 and (kinds[chain[0]][0] != "bin" or any(a in consts for a in first_args)
                            or not all(d >= 0 for d in shape)
                            or int(np.prod(shape, dtype=np.int64)) < _SINGLE_MIN):
        return None
    inputs: list[int] = []  # slots
    in_dims: list[tuple[int, ...]] = []
    src_consts: list[np.ndarray] = []
    layouts: list[tuple[int, int, int]] = []  # per source: inputs, then constants
    const_layouts: list[tuple[int, int, int]] = []
    code: list[tuple[int, int, int, int]] = []
    prm: list[tuple[float, ...]] = []
    members: list[_ChainOp] = []
    ops: list[Operation] = []
    zero = (0.0,) * 5

    def source(dims: tuple[int, ...], slot: int | None, c: np.ndarray | None) -> tuple[int, int] | None:
        """(source index, mode) of an input slot or a constant."""
        lay = _src_layout(dims, shape)
        if lay is None:
            return None
        if slot is not None:
            if slot not in inputs:
                inputs.append(slot)
                in_dims.append(dims)
                layouts.append(lay)
            return inputs.index(slot), lay[0]
        assert c is not None
        src_consts.append(np.array(c, dt).reshape(-1))  # a writeable copy, as the inputs
        const_layouts.append(lay)
        return -len(src_consts), lay[0]  # fixed up below

    carried: int | None = None
    for idx in chain:
        node, kernel, args, outs = steps[idx]
        kind, extra = kinds[idx]
        refs: list[int | tuple[str, np.ndarray] | None] = []
        if kind == "bin":
            roles = {"Add": ("add", "add"), "Subtract": ("sub", "rsub"),
                     "Multiply": ("mul", "mul"), "Divide": ("div", "rdiv")}[node.type]
            ci = 0 if carried is None else args.index(carried)
            for pos, slot in enumerate(args):
                if carried is not None and pos == ci:
                    refs.append(None)
                    continue
                role = "load" if carried is None and pos == 0 else roles[ci]
                if slot in consts:
                    c = consts[slot]
                    if not isinstance(c, np.ndarray) or c.dtype != dt:
                        return None
                    s = source(tuple(c.shape), None, c)
                    refs.append(("c", c))
                else:
                    s = source(tensor_dims(node.op.operands[pos].type), slot, None)
                    refs.append(-1 if s is None else s[0])
                if s is None:
                    return None
                code.append((_CHAIN_OPS[role], s[0], s[1], 0))
                prm.append(zero)
        else:
            if carried is None:
                xv = node.op.operands[0]
                if kind == "act" and (tensor_dims(xv.type) != shape or tensor_dtype(xv.type) != dt):
                    return None
                s = source(shape, args[0], None)
                assert s is not None
                code.append((_CHAIN_OPS["load"], s[0], s[1], 0))
                prm.append(zero)
            if kind == "affine":
                for c, role in ((extra.a, "mul"), (extra.b, "add")):
                    if c is not None:
                        s = source(tuple(c.shape), None, c)
                        if s is None:
                            return None
                        code.append((_CHAIN_OPS[role], s[0], s[1], 0))
                        prm.append(zero)
            elif node.type == "Relu":
                code.append((_CHAIN_RELU, 0, 0, 0))
                prm.append(zero)
            else:
                act, p0, p1 = extra
                code.append((_CHAIN_ACT, 0, 0, 0))
                prm.append((act, p0, p1, float(dt == np.float32), float(np.finfo(dt).tiny)))
            refs = [None if carried is not None else inputs.index(args[0]),
                    *(("c", consts[a]) for a in args[1:])]
        members.append((node, kernel, tuple(refs)))
        ops.extend(kernel.ops if kind == "affine" else [node.op])
        carried = outs[0]
    if len(inputs) + len(src_consts) > _CHAIN_SRCS:
        return None
    if len(chain) > 1:
        from xmo.backends.cpu.kernels.rows import row_kernels

        if row_kernels() is None:
            return None
    inners = {lay[1] for lay in layouts + const_layouts if lay[0] in (_ROW, _COL)}
    if len(inners) > 1 or (not all(d >= 0 for d in shape) and _FULL not in
                           [lay[0] for lay in layouts]):
        return None
    # rows and periods of the sources: constants after the inputs
    periods = [lay[2] for lay in layouts + const_layouts]
    n_in = len(inputs)
    fixed = []
    for op, s, mode, _ in code:
        if s < 0:
            s = n_in + (-s - 1)
        fixed.append((op, s, mode, periods[s] if mode == _ROW else 0))
    # the first input dies here? then it goes first (the step may update it)
    order = sorted(range(n_in), key=lambda k: not (
        layouts[k][0] == _FULL and inputs[k] not in keep
        and max(users.get(inputs[k], [0])) <= chain[-1]))
    perm = {old: new for new, old in enumerate(order)}
    fixed = [(op, perm[s] if s < n_in and op not in (_CHAIN_ACT, _CHAIN_RELU) else s, mode, p)
             for op, s, mode, p in fixed]
    members = [(n, k, tuple(perm[r] if isinstance(r, int) else r for r in refs))
               for n, k, refs in members]
    kernel = ElemChainKernel(
        ops, members, [layouts[k][0] for k in order], src_consts,
        np.array(fixed, np.int64).reshape(-1, 4), np.array(prm, np.float64).reshape(-1, 5),
        inners.pop() if inners else 0, dt, shape, [in_dims[k] for k in order])
    return kernel, tuple(inputs[k] for k in order)
