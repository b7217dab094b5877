"""Result type inference for ``ov`` ops, one module per op family.

Each module registers functions with :func:`xmo.dialects.ov.base.shape_infer`;
importing this package registers them all.
"""

from xmo.dialects.ov.shape_inference import (  # noqa: F401  (registration)
    activations,
    convolution,
    elementwise,
    fft,
    generation,
    indexing,
    interpolate,
    math_ops,
    matmul,
    normalization,
    pooling,
    reductions,
    shape_ops,
    tensor_indexing,
)
