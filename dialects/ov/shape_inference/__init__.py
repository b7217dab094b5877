"""Result type inference for ``ov`` ops, one module per op family.

An op's family is its ``OV_FAMILY`` (the generator's ``FAMILIES`` table); the
family's module here registers the op's function with
:func:`xmo.dialects.ov.base.shape_infer`, and the op declares the
``HasShapeInference`` trait. Importing this package registers them all.
"""

from xmo.dialects.ov.shape_inference import (  # noqa: F401  (registration)
    activations,
    attention,
    control,
    convolution,
    core,
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
    shape_ops,
    unique,
)
