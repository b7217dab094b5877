"""torchvision detection models with seeded weights, rebuilt from their graphs.

``tests/data/detection/<model>.onnx`` holds an ONNX export of a torchvision
detection model (``tools/make_detection_models.py`` writes it; PyTorch is
needed only there) whose weight initializers were emptied: the dims and data
type stay, the data goes. Every emptied initializer is the model's parameter of
the same name (``state_dict`` key) and its data is :func:`weight`'s, a
function of the name and the shape alone: the export script loads exactly
these tensors into the PyTorch model before exporting and :func:`load` puts
them back with numpy (the repository keeps about 0.5 MB per model instead of
14 / 78 MB of weights).

The rule (per name, NumPy's PCG64 seeded with the name's SHA-256):

* ``*.weight`` of rank 1 (BatchNorm scales): uniform in [0.5, 1.5];
* ``*.bias``: normal, standard deviation 0.1;
* ``*.weight`` of rank >= 2 (convolutions, linear layers): normal with He's
  standard deviation sqrt(2 / fan_in), fan_in = the product of the dims after
  the first, times the model's gain for that name (:data:`MODELS`: the heads'
  last layers, so that class scores spread and boxes stay near their anchors).

The BatchNorm running statistics are not the rule's: the export script
measures them (each BatchNorm's per-channel mean and variance of its input
over :func:`calibration_images`, in one pass in network order), as training
would, and they stay in the file (33k / 24k floats). With statistics that do not
fit the activations, the residual sums of MobileNetV3 grow to ~1e3 and the
bounded activations after them (ReLU6, hard sigmoid) turn float32 rounding
into differences of 1e-1 in the logits: no two runtimes would agree.

:data:`MODELS` describes each model: the torchvision builder and its keyword
arguments (score thresholds chosen so that :func:`inputs` gives one image with
detections and one without, whose scores stay clear of the threshold).
"""

from __future__ import annotations

import fnmatch
import hashlib
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import onnx

DATA = Path(__file__).parent / "data" / "detection"
#: the graph outputs, by name (SSD and Faster R-CNN have them in different orders)
OUTPUTS = ("boxes", "scores", "labels")


@dataclass(frozen=True)
class DetectionModel:
    """One model: torchvision builder name, its keyword arguments, weight gains."""

    builder: str
    kwargs: dict = field(default_factory=dict)
    #: name pattern (fnmatch) -> factor on the He standard deviation of its weights
    gains: dict = field(default_factory=dict)

    def gain(self, name: str) -> float:
        return next((g for p, g in self.gains.items() if fnmatch.fnmatchcase(name, p)), 1.0)


MODELS: dict[str, DetectionModel] = {
    # 3.4M parameters; the heads' last layers scaled for class logits of
    # standard deviation ~1.7 and box deltas of ~0.3
    "ssdlite": DetectionModel(
        "ssdlite320_mobilenet_v3_large",
        {"score_thresh": 0.767},
        {
            "head.classification_head.module_list.*.1.weight": 1.5,
            "head.regression_head.module_list.*.1.weight": 0.2,
        },
    ),
    # 19.4M parameters; the heads' last layers scaled for objectness and class
    # logits of standard deviation ~2.3 and box deltas of ~0.2-0.3
    "fasterrcnn": DetectionModel(
        "fasterrcnn_mobilenet_v3_large_320_fpn",
        {"box_score_thresh": 0.42},
        {
            "rpn.head.cls_logits.weight": 0.5,
            "rpn.head.bbox_pred.weight": 0.05,
            "roi_heads.box_predictor.cls_score.weight": 0.55,
            "roi_heads.box_predictor.bbox_pred.weight": 0.05,
        },
    ),
}


def _rng(name: str) -> np.random.Generator:
    return np.random.default_rng(int.from_bytes(hashlib.sha256(name.encode()).digest()[:8], "little"))


def weight(model: str, name: str, shape: tuple[int, ...]) -> np.ndarray:
    """The float32 tensor of parameter / buffer ``name`` of ``model``."""
    rng = _rng(name)
    shape = tuple(int(d) for d in shape)
    if name.endswith(".weight") and len(shape) == 1:
        return rng.uniform(0.5, 1.5, shape).astype(np.float32)
    if name.endswith(".bias"):
        return (0.1 * rng.standard_normal(shape)).astype(np.float32)
    if name.endswith(".weight"):
        fan_in = int(np.prod(shape[1:]))
        std = MODELS[model].gain(name) * np.sqrt(2.0 / fan_in)
        return (std * rng.standard_normal(shape)).astype(np.float32)
    raise ValueError(f"no weight rule for {name!r}")


def shapes_image(seed: int) -> np.ndarray:
    """3 x 320 x 320 in [0, 1]: six bright rectangles on a noisy background."""
    rng = np.random.default_rng(seed)
    img = 0.2 * rng.random((3, 320, 320), dtype=np.float32)
    for _ in range(6):
        y, x = rng.integers(0, 240, 2)
        h, w = rng.integers(40, 80, 2)
        img[:, y:y + h, x:x + w] += rng.uniform(0.3, 0.8, (3, 1, 1)).astype(np.float32)
    return np.clip(img, 0.0, 1.0)


def inputs() -> dict[str, np.ndarray]:
    """The test images: ``"shapes"`` (detections) and ``"flat"`` (uniform
    grey: none)."""
    return {"shapes": shapes_image(2024), "flat": np.full((3, 320, 320), 0.75, np.float32)}


def calibration_images() -> list[np.ndarray]:
    """The images the export script measures BatchNorm statistics on."""
    return [shapes_image(seed) for seed in range(4)]


def onnx_path(model: str) -> Path:
    """The graph without parameter data (:func:`load` fills it)."""
    return DATA / f"{model}.onnx"


def load(model: str, path: Path | None = None) -> onnx.ModelProto:
    """``model``'s ONNX graph (from ``path``, default :func:`onnx_path`) with
    every emptied initializer filled by :func:`weight`."""
    proto = onnx.load(str(path or onnx_path(model)))
    for init in proto.graph.initializer:
        if is_emptied(init):
            if init.data_type != onnx.TensorProto.FLOAT:
                raise ValueError(f"emptied initializer {init.name!r} is not float32")
            init.raw_data = weight(model, init.name, tuple(init.dims)).tobytes()
    return proto


def is_emptied(init: onnx.TensorProto) -> bool:
    """An initializer with elements and no data (the dims and type kept)."""
    fields = ("raw_data", "float_data", "int32_data", "int64_data", "double_data", "uint64_data", "string_data")
    return int(np.prod(init.dims)) > 0 and not any(len(getattr(init, f)) for f in fields) \
        and not init.external_data


def sorted_detections(boxes: np.ndarray, scores: np.ndarray, labels: np.ndarray):
    """(boxes, scores, labels) in descending score order, ties broken by the
    label then the box coordinates."""
    boxes = np.asarray(boxes).reshape(-1, 4)
    keys = (*boxes.T[::-1], np.asarray(labels), -np.asarray(scores, np.float64))
    order = np.lexsort(keys)
    return boxes[order], np.asarray(scores)[order], np.asarray(labels)[order]


def assert_same_detections(got, ref, *, score_tol: float = 1e-4, box_tol: float = 1e-2) -> int:
    """``got`` and ``ref`` ((boxes, scores, labels) each) hold the same
    detections; returns their number.

    Both are sorted by score (descending). Scores closer than ``score_tol``
    count as tied: the runs of such scores in the reference are compared as
    sets, each side sorted by label and box inside the run (two runtimes may
    order near-equal scores either way). Scores must agree within
    ``score_tol``, boxes within ``box_tol`` pixels, labels exactly.
    """
    gb, gs, gl = sorted_detections(*got)
    rb, rs, rl = sorted_detections(*ref)
    assert len(gs) == len(rs), f"{len(gs)} detections, the reference has {len(rs)}"
    np.testing.assert_allclose(gs, rs, rtol=0, atol=score_tol)
    start = 0
    for end in range(1, len(rs) + 1):
        if end < len(rs) and rs[end - 1] - rs[end] <= score_tol:
            continue
        run = slice(start, end)
        go = np.lexsort((*gb[run].T[::-1], gl[run]))
        ro = np.lexsort((*rb[run].T[::-1], rl[run]))
        np.testing.assert_array_equal(gl[run][go], rl[run][ro])
        np.testing.assert_allclose(gb[run][go], rb[run][ro], rtol=0, atol=box_tol)
        start = end
    return len(rs)
