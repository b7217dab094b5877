"""Attention (opset 23/24), decomposed into MatMul/Softmax/Select."""

from __future__ import annotations

import numpy as np
from xdsl.ir import SSAValue

from xmo.passes.onnx_to_ov.families.conv import dims_from
from xmo.passes.onnx_to_ov.registry import converter
from xmo.passes.to_ov.builder import Builder, ConverterNode, value_etype


def to_heads(b: Builder, v: SSAValue, heads: int) -> SSAValue:
    """[B, S, heads*D] -> [B, heads, S, D]."""
    v = b.reshape(v, [0, 0, heads, -1], special_zero=True)
    return b.out("Transpose", [v, b.i64([0, 2, 1, 3])])


def _dim(b: Builder, v: SSAValue, axis: int) -> SSAValue:
    """``shape(v)[axis]`` as an i64 scalar."""
    return b.gather(b.shape_of(v), axis, 0)


def _repeat_heads(b: Builder, v: SSAValue, reps: int) -> SSAValue:
    """Interleave-repeat the heads (axis 1) of ``[B, H, S, D]`` ``reps`` times."""
    u = b.unsqueeze(v, [2])
    u = b.out("Broadcast", [u, b.i64([1, 1, reps, 1, 1])], {"mode": "bidirectional"})
    shape = b.shape_of(v)
    heads = b.out("Multiply", [b.gather(shape, [1], 0), b.i64([reps])])
    target = b.concat([b.gather(shape, [0], 0), heads, dims_from(b, v, 2)], 0)
    return b.reshape(u, target)


@converter("Attention", min_version=23)
def attention(node: ConverterNode, b: Builder):
    q, k, v = node.input(0), node.input(1), node.input(2)
    rank = node.rank(0)
    etype = node.etype(0)
    if rank == 3:
        qh = int(node.attr("q_num_heads"))
        kvh = int(node.attr("kv_num_heads"))
        q, k, v = to_heads(b, q, qh), to_heads(b, k, kvh), to_heads(b, v, kvh)
    elif rank == 4:
        qs, ks = node.shape(0), node.shape(1)
        qh, kvh = qs[1], ks[1]
    else:
        raise node.unsupported("Q must be 3-D or 4-D")
    neg_inf = b.scalar_like(-np.inf, q)
    zero = b.scalar_like(0, q)

    if node.has_input(4):
        k = b.concat([node.input(4), k], 2)
    if node.has_input(5):
        v = b.concat([node.input(5), v], 2)
    present_k, present_v = k, v

    # scale (both sides by sqrt(scale), as the ONNX function does)
    scale = node.attr("scale")
    if scale is None:
        qs = node.shape(0)
        hd = qs[-1] // qh if rank == 3 else qs[-1]
        if hd is None or hd <= 0:
            raise node.unsupported("head size unknown")
        scale = 1.0 / np.sqrt(hd)
    sq = b.scalar_like(float(np.float32(np.sqrt(scale))), q)

    # additive bias [.., Sq, Skv]
    bias: SSAValue | None = None
    keep: SSAValue | None = None  # where a key may be attended (bool)
    nonpad = node.optional_input(6)
    sq_len, kv_len = _dim(b, q, 2), _dim(b, k, 2)
    if node.has_input(3):
        m = node.input(3)
        is_bool = value_etype(m) == "boolean"
        # a mask shorter than the total kv length is padded with "masked"
        mr = node.rank(3)
        short = b.out("Subtract", [kv_len, _dim(b, m, -1)])
        pads_end = b.concat([b.i64([0] * (mr - 1)), b.unsqueeze(short, [0])], 0)
        pad_val = b.const(np.asarray(False), "boolean") if is_bool else neg_inf
        m = b.out("Pad", [m, b.i64([0] * mr), pads_end, pad_val], {"pad_mode": "constant"})
        if is_bool:
            keep = m
            m = b.out("Select", [m, zero, neg_inf])
        else:
            keep = b.out("LogicalNot", [b.out("IsInf", [m], {"detect_positive": False})])
        bias = m
    causal = bool(node.attr("is_causal", 0))
    left = node.attr("left_window_size", -1)
    right = node.attr("right_window_size", -1)
    left = -1 if left is None else int(left)
    right = -1 if right is None else int(right)
    if causal or left >= 0 or right >= 0:
        # query i sits at absolute position i + offset (past length, or per batch
        # nonpad_kv_seqlen - Sq for an external cache)
        i = b.out("Range", [b.i64(0), sq_len, b.i64(1)], {"output_type": "i64"})
        j = b.out("Range", [b.i64(0), kv_len, b.i64(1)], {"output_type": "i64"})
        i = b.unsqueeze(i, [1])  # [Sq, 1]
        if node.has_input(4):
            i = b.out("Add", [i, _dim(b, node.input(4), 2)])
        elif nonpad is not None:
            off = b.out("Subtract", [b.convert(nonpad, "i64"), sq_len])
            i = b.out("Add", [i, b.reshape(off, [-1, 1, 1, 1])])  # [B,1,Sq,1]
        diff = b.out("Subtract", [i, j])
        conds = []
        if causal:
            conds.append(b.out("GreaterEqual", [diff, b.i64(0)]))
        if left >= 0:
            conds.append(b.out("LessEqual", [diff, b.i64(left)]))
        if right >= 0:
            conds.append(b.out("GreaterEqual", [diff, b.i64(-right)]))
        allowed = conds[0]
        for c in conds[1:]:
            allowed = b.out("LogicalAnd", [allowed, c])
        cm = b.out("Select", [allowed, zero, neg_inf])
        bias = cm if bias is None else b.out("Add", [bias, cm])
        keep = allowed if keep is None else b.out("LogicalAnd", [keep, allowed])
    if nonpad is not None:
        j = b.out("Range", [b.i64(0), kv_len, b.i64(1)], {"output_type": "i64"})
        ok = b.out("Less", [j, b.reshape(b.convert(nonpad, "i64"), [-1, 1, 1, 1])])
        pm = b.out("Select", [ok, zero, neg_inf])
        bias = pm if bias is None else b.out("Add", [bias, pm])
        keep = ok if keep is None else b.out("LogicalAnd", [keep, ok])

    if qh != kvh:
        if qh % kvh:
            raise node.unsupported("q heads not a multiple of kv heads")
        k = _repeat_heads(b, k, qh // kvh)
        v = _repeat_heads(b, v, qh // kvh)

    qk = b.out(
        "MatMul",
        [b.out("Multiply", [q, sq]), b.out("Multiply", [k, sq])],
        {"transpose_b": True},
    )
    softcap = float(node.attr("softcap", 0.0) or 0.0)
    if softcap > 0:
        c = b.scalar_like(softcap, qk)
        qk = b.out("Multiply", [b.out("Tanh", [b.out("Divide", [qk, c])]), c])
    qk_out = qk
    logits = qk if bias is None else b.out("Add", [qk, bias])
    mode = int(node.attr("qk_matmul_output_mode", 0) or 0)
    if mode == 2:
        qk_out = logits
    dead = None
    if keep is not None:
        # rows without any attendable key give zeros (not NaN)
        live = b.out("ReduceLogicalOr", [keep, b.i64([-1])], {"keep_dims": True})
        dead = b.out("LogicalNot", [live])
    probs = b.out("Softmax", [logits], {"axis": -1})
    if dead is not None:
        probs = b.out("Select", [dead, b.const(np.zeros([1, 1], np.float32), etype), probs])
    if mode == 3:
        qk_out = probs
    y = b.out("MatMul", [probs, v])
    if dead is not None:
        y = b.out("Select", [dead, b.const(np.zeros([1, 1, 1], np.float32), etype), y])
    if rank == 3:
        y = b.out("Transpose", [y, b.i64([0, 2, 1, 3])])
        y = b.reshape(y, [0, 0, -1], special_zero=True)
    if etype != value_etype(y):
        y = b.convert(y, etype)
    outs = [y, present_k, present_v, qk_out]
    return [o if i < node.num_outputs and node.output_names[i] else None for i, o in enumerate(outs)][
        : node.num_outputs
    ]
