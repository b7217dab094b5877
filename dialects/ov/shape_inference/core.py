"""Parameter, Constant, Result: only Result infers (it has no outputs);
Parameter and Constant take their types from the model and the value."""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.ir import Attribute

from xmo.dialects.ov.base import InferContext, shape_infer


@shape_infer("ov.Result")
def infer_result(ctx: InferContext) -> Sequence[Attribute]:
    return []
