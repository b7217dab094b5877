"""Shape inference of the ops with bodies: Loop, TensorIterator, If.

The body is inferred as a graph of its own: its parameters take the types the
port map gives them (an invariant input's type; a sliced input's with the
axis dim the part size; a merged input's initial type, widened until it also
covers the type the back edge brings -- a fixed point: differing dims become
dynamic, differing ranks a dynamic rank), then every body op's inference runs
on them in block order (:func:`body_result_types`, which leaves the body
unchanged). Outputs: a last-iteration output has the body result's type; a
concatenated output's axis dim is the body result's times the number of
iterations, dynamic unless the trip count, the conditions and the sliced
inputs make it a constant. If: the taken branch's types when the condition is
a constant, else both branches merged the same way.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence

import numpy as np
from xdsl.dialects.builtin import ArrayAttr, IntegerAttr, TensorType, UnrankedTensorType
from xdsl.ir import Attribute, Region, SSAValue

from xmo.dialects.ov.base import (
    DYN,
    InferContext,
    OVOp,
    ShapeInferenceError,
    constant_value_of,
    dims_of,
    shape_infer,
    tensor,
    types_compatible,
)
from xmo.dialects.ov.core_ops import ParameterOp, ResultOp
from xmo.dialects.ov.port_map import (
    ConcatOutput,
    InputSlice,
    MergedInput,
    inputs_from_attr,
    outputs_from_attr,
)

#: Merged parameters widen at most rank + 2 times; a guard against a bug.
_MAX_FIXED_POINT_ROUNDS = 64


def merge_types(a: Attribute, b: Attribute, what: str) -> Attribute:
    """The type covering values of ``a`` and of ``b``: equal dims kept,
    differing dims dynamic, differing ranks a dynamic rank."""
    if a == b:
        return a
    assert isinstance(a, TensorType | UnrankedTensorType)
    assert isinstance(b, TensorType | UnrankedTensorType)
    if a.get_element_type() != b.get_element_type():
        raise ShapeInferenceError(f"{what}: element types {a} and {b} differ")
    da, db = dims_of(a), dims_of(b)
    if da is None or db is None or len(da) != len(db):
        return UnrankedTensorType(a.get_element_type())
    return tensor(a.get_element_type(), [x if x == y else DYN for x, y in zip(da, db)])


def meet_types(a: Attribute, b: Attribute) -> Attribute:
    """The more precise of two compatible types, dim by dim (a static dim
    wins over a dynamic one, a rank over a dynamic rank)."""
    if a == b:
        return a
    da, db = dims_of(a), dims_of(b)
    if db is None:
        return a
    if da is None:
        return b
    assert isinstance(a, TensorType | UnrankedTensorType)
    return tensor(a.get_element_type(), [x if x >= 0 else y for x, y in zip(da, db)])


def _with_dim(t: Attribute, axis: int, dim: int) -> Attribute:
    dims = dims_of(t)
    if dims is None:
        return t
    assert isinstance(t, TensorType)
    dims[axis if axis >= 0 else axis + len(dims)] = dim
    return tensor(t.get_element_type(), dims)


def body_result_types(
    body: Region, parameter_types: Mapping[int, Attribute]
) -> tuple[list[Attribute], list[Attribute]]:
    """(parameter types, result types) of ``body`` when its parameters have
    ``parameter_types`` (index among the Parameters -> type; the others keep
    their declared type). The body is not changed: each op's inference runs
    on the types its inputs would have; an op whose inputs keep their declared
    types gets the more precise of its declared and inferred result types
    (both hold). An op without inference keeps its declared types."""
    types: dict[SSAValue, Attribute] = {}
    params: list[Attribute] = []
    results: list[Attribute] = []
    for op in body.block.ops:
        if isinstance(op, ParameterOp):
            t = parameter_types.get(len(params), op.results[0].type)
            params.append(t)
            types[op.results[0]] = t
            continue
        if isinstance(op, ResultOp):
            v = op.operands[0]
            results.append(types.get(v, v.type))
            continue
        in_types = [types.get(v, v.type) for v in op.operands]
        inferred = None
        if isinstance(op, OVOp):
            if any(t is not v.type for t, v in zip(in_types, op.operands)):
                inferred = op.inferred_result_types(in_types)
            else:  # declared and inferred types both hold: the more precise
                inferred = op.inferred_result_types()
                if inferred is not None:
                    inferred = [meet_types(r.type, t) for r, t in zip(op.results, inferred)]
        for i, r in enumerate(op.results):
            types[r] = inferred[i] if inferred is not None else r.type
    return params, results


def _static_dim(t: Attribute, axis: int) -> int | None:
    dims = dims_of(t)
    if dims is None:
        return None
    d = dims[axis if axis >= 0 else axis + len(dims)]
    return d if d >= 0 else None


def slice_iterations(entry: InputSlice, dim: int) -> int:
    """Iterations a sliced input of ``dim`` elements along the axis gives, as
    OpenVINO's shape inference counts them: ``start``/``end`` inclusive
    (negative ones from the end: -1 is the last), divided into parts of
    ``part_size``. (OpenVINO's CPU plugin counts by ``stride`` and takes a
    negative index as one past; the two agree when ``stride`` is
    ``part_size`` and the ends are 0 / -1, what the converters write.)"""
    start = entry.start + dim if entry.start < 0 else entry.start
    end = entry.end + dim if entry.end < 0 else entry.end
    return (abs(end - start) + 1) // entry.part_size


def _scalar(value: np.ndarray | None) -> int | bool | None:
    if value is None or value.size != 1:
        return None
    return value.reshape(-1)[0].item()


def _body_constant(body: Region, result_index: int) -> int | bool | None:
    """The value of body result ``result_index`` when a Constant gives it."""
    results = [op for op in body.block.ops if isinstance(op, ResultOp)]
    if not 0 <= result_index < len(results):
        return None
    return _scalar(constant_value_of(results[result_index].operands[0]))


def _int_prop(props: Mapping[str, Attribute], name: str) -> int:
    a = props.get(name)
    return a.value.data if isinstance(a, IntegerAttr) else -1


def infer_control_types(
    cls: type[OVOp],
    input_types: Sequence[Attribute],
    regions: Sequence[Region],
    props: Mapping[str, Attribute],
    num_outputs: int,
    const_getter: Callable[[int], np.ndarray | None],
) -> list[Attribute]:
    """Result types of a Loop, TensorIterator or If with these inputs, bodies
    and port maps (``props``: the op's properties)."""
    if cls.name == "ov.If":
        return _infer_if(input_types, regions, props, num_outputs, const_getter)
    return _infer_iterating(cls, input_types, regions[0], props, num_outputs, const_getter)


def _iterating_types(
    what: str,
    input_types: Sequence[Attribute],
    body: Region,
    props: Mapping[str, Attribute],
) -> tuple[dict[int, Attribute], list[Attribute], list[int | None]]:
    """(body parameter types from the port map, widened to the fixed point;
    body result types; the iterations each sliced input gives, None unknown)."""
    in_attr = props["input_map"]
    assert isinstance(in_attr, ArrayAttr)
    inputs = inputs_from_attr(in_attr, what)
    ptypes: dict[int, Attribute] = {}
    sliced_iterations: list[int | None] = []
    for e in inputs:
        t = input_types[e.external]
        if isinstance(e, InputSlice):
            dim = _static_dim(t, e.axis)
            sliced_iterations.append(None if dim is None else slice_iterations(e, dim))
            t = _with_dim(t, e.axis, e.part_size)
        ptypes[e.parameter] = t
    merged = [e for e in inputs if isinstance(e, MergedInput)]
    for _ in range(_MAX_FIXED_POINT_ROUNDS):
        _, rtypes = body_result_types(body, ptypes)
        changed = False
        for e in merged:
            new = merge_types(
                ptypes[e.parameter], rtypes[e.result],
                f"{what}: back edge of parameter {e.parameter}",
            )
            if new != ptypes[e.parameter]:
                ptypes[e.parameter] = new
                changed = True
        if not changed:
            break
    else:
        raise ShapeInferenceError(f"{what}: merged body parameters do not reach a fixed point")
    params = [op for op in body.block.ops if isinstance(op, ParameterOp)]
    merged_params = {e.parameter for e in merged}
    for i, t in ptypes.items():
        declared = params[i].results[0].type
        if not types_compatible(declared, t) or (
            # a carried value takes every type of the fixed point
            i in merged_params and merge_types(declared, t, what) != declared
        ):
            raise ShapeInferenceError(
                f"{what}: body parameter {i} is {declared}, its values are {t}"
            )
    return ptypes, rtypes, sliced_iterations


def _infer_iterating(
    cls: type[OVOp],
    input_types: Sequence[Attribute],
    body: Region,
    props: Mapping[str, Attribute],
    num_outputs: int,
    const_getter: Callable[[int], np.ndarray | None],
) -> list[Attribute]:
    what = cls.name
    out_attr = props["output_map"]
    assert isinstance(out_attr, ArrayAttr)
    outputs = outputs_from_attr(out_attr, what)
    _, rtypes, sliced_iterations = _iterating_types(what, input_types, body, props)
    slice_n = (
        min(n for n in sliced_iterations if n is not None)  # type: ignore[type-var]
        if sliced_iterations and all(n is not None for n in sliced_iterations)
        else None
    )
    if cls.name == "ov.Loop":
        iterations = _loop_iterations(body, props, const_getter, slice_n, bool(sliced_iterations))
    else:
        iterations = slice_n
    out: list[Attribute | None] = [None] * num_outputs
    for e in outputs:
        t = rtypes[e.result]
        if isinstance(e, ConcatOutput):
            d = _static_dim(t, e.axis)
            total = DYN if d is None or iterations is None else d * iterations
            t = _with_dim(t, e.axis, total)
        if 0 <= e.external < num_outputs:
            out[e.external] = t
    if any(t is None for t in out):
        raise ShapeInferenceError(f"{what}: an output comes from no body result")
    return out  # type: ignore[return-value]


def body_parameter_types(op: OVOp) -> list[tuple[ParameterOp, Attribute]]:
    """(body Parameter, the type its port map gives it) for every body
    parameter fed by an input of ``op`` (a Loop, TensorIterator or If), every
    body; merged parameters with their fixed-point type."""
    input_types = [v.type for v in op.operands]
    out: list[tuple[ParameterOp, Attribute]] = []
    if op.name == "ov.If":
        for prefix, body in zip(("then", "else"), op.regions):
            in_attr = op.properties[f"{prefix}_input_map"]
            assert isinstance(in_attr, ArrayAttr)
            params = [o for o in body.block.ops if isinstance(o, ParameterOp)]
            out += [(params[e.parameter], input_types[e.external])
                    for e in inputs_from_attr(in_attr)]
        return out
    body = op.regions[0]
    ptypes, _, _ = _iterating_types(op.name, input_types, body, op.properties)
    params = [o for o in body.block.ops if isinstance(o, ParameterOp)]
    return [(params[i], t) for i, t in sorted(ptypes.items())]


def _loop_iterations(
    body: Region,
    props: Mapping[str, Attribute],
    const_getter: Callable[[int], np.ndarray | None],
    slice_n: int | None,
    sliced: bool,
) -> int | None:
    """Number of iterations of a Loop when it is a constant, else None."""
    first = _scalar(const_getter(1))
    if first is None:
        return None
    if not first:
        return 0
    trip = _scalar(const_getter(0))
    if trip is None:
        return None
    go_on = _body_constant(body, _int_prop(props, "body_condition_output_idx"))
    if go_on is None:
        return None
    limit = trip if trip >= 0 else None
    if sliced:
        if slice_n is None:
            return None
        limit = slice_n if limit is None else min(limit, slice_n)
    if not go_on:
        return None if limit is None else min(limit, 1)
    return limit


def _infer_if(
    input_types: Sequence[Attribute],
    regions: Sequence[Region],
    props: Mapping[str, Attribute],
    num_outputs: int,
    const_getter: Callable[[int], np.ndarray | None],
) -> list[Attribute]:
    branches: list[list[Attribute | None]] = []
    for prefix, body in (("then", regions[0]), ("else", regions[1])):
        in_attr, out_attr = props[f"{prefix}_input_map"], props[f"{prefix}_output_map"]
        assert isinstance(in_attr, ArrayAttr) and isinstance(out_attr, ArrayAttr)
        ptypes = {e.parameter: input_types[e.external] for e in inputs_from_attr(in_attr)}
        params = [op for op in body.block.ops if isinstance(op, ParameterOp)]
        for i, t in ptypes.items():
            if i < len(params) and not types_compatible(params[i].results[0].type, t):
                raise ShapeInferenceError(
                    f"ov.If: {prefix}_body parameter {i} is {params[i].results[0].type}, "
                    f"its input gives {t}"
                )
        _, rtypes = body_result_types(body, ptypes)
        out: list[Attribute | None] = [None] * num_outputs
        for e in outputs_from_attr(out_attr):
            if 0 <= e.external < num_outputs:
                out[e.external] = rtypes[e.result]
        if any(t is None for t in out):
            raise ShapeInferenceError(f"ov.If: an output comes from no {prefix}_body result")
        branches.append(out)
    cond = _scalar(const_getter(0))
    if cond is not None:
        return branches[0 if cond else 1]  # type: ignore[return-value]
    return [
        merge_types(a, b, f"ov.If: output {j}")  # type: ignore[arg-type]
        for j, (a, b) in enumerate(zip(*branches))
    ]


@shape_infer("ov.If", "ov.Loop", "ov.TensorIterator")
def _control(ctx: InferContext) -> list[Attribute]:
    op = ctx.op
    if op is None:
        raise ctx.error("infers its types from its bodies: build it with its .new()")
    n = ctx.num_outputs if ctx.num_outputs is not None else len(op.results)
    return infer_control_types(
        type(op), ctx.input_types, op.regions, op.properties, n, ctx.const  # type: ignore[arg-type]
    )


__all__ = [
    "body_parameter_types",
    "body_result_types",
    "infer_control_types",
    "meet_types",
    "merge_types",
    "slice_iterations",
]
