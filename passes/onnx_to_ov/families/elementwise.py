"""Elementwise ONNX ops: arithmetic, comparison, logic, unary math, casts."""

from __future__ import annotations

import numpy as np
from xdsl.ir import SSAValue

from xmo.passes.onnx_to_ov.registry import converter
from xmo.passes.to_ov.builder import Builder, ConverterNode

#: ONNX binary op -> ov op (numpy broadcasting on both sides)
_BINARY = {
    "Add": "Add",
    "Sub": "Subtract",
    "Mul": "Multiply",
    "Div": "Divide",
    "Pow": "Power",
    "Equal": "Equal",
    "Less": "Less",
    "LessOrEqual": "LessEqual",
    "Greater": "Greater",
    "GreaterOrEqual": "GreaterEqual",
    "And": "LogicalAnd",
    "Or": "LogicalOr",
    "Xor": "LogicalXor",
    "BitwiseAnd": "BitwiseAnd",
    "BitwiseOr": "BitwiseOr",
    "BitwiseXor": "BitwiseXor",
}

#: ONNX unary op -> ov op
_UNARY = {
    "Abs": "Abs",
    "Neg": "Negative",
    "Floor": "Floor",
    "Ceil": "Ceiling",
    "Sqrt": "Sqrt",
    "Exp": "Exp",
    "Log": "Log",
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
    "Sign": "Sign",
    "Not": "LogicalNot",
    "BitwiseNot": "BitwiseNot",
    "IsNaN": "IsNaN",
}


def _legacy_broadcast_rhs(node: ConverterNode, b: Builder, c: SSAValue) -> SSAValue:
    """Opset < 7 ``broadcast=1``: B's dims are aligned with A's starting at
    ``axis`` (default: A's trailing dims); B gets trailing 1s up to A's rank
    so that the numpy-broadcasting ov op computes the legacy result."""
    ra, rb = node.rank(0), node.rank(1)
    if ra is None or rb is None:
        raise node.unsupported("legacy broadcast attribute with a dynamic rank")
    if rb > ra:  # only valid for a single-element B: numpy rules do it
        return c
    axis = node.attr("axis", None)
    if axis is None:
        return c  # suffix matching is numpy's rule
    axis = int(axis)
    if axis < 0:
        axis += ra
    if not 0 <= axis <= ra - rb:
        raise node.unsupported(f"legacy broadcast axis {axis} for ranks {ra} and {rb}")
    n = ra - axis - rb
    return b.unsqueeze(c, list(range(rb, rb + n))) if n else c


def _binary(ov_type: str):
    def convert(node: ConverterNode, b: Builder):
        a, c = node.input(0), node.input(1)
        if node.version < 7 and node.attr("broadcast", 0):
            c = _legacy_broadcast_rhs(node, b, c)
        if ov_type == "Divide" and node.etype(0) in ("i8", "i16", "i32", "i64", "u8", "u16", "u32", "u64"):
            # ONNX integer division truncates toward zero
            return b.out("Divide", [a, c], {"m_pythondiv": False})
        if ov_type == "Power" and node.etype(1) != node.etype(0):
            c = b.convert(c, node.etype(0))
        return b.out(ov_type, [a, c])

    return convert


for _onnx, _ov in _BINARY.items():
    converter(_onnx)(_binary(_ov))


def _unary(ov_type: str):
    def convert(node: ConverterNode, b: Builder):
        return b.out(ov_type, [node.input(0)])

    return convert


for _onnx, _ov in _UNARY.items():
    converter(_onnx)(_unary(_ov))


@converter("Identity")
def identity(node: ConverterNode, b: Builder):
    return node.input(0)


@converter("Reciprocal")
def reciprocal(node: ConverterNode, b: Builder):
    x = node.input(0)
    return b.out("Divide", [b.scalar_like(1, x), x])


@converter("Cast")
def cast(node: ConverterNode, b: Builder):
    from xmo.passes.onnx_to_ov.families._types import onnx_dtype_to_etype

    return b.convert(node.input(0), onnx_dtype_to_etype(node, node.attr("to")))


@converter("CastLike")
def cast_like(node: ConverterNode, b: Builder):
    return b.convert(node.input(0), node.etype(1))


@converter("Max", "Min", "Sum", "Mean")
def variadic(node: ConverterNode, b: Builder):
    kind = {"Max": "Maximum", "Min": "Minimum", "Sum": "Add", "Mean": "Add"}[node.type]
    values = [node.input(i) for i in range(node.num_inputs)]
    acc = values[0]
    for v in values[1:]:
        acc = b.out(kind, [acc, v])
    if node.type == "Mean" and len(values) > 1:
        acc = b.out("Divide", [acc, b.scalar_like(len(values), acc)])
    return acc


@converter("Mod")
def mod(node: ConverterNode, b: Builder):
    a, c = node.input(0), node.input(1)
    fmod = bool(node.attr("fmod", 0))
    # fmod: sign of the dividend (C fmod); else sign of the divisor (Python %)
    r = b.out("Mod" if fmod else "FloorMod", [a, c])
    if node.etype(0) not in ("f16", "bf16", "f32", "f64"):
        return r
    # OpenVINO gives NaN for a finite dividend over an infinite divisor
    inf_div = b.out(
        "LogicalAnd", [b.out("IsInf", [c]), b.out("IsFinite", [a])]
    )
    pick = a
    if not fmod:  # x if x is 0 or has the divisor's sign, else the divisor
        zero = b.scalar_like(0, a)
        same = b.out(
            "LogicalNot",
            [b.out("LogicalXor", [b.out("Less", [a, zero]), b.out("Less", [c, zero])])],
        )
        keep_a = b.out("LogicalOr", [b.out("Equal", [a, zero]), same])
        pick = b.out("Select", [keep_a, a, c])
    return b.out("Select", [inf_div, pick, r])


@converter("Round")
def round_(node: ConverterNode, b: Builder):
    return b.out("Round", [node.input(0)], {"mode": "half_to_even"})


@converter("BitShift")
def bit_shift(node: ConverterNode, b: Builder):
    d = node.attr("direction")
    d = d.decode() if isinstance(d, bytes) else str(d)
    kind = {"LEFT": "BitwiseLeftShift", "RIGHT": "BitwiseRightShift"}.get(d)
    if kind is None:
        raise node.unsupported(f"direction '{d}'")
    x, n = node.input(0), node.input(1)
    y = b.out(kind, [x, n])
    # shift amounts outside [0, bit width) shift every bit out: 0, or the
    # sign fill for an arithmetic right shift
    from xmo.dialects.ov import element_types as et

    t = node.etype(0)
    width = et.numpy_dtype(t).itemsize * 8
    zero = b.scalar_like(0, x)
    valid = b.out("Less", [n, b.scalar_like(width, n)])
    if t in et.SIGNED_INT_TYPES:
        valid = b.out("LogicalAnd", [valid, b.out("GreaterEqual", [n, b.scalar_like(0, n)])])
    fill = zero
    if kind == "BitwiseRightShift" and t in et.SIGNED_INT_TYPES:
        fill = b.out("Select", [b.out("Less", [x, zero]), b.scalar_like(-1, x), zero])
    return b.out("Select", [valid, y, fill])


def _clip_bound(b: Builder, v, like):
    from xmo.passes.to_ov.builder import value_etype

    return v if value_etype(v) == value_etype(like) else b.convert(v, value_etype(like))


@converter("Clip")
def clip(node: ConverterNode, b: Builder):
    x = node.input(0)
    if node.version < 11:
        lo = node.attr("min", None)
        hi = node.attr("max", None)
        if lo is not None:
            x = b.out("Maximum", [x, b.scalar_like(lo, x)])
        if hi is not None:
            x = b.out("Minimum", [x, b.scalar_like(hi, x)])
        return x
    lo, hi = node.optional_input(1), node.optional_input(2)
    if lo is not None:
        x = b.out("Maximum", [x, _clip_bound(b, lo, x)])
    if hi is not None:
        x = b.out("Minimum", [x, _clip_bound(b, hi, x)])
    return x


@converter("Where")
def where(node: ConverterNode, b: Builder):
    return b.out("Select", [node.input(0), node.input(1), node.input(2)])


@converter("IsInf")
def is_inf(node: ConverterNode, b: Builder):
    return b.out(
        "IsInf",
        [node.input(0)],
        {
            "detect_positive": bool(node.attr("detect_positive", 1)),
            "detect_negative": bool(node.attr("detect_negative", 1)),
        },
    )


@converter("Constant")
def constant(node: ConverterNode, b: Builder):
    for name, etype, dtype in (
        ("value_float", "f32", np.float32),
        ("value_int", "i64", np.int64),
    ):
        if node.has_attr(name):
            return b.const(np.asarray(node.attr(name), dtype=dtype), etype)
    for name, etype, dtype in (
        ("value_floats", "f32", np.float32),
        ("value_ints", "i64", np.int64),
    ):
        if node.has_attr(name):
            return b.const(np.asarray(node.attr(name), dtype=dtype), etype)
    arr = node.tensor_attr("value")
    if arr is None:
        raise node.unsupported("only dense 'value' tensors are supported")
    return b.const(arr)
