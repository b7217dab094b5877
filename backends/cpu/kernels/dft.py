"""DFT, IDFT, RDFT, IRDFT (opset7/9): complex values as a trailing dim of 2.

DFT/IDFT over exactly the two innermost spatial axes run the numba kernel of
:mod:`xmo.backends.cpu.fft` (imported on first use: numba's import costs
0.3 s, and constant folding loads every kernel); other cases use ``numpy.fft``.
"""

from __future__ import annotations

import numpy as np

from xmo.backends.cpu.kernels._common import ints, norm_axes
from xmo.backends.cpu.node import KernelNode
from xmo.backends.cpu.registry import register_kernel


def _complex(x: np.ndarray) -> np.ndarray:
    return x[..., 0].astype(np.float64) + 1j * x[..., 1].astype(np.float64)


def _pairs(z: np.ndarray, dtype: np.dtype) -> np.ndarray:
    return np.stack([z.real, z.imag], axis=-1).astype(dtype)


def _sizes(signal_size: np.ndarray | None, axes: list[int], shape: tuple[int, ...]) -> list[int]:
    if signal_size is None:
        return [shape[a] for a in axes]
    return [shape[a] if s == -1 else s for a, s in zip(axes, ints(signal_size))]


def _dft(node: KernelNode, x: np.ndarray, axes: np.ndarray, signal_size, inverse: bool):
    r = x.ndim - 1
    ax = norm_axes(axes, r, node)
    sizes = _sizes(signal_size, ax, x.shape)
    dtype = x.dtype if x.dtype.kind == "f" else np.dtype(np.float32)
    unchanged = all(s == x.shape[a] for a, s in zip(ax, sizes))
    if unchanged and r >= 2 and sorted(ax) == [r - 2, r - 1] and x.dtype.kind == "f":
        from xmo.backends.cpu.fft import fft2d  # numba: imported on first use

        return fft2d(x, inverse).astype(dtype, copy=False)
    z = _complex(x)
    z = np.fft.ifftn(z, s=sizes, axes=ax) if inverse else np.fft.fftn(z, s=sizes, axes=ax)
    return _pairs(z, dtype)


@register_kernel("ov.DFT")
def _dft_kernel(node: KernelNode, x: np.ndarray, axes: np.ndarray, signal_size=None):
    return _dft(node, x, axes, signal_size, inverse=False)


@register_kernel("ov.IDFT")
def _idft_kernel(node: KernelNode, x: np.ndarray, axes: np.ndarray, signal_size=None):
    return _dft(node, x, axes, signal_size, inverse=True)


@register_kernel("ov.RDFT")
def _rdft_kernel(node: KernelNode, x: np.ndarray, axes: np.ndarray, signal_size=None):
    ax = norm_axes(axes, x.ndim, node)
    sizes = _sizes(signal_size, ax, x.shape)
    z = np.fft.rfftn(x.astype(np.float64), s=sizes, axes=ax)
    return _pairs(z, x.dtype if x.dtype.kind == "f" else np.dtype(np.float32))


@register_kernel("ov.IRDFT")
def _irdft_kernel(node: KernelNode, x: np.ndarray, axes: np.ndarray, signal_size=None):
    r = x.ndim - 1
    ax = norm_axes(axes, r, node)
    sizes = [x.shape[a] for a in ax]
    sizes[-1] = 2 * (x.shape[ax[-1]] - 1)
    if signal_size is not None:
        sizes = [d if s == -1 else s for d, s in zip(sizes, ints(signal_size))]
    y = np.fft.irfftn(_complex(x), s=sizes, axes=ax)
    return y.astype(x.dtype if x.dtype.kind == "f" else np.float32)


@register_kernel("ov.FFT")
def _fft_kernel(node: KernelNode, x: np.ndarray):
    """xmo's custom ``FFT`` op (Model Optimizer's Custom Operations Guide):
    a real tensor [..., H, W, 2] of (re, im) pairs, 2-D transform over H and W;
    attribute ``inverse``. Any op named ``ov.FFT`` (e.g. defined by an
    extension) runs on the numba kernel."""
    from xmo.backends.cpu.fft import fft2d

    return fft2d(x, bool(node.attr("inverse", False))).astype(x.dtype, copy=False)
