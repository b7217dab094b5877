"""LLM building blocks: SwiGLU, RotaryEmbedding, CausalConvWithState,
LinearAttention."""

from __future__ import annotations

import math

import numpy as np
from xdsl.ir import SSAValue
from xmo.passes.to_ov.builder import Builder, ConverterNode, value_etype
from xmo.passes.to_ov.helpers import dim_of, scalar
from xmo.passes.onnx_to_ov.families._types import attr_str
from xmo.passes.onnx_to_ov.registry import converter

_I64_MAX = int(np.iinfo(np.int64).max)


def _c(b: Builder, value: float, like: SSAValue) -> SSAValue:
    return scalar(b, value, value_etype(like))


def _last_slice(b: Builder, v: SSAValue, start: int | SSAValue, stop: int | SSAValue, step: int = 1) -> SSAValue:
    """``v[..., start:stop:step]``."""
    s = start if isinstance(start, SSAValue) else b.i64([start])
    e = stop if isinstance(stop, SSAValue) else b.i64([stop])
    return b.out("Slice", [v, s, e, b.i64([step]), b.i64([-1])])


@converter("SwiGLU", min_version=1)
def swiglu(node: ConverterNode, b: Builder):
    a = node.input(0)
    gate = b.out("Swish", [a, _c(b, float(node.attr("alpha", 1.0)), a)])
    return b.out("Multiply", [gate, node.input(1)])


# -- RotaryEmbedding ---------------------------------------------------------------


@converter("RotaryEmbedding", min_version=1)
def rotary_embedding(node: ConverterNode, b: Builder):
    cos, sin = node.input(1), node.input(2)
    if node.has_input(3):  # caches [max_pos, rot/2] indexed by position ids [B, S]
        pos = node.input(3)
        cos = b.gather(cos, pos, 0)
        sin = b.gather(sin, pos, 0)
    return apply_rotary(node, b, node.input(0), cos, sin, node.shape(1))


def apply_rotary(node: ConverterNode, b: Builder, x: SSAValue, cos: SSAValue, sin: SSAValue,
                 cos_shape: list[int] | None, num_heads: int | None = None) -> SSAValue:  # fmt: skip
    """Rotary embedding of ``x`` (input 0 of ``node``: ``[B, S, H*D]`` with
    the ``num_heads`` attribute, or ``[B, H, S, D]``) by ``cos`` / ``sin``
    ``[B, S, rot/2]`` (``cos_shape``: the cache's shape, for the rotary size
    when ``rotary_embedding_dim`` is 0 and the head size dynamic); the
    ``interleaved`` attribute pairs neighbours instead of halves;
    ``num_heads`` overrides the attribute."""
    rank = node.rank(0)
    if rank not in (3, 4):
        raise node.unsupported(f"input of rank {rank} (3 or 4 expected)")
    interleaved = bool(node.attr("interleaved", 0))
    rot = int(node.attr("rotary_embedding_dim", 0) or 0)
    num_heads = num_heads or int(node.attr("num_heads", 0) or 0)
    if rank == 4:  # [B, H, S, D]
        x4 = x
        cos, sin = b.unsqueeze(cos, [1]), b.unsqueeze(sin, [1])
    else:  # [B, S, H*D] -> [B, S, H, D]
        if num_heads <= 0:
            raise node.unsupported("3-D input needs num_heads")
        x4 = b.reshape(x, [0, 0, num_heads, -1], special_zero=True)
        cos, sin = b.unsqueeze(cos, [2]), b.unsqueeze(sin, [2])

    head = (node.shape(0) or [-1])[-1]
    if rank == 3 and head >= 0:
        head //= num_heads
    if rot == 0:
        if head < 0:
            half_dim = (cos_shape or [-1])[-1]
            if half_dim < 0:
                raise node.unsupported("head size must be static")
            rot = 2 * half_dim
        else:
            rot = head
    y = rotate_heads(b, x4, cos, sin, rot, head < 0 or rot != head, interleaved)
    if rank == 3:
        y = b.reshape(y, b.shape_of(x))
    return y


def rotate_heads(b: Builder, x4: SSAValue, cos: SSAValue, sin: SSAValue, rot: int, partial: bool,
                 interleaved: bool) -> SSAValue:  # fmt: skip
    """The first ``rot`` values of the last axis of ``x4`` (4-D; all when
    not ``partial``) rotated by ``cos`` / ``sin`` (broadcasting to
    ``[..., rot/2]``): halves, or neighbours when ``interleaved``."""
    x_rot = _last_slice(b, x4, 0, rot) if partial else x4
    half = rot // 2

    if interleaved:
        pairs = b.reshape(x_rot, [0, 0, 0, half, 2], special_zero=True)
        parts = b.op("Split", [pairs, b.i64(-1)], {"num_splits": 2}, num_outputs=2)
        x1, x2 = b.squeeze(parts.results[0], [-1]), b.squeeze(parts.results[1], [-1])
    else:
        parts = b.op("Split", [x_rot, b.i64(-1)], {"num_splits": 2}, num_outputs=2)
        x1, x2 = parts.results[0], parts.results[1]

    mul = lambda p, q: b.out("Multiply", [p, q])
    real = b.out("Subtract", [mul(cos, x1), mul(sin, x2)])
    imag = b.out("Add", [mul(sin, x1), mul(cos, x2)])
    if interleaved:
        y = b.concat([b.unsqueeze(real, [-1]), b.unsqueeze(imag, [-1])], -1)
        y = b.reshape(y, [0, 0, 0, rot], special_zero=True)
    else:
        y = b.concat([real, imag], -1)
    if partial:
        y = b.concat([y, _last_slice(b, x4, rot, _I64_MAX)], -1)
    return y


# -- CausalConvWithState -------------------------------------------------------------


@converter("CausalConvWithState", min_version=1)
def causal_conv_with_state(node: ConverterNode, b: Builder):
    x, w = node.input(0), node.input(1)
    act = attr_str(node.attr("activation", "none")).lower()
    if act not in ("none", "silu", "swish"):
        raise node.unsupported(f"activation '{act}'")
    ws = node.shape(1)
    k = ws[2] if ws is not None and len(ws) == 3 else -1
    if k < 0:
        raise node.unsupported("kernel size must be static")

    if node.has_input(3):
        padded = b.concat([node.input(3), x], 2)
    elif k > 1:
        zshape = b.concat([b.gather(b.shape_of(x), [0, 1], 0), b.i64([k - 1])], 0)
        zeros = b.out("Broadcast", [_c(b, 0, x), zshape], {"mode": "numpy"})
        padded = b.concat([zeros, x], 2)
    else:
        padded = x

    # depthwise: weight (C, 1, k) -> (C, 1, 1, k) groups
    wg = b.unsqueeze(w, [1])
    y = b.out(
        "GroupConvolution",
        [padded, wg],
        {"strides": [1], "pads_begin": [0], "pads_end": [0], "dilations": [1], "auto_pad": "explicit"},
    )
    if node.has_input(2):
        y = b.out("Add", [y, b.unsqueeze(node.input(2), [1])])
    if act != "none":
        y = b.out("Swish", [y])

    if k > 1:
        present = b.out(
            "Slice", [padded, b.i64([-(k - 1)]), b.i64([_I64_MAX]), b.i64([1]), b.i64([2])]
        )
    else:  # an empty (B, C, 0) state
        present = b.out("Slice", [padded, b.i64([0]), b.i64([0]), b.i64([1]), b.i64([2])])
    return [y, present]


# -- LinearAttention -------------------------------------------------------------------

#: longest sequence unrolled step by step
_MAX_UNROLL = 256


def _heads_first(b: Builder, x: SSAValue, heads: int) -> SSAValue:
    """``[B, T, H*D]`` -> ``[B, H, T, D]``."""
    x4 = b.reshape(x, [0, 0, heads, -1], special_zero=True)
    return b.out("Transpose", [x4, b.i64([0, 2, 1, 3])])


def _step(b: Builder, v: SSAValue, i: int) -> SSAValue:
    """``v[:, :, i:i+1, :]``."""
    return b.out("Slice", [v, b.i64([i]), b.i64([i + 1]), b.i64([1]), b.i64([2])])


@converter("LinearAttention", min_version=1)
def linear_attention(node: ConverterNode, b: Builder):
    rule = attr_str(node.attr("update_rule", "gated_delta"))
    if rule not in ("linear", "gated", "delta", "gated_delta"):
        raise node.unsupported(f"update_rule '{rule}'")
    hq, hkv = int(node.attr("q_num_heads", 0) or 0), int(node.attr("kv_num_heads", 0) or 0)
    if hq <= 0 or hkv <= 0 or hq % hkv:
        raise node.unsupported(f"q_num_heads {hq} / kv_num_heads {hkv}")
    qs, vs = node.shape(0), node.shape(2)
    if qs is None or vs is None or len(qs) != 3 or len(vs) != 3 or min(qs[1:] + vs[2:]) < 0:
        raise node.unsupported("query/value need static [_, T, H*D] shapes")
    steps, dk, dv = qs[1], qs[2] // hq, vs[2] // hkv
    if steps > _MAX_UNROLL:
        raise node.unsupported(f"sequence length {steps} > {_MAX_UNROLL}")
    gating, delta = rule in ("gated", "gated_delta"), rule in ("delta", "gated_delta")
    if gating and not node.has_input(4):
        raise node.unsupported(f"'{rule}' needs decay")
    if delta and not node.has_input(5):
        raise node.unsupported(f"'{rule}' needs beta")
    out_t = node.etype(0)
    f = lambda i: b.convert(node.input(i), "f32")
    scale = float(node.attr("scale", 0.0) or 0.0) or 1.0 / math.sqrt(dk)

    q4 = _heads_first(b, f(0), hq)
    k4 = _heads_first(b, f(1), hkv)
    v4 = _heads_first(b, f(2), hkv)
    if gating:  # exp(decay) as [B, Hkv, T, dk or 1]
        ds = node.shape(4)
        per_head = ds is not None and ds[-1] == hkv and hkv != hkv * dk
        g4 = _heads_first(b, f(4), hkv) if not per_head else b.out(
            "Transpose", [b.unsqueeze(f(4), [3]), b.i64([0, 2, 1, 3])]
        )
        g4 = b.out("Exp", [g4])
    if delta:  # [B, Hkv or 1, T, 1]
        beta4 = b.out("Transpose", [b.unsqueeze(f(5), [3]), b.i64([0, 2, 1, 3])])
    if node.has_input(3):
        state = f(3)
        state_t = node.etype(3)
    else:
        zshape = b.concat([dim_of(b, node.input(0), 0), b.i64([hkv, dk, dv])], 0)
        state = b.out("Broadcast", [scalar(b, 0.0, "f32"), zshape], {"mode": "numpy"})
        state_t = out_t

    mm = lambda a, c, ta=False: b.out("MatMul", [a, c], {"transpose_a": ta, "transpose_b": False})
    group = hq // hkv
    outs = []
    for i in range(steps):
        k_t, v_t = _step(b, k4, i), _step(b, v4, i)  # [B, Hkv, 1, d]
        if gating:  # rows of the state decay: [B, Hkv, dk or 1, 1]
            g_t = b.out("Transpose", [_step(b, g4, i), b.i64([0, 1, 3, 2])])
            state = b.out("Multiply", [state, g_t])
        if delta:
            v_t = b.out("Multiply", [_step(b, beta4, i), b.out("Subtract", [v_t, mm(k_t, state)])])
        state = b.out("Add", [state, mm(k_t, v_t, True)])
        q_t = _step(b, q4, i)
        if group > 1:  # query heads of one kv head side by side: [B, Hkv, G, dk]
            q_t = b.reshape(q_t, [0, hkv, group, dk], special_zero=True)
        o = mm(q_t, state)
        if group > 1:
            o = b.reshape(o, [0, hq, 1, dv], special_zero=True)
        outs.append(o)
    y = outs[0] if len(outs) == 1 else b.concat(outs, 2)  # [B, Hq, T, dv]
    y = b.out("Multiply", [y, scalar(b, scale, "f32")])
    y = b.out("Transpose", [y, b.i64([0, 2, 1, 3])])
    y = b.reshape(y, [0, 0, hq * dv], special_zero=True)
    return [b.convert(y, out_t), b.convert(state, state_t)]
