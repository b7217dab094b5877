"""Generate ``dialects/ov/ops.py`` (the ``ov`` opset table) from the openvino wheel.

Run from the repository root::

    python tools/gen_ov_opset.py          # rewrite dialects/ov/ops.py
    python tools/gen_ov_opset.py --check  # exit 1 if ops.py is out of date

Only a developer regenerating the table needs openvino installed; the generated
module does not import it.

Where the facts come from:

* op versions: ``openvino/include/openvino/opsets/opsetN_tbl.hpp`` (N = 1..16).
  The IR ``version`` of an (op, vK) pair is the first opset whose table lists it;
  the version in opset16 is the newest one (``ov.<Type>``), every other version
  becomes ``ov.<Type>_opset<N>``.
* IR ``type``: the C++ type_info name of a node made by ``NodeFactory``.
* attributes: ``NodeFactory(...).create(op).get_attributes()`` (names, order,
  default values); kinds follow the default value's Python type, element-type
  strings become ``etype``, and the element type of empty default lists is
  found by probing ``set_attribute`` with a float, then an int, then a string.
* inputs: signatures of the ``openvino.opsetN`` Python functions (node-typed
  parameters), corrected by ``INPUT_OVERRIDES`` where the Python API and the op
  disagree or has no function.
* outputs: output count of a node made by ``NodeFactory`` on dynamic
  Parameters, with names from ``OUTPUT_NAMES``; ops with a variable output
  count are listed there with a ``*`` tail.

What the wheel does not say comes from the tables below (checked against the
opset: a name that is no op type fails the generator):

* ``OV_FAMILY``: ``FAMILIES`` (every op type must have one): the module name
  of the op's shape inference and CPU kernel.
* traits (:mod:`xmo.dialects.ov.traits`): ``Pure`` unless ``EFFECTS`` names
  the op type's memory effect; ``Commutative`` from ``COMMUTATIVE``; the
  elementwise kinds from ``ELEMENTWISE_*``; ``Reduction`` from ``REDUCTIONS``;
  ``HasShapeInference`` for the ops
  in ``SHAPE_INFERENCE`` (``tests/test_ov_op_table.py`` checks it against the
  registered functions).
"""

from __future__ import annotations

import argparse
import importlib
import importlib.metadata
import inspect
import pathlib
import re
import sys
from dataclasses import dataclass
from typing import Any

REPO_ROOT = pathlib.Path(__file__).resolve().parent.parent
OUTPUT_PATH = REPO_ROOT / "dialects" / "ov" / "ops.py"

FIRST_OPSET = 1
NEWEST_OPSET = 16

#: Hand-written: in ``dialects/ov/core_ops.py`` (Parameter, Constant, Result)
#: and ``dialects/ov/control_ops.py`` (the ops with bodies).
HAND_WRITTEN = frozenset({"Parameter", "Constant", "Result", "Loop", "If", "TensorIterator"})

#: (op, version) pairs whose default-constructed node crashes the Python bindings
#: (they need a ``Variable``); they are built through the opset functions instead.
VARIABLE_OPS = frozenset({("Assign", "v6"), ("ReadValue", "v6")})

#: (op, version) pairs whose output count is not probed: building them on
#: dynamic Parameters can crash the Python bindings. They have one output.
NO_PROBE = frozenset(
    {
        ("Broadcast", "v1"),
        ("DetectionOutput", "v0"),
        ("DetectionOutput", "v8"),
        ("MaxPool", "v1"),
    }
)

#: Input ports where the Python signature is missing or disagrees with the op.
INPUT_OVERRIDES: dict[tuple[str, str], tuple[str, ...]] = {
    # The spec makes strides optional (default: ones); the Python API does not.
    ("StridedSlice", "v1"): ("data", "begin", "end", "strides?"),
    # No usable Python signature (classes, not functions).
    ("Assign", "v6"): ("new_value",),
    ("ReadValue", "v6"): ("init_value?",),
    ("If", "v8"): ("cond", "inputs*"),
    ("Loop", "v5"): ("trip_count", "execution_condition", "inputs*"),
    ("TensorIterator", "v0"): ("inputs*",),
    # Not exposed by the Python API at all.
    ("ExperimentalDetectronDetectionOutput", "v6"): (
        "rois",
        "deltas",
        "scores",
        "im_info",
    ),
    ("ExperimentalDetectronGenerateProposalsSingleImage", "v6"): (
        "im_info",
        "anchors",
        "deltas",
        "scores",
    ),
    ("ExperimentalDetectronPriorGridGenerator", "v6"): (
        "priors",
        "feature_map",
        "im_data",
    ),
    ("ExperimentalDetectronROIFeatureExtractor", "v6"): (
        "rois",
        "feature_map",
        "feature_maps*",
    ),
    ("ExperimentalDetectronTopKROIs", "v6"): ("input_rois", "rois_probs"),
    ("Reverse", "v1"): ("data", "reversed_axes"),
    ("ShuffleChannels", "v0"): ("data",),
    ("Xor", "v0"): ("left_node", "right_node"),
    # The Python function takes an attribute dict instead of the inputs.
    ("Interpolate", "v4"): ("image", "output_shape", "scales", "axes?"),
    # The Python function is stricter than the op.
    ("Squeeze", "v0"): ("data", "axes?"),
    ("LSTMCell", "v0"): (
        "X",
        "initial_hidden_state",
        "initial_cell_state",
        "W",
        "R",
        "B?",
    ),
    # The Python function makes a required input optional.
    ("EmbeddingSegmentsSum", "v3"): (
        "emb_table",
        "indices",
        "segment_ids",
        "num_segments",
        "default_index?",
        "per_sample_weights?",
    ),
    # Concat and Einsum need at least one input.
    ("Concat", "v0"): ("input", "inputs*"),
    ("Einsum", "v7"): ("input", "inputs*"),
}

#: Output port names of every op with more than one output (or a variable number).
#: Keyed by op name (all versions) or (op, version).
OUTPUT_NAMES: dict[str | tuple[str, str], tuple[str, ...]] = {
    "AdaptiveMaxPool": ("output", "indices"),
    "CTCGreedyDecoderSeqLen": ("output", "sequence_length"),
    "ConvertPromoteTypes": ("left_output", "right_output"),
    "ExperimentalDetectronDetectionOutput": ("boxes", "classes", "scores"),
    "ExperimentalDetectronGenerateProposalsSingleImage": ("rois", "roi_scores"),
    "ExperimentalDetectronROIFeatureExtractor": ("output", "rois"),
    "GRUSequence": ("Y", "Ho"),
    "GenerateProposals": ("rois", "roi_scores", "roi_num"),
    "LSTMCell": ("Ho", "Co"),
    "LSTMSequence": ("Y", "Ho", "Co"),
    "MatrixNms": ("selected_outputs", "selected_indices", "selected_num"),
    ("MaxPool", "v8"): ("output", "indices"),
    ("MaxPool", "v14"): ("output", "indices"),
    "MulticlassNms": ("selected_outputs", "selected_indices", "selected_num"),
    "NMSRotated": ("selected_indices", "selected_scores", "valid_outputs"),
    ("NonMaxSuppression", "v5"): (
        "selected_indices",
        "selected_scores",
        "valid_outputs",
    ),
    ("NonMaxSuppression", "v9"): (
        "selected_indices",
        "selected_scores",
        "valid_outputs",
    ),
    ("Proposal", "v4"): ("output", "probs"),
    "RNNSequence": ("Y", "Ho"),
    "SparseFillEmptyRows": (
        "output_indices",
        "output_values",
        "empty_row_indicator",
    ),
    "StringTensorUnpack": ("begins", "ends", "symbols"),
    "TopK": ("values", "indices"),
    "Unique": ("output", "indices", "reverse_indices", "counts"),
    # Variable output count (attribute, input or body dependent).
    "Split": ("outputs*",),
    "VariadicSplit": ("outputs*",),
    "If": ("outputs*",),
    "Loop": ("outputs*",),
    "TensorIterator": ("outputs*",),
}

#: Attributes of ops NodeFactory cannot default-construct (see VARIABLE_OPS):
#: (name, kind, default).
ATTR_OVERRIDES: dict[tuple[str, str], tuple[tuple[str, str, Any], ...]] = {
    ("Assign", "v6"): (("variable_id", "str", ""),),
    ("ReadValue", "v6"): (
        ("variable_id", "str", ""),
        ("variable_type", "etype", "dynamic"),
        ("variable_shape", "shape", "..."),
    ),
}

#: Defaults where the default-constructed C++ node holds a placeholder that the
#: opset specification replaces (the IR writer always writes every attribute).
DEFAULT_OVERRIDES: dict[tuple[str, str], Any] = {
    ("ShapeOf", "output_type"): "i64",
    ("Bucketize", "output_type"): "i64",
}

#: Attributes without a usable default (the specification marks them required or
#: the default-constructed value is meaningless). Keyed by op name, all versions.
REQUIRED_ATTRS: dict[str, frozenset[str]] = {
    name: frozenset(attrs)
    for name, attrs in {
        "AvgPool": ("kernel", "strides", "pads_begin", "pads_end", "exclude-pad"),
        "MaxPool": ("kernel", "strides", "pads_begin", "pads_end", "dilations"),
        "Convolution": ("strides", "pads_begin", "pads_end", "dilations"),
        "GroupConvolution": ("strides", "pads_begin", "pads_end", "dilations"),
        "BinaryConvolution": (
            "strides",
            "pads_begin",
            "pads_end",
            "dilations",
            "mode",
            "pad_value",
        ),
        "DeformableConvolution": (
            "strides",
            "pads_begin",
            "pads_end",
            "dilations",
            "group",
            "deformable_group",
        ),
        "ConvolutionBackpropData": ("strides", "pads_begin", "pads_end", "dilations"),
        "GroupConvolutionBackpropData": (
            "strides",
            "pads_begin",
            "pads_end",
            "dilations",
        ),
        "Concat": ("axis",),
        "Split": ("num_splits",),
        "Convert": ("destination_type",),
        "Range": ("output_type",),
        "Eye": ("output_type",),
        "RandomUniform": ("output_type",),
        "Multinomial": ("convert_type",),
        "Assign": ("variable_id",),
        "ReadValue": ("variable_id",),
        "BatchNormInference": ("epsilon",),
        "Clamp": ("min", "max"),
        "Elu": ("alpha",),
        "DepthToSpace": ("block_size", "mode"),
        "SpaceToDepth": ("block_size", "mode"),
        "Einsum": ("equation",),
        "FakeQuantize": ("levels",),
        "GRN": ("bias",),
        "LRN": ("alpha", "beta", "bias", "size"),
        "MVN": ("eps",),
        "NormalizeL2": ("eps", "eps_mode"),
        "GroupNormalization": ("num_groups", "epsilon"),
        "OneHot": ("axis",),
        "Reshape": ("special_zero",),
        "TopK": ("axis", "mode", "sort"),
        "StridedSlice": ("begin_mask", "end_mask"),
        "ExtractImagePatches": ("sizes", "strides", "rates", "auto_pad"),
        "GRUCell": ("hidden_size",),
        "LSTMCell": ("hidden_size",),
        "RNNCell": ("hidden_size",),
        "GRUSequence": ("hidden_size", "direction"),
        "LSTMSequence": ("hidden_size", "direction"),
        "RNNSequence": ("hidden_size", "direction"),
        "ROIAlign": ("pooled_h", "pooled_w", "sampling_ratio", "spatial_scale"),
        "ROIAlignRotated": (
            "pooled_h",
            "pooled_w",
            "sampling_ratio",
            "spatial_scale",
        ),
        "ROIPooling": ("output_size", "spatial_scale"),
        "PSROIPooling": ("output_dim", "group_size", "spatial_scale"),
        "DeformablePSROIPooling": ("output_dim", "spatial_scale"),
        "Proposal": ("base_size", "pre_nms_topn", "post_nms_topn", "nms_thresh"),
        "DetectionOutput": ("num_classes", "keep_top_k"),
        "ReorgYolo": ("stride",),
        "Interpolate": ("mode",),
    }.items()
}

#: The family of every op type (all its versions): shape inference lives in
#: ``dialects/ov/shape_inference/<family>.py``, the CPU kernel in
#: ``backends/cpu/kernels/<family>.py`` (``OV_FAMILY`` of the op class).
#: A new op type must be given a family here.
FAMILIES: dict[str, tuple[str, ...]] = {
    "activations": (
        "Abs", "Acos", "Acosh", "Asin", "Asinh", "Atan", "Atanh", "Ceiling",
        "Clamp", "Cos", "Cosh", "Elu", "Erf", "Exp", "Floor", "Gelu", "HSigmoid",
        "HSwish", "HardSigmoid", "Log", "LogSoftmax", "Mish", "Negative", "PRelu",
        "Relu", "Round", "Selu", "Sigmoid", "Sign", "Sin", "Sinh", "SoftPlus",
        "SoftSign", "Softmax", "Sqrt", "Swish", "Tan", "Tanh",
    ),
    "attention": ("ScaledDotProductAttention",),
    "col2im": ("Col2Im",),
    "color": ("I420toBGR", "I420toRGB", "NV12toBGR", "NV12toRGB"),
    "convolution": (
        "BinaryConvolution", "Convolution", "ConvolutionBackpropData",
        "DeformableConvolution", "GroupConvolution", "GroupConvolutionBackpropData",
    ),
    "detection": (
        "Bucketize", "DeformablePSROIPooling", "DetectionOutput",
        "ExperimentalDetectronDetectionOutput",
        "ExperimentalDetectronGenerateProposalsSingleImage",
        "ExperimentalDetectronPriorGridGenerator",
        "ExperimentalDetectronROIFeatureExtractor", "ExperimentalDetectronTopKROIs",
        "GenerateProposals", "MatrixNms", "MulticlassNms", "NMSRotated",
        "NonMaxSuppression", "PSROIPooling", "PriorBox", "PriorBoxClustered",
        "Proposal", "ROIAlign", "ROIAlignRotated", "ROIPooling", "RegionYolo",
        "ReorgYolo", "SearchSorted",
    ),
    "dft": ("DFT", "IDFT", "IRDFT", "ISTFT", "RDFT", "STFT"),
    "elementwise": (
        "Add", "BitwiseAnd", "BitwiseLeftShift", "BitwiseNot", "BitwiseOr",
        "BitwiseRightShift", "BitwiseXor", "Convert", "ConvertLike",
        "ConvertPromoteTypes", "Divide", "Equal", "FakeConvert", "FakeQuantize",
        "FloorMod", "Greater", "GreaterEqual", "Identity", "IsFinite", "IsInf",
        "IsNaN", "Less", "LessEqual", "LogicalAnd", "LogicalNot", "LogicalOr",
        "LogicalXor", "Maximum", "Minimum", "Mod", "Multiply", "NotEqual", "Power",
        "Select", "SquaredDifference", "Subtract", "Xor",
    ),
    "generation": (
        "Broadcast", "Eye", "NonZero", "OneHot", "Pad", "Range", "Tile",
    ),
    "indexing": (
        "EmbeddingBagOffsets", "EmbeddingBagOffsetsSum", "EmbeddingBagPacked",
        "EmbeddingBagPackedSum", "EmbeddingSegmentsSum", "Gather", "GatherElements",
        "GatherND", "GatherTree", "ScatterElementsUpdate", "ScatterNDUpdate",
        "ScatterUpdate", "Slice", "SliceScatter", "SparseFillEmptyRows",
        "StridedSlice",
    ),
    "interpolate": ("Interpolate",),
    "matmul": ("Einsum", "Inverse", "MatMul"),
    "normalization": (
        "BatchNormInference", "GRN", "GroupNormalization", "LRN", "MVN",
        "NormalizeL2",
    ),
    "pooling": ("AdaptiveAvgPool", "AdaptiveMaxPool", "AvgPool", "MaxPool"),
    "random": ("Multinomial", "RandomUniform"),
    "recurrent": (
        "CTCGreedyDecoder", "CTCGreedyDecoderSeqLen", "CTCLoss", "GRUCell",
        "GRUSequence", "LSTMCell", "LSTMSequence", "RNNCell", "RNNSequence",
        "ReverseSequence",
    ),
    "reductions": (
        "CumSum", "ReduceL1", "ReduceL2", "ReduceLogicalAnd", "ReduceLogicalOr",
        "ReduceMax", "ReduceMean", "ReduceMin", "ReduceProd", "ReduceSum",
        "SegmentMax", "TopK",
    ),
    "sampling": ("GridSample",),
    "shape_ops": (
        "BatchToSpace", "Concat", "DepthToSpace", "ExtractImagePatches", "Reshape",
        "Reverse", "Roll", "ShapeOf", "ShuffleChannels", "SpaceToBatch",
        "SpaceToDepth", "Split", "Squeeze", "Transpose", "Unsqueeze",
        "VariadicSplit",
    ),
    "state": ("Assign", "ReadValue"),
    "string": ("StringTensorPack", "StringTensorUnpack"),
    "unique": ("Unique",),
}  # fmt: skip

#: Op types with side effects, by trait (every other op is ``Pure``).
#: ReadValue reads its variable (and stores the initial value in it while it
#: holds none), Assign writes it, random ops draw from the random generator.
EFFECTS: dict[str, str] = {
    "ReadValue": "ReadsVariable",
    "Assign": "WritesVariable",
    "RandomUniform": "DrawsRandom",
    "Multinomial": "DrawsRandom",
}

#: Binary op types whose two inputs may be swapped (the opset specification's
#: definitions are symmetric; Maximum / Minimum as max / min).
COMMUTATIVE: frozenset[str] = frozenset(
    {
        "Add", "Multiply", "Maximum", "Minimum", "Equal", "NotEqual",
        "LogicalAnd", "LogicalOr", "LogicalXor", "Xor", "SquaredDifference",
        "BitwiseAnd", "BitwiseOr", "BitwiseXor",
    }
)  # fmt: skip

#: Elementwise op types (traits in ``xmo.dialects.ov.traits``): one data input
#: whose shape the result has, further inputs scalar parameters (or
#: ConvertLike's type donor) ...
ELEMENTWISE_UNARY: frozenset[str] = frozenset(
    (
        "Abs Acos Acosh Asin Asinh Atan Atanh BitwiseNot Ceiling Clamp Convert "
        "ConvertLike Cos Cosh Elu Erf Exp Floor Gelu HardSigmoid HSigmoid HSwish "
        "Identity IsFinite IsInf IsNaN Log LogicalNot Mish Negative Relu Round Selu "
        "Sigmoid Sign Sin Sinh SoftPlus SoftSign Sqrt Swish Tan Tanh"
    ).split()
)
#: ... every input broadcast to the result by ``auto_broadcast`` ...
ELEMENTWISE_BROADCAST: frozenset[str] = frozenset(
    (
        "Add Subtract Multiply Divide Maximum Minimum Power SquaredDifference "
        "FloorMod Mod Equal NotEqual Less LessEqual Greater GreaterEqual LogicalAnd "
        "LogicalOr LogicalXor Xor BitwiseAnd BitwiseOr BitwiseXor BitwiseLeftShift "
        "BitwiseRightShift Select FakeQuantize"
    ).split()
)
#: ... or elementwise with a broadcast of their own (PRelu's per-channel slope).
ELEMENTWISE_OTHER: frozenset[str] = frozenset({"PRelu"})

#: Op types that reduce input 0 over the axes of input 1 (``keep_dims``):
#: the ``Reduction`` trait.
REDUCTIONS: frozenset[str] = frozenset(
    (
        "ReduceSum ReduceMean ReduceMax ReduceMin ReduceProd ReduceL1 ReduceL2 "
        "ReduceLogicalAnd ReduceLogicalOr"
    ).split()
)

#: Ops (xDSL names) with a result type inference function: the
#: ``HasShapeInference`` trait. ``tests/test_ov_op_table.py`` checks this list
#: against the functions registered in ``dialects/ov/shape_inference/``.
SHAPE_INFERENCE: frozenset[str] = frozenset(
    """
    ov.Abs ov.Acos ov.Acosh ov.Add ov.Asin ov.Asinh ov.Atan ov.Atanh ov.AvgPool
    ov.BatchNormInference ov.BitwiseAnd ov.BitwiseLeftShift ov.BitwiseNot
    ov.BitwiseOr ov.BitwiseRightShift ov.BitwiseXor ov.Broadcast ov.Bucketize
    ov.Ceiling ov.Clamp ov.Concat ov.Convert ov.ConvertLike ov.Convolution
    ov.ConvolutionBackpropData ov.Cos ov.Cosh ov.CumSum ov.DFT ov.DepthToSpace
    ov.Divide ov.Elu ov.Equal ov.Erf ov.Exp ov.FakeConvert ov.FakeQuantize ov.Floor
    ov.FloorMod ov.Gather ov.GatherElements ov.GatherND ov.Gelu ov.Greater
    ov.GreaterEqual ov.GroupConvolution ov.GroupNormalization ov.HSigmoid ov.HSwish
    ov.HardSigmoid ov.IDFT ov.IRDFT ov.Identity ov.Interpolate ov.IsFinite ov.IsInf
    ov.IsNaN ov.LRN ov.Less ov.LessEqual ov.Log ov.LogSoftmax ov.LogicalAnd
    ov.LogicalNot ov.LogicalOr ov.LogicalXor ov.MVN ov.MatMul ov.MaxPool ov.Maximum
    ov.Minimum ov.Mish ov.Mod ov.Multiply ov.Negative ov.NonZero ov.NormalizeL2
    ov.NotEqual ov.OneHot ov.PRelu ov.Pad ov.Power ov.RDFT ov.Range ov.ReduceL1
    ov.ReduceL2 ov.ReduceLogicalAnd ov.ReduceLogicalOr ov.ReduceMax ov.ReduceMean
    ov.ReduceMin ov.ReduceProd ov.ReduceSum ov.Relu ov.Reshape ov.ReverseSequence
    ov.Roll ov.Round ov.ScaledDotProductAttention ov.ScatterElementsUpdate ov.ScatterNDUpdate ov.ScatterUpdate
    ov.Select ov.Selu ov.ShapeOf ov.Sigmoid ov.Sign ov.Sin ov.Sinh ov.Slice
    ov.SoftPlus ov.SoftSign ov.Softmax ov.SpaceToDepth ov.Split ov.Sqrt
    ov.SquaredDifference ov.Squeeze ov.StridedSlice ov.Subtract ov.Swish ov.Tan
    ov.Tanh ov.Tile ov.TopK ov.Transpose ov.Unique ov.Unsqueeze ov.VariadicSplit
    """.split()
)

#: Element type names an ``etype`` attribute may hold.
ELEMENT_TYPE_NAMES = frozenset(
    {
        "dynamic",
        "undefined",
        "boolean",
        "bf16",
        "f16",
        "f32",
        "f64",
        "f4e2m1",
        "f8e4m3",
        "f8e5m2",
        "f8e8m0",
        "nf4",
        "i4",
        "i8",
        "i16",
        "i32",
        "i64",
        "u1",
        "u2",
        "u3",
        "u4",
        "u6",
        "u8",
        "u16",
        "u32",
        "u64",
        "string",
    }
)

_REG_RE = re.compile(r"^_OPENVINO_OP_REG\((\w+),\s*ov::op::(v\d+)\)", re.MULTILINE)


# ---------------------------------------------------------------------------
# Reading the wheel
# ---------------------------------------------------------------------------


def openvino_version() -> str:
    return importlib.metadata.version("openvino")


def opset_tables() -> dict[int, list[tuple[str, str]]]:
    """opset number -> [(registration name, 'vK'), ...] in table order."""
    import openvino

    root = pathlib.Path(openvino.__file__).parent / "include" / "openvino" / "opsets"
    return {
        n: _REG_RE.findall((root / f"opset{n}_tbl.hpp").read_text())
        for n in range(FIRST_OPSET, NEWEST_OPSET + 1)
    }


def first_opsets(
    tables: dict[int, list[tuple[str, str]]],
) -> dict[tuple[str, str], int]:
    """(registration name, 'vK') -> first opset whose table lists it."""
    first: dict[tuple[str, str], int] = {}
    for n in sorted(tables):
        for pair in tables[n]:
            first.setdefault(pair, n)
    return first


def make_node(name: str, version: str, opset: int) -> Any:
    """A default-constructed node of the op version (no inputs)."""
    if (name, version) in VARIABLE_OPS:
        import openvino.opset6 as o6
        from openvino import PartialShape, Type

        value = o6.read_value("xmo_probe", Type.f32, PartialShape([1]))
        if name == "ReadValue":
            return value
        return o6.assign(value, "xmo_probe")
    from openvino.utils.node_factory import NodeFactory

    return NodeFactory(f"opset{opset}").create(name)


def _probe_list_kind(name: str, version: str, opset: int, attr: str) -> str:
    for value, kind in (([1.5], "f64[]"), ([2], "i64[]"), (["x"], "str[]")):
        node = make_node(name, version, opset)
        try:
            node.set_attribute(attr, value)
        except Exception:  # noqa: BLE001 (pybind11 raises RuntimeError/TypeError)
            continue
        if list(node.get_attributes()[attr]) == value:
            return kind
    raise RuntimeError(f"{name}-{version}: cannot tell the kind of list '{attr}'")


def _value_kind(value: Any) -> str | None:
    if isinstance(value, bool):
        return "bool"
    if isinstance(value, int):
        return "i64"
    if isinstance(value, float):
        return "f64"
    if isinstance(value, str):
        return "etype" if value in ELEMENT_TYPE_NAMES else "str"
    return None


@dataclass(frozen=True)
class Attr:
    name: str
    kind: str
    default: Any
    required: bool


def op_attributes(name: str, version: str, opset: int) -> list[Attr]:
    if (name, version) in ATTR_OVERRIDES:
        raw = [(n, k, d) for n, k, d in ATTR_OVERRIDES[(name, version)]]
    else:
        raw = []
        for attr, value in make_node(name, version, opset).get_attributes().items():
            if isinstance(value, list):
                kinds = {_value_kind(v) for v in value}
                if not value:
                    kind = _probe_list_kind(name, version, opset, attr)
                elif kinds == {"i64"}:
                    kind = "i64[]"
                elif kinds <= {"i64", "f64"}:
                    kind = "f64[]"
                elif kinds <= {"str", "etype"}:
                    kind = "str[]"
                else:
                    raise RuntimeError(f"{name}-{version}: list attribute {attr}")
                default: Any = tuple(
                    float(v) if kind == "f64[]" else v for v in value
                )
            else:
                k = _value_kind(value)
                if k is None:
                    raise RuntimeError(
                        f"{name}-{version}: attribute {attr} holds {value!r}; "
                        "add it to ATTR_OVERRIDES"
                    )
                kind, default = k, value
            raw.append((attr, kind, DEFAULT_OVERRIDES.get((name, attr), default)))
    required = REQUIRED_ATTRS.get(name, frozenset())
    return [Attr(n, k, d, n in required) for n, k, d in raw]


def _norm(s: str) -> str:
    return s.replace("_", "").lower()


def python_function(
    name: str, version: str, tables: dict[int, list[tuple[str, str]]]
) -> Any:
    """The ``openvino.opsetN`` function making this op version, or None.

    The newest module whose table lists the version is searched first: some
    modules re-export an older version's function (``openvino.opset4.range``
    makes Range-1).
    """
    for n in sorted(tables, reverse=True):
        if (name, version) not in tables[n]:
            continue
        module = importlib.import_module(f"openvino.opset{n}")
        for attr in sorted(dir(module)):
            if attr.startswith("_") or _norm(attr) != _norm(name):
                continue
            fn = getattr(module, attr)
            if inspect.isfunction(fn):
                return fn
    return None


def _is_node_annotation(annotation: Any) -> bool:
    text = str(annotation)
    return "Node" in text or "Output" in text


def op_inputs(
    name: str, version: str, tables: dict[int, list[tuple[str, str]]]
) -> tuple[str, ...]:
    if (name, version) in INPUT_OVERRIDES:
        return INPUT_OVERRIDES[(name, version)]
    fn = python_function(name, version, tables)
    if fn is None:
        raise RuntimeError(f"{name}-{version}: no Python function; add an override")
    ports: list[str] = []
    for p in inspect.signature(fn).parameters.values():
        if p.name == "name" or not _is_node_annotation(p.annotation):
            continue
        text = str(p.annotation)
        if text.startswith("list[") or text.startswith("typing.List["):
            ports.append(p.name + "*")
        elif p.default is None:
            ports.append(p.name + "?")
        else:
            ports.append(p.name)
    return tuple(ports)


def _min_inputs(ports: tuple[str, ...]) -> int:
    return sum(1 for p in ports if not p.endswith(("?", "*")))


def probed_output_count(
    name: str, version: str, opset: int, num_inputs: int
) -> int | None:
    """Outputs of a node built on dynamic Parameters, or None if it cannot be built."""
    if (name, version) in VARIABLE_OPS | NO_PROBE:
        return None
    import openvino.opset1 as o1
    from openvino import PartialShape, Type
    from openvino.utils.node_factory import NodeFactory

    factory = NodeFactory(f"opset{opset}")
    for etype in (Type.dynamic, Type.f32, Type.i64):
        args = [
            o1.parameter(PartialShape.dynamic(), etype).output(0)
            for _ in range(num_inputs)
        ]
        try:
            return factory.create(name, args, {}).get_output_size()
        except Exception:  # noqa: BLE001 (validation errors of the op)
            continue
    return None


def op_outputs(
    name: str, version: str, opset: int, inputs: tuple[str, ...]
) -> tuple[str, ...]:
    names = OUTPUT_NAMES.get((name, version), OUTPUT_NAMES.get(name))
    count = probed_output_count(name, version, opset, _min_inputs(inputs))
    if names is None:
        if count not in (None, 1):
            raise RuntimeError(
                f"{name}-{version} has {count} outputs: add it to OUTPUT_NAMES"
            )
        return ("output",)
    if count is not None and not any(n.endswith("*") for n in names):
        if count != len(names):
            raise RuntimeError(
                f"{name}-{version}: {count} outputs, OUTPUT_NAMES has {len(names)}"
            )
    return names


# ---------------------------------------------------------------------------
# Building the table
# ---------------------------------------------------------------------------


@dataclass(frozen=True)
class OpInfo:
    reg_name: str
    cpp_version: str
    ov_type: str
    opset: int
    newest: bool
    inputs: tuple[str, ...]
    outputs: tuple[str, ...]
    attrs: tuple[Attr, ...]

    @property
    def op_name(self) -> str:
        if self.newest:
            return f"ov.{self.ov_type}"
        return f"ov.{self.ov_type}_opset{self.opset}"

    @property
    def class_name(self) -> str:
        if self.newest:
            return f"{self.ov_type}Op"
        return f"{self.ov_type}Opset{self.opset}Op"


def collect_ops() -> list[OpInfo]:
    tables = opset_tables()
    first = first_opsets(tables)
    newest = set(tables[NEWEST_OPSET])
    ops: list[OpInfo] = []
    for (name, version), opset in first.items():
        if name in HAND_WRITTEN:
            continue
        node = make_node(name, version, opset)
        inputs = op_inputs(name, version, tables)
        ops.append(
            OpInfo(
                reg_name=name,
                cpp_version=version,
                ov_type=node.get_type_info().name,
                opset=opset,
                newest=(name, version) in newest,
                inputs=inputs,
                outputs=op_outputs(name, version, opset, inputs),
                attrs=tuple(op_attributes(name, version, opset)),
            )
        )
    ops.sort(key=lambda o: o.op_name)
    check_tables(ops)
    seen: set[str] = set()
    for o in ops:
        if o.op_name in seen:
            raise RuntimeError(f"two op versions named {o.op_name}")
        seen.add(o.op_name)
    return ops


# ---------------------------------------------------------------------------
# Rendering
# ---------------------------------------------------------------------------


def _py(value: Any) -> str:
    if isinstance(value, tuple):
        if len(value) == 1:
            return f"({_py(value[0])},)"
        return "(" + ", ".join(_py(v) for v in value) + ")"
    if isinstance(value, float):
        return repr(value)
    if isinstance(value, str):
        return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'
    return repr(value)


def _tuple_lines(field: str, items: list[str], indent: str = "    ") -> list[str]:
    head = f"{indent}{field} = "
    one_line = head + ("(" + items[0] + ",)" if len(items) == 1 else _join(items))
    if len(one_line) <= 88:
        return [one_line]
    return [head + "(", *(f"{indent}    {it}," for it in items), f"{indent})"]


def _join(items: list[str]) -> str:
    return "(" + ", ".join(items) + ")"


def _attr_spec(a: Attr) -> str:
    args = [_py(a.name), _py(a.kind), _py(a.default)]
    if a.required:
        args.append("required=True")
    return "AttrSpec(" + ", ".join(args) + ")"


def render_op(o: OpInfo) -> list[str]:
    n = o.opset
    doc = f'    """OpenVINO {o.ov_type}-{n} (IR version opset{n}).'
    if o.cpp_version != f"v{n}" or o.reg_name != o.ov_type:
        # Name the C++ class where the op spec number does not give it away.
        cpp = f", ov::op::{o.cpp_version}::{o.reg_name}"
        if len(doc) + len(cpp) + 3 <= 88:
            doc = doc[:-2] + f"{cpp})."
    lines = ["@ov_op", f"class {o.class_name}(OVOp):"]
    lines.append(doc + '"""')
    lines += [
        "",
        f"    name = {_py(o.op_name)}",
        f"    OV_TYPE: ClassVar[str] = {_py(o.ov_type)}",
        f"    OV_VERSION: ClassVar[str] = {_py(f'opset{n}')}",
        f"    OV_FAMILY: ClassVar[str] = {_py(family_of(o.ov_type))}",
    ]
    lines += _tuple_lines(
        "OV_INPUTS: ClassVar[tuple[str, ...]]", [_py(p) for p in o.inputs]
    ) if o.inputs else ["    OV_INPUTS: ClassVar[tuple[str, ...]] = ()"]
    lines += _tuple_lines(
        "OV_OUTPUTS: ClassVar[tuple[str, ...]]", [_py(p) for p in o.outputs]
    )
    if o.attrs:
        specs = [_attr_spec(a) for a in o.attrs]
        head = "    OV_ATTRS: ClassVar[tuple[AttrSpec, ...]] = "
        lines.append(head + "(")
        for s in specs:
            line = f"        {s},"
            if len(line) > 88:
                inner = s[len("AttrSpec(") : -1]
                parts = _split_args(inner)
                lines.append("        AttrSpec(")
                lines += [f"            {p}," for p in parts]
                lines.append("        ),")
            else:
                lines.append(line)
        lines.append("    )")
    lines += ["", *_traits_lines(op_traits(o))]
    return lines


def family_of(ov_type: str) -> str:
    for family, types in FAMILIES.items():
        if ov_type in types:
            return family
    raise RuntimeError(f"{ov_type} has no family: add it to FAMILIES")


def op_traits(o: OpInfo) -> list[str]:
    """The trait constructors of an op, in a fixed order."""
    traits = [f"{EFFECTS[o.ov_type]}()" if o.ov_type in EFFECTS else "Pure()"]
    if o.ov_type in COMMUTATIVE:
        traits.append("Commutative()")
    if o.ov_type in ELEMENTWISE_UNARY:
        traits.append("ElementwiseUnary()")
    elif o.ov_type in ELEMENTWISE_BROADCAST:
        traits.append("ElementwiseBroadcast()")
    elif o.ov_type in ELEMENTWISE_OTHER:
        traits.append("Elementwise()")
    if o.ov_type in REDUCTIONS:
        traits.append("Reduction()")
    if o.op_name in SHAPE_INFERENCE:
        traits.append("HasShapeInference()")
    return traits


def _traits_lines(traits: list[str]) -> list[str]:
    one_line = "    traits = traits_def(" + ", ".join(traits) + ")"
    if len(one_line) <= 88:
        return [one_line]
    return ["    traits = traits_def(", *(f"        {t}," for t in traits), "    )"]


def check_tables(ops: list[OpInfo]) -> None:
    """Every name in the trait and family tables is an op of the opset."""
    types = {o.ov_type for o in ops}
    named = [t for ts in FAMILIES.values() for t in ts]
    if len(named) != len(set(named)):
        raise RuntimeError("an op type is in two FAMILIES")
    for table, names in (
        ("FAMILIES", set(named)),
        ("EFFECTS", set(EFFECTS)),
        ("COMMUTATIVE", COMMUTATIVE),
        ("ELEMENTWISE_UNARY", ELEMENTWISE_UNARY),
        ("ELEMENTWISE_BROADCAST", ELEMENTWISE_BROADCAST),
        ("ELEMENTWISE_OTHER", ELEMENTWISE_OTHER),
        ("REDUCTIONS", REDUCTIONS),
    ):
        unknown = sorted(names - types)
        if unknown:
            raise RuntimeError(f"{table} names unknown op types: {unknown}")
    unknown = sorted(SHAPE_INFERENCE - {o.op_name for o in ops})
    if unknown:
        raise RuntimeError(f"SHAPE_INFERENCE names unknown ops: {unknown}")


def _split_args(text: str) -> list[str]:
    """Split top-level comma-separated arguments (strings and tuples nest)."""
    parts: list[str] = []
    depth, in_str, cur = 0, False, ""
    i = 0
    while i < len(text):
        c = text[i]
        if in_str:
            cur += c
            if c == "\\":
                cur += text[i + 1]
                i += 1
            elif c == '"':
                in_str = False
        elif c == '"':
            in_str, cur = True, cur + c
        elif c in "([":
            depth, cur = depth + 1, cur + c
        elif c in ")]":
            depth, cur = depth - 1, cur + c
        elif c == "," and depth == 0:
            parts.append(cur.strip())
            cur = ""
        else:
            cur += c
        i += 1
    if cur.strip():
        parts.append(cur.strip())
    return parts


def render(ops: list[OpInfo] | None = None) -> str:
    """The text of ``dialects/ov/ops.py`` for the installed openvino."""
    if ops is None:
        ops = collect_ops()
    newest = sum(1 for o in ops if o.newest)
    out = [
        f"# Generated by tools/gen_ov_opset.py from openvino=={openvino_version()}.",
        "# DO NOT EDIT: change the generator and run `python tools/gen_ov_opset.py`.",
        f'"""OpenVINO opset{FIRST_OPSET}..{NEWEST_OPSET} ops '
        "(except the hand-written Parameter, Constant, Result,",
        "If, Loop and TensorIterator).",
        "",
        f"{newest} newest versions (the opset{NEWEST_OPSET} ones, ``ov.<Type>``) and "
        f"{len(ops) - newest} older",
        "versions (``ov.<Type>_opset<N>``) so IR written with them can be read.",
        '"""',
        "",
        "from __future__ import annotations",
        "",
        "from typing import ClassVar",
        "",
        "from xdsl.irdl import traits_def",
        "from xdsl.traits import Commutative, Pure",
        "",
        "from xmo.dialects.attr_spec import AttrSpec",
        "from xmo.dialects.ov.base import OVOp, ov_op",
        "from xmo.dialects.ov.traits import (",
        *(f"    {t}," for t in sorted({
            "Elementwise", "ElementwiseBroadcast", "ElementwiseUnary",
            "HasShapeInference", "Reduction", *EFFECTS.values()
        })),
        ")",
        "",
    ]
    for o in ops:
        out += ["", *render_op(o), ""]
    out += ["", "GENERATED_OPS: tuple[type[OVOp], ...] = ("]
    out += [f"    {o.class_name}," for o in ops]
    out += [")", ""]
    return "\n".join(out)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--check", action="store_true", help="fail if ops.py is out of date"
    )
    parser.add_argument("--output", type=pathlib.Path, default=OUTPUT_PATH)
    args = parser.parse_args(argv)
    ops = collect_ops()
    text = render(ops)
    if args.check:
        current = args.output.read_text() if args.output.exists() else ""
        if current != text:
            print(f"{args.output} is out of date", file=sys.stderr)
            return 1
        return 0
    args.output.write_text(text)
    newest = sum(1 for o in ops if o.newest)
    print(
        f"wrote {args.output}: {len(ops)} ops "
        f"({newest} newest, {len(ops) - newest} older versions)"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
