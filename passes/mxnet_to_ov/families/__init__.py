"""The MXNet converters, one module per op family (importing this registers them)."""

from xmo.passes.mxnet_to_ov.families import (  # noqa: F401
    detection,
    elementwise,
    nn,
    rnn,
    tensor,
)
