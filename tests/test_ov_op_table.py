"""Where each ov op's shape inference and CPU kernel are, and which ops lack them.

An op's ``OV_FAMILY`` (the generator's ``FAMILIES`` table) names both modules:
``xmo/dialects/ov/shape_inference/<family>.py`` and
``xmo/backends/cpu/kernels/<family>.py``; the ``HasShapeInference`` trait says
the op has an inference function.

The two lists below are the ops without one (shrink-only): an op that gains
shape inference or a kernel must leave its list, and an op that loses one (or
a new op without one) fails until it is listed.
"""

from __future__ import annotations

import pytest

from xmo.backends.cpu import kernel_for
from xmo.dialects.ov import ALL_OPS
from xmo.dialects.ov.base import inference_for
from xmo.dialects.ov.traits import HasShapeInference

NO_SHAPE_INFERENCE = frozenset(
    "ov." + n
    for n in """
    AdaptiveAvgPool AdaptiveMaxPool Assign Assign_opset3 AvgPool_opset1
    AvgPool_opset14 BatchNormInference_opset1 BatchToSpace BinaryConvolution
    Broadcast_opset1 CTCGreedyDecoder CTCGreedyDecoderSeqLen CTCLoss Col2Im Constant
    ConvertPromoteTypes DeformableConvolution DeformableConvolution_opset1
    DeformablePSROIPooling DetectionOutput DetectionOutput_opset1 Einsum
    EmbeddingBagOffsets EmbeddingBagOffsetsSum EmbeddingBagPacked
    EmbeddingBagPackedSum EmbeddingSegmentsSum ExperimentalDetectronDetectionOutput
    ExperimentalDetectronGenerateProposalsSingleImage
    ExperimentalDetectronPriorGridGenerator ExperimentalDetectronROIFeatureExtractor
    ExperimentalDetectronTopKROIs ExtractImagePatches Eye GRN GRUCell GRUSequence
    GatherND_opset5 GatherTree Gather_opset1 Gather_opset7 Gelu_opset2
    GenerateProposals GridSample GroupConvolutionBackpropData I420toBGR I420toRGB
    ISTFT Interpolate_opset1 Interpolate_opset4 Inverse LSTMCell LSTMCell_opset1
    LSTMSequence MVN_opset2 MatrixNms MaxPool_opset1 MaxPool_opset8
    MulticlassNms MulticlassNms_opset8 Multinomial NMSRotated NV12toBGR NV12toRGB
    NonMaxSuppression NonMaxSuppression_opset1 NonMaxSuppression_opset3
    NonMaxSuppression_opset4 NonMaxSuppression_opset5 OneHot_opset1 PSROIPooling
    Pad_opset1 Parameter PriorBox PriorBoxClustered PriorBox_opset1 Proposal
    Proposal_opset1 RNNCell RNNSequence ROIAlign ROIAlignRotated ROIAlign_opset3
    ROIPooling RandomUniform Range_opset1 ReadValue ReadValue_opset3 RegionYolo
    ReorgYolo Reverse_opset1 STFT
    ScatterElementsUpdate_opset3 ScatterNDUpdate_opset4 SearchSorted SegmentMax
    ShapeOf_opset1 ShuffleChannels SliceScatter Softmax_opset1 SpaceToBatch
    SparseFillEmptyRows Squeeze_opset1 StringTensorPack StringTensorUnpack
    TopK_opset1 TopK_opset3 Xor_opset1
    """.split()
)

#: Parameter, Constant and Result are the executor's own (no kernels).
NO_CPU_KERNEL = frozenset(
    "ov." + n
    for n in """
    AdaptiveAvgPool AdaptiveMaxPool Assign Assign_opset3 BatchToSpace
    BinaryConvolution CTCGreedyDecoder CTCGreedyDecoderSeqLen CTCLoss Constant
    ConvertPromoteTypes DeformableConvolution DeformableConvolution_opset1
    DeformablePSROIPooling DetectionOutput_opset1
    EmbeddingBagOffsets EmbeddingBagOffsetsSum EmbeddingBagPacked
    EmbeddingBagPackedSum EmbeddingSegmentsSum ExperimentalDetectronDetectionOutput
    ExperimentalDetectronGenerateProposalsSingleImage
    ExperimentalDetectronPriorGridGenerator ExperimentalDetectronROIFeatureExtractor
    ExperimentalDetectronTopKROIs ExtractImagePatches Eye FakeConvert GRN GRUCell
    GatherTree GenerateProposals I420toBGR I420toRGB ISTFT Interpolate_opset1
    Inverse LSTMCell LSTMCell_opset1 MVN_opset2 MatrixNms MulticlassNms
    MulticlassNms_opset8 Multinomial NMSRotated NV12toBGR NV12toRGB
    NonMaxSuppression_opset1 NonMaxSuppression_opset3 NonMaxSuppression_opset4
    PSROIPooling Parameter PriorBox PriorBoxClustered PriorBox_opset1
    Proposal_opset1 RNNCell ROIAlignRotated
    RandomUniform ReadValue ReadValue_opset3 RegionYolo ReorgYolo Result STFT
    SearchSorted SegmentMax SliceScatter SpaceToBatch
    SparseFillEmptyRows StringTensorPack StringTensorUnpack
    """.split()
)

OP_NAMES = {op.name for op in ALL_OPS}


def test_the_lists_name_ops_of_the_opset():
    assert NO_SHAPE_INFERENCE <= OP_NAMES, sorted(NO_SHAPE_INFERENCE - OP_NAMES)
    assert NO_CPU_KERNEL <= OP_NAMES, sorted(NO_CPU_KERNEL - OP_NAMES)


def test_ops_without_shape_inference():
    missing = {op.name for op in ALL_OPS if inference_for(op.name) is None}
    assert not missing - NO_SHAPE_INFERENCE, (
        "ops without shape inference that are not listed in NO_SHAPE_INFERENCE: "
        f"{sorted(missing - NO_SHAPE_INFERENCE)}"
    )
    assert not NO_SHAPE_INFERENCE - missing, (
        "ops that have shape inference now: remove them from NO_SHAPE_INFERENCE: "
        f"{sorted(NO_SHAPE_INFERENCE - missing)}"
    )


def test_ops_without_a_cpu_kernel():
    missing = {op.name for op in ALL_OPS if kernel_for(op.name) is None}
    assert not missing - NO_CPU_KERNEL, (
        "ops without a CPU kernel that are not listed in NO_CPU_KERNEL: "
        f"{sorted(missing - NO_CPU_KERNEL)}"
    )
    assert not NO_CPU_KERNEL - missing, (
        "ops that have a CPU kernel now: remove them from NO_CPU_KERNEL: "
        f"{sorted(NO_CPU_KERNEL - missing)}"
    )


@pytest.mark.parametrize("op", ALL_OPS, ids=lambda op: op.name)
def test_shape_inference_is_where_the_op_says(op):
    fn = inference_for(op.name)
    assert op.OV_FAMILY, f"{op.name} has no OV_FAMILY"
    assert op.has_trait(HasShapeInference) == (fn is not None), (
        f"{op.name}: the HasShapeInference trait (the generator's SHAPE_INFERENCE "
        "table) and the registered inference functions disagree"
    )
    if fn is not None:
        assert fn.__module__ == HasShapeInference.module_of(op)


@pytest.mark.parametrize("op", ALL_OPS, ids=lambda op: op.name)
def test_cpu_kernel_is_where_the_op_says(op):
    kernel = kernel_for(op.name)
    if kernel is not None:
        assert kernel.__module__ == f"xmo.backends.cpu.kernels.{op.OV_FAMILY}"
