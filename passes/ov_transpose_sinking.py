"""``ov-transpose-sinking``: move Transposes through layout-agnostic ops until
they cancel, merge, fold into constants, or reach an op that needs a layout.

A framework frontend that keeps the source layout (TensorFlow's NHWC) emits
``Transpose(x, [0,3,1,2]) -> NCHW op -> Transpose(y, [0,2,3,1])`` around every
layout-sensitive op. This pass removes the Transposes inside the graph, so
that ideally one remains after each NHWC input and one before each NHWC
output (plus unavoidable ones, e.g. before a flattening Reshape).

Only the ops of the module's top-level block are rewritten; a Transpose is
handled when its order is an ``ov.Constant`` and its input has a static rank.
The pass is a no-op on a module without Transposes.

Rules, applied from a worklist of Transposes until nothing changes:

* **Cleanup.** A Transpose with an identity order disappears; ``T(T(x, P1), P2)``
  becomes ``T(x, P1[P2])`` (or ``x``); a Transpose of a Constant folds into a
  transposed Constant (no data grows: a single-use constant folds at any
  size, a shared one up to 1 MiB); two Transposes with the same input and
  order merge (CSE). Nothing else is constant-folded: run ``ov-constant-fold``
  for that (note that it folds ``ShapeOf`` of static shapes, and only folds
  results within its size guard).
* **Forward sinking.** ``op(T(x, P), ...)`` becomes ``T(op'(x, ...), Q)`` when
  ``op`` is layout agnostic: ``op'`` has its axis-like attributes and inputs
  remapped through ``P``, and ``Q`` is ``P`` (or, when the rank changes, the
  order that is left; none when that is the identity). Handled: unary
  elementwise ops and activations (Relu, Clamp, Sigmoid, Tanh, Elu, Exp, Sqrt,
  Abs, Negative, Convert, Erf, Gelu, HSwish, SoftPlus, Floor, Ceiling,
  LogicalNot, ... and Swish/HardSigmoid/Selu with their scalar parameters,
  ConvertLike); numpy-broadcasting elementwise ops (Add, Subtract, Multiply,
  Divide, Maximum, Minimum, Power, SquaredDifference, FloorMod, Mod,
  comparisons, logical and bitwise ops, Select, FakeQuantize, PRelu with a
  constant slope -- a 1-D slope matching dim 1 is read per channel, as
  OpenVINO does); Concat; ReduceSum/Mean/Max/Min/Prod/L1/L2/LogicalAnd/
  LogicalOr (``keep_dims=false`` leaves a smaller-rank Transpose or none);
  Softmax, LogSoftmax; MVN-6, NormalizeL2; CumSum; Reverse; Roll; Pad; Tile;
  Split, VariadicSplit (one Transpose per output); TopK-11; Squeeze,
  Unsqueeze; Slice-8; StridedSlice without new-axis/shrink/ellipsis masks;
  Interpolate-4/11; Gather-8 with a 0-D or 1-D index and batch_dims 0 (any
  axis); ``ShapeOf(T(x, P))`` becomes ``Gather(ShapeOf(x), P, 0)`` so shape
  sub-graphs stay dynamic and the model stays reshapeable.

  The other inputs of an elementwise op or Concat must be: constants (also
  behind single-use Converts, e.g. decompressed f16 weights: unsqueezed to the
  full rank and transposed), scalars or all-ones shapes (kept as they are),
  Transposes with the same order (their input is used), or -- once per op --
  a value ``v`` for which ``Transpose(v, inverse(P))`` costs no Transpose: it
  exists already (the NHWC shortcut of a residual block feeding the next
  conv), it merges with a Transpose above, or backward sinking will cancel it
  within a few ops (e.g. the Unsqueeze branch of a squeeze-excite block).
* **Multiple consumers.** A Transpose sinks into every consumer that allows
  it (each gets its own Transpose after it) and dies when no consumer is
  left. Non-transpose work is never duplicated. (Clones that end up stuck
  before different barriers can leave more Transposes than before: rare,
  and backward sinking usually merges them again.)
* **Backward sinking** (option ``backward``, default on). ``T(op(...), Q)``
  where ``op`` is an elementwise op, Squeeze or Unsqueeze whose only consumer
  is this Transpose becomes ``op'(T(a, Q'), ...)`` when that lowers the number
  of Transposes -- the new input Transposes merge with Transposes above, reuse
  existing ones, or themselves move up and cancel (looking up to 4 ops
  ahead). Ops built by backward sinking are never sunk forward (nor backward)
  again, so a Transpose cannot move back and forth; a step cap bounds the
  work in any case.

Names (OpenVINO conventions; tensor names belong to values):

* The value that stands in for an op's original output -- the new Transpose
  after a sunk op -- gets the output's tensor names and the op's friendly
  name (``<name>:<i>`` for output ``i > 0``); the moved op gets
  ``<name>/sunk``. When that Transpose vanishes later (sunk further,
  cancelled), the moved op gets its original friendly name back at the end
  of the pass (unless some other op holds it by then).
* A Transpose that cancels to nothing passes its tensor names to the value
  that replaces it; a merged or folded Transpose's replacement takes its
  friendly and tensor names. After backward sinking the moved op keeps its
  friendly name and takes the Transpose's tensor names.
* Tensor names of an intermediate layout that no longer exists are dropped
  (only values consumed by Results are guaranteed to keep them).
* rt_info: a rebuilt op keeps its rt_info; new Transposes take the rt_info of
  the Transpose they come from.

Deliberately not handled: layout-sensitive ops (convolutions, pooling,
BatchNorm, DepthToSpace, ...), Reshape, MatMul, Broadcast, LRN (OpenVINO's CPU
plugin supports only its NCHW axes), GatherElements/Scatter*, StridedSlice
with new-axis/shrink/ellipsis masks, PRelu with a non-constant slope, Concat
or elementwise ops whose other input is a raw NHWC value (a Transpose there
would only move the cost), backward sinking through Concat/reductions, and ops
in nested regions.
"""

from __future__ import annotations

import functools
import logging
from collections import deque
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np
from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Attribute, Block, Operation, SSAValue
from xdsl.passes import ModulePass
from xdsl.utils.exceptions import VerifyException
from xmo.dialects.ov import ConstantOp, ParameterOp, ResultOp, op_class
from xmo.dialects.ov import attributes as ov_attrs
from xmo.dialects.ov import element_types as et
from xmo.dialects.ov.base import (
    DYN,
    OVOp,
    ShapeInferenceError,
    constant_value_of,
    dims_of,
    inference_for,
    tensor,
)

log = logging.getLogger("xmo.transpose_sinking")

Perm = tuple[int, ...]

# ---------------------------------------------------------------------------
# Op families
# ---------------------------------------------------------------------------

#: one data input (0), the result has its shape
UNARY = frozenset(
    "ov." + n
    for n in (
        "Abs Acos Acosh Asin Asinh Atan Atanh BitwiseNot Ceiling Clamp Convert Cos "
        "Cosh Elu Erf Exp Floor Gelu Gelu_opset2 HSigmoid HSwish Identity IsFinite "
        "IsInf IsNaN Log LogicalNot Mish Negative Relu Round Sigmoid Sign Sin Sinh "
        "SoftPlus SoftSign Sqrt Tan Tanh"
    ).split()
)
#: data input 0 plus scalar parameter inputs that stay as they are
UNARY_WITH_PARAMS = frozenset(
    {"ov.HardSigmoid", "ov.Selu", "ov.Swish", "ov.ConvertLike"}
)
#: every input broadcasts numpy-style to the result
ELTWISE = frozenset(
    "ov." + n
    for n in (
        "Add Subtract Multiply Divide Maximum Minimum Power SquaredDifference FloorMod "
        "Mod Equal NotEqual Less LessEqual Greater GreaterEqual LogicalAnd LogicalOr "
        "LogicalXor Xor_opset1 BitwiseAnd BitwiseOr BitwiseXor BitwiseLeftShift "
        "BitwiseRightShift Select FakeQuantize PRelu"
    ).split()
)
REDUCTIONS = frozenset(
    "ov." + n
    for n in (
        "ReduceSum ReduceMean ReduceMax ReduceMin ReduceProd ReduceL1 ReduceL2 "
        "ReduceLogicalAnd ReduceLogicalOr"
    ).split()
)


#: a Transpose of a constant that has other users folds into a copy only up
#: to this size (a single-use constant folds at any size: no data grows)
_SHARED_FOLD_MAX_BYTES = 1 << 20

#: how many ops backward sinking looks ahead to find a cancellation
_LOOKAHEAD = 4


class _Skip(Exception):
    """The rewrite does not apply (its partial work is rolled back)."""


# ---------------------------------------------------------------------------
# Permutation helpers
# ---------------------------------------------------------------------------


def _identity(p: Sequence[int]) -> bool:
    return all(i == v for i, v in enumerate(p))


def _inverse(p: Perm) -> Perm:
    inv = [0] * len(p)
    for i, v in enumerate(p):
        inv[v] = i
    return tuple(inv)


def _compose(p1: Perm, p2: Perm) -> Perm:
    """Order of ``T(T(x, p1), p2)`` as one Transpose of ``x``."""
    return tuple(p1[j] for j in p2)


def _scatter(p: Perm, values: Sequence, fill) -> list:
    """Per-axis ``values`` of ``T(x, p)`` as per-axis values of ``x``:
    ``new[p[i]] = values[i]``."""
    out = [fill] * len(p)
    for i, v in enumerate(values):
        out[p[i]] = v
    return out


def _perm_after_removing(p: Perm, removed: set[int]) -> Perm:
    """``op`` removes the axes ``removed`` of ``T(x, p)``; the same op removing
    ``{p[a]}`` of ``x`` needs this order afterwards."""
    gone = {p[a] for a in removed}
    kept = [d for d in range(len(p)) if d not in gone]
    want = [p[i] for i in range(len(p)) if i not in removed]
    return tuple(kept.index(d) for d in want)


def _rank(v: SSAValue) -> int | None:
    d = dims_of(v.type)
    return None if d is None else len(d)


def _all_ones(v: SSAValue) -> bool:
    d = dims_of(v.type)
    return d is not None and all(x == 1 for x in d)


def _norm_axis(a: int, n: int) -> int:
    if not -n <= a < n:
        raise _Skip(f"axis {a} out of range for rank {n}")
    return a % n


def _const_ints(v: SSAValue | None) -> list[int] | None:
    if v is None:
        return None
    arr = constant_value_of(v)
    if arr is None or arr.dtype.kind not in "iu":
        return None
    return [int(i) for i in arr.reshape(-1)]


def transpose_order(op: Operation) -> Perm | None:
    """The order of an ``ov.Transpose`` with a constant order and ranked input."""
    if op.name != "ov.Transpose" or len(op.operands) != 2:
        return None
    n = _rank(op.operands[0])
    order = _const_ints(op.operands[1])
    if n is None or order is None:
        return None
    if not order:
        order = list(range(n - 1, -1, -1))
    if sorted(order) != list(range(n)):
        return None
    return tuple(order)


def _permuted_type(t: Attribute, p: Perm) -> Attribute:
    """Type ``u`` with ``T(u, p) : t``."""
    dims = dims_of(t)
    assert dims is not None
    return tensor(t.get_element_type(), _scatter(p, dims, DYN))  # type: ignore[attr-defined]


def _nbytes(v: SSAValue) -> int:
    d = dims_of(v.type)
    if d is None or any(x < 0 for x in d):
        return 1 << 62
    return int(np.prod(d, dtype=np.int64)) * 8


def _full_rank_transposed(arr: np.ndarray, n: int, p: Perm) -> np.ndarray:
    """``arr`` unsqueezed (leading 1s) to rank ``n``, then transposed by ``p``."""
    return np.transpose(arr.reshape((1,) * (n - arr.ndim) + arr.shape), p)


def _alive(op: Operation | None) -> bool:
    return op is not None and op.parent is not None


# ---------------------------------------------------------------------------
# The rewriter
# ---------------------------------------------------------------------------


class _Sinker:
    def __init__(self, block: Block, store, backward: bool, max_rounds: int) -> None:
        self.block = block
        self.store = store
        self.backward = backward
        self.max_rounds = max_rounds
        self.work: deque[Operation] = deque()
        self.steps_left = 200 * (len(block.ops) + 16)
        #: ops built by backward sinking: never sunk forward into again
        self.pinned: set[Operation] = set()
        #: ops built with a reused inverse Transpose: no second reuse
        self.strict: set[Operation] = set()
        #: moved op -> its original friendly name (restored at the end)
        self.moved: dict[Operation, str] = {}
        self._consts: dict[tuple, ConstantOp] = {}
        self._tx: list[Operation] | None = None
        self._tx_push: list[Operation] = []
        self._last_push: list[Operation] = []
        self.changed = False

    # -- building --------------------------------------------------------------
    def _insert(self, op: Operation, before: Operation) -> Operation:
        self.block.insert_op_before(op, before)
        if self._tx is not None:
            self._tx.append(op)
        return op

    def _shared_const(self, values: Sequence[int], shape: tuple[int, ...]) -> SSAValue:
        """An i64 constant (placed at the top of the block, shared)."""
        key = (tuple(values), shape)
        c = self._consts.get(key)
        if not _alive(c):
            arr = np.asarray(values, dtype=np.int64).reshape(shape)
            c = ConstantOp.from_array(arr, "i64")
            first = self.block.first_op
            assert first is not None
            self._insert(c, first)
            self._consts[key] = c
        return c.results[0]

    def _int_const_like(self, like: SSAValue, values: Sequence[int], before: Operation) -> SSAValue:
        """A new integer constant with ``like``'s element type and rank."""
        old = constant_value_of(like)
        assert old is not None
        arr = np.asarray(values, dtype=old.dtype).reshape(old.shape if old.ndim == 0 else (-1,))
        c = ConstantOp.from_array(arr, et.from_xdsl(like.type.get_element_type()))  # type: ignore[attr-defined]
        return self._insert(c, before).results[0]

    def _array_const(self, arr: np.ndarray, like: ConstantOp, before: Operation) -> SSAValue:
        etype = et.from_xdsl(like.results[0].type.get_element_type())  # type: ignore[attr-defined]
        name = like.get_friendly_name()
        if name is not None and like.results[0].has_more_than_one_use():
            name += "/transposed"
        c = ConstantOp.from_array(np.ascontiguousarray(arr), etype, store=self.store, name=name)
        if like.rt_info is not None:
            c.properties["rt_info"] = like.rt_info
        return self._insert(c, before).results[0]

    def transpose(self, v: SSAValue, p: Perm, before: Operation, src: Operation | None = None,
                  name: str | None = None) -> SSAValue:
        """``Transpose(v, p)`` (nothing for an identity order)."""
        if _identity(p):
            return v
        existing = self._find_transpose(v, p)
        if existing is not None and name is None:
            return existing.results[0]
        op_ = op_class("Transpose").make([v, self._shared_const(p, (len(p),))], name=name)
        if src is not None and isinstance(src, OVOp) and src.rt_info is not None:
            op_.properties["rt_info"] = src.rt_info
        self._insert(op_, before)
        self._tx_push.append(op_)
        return op_.results[0]

    def _find_transpose(self, v: SSAValue, p: Perm, other_than: Operation | None = None) -> Operation | None:
        for use in v.uses:
            u = use.operation
            if u is not other_than and use.index == 0 and _alive(u) and transpose_order(u) == p:
                return u
        return None

    def rebuild(self, op: OVOp, operands: Sequence[SSAValue], updates: dict | None = None,
                result_types: Sequence[Attribute] | None = None,
                fallback_perm: Perm | None = None, at: Operation | None = None) -> OVOp:
        """A copy of ``op`` on ``operands`` with attribute ``updates``, inserted
        before ``at`` (default ``op``); result types inferred (or ``op``'s types
        un-permuted by ``fallback_perm`` for ops without shape inference)."""
        cls = type(op)
        updates = updates or {}
        props = {
            k: v for k, v in op.properties.items()
            if k not in ("friendly_name", "tensor_names", "rt_info")
        }
        for k, val in updates.items():
            props[k] = ov_attrs.to_attr(cls.attr_spec(k).kind, val)
        if result_types is None:
            if inference_for(cls.name) is not None:
                attrs = op.attr_values()
                attrs.update(updates)
                result_types = cls.infer_types(
                    [v.type for v in operands], attrs,
                    const_getter=lambda i: constant_value_of(operands[i]),
                    num_outputs=len(op.results),
                )
            elif fallback_perm is not None:
                result_types = [_permuted_type(r.type, fallback_perm) for r in op.results]
            else:
                raise _Skip(f"{op.name} has no shape inference")
        new = cls.create(operands=list(operands), result_types=list(result_types), properties=props)
        if op.rt_info is not None:
            new.properties["rt_info"] = op.rt_info
        self._insert(new, at or op)
        return new

    # -- erasing ---------------------------------------------------------------
    def erase(self, op: Operation) -> None:
        """Erase ``op`` (unused) and the pure producers it leaves unused."""
        stack = [op]
        while stack:
            o = stack.pop()
            if not _alive(o) or any(r.uses for r in o.results):
                continue
            producers = [v.owner for v in o.operands if isinstance(v.owner, Operation)]
            o.detach()
            o.erase()
            for p in producers:
                if (
                    isinstance(p, OVOp)
                    and not isinstance(p, ParameterOp | ResultOp)
                    and p.OV_TYPE not in ("ReadValue", "Assign")
                    and not p.regions
                    and p.results
                ):
                    stack.append(p)

    @staticmethod
    def move_names(src: OVOp, index: int, dst: SSAValue) -> None:
        """Give ``dst`` (also) the tensor names of ``src``'s output ``index``."""
        names = src.get_tensor_names(index)
        owner = dst.owner
        if not names or not isinstance(owner, OVOp):
            return
        have = owner.get_tensor_names(dst.index)  # type: ignore[attr-defined]
        owner.set_tensor_names(dst.index, have + [n for n in names if n not in have])  # type: ignore[attr-defined]

    # -- transactions ------------------------------------------------------------
    def attempt(self, fn: Callable[..., bool], *args) -> bool:
        """Run a rewrite; on ``_Skip`` (or a type error) undo what it built."""
        self._tx, self._tx_push = [], []
        try:
            ok = fn(*args)
        except (_Skip, ShapeInferenceError, VerifyException, ValueError) as e:
            log.debug("not sinking: %s", e)
            ok = False
        created, push = self._tx, self._tx_push
        self._tx, self._tx_push = None, []
        self._last_push = push if ok else []
        if not ok:
            for o in reversed(created):
                if _alive(o):
                    o.detach()
                o.erase(safe_erase=False)
            return False
        self.work.extend(push)
        self.changed = True
        return True

    # -- operands ------------------------------------------------------------------
    def _const_like(self, v: SSAValue) -> tuple[np.ndarray, ConstantOp, list[OVOp]] | None:
        """(value, Constant, single-use Converts on the way) when ``v`` is a
        constant, possibly behind single-use Converts."""
        chain: list[OVOp] = []
        while isinstance(v.owner, OVOp) and v.owner.name == "ov.Convert":
            if not v.has_one_use():
                return None
            chain.append(v.owner)
            v = v.owner.operands[0]
        arr = constant_value_of(v)
        if arr is None:
            return None
        assert isinstance(v.owner, ConstantOp)
        return arr, v.owner, chain[::-1]

    def _rebuilt_const(self, v: SSAValue, fn: Callable[[np.ndarray], np.ndarray],
                       before: Operation) -> SSAValue | None:
        found = self._const_like(v)
        if found is None:
            return None
        arr, const, chain = found
        out = self._array_const(fn(arr), const, before)
        for cv in chain:
            new = self.rebuild(cv, [out], at=before)
            new.properties.update(
                {k: a for k, a in cv.properties.items() if k in ("friendly_name", "tensor_names")}
            )
            out = new.results[0]
        return out

    def adapt(self, v: SSAValue, p: Perm, before: Operation, *, allow_reuse: bool,
              channel_slope: bool = False) -> tuple[SSAValue, bool]:
        """A value ``u`` such that ``op(..., T(u, p), ...)`` equals
        ``op(..., v, ...)`` under numpy broadcasting to rank ``len(p)``.
        Second item: whether an existing inverse Transpose was reused."""
        n = len(p)
        r = _rank(v)
        if r is None or r > n:
            raise _Skip("operand rank unknown or too large")
        if channel_slope and r == 1 and n >= 2:
            # PRelu: a 1-D slope matching dim 1 applies per channel
            d = dims_of(v.type)
            assert d is not None
            c = self._const_like(v)
            if d[0] != 1 and c is not None:
                out_dims = dims_of(before.results[0].type)
                if out_dims is None or out_dims[1] == DYN:
                    raise _Skip("PRelu slope: channel dim unknown")
                if out_dims[1] == d[0]:
                    full_shape = [1] * n
                    full_shape[1] = d[0]
                    inv = _inverse(p)
                    u = self._rebuilt_const(
                        v, lambda a: np.transpose(a.reshape(full_shape), inv), before)
                    assert u is not None
                    return u, False
        if r == 0 or _all_ones(v):
            return v, False
        owner = v.owner
        if r == n and isinstance(owner, Operation) and transpose_order(owner) == p:
            return owner.operands[0], False
        inv = _inverse(p)
        u = self._rebuilt_const(v, functools.partial(_full_rank_transposed, n=n, p=inv), before)
        if u is not None:
            return u, False
        if allow_reuse and r == n:
            # Transpose(v, inverse(p)) costs nothing: it exists already, merges
            # with a Transpose above, or backward sinking will cancel it
            cost = self._bw_operand_cost(v, inv, _LOOKAHEAD if self.backward else 0)
            if cost is not None and cost <= 0:
                return self.transpose(v, inv, before), True
        raise _Skip("operand is not a constant, a scalar or a matching Transpose")

    # ---------------------------------------------------------------------------
    # Worklist driver
    # ---------------------------------------------------------------------------
    def run(self) -> None:
        for _ in range(self.max_rounds):
            self.work.extend(o for o in self.block.ops if o.name == "ov.Transpose")
            self.forward_phase()
            if not self.backward or not self.backward_phase():
                break
        else:  # out of rounds: still merge what the last backward phase built
            self.forward_phase()
        self.work.clear()

    def forward_phase(self) -> None:
        while self.work and self.steps_left > 0:
            t = self.work.popleft()
            if _alive(t):
                self.steps_left -= 1
                self.process(t)
        if self.steps_left <= 0:
            log.warning("ov-transpose-sinking: step limit reached, stopping early")
            self.work.clear()

    def process(self, t: Operation) -> None:
        assert isinstance(t, OVOp)
        out = t.results[0]
        if not out.uses:
            self.erase(t)
            self.changed = True
            return
        p = transpose_order(t)
        if p is None:
            return
        x = t.operands[0]
        if _identity(p):
            self.move_names(t, 0, x)
            out.replace_all_uses_with(x)
            self.erase(t)
            self.changed = True
            return
        prod = x.owner
        if isinstance(prod, Operation) and (p0 := transpose_order(prod)) is not None:
            self.attempt(self._merge, t, prod, p0, p)
            return
        if (
            isinstance(prod, ConstantOp)
            and (x.has_one_use() or _nbytes(x) <= _SHARED_FOLD_MAX_BYTES)
            and self.attempt(self._fold, t, prod, p)
        ):
            return
        twin = self._find_transpose(x, p, other_than=t)
        if twin is not None:  # CSE: one Transpose per (value, order)
            self.move_names(t, 0, twin.results[0])
            out.replace_all_uses_with(twin.results[0])
            self.erase(t)
            self.changed = True
            self.work.append(twin)
            return
        for use in list(out.uses):
            if not _alive(t):
                break
            consumer = use.operation
            if not _alive(consumer) or consumer in self.pinned or not isinstance(consumer, OVOp):
                continue
            if consumer.name == "ov.Transpose":
                self.work.append(consumer)  # it merges with t when processed
                continue
            handler = _FORWARD.get(consumer.name)
            if handler is not None:
                self.attempt(handler, self, consumer, t, p)
        if _alive(t) and not out.uses:
            self.erase(t)

    def _merge(self, t: OVOp, first: Operation, p0: Perm, p: Perm) -> bool:
        y = first.operands[0]
        q = _compose(p0, p)
        if _identity(q):
            self.move_names(t, 0, y)
            t.results[0].replace_all_uses_with(y)
        else:
            new = self.transpose(y, q, t, src=t, name=t.get_friendly_name())
            self.move_names(t, 0, new)
            t.results[0].replace_all_uses_with(new)
        self.erase(t)
        return True

    def _fold(self, t: OVOp, const: ConstantOp, p: Perm) -> bool:
        arr = constant_value_of(const.results[0])
        if arr is None:
            raise _Skip("constant without a numeric value")
        c = ConstantOp.from_array(
            np.ascontiguousarray(np.transpose(arr, p)),
            et.from_xdsl(const.results[0].type.get_element_type()),  # type: ignore[attr-defined]
            store=self.store, name=t.get_friendly_name(),
            tensor_names=t.get_tensor_names(0),
        )
        if const.rt_info is not None:
            c.properties["rt_info"] = const.rt_info
        self._insert(c, t)
        t.results[0].replace_all_uses_with(c.results[0])
        self.erase(t)
        return True

    # -- committing a forward sink -------------------------------------------------
    def finish(self, op: OVOp, new: OVOp, perms: Sequence[Perm | None], t: Operation,
               strict: bool = False) -> bool:
        """``new`` replaces ``op``; output ``i`` of ``op`` becomes
        ``T(new.output i, perms[i])`` (``new``'s output itself when None/identity)."""
        name = op.get_friendly_name()
        orig = self.moved.get(op, name)
        standins: list[SSAValue] = []
        any_t = False
        for i, (r, q) in enumerate(zip(new.results, perms)):
            if q is None or _identity(q):
                standins.append(r)
                continue
            tname = None if orig is None else (orig if i == 0 else f"{orig}:{i}")
            tv = self.transpose(r, q, op, src=t, name=tname)
            standins.append(tv)
            any_t = True
        # -- commit (nothing below can fail) --
        for i, s in enumerate(standins):
            owner = s.owner
            assert isinstance(owner, OVOp)
            names = op.get_tensor_names(i)
            if names:
                owner.set_tensor_names(s.index, names)  # type: ignore[attr-defined]
        if any_t and name is not None:
            new.set_friendly_name(orig + "/sunk")
            self.moved[new] = orig
        elif name is not None:
            new.set_friendly_name(name)
            if op in self.moved:
                self.moved[new] = orig
        if strict or op in self.strict:
            self.strict.add(new)
        if op in self.pinned:
            self.pinned.add(new)
        for r, s in zip(op.results, standins):
            r.replace_all_uses_with(s)
        self.erase(op)
        return True

    # ---------------------------------------------------------------------------
    # Backward sinking
    # ---------------------------------------------------------------------------
    def backward_phase(self) -> bool:
        changed = False
        todo = deque(o for o in self.block.ops if o.name == "ov.Transpose")
        while todo and self.steps_left > 0:
            t = todo.popleft()
            if not _alive(t):
                continue
            self.steps_left -= 1
            if self.attempt(self._backward, t):
                changed = True
                todo.extend(self._last_push)
        return changed

    def _bw_plan(self, f: Operation | None, q: Perm) -> tuple[list[tuple[int, Perm]], dict[int, list[int]]] | None:
        """How ``T(f(...), q)`` moves above ``f``: (data operand index, order it
        needs) pairs and new integer constants per operand index; None when
        ``f`` does not allow it."""
        if not isinstance(f, OVOp) or f in self.pinned or len(f.results) != 1:
            return None
        n = len(q)
        if _rank(f.results[0]) != n:
            return None
        if f.name in UNARY | UNARY_WITH_PARAMS:
            return ([(0, q)], {}) if _rank(f.operands[0]) == n else None
        if f.name in ELTWISE:
            if f.name == "ov.PRelu" or f.attr("auto_broadcast") not in ("numpy", "none"):
                return None
            if any((r := _rank(a)) is None or r > n for a in f.operands):
                return None
            return [(j, q) for j in range(len(f.operands))], {}
        if f.name == "ov.Unsqueeze":
            axes = _const_ints(f.operands[1])
            if axes is None or any(not -n <= a < n for a in axes):
                return None
            new_axes = {a % n for a in axes}
            kept = [j for j in range(n) if j not in new_axes]
            kept_out = [j for j in range(n) if q[j] not in new_axes]
            inner = tuple(kept.index(q[j]) for j in kept_out)
            return [(0, inner)], {1: sorted(j for j in range(n) if q[j] in new_axes)}
        if f.name == "ov.Squeeze" and len(f.operands) == 2 and not f.attr("allow_axis_skip"):
            axes = _const_ints(f.operands[1])
            m = _rank(f.operands[0])
            if not axes or m is None or any(not -m <= a < m for a in axes):
                return None
            gone = {a % m for a in axes}
            kept = [d for d in range(m) if d not in gone]
            inner = list(range(m))
            for j in range(n):
                inner[kept[j]] = kept[q[j]]
            return [(0, tuple(inner))], {}
        return None

    def _bw_operand_cost(self, a: SSAValue, p: Perm, depth: int) -> int | None:
        """Transposes added (negative: removed) by giving ``a`` the order ``p``."""
        r = _rank(a)
        if r is None:
            return None
        if r == 0 or _all_ones(a) or self._const_like(a) is not None:
            return 0
        if r != len(p):
            return None
        if _identity(p) or self._find_transpose(a, p) is not None:
            return 0
        prod = a.owner
        pa = transpose_order(prod) if isinstance(prod, Operation) else None
        if pa is not None:
            return (0 if _identity(_compose(pa, p)) else 1) - (1 if a.has_one_use() else 0)
        if depth > 0 and a.has_one_use():
            sub = self._bw_cost(prod, p, depth - 1)  # type: ignore[arg-type]
            if sub is not None and sub < 0:
                return 1 + sub
        return 1

    def _bw_cost(self, f: Operation | None, q: Perm, depth: int = _LOOKAHEAD) -> int | None:
        """Change in the number of Transposes when ``T(f(...), q)`` moves above
        ``f`` (looking ``depth`` ops further up); None when it cannot."""
        plan = self._bw_plan(f, q)
        if plan is None:
            return None
        assert f is not None
        cost = -1
        for j, p in plan[0]:
            c = self._bw_operand_cost(f.operands[j], p, depth)
            if c is None:
                return None
            cost += c
        return cost

    def _backward(self, t: OVOp) -> bool:
        q = transpose_order(t)
        v = t.operands[0]
        f = v.owner
        if q is None or not v.has_one_use():
            return False
        cost = self._bw_cost(f, q)  # type: ignore[arg-type]
        if cost is None or cost >= 0:
            return False
        plan = self._bw_plan(f, q)  # type: ignore[arg-type]
        assert plan is not None and isinstance(f, OVOp)
        operands = list(f.operands)
        for j, p in plan[0]:
            a = f.operands[j]
            n = len(p)
            if _rank(a) == 0 or _all_ones(a):
                continue
            u = self._rebuilt_const(a, functools.partial(_full_rank_transposed, n=n, p=p), f)
            if u is not None:
                operands[j] = u
                continue
            prod = a.owner
            pa = transpose_order(prod) if isinstance(prod, Operation) else None
            if pa is not None:  # merge right away
                operands[j] = self.transpose(prod.operands[0], _compose(pa, p), f, src=t)  # type: ignore[union-attr]
            else:
                operands[j] = self.transpose(a, p, f, src=t)
        for j, vals in plan[1].items():
            operands[j] = self._int_const_like(f.operands[j], vals, f)
        new = self.rebuild(f, operands)
        name = f.get_friendly_name()
        if name is not None:
            new.set_friendly_name(self.moved.get(f, name))
        names = t.get_tensor_names(0)
        if names:
            new.set_tensor_names(0, names)
        self.pinned.add(new)
        t.results[0].replace_all_uses_with(new.results[0])
        self.erase(t)
        return True

    # ---------------------------------------------------------------------------
    # Finishing
    # ---------------------------------------------------------------------------
    def restore_names(self) -> None:
        used = {o.get_friendly_name() for o in self.block.ops if isinstance(o, OVOp)}
        for op, orig in self.moved.items():
            if _alive(op) and op.get_friendly_name() != orig and orig not in used:  # type: ignore[attr-defined]
                op.set_friendly_name(orig)  # type: ignore[attr-defined]
                used.add(orig)


def toposort(block: Block) -> None:
    """Reorder ``block`` so that every op follows its operands' producers,
    keeping the current order where it is already valid."""
    ops = list(block.ops)
    pos = {o: i for i, o in enumerate(ops)}

    def deps(o: Operation) -> list[Operation]:
        out = []
        for inner in o.walk():
            for v in inner.operands:
                d = v.owner
                if isinstance(d, Operation) and d in pos and d is not o:
                    out.append(d)
        return out

    if all(pos[d] < pos[o] for o in ops for d in deps(o)):
        return
    placed: set[Operation] = set()
    order: list[Operation] = []
    for root in ops:
        if root in placed:
            continue
        stack: list[tuple[Operation, list[Operation]]] = [(root, deps(root))]
        while stack:
            o, pending = stack[-1]
            while pending and pending[-1] in placed:
                pending.pop()
            if pending:
                d = pending.pop()
                stack.append((d, deps(d)))
                continue
            stack.pop()
            if o not in placed:
                placed.add(o)
                order.append(o)
    for o in order:
        block.detach_op(o)
    block.add_ops(order)


# ---------------------------------------------------------------------------
# Forward handlers: handler(sinker, op, T, P) -> bool (raise _Skip to decline)
# ---------------------------------------------------------------------------

_Handler = Callable[[_Sinker, OVOp, OVOp, Perm], bool]
_FORWARD: dict[str, _Handler] = {}


def _forward(*names: str) -> Callable[[_Handler], _Handler]:
    def register(fn: _Handler) -> _Handler:
        for n in names:
            _FORWARD[n] = fn
        return fn

    return register


def _data_only(op: OVOp, t: OVOp, ports: Sequence[int] = (0,)) -> SSAValue:
    """``t``'s input, requiring ``t`` to feed only the data ``ports`` of ``op``."""
    tv = t.results[0]
    for i, v in enumerate(op.operands):
        if (v is tv) != (i in ports):
            raise _Skip("the Transpose feeds a non-data input")
    return t.operands[0]


def _same_rank_out(op: OVOp, n: int) -> None:
    for r in op.results:
        if _rank(r) != n:
            raise _Skip("result rank differs from the Transpose's")


@_forward(*UNARY, *UNARY_WITH_PARAMS)
def _fw_unary(s: _Sinker, op: OVOp, t: OVOp, p: Perm) -> bool:
    x = _data_only(op, t)
    _same_rank_out(op, len(p))
    new = s.rebuild(op, [x, *op.operands[1:]], fallback_perm=p)
    return s.finish(op, new, [p], t)


@_forward(*ELTWISE)
def _fw_eltwise(s: _Sinker, op: OVOp, t: OVOp, p: Perm) -> bool:
    if "auto_broadcast" in {a.name for a in op.OV_ATTRS} and op.attr("auto_broadcast") not in (
        "numpy", "none"
    ):
        raise _Skip("only numpy broadcasting")
    n = len(p)
    _same_rank_out(op, n)
    tv = t.results[0]
    if op.name == "ov.PRelu":
        _data_only(op, t)
    operands: list[SSAValue] = []
    allow_reuse = op not in s.strict
    reused = False
    for i, v in enumerate(op.operands):
        if v is tv:
            operands.append(t.operands[0])
            continue
        u, r = s.adapt(v, p, op, allow_reuse=allow_reuse,
                       channel_slope=(op.name == "ov.PRelu" and i == 1))
        reused |= r
        operands.append(u)
    new = s.rebuild(op, operands, fallback_perm=p)
    return s.finish(op, new, [p], t, strict=reused)


@_forward("ov.Concat")
def _fw_concat(s: _Sinker, op: OVOp, t: OVOp, p: Perm) -> bool:
    n = len(p)
    _same_rank_out(op, n)
    tv = t.results[0]
    operands: list[SSAValue] = []
    reused = False
    for v in op.operands:
        if v is tv:
            operands.append(t.operands[0])
            continue
        if _rank(v) != n:
            raise _Skip("Concat input of another rank")
        u, r = s.adapt(v, p, op, allow_reuse=op not in s.strict)
        reused |= r
        operands.append(u)
    axis = p[_norm_axis(op.attr("axis"), n)]
    new = s.rebuild(op, operands, {"axis": axis})
    return s.finish(op, new, [p], t, strict=reused)


def _axes_operand(s: _Sinker, op: OVOp, port: int, p: Perm) -> tuple[SSAValue, list[int]]:
    """Remapped axes constant at ``port`` (new constant) and the normalized old axes."""
    axes = _const_ints(op.operands[port])
    if axes is None:
        raise _Skip("axes are not constant")
    n = len(p)
    norm = [_norm_axis(a, n) for a in axes]
    return s._int_const_like(op.operands[port], [p[a] for a in norm], op), norm


@_forward(*REDUCTIONS)
def _fw_reduce(s: _Sinker, op: OVOp, t: OVOp, p: Perm) -> bool:
    x = _data_only(op, t)
    axes_v, axes = _axes_operand(s, op, 1, p)
    new = s.rebuild(op, [x, axes_v])
    q = p if op.attr("keep_dims") else _perm_after_removing(p, set(axes))
    return s.finish(op, new, [q], t)


@_forward("ov.MVN", "ov.NormalizeL2")
def _fw_axes_same_shape(s: _Sinker, op: OVOp, t: OVOp, p: Perm) -> bool:
    x = _data_only(op, t)
    axes_v, _ = _axes_operand(s, op, 1, p)
    new = s.rebuild(op, [x, axes_v, *op.operands[2:]])
    return s.finish(op, new, [p], t)


@_forward("ov.Roll")
def _fw_roll(s: _Sinker, op: OVOp, t: OVOp, p: Perm) -> bool:
    x = _data_only(op, t)
    axes_v, _ = _axes_operand(s, op, 2, p)
    new = s.rebuild(op, [x, op.operands[1], axes_v], fallback_perm=p)
    return s.finish(op, new, [p], t)


@_forward("ov.CumSum")
def _fw_cumsum(s: _Sinker, op: OVOp, t: OVOp, p: Perm) -> bool:
    x = _data_only(op, t)
    axes_v, _ = _axes_operand(s, op, 1, p)
    new = s.rebuild(op, [x, axes_v])
    return s.finish(op, new, [p], t)


@_forward("ov.Softmax", "ov.LogSoftmax", "ov.Softmax_opset1")
def _fw_softmax(s: _Sinker, op: OVOp, t: OVOp, p: Perm) -> bool:
    x = _data_only(op, t)
    axis = p[_norm_axis(op.attr("axis"), len(p))]
    new = s.rebuild(op, [x], {"axis": axis}, fallback_perm=p)
    return s.finish(op, new, [p], t)


@_forward("ov.TopK")
def _fw_topk(s: _Sinker, op: OVOp, t: OVOp, p: Perm) -> bool:
    x = _data_only(op, t)
    axis = p[_norm_axis(op.attr("axis"), len(p))]
    new = s.rebuild(op, [x, op.operands[1]], {"axis": axis})
    return s.finish(op, new, [p, p], t)


@_forward("ov.Reverse_opset1")
def _fw_reverse(s: _Sinker, op: OVOp, t: OVOp, p: Perm) -> bool:
    x = _data_only(op, t)
    n = len(p)
    if op.attr("mode") == "index":
        axes_v, _ = _axes_operand(s, op, 1, p)
    else:
        mask = constant_value_of(op.operands[1])
        if mask is None or mask.size != n:
            raise _Skip("mask not constant")
        inv = list(_inverse(p))
        axes_v = s._rebuilt_const(op.operands[1], lambda a: a.reshape(-1)[inv], op)
        assert axes_v is not None
    new = s.rebuild(op, [x, axes_v], fallback_perm=p)
    return s.finish(op, new, [p], t)


@_forward("ov.Pad", "ov.Pad_opset1")
def _fw_pad(s: _Sinker, op: OVOp, t: OVOp, p: Perm) -> bool:
    x = _data_only(op, t)
    n = len(p)
    pads = []
    for port in (1, 2):
        vals = _const_ints(op.operands[port])
        if vals is None or len(vals) != n:
            raise _Skip("pads are not constant")
        pads.append(s._int_const_like(op.operands[port], _scatter(p, vals, 0), op))
    new = s.rebuild(op, [x, *pads, *op.operands[3:]], fallback_perm=p)
    return s.finish(op, new, [p], t)


@_forward("ov.Tile")
def _fw_tile(s: _Sinker, op: OVOp, t: OVOp, p: Perm) -> bool:
    x = _data_only(op, t)
    n = len(p)
    reps = _const_ints(op.operands[1])
    if reps is None or len(reps) > n:
        raise _Skip("repeats not constant or longer than the rank")
    full = [1] * (n - len(reps)) + reps
    new = s.rebuild(op, [x, s._int_const_like(op.operands[1], _scatter(p, full, 1), op)])
    return s.finish(op, new, [p], t)


@_forward("ov.Split", "ov.VariadicSplit")
def _fw_split(s: _Sinker, op: OVOp, t: OVOp, p: Perm) -> bool:
    x = _data_only(op, t)
    axis = _const_ints(op.operands[1])
    if axis is None or len(axis) != 1:
        raise _Skip("split axis not constant")
    axis_v = s._int_const_like(op.operands[1], [p[_norm_axis(axis[0], len(p))]], op)
    new = s.rebuild(op, [x, axis_v, *op.operands[2:]])
    return s.finish(op, new, [p] * len(op.results), t)


@_forward("ov.Unsqueeze")
def _fw_unsqueeze(s: _Sinker, op: OVOp, t: OVOp, p: Perm) -> bool:
    x = _data_only(op, t)
    axes = _const_ints(op.operands[1])
    m = _rank(op.results[0])
    if axes is None or m is None:
        raise _Skip("axes not constant")
    new_axes = sorted({_norm_axis(a, m) for a in axes})
    kept = [j for j in range(m) if j not in new_axes]
    q = list(range(m))
    for i in range(len(p)):
        q[kept[i]] = kept[p[i]]
    new = s.rebuild(op, [x, op.operands[1]])
    return s.finish(op, new, [tuple(q)], t)


@_forward("ov.Squeeze", "ov.Squeeze_opset1")
def _fw_squeeze(s: _Sinker, op: OVOp, t: OVOp, p: Perm) -> bool:
    x = _data_only(op, t)
    n = len(p)
    dims = dims_of(t.results[0].type)
    assert dims is not None
    axes = _const_ints(op.operands[1]) if len(op.operands) > 1 else None
    if len(op.operands) > 1 and axes is None:
        raise _Skip("axes not constant")
    axes_v: list[SSAValue] = []
    if axes:
        removed = {_norm_axis(a, n) for a in axes}
        if op.name == "ov.Squeeze" and op.attr("allow_axis_skip") and any(
            dims[a] != 1 for a in removed
        ):
            raise _Skip("allow_axis_skip with dims not known to be 1")
        axes_v = [s._int_const_like(op.operands[1], sorted(p[a] for a in removed), op)]
    else:  # no (or empty) axes: every dim of size 1 goes
        axes_v = list(op.operands[1:])
        if any(d == DYN for d in dims):
            raise _Skip("squeeze without axes on dynamic dims")
        removed = {i for i, d in enumerate(dims) if d == 1}
    xdims = dims_of(x.type)
    assert xdims is not None
    rtypes = None
    if op.name == "ov.Squeeze_opset1":
        gone = {p[a] for a in removed}
        rtypes = [tensor(x.type.get_element_type(),  # type: ignore[attr-defined]
                         [d for i, d in enumerate(xdims) if i not in gone])]
    new = s.rebuild(op, [x, *axes_v], result_types=rtypes)
    return s.finish(op, new, [_perm_after_removing(p, removed)], t)


@_forward("ov.Slice")
def _fw_slice(s: _Sinker, op: OVOp, t: OVOp, p: Perm) -> bool:
    x = _data_only(op, t)
    if len(op.operands) > 4:
        axes_v, _ = _axes_operand(s, op, 4, p)
    else:
        d = dims_of(op.operands[1].type)
        if d is None or len(d) != 1 or d[0] == DYN:
            raise _Skip("Slice without axes and start of unknown length")
        axes_v = s._shared_const([p[i] for i in range(d[0])], (d[0],))
    new = s.rebuild(op, [x, *op.operands[1:4], axes_v])
    return s.finish(op, new, [p], t)


@_forward("ov.StridedSlice")
def _fw_strided_slice(s: _Sinker, op: OVOp, t: OVOp, p: Perm) -> bool:
    x = _data_only(op, t)
    n = len(p)
    for m in ("new_axis_mask", "shrink_axis_mask", "ellipsis_mask"):
        if any(op.attr(m)):
            raise _Skip(f"StridedSlice with {m}")
    begin, end = _const_ints(op.operands[1]), _const_ints(op.operands[2])
    strides = _const_ints(op.operands[3]) if len(op.operands) > 3 else None
    if begin is None or end is None or (len(op.operands) > 3 and strides is None):
        raise _Skip("StridedSlice bounds not constant")
    k = len(begin)
    if len(end) != k or k > n or (strides is not None and len(strides) != k):
        raise _Skip("StridedSlice bounds longer than the rank")
    strides = strides if strides is not None else [1] * k

    def full(vals: Sequence[int], fill: int) -> list[int]:
        return [vals[i] if i < len(vals) else fill for i in range(n)]

    bm = [int(b) for b in op.attr("begin_mask")]
    em = [int(b) for b in op.attr("end_mask")]
    new_bm = _scatter(p, [bm[i] if i < len(bm) else 0 for i in range(k)] + [1] * (n - k), 1)
    new_em = _scatter(p, [em[i] if i < len(em) else 0 for i in range(k)] + [1] * (n - k), 1)
    ops_ = [
        s._int_const_like(op.operands[1], _scatter(p, full(begin, 0), 0), op),
        s._int_const_like(op.operands[2], _scatter(p, full(end, 0), 0), op),
    ]
    if len(op.operands) > 3:
        ops_.append(s._int_const_like(op.operands[3], _scatter(p, full(strides, 1), 1), op))
    else:
        ops_.append(s._shared_const(_scatter(p, full(strides, 1), 1), (n,)))
    new = s.rebuild(op, [x, *ops_], {"begin_mask": new_bm, "end_mask": new_em})
    return s.finish(op, new, [p], t)


@_forward("ov.Interpolate", "ov.Interpolate_opset4")
def _fw_interpolate(s: _Sinker, op: OVOp, t: OVOp, p: Perm) -> bool:
    x = _data_only(op, t)
    n = len(p)
    axes_port = 2 if op.name == "ov.Interpolate" else 3
    if len(op.operands) > axes_port:
        axes_v, _ = _axes_operand(s, op, axes_port, p)
    else:
        d = dims_of(op.operands[1].type)
        if d is None or len(d) != 1 or d[0] != n:
            raise _Skip("Interpolate without axes")
        axes_v = s._shared_const(list(p), (n,))
    updates = {}
    for attr in ("pads_begin", "pads_end"):
        vals = [int(v) for v in op.attr(attr)]
        if any(vals):
            if len(vals) > n:
                raise _Skip("Interpolate pads longer than the rank")
            updates[attr] = _scatter(p, vals + [0] * (n - len(vals)), 0)
    new = s.rebuild(op, [x, *op.operands[1:axes_port], axes_v], updates, fallback_perm=p)
    return s.finish(op, new, [p], t)


@_forward("ov.Gather")
def _fw_gather(s: _Sinker, op: OVOp, t: OVOp, p: Perm) -> bool:
    x = _data_only(op, t)
    n = len(p)
    if op.attr("batch_dims") != 0:
        raise _Skip("Gather with batch_dims")
    axis = _const_ints(op.operands[2])
    ir = _rank(op.operands[1])
    if axis is None or len(axis) != 1 or ir not in (0, 1):
        raise _Skip("Gather axis not constant or indices not 0-D/1-D")
    a = _norm_axis(axis[0], n)
    axis_v = s._int_const_like(op.operands[2], [p[a]], op)
    new = s.rebuild(op, [x, op.operands[1], axis_v])
    q = p if ir == 1 else _perm_after_removing(p, {a})
    return s.finish(op, new, [q], t)


@_forward("ov.ShapeOf", "ov.ShapeOf_opset1")
def _fw_shapeof(s: _Sinker, op: OVOp, t: OVOp, p: Perm) -> bool:
    x = _data_only(op, t)
    n = len(p)
    new = s.rebuild(op, [x], result_types=[tensor(op.results[0].type.get_element_type(), [n])])  # type: ignore[attr-defined]
    g = op_class("Gather").make(
        [new.results[0], s._shared_const(list(p), (n,)), s._shared_const([0], ())]
    )
    s._insert(g, op)
    name = op.get_friendly_name()
    if name is not None:
        g.set_friendly_name(name)
        new.set_friendly_name(s.moved.get(op, name) + "/sunk")
        s.moved[new] = s.moved.get(op, name)
    if op.get_tensor_names(0):
        g.set_tensor_names(0, op.get_tensor_names(0))
    op.results[0].replace_all_uses_with(g.results[0])
    s.erase(op)
    return True


# ---------------------------------------------------------------------------
# The pass
# ---------------------------------------------------------------------------


def sink_transposes(module: ModuleOp, store=None, backward: bool = True,
                    max_rounds: int = 8) -> bool:
    """Run transpose sinking on ``module``; True when it changed."""
    block = module.body.block
    if not any(o.name == "ov.Transpose" for o in block.ops):
        return False
    s = _Sinker(block, store, backward, max_rounds)
    s.run()
    if s.changed:
        s.restore_names()
        toposort(block)
    return s.changed


@dataclass(frozen=True)
class OVTransposeSinkingPass(ModulePass):
    """Sink Transposes through layout-agnostic ops (see the module docstring)."""

    name = "ov-transpose-sinking"
    backward: bool = True
    max_rounds: int = 8

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        try:
            from xmo.context import weight_store

            store = weight_store(ctx)
        except (TypeError, Exception):
            store = None
        sink_transposes(op, store, self.backward, self.max_rounds)
