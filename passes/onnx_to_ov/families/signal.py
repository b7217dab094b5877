"""Signal processing ONNX ops: DFT, STFT, window functions, MelWeightMatrix.

Complex tensors carry (real, imaginary) in a trailing dimension of 2, in ONNX
and OpenVINO alike; ONNX real signals have a trailing dimension of 1.
"""

from __future__ import annotations

import math

import numpy as np
from xdsl.ir import SSAValue
from xmo.dialects.ov.base import DYN, tensor
from xmo.passes.to_ov.builder import Builder, ConverterNode, value_etype
from xmo.passes.to_ov.helpers import dim_of, scalar
from xmo.passes.onnx_to_ov.families._types import onnx_dtype_to_etype
from xmo.passes.onnx_to_ov.registry import converter

_I64_MAX = int(np.iinfo(np.int64).max)


# -- DFT ------------------------------------------------------------------------------
#
# A DFT along one axis is a product with a matrix of twiddle factors. OpenVINO's
# DFT kernels leave f32 rounding noise (~1e-7 of the signal's magnitude) where
# the exact result is zero (e.g. the imaginary part of the Nyquist bin of a real
# signal); the twiddle matrix below is exact at the multiples of a quarter turn,
# so those results stay zero. Signals longer than _MATMUL_MAX_N use the
# OpenVINO DFT ops.

_MATMUL_MAX_N = 4096


def _dft_axis(node: ConverterNode, b: Builder, rank: int) -> tuple[SSAValue, int | None]:
    """The transformed axis as an i64 ``[1]`` vector in ``[0, rank - 1)`` and,
    when constant, as an int (opset 17: attribute; opset 20: input 2)."""
    if node.version < 20:
        axis = int(node.attr("axis", 1))
    elif not node.has_input(2):
        axis = -2
    else:
        c = node.const(2)
        if c is None:  # run-time axis: floor-mod by the rank
            a = b.convert(b.reshape(node.input(2), [1]), "i64")
            return b.out("FloorMod", [a, b.i64([rank])]), None
        axis = int(np.asarray(c).reshape(-1)[0])
    if not -rank <= axis < rank - 1:
        raise node.unsupported(f"axis {axis} out of range for rank {rank}")
    axis %= rank
    return b.i64([axis]), axis


def _as_complex(b: Builder, x: SSAValue) -> SSAValue:
    """``[..., 1]`` real -> ``[..., 2]`` complex with a zero imaginary part."""
    zero = b.out("Multiply", [x, scalar(b, 0, value_etype(x))])
    return b.concat([x, zero], -1)


def _np_cis(m: np.ndarray, n: int) -> tuple[np.ndarray, np.ndarray]:
    """cos and sin of ``2 pi m / n`` (float64), exact at quarter turns."""
    ang = 2 * np.pi * m / n
    c, s = np.cos(ang), np.sin(ang)
    quarter = (4 * m) % n == 0
    return np.where(quarter, np.round(c), c), np.where(quarter, np.round(s), s)


def _ov_cis(b: Builder, m: SSAValue, n: SSAValue) -> tuple[SSAValue, SSAValue]:
    """cos and sin of ``2 pi m / n`` for i64 ``m`` in ``[0, n)`` (f32): reduced
    to the first quadrant so that quarter turns are exact."""
    m4 = b.out("Multiply", [m, b.i64(4)])
    q = b.out("Divide", [m4, n], {"m_pythondiv": True})
    r = b.out("Subtract", [m4, b.out("Multiply", [q, n])])
    theta = b.out(
        "Multiply",
        [b.out("Divide", [b.convert(r, "f32"), b.convert(n, "f32")]), scalar(b, math.pi / 2, "f32")],
    )
    c, s = b.out("Cos", [theta]), b.out("Sin", [theta])
    nc, ns = b.out("Negative", [c]), b.out("Negative", [s])
    is_q = [b.out("Equal", [q, b.i64(i)]) for i in range(3)]

    def pick(v0, v1, v2, v3):
        return b.out("Select", [is_q[0], v0, b.out("Select", [is_q[1], v1, b.out("Select", [is_q[2], v2, v3])])])

    return pick(c, ns, nc, s), pick(s, c, ns, nc)


def _interleave(b: Builder | None, a, c):
    """``[..., K]`` pair -> ``[..., 2K]`` with a and c alternating."""
    if b is None:
        return np.stack([a, c], -1).reshape(*a.shape[:-1], -1)
    y = b.concat([b.unsqueeze(a, [-1]), b.unsqueeze(c, [-1])], -1)
    return b.reshape(y, [0, -1], special_zero=True)


def _stack_rows(b: Builder | None, a, c):
    """``[N, M]`` pair -> ``[2N, M]`` with rows of a and c alternating."""
    if b is None:
        return np.stack([a, c], 1).reshape(-1, a.shape[-1])
    y = b.concat([b.unsqueeze(a, [1]), b.unsqueeze(c, [1])], 1)
    return b.reshape(y, b.concat([b.i64([-1]), dim_of(b, a, 1)], 0))


def _twiddles(b: Builder | None, n_in, length, complex_in: bool, inverse: bool, onesided: bool):
    """The matrix ``M`` with ``y = x @ M`` along the transformed axis, ``x``
    flattened as ``[n_in * c]`` (c = 2 complex, 1 real). The output is
    interleaved complex ``[2K]`` or, for an inverse one-sided DFT, ``[length]``
    reals. Built with numpy when ``b`` is None (ints), else as ov ops (i64
    scalars)."""
    if b is None:
        ar = lambda n: np.arange(n, dtype=np.int64)
        col = lambda v: v[:, None]
        row = lambda v: v[None, :]
        mod = lambda p, q: (p * q) % length
        cis = lambda m: _np_cis(m, length)
        neg = lambda v: -v
        mul = lambda p, q: p * q
        as_f = lambda v: v.astype(np.float64)
        half = length // 2
    else:
        ar = lambda n: b.out("Range", [b.i64(0), n, b.i64(1)], {"output_type": "i64"})
        col = lambda v: b.unsqueeze(v, [1])
        row = lambda v: b.unsqueeze(v, [0])
        mod = lambda p, q: b.out("FloorMod", [b.out("Multiply", [p, q]), length])
        cis = lambda m: _ov_cis(b, m, length)
        neg = lambda v: b.out("Negative", [v])
        mul = lambda p, q: b.out("Multiply", [p, q])
        as_f = lambda v: b.convert(v, "f32")
        half = b.out("Divide", [length, b.i64(2)], {"m_pythondiv": True})

    def cmp(op: str, p, q):
        if b is None:
            return {"Less": np.less, "LessEqual": np.less_equal, "Equal": np.equal}[op](p, q)
        return b.out(op, [p, q])

    if inverse and onesided:  # bins k (rows) -> real samples t (columns)
        k = col(ar(n_in))
        cos, sin = cis(mod(k, row(ar(length))))
        # Hermitian weights: 1 for DC and Nyquist, 2 for the others, 0 past L/2
        edge = cmp("Equal", mul(k, b.i64(2)) if b is not None else 2 * k, length)
        if b is None:
            w = np.where((k == 0) | edge, 1.0, 2.0) * (k <= half) / length
        else:
            one_w = b.out("LogicalOr", [cmp("Equal", k, b.i64(0)), edge])
            w = b.out("Select", [one_w, scalar(b, 1.0, "f32"), scalar(b, 2.0, "f32")])
            w = mul(w, as_f(cmp("LessEqual", k, half)))
            w = b.out("Divide", [w, as_f(length)])
        re, im = mul(cos, w), neg(mul(sin, w))
        return _stack_rows(b, re, im) if complex_in else re

    if b is None:
        n_out = half + 1 if onesided else length
    else:
        n_out = b.out("Add", [half, b.i64(1)]) if onesided else length
    t = col(ar(n_in))
    cos, sin = cis(mod(t, row(ar(n_out))))
    valid = as_f(cmp("Less", t, length))  # samples past the DFT length are cut
    if inverse:
        scale = b.out("Divide", [valid, as_f(length)]) if b is not None else valid / length
        wr, wi = mul(cos, scale), mul(sin, scale)
    else:
        wr, wi = mul(cos, valid), neg(mul(sin, valid))
    real_rows = _interleave(b, wr, wi)  # contribution of Re x[t] to (Re, Im) y[k]
    if not complex_in:
        return real_rows
    return _stack_rows(b, real_rows, _interleave(b, neg(wi), wr))


def _swap_perm(b: Builder, axes: SSAValue, axis: int | None, rank: int) -> SSAValue | None:
    """Transpose order swapping ``axis`` with ``rank - 2`` (None: no-op)."""
    if axis is not None:
        if axis == rank - 2:
            return None
        perm = list(range(rank))
        perm[axis], perm[rank - 2] = perm[rank - 2], perm[axis]
        return b.i64(perm)
    idx = b.i64(list(range(rank)))
    last = b.i64([rank - 2])
    perm = b.out("Select", [b.out("Equal", [idx, axes]), last, idx])
    return b.out("Select", [b.out("Equal", [idx, last]), axes, perm])


def _dft_matmul(node: ConverterNode, b: Builder, x: SSAValue, axes: SSAValue, axis: int | None,
                inverse: bool, onesided: bool) -> SSAValue:
    rank = node.rank(0)
    complex_in = node.shape(0)[-1] == 2
    x, orig = _f32(b, x)
    perm = _swap_perm(b, axes, axis, rank)
    if perm is not None:
        x = b.out("Transpose", [x, perm])
    n_static = node.shape(0)[axis] if axis is not None else -1
    len_const = node.const(1)
    irfft = inverse and onesided
    if n_static >= 0 and (len_const is not None or not node.has_input(1)):
        length = int(np.asarray(len_const).reshape(-1)[0]) if len_const is not None else (
            2 * (n_static - 1) if irfft else n_static)
        m = _twiddles(None, n_static, length, complex_in, inverse, onesided)
        mt = b.const(m.astype(np.float32), "f32")
    else:
        n_in = dim_of(b, x, rank - 2, scalar_out=True)
        if node.has_input(1):
            length = b.convert(b.reshape(node.input(1), []), "i64")
        elif irfft:
            length = b.out("Multiply", [b.out("Subtract", [n_in, b.i64(1)]), b.i64(2)])
        else:
            length = n_in
        mt = _twiddles(b, n_in, length, complex_in, inverse, onesided)
    flat = b.reshape(x, [0] * (rank - 2) + [-1], special_zero=True)
    y = b.out("MatMul", [flat, mt], {"transpose_a": False, "transpose_b": False})
    y = b.reshape(y, [0] * (rank - 2) + [-1, 1 if irfft else 2], special_zero=True)
    if perm is not None:
        y = b.out("Transpose", [y, perm])
    return b.convert(y, orig)


def _f32(b: Builder, x: SSAValue) -> tuple[SSAValue, str]:
    t = value_etype(x)
    return (b.convert(x, "f32") if t != "f32" else x), t


def _dft_ov_ops(node: ConverterNode, b: Builder, x: SSAValue, axes: SSAValue, inverse: bool, onesided: bool) -> SSAValue:
    """The DFT through OpenVINO's DFT/IDFT/RDFT/IRDFT (constant axis)."""
    is_real = node.shape(0)[-1] == 1
    size = b.convert(b.reshape(node.input(1), [1]), "i64") if node.has_input(1) else None
    extra = [size] if size is not None else []
    if inverse and onesided:  # one-sided spectrum -> real signal
        c = _as_complex(b, x) if is_real else x
        return b.unsqueeze(b.out("IRDFT", [c, axes, *extra]), [-1])
    if inverse:
        return b.out("IDFT", [_as_complex(b, x) if is_real else x, axes, *extra])
    if onesided and is_real:
        return b.out("RDFT", [b.squeeze(x, [-1]), axes, *extra])
    y = b.out("DFT", [_as_complex(b, x) if is_real else x, axes, *extra])
    if not onesided:
        return y
    # complex input, one-sided output: the first n // 2 + 1 bins
    n = size if size is not None else b.gather(b.shape_of(x), axes, 0)
    stop = b.out("Add", [b.out("Divide", [n, b.i64([2])], {"m_pythondiv": True}), b.i64([1])])
    return b.out("Slice", [y, b.i64([0]), stop, b.i64([1]), axes])


@converter("DFT", min_version=17)
def dft(node: ConverterNode, b: Builder):
    x = node.input(0)
    shape = node.shape(0)
    if shape is None or len(shape) < 2 or shape[-1] not in (1, 2):
        raise node.unsupported("the last dimension must be a static 1 or 2")
    if node.etype(0) not in ("f32", "f16", "bf16", "f64"):
        raise node.unsupported(f"element type {node.etype(0)}")
    inverse = bool(node.attr("inverse", 0))
    onesided = bool(node.attr("onesided", 0))
    axes, axis = _dft_axis(node, b, len(shape))
    len_const = node.const(1)
    longest = max(
        shape[axis] if axis is not None else max(shape[:-1]),
        int(np.asarray(len_const).max()) if len_const is not None else 0,
    )
    if axis is not None and longest > _MATMUL_MAX_N and node.etype(0) != "f64":
        return _dft_ov_ops(node, b, x, axes, inverse, onesided)
    return _dft_matmul(node, b, x, axes, axis, inverse, onesided)


# -- STFT -----------------------------------------------------------------------------


@converter("STFT", min_version=17)
def stft(node: ConverterNode, b: Builder):
    x = node.input(0)
    shape = node.shape(0)
    if shape is None or len(shape) != 3 or shape[-1] != 1:
        raise node.unsupported("only real signals [batch, length, 1] are supported")
    if not int(node.attr("onesided", 1)):
        raise node.unsupported("onesided=0")
    step = b.convert(b.reshape(node.input(1), []), "i64")
    if node.has_input(2):
        window = node.input(2)
        frame = (
            b.convert(b.reshape(node.input(3), []), "i64")
            if node.has_input(3)
            else dim_of(b, window, 0, scalar_out=True)
        )
    elif node.has_input(3):
        frame = b.convert(b.reshape(node.input(3), []), "i64")
        window = b.out("Broadcast", [scalar(b, 1, node.etype(0)), b.reshape(frame, [1])], {"mode": "numpy"})
    else:
        raise node.unsupported("window or frame_length is required")
    signal = b.squeeze(x, [-1])
    return b.out(
        "STFT",
        [signal, window, frame, step],
        {"transpose_frames": False},
        result_types=[tensor(node.etype(0), [shape[0], DYN, DYN, 2])],
    )


# -- window functions -------------------------------------------------------------------

#: window -> cosine series coefficients a_k of w(n) = sum_k (-1)^k a_k cos(2 pi k n / N)
_WINDOWS = {
    "HannWindow": (0.5, 0.5),
    "HammingWindow": (25.0 / 46.0, 21.0 / 46.0),
    "BlackmanWindow": (0.42, 0.5, 0.08),
}


def _window(node: ConverterNode, b: Builder):
    size = b.convert(b.reshape(node.input(0), []), "f32")
    n = b.out("Range", [scalar(b, 0.0, "f32"), size, scalar(b, 1.0, "f32")], {"output_type": "f32"})
    denom = size if int(node.attr("periodic", 1)) else b.out("Subtract", [size, scalar(b, 1.0, "f32")])
    angle = b.out("Divide", [b.out("Multiply", [n, scalar(b, 2 * math.pi, "f32")]), denom])
    coeffs = _WINDOWS[node.type]
    y = None
    for k, a in enumerate(coeffs):
        if k == 0:
            term = b.out("Broadcast", [scalar(b, a, "f32"), b.shape_of(n)], {"mode": "numpy"})
        else:
            arg = angle if k == 1 else b.out("Multiply", [angle, scalar(b, float(k), "f32")])
            term = b.out("Multiply", [b.out("Cos", [arg]), scalar(b, a * (-1) ** k, "f32")])
        y = term if y is None else b.out("Add", [y, term])
    return b.convert(y, onnx_dtype_to_etype(node, int(node.attr("output_datatype", 1))))


for _name in _WINDOWS:
    converter(_name, min_version=17)(_window)


# -- MelWeightMatrix -------------------------------------------------------------------------


@converter("MelWeightMatrix", min_version=17)
def mel_weight_matrix(node: ConverterNode, b: Builder):
    f32 = lambda v: b.convert(b.reshape(v, []), "f32")
    i64 = lambda v: b.convert(b.reshape(v, []), "i64")
    mul = lambda p, q: b.out("Multiply", [p, q])
    add = lambda p, q: b.out("Add", [p, q])
    sub = lambda p, q: b.out("Subtract", [p, q])
    c = lambda v: scalar(b, v, "f32")

    num_mel = i64(node.input(0))
    dft_len = i64(node.input(1))
    rate = f32(node.input(2))
    low, high = f32(node.input(3)), f32(node.input(4))

    def to_mel(hz: SSAValue) -> SSAValue:  # 2595 log10(1 + hz / 700)
        return mul(b.out("Log", [add(mul(hz, c(1 / 700)), c(1.0))]), c(2595 / math.log(10)))

    low_mel, high_mel = to_mel(low), to_mel(high)
    count = add(num_mel, b.i64(2))
    step = b.out("Divide", [sub(high_mel, low_mel), b.convert(count, "f32")])
    idx = b.out("Range", [b.i64(0), count, b.i64(1)], {"output_type": "i64"})
    mels = add(mul(b.convert(idx, "f32"), step), low_mel)
    hz = mul(sub(b.out("Exp", [mul(mels, c(math.log(10) / 2595))]), c(1.0)), c(700.0))
    bins = b.out("Floor", [b.out("Divide", [mul(b.convert(add(dft_len, b.i64(1)), "f32"), hz), rate])])
    # bins[i], bins[i+1], bins[i+2] for every mel bin i: rows [1, M]
    lo = b.unsqueeze(b.out("Slice", [bins, b.i64([0]), b.i64([-2]), b.i64([1]), b.i64([0])]), [0])
    ce = b.unsqueeze(b.out("Slice", [bins, b.i64([1]), b.i64([-1]), b.i64([1]), b.i64([0])]), [0])
    hi = b.unsqueeze(b.out("Slice", [bins, b.i64([2]), b.i64([_I64_MAX]), b.i64([1]), b.i64([0])]), [0])
    # spectrogram bins j: a column [J, 1]
    n_spec = add(b.out("Divide", [dft_len, b.i64(2)], {"m_pythondiv": True}), b.i64(1))
    j = b.unsqueeze(b.convert(b.out("Range", [b.i64(0), n_spec, b.i64(1)], {"output_type": "i64"}), "f32"), [1])

    one, zero = c(1.0), c(0.0)
    both = lambda p, q: b.out("LogicalAnd", [p, q])
    rise_w = sub(ce, lo)
    fall_w = sub(hi, ce)
    rise = b.out("Divide", [sub(j, lo), b.out("Maximum", [rise_w, one])])
    fall = b.out("Divide", [sub(hi, j), b.out("Maximum", [fall_w, one])])
    in_rise = both(
        both(b.out("GreaterEqual", [j, lo]), b.out("LessEqual", [j, ce])),
        b.out("Greater", [rise_w, zero]),
    )
    y = b.out("Select", [in_rise, rise, zero])
    at_peak = both(b.out("Equal", [j, ce]), b.out("Equal", [rise_w, zero]))
    y = b.out("Select", [at_peak, one, y])
    in_fall = both(b.out("GreaterEqual", [j, ce]), b.out("Less", [j, hi]))
    y = b.out("Select", [in_fall, fall, y])
    return b.convert(y, onnx_dtype_to_etype(node, int(node.attr("output_datatype", 1))))
