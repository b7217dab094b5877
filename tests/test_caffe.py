"""The Caffe frontend (``.prototxt`` + ``.caffemodel``), against OpenCV's dnn.

The nets come from ``tools/make_caffe_models.py`` (random weights, real
architectures at a small size), generated into a temporary folder once per
module. Each converts and matches OpenCV's ``cv2.dnn`` (which reads Caffe
models itself) at rtol 1e-3 / atol 1e-4 in OpenVINO (f32) and on xmo's CPU
backend; detections are compared after sorting. Layers OpenCV does not read
(or reads differently: it ignores ``log_param`` and LRN's ``k``) are checked
against numpy references of Caffe's definitions.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

import numpy as np
import pytest
from tf_graphs import run_in_openvino, run_on_cpu_backend

import xmo
from xmo.frontends.caffe.loader import CaffeFrontendError, graph_input_shapes
from xmo.tools.make_caffe_models import write_model

cv2 = pytest.importorskip("cv2")

RTOL, ATOL = 1e-3, 1e-4
ROOT = Path(__file__).resolve().parent.parent
EXAMPLE = ROOT / "examples" / "caffe_python_layer"

#: nets compared with OpenCV
OPENCV_NETS = ("squeezenet", "resnet", "mobilenet_ssd", "faster_rcnn", "activations", "pooling",
               "convs", "shapes", "legacy_v1")


@pytest.fixture(scope="module")
def nets(tmp_path_factory):
    folder = tmp_path_factory.mktemp("caffe")
    made: dict[str, tuple[Path, Path]] = {}

    def get(name: str) -> tuple[Path, Path]:
        if name not in made:
            made[name] = write_model(name, folder)
        return made[name]

    return get


@pytest.fixture(scope="module")
def converted(nets):
    cache: dict[str, object] = {}

    def get(name: str):
        if name not in cache:
            cache[name] = xmo.convert_model(str(nets(name)[0]))
        return cache[name]

    return get


def _feeds(proto: Path, seed: int = 0) -> dict[str, np.ndarray]:
    rng = np.random.default_rng(seed)
    feeds = {k: rng.standard_normal(v).astype(np.float32) for k, v in graph_input_shapes(proto).items()}
    if "im_info" in feeds:  # Faster R-CNN: image height, width, scale
        feeds["im_info"] = np.float32([[*feeds["data"].shape[2:], 1.0]])
    return feeds


def _opencv(proto: Path, model: Path, feeds: dict, names: list[str]) -> list[np.ndarray]:
    net = cv2.dnn.readNetFromCaffe(str(proto), str(model))
    for k, v in feeds.items():
        net.setInput(v, k)
    return [np.asarray(a) for a in net.forward(names)]


def _detections(a: np.ndarray) -> np.ndarray:
    rows = a.reshape(-1, 7)
    rows = rows[rows[:, 0] >= 0]
    return rows[np.lexsort((rows[:, 4], rows[:, 3], -rows[:, 2], rows[:, 1], rows[:, 0]))]


def _check(got: list, refs: list[np.ndarray], names: list[str], what: str) -> None:
    assert len(got) == len(refs), what
    for (tnames, value), ref, name in zip(got, refs, names):
        assert name in tnames, f"{what}: {name} not in {tnames}"
        if name == "detection_out":
            value, ref = _detections(value), _detections(ref)
            assert len(ref), f"{what}: no detections to compare"
        assert value.shape == ref.shape, f"{what} {name}: {value.shape} != {ref.shape}"
        np.testing.assert_allclose(value, ref, rtol=RTOL, atol=ATOL, err_msg=f"{what} {name}")


@pytest.mark.parametrize("name", OPENCV_NETS)
def test_net_matches_opencv(name, nets, converted, tmp_path):
    proto, model = nets(name)
    module = converted(name)
    feeds = _feeds(proto)
    cpu = run_on_cpu_backend(module, feeds)
    # outputs are the blobs no layer consumes; the layer producing each is
    # what OpenCV's forward() takes (layer name == blob name in the fixtures)
    names = [sorted(n)[0] for n, _ in cpu]
    refs = _opencv(proto, model, feeds, names)
    _check(cpu, refs, names, f"{name} on the CPU backend")
    _check(run_in_openvino(module, feeds, tmp_path), refs, names, f"{name} in OpenVINO")


def test_faster_rcnn_proposals(nets, tmp_path):
    """The Proposal layer's ROIs themselves (cut with ``output``): anchors,
    decoding, clipping, NMS as OpenCV (Caffe's Faster R-CNN) computes them."""
    proto, model = nets("faster_rcnn")
    feeds = _feeds(proto)
    module = xmo.convert_model(str(proto), output="rois")
    ref = _opencv(proto, model, feeds, ["proposal"])
    for where, got in (("CPU backend", run_on_cpu_backend(module, feeds)),
                       ("OpenVINO", run_in_openvino(module, feeds, tmp_path))):
        np.testing.assert_allclose(got[0][1], ref[0], rtol=RTOL, atol=ATOL, err_msg=where)


def _interp_align_corners(x: np.ndarray, oh: int, ow: int) -> np.ndarray:
    h, w = x.shape[2:]
    ys = np.arange(oh) * (h - 1) / (oh - 1)
    xs = np.arange(ow) * (w - 1) / (ow - 1)
    y0, x0 = np.floor(ys).astype(int), np.floor(xs).astype(int)
    y1, x1 = np.minimum(y0 + 1, h - 1), np.minimum(x0 + 1, w - 1)
    fy, fx = (ys - y0)[:, None], (xs - x0)[None, :]
    g = lambda yy, xx: x[:, :, yy][:, :, :, xx]  # noqa: E731
    return (g(y0, x0) * (1 - fy) * (1 - fx) + g(y0, x1) * (1 - fy) * fx
            + g(y1, x0) * fy * (1 - fx) + g(y1, x1) * fy * fx)


def _lrn(x: np.ndarray, n: int, alpha: float, beta: float, k: float, within: bool) -> np.ndarray:
    if within:  # average of squares over an n x n window, zero padded
        p = (n - 1) // 2
        sq = np.pad(x * x, ((0, 0), (0, 0), (p, n - 1 - p), (p, n - 1 - p)))
        s = sum(sq[:, :, i:i + x.shape[2], j:j + x.shape[3]] for i in range(n) for j in range(n))
        return x * (1 + alpha / (n * n) * s) ** -beta
    sq = np.pad(x * x, ((0, 0), ((n - 1) // 2, n // 2), (0, 0), (0, 0)))
    s = sum(sq[:, i:i + x.shape[1]] for i in range(n))
    return x * (k + alpha / n * s) ** -beta


def test_layers_against_numpy(nets, converted, tmp_path):
    """Log with base/scale/shift, ShuffleChannel, ArgMax (axis; flattened with
    values), Axpy, Interp (aligned corners), nearest Upsample, Bias, LRN with
    k and within channels: Caffe's definitions in numpy."""
    proto, _ = nets("numpy_layers")
    module = converted("numpy_layers")
    feeds = _feeds(proto, seed=3)
    x, a = feeds["data"], feeds["alpha"]
    bias = xmo.frontends.caffe.loader.read_weights(str(proto.with_suffix(".caffemodel")))[1]
    bias = next(r.blobs[0] for r in bias if r.message.name == "bias")
    shuffle = x.reshape(1, 3, 2, 4, 5).transpose(0, 2, 1, 3, 4).reshape(1, 6, 4, 5)
    order = np.argsort(-x, axis=1, kind="stable")
    flat = x.reshape(1, -1)
    top3 = np.argsort(-flat, axis=1, kind="stable")[:, :3]
    want = {
        "log": np.log10(2.0 * x + 9.0),
        "argmax": order[:, :2].astype(np.float32),
        "argmax_flat": np.stack([top3, np.take_along_axis(flat, top3, 1)], 1).astype(np.float32),
        "axpy": a * x + shuffle,  # ShuffleChannel's output is Axpy's third bottom
        "interp": _interp_align_corners(x, 7, 9),
        "upsample": x.repeat(2, axis=2).repeat(2, axis=3),
        "bias": x + bias.reshape(1, 6, 1, 1),
        "lrn_k": _lrn(x, 3, 0.1, 0.75, 2.0, within=False),
        "lrn_within": _lrn(x, 3, 0.2, 0.5, 1.0, within=True),
    }
    for where, got in (("CPU backend", run_on_cpu_backend(module, feeds)),
                       ("OpenVINO", run_in_openvino(module, feeds, tmp_path))):
        seen = set()
        for names, value in got:
            name = next(n for n in names if n in want)
            seen.add(name)
            np.testing.assert_allclose(value, want[name], rtol=RTOL, atol=ATOL,
                                       err_msg=f"{name} on the {where}")
        assert seen == set(want), where


def test_python_layer_needs_an_extension(nets, tmp_path):
    proto, model = nets("python_layer")
    with pytest.raises(xmo.errors.ConversionError) as e:
        xmo.convert_model(str(proto))
    report = str(e.value)
    assert "Python:custom_layers.ScaleClip (1): clip" in report
    assert "no extension provides an extractor" in report
    module = xmo.convert_model(str(proto), extensions=[EXAMPLE])
    feeds = _feeds(proto)
    # OpenCV cannot run Caffe Python layers: the reference is the net in numpy
    from xmo.frontends.caffe.loader import read_weights

    blobs = {r.message.name: r.blobs for r in read_weights(str(model))[1]}
    x = feeds["data"]
    w1, b1 = blobs["conv1"]
    pad = np.pad(x, ((0, 0), (0, 0), (1, 1), (1, 1)))
    win = np.lib.stride_tricks.sliding_window_view(pad, (3, 3), axis=(2, 3))  # 1,3,8,8,3,3
    y = np.einsum("nchwij,ocij->nohw", win, w1) + b1.reshape(1, -1, 1, 1)
    y = np.clip(2.0 * y, -1.0, 1.0)
    w2, b2 = blobs["conv2"]
    want = np.einsum("nchw,oc->nohw", y, w2.reshape(2, 4)) + b2.reshape(1, -1, 1, 1)
    for where, got in (("CPU backend", run_on_cpu_backend(module, feeds)),
                       ("OpenVINO", run_in_openvino(module, feeds, tmp_path))):
        np.testing.assert_allclose(got[0][1], want, rtol=RTOL, atol=ATOL, err_msg=where)


def test_model_files(nets, tmp_path):
    """``net.prototxt`` finds ``net.caffemodel`` beside it; ``x.caffemodel
    --input_proto deploy.prototxt``; a caffemodel alone (its own structure)."""
    proto, model = nets("convs")
    feeds = _feeds(proto)
    want = run_on_cpu_backend(xmo.convert_model(str(proto)), feeds)[0][1]
    other = tmp_path / "weights.caffemodel"
    other.write_bytes(model.read_bytes())
    deploy = tmp_path / "deploy.prototxt"
    deploy.write_text(proto.read_text())
    alone = tmp_path / "alone" / "trained.caffemodel"
    alone.parent.mkdir()
    alone.write_bytes(model.read_bytes())
    for kw in ({"input_model": str(other), "input_proto": str(deploy)},
               {"input_model": str(alone)}):
        m = xmo.convert_model(kw.pop("input_model"), **kw)
        np.testing.assert_array_equal(run_on_cpu_backend(m, feeds)[0][1], want)
    # the prototxt alone: layers needing learned blobs are reported
    with pytest.raises(xmo.errors.ConversionError, match="missing .caffemodel"):
        xmo.convert_model(str(deploy))
    with pytest.raises(CaffeFrontendError, match="give the caffemodel as the model"):
        xmo.convert_model(str(deploy), input_proto=str(deploy))


def test_blobs_are_views_of_the_file(nets):
    from xmo.frontends.caffe.loader import read_weights

    _, layers = read_weights(str(nets("resnet")[1]))
    arrays = [b for r in layers for b in r.blobs]
    assert arrays and all(not b.flags.owndata and b.base is not None for b in arrays)
    assert all(b.dtype == np.float32 for b in arrays)


def _cli(capsys, *args: str) -> subprocess.CompletedProcess:
    """``xmo ARGS`` in this process (exit code, stdout, stderr)."""
    from xmo.tools.xmo_main import main

    capsys.readouterr()
    rc = main(list(args))
    out = capsys.readouterr()
    return subprocess.CompletedProcess(args, rc, out.out, out.err)


def test_malformed_files_one_line_nothing_written(nets, tmp_path, capsys):
    proto, model = nets("convs")
    cases = {
        "truncated": (proto.read_text(), model.read_bytes()[: len(model.read_bytes()) // 2],
                      "not a valid caffemodel"),
        "syntax": (proto.read_text().replace("layer {", "layer {{", 1), model.read_bytes(),
                   "not a valid prototxt"),
        "dangling": (proto.read_text().replace('bottom: "dil"', 'bottom: "nowhere"', 1),
                     model.read_bytes(), "bottom 'nowhere' is not produced"),
        "empty_weights": (proto.read_text(), b"", "empty file"),
    }
    for name, (text, weights, msg) in cases.items():
        folder = tmp_path / name
        folder.mkdir()
        (folder / "m.prototxt").write_text(text)
        (folder / "m.caffemodel").write_bytes(weights)
        out = folder / "out"
        r = _cli(capsys, "convert", str(folder / "m.prototxt"), "-o", str(out / "m.xml"))
        assert r.returncode != 0, name
        lines = r.stderr.strip().splitlines()
        assert len(lines) == 1 and lines[0].startswith("xmo: error: "), (name, r.stderr)
        assert msg in lines[0], (name, lines[0])
        assert not out.exists(), name


def test_cli_detects_caffe_and_input_proto(nets, tmp_path, capsys):
    proto, model = nets("convs")
    other = tmp_path / "w.caffemodel"
    other.write_bytes(model.read_bytes())
    r = _cli(capsys, "convert", str(other), "--input_proto", str(proto), "-o", str(tmp_path / "m.xml"),
             "--mean_values", "[1,2,3,4]", "--scale_values", "data[2]")
    assert r.returncode == 0, r.stderr
    xml = (tmp_path / "m.xml").read_text()
    assert "data/mean" in xml and "data/scale" in xml
    assert '<rt_info>' in xml and 'input_proto' in xml


# ---------------------------------------------------------------------------
# Preprocessing options (every frontend)
# ---------------------------------------------------------------------------


def _onnx_model() -> bytes:
    from onnx import TensorProto, helper

    g = helper.make_graph(
        [helper.make_node("Relu", ["x"], ["y"]), helper.make_node("Neg", ["m"], ["z"])], "g",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 3, 2, 2]),
         helper.make_tensor_value_info("m", TensorProto.FLOAT, [1, 4])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 3, 2, 2]),
         helper.make_tensor_value_info("z", TensorProto.FLOAT, [1, 4])])
    return helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)]).SerializeToString()


def test_preprocessing_on_an_onnx_model(tmp_path):
    model = _onnx_model()
    rng = np.random.default_rng(1)
    feeds = {"x": rng.standard_normal([1, 3, 2, 2]).astype(np.float32) * 50,
             "m": rng.standard_normal([1, 4]).astype(np.float32)}
    module = xmo.convert_model(model, mean_values="x[1,2,3]", scale_values={"x": [2, 4, 8]},
                               reverse_input_channels=True)
    x = feeds["x"][:, ::-1]
    want_y = np.maximum((x - np.float32([1, 2, 3]).reshape(1, 3, 1, 1))
                        / np.float32([2, 4, 8]).reshape(1, 3, 1, 1), 0)
    for where, got in (("CPU backend", run_on_cpu_backend(module, feeds)),
                       ("OpenVINO", run_in_openvino(module, feeds, tmp_path))):
        np.testing.assert_allclose(got[0][1], want_y, rtol=1e-6, err_msg=where)
        np.testing.assert_array_equal(got[1][1], -feeds["m"])  # 4 channels: not reversed
    # values without a name apply to every input whose channels match
    module = xmo.convert_model(model, mean_values=[0.5, 0.5, 0.5, 0.5])
    got = run_on_cpu_backend(module, feeds)
    np.testing.assert_array_equal(got[0][1], np.maximum(feeds["x"], 0))
    np.testing.assert_allclose(got[1][1], -(feeds["m"] - 0.5))


@pytest.mark.parametrize(("kw", "msg"), [
    ({"mean_values": "nope[1,2,3]"}, "--mean_values: no model input matches 'nope'"),
    ({"mean_values": "x[1,2]"}, "input 'x' has 3 channels, 2 values given"),
    ({"scale_values": "x[1,0,1]"}, "a scale value of 0"),
    ({"mean_values": "x[1,a]"}, "values must be numbers"),
    ({"mean_values": "x(1,2)"}, "cannot parse"),
])
def test_preprocessing_errors(kw, msg):
    with pytest.raises(xmo.options.OptionError, match=msg.replace("[", r"\[")):
        xmo.convert_model(_onnx_model(), **kw)


def test_preprocessing_on_a_caffe_net_matches_opencv(nets, tmp_path):
    """SqueezeNet with mean/scale/reverse vs OpenCV fed the preprocessed input."""
    proto, model = nets("squeezenet")
    feeds = _feeds(proto, seed=5)
    x = feeds["data"] * 60 + 120
    mean, scale = np.float32([104, 117, 123]), np.float32([58, 57, 57])
    module = xmo.convert_model(str(proto), mean_values="data[104,117,123]",
                               scale_values="[58,57,57]", reverse_input_channels=True)
    pre = (x[:, ::-1] - mean.reshape(1, 3, 1, 1)) / scale.reshape(1, 3, 1, 1)
    ref = _opencv(proto, model, {"data": np.ascontiguousarray(pre)}, ["prob"])
    _check(run_on_cpu_backend(module, {"data": x}), ref, ["prob"], "CPU backend")
    _check(run_in_openvino(module, {"data": x}, tmp_path), ref, ["prob"], "OpenVINO")


def test_preprocessing_through_the_xmo_convert_pass():
    """``xmo-opt MODEL -p 'xmo-convert{mean_values=...}'`` preprocesses as ``xmo convert``."""
    from xmo.context import make_context
    from xmo.frontends import load_framework_model
    from xmo.passes.conversion import XmoConvertPass

    ctx = make_context()
    module = load_framework_model(_onnx_model(), ctx)
    XmoConvertPass(mean_values="x[1,2,3]", reverse_input_channels=True).apply(ctx, module)
    names = {op.get_friendly_name() for op in module.body.block.ops if hasattr(op, "get_friendly_name")}
    assert {"x/reverse_input_channels", "x/mean"} <= names
