"""How a schedule runs: one straight-line Python function per compiled model.

:class:`ScheduleRunner` writes the steps of a schedule as the source of one
function -- one local variable per value, each step a direct call of its
kernel with its node, the output check inline (one comparison of class,
dtype and shape where the op declares them), each value dropped after its
last use -- and compiles it once. The source is made only of indices: a
name from the model never enters it (kernels, nodes, constants, dtypes and
shapes are bound in the function's globals as ``k3``, ``n3``, ``c12``...).
A few steps need no kernel call: a built-in Reshape, Squeeze or Unsqueeze
with static dims or a constant shape is ``x.reshape(...)``, a built-in
Transpose with a constant order ``x.transpose(perm)`` (views, as their
kernels return); a kernel with a plan (:func:`~.node.plan_with`) is the
function its plan made for the step (a binary elementwise op broadcasting
the numpy way: its ufunc; attributes and constant inputs read once), the
whole function then running in the floating-point error state kernels set
around their own work (divide, invalid, overflow ignored).

The function keeps only locals, so a compiled model may run in several
threads at once. A kernel's exception is reported as the step loop does
(``KernelError`` naming the op), the step found from the traceback's line.
:meth:`ScheduleRunner.timed` is the same function with a clock around every
step (``CompiledModel.profile``).
"""

from __future__ import annotations

import sys
import time
from collections.abc import Mapping, Sequence
from math import prod
from typing import Any, NamedTuple

import numpy as np

from xmo.backends.cpu.dtypes import tensor_dims
from xmo.backends.cpu.errors import CPUBackendError, KernelError
from xmo.backends.cpu.fusion import AffineKernel, ElemChainKernel
from xmo.backends.cpu.node import Kernel, KernelNode, checked_outputs
from xmo.backends.cpu.registry import is_builtin_kernel
from xmo.backends.cpu.shapes import ShapeBlock
from xmo.dialects.ov import element_types as et


class ScheduleStep(NamedTuple):  # a tuple: the step loop unpacks it
    node: KernelNode
    kernel: Kernel
    args: tuple[int, ...]
    outs: tuple[int, ...]
    free: tuple[int, ...]  # slots dropped once this step ran
    steal: int | None = None  # fused affine step: its input slot, dead after it
    fetch: Any = None  # args' values from the slot list (2+ args; the step loop)


def _rc_probe() -> tuple[int, int]:
    """Reference counts of an array (and of a view's base) held only by a local
    variable, taken the way the runner takes them (see :func:`sole_owner`)."""
    slots: list[Any] = [np.empty(2).reshape(1, 2)]
    x = slots[0]
    slots[0] = None
    return sys.getrefcount(x), sys.getrefcount(x.base)


_RC_SOLE, _RC_BASE = _rc_probe()


def sole_owner(x: Any) -> bool:
    """True when nothing but the caller's local variable reaches ``x``'s data
    (no other value, view, constant or caller-owned array): it may be updated
    in place. Called as a statement of its own (``ok = sole_owner(x)``: one
    extra reference, the argument, over the probe)."""
    if type(x) is not np.ndarray or not x.flags.writeable:
        return False
    if sys.getrefcount(x) > _RC_SOLE + 1:
        return False
    base = x.base
    if base is None:
        return x.flags.owndata
    if type(base) is not np.ndarray or base.base is not None or not base.flags.owndata:
        return False
    # references: x.base, the local ``base``, getrefcount's argument
    return sys.getrefcount(base) <= _RC_BASE + 1


_SQUEEZES = ("ov.Squeeze", "ov.Squeeze_opset1")
_VIEW_OPS = ("ov.Reshape", "ov.Unsqueeze", "ov.Transpose", *_SQUEEZES)


def _const_ints(st: ScheduleStep, consts: Mapping[int, np.ndarray]) -> list[int] | None:
    """The second input of ``st`` when it is a 0-D or 1-D integer constant."""
    if len(st.args) != 2 or st.args[1] not in consts:
        return None
    a = consts[st.args[1]]
    if not isinstance(a, np.ndarray) or a.dtype.kind not in "iu" or a.ndim > 1:
        return None
    return [int(v) for v in a.reshape(-1).tolist()]


def _view_dims(st: ScheduleStep, consts: Mapping[int, np.ndarray],
               din: tuple[int, ...]) -> list[int | tuple[int]] | None:
    """The result dims of a built-in Reshape, Squeeze or Unsqueeze as the
    kernel computes them: ints (-1: numpy's inferred dim) or ``(k,)`` for
    input dim ``k``; None when they depend on more than the input's rank."""
    name, rank = st.node.op.name, len(din)
    if name == "ov.Reshape":
        dims = _const_ints(st, consts)
        if dims is None or dims.count(-1) > 1 or min(dims, default=0) < -1:
            return None
        if st.node.attr("special_zero", False) and 0 in dims:
            if any(d == 0 and j >= rank for j, d in enumerate(dims)):
                return None
            return [(j,) if d == 0 else d for j, d in enumerate(dims)]
        return list(dims)
    if len(st.args) != 2:  # a Squeeze of every 1-dim
        return None
    axes = _const_ints(st, consts)
    if axes is None:
        return None
    out_rank = rank + len(axes) if name == "ov.Unsqueeze" else rank
    if any(not -out_rank <= a < out_rank for a in axes):
        return None
    ax = {a + out_rank if a < 0 else a for a in axes}
    if name == "ov.Unsqueeze":
        if len(ax) != len(axes):
            return None
        it = iter(range(rank))
        return [1 if j in ax else (next(it),) for j in range(out_rank)]
    if any(din[a] != 1 for a in ax):  # a dim squeezed only when declared 1
        return None
    return [(k,) for k in range(rank) if k not in ax]


def _view_call(st: ScheduleStep, consts: Mapping[int, np.ndarray], x: str) -> tuple[str, Any, bool] | None:
    """(expression, its bound argument ``P``, whether the result needs the
    output check) when the step is a built-in Reshape, Squeeze, Unsqueeze or
    Transpose computable as one view call on its first input ``x`` (what
    the kernel returns, without its argument parsing); else None."""
    node = st.node
    name = node.op.name
    if name not in _VIEW_OPS or not is_builtin_kernel(name, st.kernel):
        return None
    op = node.op
    if len(op.results) != 1 or not op.operands:
        return None
    et_in = et.of_tensor_type(op.operands[0].type)
    if et_in in (None, "bf16") or et_in != node.out_etypes[0] or node.out_dtypes[0] is None:
        return None
    din, dout = tensor_dims(op.operands[0].type), node.out_shapes[0]
    if din is None or dout is None:
        return None
    static = min(din, default=0) >= 0 and min(dout, default=0) >= 0
    if name == "ov.Transpose":
        order = _const_ints(st, consts)
        if order is None:
            return None
        perm = [p + len(din) if p < 0 else p for p in order] or list(range(len(din)))[::-1]
        if sorted(perm) != list(range(len(din))):
            return None
        # the result's dims are the input's, permuted: checked when they
        # could differ from the declared ones
        fits = len(dout) == len(perm) and all(
            o < 0 or o == din[p] for o, p in zip(dout, perm))
        return f"{x}.transpose(P)", tuple(perm), not fits
    if static and prod(din) == prod(dout):  # the declared result, whatever the kernel's inputs
        return f"{x}.reshape(P)", tuple(dout), False
    dims = _view_dims(st, consts, din)
    if dims is None:
        return None
    if len(dims) != len(dout):
        fits = False
    else:
        fits = all(o < 0 or (d == o if isinstance(d, int) else din[d[0]] == o)
                   for d, o in zip(dims, dout))
    if all(isinstance(d, int) for d in dims):
        return f"{x}.reshape(P)", tuple(dims), not fits
    parts = [f"{x}.shape[{d[0]}]" if isinstance(d, tuple) else str(int(d)) for d in dims]
    return f"{x}.reshape(({''.join(p + ', ' for p in parts)}))", None, not fits


def _planned(st: ScheduleStep, consts: Mapping[int, np.ndarray]) -> Any:
    """The function the plan of the step's kernel makes for it (see
    :mod:`.node`: no node argument, the run's error state), or None."""
    plan = getattr(st.kernel, "plan", None)
    if plan is None:
        return None
    return plan(st.node, tuple(consts.get(a) for a in st.args))


#: binary ufuncs a planned step may run into the buffer of its dead input
_IN_PLACE_UFUNCS = (np.add, np.subtract, np.multiply, np.divide, np.maximum, np.minimum)
_IN_PLACE_ETYPES = ("f32", "f64")


def _in_place_arg(st: ScheduleStep, fast: Any, consts: Mapping[int, np.ndarray],
                  params: Sequence[int]) -> int | None:
    """The argument index whose buffer the step's planned binary ufunc (or a
    plan's function marked ``in_place_ok``, taking ``out=`` as a ufunc does) may
    write its result into: a float value of the result's static shape and
    element type (the other operand of that type too, broadcasting to it:
    a squeeze-excitation scale over its map) that dies with this step and is
    neither a constant nor a parameter; it is written only when the run finds
    it held by nothing else (:func:`sole_owner`) and C-contiguous, as the other
    operand when not broadcast (the result then laid out as a new array would
    be: later steps sum in the same order). None when no argument is."""
    if (not (any(fast is u for u in _IN_PLACE_UFUNCS) or getattr(fast, "in_place_ok", False))
            or len(st.args) != 2 or len(st.outs) != 1):
        return None
    node = st.node
    shape = node.out_shapes[0]
    if (node.out_etypes[0] not in _IN_PLACE_ETYPES or shape is None or min(shape, default=-1) < 0
            or st.args[0] == st.args[1]):
        return None
    operands = node.op.operands
    if any(et.of_tensor_type(o.type) != node.out_etypes[0] for o in operands):
        return None
    for j, a in enumerate(st.args):
        if (a in st.free and a not in consts and a not in params
                and tensor_dims(operands[j].type) == tuple(shape)):
            return j
    return None


def _errstate() -> Any:
    return np.errstate(divide="ignore", invalid="ignore", over="ignore")


class ScheduleRunner:
    """A schedule as one compiled function: ``runner(args)`` takes the
    parameters' arrays (in ``params`` order) and returns the values of
    ``results``."""

    def __init__(self, steps: Sequence[ScheduleStep], params: Sequence[int], results: Sequence[int],
                 consts: Mapping[int, np.ndarray], free_before_run: Sequence[int]) -> None:
        self._steps = list(steps)
        #: the generated function's source (indices only)
        self.source = ""
        self._fn, self._line_step = self._build(params, results, consts, free_before_run, False)
        self._timed_fn: Any = None
        self._timed_line_step: list[int] = []
        self._params, self._results = list(params), list(results)
        self._consts, self._free_before_run = consts, list(free_before_run)

    def _build(self, params: Sequence[int], results: Sequence[int],
               consts: Mapping[int, np.ndarray], free_before_run: Sequence[int],
               timed: bool) -> tuple[Any, list[int]]:
        g: dict[str, Any] = {"ND": np.ndarray, "chk": checked_outputs, "so": sole_owner,
                             "__builtins__": {"len": len}}
        lines: list[str] = []
        owner: list[int] = []  # step index of each line (-1: none)

        def emit(text: str, step: int = -1) -> None:
            lines.append(text)
            owner.append(step)

        def val(s: int) -> str:
            if s in consts:
                g[f"c{s}"] = consts[s]
                return f"c{s}"
            return f"v{s}"

        uses_errstate = False
        head = ", ".join(["T"] * timed + [f"v{s}" for s in params])
        emit(f"def run({head}):")
        if timed:
            g["pc"] = time.perf_counter
        if free_before_run:
            emit("    " + " = ".join(f"v{s}" for s in free_before_run) + " = None")
        for i, st in enumerate(self._steps):
            node, kernel, args, outs, free, steal = st[:6]
            g[f"n{i}"] = node
            if timed:
                emit("    t = pc()", i)
            view = _view_call(st, consts, val(args[0])) if args else None
            fast = _planned(st, consts) if view is None and steal is None else None
            into = _in_place_arg(st, fast, consts, params) if fast is not None else None
            if into is not None:  # a binary ufunc writing into its dead input when it alone holds it
                g[f"k{i}"] = fast
                uses_errstate = True
                emit(f"    x = v{args[into]}; v{args[into]} = None; ok = so(x)", i)
                vals = [val(a) for a in args]
                # C-contiguous operands: the result has the layout a new array would have
                other = vals[1 - into]
                full = tensor_dims(node.op.operands[1 - into].type) == node.out_shapes[0]
                both = f" and {other}.flags.c_contiguous" if full else ""
                emit(f"    if ok and not (x.flags.c_contiguous{both}): ok = False", i)
                vals[into] = "x"
                call = f"k{i}({', '.join(vals)}, out=x) if ok else k{i}({', '.join(vals)})"
                self._emit_outputs(i, node, outs, call, g, emit, checked=True)
                emit("    x = None", i)
            elif fast is not None:
                g[f"k{i}"] = fast
                uses_errstate = True
                call = f"k{i}(" + ", ".join(val(a) for a in args) + ")"
                self._emit_outputs(i, node, outs, call, g, emit, checked=True)
            elif view is not None:
                expr, g[f"P{i}"], checked = view
                self._emit_outputs(i, node, outs, expr.replace("(P)", f"(P{i})"), g, emit,
                                   checked=checked, one_array=True)
            elif steal is not None:
                assert isinstance(kernel, (AffineKernel, ElemChainKernel))
                g[f"k{i}"] = kernel.bind() if isinstance(kernel, AffineKernel) else kernel.run
                # the input held by ``x`` alone while sole_owner counts references
                emit(f"    x = v{steal}; v{steal} = None; ok = so(x)", i)
                rest = "".join(f", {val(a)}" for a in args[1:])
                self._emit_outputs(i, node, outs, f"k{i}(x, ok{rest})", g, emit, checked=True)
                emit("    x = None", i)
            else:
                g[f"k{i}"] = kernel
                call = f"k{i}(" + ", ".join([f"n{i}", *(val(a) for a in args)]) + ")"
                self._emit_outputs(i, node, outs, call, g, emit,
                                   checked=not isinstance(kernel, ShapeBlock))
            if free:
                emit("    " + " = ".join(f"v{s}" for s in free) + " = None", i)
            if timed:
                emit(f"    T[{i}] += pc() - t", i)
        emit("    return (" + "".join(f"{val(s)}, " for s in results) + ")")
        if uses_errstate:  # the whole run in the state planned functions run in
            g["ES"] = _errstate
            lines[1:] = ["    with ES():", *("    " + line for line in lines[1:])]
            owner[1:] = [-1, *owner[1:]]
        src = "\n".join(lines) + "\n"
        if not timed:
            self.source = src
        code = compile(src, "<xmo schedule>", "exec")
        exec(code, g)  # noqa: S102  (source made of indices only, see the module doc)
        # line numbers start at 1
        return g["run"], [-1, *owner]

    @staticmethod
    def _emit_outputs(i: int, node: KernelNode, outs: tuple[int, ...], call: str,
                      g: dict[str, Any], emit: Any, checked: bool,
                      one_array: bool = False) -> None:
        """The kernel's result (``call``) into the output variables, checked as
        :func:`checked_outputs` checks it (inline for one array). No other
        variable keeps a reference to it (see :func:`sole_owner`).
        ``one_array``: ``call`` is one array (a view), never a sequence."""
        if one_array and not checked:
            emit(f"    v{outs[0]} = {call}", i)
            return
        one = node.one_output
        if not checked or one is None or len(outs) != 1:
            if not checked:  # a shape block: its members' outputs were checked
                value = call
            else:
                value = f"chk(n{i}, {call})"
            if outs:
                emit("    " + "".join(f"v{o}, " for o in outs) + f"= {value}", i)
            else:
                emit(f"    {value}", i)
            return
        v = f"v{outs[0]}"
        want, known, rank = one
        conds = [f"{v}.__class__ is not ND"]
        if want is not None:
            g[f"D{i}"] = want
            conds.append(f"{v}.dtype is not D{i}")
        if rank is not None:
            if len(known) == rank:
                g[f"S{i}"] = tuple(d for _, d in known)
                conds.append(f"{v}.shape != S{i}")
            else:
                conds.append(f"len(s := {v}.shape) != {int(rank)}")
                conds += [f"s[{int(j)}] != {int(d)}" for j, d in known]
        emit(f"    {v} = {call}", i)
        emit(f"    if {' or '.join(conds)}: {v} = chk(n{i}, {v})[0]", i)

    def __call__(self, args: Sequence[np.ndarray]) -> tuple[Any, ...]:
        return self._run(self._fn, self._line_step, args)

    def timed(self, args: Sequence[np.ndarray], step_times: list[float]) -> tuple[Any, ...]:
        """Run with each step's seconds added to ``step_times`` (one per step)."""
        if self._timed_fn is None:
            self._timed_fn, self._timed_line_step = self._build(
                self._params, self._results, self._consts, self._free_before_run, True)
        return self._run(self._timed_fn, self._timed_line_step, (step_times, *args))

    def _run(self, fn: Any, line_step: list[int], args: Sequence[Any]) -> tuple[Any, ...]:
        """``fn(*args)``, an exception raised by a step's line reported as that
        step's :class:`KernelError`."""
        try:
            return fn(*args)
        except CPUBackendError:
            raise
        except Exception as e:  # noqa: BLE001  (name the op that failed)
            err = self._error(e, fn, line_step)
            if err is e:
                raise
            raise err from e

    def _error(self, e: Exception, fn: Any, line_step: list[int]) -> Exception:
        """``e`` as the :class:`KernelError` of the step whose line raised it
        (``e`` itself when it did not come from a step)."""
        tb = e.__traceback__
        while tb is not None and tb.tb_frame.f_code is not fn.__code__:
            tb = tb.tb_next
        if tb is None or not 0 <= tb.tb_lineno < len(line_step) or line_step[tb.tb_lineno] < 0:
            return e
        node = self._steps[line_step[tb.tb_lineno]].node
        return KernelError(f"{node.describe()}: {type(e).__name__}: {e}")
