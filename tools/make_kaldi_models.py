"""Write the small random-weight Kaldi fixtures of tests/data/kaldi (no Kaldi needed).

Each architecture is written in Kaldi's text and binary forms, as Kaldi's
``Write`` functions lay them out (tokens, ``\\x04``-sized numbers, ``FM``/
``FV`` matrices and vectors, ``T``/``F`` booleans, sized integer vectors):

* ``tdnn``: an nnet3 TDNN (``.raw``; and ``.mdl`` with a transition model
  before it): Append/Offset splicing, a TdnnComponent with time offsets, a
  Sum/Scale skip connection, ReLU + BatchNorm, NormalizeComponent,
  ScaleAndOffset, ElementwiseProduct, dropout / backprop-truncation /
  no-op identities, LogSoftmax output;
* ``dnn``: an nnet1 DNN (``.nnet``): Splice, AddShift, Rescale, a
  ParallelComponent (two nested networks, one with its own Splice),
  AffineTransform, Sigmoid, Tanh, Dropout, Softmax;
* ``lstm``: an nnet1 LSTM acoustic model (``.nnet``): Splice, LstmProjected
  (peepholes, projection), AffineTransform, Softmax;
* ``tdnn_lstm``: an nnet3 TDNN-LSTM (``.raw``, ``.mdl``): xconfig-style LSTMP
  layers (LstmNonlinearityComponent, ``IfDefined(Offset(..., -k))``
  recurrences of delay 1 and 3, dim-range nodes, backprop truncation).

    python tools/make_kaldi_models.py [OUT_DIR]
"""

from __future__ import annotations

import struct
import sys
from pathlib import Path

import numpy as np

OUT = Path(__file__).resolve().parents[1] / "tests" / "data" / "kaldi"


class Writer:
    """Kaldi's serialization, text or binary."""

    def __init__(self, binary: bool) -> None:
        self.binary = binary
        self.out = bytearray(b"\0B" if binary else b"")

    def raw(self, s: str) -> None:
        self.out += s.encode()

    def token(self, t: str) -> None:
        self.raw(t + " ")

    def int(self, v: int) -> None:
        if self.binary:
            self.out += b"\x04" + struct.pack("<i", v)
        else:
            self.raw(f"{v} ")

    def float(self, v: float) -> None:
        if self.binary:
            self.out += b"\x04" + struct.pack("<f", v)
        else:
            self.raw(f"{v!r} ")

    def bool(self, v: bool) -> None:
        if self.binary:
            self.out += b"T" if v else b"F"
        else:
            self.raw("T " if v else "F ")

    def ivec(self, v) -> None:
        v = np.asarray(v, "<i4")
        if self.binary:
            self.out += b"\x04" + struct.pack("<i", v.size) + v.tobytes()
        else:
            self.raw("[ " + "".join(f"{x} " for x in v) + "]\n")

    def matrix(self, m: np.ndarray) -> None:
        m = np.asarray(m, "<f4")
        if self.binary:
            self.token("FM")
            self.int(m.shape[0])
            self.int(m.shape[1])
            self.out += m.tobytes()
        else:
            self.raw(" [")
            for row in m:
                self.raw("\n  " + " ".join(f"{x:.9g}" for x in row) + " ")
            self.raw("]\n")

    def vector(self, v: np.ndarray) -> None:
        v = np.asarray(v, "<f4").reshape(-1)
        if self.binary:
            self.token("FV")
            self.int(v.size)
            self.out += v.tobytes()
        else:
            self.raw(" [ " + "".join(f"{x:.9g} " for x in v) + "]\n")

    def fields(self, fields) -> None:
        """``(tag, kind, value)``: ``<tag>`` then the value (tag None: untagged)."""
        for tag, kind, value in fields:
            if tag:
                self.token(f"<{tag}>")
            if kind is not None:
                getattr(self, kind)(value)


# ---------------------------------------------------------------------------
# Components
# ---------------------------------------------------------------------------


def _rng_mat(rng, rows, cols, scale=None):
    s = scale if scale is not None else 1.0 / np.sqrt(cols)
    return (rng.standard_normal((rows, cols)) * s).astype(np.float32)


def _vec(rng, n, scale=0.1, offset=0.0):
    return (rng.standard_normal(n) * scale + offset).astype(np.float32)


def ng_affine(rng, n_in, n_out):
    return "NaturalGradientAffineComponent", [
        ("MaxChange", "float", 0.75), ("LearningRate", "float", 0.001),
        ("LinearParams", "matrix", _rng_mat(rng, n_out, n_in)),
        ("BiasParams", "vector", _vec(rng, n_out)),
        ("RankIn", "int", 20), ("RankOut", "int", 80), ("UpdatePeriod", "int", 4),
        ("NumSamplesHistory", "float", 2000.0), ("Alpha", "float", 4.0),
        ("IsGradient", "bool", False),
    ]


def nonlinear(kind, rng, dim):
    return kind, [
        ("Dim", "int", dim), ("ValueAvg", "vector", _vec(rng, dim)),
        ("DerivAvg", "vector", _vec(rng, dim)), ("Count", "float", 0.0),
        ("NumDimsSelfRepaired", "float", 0.0), ("NumDimsProcessed", "float", 0.0),
        ("SelfRepairScale", "float", 1e-05),
    ]


def batchnorm(rng, dim, block=None):
    block = block or dim
    return "BatchNormComponent", [
        ("Dim", "int", dim), ("BlockDim", "int", block), ("Epsilon", "float", 0.001),
        ("TargetRms", "float", 1.0), ("TestMode", "bool", False), ("Count", "float", 100.0),
        ("StatsMean", "vector", _vec(rng, block, 0.5, 0.3)),
        ("StatsVar", "vector", np.abs(_vec(rng, block, 0.5, 1.0)) + 0.1),
    ]


def tdnn_nnet3(rng) -> tuple[list[str], list[tuple[str, str, list]]]:
    """Config lines and components of the TDNN."""
    feat, h, classes = 13, 32, 24
    cfg = [
        f"input-node name=input dim={feat}",
        "component-node name=tdnn1.affine component=tdnn1.affine input=Append(Offset(input, -2), "
        "Offset(input, -1), input, Offset(input, 1), Offset(input, 2))",
        "component-node name=tdnn1.relu component=tdnn1.relu input=tdnn1.affine",
        "component-node name=tdnn1.batchnorm component=tdnn1.batchnorm input=tdnn1.relu",
        "component-node name=tdnn1.dropout component=tdnn1.dropout input=tdnn1.batchnorm",
        "component-node name=tdnn2.affine component=tdnn2.affine input=Append(Offset(tdnn1.dropout, -1), "
        "tdnn1.dropout, Offset(tdnn1.dropout, 1))",
        "component-node name=tdnn2.relu component=tdnn2.relu input=tdnn2.affine",
        "component-node name=tdnn2.batchnorm component=tdnn2.batchnorm input=tdnn2.relu",
        "component-node name=tdnn3.tdnn component=tdnn3.tdnn input=Sum(Scale(0.66, tdnn1.dropout), tdnn2.batchnorm)",
        "component-node name=tdnn3.relu component=tdnn3.relu input=tdnn3.tdnn",
        "component-node name=tdnn3.batchnorm component=tdnn3.batchnorm input=tdnn3.relu",
        "component-node name=tdnn3.noop component=tdnn3.noop input=tdnn3.batchnorm",
        "component-node name=prefinal.linear component=prefinal.linear input=tdnn3.noop",
        "component-node name=prefinal.scale component=prefinal.scale input=prefinal.linear",
        "component-node name=prefinal.tanh component=prefinal.tanh input=prefinal.scale",
        "component-node name=prefinal.sigmoid component=prefinal.sigmoid input=prefinal.scale",
        "component-node name=prefinal.gate component=prefinal.gate input=Append(prefinal.tanh, prefinal.sigmoid)",
        "component-node name=prefinal.trunc component=prefinal.trunc input=prefinal.gate",
        "component-node name=prefinal.normalize component=prefinal.normalize input=prefinal.trunc",
        "component-node name=output.affine component=output.affine input=prefinal.normalize",
        "component-node name=output.log-softmax component=output.log-softmax input=output.affine",
        "output-node name=output input=output.log-softmax objective=linear",
    ]
    comps = [
        ("tdnn1.affine", *ng_affine(rng, 5 * feat, h)),
        ("tdnn1.relu", *nonlinear("RectifiedLinearComponent", rng, h)),
        ("tdnn1.batchnorm", *batchnorm(rng, h)),
        ("tdnn1.dropout", "DropoutComponent", [("Dim", "int", h), ("DropoutProportion", "float", 0.1),
                                               ("DropoutPerFrame", "bool", False)]),
        ("tdnn2.affine", *ng_affine(rng, 3 * h, h)),
        ("tdnn2.relu", *nonlinear("RectifiedLinearComponent", rng, h)),
        ("tdnn2.batchnorm", *batchnorm(rng, h, 8)),
        ("tdnn3.tdnn", "TdnnComponent", [
            ("MaxChange", "float", 0.75), ("LearningRate", "float", 0.001),
            ("TimeOffsets", "ivec", [-3, 0, 3]),
            ("LinearParams", "matrix", _rng_mat(rng, h, 3 * h)),
            ("BiasParams", "vector", _vec(rng, h)),
            ("OrthonormalConstraint", "float", 0.0), ("UseNaturalGradient", "bool", True),
            ("NumSamplesHistory", "float", 2000.0), ("AlphaInOut", "float", 4.0),
            ("RankInOut", "int", 20),
        ]),
        ("tdnn3.relu", *nonlinear("RectifiedLinearComponent", rng, h)),
        ("tdnn3.batchnorm", *batchnorm(rng, h)),
        ("tdnn3.noop", "NoOpComponent", [("Dim", "int", h), ("BackpropScale", "float", 1.0)]),
        ("prefinal.linear", "LinearComponent", [
            ("MaxChange", "float", 0.75), ("LearningRate", "float", 0.001),
            ("Params", "matrix", _rng_mat(rng, h, h)), ("OrthonormalConstraint", "float", -1.0),
            ("UseNaturalGradient", "bool", True), ("RankInOut", "int", 20),
        ]),
        ("prefinal.scale", "ScaleAndOffsetComponent", [
            ("Dim", "int", h), ("BlockDim", "int", h // 2),
            ("Scales", "vector", _vec(rng, h // 2, 0.2, 1.0)),
            ("Offsets", "vector", _vec(rng, h // 2)),
            ("UseNaturalGradient", "bool", True), ("Rank", "int", 4),
        ]),
        ("prefinal.tanh", *nonlinear("TanhComponent", rng, h)),
        ("prefinal.sigmoid", *nonlinear("SigmoidComponent", rng, h)),
        ("prefinal.gate", "ElementwiseProductComponent", [("InputDim", "int", 2 * h),
                                                          ("OutputDim", "int", h)]),
        ("prefinal.trunc", "BackpropTruncationComponent", [
            ("Dim", "int", h), ("Scale", "float", 1.0), ("ClippingThreshold", "float", 30.0),
            ("ZeroingThreshold", "float", 15.0), ("ZeroingInterval", "int", 20),
            ("RecurrenceInterval", "int", 1),
        ]),
        ("prefinal.normalize", "NormalizeComponent", [
            ("InputDim", "int", h), ("TargetRms", "float", 0.8), ("AddLogStddev", "bool", False),
        ]),
        ("output.affine", *ng_affine(rng, h, classes)),
        ("output.log-softmax", *nonlinear("LogSoftmaxComponent", rng, classes)),
    ]
    return cfg, comps


def _lstmp(rng, name, src, src_dim, cell, proj, extra, delay):
    """An xconfig-style LSTMP layer: config lines and components."""
    cfg = [
        f"component-node name={name}.four_parts component={name}.W_all input=Append({src}, "
        f"IfDefined(Offset({name}.r_trunc, {-delay})))",
        f"component-node name={name}.lstm_nonlin component={name}.lstm_nonlin "
        f"input=Append({name}.four_parts, IfDefined(Offset({name}.c_trunc, {-delay})))",
        f"dim-range-node name={name}.c input-node={name}.lstm_nonlin dim-offset=0 dim={cell}",
        f"dim-range-node name={name}.m input-node={name}.lstm_nonlin dim-offset={cell} dim={cell}",
        f"component-node name={name}.rp component={name}.W_rp input={name}.m",
        f"dim-range-node name={name}.r input-node={name}.rp dim-offset=0 dim={proj}",
        f"component-node name={name}.cr_trunc component={name}.cr_trunc input=Append({name}.c, {name}.r)",
        f"dim-range-node name={name}.c_trunc input-node={name}.cr_trunc dim-offset=0 dim={cell}",
        f"dim-range-node name={name}.r_trunc input-node={name}.cr_trunc dim-offset={cell} dim={proj}",
    ]
    comps = [
        (f"{name}.W_all", *ng_affine(rng, src_dim + proj, 4 * cell)),
        (f"{name}.lstm_nonlin", "LstmNonlinearityComponent", [
            ("MaxChange", "float", 0.75), ("LearningRate", "float", 0.001),
            ("Params", "matrix", _rng_mat(rng, 3, cell, 0.5)),
            ("ValueAvg", "matrix", _rng_mat(rng, 5, cell, 0.1)),
            ("DerivAvg", "matrix", _rng_mat(rng, 5, cell, 0.1)),
            ("SelfRepairConfig", "vector", _vec(rng, 10)),
            ("SelfRepairProb", "vector", _vec(rng, 5)),
            ("SelfRepairTotal", "vector", _vec(rng, 5)),
            ("Count", "float", 0.0), ("UseDropout", "bool", False),
        ]),
        (f"{name}.W_rp", *ng_affine(rng, cell, proj + extra)),
        (f"{name}.cr_trunc", "BackpropTruncationComponent", [
            ("Dim", "int", cell + proj), ("Scale", "float", 1.0),
            ("ClippingThreshold", "float", 30.0), ("ZeroingThreshold", "float", 15.0),
            ("ZeroingInterval", "int", 20), ("RecurrenceInterval", "int", delay),
        ]),
    ]
    return cfg, comps


def lstm_nnet3(rng) -> tuple[list[str], list[tuple[str, str, list]]]:
    """A TDNN-LSTM: a spliced ReLU layer, LSTMP layers of delay 1 and 3."""
    feat, h, cell, proj, extra, classes = 10, 16, 12, 6, 4, 14
    cfg = [
        f"input-node name=input dim={feat}",
        "component-node name=tdnn1.affine component=tdnn1.affine input=Append(Offset(input, -1), "
        "input, Offset(input, 1))",
        "component-node name=tdnn1.relu component=tdnn1.relu input=tdnn1.affine",
    ]
    comps = [("tdnn1.affine", *ng_affine(rng, 3 * feat, h)),
             ("tdnn1.relu", *nonlinear("RectifiedLinearComponent", rng, h))]
    for name, src, src_dim, delay in (("lstm1", "tdnn1.relu", h, 1),
                                      ("lstm2", "Offset(lstm1.rp, -1)", proj + extra, 3)):
        c, k = _lstmp(rng, name, src, src_dim, cell, proj, extra, delay)
        cfg += c
        comps += k
    cfg += [
        "component-node name=output.affine component=output.affine input=lstm2.rp",
        "component-node name=output.log-softmax component=output.log-softmax input=output.affine",
        "output-node name=output input=output.log-softmax objective=linear",
    ]
    comps += [("output.affine", *ng_affine(rng, proj + extra, classes)),
              ("output.log-softmax", *nonlinear("LogSoftmaxComponent", rng, classes))]
    return cfg, comps


def write_nnet3(cfg, comps, binary: bool, transition_model: bool = False) -> bytes:
    w = Writer(binary)
    if transition_model:  # a token stream the frontend skips (it reads no HMM)
        w.token("<TransitionModel>")
        w.token("<Topology>")
        w.token("</Topology>")
        w.token("<Triples>")
        w.int(0)
        w.token("</Triples>")
        w.token("<LogProbs>")
        w.vector(np.zeros(0, np.float32))
        w.token("</LogProbs>")
        w.token("</TransitionModel>")
    w.token("<Nnet3>")
    w.raw("\n" + "\n".join(cfg) + "\n\n")
    w.token("<NumComponents>")
    w.int(len(comps))
    for name, ctype, fields in comps:
        w.token("<ComponentName>")
        w.token(name)
        w.token(f"<{ctype}>")
        w.fields(fields)
        w.token(f"</{ctype}>")
    w.token("</Nnet3>")
    return bytes(w.out)


def _coef():
    return [("LearnRateCoef", "float", 1.0), ("BiasLearnRateCoef", "float", 1.0),
            ("MaxNorm", "float", 0.0)]


def dnn_nnet1(rng):
    feat, ctx, h, classes = 10, 5, 24, 16
    spliced = feat * ctx
    return [
        ("Splice", spliced, feat, [(None, "ivec", [-2, -1, 0, 1, 2])]),
        ("AddShift", spliced, spliced, [("LearnRateCoef", "float", 0.0),
                                        (None, "vector", _vec(rng, spliced, 0.3))]),
        ("Rescale", spliced, spliced, [("LearnRateCoef", "float", 0.0),
                                       (None, "vector", _vec(rng, spliced, 0.2, 1.0))]),
        ("ParallelComponent", 30, spliced, [
            [("AffineTransform", 20, 30, [*_coef(), (None, "matrix", _rng_mat(rng, 20, 30)),
                                          (None, "vector", _vec(rng, 20))]),
             ("Sigmoid", 20, 20, [])],
            [("Splice", 60, 20, [(None, "ivec", [-1, 0, 1])]),
             ("AffineTransform", 10, 60, [*_coef(), (None, "matrix", _rng_mat(rng, 10, 60)),
                                          (None, "vector", _vec(rng, 10))])],
        ]),
        ("AffineTransform", h, 30, [*_coef(), (None, "matrix", _rng_mat(rng, h, 30)),
                                    (None, "vector", _vec(rng, h))]),
        ("Sigmoid", h, h, []),
        ("AffineTransform", h, h, [*_coef(), (None, "matrix", _rng_mat(rng, h, h)),
                                   (None, "vector", _vec(rng, h))]),
        ("Tanh", h, h, []),
        ("Dropout", h, h, [("DropoutRetention", "float", 0.9)]),
        ("AffineTransform", classes, h, [*_coef(), (None, "matrix", _rng_mat(rng, classes, h)),
                                         (None, "vector", _vec(rng, classes))]),
        ("Softmax", classes, classes, []),
    ]


def lstm_nnet1(rng):
    feat, cell, proj, classes = 10, 16, 8, 12
    spliced = feat * 3
    return [
        ("Splice", spliced, feat, [(None, "ivec", [-1, 0, 1])]),
        ("LstmProjected", proj, spliced, [
            ("CellDim", "int", cell), *_coef()[:2], ("CellClip", "float", 50.0),
            ("DiffClip", "float", 1.0), ("GradClip", "float", 250.0),
            (None, "matrix", _rng_mat(rng, 4 * cell, spliced)),
            (None, "matrix", _rng_mat(rng, 4 * cell, proj)),
            (None, "vector", _vec(rng, 4 * cell)),
            (None, "vector", _vec(rng, cell)), (None, "vector", _vec(rng, cell)),
            (None, "vector", _vec(rng, cell)),
            (None, "matrix", _rng_mat(rng, proj, cell)),
        ]),
        ("AffineTransform", classes, proj, [*_coef(), (None, "matrix", _rng_mat(rng, classes, proj)),
                                            (None, "vector", _vec(rng, classes))]),
        ("Softmax", classes, classes, []),
    ]


def write_nnet1(layers, binary: bool) -> bytes:
    w = Writer(binary)
    _nnet1(w, layers)
    return bytes(w.out)


def _nnet1(w: Writer, layers) -> None:
    w.token("<Nnet>")
    if not w.binary:
        w.raw("\n")
    for ctype, out_dim, in_dim, fields in layers:
        w.token(f"<{ctype}>")
        w.int(out_dim)
        w.int(in_dim)
        if ctype == "ParallelComponent":  # fields: the nested networks
            w.token("<NestedNnetCount>")
            w.int(len(fields))
            for k, nested in enumerate(fields):
                w.token("<NestedNnet>")
                w.int(k + 1)
                _nnet1(w, nested)
            w.token("</ParallelComponent>")
        else:
            w.fields(fields)
        w.token("<!EndOfComponent>")
        if not w.binary:
            w.raw("\n")
    w.token("</Nnet>")


def main(out: Path = OUT) -> None:
    out.mkdir(parents=True, exist_ok=True)
    cfg, comps = tdnn_nnet3(np.random.default_rng(19))
    dnn = dnn_nnet1(np.random.default_rng(20))
    lstm = lstm_nnet1(np.random.default_rng(21))
    lcfg, lcomps = lstm_nnet3(np.random.default_rng(22))
    files = {
        "tdnn_text.raw": write_nnet3(cfg, comps, False),
        "tdnn_bin.raw": write_nnet3(cfg, comps, True),
        "tdnn_bin.mdl": write_nnet3(cfg, comps, True, transition_model=True),
        "dnn_text.nnet": write_nnet1(dnn, False),
        "dnn_bin.nnet": write_nnet1(dnn, True),
        "lstm_text.nnet": write_nnet1(lstm, False),
        "lstm_bin.nnet": write_nnet1(lstm, True),
        "tdnn_lstm_text.raw": write_nnet3(lcfg, lcomps, False),
        "tdnn_lstm_bin.mdl": write_nnet3(lcfg, lcomps, True, transition_model=True),
    }
    for name, data in files.items():
        (out / name).write_bytes(data)
        print(f"{out / name}: {len(data)} bytes")


if __name__ == "__main__":
    main(Path(sys.argv[1]) if len(sys.argv) > 1 else OUT)
