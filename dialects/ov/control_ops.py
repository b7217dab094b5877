"""The ``ov`` ops with bodies: ``ov.Loop`` (Loop-5), ``ov.TensorIterator``
(TensorIterator-1) and ``ov.If`` (If-8), hand-written.

A body is a region of one block holding an ordinary ov graph, the same shape
OpenVINO gives it (a body is a model): ``ov.Parameter`` ops are the body's
inputs and ``ov.Result`` ops its outputs, each numbered by its order among
the block's Parameters (Results). The port maps (:mod:`.port_map`) connect
the op's inputs and outputs to them; Loop's special body ports
``current_iteration_input_idx`` (a body parameter fed with the iteration
number) and ``body_condition_output_idx`` (the body result deciding whether
another iteration runs) are OpenVINO's, -1 when absent.

Traits:

* ``IsolatedFromAbove`` -- a body sees only its own Parameters, so no pass
  moves a value into or out of a body;
* ``NoTerminator`` -- bodies end with ``ov.Result`` ops, not a terminator;
* :class:`~xmo.dialects.ov.traits.BodyEffects` -- the op has the effects of
  its body ops (a body's Parameters and Results excepted): pure when the
  bodies are, so DCE, CSE and constant folding treat it like any pure op,
  and kept when a body reads or writes state or draws random numbers.

Result types come from the bodies (``xmo.dialects.ov.shape_inference.control``).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import ClassVar

from xdsl.dialects.builtin import (
    ArrayAttr,
    IntegerAttr,
    StringAttr,
    TensorType,
    UnrankedTensorType,
    i64,
)
from xdsl.ir import Attribute, Block, Operation, Region, SSAValue
from xdsl.irdl import opt_prop_def, prop_def, region_def, traits_def
from xdsl.traits import IsolatedFromAbove, NoTerminator
from xdsl.utils.exceptions import VerifyException

from xmo.dialects.ov import element_types as et
from xmo.dialects.ov.base import OVOp, constant_value_of, ov_op
from xmo.dialects.ov.core_ops import ParameterOp, ResultOp
from xmo.dialects.ov.port_map import (
    ConcatOutput,
    InputDesc,
    InputSlice,
    InvariantInput,
    LastOutput,
    MergedInput,
    OutputDesc,
    PortMapError,
    inputs_from_attr,
    outputs_from_attr,
    to_attr,
)
from xmo.dialects.ov.traits import BodyEffects, HasShapeInference

_CONTROL_TRAITS = (IsolatedFromAbove(), NoTerminator(), BodyEffects(), HasShapeInference())


# ---------------------------------------------------------------------------
# Bodies
# ---------------------------------------------------------------------------


def body_parameters(body: Region) -> list[ParameterOp]:
    """The body's inputs: its ``ov.Parameter`` ops in block order."""
    return [op for op in body.block.ops if isinstance(op, ParameterOp)]


def body_results(body: Region) -> list[ResultOp]:
    """The body's outputs: its ``ov.Result`` ops in block order."""
    return [op for op in body.block.ops if isinstance(op, ResultOp)]


def graph_blocks(module: Operation) -> list[Block]:
    """The graphs of a model: the module's block, then the block of every
    body (bodies of bodies included, outer ones first). Passes that work on
    one graph at a time (CSE, DCE, fp16 compression, folding) run on each;
    no value crosses from one to another (bodies are IsolatedFromAbove)."""
    blocks = [module.regions[0].block]
    i = 0
    while i < len(blocks):
        for op in blocks[i].ops:
            if isinstance(op, CONTROL_OPS):
                blocks.extend(region.block for _, region in op.regions_by_name())
        i += 1
    return blocks


def make_body(
    parameter_types: Sequence[Attribute],
    build: Callable[..., Sequence[SSAValue | Operation]],
    parameter_names: Sequence[str | None] | None = None,
) -> Region:
    """A body region: one ``ov.Parameter`` per type, the ops ``build`` creates,
    one ``ov.Result`` per value it returns.

    ``build`` receives the parameters' values and returns the body's outputs;
    the ops it created (not inserted anywhere) are put into the body in
    dependency order::

        body = make_body([t], lambda x: [AddOp.make([x, x])])
    """
    names = list(parameter_names or [None] * len(parameter_types))
    params = [
        ParameterOp.make([], result_types=[t], name=n)
        for t, n in zip(parameter_types, names, strict=True)
    ]
    outputs = [SSAValue.get(v) for v in build(*(p.results[0] for p in params))]
    ordered: list[Operation] = []
    seen: set[Operation] = set(params)
    stack: list[tuple[Operation, bool]] = [
        (v.owner, False) for v in reversed(outputs) if isinstance(v.owner, Operation)
    ]
    while stack:
        op, expanded = stack.pop()
        if expanded:
            ordered.append(op)
            continue
        if op in seen:
            continue
        if op.parent is not None:
            raise VerifyException(
                f"make_body: the body uses {op.name}, which is outside it "
                "(a body sees only its own Parameters)"
            )
        seen.add(op)
        stack.append((op, True))
        stack.extend(
            (v.owner, False)
            for v in reversed(op.operands)
            if isinstance(v.owner, Operation) and v.owner not in seen
        )
    for v in outputs:
        if not isinstance(v.owner, Operation):
            raise VerifyException("make_body: a body output is a block argument")
    results = [ResultOp.new(v) for v in outputs]
    return Region(Block([*params, *ordered, *results]))


# ---------------------------------------------------------------------------
# Verification helpers
# ---------------------------------------------------------------------------


def label(op: OVOp) -> str:
    """``ov.Loop 'name'`` (the friendly name when there is one) for messages."""
    name = op.get_friendly_name()
    return f"{op.name} '{name}'" if name else op.name


def _etype(t: Attribute) -> str | None:
    if isinstance(t, TensorType | UnrankedTensorType):
        return et.from_xdsl(t.get_element_type())
    return None


def _rank(t: Attribute) -> int | None:
    return len(t.get_shape()) if isinstance(t, TensorType) else None


def _is_scalar_like(t: Attribute) -> bool:
    """Rank 0, or one element of rank 1 (what OpenVINO takes for a scalar), or unknown."""
    if not isinstance(t, TensorType):
        return True
    shape = t.get_shape()
    return len(shape) == 0 or (len(shape) == 1 and shape[0] in (1, -1))


def _check_axis(where: str, axis: int, rank: int | None) -> None:
    if rank is not None and not -rank <= axis < rank:
        raise VerifyException(f"{where}: axis {axis} is out of range for rank {rank}")


def _check_slicing(where: str, entry: InputSlice | ConcatOutput) -> None:
    if entry.part_size < 1:
        raise VerifyException(f"{where}: part_size {entry.part_size} must be positive")
    if entry.stride == 0:
        raise VerifyException(f"{where}: stride must not be 0")


def verify_body(
    op: OVOp,
    body: Region,
    inputs: Sequence[InputDesc],
    outputs: Sequence[OutputDesc],
    first_external: int,
    body_name: str,
    skipped_parameter: int = -1,
) -> set[int]:
    """Check one body's port maps against the op and the body; return the
    external inputs that feed the body (the caller checks that every data
    input feeds a body).

    Every body parameter (``skipped_parameter`` excepted)
    is fed by exactly one entry, every op output comes from exactly one
    entry; indices in range; slice and concat axes within the rank; a back
    edge's body result has the initial value's element type.
    """
    what = f"{label(op)}: {body_name}"
    if len(body.blocks) != 1:
        raise VerifyException(f"{what} must be one block")
    if body.block.args:
        raise VerifyException(
            f"{what}: a body has no block arguments (its inputs are ov.Parameter ops)"
        )
    params = body_parameters(body)
    results = body_results(body)
    fed: dict[int, InputDesc] = {}
    used_inputs: set[int] = set()
    n_in = len(op.operands)
    for entry in inputs:
        where = f"{what}: input map entry {entry}"
        if not first_external <= entry.external < n_in:
            raise VerifyException(
                f"{where}: external input {entry.external} is not a data input "
                f"(ports {first_external}..{n_in - 1})"
            )
        if not 0 <= entry.parameter < len(params):
            raise VerifyException(
                f"{where}: body parameter {entry.parameter} does not exist "
                f"({len(params)} parameters)"
            )
        if entry.parameter == skipped_parameter:
            raise VerifyException(
                f"{where}: body parameter {entry.parameter} is the current-iteration input"
            )
        if entry.parameter in fed:
            raise VerifyException(
                f"{where}: body parameter {entry.parameter} is fed twice "
                f"(also by {fed[entry.parameter]})"
            )
        fed[entry.parameter] = entry
        used_inputs.add(entry.external)
        ext_type = op.operands[entry.external].type
        param_type = params[entry.parameter].results[0].type
        if _etype(ext_type) != _etype(param_type):
            raise VerifyException(
                f"{where}: external input is {ext_type}, body parameter is {param_type}"
            )
        if isinstance(entry, InputSlice):
            _check_slicing(where, entry)
            _check_axis(where, entry.axis, _rank(ext_type))
        elif isinstance(entry, MergedInput):
            if not 0 <= entry.result < len(results):
                raise VerifyException(
                    f"{where}: back edge from body result {entry.result}, which does "
                    f"not exist ({len(results)} results)"
                )
            back = results[entry.result].operands[0].type
            if _etype(back) != _etype(ext_type):
                raise VerifyException(
                    f"{where}: back edge type {back} does not match the initial "
                    f"value's {ext_type}"
                )
    missing = [
        i for i in range(len(params)) if i not in fed and i != skipped_parameter
    ]
    if missing:
        raise VerifyException(f"{what}: body parameter {missing[0]} is fed by no input")
    made: dict[int, OutputDesc] = {}
    for entry in outputs:
        where = f"{what}: output map entry {entry}"
        if not 0 <= entry.external < len(op.results):
            raise VerifyException(
                f"{where}: output {entry.external} does not exist "
                f"({len(op.results)} outputs)"
            )
        if not 0 <= entry.result < len(results):
            raise VerifyException(
                f"{where}: body result {entry.result} does not exist "
                f"({len(results)} results)"
            )
        if entry.external in made:
            raise VerifyException(f"{where}: output {entry.external} is mapped twice")
        made[entry.external] = entry
        value_type = results[entry.result].operands[0].type
        if _etype(value_type) != _etype(op.results[entry.external].type):
            raise VerifyException(
                f"{where}: body result is {value_type}, output is "
                f"{op.results[entry.external].type}"
            )
        if isinstance(entry, ConcatOutput):
            _check_slicing(where, entry)
            _check_axis(where, entry.axis, _rank(value_type))
    for j in range(len(op.results)):
        if j not in made:
            raise VerifyException(f"{what}: output {j} comes from no body result")
    return used_inputs


def _check_inputs_used(op: OVOp, used: set[int], first_external: int) -> None:
    unused = [i for i in range(first_external, len(op.operands)) if i not in used]
    if unused:
        raise VerifyException(f"{label(op)}: input {unused[0]} feeds no body parameter")


def _read_inputs(op: OVOp, attr: ArrayAttr, what: str) -> list[InputDesc]:
    try:
        return inputs_from_attr(attr, f"{label(op)}: {what}")
    except PortMapError as e:
        raise VerifyException(str(e)) from None


def _read_outputs(op: OVOp, attr: ArrayAttr, what: str) -> list[OutputDesc]:
    try:
        return outputs_from_attr(attr, f"{label(op)}: {what}")
    except PortMapError as e:
        raise VerifyException(str(e)) from None


def _int_prop(value: IntegerAttr | None) -> int:
    return -1 if value is None else value.value.data


# ---------------------------------------------------------------------------
# Loop and TensorIterator
# ---------------------------------------------------------------------------


class _IteratingOp(OVOp):
    """What Loop and TensorIterator share: one body, input and output maps."""

    OV_FAMILY: ClassVar[str] = "control"
    OV_OUTPUTS: ClassVar[tuple[str, ...]] = ("outputs*",)
    #: the first input port that is a data input (Loop: 2)
    FIRST_DATA_INPUT: ClassVar[int] = 0

    body = region_def("single_block")
    input_map = prop_def(ArrayAttr)
    """The input descriptions (:mod:`xmo.dialects.ov.port_map`)."""
    output_map = prop_def(ArrayAttr)
    """The output descriptions."""

    def input_descs(self) -> list[InputDesc]:
        return _read_inputs(self, self.input_map, "input_map")

    def output_descs(self) -> list[OutputDesc]:
        return _read_outputs(self, self.output_map, "output_map")

    def current_iteration_parameter(self) -> int:
        """Index of the body parameter fed with the iteration number (-1: none)."""
        return -1

    def condition_result(self) -> int:
        """Index of the body result deciding whether to go on (-1: none)."""
        return -1

    def regions_by_name(self) -> list[tuple[str, Region]]:
        return [("body", self.body)]

    def verify_(self) -> None:
        used = verify_body(
            self,
            self.body,
            self.input_descs(),
            self.output_descs(),
            self.FIRST_DATA_INPUT,
            "body",
            self.current_iteration_parameter(),
        )
        _check_inputs_used(self, used, self.FIRST_DATA_INPUT)
        super().verify_()


@ov_op
class LoopOp(_IteratingOp):
    """OpenVINO Loop-5: runs its body while the trip count and the condition allow.

    Inputs: ``trip_count`` (integer scalar, -1: no limit),
    ``execution_condition`` (boolean scalar: whether the first iteration
    runs), then the data inputs the input map feeds to the body.
    """

    name = "ov.Loop"
    OV_TYPE: ClassVar[str] = "Loop"
    OV_VERSION: ClassVar[str] = "opset5"
    OV_INPUTS: ClassVar[tuple[str, ...]] = ("trip_count", "execution_condition", "inputs*")
    FIRST_DATA_INPUT: ClassVar[int] = 2

    current_iteration_input_idx = opt_prop_def(IntegerAttr)
    body_condition_output_idx = opt_prop_def(IntegerAttr)

    traits = traits_def(*_CONTROL_TRAITS)

    def current_iteration_parameter(self) -> int:
        return _int_prop(self.current_iteration_input_idx)

    def condition_result(self) -> int:
        return _int_prop(self.body_condition_output_idx)

    @staticmethod
    def new(
        trip_count: SSAValue | Operation,
        execution_condition: SSAValue | Operation,
        inputs: Sequence[SSAValue | Operation],
        body: Region,
        input_map: Sequence[InputDesc],
        output_map: Sequence[OutputDesc],
        *,
        body_condition_output_idx: int,
        current_iteration_input_idx: int = -1,
        result_types: Sequence[Attribute] | None = None,
        name: str | None = None,
    ) -> LoopOp:
        """A Loop; result types inferred from the body unless given."""
        props: dict[str, Attribute] = {
            "input_map": to_attr(input_map),
            "output_map": to_attr(output_map),
            "body_condition_output_idx": IntegerAttr(body_condition_output_idx, i64),
        }
        if current_iteration_input_idx >= 0:
            props["current_iteration_input_idx"] = IntegerAttr(current_iteration_input_idx, i64)
        operands = [SSAValue.get(v) for v in (trip_count, execution_condition, *inputs)]
        return _create(LoopOp, operands, [body], props, len(output_map), result_types, name)

    def verify_(self) -> None:
        what = label(self)
        trip, cond = self.operands[0].type, self.operands[1].type
        if _etype(trip) not in ("i32", "i64") or not _is_scalar_like(trip):
            raise VerifyException(f"{what}: trip_count must be an i32/i64 scalar, got {trip}")
        if _etype(cond) != "boolean" or not _is_scalar_like(cond):
            raise VerifyException(
                f"{what}: execution_condition must be a boolean scalar, got {cond}"
            )
        params = body_parameters(self.body)
        results = body_results(self.body)
        it = self.current_iteration_parameter()
        if it != -1:
            if not 0 <= it < len(params):
                raise VerifyException(
                    f"{what}: current_iteration_input_idx {it} is not a body parameter "
                    f"({len(params)} parameters)"
                )
            t = params[it].results[0].type
            if _etype(t) not in ("i32", "i64") or not _is_scalar_like(t):
                raise VerifyException(
                    f"{what}: the current-iteration body parameter must be an i32/i64 "
                    f"scalar, got {t}"
                )
        c = self.condition_result()
        if not 0 <= c < len(results):
            raise VerifyException(
                f"{what}: body_condition_output_idx {c} is not a body result "
                f"({len(results)} results; OpenVINO needs the body's condition output)"
            )
        t = results[c].operands[0].type
        if _etype(t) != "boolean" or not _is_scalar_like(t):
            raise VerifyException(
                f"{what}: the body's condition output must be a boolean scalar, got {t}"
            )
        super().verify_()


@ov_op
class TensorIteratorOp(_IteratingOp):
    """OpenVINO TensorIterator-1 (``ov::op::v0::TensorIterator``): runs its body
    once per part of its sliced inputs."""

    name = "ov.TensorIterator"
    OV_TYPE: ClassVar[str] = "TensorIterator"
    OV_VERSION: ClassVar[str] = "opset1"
    OV_INPUTS: ClassVar[tuple[str, ...]] = ("inputs*",)

    traits = traits_def(*_CONTROL_TRAITS)

    @staticmethod
    def new(
        inputs: Sequence[SSAValue | Operation],
        body: Region,
        input_map: Sequence[InputDesc],
        output_map: Sequence[OutputDesc],
        *,
        result_types: Sequence[Attribute] | None = None,
        name: str | None = None,
    ) -> TensorIteratorOp:
        """A TensorIterator; result types inferred from the body unless given."""
        props: dict[str, Attribute] = {
            "input_map": to_attr(input_map),
            "output_map": to_attr(output_map),
        }
        operands = [SSAValue.get(v) for v in inputs]
        return _create(
            TensorIteratorOp, operands, [body], props, len(output_map), result_types, name
        )

    def verify_(self) -> None:
        if not any(isinstance(e, InputSlice) for e in self.input_descs()):
            raise VerifyException(
                f"{label(self)}: a TensorIterator needs a sliced input (it gives the "
                "number of iterations)"
            )
        super().verify_()


# ---------------------------------------------------------------------------
# If
# ---------------------------------------------------------------------------


@ov_op
class IfOp(OVOp):
    """OpenVINO If-8: runs ``then_body`` when ``cond`` is true, else ``else_body``.

    Each branch has its own input map (invariant inputs: external input ->
    body parameter) and output map (last outputs: body result -> output).
    """

    name = "ov.If"
    OV_TYPE: ClassVar[str] = "If"
    OV_VERSION: ClassVar[str] = "opset8"
    OV_FAMILY: ClassVar[str] = "control"
    OV_INPUTS: ClassVar[tuple[str, ...]] = ("cond", "inputs*")
    OV_OUTPUTS: ClassVar[tuple[str, ...]] = ("outputs*",)

    then_body = region_def("single_block")
    else_body = region_def("single_block")
    then_input_map = prop_def(ArrayAttr)
    then_output_map = prop_def(ArrayAttr)
    else_input_map = prop_def(ArrayAttr)
    else_output_map = prop_def(ArrayAttr)

    traits = traits_def(*_CONTROL_TRAITS)

    def branch(self, which: bool) -> tuple[Region, list[InvariantInput], list[LastOutput]]:
        """(body, input map, output map) of the then (True) or else branch."""
        if which:
            body, ins, outs = self.then_body, self.then_input_map, self.then_output_map
            prefix = "then"
        else:
            body, ins, outs = self.else_body, self.else_input_map, self.else_output_map
            prefix = "else"
        inputs = _read_inputs(self, ins, f"{prefix}_input_map")
        outputs = _read_outputs(self, outs, f"{prefix}_output_map")
        for e in (*inputs, *outputs):
            if not isinstance(e, InvariantInput | LastOutput):
                raise VerifyException(
                    f"{label(self)}: {prefix} port map entry {e}: an If branch has "
                    "only invariant inputs and last outputs"
                )
        return body, inputs, outputs  # type: ignore[return-value]

    def regions_by_name(self) -> list[tuple[str, Region]]:
        return [("then_body", self.then_body), ("else_body", self.else_body)]

    @staticmethod
    def new(
        cond: SSAValue | Operation,
        inputs: Sequence[SSAValue | Operation],
        then_body: Region,
        then_map: tuple[Sequence[InvariantInput], Sequence[LastOutput]],
        else_body: Region,
        else_map: tuple[Sequence[InvariantInput], Sequence[LastOutput]],
        *,
        result_types: Sequence[Attribute] | None = None,
        name: str | None = None,
    ) -> IfOp:
        """An If; ``then_map``/``else_map`` are (input map, output map);
        result types inferred from the branches unless given."""
        props: dict[str, Attribute] = {
            "then_input_map": to_attr(then_map[0]),
            "then_output_map": to_attr(then_map[1]),
            "else_input_map": to_attr(else_map[0]),
            "else_output_map": to_attr(else_map[1]),
        }
        n_out = len(then_map[1])
        operands = [SSAValue.get(v) for v in (cond, *inputs)]
        return _create(IfOp, operands, [then_body, else_body], props, n_out, result_types, name)

    def verify_(self) -> None:
        cond = self.operands[0].type if self.operands else None
        if cond is not None and (_etype(cond) != "boolean" or not _is_scalar_like(cond)):
            raise VerifyException(f"{label(self)}: cond must be a boolean scalar, got {cond}")
        used: set[int] = set()
        for which, body_name in ((True, "then_body"), (False, "else_body")):
            body, inputs, outputs = self.branch(which)
            used |= verify_body(self, body, inputs, outputs, 1, body_name)
        _check_inputs_used(self, used, 1)
        super().verify_()


def _create(
    cls: type[_IteratingOp] | type[IfOp],
    operands: list[SSAValue],
    regions: list[Region],
    props: dict[str, Attribute],
    num_outputs: int,
    result_types: Sequence[Attribute] | None,
    name: str | None,
) -> OVOp:
    if name is not None:
        props["friendly_name"] = StringAttr(name)
    if result_types is None:
        from xmo.dialects.ov.shape_inference.control import infer_control_types

        result_types = infer_control_types(
            cls, [v.type for v in operands], regions, props, num_outputs,
            lambda i: constant_value_of(operands[i]),
        )
    return cls.create(
        operands=operands, result_types=list(result_types), properties=props, regions=regions
    )


CONTROL_OPS: tuple[type[OVOp], ...] = (IfOp, LoopOp, TensorIteratorOp)

__all__ = [
    "CONTROL_OPS",
    "IfOp",
    "LoopOp",
    "TensorIteratorOp",
    "body_parameters",
    "body_results",
    "graph_blocks",
    "label",
    "make_body",
    "verify_body",
]
