#!/usr/bin/env python3
"""Write the TensorFlow frontend test fixtures (frozen GraphDefs + reference data).

This is a developer script: it needs TensorFlow (and Keras 3), which the xmo
venv does not have and must never import.  Run it with a separate venv that has
``tensorflow-cpu`` installed::

    /path/to/tf-venv/bin/python tools/make_tf_fixtures.py [--out tests/data/tf]

For every model ``<name>`` it writes, under the output folder:

* ``<name>.pb``           binary frozen GraphDef (no variables, no function
                          library except in the ``*_functional`` models,
                          Placeholders keep their ``-1`` dims);
* ``<name>.inputs.npz``   the fed inputs, keyed by Placeholder node name;
* ``<name>.outputs.npz``  reference outputs computed by TensorFlow running the
                          frozen GraphDef itself (imported into a fresh
                          ``tf.Graph``, run in a ``tf.compat.v1.Session``),
                          keyed by output tensor name (``Identity:0``, ...);
* ``manifest.json``       per model: files, inputs (name, dtype, Placeholder
                          shape with -1 dims, fed shape), outputs (tensor name,
                          dtype, reference shape), node count, op histogram,
                          a one-line description and, where it applies, the
                          ``extensions`` the model needs and the op types
                          OpenVINO's own TF frontend refuses
                          (``openvino_unsupported``: no comparison with it),
                          ``lower_control_flow`` (the freeze mode of the
                          control-flow models), the function library's
                          functions (``functions``: node count, op
                          histogram). Kept from the previous manifest (see
                          :data:`KEPT_KEYS`): ``openvino`` (written by
                          ``tools/check_tf_fixtures_openvino.py --record``),
                          ``xmo_pending`` / ``xmo_load_pending`` (fixtures xmo
                          cannot convert / load yet: strict xfails in the tests).

``shapes`` is also written as text (``shapes.pbtxt``, protobuf text format of
the same GraphDef) for the text parser.  Things a reader must cope with, as
TensorFlow writes them: ``experimental_type`` (full-type) blocks on Shape
nodes, a ``NoOp`` with ``^control`` inputs from the frozen variable reads
(now Identity nodes with ``_has_manual_control_dependencies``) feeding the
output Identity as ``^NoOp``.

Models (all NHWC, float32, weights from seeded NumPy generators):

* ``cnn``          raw TF ops: Conv2D+BiasAdd, FusedBatchNormV3, Relu/Relu6,
                   DepthwiseConv2dNative, MaxPool, AvgPool, ConcatV2 of two
                   branches, Mean over H/W, MatMul+BiasAdd, Softmax.
* ``mobilenetv2``  ``keras.applications.MobileNetV2(alpha=0.35, 96x96, 10
                   classes)``; Keras 3 lowers BatchNormalization to
                   Rsqrt/Mul/Sub/AddV2 (no FusedBatchNorm).
* ``unet``         small Keras U-Net: Conv2D+BN+ReLU blocks, MaxPool,
                   Conv2DTranspose (Conv2DBackpropInput with a dynamic
                   output-shape sub-graph), bilinear UpSampling2D
                   (ResizeBilinear), nearest Resizing (ResizeNearestNeighbor),
                   skip ConcatV2, 1x1 conv + sigmoid.
* ``conv1d``       Keras Conv1D classifier on a one-channel waveform
                   ``[N, 64, 1]``: Conv1D same, dilated Conv1D same and valid
                   (SpaceToBatchND -> ExpandDims -> Conv2D -> Squeeze ->
                   BatchToSpaceND), strided Conv1D, MaxPooling1D, global
                   average pooling, Dense + softmax.
* ``shapes``       raw ops with None batch/H/W: Shape, StridedSlice with every
                   mask, Pack/Unpack, Reshape/Fill/Tile with computed shapes,
                   pads, Cast, Space/DepthToSpace, resizes with computed sizes.
* ``ops``          raw ops: reductions, BatchMatMulV2 and elementwise math.
* ``fft_mri``      the Custom Operations Guide's MRI-reconstruction ending:
                   convolutions on k-space, StridedSlice [...,0] / [...,1] ->
                   Complex -> IFFT2D -> ComplexAbs (needs the FFT extension,
                   ``examples/fft_extension``).
* ``more_ops``     raw ops real frozen graphs hold beyond the basic set:
                   Atan2 (signed zeros, x = 0), Cumprod (exclusive / reverse),
                   Roll, ScatterNd, TensorScatterUpdate / Add, ResizeBicubic
                   (every coordinate mode), MatrixBandPart, Bucketize,
                   SegmentSum, UnsortedSegmentSum / Max,
                   NonMaxSuppressionV3 / V4 / V5, CropAndResize.
* ``cond``         a TF1-style training switch: ``tf.cond`` on a
                   ``PlaceholderWithDefault(False)`` learning phase (dropout /
                   batch statistics in the untaken branches) and on a constant,
                   nested; frozen with ``lower_control_flow`` into Switch /
                   Merge.

Control flow decided at run time, each model frozen both ways: ``<name>``
with ``lower_control_flow=True`` (TF1 frames: Enter / Merge / Switch / LoopCond
/ NextIteration / Exit, the TensorList ops inside; the unread
``unused_control_flow_input`` Placeholders lowering leaves, in a number that
changes from run to run, are dropped), ``<name>_functional``
with ``lower_control_flow=False`` (While / StatelessWhile / StatelessIf whose
bodies are FunctionDefs of the GraphDef's library):

* ``lstm``, ``gru``, ``gru_seq``, ``simple_rnn``, ``bilstm``, ``stacked_lstm``:
                   Keras ``LSTM(8)``, ``GRU(6)``, ``GRU(4,
                   return_sequences=True)``, ``SimpleRNN(10)``,
                   ``Bidirectional(LSTM(6))``, ``LSTM(12,
                   return_sequences=True) -> LSTM(16)`` (``unroll=False``, the
                   default; seeded weights, recurrent kernels with gains below
                   1), input ``x [N, 5..7, 3..8]``: a while loop reading the
                   time steps from a TensorList (TensorListFromTensor /
                   GetItem) and writing the outputs to another (Reserve /
                   SetItem / Stack).
* ``while_loop``   ``tf.while_loop`` whose trip count depends on the data
                   (shrink ``x`` while its norm is above ``threshold``, an
                   input), the norms written to a dynamic-size TensorArray.
* ``cond_runtime`` ``tf.cond`` on ``sum(x) > threshold`` (an input), branch
                   outputs of the same and of different widths.
* ``tf1_rnn``      (one model, TF1's control flow v1) a tanh RNN in a
                   ``tf.compat.v1.while_loop`` over TF1 TensorArrays
                   (TensorArrayV3 / ScatterV3 / ReadV3 / WriteV3 / GatherV3).

Each model is built in a fresh Python process: TensorFlow numbers the
functions it traces with a process-wide counter, and the names of a
functional model's functions and arguments carry the numbers.

The script checks programmatically that every op type a model is meant to
cover occurs in its frozen graph and prints an op-type histogram per model.
Files are byte-for-byte reproducible on the same machine and TF version
(``.npz`` files are written with fixed zip timestamps; the reference outputs
depend on the CPU kernels TensorFlow picks, so they may differ in the last bits
on another CPU).
"""

from __future__ import annotations

import argparse
import collections
import io
import json
import os
import sys
import zipfile
from pathlib import Path

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")

import numpy as np

DEFAULT_OUT = Path(__file__).resolve().parents[1] / "tests" / "data" / "tf"
MAX_BYTES = 3 * 1024 * 1024

# Op types that must never survive freezing.
FORBIDDEN_OPS = {
    "StatefulPartitionedCall", "PartitionedCall", "VarHandleOp", "ReadVariableOp",
    "VariableV2", "AssignVariableOp", "Enter", "Exit", "Merge", "Switch", "NextIteration",
    "If", "StatelessIf", "While", "StatelessWhile",
}

tf = None  # imported lazily in main() so that ``--help`` works without TF
keras = None


# ----------------------------------------------------------------------------
# Small helpers
# ----------------------------------------------------------------------------

def save_npz(path: Path, arrays: dict[str, np.ndarray]) -> None:
    """np.savez equivalent with fixed zip timestamps (byte-reproducible)."""
    with zipfile.ZipFile(path, "w", compression=zipfile.ZIP_STORED) as zf:
        for key, arr in arrays.items():
            info = zipfile.ZipInfo(key + ".npy", date_time=(1980, 1, 1, 0, 0, 0))
            info.external_attr = 0o644 << 16
            buf = io.BytesIO()
            # (ascontiguousarray makes a 0-d array 1-d: keep scalars scalars)
            data = np.ascontiguousarray(arr).reshape(np.shape(arr))
            np.lib.format.write_array(buf, data, allow_pickle=False)
            zf.writestr(info, buf.getvalue())


def blocky_images(rng: np.random.Generator, n: int, h: int, w: int, c: int) -> np.ndarray:
    """Seeded normal noise plus a coarse 4x4 pattern, so images differ in content."""
    coarse = rng.standard_normal((n, 4, 4, c))
    up = np.repeat(np.repeat(coarse, h // 4, axis=1), w // 4, axis=2)
    return (0.6 * up + 0.4 * rng.standard_normal((n, h, w, c))).astype(np.float32)


def he(rng: np.random.Generator, shape, fan_in: int) -> np.ndarray:
    return (rng.standard_normal(shape) * np.sqrt(2.0 / fan_in)).astype(np.float32)


def standardizing_dense(rng, feats: np.ndarray, n_out: int, logit_std: float = 2.5):
    """Dense weights whose logits vary across inputs and classes.

    The kernel folds a per-feature standardisation (over the calibration batch)
    into a random projection, then everything is scaled so the logits have
    standard deviation ``logit_std``.
    """
    mu = feats.mean(0)
    sd = feats.std(0)
    sd = sd + 0.1 * np.median(sd) + 1e-6
    w0 = rng.standard_normal((feats.shape[1], n_out))
    w = w0 / sd[:, None]
    b = -mu @ w + 0.3 * np.sqrt(feats.shape[1]) * rng.standard_normal(n_out)
    logits = feats @ w + b
    k = logit_std / logits.std()
    return (w * k).astype(np.float32), (b * k).astype(np.float32)


def perturb_bn_stats(rng, mean: np.ndarray, var: np.ndarray):
    """Moving statistics near the calibration batch statistics, randomly perturbed."""
    m = mean + 0.1 * np.sqrt(var) * rng.standard_normal(mean.shape)
    v = var * rng.uniform(0.8, 1.25, var.shape)
    return m.astype(np.float32), v.astype(np.float32)


# ----------------------------------------------------------------------------
# Freezing and reference
# ----------------------------------------------------------------------------

def freeze(fn, signature, allow=frozenset(), functional=False):
    """Trace ``fn`` with ``signature`` and freeze it; returns (graph_def, frozen_fn).

    ``allow``: forbidden op types this model may keep (``cond``: Switch, Merge).
    ``functional``: freeze with ``lower_control_flow=False``: TF2 control flow
    stays functional (While / If ops whose bodies are functions of the
    GraphDef's library); by default it is lowered to TF1 frames (Switch, Merge,
    Enter, Exit, NextIteration, LoopCond) and the library must be empty.
    """
    from tensorflow.python.framework.convert_to_constants import (
        convert_variables_to_constants_v2,
    )

    concrete = tf.function(fn, autograph=False).get_concrete_function(*signature)
    frozen = convert_variables_to_constants_v2(concrete, lower_control_flow=not functional)
    gd = frozen.graph.as_graph_def()
    if len(gd.library.function) and not functional:
        raise RuntimeError("frozen graph still has a function library")
    if not functional:
        _drop_unused_control_flow_inputs(gd)
    kept = {n.op for n in gd.node} | {n.op for f in gd.library.function for n in f.node_def}
    bad = sorted(kept & (FORBIDDEN_OPS - set(allow)))
    if bad:
        raise RuntimeError(f"frozen graph still has {bad}")
    # Placeholders in signature order (freezing a function of many inputs
    # lists them in an order that changes from run to run)
    order = {spec.name: i for i, spec in enumerate(signature)}
    slots = [i for i, n in enumerate(gd.node) if n.op == "Placeholder" and n.name in order]
    placeholders = sorted((gd.node[i] for i in slots), key=lambda n: order[n.name])
    copies = [type(n)() for n in placeholders]
    for c, n in zip(copies, placeholders):
        c.CopyFrom(n)
    for i, c in zip(slots, copies):
        gd.node[i].CopyFrom(c)
    # Placeholders must keep their unknown dims.
    for spec in signature:
        (ph,) = [n for n in gd.node if n.name == spec.name]
        assert ph.op == "Placeholder", ph.op
        dims = [d.size for d in ph.attr["shape"].shape.dim]
        want = [-1 if d is None else d for d in spec.shape.as_list()]
        if dims != want:
            raise RuntimeError(f"Placeholder {spec.name} has shape {dims}, expected {want}")
    return gd, frozen


def _drop_unused_control_flow_inputs(gd) -> None:
    """Remove the ``unused_control_flow_input_<i>`` Placeholders lowering leaves.

    Nothing reads them (OpenVINO and xmo ignore them), and TensorFlow leaves
    a number of them that changes from run to run: the files would not be
    reproducible.
    """
    read = {i.lstrip("^").split(":")[0] for n in gd.node for i in n.input}
    keep = [n for n in gd.node
            if not (n.op == "Placeholder" and n.name.startswith("unused_control_flow_input")
                    and n.name not in read)]
    if len(keep) != len(gd.node):
        copies = [type(n)() for n in keep]
        for c, n in zip(copies, keep):
            c.CopyFrom(n)
        del gd.node[:]
        gd.node.extend(copies)


def run_graph_def(gd, feeds: dict[str, np.ndarray], outputs: list[str]) -> list[np.ndarray]:
    """Run a GraphDef imported into a fresh graph with a TF1 session."""
    graph = tf.Graph()
    with graph.as_default():
        tf.compat.v1.import_graph_def(gd, name="")
    cfg = tf.compat.v1.ConfigProto(intra_op_parallelism_threads=1, inter_op_parallelism_threads=1)
    with tf.compat.v1.Session(graph=graph, config=cfg) as sess:
        return sess.run(outputs, {f"{k}:0": v for k, v in feeds.items()})


# ----------------------------------------------------------------------------
# Model 1: cnn (raw ops, tf.Variables)
# ----------------------------------------------------------------------------

class _RawCNN:
    """Raw-op CNN whose BN moving statistics are calibrated in eager mode."""

    def __init__(self, rng: np.random.Generator):
        self.rng = rng
        self.calibrating = False
        v = lambda a, name: tf.Variable(a, name=name)
        self.w1 = v(he(rng, (3, 3, 3, 16), 27), "conv1/kernel")
        self.b1 = v(0.05 * rng.standard_normal(16).astype(np.float32), "conv1/bias")
        self.bn1 = self._bn_vars(16, "bn1")
        self.dw = v(he(rng, (3, 3, 16, 1), 9), "dw/depthwise_kernel")
        self.dwb = v(0.05 * rng.standard_normal(16).astype(np.float32), "dw/bias")
        self.w2 = v(he(rng, (1, 1, 16, 16), 16), "pw/kernel")
        self.b2 = v(0.05 * rng.standard_normal(16).astype(np.float32), "pw/bias")
        self.w3 = v(he(rng, (3, 3, 32, 32), 288), "conv3/kernel")
        self.b3 = v(0.05 * rng.standard_normal(32).astype(np.float32), "conv3/bias")
        self.bn3 = self._bn_vars(32, "bn3")
        self.fc_w = v(np.zeros((32, 10), np.float32), "fc/kernel")
        self.fc_b = v(np.zeros(10, np.float32), "fc/bias")
        self.feats = None

    def _bn_vars(self, c: int, name: str):
        rng = self.rng
        return {
            "gamma": tf.Variable(rng.uniform(0.6, 1.4, c).astype(np.float32), name=f"{name}/gamma"),
            "beta": tf.Variable((0.2 * rng.standard_normal(c)).astype(np.float32), name=f"{name}/beta"),
            "mean": tf.Variable(np.zeros(c, np.float32), name=f"{name}/moving_mean"),
            "var": tf.Variable(np.ones(c, np.float32), name=f"{name}/moving_variance"),
        }

    def _bn(self, x, p):
        if self.calibrating:
            m, v = tf.nn.moments(x, axes=[0, 1, 2])
            m, v = perturb_bn_stats(self.rng, m.numpy().astype(np.float64), v.numpy().astype(np.float64))
            p["mean"].assign(m)
            p["var"].assign(v)
        y, *_ = tf.raw_ops.FusedBatchNormV3(
            x=x, scale=p["gamma"], offset=p["beta"], mean=p["mean"], variance=p["var"],
            epsilon=1e-3, data_format="NHWC", is_training=False)
        return y

    def __call__(self, x):
        x = tf.nn.conv2d(x, self.w1, strides=1, padding="SAME")
        x = tf.nn.bias_add(x, self.b1)
        x = tf.nn.relu(self._bn(x, self.bn1))                                  # 32x32x16
        # branch a: depthwise 3x3 -> Relu6 -> MaxPool 2x2/2 (VALID)
        a = tf.nn.depthwise_conv2d(x, self.dw, strides=[1, 1, 1, 1], padding="SAME")
        a = tf.nn.relu6(tf.nn.bias_add(a, self.dwb))
        a = tf.nn.max_pool2d(a, ksize=2, strides=2, padding="VALID")          # 16x16x16
        # branch b: 1x1 conv -> Relu6 -> AvgPool 3x3/2 (SAME, pads excluded)
        b = tf.nn.relu6(tf.nn.bias_add(tf.nn.conv2d(x, self.w2, 1, "SAME"), self.b2))
        b = tf.nn.avg_pool2d(b, ksize=3, strides=2, padding="SAME")           # 16x16x16
        x = tf.concat([a, b], axis=3)                                         # 16x16x32
        x = tf.nn.conv2d(x, self.w3, strides=2, padding="VALID")              # 7x7x32
        x = tf.nn.relu(self._bn(tf.nn.bias_add(x, self.b3), self.bn3))
        x = tf.reduce_mean(x, axis=[1, 2])                                    # Mean -> [N,32]
        if self.calibrating:
            self.feats = x.numpy().astype(np.float64)
            w, bias = standardizing_dense(self.rng, self.feats, 10)
            self.fc_w.assign(w)
            self.fc_b.assign(bias)
        x = tf.nn.bias_add(tf.matmul(x, self.fc_w), self.fc_b)
        return tf.nn.softmax(x)


def build_cnn():
    rng = np.random.default_rng(1001)
    net = _RawCNN(rng)
    net.calibrating = True
    net(tf.constant(blocky_images(np.random.default_rng(2001), 16, 32, 32, 3)))
    net.calibrating = False
    sig = [tf.TensorSpec([None, 32, 32, 3], tf.float32, name="input")]
    gd, frozen = freeze(lambda x: net(x), sig)
    feeds = {"input": blocky_images(np.random.default_rng(3001), 2, 32, 32, 3)}
    return {
        "graph_def": gd, "frozen": frozen, "signature": sig, "feeds": feeds,
        "labels": ["probabilities"],
        "description": "raw-op NHWC CNN: Conv2D+BiasAdd+FusedBatchNormV3+Relu, two branches "
                        "(DepthwiseConv2dNative+Relu6+MaxPool | 1x1 Conv2D+Relu6+AvgPool SAME) "
                        "-> ConcatV2 -> strided Conv2D+FusedBatchNormV3+Relu -> Mean(1,2) "
                        "-> MatMul+BiasAdd -> Softmax",
        "required": {"Conv2D", "BiasAdd", "FusedBatchNormV3", "Relu", "Relu6",
                      "DepthwiseConv2dNative", "MaxPool", "AvgPool", "ConcatV2", "Mean",
                      "MatMul", "Softmax"},
    }


# ----------------------------------------------------------------------------
# Keras helpers (models 2 and 3)
# ----------------------------------------------------------------------------

def keras_randomize(model, rng: np.random.Generator) -> None:
    """Seeded values for every weight of a Keras model (overrides Keras' own init)."""
    for layer in model.layers:
        vals = []
        for w in layer.weights:
            name = w.path.split("/")[-1]
            shape = tuple(w.shape)
            if name == "kernel" and len(shape) == 4:
                if isinstance(layer, keras.layers.Conv2DTranspose):
                    fan_in = shape[0] * shape[1] * shape[3] // 4  # stride 2: 1/4 taps
                else:
                    fan_in = shape[0] * shape[1] * shape[2]
                vals.append(he(rng, shape, max(fan_in, 1)))
            elif name == "depthwise_kernel":
                vals.append(he(rng, shape, shape[0] * shape[1]))
            elif name == "kernel":
                vals.append(he(rng, shape, shape[0]))
            elif name == "recurrent_kernel":
                # [units, gates * units]: gains below 1 keep the recurrence stable
                vals.append((0.8 * rng.standard_normal(shape) / np.sqrt(shape[0])).astype(np.float32))
            elif name == "bias":
                vals.append((0.05 * rng.standard_normal(shape)).astype(np.float32))
            elif name == "gamma":
                vals.append(rng.uniform(0.6, 1.4, shape).astype(np.float32))
            elif name == "beta":
                vals.append((0.2 * rng.standard_normal(shape)).astype(np.float32))
            elif name == "moving_mean":
                vals.append(np.zeros(shape, np.float32))
            elif name == "moving_variance":
                vals.append(np.ones(shape, np.float32))
            else:
                raise RuntimeError(f"unexpected weight {w.path}")
        if vals:
            layer.set_weights(vals)


def keras_calibrate_bn(model, calib: np.ndarray, rng: np.random.Generator) -> None:
    """Set BN moving statistics to (perturbed) statistics of a calibration batch.

    One training-mode pass with momentum 0 stores every BN layer's batch
    statistics (each computed on inputs that match inference mode with those
    statistics); afterwards they are randomly perturbed.
    """
    bns = [l for l in model.layers if isinstance(l, keras.layers.BatchNormalization)]
    for bn in bns:
        bn.momentum = 0.0
    model(calib, training=True)
    for bn in bns:
        bn.momentum = 0.99
        m, v = perturb_bn_stats(rng, np.asarray(bn.moving_mean, np.float64),
                                np.asarray(bn.moving_variance, np.float64))
        bn.moving_mean.assign(m)
        bn.moving_variance.assign(v)


# ----------------------------------------------------------------------------
# Model 2: mobilenetv2
# ----------------------------------------------------------------------------

def build_mobilenetv2():
    keras.backend.clear_session()
    model = keras.applications.MobileNetV2(
        weights=None, alpha=0.35, input_shape=(96, 96, 3), classes=10)
    rng = np.random.default_rng(1002)
    keras_randomize(model, rng)
    calib = blocky_images(np.random.default_rng(2002), 16, 96, 96, 3)
    keras_calibrate_bn(model, calib, rng)
    head = model.get_layer("predictions")
    feats = np.asarray(keras.Model(model.inputs, head.input)([calib], training=False), np.float64)
    w, b = standardizing_dense(rng, feats, 10)
    head.set_weights([w, b])
    sig = [tf.TensorSpec([None, 96, 96, 3], tf.float32, name="input")]
    gd, frozen = freeze(lambda x: model(x, training=False), sig)
    feeds = {"input": blocky_images(np.random.default_rng(3002), 2, 96, 96, 3)}
    return {
        "graph_def": gd, "frozen": frozen, "signature": sig, "feeds": feeds,
        "labels": ["probabilities"],
        "description": "keras.applications.MobileNetV2(alpha=0.35, 96x96x3, 10 classes), random "
                        "seeded weights and BN statistics; Keras 3 BN = Rsqrt/Mul/Sub/AddV2, "
                        "ZeroPadding2D = Pad, Relu6, DepthwiseConv2dNative, Mean, MatMul, Softmax",
        "required": {"Conv2D", "DepthwiseConv2dNative", "Relu6", "Rsqrt", "Mul", "Sub", "AddV2",
                      "Pad", "Mean", "MatMul", "BiasAdd", "Softmax"},
    }


# ----------------------------------------------------------------------------
# Model 3: unet
# ----------------------------------------------------------------------------

def build_unet():
    keras.backend.clear_session()
    L = keras.layers

    def cbr(x, filters, name):
        x = L.Conv2D(filters, 3, padding="same", use_bias=False, name=f"{name}_conv")(x)
        x = L.BatchNormalization(name=f"{name}_bn")(x)
        return L.ReLU(name=f"{name}_relu")(x)

    inp = keras.Input((64, 64, 3), name="input")
    e1 = cbr(cbr(inp, 8, "enc1a"), 8, "enc1b")                                 # 64
    e2 = cbr(cbr(L.MaxPooling2D(2, name="pool1")(e1), 16, "enc2a"), 16, "enc2b")  # 32
    e3 = cbr(cbr(L.MaxPooling2D(2, name="pool2")(e2), 32, "enc3a"), 32, "enc3b")  # 16
    bott = cbr(L.MaxPooling2D(2, name="pool3")(e3), 48, "bottleneck")           # 8
    d3 = L.Conv2DTranspose(32, 2, strides=2, name="up3_convt")(bott)            # 16
    d3 = cbr(L.Concatenate(name="skip3")([d3, e3]), 32, "dec3")
    d2 = L.UpSampling2D(2, interpolation="bilinear", name="up2_bilinear")(d3)   # 32
    d2 = cbr(L.Concatenate(name="skip2")([d2, e2]), 16, "dec2")
    d1 = L.Resizing(64, 64, interpolation="nearest", name="up1_nearest")(d2)    # 64
    d1 = cbr(L.Concatenate(name="skip1")([e1, d1]), 8, "dec1")
    out = L.Conv2D(3, 1, activation="sigmoid", name="head")(d1)
    model = keras.Model(inp, out, name="unet")

    rng = np.random.default_rng(1003)
    keras_randomize(model, rng)
    calib = blocky_images(np.random.default_rng(2003), 8, 64, 64, 3)
    keras_calibrate_bn(model, calib, rng)
    # Head: pre-sigmoid values centred with std ~2 so the sigmoid is not saturated.
    head = model.get_layer("head")
    feats = np.asarray(keras.Model(model.inputs, head.input)([calib], training=False), np.float64)
    k, _ = head.get_weights()
    z = feats.reshape(-1, feats.shape[-1]) @ k[0, 0]
    scale = 2.0 / z.std(0)
    head.set_weights([(k * scale).astype(np.float32),
                      (-z.mean(0) * scale).astype(np.float32)])
    sig = [tf.TensorSpec([None, 64, 64, 3], tf.float32, name="input")]
    gd, frozen = freeze(lambda x: model(x, training=False), sig)
    feeds = {"input": blocky_images(np.random.default_rng(3003), 1, 64, 64, 3)}
    return {
        "graph_def": gd, "frozen": frozen, "signature": sig, "feeds": feeds,
        "labels": ["mask"],
        "description": "Keras U-Net 64x64: Conv2D+BN+ReLU blocks, MaxPool x3, decoder "
                        "Conv2DTranspose (Conv2DBackpropInput, dynamic output shape), "
                        "UpSampling2D bilinear (ResizeBilinear), Resizing nearest "
                        "(ResizeNearestNeighbor), skip ConcatV2, 1x1 Conv2D + Sigmoid (3 channels)",
        "required": {"Conv2D", "Rsqrt", "Relu", "MaxPool", "Conv2DBackpropInput", "ResizeBilinear",
                      "ResizeNearestNeighbor", "ConcatV2", "Sigmoid", "Shape", "StridedSlice", "Pack"},
    }


def build_conv1d():
    """A small Keras Conv1D audio classifier (the layer TF freezes as
    ExpandDims -> Conv2D -> Squeeze; dilated ones through SpaceToBatchND /
    BatchToSpaceND)."""
    keras.backend.clear_session()
    L = keras.layers
    inp = keras.Input((64, 1), name="audio")  # a raw waveform: one channel
    x = L.Conv1D(8, 5, padding="same", activation="relu", name="conv_same")(inp)
    x = L.Conv1D(8, 3, dilation_rate=2, padding="same", activation="relu", name="dilated_same")(x)
    x = L.MaxPooling1D(2, name="pool")(x)
    x = L.Conv1D(12, 3, dilation_rate=3, padding="valid", activation="relu",
                 name="dilated_valid")(x)
    x = L.Conv1D(12, 3, strides=2, padding="valid", name="strided_valid")(x)
    x = L.GlobalAveragePooling1D(name="gap")(x)
    out = L.Dense(5, activation="softmax", name="classes")(x)
    model = keras.Model(inp, out, name="conv1d_audio")

    rng = np.random.default_rng(1017)
    for layer in model.layers:
        ws = layer.get_weights()
        if ws:
            k, b = ws
            fan_in = int(np.prod(k.shape[:-1]))
            layer.set_weights([he(rng, k.shape, fan_in),
                               (0.05 * rng.standard_normal(b.shape)).astype(np.float32)])
    sig = [tf.TensorSpec([None, 64, 1], tf.float32, name="audio")]
    gd, frozen = freeze(lambda x: model(x, training=False), sig)
    feeds = {"audio": np.random.default_rng(3017).standard_normal((2, 64, 1)).astype(np.float32)}
    return {
        "graph_def": gd, "frozen": frozen, "signature": sig, "feeds": feeds,
        "labels": ["probabilities"],
        "description": "Keras Conv1D audio classifier on a waveform [N, 64, 1]: Conv1D same, dilated Conv1D "
                        "same (rate 2) and valid (rate 3), strided valid, MaxPooling1D, "
                        "GlobalAveragePooling1D, Dense + softmax (Conv1D as ExpandDims -> "
                        "Conv2D -> Squeeze; dilated ones with SpaceToBatchND / BatchToSpaceND)",
        "required": {"ExpandDims", "Conv2D", "Squeeze", "MaxPool", "Mean", "MatMul", "Softmax"},
    }


# ----------------------------------------------------------------------------
# Model 4: shapes (shape sub-graphs and layout ops)
# ----------------------------------------------------------------------------

def _shapes_fn(x, y):
    """x: [N,H,W,8] (N,H,W unknown), y: [N,8]."""
    s = tf.shape(x)                                   # Shape (int32)
    n, h, w, c = tf.unstack(s)                        # Unpack of a shape vector
    head = s[:2]                                      # begin_mask
    tail = s[2:]                                      # end_mask
    hw = s[1:3]                                       # plain begin/end
    last = s[-1]                                      # shrink_axis_mask

    # Reshape with a computed shape (Pack) and back (ConcatV2 of shape pieces).
    flat = tf.reshape(x, tf.stack([n, h * w, last]))
    img = tf.reshape(flat * 0.5, tf.concat([head, tail], axis=0))

    # Fill + Tile + ExpandDims with computed dims; new_axis_mask slice of y.
    bias = tf.fill(tf.stack([n, 1, 1, c]), 0.25)
    y4 = tf.tile(tf.expand_dims(y[:, tf.newaxis, :], 1), tf.stack([1, h, w, 1]))
    mixed = img + bias + y4                            # [N,H,W,8]

    # StridedSlices with every mask.
    crop = mixed[:, 1:-1, ::2, :]                      # begin/end masks, stride 2
    ell = mixed[..., 2:6]                              # ellipsis_mask
    rev = x[:, ::-1, :, 3]                             # negative stride + shrink -> [N,H,W]
    nax = x[:, tf.newaxis, 0, 1:, 4:]                  # new_axis + shrink -> [N,1,W-1,4]
    dyn = x[:, : h // 2, w // 4:, :]                   # begin/end from the shape

    # Squeeze / Transpose / Slice / pads.
    chan_sum = tf.squeeze(tf.reduce_sum(crop, axis=[1, 2], keepdims=True), axis=[1, 2])
    nchw = tf.transpose(ell, [0, 3, 1, 2])
    sl = tf.slice(x, [0, 1, 2, 0], tf.stack([-1, h - 2, w - 4, -1]))
    pad0 = tf.pad(sl, [[0, 0], [1, 2], [2, 1], [0, 0]])
    pad1 = tf.pad(sl, [[0, 0], [2, 1], [1, 2], [0, 0]], constant_values=1.5)
    refl = tf.pad(x, [[0, 0], [2, 1], [1, 2], [0, 0]], mode="REFLECT")
    symm = tf.pad(x, [[0, 0], [1, 2], [2, 2], [0, 0]], mode="SYMMETRIC")
    pads = tf.concat([pad0[:, :, :, :3], pad1[:, :, :, :2]], axis=3) \
        + tf.reduce_max(refl) + tf.reduce_max(symm, axis=[1, 2, 3], keepdims=True)

    # Cast both ways, with a shape-derived scalar.
    q = tf.cast(tf.floor(x * 4.0), tf.int32)
    deq = tf.cast(q, tf.float32) / tf.cast(h * w, tf.float32)

    # Space/DepthToSpace.
    s2d = tf.nn.space_to_depth(deq, 2)                 # [N,H/2,W/2,32]
    d2s = tf.nn.depth_to_space(s2d * 2.0 + 1.0, 2)     # [N,H,W,8]
    d2s_small = tf.nn.depth_to_space(x, 2)             # [N,2H,2W,2]

    # Unpack of a feature tensor along channels + Pack.
    u = tf.unstack(x, axis=3)
    unp = tf.stack([u[0] - u[7], u[1] * u[6], u[2] + rev], axis=-1)

    # Resizes with sizes computed from the input shape.
    bil = tf.raw_ops.ResizeBilinear(images=x, size=hw * 2, align_corners=False,
                                    half_pixel_centers=True)
    bil_ac = tf.raw_ops.ResizeBilinear(images=x, size=tf.stack([h + 3, w + 5]),
                                       align_corners=True, half_pixel_centers=False)
    near = tf.raw_ops.ResizeNearestNeighbor(images=x, size=tf.stack([h * 2, w * 3]),
                                            align_corners=False, half_pixel_centers=True)
    near_legacy = tf.raw_ops.ResizeNearestNeighbor(images=x, size=hw // 2 + 1,
                                                   align_corners=False, half_pixel_centers=False)
    return (mixed, crop, nax, dyn, chan_sum, nchw, pads, d2s, d2s_small, unp,
            bil, bil_ac, near, near_legacy, q, tf.stack([n, h * w, c]))


SHAPES_LABELS = ["mixed", "crop", "new_axis_slice", "dynamic_slice", "channel_sum", "nchw",
                 "pads", "depth_to_space_roundtrip", "depth_to_space", "unpack_pack",
                 "resize_bilinear_x2", "resize_bilinear_align_corners", "resize_nearest_2x3",
                 "resize_nearest_legacy_down", "cast_int32", "computed_shape"]


def build_shapes():
    sig = [tf.TensorSpec([None, None, None, 8], tf.float32, name="x"),
           tf.TensorSpec([None, 8], tf.float32, name="y")]
    gd, frozen = freeze(_shapes_fn, sig)
    rng = np.random.default_rng(3004)
    feeds = {"x": rng.standard_normal((2, 12, 16, 8)).astype(np.float32),
             "y": rng.standard_normal((2, 8)).astype(np.float32)}
    return {
        "graph_def": gd, "frozen": frozen, "signature": sig, "feeds": feeds,
        "labels": SHAPES_LABELS,
        "description": "shape sub-graphs with unknown N/H/W: Shape, Unpack/Pack, StridedSlice "
                        "with every mask, Reshape/Fill/Tile/Slice with computed shapes, "
                        "ExpandDims, Squeeze, Transpose, Pad/PadV2/MirrorPad, Cast, "
                        "Space/DepthToSpace, ResizeBilinear/NearestNeighbor with computed sizes",
        "required": {"Shape", "StridedSlice", "Pack", "Unpack", "Reshape", "Fill", "Tile",
                      "ExpandDims", "Squeeze", "Transpose", "Slice", "Pad", "PadV2", "MirrorPad",
                      "Cast", "SpaceToDepth", "DepthToSpace", "Sum", "Max", "ConcatV2",
                      "ResizeBilinear", "ResizeNearestNeighbor", "FloorDiv", "RealDiv"},
        "strided_slice_masks": {"begin_mask", "end_mask", "ellipsis_mask", "new_axis_mask",
                                "shrink_axis_mask"},
        "mirror_pad_modes": {b"REFLECT", b"SYMMETRIC"},
    }


# ----------------------------------------------------------------------------
# Model 5: ops (reductions, batched matmul, elementwise math)
# ----------------------------------------------------------------------------

def _make_ops_fn():
    wrng = np.random.default_rng(1005)
    w_proj = tf.constant((wrng.standard_normal((12, 6)) / np.sqrt(12)).astype(np.float32))

    def fn(a, b):
        """a: [N,S,12], b: [N,12,7]."""
        mm = tf.matmul(a, b)                               # BatchMatMulV2 [N,S,7]
        att = tf.matmul(a, a, transpose_b=True) / 12.0      # adj_y, RealDiv by scalar
        proj = tf.matmul(a, w_proj)                        # broadcast against rank-2 weight
        # layer-norm style normalisation
        mean = tf.reduce_mean(a, axis=-1, keepdims=True)
        d = a - mean                                       # Sub
        var = tf.reduce_mean(tf.square(d), axis=-1, keepdims=True)
        ln = d * tf.math.rsqrt(var + 1e-5)                 # Rsqrt
        # elementwise zoo on safe domains
        soft = a / (1.0 + tf.abs(a))                       # RealDiv, Abs
        root = tf.sqrt(tf.square(a) + 1.0)                 # Sqrt, Square
        pw = tf.pow(tf.sigmoid(a) + 0.5, 1.5)              # Pow, Sigmoid
        pw2 = tf.pow(tf.exp(0.3 * a), tf.tanh(a))          # Pow with tensor exponent
        clamp = tf.minimum(tf.maximum(a, -0.5), 0.75)      # Maximum, Minimum
        act = tf.nn.elu(a) + tf.tanh(a) - tf.sigmoid(-a)   # Elu, Tanh, Neg
        logs = tf.math.log(1.0 + tf.square(a))             # Log
        ew = soft + root + pw + pw2 + clamp + act + logs
        red_sum = tf.reduce_sum(ew, axis=1)                # Sum over S -> [N,12]
        red_max = tf.reduce_max(mm, axis=[1, 2])           # Max -> [N]
        mx = tf.maximum(mm, tf.reduce_max(b, axis=1, keepdims=True))  # broadcast Maximum
        return ln, att, proj, ew, red_sum, red_max, mx

    return fn


OPS_LABELS = ["layer_norm", "a_at", "projection", "elementwise", "reduce_sum", "reduce_max",
              "broadcast_maximum"]


def build_ops():
    sig = [tf.TensorSpec([None, None, 12], tf.float32, name="a"),
           tf.TensorSpec([None, 12, 7], tf.float32, name="b")]
    gd, frozen = freeze(_make_ops_fn(), sig)
    rng = np.random.default_rng(3005)
    feeds = {"a": rng.standard_normal((3, 5, 12)).astype(np.float32),
             "b": rng.uniform(-1.0, 1.0, (3, 12, 7)).astype(np.float32)}
    return {
        "graph_def": gd, "frozen": frozen, "signature": sig, "feeds": feeds,
        "labels": OPS_LABELS,
        "description": "math ops with unknown batch/sequence: BatchMatMulV2 (plain, adj_y, "
                        "broadcast), Mean/Sum/Max, Sub/RealDiv/Rsqrt/Sqrt/Square/Pow/Maximum/"
                        "Minimum/Elu/Sigmoid/Tanh/Abs/Exp/Log/Neg",
        "required": {"BatchMatMulV2", "Sum", "Max", "Mean", "Sub", "RealDiv", "Rsqrt", "Sqrt",
                      "Square", "Pow", "Maximum", "Minimum", "Elu", "Sigmoid", "Tanh", "Abs",
                      "Exp", "Log", "Neg", "AddV2", "Mul"},
    }


# ----------------------------------------------------------------------------
# Model 6: fft_mri (the Custom Operations Guide's MRI-reconstruction ending)
# ----------------------------------------------------------------------------

def _make_fft_mri_fn():
    wrng = np.random.default_rng(1006)
    c = lambda a: tf.constant(a.astype(np.float32))
    w1, b1 = c(he(wrng, (3, 3, 2, 16), 18)), c(0.05 * wrng.standard_normal(16))
    w2, b2 = c(he(wrng, (3, 3, 16, 16), 144)), c(0.05 * wrng.standard_normal(16))
    w3, b3 = c(0.1 * he(wrng, (3, 3, 16, 2), 144)), c(0.01 * wrng.standard_normal(2))

    def fn(kspace):
        """kspace: [N,H,W,2] (real, imaginary) -> image magnitude [N,H,W]."""
        h = tf.nn.relu(tf.nn.bias_add(tf.nn.conv2d(kspace, w1, 1, "SAME"), b1))
        h = tf.nn.relu(tf.nn.bias_add(tf.nn.conv2d(h, w2, 1, "SAME"), b2))
        h = tf.nn.bias_add(tf.nn.conv2d(h, w3, 1, "SAME"), b3)
        k = kspace + h                                   # residual k-space correction
        z = tf.complex(k[..., 0], k[..., 1])             # StridedSlice x2 -> Complex
        img = tf.signal.ifft2d(z)                        # IFFT2D
        return tf.abs(img)                               # ComplexAbs

    return fn


def build_fft_mri():
    sig = [tf.TensorSpec([None, 64, 64, 2], tf.float32, name="kspace")]
    gd, frozen = freeze(_make_fft_mri_fn(), sig)
    rng = np.random.default_rng(3006)
    # k-space of blocky images: energy concentrated at low frequencies
    img = blocky_images(rng, 2, 64, 64, 1)[..., 0].astype(np.float64)
    k = np.fft.fft2(img) / 64.0
    feeds = {"kspace": np.stack([k.real, k.imag], axis=-1).astype(np.float32)}
    return {
        "graph_def": gd, "frozen": frozen, "signature": sig, "feeds": feeds,
        "labels": ["magnitude"],
        "description": "MRI-reconstruction-style network (the Custom Operations Guide's "
                        "model): Conv2D/BiasAdd/Relu on k-space [N,64,64,2], residual AddV2, "
                        "StridedSlice [...,0] / [...,1] -> Complex -> IFFT2D -> ComplexAbs",
        "required": {"Conv2D", "BiasAdd", "Relu", "AddV2", "StridedSlice", "Complex",
                      "IFFT2D", "ComplexAbs"},
        # converts only with this extension folder (tests/test_fft_extension.py)
        "extensions": ["examples/fft_extension"],
    }


# ----------------------------------------------------------------------------
# Model 7: more_ops (ops beyond the basic set, on realistic shapes)
# ----------------------------------------------------------------------------

def _make_more_ops_fn():
    scatter_rows = tf.constant([[1], [4], [1], [0]], tf.int32)            # row 1 twice
    upd_at = tf.constant([[0, 2], [1, 7]], tf.int32)                       # (batch, step)
    add_at = tf.constant([[0, 2], [1, 7], [0, 2]], tf.int32)               # (0, 2) twice
    crop_boxes = tf.constant([[0.1, 0.2, 0.7, 0.9],
                              [0.6, 0.7, 0.2, 0.1],                       # flipped corners
                              [-0.2, 0.3, 0.6, 1.3],                      # partly outside
                              [0.0, 0.0, 1.0, 1.0],
                              [0.33, 0.25, 0.34, 0.75]], tf.float32)      # thin
    crop_ind = tf.constant([0, 1, 1, 0, 1], tf.int32)

    def fn(image, seq, boxes, scores, segment_ids, unsorted_ids, atan_y, atan_x):
        """image [N,16,16,3], seq [N,10,12], boxes [B,4], scores [B],
        segment_ids [10] (sorted, for the rows of seq[0]), unsorted_ids [N,10],
        atan_y / atan_x [N,24] (every quadrant, +-0 on both sides)."""
        # Atan2 of inputs: OpenVINO's CPU plugin does not keep the sign of a
        # zero its fused elementwise chains compute, so the zeros are fed
        at = tf.math.atan2(atan_y, atan_x)
        # Cumprod of values near 1
        v = 1.0 + 0.2 * seq
        cp = tf.math.cumprod(v, axis=1)
        cp_er = tf.math.cumprod(v, axis=2, exclusive=True, reverse=True)
        cp_e = tf.math.cumprod(v, axis=-1, exclusive=True)
        rl = tf.roll(seq, shift=[3, -5], axis=[1, 2])
        sn = tf.scatter_nd(scatter_rows, seq[0, :4, :], shape=[6, 12])
        tsu = tf.tensor_scatter_nd_update(seq, upd_at, 10.0 * seq[0, :2, :])
        tsa = tf.tensor_scatter_nd_add(seq, add_at, seq[1, :3, :])
        rb_half = tf.raw_ops.ResizeBicubic(images=image, size=[24, 20], half_pixel_centers=True)
        rb_align = tf.raw_ops.ResizeBicubic(images=image, size=[23, 9], align_corners=True)
        rb_legacy = tf.raw_ops.ResizeBicubic(images=image, size=[11, 30])
        bp_low = tf.linalg.band_part(seq, 2, -1)
        bp_band = tf.linalg.band_part(seq, 1, 3)
        bk = tf.raw_ops.Bucketize(input=tf.round(seq * 2.0) / 2.0,
                                  boundaries=[-1.0, -0.5, 0.0, 0.5, 1.5])
        ss = tf.math.segment_sum(seq[0], segment_ids)
        us = tf.math.unsorted_segment_sum(seq, unsorted_ids, num_segments=7)
        um = tf.math.unsorted_segment_max(seq, unsorted_ids, num_segments=7)
        nms3 = tf.raw_ops.NonMaxSuppressionV3(boxes=boxes, scores=scores, max_output_size=10,
                                              iou_threshold=0.5, score_threshold=0.1)
        nms4, valid4 = tf.raw_ops.NonMaxSuppressionV4(
            boxes=boxes, scores=scores, max_output_size=12, iou_threshold=0.4,
            score_threshold=0.0, pad_to_max_output_size=True)
        nms5, nms5_scores, valid5 = tf.raw_ops.NonMaxSuppressionV5(
            boxes=boxes, scores=scores, max_output_size=8, iou_threshold=0.5,
            score_threshold=0.2, soft_nms_sigma=0.3, pad_to_max_output_size=False)
        cr = tf.image.crop_and_resize(image, crop_boxes, crop_ind, [7, 9])
        crn = tf.image.crop_and_resize(image, crop_boxes, crop_ind, [5, 1], method="nearest",
                                       extrapolation_value=-1.0)
        return (at, cp, cp_er, cp_e, rl, sn, tsu, tsa, rb_half, rb_align, rb_legacy, bp_low,
                bp_band, bk, ss, us, um, nms3, nms4, valid4, nms5, nms5_scores, valid5, cr, crn)

    return fn


MORE_OPS_LABELS = ["atan2", "cumprod", "cumprod_exclusive_reverse", "cumprod_exclusive", "roll",
                   "scatter_nd", "tensor_scatter_update", "tensor_scatter_add",
                   "resize_bicubic_half_pixel", "resize_bicubic_align_corners",
                   "resize_bicubic_legacy", "band_part_lower", "band_part_band", "bucketize",
                   "segment_sum", "unsorted_segment_sum", "unsorted_segment_max", "nms_v3",
                   "nms_v4_padded", "nms_v4_valid", "nms_v5_soft", "nms_v5_scores",
                   "nms_v5_valid", "crop_and_resize", "crop_and_resize_nearest"]


def _nms_boxes(rng: np.random.Generator, n: int) -> np.ndarray:
    """Overlapping boxes (y1, x1, y2, x2) in the unit square, some corners swapped."""
    c = rng.uniform(0.2, 0.8, (n, 2))
    half = rng.uniform(0.05, 0.2, (n, 2))
    b = np.concatenate([c - half, c + half], axis=1)
    swap = rng.random(n) < 0.25
    b[swap] = b[swap][:, [2, 3, 0, 1]]
    return b.astype(np.float32)


def _atan2_args(rng: np.random.Generator, n: int, k: int) -> tuple[np.ndarray, np.ndarray]:
    """(y, x) of shape [n, k]: every pairing of +0, -0, a negative and a positive
    value on both sides first (16 pairs), then normal values with zeros."""
    edge = [0.0, -0.0, -1.5, 0.75]
    pairs = np.array([(y, x) for y in edge for x in edge])
    v = rng.standard_normal((n * k, 2))
    zero = rng.random((n * k, 2)) < 0.2
    v[zero] = np.where(rng.random((n * k, 2)) < 0.5, 0.0, -0.0)[zero]
    v[: len(pairs)] = pairs
    v = v.astype(np.float32)
    return v[:, 0].reshape(n, k), v[:, 1].reshape(n, k)


def build_more_ops():
    sig = [tf.TensorSpec([None, 16, 16, 3], tf.float32, name="image"),
           tf.TensorSpec([None, 10, 12], tf.float32, name="seq"),
           tf.TensorSpec([None, 4], tf.float32, name="boxes"),
           tf.TensorSpec([None], tf.float32, name="scores"),
           tf.TensorSpec([10], tf.int32, name="segment_ids"),
           tf.TensorSpec([None, 10], tf.int32, name="unsorted_ids"),
           tf.TensorSpec([None, 24], tf.float32, name="atan_y"),
           tf.TensorSpec([None, 24], tf.float32, name="atan_x")]
    gd, frozen = freeze(_make_more_ops_fn(), sig)
    rng = np.random.default_rng(3007)
    atan_y, atan_x = _atan2_args(rng, 2, 24)
    feeds = {
        "image": blocky_images(rng, 2, 16, 16, 3),
        "seq": rng.standard_normal((2, 10, 12)).astype(np.float32),
        "boxes": _nms_boxes(rng, 40),
        "scores": rng.uniform(0.0, 1.0, 40).astype(np.float32),
        # segments 2 and 5 are empty
        "segment_ids": np.array([0, 0, 1, 1, 1, 3, 4, 4, 6, 6], np.int32),
        # -1 drops a row; segment 6 is empty
        "unsorted_ids": rng.integers(-1, 6, (2, 10)).astype(np.int32),
        "atan_y": atan_y,
        "atan_x": atan_x,
    }
    return {
        "graph_def": gd, "frozen": frozen, "signature": sig, "feeds": feeds,
        "labels": MORE_OPS_LABELS,
        "description": "ops beyond the basic set: Atan2 (signed zeros), Cumprod (exclusive, "
                        "reverse), Roll, ScatterNd, TensorScatterUpdate/Add, ResizeBicubic "
                        "(half-pixel, align-corners, legacy), MatrixBandPart, Bucketize, "
                        "SegmentSum, UnsortedSegmentSum/Max, NonMaxSuppressionV3/V4/V5 (soft), "
                        "CropAndResize (bilinear, nearest with extrapolation)",
        # OpenVINO 2026.4's TF frontend refuses the graph (tests/test_tf_models.py checks it)
        "openvino_unsupported": ["CropAndResize", "Cumprod", "ResizeBicubic"],
        "required": {"Atan2", "Cumprod", "Roll", "ScatterNd", "TensorScatterUpdate",
                      "TensorScatterAdd", "ResizeBicubic", "MatrixBandPart", "Bucketize",
                      "SegmentSum", "UnsortedSegmentSum", "UnsortedSegmentMax",
                      "NonMaxSuppressionV3", "NonMaxSuppressionV4", "NonMaxSuppressionV5",
                      "CropAndResize"},
    }


# ----------------------------------------------------------------------------
# Model 8: cond (TF1 control flow on a learning phase, frozen to Switch / Merge)
# ----------------------------------------------------------------------------

def _make_cond_fn():
    wrng = np.random.default_rng(1008)
    w1 = tf.constant(he(wrng, (8, 16), 8))
    b1 = tf.constant((0.05 * wrng.standard_normal(16)).astype(np.float32))
    moving_mean = tf.constant((0.3 * wrng.standard_normal(16)).astype(np.float32))
    moving_var = tf.constant(wrng.uniform(0.5, 1.5, 16).astype(np.float32))
    w2 = tf.constant(he(wrng, (16, 4), 16))

    def fn(x):
        """x: [N,8]; the learning phase defaults to False (inference)."""
        training = tf.raw_ops.PlaceholderWithDefault(
            input=tf.constant(False), shape=[], name="keras_learning_phase")
        h = tf.nn.relu(tf.matmul(x, w1) + b1)
        h = tf.cond(training, lambda: tf.nn.dropout(h, 0.5, seed=7), lambda: tf.identity(h))
        mean, var = tf.cond(training, lambda: tf.nn.moments(h, [0]),
                            lambda: (tf.identity(moving_mean), tf.identity(moving_var)))
        h = (h - mean) * tf.math.rsqrt(var + 1e-3)
        # nested: a constant predicate around one on the learning phase; the
        # branches are bare constants (they hang on the pivots by control edges)
        scale = tf.cond(tf.constant(True),
                        lambda: tf.cond(tf.logical_not(training), lambda: tf.constant(2.0),
                                        lambda: tf.constant(0.5)),
                        lambda: tf.constant(-1.0))
        return tf.nn.softmax(tf.matmul(h, w2) * scale)

    return fn


def build_cond():
    sig = [tf.TensorSpec([None, 8], tf.float32, name="x")]
    gd, frozen = freeze(_make_cond_fn(), sig, allow={"Switch", "Merge"})
    rng = np.random.default_rng(3008)
    feeds = {"x": rng.standard_normal((4, 8)).astype(np.float32)}
    return {
        "graph_def": gd, "frozen": frozen, "signature": sig, "feeds": feeds,
        "labels": ["probabilities"],
        "description": "TF1-style training switch frozen with lower_control_flow: tf.cond on a "
                        "PlaceholderWithDefault(False) learning phase (dropout with RandomUniform "
                        "and batch moments in the untaken branches), a nested tf.cond on a "
                        "constant whose branches are bare constants; Switch / Merge",
        "openvino_unsupported": ["Merge"],
        "required": {"Switch", "Merge", "PlaceholderWithDefault", "RandomUniform", "MatMul",
                      "Softmax", "LogicalNot"},
    }


# ----------------------------------------------------------------------------
# Models 9-: control flow decided at run time, each frozen both ways
# ----------------------------------------------------------------------------
# ``<name>`` is frozen with lower_control_flow=True (TF1 frames: Enter / Merge /
# Switch / LoopCond / NextIteration / Exit around the TensorList ops),
# ``<name>_functional`` with lower_control_flow=False (While / StatelessWhile /
# StatelessIf whose bodies are FunctionDefs of the GraphDef's library).

#: op types a frozen TF1 while loop / cond keeps
TF1_LOOP_OPS = frozenset({"Enter", "Exit", "Merge", "Switch", "NextIteration"})
TF1_COND_OPS = frozenset({"Switch", "Merge"})
#: op types a functional (lower_control_flow=False) graph keeps
FUNCTIONAL_OPS = frozenset({"While", "StatelessWhile", "If", "StatelessIf"})


def _freeze_both(fn, sig, functional: bool, tf1_ops=TF1_LOOP_OPS):
    gd, frozen = freeze(fn, sig, allow=FUNCTIONAL_OPS if functional else tf1_ops,
                        functional=functional)
    if not functional:
        # lowering lists the nodes in an order, and marks a set of them with
        # _has_manual_control_dependencies, that change from run to run: the
        # mark goes (xmo and OpenVINO ignore it), the signature's Placeholders
        # come first, then the nodes by name
        for n in gd.node:
            if "_has_manual_control_dependencies" in n.attr:
                del n.attr["_has_manual_control_dependencies"]
        order = {spec.name: i for i, spec in enumerate(sig)}
        nodes = sorted(gd.node, key=lambda n: (0, order[n.name], "") if n.name in order
                       else (1, 0, n.name))
        copies = [type(n)() for n in nodes]
        for c, n in zip(copies, nodes):
            c.CopyFrom(n)
        del gd.node[:]
        gd.node.extend(copies)
    return gd, frozen


def _mode_text(functional: bool) -> str:
    return ("frozen with lower_control_flow=False: functional While + TensorList ops, bodies "
            "in the function library" if functional else
            "frozen with lower_control_flow=True: TF1 frames (Enter/Merge/Switch/LoopCond/"
            "NextIteration/Exit) around TensorList ops")


def _keras_rnn(functional: bool, seed: int, time: int, feats: int, layers, what: str,
               label: str, batch: int = 3):
    """A Keras model ``x [N, time, feats] -> layers`` with seeded weights."""
    keras.backend.clear_session()
    inp = keras.Input((time, feats), name="x")
    y = inp
    for layer in layers():
        y = layer(y)
    model = keras.Model(inp, y)
    rng = np.random.default_rng(seed)
    keras_randomize(model, rng)
    sig = [tf.TensorSpec([None, time, feats], tf.float32, name="x")]
    gd, frozen = _freeze_both(lambda x: model(x, training=False), sig, functional)
    feeds = {"x": np.random.default_rng(seed + 2000).standard_normal(
        (batch, time, feats)).astype(np.float32)}
    required = {"TensorListFromTensor", "TensorListReserve", "TensorListStack"}
    required |= {"While"} if functional else {"Enter", "Exit", "Merge", "Switch",
                                               "NextIteration", "LoopCond", "TensorListGetItem",
                                               "TensorListSetItem"}
    return {
        "graph_def": gd, "frozen": frozen, "signature": sig, "feeds": feeds,
        "labels": [label],
        "description": f"Keras {what} (unroll=False), x [N,{time},{feats}]; {_mode_text(functional)}",
        "required": required,
        "functional": functional,
    }


def _rnn_builder(seed, time, feats, layers, what, label):
    def build(functional: bool):
        return _keras_rnn(functional, seed, time, feats, layers, what, label)
    return build


_RNNS = {
    "lstm": _rnn_builder(1009, 6, 5, lambda: [keras.layers.LSTM(8)], "LSTM(8)", "last_output"),
    "gru": _rnn_builder(1010, 7, 4, lambda: [keras.layers.GRU(6)], "GRU(6), reset_after",
                        "last_output"),
    "gru_seq": _rnn_builder(1011, 5, 3, lambda: [keras.layers.GRU(4, return_sequences=True)],
                            "GRU(4, return_sequences=True)", "sequence"),
    "simple_rnn": _rnn_builder(1012, 6, 8, lambda: [keras.layers.SimpleRNN(10)],
                               "SimpleRNN(10)", "last_output"),
    "bilstm": _rnn_builder(1013, 5, 4, lambda: [keras.layers.Bidirectional(keras.layers.LSTM(6))],
                           "Bidirectional(LSTM(6)), concatenated (the backward loop reads the "
                           "reversed sequence)", "last_outputs"),
    "stacked_lstm": _rnn_builder(
        1014, 7, 6, lambda: [keras.layers.LSTM(12, return_sequences=True), keras.layers.LSTM(16)],
        "LSTM(12, return_sequences=True) -> LSTM(16)", "last_output"),
}


def _make_while_fn():
    wrng = np.random.default_rng(1015)
    w = tf.constant((0.5 * wrng.standard_normal((4, 4))).astype(np.float32))

    def fn(x, threshold):
        """x [N,4], threshold []: shrink x while its norm is above the threshold;
        the number of steps depends on the data. Also collects the norms in a
        TensorArray of dynamic size."""
        norms = tf.TensorArray(tf.float32, size=0, dynamic_size=True)

        def body(i, x, norms):
            x = 0.7 * x + 0.1 * tf.tanh(tf.matmul(x, w))
            return i + 1, x, norms.write(i, tf.norm(x))

        i, x, norms = tf.while_loop(lambda i, x, norms: tf.norm(x) > threshold, body,
                                    [tf.constant(0), x, norms])
        return x, i, norms.stack()

    return fn


def build_while_loop(functional: bool):
    sig = [tf.TensorSpec([None, 4], tf.float32, name="x"),
           tf.TensorSpec([], tf.float32, name="threshold")]
    gd, frozen = _freeze_both(_make_while_fn(), sig, functional)
    rng = np.random.default_rng(3015)
    feeds = {"x": rng.standard_normal((3, 4)).astype(np.float32),
             "threshold": np.asarray(0.3, np.float32)}
    required = {"TensorListReserve", "TensorListStack", "Greater"}
    required |= {"StatelessWhile"} if functional else {"Enter", "LoopCond", "TensorListSetItem"}
    return {
        "graph_def": gd, "frozen": frozen, "signature": sig, "feeds": feeds,
        "labels": ["x", "steps", "norms"],
        "description": "tf.while_loop with a data-dependent trip count: while norm(x) > "
                        "threshold (an input): x = 0.7 x + 0.1 tanh(x W), counting the steps "
                        "and writing each norm to a dynamic-size TensorArray; "
                        + _mode_text(functional),
        "required": required,
        "functional": functional,
    }


def _make_cond_runtime_fn():
    wrng = np.random.default_rng(1016)
    w = tf.constant((0.5 * wrng.standard_normal((4, 4))).astype(np.float32))

    def fn(x, threshold):
        """x [N,4], threshold []: the branch depends on the data; the second
        output has another width in each branch."""
        pred = tf.reduce_sum(x) > threshold
        a, b = tf.cond(pred,
                       lambda: (tf.nn.relu(tf.matmul(x, w)), x[:, :2] * 3.0),
                       lambda: (tf.sigmoid(x) * 2.0, x[:, 1:] - 1.0))
        return a, b

    return fn


def build_cond_runtime(functional: bool):
    sig = [tf.TensorSpec([None, 4], tf.float32, name="x"),
           tf.TensorSpec([], tf.float32, name="threshold")]
    gd, frozen = _freeze_both(_make_cond_runtime_fn(), sig, functional, TF1_COND_OPS)
    rng = np.random.default_rng(3016)
    feeds = {"x": rng.standard_normal((3, 4)).astype(np.float32),
             "threshold": np.asarray(-0.5, np.float32)}
    return {
        "graph_def": gd, "frozen": frozen, "signature": sig, "feeds": feeds,
        "labels": ["same_shape", "shape_differs"],
        "description": "tf.cond on a predicate known at run time (sum(x) > threshold, an input), "
                        "branch outputs of the same and of different widths; "
                        + ("frozen with lower_control_flow=False: StatelessIf, branches in the "
                           "function library" if functional else
                           "frozen with lower_control_flow=True: Switch / Merge"),
        "required": {"StatelessIf"} if functional else {"Switch", "Merge"},
        "functional": functional,
    }


class _GraphFunction:
    """A GraphDef as ``write_model`` wants its traced function: ``outputs``
    (tensors with a ``name``) and a call running the GraphDef."""

    def __init__(self, gd, signature, outputs: list[str]) -> None:
        self.gd = gd
        self.signature = signature
        self.outputs = [type("T", (), {"name": o})() for o in outputs]

    def __call__(self, *args):
        feeds = {s.name: np.asarray(a) for s, a in zip(self.signature, args)}
        return run_graph_def(self.gd, feeds, [o.name for o in self.outputs])


def build_tf1_rnn():
    """A TF1 graph (control flow v1, as TensorFlow 1 wrote frozen graphs): a
    tanh RNN in a tf.compat.v1.while_loop over TensorArrays -- TensorArrayV3,
    the input unstacked (TensorArrayScatterV3), read per step
    (TensorArrayReadV3), the outputs written (TensorArrayWriteV3) and
    stacked (TensorArrayGatherV3)."""
    tf.compat.v1.disable_control_flow_v2()
    wrng = np.random.default_rng(1017)
    g = tf.Graph()
    with g.as_default():
        x = tf.compat.v1.placeholder(tf.float32, [None, 6, 4], name="x")
        w = tf.constant((0.6 * wrng.standard_normal((4, 5))).astype(np.float32))
        u = tf.constant((0.4 * wrng.standard_normal((5, 5))).astype(np.float32))
        xs = tf.TensorArray(tf.float32, size=6).unstack(tf.transpose(x, [1, 0, 2]))
        ys = tf.TensorArray(tf.float32, size=6)
        h0 = tf.zeros_like(tf.matmul(x[:, 0, :], w))

        def body(t, h, ys):
            h = tf.tanh(tf.matmul(xs.read(t), w) + tf.matmul(h, u))
            return t + 1, h, ys.write(t, h)

        _, h, ys = tf.compat.v1.while_loop(lambda t, h, ys: t < 6, body, [tf.constant(0), h0, ys])
        tf.identity(tf.transpose(ys.stack(), [1, 0, 2]), name="sequence")
        tf.identity(h, name="last")
        gd = g.as_graph_def()
    sig = [tf.TensorSpec([None, 6, 4], tf.float32, name="x")]
    feeds = {"x": np.random.default_rng(3017).standard_normal((3, 6, 4)).astype(np.float32)}
    return {
        "graph_def": gd, "frozen": _GraphFunction(gd, sig, ["sequence:0", "last:0"]),
        "signature": sig, "feeds": feeds,
        "labels": ["sequence", "last"],
        "description": "a TF1 graph (control flow v1): a tanh RNN in a while loop over "
                        "TensorArrays (TensorArrayV3, ScatterV3 unstacking x, ReadV3 per step, "
                        "WriteV3 of each output, GatherV3 stacking them) in Enter/Merge/Switch/"
                        "LoopCond/NextIteration/Exit frames",
        "required": {"TensorArrayV3", "TensorArrayScatterV3", "TensorArrayReadV3",
                      "TensorArrayWriteV3", "TensorArrayGatherV3", "Enter", "Exit", "LoopCond"},
        "functional": False,
    }


def _both(build):
    return {"": lambda: build(False), "_functional": lambda: build(True)}


CONTROL_FLOW_BUILDERS = {
    f"{name}{suffix}": b
    for name, build in [*_RNNS.items(), ("while_loop", build_while_loop),
                        ("cond_runtime", build_cond_runtime)]
    for suffix, b in _both(build).items()
}
CONTROL_FLOW_BUILDERS["tf1_rnn"] = build_tf1_rnn


BUILDERS = {
    "cnn": build_cnn,
    "mobilenetv2": build_mobilenetv2,
    "unet": build_unet,
    "conv1d": build_conv1d,
    "shapes": build_shapes,
    "ops": build_ops,
    "fft_mri": build_fft_mri,
    "more_ops": build_more_ops,
    "cond": build_cond,
    **CONTROL_FLOW_BUILDERS,
}
TEXT_MODELS = {"shapes"}


# ----------------------------------------------------------------------------
# Checks and writing
# ----------------------------------------------------------------------------

def check_coverage(name: str, spec: dict, hist: collections.Counter) -> None:
    gd = spec["graph_def"]
    missing = sorted(spec["required"] - set(hist))
    if missing:
        raise RuntimeError(f"{name}: op types missing from the frozen graph: {missing}")
    if "strided_slice_masks" in spec:
        seen = {m for n in gd.node if n.op == "StridedSlice"
                for m in spec["strided_slice_masks"] if n.attr[m].i}
        lacking = sorted(spec["strided_slice_masks"] - seen)
        if lacking:
            raise RuntimeError(f"{name}: no StridedSlice uses {lacking}")
    if "mirror_pad_modes" in spec:
        modes = {n.attr["mode"].s for n in gd.node if n.op == "MirrorPad"}
        if spec["mirror_pad_modes"] - modes:
            raise RuntimeError(f"{name}: MirrorPad modes seen {modes}")


def check_outputs(name: str, outs: list[np.ndarray], labels: list[str]) -> None:
    for arr, label in zip(outs, labels):
        if arr.dtype.kind == "f" and not np.isfinite(arr).all():
            raise RuntimeError(f"{name}/{label}: non-finite reference values")
    if name in ("cnn", "mobilenetv2"):
        p = outs[0]
        print(f"  probabilities: max per sample {np.round(p.max(1), 3).tolist()}, "
              f"argmax {p.argmax(1).tolist()}, max |p0-p1| {np.abs(p[0] - p[1]).max():.3f}")
        if p.max() < 0.2 or np.abs(p[0] - p[1]).max() < 0.05:
            raise RuntimeError(f"{name}: softmax output is too flat")
    if name in CONTROL_FLOW_BUILDERS:
        for arr, label in zip(outs, labels):
            a = np.asarray(arr, np.float64)
            print(f"  {label}: shape {list(a.shape)} mean {a.mean():.3f} std {a.std():.3f} "
                  f"max|.| {np.abs(a).max():.3f}")
    if name == "unet":
        m = outs[0]
        print(f"  mask: mean {m.mean():.3f} std {m.std():.3f} per-channel mean "
              f"{np.round(m.mean((0, 1, 2)), 3).tolist()}")


def _histogram(nodes) -> dict[str, int]:
    hist = collections.Counter(n.op for n in nodes)
    return dict(sorted(hist.items(), key=lambda kv: (-kv[1], kv[0])))


def write_model(out: Path, name: str, spec: dict, max_bytes: int | None = MAX_BYTES) -> dict:
    from google.protobuf import text_format

    gd = spec["graph_def"]
    frozen = spec["frozen"]
    hist = collections.Counter(n.op for n in gd.node)
    hist.update(n.op for f in gd.library.function for n in f.node_def)
    check_coverage(name, spec, hist)

    out_names = [t.name for t in frozen.outputs]
    feeds = spec["feeds"]
    ref = run_graph_def(gd, feeds, out_names)
    # The frozen function itself must agree with the GraphDef run.
    direct = frozen(*[tf.constant(feeds[s.name]) for s in spec["signature"]])
    direct = direct if isinstance(direct, (list, tuple)) else [direct]
    for r, d, t in zip(ref, direct, out_names):
        diff = np.abs(r.astype(np.float64) - np.asarray(d, np.float64)).max() if r.size else 0.0
        if diff > 1e-4:
            raise RuntimeError(f"{name}: {t} differs between Session and eager ({diff})")
    check_outputs(name, ref, spec["labels"])

    blob = gd.SerializeToString(deterministic=True)
    if max_bytes is not None and len(blob) > max_bytes:
        raise RuntimeError(f"{name}.pb is {len(blob)} bytes (> {max_bytes})")
    (out / f"{name}.pb").write_bytes(blob)
    entry = {"file": f"{name}.pb"}
    if name in TEXT_MODELS:
        text = text_format.MessageToString(gd)
        back = type(gd)()
        text_format.Parse(text, back)
        assert back == gd, "pbtxt round trip changed the graph"
        (out / f"{name}.pbtxt").write_text(text)
        entry["text_file"] = f"{name}.pbtxt"
    save_npz(out / f"{name}.inputs.npz", feeds)
    save_npz(out / f"{name}.outputs.npz", dict(zip(out_names, ref)))

    entry.update({
        "description": spec["description"],
        "inputs_file": f"{name}.inputs.npz",
        "outputs_file": f"{name}.outputs.npz",
        "inputs": [{
            "name": s.name,
            "dtype": s.dtype.name,
            "shape": [-1 if d is None else d for d in s.shape.as_list()],
            "fed_shape": list(feeds[s.name].shape),
        } for s in spec["signature"]],
        "outputs": [{
            "name": t,
            "label": label,
            "dtype": str(r.dtype),
            "shape": list(r.shape),
        } for t, label, r in zip(out_names, spec["labels"], ref)],
        **({"extensions": spec["extensions"]} if "extensions" in spec else {}),
        **({"openvino_unsupported": spec["openvino_unsupported"]}
           if "openvino_unsupported" in spec else {}),
        **({"lower_control_flow": not spec["functional"]} if "functional" in spec else {}),
        "node_count": len(gd.node),
        "op_histogram": _histogram(gd.node),
        **({"functions": {f.signature.name: {"node_count": len(f.node_def),
                                             "op_histogram": _histogram(f.node_def)}
                          for f in gd.library.function}} if len(gd.library.function) else {}),
        "bytes": len(blob),
    })
    assert len(spec["labels"]) == len(out_names), (name, out_names)
    return entry


#: manifest keys kept from the previous manifest when a model is rebuilt: the
#: OpenVINO record (``tools/check_tf_fixtures_openvino.py --record``; rerun it
#: after changing a fixture) and the marks of fixtures xmo cannot convert
#: (``xmo_pending``) or load (``xmo_load_pending``) yet, which the tests honour
#: with strict xfails
KEPT_KEYS = ("openvino", "xmo_pending", "xmo_load_pending")


def init_tf() -> None:
    """Import TensorFlow and Keras into this module, single-threaded and
    seeded (also for tools/make_real_models.py, which uses its freeze path)."""
    global tf, keras
    import tensorflow as _tf
    _tf.config.threading.set_intra_op_parallelism_threads(1)
    _tf.config.threading.set_inter_op_parallelism_threads(1)
    tf = _tf
    import keras as _keras
    keras = _keras
    tf.random.set_seed(0)
    keras.utils.set_random_seed(0)


def _build_isolated(out: Path, name: str) -> dict:
    """Build and write one model in a fresh Python process; returns its manifest entry.

    TensorFlow numbers the functions it traces (and names derived from them)
    with a process-wide counter, so a model's bytes would depend on which
    models were built before it in the same process.
    """
    import subprocess
    import tempfile

    with tempfile.TemporaryDirectory(prefix="make_tf_fixtures-") as tmp:
        entry_file = Path(tmp) / "entry.json"
        subprocess.run([sys.executable, __file__, "--out", str(out), "--worker", name,
                        "--entry", str(entry_file)], check=True)
        return json.loads(entry_file.read_text())


def _worker(out: Path, name: str, entry_file: Path) -> None:
    init_tf()
    spec = BUILDERS[name]()
    entry = write_model(out, name, spec)
    entry_file.write_text(json.dumps(entry))
    print(f"  tensorflow {tf.__version__} keras {keras.__version__}")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", type=Path, default=DEFAULT_OUT, help="output folder")
    ap.add_argument("--only", nargs="*", choices=sorted(BUILDERS),
                    help="build only these models (the manifest keeps the others)")
    ap.add_argument("--worker", choices=sorted(BUILDERS), help=argparse.SUPPRESS)
    ap.add_argument("--entry", type=Path, help=argparse.SUPPRESS)
    args = ap.parse_args(argv)

    out: Path = args.out
    out.mkdir(parents=True, exist_ok=True)
    if args.worker:
        _worker(out, args.worker, args.entry)
        return 0
    manifest_path = out / "manifest.json"
    old = json.loads(manifest_path.read_text())["models"] if manifest_path.exists() else {}
    models = dict(old) if args.only else {}
    for name in args.only or BUILDERS:
        print(f"== {name}", flush=True)
        entry = _build_isolated(out, name)
        entry.update({k: old[name][k] for k in KEPT_KEYS if k in old.get(name, {})})
        models[name] = entry
        hist = entry["op_histogram"]
        print(f"  {entry['node_count']} nodes, {entry['bytes']} bytes")
        print("  ops: " + ", ".join(f"{k}:{v}" for k, v in hist.items()))
        for fname, f in entry.get("functions", {}).items():
            print(f"  function {fname}: " + ", ".join(f"{k}:{v}" for k, v in f["op_histogram"].items()))
        print("  inputs: " + ", ".join(f"{i['name']}{i['shape']} fed {i['fed_shape']}"
                                      for i in entry["inputs"]))
        print("  outputs: " + ", ".join(f"{o['name']}({o['label']}){o['shape']}"
                                       for o in entry["outputs"]), flush=True)
    versions = _tf_versions()
    manifest = {
        "generator": "tools/make_tf_fixtures.py",
        "tensorflow": versions[0],
        "keras": versions[1],
        "layout": "NHWC",
        "npz_keys": "inputs by Placeholder name, outputs by tensor name (e.g. Identity:0)",
        "models": {k: models[k] for k in BUILDERS if k in models},
    }
    manifest_path.write_text(json.dumps(manifest, indent=1) + "\n")
    print(f"wrote {manifest_path}")
    return 0


def _tf_versions() -> tuple[str, str]:
    """TensorFlow's and Keras' versions, without importing them here."""
    from importlib.metadata import version

    tf_dist = next(d for d in ("tensorflow-cpu", "tensorflow") if _installed(d))
    return version(tf_dist), version("keras")


def _installed(dist: str) -> bool:
    from importlib.metadata import PackageNotFoundError, version

    try:
        version(dist)
    except PackageNotFoundError:
        return False
    return True


if __name__ == "__main__":
    sys.exit(main())
