"""``ov-compress-fp16``: store f32 weights as f16 (``--compress_to_fp16``).

Every f32 ``ov.Constant`` with at least ``min_elements`` values feeding a
numerically safe consumer becomes an f16 Constant followed by a ``Convert`` to
f32 marked with ``decompression`` in its runtime info, the way OpenVINO marks
it (its runtime then keeps the weights in f16 or folds the Convert). Values
outside the f16 range are clamped to it (as OpenVINO does).

Numerically sensitive sub-graphs stay f32 (OpenVINO's "keep in mixed
precision" idea, at the level of stored constants): a constant stays f32 when
it feeds a precision-sensitive op (``_KEEP_F32``: exponentials, logarithms,
powers, roots, divisions, normalizations, FFTs, coordinates), or feeds an
elementwise op whose result goes straight into one (``Exp(x * c)``,
``Sqrt(var + eps)``, a Softmax's scaling); small constants (scalars and
per-channel vectors: cheap, and often epsilons) are left alone too. Only the
stored weights change precision: the model still computes in f32 (the
decompression Convert restores f32 values), so the error is the f16 rounding
of the weights (relative 2^-11, about 5e-4, per weight).

Documented tolerance (``tests/test_ov_compress_fp16.py``): in the OpenVINO
runtime (f32 inference), the outputs of xmo's compressed IR differ from the
framework's by at most 1.25x what OpenVINO's own ``compress_to_fp16`` IR does
(plus 1e-4). Measured on the TensorFlow fixtures (max abs difference to
TensorFlow's outputs, xmo / OpenVINO): cnn 3.0e-3 / 3.1e-3, mobilenetv2
6.7e-2 / 7.6e-2 (a random-weight network of 0.38 output scale: f16 weights
alone cost that much), unet 4.6e-3 / 4.5e-3, shapes 3e-5, ops 4.6e-4.
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
from xmo.dialects.ov.control_ops import graph_blocks

#: consumers whose constant inputs keep full precision
_KEEP_F32 = frozenset(
    {"Range", "Interpolate", "Power", "Exp", "Log", "Erf", "MVN", "NormalizeL2",
     "BatchNormInference", "Divide", "Sqrt", "ReduceL2", "DFT", "IDFT", "RDFT", "IRDFT",
     "Softmax", "LogSoftmax", "ReduceLogSumExp", "SoftPlus", "GroupNormalization",
     "RMS", "Acosh", "Asinh", "Atanh", "Tan"}
)  # fmt: skip

#: elementwise ops through which a constant still reaches a sensitive op
_ELTWISE = frozenset({"Add", "Subtract", "Multiply", "Maximum", "Minimum"})

_F16_MAX = float(np.finfo(np.float16).max)


def _sensitive(user) -> bool:  # noqa: ANN001
    """``user`` is precision-sensitive, or elementwise feeding one."""
    if not isinstance(user, OVOp):
        return False
    if user.OV_TYPE in _KEEP_F32:
        return True
    if user.OV_TYPE in _ELTWISE:
        return any(
            isinstance(u.operation, OVOp) and u.operation.OV_TYPE in _KEEP_F32
            for r in user.results for u in r.uses
        )
    return False


@dataclass(frozen=True)
class OVCompressFP16Pass(ModulePass):
    """Compress large f32 Constants to f16 + a decompression Convert."""

    name = "ov-compress-fp16"
    min_elements: int = 64

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        store = weight_store(ctx)
        convert = op_class("Convert")
        # body weights too (each Convert goes next to its constant, in its body)
        consts = [o for b in graph_blocks(op) for o in b.ops if isinstance(o, ConstantOp)]
        for c in consts:
            t = c.results[0].type
            if et.from_xdsl(t.get_element_type()) != "f32":  # type: ignore[attr-defined]
                continue
            users = [u.operation for u in c.results[0].uses]
            if not users or any(_sensitive(u) for u in users):
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
