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
