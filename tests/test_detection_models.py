"""torchvision detection models (SSDlite, Faster R-CNN) exported to ONNX,
converted by xmo, run in OpenVINO (CPU, f32) and on xmo's CPU backend,
compared with onnxruntime.

The models are ``ssdlite320_mobilenet_v3_large`` and
``fasterrcnn_mobilenet_v3_large_320_fpn`` with seeded weights
(``tests/detection_models.py``: the graphs are stored without their weights,
which are rebuilt with numpy; ``tools/make_detection_models.py`` exported
them). Their post-processing keeps an ``If`` decided at run time (no boxes
left -> an empty keep list, else NonMaxSuppression): xmo converts it to an
``ov.If`` with both bodies. Of the two images one yields detections and the
other none, so both branches run in each runtime.

Detections are compared sorted by score, ties broken by label and box; scores
closer than 1e-4 count as tied and are compared as a set
(:func:`detection_models.assert_same_detections`).
"""

from __future__ import annotations

import numpy as np
import onnx
import pytest

import detection_models as dm
import xmo

ort = pytest.importorskip("onnxruntime")
ov = pytest.importorskip("openvino")

#: model -> the number of ov.If in its conversion (the post-processing's
#: batched_nms: SSD has one, Faster R-CNN one in the RPN and one in the heads)
IFS = {"ssdlite": 1, "fasterrcnn": 2}


class Converted:
    """A model rebuilt, converted and saved once; onnxruntime's detections."""

    def __init__(self, name: str, folder) -> None:  # noqa: ANN001
        self.name = name
        self.onnx = folder / f"{name}.onnx"
        onnx.save(dm.load(name), str(self.onnx))
        sess = ort.InferenceSession(str(self.onnx), providers=["CPUExecutionProvider"])
        self.reference = {k: sess.run(list(dm.OUTPUTS), {"images": v}) for k, v in dm.inputs().items()}
        self.module = xmo.convert_model(str(self.onnx))
        self.xml = folder / f"{name}.xml"
        xmo.save_model(self.module, self.xml)


@pytest.fixture(scope="module", params=sorted(dm.MODELS))
def model(request, tmp_path_factory) -> Converted:
    return Converted(request.param, tmp_path_factory.mktemp(request.param))


def _check(outputs_for, model: Converted) -> None:
    counts = {}
    for image, x in dm.inputs().items():
        counts[image] = dm.assert_same_detections(outputs_for(x), model.reference[image])
    # both branches of the post-processing's If ran
    assert counts["shapes"] > 0 and counts["flat"] == 0, counts


def test_onnxruntime_matches_pytorch(model: Converted) -> None:
    """The rebuilt weights are the exported ones: onnxruntime gives PyTorch's
    detections (recorded at export time)."""
    torch_out = np.load(dm.DATA / f"{model.name}.torch.npz")
    for image in dm.inputs():
        ref = [torch_out[f"{image}/{o}"] for o in dm.OUTPUTS]
        dm.assert_same_detections(model.reference[image], ref)


def test_post_processing_if_is_kept(model: Converted) -> None:
    ifs = [op for op in model.module.walk() if op.name == "ov.If"]
    assert len(ifs) == IFS[model.name]


def test_openvino_matches_onnxruntime(model: Converted) -> None:
    compiled = ov.Core().compile_model(str(model.xml), "CPU", {"INFERENCE_PRECISION_HINT": "f32"})

    def run(x: np.ndarray) -> list[np.ndarray]:
        res = compiled({"images": x})
        return [res[compiled.output(o)] for o in dm.OUTPUTS]

    _check(run, model)


def test_xmo_cpu_matches_onnxruntime(model: Converted) -> None:
    compiled = xmo.compile_model(model.module)

    def run(x: np.ndarray) -> list[np.ndarray]:
        res = compiled({"images": x})
        return [np.asarray(res[o]) for o in dm.OUTPUTS]

    _check(run, model)
