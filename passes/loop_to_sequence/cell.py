"""Recognising one recurrent cell in a loop body, on its dataflow.

Given the body's step input ``x`` ([B, I]), its hidden state ``h`` ([B, H];
LSTM: also the cell state ``c``) and the values the body gives back for
them, :func:`match_cell` finds which cell computes them and its weights in
OpenVINO's layout:

* LSTM: ``c' = f * c + i * g``, ``h' = o * tanh(c')`` with ``f, i, o`` gate
  activations and ``g = tanh`` of their pre-activations;
* GRU: ``h' = z * h + (1 - z) * n``, ``n = tanh(x Wn + r * (h Rn + bRn) + bWn)``
  (``linear_before_reset``, Keras' ``reset_after=True``) or
  ``n = tanh(x Wn + (r * h) Rn + b)``;
* RNN: ``h' = tanh(x W + h R + b)``;

(each sum and product in either operand order), the gate activation
sigmoid, the others tanh. Anything else is not a cell (OpenVINO's CPU
plugin runs Sequence ops with sigmoid, tanh and relu only, so a hard
sigmoid gate stays a loop).

Pre-activations are read as affine forms (:class:`Affine`) of the
variables, whatever way the body computes them: one MatMul of ``Concat([x,
h])`` or one per operand, biases added once or several times, gates cut
from a wide product (Split, VariadicSplit, StridedSlice, Slice, Gather:
:func:`~xmo.passes.loop_to_sequence.probe.columns`) or each computed on its
own, a product of products. The weights are then the affine forms'
coefficients, gathered in OpenVINO's gate order (LSTM ``f, i, c, o``, GRU
``z, r, h``) as ``W [gates*H, I]``, ``R [gates*H, H]``, ``B [gates*H]``
(GRU with ``linear_before_reset``: ``B [4H]``, the candidate's recurrent bias
last).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from functools import cached_property

import numpy as np
from xdsl.ir import SSAValue

from xmo.dialects.ov.base import OVOp, dims_of
from xmo.dialects.ov.ops import (
    AddOp,
    ConcatOp,
    DivideOp,
    MatMulOp,
    MultiplyOp,
    SigmoidOp,
    SubtractOp,
    TanhOp,
)
from xmo.passes.loop_to_sequence.probe import MOVES_DATA, Resolve, columns, producer

#: the gate activation and the cell activation, as Sequence ops name them
#: (OpenVINO's CPU plugin runs Sequence ops with sigmoid, tanh and relu only:
#: a hard sigmoid gate, as Keras may have, stays a loop)
GATE_ACTIVATION = "sigmoid"
CELL_ACTIVATION = "tanh"


@dataclass(frozen=True)
class CellMatch:
    """A recognised cell, its weights in OpenVINO's layout and gate order
    (kept as the blocks of each gate until asked for: recognising a cell
    does not copy its weights)."""

    kind: str
    """one of "lstm", "gru", "rnn"."""
    hidden: int
    w_blocks: tuple[np.ndarray, ...]
    r_blocks: tuple[np.ndarray, ...]
    b_blocks: tuple[np.ndarray, ...]
    linear_before_reset: bool = False

    @cached_property
    def w(self) -> np.ndarray:
        """[gates*H, I]"""
        return np.concatenate(self.w_blocks)

    @cached_property
    def r(self) -> np.ndarray:
        """[gates*H, H]"""
        return np.concatenate(self.r_blocks)

    @cached_property
    def b(self) -> np.ndarray:
        """[gates*H] ([4*H] for GRU with linear_before_reset)"""
        return np.concatenate(self.b_blocks)

    @property
    def activations(self) -> list[str]:
        n = {"lstm": 3, "gru": 2, "rnn": 1}[self.kind]
        return ([GATE_ACTIVATION] + [CELL_ACTIVATION] * 2)[:n] if n > 1 else [CELL_ACTIVATION]


# ---------------------------------------------------------------------------
# Affine forms
# ---------------------------------------------------------------------------


@dataclass(frozen=True)
class Affine:
    """``sum(v @ coef[v]) + bias`` of [B, n] values: ``coef[v]`` is
    [width of v, n], variables without an entry do not contribute."""

    coef: dict[SSAValue, np.ndarray]
    bias: np.ndarray

    @property
    def n(self) -> int:
        return self.bias.shape[0]

    def plus(self, other: Affine, sign: float = 1.0) -> Affine:
        coef = dict(self.coef)
        for v, m in other.coef.items():
            m = m if sign == 1.0 else -m
            coef[v] = coef[v] + m if v in coef else m
        return Affine(coef, self.bias + sign * other.bias)

    def times(self, m: np.ndarray) -> Affine:
        """This form followed by ``@ m`` ([n, k])."""
        return Affine({v: c @ m for v, c in self.coef.items()}, self.bias @ m)

    def scaled(self, s: np.ndarray) -> Affine:
        """Columns scaled by ``s`` ([n])."""
        return Affine({v: c * s for v, c in self.coef.items()}, self.bias * s)

    def cols(self, idx: np.ndarray) -> Affine:
        """The columns ``idx`` (a view when they are a range: weights may be large)."""
        sel: np.ndarray | slice = idx
        if len(idx) and np.array_equal(idx, np.arange(idx[0], idx[0] + len(idx))):
            sel = slice(int(idx[0]), int(idx[0]) + len(idx))
        return Affine({v: c[:, sel] for v, c in self.coef.items()}, self.bias[sel])

    def of(self, v: SSAValue, width: int) -> np.ndarray:
        """The coefficient of ``v`` (zeros when it does not contribute)."""
        c = self.coef.get(v)
        return np.zeros((width, self.n)) if c is None else c


def _width(v: SSAValue) -> int | None:
    """n of a [B, n] value with a static n."""
    dims = dims_of(v.type)
    if dims is None or len(dims) != 2 or dims[1] < 0:
        return None
    return dims[1]


def _row_vector(c: np.ndarray, n: int) -> np.ndarray | None:
    """A constant that broadcasts against [B, n] along the columns only, as [n]."""
    c = np.asarray(c, np.float64)
    if c.ndim > 2 or (c.ndim == 2 and c.shape[0] != 1) or (c.ndim and c.shape[-1] not in (1, n)):
        return None
    return np.broadcast_to(c.reshape(-1), (n,)) if c.size == 1 else c.reshape(n)


class Affines:
    """Affine forms of body values in the ``variables`` (value -> width),
    constants found by ``const``; memoized."""

    def __init__(self, variables: dict[SSAValue, int], const: Resolve) -> None:
        self.variables = variables
        self.const = const
        self._memo: dict[SSAValue, Affine | None] = {}

    def __call__(self, v: SSAValue) -> Affine | None:
        if v not in self._memo:
            self._memo[v] = None  # a cycle is not affine
            self._memo[v] = self._affine(v)
        return self._memo[v]

    def _affine(self, v: SSAValue) -> Affine | None:
        if v in self.variables:
            w = self.variables[v]
            return Affine({v: np.eye(w)}, np.zeros(w))
        dims = dims_of(v.type)
        op = producer(v)
        if dims is None or len(dims) != 2 or op is None:
            return None
        if isinstance(op, AddOp | SubtractOp):
            form = self._sum(op, -1.0 if isinstance(op, SubtractOp) else 1.0)
        elif isinstance(op, MultiplyOp | DivideOp):
            form = self._scaled(op)
        elif isinstance(op, MatMulOp):
            form = self._matmul(op)
        elif isinstance(op, ConcatOp):
            form = self._concat(op)
        elif op.OV_FAMILY in MOVES_DATA:
            form = self._selected(op, v)
        else:
            return None
        # the declared width, when static, is the form's (else the form says it)
        return form if form is not None and dims[1] in (-1, form.n) else None

    def _sum(self, op: AddOp | SubtractOp, sign: float) -> Affine | None:
        """``a + sign * b``, one of them possibly a constant bias."""
        consts = [self.const(x) for x in op.operands]
        forms = [None if c is not None else self(x) for x, c in zip(op.operands, consts)]
        known = [f for f in forms if f is not None]
        if len(known) + sum(c is not None for c in consts) != 2 or not known:
            return None
        n = known[0].n
        parts: list[Affine] = []
        for f, c in zip(forms, consts):
            if f is None:
                row = _row_vector(c, n) if c is not None else None
                if row is None:
                    return None
                f = Affine({}, row)
            if f.n != n:
                return None
            parts.append(f)
        return parts[0].plus(parts[1], sign)

    def _scaled(self, op: MultiplyOp | DivideOp) -> Affine | None:
        """A form times (divided by) a constant row vector."""
        for i, j in ((0, 1), (1, 0)):
            s = self.const(op.operands[j])
            if s is None or (isinstance(op, DivideOp) and j == 0):
                continue
            inner = self(op.operands[i])
            row = None if inner is None else _row_vector(s, inner.n)
            if row is None:
                return None
            return inner.scaled(1.0 / row if isinstance(op, DivideOp) else row)  # type: ignore[union-attr]
        return None

    def _matmul(self, op: MatMulOp) -> Affine | None:
        if op.attr("transpose_a"):
            return None
        w = self.const(op.operands[1])
        if w is None or w.ndim != 2:
            return None
        w = np.asarray(w, np.float64)
        return self._times(op.operands[0], w.T if op.attr("transpose_b") else w)

    def _times(self, a: SSAValue, w: np.ndarray) -> Affine | None:
        """The affine form of ``a @ w``: a variable's coefficient is ``w``
        itself, a Concat's parts take their rows of ``w`` (no product with
        an identity: weights may be large)."""
        if a in self.variables:
            return Affine({a: w}, np.zeros(w.shape[1])) if self.variables[a] == w.shape[0] else None
        cat = producer(a)
        if isinstance(cat, ConcatOp) and cat.attr("axis") in (1, -1):
            total: Affine | None = None
            row = 0
            for part in cat.operands:
                width = self.variables.get(part) or _width(part)
                if width is None or row + width > w.shape[0]:
                    return None
                term = self._times(part, w[row:row + width])
                if term is None:
                    return None
                total = term if total is None else total.plus(term)
                row += width
            return total if row == w.shape[0] else None
        inner = self(a)
        if inner is None or inner.n != w.shape[0]:
            return None
        return inner.times(w)

    def _concat(self, op: ConcatOp) -> Affine | None:
        if op.attr("axis") not in (1, -1):
            return None
        parts = [self(x) for x in op.operands]
        if any(p is None for p in parts):
            return None
        coef: dict[SSAValue, np.ndarray] = {}
        for v, w in self.variables.items():
            if any(v in p.coef for p in parts):  # type: ignore[union-attr]
                coef[v] = np.concatenate([p.of(v, w) for p in parts], axis=1)  # type: ignore[union-attr]
        return Affine(coef, np.concatenate([p.bias for p in parts]))  # type: ignore[union-attr]

    def _selected(self, op: OVOp, v: SSAValue) -> Affine | None:
        """Columns a Split / Slice / Gather... keeps (found by probing)."""
        inner = self(op.operands[0])
        if inner is None:
            return None
        idx = columns(op, v.index, self.const)  # type: ignore[attr-defined]
        if idx is None or np.any(idx >= inner.n):
            return None
        return inner.cols(idx)

    def term(self, x: SSAValue, n: int) -> Affine | None:
        """The affine form of ``x`` as an operand of a [B, n] sum (a constant
        is a bias)."""
        c = self.const(x)
        if c is not None:
            row = _row_vector(c, n)
            return None if row is None else Affine({}, np.asarray(row, np.float64))
        a = self(x)
        return a if a is not None and a.n == n else None


# ---------------------------------------------------------------------------
# Activations
# ---------------------------------------------------------------------------


def activation(v: SSAValue) -> tuple[str, SSAValue] | None:
    """The activation making ``v`` (OpenVINO's name for it) and its input."""
    op = producer(v)
    if isinstance(op, SigmoidOp):
        return "sigmoid", op.operands[0]
    if isinstance(op, TanhOp):
        return "tanh", op.operands[0]
    return None


def _gate(v: SSAValue) -> SSAValue | None:
    """The pre-activation of a gate activation making ``v``."""
    found = activation(v)
    return found[1] if found is not None and found[0] == GATE_ACTIVATION else None


def _cell_act(v: SSAValue) -> SSAValue | None:
    """The pre-activation of a cell activation making ``v``."""
    found = activation(v)
    return found[1] if found is not None and found[0] == CELL_ACTIVATION else None


def _operands(v: SSAValue, cls: type) -> Iterator[tuple[SSAValue, SSAValue]]:
    """Both orders of the operands of the ``cls`` op making ``v``."""
    op = producer(v)
    if isinstance(op, cls) and len(op.operands) == 2:
        a, b = op.operands
        yield a, b
        yield b, a


# ---------------------------------------------------------------------------
# Cells
# ---------------------------------------------------------------------------


@dataclass(frozen=True)
class CellVariables:
    """What a body gives the cell: step input, states and their new values."""

    x: SSAValue
    h: SSAValue
    h_new: SSAValue
    c: SSAValue | None = None
    c_new: SSAValue | None = None


def match_cell(cv: CellVariables, const: Resolve) -> CellMatch | None:
    """The cell computing ``cv.h_new`` (and ``cv.c_new``), or None."""
    i = _width(cv.x)
    hs = _state_width(cv.h, cv.h_new)
    if i is None or hs is None:
        return None
    if cv.c is not None:
        assert cv.c_new is not None
        if _state_width(cv.c, cv.c_new) != hs:
            return None
        return _lstm(cv, const, i, hs)
    return _gru(cv, const, i, hs) or _rnn(cv, const, i, hs)


def _state_width(state: SSAValue, new: SSAValue) -> int | None:
    """H of a state (the carried parameter's type may have lost it when the
    initial value's width is only known at run time: its new value's then)."""
    a, b = _width(state), _width(new)
    if a is not None and b is not None and a != b:
        return None
    return a if a is not None else b


def _weights(forms: list[Affine], x: SSAValue, h: SSAValue, i: int, hs: int):
    """(W, R, B) blocks of the gates' affine forms, in order."""
    return (
        tuple(f.of(x, i).T for f in forms),
        tuple(f.of(h, hs).T for f in forms),
        tuple(f.bias for f in forms),
    )


def _gate_forms(pre: list[SSAValue], aff: Affines, hs: int) -> list[Affine] | None:
    forms = [aff(p) for p in pre]
    if any(f is None or f.n != hs for f in forms):
        return None
    return forms  # type: ignore[return-value]


def _lstm(cv: CellVariables, const: Resolve, i: int, hs: int) -> CellMatch | None:
    assert cv.c is not None and cv.c_new is not None
    aff = Affines({cv.x: i, cv.h: hs}, const)
    for o_v, t_v in _operands(cv.h_new, MultiplyOp):
        po = _gate(o_v)
        if po is None or _cell_act(t_v) is not cv.c_new:
            continue
        for fc, ig in _operands(cv.c_new, AddOp):
            f_v = next((a for a, b in _operands(fc, MultiplyOp) if b is cv.c), None)
            pf = None if f_v is None else _gate(f_v)
            if pf is None:
                continue
            for i_v, g_v in _operands(ig, MultiplyOp):
                pi, pg = _gate(i_v), _cell_act(g_v)
                if pi is None or pg is None:
                    continue
                forms = _gate_forms([pf, pi, pg, po], aff, hs)  # OpenVINO's f, i, c, o
                if forms is not None:
                    return CellMatch("lstm", hs, *_weights(forms, cv.x, cv.h, i, hs))
    return None


def _is_ones(v: SSAValue, const: Resolve) -> bool:
    c = const(v)
    return c is not None and c.size > 0 and bool(np.all(np.asarray(c) == 1))


def _gru(cv: CellVariables, const: Resolve, i: int, hs: int) -> CellMatch | None:
    for zh, zn in _operands(cv.h_new, AddOp):
        z_v = next((a for a, b in _operands(zh, MultiplyOp) if b is cv.h), None)
        pz = None if z_v is None else _gate(z_v)
        if pz is None:
            continue
        for one_z, n_v in _operands(zn, MultiplyOp):
            sub = producer(one_z)
            if not (isinstance(sub, SubtractOp) and sub.operands[1] is z_v
                    and _is_ones(sub.operands[0], const)):
                continue
            pn = _cell_act(n_v)
            found = None if pn is None else _candidate(cv, pn, const, i, hs)
            if found is None:
                continue
            r_v, cand, lbr = found
            pr = _gate(r_v)
            forms = None if pr is None else _gate_forms(
                [pz, pr], Affines({cv.x: i, cv.h: hs}, const), hs
            )
            if forms is None:
                continue
            w, r, b = _weights(forms, cv.x, cv.h, i, hs)
            return CellMatch("gru", hs, (*w, cand[0]), (*r, cand[1]), (*b, *cand[2:]), lbr)
    return None


def _add_leaves(v: SSAValue) -> list[SSAValue]:
    op = producer(v)
    if isinstance(op, AddOp):
        return _add_leaves(op.operands[0]) + _add_leaves(op.operands[1])
    return [v]


def _candidate(cv: CellVariables, pn: SSAValue, const: Resolve, i: int, hs: int):
    """The GRU candidate's pre-activation ``pn``: (reset gate value, (W [H, I],
    R [H, H], bias parts...), linear_before_reset) or None."""
    leaves = _add_leaves(pn)
    # linear_before_reset: one leaf r * (h Rn + bRn), the others affine in x
    x_aff = Affines({cv.x: i}, const)
    h_aff = Affines({cv.h: hs}, const)
    for k, leaf in enumerate(leaves):
        for r_v, rec in _operands(leaf, MultiplyOp):
            if _gate(r_v) is None:
                continue
            inner = h_aff(rec)
            if inner is None or inner.n != hs:
                continue
            rest: Affine | None = Affine({}, np.zeros(hs))
            for other in leaves[:k] + leaves[k + 1:]:
                term = x_aff.term(other, hs)
                rest = None if term is None or rest is None else rest.plus(term)
            if rest is None:
                continue
            return r_v, (rest.of(cv.x, i).T, inner.of(cv.h, hs).T, rest.bias, inner.bias), True
    # reset before the product: affine in x and r * h
    for rh in _reset_products(pn, cv.h):
        r_v = next(a for a, b in _operands(rh, MultiplyOp) if b is cv.h)
        form = Affines({cv.x: i, rh: hs}, const)(pn)
        if form is None or form.n != hs:
            continue
        return r_v, (form.of(cv.x, i).T, form.of(rh, hs).T, form.bias), False
    return None


def _reset_products(pn: SSAValue, h: SSAValue, depth: int = 12) -> list[SSAValue]:
    """The values ``r * h`` (r a gate activation) ``pn`` is computed from."""
    found: list[SSAValue] = []
    seen: set[SSAValue] = set()
    stack = [(pn, 0)]
    while stack:
        v, d = stack.pop()
        if v in seen or d > depth:
            continue
        seen.add(v)
        op = producer(v)
        if op is None:
            continue
        if isinstance(op, MultiplyOp) and any(b is h for _, b in _operands(v, MultiplyOp)):
            found.append(v)
            continue
        stack.extend((x, d + 1) for x in op.operands)
    return found


def _rnn(cv: CellVariables, const: Resolve, i: int, hs: int) -> CellMatch | None:
    pre = _cell_act(cv.h_new)
    form = None if pre is None else Affines({cv.x: i, cv.h: hs}, const)(pre)
    if form is None or form.n != hs:
        return None
    return CellMatch("rnn", hs, *_weights([form], cv.x, cv.h, i, hs))


__all__ = [
    "CELL_ACTIVATION",
    "GATE_ACTIVATION",
    "Affine",
    "Affines",
    "CellMatch",
    "CellVariables",
    "activation",
    "match_cell",
]
