"""TensorFlow -> ov converters, one module per op family (importing this
package registers them all)."""

from xmo.passes.tf_to_ov.families import (  # noqa: F401
    activations,
    array,
    atrous,
    control,
    conv,
    detection,
    elementwise,
    functional,
    fused,
    image,
    matmul,
    normalization,
    pooling,
    reductions,
    scatter,
    slicing,
    tensor_lists,
)
