"""Symbolic dimensions of a graph's tensors (the analysis of the shape
sub-graph rewrites of :mod:`.shapes`).

Every dimension of every tensor, and every element of a small integer
tensor computed from shapes (``ShapeOf`` and what gathers, slices, concats,
squeezes or reshapes it), is read as a :data:`Mono`: ``(c, (s1, s2, ...))``
stands for ``c * s1 * s2 * ...`` where the ``s`` are symbols, each the
run-time value of one dynamic dimension. A static dimension is ``(c, ())``.
Two equal ``Mono`` are equal at run time, whatever the input shapes are
(the converse does not hold: what the analysis cannot relate gets a fresh
symbol of its own). That is how ``[B, S, 32] -> MatMul -> Reshape(ShapeOf
(input_ids)[0], ShapeOf(input_ids)[1], 4, 8)`` is known to keep ``B`` and
``S`` in place, so the Reshape can read ``[0, 0, 4, 8]``.

The rules are those of the ops' shape inference (numpy broadcasting,
MatMul, Gather, Concat, Transpose, Squeeze / Unsqueeze, Reshape with
``special_zero`` and ``-1``, ``Range(0, n, 1)`` of length ``n``, ...); an
op without a rule gives its dynamic dimensions fresh symbols. Each symbol
remembers the first tensor dimension it was seen on (:meth:`DimSymbols.origin`),
from which a shape rewrite can read it with one shared ``ShapeOf``.

Values are analysed lazily (what a rewrite asks for, and what that depends
on), without recursion, and memoized: an op added later (a fusion's
replacement) is analysed when first asked for.
"""

from __future__ import annotations

from collections import Counter

import numpy as np
from xdsl.dialects.builtin import IntegerType
from xdsl.ir import Operation, SSAValue
from xmo.dialects.ov.base import constant_value_of, dims_of
from xmo.dialects.ov.traits import ElementwiseBroadcast, ElementwiseUnary

#: ``(coefficient, sorted symbols)``: their product
Mono = tuple[int, tuple[int, ...]]

ONE: Mono = (1, ())

#: ops whose result has the shape of their input 0
_SAME_SHAPE = frozenset({
    "MVN", "Softmax", "LogSoftmax", "NormalizeL2", "Gelu", "PRelu", "LRN",
    "GRN", "CumSum", "ReverseSequence", "Roll", "Reverse",
})  # fmt: skip

#: integer tensors with more elements than this are not read as values
_MAX_VALUE_ELEMENTS = 16


def static(c: int) -> Mono:
    return (int(c), ())


def is_static(m: Mono) -> bool:
    return not m[1]


def mul(a: Mono, b: Mono) -> Mono:
    return (a[0] * b[0], tuple(sorted(a[1] + b[1])))


def div(a: Mono, b: Mono) -> Mono | None:
    """``a / b`` when it is a Mono (b's symbols among a's, coefficients divide)."""
    if b[0] == 0 or a[0] % b[0]:
        return None
    rest = Counter(a[1])
    rest.subtract(Counter(b[1]))
    if any(n < 0 for n in rest.values()):
        return None
    return (a[0] // b[0], tuple(sorted(rest.elements())))


def product(ms: list[Mono]) -> Mono:
    out = ONE
    for m in ms:
        out = mul(out, m)
    return out


def _ints(v: SSAValue) -> list[int] | None:
    """The elements of a small integer Constant."""
    shape = dims_of(v.type)
    if shape is None or len(shape) > 1 or (shape and not 0 <= shape[0] <= _MAX_VALUE_ELEMENTS):
        return None
    a = constant_value_of(v)
    if a is None or a.dtype.kind not in "iub" or a.size > _MAX_VALUE_ELEMENTS:
        return None
    return [int(x) for x in np.asarray(a).reshape(-1)]


def _type(op: Operation) -> str:
    return getattr(op, "OV_TYPE", "")


#: op class -> "unary" / "broadcast" / "" (its elementwise trait, looked up once)
_KINDS: dict[type, str] = {}


def _kind(op: Operation) -> str:
    kind = _KINDS.get(type(op))
    if kind is None:
        kind = _KINDS[type(op)] = (
            "unary" if op.has_trait(ElementwiseUnary)
            else "broadcast" if op.has_trait(ElementwiseBroadcast) else "")
    return kind


class DimSymbols:
    """Symbolic dims and shape values of the tensors of one graph."""

    def __init__(self) -> None:
        #: value -> (dims or None for dynamic rank, values or None)
        self._memo: dict[SSAValue, tuple[list[Mono] | None, list[Mono] | None]] = {}
        #: symbol -> the (value, axis) it was first given to
        self._origin: list[tuple[SSAValue, int]] = []
        #: ``min(m, n)`` (a prefix of at most ``n`` static elements, ``m``
        #: asked for) -> its symbol, and each such symbol -> ``m``
        self._mins: dict[tuple[Mono, int], Mono] = {}
        self.at_most: dict[int, Mono] = {}

    # -- queries -----------------------------------------------------------------
    def dims(self, v: SSAValue) -> list[Mono] | None:
        return self._get(v)[0]

    def values(self, v: SSAValue) -> list[Mono] | None:
        """The elements of a small integer tensor of rank 0 or 1, when known."""
        return self._get(v)[1]

    def origin(self, sym: int) -> tuple[SSAValue, int]:
        return self._origin[sym]

    def live_origin(self, sym: int, before: Operation) -> tuple[SSAValue, int] | None:
        """A tensor dimension of ``sym`` defined before ``before`` in its
        block: the first one it was seen on or, when a rewrite erased that
        op since, another one analysed."""
        block = before.parent
        v, axis = self._origin[sym]
        if getattr(v.owner, "parent", None) is block:
            return v, axis
        mono = (1, (sym,))
        for w, (dims, _) in self._memo.items():
            owner = w.owner
            if (dims and mono in dims and isinstance(owner, Operation) and owner.parent is block
                    and owner is not before and owner.is_before_in_block(before)):
                return w, dims.index(mono)
        return None

    # -- evaluation ----------------------------------------------------------------
    def _get(self, v: SSAValue) -> tuple[list[Mono] | None, list[Mono] | None]:
        got = self._memo.get(v)
        if got is not None:
            return got
        stack = [v]
        while stack:
            top = stack[-1]
            if top in self._memo:
                stack.pop()
                continue
            owner = top.owner
            missing = (
                [o for o in owner.operands if o not in self._memo]
                if isinstance(owner, Operation) and not owner.regions else []
            )
            if missing:
                stack.extend(missing)
                continue
            stack.pop()
            self._memo[top] = self._compute(top)
        return self._memo[v]

    def _fresh(self, v: SSAValue, axis: int) -> Mono:
        self._origin.append((v, axis))
        return (1, (len(self._origin) - 1,))

    def _from_type(self, v: SSAValue, dims: list[Mono] | None = None) -> list[Mono] | None:
        """``dims`` (default: unknown) checked against ``v``'s type: static
        dims of the type win, unknown dynamic ones get fresh symbols."""
        t = dims_of(v.type)
        if t is None:
            return None
        if dims is not None and len(dims) != len(t):
            dims = None
        out = []
        for i, d in enumerate(t):
            if d >= 0:
                out.append(static(d))
            elif dims is not None and dims[i] is not None:
                out.append(dims[i])
            else:
                out.append(self._fresh(v, i))
        return out

    def _compute(self, v: SSAValue) -> tuple[list[Mono] | None, list[Mono] | None]:
        op = v.owner
        if not isinstance(op, Operation) or op.regions:
            return self._from_type(v), None
        dims, vals = self._rule(op, v)
        out = self._from_type(v, dims)
        n = 1 if out == [] else (out[0][0] if out and len(out) == 1 and is_static(out[0]) else None)
        if vals is not None and len(vals) != n:
            vals = None  # only vectors and scalars of known length carry values
        return out, vals

    def _rule(self, op: Operation, v: SSAValue) -> tuple[list | None, list[Mono] | None]:
        t = _type(op)
        ins = op.operands
        if t == "Constant":
            ints = _ints(v)
            return None, None if ints is None else [static(i) for i in ints]
        if t == "ShapeOf":
            return None, self.dims(ins[0])
        kind = _kind(op)
        if kind == "unary" or t in _SAME_SHAPE:
            vals = self.values(ins[0]) if t in ("Convert", "Identity") and _is_wide_int(v) else None
            return self.dims(ins[0]), vals
        if kind == "broadcast":
            values = getattr(self, f"_values_{t}", None)
            return self._broadcast(op, v), values(op) if values is not None else None
        rule = getattr(self, f"_rule_{t}", None)
        return rule(op, v) if rule is not None else (None, None)

    def _broadcast(self, op: Operation, v: SSAValue) -> list | None:
        mode = op.attr("auto_broadcast") if _has_attr(op, "auto_broadcast") else "numpy"
        shapes = [self.dims(x) for x in op.operands]
        if any(s is None for s in shapes):
            return None
        if mode == "none":
            return list(shapes[0])  # type: ignore[arg-type]
        return merge_numpy(shapes, self.at_most) if mode == "numpy" else None  # type: ignore[arg-type]

    def _values_Equal(self, op: Operation) -> list[Mono] | None:
        a, b = (self.values(x) for x in op.operands[:2])
        if a is None or b is None or (len(a) != len(b) and 1 not in (len(a), len(b))):
            return None
        out = []
        for x, y in zip(a * (len(b) if len(a) == 1 else 1), b * (len(a) if len(b) == 1 else 1)):
            if x == y:
                out.append(static(1))
            elif is_static(x) and is_static(y):
                out.append(static(0))
            elif (is_static(x) and x[0] < 0 and y[0] > 0) or (is_static(y) and y[0] < 0 and x[0] > 0):
                out.append(static(0))  # a dimension is never negative
            else:
                return None
        return out

    def _values_Select(self, op: Operation) -> list[Mono] | None:
        c, a, b = (self.values(x) for x in op.operands[:3])
        if c is None or a is None or b is None or not all(is_static(x) for x in c):
            return None
        n = max(len(c), len(a), len(b))
        if any(len(x) not in (1, n) for x in (c, a, b)):
            return None
        pick = [(a if len(a) == n else a * n)[i] if (c if len(c) == n else c * n)[i][0]
                else (b if len(b) == n else b * n)[i] for i in range(n)]
        return pick

    # -- per op type ---------------------------------------------------------------
    def _rule_Gather(self, op: Operation, v: SSAValue) -> tuple:
        data, idx, ax = op.operands[:3]
        d, i = self.dims(data), self.dims(idx)
        axes = _ints(ax)
        if d is None or i is None or axes is None or len(axes) != 1:
            return None, None
        if _has_attr(op, "batch_dims") and op.attr("batch_dims") != 0:
            return None, None
        a = axes[0] % len(d) if d else 0
        dims = d[:a] + i + d[a + 1:]
        vals = None
        dv, iv = self.values(data), _ints(idx)
        if dv is not None and iv is not None and len(d) == 1 and len(i) <= 1:
            n = len(dv)
            if all(-n <= k < n for k in iv):
                vals = [dv[k] for k in iv]
        return dims, vals

    def _rule_Unsqueeze(self, op: Operation, v: SSAValue) -> tuple:
        d = self.dims(op.operands[0])
        axes = _ints(op.operands[1]) if len(op.operands) > 1 else None
        if d is None or axes is None:
            return None, None
        r = len(d) + len(axes)
        norm = sorted({a % r for a in axes})
        out: list[Mono] = []
        it = iter(d)
        for k in range(r):
            out.append(ONE if k in norm else next(it))
        return out, self.values(op.operands[0])

    def _rule_Squeeze(self, op: Operation, v: SSAValue) -> tuple:
        d = self.dims(op.operands[0])
        if d is None:
            return None, None
        axes = _ints(op.operands[1]) if len(op.operands) > 1 else None
        if axes is None:
            if len(op.operands) > 1 or not all(is_static(m) for m in d):
                return None, None
            drop = {k for k, m in enumerate(d) if m == ONE}
        else:
            drop = {a % len(d) for a in axes} if d else set()
        return [m for k, m in enumerate(d) if k not in drop], self.values(op.operands[0])

    def _rule_Reshape(self, op: Operation, v: SSAValue) -> tuple:
        d = self.dims(op.operands[0])
        target = self.values(op.operands[1])
        vals = self.values(op.operands[0])
        if d is None or target is None:
            return None, vals
        return reshape_dims(d, target, bool(op.attr("special_zero"))), vals

    def _rule_Concat(self, op: Operation, v: SSAValue) -> tuple:
        shapes = [self.dims(x) for x in op.operands]
        vals = [self.values(x) for x in op.operands]
        allv = None if any(x is None for x in vals) else [m for x in vals for m in x]  # type: ignore[union-attr]
        if any(s is None for s in shapes) or not shapes:
            return None, allv
        rank = len(shapes[0])  # type: ignore[arg-type]
        a = op.attr("axis") % rank if rank else 0
        out = list(shapes[0])  # type: ignore[arg-type]
        sizes = [s[a] for s in shapes]  # type: ignore[index]
        out[a] = static(sum(m[0] for m in sizes)) if all(is_static(m) for m in sizes) else None
        return out, allv

    def _rule_Transpose(self, op: Operation, v: SSAValue) -> tuple:
        d = self.dims(op.operands[0])
        perm = _ints(op.operands[1])
        if d is None or perm is None or sorted(perm) != list(range(len(d))):
            return None, None
        return [d[p] for p in perm], None

    def _rule_MatMul(self, op: Operation, v: SSAValue) -> tuple:
        a, b = self.dims(op.operands[0]), self.dims(op.operands[1])
        if a is None or b is None or len(a) < 2 or len(b) < 2:
            return None, None
        if op.attr("transpose_a"):
            a = a[:-2] + [a[-1], a[-2]]
        if op.attr("transpose_b"):
            b = b[:-2] + [b[-1], b[-2]]
        batch = merge_numpy([a[:-2], b[:-2]], self.at_most)
        return batch + [a[-2], b[-1]], None

    def _rule_Broadcast(self, op: Operation, v: SSAValue) -> tuple:
        d, target = self.dims(op.operands[0]), self.values(op.operands[1])
        mode = op.attr("mode")
        if target is None or d is None:
            return None, None
        if mode == "numpy":
            return list(target), None
        if mode == "bidirectional":
            return merge_numpy([d, target], self.at_most), None
        return None, None

    def _rule_ScaledDotProductAttention(self, op: Operation, v: SSAValue) -> tuple:
        q, val = self.dims(op.operands[0]), self.dims(op.operands[2])
        if q is None or val is None or not val:
            return None, None
        return q[:-1] + val[-1:], None

    def _split(self, op: Operation, v: SSAValue) -> tuple:
        d = self.dims(op.operands[0])
        axes = _ints(op.operands[1])
        if d is None or axes is None or len(axes) != 1:
            return None, None
        out: list[Mono | None] = list(d)
        out[axes[0] % len(d)] = None
        return out, None

    _rule_Split = _split
    _rule_VariadicSplit = _split

    def _rule_Slice(self, op: Operation, v: SSAValue) -> tuple:
        ins = op.operands
        d = self.dims(ins[0])
        start, stop, step = (_ints(x) for x in ins[1:4])
        axes = _ints(ins[4]) if len(ins) > 4 else (
            None if start is None else list(range(len(start))))
        if d is None or axes is None:
            return None, None
        out: list[Mono | None] = list(d)
        for a in axes:
            out[a % len(d)] = None
        stop_v = self.values(ins[2])
        if (len(axes) == 1 and start == [0] and step == [1] and stop_v is not None
                and len(stop_v) == 1 and not is_static(stop_v[0]) and stop_v[0][0] > 0):
            a = axes[0] % len(d)
            if d[a] == stop_v[0]:
                out[a] = d[a]
            elif is_static(d[a]):
                out[a] = self._min(stop_v[0], d[a][0], v, a)
        vals = None
        dv = self.values(ins[0])
        if (dv is not None and start is not None and stop is not None and step is not None
                and len(start) == len(stop) == len(step) == 1 and step[0] > 0 and len(d) == 1
                and axes in ([0], [-1])):
            vals = dv[slice(start[0], stop[0], step[0])]
        return out, vals

    def _min(self, m: Mono, n: int, v: SSAValue, axis: int) -> Mono:
        """The symbol of ``min(m, n)`` (``x[:m]`` of ``n`` elements)."""
        key = (m, n)
        sym = self._mins.get(key)
        if sym is None:
            sym = self._mins[key] = self._fresh(v, axis)
            self.at_most[sym[1][0]] = m
        return sym

    def _rule_GatherElements(self, op: Operation, v: SSAValue) -> tuple:
        return self.dims(op.operands[1]), None

    def _rule_StridedSlice(self, op: Operation, v: SSAValue) -> tuple:
        """Values only: one element or a forward run of a shape vector."""
        dv = self.values(op.operands[0])
        b, e, st = (_ints(x) for x in op.operands[1:4]) if len(op.operands) > 3 else (None,) * 3
        if dv is None or b is None or e is None or st is None or len(b) != 1 or st[0] <= 0:
            return None, None
        bit = {k: (list(op.attr(k)) or [0])[0] for k in
               ("begin_mask", "end_mask", "shrink_axis_mask", "new_axis_mask", "ellipsis_mask")}
        if bit["new_axis_mask"] or bit["ellipsis_mask"]:
            return None, None
        if bit["shrink_axis_mask"]:
            k = b[0]
            return None, [dv[k]] if -len(dv) <= k < len(dv) else None
        lo = None if bit["begin_mask"] else b[0]
        hi = None if bit["end_mask"] else e[0]
        return None, dv[slice(lo, hi, st[0])]

    def _rule_Range(self, op: Operation, v: SSAValue) -> tuple:
        start, stop, step = op.operands[:3]
        n = self.values(stop)
        if _ints(start) == [0] and _ints(step) == [1] and n is not None and len(n) == 1 \
                and not is_static(n[0]) and n[0][0] == 1:
            # a product of dimensions is >= 0: the range has that many elements
            return [n[0]], None
        return None, None


#: ops whose output elements are elements of their input 0 (or of every input)
_PICKS = frozenset({
    "Slice", "StridedSlice", "Gather", "Reshape", "Squeeze", "Unsqueeze", "Broadcast",
    "Transpose", "Tile", "GatherElements", "GatherND",
})  # fmt: skip


def nonnegative(v: SSAValue, depth: int = 12) -> bool:
    """Every element of integer tensor ``v`` is >= 0 (a shape, a range from
    0, a constant, and what only selects among their elements)."""
    op = v.owner
    if not isinstance(op, Operation) or depth < 0:
        return False
    t = _type(op)
    if t == "ShapeOf":
        return True
    if t == "Constant":
        t_dims = dims_of(v.type)
        if t_dims is None or any(d < 0 for d in t_dims) or int(np.prod(t_dims)) > 1 << 16:
            return False
        a = constant_value_of(v)
        return a is not None and a.dtype.kind in "iu" and bool(np.all(a >= 0))
    if t == "Range":
        start, step = _ints(op.operands[0]), _ints(op.operands[2])
        return start is not None and step is not None and start[0] >= 0 and step[0] > 0
    if t in _PICKS:
        return nonnegative(op.operands[0], depth - 1)
    if t == "Concat":
        return all(nonnegative(x, depth - 1) for x in op.operands)
    if t == "Convert":
        return _is_wide_int(v) and nonnegative(op.operands[0], depth - 1)
    return False


def merge_numpy(shapes: list[list[Mono]], at_most: dict[int, Mono] | None = None) -> list[Mono | None]:
    """Numpy broadcasting of symbolic shapes (None: a dimension two different
    symbols meet on, which is one of them, unless it is 1).

    ``at_most``: symbols of ``min(m, n)`` -> ``m``: such a dim meeting ``m``
    gives ``m`` (``min(m, n)`` is ``m`` or, when ``m > n``, a static ``n``
    that broadcasts to ``m`` only when it is 1; otherwise the op fails)."""
    rank = max(len(s) for s in shapes)
    out: list[Mono | None] = []
    for i in range(rank):
        ds = {s[i - rank + len(s)] for s in shapes if i - rank + len(s) >= 0}
        ds.discard(ONE)
        if len(ds) == 2 and at_most:
            a, b = ds
            if len(a[1]) == 1 and a[0] == 1 and at_most.get(a[1][0]) == b:
                ds = {b}
            elif len(b[1]) == 1 and b[0] == 1 and at_most.get(b[1][0]) == a:
                ds = {a}
        out.append(ds.pop() if len(ds) == 1 else (ONE if not ds else None))
    return out


def reshape_dims(d: list[Mono], target: list[Mono], special_zero: bool) -> list[Mono | None]:
    """Result dims of ``Reshape(x, target)`` for ``x`` of dims ``d``."""
    out: list[Mono | None] = []
    minus = None
    for k, m in enumerate(target):
        if special_zero and m == static(0):
            out.append(d[k] if k < len(d) else None)
        elif m == static(-1):
            minus = k
            out.append(None)
        elif is_static(m) and m[0] < 0:
            out.append(None)
        else:
            out.append(m)
    if minus is not None and all(o is not None for k, o in enumerate(out) if k != minus):
        out[minus] = div(product(d), product([o for k, o in enumerate(out) if k != minus]))  # type: ignore[misc]
    return out


def _has_attr(op: Operation, name: str) -> bool:
    return any(s.name == name for s in getattr(op, "OV_ATTRS", ()))


def _is_wide_int(v: SSAValue) -> bool:
    """An i32 / i64 tensor (dimensions keep their values)."""
    get = getattr(v.type, "get_element_type", None)
    e = get() if get is not None else None
    return isinstance(e, IntegerType) and e.width.data >= 32


__all__ = ["ONE", "DimSymbols", "Mono", "div", "is_static", "merge_numpy", "nonnegative", "mul", "product", "reshape_dims", "static"]
