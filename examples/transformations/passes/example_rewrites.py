"""Several matchers in one traversal: a GraphRewrite of the examples.

``xmo-opt -p example-rewrites`` applies the Negative, Divide and nop-Convert
rewrites and the Mish fusion in one walk over the ops; disable one by name
with ``-p 'example-rewrites{disabled=convert-divide}'``.
"""

from pathlib import Path

from xmo.extensions import import_extension_file
from xmo.passes.transformations import GraphRewrite

_here = Path(__file__).parent


def _matcher(file: str, cls: str):
    return getattr(import_extension_file(_here / file), cls)


class ExampleRewrites(GraphRewrite):
    """convert-negative, convert-divide, eliminate-nop-convert, mish-fusion."""

    name = "example-rewrites"
    matchers = (
        _matcher("mish_fusion.py", "MishFusion"),
        _matcher("convert_negative.py", "ConvertNegative"),
        _matcher("convert_divide.py", "ConvertDivide"),
        _matcher("eliminate_convert.py", "EliminateNopConvert"),
    )
