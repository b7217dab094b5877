"""Reference CPU execution of ``ov``-dialect modules with numpy kernels.

* :func:`register_kernel` -- the kernel registry, keyed by xDSL op name
  (``"ov.Add"``); user-defined ops register their own kernels the same way.
* :class:`CompiledModel` -- a module turned into a schedule of kernel calls:
  constants are read once, every intermediate array is dropped as soon as its
  last user has run.

A kernel is called as ``kernel(node, *inputs)`` where ``node`` is the
:class:`Node` being executed (attributes, output element types and shapes) and
``inputs`` are numpy arrays; it returns one array or a sequence of arrays (one
per output). Outputs are cast to the element type declared by the op's result
types when they differ.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import ml_dtypes
import numpy as np
from xdsl.dialects.builtin import ModuleOp, TensorType
from xdsl.ir import Attribute, Operation, SSAValue

from xmo.dialects.ov import element_types as et
from xmo.dialects.ov.base import OVOp
from xmo.dialects.ov.core_ops import ConstantOp, ParameterOp, ResultOp

#: A kernel: ``kernel(node, *inputs) -> array | sequence of arrays``.
Kernel = Callable[..., Any]

_KERNELS: dict[str, Kernel] = {}


class CPUBackendError(RuntimeError):
    """Base class of the CPU backend's errors."""


class KernelNotFoundError(CPUBackendError, NotImplementedError):
    """An op of the model has no registered kernel."""


class KernelError(CPUBackendError):
    """A kernel failed on its inputs."""


class InputError(CPUBackendError, ValueError):
    """Model inputs of the wrong number, name, shape or element type."""


def register_kernel(*op_names: str, override: bool = False) -> Callable[[Kernel], Kernel]:
    """Decorator registering a kernel for the xDSL ops named ``op_names``.

    ``override=True`` replaces an existing kernel (to customize a built-in one).
    """
    if not op_names:
        raise ValueError("register_kernel needs at least one op name")

    def register(fn: Kernel) -> Kernel:
        for n in op_names:
            if not override and n in _KERNELS and _KERNELS[n] is not fn:
                raise ValueError(
                    f"a kernel for {n} is already registered "
                    "(pass override=True to replace it)"
                )
            _KERNELS[n] = fn
        return fn

    return register


def kernel_for(op_name: str) -> Kernel | None:
    """The kernel registered for xDSL op ``op_name`` (built-ins loaded first)."""
    _load_builtin_kernels()
    return _KERNELS.get(op_name)


def registered_ops() -> list[str]:
    """Names of every op with a kernel, sorted."""
    _load_builtin_kernels()
    return sorted(_KERNELS)


_loaded = False


def _load_builtin_kernels() -> None:
    global _loaded
    if not _loaded:
        _loaded = True
        import xmo.backends.cpu.kernels  # noqa: F401  (registers kernels)


# ---------------------------------------------------------------------------
# Types
# ---------------------------------------------------------------------------


_etype_name = et.of_tensor_type


#: Packed element types, held unpacked (one value per byte) inside the backend.
PACKED_DTYPES: dict[str, np.dtype] = {
    "i4": np.dtype(ml_dtypes.int4),
    "u4": np.dtype(ml_dtypes.uint4),
    "u2": np.dtype(ml_dtypes.uint2),
    "f4e2m1": np.dtype(ml_dtypes.float4_e2m1fn),
}
BF16 = np.dtype(ml_dtypes.bfloat16)


def etype_dtype(name: str | None) -> np.dtype | None:
    """The numpy dtype the backend computes element type ``name`` in.

    bf16 is computed in f32 (rounded to bf16 after every op producing it); the
    packed types are unpacked ml_dtypes arrays; f8 types are ml_dtypes arrays.
    """
    if name is None:
        return None
    if name == "bf16":
        return np.dtype(np.float32)
    if name in PACKED_DTYPES:
        return PACKED_DTYPES[name]
    try:
        return et.numpy_dtype(name)
    except et.ElementTypeError:
        return None


def _numpy_dtype(t: Attribute) -> np.dtype | None:
    return etype_dtype(_etype_name(t))


def round_bf16(a: np.ndarray) -> np.ndarray:
    """f32 values rounded to bf16 precision (still f32)."""
    return np.asarray(a).astype(BF16).astype(np.float32)


def unpack_constant(raw: np.ndarray, name: str, shape: Sequence[int]) -> np.ndarray:
    """A packed constant's bytes (low bits first) -> an unpacked ml_dtypes array."""
    bits = et.PACKED_BITS[name]
    per = 8 // bits
    raw = np.asarray(raw).view(np.uint8).reshape(-1)
    n = int(np.prod(shape, dtype=np.int64))
    if raw.size == 1 and n > per:  # splat
        raw = np.broadcast_to(raw, (-(-n // per),))
    shifts = np.arange(per, dtype=np.uint8) * bits
    codes = ((raw[:, None] >> shifts) & ((1 << bits) - 1)).reshape(-1)[:n].astype(np.uint8)
    if name == "i4":
        return ((codes.astype(np.int8) << 4) >> 4).astype(PACKED_DTYPES[name]).reshape(shape)
    return codes.view(PACKED_DTYPES[name]).reshape(shape)


def _shape(t: Attribute) -> tuple[int, ...] | None:
    """Dims (-1 for dynamic) of a ranked tensor type, None when unranked."""
    if isinstance(t, TensorType):
        return tuple(int(d) for d in t.get_shape())
    return None


def _bf16_to_f32(raw: np.ndarray) -> np.ndarray:
    return (raw.astype(np.uint32) << 16).view(np.float32)


def _op_type(op: Operation) -> str:
    return getattr(op, "OV_TYPE", "") or op.name


def _friendly(op: Operation) -> str | None:
    if isinstance(op, OVOp):
        return op.get_friendly_name()
    return None


def _describe(op: Operation) -> str:
    fn = _friendly(op)
    return f"{_op_type(op)} ({op.name})" + (f" '{fn}'" if fn else "")


# ---------------------------------------------------------------------------
# Nodes
# ---------------------------------------------------------------------------


class Node:
    """What a kernel sees of the op it executes."""

    __slots__ = ("op", "type", "name", "attrs", "out_dtypes", "out_shapes", "out_etypes",
                 "cache")

    def __init__(self, op: Operation) -> None:
        self.op = op
        #: OpenVINO type (``"Add"``), or the xDSL name for foreign ops.
        self.type: str = _op_type(op)
        #: Friendly name ('' when the op has none).
        self.name: str = _friendly(op) or ""
        #: OpenVINO attribute values, defaults filled in.
        self.attrs: dict[str, Any] = op.attr_values() if isinstance(op, OVOp) else {}
        #: numpy dtype per output (None when not representable).
        #: OpenVINO element type name per output (None when not one).
        self.out_etypes: list[str | None] = [_etype_name(r.type) for r in op.results]
        self.out_dtypes: list[np.dtype | None] = [etype_dtype(n) for n in self.out_etypes]
        #: per-op scratch for kernels (attributes parsed once, prepared weights)
        self.cache: dict[str, Any] = {}
        #: declared dims per output (-1 dynamic), None when unranked.
        self.out_shapes: list[tuple[int, ...] | None] = [_shape(r.type) for r in op.results]

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
        return _describe(self.op)

    def error(self, message: str) -> KernelError:
        return KernelError(f"{self.describe()}: {message}")


@dataclass(frozen=True)
class PortInfo:
    """A model input or output: its names, element type and declared shape."""

    names: tuple[str, ...]
    dtype: np.dtype | None
    shape: tuple[int, ...] | None
    etype: str | None = None

    @property
    def name(self) -> str:
        return self.names[0] if self.names else ""


@dataclass
class _Step:
    node: Node
    kernel: Kernel
    args: tuple[int, ...]
    outs: tuple[int, ...]
    free: tuple[int, ...]  # slots dropped once this step ran
    steal: int | None = None  # fused affine step: its input slot, dead after it


# ---------------------------------------------------------------------------
# Affine fusion: chains of Add/Subtract/Multiply/Divide with constant operands
# ---------------------------------------------------------------------------

_AFFINE_OPS = frozenset({"Add", "Subtract", "Multiply", "Divide"})
#: the built-in kernels of the fusable ops (filled in by kernels/elementwise.py);
#: an op whose kernel was overridden is never fused
_BUILTIN_BINARY: dict[str, Kernel] = {}


class _AffineKernel:
    """A fused chain of elementwise ops with constant operands: ``x*a + b``.

    ``a``/``b`` (None when 1/0) are precomputed in f64 and rounded to the
    output dtype once; ``ops`` are the fused ops (the last one names the step).
    """

    def __init__(self, ops: list[Operation], a: np.ndarray | None, b: np.ndarray | None,
                 dtype: np.dtype, shape: tuple[int, ...]) -> None:
        self.ops = ops
        self.a = a
        self.b = b
        self.dtype = dtype
        self.shape = shape

    def run(self, x: np.ndarray, inplace: bool) -> np.ndarray:
        if x.dtype != self.dtype or x.shape != self.shape:
            inplace = False
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

    def __call__(self, node: Node, x: np.ndarray) -> np.ndarray:
        return self.run(x, False)


def _affine_step(node: Node, kernel: Kernel, args: tuple[int, ...],
                 consts: Mapping[int, np.ndarray]) -> tuple[int, np.ndarray, str] | None:
    """(input slot, constant, role) when the step is a fusable elementwise op:
    a built-in Add/Subtract/Multiply/Divide on f32/f64 with numpy broadcast, one
    finite constant operand broadcasting to the other operand's static shape.
    role: "add", "sub" (x - c), "rsub" (c - x), "mul", "div" (x / c)."""
    if node.type not in _AFFINE_OPS or node.op.name != f"ov.{node.type}":
        return None
    if kernel is not _BUILTIN_BINARY.get(node.type):
        return None
    if len(args) != 2 or node.num_outputs != 1:
        return None
    if str(node.attr("auto_broadcast", "numpy")).lower() != "numpy":
        return None
    dt = node.out_dtypes[0]
    shape = node.out_shapes[0]
    if dt is None or dt not in (np.dtype(np.float32), np.dtype(np.float64)):
        return None
    if node.out_etypes[0] not in ("f32", "f64") or shape is None or any(d < 0 for d in shape):
        return None
    ca, cb = args[0] in consts, args[1] in consts
    if ca == cb:
        return None
    ci = 0 if ca else 1
    c = consts[args[ci]]
    xv = node.op.operands[1 - ci]
    if not isinstance(c, np.ndarray) or c.dtype != dt or c.ndim > len(shape):
        return None
    if _shape(xv.type) != tuple(shape) or _numpy_dtype(xv.type) != dt:
        return None
    try:
        if np.broadcast_shapes(c.shape, tuple(shape)) != tuple(shape):
            return None
    except ValueError:
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


def _fuse_affine(
    steps: list[tuple[Node, Kernel, tuple[int, ...], tuple[int, ...]]],
    consts: Mapping[int, np.ndarray],
    keep: set[int],
) -> list[tuple[Node, Kernel, tuple[int, ...], tuple[int, ...]]]:
    """Steps with every chain of fusable elementwise ops (see :func:`_affine_step`)
    replaced by one ``x*a + b`` step at the chain's last op (whose Node -- friendly
    and tensor names -- it keeps). An intermediate result is fused away only when
    the next op of the chain is its single user and it is not a model output.
    A single op is rewritten only when that keeps its result bit-exact (not
    Divide) -- it then still gains the in-place update."""
    uses: dict[int, int] = {}
    for _, _, args, _ in steps:
        for a in args:
            uses[a] = uses.get(a, 0) + 1
    chains: list[list[tuple[int, int, np.ndarray, str]]] = []  # (step, x slot, c, role)
    open_chain: dict[int, int] = {}  # output slot -> chain index
    chain_of_step: dict[int, int] = {}
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
        chain_of_step[i] = ci
        open_chain[outs[0]] = ci
    replace: dict[int, tuple[Node, Kernel, tuple[int, ...], tuple[int, ...]]] = {}
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
        fused = _AffineKernel(
            ops,
            None if np.all(af == 1) else af,
            None if np.all(bf == 0) else bf,
            dt,
            tuple(node.out_shapes[0]),
        )
        replace[last] = (node, fused, (chain[0][1],), outs)
        drop.update(i for i, _, _, _ in chain[:-1])
    return [replace.get(i, s) for i, s in enumerate(steps) if i not in drop]


#: ops computed once at compile time when all their inputs are constants
#: (only for the fused schedule: with an observer every op still runs)
_FOLDABLE = frozenset({
    "Broadcast", "Reshape", "Squeeze", "Unsqueeze", "Transpose", "Concat", "Convert",
    "Add", "Subtract", "Multiply", "Divide", "Sqrt",
})


def _fold_constants(
    steps: list[tuple[Node, Kernel, tuple[int, ...], tuple[int, ...]]],
    consts: Mapping[int, np.ndarray],
) -> dict[int, np.ndarray]:
    """Outputs (slot -> array) of the foldable steps whose inputs are all
    constants (or folded), evaluated once with their kernels."""
    known = dict(consts)
    folded: dict[int, np.ndarray] = {}
    for node, kernel, args, outs in steps:
        if node.type not in _FOLDABLE or not outs or not all(a in known for a in args):
            continue
        if node.op.name not in (f"ov.{node.type}", f"ov.{node.type}_opset1"):
            continue
        try:
            with np.errstate(all="ignore"):
                res = _as_outputs(node, kernel(node, *[known[a] for a in args]))
        except Exception:  # noqa: BLE001  (left to fail, or not, at run time)
            continue
        for o, arr in zip(outs, res):
            arr = np.array(arr)  # own copy: never a view of a constant
            arr.flags.writeable = False
            known[o] = folded[o] = arr
    return folded


def _rc_probe() -> tuple[int, int]:
    """Reference counts of an array (and of a view's base) held only by a local
    variable, taken the way :meth:`CompiledModel.__call__` takes them."""
    slots: list[Any] = [np.empty(2).reshape(1, 2)]
    x = slots[0]
    slots[0] = None
    return sys.getrefcount(x), sys.getrefcount(x.base)


_RC_SOLE, _RC_BASE = _rc_probe()


def _sole_owner(x: Any) -> bool:
    """True when nothing but the caller's local variable reaches ``x``'s data
    (no other slot, view, constant or caller-owned array): it may be updated in
    place. Called with one extra reference (the argument) over the probe."""
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


class ModelOutputs(Sequence[np.ndarray]):
    """A model's outputs: a list in Result order, also indexable by name."""

    def __init__(self, arrays: list[np.ndarray], ports: Sequence[PortInfo]) -> None:
        self._arrays = arrays
        self._ports = ports
        self._by_name: dict[str, int] = {}
        for i, p in enumerate(ports):
            for n in p.names:
                self._by_name.setdefault(n, i)

    def __len__(self) -> int:
        return len(self._arrays)

    def __getitem__(self, key: Any) -> Any:
        if isinstance(key, str):
            try:
                return self._arrays[self._by_name[key]]
            except KeyError:
                raise KeyError(
                    f"no output named '{key}' (outputs: {sorted(self._by_name)})"
                ) from None
        return self._arrays[key]

    def __iter__(self) -> Iterator[np.ndarray]:
        return iter(self._arrays)

    def __contains__(self, key: object) -> bool:
        if isinstance(key, str):
            return key in self._by_name
        return any(key is a for a in self._arrays)

    def names(self) -> list[str]:
        return list(self._by_name)

    def to_dict(self) -> dict[str, np.ndarray]:
        """Output arrays keyed by each output's first name."""
        return {p.name or str(i): a for i, (p, a) in enumerate(zip(self._ports, self._arrays))}

    def __repr__(self) -> str:
        return f"ModelOutputs({[p.name for p in self._ports]})"


# ---------------------------------------------------------------------------
# The compiled model
# ---------------------------------------------------------------------------


class CompiledModel:
    """An ``ov`` module ready to run on numpy arrays.

    ``model(inputs)`` takes a dict (input tensor name or friendly name -> array)
    or a list (in Parameter order) and returns :class:`ModelOutputs`.
    """

    def __init__(self, module: ModuleOp | Operation, keep_alive: Any = None) -> None:
        _load_builtin_kernels()
        self._keep_alive = keep_alive  # e.g. the context owning the weights
        ops = list(module.body.block.ops) if isinstance(module, ModuleOp) else list(
            module.regions[0].block.ops
        )
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
        steps: list[tuple[Node, Kernel, tuple[int, ...], tuple[int, ...]]] = []
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
                    PortInfo(tuple(names), _numpy_dtype(t), _shape(t), _etype_name(t))
                )
            elif isinstance(op, ConstantOp):
                s = new_slot(op.results[0])
                arr = op.get_array()
                ename = _etype_name(op.results[0].type)
                if ename == "bf16":
                    arr = _bf16_to_f32(arr)
                elif ename in PACKED_DTYPES:
                    arr = unpack_constant(arr, ename, _shape(op.results[0].type) or ())
                self._consts[s] = arr
            elif isinstance(op, ResultOp):
                v = op.operands[0]
                if v not in slot_of:
                    raise CPUBackendError(f"{_describe(op)}: input defined after use")
                self._results.append(slot_of[v])
                self.outputs.append(
                    PortInfo(tuple(self._output_names(op)), _numpy_dtype(v.type), _shape(v.type),
                             _etype_name(v.type))
                )
            else:
                kernel = _KERNELS.get(op.name)
                if kernel is None:
                    missing.append(_describe(op))
                    kernel = _missing_kernel
                args = []
                for v in op.operands:
                    if v not in slot_of:
                        raise CPUBackendError(
                            f"{_describe(op)}: operand defined outside the module body "
                            "or after use"
                        )
                    args.append(slot_of[v])
                outs = tuple(new_slot(r) for r in op.results)
                steps.append((Node(op), kernel, tuple(args), outs))

        if missing:
            shown = ", ".join(missing[:10]) + (" ..." if len(missing) > 10 else "")
            raise KernelNotFoundError(
                f"no CPU kernel for {len(missing)} op(s): {shown}. "
                "Register one with xmo.backends.cpu.register_kernel(op_name)."
            )

        self._plain_steps = self._schedule(steps)
        folded = _fold_constants(steps, self._consts)
        self._consts.update(folded)
        steps = [st for st in steps if not (st[3] and all(o in folded for o in st[3]))]
        keep = set(self._results) | set(self._consts)
        fused = _fuse_affine(steps, self._consts, keep | {s for s, _ in self._params})
        self._steps = self._schedule(fused)
        self._n_slots = n_slots
        self._bf16_outputs = [i for i, p in enumerate(self.outputs) if p.etype == "bf16"]
        self._input_index: dict[str, int] = {}
        for i, p in enumerate(self.inputs):
            for n in p.names:
                self._input_index.setdefault(n, i)

    def _schedule(
        self,
        steps: list[tuple[Node, Kernel, tuple[int, ...], tuple[int, ...]]],
    ) -> list[_Step]:
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
        out: list[_Step] = []
        for i, (node, k, args, outs) in enumerate(steps):
            free = tuple(free_after.get(i, ()))
            steal = None
            if isinstance(k, _AffineKernel) and args[0] in free and args[0] not in params:
                steal = args[0]
            out.append(_Step(node, k, args, outs, free, steal))
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
    def schedule(self) -> list[Node]:
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
        values: list[Any] = [None] * n
        if isinstance(inputs, Mapping):
            for key, val in inputs.items():
                if isinstance(key, int):
                    i = key
                    if not 0 <= i < n:
                        raise InputError(f"input index {i} out of range ({n} inputs)")
                else:
                    if key not in self._input_index:
                        raise InputError(
                            f"the model has no input named '{key}' "
                            f"(inputs: {self.input_names})"
                        )
                    i = self._input_index[key]
                if values[i] is not None:
                    raise InputError(f"input {self._label(i)} given twice")
                values[i] = val
        else:
            seq = list(inputs)
            if len(seq) != n:
                raise InputError(f"the model has {n} inputs, got {len(seq)}")
            values = seq
        out: list[np.ndarray] = []
        for i, (val, port) in enumerate(zip(values, self.inputs)):
            if val is None:
                raise InputError(f"input {self._label(i)} is missing")
            out.append(self._check_input(i, val, port))
        return out

    def _label(self, i: int) -> str:
        name = self.inputs[i].name
        return f"#{i}" + (f" '{name}'" if name else "")

    def _check_input(self, i: int, val: Any, port: PortInfo) -> np.ndarray:
        if isinstance(val, np.ndarray):
            arr = val
            if port.etype == "bf16" and arr.dtype == BF16:
                arr = arr.astype(np.float32)
            elif port.etype == "bf16" and arr.dtype == np.uint16:  # raw bf16 payload
                arr = _bf16_to_f32(arr)
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
    ) -> ModelOutputs:
        """Run the model. ``observer(op, outputs)`` (optional) sees every op's
        outputs as they are computed (used to find where results diverge).

        With an observer the unfused schedule runs (every op observed with its
        own result); without one, chains of elementwise ops with constant
        operands run as one fused ``x*a + b`` step (see :func:`_fuse_affine`),
        in place when its input is dead."""
        args = self._bind_inputs(inputs)
        slots: list[Any] = [None] * self._n_slots
        for s, a in self._consts.items():
            slots[s] = a
        for (s, _), a in zip(self._params, args):
            slots[s] = a
        for s in self._free_before_run:
            slots[s] = None
        res: Any = None
        outs: Any = None
        for step in self._steps if observer is None else self._plain_steps:
            node = step.node
            try:
                if step.steal is not None:
                    x = slots[step.steal]
                    slots[step.steal] = None
                    res = step.kernel.run(x, _sole_owner(x))
                    x = None
                else:
                    res = step.kernel(node, *[slots[a] for a in step.args])
            except CPUBackendError:
                raise
            except Exception as e:  # noqa: BLE001  (name the op that failed)
                raise KernelError(f"{node.describe()}: {type(e).__name__}: {e}") from e
            outs = _as_outputs(node, res)
            if observer is not None:
                observer(node.op, outs)
            for o, arr in zip(step.outs, outs):
                slots[o] = arr
            for s in step.free:
                slots[s] = None
            res = outs = None
        outs = [slots[s] for s in self._results]
        for i in self._bf16_outputs:
            outs[i] = np.asarray(outs[i]).astype(BF16)
        return ModelOutputs(outs, self.outputs)

    run = __call__
    infer = __call__


def _as_outputs(node: Node, res: Any) -> list[np.ndarray]:
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


def _missing_kernel(node: Node, *inputs: np.ndarray) -> Any:
    raise KernelNotFoundError(f"no CPU kernel for {node.describe()}")


def evaluate_op(op: Operation, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
    """Run one op's kernel on numpy inputs (used by constant folding).

    Raises :class:`KernelNotFoundError` when the op has no kernel.
    """
    kernel = kernel_for(op.name)
    if kernel is None:
        raise KernelNotFoundError(f"no CPU kernel for {_describe(op)}")
    node = Node(op)
    return _as_outputs(node, kernel(node, *inputs))
