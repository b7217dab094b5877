"""numba kernels over the last axis of a contiguous array (one row at a time):
Softmax and MVN, the LayerNorm of transformers; a product's epilogue (scale
and bias per column or per row block, then an activation: ``bias_act``, also
the standalone activations) and erf. The compiled code is in
:mod:`~xmo.backends.cpu.kernels.rows_jit`; this module holds their constants.

numpy reduces short rows slowly (``np.max`` over rows of 32 takes longer than
the exponentials); these loop over the rows once or twice, accumulating in
f64. Softmax of f32 rows computes its exponentials with a polynomial the
compiler vectorises (libm's ``exp`` is one call per element: 2x slower than
numpy from rows of 64 on). Compiled on first use; :func:`row_kernels` is None when numba is missing
(the callers keep their numpy path). :func:`run_rows` splits the rows of a
large array over the helper pool (the kernels are ``nogil``).

erf here is a rational function, ``z * P(z^2) / Q(z^2)`` for ``|z| <= 4``
and +-1 beyond, evaluated in f64 (max abs error 1.6e-9; +-1 beyond; fitted for xmo by
weighted least squares): unlike ``math.erf`` (a libm call per element) it
compiles to SIMD code, and it is exact to f32 rounding.

The f32 activations of ``bias_act`` (Gelu's erf form, Sigmoid, Swish; the
tanh form of Gelu through Sigmoid) compute in f32 arithmetic with FMAs, one
vectorised pass: Gelu within 5 ulp of the f64 truth (an erfc form for x <= -1:
no cancellation; results below 2^-123 are -0), Sigmoid within 4 ulp, Swish 5
(tests/test_cpu_act_f32.py pins the bounds; onnxruntime's f32 kernels: 10-17
ulp, and no digit left in the negative tails).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from xmo.backends.cpu.threads import TASK_MXCSR, native_tasks, run_tasks, threads

#: element types the row kernels take
ROW_DTYPES = (np.dtype(np.float32), np.dtype(np.float64))

#: epilogue activations of ``row_kernels().bias_act`` (``p0``, ``p1``: their
#: parameters): none, Gelu (erf form, f32), Relu, Clamp (min, max), Sigmoid,
#: Swish (beta), HSwish, HSigmoid, HardSigmoid (alpha, beta), Tanh, Elu
#: (alpha), Mish, SoftPlus
(ACT_NONE, ACT_GELU_ERF, ACT_RELU, ACT_CLAMP, ACT_SIGMOID, ACT_SWISH, ACT_HSWISH,
 ACT_HSIGMOID, ACT_HARD_SIGMOID, ACT_TANH, ACT_ELU, ACT_MISH, ACT_SOFTPLUS) = range(13)
#: elements ``bias_act`` activates at once (its scratch)
CHUNK = 512
#: a fused epilogue handed to a product (node.plan_fused_with): the constant
#: arguments ``(a, b, period, prm)`` of ``bias_act`` over the product's output
#: seen as rows (a convolution's [N * C, Ho * Wo]; a MatMul's [rows, N])
Epi = tuple[np.ndarray, np.ndarray, int, np.ndarray]
_NO_EPI = {dt: (np.empty(0, dt), np.empty(0, dt), 0, np.empty(0, np.float64)) for dt in ROW_DTYPES}


def no_epi(dtype: np.dtype) -> Epi:
    """The arguments of ``bias_act`` that apply nothing (empty constants, an
    empty ``prm``), for kernels whose epilogue is optional but always typed."""
    dtype = np.dtype(dtype)
    return _NO_EPI.get(dtype) or (np.empty(0, dtype), np.empty(0, dtype), 0, np.empty(0, np.float64))

# erf(z) ~ z * P(z*z) / Q(z*z) on |z| <= 4, coefficients in increasing order
ERF_P = (1.128379182081841, 0.1847112049993777, 0.05433278979950469,
          0.003839575878469475, 0.0003826964458026593, 4.7806227839485166e-06,
          -1.3667240247640703e-08)
ERF_Q = (1.0, 0.4970295886182726, 0.11382673312671725, 0.015453622277942081,
          0.0013095944993118053, 6.401010100064748e-05)
#: Gelu (erf form) on f32 (``rows_jit.gelu_erf_f32``): x Phi(x), for |x| < 1
#: Phi(x) = 1/2 + x Q(x^2) (Q: GELU_Q, degree 5), else Phi(x) = E / 2 (x < 0)
#: or 1 - E / 2, E = erfc(|x| / sqrt 2) = t exp(-x^2 / 2 + g(t)),
#: t = 1 / (1 + |x| / (2 sqrt 2)), g: GELU_G, degree 8 in t - 0.4 on |x| <= 13.
#: Coefficients in increasing order, f32, fitted for xmo by reweighted least
#: squares (tools/fit_gelu.py; max errors 2.6e-10 and 1.1e-8 in f64)
GELU_Q = (0.3989422917366028, -0.06649035960435867, 0.009973332285881042,
          -0.001186353387311101, 0.00011351294233463705, -7.664782970095985e-06)
GELU_G = (-0.8040723204612732, 1.2969212532043457, 0.2898450791835785, -0.2870166003704071,
          -0.27197110652923584, 0.15902608633041382, 0.26747840642929077, -0.14458458125591278,
          -0.1472272127866745)
#: fewest elements in one range of :func:`run_rows`
_MIN_TASK = 1 << 16
#: fewest elements :func:`run_rows` splits over the threads (callers may call
#: the kernel directly below it)
SPLIT_MIN = 2 * _MIN_TASK

_kernels: Any = None
LOG2E = 1.4426950408889634
LN2 = 0.6931471805599453


def row_kernels() -> Any:
    """An object with ``softmax(x2d, out2d)`` and
    ``mvn(x2d, eps, inside_sqrt, out2d)`` (numba; ``mvn_affine`` with a
    scale and shift per column), or None without numba."""
    global _kernels
    if _kernels is None:
        try:
            import numba  # noqa: F401
        except ImportError:
            _kernels = False
            return None
        from xmo.backends.cpu.kernels import rows_jit

        class _Kernels:
            pass

        k = _Kernels()
        k.softmax = rows_jit.softmax
        k.mvn = rows_jit.mvn
        k.mvn_affine = rows_jit.mvn_affine
        k.mvn_affine_cols = rows_jit.mvn_affine_cols
        k.softmax_rows = rows_jit.softmax_rows
        k.erf = rows_jit.erf
        k.bias_act = rows_jit.bias_act
        k.bias_act_cols = rows_jit.bias_act_cols
        k.softmax_range = rows_jit.softmax_range
        k.gelu_tanh = rows_jit.gelu_tanh
        k.row_mean = rows_jit.row_mean
        k.row_scale = rows_jit.row_scale
        _kernels = k
    return _kernels or None


def run_rows(kernel: Callable[..., None], rows: int, per_row: int, *args: Any) -> None:
    """``kernel(*args, lo, hi)`` over rows ``0..rows`` (``per_row`` elements
    each) in ranges of at least ``_MIN_TASK`` elements, shared by the threads:
    on the kernel's native launcher when it has one (``par_jit.ROW_LAUNCHERS``,
    :func:`~xmo.backends.cpu.threads.native_tasks`), else on the pool
    (:func:`~xmo.backends.cpu.threads.run_tasks`; the kernel releases the GIL)."""
    tasks = min(rows, rows * per_row // _MIN_TASK, 4 * threads())
    if tasks <= 1:
        kernel(*args, 0, rows)
        return
    bounds = [rows * i // tasks for i in range(tasks + 1)]
    par = native_tasks()
    name = getattr(kernel, "__name__", "")
    if par is not None and getattr(par.rows_jit, name, None) is kernel:
        cuts = np.array(bounds, np.int64)
        if name in par.ROW_LAUNCHER_NAMES:
            getattr(par, par.ROW_LAUNCHER_NAMES[name])(*args, cuts, TASK_MXCSR)
            return
        if name in par.ROW_LAUNCHERS:
            if par.ROW_LAUNCHERS[name]:  # the sources' tuple unpacked
                getattr(par, name)(*args[0], *args[1:], cuts, TASK_MXCSR)
            else:
                getattr(par, name)(*args, cuts, TASK_MXCSR)
            return
    run_tasks([(kernel, (*args, lo, hi)) for lo, hi in zip(bounds, bounds[1:])])


def innermost_axis(a: np.ndarray) -> tuple[int, np.ndarray] | None:
    """``(k, flat)`` when ``a`` is a C-contiguous array seen with its
    innermost axis moved to position ``k < a.ndim - 1`` (an NHWC map seen as
    NCHW through a transpose: k = 1); ``flat``: its values in memory order
    (a view). None for any other layout."""
    nd = a.ndim
    for k in range(nd - 1):
        y = a.transpose((*range(k), *range(k + 1, nd), k))
        if y.flags.c_contiguous:
            return k, y.reshape(-1)
    return None


def last_axis_at(a: np.ndarray) -> tuple[int, np.ndarray] | None:
    """``(k, flat)`` when ``a`` is a C-contiguous array seen with the axis at
    position ``k < a.ndim - 1`` moved last (an NCHW map seen as NHWC through a
    transpose: k = 1); ``flat``: its values in memory order (a view). None
    for any other layout."""
    nd = a.ndim
    for k in range(nd - 1):
        y = a.transpose((*range(k), nd - 1, *range(k, nd - 1)))
        if y.flags.c_contiguous:
            return k, y.reshape(-1)
    return None
