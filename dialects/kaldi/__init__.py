"""The ``kaldi`` dialect: Kaldi nnet1 / nnet3 acoustic models as ops.

A model loads (:mod:`xmo.frontends.kaldi`) into one flat block:

* ``kaldi.Input`` -- a graph input (nnet3 ``input-node``; nnet1: ``input``):
  ``node_name``, result ``tensor<?xDxf32>`` (frames x features);
* ``kaldi.Component`` -- one component applied to the frames of its inputs
  (an nnet3 ``component-node``, an nnet1 layer): ``component_type`` (the
  Kaldi token without brackets: ``NaturalGradientAffineComponent``,
  ``AffineTransform``...), ``node_name``, ``component_name`` and ``fields``: every field
  the file gives, under its Kaldi token name without brackets
  (``LinearParams``, ``BiasParams``, ``Dim``...; nnet1's untagged values under
  the names :data:`COMPONENTS` declares). Matrices and vectors are tensor
  attributes (large ones in the weight store, views of the file), numbers
  ``f32``/``i64`` attributes, booleans ``i1``. A component type the table
  does not know loads too, without fields (the unsupported-ops report names it);
* ``kaldi.Descriptor`` -- one nnet3 descriptor term: ``kind`` (``Append``,
  ``Offset``, ``Sum``, ``Scale``, ``DimRange``, ``IfDefined``,
  ``ReplaceIndex``, ``Recurrent``...), ``node_name``, ``args`` (its numbers:
  the time offset of ``Offset``, the factor of ``Scale``, offset and dim of
  ``DimRange``); ``Recurrent`` stands for a recurrence,
  ``IfDefined(Offset(c, -k))`` of a node ``c`` of the same loop: ``target``
  names ``c``, ``args`` is ``[k]`` (no args: a recurrence of another form,
  which does not convert);
* ``kaldi.Output`` -- a graph output (``node_name``).

Results other than inputs are unranked ``f32`` tensors: the time extent of a
value depends on the context its descriptors consume (see
:mod:`xmo.passes.kaldi_to_ov`).

:data:`COMPONENTS` declares, once, the fields of each known component type
and their kinds (what the binary form needs to read them: ``int``,
``float``, ``bool``, ``ivec``, ``vector``, ``matrix``).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from xdsl.dialects.builtin import ArrayAttr, DictionaryAttr, StringAttr
from xdsl.ir import Dialect, Operation
from xdsl.irdl import (
    IRDLOperation,
    irdl_op_definition,
    opt_prop_def,
    prop_def,
    result_def,
    var_operand_def,
    var_result_def,
    operand_def,
)

#: the kinds of a field value
FIELD_KINDS = ("int", "float", "bool", "ivec", "vector", "matrix", "token")


@dataclass(frozen=True)
class ComponentSpec:
    """The fields of one component type.

    ``fields``: tagged fields (``<Tag> value``) whose kind is not what a
    generic reader would guess (the binary form writes ints and floats
    alike); ``positional``: names and kinds of nnet1's untagged values, in
    file order (after its output and input dims).
    """

    fields: dict[str, str] = field(default_factory=dict)
    positional: tuple[tuple[str, str], ...] = ()
    #: an nnet1 component (``<Type> out in ... <!EndOfComponent>``)
    nnet1: bool = False


_NL = ComponentSpec({"Dim": "int", "Count": "float", "ValueAvg": "vector", "DerivAvg": "vector",
                     "OderivRms": "vector", "OderivCount": "float", "NumDimsSelfRepaired": "float",
                     "NumDimsProcessed": "float", "SelfRepairScale": "float"})
_AFFINE = ComponentSpec({"LinearParams": "matrix", "BiasParams": "vector", "RankIn": "int", "RankOut": "int", "UpdatePeriod": "int",
                         "NumSamplesHistory": "float", "Alpha": "float", "MaxChange": "float",
                         "LearningRate": "float", "LearningRateFactor": "float",
                         "L2Regularize": "float", "OrthonormalConstraint": "float",
                         "RankInOut": "int", "AlphaInOut": "float", "AlphaIn": "float",
                         "AlphaOut": "float", "IsGradient": "bool"})
_NNET1_COEF = {"LearnRateCoef": "float", "BiasLearnRateCoef": "float", "MaxNorm": "float",
               "CellDim": "int", "CellClip": "float", "DiffClip": "float", "GradClip": "float",
               "DropoutRate": "float", "DropoutRetention": "float"}

#: component type -> its declared fields (types not listed load without fields)
COMPONENTS: dict[str, ComponentSpec] = {
    # nnet3
    "NaturalGradientAffineComponent": _AFFINE,
    "AffineComponent": _AFFINE,
    "FixedAffineComponent": _AFFINE,
    "LinearComponent": ComponentSpec({**_AFFINE.fields, "Params": "matrix",
                                      "UseNaturalGradient": "bool"}),
    "TdnnComponent": ComponentSpec({**_AFFINE.fields, "TimeOffsets": "ivec",
                                     "UseNaturalGradient": "bool"}),
    "RectifiedLinearComponent": _NL,
    "SigmoidComponent": _NL,
    "TanhComponent": _NL,
    "SoftmaxComponent": _NL,
    "LogSoftmaxComponent": _NL,
    "NormalizeComponent": ComponentSpec({"Dim": "int", "InputDim": "int", "TargetRms": "float",
                                         "AddLogStddev": "bool"}),
    "BatchNormComponent": ComponentSpec({"Dim": "int", "BlockDim": "int", "Epsilon": "float",
                                         "TargetRms": "float", "TestMode": "bool",
                                         "Count": "float", "StatsMean": "vector",
                                         "StatsVar": "vector"}),
    "ScaleAndOffsetComponent": ComponentSpec({"Dim": "int", "BlockDim": "int", "Rank": "int",
                                              "UseNaturalGradient": "bool", "Scales": "vector",
                                              "Offsets": "vector"}),
    "ElementwiseProductComponent": ComponentSpec({"InputDim": "int", "OutputDim": "int"}),
    "BackpropTruncationComponent": ComponentSpec({"Dim": "int", "Scale": "float",
                                                  "ClippingThreshold": "float",
                                                  "ZeroingThreshold": "float",
                                                  "ZeroingInterval": "int",
                                                  "RecurrenceInterval": "int",
                                                  "NumElementsClipped": "float",
                                                  "NumElementsZeroed": "float",
                                                  "NumElementsProcessed": "float",
                                                  "NumZeroingBoundaries": "float"}),
    "DropoutComponent": ComponentSpec({"Dim": "int", "DropoutProportion": "float",
                                       "DropoutPerFrame": "bool", "TestMode": "bool"}),
    "GeneralDropoutComponent": ComponentSpec({"Dim": "int", "BlockDim": "int",
                                              "TimePeriod": "int", "DropoutProportion": "float",
                                              "Continuous": "bool", "TestMode": "bool"}),
    "LstmNonlinearityComponent": ComponentSpec({
        "MaxChange": "float", "LearningRate": "float", "LearningRateFactor": "float",
        "L2Regularize": "float", "Params": "matrix", "ValueAvg": "matrix", "DerivAvg": "matrix",
        "SelfRepairConfig": "vector", "SelfRepairProb": "vector", "SelfRepairTotal": "vector",
        "Count": "float", "UseDropout": "bool", "IsGradient": "bool"}),
    "NoOpComponent": ComponentSpec({"Dim": "int", "BackpropScale": "float"}),
    # nnet1
    "AffineTransform": ComponentSpec(_NNET1_COEF, (("Linearity", "matrix"), ("Bias", "vector")), True),
    "LinearTransform": ComponentSpec(_NNET1_COEF, (("Linearity", "matrix"),), True),
    "Splice": ComponentSpec({}, (("FrameOffsets", "ivec"),), True),
    "AddShift": ComponentSpec(_NNET1_COEF, (("Shift", "vector"),), True),
    "Rescale": ComponentSpec(_NNET1_COEF, (("Scale", "vector"),), True),
    "Sigmoid": ComponentSpec({}, (), True),
    "Tanh": ComponentSpec({}, (), True),
    "Softmax": ComponentSpec({}, (), True),
    "Dropout": ComponentSpec(_NNET1_COEF, (), True),
    "LstmProjected": ComponentSpec(_NNET1_COEF, (
        ("WeightsGifoX", "matrix"), ("WeightsGifoR", "matrix"), ("Bias", "vector"),
        ("PeepholeIC", "vector"), ("PeepholeFC", "vector"), ("PeepholeOC", "vector"),
        ("WeightsRM", "matrix"),
    ), True),
}

#: nnet1 component tokens (their layers are ``<Type> out in``)
NNET1_COMPONENTS = frozenset(k for k, v in COMPONENTS.items() if v.nnet1)

#: fields the frontend adds (nnet1's dims; file field names must differ)
RESERVED_PROPERTIES = frozenset({"input_dim", "output_dim"})


@irdl_op_definition
class InputOp(IRDLOperation):
    """``kaldi.Input``: a graph input, ``tensor<?xDxf32>`` (frames x features)."""

    name = "kaldi.Input"
    node_name = prop_def(StringAttr)
    output = result_def()


@irdl_op_definition
class ComponentOp(IRDLOperation):
    """``kaldi.Component``: one component applied to its input (see the module docstring)."""

    name = "kaldi.Component"
    component_type = prop_def(StringAttr)
    node_name = prop_def(StringAttr)
    component_name = opt_prop_def(StringAttr)
    fields = prop_def(DictionaryAttr)
    inputs = var_operand_def()
    outputs = var_result_def()

    @property
    def spec(self) -> ComponentSpec | None:
        return COMPONENTS.get(self.component_type.data)


@irdl_op_definition
class DescriptorOp(IRDLOperation):
    """``kaldi.Descriptor``: one term of an nnet3 descriptor (see the module docstring)."""

    name = "kaldi.Descriptor"
    kind = prop_def(StringAttr)
    node_name = prop_def(StringAttr)
    args = opt_prop_def(ArrayAttr)
    target = opt_prop_def(StringAttr)
    inputs = var_operand_def()
    output = result_def()


@irdl_op_definition
class OutputOp(IRDLOperation):
    """``kaldi.Output``: a graph output named ``node_name``."""

    name = "kaldi.Output"
    node_name = prop_def(StringAttr)
    value = operand_def()


# ---------------------------------------------------------------------------
# Recurrent loops
# ---------------------------------------------------------------------------


def node_value_op(ops: Sequence[Operation], name: str) -> Operation | None:
    """The op giving node ``name``'s value (a component, or a dim-range node's
    ``DimRange``)."""
    for op in ops:
        if isinstance(op, ComponentOp) and op.node_name.data == name:
            return op
        if (isinstance(op, DescriptorOp) and op.kind.data == "DimRange"
                and op.node_name.data == name):
            return op
    return None


def recurrence_groups(ops: Sequence[Operation]) -> list[list[Operation]]:
    """The recurrent loops among ``ops`` (a module body): for each
    ``Recurrent`` op, the ops on a path from it to its target (the op giving
    the target node's value), both included; loops sharing ops are one group.
    Each group lists its ops in block order."""
    index = {op: i for i, op in enumerate(ops)}
    users: dict[Operation, list[Operation]] = {op: [] for op in ops}
    for op in ops:
        for v in op.operands:
            if v.owner in users:
                users[v.owner].append(op)  # type: ignore[index]
    groups: list[set[Operation]] = []
    for op in ops:
        if not (isinstance(op, DescriptorOp) and op.kind.data == "Recurrent" and op.target):
            continue
        target = node_value_op(ops, op.target.data)
        if target is None:
            continue
        down: set[Operation] = set()
        stack = [op]
        while stack:
            o = stack.pop()
            if o not in down:
                down.add(o)
                stack.extend(users[o])
        up: set[Operation] = set()
        stack = [target]
        while stack:
            o = stack.pop()
            if o not in up and o in down:
                up.add(o)
                stack.extend(v.owner for v in o.operands if v.owner in index)  # type: ignore[misc]
        loop = up | {op, target}
        for g in [g for g in groups if g & loop]:
            loop |= g
            groups.remove(g)
        groups.append(loop)
    return [sorted(g, key=index.__getitem__) for g in groups]


def order_groups(ops: Sequence[Operation]) -> list[Operation]:
    """``ops`` reordered so that each recurrent loop is contiguous, after
    every value it reads and before every op reading its values (a stable
    topological order of the loops and the other ops)."""
    groups = recurrence_groups(ops)
    if not groups:
        return list(ops)
    index = {op: i for i, op in enumerate(ops)}
    unit: dict[Operation, int] = {op: i for i, op in enumerate(ops)}
    members: dict[int, list[Operation]] = {i: [op] for i, op in enumerate(ops)}
    for g in groups:
        u = min(index[o] for o in g)
        for o in g:
            members.pop(unit[o], None)
            unit[o] = u
        members[u] = g
    deps: dict[int, set[int]] = {u: set() for u in members}
    for op in ops:
        for v in op.operands:
            if v.owner in unit and unit[v.owner] != unit[op]:  # type: ignore[index]
                deps[unit[op]].add(unit[v.owner])  # type: ignore[index]
    out: list[Operation] = []
    done: set[int] = set()
    pending = sorted(members)
    while pending:
        u = next((u for u in pending if deps[u] <= done), None)
        if u is None:
            raise ValueError("the recurrent loops of the network depend on each other in a cycle")
        pending.remove(u)
        done.add(u)
        out.extend(members[u])
    return out


KALDI = Dialect("kaldi", [InputOp, ComponentOp, DescriptorOp, OutputOp], [])

__all__ = [
    "COMPONENTS",
    "FIELD_KINDS",
    "KALDI",
    "NNET1_COMPONENTS",
    "RESERVED_PROPERTIES",
    "node_value_op",
    "order_groups",
    "recurrence_groups",
    "ComponentOp",
    "ComponentSpec",
    "DescriptorOp",
    "InputOp",
    "OutputOp",
]
