"""nnet3 recurrent loops (``IfDefined(Offset(x, -k))``) as TensorIterators.

The frontend orders each loop's ops contiguously
(:func:`xmo.dialects.kaldi.order_groups`); when the driver reaches a loop,
:func:`convert_loop` converts all of its ops at once:

* the values the loop reads from outside are aligned to the frames they all
  have (:func:`~.families.time.align`) and sliced one frame per iteration
  (body parameters ``[1, dim]``);
* each ``Recurrent`` op of delay ``k`` reads a state of the last ``k``
  values of its target (``[k, dim]``, zeros at the start: ``IfDefined`` of
  a frame before the window is zero); the body shifts it by one frame and
  appends the target's new value (a back edge);
* the loop's ops convert inside the body with their usual converters
  (frame-wise; a time offset inside a loop does not convert);
* values used after the loop are the TensorIterator's outputs, one frame
  per iteration, with the margins of the aligned inputs.

The state's dims come from a first build of the body with the target dims
unknown; the body is then built again with them.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np
from xdsl.ir import Block, Operation, Region, SSAValue

from xmo.dialects.kaldi import DescriptorOp, node_value_op
from xmo.dialects.ov import ParameterOp, ResultOp, TensorIteratorOp
from xmo.dialects.ov.base import dims_of
from xmo.dialects.ov.port_map import ConcatOutput, InputSlice, MergedInput
from xmo.passes.kaldi_to_ov.frames import align
from xmo.passes.to_ov.builder import Builder, NotConvertible
from xmo.passes.to_ov.driver import Legalizer, add_tensor_names

if TYPE_CHECKING:
    from xmo.passes.kaldi_to_ov.convert import KaldiHooks


def _is_recurrent(op: Operation) -> bool:
    return isinstance(op, DescriptorOp) and op.kind.data == "Recurrent"


class _Body:
    """One build of the loop body."""

    def __init__(self, hooks: KaldiHooks, lz: Legalizer, loop: Sequence[Operation],
                 externals: Sequence[SSAValue], ext_dims: Sequence[int],
                 state_dims: Sequence[int], name: str) -> None:
        self.params = [ParameterOp.new("f32", [1, d], name=f"{name}/body/in{i}")
                       for i, d in enumerate(ext_dims)]
        recs = [op for op in loop if _is_recurrent(op)]
        self.states = [ParameterOp.new("f32", [_delay(op), d], name=f"{name}/body/state{i}")
                       for i, (op, d) in enumerate(zip(recs, state_dims))]
        local = {v: p.results[0] for v, p in zip(externals, self.params)}
        scope = lz.scope.nested(local)  # type: ignore[arg-type]
        b = Builder(lz.store, f"{name}/body")
        self.builder = b
        for op, st in zip(recs, self.states):
            s = st.results[0]
            local[op.results[0]] = s if _delay(op) == 1 else b.out(
                "Slice", [s, b.i64([0]), b.i64([1]), b.i64([1]), b.i64([0])])
        hooks.in_body = True
        try:
            for index, op in enumerate(loop):
                if _is_recurrent(op):
                    continue
                info = hooks.describe(op, index)
                outs = lz.convert_inner(op, info, scope, b, info.name, f"recurrent loop node '{info.name}'")
                if hooks.node is not None and hooks.node.out_margins != (0, 0):
                    raise NotConvertible(f"node '{info.name}': a time offset inside a recurrent loop")
                for r, v in zip(op.results, outs):
                    local[r] = v
        finally:
            hooks.in_body = False
        self.values = local
        targets = []
        for op in recs:
            t = node_value_op(loop, op.target.data)  # type: ignore[union-attr]
            v = local.get(t.results[0]) if t is not None else None
            if not isinstance(v, SSAValue):
                raise NotConvertible(f"recurrence target '{op.target.data}' has no value")  # type: ignore[union-attr]
            targets.append(v)
        self.targets = targets

    def target_dims(self) -> list[int]:
        return [(dims_of(v.type) or [-1])[-1] for v in self.targets]


def _delay(op: Operation) -> int:
    args = op.properties.get("args")
    return int(args.data[0].value.data) if args is not None and args.data else 0  # type: ignore[attr-defined]


def convert_loop(hooks: KaldiHooks, lz: Legalizer, loop: Sequence[Operation]) -> None:
    """Convert the ops of one recurrent loop (see the module docstring); a
    loop that does not convert is reported under ``Recurrent``."""
    recs = [op for op in loop if _is_recurrent(op)]
    name = f"{recs[0].target.data}/recurrence"  # type: ignore[union-attr]
    members = set(loop)
    if any(lz.has_poisoned_input(op) for op in loop):
        for op in loop:
            lz.poison(op, hooks.describe(op, 0).name)
        return
    try:
        for op in recs:
            if _delay(op) < 1:
                raise NotConvertible(f"recurrence of '{op.target.data}' is not IfDefined(Offset(x, -k))")  # type: ignore[union-attr]
        externals: list[SSAValue] = []
        for op in loop:
            for v in op.operands:
                if v.owner not in members and v not in externals:
                    externals.append(v)
        if not externals:
            raise NotConvertible("a recurrent loop that reads no input")
        values = [lz.values.get(v) for v in externals]
        if not all(isinstance(v, SSAValue) for v in values):
            raise NotConvertible("an input of the loop has no value")
        b = Builder(lz.store, name)
        aligned, margins = align(b, values, [hooks.margins.get(v, (0, 0)) for v in externals],  # type: ignore[arg-type]
                                 [0] * len(externals))
        ext_dims = [(dims_of(v.type) or [-1])[-1] for v in aligned]
        if any(d < 0 for d in ext_dims):
            raise NotConvertible("an input of the loop has an unknown number of features")
        first = _Body(hooks, lz, loop, externals, ext_dims, [-1] * len(recs), name)
        dims = first.target_dims()
        _erase(first)
        if any(d < 0 for d in dims):
            raise NotConvertible("a recurrence target has an unknown number of features")
        body = _Body(hooks, lz, loop, externals, ext_dims, dims, name)
    except NotConvertible as e:
        lz.fail("Recurrent", name, str(e))
        for op in loop:
            lz.poison(op, name)
        return

    bb = body.builder
    results: list[SSAValue] = []
    for op, st, t in zip(recs, body.states, body.targets):
        if _delay(op) == 1:
            results.append(t)
        else:
            s = st.results[0]
            keep = bb.out("Slice", [s, bb.i64([1]), bb.i64([np.iinfo(np.int64).max]), bb.i64([1]),
                                    bb.i64([0])])
            results.append(bb.concat([keep, t], 0))
    exported = [op for op in loop
                if any(u.operation not in members for r in op.results for u in r.uses)]
    export_values = [body.values[op.results[0]] for op in exported]
    n_ext = len(aligned)
    ops = [*body.params, *body.states, *bb.ops,
           *(ResultOp.new(v) for v in results), *(ResultOp.new(v) for v in export_values)]  # type: ignore[arg-type]
    inits = [b.const(np.zeros((_delay(op), d), np.float32)) for op, d in zip(recs, dims)]
    in_map: list = [InputSlice(external=i, parameter=i, axis=0) for i in range(n_ext)]
    in_map += [MergedInput(external=n_ext + j, parameter=n_ext + j, result=j) for j in range(len(recs))]
    out_map = [ConcatOutput(result=len(recs) + k, external=k, axis=0) for k in range(len(exported))]
    ti = TensorIteratorOp.new([*aligned, *inits], Region(Block(ops)), in_map, out_map)
    ti.set_friendly_name(name)
    b.ops.append(ti)
    lz.new_ops.extend(b.ops)
    for op, out in zip(exported, ti.results):
        lz.values[op.results[0]] = out
        hooks.margins[op.results[0]] = margins
        info = hooks.describe(op, 0)
        add_tensor_names(out, hooks.tensor_names(op, info, 0))


def _erase(body: _Body) -> None:
    body.builder.rollback()
    for p in (*body.params, *body.states):
        p.erase(safe_erase=False)
