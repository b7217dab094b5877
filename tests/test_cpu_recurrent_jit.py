"""The CPU backend's compiled RNN / GRU / LSTM time loop (recurrent_jit)
against the numpy step path of recurrent.py: odd sizes, sequence lengths
(zero, short, full), forward / reverse / bidirectional, clip, GRU
linear_before_reset, f32 / f64, the batch split over the helper pool, the
planned (constant weights) form and the fallback for other activations."""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import pytest

from xmo.backends.cpu.kernels import recurrent

pytest.importorskip("numba")

_GATES = {"rnn": 1, "gru": 3, "lstm": 4}


def _node(**attrs) -> SimpleNamespace:
    return SimpleNamespace(attr=lambda name, default=None: attrs.get(name, default),
                           error=lambda msg: ValueError(msg))


def _inputs(kind, dirs, dtype, b=3, t=6, i=5, h=7, lbr=False, lengths=(6, 0, 3), seed=0):
    rng = np.random.default_rng(seed)
    g = _GATES[kind]
    x = rng.standard_normal((b, t, i)).astype(dtype)
    states = [rng.standard_normal((b, dirs, h)).astype(dtype)
              for _ in range(2 if kind == "lstm" else 1)]
    w = rng.uniform(-1, 1, (dirs, g * h, i)).astype(dtype)
    r = rng.uniform(-1, 1, (dirs, g * h, h)).astype(dtype)
    bias = rng.uniform(-1, 1, (dirs, (g + int(lbr)) * h)).astype(dtype)
    return x, states, np.array(lengths, np.int32), w, r, bias


@pytest.fixture
def n_threads(nthreads, monkeypatch):
    monkeypatch.setattr(recurrent, "PARALLEL_MIN_WORK", 0)  # the pool on tiny inputs
    return nthreads


def _compare(kind, node, args, rtol, atol):
    x, states, lengths, w, r, b = args
    got = recurrent._sequence(node, kind, x, states, lengths, w, r, b)
    want = recurrent._run_sequence(node, kind, x, states, lengths, w, r, b)
    assert len(got) == len(want)
    for g, e in zip(got, want):
        assert g.shape == e.shape and g.dtype == e.dtype
        np.testing.assert_allclose(g, e, rtol=rtol, atol=atol)
    return got


_TOL = {np.float32: (1e-5, 2e-6), np.float64: (1e-12, 1e-12)}


@pytest.mark.parametrize("dtype", [np.float32, np.float64], ids=["f32", "f64"])
@pytest.mark.parametrize("direction", ["forward", "reverse", "bidirectional"])
@pytest.mark.parametrize("kind,extra", [("rnn", {}), ("gru", {}), ("gru", {"linear_before_reset": True}),
                                        ("lstm", {}), ("lstm", {"clip": 0.6}), ("gru", {"clip": 0.6})],
                         ids=["rnn", "gru", "gru-lbr", "lstm", "lstm-clip", "gru-clip"])
def test_compiled_loop_matches_numpy_steps(kind, extra, direction, dtype, n_threads):
    dirs = 2 if direction == "bidirectional" else 1
    node = _node(direction=direction, **extra)
    args = _inputs(kind, dirs, dtype, lbr=bool(extra.get("linear_before_reset")))
    ys, *finals = _compare(kind, node, args, *_TOL[dtype])
    # a batch entry of length 0: outputs zero, final state the initial one
    assert not ys[1].any()
    np.testing.assert_array_equal(finals[0][1], args[1][0][1])


def test_planned_weights_and_broadcast_lengths(n_threads):
    """The plan (constant weights, prepared once per dtype) gives the kernel's
    results on two calls; one length for the whole batch; f16 input."""
    node = _node(direction="bidirectional")
    x, states, _, w, r, b = _inputs("lstm", 2, np.float32, b=4, t=5, lengths=(5, 5, 5, 5))
    lengths = np.array([4], np.int64)
    run = recurrent._plan_sequence("lstm", 4)(node, (None, None, None, None, w, r, b))
    want = recurrent._run_sequence(node, "lstm", x, states, lengths, w, r, b)
    for _ in range(2):
        got = run(x, *states, lengths, w, r, b)
        for g, e in zip(got, want):
            np.testing.assert_allclose(g, e, rtol=1e-5, atol=2e-6)
    got16 = run(x.astype(np.float16), *states, lengths, w, r, b)
    assert got16[0].dtype == np.float32
    # the weights were not planned when one is not a constant
    assert recurrent._plan_sequence("lstm", 4)(node, (None,) * 7) is None


def test_planned_f32_projection_on_packed_panels(n_threads, monkeypatch):
    """With planned f32 weights the input projection runs on the packed
    panels (one product per call, the weights packed once) and the results
    still match the numpy steps; f64 and unplanned weights stay on BLAS."""
    from xmo.backends.cpu.kernels import packed

    calls = []
    real = packed.PackedMatrix.matmul
    monkeypatch.setattr(packed.PackedMatrix, "matmul",
                        lambda self, a, out=None: calls.append(a.shape) or real(self, a, out))
    node = _node(direction="bidirectional")
    x, states, lengths, w, r, b = _inputs("gru", 2, np.float32, b=3, t=6, i=40, h=9)
    run = recurrent._plan_sequence("gru", 3)(node, (None, None, None, w, r, b))
    want = recurrent._run_sequence(node, "gru", x, states, lengths, w, r, b)
    for n in (1, 2):
        got = run(x, *states, lengths, w, r, b)
        for g, e in zip(got, want):
            np.testing.assert_allclose(g, e, rtol=1e-5, atol=2e-6)
        assert calls == [(18, 40)] * n  # [B*T, I] x [I, D*G*H]
    recurrent._sequence(node, "gru", x.astype(np.float64), states, lengths, w, r, b)
    assert len(calls) == 2


def test_other_activations_keep_numpy_steps(monkeypatch):
    """Non-default activations take the numpy steps (the compiled loop is not called)."""
    node = _node(direction="forward", activations=["relu"])
    args = _inputs("rnn", 1, np.float32)
    monkeypatch.setattr(recurrent, "_jit_sequence", None)  # would fail if called
    x, states, lengths, w, r, b = args
    ys, h = recurrent._sequence(node, "rnn", x, states, lengths, w, r, b)
    assert (ys >= 0).all()


def test_large_gates_saturate():
    """Pre-activations far beyond the polynomial exp's range: sigmoid 0 / 1, tanh -1 / 1."""
    node = _node(direction="forward")
    x, states, lengths, w, r, b = _inputs("lstm", 1, np.float32, lengths=(6, 6, 6))
    with np.errstate(over="ignore"):  # the numpy steps' exp
        _compare("lstm", node, (x * 300, states, lengths, w, r, b), 1e-5, 2e-6)
