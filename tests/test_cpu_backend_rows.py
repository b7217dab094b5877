"""The numba row kernels (last-axis Softmax and MVN) against numpy formulas."""

from __future__ import annotations

import numpy as np
import pytest





@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_softmax_rows(rk, dtype):
    x = np.random.default_rng(0).normal(size=(7, 33)).astype(dtype) * 5
    x[3, 4] = np.nan
    out = np.empty_like(x)
    rk.softmax(x, out)
    e = np.exp(x - x.max(axis=1, keepdims=True))
    ref = e / e.sum(axis=1, keepdims=True)
    np.testing.assert_allclose(out, ref, rtol=1e-6 if dtype == np.float32 else 1e-13)
    assert np.isnan(out[3]).all() and not np.isnan(np.delete(out, 3, axis=0)).any()


@pytest.mark.parametrize("inside", [True, False])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_mvn_rows(rk, dtype, inside):
    x = (np.random.default_rng(1).normal(size=(5, 48)) * 3 + 2).astype(dtype)
    eps = 1e-3
    out = np.empty_like(x)
    rk.mvn(x, eps, inside, out)
    y = x - x.mean(axis=1, keepdims=True)
    var = (y * y).mean(axis=1, keepdims=True)
    ref = y / (np.sqrt(var + eps) if inside else np.sqrt(var) + eps)
    np.testing.assert_allclose(out, ref, rtol=1e-5 if dtype == np.float32 else 1e-12, atol=1e-6)


@pytest.mark.parametrize("n", [1, 7, 64, 1500])
def test_softmax_rows_f32_long_and_infinite(rk, n):
    """f32 rows (the vectorised exponential): long rows, -inf entries (exact
    zeros), rows with +inf or all -inf (NaN, as the formula gives)."""
    x = (np.random.default_rng(2).normal(size=(6, n)) * 20).astype(np.float32)
    x[1, 0] = -np.inf
    x[2, -1] = 80.0  # exp(80 - max) on the other side of the range
    x[4, :] = -np.inf
    x[5, 0] = np.inf
    out = np.empty_like(x)
    rk.softmax(x, out)
    with np.errstate(invalid="ignore"):
        e = np.exp((x - x.max(axis=1, keepdims=True)).astype(np.float64))
        ref = e / e.sum(axis=1, keepdims=True)
    np.testing.assert_allclose(out[:4], ref[:4], rtol=1e-6, atol=1e-30)
    assert np.isnan(out[4]).all() and np.isnan(out[5, 0])
    if n > 1:
        assert out[1, 0] == 0.0



def test_row_max_f32_integer_keys():
    """The f32 row maximum on integer keys: exact on ordinary rows, NaN when
    a NaN of either sign is there, -inf for an empty row, -0.0 below 0.0;
    the Softmax row kernel gives a NaN row for a negative NaN too."""
    from xmo.backends.cpu.kernels import rows_jit

    rng = np.random.default_rng(3)
    for n in (1, 5, 17, 100, 1000):
        x = (rng.standard_normal((20, n)) * 100).astype(np.float32)
        assert [rows_jit.row_max_f32(r) for r in x] == list(x.max(axis=1))
    neg_nan = np.array([1.0, np.nan, 3.0], np.float32)
    neg_nan.view(np.int32)[1] |= np.int32(-2**31)
    cases = {(-np.inf, -np.inf): -np.inf, (-3.0, -2.0): -2.0, (np.inf, 1.0): np.inf,
             (-np.inf, -1e30): -1e30, (-1e-45, -2e-45): -1e-45}
    for row, want in cases.items():
        assert rows_jit.row_max_f32(np.array(row, np.float32)) == np.float32(want)
    assert rows_jit.row_max_f32(np.zeros(0, np.float32)) == -np.inf
    zero = rows_jit.row_max_f32(np.array([-0.0, 0.0, -0.0], np.float32))
    assert zero == 0 and not np.signbit(zero)
    assert np.isnan(rows_jit.row_max_f32(np.array([np.nan, 1.0], np.float32)))
    assert np.isnan(rows_jit.row_max_f32(neg_nan))
    out = np.empty((1, 3), np.float32)
    rows_jit.softmax(neg_nan.reshape(1, 3), out)
    assert np.isnan(out).all()

def test_erf_rows_exact_to_f32_rounding():
    import math

    from xmo.backends.cpu.kernels.activations import erf

    z = np.concatenate([np.linspace(-6, 6, 200_001, dtype=np.float32),
                        np.array([np.inf, -np.inf, np.nan, 0.0, -0.0, 1e-30], np.float32)])
    got = erf(z)
    assert got.dtype == np.float32
    ref = np.array([math.erf(float(v)) for v in z[:-6:7]])
    assert np.abs(got[:-6:7] - ref).max() <= 6e-8  # half an ulp below 1 is 3e-8
    np.testing.assert_array_equal(got[-6:-4], [1, -1])
    assert np.isnan(got[-4]) and got[-3] == 0 and np.signbit(got[-2]) and got[-1] == np.float32(1.1283792e-30)
    # f64 keeps math.erf
    np.testing.assert_allclose(erf(z[:-6:1000].astype(np.float64)), [math.erf(float(v)) for v in z[:-6:1000]],
                               rtol=1e-15, atol=1e-16)


def test_bias_act_rows_split_over_threads(rk):
    from xmo.backends.cpu import threads
    from xmo.backends.cpu.kernels.rows import ACT_GELU_ERF, ACT_NONE, run_rows

    x = np.random.default_rng(2).normal(size=(300, 257)).astype(np.float32)
    a = np.random.default_rng(3).normal(size=257).astype(np.float32)
    b = np.random.default_rng(4).normal(size=257).astype(np.float32)
    none = np.empty(0, np.float32)
    try:
        threads.set_threads(2)
        y = x.copy()
        run_rows(rk.bias_act, 300, 257, y.reshape(-1), y.reshape(-1), a, b, 0, np.array([ACT_NONE, 0, 0, 1, 1e-38]), 257)
        np.testing.assert_array_equal(y, x * a + b)  # the same f32 roundings as numpy
        y = x.copy()
        run_rows(rk.bias_act, 300, 257, y.reshape(-1), y.reshape(-1), none, none, 0, np.array([ACT_GELU_ERF, 0, 0, 1, 1e-38]), 257)
    finally:
        threads.set_threads(None)
    import math

    want = np.array([0.5 * v * (1 + math.erf(v / math.sqrt(2))) for v in x.astype(np.float64).ravel()])
    np.testing.assert_allclose(y.ravel(), want, rtol=1e-6, atol=1e-7)
