#!/usr/bin/env python3
"""Write the real-architecture model suite (``tests/data/real``).

Small random-weight models of public architectures, made by the frameworks
themselves, for measuring graph quality against OpenVINO's own conversion
(``tools/compare_ir.py``, ``benchmarks/bench_graph_quality.py``) and for
checking that xmo's fusions keep them correct (``tests/test_real_models.py``).
This is a developer script: it needs PyTorch + transformers + onnx (the
``torch`` models) or TensorFlow + Keras 3 (the ``tf`` models), which the xmo
venv does not have and must never import. Run each part with a venv that has
its framework::

    /path/to/torch-venv/bin/python tools/make_real_models.py --framework torch
    /path/to/tf-venv/bin/python tools/make_real_models.py --framework tf

(torch 2.14.1 + torchvision 0.29.1 + transformers + onnx + onnxscript +
onnxruntime; tensorflow-cpu 2.21 + keras 3). ``--only NAME ...`` rebuilds
some models and keeps the others' manifest entries.

Per model ``<name>`` the output folder gets ``<name>.onnx`` (or ``.pb``, a
frozen GraphDef made by ``tools/make_tf_fixtures.py``'s freeze path),
``<name>.inputs.npz`` (keyed by graph input / Placeholder name) and
``<name>.outputs.npz`` (the framework's outputs: PyTorch eager, or
TensorFlow running the frozen GraphDef; keyed by ONNX output name / TF tensor
name), and an entry in ``manifest.json`` (framework, exporter, description,
inputs with their declared and fed shapes, outputs, op histogram, bytes).

ONNX models (configs kept tiny: 2 layers, hidden 32, small vocabularies and
images; weights from seeded generators, batch norms calibrated on a batch so
activations stay in range):

* ``gpt2_ts`` / ``gpt2_dynamo``: transformers ``GPT2LMHeadModel`` (tied LM
  head: a MatMul with the transposed embedding), ``input_ids`` +
  ``attention_mask`` with dynamic batch and sequence; TorchScript export
  (``dynamo=False``, opset 17) and dynamo export (opset 18).
* ``bert_ts`` / ``bert_dynamo``: transformers ``BertModel`` (padding mask,
  erf GELU, pooler), the same two exports.
* ``vit``: transformers ``ViTModel`` (32x32 images, 8x8 patches), TorchScript.
* ``whisper_encoder``: transformers ``WhisperModel``'s encoder (16 mel bins,
  100 frames: Conv1d + GELU stem, pre-norm layers), TorchScript.
* ``convnext``: torchvision ``ConvNeXt`` with a three-stage block config
  (LayerNorm2d = permute + LayerNorm + permute, depthwise 7x7, layer scale).
* ``efficientnet_b0``: torchvision EfficientNet-B0 at width 0.125, depth 0.5 (SiLU,
  squeeze-excite with Sigmoid, stochastic depth off in eval).
* ``mobilenetv3_small``: torchvision MobileNetV3-Small, width 0.25
  (Hardswish, Hardsigmoid squeeze-excite).
* ``regnet_y``: torchvision RegNet with Y blocks (group convolutions, SE).

TensorFlow models (frozen GraphDefs, NHWC, dynamic batch):

* ``keras_transformer``: a Keras text classifier: token + position
  Embedding, two blocks of MultiHeadAttention + LayerNormalization +
  Dense(gelu) (Keras 3's GELU with Erfc) + LayerNormalization,
  GlobalAveragePooling1D, Dense softmax.
* ``keras_efficientnetb0``: ``EfficientNet`` B0's blocks at width 0.125, depth 0.5, with
  its Rescaling + Normalization preprocessing, 64x64.
* ``keras_mobilenetv3small``: ``MobileNetV3Small(alpha=0.35)``'s features
  with its Rescaling preprocessing (``include_top=False``, average pooling;
  a Dense head), 64x64.
* ``keras_resnet50v2``: ResNet50V2's pre-activation structure
  (``ResNet(preact=True)``, residual_block_v2 stacks) with narrow filters,
  64x64.
"""

from __future__ import annotations

import argparse
import collections
import json
import sys
import types
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
DEFAULT_OUT = ROOT / "tests" / "data" / "real"
MAX_BYTES = 3 * 1024 * 1024

sys.path.insert(0, str(Path(__file__).resolve().parent))
import make_tf_fixtures as tfx  # noqa: E402  (the TF freeze path; numpy-only at import)

torch = None  # imported in main() for --framework torch


# ----------------------------------------------------------------------------
# PyTorch -> ONNX
# ----------------------------------------------------------------------------

def _calibrate_bn(model, x) -> None:
    """Batch-norm running statistics from a batch (then perturbed), not 0/1."""
    bns = [m for m in model.modules() if isinstance(m, torch.nn.modules.batchnorm._BatchNorm)]
    rng = np.random.default_rng(7)
    for bn in bns:
        bn.reset_running_stats()
        bn.momentum = None  # cumulative average: one batch -> its statistics
    model.train()
    with torch.no_grad():
        model(x)
    model.eval()
    with torch.no_grad():
        for bn in bns:
            m, v = tfx.perturb_bn_stats(rng, bn.running_mean.double().numpy(), bn.running_var.double().numpy())
            bn.running_mean.copy_(torch.from_numpy(m))
            bn.running_var.copy_(torch.from_numpy(v))
            bn.weight.copy_(torch.from_numpy(rng.uniform(0.6, 1.4, bn.weight.shape).astype(np.float32)))
            bn.bias.copy_(torch.from_numpy((0.2 * rng.standard_normal(bn.bias.shape)).astype(np.float32)))


def _randomize_affine(model) -> None:
    """LayerNorm / GroupNorm scales and biases away from 1 / 0, and every other
    bias (initialized to zeros by transformers and torchvision) non-zero: an
    Add of zeros is an op a converter may drop, a real model's is not."""
    rng = np.random.default_rng(11)
    with torch.no_grad():
        for m in model.modules():
            if isinstance(m, (torch.nn.LayerNorm, torch.nn.GroupNorm)) and m.weight is not None:
                m.weight.copy_(torch.from_numpy(rng.uniform(0.6, 1.4, m.weight.shape).astype(np.float32)))
                m.bias.copy_(torch.from_numpy((0.2 * rng.standard_normal(m.bias.shape)).astype(np.float32)))
            elif isinstance(getattr(m, "bias", None), torch.nn.Parameter) and not isinstance(
                    m, torch.nn.modules.batchnorm._BatchNorm):
                m.bias.copy_(torch.from_numpy((0.05 * rng.standard_normal(m.bias.shape)).astype(np.float32)))


def _images(seed: int, n: int, c: int, h: int, w: int) -> np.ndarray:
    """NCHW images (the TF fixtures' blocky noise, transposed)."""
    return np.ascontiguousarray(tfx.blocky_images(np.random.default_rng(seed), n, h, w, c).transpose(0, 3, 1, 2))


class _HFOutputs:
    """An nn.Module wrapper returning a transformers model's tensors as a tuple."""

    @staticmethod
    def wrap(model, keys: list[str], fields: tuple[str, ...]):
        class Wrapper(torch.nn.Module):
            def __init__(self) -> None:
                super().__init__()
                self.model = model

            def forward(self, *args):
                out = self.model(**dict(zip(keys, args)), return_dict=True)
                return tuple(getattr(out, f) for f in fields)

        return Wrapper().eval()


def _text_inputs(seed: int, vocab: int, batch: int = 2, seq: int = 12) -> dict[str, np.ndarray]:
    rng = np.random.default_rng(seed)
    ids = rng.integers(0, vocab, (batch, seq), dtype=np.int64)
    mask = np.ones((batch, seq), np.int64)
    mask[1, seq - 4:] = 0  # the second sequence is padded
    return {"input_ids": ids, "attention_mask": mask}


TEXT_DYNAMIC = {"input_ids": {0: "batch", 1: "sequence"}, "attention_mask": {0: "batch", 1: "sequence"}}


def build_gpt2(exporter: str):
    from transformers import GPT2Config, GPT2LMHeadModel

    torch.manual_seed(101)
    cfg = GPT2Config(n_embd=32, n_layer=2, n_head=4, n_inner=64, vocab_size=128, n_positions=64,
                     use_cache=False, tie_word_embeddings=True)
    model = GPT2LMHeadModel(cfg).eval()
    _randomize_affine(model)
    feeds = _text_inputs(201, cfg.vocab_size)
    return {
        "module": _HFOutputs.wrap(model, list(feeds), ("logits",)),
        "feeds": feeds, "outputs": ["logits"], "dynamic": TEXT_DYNAMIC, "exporter": exporter,
        "description": "transformers GPT2LMHeadModel (2 layers, hidden 32, 4 heads, vocab 128, tied LM head): "
                       "causal + padding mask, tanh GELU, LayerNorm, Conv1D (Gemm) projections",
    }


def build_bert(exporter: str):
    from transformers import BertConfig, BertModel

    torch.manual_seed(102)
    cfg = BertConfig(hidden_size=32, num_hidden_layers=2, num_attention_heads=4, intermediate_size=64,
                     vocab_size=128, max_position_embeddings=64)
    model = BertModel(cfg).eval()
    _randomize_affine(model)
    feeds = _text_inputs(202, cfg.vocab_size)
    return {
        "module": _HFOutputs.wrap(model, list(feeds), ("last_hidden_state", "pooler_output")),
        "feeds": feeds, "outputs": ["last_hidden_state", "pooler_output"], "dynamic": TEXT_DYNAMIC,
        "exporter": exporter,
        "description": "transformers BertModel (2 layers, hidden 32, 4 heads, vocab 128): padding mask, "
                       "erf GELU, LayerNorm, Tanh pooler",
    }


def build_vit():
    from transformers import ViTConfig, ViTModel

    torch.manual_seed(103)
    cfg = ViTConfig(hidden_size=32, num_hidden_layers=2, num_attention_heads=4, intermediate_size=64,
                    image_size=32, patch_size=8, num_channels=3)
    model = ViTModel(cfg).eval()
    _randomize_affine(model)
    feeds = {"pixel_values": _images(203, 2, 3, 32, 32)}
    return {
        "module": _HFOutputs.wrap(model, list(feeds), ("last_hidden_state", "pooler_output")),
        "feeds": feeds, "outputs": ["last_hidden_state", "pooler_output"], "exporter": "torchscript",
        "description": "transformers ViTModel (32x32 images, 8x8 patches, 2 layers, hidden 32, 4 heads): "
                       "patch Conv, class token, LayerNorm, erf GELU, Tanh pooler",
    }


def build_whisper_encoder():
    from transformers import WhisperConfig, WhisperModel

    torch.manual_seed(104)
    cfg = WhisperConfig(d_model=32, encoder_layers=2, encoder_attention_heads=4, encoder_ffn_dim=64,
                        decoder_layers=1, decoder_attention_heads=4, decoder_ffn_dim=64,
                        num_mel_bins=16, max_source_positions=50, vocab_size=256, pad_token_id=1,
                        bos_token_id=2, eos_token_id=2, decoder_start_token_id=3)
    encoder = WhisperModel(cfg).get_encoder().eval()
    _randomize_affine(encoder)
    feeds = {"input_features": np.random.default_rng(204).standard_normal((2, 16, 100)).astype(np.float32)}
    return {
        "module": _HFOutputs.wrap(encoder, list(feeds), ("last_hidden_state",)),
        "feeds": feeds, "outputs": ["last_hidden_state"], "exporter": "torchscript",
        "dynamic": {"input_features": {0: "batch"}},
        "description": "transformers WhisperModel's encoder (16 mel bins, 100 frames, 2 layers, d_model 32): "
                       "Conv1d + GELU stem, sinusoidal positions, pre-norm attention blocks",
    }


def _vision(model, feeds: dict[str, np.ndarray], description: str, calib_seed: int):
    x = torch.from_numpy(_images(calib_seed, 8, *next(iter(feeds.values())).shape[1:]))
    _calibrate_bn(model, x)
    _randomize_affine(model)
    model.eval()
    # the classifier standardized on the calibration batch: logits of a few units
    head = [m for m in model.modules() if isinstance(m, torch.nn.Linear)][-1]
    seen = []
    hook = head.register_forward_hook(lambda mod, args, out: seen.append(args[0].double().numpy()))
    with torch.no_grad():
        model(x)
    hook.remove()
    w, b = tfx.standardizing_dense(np.random.default_rng(calib_seed), seen[0], head.out_features)
    with torch.no_grad():
        head.weight.copy_(torch.from_numpy(w.T.copy()))
        head.bias.copy_(torch.from_numpy(b))
    return {"module": model, "feeds": feeds, "outputs": ["logits"], "exporter": "torchscript",
            "description": description}


def build_convnext():
    from torchvision.models.convnext import CNBlockConfig, ConvNeXt

    torch.manual_seed(105)
    model = ConvNeXt([CNBlockConfig(8, 16, 2), CNBlockConfig(16, 32, 2), CNBlockConfig(32, None, 2)],
                     layer_scale=0.5, num_classes=10)
    with torch.no_grad():  # layer scales spread around 0.5, not one value
        for name, p in model.named_parameters():
            if name.endswith("layer_scale"):
                p.copy_(torch.rand_like(p) + 0.25)
    return _vision(model, {"input": _images(205, 1, 3, 64, 64)},
                   "torchvision ConvNeXt (stages 8/16/32, 2 blocks each, 64x64): patchify stem, "
                   "LayerNorm2d (permute + LayerNorm), depthwise 7x7, erf GELU, layer scale", 305)


def build_efficientnet_b0():
    from torchvision.models.efficientnet import EfficientNet, _efficientnet_conf

    torch.manual_seed(106)
    setting, last = _efficientnet_conf("efficientnet_b0", width_mult=0.125, depth_mult=0.5)
    model = EfficientNet(setting, dropout=0.2, num_classes=10, last_channel=last)
    return _vision(model, {"input": _images(206, 1, 3, 64, 64)},
                   "torchvision EfficientNet-B0 blocks at width 0.125, depth 0.5 (64x64, 10 classes): MBConv, SiLU, "
                   "squeeze-excite (AdaptiveAvgPool + 1x1 Conv + Sigmoid)", 306)


def build_mobilenetv3_small():
    from torchvision.models import mobilenet_v3_small

    torch.manual_seed(107)
    model = mobilenet_v3_small(weights=None, width_mult=0.25, num_classes=10)
    return _vision(model, {"input": _images(207, 1, 3, 64, 64)},
                   "torchvision MobileNetV3-Small, width 0.25 (64x64, 10 classes): Hardswish, "
                   "Hardsigmoid squeeze-excite", 307)


def build_regnet_y():
    from torchvision.models.regnet import BlockParams, RegNet

    torch.manual_seed(108)
    params = BlockParams.from_init_params(depth=6, w_0=16, w_a=8.0, w_m=2.0, group_width=8, se_ratio=0.25)
    model = RegNet(params, num_classes=10, stem_width=16)
    return _vision(model, {"input": _images(208, 1, 3, 64, 64)},
                   "torchvision RegNet with Y blocks (depth 6, w_0 16, group width 8, SE 0.25, 64x64): "
                   "group convolutions, squeeze-excite", 308)


TORCH_BUILDERS = {
    "gpt2_ts": lambda: build_gpt2("torchscript"),
    "gpt2_dynamo": lambda: build_gpt2("dynamo"),
    "bert_ts": lambda: build_bert("torchscript"),
    "bert_dynamo": lambda: build_bert("dynamo"),
    "vit": build_vit,
    "whisper_encoder": build_whisper_encoder,
    "convnext": build_convnext,
    "efficientnet_b0": build_efficientnet_b0,
    "mobilenetv3_small": build_mobilenetv3_small,
    "regnet_y": build_regnet_y,
}


def export_onnx(spec: dict, path: Path) -> int:
    """TorchScript (opset 17) or dynamo (opset 18) export; returns the opset."""
    args = tuple(torch.from_numpy(v) for v in spec["feeds"].values())
    names = list(spec["feeds"])
    dynamic = spec.get("dynamic") or {}
    if spec["exporter"] == "torchscript":
        axes = dict(dynamic)
        if dynamic:
            first = next(iter(dynamic.values()))
            for o in spec["outputs"]:
                axes[o] = {k: v for k, v in first.items()}
        torch.onnx.export(spec["module"], args, str(path), dynamo=False, opset_version=17,
                          input_names=names, output_names=spec["outputs"], dynamic_axes=axes or None,
                          do_constant_folding=True)
        return 17
    dims: dict[str, object] = {}
    shapes = []
    for n in names:
        shapes.append({a: dims.setdefault(d, torch.export.Dim(d, max=64)) for a, d in dynamic.get(n, {}).items()})
    prog = torch.onnx.export(spec["module"], args, dynamo=True, opset_version=18, input_names=names,
                             output_names=spec["outputs"], dynamic_shapes=(tuple(shapes),))  # forward(*args)
    prog.save(str(path))
    # the exporter's per-node metadata (stack traces, module paths) is two
    # thirds of the file and nothing a converter reads: left out
    import onnx

    model = onnx.load(str(path))
    for node in model.graph.node:
        del node.metadata_props[:]
        node.doc_string = ""
    onnx.save(model, str(path))
    return 18


def write_torch_model(out: Path, name: str, spec: dict) -> dict:
    import onnx
    import onnxruntime as ort

    path = out / f"{name}.onnx"
    with torch.no_grad():
        ref = spec["module"](*[torch.from_numpy(v) for v in spec["feeds"].values()])
    ref = [r.numpy() for r in (ref if isinstance(ref, tuple) else (ref,))]
    for r, o in zip(ref, spec["outputs"]):
        if not np.isfinite(r).all() or r.std() < 1e-3:
            raise RuntimeError(f"{name}/{o}: degenerate reference (std {r.std()})")
    opset = export_onnx(spec, path)
    size = path.stat().st_size
    if size > MAX_BYTES:
        raise RuntimeError(f"{name}.onnx is {size} bytes (> 3 MB)")
    sess = ort.InferenceSession(str(path), providers=["CPUExecutionProvider"])
    got = sess.run(spec["outputs"], spec["feeds"])
    for g, r, o in zip(got, ref, spec["outputs"]):
        np.testing.assert_allclose(g, r, rtol=1e-3, atol=1e-4, err_msg=f"{name}/{o}: onnxruntime vs torch")
    tfx.save_npz(out / f"{name}.inputs.npz", spec["feeds"])
    tfx.save_npz(out / f"{name}.outputs.npz", dict(zip(spec["outputs"], ref)))
    model = onnx.load(str(path))
    hist = collections.Counter(n.op_type for n in model.graph.node)

    def dims(vi) -> list[int | str]:
        return [d.dim_param or d.dim_value for d in vi.type.tensor_type.shape.dim]

    declared = {vi.name: dims(vi) for vi in list(model.graph.input) + list(model.graph.output)}
    return {
        "file": path.name,
        "framework": "onnx",
        "exporter": f"torch {torch.__version__} {spec['exporter']}, opset {opset}",
        "description": spec["description"],
        "inputs_file": f"{name}.inputs.npz",
        "outputs_file": f"{name}.outputs.npz",
        "inputs": [{"name": k, "dtype": str(v.dtype), "shape": declared[k], "fed_shape": list(v.shape)}
                   for k, v in spec["feeds"].items()],
        "outputs": [{"name": o, "dtype": str(r.dtype), "shape": declared.get(o), "ref_shape": list(r.shape)}
                    for o, r in zip(spec["outputs"], ref)],
        "node_count": len(model.graph.node),
        "op_histogram": dict(sorted(hist.items(), key=lambda kv: (-kv[1], kv[0]))),
        "bytes": size,
    }


# ----------------------------------------------------------------------------
# TensorFlow / Keras -> frozen GraphDef (tools/make_tf_fixtures.py's path)
# ----------------------------------------------------------------------------

def _keras_randomize_all(model, rng: np.random.Generator) -> None:
    """make_tf_fixtures.keras_randomize for the layers it knows, seeded values
    here for the weights it does not (embeddings, Normalization statistics)."""
    keras = tfx.keras
    known, extra = [], []
    for layer in model.layers:
        names = {w.path.split("/")[-1] for w in layer.weights}
        (extra if names & {"embeddings", "mean", "variance", "count"} else known).append(layer)
    tfx.keras_randomize(types.SimpleNamespace(layers=known), rng)
    for layer in extra:
        vals = []
        for w in layer.weights:
            n, shape = w.path.split("/")[-1], tuple(w.shape)
            if n == "embeddings":
                vals.append((0.5 * rng.standard_normal(shape)).astype(np.float32))
            elif n == "mean":
                vals.append(rng.uniform(0.3, 0.6, shape).astype(np.float32))
            elif n == "variance":
                vals.append(rng.uniform(0.04, 0.09, shape).astype(np.float32))
            elif n == "count":
                vals.append(np.asarray(1000, dtype=w.dtype))
            else:
                raise RuntimeError(f"unexpected weight {w.path}")
        layer.set_weights(vals)
    assert all(isinstance(layer, keras.layers.Layer) for layer in extra)


def _keras_vision(model, name: str, size: int, seed: int, description: str, required: set[str]):
    tf, keras = tfx.tf, tfx.keras
    rng = np.random.default_rng(seed)
    _keras_randomize_all(model, rng)
    calib = tfx.blocky_images(np.random.default_rng(seed + 1000), 16, size, size, 3)
    calib = (0.25 * calib + 0.5).astype(np.float32) * 255.0  # pixel range, as the preprocessing expects
    tfx.keras_calibrate_bn(model, calib, rng)
    head = [layer for layer in model.layers if layer.weights][-1]  # Dense, or MobileNetV3's 1x1 Conv2D
    feats = np.asarray(keras.Model(model.inputs, head.input)([calib], training=False), np.float64)
    kernel = head.get_weights()[0]
    w, b = tfx.standardizing_dense(rng, feats.reshape(len(feats), -1), kernel.shape[-1])
    head.set_weights([w.reshape(kernel.shape), b])
    sig = [tf.TensorSpec([None, size, size, 3], tf.float32, name="input")]
    gd, frozen = tfx.freeze(lambda x: model(x, training=False), sig)
    img = tfx.blocky_images(np.random.default_rng(seed + 2000), 1, size, size, 3)
    feeds = {"input": ((0.25 * img + 0.5) * 255.0).astype(np.float32)}
    return {"graph_def": gd, "frozen": frozen, "signature": sig, "feeds": feeds,
            "labels": ["probabilities"], "description": description, "required": required}


def build_keras_efficientnetb0():
    from keras.src.applications.efficientnet import EfficientNet

    tfx.keras.backend.clear_session()
    model = EfficientNet(0.125, 0.5, 64, weights=None, input_shape=(64, 64, 3), classes=10,
                         name="efficientnetb0_w025")
    return _keras_vision(model, "keras_efficientnetb0", 64, 1101,
                         "Keras EfficientNet B0 blocks at width 0.125, depth 0.5 (64x64, 10 classes) with its Rescaling + "
                         "Normalization preprocessing: swish, squeeze-excite (Mean + Reshape + 1x1 Conv2D + "
                         "Sigmoid), ZeroPadding2D, DepthwiseConv2dNative",
                         {"Conv2D", "DepthwiseConv2dNative", "Sigmoid", "Mean", "Pad", "Reshape", "MatMul"})


def build_keras_mobilenetv3small():
    tfx.keras.backend.clear_session()
    keras = tfx.keras
    # the features (their 1x1 Conv2D to 1024 channels alone is 0.8 MB: left out) and a Dense head
    base = keras.applications.MobileNetV3Small(weights=None, alpha=0.35, input_shape=(64, 64, 3),
                                               include_top=False, pooling="avg", include_preprocessing=True)
    out = keras.layers.Dense(10, activation="softmax", name="predictions")(base.output)
    model = keras.Model(base.inputs, out, name="mobilenetv3small_features")
    return _keras_vision(model, "keras_mobilenetv3small", 64, 1102,
                         "Keras MobileNetV3Small(alpha=0.35, 64x64) features with its Rescaling preprocessing, "
                         "average pooling and a Dense softmax head (10 classes): hard-swish (Relu6 "
                         "arithmetic), squeeze-excite",
                         {"Conv2D", "DepthwiseConv2dNative", "Relu6", "Mean", "Mul", "AddV2"})


def build_keras_resnet50v2():
    from keras.src.applications.resnet import ResNet, stack_residual_blocks_v2

    tfx.keras.backend.clear_session()

    def stack_fn(x):
        x = stack_residual_blocks_v2(x, 4, 3, name="conv2")
        x = stack_residual_blocks_v2(x, 8, 2, name="conv3")
        x = stack_residual_blocks_v2(x, 16, 2, name="conv4")
        return stack_residual_blocks_v2(x, 32, 2, stride1=1, name="conv5")

    model = ResNet(stack_fn, True, True, weights=None, input_shape=(64, 64, 3), classes=10,
                   name="resnet50v2_narrow")
    return _keras_vision(model, "keras_resnet50v2", 64, 1103,
                         "ResNet50V2's structure (Keras ResNet(preact=True), residual_block_v2 stacks) with "
                         "filters 4/8/16/32 and 3/2/2/2 blocks, 64x64, 10 classes: pre-activation BN, "
                         "bias Adds before the residual Add, MaxPool shortcuts",
                         {"Conv2D", "AddV2", "Relu", "MaxPool", "Pad", "Mean", "MatMul"})


def build_keras_transformer():
    tf, keras = tfx.tf, tfx.keras
    keras.backend.clear_session()
    L = keras.layers
    vocab, seq, dim = 200, 32, 32

    class PositionEmbedding(L.Layer):
        def __init__(self, **kw):
            super().__init__(**kw)
            self.tok = L.Embedding(vocab, dim, name="token_embedding")
            self.pos = L.Embedding(seq, dim, name="position_embedding")

        def call(self, x):
            positions = keras.ops.arange(0, keras.ops.shape(x)[-1])
            return self.tok(x) + self.pos(positions)

    inp = keras.Input((seq,), dtype="int32", name="tokens")
    x = PositionEmbedding(name="embedding")(inp)
    for i in range(2):
        a = L.MultiHeadAttention(num_heads=4, key_dim=8, name=f"block{i}_mha")(x, x)
        x = L.LayerNormalization(epsilon=1e-6, name=f"block{i}_ln1")(L.Add(name=f"block{i}_add1")([x, a]))
        f = L.Dense(64, activation="gelu", name=f"block{i}_ffn1")(x)
        f = L.Dense(dim, name=f"block{i}_ffn2")(f)
        x = L.LayerNormalization(epsilon=1e-6, name=f"block{i}_ln2")(L.Add(name=f"block{i}_add2")([x, f]))
    x = L.GlobalAveragePooling1D(name="pool")(x)
    out = L.Dense(2, activation="softmax", name="classifier")(x)
    model = keras.Model(inp, out, name="text_classifier")
    rng = np.random.default_rng(1104)
    for layer in model.layers:
        vals = []
        for w in layer.weights:
            n, shape = w.path.split("/")[-1], tuple(w.shape)
            if n in ("embeddings",):
                vals.append((0.5 * rng.standard_normal(shape)).astype(np.float32))
            elif n == "kernel":
                vals.append(tfx.he(rng, shape, int(np.prod(shape[:-1])) if len(shape) < 3 else shape[0]))
            elif n == "gamma":
                vals.append(rng.uniform(0.6, 1.4, shape).astype(np.float32))
            else:  # bias, beta
                vals.append((0.1 * rng.standard_normal(shape)).astype(np.float32))
        if vals:
            layer.set_weights(vals)
    tokens = np.random.default_rng(1105).integers(0, vocab, (16, seq), dtype=np.int32)
    head = model.get_layer("classifier")
    feats = np.asarray(keras.Model(model.inputs, head.input)([tokens]), np.float64)
    w, b = tfx.standardizing_dense(rng, feats, 2)
    head.set_weights([w, b])
    sig = [tf.TensorSpec([None, seq], tf.int32, name="tokens")]
    gd, frozen = tfx.freeze(lambda x: model(x, training=False), sig)
    feeds = {"tokens": np.random.default_rng(1106).integers(0, vocab, (2, seq), dtype=np.int32)}
    return {"graph_def": gd, "frozen": frozen, "signature": sig, "feeds": feeds,
            "labels": ["probabilities"],
            "description": "Keras Transformer text classifier (vocab 200, 32 tokens, 2 blocks, dim 32): "
                           "Embedding + position Embedding, MultiHeadAttention (4 heads), Add + "
                           "LayerNormalization, Dense(gelu: Erfc), GlobalAveragePooling1D, Dense softmax",
            "required": {"GatherV2", "Einsum", "Softmax", "Erfc", "Mean", "Rsqrt"}}


TF_BUILDERS = {
    "keras_transformer": build_keras_transformer,
    "keras_efficientnetb0": build_keras_efficientnetb0,
    "keras_mobilenetv3small": build_keras_mobilenetv3small,
    "keras_resnet50v2": build_keras_resnet50v2,
}


def write_tf_model(out: Path, name: str, spec: dict) -> dict:
    entry = tfx.write_model(out, name, spec)
    return {"file": entry.pop("file"), "framework": "tf",
            "exporter": f"tensorflow {tfx.tf.__version__}, keras {tfx.keras.__version__}, frozen GraphDef",
            **entry}


# ----------------------------------------------------------------------------

def main(argv: list[str] | None = None) -> int:
    global torch
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--framework", choices=("torch", "tf"), required=True)
    ap.add_argument("--out", type=Path, default=DEFAULT_OUT, help="output folder")
    ap.add_argument("--only", nargs="*", help="build only these models (the manifest keeps the others)")
    args = ap.parse_args(argv)
    builders = TORCH_BUILDERS if args.framework == "torch" else TF_BUILDERS
    bad = sorted(set(args.only or ()) - set(builders))
    if bad:
        ap.error(f"not {args.framework} models: {bad}")

    if args.framework == "torch":
        import torch as _torch

        torch = _torch
        torch.set_num_threads(1)
        write = write_torch_model
        versions = {"torch": torch.__version__}
    else:
        tfx.init_tf()  # make_tf_fixtures' builders and freeze path use its tf / keras
        write = write_tf_model
        versions = {"tensorflow": tfx.tf.__version__, "keras": tfx.keras.__version__}

    out: Path = args.out
    out.mkdir(parents=True, exist_ok=True)
    manifest_path = out / "manifest.json"
    old = json.loads(manifest_path.read_text()) if manifest_path.exists() else {"models": {}}
    models = dict(old["models"])
    for name in args.only or builders:
        print(f"== {name}", flush=True)
        entry = write(out, name, builders[name]())
        models[name] = entry
        print(f"  {entry['node_count']} nodes, {entry['bytes']} bytes; "
              + ", ".join(f"{k}:{v}" for k, v in list(entry["op_histogram"].items())[:12]))
    order = [*TORCH_BUILDERS, *TF_BUILDERS]
    manifest = {
        "generator": "tools/make_real_models.py",
        "versions": {**old.get("versions", {}), **versions},
        "npz_keys": "inputs by graph input / Placeholder name, outputs by ONNX output / TF tensor name",
        "models": {k: models[k] for k in order if k in models},
    }
    manifest_path.write_text(json.dumps(manifest, indent=1) + "\n")
    print(f"wrote {manifest_path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
