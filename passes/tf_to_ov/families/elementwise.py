"""Elementwise TF ops: arithmetic (numpy broadcasting), comparisons, logic,
unary math, Atan2, Bucketize, Cast, Select, ClipByValue, AddN,
ZerosLike/OnesLike."""

from __future__ import annotations

import numpy as np
from xdsl.ir import SSAValue
from xmo.dialects.ov import element_types as et
from xmo.passes.tf_to_ov.builder import TFBuilder
from xmo.passes.tf_to_ov.registry import tf_converter
from xmo.passes.to_ov.builder import ConverterNode, value_etype
from xmo.passes.to_ov.helpers import scalar

#: TF binary op -> ov op (both numpy broadcasting)
_BINARY = {
    "Add": "Add",
    "AddV2": "Add",
    "Sub": "Subtract",
    "Mul": "Multiply",
    "Maximum": "Maximum",
    "Minimum": "Minimum",
    "Pow": "Power",
    "SquaredDifference": "SquaredDifference",
    "FloorMod": "FloorMod",
    "TruncateMod": "Mod",
    "Mod": "Mod",
    "Equal": "Equal",
    "NotEqual": "NotEqual",
    "Less": "Less",
    "LessEqual": "LessEqual",
    "Greater": "Greater",
    "GreaterEqual": "GreaterEqual",
    "LogicalAnd": "LogicalAnd",
    "LogicalOr": "LogicalOr",
    "BitwiseAnd": "BitwiseAnd",
    "BitwiseOr": "BitwiseOr",
    "BitwiseXor": "BitwiseXor",
    "LeftShift": "BitwiseLeftShift",
    "RightShift": "BitwiseRightShift",
}

#: TF unary op -> ov op
_UNARY = {
    "Abs": "Abs",
    "Neg": "Negative",
    "Exp": "Exp",
    "Log": "Log",
    "Floor": "Floor",
    "Ceil": "Ceiling",
    "Sign": "Sign",
    "Sin": "Sin",
    "Cos": "Cos",
    "Tan": "Tan",
    "Asin": "Asin",
    "Acos": "Acos",
    "Atan": "Atan",
    "Sinh": "Sinh",
    "Cosh": "Cosh",
    "Asinh": "Asinh",
    "Acosh": "Acosh",
    "Atanh": "Atanh",
    "Erf": "Erf",
    "Sqrt": "Sqrt",
    "LogicalNot": "LogicalNot",
    "IsNan": "IsNaN",
    "IsFinite": "IsFinite",
    "Invert": "BitwiseNot",
}

_INT_TYPES = et.INTEGER_TYPES


def etype_attr(node: ConverterNode, name: str) -> str:
    """A TF ``type`` attribute as an OpenVINO element type (unsupported if none)."""
    t = node.attr(name)
    if not isinstance(t, str) or t not in et.OV_ELEMENT_TYPES:
        raise node.unsupported(f"{name}={t} has no OpenVINO element type")
    return t


def _binary(ov_type: str):
    def convert(node: ConverterNode, b: TFBuilder):
        return b.out(ov_type, [node.input(0), node.input(1)])

    return convert


for _tf, _ov in _BINARY.items():
    tf_converter(_tf)(_binary(_ov))


def _unary(ov_type: str):
    def convert(node: ConverterNode, b: TFBuilder):
        return b.out(ov_type, [node.input(0)])

    return convert


for _tf, _ov in _UNARY.items():
    tf_converter(_tf)(_unary(_ov))


def is_int(v: SSAValue) -> bool:
    return value_etype(v) in _INT_TYPES


@tf_converter("RealDiv", "Div", "TruncateDiv")
def div(node: ConverterNode, b: TFBuilder):
    x, y = node.input(0), node.input(1)
    if is_int(x):  # C semantics: the quotient is truncated toward zero
        return b.out("Divide", [x, y], {"m_pythondiv": False})
    return b.out("Divide", [x, y])


@tf_converter("FloorDiv")
def floor_div(node: ConverterNode, b: TFBuilder):
    x, y = node.input(0), node.input(1)
    if is_int(x):
        # (x - floormod(x, y)) is a multiple of y: its truncating quotient is
        # the floored one (OpenVINO's CPU plugin truncates integer Divide
        # whatever m_pythondiv says)
        exact = b.out("Subtract", [x, b.out("FloorMod", [x, y])])
        return b.out("Divide", [exact, y], {"m_pythondiv": False})
    return b.out("Floor", [b.out("Divide", [x, y])])


@tf_converter("DivNoNan")
def div_no_nan(node: ConverterNode, b: TFBuilder):
    x, y = node.input(0), node.input(1)
    zero = b.scalar_like(0, y)
    q = b.out("Divide", [x, y])
    return b.out("Select", [b.out("Equal", [y, zero]), b.scalar_like(0, x), q])


@tf_converter("Round")
def round_(node: ConverterNode, b: TFBuilder):
    x = node.input(0)
    if is_int(x):
        return x
    return b.out("Round", [x], {"mode": "half_to_even"})


@tf_converter("Rsqrt")
def rsqrt(node: ConverterNode, b: TFBuilder):
    x = node.input(0)
    return b.out("Divide", [b.scalar_like(1, x), b.out("Sqrt", [x])])


@tf_converter("Square")
def square(node: ConverterNode, b: TFBuilder):
    x = node.input(0)
    return b.out("Multiply", [x, x])


@tf_converter("Reciprocal", "Inv")
def reciprocal(node: ConverterNode, b: TFBuilder):
    x = node.input(0)
    attrs = {"m_pythondiv": False} if is_int(x) else None
    return b.out("Divide", [b.scalar_like(1, x), x], attrs)


@tf_converter("Log1p")
def log1p(node: ConverterNode, b: TFBuilder):
    x = node.input(0)
    return b.out("Log", [b.out("Add", [x, b.scalar_like(1, x)])])


@tf_converter("Expm1")
def expm1(node: ConverterNode, b: TFBuilder):
    x = node.input(0)
    return b.out("Subtract", [b.out("Exp", [x]), b.scalar_like(1, x)])


@tf_converter("Erfc")
def erfc(node: ConverterNode, b: TFBuilder):
    x = node.input(0)
    return b.out("Subtract", [b.scalar_like(1, x), b.out("Erf", [x])])


@tf_converter("IsInf")
def is_inf(node: ConverterNode, b: TFBuilder):
    return b.out("IsInf", [node.input(0)])


@tf_converter("LogicalXor")
def logical_xor(node: ConverterNode, b: TFBuilder):
    return b.out("LogicalXor", [node.input(0), node.input(1)])


@tf_converter("Cast")
def cast(node: ConverterNode, b: TFBuilder):
    x = node.input(0)
    dst = etype_attr(node, "DstT")
    src = value_etype(x)
    if src in et.FLOAT_TYPES and dst in _INT_TYPES:
        # TF truncates toward zero; make it explicit whatever Convert rounds to
        zero = b.scalar_like(0, x)
        x = b.out("Select", [b.out("Less", [x, zero]), b.out("Ceiling", [x]), b.out("Floor", [x])])
    return b.convert(x, dst)


@tf_converter("Select")
def select(node: ConverterNode, b: TFBuilder):
    cond, x, y = node.input(0), node.input(1), node.input(2)
    rc, rx = node.rank(0), node.rank(1)
    if rc is None or rx is None:
        if rc == 0:
            return b.out("Select", [cond, x, y])
        raise node.unsupported("Select needs static ranks (a vector condition picks rows)")
    if rc == 1 and rx > 1:  # the condition picks rows of x / y
        cond = b.unsqueeze(cond, list(range(1, rx)))
    return b.out("Select", [cond, x, y])


@tf_converter("SelectV2")
def select_v2(node: ConverterNode, b: TFBuilder):
    return b.out("Select", [node.input(0), node.input(1), node.input(2)])


@tf_converter("ClipByValue")
def clip_by_value(node: ConverterNode, b: TFBuilder):
    x = node.input(0)
    lo = b.convert(node.input(1), value_etype(x))
    hi = b.convert(node.input(2), value_etype(x))
    return b.out("Minimum", [b.out("Maximum", [x, lo]), hi])


@tf_converter("AddN")
def add_n(node: ConverterNode, b: TFBuilder):
    acc = node.input(0)
    for i in range(1, node.num_inputs):
        acc = b.out("Add", [acc, node.input(i)])
    return acc


def _filled_like(node: ConverterNode, b: TFBuilder, value: int) -> SSAValue:
    x = node.input(0)
    t = value_etype(x)
    return b.out("Broadcast", [scalar(b, value, t), b.shape_of(x)], {"mode": "numpy"})


@tf_converter("ZerosLike")
def zeros_like(node: ConverterNode, b: TFBuilder):
    return _filled_like(node, b, 0)


@tf_converter("OnesLike")
def ones_like(node: ConverterNode, b: TFBuilder):
    return _filled_like(node, b, 1)


@tf_converter("BiasAdd", "BiasAddV1")
def bias_add(node: ConverterNode, b: TFBuilder):
    x, bias = node.input(0), node.input(1)
    if node.type == "BiasAddV1" or node.channels_last:
        return b.out("Add", [x, bias])  # numpy broadcasting on the last axis
    r = node.rank(0)
    if r is None:
        raise node.unsupported("NCHW BiasAdd needs a static rank")
    return b.out("Add", [x, b.reshape(bias, [-1] + [1] * (r - 2))])


@tf_converter("Rint")
def rint(node: ConverterNode, b: TFBuilder):
    return b.out("Round", [node.input(0)], {"mode": "half_to_even"})


def _nudged(node: ConverterNode, lo: float, hi: float) -> tuple[float, float, int]:
    """TF's nudged quantization range and level count of FakeQuant*."""
    bits = int(node.attr("num_bits", 8))
    qmin = 1 if node.attr("narrow_range", False) else 0
    qmax = (1 << bits) - 1
    if hi <= lo:
        raise node.unsupported("FakeQuant needs min < max")
    s = (hi - lo) / (qmax - qmin)
    zp = qmin - lo / s
    nudged = qmin if zp < qmin else qmax if zp > qmax else float(np.floor(zp + 0.5))
    return (qmin - nudged) * s, (qmax - nudged) * s, qmax - qmin + 1


def _fake_quantize(node: ConverterNode, b: TFBuilder, lo: float, hi: float):
    x = node.input(0)
    nlo, nhi, levels = _nudged(node, lo, hi)
    t = value_etype(x)
    lo_c, hi_c = scalar(b, nlo, t), scalar(b, nhi, t)
    return b.out("FakeQuantize", [x, lo_c, hi_c, lo_c, hi_c], {"levels": levels})


@tf_converter("FakeQuantWithMinMaxArgs")
def fake_quant_args(node: ConverterNode, b: TFBuilder):
    return _fake_quantize(node, b, float(node.attr("min", -6.0)), float(node.attr("max", 6.0)))


@tf_converter("FakeQuantWithMinMaxVars")
def fake_quant_vars(node: ConverterNode, b: TFBuilder):
    lo, hi = node.const(1), node.const(2)
    if lo is None or hi is None or lo.size != 1 or hi.size != 1:
        raise node.unsupported("min / max must be scalar constants")
    return _fake_quantize(node, b, float(lo.reshape(-1)[0]), float(hi.reshape(-1)[0]))


def _sign_bit(b: TFBuilder, v: SSAValue) -> SSAValue:
    """True where ``v`` is negative, -0.0 included (``1 / -0.0`` is -inf)."""
    t = value_etype(v)
    zero = scalar(b, 0, t)
    neg_zero = b.out(
        "LogicalAnd",
        [b.out("Equal", [v, zero]), b.out("Less", [b.out("Divide", [scalar(b, 1, t), v]), zero])],
    )
    return b.out("LogicalOr", [b.out("Less", [v, zero]), neg_zero])


@tf_converter("Atan2")
def atan2(node: ConverterNode, b: TFBuilder):
    """``atan2(y, x)`` as C's: the quadrant from the signs (signed zeros too:
    ``atan2(+-0, x < 0) = +-pi``, ``atan2(+-0, -0) = +-pi``), ``+-pi/2`` on
    ``x = 0`` and ``y != 0``. OpenVINO has only Atan."""
    y, x = node.input(0), node.input(1)
    t = value_etype(y)
    zero = scalar(b, 0, t)
    x_zero = b.out("Equal", [x, zero])
    q = b.out("Atan", [b.out("Divide", [y, b.out("Select", [x_zero, scalar(b, 1, t), x])])])
    y_neg = _sign_bit(b, y)
    pi = b.out("Select", [y_neg, scalar(b, -np.pi, t), scalar(b, np.pi, t)])
    # x < 0 (or -0): q is atan(y / x) in (-pi/2, pi/2): move it to y's half-plane
    # (x = -0 with y = +-0: q = +-0, the result +-pi)
    base = b.out("Select", [_sign_bit(b, x), b.out("Add", [q, pi]), q])
    half_pi = b.out("Select", [y_neg, scalar(b, -np.pi / 2, t), scalar(b, np.pi / 2, t)])
    y_nonzero = b.out("LogicalOr", [b.out("Less", [y, zero]), b.out("Greater", [y, zero])])
    return b.out("Select", [b.out("LogicalAnd", [x_zero, y_nonzero]), half_pi, base])


@tf_converter("Bucketize")
def bucketize(node: ConverterNode, b: TFBuilder):
    """Bucket ``i`` holds ``boundaries[i-1] <= x < boundaries[i]`` (TF's
    ``upper_bound``): Bucketize with ``with_right_bound=False``."""
    x = node.input(0)
    bounds = [float(v) for v in node.attr("boundaries", []) or []]
    if not bounds:
        return b.out("Broadcast", [b.i32(0), b.shape_of(x)], {"mode": "numpy"})
    if bounds != sorted(bounds):
        raise node.unsupported("boundaries must be sorted")
    t = value_etype(x)
    if t != "f64":  # TF compares as float (the boundaries are floats)
        x = b.convert(x, "f32")
        t = "f32"
    buckets = b.const(np.asarray(bounds, dtype=np.float32).astype(et.numpy_dtype(t)), t)
    return b.out("Bucketize", [x, buckets], {"output_type": "i32", "with_right_bound": False})
