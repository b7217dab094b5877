"""LSTMs: nnet1 LstmProjected (a TensorIterator of its own) and nnet3's
LstmNonlinearityComponent (one frame; the loop around it is the network's
recurrence, :mod:`xmo.passes.kaldi_to_ov.recurrence`).

LstmNonlinearityComponent: input ``[i_part, f_part, c_part, o_part, c_prev]``
(``5C``), ``Params`` ``[3, C]`` (peepholes ``w_ic``, ``w_fc``, ``w_oc``),
output ``[c_t, m_t]`` (``2C``)::

    i = sigmoid(i_part + w_ic c_prev);  f = sigmoid(f_part + w_fc c_prev)
    c_t = f c_prev + i tanh(c_part);  o = sigmoid(o_part + w_oc c_t);  m_t = o tanh(c_t)

nnet1 LstmProjected (peepholes, projection, cell clipping) as a TensorIterator.

Kaldi's forward pass, per frame ``t`` (gates in ``g i f o`` order, ``W_x``
``[4C, in]``, ``W_r`` ``[4C, P]``, ``W_rm`` ``[P, C]``)::

    z = W_x x_t + W_r r_{t-1} + bias
    g = tanh(z_g);  i = sigmoid(z_i + p_i * c_{t-1});  f = sigmoid(z_f + p_f * c_{t-1})
    c_t = clip(f * c_{t-1} + i * g, cell_clip)      (no clip when cell_clip <= 0)
    o = sigmoid(z_o + p_o * c_t);  r_t = W_rm (o * tanh(c_t))

The input projection ``x W_x^T + bias`` is one MatMul over all frames; the
TensorIterator walks the frames of the window (see
:mod:`xmo.passes.kaldi_to_ov`) from zero ``c`` and ``r`` and concatenates
``r_t``. Peepholes make OpenVINO's LSTMCell/LSTMSequence unusable here.
"""

from __future__ import annotations

import numpy as np
from xdsl.ir import Block, Region, SSAValue

from xmo.dialects.ov import ParameterOp, ResultOp, TensorIteratorOp
from xmo.dialects.ov.port_map import ConcatOutput, InputSlice, MergedInput
from xmo.passes.kaldi_to_ov.convert import KaldiNode
from xmo.passes.kaldi_to_ov.families.components import affine
from xmo.passes.kaldi_to_ov.registry import kaldi_converter
from xmo.passes.to_ov.builder import Builder


def _arr(node: KaldiNode, name: str, shape: tuple[int, ...]) -> np.ndarray:
    a = node.attr(name)
    if a is None:
        raise node.unsupported(f"no {name}")
    a = np.asarray(a, np.float32)
    if a.size != int(np.prod(shape)):
        raise node.unsupported(f"{name} has {a.size} values, expected {'x'.join(map(str, shape))}")
    return a.reshape(shape)


@kaldi_converter("LstmProjected")
def _lstm_projected(node: KaldiNode, b: Builder) -> SSAValue:
    wx = node.attr("WeightsGifoX")
    wrm = node.attr("WeightsRM")
    if wx is None or wrm is None:
        raise node.unsupported("no weights")
    proj, cell = np.asarray(wrm).reshape(-1, np.asarray(node.attr("PeepholeIC")).size).shape
    wr = _arr(node, "WeightsGifoR", (4 * cell, proj))
    pi, pf, po = (_arr(node, k, (cell,)) for k in ("PeepholeIC", "PeepholeFC", "PeepholeOC"))
    wrm = _arr(node, "WeightsRM", (proj, cell))
    clip = float(node.attr("CellClip", 50.0))

    xw = affine(node, b, node.input(0), "WeightsGifoX", "Bias")  # [T, 4C]

    body = Builder(b.store, f"{node.name}/body")
    p_x = ParameterOp.new("f32", [1, 4 * cell], name=f"{node.name}/body/x")
    p_c = ParameterOp.new("f32", [1, cell], name=f"{node.name}/body/c")
    p_r = ParameterOp.new("f32", [1, proj], name=f"{node.name}/body/r")
    c_prev, r_prev = p_c.results[0], p_r.results[0]
    z = body.out("Add", [p_x.results[0], body.out("MatMul", [r_prev, body.const(wr)],
                                                   {"transpose_a": False, "transpose_b": True})])
    g, i, f, o = body.op("Split", [z, body.i64(1)], {"num_splits": 4}, num_outputs=4).results
    g = body.out("Tanh", [g])
    i = body.out("Sigmoid", [body.out("Add", [i, body.out("Multiply", [c_prev, body.const(pi)])])])
    f = body.out("Sigmoid", [body.out("Add", [f, body.out("Multiply", [c_prev, body.const(pf)])])])
    c = body.out("Add", [body.out("Multiply", [f, c_prev]), body.out("Multiply", [i, g])])
    if clip > 0:
        c = body.out("Clamp", [c], {"min": -clip, "max": clip})
    o = body.out("Sigmoid", [body.out("Add", [o, body.out("Multiply", [c, body.const(po)])])])
    m = body.out("Multiply", [o, body.out("Tanh", [c])])
    r = body.out("MatMul", [m, body.const(wrm)], {"transpose_a": False, "transpose_b": True})
    ops = [p_x, p_c, p_r, *body.ops, ResultOp.new(c), ResultOp.new(r), ResultOp.new(r)]
    region = Region(Block(ops))

    c0 = b.const(np.zeros((1, cell), np.float32))
    r0 = b.const(np.zeros((1, proj), np.float32))
    ti = TensorIteratorOp.new(
        [xw, c0, r0], region,
        [InputSlice(external=0, parameter=0, axis=0), MergedInput(external=1, parameter=1, result=0),
         MergedInput(external=2, parameter=2, result=1)],
        [ConcatOutput(result=2, external=0, axis=0)],
    )
    ti.set_friendly_name(f"{node.name}/TensorIterator_{len(b.ops)}")
    b.ops.append(ti)
    return ti.results[0]


@kaldi_converter("LstmNonlinearityComponent")
def _lstm_nonlinearity(node: KaldiNode, b: Builder) -> SSAValue:
    params = node.attr("Params")
    if params is None:
        raise node.unsupported("no Params")
    params = np.asarray(params, np.float32)
    if params.ndim != 2 or params.shape[0] != 3:
        raise node.unsupported(f"Params is {params.shape}, expected 3 x cell dim")
    cell = params.shape[1]
    dims = node.shape(0)
    if dims is None or dims[-1] not in (-1, 5 * cell):
        raise node.unsupported(f"input has {dims and dims[-1]} features, expected {5 * cell} "
                               "(dropout masks are not supported)")
    i, f, g, o, c_prev = b.op("Split", [node.input(0), b.i64(1)], {"num_splits": 5},
                              num_outputs=5).results
    i = b.out("Sigmoid", [b.out("Add", [i, b.out("Multiply", [c_prev, b.const(params[0])])])])
    f = b.out("Sigmoid", [b.out("Add", [f, b.out("Multiply", [c_prev, b.const(params[1])])])])
    c = b.out("Add", [b.out("Multiply", [f, c_prev]), b.out("Multiply", [i, b.out("Tanh", [g])])])
    o = b.out("Sigmoid", [b.out("Add", [o, b.out("Multiply", [c, b.const(params[2])])])])
    return b.concat([c, b.out("Multiply", [o, b.out("Tanh", [c])])], 1)
