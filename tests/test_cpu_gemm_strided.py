"""The in-place micro-kernel product of small-K f32 products with a fused
epilogue (kernels/gemm_epi.py ``strided_kernels``, gemm_jit.gemm_strided /
gemm_strided_epi): pointwise convolutions with few input channels."""

from __future__ import annotations

import numpy as np
import pytest

from xmo.backends.cpu.kernels import gemm_epi
from xmo.backends.cpu.kernels.packed import panel_kernels
from xmo.backends.cpu.kernels.rows import ACT_NONE, ACT_RELU, ACT_SWISH

from conv_paths import conv_bias_act

pytestmark = pytest.mark.skipif(panel_kernels() is None, reason="numba missing")

RNG = np.random.default_rng(11)
TINY = float(np.finfo(np.float32).tiny)


def _prm(act: int) -> np.ndarray:
    return np.array([act, 1.0, 0.0, 1.0, TINY])


def _want(a: np.ndarray, b: np.ndarray, bias: np.ndarray, act: int) -> np.ndarray:
    y = a.astype(np.float64) @ b.astype(np.float64) + bias.astype(np.float64)[:, None]
    if act == ACT_RELU:
        y = np.maximum(y, 0)
    elif act == ACT_SWISH:
        y = y / (1 + np.exp(-y))
    return y


def _bound(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    k = a.shape[1]
    return 8 * (k + 2) * np.finfo(np.float32).eps * (
        np.abs(a).astype(np.float64) @ np.abs(b) + 1.0)


# K from 1 to the limit, N over whole panels, with a partial one, under one
# panel, over two blocks of EPI_PANELS panels (the epilogue's); M under a
# tile, over a pass (STRIDED_ROWS), not a multiple of MR
@pytest.mark.parametrize("m,k,n", [
    (1, 1, 1), (5, 3, 31), (8, 16, 32), (17, 16, 100), (96, 16, 12544 // 16),
    (40, 24, 785), (33, 64, 129), (200, 7, 64), (20, 5, 2 * 4096 + 45),
])
@pytest.mark.parametrize("act", [ACT_NONE, ACT_RELU, ACT_SWISH])
def test_epilogue_product_matches_f64(nthreads, m, k, n, act):
    a = RNG.standard_normal((m, k)).astype(np.float32)
    b = RNG.standard_normal((k, n)).astype(np.float32)
    bias = RNG.standard_normal(m).astype(np.float32)
    epi = (np.empty(0, np.float32), bias, m, _prm(act))
    assert gemm_epi.strided_kernels(a, b) is not None
    got = gemm_epi.gemm_epi(a, b, epi)
    out = np.empty((m, n), np.float32)
    from xmo.backends.cpu import threads

    threads.run_tasks(gemm_epi.gemm_epi_tasks(a, b, out, epi))
    assert np.array_equal(got, out)  # the same sums split or not
    assert np.all(np.abs(got - _want(a, b, bias, act)) <= _bound(a, b))


def test_right_operand_read_in_place_with_its_row_stride():
    """``b`` a column range of a wider matrix (an image's rows of pixels):
    read where it is; the product equals the contiguous one bit for bit."""
    m, k, n = 20, 12, 70
    a = RNG.standard_normal((m, k)).astype(np.float32)
    wide = RNG.standard_normal((k, n + 9)).astype(np.float32)
    epi = (np.empty(0, np.float32), np.empty(0, np.float32), 0, _prm(ACT_NONE))
    got = gemm_epi.gemm_epi(a, wide[:, 3:3 + n], epi)
    assert np.array_equal(got, gemm_epi.gemm_epi(a, np.ascontiguousarray(wide[:, 3:3 + n]), epi))
    assert np.all(np.abs(got - a.astype(np.float64) @ wide[:, 3:3 + n]) <= _bound(a, wide[:, 3:3 + n]))


def test_routing_limits():
    """Only f32 operands with unit column strides and at most STRIDED_MAX_K
    rows of ``b`` take the kernel; others stay on BLAS."""
    k = gemm_epi.STRIDED_MAX_K
    a = np.ones((4, k + 1), np.float32)
    b = np.ones((k + 1, 8), np.float32)
    assert gemm_epi.strided_kernels(a[:, :k], b[:k]) is not None
    assert gemm_epi.strided_kernels(a, b) is None  # K over the limit
    assert gemm_epi.strided_kernels(a[:, :k].astype(np.float64), b[:k].astype(np.float64)) is None
    assert gemm_epi.strided_kernels(a[:, :k], b[:k, ::2]) is None  # strided columns


def test_pointwise_convolution_with_few_input_channels(nthreads, monkeypatch):
    """A 16 -> 40 1x1 convolution + bias + Swish on a 30x30 map, through the
    compiled model (the fused step's pointwise GEMM on the in-place kernel,
    also unsplit), against f64."""
    seen = []
    real = gemm_epi.strided_kernels

    def spy(a, b):
        got = real(a, b)
        seen.append(got is not None)
        return got

    monkeypatch.setattr(gemm_epi, "strided_kernels", spy)
    from xmo import compile_model

    w = (RNG.standard_normal((40, 16, 1, 1)) * 0.3).astype(np.float32)
    b = RNG.standard_normal((1, 40, 1, 1)).astype(np.float32)
    model = compile_model(conv_bias_act([1, 16, 30, 30], w, b, "Swish"))
    xv = RNG.standard_normal((1, 16, 30, 30)).astype(np.float32)
    for _ in range(3):  # the planned run from the second call on
        got = model([xv])[0]
    pre = np.einsum("mc,chw->mhw", w[:, :, 0, 0].astype(np.float64), xv[0].astype(np.float64))
    pre += b[0].astype(np.float64)
    np.testing.assert_allclose(got[0], pre / (1 + np.exp(-pre)), rtol=2e-5, atol=2e-5)
    assert seen and all(seen)


@pytest.mark.parametrize("k", range(1, gemm_epi.STRIDED_MAX_K + 1))
def test_partial_panel_for_every_k(k):
    """The last, partial panel of columns is copied into a zero-padded one
    that the kernel reads by address (taken where it is read: numba frees a
    local array after its last use): every K gives the columns past the
    whole panels right."""
    from xmo.backends.cpu.kernels import gemm_jit

    m, n = 2 * gemm_jit.MR + 3, 2 * gemm_jit.NR + 5
    a = RNG.standard_normal((m, k)).astype(np.float32)
    b = RNG.standard_normal((k, n)).astype(np.float32)
    out = np.full((m, n), np.nan, np.float32)
    gemm_jit.gemm_strided(a, b, out, 0, m)
    bias = np.zeros(m, np.float32)
    assert np.all(np.abs(out - _want(a, b, bias, ACT_NONE)) <= _bound(a, b))
