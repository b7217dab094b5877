"""Elementwise ONNX ops: arithmetic, comparison, logic, unary math, casts."""

from __future__ import annotations

import numpy as np

from xmo.passes.onnx_to_ov.builder import Builder, Node
from xmo.passes.onnx_to_ov.registry import converter

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


def _binary(ov_type: str):
    def convert(node: Node, b: Builder):
        if node.version < 7 and node.attr("broadcast", 0):
            raise node.unsupported("legacy broadcast attribute (opset < 7)")
        a, c = node.input(0), node.input(1)
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
    def convert(node: Node, b: Builder):
        return b.out(ov_type, [node.input(0)])

    return convert


for _onnx, _ov in _UNARY.items():
    converter(_onnx)(_unary(_ov))


@converter("Identity")
def identity(node: Node, b: Builder):
    return node.input(0)


@converter("Reciprocal")
def reciprocal(node: Node, b: Builder):
    x = node.input(0)
    return b.out("Divide", [b.scalar_like(1, x), x])


@converter("Cast")
def cast(node: Node, b: Builder):
    from xmo.passes.onnx_to_ov.families._types import onnx_dtype_to_etype

    return b.convert(node.input(0), onnx_dtype_to_etype(node, node.attr("to")))


@converter("CastLike")
def cast_like(node: Node, b: Builder):
    return b.convert(node.input(0), node.etype(1))


@converter("Max", "Min", "Sum", "Mean")
def variadic(node: Node, b: Builder):
    kind = {"Max": "Maximum", "Min": "Minimum", "Sum": "Add", "Mean": "Add"}[node.type]
    values = [node.input(i) for i in range(node.num_inputs)]
    acc = values[0]
    for v in values[1:]:
        acc = b.out(kind, [acc, v])
    if node.type == "Mean" and len(values) > 1:
        acc = b.out("Divide", [acc, b.scalar_like(len(values), acc)])
    return acc


@converter("Mod")
def mod(node: Node, b: Builder):
    a, c = node.input(0), node.input(1)
    if node.attr("fmod", 0):
        return b.out("Mod", [a, c])  # sign of the dividend
    return b.out("FloorMod", [a, c])  # sign of the divisor


@converter("Where")
def where(node: Node, b: Builder):
    return b.out("Select", [node.input(0), node.input(1), node.input(2)])


@converter("IsInf")
def is_inf(node: Node, b: Builder):
    return b.out(
        "IsInf",
        [node.input(0)],
        {
            "detect_positive": bool(node.attr("detect_positive", 1)),
            "detect_negative": bool(node.attr("detect_negative", 1)),
        },
    )


@converter("Constant")
def constant(node: Node, b: Builder):
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
