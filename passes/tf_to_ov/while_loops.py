"""What a TF2 ``While`` loop does, read from its ``cond`` and ``body``
functions (``tf`` ops) before anything is converted: the facts
:mod:`.families.functional` needs to build an ``ov.Loop`` whose body holds
only what the loop needs.

Per loop variable ``j`` (argument ``j`` of both functions, result ``j`` of the
body and of the While op), its :class:`Var` kind:

* ``invariant`` -- the body returns its argument unchanged;
* ``counter`` -- the body returns ``arg + 1`` and the initial value is an
  integer constant ``start`` (TensorFlow's loop counter, Keras' ``time``):
  its value in iteration ``i`` is ``start + i``;
* ``sliced`` -- a tensor list the body only reads (``TensorListGetItem``,
  TF1's ``TensorArrayReadV3``) at a counter that starts at 0 (the element of
  iteration ``i`` is element ``i``: a sliced input of the Loop);
* ``concat`` / ``last`` -- a tensor list the body writes once per iteration
  (``TensorListSetItem``, ``TensorArrayWriteV3``), at a counter that starts at 0 (the items
  concatenate) or at the constant index 0 of a one-element list (the last
  item stays: Keras' ``return_sequences=False``), and uses for nothing else;
* ``carried`` -- any other value (a back edge of the Loop).

The trip count comes from the ``cond`` function when its result is a
conjunction (``LogicalAnd``) of terms ``Less(counter, bound)`` (or
``Greater(bound, counter)``), ``bound`` a constant of the function or an
invariant variable: the loop runs ``bound - start`` iterations at most. When
every term is such, the condition needs no evaluation in the body.

:meth:`WhileLoop.needed` says which variables the Loop must carry: those
whose While result is used, and those the body needs to compute them (a
counter read only as the index of sliced reads and per-iteration writes is
not carried: the Loop's slicing and concatenation do its job).

Any other use of a tensor list is refused (one line naming the While node).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field

import numpy as np
from xdsl.ir import Operation, SSAValue

from xmo.dialects.tf import FunctionOp, ReturnOp, TFNodeOp, tensor_array
from xmo.passes.tf_to_ov.convert import PASS_THROUGH
from xmo.passes.tf_to_ov.families.tensor_lists import LIST_READS, LIST_WRITES, TensorList
from xmo.passes.to_ov.builder import ConverterNode, NotConvertible

INVARIANT, COUNTER, SLICED, CONCAT, LAST, CARRIED = (
    "invariant", "counter", "sliced", "concat", "last", "carried",
)


@dataclass
class Var:
    """One loop variable (see the module docstring)."""

    kind: str
    #: counter: the initial value
    start: int = 0
    #: sliced / concat: the counter variable giving the index
    index: int = -1


@dataclass
class Bound:
    """A term ``counter < bound`` of the condition: the loop runs at most
    ``bound - start`` iterations; ``value`` is the bound (an int), or the
    variable ``var`` whose initial value it is."""

    counter: int
    value: int | None = None
    var: int = -1


@dataclass
class WhileLoop:
    """The facts of one While node (see the module docstring)."""

    node: ConverterNode
    cond: FunctionOp
    body: FunctionOp
    vars: list[Var] = field(default_factory=list)
    bounds: list[Bound] = field(default_factory=list)
    #: every term of the condition is a bound: no condition in the body
    cond_is_bounds: bool = False

    @property
    def n(self) -> int:
        return len(self.vars)

    def needed(self, used_results: Sequence[int]) -> set[int]:
        """The variables the Loop carries or feeds: those of ``used_results``
        and, transitively, those their body results read (plus those the
        condition reads unless it is all bounds)."""
        args = list(self.body.body.block.args)
        rets = list(_returned(self.body).operands)
        need: set[int] = set()
        todo = list(used_results)
        if not self.cond_is_bounds:
            cond_args = list(self.cond.body.block.args)
            todo += [j for j in range(self.n) if _reads(_returned(self.cond).operands, cond_args[j])]
        while todo:
            j = todo.pop()
            if j in need:
                continue
            need.add(j)
            kind = self.vars[j].kind
            if kind in (INVARIANT, SLICED):
                continue  # fed from outside
            for k in _args_read(rets[j], args, self._skip):
                if k not in need:
                    todo.append(k)
        return need

    def _skip(self, op: Operation, index: int) -> bool:
        """Operands the needed-walk does not follow: all but the list of
        reads of sliced lists, all but the list and the item of writes to
        per-iteration lists (the Loop's slicing and concatenation stand for
        the index; a TF1 TensorArray's handle holds nothing)."""
        if not isinstance(op, TFNodeOp):
            return False
        if op.tf_type in LIST_READS:
            li = LIST_READS[op.tf_type][0]
            j = self._arg_index(op.operands[li])
            return index != li and j is not None and self.vars[j].kind == SLICED
        if op.tf_type in LIST_WRITES:
            li, _, vi = LIST_WRITES[op.tf_type]
            j = self._arg_index(op.operands[li])
            return index not in (li, vi) and j is not None and self.vars[j].kind in (CONCAT, LAST)
        return False

    def _arg_index(self, v: SSAValue) -> int | None:
        src = source(v)
        args = self.body.body.block.args
        return src.index if src in args else None  # type: ignore[attr-defined]


def _returned(fn: FunctionOp) -> ReturnOp:
    ret = fn.body.block.last_op
    assert isinstance(ret, ReturnOp)
    return ret


def source(v: SSAValue) -> SSAValue:
    """``v`` with the pass-through nodes (Identity...) before it skipped."""
    while True:
        op = v.owner
        if not isinstance(op, TFNodeOp) or op.tf_type not in PASS_THROUGH:
            return v
        k = v.index  # type: ignore[attr-defined]
        if k >= len(op.operands):
            return v
        v = op.operands[k]


def _uses(v: SSAValue) -> Iterator[tuple[Operation, int]]:
    """The uses of ``v``, through pass-through nodes."""
    for use in v.uses:
        op = use.operation
        if isinstance(op, TFNodeOp) and op.tf_type in PASS_THROUGH and use.index < len(op.results):
            yield from _uses(op.results[use.index])
        else:
            yield op, use.index


def _reads(roots: Sequence[SSAValue], arg: SSAValue) -> bool:
    return arg in set(_walk(roots, lambda op, i: False))


def _walk(roots: Sequence[SSAValue], skip: Callable[[Operation, int], bool]) -> Iterator[SSAValue]:
    """The block arguments and values ``roots`` depend on (operands ``skip``
    says are not followed)."""
    seen: set[Operation] = set()
    stack = list(roots)
    while stack:
        v = stack.pop()
        op = v.owner
        if not isinstance(op, Operation):
            yield v
            continue
        if op in seen:
            continue
        seen.add(op)
        for i, x in enumerate(op.operands):
            if not skip(op, i):
                stack.append(x)


def _args_read(root: SSAValue, args: Sequence[SSAValue], skip) -> set[int]:
    argset = set(args)
    return {v.index for v in _walk([root], skip) if v in argset}  # type: ignore[attr-defined]


def _const_int(v: SSAValue) -> int | None:
    op = source(v).owner
    if not isinstance(op, TFNodeOp) or op.tf_type != "Const":
        return None
    a = np.asarray(tensor_array(op.properties["value"]))
    if a.size != 1 or a.dtype.kind not in "iu":
        return None
    return int(a.reshape(-1)[0])


def analyse(node: ConverterNode, cond: FunctionOp, body: FunctionOp) -> WhileLoop:
    """The facts of While ``node`` (raises NotConvertible for tensor lists used
    in other ways)."""
    n = node.num_inputs
    loop = WhileLoop(node, cond, body)
    args = list(body.body.block.args)
    rets = list(_returned(body).operands)
    for j in range(n):
        loop.vars.append(_kind(node, j, args, rets))
    _lists(loop, args, rets)
    _bounds(loop)
    return loop


def _kind(node: ConverterNode, j: int, args: list[SSAValue], rets: list[SSAValue]) -> Var:
    src = source(rets[j])
    if src is args[j]:
        return Var(INVARIANT)
    op = src.owner
    if (
        isinstance(op, TFNodeOp) and op.tf_type in ("AddV2", "Add") and len(op.operands) == 2
        and not isinstance(node.inputs[j], TensorList)
    ):
        a, c = op.operands
        if source(c) is args[j]:
            a, c = c, a
        start = node.const(j)
        if source(a) is args[j] and _const_int(c) == 1 and start is not None and start.size == 1:
            return Var(COUNTER, start=int(np.asarray(start).reshape(-1)[0]))
    return Var(CARRIED)


def _lists(loop: WhileLoop, args: list[SSAValue], rets: list[SSAValue]) -> None:
    """Kinds of the tensor-list variables (refused when used otherwise)."""
    node = loop.node
    for j, var in enumerate(loop.vars):
        if not isinstance(node.inputs[j], TensorList):
            continue
        uses = list(_uses(args[j]))
        if var.kind == INVARIANT:
            reads = [(op, i) for op, i in uses if not isinstance(op, ReturnOp)]
            if reads and all(_is_read(op, i) for op, i in reads):
                idx = {
                    _counter_index(loop, op.operands[LIST_READS[op.tf_type][1]], args)  # type: ignore[attr-defined]
                    for op, _ in reads
                }
                if len(idx) == 1 and None not in idx:
                    var.kind, var.index = SLICED, idx.pop()  # type: ignore[assignment]
            continue  # else read as a whole (a Gather per read)
        op = source(rets[j]).owner
        others = [u for u, i in uses if u is not op]
        if isinstance(op, TFNodeOp) and op.tf_type in LIST_WRITES and not others:
            li, ii, _ = LIST_WRITES[op.tf_type]
            if source(op.operands[li]) is args[j]:
                k = _counter_index(loop, op.operands[ii], args)
                if k is not None:
                    var.kind, var.index = CONCAT, k
                    continue
                if _const_int(op.operands[ii]) == 0 and node.inputs[j].known_length(node) == 1:  # type: ignore[union-attr]
                    var.kind = LAST
                    continue
        raise NotConvertible(
            f"loop variable {j} is a tensor list the body uses in a way xmo does not "
            "convert (supported: reads at the iteration number, one write per iteration at "
            "the iteration number or into a one-element list)"
        )


def _is_read(op: Operation, operand: int) -> bool:
    """``op`` reads an element of the list it takes as operand ``operand``."""
    return (
        isinstance(op, TFNodeOp) and op.tf_type in LIST_READS
        and LIST_READS[op.tf_type][0] == operand
    )


def _counter_index(loop: WhileLoop, index: SSAValue, args: list[SSAValue]) -> int | None:
    """The counter variable (starting at 0) ``index`` is, else None."""
    src = source(index)
    if src not in args:
        return None
    k = src.index  # type: ignore[attr-defined]
    var = loop.vars[k]
    return k if var.kind == COUNTER and var.start == 0 else None


def _bounds(loop: WhileLoop) -> None:
    """The terms ``counter < bound`` of the condition (see the module docstring)."""
    args = list(loop.cond.body.block.args)
    terms: list[SSAValue] = []
    stack = [source(_returned(loop.cond).operands[0])]
    while stack:
        v = stack.pop()
        op = v.owner
        if isinstance(op, TFNodeOp) and op.tf_type == "LogicalAnd":
            stack.extend(source(x) for x in op.operands)
        else:
            terms.append(v)
    all_bounds = True
    for t in terms:
        bound = _bound(loop, t, args)
        if bound is None:
            all_bounds = False
        else:
            loop.bounds.append(bound)
    loop.cond_is_bounds = all_bounds and bool(loop.bounds)


def _bound(loop: WhileLoop, term: SSAValue, args: list[SSAValue]) -> Bound | None:
    op = term.owner
    if not isinstance(op, TFNodeOp) or op.tf_type not in ("Less", "Greater"):
        return None
    lhs, rhs = (source(x) for x in op.operands)
    counter, bound = (lhs, rhs) if op.tf_type == "Less" else (rhs, lhs)
    if counter not in args:
        return None
    k = counter.index  # type: ignore[attr-defined]
    if loop.vars[k].kind != COUNTER:
        return None
    value = _const_int(bound)
    if value is not None:
        return Bound(k, value=value)
    if bound in args and loop.vars[bound.index].kind == INVARIANT:  # type: ignore[attr-defined]
        return Bound(k, var=bound.index)  # type: ignore[attr-defined]
    return None
