"""Recurrent layers: RNN, GRU, LSTM -> OpenVINO RNNSequence/GRUSequence/
LSTMSequence (batch-major, gates in OpenVINO order)."""

from __future__ import annotations

import numpy as np
from xdsl.ir import SSAValue

from xmo.dialects.ov.base import dims_of, tensor
from xmo.passes.onnx_to_ov.families._types import attr_str
from xmo.passes.onnx_to_ov.registry import converter
from xmo.passes.to_ov.builder import Builder, ConverterNode

#: number of gates and the ONNX gate index of each OpenVINO gate, in order
_GATES = {
    "RNN": (1, [0]),
    "GRU": (3, [0, 1, 2]),  # z r h in both
    "LSTM": (4, [2, 0, 3, 1]),  # ONNX i o f c -> OpenVINO f i c o
}
_DEFAULT_ACTS = {"RNN": ["tanh"], "GRU": ["sigmoid", "tanh"], "LSTM": ["sigmoid", "tanh", "tanh"]}


def _reorder(b: Builder, v: SSAValue, kind: str, hidden: int, axis: int) -> SSAValue:
    """Permute the gate blocks of ``v`` along ``axis`` to OpenVINO's order."""
    _, order = _GATES[kind]
    if order == sorted(order):
        return v
    idx = np.concatenate([np.arange(g * hidden, (g + 1) * hidden) for g in order])
    return b.gather(v, [int(i) for i in idx], axis)


@converter("RNN", "GRU", "LSTM")
def recurrent(node: ConverterNode, b: Builder):
    return recurrent_of(node, b, node.type, node.input(1), node.input(2))


def recurrent_of(node: ConverterNode, b: Builder, kind: str, w: SSAValue, r: SSAValue):
    """An ONNX-layout recurrent layer ``kind`` of ``node`` with the weights
    ``w`` ``[dirs, gates*H, I]`` and ``r`` ``[dirs, gates*H, H]`` (the other
    inputs and attributes are the node's, at ONNX's positions)."""
    gates, _ = _GATES[kind]
    direction = attr_str(node.attr("direction", "forward"))
    num_dir = 2 if direction == "bidirectional" else 1
    layout = int(node.attr("layout", 0) or 0)
    if kind == "LSTM":
        if node.has_input(7):
            raise node.unsupported("LSTM peepholes (OpenVINO LSTMSequence has none)")
        if int(node.attr("input_forget", 0) or 0):
            raise node.unsupported("LSTM input_forget=1")
    hidden = node.attr("hidden_size")
    rs = dims_of(r.type)
    if not hidden:
        if rs is None or rs[-1] < 0:
            raise node.unsupported("hidden_size unknown")
        hidden = rs[-1]
    hidden = int(hidden)
    etype = node.etype(0)

    acts = [str(attr_str(a)).lower() for a in (node.attr("activations") or [])]
    n_act = len(_DEFAULT_ACTS[kind])
    if not acts:
        acts = _DEFAULT_ACTS[kind]
    if len(acts) == 2 * n_act:
        if acts[:n_act] != acts[n_act:]:
            raise node.unsupported("different activations per direction")
        acts = acts[:n_act]
    alpha = list(node.attr("activation_alpha") or [])
    beta = list(node.attr("activation_beta") or [])
    if len(alpha) == 2 * n_act:
        alpha = alpha[:n_act]
    if len(beta) == 2 * n_act:
        beta = beta[:n_act]

    x = node.input(0)
    if layout == 0:
        x = b.out("Transpose", [x, b.i64([1, 0, 2])])
    xs = node.shape(0)
    if xs is None:
        raise node.unsupported("dynamic rank input")
    batch, seq = (xs[1], xs[0]) if layout == 0 else (xs[0], xs[1])
    xshape = b.shape_of(x)
    batch_v = b.gather(xshape, [0], 0)

    w = _reorder(b, w, kind, hidden, 1)
    r = _reorder(b, r, kind, hidden, 1)
    lbr = kind == "GRU" and int(node.attr("linear_before_reset", 0) or 0)
    if node.has_input(3):
        bias = node.input(3)
        gh = gates * hidden
        wb = b.out("Slice", [bias, b.i64([0]), b.i64([gh]), b.i64([1]), b.i64([1])])
        rb = b.out("Slice", [bias, b.i64([gh]), b.i64([2 * gh]), b.i64([1]), b.i64([1])])
        if lbr:
            # [Wbz+Rbz, Wbr+Rbr, Wbh, Rbh]
            zr = b.out(
                "Add",
                [
                    b.out("Slice", [wb, b.i64([0]), b.i64([2 * hidden]), b.i64([1]), b.i64([1])]),
                    b.out("Slice", [rb, b.i64([0]), b.i64([2 * hidden]), b.i64([1]), b.i64([1])]),
                ],
            )
            wbh = b.out("Slice", [wb, b.i64([2 * hidden]), b.i64([gh]), b.i64([1]), b.i64([1])])
            rbh = b.out("Slice", [rb, b.i64([2 * hidden]), b.i64([gh]), b.i64([1]), b.i64([1])])
            bias = b.concat([zr, wbh, rbh], 1)
        else:
            bias = _reorder(b, b.out("Add", [wb, rb]), kind, hidden, 1)
    else:
        n_b = (gates + 1 if lbr else gates) * hidden
        bias = b.const(np.zeros([num_dir, n_b], np.float32), etype)

    state_shape = b.concat([batch_v, b.i64([num_dir, hidden])], 0)

    def initial(i: int) -> SSAValue:
        if node.has_input(i):
            v = node.input(i)
            return b.out("Transpose", [v, b.i64([1, 0, 2])]) if layout == 0 else v
        return b.out("Broadcast", [b.scalar_like(0, node.input(0)), state_shape], {"mode": "numpy"})

    h0 = initial(5)
    if node.has_input(4):
        seq_lens = b.convert(node.input(4), "i32")
    else:
        seq_lens = b.out(
            "Broadcast",
            [b.convert(b.gather(xshape, 1, 0), "i32"), batch_v],
            {"mode": "numpy"},
        )
    attrs = {
        "direction": direction,
        "hidden_size": hidden,
        "activations": acts,
        "activations_alpha": [float(a) for a in alpha],
        "activations_beta": [float(a) for a in beta],
        "clip": float(node.attr("clip", 0.0) or 0.0),
    }
    y_t = tensor(etype, [batch, num_dir, seq, hidden])
    h_t = tensor(etype, [batch, num_dir, hidden])
    if kind == "LSTM":
        c0 = initial(6)
        ins = [x, h0, c0, seq_lens, w, r, bias]
        rt = [y_t, h_t, h_t]
        ov_type = "LSTMSequence"
    else:
        ins = [x, h0, seq_lens, w, r, bias]
        rt = [y_t, h_t]
        ov_type = "RNNSequence" if kind == "RNN" else "GRUSequence"
        if kind == "GRU":
            attrs["linear_before_reset"] = bool(lbr)
    op = b.op(ov_type, ins, attrs, result_types=rt)
    outs: list[SSAValue | None] = []
    y = op.results[0]
    y = b.out("Transpose", [y, b.i64([2, 1, 0, 3] if layout == 0 else [0, 2, 1, 3])])
    outs.append(y)
    for res in op.results[1:]:
        outs.append(b.out("Transpose", [res, b.i64([1, 0, 2])]) if layout == 0 else res)
    return [o if i < node.num_outputs and node.output_names[i] else None for i, o in enumerate(outs)][
        : node.num_outputs
    ]
