"""Recurrent sequences (RNNSequence, GRUSequence, LSTMSequence, OpenVINO opset5
semantics) and ReverseSequence, which share the per-batch sequence reversal.

The input projection of every time step is one GEMM before the time loop; each
step is then one small GEMM per direction, vectorized over the batch. Steps past
a batch entry's ``seq_lengths`` leave its state unchanged and output zeros.

With numba, the default activations (RNN tanh; GRU sigmoid, tanh; LSTM sigmoid,
tanh, tanh) and f32/f64 work, the projections of all directions are one GEMM
(:func:`~xmo.backends.cpu.kernels.matmul.sized_matmul`, split over the pool when
large) and the time loop is one compiled call per direction and batch range
(:mod:`~xmo.backends.cpu.kernels.recurrent_jit`: the recurrent product and the
cell update fused, the gates in f64), the directions (a single direction: the
batch split in ranges) on the helper pool (:func:`threads.run_tasks`). Constant
weights are transposed and cast once (the kernel's plan).
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from xmo.backends.cpu import threads
from xmo.backends.cpu.kernels._common import float_work, jit_module, norm_axis
from xmo.backends.cpu.kernels.matmul import sized_matmul
from xmo.backends.cpu.kernels.packed import pack
from xmo.backends.cpu.node import KernelNode, plan_with
from xmo.backends.cpu.registry import register_kernel

#: cell kinds of :mod:`~xmo.backends.cpu.kernels.recurrent_jit`
KIND_RNN, KIND_GRU, KIND_LSTM = range(3)
_KINDS = {"rnn": KIND_RNN, "gru": KIND_GRU, "lstm": KIND_LSTM}
_DEFAULT_ACTIVATIONS = {"rnn": ["tanh"], "gru": ["sigmoid", "tanh"],
                        "lstm": ["sigmoid", "tanh", "tanh"]}
#: recurrent multiply-adds (all steps and directions) from which the time
#: loops run on the helper pool
PARALLEL_MIN_WORK = 1 << 17
#: element types of the compiled time loop
_JIT_DTYPES = (np.dtype(np.float32), np.dtype(np.float64))


def sequence_kernel():
    """The compiled time loop (:func:`recurrent_jit.run_direction`), or None
    without numba."""
    jit = jit_module("recurrent_jit")
    return None if jit is None else jit.run_direction


def reverse_index(lengths: np.ndarray, steps: int) -> np.ndarray:
    """[B, T] time index that reverses the first ``lengths[b]`` steps of each row."""
    t = np.arange(steps)[None, :]
    ln = np.clip(np.asarray(lengths, np.int64).reshape(-1, 1), 0, steps)
    return np.where(t < ln, ln - 1 - t, t)


def reverse_sequences(x: np.ndarray, lengths: np.ndarray, batch_axis: int,
                      seq_axis: int) -> np.ndarray:
    """``x`` with each batch entry's first ``lengths[b]`` items along ``seq_axis`` reversed."""
    idx = reverse_index(lengths, x.shape[seq_axis])  # [B, T]
    shape = [1] * x.ndim
    shape[batch_axis], shape[seq_axis] = idx.shape
    if batch_axis > seq_axis:
        idx = idx.T
    return np.take_along_axis(x, idx.reshape(shape), axis=seq_axis)


@register_kernel("ov.ReverseSequence")
def _reverse_sequence(node: KernelNode, x: np.ndarray, lengths: np.ndarray) -> np.ndarray:
    b = norm_axis(node.attr("batch_axis", 0), x.ndim, node)
    s = norm_axis(node.attr("seq_axis", 1), x.ndim, node)
    return reverse_sequences(x, lengths, b, s)


# ---------------------------------------------------------------------------
# Activations
# ---------------------------------------------------------------------------


def _sigmoid(v: np.ndarray, alpha: float, beta: float) -> np.ndarray:
    return 1 / (1 + np.exp(-v))


_ACTIVATIONS: dict[str, Callable[[np.ndarray, float, float], np.ndarray]] = {
    "sigmoid": _sigmoid,
    "tanh": lambda v, a, b: np.tanh(v),
    "relu": lambda v, a, b: np.maximum(v, 0),
    "hardsigmoid": lambda v, a, b: np.clip(a * v + b, 0, 1),
    "affine": lambda v, a, b: a * v + b,
    "leakyrelu": lambda v, a, b: np.where(v >= 0, v, a * v),
    "thresholdedrelu": lambda v, a, b: np.where(v > a, v, 0),
    "scaledtanh": lambda v, a, b: a * np.tanh(b * v),
    "elu": lambda v, a, b: np.where(v >= 0, v, a * (np.exp(v) - 1)),
    "softsign": lambda v, a, b: v / (1 + np.abs(v)),
    "softplus": lambda v, a, b: np.log1p(np.exp(v)),
}


def _activations(node: KernelNode, defaults: list[str]) -> list[Callable[[np.ndarray], np.ndarray]]:
    names = [str(a).lower() for a in (node.attr("activations", ()) or ())] or defaults
    alphas = list(node.attr("activations_alpha", ()) or ())
    betas = list(node.attr("activations_beta", ()) or ())
    fns = []
    for i, n in enumerate(names):
        if n not in _ACTIVATIONS:
            raise node.error(f"unsupported activation '{n}'")
        a = float(alphas[i]) if i < len(alphas) else 0.0
        b = float(betas[i]) if i < len(betas) else 0.0
        fns.append(lambda v, f=_ACTIVATIONS[n], a=a, b=b: f(v, a, b))
    return fns


def _default_activations(node: KernelNode, kind: str) -> bool:
    names = [str(a).lower() for a in (node.attr("activations", ()) or ())]
    return not names or names == _DEFAULT_ACTIVATIONS[kind]


# ---------------------------------------------------------------------------
# Cells: ``cell(gx, state, r, b) -> new state`` (state: tuple of [B, H] arrays)
# ---------------------------------------------------------------------------


class _Cell:
    """One cell kind: number of gates, state count and the step function."""

    def __init__(self, node: KernelNode, kind: str) -> None:
        self.kind = kind
        self.clip = float(node.attr("clip", 0.0) or 0.0)
        self.lbr = bool(node.attr("linear_before_reset", False))
        self.acts = _activations(node, _DEFAULT_ACTIVATIONS[kind])

    def _c(self, v: np.ndarray) -> np.ndarray:
        return np.clip(v, -self.clip, self.clip) if self.clip > 0 else v

    def step(self, gx: np.ndarray, state: tuple[np.ndarray, ...], r: np.ndarray,
             rb: np.ndarray | None) -> tuple[np.ndarray, ...]:
        """``gx``: input projection + bias [B, G*H]; ``r``: [G*H, H]."""
        h = state[0]
        if self.kind == "rnn":
            return (self.acts[0](self._c(gx + h @ r.T)),)
        if self.kind == "lstm":
            f, g, hact = self.acts
            z = self._c(gx + h @ r.T)
            hs = h.shape[1]
            fg, ig, cg, og = (z[:, k * hs:(k + 1) * hs] for k in range(4))  # f, i, c, o
            c = f(fg) * state[1] + f(ig) * g(cg)
            return (f(og) * hact(c), c)
        # GRU, gate order z, r, h
        f, g = self.acts
        hs = h.shape[1]
        rz = h @ r[: 2 * hs].T
        zr = self._c(gx[:, : 2 * hs] + rz)
        zg, rg = f(zr[:, :hs]), f(zr[:, hs:])
        if self.lbr:
            hr = h @ r[2 * hs:].T + (rb if rb is not None else 0)
            hh = g(self._c(gx[:, 2 * hs:] + rg * hr))
        else:
            hh = g(self._c(gx[:, 2 * hs:] + (rg * h) @ r[2 * hs:].T))
        return ((1 - zg) * hh + zg * h,)


def _run_sequence(node: KernelNode, kind: str, x: np.ndarray, states: list[np.ndarray],
                  lengths: np.ndarray, w: np.ndarray, r: np.ndarray, b: np.ndarray):
    """Shared driver. ``x``: [B, T, I]; states: [B, D, H] each; w: [D, G*H, I]."""
    dt = float_work(x).dtype
    x = x.astype(dt, copy=False)
    bsz, steps = x.shape[:2]
    direction = str(node.attr("direction", "forward")).lower()
    dirs = ["forward", "reverse"] if direction == "bidirectional" else [direction]
    cell = _Cell(node, kind)
    lengths = np.clip(np.asarray(lengths, np.int64).reshape(-1), 0, steps)
    if lengths.size == 1 and bsz > 1:
        lengths = np.broadcast_to(lengths, (bsz,))
    hsz = states[0].shape[-1]
    ys = np.zeros((bsz, len(dirs), steps, hsz), dt)
    finals = [np.empty((bsz, len(dirs), hsz), dt) for _ in states]
    active_at = np.arange(steps)[:, None] < lengths[None, :]  # [T, B]
    for d, name in enumerate(dirs):
        xs = reverse_sequences(x, lengths, 0, 1) if name == "reverse" else x
        bias = b[d].astype(dt)
        rb = None
        if kind == "gru" and cell.lbr:
            rb = bias[3 * hsz:]
            bias = bias[: 3 * hsz]
        gx = xs @ w[d].astype(dt).T + bias  # [B, T, G*H]
        rd = r[d].astype(dt)
        st = tuple(s[:, d].astype(dt) for s in states)
        y = np.zeros((bsz, steps, hsz), dt)
        for t in range(steps):
            new = cell.step(gx[:, t], st, rd, rb)
            m = active_at[t][:, None]
            st = tuple(np.where(m, n, o) for n, o in zip(new, st))
            y[:, t] = np.where(m, st[0], 0)
        if name == "reverse":
            y = reverse_sequences(y, lengths, 0, 1)
        ys[:, d] = y
        for f, s in zip(finals, st):
            f[:, d] = s
    return (ys, *finals)


class _Weights:
    """One node's weights in the compiled loop's layout (work dtype ``dt``):
    ``wt`` [I, D*G*H] (W^T of the directions side by side), ``bias``
    [D*G*H], per direction ``rt`` [H, G*H] (R^T, contiguous) and ``rb``
    (GRU linear_before_reset: the candidate's recurrent bias [H], else
    empty). ``packed``: ``wt`` on the panel micro-kernel
    (:func:`~xmo.backends.cpu.kernels.packed.pack`) for the input projection
    when ``keep`` (weights kept by the plan: packing costs more than one
    product) and f32, else None (a BLAS product). The projection has as many
    rows as time steps x batch (crnn: 31), which OpenBLAS runs at about half
    the panels' rate: [31, 512] x [512, 2048] 1.28 -> 0.63 ms on one thread."""

    def __init__(self, kind: str, lbr: bool, w: np.ndarray, r: np.ndarray, b: np.ndarray,
                 dt: np.dtype, keep: bool = False) -> None:
        dirs, gh, _ = w.shape
        hsz = r.shape[-1]
        self.wt = np.ascontiguousarray(np.concatenate(list(w.astype(dt, copy=False)), 0).T)
        b = b.astype(dt, copy=False)
        self.bias = np.ascontiguousarray(b[:, :gh]).reshape(-1)
        self.rt = [np.ascontiguousarray(r[d].astype(dt, copy=False).T) for d in range(dirs)]
        empty = np.zeros(0, dt)
        self.rb = [np.ascontiguousarray(b[d, 3 * hsz:]) if kind == "gru" and lbr else empty
                   for d in range(dirs)]
        self.packed = pack(self.wt) if keep and dt == np.float32 else None


def _jit_sequence(node: KernelNode, kind: str, x: np.ndarray, states: list[np.ndarray],
                  lengths: np.ndarray, wts: _Weights, run) -> tuple[np.ndarray, ...]:
    """The compiled path (``x`` already of the weights' dtype)."""
    dt = x.dtype
    bsz, steps, _ = x.shape
    dirs = len(wts.rt)
    hsz = states[0].shape[-1]
    gh = wts.rt[0].shape[1]
    lengths = np.clip(np.asarray(lengths, np.int64).reshape(-1), 0, steps)
    lengths = np.ascontiguousarray(np.broadcast_to(lengths, (bsz,)))
    x2 = x.reshape(bsz * steps, -1)
    gx = sized_matmul(x2, wts.wt) if wts.packed is None else wts.packed.matmul(x2)
    gx += wts.bias
    gx = gx.reshape(bsz, steps, dirs, gh)
    ys = np.zeros((bsz, dirs, steps, hsz), dt)
    finals = [np.array(np.broadcast_to(s, (bsz, dirs, hsz)).transpose(1, 0, 2), dt, order="C")
              for s in states]  # [D, B, H], own copies (updated in place)
    h = finals[0]
    c = finals[1] if kind == "lstm" else np.zeros((dirs, bsz, 0), dt)
    reverse = str(node.attr("direction", "forward")).lower() == "reverse"
    clip = float(node.attr("clip", 0.0) or 0.0)
    lbr = bool(node.attr("linear_before_reset", False))
    kd = _KINDS[kind]
    work = dirs * bsz * steps * gh * hsz
    chunks = 1
    if threads.threads() > 1 and work >= PARALLEL_MIN_WORK:
        chunks = min(bsz, max(1, threads.threads() // dirs))
    tasks = []
    step = -(-bsz // chunks)
    for d in range(dirs):
        for b0 in range(0, bsz, step):
            tasks.append((run, (kd, dt == np.float32, gx, d, wts.rt[d], wts.rb[d], h, c, lengths,
                                reverse or d == 1, clip, lbr, ys, b0, min(bsz, b0 + step))))
    threads.run_tasks(tasks)
    return (ys, *(np.ascontiguousarray(f.transpose(1, 0, 2)) for f in finals))


def _sequence(node: KernelNode, kind: str, x: np.ndarray, states: list[np.ndarray],
              lengths: np.ndarray, w: np.ndarray, r: np.ndarray, b: np.ndarray,
              prepared: dict | None = None):
    """The compiled path where it applies, else :func:`_run_sequence`."""
    run = sequence_kernel()
    dt = float_work(x).dtype
    if run is None or dt not in _JIT_DTYPES or not _default_activations(node, kind) \
            or x.ndim != 3:
        return _run_sequence(node, kind, x, states, lengths, w, r, b)
    wts = prepared.get(dt) if prepared is not None else None
    if wts is None:
        wts = _Weights(kind, bool(node.attr("linear_before_reset", False)), w, r, b, dt,
                       keep=prepared is not None)
        if prepared is not None:
            prepared[dt] = wts
    return _jit_sequence(node, kind, x.astype(dt, copy=False), states, lengths, wts, run)


def _plan_sequence(kind: str, first_weight: int):
    """A plan binding the constant weights (inputs ``first_weight`` .. +3)
    in the compiled loop's layout, built on the first call per dtype."""

    def plan(node: KernelNode, consts: tuple):
        w, r, b = consts[first_weight:first_weight + 3]
        if not all(isinstance(a, np.ndarray) for a in (w, r, b)):
            return None
        prepared: dict = {}
        n_states = first_weight - 2

        def run(x, *rest):
            return _sequence(node, kind, x, list(rest[:n_states]), rest[n_states], w, r, b,
                             prepared)

        return run

    return plan


@register_kernel("ov.RNNSequence")
@plan_with(_plan_sequence("rnn", 3))
def _rnn_sequence(node: KernelNode, x, h0, lengths, w, r, b):
    return _sequence(node, "rnn", x, [h0], lengths, w, r, b)


@register_kernel("ov.GRUSequence")
@plan_with(_plan_sequence("gru", 3))
def _gru_sequence(node: KernelNode, x, h0, lengths, w, r, b):
    return _sequence(node, "gru", x, [h0], lengths, w, r, b)


@register_kernel("ov.LSTMSequence")
@plan_with(_plan_sequence("lstm", 4))
def _lstm_sequence(node: KernelNode, x, h0, c0, lengths, w, r, b):
    return _sequence(node, "lstm", x, [h0, c0], lengths, w, r, b)
