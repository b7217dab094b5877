"""Small random-weight Caffe nets for the Caffe frontend's tests (no Caffe needed).

Each net is written as a deploy ``<name>.prototxt`` and a trained
``<name>.caffemodel`` with xmo's own Caffe schema
(:mod:`xmo.frontends.caffe.schema`) and numpy: real architectures at a small
size (a SqueezeNet-style net with Fire modules, a ResNet-style net with
BatchNorm + Scale, a MobileNet-SSD-style detector with depthwise convolutions,
Normalize, PriorBox and DetectionOutput) and one small net per layer family.
Weights come from a seeded generator, so the files are the same on every run.

    python -m xmo.tools.make_caffe_models OUT_DIR [NAME ...]

:data:`MODELS` maps each name to its builder; :func:`write_model` writes one.
The tests generate what they need into a temporary folder (a few ms each).
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np
from google.protobuf import text_format

from xmo.frontends.caffe import schema


class Net:
    """A NetParameter under construction: layers with their blobs."""

    def __init__(self, name: str, seed: int = 0) -> None:
        self.net = schema.NetParameter()
        self.net.name = name
        self.rng = np.random.default_rng(seed)
        self.blobs: dict[str, list[np.ndarray]] = {}
        self.shapes: dict[str, list[int]] = {}

    # -- building ----------------------------------------------------------------
    def input(self, name: str, shape: Sequence[int], legacy: bool = False) -> str:
        if legacy:
            self.net.input.append(name)
            self.net.input_shape.add().dim.extend(shape)
        else:
            layer = self.layer(name, "Input", [], [name])
            layer.input_param.shape.add().dim.extend(shape)
        self.shapes[name] = list(shape)
        return name

    def layer(self, name: str, type_: str, bottoms: Sequence[str], tops: Sequence[str] | None = None,
              blobs: Sequence[np.ndarray] = (), **params: Any) -> Any:
        layer = self.net.layer.add()
        layer.name, layer.type = name, type_
        layer.bottom.extend(bottoms)
        layer.top.extend(tops if tops is not None else [name])
        for field, values in params.items():
            _fill(getattr(layer, field), values)
        if blobs:
            self.blobs[name] = [np.asarray(b, np.float32) for b in blobs]
        return layer

    def w(self, *shape: int, scale: float | None = None) -> np.ndarray:
        fan_in = int(np.prod(shape[1:])) if len(shape) > 1 else 1
        s = scale if scale is not None else 1.0 / np.sqrt(max(fan_in, 1))
        return (self.rng.standard_normal(shape) * s).astype(np.float32)

    def conv(self, name: str, bottom: str, cin: int, cout: int, k: int, stride: int = 1,
             pad: int = 0, group: int = 1, dilation: int = 1, bias: bool = True) -> str:
        p: dict[str, Any] = {"num_output": cout, "kernel_size": [k], "stride": [stride],
                             "pad": [pad], "bias_term": bias}
        if group != 1:
            p["group"] = group
        if dilation != 1:
            p["dilation"] = [dilation]
        blobs = [self.w(cout, cin // group, k, k)]
        if bias:
            blobs.append(self.w(cout, scale=0.1))
        self.layer(name, "Convolution", [bottom], [name], blobs, convolution_param=p)
        return name

    def relu(self, name: str, blob: str) -> str:
        self.layer(name, "ReLU", [blob], [blob])  # in place
        return blob

    def bn_scale(self, name: str, blob: str, c: int) -> str:
        mean = self.w(c, scale=0.2)
        var = (self.rng.random(c) + 0.5).astype(np.float32)
        factor = np.float32(self.rng.random() * 10 + 1)
        self.layer(f"{name}/bn", "BatchNorm", [blob], [blob],
                   [mean * factor, var * factor, np.asarray([factor], np.float32)],
                   batch_norm_param={"use_global_stats": True, "eps": 1e-5})
        self.layer(f"{name}/scale", "Scale", [blob], [blob],
                   [(self.rng.random(c) + 0.5).astype(np.float32), self.w(c, scale=0.1)],
                   scale_param={"bias_term": True})
        return blob

    # -- writing -----------------------------------------------------------------
    def write(self, folder: Path) -> tuple[Path, Path]:
        folder.mkdir(parents=True, exist_ok=True)
        proto = folder / f"{self.net.name}.prototxt"
        model = folder / f"{self.net.name}.caffemodel"
        proto.write_text(text_format.MessageToString(self.net))
        trained = schema.NetParameter()
        trained.CopyFrom(self.net)
        for layer in [*trained.layer, *trained.layers]:
            for arr in self.blobs.get(layer.name, []):
                blob = layer.blobs.add()
                blob.shape.dim.extend(arr.shape)
                blob.data.extend(arr.reshape(-1).tolist())  # small fixtures only
        model.write_bytes(trained.SerializeToString())
        return proto, model


def _fill(msg: Any, values: dict[str, Any]) -> None:
    for k, v in values.items():
        if isinstance(v, dict):
            _fill(getattr(msg, k), v)
        elif isinstance(v, list) and v and isinstance(v[0], dict):
            for item in v:
                _fill(getattr(msg, k).add(), item)
        elif isinstance(v, list):
            getattr(msg, k).extend(v)
        elif isinstance(v, str) and msg.DESCRIPTOR.fields_by_name[k].enum_type is not None:
            setattr(msg, k, msg.DESCRIPTOR.fields_by_name[k].enum_type.values_by_name[v].number)
        else:
            setattr(msg, k, v)


# ---------------------------------------------------------------------------
# Real architectures, small
# ---------------------------------------------------------------------------


def squeezenet() -> Net:
    n = Net("squeezenet", 1)
    x = n.input("data", [1, 3, 64, 64])
    x = n.relu("relu1", n.conv("conv1", x, 3, 16, 3, stride=2))
    x = n.layer("pool1", "Pooling", [x], ["pool1"], pooling_param={"pool": "MAX", "kernel_size": 3, "stride": 2}).top[0]

    def fire(name: str, x: str, cin: int, s: int, e: int) -> str:
        sq = n.relu(f"{name}/relu_squeeze", n.conv(f"{name}/squeeze1x1", x, cin, s, 1))
        e1 = n.relu(f"{name}/relu_e1", n.conv(f"{name}/expand1x1", sq, s, e, 1))
        e3 = n.relu(f"{name}/relu_e3", n.conv(f"{name}/expand3x3", sq, s, e, 3, pad=1))
        n.layer(f"{name}/concat", "Concat", [e1, e3])
        return f"{name}/concat"

    x = fire("fire2", x, 16, 8, 16)
    x = fire("fire3", x, 32, 8, 16)
    x = n.layer("pool3", "Pooling", [x], ["pool3"], pooling_param={"pool": "MAX", "kernel_size": 3, "stride": 2}).top[0]
    x = fire("fire4", x, 32, 16, 32)
    n.layer("drop", "Dropout", [x], [x], dropout_param={"dropout_ratio": 0.5})
    x = n.relu("relu10", n.conv("conv10", x, 64, 10, 1))
    n.layer("pool10", "Pooling", [x], ["pool10"], pooling_param={"pool": "AVE", "global_pooling": True})
    n.layer("prob", "Softmax", ["pool10"])
    return n


def resnet() -> Net:
    n = Net("resnet", 2)
    x = n.input("data", [1, 3, 32, 32])
    x = n.conv("conv1", x, 3, 16, 7, stride=2, pad=3, bias=False)
    x = n.relu("conv1_relu", n.bn_scale("conv1", x, 16))
    x = n.layer("pool1", "Pooling", [x], ["pool1"], pooling_param={"pool": "MAX", "kernel_size": 3, "stride": 2}).top[0]

    def block(name: str, x: str, cin: int, cout: int, stride: int) -> str:
        a = n.relu(f"{name}_relu_a", n.bn_scale(f"{name}_a", n.conv(f"{name}_conv_a", x, cin, cout, 3, stride, 1, bias=False), cout))
        bb = n.bn_scale(f"{name}_b", n.conv(f"{name}_conv_b", a, cout, cout, 3, 1, 1, bias=False), cout)
        short = x
        if stride != 1 or cin != cout:
            short = n.bn_scale(f"{name}_proj", n.conv(f"{name}_conv_proj", x, cin, cout, 1, stride, bias=False), cout)
        n.layer(f"{name}_sum", "Eltwise", [short, bb])
        return n.relu(f"{name}_relu", f"{name}_sum")

    x = block("res2a", x, 16, 16, 1)
    x = block("res3a", x, 16, 32, 2)
    n.layer("pool5", "Pooling", [x], ["pool5"], pooling_param={"pool": "AVE", "kernel_size": 4, "stride": 1})
    n.layer("fc10", "InnerProduct", ["pool5"], ["fc10"], [n.w(10, 32), n.w(10, scale=0.1)],
            inner_product_param={"num_output": 10})
    n.layer("prob", "Softmax", ["fc10"])
    return n


def mobilenet_ssd() -> Net:
    n = Net("mobilenet_ssd", 3)
    x = n.input("data", [1, 3, 96, 96])

    def dw_sep(name: str, x: str, cin: int, cout: int, stride: int) -> str:
        d = n.relu(f"{name}/dw/relu", n.bn_scale(f"{name}/dw", n.conv(f"{name}/dw", x, cin, cin, 3, stride, 1, group=cin, bias=False), cin))
        return n.relu(f"{name}/relu", n.bn_scale(f"{name}", n.conv(f"{name}", d, cin, cout, 1, bias=False), cout))

    x = n.relu("conv0/relu", n.bn_scale("conv0", n.conv("conv0", x, 3, 16, 3, 2, 1, bias=False), 16))
    x = dw_sep("conv1", x, 16, 32, 2)
    f1 = dw_sep("conv2", x, 32, 32, 2)   # 12x12
    f2 = dw_sep("conv3", f1, 32, 64, 2)  # 6x6
    n.layer("conv2_norm", "Normalize", [f1], ["conv2_norm"], [np.full(32, 20.0, np.float32)],
            norm_param={"across_spatial": False, "channel_shared": False, "eps": 1e-10})
    num_classes = 4
    heads = [("conv2_norm", 32, 12, {"min_size": [20.0], "aspect_ratio": [2.0]}, 3),
             (f2, 64, 6, {"min_size": [40.0], "max_size": [70.0], "aspect_ratio": [2.0, 3.0]}, 6)]
    locs, confs, priors = [], [], []
    for i, (feat, c, _, pb, num_priors) in enumerate(heads):
        loc = n.conv(f"head{i}_loc", feat, c, num_priors * 4, 3, pad=1)
        n.layer(f"head{i}_loc_perm", "Permute", [loc], permute_param={"order": [0, 2, 3, 1]})
        n.layer(f"head{i}_loc_flat", "Flatten", [f"head{i}_loc_perm"], flatten_param={"axis": 1})
        conf = n.conv(f"head{i}_conf", feat, c, num_priors * num_classes, 3, pad=1)
        n.layer(f"head{i}_conf_perm", "Permute", [conf], permute_param={"order": [0, 2, 3, 1]})
        n.layer(f"head{i}_conf_flat", "Flatten", [f"head{i}_conf_perm"], flatten_param={"axis": 1})
        n.layer(f"head{i}_priorbox", "PriorBox", [feat, "data"], prior_box_param={
            **pb, "flip": True, "clip": False, "variance": [0.1, 0.1, 0.2, 0.2], "offset": 0.5})
        locs.append(f"head{i}_loc_flat")
        confs.append(f"head{i}_conf_flat")
        priors.append(f"head{i}_priorbox")
    n.layer("mbox_loc", "Concat", locs, concat_param={"axis": 1})
    n.layer("mbox_conf", "Concat", confs, concat_param={"axis": 1})
    n.layer("mbox_priorbox", "Concat", priors, concat_param={"axis": 2})
    n.layer("mbox_conf_reshape", "Reshape", ["mbox_conf"], reshape_param={"shape": {"dim": [0, -1, num_classes]}})
    n.layer("mbox_conf_softmax", "Softmax", ["mbox_conf_reshape"], softmax_param={"axis": 2})
    n.layer("mbox_conf_flatten", "Flatten", ["mbox_conf_softmax"], flatten_param={"axis": 1})
    n.layer("detection_out", "DetectionOutput", ["mbox_loc", "mbox_conf_flatten", "mbox_priorbox"],
            detection_output_param={
                "num_classes": num_classes, "share_location": True, "background_label_id": 0,
                "nms_param": {"nms_threshold": 0.45, "top_k": 100}, "code_type": "CENTER_SIZE",
                "keep_top_k": 50, "confidence_threshold": 0.01})
    return n


# ---------------------------------------------------------------------------
# One small net per layer family
# ---------------------------------------------------------------------------


def _single(name: str, type_: str, shape: Sequence[int], seed: int = 7, bottoms: int = 1,
            blobs: Callable[[Net], list[np.ndarray]] | None = None, **params: Any) -> Callable[[], Net]:
    def build() -> Net:
        n = Net(name, seed)
        ins = [n.input("data" if i == 0 else f"data{i}", shape) for i in range(bottoms)]
        n.layer(name, type_, ins, [name], blobs(n) if blobs else (), **params)
        return n
    return build


def activations() -> Net:
    n = Net("activations", 11)
    x = n.input("data", [1, 4, 5, 6], legacy=True)
    n.layer("leaky", "ReLU", [x], ["leaky"], relu_param={"negative_slope": 0.1})
    n.layer("prelu", "PReLU", ["leaky"], ["prelu"], [n.w(4, scale=0.3)])
    n.layer("elu", "ELU", ["prelu"], ["elu"], elu_param={"alpha": 0.7})
    n.layer("sig", "Sigmoid", ["elu"], ["sig"])
    n.layer("tanh", "TanH", [x], ["tanh"])
    n.layer("abs", "AbsVal", ["tanh"], ["abs"])
    n.layer("pow", "Power", ["abs"], ["pow"], power_param={"power": 2.0, "scale": 0.5, "shift": 1.0})
    n.layer("exp", "Exp", ["sig"], ["exp"], exp_param={"base": 2.0, "scale": 0.5, "shift": 0.1})
    n.layer("log", "Log", ["pow"], ["log"])  # OpenCV ignores log_param: see "numpy_layers"
    n.layer("bnll", "BNLL", [x], ["bnll"])
    n.layer("sum", "Eltwise", ["exp", "log", "bnll"], ["sum"], eltwise_param={"operation": "SUM", "coeff": [1.0, -0.5, 2.0]})
    n.layer("prod", "Eltwise", ["sum", "sig"], ["prod"], eltwise_param={"operation": "PROD"})
    n.layer("max", "Eltwise", ["prod", "tanh"], ["max"], eltwise_param={"operation": "MAX"})
    return n


def pooling() -> Net:
    n = Net("pooling", 12)
    x = n.input("data", [1, 3, 13, 11])
    n.layer("max_ceil", "Pooling", [x], ["max_ceil"], pooling_param={"pool": "MAX", "kernel_size": 3, "stride": 2})
    n.layer("ave_ceil", "Pooling", [x], ["ave_ceil"], pooling_param={"pool": "AVE", "kernel_size": 2, "stride": 2})
    n.layer("ave_pad", "Pooling", [x], ["ave_pad"], pooling_param={"pool": "AVE", "kernel_size": 3, "stride": 2, "pad": 1})
    n.layer("max_pad", "Pooling", [x], ["max_pad"], pooling_param={"pool": "MAX", "kernel_h": 3, "kernel_w": 2, "stride_h": 2, "stride_w": 1, "pad_h": 1, "pad_w": 0})
    n.layer("gmax", "Pooling", [x], ["gmax"], pooling_param={"pool": "MAX", "global_pooling": True})
    return n


def convs() -> Net:
    n = Net("convs", 13)
    x = n.input("data", [1, 4, 10, 10])
    n.conv("dil", x, 4, 6, 3, pad=2, dilation=2)
    n.conv("grp", "dil", 6, 6, 3, stride=2, pad=1, group=2)
    n.layer("deconv", "Deconvolution", ["grp"], ["deconv"], [n.w(6, 3, 4, 4), n.w(3, scale=0.1)],
            convolution_param={"num_output": 3, "kernel_size": [4], "stride": [2], "pad": [1]})
    n.layer("deconv_g", "Deconvolution", ["grp"], ["deconv_g"], [n.w(6, 2, 3, 3)],
            convolution_param={"num_output": 4, "kernel_size": [3], "stride": [2], "group": 2, "bias_term": False})
    n.layer("ip", "InnerProduct", ["deconv_g"], ["ip"], [n.w(5, 4 * 11 * 11), n.w(5, scale=0.1)],
            inner_product_param={"num_output": 5})
    return n


def shapes() -> Net:
    n = Net("shapes", 14)
    x = n.input("data", [2, 6, 4, 5])
    n.layer("slice", "Slice", [x], ["s0", "s1", "s2"], slice_param={"axis": 1, "slice_point": [1, 4]})
    n.layer("split", "Split", ["s1"], ["s1a", "s1b"])
    n.layer("concat", "Concat", ["s0", "s1a", "s2", "s1b"], ["concat"], concat_param={"axis": 1})
    n.layer("perm", "Permute", ["concat"], ["perm"], permute_param={"order": [0, 2, 3, 1]})
    n.layer("flat", "Flatten", ["perm"], ["flat"], flatten_param={"axis": 1, "end_axis": 2})
    n.layer("resh", "Reshape", ["flat"], ["resh"], reshape_param={"shape": {"dim": [0, -1, 3]}})
    n.layer("soft", "Softmax", ["resh"], ["soft"], softmax_param={"axis": 2})
    n.layer("crop", "Crop", [x, "s0"], ["crop"], crop_param={"axis": 2, "offset": [0]})
    n.layer("lrn", "LRN", [x], ["lrn"], lrn_param={"local_size": 3, "alpha": 0.1, "beta": 0.75})  # OpenCV ignores k
    n.layer("scale2", "Scale", ["lrn", "crop"], ["scale2"], scale_param={"axis": 0})
    return n


def numpy_layers() -> Net:
    """Layers OpenCV does not read (or reads differently): checked against
    numpy references of Caffe's definitions in the tests."""
    n = Net("numpy_layers", 15)
    x = n.input("data", [1, 6, 4, 5])
    a = n.input("alpha", [1, 6, 1, 1])
    n.layer("log", "Log", [x], ["log"], log_param={"base": 10.0, "scale": 2.0, "shift": 9.0})
    n.layer("shuffle", "ShuffleChannel", [x], ["shuffle"], shuffle_channel_param={"group": 3})
    n.layer("argmax", "ArgMax", [x], ["argmax"], argmax_param={"top_k": 2, "axis": 1})
    n.layer("argmax_flat", "ArgMax", [x], ["argmax_flat"], argmax_param={"top_k": 3, "out_max_val": True})
    n.layer("axpy", "Axpy", [a, x, "shuffle"], ["axpy"])
    n.layer("interp", "Interp", [x], ["interp"], interp_param={"zoom_factor": 2})
    n.layer("upsample", "Upsample", [x], ["upsample"], upsample_param={"scale": 2})
    n.layer("bias", "Bias", [x], ["bias"], [n.w(6)])
    n.layer("lrn_k", "LRN", [x], ["lrn_k"], lrn_param={"local_size": 3, "alpha": 0.1, "beta": 0.75, "k": 2.0})
    n.layer("lrn_within", "LRN", [x], ["lrn_within"], lrn_param={"local_size": 3, "alpha": 0.2, "beta": 0.5, "norm_region": "WITHIN_CHANNEL"})
    return n


def python_layer() -> Net:
    """A net with a Caffe Python layer (``custom_layers.ScaleClip``, see
    ``examples/caffe_python_layer``) between two convolutions."""
    n = Net("python_layer", 16)
    x = n.input("data", [1, 3, 8, 8])
    n.conv("conv1", x, 3, 4, 3, pad=1)
    n.layer("clip", "Python", ["conv1"], ["clip"], python_param={
        "module": "custom_layers", "layer": "ScaleClip",
        "param_str": '{"scale": 2.0, "min": -1.0, "max": 1.0}'})
    n.conv("conv2", "clip", 4, 2, 1)
    return n


def legacy_v1() -> Net:
    """The legacy V1 ``layers`` form (enum types, blobs in V1LayerParameter),
    with the net's own ``input`` / ``input_dim`` fields."""
    n = Net("legacy_v1", 17)
    n.net.input.append("data")
    n.net.input_dim.extend([1, 3, 9, 9])
    v1_types = schema.V1LayerParameter.DESCRIPTOR.fields_by_name["type"].enum_type
    specs = [
        ("conv1", "CONVOLUTION", ["data"], ["conv1"], {"convolution_param": {"num_output": 4, "kernel_size": [3], "stride": [2]}},
         [n.w(4, 3, 3, 3), n.w(4, scale=0.1)]),
        ("relu1", "RELU", ["conv1"], ["conv1"], {}, []),
        ("pool1", "POOLING", ["conv1"], ["pool1"], {"pooling_param": {"pool": "AVE", "kernel_size": 2, "stride": 2}}, []),
        ("fc", "INNER_PRODUCT", ["pool1"], ["fc"], {"inner_product_param": {"num_output": 5}},
         [n.w(5, 16), n.w(5, scale=0.1)]),
        ("prob", "SOFTMAX", ["fc"], ["prob"], {}, []),
    ]
    for name, type_, bottoms, tops, params, blobs in specs:
        layer = n.net.layers.add()
        layer.name, layer.type = name, v1_types.values_by_name[type_].number
        layer.bottom.extend(bottoms)
        layer.top.extend(tops)
        for field, values in params.items():
            _fill(getattr(layer, field), values)
        if blobs:
            n.blobs[name] = blobs
    return n


def faster_rcnn() -> Net:
    """A Faster R-CNN-style head: RPN scores reshaped for Softmax, Proposal
    (anchors, NMS), ROIPooling on the feature map, a classifier."""
    n = Net("faster_rcnn", 18)
    x = n.input("data", [1, 3, 32, 32])
    n.input("im_info", [1, 3])
    feat = n.relu("conv1_relu", n.conv("conv1", x, 3, 8, 4, stride=4))  # 8x8, stride 4
    anchors = 6
    n.conv("rpn_cls_score", feat, 8, 2 * anchors, 1)
    n.conv("rpn_bbox_pred", feat, 8, 4 * anchors, 1)
    n.layer("rpn_cls_score_reshape", "Reshape", ["rpn_cls_score"],
            reshape_param={"shape": {"dim": [0, 2, -1, 0]}})
    n.layer("rpn_cls_prob", "Softmax", ["rpn_cls_score_reshape"])
    n.layer("rpn_cls_prob_reshape", "Reshape", ["rpn_cls_prob"],
            reshape_param={"shape": {"dim": [0, 2 * anchors, -1, 0]}})
    n.layer("proposal", "Proposal", ["rpn_cls_prob_reshape", "rpn_bbox_pred", "im_info"],
            ["rois"], proposal_param={"feat_stride": 4, "base_size": 4, "min_size": 1,
                                      "ratio": [0.5, 1.0, 2.0], "scale": [2.0, 4.0],
                                      "pre_nms_topn": 100, "post_nms_topn": 10,
                                      "nms_thresh": 0.7})
    n.layer("roi_pool", "ROIPooling", [feat, "rois"], roi_pooling_param={
        "pooled_h": 3, "pooled_w": 3, "spatial_scale": 0.25})
    n.layer("cls_score", "InnerProduct", ["roi_pool"], ["cls_score"], [n.w(4, 72), n.w(4, scale=0.1)],
            inner_product_param={"num_output": 4})
    n.layer("cls_prob", "Softmax", ["cls_score"])
    return n


#: name -> builder
MODELS: dict[str, Callable[[], Net]] = {
    "squeezenet": squeezenet,
    "resnet": resnet,
    "mobilenet_ssd": mobilenet_ssd,
    "activations": activations,
    "pooling": pooling,
    "convs": convs,
    "shapes": shapes,
    "numpy_layers": numpy_layers,
    "python_layer": python_layer,
    "legacy_v1": legacy_v1,
    "faster_rcnn": faster_rcnn,
}


def write_model(name: str, folder: str | Path) -> tuple[Path, Path]:
    """Write ``<folder>/<name>.prototxt`` and ``.caffemodel``; returns both paths."""
    return MODELS[name]().write(Path(folder))


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("out_dir")
    ap.add_argument("names", nargs="*", help=f"default: all of {', '.join(MODELS)}")
    args = ap.parse_args(argv)
    for name in args.names or MODELS:
        proto, model = write_model(name, args.out_dir)
        print(f"{proto} ({model.stat().st_size} bytes of weights)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
