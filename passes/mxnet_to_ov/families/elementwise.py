"""Elementwise arithmetic: ``elemwise_*``, ``broadcast_*``, the operator forms
(``_plus``, ``_Mul``...), ``*_scalar`` ops, unary math, ``add_n``, ``clip``, ``where``."""

from __future__ import annotations

import numpy as np

from xmo.budget import charge, check_dims
from xmo.frontends.mxnet.params import DTYPES
from xmo.passes.mxnet_to_ov import attrs as A
from xmo.passes.mxnet_to_ov.registry import mxnet_converter
from xmo.passes.to_ov.builder import Builder, ConverterNode, value_etype

#: MXNet binary operator -> ov op
_BINARY = {
    "add": "Add", "plus": "Add", "sub": "Subtract", "minus": "Subtract",
    "mul": "Multiply", "div": "Divide", "power": "Power", "maximum": "Maximum",
    "minimum": "Minimum", "mod": "FloorMod", "equal": "Equal", "not_equal": "NotEqual",
    "greater": "Greater", "greater_equal": "GreaterEqual", "lesser": "Less",
    "lesser_equal": "LessEqual", "hypot": None,
}  # fmt: skip
_COMPARE = {"Equal", "NotEqual", "Greater", "GreaterEqual", "Less", "LessEqual"}


def _binary_names() -> dict[str, str]:
    """``broadcast_<op>`` and ``_<op>`` for every operator, ``elemwise_<op>`` for
    the four arithmetic ones, ``_<Op>`` (MXNet < 1.0) for the arithmetic ones."""
    names: dict[str, str] = {}
    for k, ov in _BINARY.items():
        if ov is None:
            continue
        names[f"broadcast_{k}"] = ov
        names[f"_{k}"] = ov
        if ov not in _COMPARE:
            names[f"_{k.capitalize()}"] = ov
        if k in ("add", "sub", "mul", "div"):
            names[f"elemwise_{k}"] = ov
    names["_grad_add"] = "Add"
    return names


BINARY_OPS = _binary_names()


def _result(b: Builder, ov: str, y, like):  # noqa: ANN001, ANN202
    """MXNet comparisons give 0/1 in the data type."""
    return b.convert(y, value_etype(like)) if ov in _COMPARE else y


@mxnet_converter(*BINARY_OPS)
def binary(node: ConverterNode, b: Builder):
    ov = BINARY_OPS[node.type]
    x = node.input(0)
    return _result(b, ov, b.out(ov, [x, node.input(1)]), x)


#: ``<op>_scalar`` -> (ov op, scalar first)
_SCALAR = {
    "_plus_scalar": ("Add", False), "_PlusScalar": ("Add", False),
    "_minus_scalar": ("Subtract", False), "_MinusScalar": ("Subtract", False),
    "_rminus_scalar": ("Subtract", True), "_RMinusScalar": ("Subtract", True),
    "_mul_scalar": ("Multiply", False), "_MulScalar": ("Multiply", False),
    "_div_scalar": ("Divide", False), "_DivScalar": ("Divide", False),
    "_rdiv_scalar": ("Divide", True), "_RDivScalar": ("Divide", True),
    "_power_scalar": ("Power", False), "_PowerScalar": ("Power", False),
    "_rpower_scalar": ("Power", True), "_RPowerScalar": ("Power", True),
    "_maximum_scalar": ("Maximum", False), "_MaximumScalar": ("Maximum", False),
    "_minimum_scalar": ("Minimum", False), "_MinimumScalar": ("Minimum", False),
    "_mod_scalar": ("FloorMod", False), "_rmod_scalar": ("FloorMod", True),
    "_equal_scalar": ("Equal", False), "_not_equal_scalar": ("NotEqual", False),
    "_greater_scalar": ("Greater", False), "_greater_equal_scalar": ("GreaterEqual", False),
    "_lesser_scalar": ("Less", False), "_lesser_equal_scalar": ("LessEqual", False),
}  # fmt: skip


@mxnet_converter(*_SCALAR)
def scalar_op(node: ConverterNode, b: Builder):
    ov, first = _SCALAR[node.type]
    x = node.input(0)
    s = b.scalar_like(A.number(node, "scalar", 0.0), x)
    ins = [s, x] if first else [x, s]
    return _result(b, ov, b.out(ov, ins), x)


_UNARY = {
    "exp": "Exp", "log": "Log", "sqrt": "Sqrt", "abs": "Abs", "negative": "Negative",
    "sigmoid": "Sigmoid", "tanh": "Tanh", "relu": "Relu", "floor": "Floor",
    "ceil": "Ceiling", "sign": "Sign", "erf": "Erf", "sin": "Sin", "cos": "Cos",
    "tan": "Tan", "arctan": "Atan", "softsign": "SoftSign", "round": None,
    "square": None, "rsqrt": None, "reciprocal": None, "log1p": None, "expm1": None,
}  # fmt: skip


@mxnet_converter(*_UNARY)
def unary(node: ConverterNode, b: Builder):
    x = node.input(0)
    ov = _UNARY[node.type]
    if ov is not None:
        return b.out(ov, [x])
    one = b.scalar_like(1.0, x)
    match node.type:
        case "round":
            return b.out("Round", [x], {"mode": "half_away_from_zero"})
        case "square":
            return b.out("Multiply", [x, x])
        case "rsqrt":
            return b.out("Divide", [one, b.out("Sqrt", [x])])
        case "reciprocal":
            return b.out("Divide", [one, x])
        case "log1p":
            return b.out("Log", [b.out("Add", [x, one])])
        case _:  # expm1
            return b.out("Subtract", [b.out("Exp", [x]), one])


@mxnet_converter("add_n", "ElementWiseSum")
def add_n(node: ConverterNode, b: Builder):
    y = node.input(0)
    for i in range(1, node.num_inputs):
        y = b.out("Add", [y, node.input(i)])
    return y


@mxnet_converter("clip")
def clip(node: ConverterNode, b: Builder):
    lo, hi = A.number(node, "a_min"), A.number(node, "a_max")
    if lo is None or hi is None:
        raise node.unsupported("clip needs a_min and a_max")
    return b.out("Clamp", [node.input(0)], {"min": lo, "max": hi})


@mxnet_converter("where")
def where(node: ConverterNode, b: Builder):
    cond = node.input(0)
    c = b.out("NotEqual", [cond, b.scalar_like(0, cond)])
    x, y = node.input(1), node.input(2)
    cs, xs = node.shape(0), node.shape(1)
    if cs is not None and xs is not None and len(cs) == 1 and len(xs) > 1:
        c = b.reshape(c, [-1] + [1] * (len(xs) - 1))  # a vector condition picks rows
    return b.out("Select", [c, x, y])


@mxnet_converter("zeros_like", "ones_like")
def fill_like(node: ConverterNode, b: Builder):
    x = node.input(0)
    v = b.scalar_like(1.0 if node.type == "ones_like" else 0.0, x)
    return b.out("Broadcast", [v, b.shape_of(x)], {"mode": "numpy"})


@mxnet_converter("_zeros", "_ones", "_full")
def fill(node: ConverterNode, b: Builder):
    shape = A.ints(node, "shape")
    if any(d <= 0 for d in shape):
        raise node.unsupported(f"shape {shape} with unknown dims")
    dtype = A.text(node, "dtype", "float32") or "float32"
    try:
        dt = np.dtype(dtype)
    except TypeError:
        raise node.unsupported(f"dtype {dtype}") from None
    if dt not in DTYPES.values():
        raise node.unsupported(f"dtype {dtype}")
    check_dims(shape)
    charge(int(np.prod(shape)) * dt.itemsize, f"{node.type} '{node.name}'")
    value = {"_zeros": 0.0, "_ones": 1.0}.get(node.type)
    if value is None:
        value = A.number(node, "value", 0.0)
    return b.const(np.full(shape, value, dt))
