"""Built-in CPU kernels, one module per op family; importing registers them."""

from xmo.backends.cpu.kernels import (  # noqa: F401  (registration)
    activations,
    attention,
    col2im,
    control,
    convolution,
    detection,
    dft,
    elementwise,
    generation,
    indexing,
    interpolate,
    matmul,
    normalization,
    pooling,
    recurrent,
    reductions,
    sampling,
    shape_ops,
    unique,
)
