"""Sampling at fractional positions: GridSample (bilinear, bicubic, nearest with
zeros / border / reflection padding) and shared bilinear gathering helpers.

Every kernel gathers whole channel vectors at once: the image is viewed as
``[N, C, H*W]`` and sample positions as flat indices ``[N, P]``.
"""

from __future__ import annotations

import numpy as np

from xmo.backends.cpu.kernels._common import float_work
from xmo.backends.cpu.node import KernelNode
from xmo.backends.cpu.registry import register_kernel


def gather_pixels(img: np.ndarray, r: np.ndarray, c: np.ndarray,
                  valid: np.ndarray | None = None) -> np.ndarray:
    """``img``: [N, C, H, W]; ``r``, ``c``: integer [N, P] -> [N, C, P].

    Positions outside the image (or where ``valid`` is False) read 0.
    """
    n, ch, h, w = img.shape
    inside = (r >= 0) & (r < h) & (c >= 0) & (c < w)
    if valid is not None:
        inside &= valid
    flat = np.where(inside, np.clip(r, 0, h - 1) * w + np.clip(c, 0, w - 1), 0)
    vals = np.take_along_axis(img.reshape(n, ch, h * w), flat[:, None, :], axis=2)
    return vals * inside[:, None, :].astype(img.dtype)


def bilinear(img: np.ndarray, y: np.ndarray, x: np.ndarray) -> np.ndarray:
    """Bilinear samples [N, C, P] of ``img`` at float positions ``y``, ``x`` [N, P]
    (pixels outside the image count as 0)."""
    y0, x0 = np.floor(y), np.floor(x)
    wy, wx = (y - y0).astype(img.dtype), (x - x0).astype(img.dtype)
    y0, x0 = y0.astype(np.int64), x0.astype(np.int64)
    out = 0
    for dy, fy in ((0, 1 - wy), (1, wy)):
        for dx, fx in ((0, 1 - wx), (1, wx)):
            out = out + gather_pixels(img, y0 + dy, x0 + dx) * (fy * fx)[:, None, :]
    return out


def _reflect(v: np.ndarray, lo: float, hi: float) -> np.ndarray:
    """Reflect coordinates into [lo, hi] (repeatedly, as many times as needed)."""
    span = hi - lo
    if span <= 0:
        return np.zeros_like(v)
    d = np.abs(v - lo)
    flips = np.floor(d / span)
    extra = d - flips * span
    return np.where(flips % 2 == 0, lo + extra, hi - extra)


def _cubic_weights(t: np.ndarray, a: float = -0.75) -> list[np.ndarray]:
    """Keys cubic convolution weights of the 4 taps at offsets -1, 0, 1, 2."""
    def near(s):  # |s| <= 1
        return ((a + 2) * s - (a + 3)) * s * s + 1

    def far(s):  # 1 < |s| < 2
        return ((a * s - 5 * a) * s + 8 * a) * s - 4 * a

    return [far(t + 1), near(t), near(1 - t), far(2 - t)]


@register_kernel("ov.GridSample")
def _grid_sample(node: KernelNode, x: np.ndarray, grid: np.ndarray) -> np.ndarray:
    mode = str(node.attr("mode", "bilinear")).lower()
    pad = str(node.attr("padding_mode", "zeros")).lower()
    align = bool(node.attr("align_corners", False))
    img = float_work(x)
    n, ch, h, w = img.shape
    g = grid.astype(np.float64).reshape(n, -1, 2)
    out_hw = grid.shape[1:3]

    def denorm(v, size):
        return (v + 1) / 2 * (size - 1) if align else ((v + 1) * size - 1) / 2

    gx, gy = denorm(g[..., 0], w), denorm(g[..., 1], h)
    lo_x, hi_x = (0.0, w - 1.0) if align else (-0.5, w - 0.5)
    lo_y, hi_y = (0.0, h - 1.0) if align else (-0.5, h - 0.5)
    if mode == "bicubic":
        pass  # the 4x4 taps are padded one by one (fetch), not the position
    elif pad == "border":
        gx, gy = np.clip(gx, 0, w - 1), np.clip(gy, 0, h - 1)
    elif pad == "reflection":
        gx, gy = _reflect(gx, lo_x, hi_x), _reflect(gy, lo_y, hi_y)

    def fetch(r, c):
        if pad == "zeros":
            return gather_pixels(img, r, c)
        if pad == "border":
            return gather_pixels(img, np.clip(r, 0, h - 1), np.clip(c, 0, w - 1))
        rr = np.clip(np.round(_reflect(r.astype(np.float64), lo_y, hi_y)), 0, h - 1)
        cc = np.clip(np.round(_reflect(c.astype(np.float64), lo_x, hi_x)), 0, w - 1)
        return gather_pixels(img, rr.astype(np.int64), cc.astype(np.int64))

    if mode == "nearest":
        out = fetch(np.rint(gy).astype(np.int64), np.rint(gx).astype(np.int64))
    elif mode == "bilinear":
        y0, x0 = np.floor(gy), np.floor(gx)
        wy, wx = gy - y0, gx - x0
        y0, x0 = y0.astype(np.int64), x0.astype(np.int64)
        out = 0
        for dy, fy in ((0, 1 - wy), (1, wy)):
            for dx, fx in ((0, 1 - wx), (1, wx)):
                out = out + fetch(y0 + dy, x0 + dx) * (fy * fx).astype(img.dtype)[:, None, :]
    elif mode == "bicubic":
        y0, x0 = np.floor(gy), np.floor(gx)
        wys, wxs = _cubic_weights(gy - y0), _cubic_weights(gx - x0)
        y0, x0 = y0.astype(np.int64), x0.astype(np.int64)
        out = 0
        for i, fy in enumerate(wys):
            for j, fx in enumerate(wxs):
                out = out + fetch(y0 + i - 1, x0 + j - 1) * (fy * fx).astype(img.dtype)[:, None, :]
    else:
        raise node.error(f"unsupported mode '{mode}'")
    return np.asarray(out).reshape((n, ch) + tuple(out_hw)).astype(x.dtype, copy=False)
