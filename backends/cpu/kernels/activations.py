"""Unary math, activations, Softmax/LogSoftmax."""

from __future__ import annotations

import functools
import math
from collections.abc import Callable
from typing import Any

import numpy as np

from xmo.backends.cpu.kernels._common import float_work, norm_axis, scalar
from xmo.backends.cpu.fusion import RowEpilogue, mark_row_epilogue
from xmo.backends.cpu.kernels.rows import (
    ACT_CLAMP,
    ACT_ELU,
    ACT_GELU_ERF,
    ACT_HARD_SIGMOID,
    ACT_HSIGMOID,
    ACT_HSWISH,
    ACT_MISH,
    ACT_NONE,
    ACT_RELU,
    ACT_SIGMOID,
    ACT_SOFTPLUS,
    ACT_SWISH,
    ACT_TANH,
    ROW_DTYPES,
    SPLIT_MIN,
    row_kernels,
    run_rows,
)
from xmo.backends.cpu import vector_width
from xmo.backends.cpu.dtypes import etype_dtype, tensor_dims
from xmo.backends.cpu.node import KernelNode, input_etype, plan_with
from xmo.backends.cpu.registry import register_kernel

# ---------------------------------------------------------------------------
# erf: f32 by the row kernels' rational form (SIMD), else a numba ufunc
# around math.erf (compiled on first use)
# ---------------------------------------------------------------------------

_erf_ufunc = None


def erf(x: np.ndarray) -> np.ndarray:
    """Vectorized error function (exact to the precision of x's float type)."""
    global _erf_ufunc
    x = np.asarray(x)
    if x.dtype == np.float32 and x.size:
        rk = row_kernels()
        if rk is not None:
            flat = np.ascontiguousarray(x).reshape(-1)
            out = np.empty(x.shape, x.dtype)
            run_rows(rk.erf, flat.size, 1, flat, out.reshape(-1))
            return out
    if _erf_ufunc is None:
        try:
            from numba import vectorize

            vector_width.configure()
            _erf_ufunc = vectorize(
                ["float32(float32)", "float64(float64)"], cache=True
            )(lambda v: math.erf(v))
        except Exception:  # noqa: BLE001  (numba missing: slow but exact)
            _erf_ufunc = np.vectorize(math.erf, otypes=[np.float64])
    work = x if x.dtype in (np.float32, np.float64) else x.astype(np.float64)
    return np.asarray(_erf_ufunc(work)).astype(x.dtype if x.dtype.kind == "f" else np.float64)


def _softplus(x: np.ndarray) -> np.ndarray:
    r = np.logaddexp(np.zeros((), x.dtype), x, out=np.empty_like(x))
    # 0 below the smallest normal float (x < log of it), never a denormal
    np.copyto(r, 0, where=r < np.finfo(r.dtype).tiny)
    return r


def _sigmoid(x: np.ndarray) -> np.ndarray:
    """``4 / (4 * (1 + exp(-x)))`` in one buffer: the scaling by 4 is exact,
    except that it overflows to inf exactly where ``1 / (1 + exp(-x))`` would
    fall below the smallest normal float (4 / max = the smallest normal):
    the result is 0 there, never a denormal (slow in the products after it)."""
    t = np.negative(x)
    np.exp(t, out=t)
    t += 1
    t *= 4
    return np.divide(4, t, out=t)


def _relu6_shifted(x: np.ndarray) -> np.ndarray:
    """``clip(x + 3, 0, 6)`` in one new buffer."""
    t = np.add(x, 3)
    np.maximum(t, 0, out=t)
    np.minimum(t, 6, out=t)
    return t


def _hswish(x: np.ndarray) -> np.ndarray:
    t = _relu6_shifted(x)
    t *= x
    t /= 6
    return t


def _hsigmoid(x: np.ndarray) -> np.ndarray:
    t = _relu6_shifted(x)
    t /= 6
    return t


def _round_away(x: np.ndarray) -> np.ndarray:
    return np.sign(x) * np.floor(np.abs(x) + 0.5)


_FLOAT_ONLY: dict[str, Callable[[np.ndarray], np.ndarray]] = {
    "Sigmoid": _sigmoid,
    "Tanh": np.tanh,
    "Exp": np.exp,
    "Log": np.log,
    "Sqrt": np.sqrt,
    "Sin": np.sin,
    "Cos": np.cos,
    "Tan": np.tan,
    "Asin": np.arcsin,
    "Acos": np.arccos,
    "Atan": np.arctan,
    "Sinh": np.sinh,
    "Cosh": np.cosh,
    "Asinh": np.arcsinh,
    "Acosh": np.arccosh,
    "Atanh": np.arctanh,
    "Erf": erf,
    "SoftPlus": _softplus,
    "SoftSign": lambda x: x / (1 + np.abs(x)),
    "Mish": lambda x: x * np.tanh(_softplus(x)),
    "HSwish": lambda x: _hswish(x),
    "HSigmoid": lambda x: _hsigmoid(x),
}

_ANY_TYPE: dict[str, Callable[[np.ndarray], np.ndarray]] = {
    "Relu": lambda x: np.maximum(x, np.zeros((), x.dtype)),
    "Abs": np.abs,
    "Negative": np.negative,
    "Floor": lambda x: np.floor(x) if x.dtype.kind == "f" else x,
    "Ceiling": lambda x: np.ceil(x) if x.dtype.kind == "f" else x,
    "Sign": np.sign,
}


def _make_float_unary(fn: Callable[[np.ndarray], np.ndarray], row: bool):
    def kernel(node: KernelNode, x: np.ndarray) -> np.ndarray:
        x = float_work(x)
        if row:
            y = _one_pass(node, x, ())
            if y is not None:
                return y
        with np.errstate(all="ignore"):
            return fn(x)

    return kernel


def _make_unary(fn: Callable[[np.ndarray], np.ndarray], row: bool):
    def kernel(node: KernelNode, x: np.ndarray) -> np.ndarray:
        if row:
            y = _one_pass(node, x, ())
            if y is not None:
                return y
        with np.errstate(all="ignore"):
            return fn(x)

    return kernel


# ---------------------------------------------------------------------------
# one-pass forms (numba row kernel): standalone and as a product's epilogue
# ---------------------------------------------------------------------------

#: activation code of the row kernel, by op type (parameters: _act_params)
_ROW_ACTS = {
    "Relu": ACT_RELU, "Clamp": ACT_CLAMP, "Sigmoid": ACT_SIGMOID, "Swish": ACT_SWISH,
    "HSwish": ACT_HSWISH, "HSigmoid": ACT_HSIGMOID, "HardSigmoid": ACT_HARD_SIGMOID,
    "Tanh": ACT_TANH, "Elu": ACT_ELU, "Mish": ACT_MISH, "SoftPlus": ACT_SOFTPLUS,
}


#: activations computed by libm calls in the row kernel: their numpy form
#: ``fn(x, p0)`` (SIMD) takes over above :data:`SLOW_ROWS_MAX` elements
_NUMPY_FORM: dict[int, Callable[[np.ndarray, np.floating], np.ndarray]] = {
    ACT_TANH: lambda x, p0: np.tanh(x),
    ACT_ELU: lambda x, p0: np.where(x > 0, x, p0 * np.expm1(np.minimum(x, 0))),
    ACT_MISH: lambda x, p0: x * np.tanh(_softplus(x)),
    ACT_SOFTPLUS: lambda x, p0: _softplus(x),
}
SLOW_ROWS_MAX = 4096
#: activations whose numpy kernel is one pass already: no standalone one-pass form
_NUMPY_ONE_PASS = frozenset({"Relu", "Clamp", "Tanh"})


@functools.cache
def _row_epilogue(act: int, p0: float = 0.0, p1: float = 0.0) -> RowEpilogue | None:
    """``apply(x, out, a, b, period, n)``: ``out = act(x * a + b)`` (rows of
    ``n``) by the row kernel (large arrays split over the threads), None
    without numba."""
    rk = row_kernels()
    if rk is None:
        return None
    kernel = rk.bias_act
    none = {dt: np.empty(0, dt) for dt in ROW_DTYPES}
    prm = {dt: np.array([act, p0, p1, dt == np.float32, np.finfo(dt).tiny], np.float64)
           for dt in ROW_DTYPES}
    # libm activations (one scalar call per element): numpy's SIMD loops
    # after the affine pass on large arrays
    slow = _NUMPY_FORM.get(act)
    affine = {dt: np.array([ACT_NONE, 0, 0, 0, 0], np.float64) for dt in ROW_DTYPES}

    def apply(x: np.ndarray, out: np.ndarray, a: np.ndarray | None, b: np.ndarray | None,
              period: int, n: int) -> None:
        dt = x.dtype
        e = none[dt]
        x1 = x.reshape(-1)
        large = slow is not None and x.size > SLOW_ROWS_MAX
        args = (x1, x1 if out is x else out.reshape(-1), e if a is None else a,
                e if b is None else b, period, (affine if large else prm)[dt], n)
        rows = x.size // n
        if x.size < SPLIT_MIN:  # one task: no thread pool
            kernel(*args, 0, rows)
        else:
            run_rows(kernel, rows, n, *args)
        if large:
            with np.errstate(all="ignore"):
                out[...] = slow(out, dt.type(p0))

    apply.act = (act, p0, p1)  # type: ignore[attr-defined]  (read by fusion.ElemChainKernel)
    # bias_act's parameters by dtype, for producers applying the epilogue in
    # their blocks (fusion.EpilogueKernel's ``epi``); None for the libm
    # activations whose large arrays take numpy's form
    apply.prm = None if slow is not None else prm  # type: ignore[attr-defined]
    return apply


def _act_params(node: KernelNode, extra: tuple[np.ndarray, ...],
                dtype: np.dtype) -> tuple[int, float, float] | None:
    """(code, p0, p1) of ``node``'s activation in the row kernel, its
    parameters rounded to ``dtype`` as the numpy kernels use them; None
    when it has no row form."""
    code = _ROW_ACTS.get(node.type)
    if code is None or dtype not in ROW_DTYPES:
        return None
    rnd = dtype.type
    if code == ACT_CLAMP:
        return code, float(rnd(node.attr("min", 0.0))), float(rnd(node.attr("max", 0.0)))
    if code == ACT_SWISH:
        return code, float(rnd(1.0 if not extra else scalar(extra[0]))), 0.0
    if code == ACT_ELU:
        return code, float(rnd(node.attr("alpha", 1.0))), 0.0
    if code == ACT_HARD_SIGMOID:
        if len(extra) != 2:
            return None
        return code, float(rnd(scalar(extra[0]))), float(rnd(scalar(extra[1])))
    return code, 0.0, 0.0


def _plan_act_rows(node: KernelNode | None, extra: tuple[np.ndarray, ...],
                   dtype: np.dtype) -> RowEpilogue | None:
    """A product's epilogue ending with one of :data:`_ROW_ACTS`."""
    params = None if node is None else _act_params(node, extra, dtype)
    return None if params is None else _row_epilogue(*params)


def _one_pass(node: KernelNode, x: np.ndarray, extra: tuple[np.ndarray, ...]) -> np.ndarray | None:
    """``node``'s activation of ``x`` (f32/f64, not empty) by the row kernel
    into a new array; None when it has no row form (or numba is missing).
    Planned once per node (constant ``extra`` inputs only)."""
    if x.dtype not in ROW_DTYPES or not x.ndim or not x.size:
        return None
    key = ("row_act", x.dtype)
    apply = node.cache.get(key, False)
    if apply is False:
        apply = _plan_act_rows(node, extra, x.dtype)
        if not extra:
            node.cache[key] = apply
    if apply is None or (x.size > SLOW_ROWS_MAX and _ROW_ACTS[node.type] in _NUMPY_FORM):
        return None
    out = np.empty(x.shape, x.dtype)
    apply(np.ascontiguousarray(x), out, None, None, 0, x.shape[-1])
    return out


_UNARY_KERNELS = {}
for _n, _f in _FLOAT_ONLY.items():
    _UNARY_KERNELS[_n] = register_kernel(f"ov.{_n}")(_make_float_unary(_f, _n in _ROW_ACTS and _n not in _NUMPY_ONE_PASS))
for _n, _f in _ANY_TYPE.items():
    _UNARY_KERNELS[_n] = register_kernel(f"ov.{_n}")(_make_unary(_f, _n in _ROW_ACTS and _n not in _NUMPY_ONE_PASS))


@register_kernel("ov.Round")
def _round(node: KernelNode, x: np.ndarray) -> np.ndarray:
    if x.dtype.kind != "f":
        return x
    mode = str(node.attr("mode", "half_to_even")).lower()
    return np.round(x) if mode == "half_to_even" else _round_away(x)


def _gelu_mode(node: KernelNode) -> str:
    return str(node.attr("approximation_mode", "erf")).lower()


@register_kernel("ov.Gelu", "ov.Gelu_opset2")
def _gelu(node: KernelNode, x: np.ndarray) -> np.ndarray:
    x = float_work(x)
    mode = _gelu_mode(node)
    if mode != "tanh" and x.dtype == np.float32 and x.size:
        apply = _row_epilogue(ACT_GELU_ERF)
        if apply is not None:
            t = np.array(x, order="C")
            apply(t, t, None, None, 0, t.shape[-1] if t.ndim else 1)
            return t
    if mode == "tanh" and x.dtype == np.float32 and x.size:
        rk = row_kernels()
        if rk is not None:  # one pass, elements in ranges on the helper pool
            xc = np.ascontiguousarray(x).reshape(-1)
            out = np.empty(x.shape, x.dtype)
            run_rows(rk.gelu_tanh, xc.size, 1, xc, out.reshape(-1))
            return out
    # 0.5 * x * (1 + f(x)), in one buffer
    if mode == "tanh":
        t = np.multiply(x, x)
        t *= x
        t *= np.asarray(0.044715, x.dtype)
        t += x
        t *= np.asarray(math.sqrt(2 / math.pi), x.dtype)
        np.tanh(t, out=t)
    else:
        t = erf(x / np.asarray(math.sqrt(2), x.dtype))
    t += 1
    t *= x
    t *= 0.5
    return t


def _plan_affine_rows(node: KernelNode | None, extra: tuple[np.ndarray, ...],
                      dtype: np.dtype) -> RowEpilogue | None:
    """A product's bias and scale without activation: f32 and f64."""
    return _row_epilogue(ACT_NONE) if dtype in ROW_DTYPES else None


def _plan_gelu_rows(node: KernelNode | None, extra: tuple[np.ndarray, ...],
                    dtype: np.dtype) -> RowEpilogue | None:
    """The erf form of Gelu on f32 (f64 keeps math.erf)."""
    if node is None or _gelu_mode(node) == "tanh" or dtype != np.float32:
        return None
    return _row_epilogue(ACT_GELU_ERF)


mark_row_epilogue(None, _plan_affine_rows)
mark_row_epilogue(_gelu, _plan_gelu_rows)
for _n in ("Relu", "Sigmoid", "Tanh", "HSwish", "HSigmoid", "Mish", "SoftPlus"):
    mark_row_epilogue(_UNARY_KERNELS[_n], _plan_act_rows)


@register_kernel("ov.Swish")
def _swish(node: KernelNode, x: np.ndarray, beta: np.ndarray | None = None) -> np.ndarray:
    x = float_work(x)
    y = _one_pass(node, x, () if beta is None else (beta,))
    if y is not None:
        return y
    b = 1.0 if beta is None else scalar(beta)
    # x / (1 + exp(-b x)) in one buffer (exp overflowing to inf gives -0)
    t = np.negative(x) if b == 1.0 else np.multiply(x, np.asarray(-b, x.dtype))
    with np.errstate(over="ignore"):
        np.exp(t, out=t)
    t += 1
    np.divide(x, t, out=t)
    return t


@register_kernel("ov.Elu")
def _elu(node: KernelNode, x: np.ndarray) -> np.ndarray:
    x = float_work(x)
    y = _one_pass(node, x, ())
    if y is not None:
        return y
    alpha = np.asarray(node.attr("alpha", 1.0), x.dtype)
    with np.errstate(over="ignore"):
        return np.where(x > 0, x, alpha * np.expm1(np.minimum(x, 0)))


@register_kernel("ov.Selu")
def _selu(node: KernelNode, x: np.ndarray, alpha: np.ndarray, lam: np.ndarray) -> np.ndarray:
    x = float_work(x)
    a = np.asarray(scalar(alpha), x.dtype)
    l_ = np.asarray(scalar(lam), x.dtype)
    return l_ * np.where(x > 0, x, a * np.expm1(np.minimum(x, 0)))


@register_kernel("ov.PRelu")
def _prelu(node: KernelNode, x: np.ndarray, slope: np.ndarray) -> np.ndarray:
    if slope.ndim == 1 and x.ndim >= 2 and slope.shape[0] == x.shape[1]:
        # per channel (axis 1) -- OpenVINO reads it so even when it also matches the last dim
        slope = slope.reshape((1, -1) + (1,) * (x.ndim - 2))
    return np.where(x < 0, x * slope, x).astype(x.dtype)


@register_kernel("ov.Clamp")
def _clamp(node: KernelNode, x: np.ndarray) -> np.ndarray:
    lo, hi = float(node.attr("min", 0.0)), float(node.attr("max", 0.0))
    if x.dtype.kind != "f":
        lo, hi = math.ceil(lo), math.floor(hi)
    return np.clip(x, lo, hi).astype(x.dtype)


@register_kernel("ov.HardSigmoid")
def _hard_sigmoid(node: KernelNode, x: np.ndarray, alpha: np.ndarray, beta: np.ndarray) -> np.ndarray:
    x = float_work(x)
    y = _one_pass(node, x, (alpha, beta))
    if y is not None:
        return y
    a, b = np.asarray(scalar(alpha), x.dtype), np.asarray(scalar(beta), x.dtype)
    t = np.multiply(a, x)
    t += b
    np.maximum(t, 0, out=t)
    np.minimum(t, 1, out=t)
    return t


for _k in (_swish, _elu, _clamp, _hard_sigmoid):
    mark_row_epilogue(_k, _plan_act_rows)


def _axis(node: KernelNode, x: np.ndarray) -> int:
    return norm_axis(node.attr("axis", 1), x.ndim, node)


def _plan_softmax(node: KernelNode, consts: tuple) -> Callable[[np.ndarray], np.ndarray] | None:
    """Softmax over the last axis of f32/f64 (static rank): the numba row
    kernel called directly below :data:`SPLIT_MIN` elements (rows in ranges on
    the pool above), the axis read once; None otherwise (the kernel)."""
    dims = tensor_dims(node.op.operands[0].type)
    dtype = etype_dtype(input_etype(node, 0))
    if not dims or dtype not in ROW_DTYPES:
        return None
    rank = len(dims)
    axis = int(node.attr("axis", 1))
    if (axis + rank if axis < 0 else axis) != rank - 1:
        return None
    rk = row_kernels()
    if rk is None:
        return None

    def softmax_last(x: np.ndarray) -> np.ndarray:
        if x.dtype is not dtype or x.ndim != rank:
            return _softmax(node, x)
        return _softmax_rows(rk, x) if x.size else np.empty(x.shape, dtype)

    return softmax_last


def _softmax_rows(rk: Any, x: np.ndarray) -> np.ndarray:
    """Softmax over the last axis of a non-empty f32/f64 ``x`` by the row
    kernel: one call below :data:`SPLIT_MIN` elements, rows in ranges on the
    helper pool above (the same kernel either way)."""
    n = x.shape[-1]
    rows = x.size // n
    out = np.empty(x.shape, x.dtype)
    x2, o2 = np.ascontiguousarray(x).reshape(rows, n), out.reshape(rows, n)
    if x.size < SPLIT_MIN:
        rk.softmax_rows(x2, o2, x.dtype == np.float32)
    else:
        run_rows(rk.softmax_range, rows, n, x2, o2)
    return out


@register_kernel("ov.Softmax", "ov.Softmax_opset1")
@plan_with(_plan_softmax)
def _softmax(node: KernelNode, x: np.ndarray) -> np.ndarray:
    x = float_work(x)
    ax = _axis(node, x)
    if ax == x.ndim - 1 and x.size and x.dtype in ROW_DTYPES:
        rk = row_kernels()
        if rk is not None:  # rows in ranges on the helper pool when large
            return _softmax_rows(rk, x)
    e = np.subtract(x, np.max(x, axis=ax, keepdims=True))
    np.exp(e, out=e)
    e /= np.sum(e, axis=ax, keepdims=True)
    return e


@register_kernel("ov.LogSoftmax")
def _log_softmax(node: KernelNode, x: np.ndarray) -> np.ndarray:
    x = float_work(x)
    ax = _axis(node, x)
    s = x - np.max(x, axis=ax, keepdims=True)
    return s - np.log(np.sum(np.exp(s), axis=ax, keepdims=True))
