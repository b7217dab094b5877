"""The base class of every ``onnx`` op, and the hand-written ``onnx`` ops.

An ``onnx`` op mirrors one ONNX operator schema version (domain, op type,
since_version). Its ClassVars, generated from the schema
(``tools/gen_onnx_dialect.py``):

* ``ONNX_DOMAIN`` (``""`` or ``"ai.onnx.ml"``), ``ONNX_TYPE``, ``SINCE_VERSION``
* ``INPUTS`` / ``OUTPUTS``: one :class:`Port` per formal parameter:
  ``(name, option, type)`` with option ``single``/``optional``/``variadic`` and
  type the type-constraint name (``"T"``) or a literal type (``"tensor(int64)"``)
* ``MIN_INPUTS``/``MAX_INPUTS``/``MIN_OUTPUTS``/``MAX_OUTPUTS``: the schema's
  arity (``None`` = unbounded)
* ``ATTRS``: one :class:`~xmo.dialects.attr_spec.AttrSpec` per attribute
  (name, kind -- the ONNX attribute type, default as a Python value, required)
* ``TYPE_CONSTRAINTS``: constraint name (and every literal type used by a port)
  -> allowed type keys (see :mod:`.types`); a plain ``str`` entry names an ONNX
  type xDSL cannot represent
* ``DEPRECATED``: the schema marks the op removed from this version on

Conventions:

* **Operands** are one variadic list numbered like the ONNX node's inputs. An
  absent optional input in the middle is the ``none`` result of an
  ``onnx.NoValue`` op, so positions never shift; absent *trailing* optional
  inputs may simply be left out (as ONNX does).
* **Results** likewise: an absent optional output is a result of type ``none``
  when a later output is present; trailing absent outputs are left out.
* **Attributes** are properties named exactly like the ONNX attributes (the
  Python field is escaped with a trailing ``_`` when it clashes with a Python
  keyword or an ``Operation`` member). Kinds: INT ``i64`` IntegerAttr, FLOAT
  ``f32`` FloatAttr, STRING StringAttr, INTS/FLOATS ``array<i64/f32: ...>``,
  STRINGS ``["a", "b"]``, TENSOR ``dense<...>``/``dense_resource<...>`` (or
  ``#onnx.string_tensor``), anything else (TYPE_PROTO, SPARSE_TENSOR...) any
  attribute, kept as is.
* **GRAPH attributes** (If/Loop/Scan/SequenceMap bodies) are regions, one per
  graph attribute in ``REGIONS`` order; a region holds one block whose
  arguments are the subgraph inputs and which ends with ``onnx.Yield`` of the
  subgraph outputs.

``onnx.Custom`` carries any node no generated op describes (unknown domain,
op type or version).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, ClassVar, NamedTuple, TypeVar

import numpy as np
from xdsl.dialects.builtin import (
    ArrayAttr,
    DenseArrayBase,
    DenseIntOrFPElementsAttr,
    DenseResourceAttr,
    DictionaryAttr,
    Float32Type,
    FloatAttr,
    IntegerAttr,
    NoneType,
    StringAttr,
    TensorType,
    UnitAttr,
    UnrankedTensorType,
    i64,
)
from xdsl.ir import Attribute, Block, Operation, Region, SSAValue
from xdsl.irdl import (
    AnyAttr,
    IRDLOperation,
    irdl_op_definition,
    operand_def,
    opt_prop_def,
    prop_def,
    region_def,
    result_def,
    traits_def,
    var_operand_def,
    var_region_def,
    var_result_def,
)
from xdsl.traits import IsTerminator, Pure
from xdsl.utils.exceptions import VerifyException

from xmo.dialects.attr_spec import AttrSpec, AttributeValueError
from xmo.dialects.deferred import DeferredOperation, defer, python_field_name, reserved_field_names
from xmo.dialects.onnx.types import StringTensorAttr, describe, type_key
from xmo.dialects.ov.weights import make_constant_attr

f32 = Float32Type()

#: Option of a formal parameter
SINGLE, OPTIONAL, VARIADIC = "single", "optional", "variadic"

#: attribute kinds: the ONNX attribute types
ATTR_KINDS = (
    "INT", "FLOAT", "STRING", "INTS", "FLOATS", "STRINGS", "TENSOR", "GRAPH",
    "SPARSE_TENSOR", "TYPE_PROTO", "TENSORS", "GRAPHS", "SPARSE_TENSORS",
    "TYPE_PROTOS",
)  # fmt: skip


class Port(NamedTuple):
    """One formal input or output of an ONNX schema."""

    name: str
    option: str  # single / optional / variadic
    type: str  # type-constraint name or literal type string
    #: variadic only: all values share one type
    homogeneous: bool = True


# ---------------------------------------------------------------------------
# Attribute values
# ---------------------------------------------------------------------------


def check_attr(kind: str, a: Attribute) -> str | None:
    """None if ``a`` is a valid xDSL form of a ``kind`` value, else why not."""
    match kind:
        case "INT":
            if isinstance(a, IntegerAttr) and a.type == i64:
                return None
            return "expected an i64 integer (e.g. 1 : i64)"
        case "FLOAT":
            if isinstance(a, FloatAttr) and a.type == f32:
                return None
            return "expected an f32 float (e.g. 1.0 : f32)"
        case "STRING":
            return None if isinstance(a, StringAttr) else "expected a string"
        case "INTS":
            if isinstance(a, DenseArrayBase) and a.elt_type == i64:
                return None
            return "expected array<i64: ...>"
        case "FLOATS":
            if isinstance(a, DenseArrayBase) and a.elt_type == f32:
                return None
            return "expected array<f32: ...>"
        case "STRINGS":
            if isinstance(a, ArrayAttr) and all(isinstance(s, StringAttr) for s in a):
                return None
            return "expected an array of strings"
        case "TENSOR":
            if isinstance(
                a, DenseIntOrFPElementsAttr | DenseResourceAttr | StringTensorAttr
            ):
                return None
            return "expected dense<...>, dense_resource<...> or #onnx.string_tensor"
    return None  # other kinds: any attribute, kept as is


def to_attr(kind: str, value: Any) -> Attribute:
    """Python value -> xDSL attribute of an ONNX attribute type.

    TENSOR values must already be attributes (build large ones with
    ``xmo.dialects.ov.weights.make_constant_attr``) or small numpy arrays.
    """
    if isinstance(value, Attribute):
        why = check_attr(kind, value)
        if why:
            raise AttributeValueError(f"{value} is not a valid {kind}: {why}")
        return value
    try:
        match kind:
            case "INT":
                return IntegerAttr(int(value), i64)
            case "FLOAT":
                return FloatAttr(float(value), f32)
            case "STRING":
                if isinstance(value, bytes):
                    value = value.decode("utf-8")
                return StringAttr(str(value))
            case "INTS":
                return DenseArrayBase.from_list(i64, [int(v) for v in _seq(value)])
            case "FLOATS":
                return DenseArrayBase.from_list(f32, [float(v) for v in _seq(value)])
            case "STRINGS":
                return ArrayAttr(
                    [
                        StringAttr(v.decode("utf-8") if isinstance(v, bytes) else str(v))
                        for v in _seq(value)
                    ]
                )
            case "TENSOR" if isinstance(value, np.ndarray):
                return make_constant_attr(value)
    except (TypeError, ValueError) as e:
        raise AttributeValueError(f"{value!r} is not a valid {kind}: {e}") from None
    raise AttributeValueError(f"{value!r} cannot become a {kind} attribute")


def _seq(value: Any) -> Sequence[Any]:
    if isinstance(value, str | bytes):
        raise TypeError("a string is not a list")
    return list(value)


def from_attr(kind: str, a: Attribute) -> Any:
    """xDSL attribute -> Python value (TENSOR and other kinds: the attribute)."""
    why = check_attr(kind, a)
    if why:
        raise AttributeValueError(f"{a} is not a valid {kind}: {why}")
    match kind:
        case "INT":
            assert isinstance(a, IntegerAttr)
            return int(a.value.data)
        case "FLOAT":
            assert isinstance(a, FloatAttr)
            return float(a.value.data)
        case "STRING":
            assert isinstance(a, StringAttr)
            return a.data
        case "INTS":
            assert isinstance(a, DenseArrayBase)
            return tuple(int(v) for v in a.get_values())
        case "FLOATS":
            assert isinstance(a, DenseArrayBase)
            return tuple(float(v) for v in a.get_values())
        case "STRINGS":
            assert isinstance(a, ArrayAttr)
            return tuple(s.data for s in a.data)  # pyright: ignore
    return a


# ---------------------------------------------------------------------------
# Hand-written ops
# ---------------------------------------------------------------------------


@irdl_op_definition
class NoValueOp(IRDLOperation):
    """Placeholder for an absent optional input: ``%n = onnx.NoValue : none``."""

    name = "onnx.NoValue"
    result = result_def(NoneType)
    traits = traits_def(Pure())

    def __init__(self) -> None:
        super().__init__(result_types=[NoneType()])


@irdl_op_definition
class YieldOp(IRDLOperation):
    """Terminator of a subgraph region: its operands are the subgraph outputs."""

    name = "onnx.Yield"
    values = var_operand_def()
    traits = traits_def(IsTerminator())

    def __init__(self, values: Sequence[SSAValue | Operation] = ()) -> None:
        super().__init__(operands=[list(values)])


@irdl_op_definition
class CustomOp(IRDLOperation):
    """Any ONNX node no generated op describes (unknown domain/type/version).

    ``attrs`` holds the node's attributes (same xDSL forms as generated ops);
    graph attributes are regions, named in order by ``graph_attrs``.
    """

    name = "onnx.Custom"
    inputs = var_operand_def()
    outputs = var_result_def()
    graphs = var_region_def()

    domain = prop_def(StringAttr)
    op_type = prop_def(StringAttr)
    version = prop_def(IntegerAttr)
    attrs = opt_prop_def(DictionaryAttr)
    graph_attrs = opt_prop_def(ArrayAttr)
    #: ONNX node name and tensor names of the results (see ``ONNXOp``)
    node_name = opt_prop_def(StringAttr)
    output_names = opt_prop_def(ArrayAttr[StringAttr])

    @staticmethod
    def make(
        domain: str,
        op_type: str,
        version: int,
        inputs: Sequence[SSAValue | Operation],
        result_types: Sequence[Attribute],
        attrs: Mapping[str, Attribute] | None = None,
        graphs: Mapping[str, Region] | None = None,
    ) -> CustomOp:
        props: dict[str, Attribute] = {
            "domain": StringAttr(domain),
            "op_type": StringAttr(op_type),
            "version": IntegerAttr(version, i64),
        }
        if attrs:
            props["attrs"] = DictionaryAttr(dict(attrs))
        if graphs:
            props["graph_attrs"] = ArrayAttr([StringAttr(n) for n in graphs])
        return CustomOp.create(
            operands=[SSAValue.get(v) for v in inputs],
            result_types=list(result_types),
            properties=props,
            regions=list((graphs or {}).values()),
        )

    def verify_(self) -> None:
        _verify_output_names(self)
        n = len(self.graph_attrs.data) if self.graph_attrs is not None else 0
        if n != len(self.regions):
            raise VerifyException(
                f"onnx.Custom: {len(self.regions)} regions but graph_attrs names {n}"
            )
        for r in self.regions:
            _verify_graph_region(self, "graph", r)


def _verify_output_names(op: Operation) -> None:
    names = op.properties.get("output_names")
    if names is not None:
        assert isinstance(names, ArrayAttr)
        if len(names.data) != len(op.results):
            raise VerifyException(
                f"{op.name}: output_names has {len(names.data)} names for "
                f"{len(op.results)} results"
            )


@irdl_op_definition
class InputOp(IRDLOperation):
    """A graph input: ``%x = onnx.Input {name = "x"} : tensor<?x3xf32>``.

    The result type comes from the input's ValueInfo: element type and static
    dims, ``?`` for symbolic (``dim_param``) or unknown dims, unranked when the
    rank is unknown. ``dim_params`` (ranked inputs with symbolic dims only)
    holds one string per dim: the symbol, or ``""``.
    """

    name = "onnx.Input"
    result = result_def()
    tensor_name = prop_def(StringAttr, prop_name="name")
    dim_params = opt_prop_def(ArrayAttr[StringAttr])

    def verify_(self) -> None:
        if self.dim_params is None:
            return
        t = self.result.type
        rank = len(t.get_shape()) if isinstance(t, TensorType) else None
        if rank != len(self.dim_params.data):
            raise VerifyException(
                f"onnx.Input '{self.tensor_name.data}': dim_params has "
                f"{len(self.dim_params.data)} entries for type {t}"
            )


@irdl_op_definition
class OutputOp(IRDLOperation):
    """A graph output: ``onnx.Output %y {name = "y"}`` (in graph output order)."""

    name = "onnx.Output"
    value = operand_def()
    tensor_name = prop_def(StringAttr, prop_name="name")


@irdl_op_definition
class InitializerOp(IRDLOperation):
    """A graph initializer (named constant).

    ``value`` is ``dense<...>``/``dense_resource<...>`` (large payloads held by
    reference in the context's weight store), ``#onnx.string_tensor`` for
    strings, or a dictionary ``{values, indices, dims}`` for a sparse
    initializer. ``overridable`` marks an initializer that is also listed as a
    graph input (IR version >= 4: a default value the caller may override).
    """

    name = "onnx.Initializer"
    result = result_def()
    tensor_name = prop_def(StringAttr, prop_name="name")
    value = prop_def(AnyAttr())
    overridable = opt_prop_def(UnitAttr)
    traits = traits_def(Pure())


def _verify_graph_region(op: Operation, what: str, region: Region) -> None:
    if len(region.blocks) != 1:
        raise VerifyException(
            f"{op.name}: {what} region must hold exactly one block "
            f"(the subgraph), got {len(region.blocks)}"
        )
    last = region.block.last_op
    if not isinstance(last, YieldOp):
        raise VerifyException(f"{op.name}: {what} region must end with onnx.Yield")


# ---------------------------------------------------------------------------
# The op base class
# ---------------------------------------------------------------------------


class ONNXOp(DeferredOperation):
    """Base class of every generated ``onnx`` op (one ONNX schema version);
    :func:`onnx_op` defers its IRDL definition to first use."""

    ONNX_DOMAIN: ClassVar[str] = ""
    ONNX_TYPE: ClassVar[str] = ""
    SINCE_VERSION: ClassVar[int] = 1
    DEPRECATED: ClassVar[bool] = False
    INPUTS: ClassVar[tuple[Port, ...]] = ()
    OUTPUTS: ClassVar[tuple[Port, ...]] = ()
    MIN_INPUTS: ClassVar[int] = 0
    MAX_INPUTS: ClassVar[int | None] = 0
    MIN_OUTPUTS: ClassVar[int] = 0
    MAX_OUTPUTS: ClassVar[int | None] = 0
    ATTRS: ClassVar[tuple[AttrSpec, ...]] = ()
    TYPE_CONSTRAINTS: ClassVar[dict[str, tuple[Attribute | str, ...]]] = {}
    #: graph attribute names, one region each, in region order
    REGIONS: ClassVar[tuple[str, ...]] = ()

    inputs = var_operand_def()
    outputs = var_result_def()

    #: The ONNX node's name (absent when the node has none). Not an ONNX
    #: attribute: frontends keep it so later passes can report/copy it.
    node_name = opt_prop_def(StringAttr)
    #: The ONNX tensor name of each result, exactly as in the model (``""``
    #: for an absent optional output); later passes copy them to OpenVINO
    #: tensor names.
    output_names = opt_prop_def(ArrayAttr[StringAttr])

    # -- attributes ----------------------------------------------------------
    @classmethod
    def attr_spec(cls, name: str) -> AttrSpec:
        for spec in cls.ATTRS:
            if spec.name == name:
                return spec
        raise KeyError(f"{cls.name} has no attribute '{name}'")

    def attr(self, name: str) -> Any:
        """Python value of an ONNX attribute (its default when absent)."""
        spec = self.attr_spec(name)
        if spec.kind == "GRAPH":
            return self.regions[self.REGIONS.index(name)]
        a = self.properties.get(name)
        if a is None:
            return spec.default
        return from_attr(spec.kind, a)

    def set_attr(self, name: str, value: Any) -> None:
        spec = self.attr_spec(name)
        self.properties[name] = to_attr(spec.kind, value)

    def region_of(self, graph_attr: str) -> Region:
        """The region holding graph attribute ``graph_attr``."""
        return self.regions[self.REGIONS.index(graph_attr)]

    # -- ports ---------------------------------------------------------------
    @classmethod
    def input_index(cls, name: str) -> int:
        for i, p in enumerate(cls.INPUTS):
            if p.name == name:
                return i
        raise KeyError(f"{cls.name} has no input '{name}'")

    def input_value(self, name: str) -> SSAValue | None:
        """The value of input ``name`` (None when absent or a NoValue)."""
        i = self.input_index(name)
        if i >= len(self.operands) or isinstance(self.operands[i].type, NoneType):
            return None
        return self.operands[i]

    @classmethod
    def allowed_types(cls, constraint: str) -> tuple[Attribute | str, ...]:
        """Type keys (tensor<*x...>, !onnx.seq<...>...) allowed by a constraint."""
        return cls.TYPE_CONSTRAINTS[constraint]

    @classmethod
    def allowed_element_types(cls, constraint: str) -> tuple[Attribute, ...]:
        """Element types of the tensor types a constraint allows."""
        return tuple(
            t.get_element_type()
            for t in cls.TYPE_CONSTRAINTS[constraint]
            if isinstance(t, UnrankedTensorType)
        )

    # -- construction --------------------------------------------------------
    @classmethod
    def make(
        cls: type[_OpT],
        inputs: Sequence[SSAValue | Operation],
        result_types: Sequence[Attribute],
        attrs: Mapping[str, Any] | None = None,
        regions: Mapping[str, Region] | None = None,
    ) -> _OpT:
        """Create the op from Python attribute values.

        Absent optional inputs must be NoValue results (``NoValueOp().result``).
        Graph attributes not given get an empty region.
        """
        props = {k: to_attr(cls.attr_spec(k).kind, v) for k, v in (attrs or {}).items()}
        regs = [
            (regions or {}).get(n) or Region() for n in cls.REGIONS
        ]
        return cls.create(
            operands=[SSAValue.get(v) for v in inputs],
            result_types=list(result_types),
            properties=props,
            regions=regs,
        )

    # -- verification --------------------------------------------------------
    def verify_(self) -> None:
        _verify_output_names(self)
        self._verify_arity()
        self._verify_attrs()
        self._verify_types()
        for n, r in zip(self.REGIONS, self.regions):
            _verify_graph_region(self, f"'{n}'", r)

    def _verify_arity(self) -> None:
        for what, n, lo, hi in (
            ("inputs", len(self.operands), self.MIN_INPUTS, self.MAX_INPUTS),
            ("outputs", len(self.results), self.MIN_OUTPUTS, self.MAX_OUTPUTS),
        ):
            if n < lo or (hi is not None and n > hi):
                if lo == hi:
                    want = f"exactly {lo}"
                elif hi is None:
                    want = f"at least {lo}"
                else:
                    want = f"{lo} to {hi}"
                raise VerifyException(f"{self.name}: expected {want} {what}, got {n}")

    def _verify_attrs(self) -> None:
        for spec in self.ATTRS:
            if spec.kind == "GRAPH":
                continue
            a = self.properties.get(spec.name)
            if a is None:
                if spec.required:
                    raise VerifyException(
                        f"{self.name}: missing required attribute '{spec.name}'"
                    )
                continue
            why = check_attr(spec.kind, a)
            if why:
                raise VerifyException(
                    f"{self.name}: attribute '{spec.name}' ({spec.kind}): {why}, "
                    f"got {a}"
                )

    def _verify_types(self) -> None:
        bound: dict[str, tuple[Attribute, str]] = {}
        for kind, ports, values in (
            ("input", self.INPUTS, self.operands),
            ("output", self.OUTPUTS, self.results),
        ):
            for i, v in enumerate(values):
                port = port_at(ports, i)
                if port is None:  # arity already checked
                    continue
                where = f"{kind} {i} ('{port.name}')"
                if isinstance(v.type, NoneType):
                    if port.option != OPTIONAL:
                        raise VerifyException(
                            f"{self.name}: {where} is not optional, it cannot be "
                            "absent (NoValue / none)"
                        )
                    continue
                allowed = self.TYPE_CONSTRAINTS.get(port.type)
                if allowed is None:
                    continue
                key = type_key(v.type)
                if key not in allowed and not any(isinstance(t, str) for t in allowed):
                    names = ", ".join(
                        t if isinstance(t, str) else describe(t) for t in allowed[:8]
                    )
                    if len(allowed) > 8:
                        names += f", ... ({len(allowed)} in all)"
                    raise VerifyException(
                        f"{self.name}: {where} has type {v.type}, but '{port.type}' "
                        f"allows only {names}"
                    )
                if port.option == VARIADIC and not port.homogeneous:
                    continue
                prev = bound.get(port.type)
                if prev is None:
                    bound[port.type] = (key, where)
                elif prev[0] != key:
                    raise VerifyException(
                        f"{self.name}: {where} has type {describe(key)}, but "
                        f"'{port.type}' is already {describe(prev[0])} from {prev[1]}"
                    )


def port_at(ports: Sequence[Port], i: int) -> Port | None:
    """The schema port of operand (or result) ``i``: the last one when it is
    variadic, None past the end."""
    if i < len(ports):
        return ports[i]
    if ports and ports[-1].option == VARIADIC:
        return ports[-1]
    return None


_OpT = TypeVar("_OpT", bound=ONNXOp)


# ---------------------------------------------------------------------------
# Defining ops
# ---------------------------------------------------------------------------

_RESERVED = reserved_field_names(ONNXOp)


def field_name(attr_name: str) -> str:
    """Python field name under which an ONNX attribute is declared."""
    return python_field_name(attr_name, _RESERVED)


def onnx_op(cls: type[_OpT]) -> type[_OpT]:
    """Class decorator: declare ``ATTRS`` as properties/regions; IRDL-defined on first use.

    Use it instead of ``irdl_op_definition`` on ``ONNXOp`` subclasses.
    """
    graphs = tuple(s.name for s in cls.ATTRS if s.kind == "GRAPH")
    if graphs != cls.REGIONS:
        raise TypeError(f"{cls.__name__}: REGIONS must be {graphs}, got {cls.REGIONS}")
    for spec in cls.ATTRS:
        if spec.kind == "GRAPH":
            setattr(cls, field_name(spec.name), region_def())
        else:
            setattr(
                cls,
                field_name(spec.name),
                # any attribute here: the verifier checks kinds with clear messages
                opt_prop_def(AnyAttr(), prop_name=spec.name),
            )
    # completed on first use (see xmo.dialects.deferred): the generated module
    # declares all 654 cheaply
    return defer(cls)


def new_block(arg_types: Sequence[Attribute]) -> Block:
    """An empty subgraph block taking ``arg_types``."""
    return Block(arg_types=list(arg_types))
