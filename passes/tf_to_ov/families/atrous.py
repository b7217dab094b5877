"""TensorFlow's atrous (dilated) convolution as one dilated Convolution.

``tf.nn.convolution`` with ``dilations > 1`` (Keras' Conv1D / Conv2D /
DepthwiseConv2D with ``dilation_rate``) freezes as::

    SpaceToBatchND(x, block, paddings) -> [ExpandDims(axis 1)]
      -> Conv2D | DepthwiseConv2dNative (VALID, strides 1, dilations 1)
      -> [Squeeze(axis 1)] -> BatchToSpaceND(block, crops)

(the ExpandDims / Squeeze pair is Conv1D's: one block dim, a rank-3 input).
The ``block`` phases of the padded input, each convolved with the kernel and
interleaved again, are the convolution of the padded input with dilation
``block``; cropping the result's ends takes the same amount off the
padding. So the chain is ``Convolution(x, dilations = block, pads_begin =
paddings[:, 0] - crops[:, 0], pads_end = paddings[:, 1] - crops[:, 1])``,
exactly, when both differences are >= 0 (the forms TF emits: crops only
undo the extra end padding that makes the length a multiple of the block).

:func:`atrous_convolution` is called by the BatchToSpaceND converter; it
walks the ``tf`` graph back from the node (every op in between read only by
the next) and returns None for anything else (near misses: a SAME or
strided convolution, other blocks, crops larger than the padding, a value
read twice), which then converts op by op. OpenVINO's TF frontend keeps
SpaceToBatch and BatchToSpace around the convolution.
"""

from __future__ import annotations

import numpy as np
from xdsl.ir import Operation, SSAValue
from xmo.passes.tf_to_ov.builder import TF_ATTRIBUTES, TFBuilder
from xmo.passes.tf_to_ov.convert import tf_type_of
from xmo.passes.tf_to_ov.families.conv import convolution, depthwise_conv2d, window_attrs
from xmo.passes.to_ov.builder import ConverterNode

_CONVS = ("Conv2D", "DepthwiseConv2dNative")


def _sole_producer(v: SSAValue, tf_type: str | tuple[str, ...]) -> Operation | None:
    """The op producing ``v`` when it is of ``tf_type`` and ``v`` has no other reader."""
    owner = v.owner
    types = (tf_type,) if isinstance(tf_type, str) else tf_type
    if not isinstance(owner, Operation) or tf_type_of(owner) not in types:
        return None
    if not v.has_one_use() or owner.results[0] is not v:
        return None
    return owner


def _view(node: ConverterNode, op: Operation, inputs=None) -> ConverterNode | None:
    """A converter's view of another node of the chain (its ov inputs from
    ``node``'s scope); None when an input has no ov value."""
    if inputs is None:
        inputs = [node.scope.values.get(v) for v in op.operands]
    if any(not isinstance(v, SSAValue) for v in inputs):
        return None
    return ConverterNode(op, inputs, node.name, tf_type_of(op), [], attributes=TF_ATTRIBUTES,
                         evaluator=node.evaluator, scope=node.scope)


def _ints(n: ConverterNode, i: int) -> np.ndarray | None:
    v = n.const(i)
    return None if v is None else np.asarray(v, np.int64)


def _axis_is_1(values, rank: int) -> bool:
    return len(values) == 1 and int(values[0]) % rank == 1


def atrous_convolution(node: ConverterNode, b: TFBuilder) -> SSAValue | None:
    """The BatchToSpaceND ``node`` and the chain above it as one dilated
    convolution (see the module docstring); None when the chain is not one."""
    if node.scope is None:
        return None
    squeeze = _sole_producer(node.op.operands[0], "Squeeze")
    conv = _sole_producer((squeeze or node.op).operands[0], _CONVS)
    if conv is None:
        return None
    expand = _sole_producer(conv.operands[0], "ExpandDims")
    s2b = _sole_producer((expand or conv).operands[0], "SpaceToBatchND")
    if s2b is None or (expand is None) != (squeeze is None):
        return None
    s2b_node = _view(node, s2b)
    if s2b_node is None:
        return None
    block, pads = _ints(s2b_node, 1), _ints(s2b_node, 2)
    block2, crops = _ints(node, 1), _ints(node, 2)
    if block is None or pads is None or block2 is None or crops is None:
        return None
    block = block.reshape(-1)
    m = block.size
    x = s2b_node.input(0)
    rank = s2b_node.rank(0)
    if (
        rank != (3 if expand else 4) or m != rank - 2 or list(block2.reshape(-1)) != list(block)
        or pads.shape != (m, 2) or crops.shape != (m, 2) or np.any(block < 1)
        or np.any(pads - crops < 0)
    ):
        return None
    if expand is not None:
        expand_node, squeeze_node = _view(node, expand), _view(node, squeeze)  # type: ignore[arg-type]
        dim = None if expand_node is None else _ints(expand_node, 1)
        if dim is None or squeeze_node is None or not _axis_is_1(dim.reshape(-1), 4) or not _axis_is_1(
            squeeze_node.int_list("squeeze_dims"), 4
        ):
            return None
    conv_x = b.unsqueeze(x, [1]) if expand is not None else x
    conv_node = _view(node, conv, [conv_x, node.scope.values.get(conv.operands[1])])
    if conv_node is None or not conv_node.channels_last:
        return None
    if conv_node.str_attr("padding") != "VALID" or any(
        v != 1 for k in ("strides", "dilations") for v in conv_node.int_list(k, [1] * 4)
    ):
        return None
    attrs = window_attrs(conv_node, 4)
    lead = [1] if expand is not None else []
    lead0 = [0] if expand is not None else []
    attrs.update(
        auto_pad="explicit",
        dilations=lead + [int(k) for k in block],
        pads_begin=lead0 + [int(v) for v in pads[:, 0] - crops[:, 0]],
        pads_end=lead0 + [int(v) for v in pads[:, 1] - crops[:, 1]],
    )
    if tf_type_of(conv) == "Conv2D":
        y = convolution(conv_node, b, 4, attrs)
    else:
        y = depthwise_conv2d(conv_node, b, attrs)
    return b.squeeze(y, [1]) if expand is not None else y


__all__ = ["atrous_convolution"]
