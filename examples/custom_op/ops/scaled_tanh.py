"""Example of a new ``ov`` operation: ScaledTanh (y = alpha * tanh(beta * x)).

Load it with ``xmo-opt --extensions examples/custom_op`` or
``xmo.extensions.load_extension_ops(ctx, "examples/custom_op")``. The README's
"Defining a new dialect operation" walks through this file.
"""

from typing import ClassVar

from xmo.dialects.attr_spec import AttrSpec
from xmo.dialects.ov.base import InferContext, OVOp, ov_op, shape_infer, tensor


@ov_op
class ScaledTanhOp(OVOp):
    """alpha * tanh(beta * x), elementwise on a floating-point tensor."""

    name = "ov.ScaledTanh"
    OV_TYPE: ClassVar[str] = "ScaledTanh"
    OV_VERSION: ClassVar[str] = "xmo_example"
    OV_INPUTS: ClassVar[tuple[str, ...]] = ("data",)
    OV_OUTPUTS: ClassVar[tuple[str, ...]] = ("output",)
    OV_ATTRS: ClassVar[tuple[AttrSpec, ...]] = (
        AttrSpec("alpha", "f64", 1.0),
        AttrSpec("beta", "f64", 1.0, required=True),
    )


@shape_infer("ov.ScaledTanh")
def infer_scaled_tanh(ctx: InferContext):
    if ctx.etype(0) not in ("f32", "f16", "bf16", "f64"):
        raise ctx.error(f"expects a floating-point input, got {ctx.etype(0)}")
    return [tensor(ctx.etype(0), ctx.shape(0))]
