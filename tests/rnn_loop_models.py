"""Test helpers: recurrent cells written by hand as the body of an ONNX Scan or
Loop, the way a user or an exporter writes them (MatMul, Add, Split / Slice,
Sigmoid, Tanh, Mul, Sub), for the ``ov-loop-to-sequence`` tests.

:class:`Cell` says how the cell is written, :class:`Wrap` how it is iterated;
:func:`rnn_model` builds the model (weights are outer-graph initializers the
body reads) and :func:`rnn_feeds` inputs for it. The time length (and the
batch) are symbolic dims, so xmo keeps the loop (an ov.TensorIterator or
ov.Loop) rather than unrolling it.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

F = TensorProto.FLOAT
I64 = TensorProto.INT64
B = TensorProto.BOOL

#: the gate blocks of each kind, in the order Keras stores them
KERAS_GATES = {"lstm": ("i", "f", "c", "o"), "gru": ("z", "r", "h"), "rnn": ("h",)}


@dataclass(frozen=True)
class Cell:
    """How the cell is written."""

    kind: str  # "lstm" | "gru" | "rnn"
    hidden: int = 4
    features: int = 3
    #: one MatMul of Concat([x, h]) (else x @ W + h @ R)
    fused: bool = False
    #: "none", "once" (one bias added to the sum) or "twice" (one per MatMul)
    bias: str = "once"
    #: how the gates are cut: "split" (Split) or "slice" (one Slice per gate)
    split: str = "split"
    #: the gate blocks' order in the weights (default: Keras')
    order: tuple[str, ...] | None = None
    #: GRU: the reset gate multiplies the recurrent MatMul's result (else its input)
    lbr: bool = True
    #: the cell's activation (LSTM: the candidate's and the output's)
    activation: str = "Tanh"
    #: the gate activation
    gate_activation: str = "Sigmoid"
    #: an extra op in the cell (the input gate scaled by 0.5)
    extra: bool = False
    #: the operands of the Adds and Muls swapped
    commuted: bool = False

    @property
    def gates(self) -> tuple[str, ...]:
        return self.order or KERAS_GATES[self.kind]


@dataclass(frozen=True)
class Wrap:
    """How the cell is iterated."""

    #: "scan" (ONNX Scan -> ov.TensorIterator) or "loop" (ONNX Loop with a
    #: Gather of the iteration number -> ov.Loop)
    form: str = "scan"
    batch_first: bool = False
    #: Scan direction 1 (input and output scanned backwards)
    reverse: bool = False
    #: h0 (c0) are graph inputs; else zeros of the batch size
    initial: bool = True
    #: graph outputs: "sequence" (y), "last" (h [, c]) or "both"
    outputs: str = "both"
    #: a static time length (and batch) in the model's input: xmo would
    #: unroll such a loop, unless it is a recurrent cell
    static: tuple[int, int] | None = None


class _Names:
    def __init__(self) -> None:
        self.n = 0

    def __call__(self, base: str) -> str:
        self.n += 1
        return f"{base}_{self.n}"


def _pair(cell: Cell, a: str, b: str) -> list[str]:
    return [b, a] if cell.commuted else [a, b]


def _cell_nodes(cell: Cell, x: str, h: str, c: str | None, rng: np.random.Generator):
    """(nodes, initializers, h_new, c_new) of one step."""
    H, I = cell.hidden, cell.features
    g = len(KERAS_GATES[cell.kind])
    name = _Names()
    nodes: list[onnx.NodeProto] = []
    inits: list[onnx.TensorProto] = []

    def init(base: str, value: np.ndarray, dtype=np.float32) -> str:
        n = name(base)
        inits.append(numpy_helper.from_array(np.asarray(value).astype(dtype), n))
        return n

    def node(op: str, ins: list[str], **attrs) -> str:
        out = name(op.lower())
        nodes.append(helper.make_node(op, ins, [out], **attrs))
        return out

    def w(rows: int, cols: int) -> np.ndarray:
        return rng.standard_normal((rows, cols)) * (0.7 / np.sqrt(rows))

    def gate_cols(value: str, k: int) -> list[str]:
        """``value`` [B, k*H] cut into k gate blocks."""
        if cell.split == "split":
            outs = [name("gate") for _ in range(k)]
            sizes = init("sizes", [H] * k, np.int64)
            nodes.append(helper.make_node("Split", [value, sizes], outs, axis=1))
            return outs
        axes = init("axes", [-1], np.int64)
        return [
            node("Slice", [value, init("st", [j * H], np.int64),
                           init("en", [(j + 1) * H], np.int64), axes])
            for j in range(k)
        ]

    def affine(k: int, xin: str = x, hin: str = h, with_h: bool = True) -> str:
        """xin @ Wx + hin @ Wh (+ bias) over k gate blocks, as the cell writes it."""
        cols = k * H
        if cell.fused and with_h:
            xh = node("Concat", [xin, hin], axis=1)
            z = node("MatMul", [xh, init("W", w(I + H, cols))])
            if cell.bias != "none":
                z = node("Add", _pair(cell, z, init("b", 0.1 * rng.standard_normal(cols))))
            return z
        zx = node("MatMul", [xin, init("Wx", w(I, cols))])
        if cell.bias == "twice":
            zx = node("Add", _pair(cell, zx, init("bx", 0.1 * rng.standard_normal(cols))))
        if not with_h:
            if cell.bias == "once":
                zx = node("Add", _pair(cell, zx, init("b", 0.1 * rng.standard_normal(cols))))
            return zx
        zh = node("MatMul", [hin, init("Wh", w(H, cols))])
        if cell.bias == "twice":
            zh = node("Add", _pair(cell, zh, init("bh", 0.1 * rng.standard_normal(cols))))
        z = node("Add", _pair(cell, zx, zh))
        if cell.bias == "once":
            z = node("Add", _pair(cell, z, init("b", 0.1 * rng.standard_normal(cols))))
        return z

    act, gact = cell.activation, cell.gate_activation
    if cell.kind == "rnn":
        return nodes, inits, node(act, [affine(1)]), None
    if cell.kind == "lstm":
        parts = dict(zip(cell.gates, gate_cols(affine(g), g)))
        i = node(gact, [parts["i"]])
        f = node(gact, [parts["f"]])
        cc = node(act, [parts["c"]])
        o = node(gact, [parts["o"]])
        ig = node("Mul", _pair(cell, i, cc))
        if cell.extra:
            ig = node("Mul", [ig, init("half", np.array(0.5))])
        assert c is not None
        c_new = node("Add", _pair(cell, node("Mul", _pair(cell, f, c)), ig))
        h_new = node("Mul", _pair(cell, o, node(act, [c_new])))
        return nodes, inits, h_new, c_new
    # GRU: gates z (update), r (reset), h (candidate)
    order = list(cell.gates)
    if cell.lbr:
        xs = dict(zip(order, gate_cols(affine(3, with_h=False), 3)))
        hm = node("MatMul", [h, init("Wh", w(H, 3 * H))])
        if cell.bias != "none":
            hm = node("Add", _pair(cell, hm, init("bh", 0.1 * rng.standard_normal(3 * H))))
        hs = dict(zip(order, gate_cols(hm, 3)))
        z = node(gact, [node("Add", _pair(cell, xs["z"], hs["z"]))])
        r = node(gact, [node("Add", _pair(cell, xs["r"], hs["r"]))])
        cand = node("Add", _pair(cell, xs["h"], node("Mul", _pair(cell, r, hs["h"]))))
    else:
        zr_order = [k for k in order if k != "h"]
        zr = dict(zip(zr_order, gate_cols(affine(2), 2)))
        z = node(gact, [zr["z"]])
        r = node(gact, [zr["r"]])
        rh = node("Mul", _pair(cell, r, h))
        cand = affine(1, hin=rh)
    n = node(act, [cand])
    if cell.extra:
        n = node("Mul", [n, init("half", np.array(0.5))])
    one = init("one", np.array(1.0))
    zh = node("Mul", _pair(cell, z, h))
    zn = node("Mul", _pair(cell, node("Sub", [one, z]), n))
    return nodes, inits, node("Add", _pair(cell, zh, zn)), None


def _vi(name: str, t: int, shape) -> onnx.ValueInfoProto:
    return helper.make_tensor_value_info(name, t, shape)


def _layer(cell: Cell, wrap: Wrap, rng: np.random.Generator, states: list[str],
           reverse: bool, out: str):
    """(nodes, initializers) of one recurrent layer over ``x`` from the initial
    ``states``: outputs ``<out>_y`` (every step's h), ``<out>_h`` (``<out>_c``)."""
    H, I = cell.hidden, cell.features
    lstm = cell.kind == "lstm"
    t_axis = 1 if wrap.batch_first else 0
    names = [f"{out}_h", f"{out}_c"] if lstm else [f"{out}_h"]
    nodes: list[onnx.NodeProto] = []
    cn, inits, h_new, c_new = _cell_nodes(cell, "x_t", "h_in", "c_in" if lstm else None, rng)
    for t in inits:
        t.name = f"{out}_{t.name}"
    rename = {f"{t.name[len(out) + 1:]}": t.name for t in inits}
    for n in cn:
        n.input[:] = [rename.get(i, i) for i in n.input]
    body_states = ["h_in", "c_in"] if lstm else ["h_in"]
    new = [h_new, c_new] if lstm else [h_new]
    cn.append(helper.make_node("Identity", [h_new], ["y_t"]))
    outs = [*(_vi(o, F, ["N", H]) for o in new), _vi("y_t", F, ["N", H])]
    if wrap.form == "scan":
        body = helper.make_graph(
            cn, "cell", [*(_vi(s, F, ["N", H]) for s in body_states), _vi("x_t", F, ["N", I])], outs
        )
        d = 1 if reverse else 0
        nodes.append(helper.make_node(
            "Scan", [*states, "x"], [*names, f"{out}_y"], body=body, num_scan_inputs=1,
            scan_input_axes=[t_axis], scan_output_axes=[t_axis],
            scan_input_directions=[d], scan_output_directions=[d],
        ))  # fmt: skip
        return nodes, inits
    assert not reverse, "a reverse Loop is not written here"
    inits.append(numpy_helper.from_array(np.array(t_axis, np.int64), f"{out}_t_axis"))
    nodes += [
        helper.make_node("Shape", ["x"], [f"{out}_xshape"]),
        helper.make_node("Gather", [f"{out}_xshape", f"{out}_t_axis"], [f"{out}_steps"]),
    ]
    cn = [helper.make_node("Gather", ["x", "i"], ["x_t"], axis=t_axis), *cn,
          helper.make_node("Identity", ["cond_in"], ["cond_out"])]
    body = helper.make_graph(
        cn, "cell",
        [_vi("i", I64, []), _vi("cond_in", B, []), *(_vi(s, F, ["N", H]) for s in body_states)],
        [_vi("cond_out", B, []), *outs],
    )  # fmt: skip
    # a Loop stacks every step's output on a new axis 0
    y = f"{out}_ytm" if wrap.batch_first else f"{out}_y"
    nodes.append(helper.make_node("Loop", [f"{out}_steps", "", *states], [*names, y], body=body))
    if wrap.batch_first:
        nodes.append(helper.make_node("Transpose", [y], [f"{out}_y"], perm=[1, 0, 2]))
    return nodes, inits


def rnn_model(cell: Cell, wrap: Wrap = Wrap(), seed: int = 0,
              both_directions: bool = False) -> onnx.ModelProto:
    """``x`` ([T, N, I], or [N, T, I] batch first) -> the graph outputs of
    ``wrap.outputs``: ``y`` (every step's h, the layout of x), ``h`` (and
    ``c``, LSTM) the last state. ``both_directions``: two Scans, forward and
    backward, their outputs concatenated on the last axis."""
    rng = np.random.default_rng(seed)
    H, I = cell.hidden, cell.features
    lstm = cell.kind == "lstm"
    b_axis = 0 if wrap.batch_first else 1
    steps, batch = wrap.static or ("T", "N")
    xdims = [batch, steps, I] if wrap.batch_first else [steps, batch, I]
    nodes: list[onnx.NodeProto] = []
    inputs = [_vi("x", F, xdims)]
    inits: list[onnx.TensorProto] = []
    states = ["h0", "c0"] if lstm else ["h0"]
    if wrap.initial:
        inputs += [_vi(s, F, [batch, H]) for s in states]
    else:
        inits += [numpy_helper.from_array(np.array([b_axis], np.int64), "b_axis"),
                  numpy_helper.from_array(np.array([H], np.int64), "hidden")]
        nodes += [
            helper.make_node("Shape", ["x"], ["xshape"]),
            helper.make_node("Gather", ["xshape", "b_axis"], ["batch"]),
            helper.make_node("Concat", ["batch", "hidden"], ["state_shape"], axis=0),
        ]
        for s in states:
            nodes.append(helper.make_node(
                "ConstantOfShape", ["state_shape"], [s],
                value=numpy_helper.from_array(np.zeros([1], np.float32)),
            ))  # fmt: skip
    layers = [("fw", wrap.reverse), ("bw", True)] if both_directions else [("l", wrap.reverse)]
    for out, reverse in layers:
        ln, li = _layer(cell, wrap, rng, states, reverse, out)
        nodes += ln
        inits += li
    results = ["y", "h", "c"] if lstm else ["y", "h"]
    for r in results:
        parts = [f"{out}_{r}" for out, _ in layers]
        nodes.append(helper.make_node("Concat", parts, [r], axis=-1) if len(parts) > 1
                     else helper.make_node("Identity", parts, [r]))
    width = H * len(layers)
    ydims = [batch, steps, width] if wrap.batch_first else [steps, batch, width]
    outputs = []
    if wrap.outputs in ("sequence", "both"):
        outputs.append(_vi("y", F, ydims))
    if wrap.outputs in ("last", "both"):
        outputs += [_vi("h", F, [batch, width])] + ([_vi("c", F, [batch, width])] if lstm else [])
    g = helper.make_graph(nodes, "rnn", inputs, outputs, initializer=inits)
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)])
    m.ir_version = 8
    onnx.checker.check_model(m)
    return m


def rnn_feeds(cell: Cell, wrap: Wrap = Wrap(), steps: int = 5, batch: int = 2,
              seed: int = 1) -> dict[str, np.ndarray]:
    rng = np.random.default_rng(seed)
    shape = [batch, steps, cell.features] if wrap.batch_first else [steps, batch, cell.features]
    feeds = {"x": rng.standard_normal(shape).astype(np.float32)}
    if wrap.initial:
        for s in ("h0", "c0") if cell.kind == "lstm" else ("h0",):
            feeds[s] = (0.5 * rng.standard_normal([batch, cell.hidden])).astype(np.float32)
    return feeds


# ---------------------------------------------------------------------------
# A Keras layer's while loop, as OpenVINO's TensorFlow frontend builds it
# ---------------------------------------------------------------------------


@dataclass(frozen=True)
class KerasLayer:
    """A Keras LSTM / GRU (reset_after) / SimpleRNN layer's while loop as an ov
    Loop, the way OpenVINO's TensorFlow frontend converts it (and
    ``xmo-opt model.xml`` reads it back): x transposed to time major and
    Gathered at the carried ``time``; carried ``loop_counter`` and ``time``;
    the body condition ``counter + 1 < T and time + 1 < T``; trip count -1;
    the outputs written into a carried list with ScatterUpdate (a list of T
    for return_sequences, else of 1 overwritten at 0) and the last output cut
    from it outside; go_backwards: the time-major x reversed (a Slice with
    step -1, as xmo converts ReverseV2)."""

    kind: str
    units: int = 4
    return_sequences: bool = False
    go_backwards: bool = False


def keras_loop(g, x, layer: KerasLayer, steps: int, rng: np.random.Generator):
    """Add ``layer``'s Loop on ``x`` ([N, steps, I]) to the ov graph builder
    ``g`` (tests/ov_graphs.py); returns the layer's output."""
    from xmo.dialects.ov import ConstantOp, op_class
    from xmo.dialects.ov.base import dims_of, tensor
    from xmo.dialects.ov.control_ops import LoopOp, make_body
    from xmo.dialects.ov.port_map import InvariantInput, LastOutput, MergedInput

    H = layer.units
    feats = dims_of(x.type)[2]
    gates = {"lstm": 4, "gru": 3, "rnn": 1}[layer.kind]
    kernel = (rng.standard_normal((feats, gates * H)) / np.sqrt(feats)).astype(np.float32)
    recurrent = (0.8 * rng.standard_normal((H, gates * H)) / np.sqrt(H)).astype(np.float32)
    bias_rows = 2 if layer.kind == "gru" else 1
    bias = (0.1 * rng.standard_normal((bias_rows, gates * H))).astype(np.float32)

    def make(t: str, ins, attrs=None, version=None, **kw):
        return op_class(t, version).make(ins, attrs, **kw)

    def c(a, dtype=np.float32):
        return ConstantOp.from_array(np.asarray(a, dtype), store=g.store)

    xt = g.T(x, [1, 0, 2])
    if layer.go_backwards:
        xt = g.op("Slice", [xt, g.i64([-1]), g.i64([-(2**63 - 1)]), g.i64([-1]), g.i64([0])])
    batch = g.op("Gather", [g.op("ShapeOf", [x]), g.i64([0]), g.i64(0)])
    zeros = g.typed("Broadcast", [g.const(0.0), g.op("Concat", [batch, g.i64([H])], {"axis": 0})],
                    {"mode": "numpy"}, tensor("f32", [-1, H]))
    length = steps if layer.return_sequences else 1
    lstm = layer.kind == "lstm"
    carried = [tensor("i32", []), tensor("i32", []), tensor("f32", [length, -1, -1]),
               tensor("f32", [-1, H])] + ([tensor("f32", [-1, H])] if lstm else [])

    def body(counter, time, lst, h, *rest):
        cs, xs = (rest[0], rest[1]) if lstm else (None, rest[0])
        x_t = make("Gather", [xs, time, c([0], np.int32)])

        def dense(v, w):  # OpenVINO keeps the weights transposed, transpose_b
            return make("MatMul", [v, c(w.T)], {"transpose_b": True})

        def split(v, n):
            return list(make("Split", [v, c(1, np.int32)], {"num_splits": n}, num_outputs=n).results)

        if layer.kind == "lstm":
            z = make("Add", [make("Add", [dense(x_t, kernel), dense(h, recurrent)]), c(bias)])
            i, f, cc, o = split(z, 4)
            c_new = make("Add", [make("Multiply", [make("Sigmoid", [f]), cs]),
                                 make("Multiply", [make("Sigmoid", [i]), make("Tanh", [cc])])])
            h_new = make("Multiply", [make("Sigmoid", [o]), make("Tanh", [c_new])])
            news = [h_new, c_new]
        elif layer.kind == "gru":
            xz, xr, xh = split(make("Add", [dense(x_t, kernel), c(bias[:1])]), 3)
            inner = make("Add", [dense(h, recurrent), c(bias[1:])])

            def cols(k):  # StridedSlice with masks, as the frontend writes matrix_inner[:, a:b]
                return make("StridedSlice", [inner, c([0, k * H], np.int64),
                                             c([0, (k + 1) * H], np.int64), c([1, 1], np.int64)],
                            {"begin_mask": [1, 0], "end_mask": [1, 0], "new_axis_mask": [],
                             "shrink_axis_mask": [], "ellipsis_mask": []})

            z = make("Sigmoid", [make("Add", [xz, cols(0)])])
            r = make("Sigmoid", [make("Add", [xr, cols(1)])])
            hh = make("Tanh", [make("Add", [xh, make("Multiply", [r, cols(2)])])])
            one_minus = make("Subtract", [c([[1.0]]), z])
            h_new = make("Add", [make("Multiply", [z, h]), make("Multiply", [one_minus, hh])])
            news = [h_new]
        else:
            pre = make("Add", [make("Add", [dense(x_t, kernel), c(bias)]), dense(h, recurrent)])
            h_new = make("Tanh", [pre])
            news = [h_new]
        h_new = news[0]
        shape = make("Concat", [make("Slice", [make("ShapeOf", [lst]), c([0], np.int64),
                                               c([1], np.int64), c([1], np.int64),
                                               c([0], np.int64)]),
                                make("ShapeOf", [h_new])], {"axis": 0})
        data = op_class("Broadcast", "opset1").make(
            [lst, shape], {"mode": "numpy"}, result_types=[tensor("f32", [length, -1, H])])
        idx = (make("Reshape", [time, c([1], np.int64)], {"special_zero": False})
               if layer.return_sequences else c([0], np.int32))
        written = make("ScatterUpdate", [data, idx, make("Unsqueeze", [h_new, c([0], np.int32)]),
                                         c([0], np.int32)])
        counter1 = make("Add", [counter, c(1, np.int32)])
        time1 = make("Add", [time, c(1, np.int32)])
        go_on = make("LogicalAnd", [make("Less", [counter1, c(steps, np.int32)]),
                                    make("Less", [time1, c(steps, np.int32)])])
        return [counter1, time1, written, *news, go_on]

    region = make_body([*carried, xt.type], body)
    n = len(carried)
    inputs = [g.const(0, np.int32), g.const(0, np.int32), g.const(np.zeros([length, 1, 1])),
              zeros] + ([zeros] if lstm else []) + [xt]
    loop = LoopOp.new(
        g.const(-1, np.int32), g.const(True, np.bool_), inputs, region,
        [*(MergedInput(2 + k, k, k) for k in range(n)), InvariantInput(2 + n, n)],
        [LastOutput(2, 0)], body_condition_output_idx=n,
    )
    out = g._add(loop).results[0]
    if layer.return_sequences:
        return g.T(out, [1, 0, 2])
    return g.op("StridedSlice", [out, g.i64([-1]), g.i64([0]), g.i64([1])],
                {"begin_mask": [0], "end_mask": [0], "new_axis_mask": [],
                 "shrink_axis_mask": [1], "ellipsis_mask": []})


def keras_model(layers: list[list[KerasLayer]], steps: int = 5, features: int = 3, seed: int = 0):
    """An ov graph builder (tests/ov_graphs.py) holding Keras layers over
    ``x [N, steps, features]``: each entry of ``layers`` is one layer, or
    several run on the same input and concatenated (Bidirectional)."""
    from ov_graphs import G

    g = G(seed)
    rng = np.random.default_rng(seed)
    y = g.param([-1, steps, features], "x")
    for group in layers:
        outs = []
        for layer in group:
            out = keras_loop(g, y, layer, steps, rng)
            if len(group) > 1 and layer.go_backwards and layer.return_sequences:
                # Bidirectional puts the backward sequence back in time order
                out = g.op("Slice", [out, g.i64([-1]), g.i64([-(2**63 - 1)]), g.i64([-1]),
                                     g.i64([1])])
            outs.append(out)
        y = outs[0] if len(outs) == 1 else g.op("Concat", outs, {"axis": -1})
    g.result(y, "y")
    return g
