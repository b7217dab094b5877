"""xmo passes. :func:`get_all_passes` is the registry ``xmo-opt -p`` uses.

Passes are registered by name with a factory that imports their module only
when the pass is used, so the driver starts fast.
"""

from __future__ import annotations

from collections.abc import Callable

from xdsl.passes import ModulePass


def _ov_infer_shapes() -> type[ModulePass]:
    from xmo.passes.ov_infer_shapes import OVInferShapesPass

    return OVInferShapesPass


def _ov_constant_fold() -> type[ModulePass]:
    from xmo.passes.ov_constant_fold import OVConstantFoldPass

    return OVConstantFoldPass


def _ov_dce() -> type[ModulePass]:
    from xmo.passes.ov_dce import OVDeadCodeEliminationPass

    return OVDeadCodeEliminationPass


def _convert_onnx_to_ov() -> type[ModulePass]:
    from xmo.passes.onnx_to_ov import ConvertONNXToOVPass

    return ConvertONNXToOVPass


def _convert_tf_to_ov() -> type[ModulePass]:
    from xmo.passes.tf_to_ov import ConvertTFToOVPass

    return ConvertTFToOVPass


def _convert_kaldi_to_ov() -> type[ModulePass]:
    from xmo.passes.kaldi_to_ov import ConvertKaldiToOVPass

    return ConvertKaldiToOVPass


def _convert_mxnet_to_ov() -> type[ModulePass]:
    from xmo.passes.mxnet_to_ov import ConvertMXNetToOVPass

    return ConvertMXNetToOVPass


def _ov_compress_fp16() -> type[ModulePass]:
    from xmo.passes.ov_compress_fp16 import OVCompressFP16Pass

    return OVCompressFP16Pass


def _onnx_canonicalize() -> type[ModulePass]:
    from xmo.passes.onnx_canonicalize import ONNXCanonicalizePass

    return ONNXCanonicalizePass


def _ov_cse() -> type[ModulePass]:
    from xmo.passes.ov_cse import OVCSEPass

    return OVCSEPass


def _ov_fuse_linear() -> type[ModulePass]:
    from xmo.passes.ov_fuse_linear import OVFuseLinearPass

    return OVFuseLinearPass


def _ov_fusions() -> type[ModulePass]:
    from xmo.passes.ov_fusions import OVFusionsPass

    return OVFusionsPass


def _ov_loop_to_sequence() -> type[ModulePass]:
    from xmo.passes.loop_to_sequence import OVLoopToSequencePass

    return OVLoopToSequencePass


def _ov_transpose_sinking() -> type[ModulePass]:
    from xmo.passes.transpose_sinking import OVTransposeSinkingPass

    return OVTransposeSinkingPass


def _ov_init_node_info() -> type[ModulePass]:
    from xmo.passes.transformations import InitNodeInfo

    return InitNodeInfo


def _ov_set_outputs() -> type[ModulePass]:
    from xmo.passes.ov_model_io import OVSetOutputsPass

    return OVSetOutputsPass


def _ov_change_layout() -> type[ModulePass]:
    from xmo.passes.ov_model_io import OVChangeLayoutPass

    return OVChangeLayoutPass


def _ov_check_static_shapes() -> type[ModulePass]:
    from xmo.passes.ov_model_io import OVCheckStaticShapesPass

    return OVCheckStaticShapesPass


def _convert_caffe_to_ov() -> type[ModulePass]:
    from xmo.passes.caffe_to_ov import ConvertCaffeToOVPass

    return ConvertCaffeToOVPass


def _ov_preprocess() -> type[ModulePass]:
    from xmo.passes.ov_preprocess import OVPreprocessPass

    return OVPreprocessPass


def _xmo_convert() -> type[ModulePass]:
    from xmo.passes.conversion import XmoConvertPass

    return XmoConvertPass


def get_all_passes() -> dict[str, Callable[[], type[ModulePass]]]:
    """Pass name -> factory returning the pass class."""
    return {
        "ov-infer-shapes": _ov_infer_shapes,
        "ov-constant-fold": _ov_constant_fold,
        "ov-dce": _ov_dce,
        "ov-fuse-linear": _ov_fuse_linear,
        "ov-fusions": _ov_fusions,
        "ov-cse": _ov_cse,
        "ov-compress-fp16": _ov_compress_fp16,
        "ov-init-node-info": _ov_init_node_info,
        "ov-transpose-sinking": _ov_transpose_sinking,
        "ov-loop-to-sequence": _ov_loop_to_sequence,
        "onnx-canonicalize": _onnx_canonicalize,
        "convert-onnx-to-ov": _convert_onnx_to_ov,
        "convert-tf-to-ov": _convert_tf_to_ov,
        "convert-kaldi-to-ov": _convert_kaldi_to_ov,
        "convert-mxnet-to-ov": _convert_mxnet_to_ov,
        "ov-set-outputs": _ov_set_outputs,
        "ov-change-layout": _ov_change_layout,
        "ov-check-static-shapes": _ov_check_static_shapes,
        "xmo-convert": _xmo_convert,
        "convert-caffe-to-ov": _convert_caffe_to_ov,
        "ov-preprocess": _ov_preprocess,
    }
