"""The transpose sinking engine: a worklist of Transposes, transactions, rule
dispatch, backward sinking and the clean-up rules (see the package docstring
for why this is a worklist algorithm and how a rule plugs in).

A rule module registers its rules here with :func:`forward_rule` and
:func:`backward_rule`; the engine never imports rule modules.
"""

from __future__ import annotations

import functools
import logging
from collections import deque
from collections.abc import Callable, Sequence
from typing import NamedTuple

import numpy as np
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Attribute, Block, Operation, SSAValue
from xdsl.utils.exceptions import VerifyException
from xmo.dialects.ov import ConstantOp, op_class
from xmo.dialects.ov import attributes as ov_attrs
from xmo.dialects.ov import element_types as et
from xmo.dialects.ov.base import (
    DYN,
    OVOp,
    constant_value_of,
    dims_of,
    inference_for,
    tensor,
)
from xmo.dialects.ov.traits import removable_if_unused
from xmo.errors import XmoError
from xmo.passes.transpose_sinking.permutations import (
    Perm,
    compose,
    const_ints,
    inverse,
    is_identity,
    rank,
    scatter,
    transpose_order,
)

log = logging.getLogger("xmo.transpose_sinking")

#: a Transpose of a constant that has other users folds into a copy only up
#: to this size (a single-use constant folds at any size: no data grows)
_SHARED_FOLD_MAX_BYTES = 1 << 20

#: how many ops backward sinking looks ahead to find a cancellation
_LOOKAHEAD = 4


class Skip(XmoError):
    """A rule does not apply: the engine rolls back what it built and goes on.

    Raise it from a rule (with the reason, logged at debug level); the engine
    catches it, it never escapes the pass. Any other exception from a rule is
    a bug and propagates.
    """


# ---------------------------------------------------------------------------
# Rule registry
# ---------------------------------------------------------------------------


class BackwardPlan(NamedTuple):
    """How ``T(op(...), q)`` moves above ``op``."""

    #: (operand index, order that operand needs) for every data operand
    moves: list[tuple[int, Perm]]
    #: new integer constants (e.g. axes) per operand index
    consts: dict[int, list[int]]


#: ``rule(sinker, op, t, p) -> bool``: sink ``t = Transpose(x, p)``, an input
#: of ``op``, below ``op`` (build ``op'`` on ``x``, then ``sinker.finish``);
#: raise :class:`Skip` to decline
ForwardRule = Callable[["Sinker", OVOp, OVOp, Perm], bool]
#: ``rule(op, q) -> plan``: how ``T(op(...), q)`` moves above ``op`` (None:
#: it cannot); ``op`` has one result, of rank ``len(q)``
BackwardRule = Callable[[OVOp, Perm], "BackwardPlan | None"]

#: op name -> the rule sinking a Transpose from an input of the op to its outputs
FORWARD_RULES: dict[str, ForwardRule] = {}
#: op name -> the rule moving a Transpose of the op's result to its inputs
BACKWARD_RULES: dict[str, BackwardRule] = {}
#: op name -> the rule folding a Transpose of the op's result into the op
ABSORB_RULES: dict[str, AbsorbRule] = {}


def _register(table: dict[str, Callable], kind: str, names: tuple[str, ...]) -> Callable:
    def register(fn: Callable) -> Callable:
        for n in names:
            if n in table:
                raise ValueError(f"two {kind} transpose sinking rules for {n}")
            table[n] = fn
        return fn

    return register


def forward_rule(*names: str) -> Callable[[ForwardRule], ForwardRule]:
    """Register the decorated function as the forward rule of ops ``names``."""
    return _register(FORWARD_RULES, "forward", names)


def backward_rule(*names: str) -> Callable[[BackwardRule], BackwardRule]:
    """Register the decorated function as the backward rule of ops ``names``."""
    return _register(BACKWARD_RULES, "backward", names)


def absorb_rule(*names: str) -> Callable[[AbsorbRule], AbsorbRule]:
    """Register the decorated function as the rule folding a Transpose of
    the result of ops ``names`` into the op itself."""
    return _register(ABSORB_RULES, "absorb", names)


# ---------------------------------------------------------------------------
# Helpers for rules
# ---------------------------------------------------------------------------


def norm_axis(a: int, n: int) -> int:
    """Axis ``a`` of a rank-``n`` tensor in ``[0, n)`` (Skip when out of range)."""
    if not -n <= a < n:
        raise Skip(f"axis {a} out of range for rank {n}")
    return a % n


def data_only(op: OVOp, t: OVOp, ports: Sequence[int] = (0,)) -> SSAValue:
    """``t``'s input, requiring ``t`` to feed only the data ``ports`` of ``op``."""
    tv = t.results[0]
    for i, v in enumerate(op.operands):
        if (v is tv) != (i in ports):
            raise Skip("the Transpose feeds a non-data input")
    return t.operands[0]


def same_rank_out(op: OVOp, n: int) -> None:
    """Skip unless every result of ``op`` has rank ``n``."""
    for r in op.results:
        if rank(r) != n:
            raise Skip("result rank differs from the Transpose's")


def axes_operand(s: Sinker, op: OVOp, port: int, p: Perm) -> tuple[SSAValue, list[int]]:
    """Remapped axes constant at ``port`` (new constant) and the normalized old axes."""
    axes = const_ints(op.operands[port])
    if axes is None:
        raise Skip("axes are not constant")
    n = len(p)
    norm = [norm_axis(a, n) for a in axes]
    return s.int_const_like(op.operands[port], [p[a] for a in norm], op), norm


def _all_ones(v: SSAValue) -> bool:
    d = dims_of(v.type)
    return d is not None and all(x == 1 for x in d)


def _permuted_type(t: Attribute, p: Perm) -> Attribute:
    """Type ``u`` with ``T(u, p) : t``."""
    dims = dims_of(t)
    assert dims is not None
    return tensor(t.get_element_type(), scatter(p, dims, DYN))  # type: ignore[attr-defined]


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


def _erasable_when_unused(op: Operation) -> bool:
    """An op the engine may erase once nothing uses its results: an ``ov``
    op without effects (not a Parameter, Result, state or random op) and
    without regions."""
    return (
        isinstance(op, OVOp)
        and bool(op.results)
        and not op.regions
        and removable_if_unused(op)
    )


# ---------------------------------------------------------------------------
# The engine
# ---------------------------------------------------------------------------


class Sinker:
    """Transpose sinking on one block (see the package docstring).

    Rules build through :meth:`insert`, :meth:`rebuild`, :meth:`transpose`
    and the constant helpers, so that a declined rule is rolled back, and end
    with :meth:`finish`.
    """

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
    def insert(self, op: Operation, before: Operation) -> Operation:
        """Insert ``op`` before ``before`` (erased again if the rule declines)."""
        self.block.insert_op_before(op, before)
        if self._tx is not None:
            self._tx.append(op)
        return op

    def shared_const(self, values: Sequence[int], shape: tuple[int, ...]) -> SSAValue:
        """An i64 constant (placed at the top of the block, shared)."""
        key = (tuple(values), shape)
        c = self._consts.get(key)
        if not _alive(c):
            arr = np.asarray(values, dtype=np.int64).reshape(shape)
            c = ConstantOp.from_array(arr, "i64")
            first = self.block.first_op
            assert first is not None
            self.insert(c, first)
            self._consts[key] = c
        return c.results[0]

    def int_const_like(self, like: SSAValue, values: Sequence[int], before: Operation) -> SSAValue:
        """A new integer constant with ``like``'s element type and rank."""
        old = constant_value_of(like)
        assert old is not None
        arr = np.asarray(values, dtype=old.dtype).reshape(old.shape if old.ndim == 0 else (-1,))
        c = ConstantOp.from_array(arr, et.from_xdsl(like.type.get_element_type()))  # type: ignore[attr-defined]
        return self.insert(c, before).results[0]

    def _array_const(self, arr: np.ndarray, like: ConstantOp, before: Operation) -> SSAValue:
        etype = et.from_xdsl(like.results[0].type.get_element_type())  # type: ignore[attr-defined]
        name = like.get_friendly_name()
        if name is not None and like.results[0].has_more_than_one_use():
            name += "/transposed"
        c = ConstantOp.from_array(np.ascontiguousarray(arr), etype, store=self.store, name=name)
        if like.rt_info is not None:
            c.properties["rt_info"] = like.rt_info
        return self.insert(c, before).results[0]

    def transpose(self, v: SSAValue, p: Perm, before: Operation, src: Operation | None = None,
                  name: str | None = None) -> SSAValue:
        """``Transpose(v, p)`` (nothing for an identity order)."""
        if is_identity(p):
            return v
        existing = self._find_transpose(v, p)
        if existing is not None and name is None:
            return existing.results[0]
        op_ = op_class("Transpose").make([v, self.shared_const(p, (len(p),))], name=name)
        if src is not None and isinstance(src, OVOp) and src.rt_info is not None:
            op_.properties["rt_info"] = src.rt_info
        self.insert(op_, before)
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
                raise Skip(f"{op.name} has no shape inference")
        new = cls.create(operands=list(operands), result_types=list(result_types), properties=props)
        if op.rt_info is not None:
            new.properties["rt_info"] = op.rt_info
        self.insert(new, at or op)
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
                if _erasable_when_unused(p):
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
        """Run a rewrite as a transaction: when it declines (:class:`Skip`, or
        the shape inference / verification of an op it built rejects the new
        operands: ``VerifyException``) undo everything it built."""
        self._tx, self._tx_push = [], []
        try:
            ok = fn(*args)
        except (Skip, VerifyException) as e:
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

    def rebuilt_const(self, v: SSAValue, fn: Callable[[np.ndarray], np.ndarray],
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
        r = rank(v)
        if r is None or r > n:
            raise Skip("operand rank unknown or too large")
        if channel_slope and r == 1 and n >= 2:
            # PRelu: a 1-D slope matching dim 1 applies per channel
            d = dims_of(v.type)
            assert d is not None
            c = self._const_like(v)
            if d[0] != 1 and c is not None:
                out_dims = dims_of(before.results[0].type)
                if out_dims is None or out_dims[1] == DYN:
                    raise Skip("PRelu slope: channel dim unknown")
                if out_dims[1] == d[0]:
                    full_shape = [1] * n
                    full_shape[1] = d[0]
                    inv = inverse(p)
                    u = self.rebuilt_const(
                        v, lambda a: np.transpose(a.reshape(full_shape), inv), before)
                    assert u is not None
                    return u, False
        if r == 0 or _all_ones(v):
            return v, False
        owner = v.owner
        if r == n and isinstance(owner, Operation) and transpose_order(owner) == p:
            return owner.operands[0], False
        inv = inverse(p)
        u = self.rebuilt_const(v, functools.partial(_full_rank_transposed, n=n, p=inv), before)
        if u is not None:
            return u, False
        if allow_reuse and r == n:
            # Transpose(v, inverse(p)) costs nothing: it exists already, merges
            # with a Transpose above, or backward sinking will cancel it
            cost = self._bw_operand_cost(v, inv, _LOOKAHEAD if self.backward else 0)
            if cost is not None and cost <= 0:
                return self.transpose(v, inv, before), True
        raise Skip("operand is not a constant, a scalar or a matching Transpose")

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
        if is_identity(p):
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
        absorb = ABSORB_RULES.get(prod.name) if isinstance(prod, OVOp) else None
        if absorb is not None and x.has_one_use() and self.attempt(absorb, self, prod, t, p):
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
            rule = FORWARD_RULES.get(consumer.name)
            if rule is not None:
                self.attempt(rule, self, consumer, t, p)
        if _alive(t) and not out.uses:
            self.erase(t)

    def _merge(self, t: OVOp, first: Operation, p0: Perm, p: Perm) -> bool:
        y = first.operands[0]
        q = compose(p0, p)
        if is_identity(q):
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
            raise Skip("constant without a numeric value")
        c = ConstantOp.from_array(
            np.ascontiguousarray(np.transpose(arr, p)),
            et.from_xdsl(const.results[0].type.get_element_type()),  # type: ignore[attr-defined]
            store=self.store, name=t.get_friendly_name(),
            tensor_names=t.get_tensor_names(0),
        )
        if const.rt_info is not None:
            c.properties["rt_info"] = const.rt_info
        self.insert(c, t)
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
            if q is None or is_identity(q):
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

    def _bw_plan(self, f: Operation | None, q: Perm) -> BackwardPlan | None:
        """How ``T(f(...), q)`` moves above ``f`` (None when ``f`` does not allow it)."""
        if not isinstance(f, OVOp) or f in self.pinned or len(f.results) != 1:
            return None
        if rank(f.results[0]) != len(q):
            return None
        rule = BACKWARD_RULES.get(f.name)
        return None if rule is None else rule(f, q)

    def _bw_operand_cost(self, a: SSAValue, p: Perm, depth: int, at_input: bool = False) -> int | None:
        """Transposes added (negative: removed) by giving ``a`` the order ``p``.

        ``at_input`` (backward sinking, through ops forward sinking did not
        move): a Transpose of a graph input read by nothing else costs nothing
        more than the one it replaces below the ops in between (a Pad, the
        elementwise pre-processing): the layout then changes at the input, as
        in OpenVINO's conversion, and a zero Pad meets the convolution in its
        layout (``ov-fuse-linear`` takes it in)."""
        r = rank(a)
        if r is None:
            return None
        if r == 0 or _all_ones(a) or self._const_like(a) is not None:
            return 0
        if r != len(p):
            return None
        if is_identity(p) or self._find_transpose(a, p) is not None:
            return 0
        if at_input and a.owner.name == "ov.Parameter" and a.has_one_use():  # type: ignore[union-attr]
            return 0
        prod = a.owner
        pa = transpose_order(prod) if isinstance(prod, Operation) else None
        if pa is not None:
            return (0 if is_identity(compose(pa, p)) else 1) - (1 if a.has_one_use() else 0)
        if depth > 0 and a.has_one_use():
            sub = self._bw_cost(prod, p, depth - 1, at_input and prod not in self.moved)  # type: ignore[arg-type]
            if sub is not None and sub < 0:
                return 1 + sub
        return 1

    def _bw_cost(self, f: Operation | None, q: Perm, depth: int = _LOOKAHEAD,
                 at_input: bool = False) -> int | None:
        """Change in the number of Transposes when ``T(f(...), q)`` moves above
        ``f`` (looking ``depth`` ops further up); None when it cannot."""
        plan = self._bw_plan(f, q)
        if plan is None:
            return None
        assert f is not None
        cost = -1
        for j, p in plan.moves:
            c = self._bw_operand_cost(f.operands[j], p, depth, at_input)
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
        # not back through ops forward sinking moved (it would undo that sinking)
        cost = self._bw_cost(f, q, at_input=f not in self.moved)  # type: ignore[arg-type]
        if cost is None or cost >= 0:
            return False
        plan = self._bw_plan(f, q)  # type: ignore[arg-type]
        assert plan is not None and isinstance(f, OVOp)
        operands = list(f.operands)
        for j, p in plan.moves:
            a = f.operands[j]
            n = len(p)
            if rank(a) == 0 or _all_ones(a):
                continue
            u = self.rebuilt_const(a, functools.partial(_full_rank_transposed, n=n, p=p), f)
            if u is not None:
                operands[j] = u
                continue
            prod = a.owner
            pa = transpose_order(prod) if isinstance(prod, Operation) else None
            if pa is not None:  # merge right away
                operands[j] = self.transpose(prod.operands[0], compose(pa, p), f, src=t)  # type: ignore[union-attr]
            else:
                operands[j] = self.transpose(a, p, f, src=t)
        for j, vals in plan.consts.items():
            operands[j] = self.int_const_like(f.operands[j], vals, f)
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


def sink_transposes(module: ModuleOp, store=None, backward: bool = True,
                    max_rounds: int = 8) -> bool:
    """Run transpose sinking with the registered rules on ``module``; True
    when it changed. ``store``: the weight store for new large constants."""
    block = module.body.block
    if not any(o.name == "ov.Transpose" for o in block.ops):
        return False
    s = Sinker(block, store, backward, max_rounds)
    s.run()
    if s.changed:
        s.restore_names()
        toposort(block)
    return s.changed
