"""A numpy reference of Kaldi nnet1 / nnet3 networks, to check xmo's conversion.

It shares the file parser (:func:`xmo.frontends.kaldi.read_kaldi`) but none
of the legalization: it evaluates the network frame by frame, as Kaldi's
computation defines it -- a node at frame ``t`` is its component applied to
its descriptor at ``t`` (``Offset(x, k)`` is ``x`` at ``t + k``; a frame
outside the input is undefined, and so is everything that needs it) --
with no notion of margins or slices. ``IfDefined(x)`` is zeros where ``x``
is undefined. Recurrent components (nnet1 LstmProjected) run over the frames
where their input is defined, from a zero state.

    outputs = run_reference(read_kaldi(path), {"input": feats})
    # {"output": (first_frame, values [frames, dim])}
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np

from xmo.frontends.kaldi.model import Component, Desc, KaldiModel


def _f(c: Component, name: str, default=None):
    v = c.fields.get(name, default)
    return np.asarray(v, np.float64) if isinstance(v, np.ndarray) else v


def _sigmoid(x):
    return 1.0 / (1.0 + np.exp(-x))


def _tile(v, dim):
    v = np.asarray(v, np.float64).reshape(-1)
    return np.tile(v, dim // v.size)


def frame_component(c: Component, x: np.ndarray) -> np.ndarray:
    """A frame-wise component on one frame ``x`` (float64)."""
    t = c.type
    if t in ("NaturalGradientAffineComponent", "AffineComponent", "FixedAffineComponent"):
        return _f(c, "LinearParams") @ x + _f(c, "BiasParams")
    if t == "LinearComponent":
        return _f(c, "Params") @ x
    if t == "AffineTransform":
        return _f(c, "Linearity") @ x + _f(c, "Bias")
    if t == "LinearTransform":
        return _f(c, "Linearity") @ x
    if t == "RectifiedLinearComponent":
        return np.maximum(x, 0)
    if t in ("SigmoidComponent", "Sigmoid"):
        return _sigmoid(x)
    if t in ("TanhComponent", "Tanh"):
        return np.tanh(x)
    if t in ("SoftmaxComponent", "Softmax"):
        e = np.exp(x - x.max())
        return e / e.sum()
    if t == "LogSoftmaxComponent":
        m = x.max()
        return x - m - np.log(np.exp(x - m).sum())
    if t == "BatchNormComponent":
        dim, block = x.size, c.fields["BlockDim"]
        mean, var = _f(c, "StatsMean"), _f(c, "StatsVar")
        y = x.reshape(dim // block, block)
        y = (y - mean) * (c.fields["TargetRms"] * (var + c.fields["Epsilon"]) ** -0.5)
        return y.reshape(dim)
    if t == "ScaleAndOffsetComponent":
        return x * _tile(_f(c, "Scales"), x.size) + _tile(_f(c, "Offsets"), x.size)
    if t == "NormalizeComponent":
        rms = c.fields.get("TargetRms", 1.0)
        sq = max(float(x @ x) / (x.size * rms * rms), 2.0**-66)
        return x * sq**-0.5
    if t == "ElementwiseProductComponent":
        od = c.fields["OutputDim"]
        return np.prod(x.reshape(-1, od), axis=0)
    if t == "BackpropTruncationComponent":
        return x * c.fields.get("Scale", 1.0)
    if t == "LstmNonlinearityComponent":
        w = _f(c, "Params")
        n = w.shape[1]
        i, f, g, o, cp = (x[k * n : (k + 1) * n] for k in range(5))
        i = _sigmoid(i + w[0] * cp)
        f = _sigmoid(f + w[1] * cp)
        cell = f * cp + i * np.tanh(g)
        o = _sigmoid(o + w[2] * cell)
        return np.concatenate([cell, o * np.tanh(cell)])
    if t in ("DropoutComponent", "GeneralDropoutComponent", "NoOpComponent", "Dropout"):
        return x
    if t == "AddShift":
        return x + _f(c, "Shift")
    if t == "Rescale":
        return x * _f(c, "Scale")
    raise NotImplementedError(t)


def lstm_projected(c: Component, xs: np.ndarray) -> np.ndarray:
    """nnet1 LstmProjected over frames ``xs`` [T, in] from a zero state -> [T, proj]."""
    wx, wr, bias = _f(c, "WeightsGifoX"), _f(c, "WeightsGifoR"), _f(c, "Bias")
    pi, pf, po = _f(c, "PeepholeIC"), _f(c, "PeepholeFC"), _f(c, "PeepholeOC")
    wrm = _f(c, "WeightsRM")
    clip = c.fields.get("CellClip", 50.0)
    n = pi.size
    cell = np.zeros(n)
    r = np.zeros(wrm.shape[0])
    out = []
    for x in xs:
        z = wx @ x + wr @ r + bias
        g = np.tanh(z[:n])
        i = _sigmoid(z[n : 2 * n] + pi * cell)
        f = _sigmoid(z[2 * n : 3 * n] + pf * cell)
        cell = f * cell + i * g
        if clip > 0:
            cell = np.clip(cell, -clip, clip)
        o = _sigmoid(z[3 * n :] + po * cell)
        r = wrm @ (o * np.tanh(cell))
        out.append(r)
    return np.asarray(out)


def run_reference(model: KaldiModel, feats: dict[str, np.ndarray]) -> dict[str, tuple[int, np.ndarray]]:
    """Each output: (its first defined frame, its values on the defined frames)."""
    nodes = {n.name: n for n in model.nodes}
    n_frames = {k: v.shape[0] for k, v in feats.items()}
    span = max(n_frames.values())

    @lru_cache(maxsize=None)
    def sequence(name: str) -> tuple[int, np.ndarray] | None:
        """(first frame, frames) of a recurrent node's whole output."""
        n = nodes[name]
        span = max(n_frames.values())
        xs = [(t, desc(n.input, t)) for t in range(-span, 2 * span)]
        xs = [(t, x) for t, x in xs if x is not None]
        if not xs:
            return None
        frames = [t for t, _ in xs]
        assert frames == list(range(frames[0], frames[-1] + 1)), "gaps in a recurrent input"
        return frames[0], lstm_projected(model.components[n.component], np.asarray([x for _, x in xs]))

    @lru_cache(maxsize=None)
    def node(name: str, t: int):
        n = nodes[name]
        if not -span <= t < 2 * span:
            return None
        if n.kind == "input":
            f = feats[name]
            return f[t].astype(np.float64) if 0 <= t < f.shape[0] else None
        if n.kind == "component" and model.components[n.component].type == "LstmProjected":
            seq = sequence(name)
            if seq is None or not 0 <= t - seq[0] < len(seq[1]):
                return None
            return seq[1][t - seq[0]]
        x = desc(n.input, t)
        if x is None or n.kind != "component":
            return x
        comp = model.components[n.component]
        if comp.type == "TdnnComponent":
            parts = [desc(n.input, t + int(o)) for o in comp.fields["TimeOffsets"]]
            if any(p is None for p in parts):
                return None
            return _f(comp, "LinearParams") @ np.concatenate(parts) + _f(comp, "BiasParams")
        if comp.type == "Splice":
            parts = [desc(n.input, t + int(o)) for o in comp.fields["FrameOffsets"]]
            return None if any(p is None for p in parts) else np.concatenate(parts)
        return frame_component(comp, x)

    def dim(d: Desc) -> int:
        """Features of a descriptor (for the zeros of IfDefined)."""
        if d.kind == "node":
            n = nodes[d.name]
            if n.kind == "input":
                return n.dim
            if n.kind != "component":
                return dim(n.input)
            c = model.components[n.component]
            for k in ("LinearParams", "Params", "Linearity"):
                if k in c.fields and c.type != "LstmNonlinearityComponent":
                    return int(np.asarray(c.fields[k]).shape[0])
            if c.type == "LstmNonlinearityComponent":
                return 2 * np.asarray(c.fields["Params"]).shape[1]
            for k in ("Dim", "OutputDim"):
                if k in c.fields:
                    return int(c.fields[k])
            return dim(n.input)
        if d.kind == "Append":
            return sum(dim(c) for c in d.children)
        if d.kind == "DimRange":
            return int(d.args[1])
        return dim(d.children[0])

    def desc(d: Desc, t: int):
        if d.kind == "node":
            return node(d.name, t)
        if d.kind == "IfDefined":
            x = desc(d.children[0], t)
            return np.zeros(dim(d.children[0])) if x is None else x
        if d.kind == "Offset":
            return desc(d.children[0], t + int(d.args[0]))
        parts = []
        for c in d.children:  # stop at the first undefined part
            p = desc(c, t)
            if p is None:
                return None
            parts.append(p)
        if d.kind == "Append":
            return np.concatenate(parts)
        if d.kind == "Sum":
            return sum(parts)
        if d.kind == "Scale":
            return parts[0] * d.args[0]
        if d.kind == "DimRange":
            off, size = int(d.args[0]), int(d.args[1])
            return parts[0][off : off + size]
        raise NotImplementedError(d.kind)

    out = {}
    for o in model.outputs:
        vals = [(t, desc(o.input, t)) for t in range(span)]
        vals = [(t, v) for t, v in vals if v is not None]
        out[o.name] = (vals[0][0], np.asarray([v for _, v in vals], np.float32))
    return out
