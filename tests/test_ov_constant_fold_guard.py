"""``ov-constant-fold``'s size guard: a big Broadcast / Tile of a small
constant stays an op, unless it is asked for (``max_growth=0``) or the result
is only read as weights (then it is stored as a Constant anyway)."""

from __future__ import annotations

from collections import Counter

import numpy as np
from ov_graphs import G
from xmo import compile_model
from xmo.passes.ov_constant_fold import OVConstantFoldPass


def _counts(m) -> Counter:
    return Counter(o.name.removeprefix("ov.") for o in m.body.block.ops)


def _big_broadcast(g: G) -> object:
    return g.op("Broadcast", [g.const(np.float32(0.5)), g.i64([512, 1024])])


def test_big_broadcast_stays_an_op() -> None:
    g = G()
    x = g.param([512, 1024], "x")
    g.result(g.op("Add", [x, _big_broadcast(g)]), "y")
    m = g.module()
    OVConstantFoldPass().apply(g.ctx, m)
    assert _counts(m)["Broadcast"] == 1


def test_big_broadcast_folds_when_asked() -> None:
    g = G()
    x = g.param([512, 1024], "x")
    g.result(g.op("Add", [x, _big_broadcast(g)]), "y")
    m = g.module()
    OVConstantFoldPass(max_growth=0).apply(g.ctx, m)
    assert _counts(m)["Broadcast"] == 0


def test_small_broadcast_folds() -> None:
    g = G()
    x = g.param([4, 8], "x")
    b = g.op("Broadcast", [g.const(np.float32(0.5)), g.i64([4, 8])])
    g.result(g.op("Add", [x, b]), "y")
    m = g.module()
    OVConstantFoldPass().apply(g.ctx, m)
    assert _counts(m)["Broadcast"] == 0


def test_big_broadcast_read_as_weights_folds() -> None:
    """ConstantFill-made weights (the ONNX light models) become Constants."""
    g = G()
    x = g.param([1, 1024], "x")
    w = g.op("Transpose", [_big_broadcast(g), g.i64([1, 0])])
    g.result(g.op("MatMul", [x, w]), "y")
    m = g.module()
    feeds = g.feeds()
    before = compile_model(m.clone())(feeds)
    OVConstantFoldPass().apply(g.ctx, m)
    c = _counts(m)
    assert c["Broadcast"] == 0 and c["Transpose"] == 0 and c["MatMul"] == 1
    np.testing.assert_allclose(compile_model(m)(feeds)[0], before[0], rtol=1e-5)
