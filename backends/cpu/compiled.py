"""``CompiledModel``: an ``ov`` module turned into a schedule of kernel calls.

Constants are read once (and the constant sub-graphs of the schedule computed
once, :mod:`.folding`), every intermediate array is dropped as soon as its last
user has run, chains of elementwise ops with constant operands run as one
step (:mod:`.fusion`), in place when their input is dead, and the shape
computations of dynamic shapes once per input-shape signature (:mod:`.shapes`).
The fused schedule runs as one generated straight-line function
(:mod:`.runner`); with an observer, the unfused one step by step.
"""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable, Mapping, Sequence
from operator import itemgetter
from typing import Any

import numpy as np
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Operation, Region, SSAValue

from xmo.backends.cpu import fpenv
from xmo.backends.cpu import threads as cpu_threads
from xmo.backends.cpu.dtypes import (
    BF16,
    PACKED_DTYPES,
    bf16_bits_to_f32,
    tensor_dims,
    tensor_dtype,
    unpack_constant,
)
from xmo.backends.cpu.errors import CPUBackendError, InputError, KernelError, KernelNotFoundError
from xmo.backends.cpu.folding import fold_constants
from xmo.backends.cpu.memory import apply_malloc_policy
from xmo.backends.cpu.fusion import AffineKernel, ElemChainKernel, fuse_affine, fuse_elementwise, fuse_epilogues
from xmo.backends.cpu.norm_fusion import fuse_layer_norms
from xmo.backends.cpu.node import (
    KernelCall,
    KernelNode,
    checked_outputs,
    describe_op,
    op_type,
)
from xmo.backends.cpu.ports import ModelOutputs, PortInfo, output_index
from xmo.backends.cpu.profile import RunProfile, StepInfo
from xmo.backends.cpu.registry import kernel_for
from xmo.backends.cpu.runner import ScheduleRunner, ScheduleStep, sole_owner
from xmo.backends.cpu.shapes import memoize_shape_subgraphs
from xmo.dialects.ov import element_types as et
from xmo.dialects.ov.base import OVOp
from xmo.dialects.ov.core_ops import ConstantOp, ParameterOp, ResultOp


#: schedules longer than this always run step by step: ``compile()`` of the
#: generated function takes ~0.1 ms per step, paid back only after ~100 runs
GENERATE_MAX_STEPS = 10_000


class CompiledModel:
    """An ``ov`` module ready to run on numpy arrays: the CPU backend's entry.

    It takes a module (:func:`xmo.compile_model` converts model files first)
    and keeps it alive; or a body region (the kernels of Loop, TensorIterator
    and If compile their bodies so). ``model(inputs)`` takes a dict (input tensor name or
    friendly name -> array) or a list (in Parameter order) and returns
    :class:`ModelOutputs`. ``threads``: the process's CPU-backend thread count
    (BLAS, numba, the helper pool; default: the cores it may use).
    ``flush_denormals``: the process's denormal mode (:mod:`.fpenv`; None
    keeps what is set, by default flushing).
    """

    def __init__(self, module: ModuleOp | Operation | Region, threads: int | None = None,
                 flush_denormals: bool | None = None) -> None:
        apply_malloc_policy()  # once per process (.memory)
        if flush_denormals is None:  # process-wide, as threads (.fpenv)
            fpenv.flush_denormals()
        else:
            fpenv.set_flush_denormals(flush_denormals)
        # BLAS, numba and the helper pool sized once for the process (threads=N
        # sets N for all of them; see .threads)
        if threads is None:
            cpu_threads.threads()
        else:
            cpu_threads.set_threads(threads)
        # the module keeps its context, and so the weight store, alive
        self._module = module
        if isinstance(module, Region):  # a body of Loop, TensorIterator, If
            ops = list(module.block.ops)
        elif isinstance(module, ModuleOp):
            ops = list(module.body.block.ops)
        else:
            ops = list(module.regions[0].block.ops)
        slot_of: dict[SSAValue, int] = {}
        n_slots = 0

        def new_slot(v: SSAValue) -> int:
            nonlocal n_slots
            slot_of[v] = n_slots
            n_slots += 1
            return n_slots - 1

        self._params: list[tuple[int, ParameterOp]] = []
        self._consts: dict[int, np.ndarray] = {}
        self._results: list[int] = []
        self.inputs: list[PortInfo] = []
        self.outputs: list[PortInfo] = []
        steps: list[KernelCall] = []
        missing: list[str] = []

        for op in ops:
            if isinstance(op, ParameterOp):
                s = new_slot(op.results[0])
                self._params.append((s, op))
                names = [*op.get_tensor_names(0)]
                fn = op.get_friendly_name()
                if fn and fn not in names:
                    names.append(fn)
                t = op.results[0].type
                self.inputs.append(
                    PortInfo(tuple(names), tensor_dtype(t), tensor_dims(t), et.of_tensor_type(t))
                )
            elif isinstance(op, ConstantOp):
                s = new_slot(op.results[0])
                arr = op.get_array()
                ename = et.of_tensor_type(op.results[0].type)
                if ename == "bf16":
                    arr = bf16_bits_to_f32(arr)
                elif ename in PACKED_DTYPES:
                    arr = unpack_constant(arr, ename, tensor_dims(op.results[0].type) or ())
                self._consts[s] = arr
            elif isinstance(op, ResultOp):
                v = op.operands[0]
                if v not in slot_of:
                    raise CPUBackendError(f"{describe_op(op)}: input defined after use")
                self._results.append(slot_of[v])
                self.outputs.append(
                    PortInfo(tuple(self._output_names(op)), tensor_dtype(v.type),
                             tensor_dims(v.type), et.of_tensor_type(v.type))
                )
            else:
                kernel = kernel_for(op.name)
                if kernel is None:
                    missing.append(describe_op(op))
                    kernel = _missing_kernel
                args = []
                for v in op.operands:
                    if v not in slot_of:
                        raise CPUBackendError(
                            f"{describe_op(op)}: operand defined outside the module body "
                            "or after use"
                        )
                    args.append(slot_of[v])
                outs = tuple(new_slot(r) for r in op.results)
                steps.append((KernelNode(op), kernel, tuple(args), outs))

        if missing:
            shown = ", ".join(missing[:10]) + (" ..." if len(missing) > 10 else "")
            raise KernelNotFoundError(
                f"no CPU kernel for {len(missing)} op(s): {shown}. "
                "Register one with xmo.backends.cpu.register_kernel(op_name)."
            )

        self._plain_steps = self._schedule(steps)
        folded = fold_constants(steps, self._consts)
        self._consts.update(folded)
        steps = [st for st in steps if not (st[3] and all(o in folded for o in st[3]))]
        keep = set(self._results) | set(self._consts)
        fused = fuse_affine(steps, self._consts, keep | {s for s, _ in self._params})
        fused = fuse_layer_norms(fused, self._consts, keep)
        fused = fuse_epilogues(fused, self._consts, keep)
        fused = fuse_elementwise(fused, self._consts, keep | {s for s, _ in self._params})
        fused = memoize_shape_subgraphs(fused, self._consts, set(self._results))
        self._steps = self._schedule(fused)
        self._n_slots = n_slots
        self._slot_template: list[Any] = [None] * n_slots
        for s, a in self._consts.items():
            self._slot_template[s] = a
        self._bf16_outputs = [i for i, p in enumerate(self.outputs) if p.etype == "bf16"]
        self._output_index = output_index(self.outputs)
        self._input_index: dict[str, int] = {}
        for i, p in enumerate(self.inputs):
            for n in p.names:
                self._input_index.setdefault(n, i)
        # an input array taken as is: exactly this dtype, rank and known dims
        self._input_exact = [
            (p.dtype, len(p.shape), tuple((i, d) for i, d in enumerate(p.shape) if d >= 0))
            if p.dtype is not None and p.etype != "bf16" and p.shape is not None else None
            for p in self.inputs
        ]
        # the generated function, made at the second run (a model run once
        # does not pay for writing and compiling it)
        self._runner: ScheduleRunner | None = None
        self._runs = 0

    def _schedule(
        self,
        steps: list[KernelCall],
    ) -> list[ScheduleStep]:
        """Steps with liveness: each slot dropped after the step using it last.
        A fused affine step whose input dies with it may update it in place."""
        keep = set(self._results) | set(self._consts)
        params = {s for s, _ in self._params}
        last_use: dict[int, int] = {}
        for i, (_, _, args, outs) in enumerate(steps):
            for a in args:
                last_use[a] = i
            for o in outs:  # unused outputs die right away
                last_use.setdefault(o, i)
        for s, _ in self._params:
            last_use.setdefault(s, -1)
        free_after: dict[int, list[int]] = {}
        for s, i in last_use.items():
            if s not in keep:
                free_after.setdefault(i, []).append(s)
        self._free_before_run = tuple(free_after.get(-1, ()))
        out: list[ScheduleStep] = []
        for i, (node, k, args, outs) in enumerate(steps):
            free = tuple(free_after.get(i, ()))
            steal = None
            if isinstance(k, (AffineKernel, ElemChainKernel)) and args[0] in free and args[0] not in params:
                steal = args[0]
            fetch = itemgetter(*args) if len(args) > 1 else None
            out.append(ScheduleStep(node, k, args, outs, free, steal, fetch))
        return out

    @staticmethod
    def _output_names(res: ResultOp) -> list[str]:
        v = res.operands[0]
        names: list[str] = []
        producer = v.owner
        if isinstance(producer, OVOp):
            names += producer.get_tensor_names(v.index)  # type: ignore[attr-defined]
        fn = res.get_friendly_name()
        if fn:
            names.append(fn)
        if isinstance(producer, OVOp):
            pn = producer.get_friendly_name()
            if pn:
                names.append(pn if len(producer.results) == 1 else f"{pn}.{v.index}")  # type: ignore[attr-defined]
        seen: list[str] = []
        for n in names:
            if n not in seen:
                seen.append(n)
        return seen

    # -- introspection ---------------------------------------------------------
    @property
    def input_names(self) -> list[str]:
        return [p.name for p in self.inputs]

    @property
    def output_names(self) -> list[str]:
        return [p.name for p in self.outputs]

    @property
    def runner(self) -> ScheduleRunner:
        """The fused schedule as one generated function (made on first use)."""
        runner = self._runner
        if runner is None:  # two threads may both make one: either will do
            runner = self._runner = ScheduleRunner(
                self._steps, [s for s, _ in self._params], self._results, self._consts,
                self._free_before_run)
        return runner

    @property
    def schedule(self) -> list[KernelNode]:
        """The ops executed, in order (before fusion)."""
        return [s.node for s in self._plain_steps]

    # -- running -----------------------------------------------------------------
    def _bind_inputs(
        self, inputs: Mapping[str, Any] | Sequence[Any] | np.ndarray | None
    ) -> list[np.ndarray]:
        n = len(self.inputs)
        if inputs is None:
            inputs = []
        if isinstance(inputs, np.ndarray):
            inputs = [inputs]
        if type(inputs) is dict or isinstance(inputs, Mapping):
            values: list[Any] = [None] * n
            index = self._input_index
            for key, val in inputs.items():
                i = index.get(key) if isinstance(key, str) else None
                if i is None:
                    if isinstance(key, int):
                        i = key
                        if not 0 <= i < n:
                            raise InputError(f"input index {i} out of range ({n} inputs)")
                    else:
                        raise InputError(
                            f"the model has no input named '{key}' "
                            f"(inputs: {self.input_names})"
                        )
                if values[i] is not None:
                    raise InputError(f"input {self._label(i)} given twice")
                values[i] = val
        else:
            values = list(inputs)
            if len(values) != n:
                raise InputError(f"the model has {n} inputs, got {len(values)}")
        exact = self._input_exact
        for i, val in enumerate(values):
            want = exact[i]
            if want is not None and val.__class__ is np.ndarray and val.dtype is want[0]:
                shape = val.shape
                if len(shape) == want[1]:
                    for j, d in want[2]:
                        if shape[j] != d:
                            break
                    else:
                        continue  # the common case, checked inline
            if val is None:
                raise InputError(f"input {self._label(i)} is missing")
            values[i] = self._check_input(i, val, self.inputs[i])
        return values

    def _label(self, i: int) -> str:
        name = self.inputs[i].name
        return f"#{i}" + (f" '{name}'" if name else "")

    def _check_input(self, i: int, val: Any, port: PortInfo) -> np.ndarray:
        if isinstance(val, np.ndarray):
            arr = val
            if port.etype == "bf16" and arr.dtype == BF16:
                arr = arr.astype(np.float32)
            elif port.etype == "bf16" and arr.dtype == np.uint16:  # raw bf16 payload
                arr = bf16_bits_to_f32(arr)
            if port.dtype is not None and arr.dtype != port.dtype:
                raise InputError(
                    f"input {self._label(i)}: element type {arr.dtype} given, "
                    f"the model expects {port.dtype}"
                )
        else:
            arr = np.asarray(val, dtype=port.dtype)
        if port.shape is not None:
            ok = len(arr.shape) == len(port.shape) and all(
                d < 0 or d == a for d, a in zip(port.shape, arr.shape)
            )
            if not ok:
                want = "[" + ",".join("?" if d < 0 else str(d) for d in port.shape) + "]"
                raise InputError(
                    f"input {self._label(i)}: shape {list(arr.shape)} given, "
                    f"the model expects {want}"
                )
        return arr

    def __call__(
        self,
        inputs: Mapping[str, Any] | Sequence[Any] | np.ndarray | None = None,
        observer: Callable[[Operation, list[np.ndarray]], None] | None = None,
        step_times: list[float] | None = None,
    ) -> ModelOutputs:
        """Run the model (:meth:`_run_model`) with denormals flushed on the
        calling thread when the process's mode says so (:mod:`.fpenv`)."""
        saved = fpenv.enter_run()
        try:
            return self._run_model(inputs, observer, step_times)
        finally:
            fpenv.leave_run(saved)

    def _run_model(
        self,
        inputs: Mapping[str, Any] | Sequence[Any] | np.ndarray | None,
        observer: Callable[[Operation, list[np.ndarray]], None] | None,
        step_times: list[float] | None,
    ) -> ModelOutputs:
        """Run the model. ``observer(op, outputs)`` (optional) sees every op's
        outputs as they are computed (used to find where results diverge).
        ``step_times`` (optional, one float per step of the schedule run) gets
        each step's seconds added (see :meth:`profile`).

        With an observer the unfused schedule runs step by step (every op
        observed with its own result); without one, the fused schedule: chains
        of elementwise ops with constant operands run as one fused ``x*a + b``
        step (see :mod:`.fusion`), in place when its input is dead; step by
        step the first time, then as one generated function (:attr:`runner`;
        a schedule of more than :data:`GENERATE_MAX_STEPS` steps always step
        by step)."""
        args = self._bind_inputs(inputs)
        if observer is not None:
            values = self._run_steps(self._plain_steps, args, observer, step_times)
        elif self._runner is None and (
                (self._runs == 0 and step_times is None) or len(self._steps) > GENERATE_MAX_STEPS):
            # the first run (and every run of a huge schedule): step by step
            self._runs = 1
            values = self._run_steps(self._steps, args, None, step_times)
        elif step_times is None:
            values = self.runner(args)
        else:
            values = self.runner.timed(args, self._step_times(step_times))
        # the caller owns what it gets: a read-only result (a cached shape-block
        # array or a view of one, a constant) is copied
        outs = [a if a.__class__ is not np.ndarray or a.flags.writeable else a.copy()
                for a in values]
        for i in self._bf16_outputs:
            outs[i] = np.asarray(outs[i]).astype(BF16)
        return ModelOutputs(outs, self.outputs, self._output_index)

    def _step_times(self, step_times: list[float]) -> list[float]:
        if len(step_times) != len(self._steps):
            raise ValueError(f"step_times has {len(step_times)} entries, "
                             f"the schedule {len(self._steps)} steps")
        return step_times

    def _run_steps(
        self,
        steps: list[ScheduleStep],
        args: list[np.ndarray],
        observer: Callable[[Operation, list[np.ndarray]], None] | None,
        step_times: list[float] | None,
    ) -> list[Any]:
        """``steps`` one by one (the unfused schedule when an observer sees
        each op's outputs); returns the results' values."""
        slots: list[Any] = self._slot_template.copy()  # the constants in place
        for (s, _), a in zip(self._params, args):
            slots[s] = a
        for s in self._free_before_run:
            slots[s] = None
        res: Any = None
        outs: Any = None
        if step_times is not None and len(step_times) != len(steps):
            raise ValueError(
                f"step_times has {len(step_times)} entries, the schedule {len(steps)} steps"
            )
        t0 = 0.0
        timed = step_times is not None
        for i, (node, kernel, args_s, outs_s, free, steal, fetch) in enumerate(steps):
            if timed:
                t0 = time.perf_counter()
            try:
                if steal is not None:
                    x = slots[steal]
                    slots[steal] = None
                    sole = sole_owner(x)  # a statement of its own (reference counts)
                    res = kernel.run(x, sole, *[slots[a] for a in args_s[1:]])
                    x = None
                elif fetch is not None:
                    res = kernel(node, *fetch(slots))
                elif args_s:
                    res = kernel(node, slots[args_s[0]])
                else:
                    res = kernel(node)
            except CPUBackendError:
                raise
            except Exception as e:  # noqa: BLE001  (name the op that failed)
                raise KernelError(f"{node.describe()}: {type(e).__name__}: {e}") from e
            outs = checked_outputs(node, res)
            if observer is not None:
                observer(node.op, outs)
            if len(outs_s) == 1:
                slots[outs_s[0]] = outs[0]
            else:
                for o, arr in zip(outs_s, outs):
                    slots[o] = arr
            for s in free:
                slots[s] = None
            res = outs = None
            if timed:
                step_times[i] += time.perf_counter() - t0  # type: ignore[index]
        return [slots[s] for s in self._results]

    run = __call__
    infer = __call__

    def profile(
        self, inputs: Mapping[str, Any] | Sequence[Any] | np.ndarray | None = None, runs: int = 1
    ) -> RunProfile:
        """Run the model ``runs`` times, timing each step: the median of each
        step's times, per op type and per node
        (:class:`~xmo.backends.cpu.profile.RunProfile`)."""
        if runs < 1:
            raise ValueError(f"runs must be at least 1, got {runs}")
        steps = [
            StepInfo(getattr(st.kernel, "step_type", None) or st.node.type, st.node.name)
            for st in self._steps
        ]
        per_run = []
        for _ in range(runs):
            seconds = [0.0] * len(steps)
            self(inputs, step_times=seconds)
            per_run.append(seconds)
        return RunProfile(steps, [statistics.median(ts) for ts in zip(*per_run)], runs)


def _missing_kernel(node: KernelNode, *inputs: np.ndarray) -> Any:
    raise KernelNotFoundError(f"no CPU kernel for {node.describe()}")


