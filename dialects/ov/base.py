"""The base class of every ``ov`` operation and the machinery shared by all ops.

An ``ov`` op mirrors one OpenVINO op version:

* ``OV_TYPE`` / ``OV_VERSION``: the IR ``type`` and ``version`` strings
  (``MaxPool`` / ``opset14``).
* ``OV_INPUTS``: input port names in order; ``"name?"`` marks an optional
  (trailing) input, ``"name*"`` a variadic tail. Inputs are one variadic
  operand list, exactly as OpenVINO numbers its input ports.
* ``OV_OUTPUTS``: output port names; ``"name*"`` marks a variadic tail.
* ``OV_ATTRS``: :class:`~xmo.dialects.attr_spec.AttrSpec` per attribute, stored as properties under
  the same name; an absent attribute means its default.
* ``friendly_name`` and ``tensor_names`` (one list per output) are properties
  of every op, so they reach the IR.
* ``OV_FAMILY``: the op family, the module name of its shape inference
  (``xmo.dialects.ov.shape_inference.<family>``) and CPU kernel
  (``xmo.backends.cpu.kernels.<family>``).
* ``traits``: what the op is (pure or its effects, commutative, elementwise,
  has shape inference; see :mod:`xmo.dialects.ov.traits`). :func:`ov_op` makes
  an op that declares no memory effect ``Pure``.

Result types are checked by shape inference functions registered with
:func:`shape_infer` (see ``xmo.dialects.ov.shape_inference``); ops without one
only check arity and attributes and keep their explicit result types.
"""

from __future__ import annotations

import functools
import keyword
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar, TypeVar

import numpy as np
from xdsl.dialects.builtin import (
    DYNAMIC_INDEX,
    ArrayAttr,
    DictionaryAttr,
    StringAttr,
    TensorType,
    UnrankedTensorType,
)
from xdsl.ir import Attribute, Operation, SSAValue
from xdsl.irdl import (
    IRDLOperation,
    OpDef,
    OptPropertyDef,
    RangeOf,
    VarOperandDef,
    VarResultDef,
    VerificationContext,
    base,
    opt_prop_def,
    var_operand_def,
    var_result_def,
)
from xdsl.traits import MemoryEffect, OpTrait, Pure
from xdsl.utils.exceptions import VerifyException

from xmo.budget import check_dims
from xmo.dialects.attr_spec import AttrSpec, AttributeValueError
from xmo.dialects.deferred import DeferredOperation, defer
from xmo.dialects.ov import attributes as ov_attrs
from xmo.dialects.ov import element_types as et
from xmo.dialects.ov import rt_info as rt
from xmo.xdsl_speedups import xdsl_is_verified
from xmo.errors import XmoError

TensorLike = TensorType | UnrankedTensorType

#: Dimension value meaning "dynamic" in shape inference and ``dims_of``.
#: (xDSL itself stores dynamic dims as ``DYNAMIC_INDEX``; :func:`tensor` and
#: :func:`dims_of` translate.)
DYN = -1


class ShapeInferenceError(VerifyException, XmoError):
    """Inputs or attributes an op cannot accept."""


# ---------------------------------------------------------------------------
# Shape inference registry
# ---------------------------------------------------------------------------


@dataclass
class InferContext:
    """What a shape inference function sees: input types, attributes, constants."""

    op_name: str
    input_types: Sequence[Attribute]
    attrs: Mapping[str, Any]
    const_getter: Callable[[int], np.ndarray | None] = lambda i: None
    num_outputs: int | None = None
    #: the op itself when there is one (ops with bodies infer from them)
    op: Operation | None = None
    _const_cache: dict[int, np.ndarray | None] = field(default_factory=dict)

    @property
    def num_inputs(self) -> int:
        return len(self.input_types)

    def attr(self, name: str) -> Any:
        return self.attrs[name]

    def etype(self, i: int) -> str:
        """OpenVINO element type name of input ``i``."""
        t = self.input_types[i]
        assert isinstance(t, TensorType | UnrankedTensorType)
        return et.from_xdsl(t.get_element_type())

    def shape(self, i: int) -> list[int] | None:
        """Dims of input ``i`` (``DYN`` for dynamic) or None for dynamic rank."""
        return dims_of(self.input_types[i])

    def rank(self, i: int) -> int | None:
        s = self.shape(i)
        return None if s is None else len(s)

    def const(self, i: int) -> np.ndarray | None:
        """Value of input ``i`` when it is produced by a constant, else None."""
        if i >= self.num_inputs:
            return None
        if i not in self._const_cache:
            self._const_cache[i] = self.const_getter(i)
        return self._const_cache[i]

    def error(self, message: str) -> ShapeInferenceError:
        return ShapeInferenceError(f"{self.op_name}: {message}")


#: An inference function returns one type per output.
InferFn = Callable[[InferContext], Sequence[Attribute]]

_INFER_FNS: dict[str, InferFn] = {}


def shape_infer(*op_names: str) -> Callable[[InferFn], InferFn]:
    """Register a result type inference function for ops named ``op_names``.

    Names are xDSL op names (``"ov.Add"``); an inference function may serve
    several ops.
    """

    def register(fn: InferFn) -> InferFn:
        for n in op_names:
            if n in _INFER_FNS:
                raise ValueError(f"shape inference for {n} registered twice")
            _INFER_FNS[n] = fn
        return fn

    return register


def inference_for(op_name: str) -> InferFn | None:
    _load_shape_inference()
    return _INFER_FNS.get(op_name)


_loaded = False


def _load_shape_inference() -> None:
    global _loaded
    if not _loaded:
        _loaded = True
        import xmo.dialects.ov.shape_inference  # noqa: F401  (registers functions)


def tensor(etype: str | Attribute, shape: Sequence[int | None] | None) -> Attribute:
    """Build ``tensor<...>`` (``shape=None`` gives ``tensor<*x...>``).

    Negative dims and None are dynamic (``?``). A dimension or element count
    beyond what OpenVINO holds raises :class:`~xmo.budget.DimensionLimitError`.
    """
    el = et.to_xdsl(etype) if isinstance(etype, str) else etype
    if shape is None:
        return UnrankedTensorType(el)
    return _tensor_type(
        el, tuple(int(d) if d is not None and d >= 0 else DYNAMIC_INDEX for d in shape)
    )


@functools.lru_cache(maxsize=4096)
def _tensor_type(el: Attribute, dims: tuple[int, ...]) -> TensorType:
    # Types are immutable and building one verifies its parameters: reuse them.
    check_dims(dims)
    return TensorType(el, dims)


def dims_of(t: Attribute) -> list[int] | None:
    """Dims of a tensor type with ``DYN`` (-1) for dynamic ones; None if unranked."""
    if isinstance(t, TensorType):
        return [d if d >= 0 else DYN for d in t.get_shape()]
    return None


def types_compatible(declared: Attribute, inferred: Attribute) -> bool:
    """True when ``declared`` may stand for a value of type ``inferred``."""
    if not isinstance(declared, TensorLike) or not isinstance(inferred, TensorLike):
        return declared == inferred
    if declared.get_element_type() != inferred.get_element_type():
        return False
    if isinstance(declared, UnrankedTensorType) or isinstance(
        inferred, UnrankedTensorType
    ):
        return True
    ds, ins = declared.get_shape(), inferred.get_shape()
    if len(ds) != len(ins):
        return False
    return all(d == i or d < 0 or i < 0 for d, i in zip(ds, ins))


# ---------------------------------------------------------------------------
# The op base class
# ---------------------------------------------------------------------------


def port_counts(names: Sequence[str]) -> tuple[int, int | None]:
    """(minimum, maximum or None) number of ports for a port-name list."""
    lo = sum(1 for n in names if not n.endswith(("?", "*")))
    hi = None if any(n.endswith("*") for n in names) else len(names)
    return lo, hi


class OVOp(DeferredOperation):
    """Base class of every ``ov`` operation (one OpenVINO op version);
    :func:`ov_op` defers its IRDL definition to first use."""

    OV_TYPE: ClassVar[str] = ""
    OV_VERSION: ClassVar[str] = ""
    OV_INPUTS: ClassVar[tuple[str, ...]] = ()
    OV_OUTPUTS: ClassVar[tuple[str, ...]] = ("output",)
    OV_ATTRS: ClassVar[tuple[AttrSpec, ...]] = ()
    OV_FAMILY: ClassVar[str] = ""

    inputs = var_operand_def(TensorLike)
    outputs = var_result_def(TensorLike)

    friendly_name = opt_prop_def(StringAttr)
    """The OpenVINO friendly name (``name`` of the IR layer)."""
    tensor_names = opt_prop_def(ArrayAttr)
    """Per output, an ``ArrayAttr`` of tensor names (``names`` of the IR port)."""
    rt_info = opt_prop_def(DictionaryAttr)
    """Runtime info: string keys to typed values (str, bool, int, float or
    lists of them; see :mod:`xmo.dialects.ov.rt_info`), written to the layer's
    ``<rt_info>`` (e.g. ``decompression`` on an fp16 weight's Convert,
    ``fused_names`` after a fusion)."""

    # -- attributes ----------------------------------------------------------
    @classmethod
    def attr_spec(cls, name: str) -> AttrSpec:
        for spec in cls.OV_ATTRS:
            if spec.name == name:
                return spec
        raise KeyError(f"{cls.name} has no attribute '{name}'")

    def attr(self, name: str) -> Any:
        """Python value of an OpenVINO attribute (its default when absent)."""
        spec = self.attr_spec(name)
        a = self.properties.get(name)
        if a is None:
            return spec.default
        return ov_attrs.from_attr(spec.kind, a)

    def set_attr(self, name: str, value: Any) -> None:
        spec = self.attr_spec(name)
        self.properties[name] = ov_attrs.to_attr(spec.kind, value)

    def attr_values(self) -> dict[str, Any]:
        """Every OpenVINO attribute's value, defaults filled in, in spec order."""
        return {s.name: self.attr(s.name) for s in self.OV_ATTRS}

    # -- names ---------------------------------------------------------------
    def get_friendly_name(self) -> str | None:
        return self.friendly_name.data if self.friendly_name is not None else None

    def set_friendly_name(self, name: str | None) -> None:
        if name is None:
            self.properties.pop("friendly_name", None)
        else:
            self.properties["friendly_name"] = StringAttr(name)

    def get_tensor_names(self, output: int = 0) -> list[str]:
        tn = self.tensor_names
        if tn is None or output >= len(tn.data):
            return []
        names = tn.data[output]
        assert isinstance(names, ArrayAttr)
        return [n.data for n in names.data]  # pyright: ignore

    def set_tensor_names(self, output: int, names: Iterable[str]) -> None:
        current = [self.get_tensor_names(i) for i in range(len(self.results))]
        current[output] = list(names)
        if not any(current):
            self.properties.pop("tensor_names", None)
            return
        self.properties["tensor_names"] = ArrayAttr(
            [ArrayAttr([StringAttr(n) for n in ns]) for ns in current]
        )

    # -- runtime info --------------------------------------------------------
    def get_rt_info(self) -> dict[str, Any]:
        """Runtime info as a dict of Python values (strings stay strings, a
        flag such as ``decompression`` is ``""``; lists come back as lists)."""
        if self.rt_info is None:
            return {}
        return {k: rt.from_attr(v) for k, v in self.rt_info.data.items()}

    def set_rt_info(self, key: str, value: Any = "") -> None:
        """Set one runtime info entry (``value``: str, bool, int, float or a
        list of them; ``""`` marks a flag)."""
        info = self.get_rt_info()
        info[rt.canonical_key(key)] = value
        self.replace_rt_info(info)

    def del_rt_info(self, key: str) -> None:
        """Remove a runtime info entry (no error when absent)."""
        info = self.get_rt_info()
        if info.pop(rt.canonical_key(key), None) is not None:
            self.replace_rt_info(info)

    def replace_rt_info(self, info: Mapping[str, Any]) -> None:
        """Replace the whole runtime info (an empty mapping removes it)."""
        if not info:
            self.properties.pop("rt_info", None)
            return
        self.properties["rt_info"] = rt.to_dict_attr(info)

    # -- inputs --------------------------------------------------------------
    @classmethod
    def input_index(cls, port_name: str) -> int:
        for i, n in enumerate(cls.OV_INPUTS):
            if n.rstrip("?*") == port_name:
                return i
        raise KeyError(f"{cls.name} has no input '{port_name}'")

    def input_value(self, port_name: str) -> SSAValue | None:
        i = self.input_index(port_name)
        return self.operands[i] if i < len(self.operands) else None

    # -- construction ----------------------------------------------------------
    @classmethod
    def make(
        cls: type[_OpT],
        inputs: Sequence[SSAValue | Operation],
        attrs: Mapping[str, Any] | None = None,
        *,
        result_types: Sequence[Attribute] | None = None,
        num_outputs: int | None = None,
        name: str | None = None,
        tensor_names: Sequence[Sequence[str]] | None = None,
    ) -> _OpT:
        """Create the op from Python attribute values, inferring result types.

        ``result_types`` is needed only for ops without shape inference.
        """
        values = [SSAValue.get(v) for v in inputs]
        props: dict[str, Attribute] = {}
        for k, v in (attrs or {}).items():
            props[k] = ov_attrs.to_attr(cls.attr_spec(k).kind, v)
        if name is not None:
            props["friendly_name"] = StringAttr(name)
        if result_types is None:
            result_types = cls.infer_types(
                [v.type for v in values],
                {s.name: (attrs or {}).get(s.name, s.default) for s in cls.OV_ATTRS},
                const_getter=lambda i: constant_value_of(values[i]),
                num_outputs=num_outputs,
            )
        if tensor_names is not None and any(tensor_names):
            props["tensor_names"] = ArrayAttr(
                [ArrayAttr([StringAttr(n) for n in ns]) for ns in tensor_names]
            )
        return cls.create(
            operands=values, result_types=list(result_types), properties=props
        )

    @classmethod
    def infer_types(
        cls,
        input_types: Sequence[Attribute],
        attrs: Mapping[str, Any],
        const_getter: Callable[[int], np.ndarray | None] = lambda i: None,
        num_outputs: int | None = None,
    ) -> list[Attribute]:
        fn = inference_for(cls.name)
        if fn is None:
            raise ShapeInferenceError(
                f"{cls.name} has no shape inference: give result_types explicitly"
            )
        ctx = InferContext(cls.name, input_types, attrs, const_getter, num_outputs)
        return list(fn(ctx))

    def inferred_result_types(
        self, input_types: Sequence[Attribute] | None = None
    ) -> list[Attribute] | None:
        """Result types shape inference gives for the current inputs, or for
        inputs of ``input_types`` (None when the op has no inference function)."""
        fn = inference_for(self.name)
        if fn is None:
            return None
        ctx = InferContext(
            self.name,
            [v.type for v in self.operands] if input_types is None else input_types,
            self.attr_values(),
            lambda i: constant_value_of(self.operands[i]),
            len(self.results),
            self,
        )
        return list(fn(ctx))

    # -- verification --------------------------------------------------------
    def verify_(self) -> None:
        self._verify_arity()
        self._verify_attrs()
        self._verify_names()
        for i, v in enumerate(self.operands):
            _check_element_type(self, f"input {i}", v.type)
        for i, r in enumerate(self.results):
            _check_element_type(self, f"output {i}", r.type)
        inferred = self.inferred_result_types()
        if inferred is None:
            return
        if len(inferred) != len(self.results):
            raise VerifyException(
                f"{self.name}: shape inference gives {len(inferred)} outputs, "
                f"op has {len(self.results)}"
            )
        for i, (r, t) in enumerate(zip(self.results, inferred)):
            if not types_compatible(r.type, t):
                raise VerifyException(
                    f"{self.name}: output {i} has type {r.type}, "
                    f"but inputs and attributes give {t}"
                )

    def _verify_arity(self) -> None:
        lo, hi = port_counts(self.OV_INPUTS)
        n = len(self.operands)
        if n < lo or (hi is not None and n > hi):
            want = f"{lo}" if lo == hi else f"{lo} to {hi if hi is not None else 'any'}"
            noun = "input" if want == "1" else "inputs"
            raise VerifyException(f"{self.name}: expected {want} {noun}, got {n}")
        lo, hi = port_counts(self.OV_OUTPUTS)
        n = len(self.results)
        if n < lo or (hi is not None and n > hi):
            want = f"{lo}" if lo == hi else f"{lo} to {hi if hi is not None else 'any'}"
            noun = "output" if want == "1" else "outputs"
            raise VerifyException(f"{self.name}: expected {want} {noun}, got {n}")

    def _verify_attrs(self) -> None:
        for spec in self.OV_ATTRS:
            a = self.properties.get(spec.name)
            if a is None:
                if spec.required:
                    raise VerifyException(
                        f"{self.name}: missing required attribute '{spec.name}'"
                    )
                continue
            try:
                value = ov_attrs.from_attr(spec.kind, a)
            except AttributeValueError as e:
                raise VerifyException(f"{self.name}: attribute '{spec.name}': {e}")
            if spec.kind == "etype" and value not in _ETYPE_ATTR_VALUES:
                raise VerifyException(
                    f"{self.name}: attribute '{spec.name}': unknown element type "
                    f"'{value}'"
                )

    def _verify_names(self) -> None:
        tn = self.tensor_names
        if tn is None:
            return
        if len(tn.data) != len(self.results):
            raise VerifyException(
                f"{self.name}: tensor_names has {len(tn.data)} entries for "
                f"{len(self.results)} outputs"
            )
        for entry in tn.data:
            if not isinstance(entry, ArrayAttr) or not all(
                isinstance(s, StringAttr) for s in entry.data
            ):
                raise VerifyException(
                    f"{self.name}: tensor_names must be a list of string lists"
                )


_OpT = TypeVar("_OpT", bound=OVOp)

#: Values an element-type *attribute* may name: tensor element types plus the
#: ones only conversions and placeholders use.
_ETYPE_ATTR_VALUES = frozenset(et.OV_ELEMENT_TYPES) | {
    "dynamic", "undefined", "f8e4m3", "f8e5m2", "f8e8m0", "f4e2m1", "nf4",
    "u2", "u3", "u6", "string",
}  # fmt: skip


def _check_element_type(op: Operation, what: str, t: Attribute) -> None:
    if isinstance(t, TensorLike) and not et.is_ov_element_type(t.get_element_type()):
        raise VerifyException(
            f"{op.name}: {what} has element type {t.get_element_type()}, "
            "which is not an OpenVINO element type"
        )


def constant_value_of(value: SSAValue, splat_view: bool = False) -> np.ndarray | None:
    """numpy value of ``value`` when an ``ov.Constant`` produces it, else None.

    ``splat_view``: a splat payload not made yet (``WeightStore.add_splat``)
    comes back as a read-only broadcast view of its element (strides 0)
    instead of being made."""
    owner = value.owner
    if isinstance(owner, Operation) and owner.name == "ov.Constant":
        payload = owner.properties.get("value")
        if payload is None:
            return None
        if splat_view and isinstance(value.type, TensorType):
            from xmo.dialects.ov.weights import splat_scalar

            item = splat_scalar(payload)
            if item is not None:
                return np.broadcast_to(item, tuple(value.type.get_shape()))
        # passes ask for the same constants many times: the view is kept on
        # the op while its payload attribute stays the same (both immutable)
        cached = owner.__dict__.get("_xmo_constant_view")
        if cached is not None and cached[0] is payload:
            arr = cached[1]
        else:
            from xmo.dialects.ov.weights import WeightStoreError, constant_array

            try:
                arr = constant_array(payload)
            except (WeightStoreError, ValueError, TypeError):
                return None
            owner.__dict__["_xmo_constant_view"] = (payload, arr)
        if arr.dtype == np.uint8 and isinstance(value.type, TensorType):
            # packed element types: no numeric view
            if et.from_xdsl(value.type.get_element_type()) in et.PACKED_BITS:
                return None
        return arr
    return None


# ---------------------------------------------------------------------------
# Defining ops
# ---------------------------------------------------------------------------

_RESERVED = {n for c in IRDLOperation.mro() for n in vars(c)} | {"name"}


def property_field_name(attr_name: str) -> str:
    """Python field name under which an OpenVINO attribute is declared.

    The property itself keeps the IR name (e.g. AvgPool's ``exclude-pad``).
    """
    attr_name = attr_name.replace("-", "_")
    if attr_name in _RESERVED or keyword.iskeyword(attr_name):
        return attr_name + "_"
    return attr_name


def ov_op(cls: type[_OpT]) -> type[_OpT]:
    """Class decorator: declare ``OV_ATTRS`` as properties; IRDL-defined on first use.

    Use it instead of ``irdl_op_definition`` on ``OVOp`` subclasses. An op
    that declares no memory effect trait gets xDSL's ``Pure``: like an
    OpenVINO node that is no sink, it is part of the model only while a
    Result or a sink uses it (declare an effect for a stateful extension op).
    """
    for spec in cls.OV_ATTRS:
        if spec.kind not in ov_attrs.ATTR_KINDS:
            raise TypeError(f"{cls.__name__}: unknown attribute kind {spec.kind}")
        setattr(
            cls,
            property_field_name(spec.name),
            opt_prop_def(ov_attrs.constraint_for(spec.kind), prop_name=spec.name),
        )
    # IRDL-defined on first use (see xmo.dialects.deferred): importing the
    # generated module builds none of its 241 definitions
    return defer(cls, _finish_definition)


def _finish_definition(cls: type[OVOp]) -> None:
    """What every ov op's definition gets once built: ``Pure`` unless it
    declares an effect, and the fast verifier."""
    op_def = cls.get_irdl_definition()
    if not any(isinstance(t, MemoryEffect) for t in op_def.traits):
        op_def.traits.add_trait(Pure())
    _install_fast_verify(op_def)


_TENSOR_TYPES = (TensorType, UnrankedTensorType)


_TENSOR_OPERANDS = [("inputs", VarOperandDef(RangeOf(base(TensorLike))))]
_TENSOR_RESULTS = [("outputs", VarResultDef(RangeOf(base(TensorLike))))]
_XDSL_VERIFIED = xdsl_is_verified()


def _fits_fast_verify(op_def: OpDef) -> bool:
    """Whether ``op_def`` has exactly the shape the fast verifier handles, on
    an xDSL whose ``OpDef.verify`` it was checked against: ``OVOp``'s operand
    and result lists unchanged, only optional properties, nothing else."""
    return (
        _XDSL_VERIFIED
        and type(op_def) is OpDef
        and "verify" not in getattr(op_def, "__dict__", {"verify": None})
        and not (op_def.regions or op_def.successors or op_def.attributes or op_def.options)
        and op_def.operands == _TENSOR_OPERANDS
        and op_def.results == _TENSOR_RESULTS
        and all(type(d) is OptPropertyDef for d in op_def.properties.values())
    )


def _install_fast_verify(op_def: OpDef) -> None:
    """Give ``op_def`` a verifier specialised to the shape every ov op has.

    xDSL's generic ``OpDef.verify`` walks variadic-size rules, constraint
    objects and a verification context for each op; an ov op is one variadic
    list of tensor operands, one of tensor results and optional properties, so
    the same checks take a few isinstance calls. Whatever the fast path does
    not recognise (regions, successors, discardable attributes, an unknown
    property, a non-tensor type) goes to the generic verifier, which raises
    its usual error. Installed only on definitions of exactly that shape (see
    :func:`_fits_fast_verify`; others, and every op on an xDSL release not in
    :data:`xmo.xdsl_speedups.VERIFIED_XDSL`, keep xDSL's verifier). It
    replaces the method of this one ``OpDef`` instance, never xDSL's class.
    """
    if not _fits_fast_verify(op_def):
        return
    generic = op_def.verify
    props = dict(op_def.properties)
    # only traits that check something (Pure, Commutative, ... do not)
    traits = tuple(t for t in op_def.traits if type(t).verify is not OpTrait.verify)

    def verify(op: Operation) -> None:
        if op.regions or op.successors or op.attributes:
            return generic(op)
        for v in op.operands:
            if not isinstance(v.type, _TENSOR_TYPES):
                return generic(op)
        for r in op.results:
            if not isinstance(r.type, _TENSOR_TYPES):
                return generic(op)
        ctx = None
        for name, a in op.properties.items():
            d = props.get(name)
            if d is None:
                return generic(op)
            if ctx is None:
                ctx = VerificationContext()
            d.constr.verify(a, ctx)
        for t in traits:
            t.verify(op)
        return None

    try:
        op_def.verify = verify  # type: ignore[method-assign]
    except AttributeError:  # an OpDef that takes no instance attributes: xDSL's verifier
        return
