"""``ov-compress-fp16``: store f32 weights as f16 (``--compress_to_fp16``).

Every f32 ``ov.Constant`` with at least ``min_elements`` values feeding a
numerically safe consumer becomes an f16 Constant followed by a ``Convert`` to
f32 marked with ``decompression`` in its runtime info, the way OpenVINO marks
it (its runtime then keeps the weights in f16 or folds the Convert). Values
outside the f16 range are clamped to it (as OpenVINO does).

Numerically sensitive sub-graphs stay f32: constants that feed shape-like
inputs or precision-sensitive ops (``_KEEP_F32``) are left alone, and so are
small constants (scalars and per-channel vectors are cheap and often epsilons).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.passes import ModulePass

from xmo.context import weight_store
from xmo.dialects.ov import ConstantOp, op_class
from xmo.dialects.ov import element_types as et
from xmo.dialects.ov.base import OVOp

#: consumers whose constant inputs keep full precision
_KEEP_F32 = frozenset(
    {"Range", "Interpolate", "Power", "Exp", "Log", "Erf", "MVN", "NormalizeL2",
     "BatchNormInference", "Divide", "Sqrt", "ReduceL2", "DFT", "IDFT", "RDFT", "IRDFT"}
)  # fmt: skip

_F16_MAX = float(np.finfo(np.float16).max)


@dataclass(frozen=True)
class OVCompressFP16Pass(ModulePass):
    """Compress large f32 Constants to f16 + a decompression Convert."""

    name = "ov-compress-fp16"
    min_elements: int = 64

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        store = weight_store(ctx)
        convert = op_class("Convert")
        for c in [o for o in op.body.block.ops if isinstance(o, ConstantOp)]:
            t = c.results[0].type
            if et.from_xdsl(t.get_element_type()) != "f32":  # type: ignore[attr-defined]
                continue
            users = [u.operation for u in c.results[0].uses]
            if not users or any(
                isinstance(u, OVOp) and u.OV_TYPE in _KEEP_F32 for u in users
            ):
                continue
            arr = c.get_array()
            if arr.size < self.min_elements:
                continue
            half = np.clip(arr, -_F16_MAX, _F16_MAX).astype(np.float16)
            name = c.get_friendly_name()
            c16 = ConstantOp.from_array(half, "f16", store=store, name=name)
            back = convert.make([c16.results[0]], {"destination_type": "f32"})
            back.set_rt_info("decompression")
            if name:
                back.set_friendly_name(name + "/decompression")
            names = c.get_tensor_names(0)
            if names:
                back.set_tensor_names(0, names)
            block = c.parent_block()
            assert block is not None
            block.insert_ops_before([c16, back], c)
            c.results[0].replace_all_uses_with(back.results[0])
            c.detach()
            c.erase()
