"""Quantization fusion: a quantize -> dequantize pair becomes one FakeQuantize.

ONNX's QuantizeLinear -> DequantizeLinear (QDQ models) converts to
``Convert(Clamp(Round(x / s) + zp, qmin, qmax), int)`` followed by
``(Convert(q, f32) - zp) * s`` (:mod:`xmo.passes.onnx_to_ov.families.quantization`);
on activations the pair is the simulated quantization OpenVINO spells
``FakeQuantize(x, lo, hi, lo, hi, levels)`` with ``lo = (qmin - zp) * s``,
``hi = (qmax - zp) * s`` and ``levels = qmax - qmin + 1``, the form its CPU
plugin's low-precision transformations run in int8 (with the weights'
``decompression`` sub-graphs). Scales and zero points are per tensor or per
channel (any constants broadcasting against ``x``); the quantize and
dequantize must use the same scale (relative 1e-5, the quantize's may be the
reciprocal multiplied) and zero point. The division may already be a
Multiply by the reciprocal (``divide-const-to-multiply``), the zero-point
Subtract an Add of its negation (``subtract-const-to-add``). A Reshape,
Squeeze, Unsqueeze or Transpose of the integer tensor between the two (a
QOperator model's flatten) is allowed for per-tensor parameters: it moves
behind the FakeQuantize.

The result differs from the exact pair only where OpenVINO's rounding of
ties differs from ``half_to_even`` (at most one quantization step). A
standalone QuantizeLinear (an integer model output) or DequantizeLinear (an
integer input) is not matched and stays exact. The FakeQuantize takes the
dequantize's name; the quantize's ops (read by nothing else) go as dead code.
"""

from __future__ import annotations

import numpy as np
from xmo.passes.ov_fusions.common import FLOATS, float_const, fuse, fuse_chain
from xmo.passes.transformations import (
    Match,
    MatcherPass,
    any_input,
    constant,
    or_,
    type_matches,
    value_matches,
    wrap_type,
)

#: ops that only move values, allowed between a per-tensor quantize and its
#: dequantize (a QOperator model flattens the quantized tensor); the
#: FakeQuantize goes before them
_LAYOUT_OPS = ("Reshape", "Squeeze", "Unsqueeze", "Transpose")

#: integer types a quantize produces, with their ranges
_INTS = {
    "u8": (0, 255), "i8": (-128, 127), "u16": (0, 65535), "i16": (-32768, 32767),
    "u4": (0, 15), "i4": (-8, 7),
}  # fmt: skip


def _int_const(label: str):
    """A float constant holding integers (a zero point)."""
    return constant(
        value_matches(lambda a: a.dtype.kind == "f" and bool(np.all(np.isfinite(a) & (a == np.round(a))))),
        label=label,
    )


class FakeQuantizeFusion(MatcherPass):
    """Quantize -> dequantize (see module docstring) -> FakeQuantize."""

    name = "fake-quantize-fusion"

    def pattern(self):
        x = any_input(type_matches(*FLOATS), label="x")
        scaled = or_(
            wrap_type("Multiply", [x, constant(float_const(), label="inv")]),
            wrap_type("Divide", [x, constant(float_const(), label="qs")]),
        )
        rnd = wrap_type("Round", [scaled])
        shifted = or_(wrap_type("Add", [rnd, _int_const("qzp")]), rnd)
        clamp = wrap_type("Clamp", [shifted], label="clamp")
        q = wrap_type("Convert", [clamp], type_matches(*_INTS), label="q")
        moved = wrap_type(_LAYOUT_OPS, [q, any_input(label="layout_arg")], label="layout")
        deq = wrap_type("Convert", [or_(moved, q)], type_matches(*FLOATS))
        unshifted = or_(
            wrap_type("Subtract", [deq, _int_const("dzp")]),
            wrap_type("Add", [deq, _int_const("dzp_neg")]),
            deq,
        )
        return wrap_type("Multiply", [unshifted, constant(float_const(), label="ds")])

    def callback(self, m: Match) -> bool:
        root = m.root
        if any(n.get("auto_broadcast", "numpy") != "numpy" for n in m.nodes() if n.type != "Round"):
            return False
        if "inv" in m:
            qs = 1.0 / m["inv"].data.get_value().astype(np.float64)
        else:
            qs = m["qs"].data.get_value().astype(np.float64)
        ds = m["ds"].data.get_value().astype(np.float64)
        qzp = m["qzp"].data.get_value().astype(np.float64) if "qzp" in m else np.float64(0)
        if "dzp" in m:
            dzp = m["dzp"].data.get_value().astype(np.float64)
        elif "dzp_neg" in m:
            dzp = -m["dzp_neg"].data.get_value().astype(np.float64)
        else:
            dzp = np.float64(0)
        try:
            qs, ds, qzp, dzp = np.broadcast_arrays(qs, ds, qzp, dzp)
        except ValueError:
            return False
        if not (np.all(ds > 0) and np.allclose(qs, ds, rtol=1e-5, atol=0) and np.array_equal(qzp, dzp)):
            return False
        clamp = m.node("clamp")
        lo, hi = float(clamp.get("min")), float(clamp.get("max"))
        tmin, tmax = _INTS[m["q"].data.get_element_type()]
        if lo != round(lo) or hi != round(hi) or not tmin <= lo < hi <= tmax:
            return False
        layout = m.get("layout")
        if layout is not None and ds.size != 1:
            return False  # a per-channel FakeQuantize would need its parameters moved too
        etype = m["x"].data.get_element_type()
        low = m.graph.create_constant(((lo - dzp) * ds).astype(np.float32), etype)
        high = m.graph.create_constant(((hi - dzp) * ds).astype(np.float32), etype)
        fq = m.graph.create_node(
            "FakeQuantize", [m["x"], low, high, low, high], {"levels": int(hi - lo) + 1}
        )
        if layout is None:
            return fuse(root, fq, m.nodes())
        node = m.node("layout")
        moved = m.graph.create_node(node.type, [fq.out_port(0), m["layout_arg"]], node.attrs())
        return fuse_chain(root, [fq, moved], m.nodes())
