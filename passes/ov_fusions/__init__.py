"""``ov-fusions``: canonicalization and fusion patterns on ov ops, written
with the transformation API (:mod:`xmo.passes.transformations`).

One :class:`GraphRewrite` of the matchers below, in this order (each op is
visited once, in block order; the first matcher whose callback succeeds
wins). Disable one with ``-p 'ov-fusions{disabled=swish-fusion}'`` or run it
alone by its name (``xmo-opt -p swish-fusion``).

| matcher | module |
| --- | --- |
| softplus-fusion, mish-fusion, swish-fusion, hsigmoid-fusion, hswish-fusion, gelu-erf-fusion, gelu-tanh-fusion | :mod:`.activations` |
| mvn-fusion, mvn-affine-fusion, normalize-l2-fusion | :mod:`.normalization` |
| sdpa-fusion | :mod:`.attention` |
| shuffle-channels-fusion, transpose-pair-fusion, transpose-to-reshape, reshape-chain-fusion, nop-reshape-elimination, shape-value-fold, reshape-dynamic-target, negative-index-wrap-elimination, slice-bound-clamp-elimination | :mod:`.shapes` (symbolic dimensions: :mod:`.dim_symbols`) |
| pad-into-pooling | :mod:`.pooling` |
| fake-quantize-fusion | :mod:`.quantization` |
| subtract-const-to-add, divide-const-to-multiply, rsqrt-to-power, negative-fold | :mod:`.arithmetic` |

``ov-fuse-linear`` runs after it (batch norms, Multiply/Add chains and zero
padding into convolution and MatMul weights), so the Subtract / Divide
spellings of a batch norm reach the weights.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from xmo.passes.ov_fusions.activations import (
    GeluErfFusion,
    GeluTanhFusion,
    HSigmoidFusion,
    HSwishFusion,
    MishFusion,
    SoftPlusFusion,
    SwishFusion,
)
from xmo.passes.ov_fusions.arithmetic import (
    DivideConstToMultiply,
    NegativeFold,
    RsqrtToPower,
    SubtractConstToAdd,
)
from xmo.passes.ov_fusions.attention import SDPAFusion
from xmo.passes.ov_fusions.normalization import MVNAffineFusion, MVNFusion, NormalizeL2Fusion
from xmo.passes.ov_fusions.pooling import PadIntoPooling
from xmo.passes.ov_fusions.quantization import FakeQuantizeFusion
from xmo.passes.ov_fusions.shapes import (
    NegativeIndexWrapElimination,
    NopReshapeElimination,
    ReshapeChainFusion,
    ReshapeDynamicTarget,
    ShapeValueFold,
    ShuffleChannelsFusion,
    SliceBoundClampElimination,
    TransposePairFusion,
    TransposeToReshape,
)
from xmo.passes.transformations import GraphRewrite, MatcherPass

#: fusions first: they match the Subtract / Divide spellings that the
#: arithmetic canonicalization (last, so it never pre-empts them) rewrites
MATCHERS: tuple[type[MatcherPass], ...] = (
    SoftPlusFusion,
    MishFusion,
    SwishFusion,
    HSigmoidFusion,
    HSwishFusion,
    GeluErfFusion,
    GeluTanhFusion,
    MVNFusion,
    MVNAffineFusion,
    NormalizeL2Fusion,
    SDPAFusion,
    ShuffleChannelsFusion,
    TransposePairFusion,
    TransposeToReshape,
    ReshapeChainFusion,
    NopReshapeElimination,
    ShapeValueFold,
    ReshapeDynamicTarget,
    NegativeIndexWrapElimination,
    SliceBoundClampElimination,
    PadIntoPooling,
    FakeQuantizeFusion,
    SubtractConstToAdd,
    DivideConstToMultiply,
    RsqrtToPower,
    NegativeFold,
)


@dataclass(frozen=True)
class OVFusionsPass(GraphRewrite):
    """Every fusion of this package in one traversal (see module docstring)."""

    name: ClassVar[str] = "ov-fusions"
    matchers: ClassVar[tuple[type[MatcherPass], ...]] = MATCHERS


__all__ = [
    "MATCHERS",
    "DivideConstToMultiply",
    "FakeQuantizeFusion",
    "GeluErfFusion",
    "GeluTanhFusion",
    "HSigmoidFusion",
    "HSwishFusion",
    "MVNAffineFusion",
    "MVNFusion",
    "MishFusion",
    "NegativeFold",
    "NegativeIndexWrapElimination",
    "NopReshapeElimination",
    "NormalizeL2Fusion",
    "OVFusionsPass",
    "PadIntoPooling",
    "ReshapeChainFusion",
    "ReshapeDynamicTarget",
    "RsqrtToPower",
    "SDPAFusion",
    "ShapeValueFold",
    "ShuffleChannelsFusion",
    "SliceBoundClampElimination",
    "SoftPlusFusion",
    "SubtractConstToAdd",
    "SwishFusion",
    "TransposePairFusion",
    "TransposeToReshape",
]
