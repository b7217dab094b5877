"""The ``FFT`` operation of the Custom Operations Guide.

A 2-D discrete Fourier transform over the two axes before the last one of a
real tensor ``[..., H, W, 2]`` holding (real, imaginary) pairs; attribute
``inverse`` selects the inverse transform (scaled by 1 / (H * W), like
TensorFlow's IFFT2D). The output has the input's shape and element type.
In IR it is ``<layer type="FFT" version="fft_extension">``.
"""

from typing import ClassVar

from xmo.dialects.attr_spec import AttrSpec
from xmo.dialects.ov.base import InferContext, OVOp, ov_op, shape_infer, tensor


@ov_op
class FFTOp(OVOp):
    """2-D (inverse) FFT of complex values stored as a trailing axis of 2."""

    name = "ov.FFT"
    OV_TYPE: ClassVar[str] = "FFT"
    OV_VERSION: ClassVar[str] = "fft_extension"
    OV_INPUTS: ClassVar[tuple[str, ...]] = ("data",)
    OV_OUTPUTS: ClassVar[tuple[str, ...]] = ("output",)
    OV_ATTRS: ClassVar[tuple[AttrSpec, ...]] = (AttrSpec("inverse", "bool", False),)


@shape_infer("ov.FFT")
def infer_fft(ctx: InferContext):
    if ctx.etype(0) not in ("f32", "f16", "f64"):
        raise ctx.error(f"expects a floating-point input, got {ctx.etype(0)}")
    shape = ctx.shape(0)
    if shape is not None:
        if len(shape) < 3:
            raise ctx.error(f"expects a [..., H, W, 2] input, got rank {len(shape)}")
        if shape[-1] not in (-1, 2):
            raise ctx.error(f"the last axis holds (real, imaginary): size 2, got {shape[-1]}")
    return [tensor(ctx.etype(0), shape)]
