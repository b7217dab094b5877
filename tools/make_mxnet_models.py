#!/usr/bin/env python3
"""Write the MXNet frontend test fixtures (checkpoints + MXNet's own outputs).

A developer script: it needs MXNet 1.9.1 (and numpy < 1.24), which the xmo
venv does not have and must never import. Run it from a separate venv::

    python3 -m venv /work/scratch/mxnet
    /work/scratch/mxnet/bin/pip install mxnet==1.9.1 'numpy<1.24'
    /work/scratch/mxnet/bin/python tools/make_mxnet_models.py [--out tests/data/mxnet]

For every model ``<name>`` it writes, under ``<out>/<name>/``:

* ``<name>-symbol.json`` and ``<name>-0000.params`` (``mx.model.save_checkpoint``;
  random weights and BatchNorm statistics; input variables carry ``__shape__``);
* ``inputs.npz`` (input name -> array) and ``outputs.npz`` (``out<k>`` -> MXNet's
  output ``k``, computed by MXNet's executor with ``is_train=False``);

and ``<out>/manifest.json``: per model a description, its inputs and outputs
and how the outputs compare (``sorted_detections``: the SSD head's rows with
class >= 0, sorted).
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import mxnet as mx
import numpy as np

sym = mx.sym


def _conv_bn(x, name: str, filters: int, kernel=(3, 3), stride=(1, 1), pad=(1, 1), act=True):
    c = sym.Convolution(x, num_filter=filters, kernel=kernel, stride=stride, pad=pad,
                        no_bias=True, name=f"{name}_conv")
    c = sym.BatchNorm(c, fix_gamma=False, eps=2e-5, name=f"{name}_bn")
    return sym.Activation(c, act_type="relu", name=f"{name}_relu") if act else c


def resnet():
    data = sym.var("data", shape=(2, 3, 32, 32))
    x = _conv_bn(data, "stem", 16)
    x = sym.Pooling(x, kernel=(3, 3), stride=(2, 2), pad=(1, 1), pool_type="max",
                    pooling_convention="full", name="stem_pool")
    for i, (filters, stride) in enumerate([(16, 1), (32, 2)]):
        y = _conv_bn(x, f"b{i}a", filters, stride=(stride, stride))
        y = _conv_bn(y, f"b{i}b", filters, act=False)
        if stride != 1:
            x = _conv_bn(x, f"b{i}proj", filters, kernel=(1, 1), stride=(stride, stride),
                         pad=(0, 0), act=False)
        x = sym.Activation(sym.elemwise_add(x, y, name=f"b{i}_add"), act_type="relu", name=f"b{i}_out")
    x = sym.Pooling(x, kernel=(2, 2), stride=(1, 1), pool_type="avg", pad=(1, 1),
                    count_include_pad=False, name="avg_pool")
    x = sym.Pooling(x, kernel=(1, 1), global_pool=True, pool_type="avg", name="global_pool")
    x = sym.Flatten(x, name="flatten")
    x = sym.FullyConnected(x, num_hidden=10, name="fc")
    out = sym.SoftmaxOutput(x, name="softmax")
    return out, {"data": np.random.rand(2, 3, 32, 32).astype(np.float32)}, "ResNet-style: Convolution+BatchNorm+relu, residual elemwise_add, max/avg/global Pooling, FullyConnected, SoftmaxOutput"


def ops():
    """Many operators on small tensors (one head each)."""
    data = sym.var("data", shape=(2, 4, 6, 6))
    heads = []
    up = sym.UpSampling(data, scale=2, sample_type="nearest", num_args=1, name="up")
    dec = sym.Deconvolution(data, kernel=(3, 3), stride=(2, 2), pad=(1, 1), adj=(1, 1),
                            num_filter=3, no_bias=False, name="deconv")
    grp = sym.Convolution(up, kernel=(3, 3), num_filter=4, num_group=2, dilate=(2, 2), pad=(2, 2),
                          name="gconv")
    heads.append(sym.broadcast_add(grp, sym.mean(data, axis=(2, 3), keepdims=True), name="badd"))
    heads.append(sym.LeakyReLU(dec, act_type="prelu", name="prelu"))
    heads.append(sym.LeakyReLU(data, act_type="leaky", slope=0.1, name="leaky"))
    heads.append(sym.LeakyReLU(data, act_type="elu", slope=0.5, name="elu"))
    heads.append(sym.LeakyReLU(data, act_type="selu", name="selu"))
    heads.append(sym.LeakyReLU(data, act_type="gelu", name="gelu"))
    parts = sym.SliceChannel(data, num_outputs=2, axis=1, name="split")
    cat = sym.Concat(parts[1], parts[0], dim=1, name="cat")
    r = sym.Reshape(cat, shape=(0, -4, 2, -1, -3), name="reshape_codes")  # [2, 2, 2, 36]
    r = sym.Reshape(r, shape=(-1, 0), reverse=True, name="reshape_rev")  # [8, 36]
    t = sym.transpose(r, axes=(1, 0), name="tr")
    heads.append(sym.clip((t + 0.5), a_min=0.2, a_max=1.1, name="clip"))
    s = sym.slice_axis(data, axis=2, begin=1, end=5, name="slice_axis")
    e = sym.expand_dims(s, axis=1, name="expand")
    q = sym.squeeze(sym.sum(e, axis=3, keepdims=True), axis=(1, 3), name="squeeze")
    heads.append(sym.log_softmax((1.0 - q), axis=1, name="logsm"))
    m = sym.Reshape(data, shape=(2, 4, 36), name="flat3")
    heads.append(sym.batch_dot(m, m, transpose_b=True, name="bdot"))
    w = sym.var("proj_weight", shape=(36, 5))
    heads.append(sym.softmax(sym.dot(m, w, name="dot"), axis=-1, temperature=2.0, name="sm"))
    cond = sym.broadcast_greater(data, sym.zeros_like(data), name="gt")
    heads.append(sym.where(cond, sym.square(data), sym.negative(data), name="where"))
    heads.append(sym.add_n(data, (data * 2.0), sym.exp(data), name="addn"))
    return sym.Group(heads), {"data": np.random.randn(2, 4, 6, 6).astype(np.float32)}, "operator sampler: UpSampling, Deconvolution, grouped dilated Convolution, LeakyReLU modes, SliceChannel, Concat, Reshape codes, transpose, slice_axis, dot, batch_dot, where..."


def ssd():
    data = sym.var("data", shape=(1, 3, 64, 64))
    x = _conv_bn(data, "c1", 8, stride=(2, 2))
    f1 = _conv_bn(x, "c2", 16, stride=(2, 2))  # 16x16
    f2 = _conv_bn(f1, "c3", 16, stride=(2, 2))  # 8x8
    n_cls = 3  # + background
    cls_preds, loc_preds, anchors = [], [], []
    for i, (f, sizes, ratios) in enumerate([(f1, (0.2, 0.3), (1, 2, 0.5)), (f2, (0.45, 0.6), (1, 2))]):
        k = len(sizes) + len(ratios) - 1
        c = sym.Convolution(f, num_filter=k * (n_cls + 1), kernel=(3, 3), pad=(1, 1), name=f"cls{i}")
        lo = sym.Convolution(f, num_filter=k * 4, kernel=(3, 3), pad=(1, 1), name=f"loc{i}")
        cls_preds.append(sym.Flatten(sym.transpose(c, axes=(0, 2, 3, 1)), name=f"cls{i}_flat"))
        loc_preds.append(sym.Flatten(sym.transpose(lo, axes=(0, 2, 3, 1)), name=f"loc{i}_flat"))
        anchors.append(sym.Flatten(sym.contrib.MultiBoxPrior(f, sizes=sizes, ratios=ratios, clip=i == 1,
                                                             name=f"anchors{i}")))
    cls = sym.Reshape(sym.Concat(*cls_preds, dim=1), shape=(0, -1, n_cls + 1), name="cls_concat")
    cls = sym.softmax(sym.transpose(cls, axes=(0, 2, 1)), axis=1, name="cls_prob")
    loc = sym.Concat(*loc_preds, dim=1, name="loc_preds")
    anc = sym.Reshape(sym.Concat(*anchors, dim=1), shape=(0, -1, 4), name="anchors")
    det = sym.contrib.MultiBoxDetection(cls, loc, anc, threshold=0.3, nms_threshold=0.45,
                                        clip=True, name="detection")
    return sym.Group([det, anc]), {"data": np.random.rand(1, 3, 64, 64).astype(np.float32)}, "SSD-style: two feature maps, MultiBoxPrior, class/box heads, MultiBoxDetection (NMS)"


def lstm_lm():
    T, N, V, E, H, L = 6, 2, 40, 16, 24, 2
    data = sym.var("data", shape=(T, N))
    h0 = sym.var("state_h", shape=(L, N, H))
    c0 = sym.var("state_c", shape=(L, N, H))
    emb = sym.Embedding(data, input_dim=V, output_dim=E, name="embed")
    params = sym.var("lstm_parameters")
    rnn = sym.RNN(emb, params, h0, c0, state_size=H, num_layers=L, mode="lstm",
                  state_outputs=True, name="lstm")
    out = sym.Reshape(rnn[0], shape=(-3, 0), name="flat")
    fc = sym.FullyConnected(out, num_hidden=V, name="decoder")
    prob = sym.SoftmaxOutput(fc, name="softmax")
    feeds = {
        "data": np.random.randint(0, V, (T, N)).astype(np.float32),
        "state_h": (np.random.randn(L, N, H) * 0.5).astype(np.float32),
        "state_c": (np.random.randn(L, N, H) * 0.5).astype(np.float32),
    }
    return sym.Group([prob, rnn[1], rnn[2]]), feeds, "LSTM language model: Embedding, 2-layer fused RNN (lstm) with state inputs and outputs, FullyConnected, SoftmaxOutput"


def gru_bi():
    T, N, C, H = 5, 3, 7, 6
    data = sym.var("data", shape=(T, N, C))
    params = sym.var("gru_parameters")
    y = sym.RNN(data, params, sym.zeros((2, N, H)), state_size=H, num_layers=1, mode="gru",
                bidirectional=True, name="gru")
    r = sym.RNN(y, sym.var("rnn_parameters"), sym.zeros((1, N, 4)), state_size=4, num_layers=1,
                mode="rnn_tanh", name="rnn")
    return sym.Group([y, r]), {"data": np.random.randn(T, N, C).astype(np.float32)}, "bidirectional GRU + tanh RNN (fused RNN, zero initial states)"


class _ScaledSoftsign(mx.operator.CustomOp):
    def __init__(self, scale: float) -> None:
        super().__init__()
        self.scale = scale

    def forward(self, is_train, req, in_data, out_data, aux):  # noqa: ANN001
        x = in_data[0]
        self.assign(out_data[0], req[0], self.scale * x / (1 + mx.nd.abs(x)))


@mx.operator.register("scaled_softsign")
class _ScaledSoftsignProp(mx.operator.CustomOpProp):
    """A Python operator (``mx.operator.register``): ``scale * x / (1 + |x|)``."""

    def __init__(self, scale: str = "1.0") -> None:
        super().__init__(need_top_grad=False)
        self.scale = float(scale)

    def list_arguments(self):  # noqa: ANN201
        return ["data"]

    def list_outputs(self):  # noqa: ANN201
        return ["output"]

    def infer_shape(self, in_shape):  # noqa: ANN001, ANN201
        return in_shape, [in_shape[0]], []

    def create_operator(self, ctx, shapes, dtypes):  # noqa: ANN001, ANN201
        return _ScaledSoftsign(self.scale)


def custom_op():
    data = sym.var("data", shape=(3, 8))
    x = sym.FullyConnected(data, num_hidden=6, name="fc1")
    x = sym.Custom(x, op_type="scaled_softsign", scale=0.5, name="softsign")
    x = sym.FullyConnected(x, num_hidden=4, name="fc2")
    return x, {"data": np.random.randn(3, 8).astype(np.float32)}, "a Custom (Python) operator between two FullyConnected layers; converts with examples/mxnet_custom_op"


MODELS = {"resnet": resnet, "ops": ops, "ssd": ssd, "lstm_lm": lstm_lm, "gru_bi": gru_bi,
          "custom_op": custom_op}
EXTENSIONS = {"custom_op": ["examples/mxnet_custom_op"]}
SORTED_DETECTIONS = {"ssd": [0]}


def _param_count(mode: str, layers: int, dirs: int, hidden: int, inputs: int) -> int:
    g = {"lstm": 4, "gru": 3, "rnn_tanh": 1, "rnn_relu": 1}[mode] * hidden
    n = 0
    for layer in range(layers):
        n_in = inputs if layer == 0 else hidden * dirs
        n += dirs * (g * n_in + g * hidden + 2 * g)
    return n


def make(name: str, out: Path) -> dict:
    np.random.seed(sum(map(ord, name)))
    mx.random.seed(7)
    net, feeds, desc = MODELS[name]()
    shapes = {k: v.shape for k, v in feeds.items()}
    extra = {}
    if name == "lstm_lm":
        extra["lstm_parameters"] = (_param_count("lstm", 2, 1, 24, 16),)
    if name == "gru_bi":
        extra["gru_parameters"] = (_param_count("gru", 1, 2, 6, 7),)
        extra["rnn_parameters"] = (_param_count("rnn_tanh", 1, 1, 4, 12),)
    arg_shapes, _, aux_shapes = net.infer_shape(**shapes, **extra)
    args, aux = {}, {}
    for n, s in zip(net.list_arguments(), arg_shapes):
        if n in feeds or n.endswith("_label"):
            continue
        args[n] = mx.nd.array(np.random.uniform(-0.5, 0.5, s).astype(np.float32))
    for n, s in zip(net.list_auxiliary_states(), aux_shapes):
        lo, hi = (0.5, 1.5) if n.endswith("var") else (-0.2, 0.2)
        aux[n] = mx.nd.array(np.random.uniform(lo, hi, s).astype(np.float32))
    folder = out / name
    folder.mkdir(parents=True, exist_ok=True)
    mx.model.save_checkpoint(str(folder / name), 0, net, args, aux)
    bind_args = dict(args)
    bind_args.update({k: mx.nd.array(v) for k, v in feeds.items()})
    for n, s in zip(net.list_arguments(), arg_shapes):
        if n.endswith("_label"):
            bind_args[n] = mx.nd.zeros(s)
    ex = net.bind(mx.cpu(), bind_args, aux_states=aux, grad_req="null")
    outs = [o.asnumpy() for o in ex.forward(is_train=False)]
    np.savez(folder / "inputs.npz", **feeds)
    np.savez(folder / "outputs.npz", **{f"out{k}": o for k, o in enumerate(outs)})
    nodes = json.loads(net.tojson())["nodes"]
    hist: dict[str, int] = {}
    for nd in nodes:
        if nd["op"] != "null":
            hist[nd["op"]] = hist.get(nd["op"], 0) + 1
    return {
        "description": desc,
        "inputs": {k: list(v.shape) for k, v in feeds.items()},
        "outputs": [list(o.shape) for o in outs],
        "sorted_detections": SORTED_DETECTIONS.get(name, []),
        "extensions": EXTENSIONS.get(name, []),
        "ops": dict(sorted(hist.items())),
        "bytes": sum(f.stat().st_size for f in folder.iterdir()),
    }


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--out", default=str(Path(__file__).resolve().parents[1] / "tests" / "data" / "mxnet"))
    p.add_argument("models", nargs="*", default=list(MODELS))
    args = p.parse_args()
    out = Path(args.out)
    manifest_path = out / "manifest.json"
    manifest = json.loads(manifest_path.read_text()) if manifest_path.exists() else {}
    for name in args.models:
        manifest[name] = make(name, out)
        print(name, manifest[name]["outputs"], manifest[name]["bytes"], "bytes")
    manifest_path.write_text(json.dumps(dict(sorted(manifest.items())), indent=1) + "\n")


if __name__ == "__main__":
    main()
