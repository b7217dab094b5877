"""Caffe's protobuf messages, declared by xmo itself (no Caffe, no protoc).

The messages a deploy ``.prototxt`` and a trained ``.caffemodel`` need are
described here in a compact table (message -> fields: name, number, type,
repeated, proto2 default) and turned into a ``FileDescriptorProto``
(``syntax = "proto2"``, so the defaults are the proto's) and message classes
of a private ``DescriptorPool`` (package ``caffe``). Field names and numbers
follow BVLC Caffe's ``caffe.proto``; the layers of the common forks (SSD:
Permute, PriorBox, DetectionOutput, Normalize; Faster R-CNN: ROIPooling,
Proposal; PSPNet's Interp; Upsample; ShuffleChannel) use the numbers OpenCV's
Caffe importer reads where it has them. Text files are parsed by field
*name*, so forks that numbered these fields differently still load from a
prototxt (binary params of a caffemodel are read only when no prototxt is
given).

Exported: :data:`NetParameter`, :data:`LayerParameter`,
:data:`V1LayerParameter`, :data:`BlobProto`, :data:`BlobShape` and every
``*Parameter`` message (:func:`message`), :data:`FILE_DESCRIPTOR`,
:func:`parse_text`; :data:`V1_TYPES` (V1 enum value -> layer type string),
:data:`PARAM_FIELDS` (layer type -> its ``*_param`` field of LayerParameter).
"""

from __future__ import annotations

from typing import Any

from google.protobuf import descriptor_pb2, descriptor_pool, message_factory, text_format

_F = descriptor_pb2.FieldDescriptorProto
_PACKAGE = "caffe"

_SCALARS = {
    "string": _F.TYPE_STRING, "bytes": _F.TYPE_BYTES, "bool": _F.TYPE_BOOL,
    "float": _F.TYPE_FLOAT, "double": _F.TYPE_DOUBLE, "int32": _F.TYPE_INT32,
    "uint32": _F.TYPE_UINT32, "int64": _F.TYPE_INT64,
}  # fmt: skip

_ENGINE = (("DEFAULT", 0), ("CAFFE", 1), ("CUDNN", 2))

#: enums nested in a message (proto enum values are scoped like their enum,
#: so Caffe nests them): message -> {enum: ((value name, number), ...)}.
#: A field's ``enum:Name`` refers to its own message's enum first.
_NESTED_ENUMS: dict[str, dict[str, tuple[tuple[str, int], ...]]] = {
    "PoolingParameter": {"PoolMethod": (("MAX", 0), ("AVE", 1), ("STOCHASTIC", 2)),
                         "Engine": _ENGINE},
    "EltwiseParameter": {"EltwiseOp": (("PROD", 0), ("SUM", 1), ("MAX", 2))},
    "LRNParameter": {"NormRegion": (("ACROSS_CHANNELS", 0), ("WITHIN_CHANNEL", 1)),
                     "Engine": _ENGINE},
    "ConvolutionParameter": {"Engine": _ENGINE},
    "ReLUParameter": {"Engine": _ENGINE},
    "SigmoidParameter": {"Engine": _ENGINE},
    "SoftmaxParameter": {"Engine": _ENGINE},
    "TanHParameter": {"Engine": _ENGINE},
    "PriorBoxParameter": {"CodeType": (("CORNER", 1), ("CENTER_SIZE", 2))},
}

#: top-level enums: name -> ((value name, number), ...)
_ENUMS: dict[str, tuple[tuple[str, int], ...]] = {
    "Phase": (("TRAIN", 0), ("TEST", 1)),
    "V1LayerType": (
        ("NONE", 0), ("ABSVAL", 35), ("ACCURACY", 1), ("ARGMAX", 30), ("BNLL", 2),
        ("CONCAT", 3), ("CONTRASTIVE_LOSS", 37), ("CONVOLUTION", 4), ("DATA", 5),
        ("DECONVOLUTION", 39), ("DROPOUT", 6), ("DUMMY_DATA", 32), ("EUCLIDEAN_LOSS", 7),
        ("ELTWISE", 25), ("EXP", 38), ("FLATTEN", 8), ("HDF5_DATA", 9), ("HDF5_OUTPUT", 10),
        ("HINGE_LOSS", 28), ("IM2COL", 11), ("IMAGE_DATA", 12), ("INFOGAIN_LOSS", 13),
        ("INNER_PRODUCT", 14), ("LRN", 15), ("MEMORY_DATA", 29),
        ("MULTINOMIAL_LOGISTIC_LOSS", 16), ("MVN", 34), ("POOLING", 17), ("POWER", 26),
        ("RELU", 18), ("SIGMOID", 19), ("SIGMOID_CROSS_ENTROPY_LOSS", 27), ("SILENCE", 36),
        ("SOFTMAX", 20), ("SOFTMAX_LOSS", 21), ("SPLIT", 22), ("SLICE", 33), ("TANH", 23),
        ("WINDOW_DATA", 24), ("THRESHOLD", 31),
    ),
}  # fmt: skip

# A field: (name, number, type, flags, default). ``type``: a scalar name, an
# enum (``"enum:PoolMethod"``) or a message (``"msg:BlobShape"``); ``flags``:
# "r" repeated, "p" repeated and packed, "" optional.
_Field = tuple[str, int, str, str, Any]

_MESSAGES: dict[str, tuple[_Field, ...]] = {
    "BlobShape": (("dim", 1, "int64", "p", None),),
    "BlobProto": (
        ("shape", 7, "msg:BlobShape", "", None),
        ("data", 5, "float", "p", None),
        ("diff", 6, "float", "p", None),
        ("double_data", 8, "double", "p", None),
        ("double_diff", 9, "double", "p", None),
        ("num", 1, "int32", "", 0), ("channels", 2, "int32", "", 0),
        ("height", 3, "int32", "", 0), ("width", 4, "int32", "", 0),
    ),
    "NetState": (
        ("phase", 1, "enum:Phase", "", "TEST"), ("level", 2, "int32", "", 0),
        ("stage", 3, "string", "r", None),
    ),
    "NetStateRule": (
        ("phase", 1, "enum:Phase", "", None), ("min_level", 2, "int32", "", None),
        ("max_level", 3, "int32", "", None), ("stage", 4, "string", "r", None),
        ("not_stage", 5, "string", "r", None),
    ),
    "ParamSpec": (
        ("name", 1, "string", "", None), ("lr_mult", 3, "float", "", 1.0),
        ("decay_mult", 4, "float", "", 1.0),
    ),
    "FillerParameter": (
        ("type", 1, "string", "", "constant"), ("value", 2, "float", "", 0.0),
        ("min", 3, "float", "", 0.0), ("max", 4, "float", "", 1.0),
        ("mean", 5, "float", "", 0.0), ("std", 6, "float", "", 1.0),
        ("sparse", 7, "int32", "", -1),
    ),
    "TransformationParameter": (
        ("scale", 1, "float", "", 1.0), ("mirror", 2, "bool", "", False),
        ("crop_size", 3, "uint32", "", 0), ("mean_file", 4, "string", "", None),
        ("mean_value", 5, "float", "r", None),
    ),
    "ArgMaxParameter": (
        ("out_max_val", 1, "bool", "", False), ("top_k", 2, "uint32", "", 1),
        ("axis", 3, "int32", "", None),
    ),
    "BatchNormParameter": (
        ("use_global_stats", 1, "bool", "", None),
        ("moving_average_fraction", 2, "float", "", 0.999),
        ("eps", 3, "float", "", 1e-5),
    ),
    "BiasParameter": (
        ("axis", 1, "int32", "", 1), ("num_axes", 2, "int32", "", 1),
        ("filler", 3, "msg:FillerParameter", "", None),
    ),
    "ConcatParameter": (("axis", 2, "int32", "", 1), ("concat_dim", 1, "uint32", "", 1)),
    "ConvolutionParameter": (
        ("num_output", 1, "uint32", "", None), ("bias_term", 2, "bool", "", True),
        ("pad", 3, "uint32", "r", None), ("kernel_size", 4, "uint32", "r", None),
        ("stride", 6, "uint32", "r", None), ("dilation", 18, "uint32", "r", None),
        ("pad_h", 9, "uint32", "", 0), ("pad_w", 10, "uint32", "", 0),
        ("kernel_h", 11, "uint32", "", None), ("kernel_w", 12, "uint32", "", None),
        ("stride_h", 13, "uint32", "", None), ("stride_w", 14, "uint32", "", None),
        ("group", 5, "uint32", "", 1),
        ("weight_filler", 7, "msg:FillerParameter", "", None),
        ("bias_filler", 8, "msg:FillerParameter", "", None),
        ("engine", 15, "enum:Engine", "", "DEFAULT"), ("axis", 16, "int32", "", 1),
        ("force_nd_im2col", 17, "bool", "", False),
    ),
    "CropParameter": (("axis", 1, "int32", "", 2), ("offset", 2, "uint32", "r", None)),
    "DropoutParameter": (
        ("dropout_ratio", 1, "float", "", 0.5), ("scale_train", 2, "bool", "", True),
    ),
    "EltwiseParameter": (
        ("operation", 1, "enum:EltwiseOp", "", "SUM"), ("coeff", 2, "float", "r", None),
        ("stable_prod_grad", 3, "bool", "", True),
    ),
    "ELUParameter": (("alpha", 1, "float", "", 1.0),),
    "ExpParameter": (
        ("base", 1, "float", "", -1.0), ("scale", 2, "float", "", 1.0),
        ("shift", 3, "float", "", 0.0),
    ),
    "FlattenParameter": (("axis", 1, "int32", "", 1), ("end_axis", 2, "int32", "", -1)),
    "InnerProductParameter": (
        ("num_output", 1, "uint32", "", None), ("bias_term", 2, "bool", "", True),
        ("weight_filler", 3, "msg:FillerParameter", "", None),
        ("bias_filler", 4, "msg:FillerParameter", "", None),
        ("axis", 5, "int32", "", 1), ("transpose", 6, "bool", "", False),
    ),
    "InputParameter": (("shape", 1, "msg:BlobShape", "r", None),),
    "LogParameter": (
        ("base", 1, "float", "", -1.0), ("scale", 2, "float", "", 1.0),
        ("shift", 3, "float", "", 0.0),
    ),
    "LRNParameter": (
        ("local_size", 1, "uint32", "", 5), ("alpha", 2, "float", "", 1.0),
        ("beta", 3, "float", "", 0.75),
        ("norm_region", 4, "enum:NormRegion", "", "ACROSS_CHANNELS"),
        ("k", 5, "float", "", 1.0), ("engine", 6, "enum:Engine", "", "DEFAULT"),
    ),
    "MVNParameter": (
        ("normalize_variance", 1, "bool", "", True), ("across_channels", 2, "bool", "", False),
        ("eps", 3, "float", "", 1e-9),
    ),
    "PoolingParameter": (
        ("pool", 1, "enum:PoolMethod", "", "MAX"), ("pad", 4, "uint32", "", 0),
        ("pad_h", 9, "uint32", "", 0), ("pad_w", 10, "uint32", "", 0),
        ("kernel_size", 2, "uint32", "", None), ("kernel_h", 5, "uint32", "", None),
        ("kernel_w", 6, "uint32", "", None), ("stride", 3, "uint32", "", 1),
        ("stride_h", 7, "uint32", "", None), ("stride_w", 8, "uint32", "", None),
        ("engine", 11, "enum:Engine", "", "DEFAULT"),
        ("global_pooling", 12, "bool", "", False), ("ceil_mode", 13, "bool", "", True),
    ),
    "PowerParameter": (
        ("power", 1, "float", "", 1.0), ("scale", 2, "float", "", 1.0),
        ("shift", 3, "float", "", 0.0),
    ),
    "PReLUParameter": (
        ("filler", 1, "msg:FillerParameter", "", None),
        ("channel_shared", 2, "bool", "", False),
    ),
    "PythonParameter": (
        ("module", 1, "string", "", None), ("layer", 2, "string", "", None),
        ("param_str", 3, "string", "", ""), ("share_in_parallel", 4, "bool", "", False),
    ),
    "ReductionParameter": (
        ("operation", 1, "int32", "", 1), ("axis", 2, "int32", "", 0),
        ("coeff", 3, "float", "", 1.0),
    ),
    "ReLUParameter": (
        ("negative_slope", 1, "float", "", 0.0), ("engine", 2, "enum:Engine", "", "DEFAULT"),
    ),
    "ReshapeParameter": (
        ("shape", 1, "msg:BlobShape", "", None), ("axis", 2, "int32", "", 0),
        ("num_axes", 3, "int32", "", -1),
    ),
    "ScaleParameter": (
        ("axis", 1, "int32", "", 1), ("num_axes", 2, "int32", "", 1),
        ("filler", 3, "msg:FillerParameter", "", None), ("bias_term", 4, "bool", "", False),
        ("bias_filler", 5, "msg:FillerParameter", "", None),
    ),
    "SigmoidParameter": (("engine", 1, "enum:Engine", "", "DEFAULT"),),
    "SliceParameter": (
        ("axis", 3, "int32", "", 1), ("slice_point", 2, "uint32", "r", None),
        ("slice_dim", 1, "uint32", "", 1),
    ),
    "SoftmaxParameter": (
        ("engine", 1, "enum:Engine", "", "DEFAULT"), ("axis", 2, "int32", "", 1),
    ),
    "TanHParameter": (("engine", 1, "enum:Engine", "", "DEFAULT"),),
    "ThresholdParameter": (("threshold", 1, "float", "", 0.0),),
    "TileParameter": (("axis", 1, "int32", "", 1), ("tiles", 2, "int32", "", None)),
    # -- layers of the common forks ------------------------------------------------
    "PermuteParameter": (("order", 1, "uint32", "r", None),),
    "NormalizeBBoxParameter": (
        ("across_spatial", 1, "bool", "", True),
        ("scale_filler", 2, "msg:FillerParameter", "", None),
        ("channel_shared", 3, "bool", "", True), ("eps", 4, "float", "", 1e-10),
    ),
    "PriorBoxParameter": (
        ("min_size", 1, "float", "r", None), ("max_size", 2, "float", "r", None),
        ("aspect_ratio", 3, "float", "r", None), ("flip", 4, "bool", "", True),
        ("clip", 5, "bool", "", False), ("variance", 6, "float", "r", None),
        ("img_size", 7, "uint32", "", None), ("img_h", 8, "uint32", "", None),
        ("img_w", 9, "uint32", "", None), ("step", 10, "float", "", None),
        ("step_h", 11, "float", "", None), ("step_w", 12, "float", "", None),
        ("offset", 13, "float", "", 0.5),
        ("offset_h", 14, "float", "r", None), ("offset_w", 15, "float", "r", None),
        ("width", 16, "float", "r", None), ("height", 17, "float", "r", None),
    ),
    "NonMaximumSuppressionParameter": (
        ("nms_threshold", 1, "float", "", 0.3), ("top_k", 2, "int32", "", None),
        ("eta", 3, "float", "", 1.0),
    ),
    "DetectionOutputParameter": (
        ("num_classes", 1, "uint32", "", None), ("share_location", 2, "bool", "", True),
        ("background_label_id", 3, "int32", "", 0),
        ("nms_param", 4, "msg:NonMaximumSuppressionParameter", "", None),
        ("code_type", 6, "enum:PriorBoxParameter.CodeType", "", "CORNER"),
        ("variance_encoded_in_target", 8, "bool", "", False),
        ("keep_top_k", 7, "int32", "", -1), ("confidence_threshold", 9, "float", "", None),
        ("normalized_bbox", 10, "bool", "", True),
    ),
    "ROIPoolingParameter": (
        ("pooled_h", 1, "uint32", "", 0), ("pooled_w", 2, "uint32", "", 0),
        ("spatial_scale", 3, "float", "", 1.0),
    ),
    "ProposalParameter": (
        ("feat_stride", 1, "uint32", "", 16), ("base_size", 2, "uint32", "", 16),
        ("min_size", 3, "uint32", "", 16), ("ratio", 4, "float", "r", None),
        ("scale", 5, "float", "r", None), ("pre_nms_topn", 6, "uint32", "", 6000),
        ("post_nms_topn", 7, "uint32", "", 300), ("nms_thresh", 8, "float", "", 0.7),
    ),
    "InterpParameter": (
        ("height", 1, "int32", "", 0), ("width", 2, "int32", "", 0),
        ("zoom_factor", 3, "int32", "", 1), ("shrink_factor", 4, "int32", "", 1),
        ("pad_beg", 5, "int32", "", 0), ("pad_end", 6, "int32", "", 0),
    ),
    "UpsampleParameter": (
        ("scale", 1, "uint32", "", 1), ("scale_h", 2, "uint32", "", None),
        ("scale_w", 3, "uint32", "", None), ("upsample_h", 6, "uint32", "", None),
        ("upsample_w", 7, "uint32", "", None),
    ),
    "ShuffleChannelParameter": (("group", 1, "uint32", "", 1),),
}  # fmt: skip

#: LayerParameter's ``*_param`` fields: (field, number, message)
_LAYER_PARAMS: tuple[tuple[str, int, str], ...] = (
    ("transform_param", 100, "TransformationParameter"),
    ("argmax_param", 103, "ArgMaxParameter"),
    ("batch_norm_param", 139, "BatchNormParameter"),
    ("bias_param", 141, "BiasParameter"),
    ("concat_param", 104, "ConcatParameter"),
    ("convolution_param", 106, "ConvolutionParameter"),
    ("crop_param", 144, "CropParameter"),
    ("detection_output_param", 147, "DetectionOutputParameter"),
    ("dropout_param", 108, "DropoutParameter"),
    ("eltwise_param", 110, "EltwiseParameter"),
    ("elu_param", 140, "ELUParameter"),
    ("exp_param", 111, "ExpParameter"),
    ("flatten_param", 135, "FlattenParameter"),
    ("inner_product_param", 117, "InnerProductParameter"),
    ("input_param", 143, "InputParameter"),
    ("log_param", 134, "LogParameter"),
    ("lrn_param", 118, "LRNParameter"),
    ("mvn_param", 120, "MVNParameter"),
    ("norm_param", 149, "NormalizeBBoxParameter"),
    ("permute_param", 148, "PermuteParameter"),
    ("pooling_param", 121, "PoolingParameter"),
    ("power_param", 122, "PowerParameter"),
    ("prelu_param", 131, "PReLUParameter"),
    ("prior_box_param", 150, "PriorBoxParameter"),
    ("proposal_param", 201, "ProposalParameter"),
    ("python_param", 130, "PythonParameter"),
    ("reduction_param", 136, "ReductionParameter"),
    ("relu_param", 123, "ReLUParameter"),
    ("reshape_param", 133, "ReshapeParameter"),
    ("roi_pooling_param", 8266711, "ROIPoolingParameter"),
    ("scale_param", 142, "ScaleParameter"),
    ("sigmoid_param", 124, "SigmoidParameter"),
    ("softmax_param", 125, "SoftmaxParameter"),
    ("slice_param", 126, "SliceParameter"),
    ("tanh_param", 127, "TanHParameter"),
    ("threshold_param", 128, "ThresholdParameter"),
    ("tile_param", 138, "TileParameter"),
    ("interp_param", 2143, "InterpParameter"),
    ("upsample_param", 2160, "UpsampleParameter"),
    ("shuffle_channel_param", 164, "ShuffleChannelParameter"),
)

#: V1LayerParameter's ``*_param`` fields (the legacy ``layers`` form)
_V1_PARAMS: tuple[tuple[str, int, str], ...] = (
    ("argmax_param", 23, "ArgMaxParameter"),
    ("concat_param", 9, "ConcatParameter"),
    ("convolution_param", 10, "ConvolutionParameter"),
    ("dropout_param", 12, "DropoutParameter"),
    ("eltwise_param", 24, "EltwiseParameter"),
    ("exp_param", 41, "ExpParameter"),
    ("inner_product_param", 17, "InnerProductParameter"),
    ("lrn_param", 18, "LRNParameter"),
    ("mvn_param", 34, "MVNParameter"),
    ("pooling_param", 19, "PoolingParameter"),
    ("power_param", 21, "PowerParameter"),
    ("relu_param", 30, "ReLUParameter"),
    ("sigmoid_param", 38, "SigmoidParameter"),
    ("softmax_param", 39, "SoftmaxParameter"),
    ("slice_param", 31, "SliceParameter"),
    ("tanh_param", 37, "TanHParameter"),
    ("threshold_param", 25, "ThresholdParameter"),
    ("transform_param", 36, "TransformationParameter"),
)

#: LayerParameter field number of ``blobs``; V1LayerParameter's
LAYER_BLOBS_FIELD = 7
V1_BLOBS_FIELD = 6
#: NetParameter field numbers of ``layer`` (LayerParameter) and ``layers`` (V1)
NET_LAYER_FIELD = 100
NET_V1_LAYERS_FIELD = 2


def _json_name(name: str) -> str:
    head, *rest = name.split("_")
    return head + "".join(p[:1].upper() + p[1:] for p in rest)


def _add_field(msg: descriptor_pb2.DescriptorProto, name: str, number: int, ftype: str,
               flags: str = "", default: Any = None) -> None:
    kind, _, ref = ftype.partition(":")
    if kind == "enum" and ref in _NESTED_ENUMS.get(msg.name, {}):
        ftype = f"enum:{msg.name}.{ref}"
    f = msg.field.add()
    f.name, f.number, f.json_name = name, number, _json_name(name)
    f.label = _F.LABEL_REPEATED if flags else _F.LABEL_OPTIONAL
    if flags == "p":
        f.options.packed = True
    kind, _, ref = ftype.partition(":")
    if kind == "msg":
        f.type, f.type_name = _F.TYPE_MESSAGE, f".{_PACKAGE}.{ref}"
    elif kind == "enum":
        f.type, f.type_name = _F.TYPE_ENUM, f".{_PACKAGE}.{ref}"
    else:
        f.type = _SCALARS[kind]
    if default is not None:
        if isinstance(default, bool):
            f.default_value = "true" if default else "false"
        elif isinstance(default, float):
            f.default_value = repr(default)
        else:
            f.default_value = str(default)


def _layer_common(msg: descriptor_pb2.DescriptorProto, v1: bool) -> None:
    if v1:
        for name, num, t, fl in (("bottom", 2, "string", "r"), ("top", 3, "string", "r"),
                                 ("name", 4, "string", ""), ("type", 5, "enum:V1LayerType", ""),
                                 ("blobs", 6, "msg:BlobProto", "r"),
                                 ("include", 32, "msg:NetStateRule", "r"),
                                 ("exclude", 33, "msg:NetStateRule", "r"),
                                 ("blobs_lr", 7, "float", "r"),
                                 ("weight_decay", 8, "float", "r"),
                                 ("loss_weight", 35, "float", "r")):
            _add_field(msg, name, num, t, fl)
        params = _V1_PARAMS
    else:
        for name, num, t, fl in (("name", 1, "string", ""), ("type", 2, "string", ""),
                                 ("bottom", 3, "string", "r"), ("top", 4, "string", "r"),
                                 ("phase", 10, "enum:Phase", ""),
                                 ("loss_weight", 5, "float", "r"),
                                 ("param", 6, "msg:ParamSpec", "r"),
                                 ("blobs", 7, "msg:BlobProto", "r"),
                                 ("propagate_down", 11, "bool", "r"),
                                 ("include", 8, "msg:NetStateRule", "r"),
                                 ("exclude", 9, "msg:NetStateRule", "r")):
            _add_field(msg, name, num, t, fl)
        params = _LAYER_PARAMS
    for name, num, ref in params:
        _add_field(msg, name, num, f"msg:{ref}")


def _build_file() -> descriptor_pb2.FileDescriptorProto:
    fd = descriptor_pb2.FileDescriptorProto()
    fd.name = "xmo/frontends/caffe/caffe_subset.proto"
    fd.package = _PACKAGE
    fd.syntax = "proto2"
    for name, values in _ENUMS.items():
        en = fd.enum_type.add()
        en.name = name
        for vname, number in values:
            v = en.value.add()
            v.name, v.number = vname, number
    for name, fields in _MESSAGES.items():
        msg = fd.message_type.add()
        msg.name = name
        for ename, values in _NESTED_ENUMS.get(name, {}).items():
            en = msg.enum_type.add()
            en.name = ename
            for vname, number in values:
                v = en.value.add()
                v.name, v.number = vname, number
        for field in fields:
            _add_field(msg, *field)
    for name, v1 in (("LayerParameter", False), ("V1LayerParameter", True)):
        msg = fd.message_type.add()
        msg.name = name
        _layer_common(msg, v1)
    net = fd.message_type.add()
    net.name = "NetParameter"
    for field in (("name", 1, "string", "", None), ("input", 3, "string", "r", None),
                  ("input_shape", 8, "msg:BlobShape", "r", None),
                  ("input_dim", 4, "int32", "r", None),
                  ("force_backward", 5, "bool", "", False),
                  ("state", 6, "msg:NetState", "", None),
                  ("debug_info", 7, "bool", "", False),
                  ("layer", NET_LAYER_FIELD, "msg:LayerParameter", "r", None),
                  ("layers", NET_V1_LAYERS_FIELD, "msg:V1LayerParameter", "r", None)):
        _add_field(net, *field)
    return fd


#: The schema as a FileDescriptorProto (inspect it, or add it to another pool).
FILE_DESCRIPTOR: descriptor_pb2.FileDescriptorProto = _build_file()

_POOL = descriptor_pool.DescriptorPool()
_POOL.Add(FILE_DESCRIPTOR)


def message(name: str) -> type:
    """The message class ``caffe.<name>`` (``"ConvolutionParameter"``)."""
    return message_factory.GetMessageClass(_POOL.FindMessageTypeByName(f"{_PACKAGE}.{name}"))


NetParameter = message("NetParameter")
LayerParameter = message("LayerParameter")
V1LayerParameter = message("V1LayerParameter")
BlobProto = message("BlobProto")
BlobShape = message("BlobShape")

#: V1 ``LayerType`` enum value -> the layer type string of ``layer`` messages
V1_TYPES: dict[int, str] = {
    number: {
        "ABSVAL": "AbsVal", "ARGMAX": "ArgMax", "BNLL": "BNLL", "CONCAT": "Concat",
        "CONVOLUTION": "Convolution", "DECONVOLUTION": "Deconvolution", "DROPOUT": "Dropout",
        "ELTWISE": "Eltwise", "EXP": "Exp", "FLATTEN": "Flatten", "INNER_PRODUCT": "InnerProduct",
        "LRN": "LRN", "MVN": "MVN", "POOLING": "Pooling", "POWER": "Power", "RELU": "ReLU",
        "SIGMOID": "Sigmoid", "SOFTMAX": "Softmax", "SOFTMAX_LOSS": "SoftmaxWithLoss",
        "SPLIT": "Split", "SLICE": "Slice", "TANH": "TanH", "THRESHOLD": "Threshold",
        "SILENCE": "Silence", "ACCURACY": "Accuracy", "DATA": "Data",
    }.get(vname, vname.title().replace("_", ""))
    for vname, number in _ENUMS["V1LayerType"]
}  # fmt: skip

#: the ``*_param`` field of LayerParameter holding a layer type's parameters
PARAM_FIELDS: dict[str, str] = {
    "ArgMax": "argmax_param", "BatchNorm": "batch_norm_param", "Bias": "bias_param",
    "Concat": "concat_param", "Convolution": "convolution_param",
    "Deconvolution": "convolution_param", "Crop": "crop_param",
    "DetectionOutput": "detection_output_param", "Dropout": "dropout_param",
    "Eltwise": "eltwise_param", "ELU": "elu_param", "Exp": "exp_param",
    "Flatten": "flatten_param", "InnerProduct": "inner_product_param", "Input": "input_param",
    "Log": "log_param", "LRN": "lrn_param", "MVN": "mvn_param", "Normalize": "norm_param",
    "Permute": "permute_param", "Pooling": "pooling_param", "Power": "power_param",
    "PReLU": "prelu_param", "PriorBox": "prior_box_param",
    "PriorBoxClustered": "prior_box_param", "Proposal": "proposal_param",
    "Python": "python_param", "Reduction": "reduction_param", "ReLU": "relu_param",
    "Reshape": "reshape_param", "ROIPooling": "roi_pooling_param", "Scale": "scale_param",
    "Sigmoid": "sigmoid_param", "Softmax": "softmax_param", "Slice": "slice_param",
    "TanH": "tanh_param", "Threshold": "threshold_param", "Tile": "tile_param",
    "Interp": "interp_param", "Upsample": "upsample_param",
    "ShuffleChannel": "shuffle_channel_param",
}  # fmt: skip


def parse_text(text: str | bytes) -> Any:
    """A NetParameter from protobuf text format (``.prototxt``); fields this
    schema does not declare are skipped (``allow_unknown_field``).

    Raises ``google.protobuf.text_format.ParseError``."""
    if isinstance(text, bytes):
        text = text.decode("utf-8")
    net = NetParameter()
    text_format.Parse(text, net, allow_unknown_field=True)
    return net


__all__ = [
    "BlobProto",
    "BlobShape",
    "FILE_DESCRIPTOR",
    "LAYER_BLOBS_FIELD",
    "LayerParameter",
    "NET_LAYER_FIELD",
    "NET_V1_LAYERS_FIELD",
    "NetParameter",
    "PARAM_FIELDS",
    "V1LayerParameter",
    "V1_BLOBS_FIELD",
    "V1_TYPES",
    "message",
    "parse_text",
]
