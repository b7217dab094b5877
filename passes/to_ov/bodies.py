"""Bodies of the ov ops with regions (``ov.Loop``, ``ov.TensorIterator``,
``ov.If``) made from a framework's sub-graph, for every frontend.

A body is IsolatedFromAbove: what the framework's sub-graph (an ONNX
sub-graph, a TensorFlow function) takes from outside enters through the op.

* :class:`BodyCapture` turns each outer ov value a body uses into a body
  value: a clone of its ``ov.Constant`` (constants stay constants inside the
  body, where they fold), or a new body ``ov.Parameter`` (one per outer
  value) that the op feeds as an invariant input (:attr:`BodyCapture.captured`).
* :func:`assemble_body` puts the body's ops in order into a region:
  the caller's input Parameters, the captured Parameters, extra ops the
  caller made, the cloned constants, the converted ops, one ``ov.Result``
  per output (the Parameters are numbered in that order: the caller's
  inputs first, then the captured values).
* :func:`settled_body` converts a loop body again while its loop-carried
  values' types widen to what the body gives back; :func:`check_carried`
  refuses a body that gives back another element type (an invalid model:
  one line naming the node).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from xdsl.ir import Attribute, Block, Operation, Region, SSAValue

from xmo.dialects.ov import ConstantOp, ParameterOp, ResultOp
from xmo.dialects.ov import element_types as et
from xmo.dialects.ov.base import dims_of
from xmo.dialects.ov.control_ops import body_results
from xmo.dialects.ov.shape_inference.control import merge_types
from xmo.errors import InvalidNodeError
from xmo.passes.to_ov.builder import ConverterNode, value_etype
from xmo.passes.to_ov.driver import Legalizer, OVValue


class BodyCapture:
    """The outer ov values a body uses (see the module docstring); Parameters
    are named ``<prefix>/in<k>``, cloned constants ``<prefix>/<name>``."""

    def __init__(self, prefix: str) -> None:
        self.prefix = prefix
        self.made: dict[SSAValue, SSAValue] = {}
        #: the outer ov values the body's captured Parameters stand for, in order
        self.captured: list[SSAValue] = []
        self.parameters: list[ParameterOp] = []
        self.constants: list[ConstantOp] = []

    def value(self, outer: SSAValue) -> SSAValue:
        """The body value standing for the outer ov value ``outer``."""
        got = self.made.get(outer)
        if got is not None:
            return got
        owner = outer.owner
        if isinstance(owner, ConstantOp):
            name = f"{self.prefix}/{owner.get_friendly_name() or 'Constant'}"
            c = Legalizer.dense_constant(owner.value, name)
            self.constants.append(c)
            got = c.results[0]
        else:
            t = outer.type
            p = ParameterOp.new(
                et.from_xdsl(t.get_element_type()),  # type: ignore[union-attr]
                dims_of(t),
                name=f"{self.prefix}/in{len(self.parameters)}",
            )
            self.parameters.append(p)
            self.captured.append(outer)
            got = p.results[0]
        self.made[outer] = got
        return got


@dataclass
class Body:
    """A sub-graph legalized into an ov body."""

    region: Region
    #: the outer ov values fed to the body's Parameters after its own inputs
    captured: list[SSAValue]
    #: the number of the body's own inputs (the first Parameters)
    num_inputs: int


def assemble_body(
    input_params: Sequence[ParameterOp],
    capture: BodyCapture,
    ops: Sequence[Operation],
    outputs: Sequence[SSAValue],
    extra_ops: Sequence[Operation] = (),
) -> Body:
    """The body region: ``input_params``, the captured Parameters,
    ``extra_ops``, the cloned constants, ``ops``, one Result per output."""
    results = [ResultOp.new(v) for v in outputs]
    block = Block(
        [*input_params, *capture.parameters, *extra_ops, *capture.constants, *ops, *results]
    )
    return Body(Region(block), list(capture.captured), len(input_params))


def etype_or_none(v: object) -> str | None:
    """The element type of a tensor value; None for anything else (a
    sequence, an absent value)."""
    return value_etype(v) if isinstance(v, SSAValue) else None


def check_carried(
    entering: Sequence[str | None],
    yielded: Sequence[OVValue],
    names: Sequence[str] | None = None,
) -> None:
    """Each loop-carried value keeps its element type through the body
    (``entering``: the element types the values enter with, None where not a
    tensor), else the model is invalid (``names[j]``: how value ``j`` is
    called, by default ``loop-carried value <j>``)."""
    for j, (want, v) in enumerate(zip(entering, yielded)):
        have = etype_or_none(v)
        if want is not None and have is not None and have != want:
            what = names[j] if names is not None else f"loop-carried value {j}"
            raise InvalidNodeError(
                f"{what}: the body yields {have} for a value that enters the loop as {want}"
            )


#: times a body is converted again with wider loop-carried types
MAX_RETYPES = 4


def settled_body(
    node: ConverterNode,
    types: list[Attribute],
    build: Callable[[list[Attribute]], Body],
    first_result: int,
    names: Sequence[str] | None = None,
) -> Body:
    """The body ``build(types)`` makes once the loop-carried values' types
    settle: they start as the initial values' types (``types``); a back edge
    (body results ``first_result``...) of another shape widens them
    (``merge_types``) and the body is converted again; one of another
    element type is an invalid model (:func:`check_carried`; ``names`` as
    there)."""
    labels = list(names) if names is not None else [f"loop-carried value {j}" for j in range(len(types))]
    for _ in range(MAX_RETYPES):
        body = build(types)
        results = body_results(body.region)[first_result : first_result + len(types)]
        check_carried(
            [et.from_xdsl(t.get_element_type()) for t in types],  # type: ignore[attr-defined]
            [r.operands[0] for r in results],
            labels,
        )
        wider = [
            merge_types(t, r.operands[0].type, labels[j])
            for j, (t, r) in enumerate(zip(types, results))
        ]
        if wider == types:
            return body
        types = wider
    raise node.unsupported("the loop-carried values' types do not settle")


__all__ = [
    "MAX_RETYPES",
    "Body",
    "BodyCapture",
    "assemble_body",
    "check_carried",
    "etype_or_none",
    "settled_body",
]
