#!/usr/bin/env python3
"""Export torchvision detection models to ONNX for tests/test_detection_models.py.

A developer script: it needs PyTorch and torchvision, which the xmo venv does
not have. Run it with a separate venv::

    python3 -m venv /tmp/torchvenv
    /tmp/torchvenv/bin/pip install torch==2.14.1 torchvision==0.29.1 onnx onnxruntime numpy
    /tmp/torchvenv/bin/python tools/make_detection_models.py [--out tests/data/detection]

For every model of ``tests/detection_models.py`` (``MODELS``) it

1. builds the torchvision model (no pretrained weights) with the listed
   keyword arguments, loads :func:`detection_models.weight`'s tensor into
   every float parameter and sets the BatchNorm running statistics to those
   measured on :func:`detection_models.calibration_images` (``calibrate``);
2. runs it on :func:`detection_models.inputs` and checks that one image gives
   detections and the other none, and that no score of the model with a zero
   threshold lies within 0.5% of the threshold (so that a runtime's rounding
   cannot move a detection across it);
3. exports it with the classic TorchScript exporter
   (``torch.onnx.export(..., dynamo=False)``, opset 17, one 3x320x320 image,
   outputs named as the model's output dict: ``boxes``, ``scores`` and
   ``labels`` in the model's order) and
   ``do_constant_folding=False``: the initializers are then exactly the
   ``state_dict`` tensors under their own names (folding would merge the
   BatchNorms into the convolutions under new names);
4. empties every initializer whose data is the rule's (the check is exact) and
   writes ``<model>.onnx``; reloads it with :func:`detection_models.load` and
   checks it is the exported model, and that onnxruntime's detections on it
   match PyTorch's (``assert_same_detections``);
5. writes ``<model>.torch.npz``: PyTorch's outputs per image
   (``<image>/boxes``, ``<image>/scores``, ``<image>/labels``).
"""

from __future__ import annotations

import argparse
import io
import sys
from pathlib import Path

import numpy as np
import onnx

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))

import detection_models as dm  # noqa: E402

sys.path.insert(0, str(ROOT / "tools"))
from make_tf_fixtures import save_npz  # noqa: E402  (numpy-only at import)

OPSET = 17


def build(torch, name: str, **override):  # noqa: ANN001, ANN201
    """The torchvision model of ``MODELS[name]`` with the rule's weights and
    calibrated BatchNorm statistics."""
    from torchvision.models import detection

    spec = dm.MODELS[name]
    model = getattr(detection, spec.builder)(weights=None, weights_backbone=None, **{**spec.kwargs, **override})
    state = model.state_dict()
    for k, v in state.items():
        if v.dtype == torch.float32 and not k.endswith(("running_mean", "running_var")):
            state[k] = torch.from_numpy(dm.weight(name, k, tuple(v.shape)))
    model.load_state_dict(state)
    calibrate(torch, model.eval())
    return model


def calibrate(torch, model) -> None:  # noqa: ANN001
    """Each BatchNorm's running mean / variance := the per-channel mean /
    variance of its input on the calibration images, set just before it runs
    (so later layers see the calibrated earlier ones)."""

    def measure(bn, args) -> None:  # noqa: ANN001
        x = args[0].detach().double()
        bn.running_mean.copy_(x.mean(dim=(0, 2, 3)).float())
        bn.running_var.copy_(x.var(dim=(0, 2, 3)).float())

    hooks = [m.register_forward_pre_hook(measure) for m in model.modules()
             if isinstance(m, torch.nn.BatchNorm2d)]
    with torch.no_grad():
        model([torch.from_numpy(img) for img in dm.calibration_images()])
    for h in hooks:
        h.remove()


def run_torch(torch, model, image: np.ndarray) -> dict[str, np.ndarray]:  # noqa: ANN001
    """The model's output dict for one image (its order is the ONNX outputs')."""
    with torch.no_grad():
        out = model([torch.from_numpy(image)])[0]
    return {k: v.numpy() for k, v in out.items()}


def threshold_margin(torch, name: str, images: dict[str, np.ndarray]) -> None:  # noqa: ANN001
    """No score of the zero-threshold model within 0.5% of the threshold."""
    (key, thresh), = ((k, v) for k, v in dm.MODELS[name].kwargs.items() if k.endswith("score_thresh"))
    model = build(torch, name, **{key: 0.0})
    for image_name, image in images.items():
        scores = run_torch(torch, model, image)["scores"]
        near = scores[np.abs(scores - thresh) < 0.005 * thresh]
        if near.size:
            raise SystemExit(f"{name}/{image_name}: scores {near} too close to the threshold {thresh}")


def strip(proto: onnx.ModelProto, name: str) -> int:
    """Empty the initializers holding the rule's data; returns how many."""
    from onnx import numpy_helper

    n = 0
    for init in proto.graph.initializer:
        if init.data_type != onnx.TensorProto.FLOAT:
            continue
        data = numpy_helper.to_array(init)
        try:
            expected = dm.weight(name, init.name, data.shape)
        except ValueError:
            continue
        if np.array_equal(data, expected):
            init.ClearField("raw_data")
            init.ClearField("float_data")
            n += 1
    return n


def make(torch, name: str, out: Path) -> None:  # noqa: ANN001
    import onnxruntime as ort

    images = dm.inputs()
    model = build(torch, name)
    n_params = sum(p.numel() for p in model.parameters())
    ref = {k: run_torch(torch, model, img) for k, img in images.items()}
    counts = {k: len(v["scores"]) for k, v in ref.items()}
    print(f"== {name}: {n_params} parameters, PyTorch detections {counts}")
    if not counts["shapes"] or counts["flat"]:
        raise SystemExit(f"{name}: want detections on 'shapes' and none on 'flat', got {counts}")
    threshold_margin(torch, name, images)

    buf = io.BytesIO()
    torch.onnx.export(
        model, ([torch.from_numpy(images["shapes"])],), buf, dynamo=False, opset_version=OPSET,
        do_constant_folding=False, input_names=["images"], output_names=list(ref["shapes"]),
    )
    full = onnx.load_from_string(buf.getvalue())
    stripped = onnx.ModelProto()
    stripped.CopyFrom(full)
    n = strip(stripped, name)
    left = [i.name for i in stripped.graph.initializer if not dm.is_emptied(i)]
    print(f"  {len(stripped.graph.node)} nodes, {n} initializers emptied, kept {len(left)}: {left[:8]}")
    path = out / f"{name}.onnx"
    onnx.save(stripped, str(path))
    print(f"  {path}: {path.stat().st_size} bytes (full model {len(buf.getvalue())})")

    rebuilt = dm.load(name, path)
    if rebuilt.SerializeToString() != full.SerializeToString():
        raise SystemExit(f"{name}: the rebuilt model differs from the export")
    sess = ort.InferenceSession(rebuilt.SerializeToString(), providers=["CPUExecutionProvider"])
    for k, img in images.items():
        got = sess.run(list(dm.OUTPUTS), {"images": img})
        dm.assert_same_detections(got, [ref[k][o] for o in dm.OUTPUTS])
    print("  onnxruntime matches PyTorch on", ", ".join(f"{k} ({c})" for k, c in counts.items()))
    save_npz(out / f"{name}.torch.npz",
             {f"{k}/{o}": v for k, outs in ref.items() for o, v in outs.items()})


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", type=Path, default=dm.DATA, help="output folder")
    ap.add_argument("--only", nargs="*", choices=sorted(dm.MODELS), help="export only these models")
    args = ap.parse_args(argv)

    import torch

    torch.manual_seed(0)
    torch.set_num_threads(1)
    import torchvision

    print(f"torch {torch.__version__}, torchvision {torchvision.__version__}, onnx {onnx.__version__}")
    args.out.mkdir(parents=True, exist_ok=True)
    for name in args.only or dm.MODELS:
        make(torch, name, args.out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
