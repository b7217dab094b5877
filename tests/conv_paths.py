"""One switch for the convolution tests: every numba convolution kernel off,
as on a machine without numba, so ``grouped_conv`` takes its numpy paths
(the reference the numba forms are compared with)."""

from __future__ import annotations

import pytest

from xmo.backends.cpu.kernels import convolution as conv
from xmo.backends.cpu.kernels import grouped

#: the module-level getters' caches of convolution.py (False: "no numba")
CONV_KERNELS = ("_direct", "_im2col", "_blocked", "_stem")


def numba_convolutions_off(m: pytest.MonkeyPatch) -> None:
    """Switch the numba convolution kernels off for ``m``'s scope."""
    for kernel in CONV_KERNELS:
        m.setattr(conv, kernel, False)
    m.setattr(grouped, "_kernel", False)
