"""``ov-fuse-linear``: fold constant affine chains into convolution and MatMul weights.

Frameworks spell a batch normalization after a convolution in several ways
(ONNX BatchNormalization, TensorFlow FusedBatchNorm, Keras' Mul/Sub/AddV2
chain, a bias Add before or after it). After constant folding they all reduce
to Multiply / Add by constants; this pass (OpenVINO's "linear ops fusion"
family) rewrites, in one walk in SSA order:

* ``BatchNormInference(conv(x), consts)`` -> ``Add(Multiply(conv, s), t)``
  (only when the producer is a fusible convolution, so the Multiply folds);
* ``Multiply(Multiply(x, c1), c2)`` -> ``Multiply(x, c1*c2)``;
  ``Add(Add(x, c1), c2)`` -> ``Add(x, c1+c2)``;
* ``Multiply(Add(x, c1), c2)`` -> ``Add(Multiply(x, c2), c1*c2)`` (the
  Multiply moves towards the producer, where it can fold);
* ``Multiply(conv(x, W), c)`` with ``c`` constant per output channel ->
  ``conv(x, W*c)`` for Convolution, GroupConvolution and
  ConvolutionBackpropData; ``Multiply(MatMul(x, W), c)`` with ``c`` constant
  per output column -> ``MatMul(x, W*c)``;
* ``Convolution(Pad(x, zeros), W)`` with spatial-only constant zero padding
  -> the padding goes into the convolution's ``pads_begin``/``pads_end``
  (also GroupConvolution).

Only float constants of the same element type are combined; every rewrite
checks that the replacement has exactly the type of what it replaces, and
intermediate values must have no other user. Names follow OpenVINO's rule:
the op standing in for the last replaced op takes its friendly name and
tensor names.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Operation, SSAValue
from xdsl.passes import ModulePass

from xmo.context import weight_store
from xmo.dialects.ov import ConstantOp, op_class
from xmo.dialects.ov import element_types as et
from xmo.dialects.ov.base import OVOp, constant_value_of, dims_of
from xmo.dialects.ov.weights import WeightStore

_CONV_TYPES = ("Convolution", "GroupConvolution", "ConvolutionBackpropData")
_FLOATS = ("f32", "f16", "f64")


def _etype(v: SSAValue) -> str | None:
    return et.of_tensor_type(v.type)


def _single_use(v: SSAValue) -> bool:
    return v.has_one_use()


def _owner(v: SSAValue, *types: str) -> OVOp | None:
    o = v.owner
    if isinstance(o, OVOp) and o.OV_TYPE in types:
        return o
    return None


def _const_operand(op: Operation) -> tuple[SSAValue, np.ndarray] | None:
    """(other operand, constant value) of a binary op with one constant input."""
    a, b = op.operands[0], op.operands[1]
    cb = constant_value_of(b)
    if cb is not None:
        return a, cb
    ca = constant_value_of(a)
    if ca is not None:
        return b, ca
    return None


def _attrs(op: OVOp) -> dict[str, Any]:
    return {s.name: op.attr(s.name) for s in op.OV_ATTRS}  # type: ignore[attr-defined]


def _channel_scale(c: np.ndarray, rank: int, channels: int, axis: int) -> np.ndarray | None:
    """``c`` as a ``[channels]`` vector when it broadcasts only along ``axis`` of a
    rank-``rank`` tensor (scalars included), else None."""
    if c.ndim > rank:
        return None
    shape = (1,) * (rank - c.ndim) + c.shape
    if any(d != 1 for i, d in enumerate(shape) if i != axis):
        return None
    if shape[axis] not in (1, channels):
        return None
    return np.broadcast_to(c.reshape(-1), (channels,))


def _scaled(w: np.ndarray, scale: np.ndarray) -> np.ndarray:
    """``w * scale`` computed in f32 for f16/f32 weights (as OpenVINO folds
    it; one pass over the weights, no f64 copy of them), in f64 otherwise."""
    calc = np.result_type(w.dtype, np.float32)
    return np.multiply(w, np.asarray(scale, calc), dtype=calc)


@dataclass
class _Rewriter:
    store: WeightStore
    changed: int = 0
    #: Multiplies this pass created: an op fused with one keeps its own name
    synthetic: set[Operation] = field(default_factory=set)

    # -- building -------------------------------------------------------------------
    def const(self, arr: np.ndarray, etype: str, before: Operation, name: str | None) -> SSAValue:
        c = ConstantOp.from_array(
            np.ascontiguousarray(arr.astype(et.numpy_dtype(etype), copy=False)), etype,
            store=self.store, name=name,
        )
        before.parent_block().insert_op_before(c, before)  # type: ignore[union-attr]
        return c.results[0]

    def build(self, ov_type: str, inputs: Sequence[SSAValue], attrs: dict[str, Any],
              before: Operation, version: str | None = None) -> OVOp | None:
        try:
            new = op_class(ov_type, version).make(list(inputs), attrs)
        except Exception:  # noqa: BLE001 - shape inference refusing: no rewrite
            return None
        before.parent_block().insert_op_before(new, before)  # type: ignore[union-attr]
        return new

    def replace(self, old: OVOp, new: OVOp, dead: Sequence[OVOp] = ()) -> None:
        """``new`` stands in for ``old`` (names move), then dead producers go.

        A Multiply this pass created has no name of its own to give: the op
        replacing it keeps the name it was built with.
        """
        if old not in self.synthetic:
            new.set_friendly_name(old.get_friendly_name())
        names = old.get_tensor_names(0)
        if names:
            new.set_tensor_names(0, names)
        for k, v in old.get_rt_info().items():
            new.set_rt_info(k, v)
        old.results[0].replace_all_uses_with(new.results[0])
        old.detach()
        old.erase()
        for d in dead:
            if all(not r.uses for r in d.results):
                d.detach()
                d.erase()
        self.changed += 1

    @staticmethod
    def discard(*ops: Operation | None) -> None:
        for o in ops:
            if o is not None and o.parent is not None and all(not r.uses for r in o.results):
                o.detach()
                o.erase()

    # -- patterns -------------------------------------------------------------------
    def visit(self, op: OVOp) -> None:
        t = op.OV_TYPE
        if t == "Multiply":
            self.multiply(op)
        elif t == "Add":
            self.add(op)
        elif t == "BatchNormInference":
            self.batch_norm(op)
        elif t in ("Convolution", "GroupConvolution"):
            self.pad_into_conv(op)

    def _same_type_consts(self, op: OVOp) -> tuple[SSAValue, np.ndarray, str] | None:
        found = _const_operand(op)
        if found is None:
            return None
        x, c = found
        etype = _etype(op.results[0])
        if etype not in _FLOATS or _etype(x) != etype:
            return None
        return x, c, etype

    def add(self, op: OVOp) -> None:
        found = self._same_type_consts(op)
        if found is None or op.attr("auto_broadcast") != "numpy":  # type: ignore[attr-defined]
            return
        x, c2, etype = found
        inner = _owner(x, "Add")
        if inner is None or not _single_use(x):
            return
        f = _const_operand(inner)
        if f is None or inner.attr("auto_broadcast") != "numpy":  # type: ignore[attr-defined]
            return
        y, c1 = f
        cv = self.const(np.asarray(c1, np.float64) + c2, etype, op, None)
        new = self.build("Add", [y, cv], {"auto_broadcast": "numpy"}, op)
        if new is None or new.results[0].type != op.results[0].type:
            self.discard(new, cv.owner)  # type: ignore[arg-type]
            return
        self.replace(op, new, [inner])

    def multiply(self, op: OVOp) -> None:
        found = self._same_type_consts(op)
        if found is None or op.attr("auto_broadcast") != "numpy":  # type: ignore[attr-defined]
            return
        x, c2, etype = found
        if not _single_use(x):
            return
        producer = x.owner
        if not isinstance(producer, OVOp):
            return
        ptype = producer.OV_TYPE
        if ptype in ("Multiply", "Add") and producer.attr("auto_broadcast") == "numpy":  # type: ignore[attr-defined]
            f = _const_operand(producer)
            if f is None:
                return
            y, c1 = f
            prod = np.asarray(c1, np.float64) * c2
            if ptype == "Multiply":
                cv = self.const(prod, etype, op, None)
                new = self.build("Multiply", [y, cv], {"auto_broadcast": "numpy"}, op)
                if new is None or new.results[0].type != op.results[0].type:
                    self.discard(new, cv.owner)  # type: ignore[arg-type]
                    return
                self.replace(op, new, [producer])
                self.multiply(new)
                return
            # Multiply(Add(y, c1), c2) -> Add(Multiply(y, c2), c1*c2)
            c2v = self.const(c2, etype, op, None)
            mul = self.build("Multiply", [y, c2v], {"auto_broadcast": "numpy"}, op)
            if mul is None:
                self.discard(c2v.owner)  # type: ignore[arg-type]
                return
            cv = self.const(prod, etype, op, None)
            new = self.build("Add", [mul.results[0], cv], {"auto_broadcast": "numpy"}, op)
            if new is None or new.results[0].type != op.results[0].type:
                self.discard(new, cv.owner, mul, c2v.owner)  # type: ignore[arg-type]
                return
            mul.set_friendly_name(f"{op.get_friendly_name() or 'Multiply'}/moved")
            self.synthetic.add(mul)
            self.replace(op, new, [producer])
            self.multiply(mul)
            return
        if ptype in _CONV_TYPES:
            self.scale_conv(op, producer, c2, etype)
        elif ptype == "MatMul":
            self.scale_matmul(op, producer, c2, etype)

    def scale_conv(self, op: OVOp, conv: OVOp, c: np.ndarray, etype: str) -> None:
        w = constant_value_of(conv.operands[1])
        out_dims = dims_of(conv.results[0].type)
        if w is None or out_dims is None or _etype(conv.operands[1]) != etype:
            return
        channels = out_dims[1]
        if channels < 0:
            return
        scale = _channel_scale(np.asarray(c), len(out_dims), channels, 1)
        if scale is None:
            return
        t = conv.OV_TYPE
        if t == "Convolution":
            shaped = scale.reshape((channels,) + (1,) * (w.ndim - 1))
        elif t == "GroupConvolution":
            g = w.shape[0]
            shaped = scale.reshape((g, channels // g) + (1,) * (w.ndim - 2))
        else:  # ConvolutionBackpropData: W is [C_in, C_out, k...]
            shaped = scale.reshape((1, channels) + (1,) * (w.ndim - 2))
        new_w = self.const(_scaled(w, shaped), etype, op,
                           f"{conv.get_friendly_name() or t}/fused_weights")
        ins = list(conv.operands)
        ins[1] = new_w
        new = self.build(t, ins, _attrs(conv), op, version=None)
        if new is None or new.results[0].type != op.results[0].type:
            self.discard(new, new_w.owner)  # type: ignore[arg-type]
            return
        new.set_friendly_name(conv.get_friendly_name())
        self.replace(op, new, [conv])

    def scale_matmul(self, op: OVOp, mm: OVOp, c: np.ndarray, etype: str) -> None:
        w = constant_value_of(mm.operands[1])
        out_dims = dims_of(mm.results[0].type)
        if w is None or out_dims is None or w.ndim != 2 or _etype(mm.operands[1]) != etype:
            return
        n = out_dims[-1]
        if n < 0:
            return
        scale = _channel_scale(np.asarray(c), len(out_dims), n, len(out_dims) - 1)
        if scale is None:
            return
        tb = bool(mm.attr("transpose_b"))  # type: ignore[attr-defined]
        new_arr = _scaled(w, scale[:, None] if tb else scale[None, :])
        new_w = self.const(new_arr, etype, op, f"{mm.get_friendly_name() or 'MatMul'}/fused_weights")
        new = self.build("MatMul", [mm.operands[0], new_w], _attrs(mm), op)
        if new is None or new.results[0].type != op.results[0].type:
            self.discard(new, new_w.owner)  # type: ignore[arg-type]
            return
        new.set_friendly_name(mm.get_friendly_name())
        self.replace(op, new, [mm])

    def batch_norm(self, op: OVOp) -> None:
        x = op.operands[0]
        if not _single_use(x) or _owner(x, *_CONV_TYPES) is None:
            return
        params = [constant_value_of(v) for v in op.operands[1:5]]
        etype = _etype(op.results[0])
        dims = dims_of(op.results[0].type)
        if any(p is None for p in params) or etype not in _FLOATS or dims is None:
            return
        gamma, beta, mean, var = (np.asarray(p, np.float64) for p in params)  # type: ignore[arg-type]
        eps = float(op.attr("epsilon"))  # type: ignore[attr-defined]
        s = gamma / np.sqrt(var + eps)
        tshift = beta - mean * s
        bshape = (1, -1) + (1,) * (len(dims) - 2)
        sv = self.const(s.reshape(bshape), etype, op, None)
        mul = self.build("Multiply", [x, sv], {"auto_broadcast": "numpy"}, op)
        if mul is None:
            self.discard(sv.owner)  # type: ignore[arg-type]
            return
        tv = self.const(tshift.reshape(bshape), etype, op, None)
        add = self.build("Add", [mul.results[0], tv], {"auto_broadcast": "numpy"}, op)
        if add is None or add.results[0].type != op.results[0].type:
            self.discard(add, tv.owner, mul, sv.owner)  # type: ignore[arg-type]
            return
        mul.set_friendly_name(f"{op.get_friendly_name() or 'BatchNorm'}/scale")
        self.synthetic.add(mul)
        self.replace(op, add)
        self.multiply(mul)

    def pad_into_conv(self, op: OVOp) -> None:
        x = op.operands[0]
        pad = _owner(x, "Pad")
        if pad is None or not _single_use(x) or pad.attr("pad_mode") != "constant":  # type: ignore[attr-defined]
            return
        begin = constant_value_of(pad.operands[1])
        end = constant_value_of(pad.operands[2])
        value = constant_value_of(pad.operands[3]) if len(pad.operands) > 3 else np.zeros(())
        if begin is None or end is None or value is None or np.any(np.asarray(value) != 0):
            return
        begin, end = [int(v) for v in begin.reshape(-1)], [int(v) for v in end.reshape(-1)]
        if len(begin) < 3 or any(begin[:2]) or any(end[:2]) or min(begin + end) < 0:
            return
        attrs = _attrs(op)
        if attrs.get("auto_pad") not in ("explicit", "notset", "valid", None):
            return
        nsp = len(begin) - 2
        pb = [0] * nsp if attrs.get("auto_pad") == "valid" else list(attrs["pads_begin"])
        pe = [0] * nsp if attrs.get("auto_pad") == "valid" else list(attrs["pads_end"])
        if len(pb) != nsp or len(pe) != nsp:
            return
        attrs["pads_begin"] = [a + b for a, b in zip(pb, begin[2:])]
        attrs["pads_end"] = [a + b for a, b in zip(pe, end[2:])]
        attrs["auto_pad"] = "explicit"
        new = self.build(op.OV_TYPE, [pad.operands[0], *op.operands[1:]], attrs, op)
        if new is None or new.results[0].type != op.results[0].type:
            self.discard(new)
            return
        self.replace(op, new, [pad])


@dataclass(frozen=True)
class OVFuseLinearPass(ModulePass):
    """Fold constant affine chains into weights (see module docstring)."""

    name = "ov-fuse-linear"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        rw = _Rewriter(weight_store(ctx))
        for o in list(op.body.block.ops):
            if o.parent is not None and isinstance(o, OVOp):
                rw.visit(o)
        # folded weights left their old constants unused
        from xmo.passes.ov_dce import OVDeadCodeEliminationPass

        if rw.changed:
            OVDeadCodeEliminationPass().apply(ctx, op)
