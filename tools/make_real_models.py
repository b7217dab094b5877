#!/usr/bin/env python3
"""Write the real-architecture model suites: ``tests/data/real`` (small) and,
with ``--size full``, the benchmarks' full-size models.

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

``--size full`` writes the benchmark suite instead: the same kinds of models
at realistic sizes (9-120 MB each), into a cache folder outside the checkout
(``$XMO_BENCH_MODELS``, else ``~/.cache/xmo/bench_models``; ``tools/bench_models.py``)
with the same manifest plus a ``family`` per model (``transformers``, ``cnn``,
``keras``, ``ocr_detection``), for ``benchmarks/bench_latency_light.py
--suite zoo`` and ``benchmarks/bench_convert_scale.py --groups zoo``. Seeded
weights, calibrated batch norms and standardized classifier heads as above,
batch 1: BERT-small shape (4 x 512, 128 tokens, 28 of them padding), GPT-2
width (4 layers x 768, 12 heads), ViT-Ti (224), whisper-tiny's encoder
(80 x 3000), torchvision MobileNetV3-S, EfficientNet-B0, ConvNeXt-T,
RegNetY-400MF, ResNet-50 (224) and DeepLabV3-MobileNetV3-Large (320), a CRNN
text recognizer (32x128, BiLSTM) and a PicoDet-style detector (320) built
from torch modules; Keras MobileNetV3Small, EfficientNetB0 and ResNet50V2
(224, 1000 classes) frozen. Transformer vocabularies are kept at 1000.

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
import bench_models  # noqa: E402  (the full-size models' cache folder)
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


def _vision(model, feeds: dict[str, np.ndarray], description: str, calib_seed: int,
            head=None, outputs=("logits",), calib_n: int = 8):
    """Batch norms calibrated, affines randomized, and the classifier ``head``
    (default: the last Linear; or a 1x1 Conv2d, per pixel) standardized on a
    calibration batch: logits of a few units."""
    x = torch.from_numpy(_images(calib_seed, calib_n, *next(iter(feeds.values())).shape[1:]))
    _calibrate_bn(model, x)
    _randomize_affine(model)
    model.eval()
    if head is None:
        head = [m for m in model.modules() if isinstance(m, torch.nn.Linear)][-1]
    conv = isinstance(head, torch.nn.Conv2d)
    seen = []

    def hook(mod, args, out):
        a = args[0].double()
        seen.append((a.movedim(1, -1) if conv else a).reshape(-1, a.shape[1 if conv else -1]).numpy())

    handle = head.register_forward_hook(hook)
    with torch.no_grad():
        model(x)
    handle.remove()
    feats = seen[0][::len(seen[0]) // 4096 + 1]  # (a segmentation head: every k-th pixel)
    w, b = tfx.standardizing_dense(np.random.default_rng(calib_seed), feats,
                                   head.out_channels if conv else head.out_features)
    with torch.no_grad():
        head.weight.copy_(torch.from_numpy(w.T.copy()).reshape(head.weight.shape))
        head.bias.copy_(torch.from_numpy(b))
    return {"module": model, "feeds": feeds, "outputs": list(outputs), "exporter": "torchscript",
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


def write_torch_model(out: Path, name: str, spec: dict, max_bytes: int | None = MAX_BYTES) -> dict:
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
    if max_bytes is not None and size > max_bytes:
        raise RuntimeError(f"{name}.onnx is {size} bytes (> {max_bytes})")
    sess = ort.InferenceSession(str(path), providers=["CPUExecutionProvider"])
    got = sess.run(spec["outputs"], spec["feeds"])
    for g, r, o in zip(got, ref, spec["outputs"]):
        np.testing.assert_allclose(g, r, rtol=1e-3, atol=spec.get("atol", 1e-4),
                                   err_msg=f"{name}/{o}: onnxruntime vs torch")
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
        **({"family": spec["family"]} if "family" in spec else {}),
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


def _keras_vision(model, name: str, size: int, seed: int, description: str, required: set[str],
                  calib_n: int = 16):
    tf, keras = tfx.tf, tfx.keras
    rng = np.random.default_rng(seed)
    _keras_randomize_all(model, rng)
    calib = tfx.blocky_images(np.random.default_rng(seed + 1000), calib_n, size, size, 3)
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


def write_tf_model(out: Path, name: str, spec: dict, max_bytes: int | None = MAX_BYTES) -> dict:
    entry = tfx.write_model(out, name, spec, max_bytes=max_bytes)
    return {"file": entry.pop("file"), "framework": "tf",
            "exporter": f"tensorflow {tfx.tf.__version__}, keras {tfx.keras.__version__}, frozen GraphDef",
            **entry, **({"family": spec["family"]} if "family" in spec else {})}


# ----------------------------------------------------------------------------
# Full-size models (--size full): realistic sizes, for the benchmarks
# ----------------------------------------------------------------------------

def _full_text_inputs(seed: int, vocab: int, seq: int = 128, pad: int = 28) -> dict[str, np.ndarray]:
    """One sequence of ``seq`` tokens whose last ``pad`` are padding."""
    ids = np.random.default_rng(seed).integers(0, vocab, (1, seq), dtype=np.int64)
    mask = np.ones((1, seq), np.int64)
    mask[0, seq - pad:] = 0
    return {"input_ids": ids, "attention_mask": mask}


def build_full_bert_small():
    from transformers import BertConfig, BertModel

    torch.manual_seed(501)
    cfg = BertConfig(hidden_size=512, num_hidden_layers=4, num_attention_heads=8, intermediate_size=2048,
                     vocab_size=1000, max_position_embeddings=512)
    model = BertModel(cfg).eval()
    _randomize_affine(model)
    feeds = _full_text_inputs(601, cfg.vocab_size)
    return {
        "module": _HFOutputs.wrap(model, list(feeds), ("last_hidden_state", "pooler_output")),
        "feeds": feeds, "outputs": ["last_hidden_state", "pooler_output"], "dynamic": TEXT_DYNAMIC,
        "exporter": "torchscript", "family": "transformers",
        "description": "transformers BertModel, BERT-small shape (4 layers, hidden 512, 8 heads, FFN 2048; "
                       "vocab 1000), 128 tokens (28 padded): erf GELU, LayerNorm, Tanh pooler",
    }


def build_full_gpt2_small():
    from transformers import GPT2Config, GPT2LMHeadModel

    torch.manual_seed(502)
    cfg = GPT2Config(n_embd=768, n_layer=4, n_head=12, vocab_size=1000, n_positions=256, use_cache=False,
                     tie_word_embeddings=True)
    model = GPT2LMHeadModel(cfg).eval()
    _randomize_affine(model)
    feeds = _full_text_inputs(602, cfg.vocab_size)
    return {
        "module": _HFOutputs.wrap(model, list(feeds), ("logits",)),
        "feeds": feeds, "outputs": ["logits"], "dynamic": TEXT_DYNAMIC, "exporter": "torchscript",
        "family": "transformers",
        "description": "transformers GPT2LMHeadModel, GPT-2 small width (4 of its 12 layers, hidden 768, 12 heads; "
                       "vocab 1000, tied LM head), 128 tokens (28 padded): tanh GELU, Conv1D (Gemm)",
    }


def build_full_vit_tiny():
    from transformers import ViTConfig, ViTModel

    torch.manual_seed(503)
    cfg = ViTConfig(hidden_size=192, num_hidden_layers=12, num_attention_heads=3, intermediate_size=768,
                    image_size=224, patch_size=16, num_channels=3)
    model = ViTModel(cfg).eval()
    _randomize_affine(model)
    feeds = {"pixel_values": _images(603, 1, 3, 224, 224)}
    return {
        "module": _HFOutputs.wrap(model, list(feeds), ("last_hidden_state", "pooler_output")),
        "feeds": feeds, "outputs": ["last_hidden_state", "pooler_output"], "exporter": "torchscript",
        "family": "transformers",
        "description": "transformers ViTModel, ViT-Ti (12 layers, hidden 192, 3 heads, 224x224, 16x16 patches)",
    }


def build_full_whisper_tiny_encoder():
    from transformers import WhisperConfig, WhisperModel

    torch.manual_seed(504)
    cfg = WhisperConfig(d_model=384, encoder_layers=4, encoder_attention_heads=6, encoder_ffn_dim=1536,
                        decoder_layers=1, decoder_attention_heads=6, decoder_ffn_dim=1536, num_mel_bins=80,
                        max_source_positions=1500)
    encoder = WhisperModel(cfg).get_encoder().eval()
    _randomize_affine(encoder)
    feeds = {"input_features": np.random.default_rng(604).standard_normal((1, 80, 3000)).astype(np.float32)}
    return {
        "module": _HFOutputs.wrap(encoder, list(feeds), ("last_hidden_state",)),
        "feeds": feeds, "outputs": ["last_hidden_state"], "exporter": "torchscript", "family": "transformers",
        "atol": 1e-3,
        "description": "transformers WhisperModel's encoder, whisper-tiny shape (4 layers, d_model 384, 6 heads), "
                       "80 mel bins x 3000 frames (30 s)",
    }


def _full_torchvision(name: str, seed: int, description: str, size: int = 224):
    import torchvision.models as tvm

    torch.manual_seed(seed)
    model = getattr(tvm, name)(weights=None)
    if name == "convnext_tiny":  # layer scales spread around 0.5 (torchvision: 1e-6, a no-op model)
        with torch.no_grad():
            for pname, p in model.named_parameters():
                if pname.endswith("layer_scale"):
                    p.copy_(torch.rand_like(p) + 0.25)
    spec = _vision(model, {"input": _images(seed + 100, 1, 3, size, size)}, description, seed + 200)
    return {**spec, "family": "cnn", "atol": 1e-3}


def build_full_deeplabv3():
    from torchvision.models.segmentation import deeplabv3_mobilenet_v3_large

    torch.manual_seed(511)
    net = deeplabv3_mobilenet_v3_large(weights=None, weights_backbone=None, num_classes=21, aux_loss=False)

    class Seg(torch.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.net = net

        def forward(self, x):
            return self.net(x)["out"]

    spec = _vision(Seg(), {"input": _images(611, 1, 3, 320, 320)},
                   "torchvision DeepLabV3 with a MobileNetV3-Large backbone (dilated), 320x320, 21 classes: "
                   "ASPP (dilated 3x3, global pooling), bilinear Resize", 711,
                   head=net.classifier[-1], outputs=("out",), calib_n=4)
    return {**spec, "family": "cnn", "atol": 1e-3}


def build_full_crnn():
    """A CRNN text recognizer (Shi et al.): a VGG-style conv stack with batch
    norms turns a 32x128 grey text line into 31 columns of 512 features, then
    two bidirectional LSTM layers (256 units) and a per-column classifier."""
    nn = torch.nn
    torch.manual_seed(512)

    def cbr(cin, cout, k=3, p=1):
        return [nn.Conv2d(cin, cout, k, 1, p), nn.BatchNorm2d(cout), nn.ReLU(inplace=True)]

    class CRNN(nn.Module):
        def __init__(self, classes: int = 37) -> None:
            super().__init__()
            self.cnn = nn.Sequential(
                *cbr(1, 64), nn.MaxPool2d(2, 2), *cbr(64, 128), nn.MaxPool2d(2, 2),
                *cbr(128, 256), *cbr(256, 256), nn.MaxPool2d((2, 1), (2, 1)),
                *cbr(256, 512), *cbr(512, 512), nn.MaxPool2d((2, 1), (2, 1)),
                *cbr(512, 512, 2, 0))
            self.rnn1 = nn.LSTM(512, 256, bidirectional=True)
            self.mid = nn.Linear(512, 256)
            self.rnn2 = nn.LSTM(256, 256, bidirectional=True)
            self.fc = nn.Linear(512, classes)

        def forward(self, x):
            f = self.cnn(x).squeeze(2).permute(2, 0, 1)  # [T, N, C]
            h, _ = self.rnn1(f)
            h, _ = self.rnn2(self.mid(h))
            return self.fc(h)

    spec = _vision(CRNN(), {"input": _images(612, 1, 1, 32, 128)},
                   "CRNN text recognizer (torch modules): 7 conv + BN + ReLU layers, max pools, 32x128 grey "
                   "input -> 31 columns, 2 bidirectional LSTM layers (256 units), 37 classes per column", 712)
    return {**spec, "family": "ocr_detection", "atol": 1e-3}


def build_full_picodet():
    """A PicoDet-style anchor-free detector from torch modules: MobileNetV3-Large
    features (strides 8/16/32), a lite PAN neck (1x1 laterals, nearest
    upsampling + Add, depthwise 5x5 + pointwise blocks, stride-2 depthwise
    downsampling), per-level GFL heads (80 class scores with Sigmoid, 4 x 8-bin
    distance distributions with Softmax and their expectation), boxes decoded
    from the grid (no NMS)."""
    import torchvision

    nn = torch.nn
    torch.manual_seed(513)
    size, width, bins, classes = 320, 96, 8, 80

    def cba(cin, cout, k=1, s=1, groups=1):
        return nn.Sequential(nn.Conv2d(cin, cout, k, s, k // 2, groups=groups, bias=False),
                             nn.BatchNorm2d(cout), nn.Hardswish())

    def dw_pw(c, s=1):
        return nn.Sequential(cba(c, c, 5, s, groups=c), cba(c, c))

    class Detector(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            f = torchvision.models.mobilenet_v3_large(weights=None).features
            self.c3, self.c4, self.c5 = f[:7], f[7:13], f[13:16]
            self.lat = nn.ModuleList([cba(40, width), cba(112, width), cba(160, width)])
            self.td = nn.ModuleList([dw_pw(width), dw_pw(width)])
            self.down = nn.ModuleList([dw_pw(width, 2), dw_pw(width, 2)])
            self.bu = nn.ModuleList([dw_pw(width), dw_pw(width)])
            self.head = nn.ModuleList([nn.Sequential(dw_pw(width), dw_pw(width)) for _ in range(3)])
            self.pred = nn.ModuleList([nn.Conv2d(width, classes + 4 * bins, 1) for _ in range(3)])
            self.up = nn.Upsample(scale_factor=2, mode="nearest")
            self.register_buffer("proj", torch.arange(bins, dtype=torch.float32))
            for i, s in enumerate((8, 16, 32)):
                n = size // s
                ys, xs = torch.meshgrid(torch.arange(n), torch.arange(n), indexing="ij")
                c = (torch.stack([xs, ys, xs, ys], -1).reshape(-1, 4).float() + 0.5) * s
                self.register_buffer(f"centers{i}", c)

        def forward(self, x):
            c3 = self.c3(x)
            c4 = self.c4(c3)
            c5 = self.c5(c4)
            p3, p4, p5 = (lat(c) for lat, c in zip(self.lat, (c3, c4, c5)))
            p4 = self.td[0](p4 + self.up(p5))
            p3 = self.td[1](p3 + self.up(p4))
            p4 = self.bu[0](p4 + self.down[0](p3))
            p5 = self.bu[1](p5 + self.down[1](p4))
            scores, boxes = [], []
            for i, (p, s) in enumerate(zip((p3, p4, p5), (8, 16, 32))):
                out = self.pred[i](self.head[i](p)).flatten(2).permute(0, 2, 1)  # [N, HW, C]
                scores.append(torch.sigmoid(out[..., :classes]))
                dist = out[..., classes:].reshape(out.shape[0], out.shape[1], 4, bins).softmax(-1) @ self.proj
                sign = torch.tensor([-1.0, -1.0, 1.0, 1.0])
                boxes.append(getattr(self, f"centers{i}") + sign * dist * s)
            return torch.cat(scores, 1), torch.cat(boxes, 1)

    model = Detector()
    x = torch.from_numpy(_images(713, 4, 3, size, size))
    _calibrate_bn(model, x)
    _randomize_affine(model)
    with torch.no_grad():  # class logits around -2 (a detector's prior)
        for p in model.pred:
            p.bias[:classes] -= 2.0
    model.eval()
    return {"module": model, "feeds": {"input": _images(613, 1, 3, size, size)}, "outputs": ["scores", "boxes"],
            "exporter": "torchscript", "family": "ocr_detection", "atol": 1e-2,  # boxes: pixels
            "description": "PicoDet-style detector (torch modules), 320x320: MobileNetV3-Large features "
                           "(strides 8/16/32), lite PAN neck (nearest upsampling, depthwise 5x5 + pointwise, "
                           "Hardswish), GFL heads: 80 Sigmoid scores and 4 x 8-bin Softmax distances per "
                           "point, boxes decoded from the grid (2100 points, no NMS)"}


FULL_TORCH_BUILDERS = {
    "bert_small": build_full_bert_small,
    "gpt2_small": build_full_gpt2_small,
    "vit_tiny": build_full_vit_tiny,
    "whisper_tiny_encoder": build_full_whisper_tiny_encoder,
    "mobilenet_v3_small": lambda: _full_torchvision(
        "mobilenet_v3_small", 505, "torchvision MobileNetV3-Small, 224x224, 1000 classes: Hardswish, "
                                   "Hardsigmoid squeeze-excite, depthwise convolutions"),
    "efficientnet_b0": lambda: _full_torchvision(
        "efficientnet_b0", 506, "torchvision EfficientNet-B0, 224x224, 1000 classes: MBConv, SiLU, squeeze-excite"),
    "convnext_tiny": lambda: _full_torchvision(
        "convnext_tiny", 507, "torchvision ConvNeXt-T, 224x224, 1000 classes: depthwise 7x7, LayerNorm2d, "
                              "erf GELU, layer scale"),
    "regnet_y_400mf": lambda: _full_torchvision(
        "regnet_y_400mf", 508, "torchvision RegNetY-400MF, 224x224, 1000 classes: group convolutions, "
                               "squeeze-excite"),
    "resnet50": lambda: _full_torchvision(
        "resnet50", 509, "torchvision ResNet-50, 224x224, 1000 classes"),
    "deeplabv3_mobilenet_v3_large": build_full_deeplabv3,
    "crnn": build_full_crnn,
    "picodet_lite": build_full_picodet,
}


def build_full_keras(app: str, seed: int, required: set[str], description: str):
    tfx.keras.backend.clear_session()
    model = getattr(tfx.keras.applications, app)(weights=None, input_shape=(224, 224, 3), classes=1000)
    spec = _keras_vision(model, app, 224, seed, description, required, calib_n=8)
    return {**spec, "family": "keras"}


FULL_TF_BUILDERS = {
    "keras_mobilenetv3small": lambda: build_full_keras(
        "MobileNetV3Small", 1501, {"Conv2D", "DepthwiseConv2dNative", "Relu6", "Mean", "Mul", "AddV2", "Softmax"},
        "Keras MobileNetV3Small (alpha 1.0, 224x224, 1000 classes) with its Rescaling preprocessing: "
        "hard-swish (Relu6 arithmetic), squeeze-excite, 1x1 Conv2D classifier, Softmax"),
    "keras_efficientnetb0": lambda: build_full_keras(
        "EfficientNetB0", 1502, {"Conv2D", "DepthwiseConv2dNative", "Sigmoid", "Mean", "Pad", "MatMul", "Softmax"},
        "Keras EfficientNetB0 (224x224, 1000 classes) with its Rescaling + Normalization preprocessing: swish, "
        "squeeze-excite, ZeroPadding2D"),
    "keras_resnet50v2": lambda: build_full_keras(
        "ResNet50V2", 1503, {"Conv2D", "AddV2", "Relu", "MaxPool", "Pad", "Mean", "MatMul", "Softmax"},
        "Keras ResNet50V2 (224x224, 1000 classes): pre-activation batch norms, MaxPool shortcuts"),
}


# ----------------------------------------------------------------------------

def main(argv: list[str] | None = None) -> int:
    global torch
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--framework", choices=("torch", "tf"), required=True)
    ap.add_argument("--size", choices=("small", "full"), default="small",
                    help="small: the test suite (tests/data/real); full: realistic sizes for the benchmarks, "
                         "into $XMO_BENCH_MODELS or ~/.cache/xmo/bench_models")
    ap.add_argument("--out", type=Path, help="output folder (default: by --size)")
    ap.add_argument("--only", nargs="*", help="build only these models (the manifest keeps the others)")
    args = ap.parse_args(argv)
    full = args.size == "full"
    torch_builders, tf_builders = (FULL_TORCH_BUILDERS, FULL_TF_BUILDERS) if full else (TORCH_BUILDERS, TF_BUILDERS)
    builders = torch_builders if args.framework == "torch" else tf_builders
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

    out: Path = args.out or (bench_models.models_dir() if full else DEFAULT_OUT)
    max_bytes = None if full else MAX_BYTES
    out.mkdir(parents=True, exist_ok=True)
    manifest_path = out / "manifest.json"
    order = [*torch_builders, *tf_builders]
    for name in args.only or builders:
        print(f"== {name}", flush=True)
        entry = write(out, name, builders[name](), max_bytes)
        print(f"  {entry['node_count']} nodes, {entry['bytes']} bytes; "
              + ", ".join(f"{k}:{v}" for k, v in list(entry["op_histogram"].items())[:12]))
        # after each model, re-read: the other framework's run may write it meanwhile
        old = json.loads(manifest_path.read_text()) if manifest_path.exists() else {"models": {}}
        models = {**old["models"], name: entry}
        manifest = {
            "generator": "tools/make_real_models.py" + (" --size full" if full else ""),
            "versions": {**old.get("versions", {}), **versions},
            "npz_keys": "inputs by graph input / Placeholder name, outputs by ONNX output / TF tensor name",
            "models": {k: models[k] for k in order if k in models},
        }
        manifest_path.write_text(json.dumps(manifest, indent=1) + "\n")
    print(f"wrote {manifest_path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
