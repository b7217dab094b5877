"""Softmax over the last axis in row ranges on the helper pool and the tanh
form of Gelu in one numba pass (rows_jit.softmax_range / gelu_tanh) against
the numpy formulas: odd sizes, special values, one and two threads, many
ranges."""

from __future__ import annotations

import math
from types import SimpleNamespace

import numpy as np
import pytest

from xmo.backends.cpu.kernels import rows
from xmo.backends.cpu.registry import kernel_for

pytest.importorskip("numba")


def _node(**attrs) -> SimpleNamespace:
    return SimpleNamespace(attr=lambda name, default=None: attrs.get(name, default),
                           error=lambda msg: ValueError(msg))


@pytest.fixture
def many_ranges(nthreads, monkeypatch):
    monkeypatch.setattr(rows, "_MIN_TASK", 7)  # several ranges on small inputs
    return nthreads


@pytest.mark.parametrize("shape", [(3, 5, 33), (1, 1), (2, 7, 1)])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_softmax_ranges(shape, dtype, many_ranges):
    rng = np.random.default_rng(1)
    x = (rng.standard_normal(shape) * 4).astype(dtype)
    if x.shape[-1] > 3:
        x[0, 0, 2] = -np.inf
        x[1, 1, :] = -np.inf  # a fully masked row: NaN as numpy
        x[2, 3, 1] = np.nan
    got = kernel_for("ov.Softmax")(_node(axis=-1), x)
    with np.errstate(invalid="ignore"):
        e = np.exp(x.astype(np.float64) - x.max(-1, keepdims=True))
        want = e / e.sum(-1, keepdims=True)
    assert got.dtype == dtype
    np.testing.assert_allclose(got, want, rtol=2e-6 if dtype == np.float32 else 1e-12, atol=1e-7)


@pytest.mark.parametrize("size", [1, 5, 513, 3001])
def test_gelu_tanh_one_pass(size, many_ranges):
    rng = np.random.default_rng(2)
    x = (rng.standard_normal((size,)) * 4).astype(np.float32)
    if size > 8:
        x[:8] = [np.nan, np.inf, -np.inf, 1e20, -1e20, 0.0, -12.0, 30.0]
    got = kernel_for("ov.Gelu")(_node(approximation_mode="tanh"), x.reshape(1, -1))
    xd = x.astype(np.float64)
    with np.errstate(all="ignore"):
        want = 0.5 * xd * (1 + np.tanh(math.sqrt(2 / math.pi) * (xd + 0.044715 * xd ** 3)))
    assert got.dtype == np.float32 and got.shape == (1, size)
    np.testing.assert_allclose(got.reshape(-1), want, rtol=3e-6, atol=1e-6)
