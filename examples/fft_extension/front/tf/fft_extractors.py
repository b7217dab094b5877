"""Extractors: TensorFlow FFT2D / IFFT2D -> the extension's ``FFT`` operation.

TensorFlow's ops take a complex tensor [..., H, W]; the ``FFT`` op takes the
same values as a real tensor [..., H, W, 2]. ``complex_to_pairs.py`` removes
the ``Complex`` op that builds the complex tensor, so the input here already
is that real tensor.
"""

from xmo.passes.tf_to_ov.registry import tf_converter


@tf_converter("FFT2D", "IFFT2D")
def convert_fft2d(node, b):
    inverse = node.type == "IFFT2D"
    return b.out("FFT", [node.input(0)], {"inverse": inverse}, version="fft_extension")
