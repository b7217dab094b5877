"""Shape sub-graphs computed once per shape signature.

Models with dynamic dimensions compute their shapes on every call:
``ShapeOf`` of a tensor, then Gather, Concat, Unsqueeze, Range, Broadcast...
of those shapes and of constants (a third of the steps of an exported
transformer). Such a step's outputs depend only on the *shapes* of the
tensors the ``ShapeOf`` ops read (its *leaves*), never on tensor values.

:func:`memoize_shape_subgraphs` groups those steps by their last leaf (the
``ShapeOf`` whose input becomes available last) into one :class:`ShapeBlock`
step at that ``ShapeOf``'s place. A block runs its steps with their own
kernels the first time a shape signature (the shapes of its leaves) comes in
and returns the same read-only arrays afterwards. Only the deterministic ops
of :data:`SHAPE_OPS` (as in :mod:`.folding`, their own ``ov`` kernels, not
ops with bodies or state) join; an op whose result is a model output stays
a step of its own. The unfused schedule (run with an observer) keeps every
op.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from xmo.backends.cpu.folding import FOLDABLE
from xmo.backends.cpu.node import KernelCall, KernelNode, call_named, checked_outputs

#: op types a shape sub-graph may contain (deterministic, no state, no bodies)
SHAPE_OPS = FOLDABLE | frozenset({
    "ShapeOf", "Gather", "GatherElements", "GatherND", "Range", "Slice", "StridedSlice", "Split", "VariadicSplit",
    "Select", "Equal", "NotEqual", "Less", "LessEqual", "Greater", "GreaterEqual",
    "LogicalAnd", "LogicalOr", "LogicalNot", "LogicalXor", "Maximum", "Minimum",
    "FloorMod", "Mod", "Floor", "Ceiling", "Abs", "Negative", "Power",
    "ReduceProd", "ReduceSum", "ReduceMax", "ReduceMin", "Tile", "ScatterUpdate",
    "ScatterNDUpdate", "ScatterElementsUpdate",
})

#: shape signatures a block remembers (then it starts over)
MAX_SIGNATURES = 8


class ShapeBlock:
    """One step running a shape sub-graph, memoized by its leaves' shapes.

    Called as ``block(node, x, *leaf_shapes, *others)``: ``x`` is the tensor
    the block's own ``ShapeOf`` reads, ``leaf_shapes`` (``n_keys`` arrays) the
    outputs of the earlier ``ShapeOf`` ops its steps depend on, ``others``
    the values of earlier blocks they use. Returns the values of ``out_slots``.
    """

    step_type = "ShapeSubgraph"

    def __init__(self, members: list[KernelCall], in_slots: tuple[int, ...], n_keys: int,
                 out_slots: tuple[int, ...], consts: Mapping[int, np.ndarray]) -> None:
        self.members = members
        self.ops = [m[0].op for m in members]
        self.in_slots = in_slots
        self.n_keys = n_keys
        self.out_slots = out_slots
        used = {a for m in members for a in m[2]}
        self.consts = {s: consts[s] for s in used if s in consts}
        self.memo: dict[tuple[Any, ...], tuple[np.ndarray, ...]] = {}

    def __call__(self, node: KernelNode, x: np.ndarray, *rest: np.ndarray) -> tuple[np.ndarray, ...]:
        key = (x.shape, *[rest[i].tobytes() for i in range(self.n_keys)])
        hit = self.memo.get(key)
        if hit is None:
            hit = self._compute((x, *rest))
            if len(self.memo) >= MAX_SIGNATURES:
                self.memo.clear()
            self.memo[key] = hit
        return hit

    def _compute(self, inputs: tuple[np.ndarray, ...]) -> tuple[np.ndarray, ...]:
        env: dict[int, Any] = dict(self.consts)
        env.update(zip(self.in_slots, inputs))
        for node, kernel, args, outs in self.members:
            res = call_named(node, kernel, node, *[env[a] for a in args])
            env.update(zip(outs, checked_outputs(node, res)))
        values = []
        for s in self.out_slots:
            arr = env[s]
            if arr.flags.writeable:  # shared by every later call: never updated in place
                arr = arr.view()
                arr.flags.writeable = False
            values.append(arr)
        return tuple(values)


def _block_node(shape_of: KernelNode, n_outputs: int) -> KernelNode:
    """The block step's node: the ``ShapeOf``'s op and name, ``n_outputs``
    outputs its members already cast and checked."""
    node = KernelNode(shape_of.op)
    node.out_etypes = [None] * n_outputs
    node.out_dtypes = [None] * n_outputs
    node.out_shapes = [None] * n_outputs
    node.one_output = None
    return node


def _is_shape_op(node: KernelNode) -> bool:
    return node.type in SHAPE_OPS and node.op.name in (f"ov.{node.type}", f"ov.{node.type}_opset1") \
        and not node.op.regions


def memoize_shape_subgraphs(
    steps: list[KernelCall],
    consts: Mapping[int, np.ndarray],
    keep: set[int],
) -> list[KernelCall]:
    """``steps`` with each shape sub-graph (see the module doc) replaced by
    :class:`ShapeBlock` steps, one per ``ShapeOf`` that ends a group of
    more than one step. ``keep``: slots that stay plain steps' outputs (model
    outputs)."""
    leaves_of: dict[int, frozenset[int]] = {}  # derived slot -> its ShapeOf steps
    group: dict[int, list[int]] = {}  # ShapeOf step -> member steps (in order)
    for i, (node, _, args, outs) in enumerate(steps):
        if not outs or any(o in keep for o in outs) or not _is_shape_op(node):
            continue
        if node.type == "ShapeOf":
            if len(args) != 1:
                continue
            leaves = frozenset((i,))
        else:
            if not args or not all(a in consts or a in leaves_of for a in args):
                continue
            found = [leaves_of[a] for a in args if a in leaves_of]
            if not found:
                continue
            leaves = frozenset().union(*found)
        for o in outs:
            leaves_of[o] = leaves
        group.setdefault(max(leaves), []).append(i)

    member_of = {i: t for t, ms in group.items() if len(ms) > 1 for i in ms}
    plans: dict[int, tuple[list[KernelCall], list[int], list[int]]] = {}
    key_use: set[int] = set()  # ShapeOf outputs keying a block
    for t, ms in group.items():
        if len(ms) < 2:
            continue
        members = [steps[i] for i in ms]
        produced = {o for m in members for o in m[3]}
        leaves = frozenset().union(*(leaves_of[o] for m in members for o in m[3]))
        # key inputs: this ShapeOf's tensor, then the earlier ShapeOf outputs
        key_slots = [steps[leaf][3][0] for leaf in sorted(leaves) if leaf != t]
        others = sorted({a for m in members for a in m[2]
                         if a not in produced and a not in consts and a not in key_slots})
        plans[t] = (members, key_slots, others)
        key_use.update(key_slots)
    blocks: dict[int, KernelCall] = {}
    for t, (members, key_slots, others) in plans.items():
        # every member's output read by a step outside the block or keying one
        outside = key_use | {a for j, (_, _, args, _) in enumerate(steps)
                             if member_of.get(j) != t for a in args}
        out_slots = tuple(o for m in members for o in m[3] if o in outside)
        if not out_slots:  # nothing reads it: the steps stay (and die young)
            continue
        in_slots = (steps[t][2][0], *key_slots, *others)
        block = ShapeBlock(members, in_slots, len(key_slots), out_slots, consts)
        blocks[t] = (_block_node(steps[t][0], len(out_slots)), block, in_slots, out_slots)
    out: list[KernelCall] = []
    for i, st in enumerate(steps):
        if i in blocks:
            out.append(blocks[i])
        elif member_of.get(i) not in blocks:
            out.append(st)
    return out
