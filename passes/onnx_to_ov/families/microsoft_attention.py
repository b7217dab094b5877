"""onnxruntime's attention operators (``com.microsoft``) as ov ops, matching
onnxruntime's CPU kernels: Attention (packed QKV weights, as
``onnxruntime.transformers.optimizer`` fuses BERT / GPT-2 layers),
MultiHeadAttention (separate Q, K, V), GroupQueryAttention and
RotaryEmbedding.

Both attentions compute ``softmax(Q K^T * scale + bias) V`` per head, where
``bias`` adds ``mask_filter_value`` (default -10000) at masked keys and, with
``unidirectional``, again at keys after the query (onnxruntime's additive
masks, so a fully masked row is uniform, not NaN). The key mask
(``mask_index`` / ``key_padding_mask``) may be: 1-D ``[B]`` (keys from that
end position on are masked), 1-D ``[2B]`` (end positions, then start
positions), 2-D ``[B, T]`` or 3-D ``[B, S, T]`` (keys where the mask is not
positive are masked).
"""

from __future__ import annotations

import numpy as np
from xdsl.ir import SSAValue

from xmo.passes.onnx_to_ov.families.attention import to_heads
from xmo.passes.onnx_to_ov.families.llm import apply_rotary, rotate_heads
from xmo.passes.onnx_to_ov.families.microsoft import MS, known_attrs, like_scalar, wanted
from xmo.passes.onnx_to_ov.registry import converter
from xmo.passes.to_ov.builder import Builder, ConverterNode, value_etype
from xmo.passes.to_ov.helpers import dim_of


def _steps(b: Builder, n: SSAValue) -> SSAValue:
    """``0 .. n-1`` (i64) for an i64 scalar ``n``."""
    return b.out("Range", [b.i64(0), n, b.i64(1)], {"output_type": "i64"})


def _key_mask(node: ConverterNode, b: Builder, i: int, scores: SSAValue, filler: SSAValue,
              zero: SSAValue) -> SSAValue:  # fmt: skip
    """The additive bias of the key mask (input ``i``), broadcasting to
    ``scores`` ``[B, N, S, T]``."""
    m = node.input(i)
    r = node.rank(i)
    t_steps = _steps(b, dim_of(b, scores, 3, scalar_out=True))  # [T]
    if r == 1:
        # [B] end positions or [2B] end then start positions: padded with
        # zeros (no start) to [2B] and halved
        ends = b.convert(m, "i64")
        batch = dim_of(b, scores, 0)
        short = b.out("Subtract", [b.out("Multiply", [batch, b.i64([2])]), dim_of(b, ends, 0)])
        both = b.out("Pad", [ends, b.i64([0]), short, b.i64(0)], {"pad_mode": "constant"})
        halves = b.op("Split", [both, b.i64(0)], {"num_splits": 2}, num_outputs=2).results
        end, start = (b.reshape(h, [-1, 1, 1, 1]) for h in halves)
        keep = b.out("LogicalAnd", [b.out("Less", [t_steps, end]), b.out("GreaterEqual", [t_steps, start])])
    elif r in (2, 3):
        keep = b.out("Greater", [m, b.convert(b.i64(0), value_etype(m))])
        keep = b.reshape(keep, [0, 1, 1, -1], special_zero=True) if r == 2 else b.unsqueeze(keep, [1])
    else:
        raise node.unsupported(f"input {i} (mask) of rank {r} (1, 2 or 3 supported)")
    return b.out("Select", [keep, zero, filler])


def _attend(node: ConverterNode, b: Builder, q: SSAValue, k: SSAValue, v: SSAValue, scale: float,
            mask: int | None, bias: int | None, past: SSAValue | None) -> SSAValue:  # fmt: skip
    """``[B, N, S, H]`` heads attended (``mask`` / ``bias``: the node's key
    mask and attention bias inputs, ``past``: the past length as an i64
    scalar, for the causal mask) -> ``[B, S, N*Hv]``."""
    scores = b.out("MatMul", [b.out("Multiply", [q, like_scalar(b, scale, q)]), k], {"transpose_b": True})
    filler = like_scalar(b, float(node.attr("mask_filter_value", -10000.0)), scores)
    zero = like_scalar(b, 0.0, scores)
    if mask is not None and node.has_input(mask):
        scores = b.out("Add", [scores, _key_mask(node, b, mask, scores, filler, zero)])
    if node.attr("unidirectional", 0):
        rows = _steps(b, dim_of(b, q, 2, scalar_out=True))
        if past is not None:
            rows = b.out("Add", [rows, past])
        cols = _steps(b, dim_of(b, k, 2, scalar_out=True))
        later = b.out("Less", [b.unsqueeze(rows, [1]), cols])
        scores = b.out("Add", [scores, b.out("Select", [later, filler, zero])])
    if bias is not None and node.has_input(bias):
        scores = b.out("Add", [scores, node.input(bias)])
    probs = b.out("Softmax", [scores], {"axis": -1})
    y = b.out("Transpose", [b.out("MatMul", [probs, v]), b.i64([0, 2, 1, 3])])
    return b.reshape(y, [0, 0, -1], special_zero=True)


def _scale(node: ConverterNode, head_size: int) -> float:
    return float(node.attr("scale", 0.0) or 0.0) or 1.0 / float(np.sqrt(head_size))


@converter("Attention", domain=MS)
def attention(node: ConverterNode, b: Builder):
    """Self attention with packed weights: ``input @ weights + bias`` split
    into Q, K, V (``qkv_hidden_sizes`` or three equal parts) of
    ``num_heads`` heads; ``past`` ``[2, B, N, P, H]`` goes before K and V,
    and ``present`` is the stacked K and V; ``attention_bias`` (input 5) is
    added to the scores."""
    known_attrs(node, "num_heads", "qkv_hidden_sizes", "scale", "unidirectional", "mask_filter_value")
    if node.has_input(6):
        raise node.unsupported("input 6 (past_sequence_length)")
    heads = int(node.attr("num_heads"))
    x = node.input(0)
    qkv = b.out("MatMul", [x, node.input(1)])
    if node.has_input(2):
        qkv = b.out("Add", [qkv, node.input(2)])
    sizes = node.int_list("qkv_hidden_sizes")
    if not sizes:
        w = node.shape(1)
        if w is None or w[-1] < 0 or w[-1] % 3:
            raise node.unsupported("weights without a static hidden size divisible by 3")
        sizes = [w[-1] // 3] * 3
    if len(sizes) != 3 or sizes[0] != sizes[1] or any(s % heads for s in sizes):
        raise node.unsupported(f"attribute 'qkv_hidden_sizes' = {sizes}")
    split = b.op("VariadicSplit", [qkv, b.i64(-1), b.i64(sizes)], num_outputs=3)
    q, k, v = (to_heads(b, t, heads) for t in split.results)
    past_len = None
    if node.has_input(4):
        if sizes[1] != sizes[2]:
            raise node.unsupported("input 4 (past) with V of another hidden size than K")
        parts = b.op("Split", [node.input(4), b.i64(0)], {"num_splits": 2}, num_outputs=2)
        pk, pv = (b.squeeze(p, [0]) for p in parts.results)
        past_len = dim_of(b, pk, 2, scalar_out=True)
        k, v = b.concat([pk, k], 2), b.concat([pv, v], 2)
    y = _attend(node, b, q, k, v, _scale(node, sizes[0] // heads), 3, 5, past_len)
    present = None
    if wanted(node, 1):
        present = b.concat([b.unsqueeze(k, [0]), b.unsqueeze(v, [0])], 0)
    return [y, present]


def _projected(node: ConverterNode, b: Builder, i: int, heads: int, bias: SSAValue | None) -> SSAValue:
    """Input ``i`` ``[B, L, N*H]`` (plus its bias) as heads ``[B, N, L, H]``,
    or already ``[B, N, L, H]``."""
    r = node.rank(i)
    v = node.input(i)
    if r == 4:
        if bias is not None:
            raise node.unsupported(f"input {i} of rank 4 (BNSH) with a bias")
        return v
    if r != 3:
        raise node.unsupported(f"input {i} of rank {r} (packed QKV / KV not supported)")
    if bias is not None:
        v = b.out("Add", [v, bias])
    return to_heads(b, v, heads)


@converter("MultiHeadAttention", domain=MS)
def multi_head_attention(node: ConverterNode, b: Builder):
    """Attention of separate query ``[B, S, D]``, key and value ``[B, L, D]``
    (or ``[B, N, L, H]``) with ``num_heads`` heads: ``bias`` (input 3,
    ``[D + D + Dv]``) is added to the three, ``key_padding_mask`` (input 4)
    and ``attention_bias`` (input 5) apply to the scores, ``past_key`` /
    ``past_value`` ``[B, N, P, H]`` go before K and V; outputs ``present_key``
    / ``present_value``."""
    known_attrs(node, "num_heads", "scale", "unidirectional", "mask_filter_value")
    for i, what in ((8, "past_sequence_length"), (9, "cache_indirection")):
        if node.has_input(i):
            raise node.unsupported(f"input {i} ({what})")
    if wanted(node, 3):
        raise node.unsupported("output 3 (qk)")
    if not (node.has_input(1) and node.has_input(2)):
        raise node.unsupported("packed QKV or KV (key and value inputs are needed)")
    heads = int(node.attr("num_heads"))
    qs = node.shape(0)
    if qs is None or len(qs) != 3 or qs[2] < 0 or qs[2] % heads:
        raise node.unsupported(f"query of shape {qs} (3-D with a static hidden size divisible by num_heads)")
    d = qs[2]
    bq = bk = bv = None
    if node.has_input(3):
        bs = node.shape(3)
        if bs is None or len(bs) != 1 or bs[0] < 2 * d:
            raise node.unsupported(f"bias of shape {bs}")
        split = b.op("VariadicSplit", [node.input(3), b.i64(0), b.i64([d, d, bs[0] - 2 * d])], num_outputs=3)
        bq, bk, bv = split.results
    q = _projected(node, b, 0, heads, bq)
    k = _projected(node, b, 1, heads, bk)
    v = _projected(node, b, 2, heads, bv)
    past_len = None
    if node.has_input(6) != node.has_input(7):
        raise node.unsupported("only one of past_key / past_value")
    if node.has_input(6):
        past_len = dim_of(b, node.input(6), 2, scalar_out=True)
        k, v = b.concat([node.input(6), k], 2), b.concat([node.input(7), v], 2)
    y = _attend(node, b, q, k, v, _scale(node, d // heads), 4, 5, past_len)
    return [y, k if wanted(node, 1) else None, v if wanted(node, 2) else None, None][: node.num_outputs]


@converter("RotaryEmbedding", domain=MS)
def rotary_embedding(node: ConverterNode, b: Builder):
    """onnxruntime's rotary embedding: ``input`` ``[B, S, N*H]`` or
    ``[B, N, S, H]``, ``position_ids`` ``[B, S]`` or ``[1]`` (an offset: the
    positions are ``offset + 0..S-1``), caches ``[max_positions, rot/2]``."""
    known_attrs(node, "interleaved", "num_heads", "rotary_embedding_dim", "scale", "is_packed_batching")
    if node.attr("is_packed_batching", 0):
        raise node.unsupported("attribute 'is_packed_batching' = 1")
    if float(node.attr("scale", 1.0)) != 1.0:
        raise node.unsupported(f"attribute 'scale' = {node.attr('scale')} (1.0 supported)")
    rank = node.rank(0)
    pos = b.convert(node.input(1), "i64")
    if node.rank(1) == 1:
        seq = dim_of(b, node.input(0), 1 if rank == 3 else 2, scalar_out=True)
        pos = b.unsqueeze(b.out("Add", [_steps(b, seq), b.squeeze(pos, [0])]), [0])
    elif node.rank(1) != 2:
        raise node.unsupported(f"position_ids of rank {node.rank(1)} ([B, S] or [1] supported)")
    cos, sin = b.gather(node.input(2), pos, 0), b.gather(node.input(3), pos, 0)
    heads = int(node.attr("num_heads", 0) or 0)
    if rank == 3 and heads <= 0:
        # onnxruntime: head size = rotary_embedding_dim or twice the cache's width
        rot = int(node.attr("rotary_embedding_dim", 0) or 0) or 2 * (node.shape(2) or [-1])[-1]
        hidden = (node.shape(0) or [-1])[-1]
        if rot <= 0 or hidden < 0 or hidden % rot:
            raise node.unsupported("3-D input without num_heads needs a static hidden size and cache width")
        heads = hidden // rot
    return apply_rotary(node, b, node.input(0), cos, sin, node.shape(2), heads or None)


#: GroupQueryAttention's inputs xmo does not convert
_GQA_INPUTS = {11: "head_sink", 12: "k_scale", 13: "v_scale", 14: "q_norm_weight", 15: "k_norm_weight",
               16: "query_seqlens"}  # fmt: skip


def _repeat_heads(b: Builder, v: SSAValue, groups: int, heads: int, head_size: int) -> SSAValue:
    """``[B, kvN, T, H]`` -> ``[B, kvN * groups, T, H]``, each kv head
    repeated ``groups`` times in a row."""
    if groups == 1:
        return v
    v = b.out("Broadcast", [b.unsqueeze(v, [2]), b.i64([1, 1, groups, 1, 1])], {"mode": "bidirectional"})
    return b.reshape(v, [0, heads, -1, head_size], special_zero=True)


@converter("GroupQueryAttention", domain=MS)
def group_query_attention(node: ConverterNode, b: Builder):
    """Causal (``causal`` 1, the default) attention of ``num_heads`` query
    heads over ``kv_num_heads`` key / value heads: query ``[B, S, N*H]``
    with key / value ``[B, S, kvN*H]``, or packed QKV; ``past_key`` /
    ``past_value`` ``[B, kvN, P, H]`` go before the new keys (present =
    their concatenation, so every batch row has the same past length P);
    keys after ``seqlens_k[b]`` are masked; query ``s`` is at position
    ``P + s`` (or ``position_ids``) for ``do_rotary`` with the caches
    ``[max_positions, rot/2]``; ``attention_bias`` is added to the scores."""
    known_attrs(node, "num_heads", "kv_num_heads", "scale", "do_rotary", "rotary_interleaved", "local_window_size",
                "causal", "softcap", "smooth_softmax", "qk_output", "k_quant_type", "v_quant_type")  # fmt: skip
    for name, default in (("local_window_size", -1), ("softcap", 0.0), ("smooth_softmax", 0), ("qk_output", 0)):
        if float(node.attr(name, default)) != default:
            raise node.unsupported(f"attribute '{name}' = {node.attr(name)} ({default} supported)")
    for name in ("k_quant_type", "v_quant_type"):
        if node.str_attr(name, "NONE") != "NONE":
            raise node.unsupported(f"attribute '{name}' = {node.str_attr(name, '')} (quantized KV cache)")
    for i, what in _GQA_INPUTS.items():
        if node.has_input(i):
            raise node.unsupported(f"input {i} ({what})")
    heads, kv_heads = int(node.attr("num_heads")), int(node.attr("kv_num_heads"))
    if heads % kv_heads:
        raise node.unsupported(f"num_heads {heads} not a multiple of kv_num_heads {kv_heads}")
    qs = node.shape(0)
    if qs is None or len(qs) != 3 or qs[2] < 0:
        raise node.unsupported(f"query of shape {qs} (3-D with a static hidden size)")
    packed = not node.has_input(1)
    hs = qs[2] // (heads + 2 * kv_heads) if packed else qs[2] // heads
    q = node.input(0)
    if packed:
        if node.has_input(2):
            raise node.unsupported("value without key")
        q, k, v = b.op("VariadicSplit", [q, b.i64(-1), b.i64([heads * hs, kv_heads * hs, kv_heads * hs])],
                       num_outputs=3).results  # fmt: skip
    else:
        k, v = node.input(1), node.input(2)
    if node.has_input(3) != node.has_input(4):
        raise node.unsupported("only one of past_key / past_value")
    past = dim_of(b, node.input(3), 2, scalar_out=True) if node.has_input(3) else b.i64(0)
    rows = b.out("Add", [_steps(b, dim_of(b, q, 1, scalar_out=True)), past])  # positions of the queries
    if node.attr("do_rotary", 0):
        # rotated as [B, S, heads, H], before the heads' transpose
        if not (node.has_input(7) and node.has_input(8)):
            raise node.unsupported("do_rotary without cos_cache / sin_cache")
        pos = b.convert(node.input(9), "i64") if node.has_input(9) else rows
        cos, sin = (b.unsqueeze(b.gather(node.input(c), pos, 0), [-2]) for c in (7, 8))
        half = (node.shape(7) or [-1])[-1]
        if half < 0:
            raise node.unsupported("cos_cache of dynamic width")
        interleaved = bool(node.attr("rotary_interleaved", 0))
        q, k = (rotate_heads(b, b.reshape(t, [0, 0, n, hs], special_zero=True), cos, sin, 2 * half,
                             2 * half != hs, interleaved) for t, n in ((q, heads), (k, kv_heads)))  # fmt: skip
        q, k = (b.out("Transpose", [t, b.i64([0, 2, 1, 3])]) for t in (q, k))
    elif node.has_input(9):
        raise node.unsupported("input 9 (position_ids) without do_rotary")
    else:
        q, k = to_heads(b, q, heads), to_heads(b, k, kv_heads)
    v = to_heads(b, v, kv_heads)
    if node.has_input(3):
        k, v = b.concat([node.input(3), k], 2), b.concat([node.input(4), v], 2)
    kh, vh = (_repeat_heads(b, t, heads // kv_heads, heads, hs) for t in (k, v))
    scale = _scale(node, hs)
    scores = b.out("MatMul", [b.out("Multiply", [q, like_scalar(b, scale, q)]), kh], {"transpose_b": True})
    cols = _steps(b, dim_of(b, k, 2, scalar_out=True))  # [T]
    last = b.reshape(b.convert(node.input(5), "i64"), [-1, 1, 1, 1])  # the last key of each row
    keep = b.out("LessEqual", [cols, last])
    if int(node.attr("causal", 1)):
        keep = b.out("LogicalAnd", [keep, b.out("LessEqual", [cols, b.unsqueeze(rows, [1])])])
    lowest = like_scalar(b, float(np.finfo(np.float32).min), scores)
    scores = b.out("Select", [keep, scores, lowest])
    if node.has_input(10):
        scores = b.out("Add", [scores, node.input(10)])
    probs = b.out("Softmax", [scores], {"axis": -1})
    y = b.out("Transpose", [b.out("MatMul", [probs, vh]), b.i64([0, 2, 1, 3])])
    y = b.reshape(y, [0, 0, -1], special_zero=True)
    return [y, k if wanted(node, 1) else None, v if wanted(node, 2) else None, None][: node.num_outputs]
