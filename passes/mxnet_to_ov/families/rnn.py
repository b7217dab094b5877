"""The fused ``RNN`` operator (modes ``lstm``, ``gru``, ``rnn_relu``,
``rnn_tanh``; uni- or bidirectional; several layers; state inputs and
outputs) -> one OpenVINO ``LSTMSequence`` / ``GRUSequence`` / ``RNNSequence``
per layer.

MXNet's RNN takes time-major data ``[T, N, C]``, a flat ``parameters`` vector
(cuDNN's packing: every layer's and direction's ``W_i2h [G*H, in]`` and
``W_h2h [G*H, H]`` first, layer by layer, direction by direction, then every
``b_i2h [G*H]`` and ``b_h2h [G*H]`` in the same order), ``state`` (and, for
LSTM, ``state_cell``) ``[L*D, N, H]``. Gates: LSTM ``i f g o`` (OpenVINO
``f i c o``), GRU ``r z n`` (OpenVINO ``z r h``, with the reset applied
after the recurrent product: ``linear_before_reset``). The parameters must
be a constant: they are cut into each layer's W, R and B at conversion time.
Outputs: ``[T, N, D*H]``, then (``state_outputs``) the final states
``[L*D, N, H]``.
"""

from __future__ import annotations

import numpy as np
from xdsl.ir import SSAValue

from xmo.dialects.ov.base import tensor
from xmo.passes.mxnet_to_ov import attrs as A
from xmo.passes.mxnet_to_ov.registry import mxnet_converter
from xmo.passes.to_ov.builder import Builder, ConverterNode

#: mode -> (gates, OpenVINO op, MXNet gate index of each OpenVINO gate, activations)
_MODES = {
    "lstm": (4, "LSTMSequence", [1, 0, 2, 3], ["sigmoid", "tanh", "tanh"]),
    "gru": (3, "GRUSequence", [1, 0, 2], ["sigmoid", "tanh"]),
    "rnn_tanh": (1, "RNNSequence", [0], ["tanh"]),
    "rnn_relu": (1, "RNNSequence", [0], ["relu"]),
}


def _gates(m: np.ndarray, order: list[int], hidden: int) -> np.ndarray:
    """Rows of gate blocks ``[G*H, ...]`` in OpenVINO's gate order."""
    return np.concatenate([m[g * hidden : (g + 1) * hidden] for g in order], axis=0)


def unpack_parameters(
    node: ConverterNode, flat: np.ndarray, mode: str, layers: int, dirs: int, hidden: int, inputs: int
) -> list[tuple[np.ndarray, np.ndarray, np.ndarray]]:
    """``(W [D, G*H, in], R [D, G*H, H], B [D, G*H or 4H])`` per layer, in
    OpenVINO's gate order, from MXNet's flat parameter vector."""
    gates, _, order, _ = _MODES[mode]
    gh = gates * hidden
    flat = np.asarray(flat).reshape(-1)
    sizes = []
    for layer in range(layers):
        n_in = inputs if layer == 0 else hidden * dirs
        sizes.append(n_in)
    need = sum(dirs * (gh * n_in + gh * hidden + 2 * gh) for n_in in sizes)
    if flat.size != need:
        raise node.unsupported(f"parameters hold {flat.size} values; this RNN needs {need}")
    pos = 0
    weights = []
    for n_in in sizes:
        per_dir = []
        for _ in range(dirs):
            w = flat[pos : pos + gh * n_in].reshape(gh, n_in)
            pos += gh * n_in
            r = flat[pos : pos + gh * hidden].reshape(gh, hidden)
            pos += gh * hidden
            per_dir.append((w, r))
        weights.append(per_dir)
    out = []
    for layer in range(layers):
        ws, rs, bs = [], [], []
        for d in range(dirs):
            wb = flat[pos : pos + gh]
            rb = flat[pos + gh : pos + 2 * gh]
            pos += 2 * gh
            w, r = weights[layer][d]
            ws.append(_gates(w, order, hidden))
            rs.append(_gates(r, order, hidden))
            if mode == "gru":  # [Wb_z + Rb_z, Wb_r + Rb_r, Wb_n, Rb_n]
                wb_o, rb_o = _gates(wb, order, hidden), _gates(rb, order, hidden)
                bs.append(np.concatenate([wb_o[: 2 * hidden] + rb_o[: 2 * hidden],
                                          wb_o[2 * hidden :], rb_o[2 * hidden :]]))
            else:
                bs.append(_gates(wb + rb, order, hidden))
        out.append((np.stack(ws), np.stack(rs), np.stack(bs)))
    return out


@mxnet_converter("RNN")
def rnn(node: ConverterNode, b: Builder):
    mode = A.choice(node, "mode", "lstm", tuple(_MODES))
    if A.integer(node, "projection_size", None):
        raise node.unsupported("LSTM projection (projection_size)")
    if A.flag(node, "use_sequence_length", False):
        raise node.unsupported("use_sequence_length")
    if A.number(node, "lstm_state_clip_min", None) is not None:
        raise node.unsupported("lstm_state_clip_min/max")
    hidden = A.integer(node, "state_size", 0) or 0
    layers = A.integer(node, "num_layers", 1) or 1
    dirs = 2 if A.flag(node, "bidirectional", False) else 1
    x = node.input(0)
    xs = node.shape(0)
    if xs is None or len(xs) != 3 or xs[2] < 0:
        raise node.unsupported("data must be [T, N, C] with a static C")
    flat = node.const(1)
    if flat is None:
        raise node.unsupported("parameters must be a constant")
    etype = node.etype(0)
    per_layer = unpack_parameters(node, flat, mode, layers, dirs, hidden, xs[2])
    _, ov_type, _, acts = _MODES[mode]
    lstm = mode == "lstm"
    y = b.out("Transpose", [x, b.i64([1, 0, 2])])  # [N, T, C]
    shape = b.shape_of(y)
    batch = b.gather(shape, [0], 0)
    seq_lens = b.out("Broadcast", [b.convert(b.gather(shape, 1, 0), "i32"), batch], {"mode": "numpy"})
    zeros = b.out("Broadcast", [b.scalar_like(0, x), b.concat([batch, b.i64([dirs, hidden])], 0)],
                  {"mode": "numpy"})
    hs, cs = [], []
    t, n = xs[0], xs[1]
    for layer, (w, r, bias) in enumerate(per_layer):
        h0 = _state(node, b, 2, layer, dirs, zeros)
        ins = [y, h0]
        if lstm:
            ins.append(_state(node, b, 3, layer, dirs, zeros))
        ins += [seq_lens, b.const(w.astype(np.float32), etype), b.const(r.astype(np.float32), etype),
                b.const(bias.astype(np.float32), etype)]
        attrs = {"direction": "bidirectional" if dirs == 2 else "forward", "hidden_size": hidden,
                 "activations": acts, "activations_alpha": [], "activations_beta": [], "clip": 0.0}
        if mode == "gru":
            attrs["linear_before_reset"] = True
        y_t = tensor(etype, [n, dirs, t, hidden])
        h_t = tensor(etype, [n, dirs, hidden])
        op = b.op(ov_type, ins, attrs, result_types=[y_t, h_t, h_t] if lstm else [y_t, h_t])
        y = b.reshape(b.out("Transpose", [op.results[0], b.i64([0, 2, 1, 3])]), [0, 0, -1],
                      special_zero=True)  # [N, T, D*H]
        hs.append(b.out("Transpose", [op.results[1], b.i64([1, 0, 2])]))
        if lstm:
            cs.append(b.out("Transpose", [op.results[2], b.i64([1, 0, 2])]))
    outs: list[SSAValue | None] = [b.out("Transpose", [y, b.i64([1, 0, 2])])]
    if A.flag(node, "state_outputs", False):
        outs.append(b.concat(hs, 0))
        if lstm:
            outs.append(b.concat(cs, 0))
    return outs


def _state(node: ConverterNode, b: Builder, i: int, layer: int, dirs: int, zeros: SSAValue) -> SSAValue:
    """The initial state of one layer, ``[N, D, H]`` (zeros without a state input)."""
    if not node.has_input(i):
        return zeros
    s = node.input(i)  # [L*D, N, H]
    part = b.out("Slice", [s, b.i64([layer * dirs]), b.i64([(layer + 1) * dirs]), b.i64([1]), b.i64([0])])
    return b.out("Transpose", [part, b.i64([1, 0, 2])])
