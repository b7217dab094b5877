"""What an ``ov`` op is: xmo's op traits and the predicates passes ask.

Every ``ov`` op declares its traits (``tools/gen_ov_opset.py`` emits them for
the generated ops; ``core_ops.py`` and extension ops declare their own):

* effects -- xDSL's ``Pure`` for ops without side effects; the ops with
  effects say which, on which resource (below), so that
  ``xdsl.traits.is_side_effect_free`` and xDSL's ``would_be_trivially_dead``
  (dead-code elimination, CSE) are right for every op. An ``@ov_op`` class
  that declares no memory effect is made ``Pure`` (OpenVINO's rule: a node
  that no Result and no sink reaches is not part of the model).
* xDSL's ``ConstantLike`` and :class:`ConstantFolder` -- ``ov.Constant``
  (``ConstantLike.get_constant_value`` gives its ``value`` attribute).
* xDSL's ``Commutative`` -- binary ops whose two inputs may be swapped
  (under numpy broadcasting; ``pdpd`` broadcasting broadcasts the second
  input into the first, so a rewrite swapping inputs keeps such ops as they are).
* :class:`Elementwise` and its two kinds :class:`ElementwiseUnary` /
  :class:`ElementwiseBroadcast`.
* :class:`Reduction` -- ReduceSum, ReduceMean, ...
* :class:`HasShapeInference` -- the op's result types are inferred by a
  function registered with ``@shape_infer`` in
  ``xmo.dialects.ov.shape_inference.<OV_FAMILY>``.

``OV_FAMILY`` (a class variable of every op) names the family modules:
``xmo/dialects/ov/shape_inference/<family>.py`` (result type inference) and
``xmo/backends/cpu/kernels/<family>.py`` (the CPU kernel).

Passes ask these, not op type names: :func:`is_pure` (xDSL's
``is_side_effect_free``, memoized per op class: may the op be evaluated ahead
of time, merged, moved?), :func:`removable_if_unused` (xDSL's
``would_be_trivially_dead``, memoized likewise: may it go when its results
are unused?), ``op.has_trait(ElementwiseUnary)`` and so on.

This module imports no shape inference and no kernel.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from dataclasses import dataclass

from xdsl.ir import Attribute, Operation, SSAValue
from xdsl.traits import (
    EffectInstance,
    HasFolder,
    MemoryEffect,
    MemoryEffectKind,
    NoMemoryEffect,
    OpTrait,
    Resource,
    get_effects,
    is_side_effect_free,
)

# ---------------------------------------------------------------------------
# Resources and memory effects
# ---------------------------------------------------------------------------


@dataclass(frozen=True)
class StateVariable(Resource):
    """OpenVINO variables: the state ReadValue reads and Assign writes,
    kept from one inference to the next."""

    def name(self) -> str:
        return "ov.variable"


@dataclass(frozen=True)
class RandomGenerator(Resource):
    """The state of the random number generator random ops draw from."""

    def name(self) -> str:
        return "ov.random_generator"


@dataclass(frozen=True)
class ModelInterface(Resource):
    """The model's inputs and outputs (its signature)."""

    def name(self) -> str:
        return "ov.model_interface"


_READ_INIT_VARIABLE = frozenset(
    {
        EffectInstance(MemoryEffectKind.READ, resource=StateVariable()),
        EffectInstance(MemoryEffectKind.WRITE, resource=StateVariable()),
    }
)
_WRITE_VARIABLE = frozenset(
    {EffectInstance(MemoryEffectKind.WRITE, resource=StateVariable())}
)
_DRAW_RANDOM = frozenset(
    {
        EffectInstance(MemoryEffectKind.READ, resource=RandomGenerator()),
        EffectInstance(MemoryEffectKind.WRITE, resource=RandomGenerator()),
    }
)
_MODEL_INPUT = frozenset(
    {EffectInstance(MemoryEffectKind.ALLOC, resource=ModelInterface())}
)
_MODEL_OUTPUT = frozenset(
    {EffectInstance(MemoryEffectKind.WRITE, resource=ModelInterface())}
)


class ReadsVariable(MemoryEffect):
    """ReadValue: reads its variable and, while the variable holds no value
    (first inference, or after a reset), stores its initial value in it."""

    @classmethod
    def get_effects(cls, op: Operation) -> frozenset[EffectInstance]:
        return _READ_INIT_VARIABLE


class WritesVariable(MemoryEffect):
    """Assign: writes its variable (OpenVINO's sink: kept though unused)."""

    @classmethod
    def get_effects(cls, op: Operation) -> frozenset[EffectInstance]:
        return _WRITE_VARIABLE


class DrawsRandom(MemoryEffect):
    """A random op: reads and advances the random generator, so two equal
    random ops give different values and an op is not evaluated ahead of time."""

    @classmethod
    def get_effects(cls, op: Operation) -> frozenset[EffectInstance]:
        return _DRAW_RANDOM


class ModelInput(MemoryEffect):
    """Parameter: declares an input of the model. It stays in the model
    when nothing reads it (its signature does not change)."""

    @classmethod
    def get_effects(cls, op: Operation) -> frozenset[EffectInstance]:
        return _MODEL_INPUT


class ModelOutput(MemoryEffect):
    """Result: writes an output of the model."""

    @classmethod
    def get_effects(cls, op: Operation) -> frozenset[EffectInstance]:
        return _MODEL_OUTPUT


class BodyEffects(MemoryEffect):
    """An op with bodies (Loop, TensorIterator, If) has the effects of the ops
    in its bodies, except those of the bodies' Parameters and Results: they
    are the body's interface, not the model's. With only pure ops inside it
    is pure (evaluated ahead of time, merged, removed when unused)."""

    @classmethod
    def get_effects(cls, op: Operation) -> frozenset[EffectInstance] | None:
        effects: set[EffectInstance] = set()
        for region in op.regions:
            for block in region.blocks:
                for inner in block.ops:
                    if inner.has_trait(ModelInput) or inner.has_trait(ModelOutput):
                        continue
                    found = get_effects(inner)
                    if found is None:
                        return None
                    effects.update(found)
        return frozenset(effects)


# ---------------------------------------------------------------------------
# Constants
# ---------------------------------------------------------------------------


class ConstantFolder(HasFolder):
    """``ov.Constant`` folds to its ``value`` attribute (what xDSL's
    ``ConstantLike.get_constant_value`` returns)."""

    @classmethod
    def fold(cls, op: Operation) -> Sequence[SSAValue | Attribute] | None:
        value = op.properties.get("value")
        return None if value is None else (value,)


# ---------------------------------------------------------------------------
# Op kinds
# ---------------------------------------------------------------------------


@dataclass(frozen=True)
class Elementwise(OpTrait):
    """Each output element depends only on the input elements at the same
    position (after broadcasting); a transposition or a reshape of the data
    commutes with the op. PRelu has only this trait: its slope broadcasts
    numpy-style except that a 1-D slope of C elements is per channel (axis 1)."""


@dataclass(frozen=True)
class ElementwiseUnary(Elementwise):
    """One data input (0) whose shape the result has; any further inputs are
    scalar parameters (HardSigmoid's alpha, Swish's beta, ...) or, for
    ConvertLike, the tensor whose element type the result takes."""


@dataclass(frozen=True)
class ElementwiseBroadcast(Elementwise):
    """Every input broadcasts to the result as the ``auto_broadcast``
    attribute says (numpy by default): binary arithmetic, comparisons,
    logical and bitwise ops, Select, FakeQuantize."""


@dataclass(frozen=True)
class Reduction(OpTrait):
    """Reduces input 0 over the axes given by input 1 (``ReduceSum`` ...);
    ``keep_dims`` keeps the reduced axes as 1s."""


@dataclass(frozen=True)
class HasShapeInference(OpTrait):
    """The op's result types follow from its inputs and attributes, by a
    function registered with ``@shape_infer`` in
    ``xmo.dialects.ov.shape_inference.<OV_FAMILY>``."""

    @staticmethod
    def module_of(op: type[Operation] | Operation) -> str:
        """The module holding the op's inference function."""
        return f"xmo.dialects.ov.shape_inference.{op.OV_FAMILY}"  # type: ignore[union-attr]


# ---------------------------------------------------------------------------
# Predicates
# ---------------------------------------------------------------------------

#: effect traits whose effects are the op class's (they ignore the instance)
_CLASS_LEVEL_EFFECTS = (
    NoMemoryEffect, ReadsVariable, WritesVariable, DrawsRandom, ModelInput, ModelOutput,
)


@functools.cache
def _class_is_pure(cls: type[Operation]) -> bool | None:
    """The answer for every op of ``cls``, or None when it depends on the op."""
    effects = cls.get_traits_of_type(MemoryEffect)
    if not all(isinstance(t, _CLASS_LEVEL_EFFECTS) for t in effects):
        return None
    return is_side_effect_free(cls)  # type: ignore[arg-type]  # class-level traits


def is_pure(op: Operation) -> bool:
    """xDSL's ``is_side_effect_free(op)``, answered once per op class when
    the op's effect traits are its class's (every ov op): passes ask it for
    every op, and xDSL's walk over the traits costs 20 times a set lookup.

    False for state (ReadValue, Assign), random ops, Parameters and Results,
    and ops that declare nothing about their effects: such an op is not
    evaluated ahead of time, merged with an equal one or moved."""
    answer = _class_is_pure(type(op))
    return is_side_effect_free(op) if answer is None else answer


@functools.cache
def _class_removable(cls: type[Operation]) -> bool | None:
    # imported here: xDSL's pass machinery is not needed to define ops (start-up)
    from xdsl.transforms.dead_code_elimination import would_be_trivially_dead

    effects = cls.get_traits_of_type(MemoryEffect)
    if not all(isinstance(t, _CLASS_LEVEL_EFFECTS) for t in effects):
        return None
    return would_be_trivially_dead(cls)  # type: ignore[arg-type]  # class-level traits


def removable_if_unused(op: Operation) -> bool:
    """xDSL's ``would_be_trivially_dead(op)`` (the op may go once nothing
    uses its results), answered once per op class like :func:`is_pure`.
    False for Parameters, Results, state and random ops."""
    answer = _class_removable(type(op))
    if answer is None:
        from xdsl.transforms.dead_code_elimination import would_be_trivially_dead

        return would_be_trivially_dead(op)
    return answer


__all__ = [
    "BodyEffects",
    "ConstantFolder",
    "DrawsRandom",
    "Elementwise",
    "ElementwiseBroadcast",
    "ElementwiseUnary",
    "HasShapeInference",
    "ModelInput",
    "ModelInterface",
    "ModelOutput",
    "RandomGenerator",
    "ReadsVariable",
    "Reduction",
    "StateVariable",
    "WritesVariable",
    "is_pure",
    "removable_if_unused",
]
