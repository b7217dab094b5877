"""Attention fusion (``sdpa-fusion``).

``MatMul(Softmax(scores [+ mask]), V)`` with
``scores = MatMul(Q [* a], K^T [* b]) [* c | / c]`` -> ``ScaledDotProductAttention(
Q, K, V, mask, a * b * c)`` (opset13). ``a``, ``b``, ``c`` are scalar float
constants, each optional (exporters scale the scores, or Q and K by the square
root of the scale each; the Divide spellings are matched too). K^T is the
first MatMul's second input, or K itself with ``transpose_b``; a Transpose
producing K^T takes the order that yields K instead (nothing when that order
is the identity), any other K^T gets a Transpose swapping its last two axes.

The mask:

* ``Add(scores, mask)``: the mask (a float tensor of the scores' element type
  that broadcasts to the scores without enlarging them) becomes the
  ``attention_mask`` input;
* ``Select(C, scores, fill)`` with ``C`` a boolean constant holding a
  lower-triangular ``[L, S]`` matrix (leading dims 1) and ``fill`` -inf or the
  lowest finite value of the type -> ``causal=true`` (OpenVINO masks the upper
  triangle ``j > i`` with -inf; a finite lowest value gives the same softmax
  as long as some score of the row is unmasked, which the diagonal always is);
* no mask: a scalar zero ``attention_mask`` (to pass the scale).

Only when the semantics are the op's: Softmax on the last axis, Q, K, V of
one floating element type and one rank >= 3, ``transpose_a`` false on both
MatMuls and ``transpose_b`` false on the second, and the scores, their
scaling, mask and Softmax read by nothing else. A scale applied after the mask,
a non-constant scale, or a Softmax on another axis is left alone. The
reshapes and transposes that split heads around Q, K, V stay as they are.
"""

from __future__ import annotations

import numpy as np
from xmo.graph import Node, Port
from xmo.passes.ov_fusions.common import FLOATS, ONE, fuse_chain, scalar_of
from xmo.passes.transformations import (
    Match,
    MatcherPass,
    any_input,
    attrs_match,
    constant,
    or_,
    type_matches,
    value_matches,
    wrap_type,
)
from xmo.passes.transpose_sinking.permutations import is_identity, transpose_order


_SCALAR = value_matches(
    lambda a: a.size == 1 and a.dtype.kind == "f" and bool(np.isfinite(a).all()) and bool((a != 0).all())
)


def _scaled(x, scale: str, label: str | None = None):
    """``x * s``, ``x / s`` (``s`` a scalar constant labelled ``scale`` /
    ``scale_div``) or ``x``."""
    return or_(
        wrap_type("Multiply", [x, constant(_SCALAR, label=scale)], ONE),
        wrap_type("Divide", [x, constant(_SCALAR, label=f"{scale}_div")], ONE),
        x,
        label=label,
    )


def _scale(m: Match) -> float:
    """The product of the matched scales (a Divide contributes its inverse)."""
    s = 1.0
    for label in ("q_scale", "k_scale", "s_scale"):
        if label in m:
            s *= scalar_of(m[label])
        if f"{label}_div" in m:
            s /= scalar_of(m[f"{label}_div"])
    return s


def _causal_mask(m: Match, scores_shape: list[int]) -> bool:
    """The Select's condition is a lower-triangular [L, S] boolean constant and
    its fill -inf or the type's lowest value."""
    cond = m["cond"].data.get_value()
    fill = m["fill"].data.get_value()
    if cond is None or fill is None or cond.dtype != np.bool_ or cond.ndim < 2 or fill.size != 1:
        return False
    n_l, n_s = scores_shape[-2], scores_shape[-1]
    if n_l < 0 or n_s < 0 or cond.shape[-2:] != (n_l, n_s) or any(d != 1 for d in cond.shape[:-2]):
        return False
    if cond.ndim > len(scores_shape):
        return False
    if not np.array_equal(cond.reshape(n_l, n_s), np.tri(n_l, n_s, dtype=np.bool_)):
        return False
    f = fill.reshape(-1)[0]
    return bool(f == -np.inf or f == np.finfo(fill.dtype).min)


class SDPAFusion(MatcherPass):
    name = "sdpa-fusion"

    def pattern(self):
        q = any_input(type_matches(*FLOATS), label="q")
        k = any_input(label="k")
        no_ta = attrs_match(transpose_a=False)
        scores = wrap_type(
            "MatMul", [_scaled(q, "q_scale"), _scaled(k, "k_scale")], ONE & no_ta, label="scores"
        )
        scaled = _scaled(scores, "s_scale", label="scaled")
        masked = or_(
            wrap_type("Add", [scaled, any_input(label="mask")], ONE, label="add"),
            wrap_type(
                "Select", [constant(label="cond"), scaled, constant(label="fill")], ONE,
                label="select",
            ),
            label="masked",
        )
        softmax = wrap_type("Softmax", [or_(masked, scaled)], ONE, label="softmax")
        return wrap_type(
            "MatMul", [softmax, any_input(label="v")], no_ta & attrs_match(transpose_b=False)
        )

    def callback(self, m: Match) -> bool:
        q, k, v = m["q"], m["k"], m["v"]
        etype = q.data.get_element_type()
        shapes = [p.data.get_shape() for p in (q, k, v)]
        scores = m["scores"].data.get_shape()
        if etype not in _DTYPES or any(s is None for s in shapes) or scores is None:
            return False
        rank = len(shapes[0])
        if rank < 3 or any(len(s) != rank for s in shapes) or len(scores) != rank:
            return False
        if any(p.data.get_element_type() != etype for p in (k, v)):
            return False
        if int(m.node("softmax").get("axis", 1)) % rank != rank - 1:
            return False
        dtype = np.dtype(_DTYPES[etype])
        # the mask must not enlarge the scores
        if "masked" in m and m["masked"].data.get_type() != m["scaled"].data.get_type():
            return False
        causal = False
        mask_in = np.zeros((), dtype)
        if "add" in m:
            mask = m["mask"]
            ms = mask.data.get_shape()
            if mask.data.get_element_type() != etype or ms is None or not _mask_fits(ms, scores):
                return False
            mask_in = mask
        elif "select" in m:
            if not _causal_mask(m, scores):
                return False
            causal = True
        fused = m.nodes()
        chain = []
        key = k
        if m.node("scores").get("transpose_b", False) is not True:
            key, chain = self._untranspose(m, k, rank)
            if k.node.type == "Transpose" and len(k.get_destinations()) == 1:
                fused.append(k.node)  # replaced by the new order
        sdpa = m.graph.create_node(
            "ScaledDotProductAttention",
            [q, key, v, mask_in, np.asarray(_scale(m), dtype)],
            {"causal": causal},
        )
        return fuse_chain(m.root, [*chain, sdpa], fused)

    @staticmethod
    def _untranspose(m: Match, kt: Port, rank: int) -> tuple[Port, list[Node]]:
        """K from K^T: (value, new nodes)."""
        swap = list(range(rank))
        swap[-2], swap[-1] = swap[-1], swap[-2]
        order = transpose_order(kt.node.op) if kt.node.type == "Transpose" else None
        if order is not None:
            order = tuple(order[i] for i in swap)
            src = kt.node.in_port(0).get_source()
            if is_identity(order):
                return src, []
            t = m.graph.create_node("Transpose", [src, np.asarray(order, np.int64)])
            return t.out_port(0), [t]
        t = m.graph.create_node("Transpose", [kt, np.asarray(swap, np.int64)])
        return t.out_port(0), [t]


#: element types the fusion handles (numpy has no bf16 scalar to hold the scale)
_DTYPES = {"f32": "float32", "f16": "float16", "f64": "float64"}


def _mask_fits(mask: list[int], scores: list[int]) -> bool:
    """Each (right-aligned) mask dim is 1, dynamic, or the scores' dim."""
    for d, s in zip(reversed(mask), reversed(scores)):
        if d != 1 and d >= 0 and s >= 0 and d != s:
            return False
    return True
