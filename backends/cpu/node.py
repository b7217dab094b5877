"""The kernel calling convention: what a kernel sees and what it must return.

A kernel is called as ``kernel(node, *inputs)`` where ``node`` is the
:class:`KernelNode` of the op being executed (attributes, output element types
and shapes) and ``inputs`` are numpy arrays; it returns one array or a sequence of arrays (one
per output). :func:`checked_outputs` casts them to the element types the op's
result types declare and checks their shapes.

A kernel may also have a *plan* (:func:`plan_with`): ``plan(node, consts)``,
called once when a schedule becomes a generated function (:mod:`.runner`),
with the value of each input that is a constant (None for the others). It
returns a function of the inputs alone (no node) doing what the kernel does
for this op -- attributes read, constant inputs parsed, the ufunc chosen
beforehand -- or None (the kernel is called then). A planned function runs
inside the generated function's floating-point error state (divide, invalid
and overflow ignored: it never enters one itself) and raises as the kernel
does (:meth:`KernelNode.error`, or any exception: the runner names the op).

A product's kernel (an epilogue producer, :func:`~xmo.backends.cpu.fusion.mark_producer`)
may also have a *fused plan* (:func:`plan_fused_with`): ``plan_fused(node,
consts, epi)``, asked once by a fused product + bias + activation step
(:class:`~xmo.backends.cpu.fusion.EpilogueKernel`). ``epi = (a, b, period,
prm)`` are the constant arguments of ``rows_jit.bias_act``: the epilogue over
the product viewed as rows of ``n`` (a Convolution's NCHW output as
[N*C, H*W], a MatMul's as [rows, last dim]). It returns a function of the
inputs whose result -- a new C-contiguous array of the declared shape and
dtype -- has the epilogue applied already, each block of rows right after
the task that computed it (:mod:`~xmo.backends.cpu.kernels.gemm_epi`), or
None (the step runs the plan, then its own epilogue pass).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
from xdsl.ir import Operation

from xmo.backends.cpu.dtypes import etype_dtype, round_bf16, tensor_dims
from xmo.backends.cpu.errors import CPUBackendError, KernelError
from xmo.dialects.ov import element_types as et
from xmo.dialects.ov.base import OVOp

#: A kernel: ``kernel(node, *inputs) -> array | sequence of arrays``.
Kernel = Callable[..., Any]


def op_type(op: Operation) -> str:
    """OpenVINO type (``"Add"``), or the xDSL name for foreign ops."""
    return getattr(op, "OV_TYPE", "") or op.name


def _friendly(op: Operation) -> str | None:
    if isinstance(op, OVOp):
        return op.get_friendly_name()
    return None


def describe_op(op: Operation) -> str:
    """``Type (xdsl.name) 'friendly name'`` for messages."""
    fn = _friendly(op)
    return f"{op_type(op)} ({op.name})" + (f" '{fn}'" if fn else "")


class KernelNode:
    """What a kernel sees of the op it executes."""

    __slots__ = ("op", "type", "name", "attrs", "out_dtypes", "out_shapes", "out_etypes",
                 "cache", "one_output", "all_outputs")

    def __init__(self, op: Operation) -> None:
        self.op = op
        #: OpenVINO type (``"Add"``), or the xDSL name for foreign ops.
        self.type: str = op_type(op)
        #: Friendly name ('' when the op has none).
        self.name: str = _friendly(op) or ""
        #: OpenVINO attribute values, defaults filled in.
        self.attrs: dict[str, Any] = op.attr_values() if isinstance(op, OVOp) else {}
        #: OpenVINO element type name per output (None when not one).
        self.out_etypes: list[str | None] = [et.of_tensor_type(r.type) for r in op.results]
        #: numpy dtype per output (None when not representable).
        self.out_dtypes: list[np.dtype | None] = [etype_dtype(n) for n in self.out_etypes]
        #: per-op scratch for kernels (attributes parsed once, prepared weights)
        self.cache: dict[str, Any] = {}
        #: declared dims per output (-1 dynamic), None when unranked.
        self.out_shapes: list[tuple[int, ...] | None] = [tensor_dims(r.type) for r in op.results]
        #: for a single non-bf16 output, what :func:`checked_outputs` checks of
        #: it: (numpy dtype or None, declared (index, dim) pairs with dim >= 0,
        #: rank or None when unranked); None for other ops
        self.one_output: tuple[np.dtype | None, tuple[tuple[int, int], ...], int | None] | None = None
        #: the same per output of an op with several, none bf16 (else None)
        self.all_outputs: tuple[tuple[Any, ...], ...] | None = None
        checks = []
        for etype, dtype, shape in zip(self.out_etypes, self.out_dtypes, self.out_shapes):
            known = () if shape is None else tuple((i, d) for i, d in enumerate(shape) if d >= 0)
            checks.append((dtype, known, None if shape is None else len(shape), etype))
        if all(c[3] != "bf16" for c in checks):
            if len(checks) == 1:
                self.one_output = checks[0][:3]
            elif checks:
                self.all_outputs = tuple(c[:3] for c in checks)

    def attr(self, name: str, default: Any = None) -> Any:
        v = self.attrs.get(name)
        return default if v is None else v

    @property
    def num_outputs(self) -> int:
        return len(self.out_dtypes)

    def out_dtype(self, i: int = 0, fallback: Any = None) -> np.dtype:
        d = self.out_dtypes[i] if i < len(self.out_dtypes) else None
        if d is None:
            if fallback is None:
                raise KernelError(f"{self.describe()}: output {i} has no numpy dtype")
            return np.dtype(fallback)
        return d

    def describe(self) -> str:
        return describe_op(self.op)

    def error(self, message: str) -> KernelError:
        return KernelError(f"{self.describe()}: {message}")


#: A kernel's plan: ``plan(node, consts) -> function of the inputs | None``.
Plan = Callable[["KernelNode", tuple[Any, ...]], Callable[..., Any] | None]


def plan_with(plan: Plan) -> Callable[[Kernel], Kernel]:
    """Decorator giving a kernel its plan (see the module doc): ``kernel.plan``."""

    def attach(kernel: Kernel) -> Kernel:
        kernel.plan = plan  # type: ignore[attr-defined]
        return kernel

    return attach


#: A producer's fused plan: ``plan_fused(node, consts, epi) -> function of the inputs | None``.
FusedPlan = Callable[["KernelNode", tuple[Any, ...], tuple[Any, ...]], Callable[..., Any] | None]


def plan_fused_with(plan_fused: FusedPlan) -> Callable[[Kernel], Kernel]:
    """Decorator giving a product's kernel its fused plan (see the module doc):
    ``kernel.plan_fused``."""

    def attach(kernel: Kernel) -> Kernel:
        kernel.plan_fused = plan_fused  # type: ignore[attr-defined]
        return kernel

    return attach


def input_etype(node: KernelNode, i: int) -> str | None:
    """OpenVINO element type name of the op's input ``i`` (None when not one)."""
    operands = node.op.operands
    return et.of_tensor_type(operands[i].type) if i < len(operands) else None


#: One kernel call of a schedule: (node, kernel, argument slots, output slots).
KernelCall = tuple[KernelNode, Kernel, tuple[int, ...], tuple[int, ...]]


def _fit(res: Sequence[Any], checks: tuple[tuple[Any, ...], ...]) -> bool:
    """Every array of ``res`` of its declared dtype and dims (``checks``:
    :attr:`KernelNode.all_outputs`)."""
    if len(res) != len(checks):
        return False
    for a, (want, known, rank) in zip(res, checks):
        if type(a) is not np.ndarray or (want is not None and a.dtype != want):
            return False
        if rank is not None:
            shape = a.shape
            if len(shape) != rank:
                return False
            for i, d in known:
                if shape[i] != d:
                    return False
    return True


def checked_outputs(node: KernelNode, res: Any) -> list[np.ndarray]:
    """A kernel's result as one array per output of ``node``, each cast to the
    declared element type (bf16 rounded) and checked against the declared shape."""
    one = node.one_output
    if one is not None and type(res) is np.ndarray:  # the common case, checked inline
        want, known, rank = one
        if want is None or res.dtype == want:
            shape = res.shape
            if rank is None:
                return [res]
            if len(shape) == rank:
                for i, d in known:
                    if shape[i] != d:
                        break
                else:
                    return [res]
    elif node.all_outputs is not None and type(res) in (list, tuple) \
            and _fit(res, node.all_outputs):  # several outputs, as declared
        return list(res)
    if isinstance(res, np.ndarray) or np.isscalar(res):
        res = [res]
    outs = list(res)
    if len(outs) != node.num_outputs:
        raise node.error(f"kernel returned {len(outs)} outputs, op has {node.num_outputs}")
    fixed = []
    for i, a in enumerate(outs):
        if type(a) is not np.ndarray:
            a = np.asarray(a)
        want = node.out_dtypes[i]
        if want is not None and a.dtype != want:
            a = a.astype(want)
        if node.out_etypes[i] == "bf16":
            a = round_bf16(a)
        shape = node.out_shapes[i]
        if shape is not None and (
            len(shape) != a.ndim or any(d >= 0 and d != s for d, s in zip(shape, a.shape))
        ):
            raise node.error(
                f"output {i} has shape {list(a.shape)}, the op declares "
                "[" + ",".join("?" if d < 0 else str(d) for d in shape) + "]"
            )
        fixed.append(a)
    return fixed


def call_named(node: KernelNode, fn: Callable[..., Any], *args: Any) -> Any:
    """``fn(*args)``, an error other than the backend's own raised as a
    :class:`KernelError` naming ``node`` (as the step loop does), for
    kernels run inside a fused or memoized step."""
    try:
        return fn(*args)
    except CPUBackendError:
        raise
    except Exception as e:  # noqa: BLE001  (name the op that failed)
        raise KernelError(f"{node.describe()}: {type(e).__name__}: {e}") from e
