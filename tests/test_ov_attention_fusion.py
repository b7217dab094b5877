"""``sdpa-fusion`` (passes/ov_fusions/attention.py): attention written as
MatMul / scale / mask / Softmax / MatMul becomes ``ScaledDotProductAttention``.

Each positive graph runs on xmo's CPU backend before and after the pass (same
outputs) and, fused, in OpenVINO (the kernel and the fusion agree with
OpenVINO's op); near misses keep their Softmax.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pytest
from ov_graphs import G, check_pass
from tf_graphs import run_in_openvino
from xdsl.dialects.builtin import ModuleOp
from xmo import compile_model
from xmo.dialects.ov.base import constant_value_of
from xmo.graph.rt_info import get_fused_names, set_fused_names
from xmo.passes.ov_fusions import OVFusionsPass

B, H, L, S, E = 2, 3, 5, 5, 8
FUSED = {"ScaledDotProductAttention": 1, "Softmax": 0, "MatMul": 0}
UNFUSED = {"ScaledDotProductAttention": 0, "Softmax": 1}


def _c(g: G, v: float) -> Any:
    return g.const(np.float32(v))


def _sdpa(m: ModuleOp) -> Any:
    return next(o for o in m.body.block.ops if o.name == "ov.ScaledDotProductAttention")


def _scale_of(op: Any) -> float:
    return float(constant_value_of(op.operands[4]))


def _run(g: G, expect: dict[str, int], tmp_path=None) -> ModuleOp:
    """Fuse; with ``tmp_path``, also check OpenVINO computes what xmo's CPU backend does."""
    m = check_pass(g, OVFusionsPass(), expect, rtol=1e-4, atol=1e-5)
    if tmp_path is not None:
        feeds = dict(zip(g.params, g.feeds()))
        want = compile_model(m.clone())(list(feeds.values()))
        got = run_in_openvino(m, feeds, tmp_path)
        for (_, y), x in zip(got, want):
            np.testing.assert_allclose(y, np.asarray(x), rtol=1e-4, atol=1e-5)
    return m


def _qkv(g: G, l_len: int = L, s_len: int = S) -> tuple[Any, Any, Any]:
    return (
        g.param([B, H, l_len, E], "q"),
        g.param([B, H, s_len, E], "k"),
        g.param([B, H, s_len, E], "v"),
    )


def _attention(g: G, scores: Any, v: Any, axis: int = -1) -> None:
    w = g.op("Softmax", [scores], {"axis": axis}, name="softmax")
    g.result(g.op("MatMul", [w, v], name="attn", names=["attn_out"]), "attn_out")
    for op in g.ops:  # as ov-init-node-info records them
        if op.name not in ("ov.Parameter", "ov.Constant", "ov.Result") and op.get_friendly_name():
            set_fused_names(op, [op.get_friendly_name()])


@pytest.mark.parametrize("form", ["scores_mul", "scores_div", "q_and_k", "none"])
def test_sdpa_scale_forms(form: str, tmp_path) -> None:
    """ViT / Whisper / BERT write sqrt(scale) on Q and on K^T; others scale the scores."""
    g = G()
    q, k, v = _qkv(g)
    kt = g.T(k, [0, 1, 3, 2])
    if form == "q_and_k":
        r = math.sqrt(1 / math.sqrt(E))
        q, kt = g.op("Multiply", [q, _c(g, r)]), g.op("Multiply", [kt, _c(g, r)])
    s = g.op("MatMul", [q, kt], name="qk")
    if form == "scores_mul":
        s = g.op("Multiply", [s, _c(g, 0.25)])
    elif form == "scores_div":
        s = g.op("Divide", [s, _c(g, 4.0)])
    _attention(g, s, v)
    m = _run(g, {**FUSED, "Transpose": 0}, tmp_path)
    op = _sdpa(m)
    assert op.get_friendly_name() == "attn" and op.get_tensor_names(0) == ["attn_out"]
    want = {"scores_mul": 0.25, "scores_div": 0.25, "q_and_k": 1 / math.sqrt(E), "none": 1.0}[form]
    assert _scale_of(op) == pytest.approx(want, rel=1e-6)
    assert set(get_fused_names(op)) >= {"qk", "softmax", "attn"}


def test_sdpa_key_from_head_split_transpose() -> None:
    """K^T = Transpose(x, [0, 2, 3, 1]) of [B, S, H, E]: K is Transpose(x, [0, 2, 1, 3])."""
    g = G()
    q, _, v = _qkv(g)
    x = g.param([B, S, H, E], "x")
    s = g.op("MatMul", [q, g.T(x, [0, 2, 3, 1])])
    _attention(g, g.op("Multiply", [s, _c(g, 0.3)]), v)
    m = _run(g, {**FUSED, "Transpose": 1})
    t = next(o for o in m.body.block.ops if o.name == "ov.Transpose")
    assert constant_value_of(t.operands[1]).tolist() == [0, 2, 1, 3]


def test_sdpa_transpose_b() -> None:
    g = G()
    q, k, v = _qkv(g)
    s = g.op("MatMul", [q, k], {"transpose_b": True})
    _attention(g, g.op("Multiply", [s, _c(g, 0.3)]), v)
    _run(g, {**FUSED, "Transpose": 0})


def test_sdpa_key_not_transposed_gets_a_transpose() -> None:
    """K^T is a Parameter: the fused op reads Transpose(K^T, swap last two)."""
    g = G()
    q, _, v = _qkv(g)
    kt = g.param([B, H, E, S], "kt")
    _attention(g, g.op("MatMul", [q, kt]), v)
    _run(g, {**FUSED, "Transpose": 1})


@pytest.mark.parametrize("mask_shape", [[B, 1, 1, S], [L, S], [B, H, L, S]])
def test_sdpa_additive_mask(mask_shape: list[int], tmp_path) -> None:
    g = G()
    q, k, v = _qkv(g)
    mask = g.param(mask_shape, "mask")
    s = g.op("Multiply", [g.op("MatMul", [q, g.T(k, [0, 1, 3, 2])]), _c(g, 0.3)])
    _attention(g, g.op("Add", [s, mask]), v)
    m = _run(g, {**FUSED, "Add": 0}, tmp_path)
    assert _sdpa(m).operands[3].owner.name == "ov.Parameter"


@pytest.mark.parametrize("fill", [-np.inf, np.finfo(np.float32).min])
@pytest.mark.parametrize("l_len", [L, 3])
def test_sdpa_causal_select(fill: float, l_len: int, tmp_path) -> None:
    """GPT-2's where(tril, scores, min) -> causal=true (top-left triangle, as OpenVINO's)."""
    g = G()
    q, k, v = _qkv(g, l_len)
    s = g.op("Divide", [g.op("MatMul", [q, g.T(k, [0, 1, 3, 2])]), _c(g, math.sqrt(E))])
    tril = g.const(np.tri(l_len, S, dtype=bool).reshape(1, 1, l_len, S), np.bool_)
    _attention(g, g.op("Select", [tril, s, _c(g, fill)]), v)
    m = _run(g, {**FUSED, "Select": 0}, tmp_path)
    assert _sdpa(m).attr("causal") is True


def test_sdpa_near_miss_softmax_other_axis() -> None:
    g = G()
    q, k, v = _qkv(g)
    _attention(g, g.op("MatMul", [q, g.T(k, [0, 1, 3, 2])]), v, axis=2)
    _run(g, UNFUSED)


def test_sdpa_near_miss_scores_read_twice() -> None:
    g = G()
    q, k, v = _qkv(g)
    s = g.op("MatMul", [q, g.T(k, [0, 1, 3, 2])])
    _attention(g, s, v)
    g.result(s, "scores")
    _run(g, UNFUSED)


def test_sdpa_near_miss_non_constant_scale() -> None:
    g = G()
    q, k, v = _qkv(g)
    scale = g.param([1], "scale")
    s = g.op("Multiply", [g.op("MatMul", [q, g.T(k, [0, 1, 3, 2])]), scale])
    _attention(g, s, v)
    _run(g, UNFUSED)


def test_sdpa_near_miss_upper_triangular_select() -> None:
    g = G()
    q, k, v = _qkv(g)
    s = g.op("MatMul", [q, g.T(k, [0, 1, 3, 2])])
    triu = g.const(np.tri(L, S, dtype=bool).T.copy(), np.bool_)
    _attention(g, g.op("Select", [triu, s, _c(g, -np.inf)]), v)
    _run(g, UNFUSED)


def test_sdpa_near_miss_rank_two() -> None:
    g = G()
    q, k, v = g.param([L, E], "q"), g.param([S, E], "k"), g.param([S, E], "v")
    _attention(g, g.op("MatMul", [q, k], {"transpose_b": True}), v)
    _run(g, UNFUSED)


@pytest.mark.parametrize("causal", [False, True])
def test_sdpa_ir_round_trip(causal: bool, tmp_path) -> None:
    """xmo writes the fused op and reads it back (mask and scale inputs, causal)."""
    from xmo.backends.ir import read_ir, serialize

    g = G()
    q, k, v = _qkv(g)
    s = g.op("Multiply", [g.op("MatMul", [q, g.T(k, [0, 1, 3, 2])]), _c(g, 0.3)])
    if causal:
        s = g.op("Select", [g.const(np.tri(L, S, dtype=bool), np.bool_), s, _c(g, -np.inf)])
    _attention(g, s, v)
    m = _run(g, FUSED)
    serialize(m, tmp_path / "m.xml")
    back = read_ir(tmp_path / "m.xml")
    op = _sdpa(back)
    assert op.attr("causal") is causal and len(op.operands) == 5
    feeds = g.feeds()
    np.testing.assert_allclose(compile_model(back)(feeds)[0], compile_model(m)(feeds)[0], rtol=1e-6)


@pytest.mark.parametrize("inputs", [3, 4, 5])
def test_sdpa_written_by_openvino(inputs: int, tmp_path) -> None:
    """An IR OpenVINO writes with ScaledDotProductAttention-13 (default scale,
    boolean mask) reads and runs on xmo's CPU backend as in OpenVINO."""
    ov = pytest.importorskip("openvino")
    opset13 = pytest.importorskip("openvino.opset13")
    from xmo.backends.ir import read_ir

    ps = [opset13.parameter([B, H, L, E], np.float32, name=n) for n in "qkv"]
    extra = []
    if inputs > 3:
        extra.append(opset13.parameter([1, 1, L, S], np.bool_, name="mask"))
    if inputs > 4:
        extra.append(opset13.constant(np.float32(0.2)))
    out = opset13.scaled_dot_product_attention(*ps, *extra)
    params = ps + [e for e in extra if e.get_type_name() == "Parameter"]
    model = ov.Model([out], params)
    ov.save_model(model, tmp_path / "ov.xml", compress_to_fp16=False)
    rng = np.random.default_rng(0)
    feeds = [rng.standard_normal([B, H, L, E]).astype(np.float32) for _ in range(3)]
    if inputs > 3:
        feeds.append(rng.random([1, 1, L, S]) > 0.3)
    want = ov.Core().compile_model(model, "CPU", {"INFERENCE_PRECISION_HINT": "f32"})(feeds)[0]
    got = compile_model(read_ir(tmp_path / "ov.xml"))(feeds)[0]
    np.testing.assert_allclose(np.asarray(got), want, rtol=1e-4, atol=1e-5)
