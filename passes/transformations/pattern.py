"""Patterns for :class:`~xmo.passes.transformations.MatcherPass`.

A pattern is a small graph of op types, rooted at the op a matcher is tried
on::

    x = any_input()
    softplus = wrap_type("SoftPlus", [x])
    tanh = wrap_type("Tanh", [softplus])
    mul = wrap_type("Multiply", [x, tanh], consumers_count(1))

* :func:`wrap_type` matches an op of one of the given types (IR type names,
  any version, or op classes), optionally with input patterns (the op must
  have exactly that many inputs; for commutative binary ops -- Add,
  Multiply, ... -- both input orders are tried) and a predicate.
* :func:`any_input` matches any value; :func:`constant` a Constant.
* ``a | b`` (or :func:`or_`) matches either pattern.
* A pattern object used twice must match the same value both times (``x``
  above: the Multiply must read the SoftPlus's input).

Predicates receive the matched output :class:`~xmo.graph.Port` (``port.node``
for the op, ``port.data`` for shape and value, ``port.get_destinations()``
for consumers) and combine with ``&``, ``|`` and ``~``.

:class:`Match` maps each pattern to what it matched: ``m[pattern]`` is the
output port, ``m.node(pattern)`` its node, ``m.root`` the root node.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np
from xdsl.ir import Operation, SSAValue
from xmo.dialects.ov.base import OVOp
from xmo.graph.base import is_placeholder
from xmo.graph.graph import Graph

if TYPE_CHECKING:
    from xmo.graph.node import Node, Port

#: Binary ops whose two inputs may be swapped.
COMMUTATIVE = frozenset({
    "Add", "Multiply", "Maximum", "Minimum", "Equal", "NotEqual", "LogicalAnd",
    "LogicalOr", "LogicalXor", "BitwiseAnd", "BitwiseOr", "BitwiseXor",
    "SquaredDifference",
})  # fmt: skip


# ---------------------------------------------------------------------------
# Predicates
# ---------------------------------------------------------------------------


class Predicate:
    """A test on a matched output port; combine with ``&``, ``|``, ``~``."""

    def __init__(self, fn: Callable[[Port], bool], name: str = "predicate") -> None:
        self.fn = fn
        self.name = name

    def __call__(self, port: Port) -> bool:
        return bool(self.fn(port))

    def __and__(self, other: Callable[[Port], bool]) -> Predicate:
        o = as_predicate(other)
        return Predicate(lambda p: self(p) and o(p), f"({self.name} & {o.name})")

    def __or__(self, other: Callable[[Port], bool]) -> Predicate:
        o = as_predicate(other)
        return Predicate(lambda p: self(p) or o(p), f"({self.name} | {o.name})")

    def __invert__(self) -> Predicate:
        return Predicate(lambda p: not self(p), f"~{self.name}")

    def __repr__(self) -> str:
        return f"<Predicate {self.name}>"


def as_predicate(fn: Callable[[Port], bool] | None) -> Predicate:
    if fn is None:
        return Predicate(lambda p: True, "true")
    if isinstance(fn, Predicate):
        return fn
    return Predicate(fn, getattr(fn, "__name__", "predicate"))


def has_static_shape() -> Predicate:
    """The tensor's shape is fully static."""

    def test(p: Port) -> bool:
        s = p.data.get_shape()
        return s is not None and all(d >= 0 for d in s)

    return Predicate(test, "has_static_shape")


def has_static_rank() -> Predicate:
    return Predicate(lambda p: p.data.get_shape() is not None, "has_static_rank")


def rank_equals(rank: int) -> Predicate:
    def test(p: Port) -> bool:
        s = p.data.get_shape()
        return s is not None and len(s) == rank

    return Predicate(test, f"rank_equals({rank})")


def shape_matches(dims: Sequence[int | None]) -> Predicate:
    """The shape equals ``dims`` (None or -1 in ``dims`` matches any dim)."""

    def test(p: Port) -> bool:
        s = p.data.get_shape()
        return (
            s is not None
            and len(s) == len(dims)
            and all(d is None or d < 0 or d == x for d, x in zip(dims, s))
        )

    return Predicate(test, f"shape_matches({list(dims)})")


def type_matches(*etypes: str) -> Predicate:
    """The element type is one of ``etypes`` (``"f32"``, ...)."""
    return Predicate(
        lambda p: p.data.get_element_type() in etypes, f"type_matches{etypes}"
    )


def consumers_count(n: int) -> Predicate:
    """The output has exactly ``n`` consumers."""
    return Predicate(
        lambda p: p.type == "out" and p.node.op.results[p.idx].uses.get_length() == n,
        f"consumers_count({n})",
    )


def attrs_match(**attrs: Any) -> Predicate:
    """The op's attributes equal the given values (lists compare as tuples)."""

    def test(p: Port) -> bool:
        return all(p.node.matches_attr(k, v) for k, v in attrs.items())

    return Predicate(test, f"attrs_match({attrs})")


def value_matches(expected: Any) -> Predicate:
    """The tensor is a constant equal to ``expected`` (broadcast), or, when
    ``expected`` is callable, one for which ``expected(array)`` is true."""

    def test(p: Port) -> bool:
        v = p.data.get_value()
        if v is None:
            return False
        if callable(expected):
            return bool(expected(v))
        try:
            return bool(np.all(v == np.asarray(expected)))
        except (ValueError, TypeError):
            return False

    return Predicate(test, "value_matches")


# ---------------------------------------------------------------------------
# Patterns
# ---------------------------------------------------------------------------


class Pattern:
    """Base class of pattern nodes (compared by identity).

    ``label``: a name to look the match up by (``m["x"]``), handy in a
    callback that cannot keep the pattern object itself.
    """

    predicate: Predicate
    label: str | None = None

    def __or__(self, other: Pattern) -> Pattern:
        return Or([self, other])

    def root_types(self) -> set[Any] | None:
        """Op types a root of this pattern can have (None: any)."""
        return None


class AnyInput(Pattern):
    def __init__(
        self, predicate: Callable[[Port], bool] | None = None, label: str | None = None
    ) -> None:
        self.predicate = as_predicate(predicate)
        self.label = label

    def __repr__(self) -> str:
        return "any_input()"


class WrapType(Pattern):
    def __init__(
        self,
        types: Iterable[str | type[OVOp]],
        inputs: Sequence[Pattern] | None,
        predicate: Callable[[Port], bool] | None,
        label: str | None = None,
    ) -> None:
        self.label = label
        self.types = tuple(types)
        if not self.types:
            raise ValueError("wrap_type needs at least one op type")
        self.names = frozenset(t for t in self.types if isinstance(t, str))
        self.classes = tuple(t for t in self.types if isinstance(t, type))
        self.inputs = None if inputs is None else list(inputs)
        self.predicate = as_predicate(predicate)

    def accepts(self, op: Operation) -> bool:
        return isinstance(op, OVOp) and (
            op.OV_TYPE in self.names or isinstance(op, self.classes)
        )

    def root_types(self) -> set[Any] | None:
        return set(self.types)

    def __repr__(self) -> str:
        names = [t if isinstance(t, str) else t.OV_TYPE for t in self.types]
        return f"wrap_type({names})"


class Or(Pattern):
    def __init__(
        self, alternatives: Sequence[Pattern], label: str | None = None
    ) -> None:
        self.label = label
        self.alternatives = list(alternatives)
        self.predicate = as_predicate(None)

    def root_types(self) -> set[Any] | None:
        out: set[Any] = set()
        for a in self.alternatives:
            t = a.root_types()
            if t is None:
                return None
            out |= t
        return out

    def __repr__(self) -> str:
        return " | ".join(repr(a) for a in self.alternatives)


def any_input(
    predicate: Callable[[Port], bool] | None = None, *, label: str | None = None
) -> AnyInput:
    """Any (connected) value."""
    return AnyInput(predicate, label)


def wrap_type(
    types: str | type[OVOp] | Iterable[str | type[OVOp]],
    inputs: Sequence[Pattern] | None = None,
    predicate: Callable[[Port], bool] | None = None,
    *,
    label: str | None = None,
) -> WrapType:
    """An op of one of ``types``, with ``inputs`` matching its inputs (None:
    inputs are not looked at) and ``predicate`` holding on its output."""
    if isinstance(types, str | type):
        types = [types]
    return WrapType(types, inputs, predicate, label)


def constant(
    predicate: Callable[[Port], bool] | None = None, *, label: str | None = None
) -> WrapType:
    """A Constant (``predicate``, e.g. :func:`value_matches`, on its output)."""
    return WrapType(["Constant"], None, predicate, label)


def or_(*patterns: Pattern, label: str | None = None) -> Or:
    return Or(patterns, label)


# ---------------------------------------------------------------------------
# Matching
# ---------------------------------------------------------------------------

_Binding = dict[Pattern, Any]


class Match:
    """What a pattern matched (see the module docstring)."""

    def __init__(self, graph: Graph, root: Operation, binding: _Binding) -> None:
        self.graph = graph
        self._root = root
        self._binding = binding

    @property
    def root(self) -> Node:
        return self.graph.node(self._root)

    def _key(self, pattern: Pattern | str) -> Pattern | None:
        if isinstance(pattern, Pattern):
            return pattern if pattern in self._binding else None
        for p in self._binding:
            if p.label == pattern:
                return p
        return None

    def __contains__(self, pattern: Pattern | str) -> bool:
        return self._key(pattern) is not None

    def __getitem__(self, pattern: Pattern | str) -> Port:
        """The output port ``pattern`` (or the pattern labelled so) matched;
        the node, for a root without outputs."""
        key = self._key(pattern)
        if key is None:
            raise KeyError(f"no match for {pattern!r}")
        v = self._binding[key]
        if isinstance(v, Operation):
            return self.graph.node(v)  # type: ignore[return-value]
        return self.graph.node(v.owner).out_port(v.index)

    def get(self, pattern: Pattern | str, default: Any = None) -> Any:
        key = self._key(pattern)
        return self[key] if key is not None else default

    def node(self, pattern: Pattern | str) -> Node:
        key = self._key(pattern)
        if key is None:
            raise KeyError(f"no match for {pattern!r}")
        v = self._binding[key]
        return self.graph.node(v if isinstance(v, Operation) else v.owner)

    def nodes(self) -> list[Node]:
        """The ops matched by op patterns (not ``any_input``), root first."""
        seen: dict[Operation, None] = {}
        for pat, v in self._binding.items():
            if isinstance(pat, WrapType):
                seen.setdefault(v if isinstance(v, Operation) else v.owner, None)
        ops = sorted(seen, key=lambda o: o is not self._root)
        return [self.graph.node(o) for o in ops]

    def register_new_node(self, node: Node) -> None:
        """Have the matchers of the running pass visit ``node`` too."""
        self.graph.register_new_node(node)

    def __repr__(self) -> str:
        return f"<Match at {self.root}>"


def _port(graph: Graph, value: SSAValue) -> Port:
    return graph.node(value.owner).out_port(value.index)  # type: ignore[arg-type, attr-defined]


def _match_value(
    graph: Graph, pat: Pattern, value: SSAValue, b: _Binding
) -> _Binding | None:
    if pat in b:
        return b if b[pat] is value else None
    if is_placeholder(value):
        return None
    owner = value.owner
    if not isinstance(owner, Operation) or owner.parent is not graph.block:
        return None
    if isinstance(pat, AnyInput):
        if not pat.predicate(_port(graph, value)):
            return None
        return {**b, pat: value}
    if isinstance(pat, Or):
        for alt in pat.alternatives:
            r = _match_value(graph, alt, value, b)
            if r is not None:
                return {**r, pat: value}
        return None
    if isinstance(pat, WrapType):
        if not pat.accepts(owner) or not pat.predicate(_port(graph, value)):
            return None
        return _match_inputs(graph, pat, owner, {**b, pat: value})
    raise TypeError(f"unknown pattern {pat!r}")


def _match_inputs(
    graph: Graph, pat: WrapType, op: Operation, b: _Binding
) -> _Binding | None:
    if pat.inputs is None:
        return b
    operands = list(op.operands)
    if len(operands) != len(pat.inputs):
        return None
    orders: list[Sequence[int]] = [range(len(operands))]
    if len(operands) == 2 and isinstance(op, OVOp) and op.OV_TYPE in COMMUTATIVE:
        orders.append((1, 0))
    for order in orders:
        r: _Binding | None = b
        for p, i in zip(pat.inputs, order):
            r = _match_value(graph, p, operands[i], r)  # type: ignore[arg-type]
            if r is None:
                break
        if r is not None:
            return r
    return None


def types_fit(pattern: Pattern, op: Operation) -> bool:
    """A necessary condition for ``match(graph, pattern, op)``: the root's op
    type and its direct inputs' op types fit the pattern (predicates, repeated
    labels and deeper levels are left to :func:`match`). The answer depends
    only on those classes, so it is cached per pattern: on a large graph most
    roots are turned away by one dictionary lookup, where a full attempt
    builds ports and bindings."""
    key = (type(op), *[type(v.owner) for v in op.operands])
    cache = pattern.__dict__.setdefault("_types_fit", {})
    fit = cache.get(key)
    if fit is None:
        fit = cache[key] = _fits(pattern, op, 1)
    return fit


def _fits(pattern: Pattern, op: Operation, depth: int) -> bool:
    if isinstance(pattern, Or):
        return any(_fits(alt, op, depth) for alt in pattern.alternatives)
    if not isinstance(pattern, WrapType) or not pattern.accepts(op):
        return isinstance(pattern, AnyInput)
    if pattern.inputs is None or depth == 0:
        return True
    operands = op.operands
    if len(operands) != len(pattern.inputs):
        return False
    orders: list[Sequence[int]] = [range(len(operands))]
    if len(operands) == 2 and op.OV_TYPE in COMMUTATIVE:  # type: ignore[attr-defined]
        orders.append((1, 0))
    for order in orders:
        for p, i in zip(pattern.inputs, order):
            if isinstance(p, AnyInput):
                continue
            owner = operands[i].owner
            if not isinstance(owner, Operation) or not _fits(p, owner, depth - 1):
                break
        else:
            return True
    return False


def match(graph: Graph, pattern: Pattern, op: Operation) -> Match | None:
    """Match ``pattern`` with its root at ``op``."""
    if not types_fit(pattern, op):
        return None
    b = _match_root(graph, pattern, op, {})
    return Match(graph, op, b) if b is not None else None


def _match_root(
    graph: Graph, pat: Pattern, op: Operation, b: _Binding
) -> _Binding | None:
    if isinstance(pat, Or):
        for alt in pat.alternatives:
            r = _match_root(graph, alt, op, b)
            if r is not None:
                return {**r, pat: r[alt]}
        return None
    if op.results:
        return _match_value(graph, pat, op.results[0], b)
    if isinstance(pat, WrapType) and pat.accepts(op):
        return _match_inputs(graph, pat, op, {**b, pat: op})
    return None


__all__ = [
    "COMMUTATIVE",
    "types_fit",
    "AnyInput",
    "Match",
    "Or",
    "Pattern",
    "Predicate",
    "WrapType",
    "any_input",
    "attrs_match",
    "constant",
    "consumers_count",
    "has_static_rank",
    "has_static_shape",
    "match",
    "or_",
    "rank_equals",
    "shape_matches",
    "type_matches",
    "value_matches",
]
