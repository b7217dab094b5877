"""Two framework-style ops the transformation examples normalize.

* ``Pack`` (TensorFlow's ``tf.stack``): N tensors of one shape stacked along a
  new ``axis``; ``pack-to-unsqueeze-concat`` replaces it by Unsqueeze + Concat.
* ``Squeeze`` version ``xmo_example``: a Squeeze whose axes are an attribute
  (``squeeze_dims``, as framework importers produce it);
  ``squeeze-axes-to-input`` turns it into the opset Squeeze with an axes input.

Load with ``xmo-opt --extensions examples/transformations`` (or
``xmo.extensions.load_extension_ops``).
"""

from typing import ClassVar

from xmo.dialects.attr_spec import AttrSpec
from xmo.dialects.ov.base import InferContext, OVOp, ov_op, shape_infer, tensor


@ov_op
class PackOp(OVOp):
    """Stack the inputs (same type) along a new dimension ``axis``."""

    name = "ov.Pack"
    OV_TYPE: ClassVar[str] = "Pack"
    OV_VERSION: ClassVar[str] = "xmo_example"
    OV_INPUTS: ClassVar[tuple[str, ...]] = ("value", "values*")
    OV_OUTPUTS: ClassVar[tuple[str, ...]] = ("output",)
    OV_ATTRS: ClassVar[tuple[AttrSpec, ...]] = (AttrSpec("axis", "i64", 0),)


@shape_infer("ov.Pack")
def infer_pack(ctx: InferContext):
    etype, shape = ctx.etype(0), ctx.shape(0)
    for i in range(1, ctx.num_inputs):
        if ctx.etype(i) != etype or ctx.shape(i) != shape:
            raise ctx.error("inputs must have one type and shape")
    if shape is None:
        return [tensor(etype, None)]
    axis = ctx.attr("axis")
    rank = len(shape) + 1
    if not -rank <= axis < rank:
        raise ctx.error(f"axis {axis} is out of range for rank {rank}")
    out = list(shape)
    out.insert(axis % rank, ctx.num_inputs)
    return [tensor(etype, out)]


@ov_op
class SqueezeDimsOp(OVOp):
    """Squeeze with the axes as an attribute (empty: every dimension of size 1)."""

    name = "ov.Squeeze_xmo_example"
    OV_TYPE: ClassVar[str] = "Squeeze"
    OV_VERSION: ClassVar[str] = "xmo_example"
    OV_INPUTS: ClassVar[tuple[str, ...]] = ("data",)
    OV_OUTPUTS: ClassVar[tuple[str, ...]] = ("output",)
    OV_ATTRS: ClassVar[tuple[AttrSpec, ...]] = (AttrSpec("squeeze_dims", "i64[]", ()),)


@shape_infer("ov.Squeeze_xmo_example")
def infer_squeeze_dims(ctx: InferContext):
    shape = ctx.shape(0)
    if shape is None:
        return [tensor(ctx.etype(0), None)]
    dims = [d % len(shape) if len(shape) else d for d in ctx.attr("squeeze_dims")]
    for d in dims:
        if not 0 <= d < len(shape) or shape[d] not in (1, -1):
            raise ctx.error(f"cannot squeeze dimension {d} of {shape}")
    keep = [s for i, s in enumerate(shape) if (i not in dims if dims else s != 1)]
    return [tensor(ctx.etype(0), keep)]
