"""``ov-constant-fold``: fold ov ops whose inputs are all constants.

Walks the module in SSA order; each op first gets its result types refined
(``ov-infer-shapes``), then, when every input is an ``ov.Constant`` (or, for
``ShapeOf``, the input shape is static), it is evaluated with the CPU
backend's kernel and replaced by Constants. Friendly and tensor names move to
the new Constants. One walk reaches the fixed point because the module is in
topological order.

Size guard: a result larger than ``max_growth`` times its inputs' bytes (and
over 1 MiB), e.g. a big Broadcast or Tile of a scalar, stays an op, unless
it is asked for (``max_growth=0`` folds everything) or the result only feeds
weight inputs (input 1 of Convolution, GroupConvolution,
ConvolutionBackpropData, GroupConvolutionBackpropData, MatMul, possibly
through Reshape / Transpose / Convert / Squeeze / Unsqueeze): a weight is
stored as a Constant anyway (frameworks' ``ConstantFill``-made weights, as in
the ONNX "light" models, become real weights, as OpenVINO's folding makes
them), and the fusions need it constant.
Ops with state or randomness are never folded.

Shape sub-graphs: ``ShapeOf`` of a static shape folds, so shape arithmetic
becomes constants. xmo's frontends give every input the model's own static
shape when it has one (OpenVINO keeps such shape sub-graphs unless static
shapes are requested); a model whose inputs have dynamic dimensions keeps
its ShapeOf sub-graphs and stays reshapeable. Passing ``--input`` with
dynamic dimensions (``-1``/``?``) is the way to keep a model reshapeable.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass

import numpy as np
from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Operation
from xdsl.passes import ModulePass

from xmo.context import weight_store
from xmo.dialects.ov import ConstantOp, ParameterOp, ResultOp
from xmo.dialects.ov import element_types as et
from xmo.dialects.ov.base import OVOp, constant_value_of, dims_of
from xmo.passes.ov_infer_shapes import refine_op_types

log = logging.getLogger("xmo.fold")

#: never folded: state, randomness, or not worth it
_NEVER = {"ReadValue", "Assign", "RandomUniform", "Multinomial", "Parameter", "Constant", "Result"}


_etype = et.of_tensor_type


#: (op type, input index) pairs that read weights
_WEIGHT_PORTS = {
    ("Convolution", 1), ("GroupConvolution", 1), ("ConvolutionBackpropData", 1),
    ("GroupConvolutionBackpropData", 1), ("MatMul", 1), ("MatMul", 0),
    ("DeformableConvolution", 2),
}  # fmt: skip
#: ops a weight may pass through (they never grow it)
_WEIGHT_LAYOUT = {"Reshape", "Transpose", "Convert", "Squeeze", "Unsqueeze"}


def feeds_weights_only(op: Operation, depth: int = 4) -> bool:
    """True when every use of ``op``'s results is a weight input (see module doc)."""
    uses = [u for r in op.results for u in r.uses]
    if not uses or depth == 0:
        return False
    for u in uses:
        user = u.operation
        t = getattr(user, "OV_TYPE", None)
        if (t, u.index) in _WEIGHT_PORTS:
            other = [v for i, v in enumerate(user.operands) if i != u.index][:1]
            if t == "MatMul" and other and constant_value_of(other[0]) is not None:
                return False
            continue
        if t in _WEIGHT_LAYOUT and u.index == 0 and feeds_weights_only(user, depth - 1):
            continue
        return False
    return True


def fold_op(op: OVOp, store, max_growth: float = 4.0) -> bool:  # noqa: ANN001
    """Replace ``op`` by Constants when possible; True when folded."""
    if op.OV_TYPE in _NEVER or op.regions:
        return False
    out_types = [_etype(r.type) for r in op.results]
    if not op.results or any(t is None or t in et.PACKED_BITS for t in out_types):
        return False
    values: list[np.ndarray] | None = None
    if op.OV_TYPE == "ShapeOf":
        dims = dims_of(op.operands[0].type)
        if dims is not None and all(d >= 0 for d in dims):
            values = [np.asarray(dims, dtype=et.numpy_dtype(out_types[0]))]
    if values is None:
        ins = [constant_value_of(v) for v in op.operands]
        if any(v is None for v in ins):
            return False
        from xmo.backends.cpu import CPUBackendError, evaluate_op, kernel_for

        if kernel_for(op.name) is None:
            return False
        try:
            values = evaluate_op(op, ins)  # type: ignore[arg-type]
        except (CPUBackendError, ValueError, TypeError, IndexError, ArithmeticError) as e:
            log.debug("not folding %s: %s", op.name, e)
            return False
        in_bytes = sum(np.asarray(v).nbytes for v in ins)
        out_bytes = sum(v.nbytes for v in values)
        if (
            max_growth > 0
            and out_bytes > max(max_growth * in_bytes, 1 << 20)
            and not feeds_weights_only(op)
        ):
            log.debug("not folding %s: result of %d bytes from %d", op.name, out_bytes, in_bytes)
            return False
    name = op.get_friendly_name()
    for i, (res, val, etype) in enumerate(zip(op.results, values, out_types)):
        if not res.uses:
            continue
        c = ConstantOp.from_array(
            np.ascontiguousarray(val).reshape(np.shape(val)), etype, store=store,
            name=name if i == 0 else f"{name}:{i}" if name else None,
            tensor_names=op.get_tensor_names(i),
        )
        op.parent_block().insert_op_before(c, op)  # type: ignore[union-attr]
        res.replace_all_uses_with(c.results[0])
    op.detach()
    op.erase(safe_erase=False)
    return True


@dataclass(frozen=True)
class OVConstantFoldPass(ModulePass):
    """Refine types and fold constant sub-graphs (see module docstring)."""

    name = "ov-constant-fold"
    #: a result this many times larger than its inputs stays an op (0: no limit)
    max_growth: float = 4.0

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        store = weight_store(ctx)
        # Ops whose input types changed (a producer was folded or refined):
        # only those need their result types inferred again.
        touched: set[Operation] = set()
        for o in list(op.body.block.ops):
            if not isinstance(o, OVOp) or isinstance(o, ParameterOp | ConstantOp | ResultOp):
                continue
            if o in touched:
                before = [r.type for r in o.results]
                refine_op_types(o)
                if [r.type for r in o.results] != before:
                    touched.update(u.operation for r in o.results for u in r.uses)
            types = [r.type for r in o.results]
            users = [u.operation for r in o.results for u in r.uses]
            if fold_op(o, store, self.max_growth):
                # a folded constant may carry a more precise type than the op had
                for u in users:
                    if any(v.type not in types for v in u.operands):
                        touched.add(u)


@dataclass(frozen=True)
class OVDeadCodeEliminationPass(ModulePass):
    """``ov-dce``: erase ov ops whose results are unused (Parameters and ops
    with side effects stay)."""

    name = "ov-dce"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        for o in reversed(list(op.body.block.ops)):
            if (
                isinstance(o, OVOp)
                and not isinstance(o, ParameterOp | ResultOp)
                and o.OV_TYPE not in ("Assign", "ReadValue")
                and o.results
                and all(not r.uses for r in o.results)
            ):
                o.detach()
                o.erase()
