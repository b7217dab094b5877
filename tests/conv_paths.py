"""One switch for the convolution tests: every numba convolution kernel off,
as on a machine without numba, so ``grouped_conv`` takes its numpy paths
(the reference the numba forms are compared with)."""

from __future__ import annotations

import pytest

import numpy as np

from xmo.backends.cpu.kernels import convolution as conv
from xmo.backends.cpu.kernels import depthwise, grouped

#: the module-level getters' caches of convolution.py (False: "no numba")
CONV_KERNELS = ("_direct", "_im2col", "_blocked", "_stem")


def numba_convolutions_off(m: pytest.MonkeyPatch) -> None:
    """Switch the numba convolution kernels off for ``m``'s scope."""
    for kernel in CONV_KERNELS:
        m.setattr(conv, kernel, False)
    m.setattr(grouped, "_kernel", False)
    m.setattr(depthwise, "_kernel", False)


def numpy_conv(monkeypatch: pytest.MonkeyPatch, x: np.ndarray, w: np.ndarray, s, d, pb, pe,
               valid_taps: bool = True) -> np.ndarray:
    """``grouped_conv`` on its numpy paths: the numba kernels and the patch
    form off; ``valid_taps=False`` also the valid-tap form (the window
    views' GEMM only)."""
    with monkeypatch.context() as m:
        numba_convolutions_off(m)
        m.setattr(conv, "patch_eligible", lambda *a: False)
        if not valid_taps:
            m.setattr(conv, "VALID_TAPS_MAX_SHARE", -1.0)
        return conv.grouped_conv(x, w, s, d, pb, pe)


def conv_bias_act(x_shape: list[int], w: np.ndarray, b: np.ndarray, act: str = "Relu",
                  shared: bool = False):  # noqa: ANN201 - (ModuleOp, compiled elsewhere)
    """The ``ov`` module y = act(Convolution(x, w) + b), stride 1, no padding
    (b [1, Cout, 1, 1]); with ``shared`` the convolution's result is also a
    model output (nothing fuses into it)."""
    from xdsl.dialects.builtin import ModuleOp

    from xmo.dialects.ov import ConstantOp, ParameterOp, ResultOp, op_class
    from xmo.dialects.ov.base import tensor

    n, _, h, wd = x_shape
    cout, _, kh, kw = w.shape
    x = ParameterOp.new("f32", list(x_shape), name="x")
    wc, bc = ConstantOp.from_array(w), ConstantOp.from_array(b)
    t = tensor("f32", [n, cout, h - kh + 1, wd - kw + 1])
    conv = op_class("Convolution").make(
        [x, wc], {"strides": [1, 1], "dilations": [1, 1], "pads_begin": [0, 0],
                  "pads_end": [0, 0]}, result_types=[t], name="conv")
    add = op_class("Add").make([conv, bc], {}, result_types=[t], name="bias")
    y = op_class(act).make([add], {}, result_types=[t], name="act")
    ops = [x, wc, bc, conv, add, y, ResultOp.new(y.results[0])]
    if shared:
        ops.append(ResultOp.new(conv.results[0]))
    return ModuleOp(ops)
