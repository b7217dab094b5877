"""The TensorFlow side of legalization: :class:`TFBuilder` (the shared
:class:`~xmo.passes.to_ov.builder.Builder` whose shape inference also sees the
values of small constant sub-graphs, e.g. ``Shape -> StridedSlice -> Pack`` of a
static tensor, as TensorFlow graphs compute shapes at run time), the
:class:`ConstEvaluator` behind it, and how ``tf`` ops give their attributes to
converters (:data:`TF_ATTRIBUTES`). A converter's node is the
:class:`~xmo.passes.to_ov.builder.ConverterNode` every frontend shares
(:data:`~xmo.passes.to_ov.builder.DEAD` is defined there too).

A converter (see :mod:`.registry`) receives both and returns the ov values of
the node's outputs::

    @tf_converter("Relu")
    def relu(node: ConverterNode, b: TFBuilder):
        return b.out("Relu", [node.input(0)])
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
from xdsl.ir import Operation, SSAValue
from xmo.dialects.ov import op_class
from xmo.dialects.ov.base import OVOp, constant_value_of, dims_of
from xmo.dialects.ov.traits import is_pure
from xmo.passes.to_ov.builder import AttributeReader, Builder, value_etype

#: largest value (elements) evaluated to feed converters and shape inference
_MAX_EVAL_ELEMENTS = 1 << 16


class ConstEvaluator:
    """Values of small ov sub-graphs whose leaves are Constants (or ShapeOf of
    statically shaped tensors), computed with the CPU backend's kernels and
    memoized. Used only to *see* values during conversion: nothing is
    replaced (``ov-constant-fold`` does that afterwards)."""

    def __init__(self) -> None:
        self._memo: dict[SSAValue, np.ndarray | None] = {}

    def value(self, v: SSAValue) -> np.ndarray | None:
        c = constant_value_of(v)
        if c is not None:
            return c
        if v in self._memo:
            return self._memo[v]
        self._memo[v] = None  # cycles cannot happen; guards re-entry
        result = self._evaluate(v)
        self._memo[v] = result
        return result

    def _evaluate(self, v: SSAValue) -> np.ndarray | None:
        op = v.owner
        if not isinstance(op, OVOp) or not is_pure(op) or op.regions:
            return None
        dims = dims_of(v.type)
        if dims is None or any(d < 0 for d in dims) or int(np.prod(dims)) > _MAX_EVAL_ELEMENTS:
            return None
        index = v.index  # type: ignore[attr-defined]
        if op.OV_TYPE == "ShapeOf":
            src = dims_of(op.operands[0].type)
            if src is None or any(d < 0 for d in src):
                return None
            from xmo.dialects.ov import element_types as et

            return np.asarray(src, dtype=et.numpy_dtype(value_etype(v)))
        ins = []
        for x in op.operands:
            xv = self.value(x)
            if xv is None:
                return None
            ins.append(xv)
        from xmo.backends.cpu import CPUBackendError, evaluate_op, kernel_for

        if kernel_for(op.name) is None:
            return None
        try:
            outs = evaluate_op(op, ins)
        except (CPUBackendError, ValueError, TypeError, IndexError, ArithmeticError):
            return None
        for r, o in zip(op.results, outs):
            if r is not v:
                self._memo.setdefault(r, np.asarray(o))
        return np.asarray(outs[index])


class TFBuilder(Builder):
    """:class:`Builder` whose shape inference sees evaluated constant sub-graphs."""

    def __init__(self, store, node_name: str, evaluator: ConstEvaluator | None = None) -> None:
        super().__init__(store, node_name)
        self.evaluator = evaluator or ConstEvaluator()

    def op(
        self,
        ov_type: str,
        inputs: Sequence[SSAValue | Operation],
        attrs: dict[str, Any] | None = None,
        *,
        version: str | None = None,
        result_types=None,
        num_outputs: int | None = None,
    ) -> OVOp:
        if result_types is None:
            cls = op_class(ov_type, version)
            values = [v.results[0] if isinstance(v, Operation) else v for v in inputs]
            if any(constant_value_of(v) is None and self.evaluator.value(v) is not None for v in values):
                spec_attrs = {s.name: (attrs or {}).get(s.name, s.default) for s in cls.OV_ATTRS}
                try:
                    result_types = cls.infer_types(
                        [v.type for v in values],
                        spec_attrs,
                        const_getter=lambda i: self.evaluator.value(values[i]),
                        num_outputs=num_outputs,
                    )
                except Exception:  # noqa: BLE001  (the plain inference reports it)
                    result_types = None
        return super().op(
            ov_type, inputs, attrs, version=version, result_types=result_types,
            num_outputs=num_outputs,
        )

    # -- TF-flavoured helpers ------------------------------------------------------
    def i32(self, values: Sequence[int] | int) -> SSAValue:
        return self.const(np.asarray(values, dtype=np.int32), "i32")

    def transpose(self, v: SSAValue, perm: Sequence[int]) -> SSAValue:
        return self.out("Transpose", [v, self.i64(list(perm))])


class TFAttributes(AttributeReader):
    """TF attributes: the tf op's ``attr()`` (the OpDef default when the node
    does not set one); strings come back as ``str``."""

    def value(self, op: Operation, name: str, default: Any) -> Any:
        getter = getattr(op, "attr", None)
        if getter is None:
            return default
        try:
            value = getter(name, default)
        except (KeyError, AttributeError):
            return default
        if isinstance(value, bytes):
            value = value.decode("utf-8", "replace")
        return default if value is None else value

    def has(self, op: Operation, name: str) -> bool:
        fn = getattr(op, "has_attr", None)
        if fn is not None:
            return bool(fn(name))
        return name in op.properties


#: the attribute reader of ``tf`` ops
TF_ATTRIBUTES = TFAttributes()

__all__ = ["TF_ATTRIBUTES", "ConstEvaluator", "TFAttributes", "TFBuilder"]
