"""Tree ensembles of ``ai.onnx.ml`` (TreeEnsembleClassifier / TreeEnsembleRegressor
v1, v3; TreeEnsemble v5) as ov ops, matching onnxruntime's CPU kernels.

All trees are evaluated at once, one level per step: the state is the node
index ``[N, T]`` of every tree for every row; a level gathers each node's
feature id, threshold and children, compares, and picks the next node.
A leaf is its own child, so ``depth`` levels (the longest root-to-leaf path)
leave every tree at its leaf whatever the row; the leaves are numbered first
so the final index reads the ``[leaves, targets]`` weight table directly.
The graph has a fixed number of ops per level, not one per tree node.

Comparisons run in f32 for float / integer features and in f64 for double
features, as onnxruntime's kernels do (their threshold type is double only
for double inputs; ``*_as_tensor`` doubles are rounded to f32 otherwise).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
from xdsl.ir import SSAValue

from xmo.passes.onnx_to_ov.families._ml import (
    ML,
    compute_etype,
    const_like,
    features,
    first_argmax,
    float_list,
    greater,
    logistic,
    post_transform,
    reject_strings,
)
from xmo.passes.onnx_to_ov.registry import converter
from xmo.passes.to_ov.builder import Builder, ConverterNode

#: comparison outcomes, the columns of :attr:`Forest.goes_true`
_LT, _EQ, _NAN, _GT = range(4)

#: node mode -> whether the true branch is taken for x <, ==, NaN, > threshold
_MODES: dict[str, tuple[bool, bool, bool, bool]] = {
    "BRANCH_LEQ": (True, True, False, False),
    "BRANCH_LT": (True, False, False, False),
    "BRANCH_GTE": (False, True, False, True),
    "BRANCH_GT": (False, False, False, True),
    "BRANCH_EQ": (False, True, False, False),
    "BRANCH_NEQ": (True, False, True, True),
}
#: the comparison of a mode when every branch node has it: (ov op, x first);
#: x > t is t < x (see :func:`._ml.greater`: false for NaN, as in onnxruntime)
_COMPARE = {
    "BRANCH_LEQ": ("LessEqual", True),
    "BRANCH_LT": ("Less", True),
    "BRANCH_GTE": ("LessEqual", False),
    "BRANCH_GT": ("Less", False),
    "BRANCH_EQ": ("Equal", True),
    "BRANCH_NEQ": ("NotEqual", True),
}
#: TreeEnsemble-5's integer modes and aggregate / post-transform codes
_V5_MODES = ("BRANCH_LEQ", "BRANCH_LT", "BRANCH_GTE", "BRANCH_GT", "BRANCH_EQ", "BRANCH_NEQ", "BRANCH_MEMBER")
_V5_AGGREGATE = ("AVERAGE", "SUM", "MIN", "MAX")
#: onnxruntime (1.32) reads post_transform in its own enum order, where the
#: spec has 1 SOFTMAX, 2 LOGISTIC; the converter follows onnxruntime
_V5_POST = ("NONE", "LOGISTIC", "SOFTMAX", "SOFTMAX_ZERO", "PROBIT")


@dataclass
class Forest:
    """The trees as flat tables; nodes ``[0, n_leaves)`` are the leaves."""

    #: [T] node index of each tree's root
    roots: np.ndarray
    #: [M] feature id of each node (0 at leaves)
    feature: np.ndarray
    #: [M] threshold (0 at leaves), f32 or f64
    threshold: np.ndarray
    #: [M, 4] whether a node takes its true branch for x <, ==, NaN, > threshold
    goes_true: np.ndarray
    #: [M, 2] (false child, true child); a leaf is its own child
    children: np.ndarray
    n_leaves: int
    #: branch levels on the longest root-to-leaf path
    depth: int
    #: the ov comparison when one suffices (one mode, NaN never special), else None
    compare: tuple[str, bool] | None
    #: [M] position in ``roots`` of each node's tree
    tree_of: np.ndarray | None = None


def _keys(trees: np.ndarray, nodes: np.ndarray, span: int) -> np.ndarray:
    return trees.astype(np.int64) * span + nodes.astype(np.int64)


def build_forest(
    node: ConverterNode,
    tree_ids: np.ndarray,
    node_ids: np.ndarray,
    feature_ids: np.ndarray,
    modes: list[str],
    values: np.ndarray,
    true_ids: np.ndarray,
    false_ids: np.ndarray,
    missing_true: np.ndarray,
) -> tuple[Forest, Callable[[np.ndarray, np.ndarray], np.ndarray]]:
    """The :class:`Forest` of v1/v3 node attributes, and a function mapping
    (tree ids, node ids) to node indices (-1 for pairs that are no node)."""
    m = len(node_ids)
    if m == 0:
        raise node.unsupported("no tree nodes")
    for name, arr in (("nodes_treeids", tree_ids), ("nodes_featureids", feature_ids), ("nodes_values", values),
                      ("nodes_truenodeids", true_ids), ("nodes_falsenodeids", false_ids)):  # fmt: skip
        if len(arr) != m:
            raise node.unsupported(f"{name} has {len(arr)} entries for {m} nodes")
    unknown = sorted(set(modes) - set(_MODES) - {"LEAF"})
    if unknown:
        raise node.unsupported(f"node mode {unknown[0]}")
    is_leaf = np.array([md == "LEAF" for md in modes], dtype=bool)
    span = int(max(node_ids.max(), true_ids.max(), false_ids.max(), 0)) + 1
    keys = _keys(tree_ids, node_ids, span)
    order = np.argsort(keys, kind="stable")
    sorted_keys = keys[order]
    if len(np.unique(sorted_keys)) != m:
        raise node.unsupported("two nodes with the same (tree id, node id)")
    # leaves first: old position -> new index
    new_of = np.empty(m, dtype=np.int64)
    leaves, branches = np.flatnonzero(is_leaf), np.flatnonzero(~is_leaf)
    new_of[leaves] = np.arange(len(leaves))
    new_of[branches] = len(leaves) + np.arange(len(branches))

    def lookup(trees: np.ndarray, nodes: np.ndarray) -> np.ndarray:
        k = _keys(np.asarray(trees), np.asarray(nodes), span)
        pos = np.clip(np.searchsorted(sorted_keys, k), 0, m - 1)
        found = sorted_keys[pos] == k
        return np.where(found, new_of[order[pos]], -1)

    children = np.empty((m, 2), dtype=np.int64)
    children[new_of, 0] = lookup(tree_ids, false_ids)
    children[new_of, 1] = lookup(tree_ids, true_ids)
    leaf_new = new_of[leaves]
    children[leaf_new] = leaf_new[:, None]
    if (children < 0).any():
        raise node.unsupported("a branch node's child is not a node of its tree")

    feature = np.zeros(m, dtype=np.int64)
    feature[new_of] = np.where(is_leaf, 0, feature_ids)
    threshold = np.zeros(m, dtype=values.dtype)
    threshold[new_of] = np.where(is_leaf, 0, values)
    goes_true = np.zeros((m, 4), dtype=bool)
    goes_true[new_of] = np.array([_MODES.get(md, (False,) * 4) for md in modes], dtype=bool).reshape(m, 4)
    if len(missing_true):
        goes_true[new_of[missing_true.astype(bool) & ~is_leaf], _NAN] = True
    if (feature < 0).any():
        raise node.unsupported("negative feature id")

    # roots: each tree's first node in attribute order (as onnxruntime takes them)
    uniq, first = np.unique(tree_ids, return_index=True)
    order_of_first = np.argsort(first, kind="stable")
    roots = new_of[first[order_of_first]]
    rank = np.empty(len(uniq), dtype=np.int64)
    rank[order_of_first] = np.arange(len(uniq))
    tree_of = np.empty(m, dtype=np.int64)
    tree_of[new_of] = rank[np.searchsorted(uniq, tree_ids)]
    branch_modes = {md for md in modes if md != "LEAF"}
    compare = None
    if len(branch_modes) == 1:
        mode = branch_modes.pop()
        # a single comparison gives NaN the mode's own answer (only NEQ is true)
        if not (goes_true[len(leaves):, _NAN] != _MODES[mode][_NAN]).any():
            compare = _COMPARE[mode]
    elif not branch_modes:
        compare = ("LessEqual", True)
    forest = Forest(roots, feature, threshold, goes_true, children, len(leaves), 0, compare, tree_of)
    forest.depth = _depth(node, forest)
    return forest, lookup


def _depth(node: ConverterNode, f: Forest) -> int:
    frontier = np.unique(f.roots)
    depth = 0
    while True:
        frontier = frontier[frontier >= f.n_leaves]
        if frontier.size == 0:
            return depth
        depth += 1
        if depth > len(f.feature):
            raise node.unsupported("the trees have a cycle")
        frontier = np.unique(f.children[frontier].reshape(-1))


# -- evaluation -------------------------------------------------------------------


def _outcome(b: Builder, f: Forest, xv: SSAValue, t: SSAValue) -> tuple[SSAValue, int]:
    """(i64 ``[N, T]`` column of the next-node table, number of columns)."""
    if f.compare is not None:
        op, x_first = f.compare
        return b.convert(b.out(op, [xv, t] if x_first else [t, xv]), "i64"), 2
    # lt -> 0, eq -> 1, gt -> 3 (2 * (x > t) + (x >= t)), NaN -> 2
    gt = b.convert(greater(b, xv, t), "i64")
    ge = b.convert(greater(b, xv, t, or_equal=True), "i64")
    r = b.out("Add", [b.out("Multiply", [gt, b.i64(2)]), ge])
    branches = f.goes_true[f.n_leaves:]
    if (branches[:, _NAN] != branches[:, _LT]).any():
        r = b.out("Select", [b.out("IsNaN", [xv]), b.i64(2), r])
    return r, 4


def _next_table(f: Forest, width: int) -> np.ndarray:
    """Flat next-node table: entry ``node * width + outcome``."""
    if width == 2:
        return f.children.reshape(-1)
    cols = [_LT, _EQ, _NAN, _GT]
    return np.where(f.goes_true[:, cols], f.children[:, 1:2], f.children[:, 0:1]).reshape(-1)


def traverse(b: Builder, f: Forest, x: SSAValue, etype: str) -> SSAValue:
    """i64 ``[N, T]``: the leaf each row reaches in each tree."""
    zero = b.i64(0)
    roots = f.roots
    # level 0: the roots are constants
    if f.depth == 0:
        shape = b.concat([b.gather(b.shape_of(x), [0], 0), b.i64([len(roots)])], 0)
        return b.out("Broadcast", [b.i64(roots), shape], {"mode": "numpy"})
    xv = b.out("Gather", [x, b.i64(f.feature[roots]), b.i64(1)], {"batch_dims": 0})
    r, width = _outcome(b, f, xv, const_like(b, f.threshold[roots], etype))
    table = _next_table(f, width)
    # between levels the state is node * width: the tables are read at it
    # directly (feature and threshold repeated width times, next nodes scaled)
    # and the step adds the outcome; the last level reads unscaled next nodes
    last = b.i64(table)
    nxt = b.i64(table * width) if f.depth > 1 else last
    idx = b.out("Gather", [nxt, b.out("Add", [b.i64(roots * width), r]), zero], {"batch_dims": 0})
    if f.depth > 1:
        feature = b.i64(np.repeat(f.feature, width))
        threshold = const_like(b, np.repeat(f.threshold, width), etype)
    for level in range(1, f.depth):
        feat = b.out("Gather", [feature, idx, zero], {"batch_dims": 0})
        xv = b.out("Gather", [x, feat, b.i64(1)], {"batch_dims": 1})
        t = b.out("Gather", [threshold, idx, zero], {"batch_dims": 0})
        r, _ = _outcome(b, f, xv, t)
        idx = b.out("Gather", [last if level == f.depth - 1 else nxt, b.out("Add", [idx, r]), zero], {"batch_dims": 0})
    return idx


@dataclass
class LeafTable:
    """Leaf weights: ``weights[leaf, target]`` combined by the aggregate
    (zeros / +inf / -inf where a leaf has none), ``has[leaf, target]``."""

    weights: np.ndarray
    has: np.ndarray

    def always(self, k: int) -> bool | None:
        """Whether every leaf / no leaf has a weight for ``k`` (None: some do)."""
        col = self.has[:, k]
        if col.all():
            return True
        if not col.any():
            return False
        return None


def leaf_table(
    node: ConverterNode, f: Forest, leaf_nodes: np.ndarray, targets: np.ndarray, weights: np.ndarray,
    n_targets: int, aggregate: str, dtype: np.dtype,
) -> LeafTable:  # fmt: skip
    """The :class:`LeafTable` of weights ``weights`` of leaves ``leaf_nodes`` (node indices)."""
    if not (len(leaf_nodes) == len(targets) == len(weights)):
        raise node.unsupported("leaf weight attributes of different lengths")
    if len(targets) and (targets.min() < 0 or targets.max() >= n_targets):
        raise node.unsupported(f"a leaf weight's target/class id is outside [0, {n_targets})")
    if (leaf_nodes < 0).any():
        raise node.unsupported("a leaf weight names no node of its tree")
    keep = leaf_nodes < f.n_leaves  # weights on branch nodes are never reached
    rows, cols, w = leaf_nodes[keep], targets[keep], weights[keep].astype(dtype)
    fill = {"MIN": np.inf, "MAX": -np.inf}.get(aggregate, 0.0)
    table = np.full((f.n_leaves, n_targets), fill, dtype=dtype)
    if aggregate == "MIN":
        np.minimum.at(table, (rows, cols), w)
    elif aggregate == "MAX":
        np.maximum.at(table, (rows, cols), w)
    else:
        np.add.at(table, (rows, cols), w)
    has = np.zeros((f.n_leaves, n_targets), dtype=bool)
    has[rows, cols] = True
    if n_targets == 1:
        # onnxruntime's single-target path: every leaf has a weight, 0 when none is given
        table[~has] = 0
        has[:] = True
    return LeafTable(table, has)


def aggregate(
    b: Builder, f: Forest, leaves: SSAValue, table: LeafTable, kind: str, etype: str
) -> tuple[SSAValue, Reached]:
    """(``[N, K]`` aggregate of the reached leaves' weights, with 0 for
    targets no reached leaf has; which targets were reached)."""
    zero = b.i64(0)
    axis = b.i64([1])
    per_tree = _one_target_per_tree(f, table) if kind in ("SUM", "AVERAGE") else None
    if per_tree is not None:
        # each tree scores one target (gradient boosting): [N, T] leaf values
        # summed per target by a [T, K] one-hot MatMul
        values = table.weights[np.arange(f.n_leaves), table.has.argmax(1)]
        w = b.out("Gather", [const_like(b, values, etype), leaves, zero], {"batch_dims": 0})  # [N, T]
        s = b.out("MatMul", [w, const_like(b, per_tree, etype)], {"transpose_a": False, "transpose_b": False})
    else:
        w = b.out("Gather", [const_like(b, table.weights, etype), leaves, zero], {"batch_dims": 0})  # [N, T, K]
        reduce = {"SUM": "ReduceSum", "AVERAGE": "ReduceSum", "MIN": "ReduceMin", "MAX": "ReduceMax"}[kind]
        s = b.out(reduce, [w, axis], {"keep_dims": False})
    if kind == "AVERAGE":
        s = b.out("Divide", [s, b.scalar_like(float(len(f.roots)), s)])
    reached = Reached(b, table, leaves)
    if kind in ("MIN", "MAX"):
        # no weight reached: onnxruntime's score stays 0
        s = mask_unscored(b, s, reached)
    return s, reached


class Reached:
    """Which targets a reached leaf has a weight for: per target always,
    never, or by row (``[N, K]`` bool, built on first use)."""

    def __init__(self, b: Builder, table: LeafTable, leaves: SSAValue) -> None:
        self.b, self.table, self.leaves = b, table, leaves
        self.static = [table.always(k) for k in range(table.has.shape[1])]
        self._rows: SSAValue | None = None

    def rows(self) -> SSAValue:
        """``[N, K]`` bool: some reached leaf has a weight for the target."""
        if self._rows is None:
            b = self.b
            h = b.out("Gather", [b.const(self.table.has.astype(np.uint8), "u8"), self.leaves, b.i64(0)],
                      {"batch_dims": 0})  # fmt: skip
            self._rows = greater(b, b.out("ReduceMax", [h, b.i64([1])], {"keep_dims": False}), b.const(np.uint8(0), "u8"))
        return self._rows

    def mask(self, scored: np.ndarray | None = None) -> SSAValue | None:
        """The targets scored (a bool constant or ``[N, K]``), also counting
        the targets ``scored``; None when every target is scored."""
        always = np.array([a is True for a in self.static], dtype=bool)
        if scored is not None:
            always |= scored
        if always.all():
            return None
        mask = self.b.const(always, "boolean")
        if any(a is None for a, kept in zip(self.static, always) if not kept):
            mask = self.b.out("LogicalOr", [self.rows(), mask])
        return mask


def _one_target_per_tree(f: Forest, table: LeafTable) -> np.ndarray | None:
    """``[T, K]`` one-hot of the target of each tree when every leaf has
    exactly one weight and all leaves of a tree weigh the same target (and
    there are several targets), else None."""
    k = table.has.shape[1]
    if k < 2 or f.tree_of is None or not (table.has.sum(1) == 1).all():
        return None
    target = table.has.argmax(1)
    trees = f.tree_of[: f.n_leaves]
    per_tree = np.full(len(f.roots), -1, dtype=np.int64)
    per_tree[trees] = target
    if (per_tree[trees] != target).any() or (per_tree < 0).any():
        return None
    return np.eye(k, dtype=table.weights.dtype)[per_tree]


def mask_unscored(b: Builder, s: SSAValue, reached: Reached, scored: np.ndarray | None = None) -> SSAValue:
    """``s`` with 0 for the targets no reached leaf has a weight for
    (onnxruntime writes a score only where one was accumulated); ``scored``:
    targets that count as scored anyway (classes given a base value)."""
    mask = reached.mask(scored)
    return s if mask is None else b.out("Select", [mask, s, b.scalar_like(0.0, s)])


# -- attributes ---------------------------------------------------------------------


def _ints(node: ConverterNode, name: str) -> np.ndarray:
    return np.asarray(node.attr(name, None) or (), dtype=np.int64)


def _strs(node: ConverterNode, name: str) -> list[str]:
    return [v.decode() if isinstance(v, bytes) else str(v) for v in (node.attr(name, None) or ())]


def _forest_v3(node: ConverterNode, etype: str) -> tuple[Forest, Callable[[np.ndarray, np.ndarray], np.ndarray]]:
    values = float_list(node, "nodes_values", etype)
    if values is None:
        raise node.unsupported("no nodes_values")
    return build_forest(
        node,
        _ints(node, "nodes_treeids"),
        _ints(node, "nodes_nodeids"),
        _ints(node, "nodes_featureids"),
        _strs(node, "nodes_modes"),
        values,
        _ints(node, "nodes_truenodeids"),
        _ints(node, "nodes_falsenodeids"),
        _ints(node, "nodes_missing_value_tracks_true"),
    )


def _np_dtype(etype: str) -> np.dtype:
    return np.dtype(np.float64 if etype == "f64" else np.float32)


def _output_f32(b: Builder, v: SSAValue) -> SSAValue:
    return b.convert(v, "f32")


# -- TreeEnsembleRegressor ------------------------------------------------------------


@converter("TreeEnsembleRegressor", domain=ML, min_version=1, max_version=4)
def tree_ensemble_regressor(node: ConverterNode, b: Builder):
    etype = compute_etype(node)
    forest, lookup = _forest_v3(node, etype)
    n_targets = int(node.attr("n_targets", 1) or 1)
    kind = node.str_attr("aggregate_function", "SUM") or "SUM"
    if kind not in ("SUM", "AVERAGE", "MIN", "MAX"):
        raise node.unsupported(f"aggregate_function {kind}")
    weights = float_list(node, "target_weights", etype)
    table = leaf_table(
        node, forest, lookup(_ints(node, "target_treeids"), _ints(node, "target_nodeids")),
        _ints(node, "target_ids"), np.zeros(0) if weights is None else weights, n_targets, kind,
        _np_dtype(etype),
    )  # fmt: skip
    x = features(node, b, etype)
    leaves = traverse(b, forest, x, etype)
    s, reached = aggregate(b, forest, leaves, table, kind, etype)
    base = float_list(node, "base_values", etype)
    if base is not None and len(base) == n_targets:
        s = b.out("Add", [s, const_like(b, base, etype)])
    post = node.str_attr("post_transform", "NONE") or "NONE"
    if n_targets == 1:
        # onnxruntime's single-target path adds the base value even where no
        # weight was reached, and applies PROBIT only
        if post == "PROBIT":
            s = post_transform(node, b, s, post)
    else:
        s = post_transform(node, b, mask_unscored(b, s, reached), post)
    return _output_f32(b, s)


# -- TreeEnsembleClassifier -------------------------------------------------------------


@converter("TreeEnsembleClassifier", domain=ML, min_version=1, max_version=4)
def tree_ensemble_classifier(node: ConverterNode, b: Builder):
    reject_strings(node, "classlabels_strings")
    labels = _ints(node, "classlabels_int64s")
    n_classes = len(labels)
    if n_classes < 2:
        raise node.unsupported(f"{n_classes} class labels")
    etype = compute_etype(node)
    forest, lookup = _forest_v3(node, etype)
    class_ids = _ints(node, "class_ids")
    weights = float_list(node, "class_weights", etype)
    weights = np.zeros(0, _np_dtype(etype)) if weights is None else weights
    table = leaf_table(
        node, forest, lookup(_ints(node, "class_treeids"), _ints(node, "class_nodeids")), class_ids, weights,
        n_classes, "SUM", _np_dtype(etype),
    )  # fmt: skip
    base = float_list(node, "base_values", etype)
    base = np.zeros(0, _np_dtype(etype)) if base is None else base
    post = node.str_attr("post_transform", "NONE") or "NONE"
    x = features(node, b, etype)
    leaves = traverse(b, forest, x, etype)
    s, reached = aggregate(b, forest, leaves, table, "SUM", etype)
    label_values = b.i64(labels)
    if n_classes > 2:
        return _multiclass(node, b, s, reached, table, base, labels, post, etype)
    single = len(set(class_ids.tolist())) == 1
    all_positive = bool((weights >= 0).all())
    return _binary(node, b, s, reached, table, base, label_values, post, etype, single, all_positive)


def _multiclass(node, b, s, reached, table, base, labels, post, etype):  # noqa: ANN001, ANN202
    n = len(labels)
    if len(base):
        padded = np.zeros(n, base.dtype)
        padded[: min(len(base), n)] = base[:n]
        s = b.out("Add", [s, const_like(b, padded, etype)])
    # only classes some reached leaf (or a base value) scores take part in the argmax
    with_base = np.zeros(n, dtype=bool)
    with_base[: len(base)] = True
    mask = reached.mask(with_base)
    scored = s if mask is None else b.out("Select", [mask, s, b.scalar_like(-np.inf, s)])
    label = b.gather(b.i64(labels), first_argmax(b, scored), 0)
    return [label, _output_f32(b, post_transform(node, b, s, post))]


def _column(b: Builder, s: SSAValue, k: int) -> SSAValue:
    return b.gather(s, [k], 1)  # [N, 1]


def _full(b: Builder, v: SSAValue, like: SSAValue) -> SSAValue:
    """``v`` (``[N, 1]`` or a scalar) as ``[N, 1]``."""
    if v.type == like.type:
        return v
    return b.out("Broadcast", [v, b.shape_of(like)], {"mode": "numpy"})


def _binary(node, b, s, reached, table, base, labels, post, etype, single, all_positive):  # noqa: ANN001, ANN202, PLR0913
    """onnxruntime's two-class rules: one score or two, the label from the
    "positive" score, and the single score widened to two columns by the
    sign of the weights (TreeAggregatorClassifier)."""
    has0, has1 = table.always(0), table.always(1)
    if has1 is None:
        raise node.unsupported("class 1 has weights on some leaves only (onnxruntime's output width varies by row)")
    s0, s1 = _column(b, s, 0), _column(b, s, 1)
    two = has1
    if len(base) == 2:
        if has1:
            p1 = b.out("Add", [s0, b.scalar_like(float(base[1]), s0)])
            p0 = b.out("Negative", [p1])
        else:
            p0 = b.out("Add", [s0, b.scalar_like(float(base[0]), s0)])
            p1 = b.out("Add", [s1, b.scalar_like(float(base[1]), s1)])
            two = True
    elif len(base) == 1:
        p0 = b.out("Add", [s0, b.scalar_like(float(base[0]), s0)])
        p1 = s1
    else:
        p0, p1 = s0, s1
    # onnxruntime writes 0 for a class no reached leaf scored
    zero = b.scalar_like(0.0, s0)
    if has0 is True:
        m0 = p0
    elif has0 is False:
        m0 = zero
    else:
        m0 = b.out("Select", [_column(b, reached.rows(), 0), p0, zero])
    m1 = p1 if has1 else zero
    pos = p1 if has1 else m0
    if single:
        cut = 0.5 if all_positive else 0.0
        positive = greater(b, pos, b.scalar_like(cut, pos))
        label = b.out("Select", [positive, b.gather(labels, [1], 0), b.gather(labels, [0], 0)])
    else:
        positive = greater(b, pos, zero)
        label = b.out("Select", [positive, b.i64([1]), b.i64([0])])
    label = b.reshape(label, [-1])
    if two:
        z = post_transform(node, b, b.concat([_full(b, m0, s0), _full(b, m1, s0)], 1), post)
        return [label, _output_f32(b, z)]
    # one score, written as two columns
    if post == "PROBIT":
        raise node.unsupported("PROBIT of a single binary score (onnxruntime writes one of two columns)")
    sc = _full(b, m0, s0)
    if not single and len(base) == 1:
        raise node.unsupported(
            "a single binary score with one base value and two class ids (onnxruntime writes one of two columns)"
        )
    if post == "LOGISTIC":
        z = b.concat([logistic(b, b.out("Negative", [sc])), logistic(b, sc)], 1)
    elif single and all_positive:  # a probability: (1 - p, p)
        z = b.concat([b.out("Subtract", [b.scalar_like(1.0, sc), sc]), sc], 1)
    else:  # a margin: (-s, s)
        z = b.concat([b.out("Negative", [sc]), sc], 1)
    return [label, _output_f32(b, z)]


# -- TreeEnsemble (v5) ----------------------------------------------------------------------


def _forest_v5(node: ConverterNode, etype: str) -> tuple[Forest, np.ndarray, np.ndarray]:
    """The :class:`Forest` of TreeEnsemble-5 attributes, and the target id
    and weight of each of its leaves (leaf ``k`` is node ``k``).

    A BRANCH_MEMBER node becomes a chain of EQ nodes, one per set member
    (its ``membership_values`` segment, NaN-terminated): the first match
    takes the true branch, the last miss the false one."""
    splits = node.tensor_attr("nodes_splits")
    if splits is None:
        raise node.unsupported("no nodes_splits")
    splits = np.asarray(splits).reshape(-1).astype(_np_dtype(etype))
    modes_t = node.tensor_attr("nodes_modes")
    modes = np.asarray(modes_t if modes_t is not None else (), dtype=np.int64).reshape(-1)
    feats = _ints(node, "nodes_featureids")
    true_ids, false_ids = _ints(node, "nodes_truenodeids"), _ints(node, "nodes_falsenodeids")
    true_leaf = _ints(node, "nodes_trueleafs").astype(bool)
    false_leaf = _ints(node, "nodes_falseleafs").astype(bool)
    missing = _ints(node, "nodes_missing_value_tracks_true")
    targets = _ints(node, "leaf_targetids")
    weights_t = node.tensor_attr("leaf_weights")
    weights = np.asarray(weights_t if weights_t is not None else (), dtype=_np_dtype(etype)).reshape(-1)
    roots_in = _ints(node, "tree_roots")
    n = len(splits)
    if not (len(modes) == len(feats) == len(true_ids) == len(false_ids) == len(true_leaf) == len(false_leaf) == n):
        raise node.unsupported("node attributes of different lengths")
    if (modes < 0).any() or (modes >= len(_V5_MODES)).any():
        raise node.unsupported("unknown node mode")
    n_leaves = len(targets)
    members_t = node.tensor_attr("membership_values")
    members = np.asarray(members_t if members_t is not None else (), dtype=np.float64).reshape(-1)
    # leaves [0, L), nodes [L, L + n), then the extra EQ nodes of member chains
    feature = list(np.zeros(n_leaves, np.int64)) + list(feats)
    threshold = list(np.zeros(n_leaves)) + list(splits)
    rules = [(False,) * 4] * n_leaves + [_MODES[_V5_MODES[m]] if _V5_MODES[m] in _MODES else (False,) * 4 for m in modes]
    nan_true = [False] * n_leaves + [bool(missing[i]) if len(missing) else False for i in range(n)]
    falses = list(range(n_leaves)) + [int(f) if fl else n_leaves + int(f) for f, fl in zip(false_ids, false_leaf)]
    trues = list(range(n_leaves)) + [int(t) if tl else n_leaves + int(t) for t, tl in zip(true_ids, true_leaf)]
    segments = np.split(members, np.flatnonzero(np.isnan(members)) + 1) if len(members) else []
    seg = iter(segments)
    for i in np.flatnonzero(modes == _V5_MODES.index("BRANCH_MEMBER")):
        values = next(seg, np.zeros(0))
        values = values[~np.isnan(values)]
        if len(values) == 0:
            raise node.unsupported("a BRANCH_MEMBER node without set members")
        k = n_leaves + int(i)
        final_false = falses[k]
        for j, v in enumerate(values):
            rules[k] = _MODES["BRANCH_EQ"]
            threshold[k] = v
            if j + 1 < len(values):
                nxt = len(feature)
                feature.append(feature[k])
                threshold.append(0.0)
                rules.append(_MODES["BRANCH_EQ"])
                nan_true.append(nan_true[k])
                trues.append(trues[k])
                falses.append(final_false)
                falses[k] = nxt
                k = nxt
    m = len(feature)
    goes_true = np.array(rules, dtype=bool).reshape(m, 4)
    goes_true[np.array(nan_true, dtype=bool), _NAN] = True
    goes_true[:n_leaves] = False
    children = np.stack([np.array(falses, np.int64), np.array(trues, np.int64)], 1)
    if (children < 0).any() or (children >= m).any():
        raise node.unsupported("a child index outside the nodes / leaves")
    # a tree that is a leaf: root with both branches to the same leaf
    roots = np.array(
        [int(true_ids[r]) if true_leaf[r] and false_leaf[r] and true_ids[r] == false_ids[r] else n_leaves + int(r)
         for r in roots_in], dtype=np.int64)  # fmt: skip
    branches = goes_true[n_leaves:]
    compare = None
    for name, rule in _MODES.items():
        if (branches == np.array(rule)).all():
            compare = _COMPARE[name]
    forest = Forest(roots, np.array(feature, np.int64), np.array(threshold, dtype=_np_dtype(etype)), goes_true,
                    children, n_leaves, 0, compare, _tree_of(roots, children, n_leaves, m))  # fmt: skip
    forest.depth = _depth(node, forest)
    return forest, targets, weights


def _tree_of(roots: np.ndarray, children: np.ndarray, n_leaves: int, m: int) -> np.ndarray:
    """[M] position in ``roots`` of each node's tree (-1: reached from none)."""
    tree_of = np.full(m, -1, dtype=np.int64)
    for t, r in enumerate(roots):
        frontier = np.array([r])
        while frontier.size:
            tree_of[frontier] = t
            frontier = frontier[frontier >= n_leaves]
            frontier = np.unique(children[frontier].reshape(-1))
            frontier = frontier[tree_of[frontier] != t]
    return tree_of


@converter("TreeEnsemble", domain=ML, min_version=5)
def tree_ensemble(node: ConverterNode, b: Builder):
    etype = "f64" if node.etype(0) == "f64" else "f32"
    out_type = node.etype(0)
    forest, targets, weights = _forest_v5(node, etype)
    n_targets = int(node.attr("n_targets", 1) or 1)
    agg_code = int(node.attr("aggregate_function", 1))
    post_code = int(node.attr("post_transform", 0))
    if not (0 <= agg_code < len(_V5_AGGREGATE)) or not (0 <= post_code < len(_V5_POST)):
        raise node.unsupported("unknown aggregate_function / post_transform")
    kind, post = _V5_AGGREGATE[agg_code], _V5_POST[post_code]
    table = leaf_table(node, forest, np.arange(len(targets)), targets, weights, n_targets, kind, _np_dtype(etype))
    x = features(node, b, etype)
    leaves = traverse(b, forest, x, etype)
    s, reached = aggregate(b, forest, leaves, table, kind, etype)
    if n_targets == 1:
        if post == "PROBIT":
            s = post_transform(node, b, s, post)
    else:
        s = post_transform(node, b, mask_unscored(b, s, reached), post)
    return b.convert(s, out_type)
