"""convert-tf-to-ov, tensor ops (elementwise, activations, reductions, matmul,
shape / array ops, slicing): GraphDefs built with xmo's schema, checked against
OpenVINO's TF frontend (or numpy where that frontend is wrong)."""

from __future__ import annotations

import numpy as np
import pytest
from tf_graphs import Graph, check_tf

pytest.importorskip("openvino")

rng = np.random.default_rng(1)


def _r(*shape, dtype=np.float32):
    return rng.standard_normal(shape).astype(dtype)


def _ints(*shape, lo=-9, hi=10, dtype=np.int32):
    return rng.integers(lo, hi, shape).astype(dtype)


# -- elementwise -----------------------------------------------------------------------

BINARY = ["Add", "AddV2", "Sub", "Mul", "RealDiv", "Maximum", "Minimum", "SquaredDifference",
          "Pow", "FloorDiv", "FloorMod", "Equal", "NotEqual", "Less", "LessEqual", "Greater",
          "GreaterEqual", "DivNoNan"]


@pytest.mark.parametrize("op", BINARY)
def test_binary_broadcast(op, tmp_path):
    g = Graph()
    a = g.placeholder("a", np.float32, [2, 3, 4])
    b = g.placeholder("b", np.float32, [3, 1])
    g.node(op, "y", [a, b])
    av, bv = _r(2, 3, 4), _r(3, 1)
    if op == "Pow":
        av = np.abs(av) + 0.1
    if op == "DivNoNan":
        bv[0, 0] = 0
    check_tf(g, {"a": av, "b": bv}, tmp_path)


@pytest.mark.parametrize("op", ["FloorDiv", "FloorMod", "RealDiv", "Div", "TruncateDiv", "TruncateMod"])
@pytest.mark.parametrize("dtype", [np.int32, np.int64])
def test_integer_division(op, dtype, tmp_path):
    g = Graph()
    a = g.placeholder("a", dtype, [12])
    b = g.placeholder("b", dtype, [12])
    g.node(op, "y", [a, b])
    av = np.array([7, -7, 7, -7, 0, 5, -5, 9, -9, 1, -1, 8], dtype)
    bv = np.array([2, 2, -2, -2, 3, 5, 3, -4, 4, 3, 3, -3], dtype)
    # TF: FloorDiv/FloorMod floor; Div/RealDiv/TruncateDiv/TruncateMod truncate
    want = {
        "FloorDiv": np.floor_divide(av, bv),
        "FloorMod": np.mod(av, bv),
        "RealDiv": np.trunc(av / bv).astype(dtype),
        "Div": np.trunc(av / bv).astype(dtype),
        "TruncateDiv": np.trunc(av / bv).astype(dtype),
        "TruncateMod": np.fmod(av, bv),
    }[op]
    check_tf(g, {"a": av, "b": bv}, tmp_path, want=[want])


def test_float_floor_div_mod(tmp_path):
    g = Graph()
    a = g.placeholder("a", np.float32, [6])
    b = g.placeholder("b", np.float32, [6])
    g.node("FloorDiv", "q", [a, b])
    g.node("FloorMod", "r", [a, b])
    av = np.float32([7.5, -7.5, 7.5, -7.5, 1, 0.5])
    bv = np.float32([2, 2, -2, -2, 3, 0.25])
    check_tf(g, {"a": av, "b": bv}, tmp_path, want=[np.floor_divide(av, bv), np.mod(av, bv)])


UNARY = ["Abs", "Neg", "Exp", "Floor", "Ceil", "Sign", "Sin", "Cos", "Tanh", "Sigmoid",
         "Relu", "Relu6", "Elu", "Selu", "Softplus", "Softsign", "Square", "Erf", "Atan",
         "Round", "Reciprocal", "Expm1"]
POSITIVE = ["Log", "Sqrt", "Rsqrt", "Log1p"]


@pytest.mark.parametrize("op", UNARY + POSITIVE)
def test_unary(op, tmp_path):
    g = Graph()
    x = g.placeholder("x", np.float32, [2, 3, 5])
    g.node(op, "y", [x])
    xv = _r(2, 3, 5) * 4
    if op in POSITIVE:
        xv = np.abs(xv) + 0.1
    if op == "Round":
        xv = np.float32([[[0.5, 1.5, 2.5, -0.5, -1.5], [2.4, 2.6, -2.6, 3.5, -3.5], [0, 1, 2, 3, 4]]] * 2)
    check_tf(g, {"x": xv}, tmp_path, rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("alpha", [0.2, 1.5])
def test_leaky_relu(alpha, tmp_path):
    g = Graph()
    x = g.placeholder("x", np.float32, [2, 6])
    g.node("LeakyRelu", "y", [x], alpha=alpha)
    check_tf(g, {"x": _r(2, 6)}, tmp_path)


@pytest.mark.parametrize("op", ["Softmax", "LogSoftmax"])
def test_softmax(op, tmp_path):
    g = Graph()
    x = g.placeholder("x", np.float32, [2, 3, 7])
    g.node(op, "y", [x])
    check_tf(g, {"x": _r(2, 3, 7)}, tmp_path)


@pytest.mark.parametrize("op", ["LogicalAnd", "LogicalOr"])
def test_logical(op, tmp_path):
    g = Graph()
    a = g.placeholder("a", np.bool_, [2, 4])
    b = g.placeholder("b", np.bool_, [4])
    y = g.node(op, "y", [a, b], T=None)
    g.node("LogicalNot", "z", [y], T=None)
    check_tf(g, {"a": rng.random((2, 4)) > 0.5, "b": rng.random(4) > 0.5}, tmp_path)


@pytest.mark.parametrize("src,dst", [(np.float32, np.int32), (np.float32, np.bool_), (np.int32, np.float32),
                                     (np.float32, np.float16), (np.int64, np.int32), (np.bool_, np.float32)])
def test_cast(src, dst, tmp_path):
    g = Graph()
    x = g.placeholder("x", src, [8])
    g.node("Cast", "y", [x], T=None, SrcT=np.dtype(src).type, DstT=np.dtype(dst).type, out_dtype=dst)
    if src == np.float32:
        xv = np.float32([-2.7, -1.5, -0.5, 0, 0.4, 0.5, 1.5, 2.7])
    elif src == np.bool_:
        xv = np.array([True, False] * 4)
    else:
        xv = _ints(8, dtype=src)
    want = xv.astype(dst)  # numpy truncates toward zero, as TF
    check_tf(g, {"x": xv}, tmp_path, want=[want])


def test_select_v1_vector_condition(tmp_path):
    g = Graph()
    c = g.placeholder("c", np.bool_, [3])
    a = g.placeholder("a", np.float32, [3, 4])
    b = g.placeholder("b", np.float32, [3, 4])
    g.node("Select", "y", [c, a, b], T=np.float32)
    cv, av, bv = np.array([True, False, True]), _r(3, 4), _r(3, 4)
    check_tf(g, {"c": cv, "a": av, "b": bv}, tmp_path, want=[np.where(cv[:, None], av, bv)])


def test_select_v2_broadcast(tmp_path):
    g = Graph()
    c = g.placeholder("c", np.bool_, [4])
    a = g.placeholder("a", np.float32, [3, 4])
    b = g.placeholder("b", np.float32, [1])
    g.node("SelectV2", "y", [c, a, b], T=np.float32)
    check_tf(g, {"c": rng.random(4) > 0.5, "a": _r(3, 4), "b": _r(1)}, tmp_path)


def test_clip_add_n_zeros_ones_like(tmp_path):
    g = Graph()
    x = g.placeholder("x", np.float32, [2, 5])
    c = g.node("ClipByValue", "clip", [x, g.const("lo", np.float32(-0.5)), g.const("hi", np.float32(0.7))])
    s = g.node("AddN", "sum", [x, c, x], N=3)
    g.node("ZerosLike", "z", [s])
    g.node("OnesLike", "o", [s])
    g.node("Identity", "s_out", [s])
    check_tf(g, {"x": _r(2, 5)}, tmp_path, outputs=["s_out", "z", "o"])


# -- reductions ------------------------------------------------------------------------------


@pytest.mark.parametrize("op", ["Mean", "Sum", "Max", "Min", "Prod"])
@pytest.mark.parametrize("keep", [False, True])
@pytest.mark.parametrize("axes", [[1], [-1, 0], 2, []])
def test_reduce(op, keep, axes, tmp_path):
    g = Graph()
    x = g.placeholder("x", np.float32, [2, 3, 4])
    ax = g.const("axes", np.asarray(axes, np.int32))
    g.node(op, "y", [x, ax], keep_dims=keep, Tidx=np.int32)
    xv = _r(2, 3, 4)
    if axes == [] and not keep:
        # OpenVINO's TF frontend: a reduction over no axes without keep_dims
        # fails to compile on CPU; TF returns the input
        check_tf(g, {"x": xv}, tmp_path, want=[xv])
        return
    check_tf(g, {"x": xv}, tmp_path)


@pytest.mark.parametrize("op", ["All", "Any"])
def test_reduce_logical(op, tmp_path):
    g = Graph()
    x = g.placeholder("x", np.bool_, [3, 4])
    g.node(op, "y", [x, g.const("axes", np.int64([1]))], keep_dims=False, Tidx=np.int64, T=None)
    check_tf(g, {"x": rng.random((3, 4)) > 0.3}, tmp_path)


@pytest.mark.parametrize("op", ["ArgMax", "ArgMin"])
@pytest.mark.parametrize("out", [np.int64, np.int32])
def test_arg_extreme(op, out, tmp_path):
    g = Graph()
    x = g.placeholder("x", np.float32, [3, 5])
    g.node(op, "y", [x, g.const("axis", np.int32(-1))], output_type=out, Tidx=np.int32, out_dtype=out)
    xv = _r(3, 5)
    xv[0] = [1, 3, 3, 0, 3]  # ties: the first index
    xv[1] = [2, 0, 0, 2, 0]
    want = (np.argmax if op == "ArgMax" else np.argmin)(xv, axis=-1).astype(out)
    check_tf(g, {"x": xv}, tmp_path, want=[want])


def test_top_k(tmp_path):
    g = Graph()
    x = g.placeholder("x", np.float32, [3, 6])
    g.node("TopKV2", "t", [x, g.const("k", np.int32(3))], sorted=True)
    g.node("Identity", "values", ["t:0"], T=np.float32)
    g.node("Identity", "indices", ["t:1"], T=np.int32)
    check_tf(g, {"x": _r(3, 6)}, tmp_path, outputs=["values", "indices"])


@pytest.mark.parametrize("exclusive", [False, True])
@pytest.mark.parametrize("reverse", [False, True])
def test_cumsum(exclusive, reverse, tmp_path):
    g = Graph()
    x = g.placeholder("x", np.float32, [3, 5])
    g.node("Cumsum", "y", [x, g.const("axis", np.int32(1))], exclusive=exclusive, reverse=reverse, Tidx=np.int32)
    check_tf(g, {"x": _r(3, 5)}, tmp_path)


# -- matmul ----------------------------------------------------------------------------------


@pytest.mark.parametrize("ta", [False, True])
@pytest.mark.parametrize("tb", [False, True])
def test_matmul(ta, tb, tmp_path):
    g = Graph()
    a = g.placeholder("a", np.float32, [5, 3] if ta else [3, 5])
    b = g.const("b", _r(4, 5) if tb else _r(5, 4))
    g.node("MatMul", "y", [a, b], transpose_a=ta, transpose_b=tb)
    check_tf(g, {"a": _r(5, 3) if ta else _r(3, 5)}, tmp_path)


@pytest.mark.parametrize("op", ["BatchMatMul", "BatchMatMulV2", "BatchMatMulV3"])
@pytest.mark.parametrize("adj_x,adj_y", [(False, False), (True, False), (False, True), (True, True)])
def test_batch_matmul(op, adj_x, adj_y, tmp_path):
    g = Graph()
    sa = [2, 4, 3] if adj_x else [2, 3, 4]
    sb = [1, 5, 4] if adj_y else [1, 4, 5]  # the batch dim broadcasts (V2 / V3)
    if op == "BatchMatMul":
        sb = [2, *sb[1:]]
    a = g.placeholder("a", np.float32, sa)
    b = g.placeholder("b", np.float32, sb)
    extra = {"Ta": np.float32, "Tb": np.float32, "Tout": np.float32} if op == "BatchMatMulV3" else {}
    g.node(op, "y", [a, b], adj_x=adj_x, adj_y=adj_y, T=None if extra else np.float32, **extra,
           out_dtype=np.float32)
    check_tf(g, {"a": _r(*sa), "b": _r(*sb)}, tmp_path)


def test_einsum(tmp_path):
    g = Graph()
    a = g.placeholder("a", np.float32, [2, 3, 4])
    b = g.placeholder("b", np.float32, [2, 4, 5])
    g.node("Einsum", "y", [a, b], equation="bij,bjk->bik", N=2)
    av, bv = _r(2, 3, 4), _r(2, 4, 5)
    check_tf(g, {"a": av, "b": bv}, tmp_path, want=[np.einsum("bij,bjk->bik", av, bv)])


def test_rint_l2loss_linspace(tmp_path):
    g = Graph()
    x = g.placeholder("x", np.float32, [6])
    g.node("Rint", "rint", [x])
    g.node("L2Loss", "l2", [x])
    g.node("LinSpace", "ls", [g.const("start", np.float32(-1)), g.const("stop", np.float32(2)),
                              g.const("num", np.int32(7))], T=np.float32, Tidx=np.int32)
    xv = np.float32([0.5, 1.5, 2.5, -0.5, -2.5, 1.2])
    want = [np.rint(xv), np.float32((xv.astype(np.float64) ** 2).sum() / 2),
            np.linspace(-1, 2, 7).astype(np.float32)]
    check_tf(g, {"x": xv}, tmp_path, outputs=["rint", "l2", "ls"], want=want)
    check_tf(g, {"x": xv}, tmp_path, outputs=["rint", "l2", "ls"])


def _tf_fake_quant(x, lo, hi, bits=8, narrow=False):
    qmin, qmax = (1 if narrow else 0), 2 ** bits - 1
    s = (hi - lo) / (qmax - qmin)
    zp = qmin - lo / s
    nz = qmin if zp < qmin else qmax if zp > qmax else np.floor(zp + 0.5)
    nlo, nhi = (qmin - nz) * s, (qmax - nz) * s
    c = np.clip(x, nlo, nhi)
    return (np.floor((c - nlo) / s + 0.5) * s + nlo).astype(np.float32)


@pytest.mark.parametrize("op", ["FakeQuantWithMinMaxArgs", "FakeQuantWithMinMaxVars"])
@pytest.mark.parametrize("bits,narrow", [(8, False), (4, True)])
def test_fake_quant(op, bits, narrow, tmp_path):
    g = Graph()
    x = g.placeholder("x", np.float32, [4, 6])
    lo, hi = -1.3, 2.1
    if op == "FakeQuantWithMinMaxArgs":
        g.node(op, "y", [x], T=None, min=lo, max=hi, num_bits=bits, narrow_range=narrow)
    else:
        g.node(op, "y", [x, g.const("lo", np.float32(lo)), g.const("hi", np.float32(hi))], T=None,
               num_bits=bits, narrow_range=narrow)
    xv = _r(4, 6) * 2
    want = _tf_fake_quant(xv.astype(np.float64), np.float32(lo).item(), np.float32(hi).item(), bits, narrow)
    check_tf(g, {"x": xv}, tmp_path, want=[want], rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("op", ["BitwiseAnd", "BitwiseOr", "BitwiseXor", "LeftShift", "RightShift"])
def test_bitwise(op, tmp_path):
    g = Graph()
    a = g.placeholder("a", np.int32, [6])
    b = g.placeholder("b", np.int32, [6])
    g.node(op, "y", [a, b])
    av, bv = np.int32([5, -7, 12, 1, 0, 255]), np.int32([3, 2, 1, 4, 7, 3])
    want = {"BitwiseAnd": av & bv, "BitwiseOr": av | bv, "BitwiseXor": av ^ bv,
            "LeftShift": av << bv, "RightShift": av >> bv}[op]
    check_tf(g, {"a": av, "b": bv}, tmp_path, want=[want])
