"""Elementwise binary arithmetic, comparisons, logical ops, Select and Convert."""

from __future__ import annotations

import math
from collections.abc import Callable

import ml_dtypes
import numpy as np

from xmo.backends.cpu.dtypes import etype_dtype, round_bf16, tensor_dims
from xmo.backends.cpu.fusion import mark_fusable
from xmo.backends.cpu.kernels._common import broadcast_args, is_float
from xmo.backends.cpu.kernels.rows import row_kernels
from xmo.backends.cpu.node import KernelNode, input_etype, plan_with
from xmo.backends.cpu.registry import register_kernel

#: element types computed as numpy floats (bf16 as f32)
_FLOAT_ETYPES = frozenset({"f16", "f32", "f64", "bf16"})


def _int_divide(a: np.ndarray, b: np.ndarray, python_div: bool) -> np.ndarray:
    b_safe = np.where(b == 0, 1, b)
    if python_div or np.issubdtype(a.dtype, np.unsignedinteger):
        return np.floor_divide(a, b_safe)
    q = np.floor_divide(a, b_safe)
    # round toward zero (C semantics) instead of toward -inf
    fix = (q < 0) & (q * b_safe != a)
    return q + fix.astype(q.dtype)


def _divide(node: KernelNode, a: np.ndarray, b: np.ndarray) -> np.ndarray:
    if is_float(a):
        return np.divide(a, b)
    return _int_divide(a, b, bool(node.attr("m_pythondiv", True)))


def _power(node: KernelNode, a: np.ndarray, b: np.ndarray) -> np.ndarray:
    if is_float(a):
        return np.power(a, b)
    r = np.power(a.astype(np.float64), b.astype(np.float64))
    return np.trunc(r).astype(np.result_type(a, b))


def _floor_mod(node: KernelNode, a: np.ndarray, b: np.ndarray) -> np.ndarray:
    if is_float(a):
        return np.mod(a, b)
    return np.mod(a, np.where(b == 0, 1, b))


def _mod(node: KernelNode, a: np.ndarray, b: np.ndarray) -> np.ndarray:
    if is_float(a):
        return np.fmod(a, b)
    return np.fmod(a, np.where(b == 0, 1, b))


def _simple(fn: Callable[[np.ndarray, np.ndarray], np.ndarray]):
    kernel = lambda node, a, b: fn(a, b)  # noqa: E731
    kernel.direct = fn  # type: ignore[attr-defined]  (what a plan calls)
    return kernel


#: the ufunc of a kernel of ``_BINARY`` on float inputs
_FLOAT_UFUNCS = {"Divide": np.divide, "Power": np.power, "FloorMod": np.mod, "Mod": np.fmod}


def _numpy_broadcast(node: KernelNode) -> bool:
    return str(node.attr("auto_broadcast", "numpy")).lower() == "numpy"


_BINARY: dict[str, Callable[[KernelNode, np.ndarray, np.ndarray], np.ndarray]] = {
    "Add": _simple(np.add),
    "Subtract": _simple(np.subtract),
    "Multiply": _simple(np.multiply),
    "Divide": _divide,
    "Power": _power,
    "Maximum": _simple(np.maximum),
    "Minimum": _simple(np.minimum),
    "SquaredDifference": _simple(lambda a, b: np.square(a - b)),
    "FloorMod": _floor_mod,
    "Mod": _mod,
    "Equal": _simple(np.equal),
    "NotEqual": _simple(np.not_equal),
    "Less": _simple(np.less),
    "LessEqual": _simple(np.less_equal),
    "Greater": _simple(np.greater),
    "GreaterEqual": _simple(np.greater_equal),
    "LogicalAnd": _simple(np.logical_and),
    "LogicalOr": _simple(np.logical_or),
    "LogicalXor": _simple(np.logical_xor),
    "BitwiseAnd": _simple(np.bitwise_and),
    "BitwiseOr": _simple(np.bitwise_or),
    "BitwiseXor": _simple(np.bitwise_xor),
    "BitwiseLeftShift": _simple(np.left_shift),
    "BitwiseRightShift": _simple(np.right_shift),
}


def _row_scale_plan(node: KernelNode) -> Callable[..., np.ndarray] | None:
    """A float product ``x * s`` of static shapes where ``s`` is one value
    per channel of an NCHW-like ``x`` ([N or 1, C, 1, ...] against [N, C,
    H, ...], H * ... > 1: a squeeze-excitation gate) as one numba pass over
    the rows of ``x`` (``rows_jit.row_scale``: the same one rounding per
    element as numpy's broadcast product, without its per-row loop set-up;
    one thread, as numpy). Takes ``out=`` as
    the ufunc does (the runner's in-place step: ``in_place_ok``); operands
    not C-contiguous take ``np.multiply``. None for other shapes and types,
    or without numba."""
    etype = node.out_etypes[0]
    if etype not in ("f32", "f64") or any(input_etype(node, i) != etype for i in (0, 1)):
        return None
    d0, d1 = (tensor_dims(o.type) for o in node.op.operands)
    shape = node.out_shapes[0]
    if d0 is None or d1 is None or shape is None or min(shape, default=-1) < 0:
        return None
    big = 0 if d0 == shape else 1 if d1 == shape else -1
    small = d1 if big == 0 else d0
    rank = len(shape)
    if (big < 0 or rank < 3 or len(small) != rank or small[0] not in (1, shape[0])
            or small[1] != shape[1] or any(d != 1 for d in small[2:])
            or math.prod(shape[2:]) <= 1):
        return None
    rk = row_kernels()
    if rk is None:
        return None
    kernel, multiply, empty = rk.row_scale, np.multiply, np.empty
    dtype = etype_dtype(etype)
    n = math.prod(shape[2:])
    rows = math.prod(shape[:2])
    k = math.prod(small)

    def row_scale(a: np.ndarray, b: np.ndarray, out: np.ndarray | None = None) -> np.ndarray:
        x, s = (a, b) if big == 0 else (b, a)
        if not (x.flags.c_contiguous and s.flags.c_contiguous):
            return multiply(a, b) if out is None else multiply(a, b, out=out)
        if out is None:
            out = empty(shape, dtype)
        kernel(x.reshape(rows, n), s.reshape(k), out.reshape(rows, n), 0, rows)
        return out

    row_scale.in_place_ok = True  # type: ignore[attr-defined]
    return row_scale


def _make_binary(name: str, fn: Callable[[KernelNode, np.ndarray, np.ndarray], np.ndarray]):
    def plan(node: KernelNode, consts: tuple) -> Callable[..., np.ndarray] | None:
        if not _numpy_broadcast(node):
            return None  # the kernel checks the shapes
        if name == "Multiply" and consts[0] is None and consts[1] is None:
            scale = _row_scale_plan(node)
            if scale is not None:
                return scale
        direct = getattr(fn, "direct", None)
        if direct is not None:
            return direct
        if name in _FLOAT_UFUNCS and input_etype(node, 0) in _FLOAT_ETYPES:
            return _FLOAT_UFUNCS[name]
        return lambda a, b: fn(node, a, b)

    @plan_with(plan)
    def kernel(node: KernelNode, a: np.ndarray, b: np.ndarray) -> np.ndarray:
        if node.cache.get("auto_broadcast") != "numpy":  # numpy broadcasting needs no check
            broadcast_args(node, a, b)
        with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
            return fn(node, a, b)

    return kernel


for _name, _fn in _BINARY.items():
    _k = register_kernel(f"ov.{_name}")(_make_binary(_name, _fn))
    if _name in ("Add", "Subtract", "Multiply", "Divide"):
        mark_fusable(_name, _k)  # fusable into x*a+b steps
register_kernel("ov.Xor_opset1")(_make_binary("LogicalXor", _BINARY["LogicalXor"]))


def _ufunc_plan(ufunc: np.ufunc):
    """A plan calling ``ufunc`` on the kernel's one input."""
    return plan_with(lambda node, consts: ufunc)


@register_kernel("ov.LogicalNot")
@_ufunc_plan(np.logical_not)
def _logical_not(node: KernelNode, x: np.ndarray) -> np.ndarray:
    return np.logical_not(x)


@register_kernel("ov.BitwiseNot")
def _bitwise_not(node: KernelNode, x: np.ndarray) -> np.ndarray:
    return np.logical_not(x) if x.dtype == np.bool_ else np.invert(x)


def _plan_select(node: KernelNode, consts: tuple) -> Callable[..., np.ndarray] | None:
    if not _numpy_broadcast(node):
        return None
    if input_etype(node, 0) == "boolean":
        return np.where
    return lambda cond, a, b: np.where(cond.astype(bool), a, b)


@register_kernel("ov.Select")
@plan_with(_plan_select)
def _select(node: KernelNode, cond: np.ndarray, a: np.ndarray, b: np.ndarray) -> np.ndarray:
    broadcast_args(node, cond, a, b)
    return np.where(cond.astype(bool), a, b)


_PACKED_INT_BITS = {np.dtype(ml_dtypes.int4): (4, True), np.dtype(ml_dtypes.uint4): (4, False),
                    np.dtype(ml_dtypes.uint2): (2, False)}
_E8M0 = np.dtype(ml_dtypes.float8_e8m0fnu)
_ML = frozenset(np.dtype(getattr(ml_dtypes, n)) for n in (
    "bfloat16", "float8_e4m3fn", "float8_e5m2", "float8_e8m0fnu", "float4_e2m1fn",
    "int4", "uint4", "uint2"))


def _is_ml(dtype: np.dtype) -> bool:
    """An ml_dtypes type (bf16, f8, f4, int4...)."""
    return dtype in _ML


def _ml_is_float(dtype: np.dtype) -> bool:
    return _is_ml(dtype) and dtype not in _PACKED_INT_BITS


def _wrap_bits(v: np.ndarray, bits: int, signed: bool) -> np.ndarray:
    """Integers reduced to their low ``bits`` bits (two's complement when signed)."""
    m = v.astype(np.int64) & ((1 << bits) - 1)
    if signed:
        m = np.where(m >= 1 << (bits - 1), m - (1 << bits), m)
    return m


def convert_to(x: np.ndarray, dtype: np.dtype, bf16: bool = False) -> np.ndarray:
    """OpenVINO Convert: float -> integer truncates toward zero (saturating for the
    byte-sized and wider types, wrapping for the packed i4/u4/u2); float -> f8/f4
    rounds to nearest without saturation (NaN past the range, as the CPU plugin)."""
    dtype = np.dtype(dtype)
    if _is_ml(x.dtype):
        x = x.astype(np.float32) if _ml_is_float(x.dtype) else x.astype(np.int8)
    if dtype in _PACKED_INT_BITS:
        bits, signed = _PACKED_INT_BITS[dtype]
        if is_float(x):
            with np.errstate(invalid="ignore"):
                x = np.nan_to_num(np.trunc(x.astype(np.float64)), nan=0, posinf=0, neginf=0)
                x = np.where(np.abs(x) < 2.0**62, x, 0).astype(np.int64)
        return _wrap_bits(np.asarray(x), bits, signed).astype(np.int8).astype(dtype)
    if _is_ml(dtype):
        xf = x.astype(np.float32)
        r = xf.astype(dtype)
        if dtype == _E8M0:  # zero and negatives -> the smallest power of two
            with np.errstate(invalid="ignore"):
                r = np.where(xf <= 0, np.array(2.0**-127, np.float32).astype(dtype), r)
        return r
    if is_float(x) and not np.issubdtype(dtype, np.floating):
        if dtype == np.bool_:
            return x != 0
        # OpenVINO truncates toward zero and saturates float -> integer
        info = np.iinfo(dtype)
        with np.errstate(invalid="ignore"):
            r = np.clip(np.trunc(x.astype(np.float64)), info.min, info.max)
        return np.nan_to_num(r).astype(dtype)
    r = x.astype(dtype)
    return round_bf16(r) if bf16 else r


def _plan_convert(node: KernelNode, consts: tuple) -> Callable[..., np.ndarray] | None:
    """``x.astype(dtype)`` when convert_to does nothing else (same kind or
    integer/bool -> float, no bf16 or ml_dtypes type)."""
    src, dst = input_etype(node, 0), node.out_etypes[0]
    want = node.out_dtypes[0]
    if want is None or src is None or src == "bf16" or dst == "bf16" or _is_ml(want):
        return None
    have = etype_dtype(src)
    if have is None or _is_ml(have) or (have.kind == "f" and want.kind != "f"):
        return None
    return lambda x: x.astype(want)


@register_kernel("ov.Convert")
@plan_with(_plan_convert)
def _convert(node: KernelNode, x: np.ndarray) -> np.ndarray:
    return convert_to(x, node.out_dtype(0), node.out_etypes[0] == "bf16")


@register_kernel("ov.ConvertLike")
def _convert_like(node: KernelNode, x: np.ndarray, like: np.ndarray) -> np.ndarray:
    return convert_to(x, node.out_dtype(0, like.dtype), node.out_etypes[0] == "bf16")


@register_kernel("ov.IsNaN")
@_ufunc_plan(np.isnan)
def _is_nan(node: KernelNode, x: np.ndarray) -> np.ndarray:
    return np.isnan(x)


@register_kernel("ov.IsFinite")
@_ufunc_plan(np.isfinite)
def _is_finite(node: KernelNode, x: np.ndarray) -> np.ndarray:
    return np.isfinite(x)


@register_kernel("ov.IsInf")
def _is_inf(node: KernelNode, x: np.ndarray) -> np.ndarray:
    neg, pos = bool(node.attr("detect_negative", True)), bool(node.attr("detect_positive", True))
    return (np.isneginf(x) & neg) | (np.isposinf(x) & pos)


@register_kernel("ov.Identity")
def _identity(node: KernelNode, x: np.ndarray) -> np.ndarray:
    return x


@register_kernel("ov.FakeQuantize")
def _fake_quantize(node: KernelNode, x, in_lo, in_hi, out_lo, out_hi) -> np.ndarray:
    broadcast_args(node, x, in_lo)
    levels = int(node.attr("levels", 256))
    dt = x.dtype
    xf, il, ih, ol, oh = (np.asarray(v, np.float64) for v in (x, in_lo, in_hi, out_lo, out_hi))
    with np.errstate(divide="ignore", invalid="ignore"):
        q = np.round((xf - il) / (ih - il) * (levels - 1)) / (levels - 1) * (oh - ol) + ol
    out = np.where(xf <= np.minimum(il, ih), ol, np.where(xf > np.maximum(il, ih), oh, q))
    return out.astype(dt)
