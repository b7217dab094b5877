"""TF2 functional control flow: PartitionedCall / StatefulPartitionedCall,
If / StatelessIf, While / StatelessWhile (their functions are ``tf.Function``
symbols of the module, see :mod:`xmo.frontends.tf`).

* **Calls** are inlined: the function's nodes convert in place of the call
  (:func:`~xmo.passes.tf_to_ov.convert.convert_function`).
* **If** with a predicate known at conversion time inlines the taken branch;
  otherwise it becomes an ``ov.If`` whose branches are the two functions
  (each converted into a body, :mod:`xmo.passes.to_ov.bodies`: the arguments
  a branch reads are its invariant inputs, constants are cloned into it).
* **While** becomes an ``ov.Loop`` (:mod:`..while_loops` reads what the loop
  does first):

  - trip count: from the condition's ``counter < bound`` terms (the
    smallest ``bound - start``), else -1;
  - execution condition: the ``cond`` function on the initial values,
    converted outside the loop (it folds when they are constants);
  - body: the ``body`` function, then (unless the condition is only bounds
    the trip count enforces) the ``cond`` function on the body's results,
    whose result is the body's condition output
    (``body_condition_output_idx`` 0);
  - loop-carried variables (counters included) are merged inputs with their
    back edges; invariant variables are invariant inputs, or constants
    cloned into the body; a tensor list read at the iteration number is a
    sliced input (axis 0, one element per iteration, squeezed in the body);
    a tensor list written per iteration is a concatenated output (the items
    unsqueezed on axis 0), or the last item for a one-element list;
  - only what the used results need is carried (a counter that only indexes
    sliced reads and per-iteration writes goes).

A While result that holds a tensor list is a :class:`TensorList` whose items
are the Loop's concatenated output, so ``TensorListStack`` after the loop is
the output itself. When the list was reserved with more elements than the
loop may write (a constant length the trip count does not match), the rows
it leaves unset are zeros, as TensorFlow stacks them.
"""

from __future__ import annotations

import numpy as np
from xdsl.ir import Attribute, SSAValue
from xdsl.utils.exceptions import VerifyException
from xmo.dialects.ov import ConstantOp, ParameterOp
from xmo.dialects.ov.base import dims_of
from xmo.dialects.ov.base import tensor as tensor_type
from xmo.dialects.ov.control_ops import IfOp, LoopOp
from xmo.dialects.ov.port_map import (
    ConcatOutput,
    InputSlice,
    InvariantInput,
    LastOutput,
    MergedInput,
)
from xmo.passes.tf_to_ov.builder import TFBuilder
from xmo.passes.tf_to_ov.convert import called_function, convert_function
from xmo.passes.tf_to_ov.families.tensor_lists import (
    ListWrite,
    SlicedList,
    TensorArrayHandle,
    TensorList,
    WrittenList,
)
from xmo.passes.tf_to_ov.registry import tf_converter
from xmo.passes.tf_to_ov.while_loops import (
    CARRIED,
    CONCAT,
    COUNTER,
    INVARIANT,
    LAST,
    SLICED,
    WhileLoop,
    analyse,
)
from xmo.passes.to_ov.bodies import Body, BodyCapture, assemble_body, settled_body
from xmo.passes.to_ov.builder import (
    Builder,
    ConversionValue,
    ConverterNode,
    NotConvertible,
    value_etype,
)


@tf_converter("PartitionedCall", "StatefulPartitionedCall")
def call(node: ConverterNode, b: TFBuilder):
    return convert_function(node, b, called_function(node, "f"), node.inputs, node.name)


# ---------------------------------------------------------------------------
# If
# ---------------------------------------------------------------------------


def _truth(value: np.ndarray) -> bool:
    """TensorFlow's truth of an If predicate: a scalar is true when nonzero,
    any other tensor when it is not empty."""
    a = np.asarray(value)
    return bool(a.reshape(())) if a.ndim == 0 else a.size > 0


@tf_converter("If", "StatelessIf")
def if_(node: ConverterNode, b: TFBuilder):
    pred = node.const(0)
    if pred is not None:
        branch = "then_branch" if _truth(pred) else "else_branch"
        return convert_function(node, b, called_function(node, branch), node.inputs[1:], node.name)
    cond = _predicate(node, b, node.input(0))
    args = node.inputs[1:]
    for i, a in enumerate(args):
        if isinstance(a, ConversionValue):
            raise node.unsupported(f"input {i + 1} {a.input_problem} (an If branch takes tensors)")
    bodies = []
    for which in ("then_branch", "else_branch"):
        prefix = f"{node.name}/{which.removesuffix('_branch')}"
        capture = BodyCapture(prefix)
        inner = Builder(b.store, prefix)
        outs = convert_function(
            node, inner, called_function(node, which),
            [capture.value(a) for a in args], prefix,  # type: ignore[arg-type]
        )
        vals = [_tensor(node, v, f"{which} result {i}") for i, v in enumerate(outs)]
        bodies.append(assemble_body([], capture, inner.ops, vals))
    inputs: list[SSAValue] = []
    maps = []
    for body in bodies:
        ins = []
        for k, v in enumerate(body.captured):
            if v not in inputs:
                inputs.append(v)
            ins.append(InvariantInput(external=1 + inputs.index(v), parameter=k))
        n_out = len(node.op.results)
        maps.append((ins, [LastOutput(external=i, result=i) for i in range(n_out)]))
    try:
        op = IfOp.new(cond, inputs, bodies[0].region, maps[0], bodies[1].region, maps[1])
    except VerifyException as e:
        raise node.unsupported(f"ov.If: {e}") from None
    op.set_friendly_name(f"{node.name}/If")
    b.ops.append(op)
    return list(op.results)


def _predicate(node: ConverterNode, b: Builder, v: SSAValue) -> SSAValue:
    """TensorFlow's truth of a predicate as a boolean scalar."""
    dims = dims_of(v.type)
    if dims is None:
        raise node.unsupported("the predicate has an unknown rank")
    if dims:
        # a tensor is true when it is not empty
        size = b.out("ReduceProd", [b.shape_of(v), b.i64([0])], {"keep_dims": False})
        return b.out("Greater", [size, b.i64(0)])
    if value_etype(v) != "boolean":
        return b.out("NotEqual", [v, b.const(np.asarray(0), value_etype(v))])
    return v


def _tensor(node: ConverterNode, v, what: str) -> SSAValue:
    if not isinstance(v, SSAValue):
        problem = v.input_problem if isinstance(v, ConversionValue) else "has no value"
        raise node.unsupported(f"{what} {problem}")
    return v


# ---------------------------------------------------------------------------
# While
# ---------------------------------------------------------------------------


class _Uncarried(ConversionValue):
    """A loop variable the converted loop does not carry (read only where the
    Loop's slicing stands for it, e.g. as the index of a sliced read)."""

    kind = "loop variable not carried"
    input_problem = "is a loop variable the converted loop does not carry"


_UNCARRIED = _Uncarried()


@tf_converter("While", "StatelessWhile")
def while_(node: ConverterNode, b: TFBuilder):
    try:
        loop = analyse(node, called_function(node, "cond"), called_function(node, "body"))
    except NotConvertible as e:
        raise node.unsupported(str(e)) from None
    return _Loop(node, b, loop).build()


class _Loop:
    """Builds the ``ov.Loop`` of one While node (see the module docstring)."""

    def __init__(self, node: ConverterNode, b: TFBuilder, loop: WhileLoop) -> None:
        self.node = node
        self.b = b
        self.loop = loop
        self.values = node.inputs
        used = [j for j, r in enumerate(node.op.results) if r.uses]
        need = loop.needed(used)
        kinds = [v.kind for v in loop.vars]
        self.used = set(used)
        self.carried = [j for j in sorted(need) if kinds[j] in (COUNTER, CARRIED)]
        self.sliced = [j for j in sorted(need) if kinds[j] == SLICED]
        self.written = [j for j in sorted(need) if kinds[j] in (CONCAT, LAST)]
        self.invariant = [j for j in sorted(need) if kinds[j] == INVARIANT]
        #: the body result of each written list's item (set by :meth:`body`)
        self.item_results: list[int] = []

    # -- inputs --------------------------------------------------------------------
    def _value(self, j: int) -> SSAValue:
        return _tensor(self.node, self.values[j], f"loop variable {j}")

    def _list(self, j: int) -> TensorList:
        v = self.values[j]
        assert isinstance(v, TensorList)
        return v

    def _sliced_items(self, j: int) -> SSAValue:
        items = self._list(j).items
        if items is None:
            raise self.node.unsupported(f"loop variable {j} reads a tensor list nothing was written to")
        return items

    def trip_count(self) -> SSAValue:
        """The smallest ``bound - start`` of the condition's bounds, else -1."""
        b, loop = self.b, self.loop
        consts: list[int] = []
        dynamic: list[SSAValue] = []
        for bd in loop.bounds:
            start = loop.vars[bd.counter].start
            if bd.value is not None:
                consts.append(bd.value - start)
                continue
            v = self._value(bd.var)
            known = self.node.evaluator.value(v) if self.node.evaluator is not None else None
            if known is not None and np.size(known) == 1:
                consts.append(int(np.asarray(known).reshape(-1)[0]) - start)
                continue
            v = b.convert(b.reshape(v, []) if dims_of(v.type) != [] else v, "i64")
            dynamic.append(b.out("Subtract", [v, b.i64(start)]) if start else v)
        if not consts and not dynamic:
            return b.i64(-1)
        trip = b.i64(min(consts)) if consts else None
        for v in dynamic:
            trip = v if trip is None else b.out("Minimum", [trip, v])
        assert trip is not None
        return trip

    def known_trip(self, trip: SSAValue) -> int | None:
        v = self.node.evaluator.value(trip) if self.node.evaluator is not None else None
        return None if v is None else int(np.asarray(v).reshape(-1)[0])

    # -- the body ------------------------------------------------------------------
    def body(self, types: list[Attribute]) -> Body:
        node, loop = self.node, self.loop
        prefix = f"{node.name}/body"
        params = [
            ParameterOp.make([], result_types=[t], name=f"{prefix}/v{j}")
            for j, t in zip(self.carried, types)
        ]
        slice_params = [
            ParameterOp.make([], result_types=[_slice_type(self._sliced_items(j).type)],
                             name=f"{prefix}/x{j}")
            for j in self.sliced
        ]
        sb = Builder(self.b.store, f"{prefix}/slices")
        capture = BodyCapture(prefix)
        args: list = [_UNCARRIED] * loop.n
        for j, p in zip(self.carried, params):
            args[j] = p.results[0]
        for j, p in zip(self.sliced, slice_params):
            args[j] = SlicedList(self._list(j).etype, sb.squeeze(p.results[0], [0]))
        for j in self.written:
            args[j] = WrittenList(self._list(j).etype)
        for j in self.invariant:
            args[j] = self._captured(capture, j)
        inner = Builder(self.b.store, prefix)
        wanted = [*self.carried, *self.written]
        outs = convert_function(node, inner, loop.body, args, prefix, results=wanted)
        carried_out = [_tensor(node, outs[j], f"the body's result {j}") for j in self.carried]
        if loop.cond_is_bounds:
            cond_v = ConstantOp.from_array(np.asarray(True), "boolean", name=f"{prefix}/cond")
            inner.ops.append(cond_v)
            cond_out = cond_v.results[0]
        else:
            cond_args: list = [_UNCARRIED] * loop.n
            for j in self.carried:
                cond_args[j] = outs[j]
            for j in self.invariant:
                cond_args[j] = args[j]
            (c,) = convert_function(node, inner, loop.cond, cond_args, f"{prefix}/cond")
            cond_out = _predicate(node, inner, _tensor(node, c, "the condition"))
        results = [cond_out, *carried_out]
        self.item_results = []
        for j in self.written:
            w = outs[j]
            if not isinstance(w, ListWrite):
                raise node.unsupported(f"loop variable {j}: the body does not write its tensor list")
            item = inner.unsqueeze(w.item, [0]) if loop.vars[j].kind == CONCAT else w.item
            # a last item may be a carried value's result already
            r = next((i for i, v in enumerate(results) if v is item), None)
            if r is None:
                r = len(results)
                results.append(item)
            self.item_results.append(r)
        return assemble_body([*params, *slice_params], capture, inner.ops, results, extra_ops=sb.ops)

    def _captured(self, capture: BodyCapture, j: int):
        v = self.values[j]
        if isinstance(v, TensorArrayHandle):
            return v  # holds no value: the flow holds the array
        if isinstance(v, TensorList):
            if v.items is None:
                raise self.node.unsupported(
                    f"loop variable {j} reads a tensor list nothing was written to"
                )
            return TensorList(v.etype, items=capture.value(v.items), element_shape=v.element_shape)
        return capture.value(self._value(j))

    # -- the Loop ------------------------------------------------------------------
    def build(self) -> list:
        node, b, loop = self.node, self.b, self.loop
        (c,) = convert_function(node, b, loop.cond, self.values, f"{node.name}/cond")
        exec_c = _predicate(node, b, _tensor(node, c, "the condition"))
        trip = self.trip_count()
        known = self.known_trip(trip)
        for j in self.sliced:
            n = self._list(j).known_length(node)
            if known is not None and n is not None and known > n:
                raise node.unsupported(
                    f"the loop reads element {n} of the tensor list of loop variable {j}, "
                    f"which has {n} elements"
                )
        for j in self.carried:
            v = self.values[j]
            if not isinstance(v, SSAValue):
                raise node.unsupported(f"loop variable {j} is not a tensor")
        body = settled_body(
            node, [self._value(j).type for j in self.carried], self.body, 1,
            names=[f"loop variable {j}" for j in self.carried],
        )
        nc, ns = len(self.carried), len(self.sliced)
        inputs = [
            *(self._value(j) for j in self.carried),
            *(self._sliced_items(j) for j in self.sliced),
            *body.captured,
        ]
        in_map: list = [MergedInput(external=2 + k, parameter=k, result=1 + k) for k in range(nc)]
        in_map += [
            InputSlice(external=2 + nc + s, parameter=nc + s, axis=0) for s in range(ns)
        ]
        in_map += [
            InvariantInput(external=2 + nc + ns + k, parameter=nc + ns + k)
            for k in range(len(body.captured))
        ]
        out_map: list = []
        port: dict[int, int] = {}
        for k, j in enumerate(self.carried):
            if j in self.used:
                port[j] = len(out_map)
                out_map.append(LastOutput(external=len(out_map), result=1 + k))
        for j, r in zip(self.written, self.item_results):
            port[j] = len(out_map)
            if loop.vars[j].kind == CONCAT:
                out_map.append(ConcatOutput(external=len(out_map), result=r, axis=0))
            else:
                out_map.append(LastOutput(external=len(out_map), result=r))
        try:
            op = LoopOp.new(trip, exec_c, inputs, body.region, in_map, out_map,
                            body_condition_output_idx=0)
        except VerifyException as e:
            raise node.unsupported(f"ov.Loop: {e}") from None
        op.set_friendly_name(f"{node.name}/Loop")
        b.ops.append(op)
        return self._results(op, port, known)

    def _results(self, op: LoopOp, port: dict[int, int], trip: int | None) -> list:
        b, loop = self.b, self.loop
        outs: list = []
        for j, var in enumerate(loop.vars):
            if var.kind in (INVARIANT, SLICED):
                outs.append(self.values[j])
            elif var.kind in (CONCAT, LAST) and j in port:
                lst = self._list(j)
                items = op.results[port[j]]
                if var.kind == LAST:
                    items = b.unsqueeze(items, [0])
                else:
                    items = self._padded(items, lst, trip)
                outs.append(TensorList(lst.etype, items=items, element_shape=lst.element_shape))
            elif j in port:
                outs.append(op.results[port[j]])
            else:
                outs.append(None)
        return outs

    def _padded(self, items: SSAValue, lst: TensorList, trip: int | None) -> SSAValue:
        """The concatenated items with the rows a reserved list has beyond
        those the loop wrote (zeros, as TensorFlow stacks unset elements)."""
        n = lst.known_length(self.node)
        if lst.items is not None or lst.length is None or n == 0 or (n is not None and n == trip):
            return items
        b = self.b
        rank = len(dims_of(items.type) or [])
        if not rank:
            raise self.node.unsupported("the written items have an unknown rank")
        rows = b.squeeze(b.gather(b.shape_of(items), [0], 0), [0])
        length = b.convert(b.reshape(lst.length, []), "i64")
        extra = b.out("Maximum", [b.out("Subtract", [length, rows]), b.i64(0)])
        pads_end = b.concat([b.unsqueeze(extra, [0]), b.i64([0] * (rank - 1))], 0)
        zero = b.const(np.asarray(0), value_etype(items))
        return b.out("Pad", [items, b.i64([0] * rank), pads_end, zero], {"pad_mode": "constant"})


def _slice_type(t: Attribute) -> Attribute:
    """The type of one part (size 1 along axis 0) of a sliced input of type ``t``."""
    dims = dims_of(t)
    el = t.get_element_type()  # type: ignore[attr-defined]
    if dims is None:
        return t
    return tensor_type(el, [1, *dims[1:]])
