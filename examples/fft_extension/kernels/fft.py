"""CPU kernel of ``FFT`` for xmo's backend: the numba 2-D FFT of
``xmo.backends.cpu.fft`` (radix-2, mixed radix, Bluestein for large primes).

xmo ships the same kernel for any ``ov.FFT`` op; ``override=True`` makes this
file the one that runs (a place to plug in another implementation).
"""

import numpy as np

from xmo.backends.cpu import register_kernel
from xmo.backends.cpu.fft import fft2d


@register_kernel("ov.FFT", override=True)
def fft_kernel(node, x: np.ndarray) -> np.ndarray:
    return fft2d(x, bool(node.attr("inverse", False))).astype(x.dtype, copy=False)
