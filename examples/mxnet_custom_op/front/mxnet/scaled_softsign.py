"""Extractor of the MXNet ``Custom`` operator ``scaled_softsign`` (a Python
operator registered with ``mx.operator.register("scaled_softsign")`` whose
forward computes ``scale * x / (1 + |x|)``; see tools/make_mxnet_models.py).

xmo cannot run the Python code of a Custom operator: an extension says what
it computes in ``ov`` ops. Without this extension the conversion stops with
the unsupported-ops report naming ``Custom:scaled_softsign``.

    xmo convert model-symbol.json --extensions examples/mxnet_custom_op
"""

from xmo.passes.mxnet_to_ov.attrs import number
from xmo.passes.mxnet_to_ov.registry import custom_key, mxnet_converter


@mxnet_converter(custom_key("scaled_softsign"))
def scaled_softsign(node, b):
    x = node.input(0)
    scale = number(node, "scale", 1.0)
    y = b.out("SoftSign", [x])
    if scale == 1.0:
        return y
    return b.out("Multiply", [y, b.scalar_like(scale, x)])
