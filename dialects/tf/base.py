"""The base classes and hand-written ops of the ``tf`` dialect.

One ``tf`` op mirrors one TensorFlow NodeDef. Contract (see also
``/work/notes/tf_dialect_interface.md``):

* **operands**: one variadic list, the NodeDef's *data* inputs in order
  (variadic OpDef args flattened). Control inputs (``^name``) are not operands:
  they are the ``control_inputs`` property (node names).
* **results**: one variadic list, one result per output tensor in port order.
* **properties**: ``node_name`` (required), ``control_inputs`` (optional), and
  every TF attribute of the NodeDef under its own name (names starting with
  ``_`` are dropped by the frontend).

Classes:

* :class:`TFNodeOp` -- the shared attribute API (``tf_type``, ``attr``,
  ``has_attr``, ``set_attr``...) and verifier of every NodeDef op.
* :class:`TFOp` -- base of the ops generated from TensorFlow's OpDef registry
  (``tools/gen_tf_dialect.py`` -> :mod:`.ops`). ClassVars hold the OpDef facts:
  ``TF_TYPE``, ``INPUTS`` / ``OUTPUTS`` (:class:`Arg` = ``(name, kind)`` with
  kind ``single``/``variadic``), ``INPUT_TYPES`` / ``OUTPUT_TYPES`` (one
  :class:`TypeRule` per arg: fixed type, ``type_attr``, ``number_attr``,
  ``type_list_attr``), ``ATTRS`` (one :class:`~xmo.dialects.attr_spec.AttrSpec`
  per attr: name, TF kind, OpDef default, ``required`` when the OpDef has no
  default), ``REQUIRED_ATTRS`` (the names of the required ones, read from
  ``ATTRS``), ``ALLOWED_VALUES``, ``MINIMUMS``, ``IS_STATEFUL``.
* :class:`PlaceholderBase`, :class:`ConstBase` -- the hand-written parts of
  ``tf.Placeholder`` and ``tf.Const`` (the generated classes derive from them).
* :class:`UnknownOp` (``tf.Unknown``) -- a NodeDef whose op type has no
  generated class; ``op_type`` property; not a :class:`TFOp`.
* :class:`OutputOp` (``tf.Output``) -- a graph output (``tensor_name``).

Attribute forms (TF attr kind -> xDSL attribute; Python value of :meth:`attr`):

=============  =========================================  =====================
int            ``3 : i64``                                int
float          ``1.0 : f32``                              float
bool           ``true``                                   bool
string         ``"SAME"`` (``#tf.bytes<hex>`` if not UTF-8)  str (bytes)
type           ``f32``, ``i1``, ``!tf.string``            xmo type name (``"f32"``,
                                                          ``"boolean"``, ``"tf.string"``)
shape          ``#tf.shape<[1, ?, 3]>`` / ``<*>``         list[int] (-1 unknown) / None
tensor         ``dense``/``dense_resource``/              numpy array
               ``#tf.string_tensor``/``#tf.opaque_tensor``
func           ``#tf.func<"name", {attrs}>``              str (the function name)
list(int)      ``array<i64: 1, 2>``                       list[int]
list(float)    ``array<f32: ...>``                        list[float]
list(bool)     ``array<i1: true, false>``                 list[bool]
list(...)      ``[...]`` of the forms above               list of the values above
=============  =========================================  =====================
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
    Float32Type,
    FloatAttr,
    IntegerAttr,
    StringAttr,
    TensorType,
    UnitAttr,
    UnrankedTensorType,
    i1,
    i64,
)
from xdsl.ir import Attribute, Block, Operation, Region, SSAValue, TypeAttribute
from xdsl.irdl import (
    AnyAttr,
    IRDLOperation,
    irdl_op_definition,
    operand_def,
    opt_prop_def,
    prop_def,
    region_def,
    traits_def,
    var_operand_def,
    var_result_def,
)
from xdsl.irdl.constraints import VerificationContext
from xdsl.traits import HasParent, IsolatedFromAbove, IsTerminator, SymbolOpInterface, SymbolTable
from xdsl.irdl.operations import OptPropertyDef
from xdsl.utils.exceptions import VerifyException

from xmo.dialects.attr_spec import AttrSpec, AttributeValueError
from xmo.dialects.deferred import DeferredOperation, defer, python_field_name, reserved_field_names
from xmo.dialects.tf import dtypes
from xmo.dialects.tf.types import (
    BytesHexAttr,
    FuncAttr,
    OpaqueTensorAttr,
    ShapeAttr,
    StringTensorAttr,
    StringType,
    UnknownType,
    element_type,
    string_attr,
    string_value,
    xmo_type_name,
)

f32 = Float32Type()

#: Arg kinds
SINGLE, VARIADIC = "single", "variadic"

#: Every OpDef attribute kind
SCALAR_KINDS = ("int", "float", "bool", "string", "type", "shape", "tensor", "func")
ATTR_KINDS = SCALAR_KINDS + tuple(f"list({k})" for k in SCALAR_KINDS)

#: Property names that are not TF attributes
RESERVED_PROPERTIES = frozenset({"node_name", "control_inputs", "op_type"})


class Arg(NamedTuple):
    """One OpDef input/output arg: ``(name, kind)``, kind ``single``/``variadic``."""

    name: str
    kind: str


class TypeRule(NamedTuple):
    """How an OpDef arg's element type(s) and count are determined.

    Exactly one of ``type`` (a fixed xmo type name) / ``type_attr`` (name of a
    ``type`` attr) / ``type_list_attr`` (name of a ``list(type)`` attr: one
    value per listed type) is set; ``number_attr`` (an ``int`` attr) repeats a
    ``type``/``type_attr`` arg N times. ``is_ref``: a TF1 reference arg.
    """

    type: str | None = None
    type_attr: str | None = None
    number_attr: str | None = None
    type_list_attr: str | None = None
    is_ref: bool = False


# ---------------------------------------------------------------------------
# Attribute conversion: xDSL <-> Python
# ---------------------------------------------------------------------------

_TENSOR_ATTRS = (DenseIntOrFPElementsAttr, DenseResourceAttr, StringTensorAttr, OpaqueTensorAttr)


def _is_type(a: Attribute) -> bool:
    return isinstance(a, TypeAttribute) and xmo_type_name(a) is not None


def check_attr(kind: str, a: Attribute) -> str | None:
    """None if ``a`` is a valid xDSL form of a ``kind`` value, else why not."""
    if kind.startswith("list(") and kind.endswith(")"):
        inner = kind[5:-1]
        if inner in ("int", "float", "bool"):
            want = {"int": i64, "float": f32, "bool": i1}[inner]
            if isinstance(a, DenseArrayBase) and a.elt_type == want:
                return None
            return f"expected array<{want}: ...>"
        if not isinstance(a, ArrayAttr):
            return "expected an array [...]"
        for x in a.data:
            why = check_attr(inner, x)
            if why:
                return f"element {x}: {why}"
        return None
    match kind:
        case "int":
            if isinstance(a, IntegerAttr) and a.type == i64:
                return None
            return "expected an i64 integer (e.g. 1 : i64)"
        case "float":
            if isinstance(a, FloatAttr) and a.type == f32:
                return None
            return "expected an f32 float (e.g. 1.0 : f32)"
        case "bool":
            if isinstance(a, IntegerAttr) and a.type == i1:
                return None
            return "expected true or false"
        case "string":
            return None if isinstance(a, StringAttr | BytesHexAttr) else "expected a string"
        case "type":
            return None if _is_type(a) else "expected an element type (f32, !tf.string...)"
        case "shape":
            return None if isinstance(a, ShapeAttr) else "expected #tf.shape<...>"
        case "tensor":
            if isinstance(a, _TENSOR_ATTRS):
                return None
            return "expected dense<...>, dense_resource<...>, #tf.string_tensor or #tf.opaque_tensor"
        case "func":
            return None if isinstance(a, FuncAttr) else "expected #tf.func<...>"
    return f"unknown attribute kind '{kind}'"


def infer_kind(a: Attribute) -> str | None:
    """The TF attr kind of an xDSL attribute form (None: not a TF attr form).

    An empty ``[]`` is ``"list"`` (element kind unknown).
    """
    if isinstance(a, IntegerAttr):
        return "bool" if a.type == i1 else "int"
    if isinstance(a, FloatAttr):
        return "float"
    if isinstance(a, StringAttr | BytesHexAttr):
        return "string"
    if isinstance(a, ShapeAttr):
        return "shape"
    if isinstance(a, FuncAttr):
        return "func"
    if isinstance(a, _TENSOR_ATTRS):
        return "tensor"
    if _is_type(a):
        return "type"
    if isinstance(a, DenseArrayBase):
        return {i64: "list(int)", f32: "list(float)", i1: "list(bool)"}.get(a.elt_type)
    if isinstance(a, ArrayAttr):
        if not a.data:
            return "list"
        inner = infer_kind(a.data[0])
        if inner is None or inner.startswith("list"):
            return None
        return f"list({inner})"
    if isinstance(a, UnitAttr):
        return "none"
    return None


def from_attr(kind: str | None, a: Attribute) -> Any:
    """xDSL attribute -> Python value of a TF attr (kind None: inferred).

    Raises :class:`AttributeValueError` when ``a`` is not a ``kind`` value.
    """
    if kind is None or kind == "list":
        kind = infer_kind(a)
        if kind is None:
            raise AttributeValueError(f"{a} is not a TF attribute value")
        if kind == "list":
            return []
        if kind == "none":
            return None
    why = check_attr(kind, a)
    if why:
        raise AttributeValueError(f"{a} is not a valid {kind}: {why}")
    if kind.startswith("list("):
        inner = kind[5:-1]
        if isinstance(a, DenseArrayBase):
            vals = a.get_values()
            return [
                bool(v) if inner == "bool" else (float(v) if inner == "float" else int(v))
                for v in vals
            ]
        assert isinstance(a, ArrayAttr)
        return [from_attr(inner, x) for x in a.data]
    match kind:
        case "int":
            assert isinstance(a, IntegerAttr)
            return int(a.value.data)
        case "float":
            assert isinstance(a, FloatAttr)
            return float(a.value.data)
        case "bool":
            assert isinstance(a, IntegerAttr)
            return bool(a.value.data)
        case "string":
            return string_value(a)
        case "type":
            return xmo_type_name(a)
        case "shape":
            assert isinstance(a, ShapeAttr)
            return a.value
        case "tensor":
            return tensor_array(a)
        case "func":
            assert isinstance(a, FuncAttr)
            return a.func_name.data
    raise AttributeValueError(f"unknown attribute kind '{kind}'")


def to_attr(kind: str, value: Any, store: Any = None) -> Attribute:
    """Python value -> xDSL attribute of TF attr kind ``kind``.

    Attributes pass through (checked). Tensor values: numpy arrays (string
    arrays become ``#tf.string_tensor``; others go through
    ``make_constant_attr``, into ``store`` when given and large).
    """
    if isinstance(value, Attribute):
        why = check_attr(kind, value)
        if why:
            raise AttributeValueError(f"{value} is not a valid {kind}: {why}")
        return value
    try:
        if kind.startswith("list("):
            inner = kind[5:-1]
            if isinstance(value, str | bytes):
                raise TypeError("a string is not a list")
            items = list(value)
            if inner == "int":
                return DenseArrayBase.from_list(i64, [int(v) for v in items])
            if inner == "float":
                return DenseArrayBase.from_list(f32, [float(np.float32(v)) for v in items])
            if inner == "bool":
                return DenseArrayBase.from_list(i1, [bool(v) for v in items])
            return ArrayAttr([to_attr(inner, v, store) for v in items])
        match kind:
            case "int":
                return IntegerAttr(int(value), i64)
            case "float":
                return FloatAttr(float(np.float32(value)), f32)
            case "bool":
                return IntegerAttr(int(bool(value)), i1)
            case "string":
                return string_attr(value)
            case "type":
                if not isinstance(value, str):
                    raise TypeError(f"expected an xmo type name, got {type(value).__name__}")
                return element_type(value)
            case "shape":
                return ShapeAttr.get(None if value is None else [int(d) for d in value])
            case "tensor":
                return tensor_attr(np.asarray(value), store)
            case "func":
                return FuncAttr.get(str(value))
    except (TypeError, ValueError, OverflowError) as e:
        raise AttributeValueError(f"{value!r} is not a valid {kind}: {e}") from None
    raise AttributeValueError(f"unknown attribute kind '{kind}'")


def tensor_attr(array: np.ndarray, store: Any = None, name_hint: str = "w") -> Attribute:
    """numpy array -> tensor attribute (string arrays -> ``#tf.string_tensor``)."""
    from xmo.dialects.ov.weights import make_constant_attr

    if array.dtype.kind in "OSU":
        flat = [string_attr(v if isinstance(v, bytes | str) else str(v)) for v in array.reshape(-1)]
        return StringTensorAttr(TensorType(StringType(), list(array.shape)), ArrayAttr(flat))
    return make_constant_attr(array, store=store, name_hint=name_hint)


def tensor_array(a: Attribute) -> np.ndarray:
    """numpy value of a tensor attribute.

    ``dense``/``dense_resource``: a view of the payload (bf16 as raw uint16,
    packed 4/2/1-bit types as raw bytes, like ``constant_array``); strings: an
    object array of str (bytes when not UTF-8); opaque constants: the numpy
    dtype of the TF type when there is one (complex, quantized), else raw bytes.
    """
    from xmo.dialects.ov.weights import constant_array

    if isinstance(a, StringTensorAttr):
        vals = np.empty(len(a.values.data), dtype=object)
        for i, v in enumerate(a.values.data):
            vals[i] = string_value(v)
        return vals.reshape(a.tensor_type.get_shape())
    if isinstance(a, OpaqueTensorAttr):
        raw = constant_array(a.data).reshape(-1)
        shape = a.tensor_type.get_shape()
        name = xmo_type_name(a.tensor_type.get_element_type())
        enum = dtypes.enum_of(name or "")
        d = dtypes.lookup(enum) if enum else None
        if d is not None and d.numpy is not None:
            dt = np.dtype(d.numpy)
            n = int(np.prod(shape, dtype=np.int64))
            if raw.nbytes == n * dt.itemsize:
                return raw.view(dt).reshape(shape)
        return raw
    return constant_array(a)


# ---------------------------------------------------------------------------
# NodeDef ops: shared API
# ---------------------------------------------------------------------------


class _RequiredAttrs:
    """``REQUIRED_ATTRS`` of a ``tf`` op class: the names of its required ``ATTRS``."""

    def __get__(self, obj: object, owner: type[TFNodeOp]) -> frozenset[str]:
        return frozenset(s.name for s in owner.ATTRS if s.required)


class TFNodeOp(DeferredOperation):
    """Shared base of every op that mirrors a NodeDef (:class:`TFOp`, :class:`UnknownOp`);
    the generated ones are IRDL-defined on first use (:func:`tf_op`)."""

    TF_TYPE: ClassVar[str] = ""
    ATTRS: ClassVar[tuple[AttrSpec, ...]] = ()
    #: names of the ``required`` attrs (from ``ATTRS``)
    REQUIRED_ATTRS: ClassVar[frozenset[str]] = _RequiredAttrs()  # type: ignore[assignment]
    ALLOWED_VALUES: ClassVar[dict[str, tuple[Any, ...]]] = {}
    MINIMUMS: ClassVar[dict[str, int]] = {}

    inputs = var_operand_def()
    outputs = var_result_def()
    node_name = prop_def(StringAttr)
    control_inputs = opt_prop_def(ArrayAttr[StringAttr])

    # -- identity --------------------------------------------------------------
    @property
    def tf_type(self) -> str:
        """The TensorFlow op type (``"Conv2D"``)."""
        return self.TF_TYPE

    @property
    def tf_name(self) -> str:
        """The NodeDef name."""
        return self.node_name.data

    @property
    def control_input_names(self) -> list[str]:
        """Node names of the control inputs (``^name``), in NodeDef order."""
        ci = self.control_inputs
        return [s.data for s in ci.data] if ci is not None else []

    # -- attributes ----------------------------------------------------------
    @classmethod
    def attr_spec(cls, name: str) -> AttrSpec | None:
        """The OpDef spec of attr ``name`` (None if the OpDef has none)."""
        for s in cls.ATTRS:
            if s.name == name:
                return s
        return None

    def attr_names(self) -> list[str]:
        """Names of the TF attributes this op carries (not the OpDef defaults)."""
        return [k for k in self.properties if k not in RESERVED_PROPERTIES]

    def has_attr(self, name: str) -> bool:
        """True when the NodeDef set attr ``name`` (defaults do not count)."""
        return name not in RESERVED_PROPERTIES and name in self.properties

    def attr(self, name: str, default: Any = None) -> Any:
        """Python value of TF attr ``name`` (see the module docstring for forms).

        Missing attribute: the OpDef default if there is one, else ``default``.
        Lists come back as new Python lists.
        """
        spec = self.attr_spec(name)
        a = self.properties.get(name) if name not in RESERVED_PROPERTIES else None
        if a is None:
            if spec is None or name in self.REQUIRED_ATTRS:
                return default
            return _py_default(spec)
        return from_attr(spec.kind if spec is not None else None, a)

    def attr_kind(self, name: str) -> str | None:
        """The attr's TF kind: the OpDef's, else inferred from the attribute."""
        spec = self.attr_spec(name)
        if spec is not None:
            return spec.kind
        a = self.properties.get(name)
        return infer_kind(a) if a is not None else None

    def set_attr(self, name: str, value: Any, store: Any = None) -> None:
        """Set TF attr ``name`` from a Python value or an attribute."""
        if name in RESERVED_PROPERTIES:
            raise AttributeValueError(f"'{name}' is not a TF attribute")
        kind = self.attr_kind(name)
        if kind is None or kind == "list":
            if not isinstance(value, Attribute):
                raise AttributeValueError(f"attr '{name}': kind unknown, pass an attribute")
            self.properties[name] = value
        else:
            self.properties[name] = to_attr(kind, value, store)

    def func_attrs(self, name: str) -> dict[str, Any]:
        """The attributes of a ``func`` attr's NameAttrList, as Python values."""
        a = self.properties.get(name)
        if not isinstance(a, FuncAttr):
            return {}
        return {k: from_attr(None, v) for k, v in a.attrs.data.items()}

    # -- verification --------------------------------------------------------
    def _verify_node(self) -> None:
        ctx = VerificationContext()
        for pname, d in type(self).get_irdl_definition().properties.items():
            a = self.properties.get(pname)
            if a is None:
                if isinstance(d, OptPropertyDef):
                    continue
                raise VerifyException(f"{self.name}: property '{pname}' is required")
            d.constr.verify(a, ctx)
        where = f"{self.name} '{self.node_name.data}'"
        for name, a in self.properties.items():
            if name in RESERVED_PROPERTIES:
                continue
            spec = self.attr_spec(name)
            if spec is None:
                if infer_kind(a) is None:
                    raise VerifyException(f"{where}: attribute '{name}' = {a} is not a TF value")
                continue
            why = check_attr(spec.kind, a)
            if why:
                raise VerifyException(
                    f"{where}: attribute '{name}' ({spec.kind}): {why}, got {a}"
                )
            allowed = self.ALLOWED_VALUES.get(name)
            if allowed:
                vals = from_attr(spec.kind, a)
                for v in vals if isinstance(vals, list) else [vals]:
                    if v not in allowed:
                        raise VerifyException(
                            f"{where}: attribute '{name}' = {v!r} is not one of "
                            f"{', '.join(map(repr, allowed))}"
                        )
            lo = self.MINIMUMS.get(name)
            if lo is not None:
                v = from_attr(spec.kind, a)
                n = len(v) if isinstance(v, list) else v
                if n < lo:
                    raise VerifyException(f"{where}: attribute '{name}' must be >= {lo}, got {n}")
        for name in self.REQUIRED_ATTRS:
            if name not in self.properties:
                raise VerifyException(f"{where}: missing required attribute '{name}'")
        self._verify_calls(where)
        self.verify_tf()

    def _verify_calls(self, where: str) -> None:
        """The functions a call op names (:data:`FUNCTION_CALLS`) are
        ``tf.Function`` ops of the module taking and returning what it passes."""
        calls = FUNCTION_CALLS.get(self.tf_type)
        if not calls:
            return
        for attr_name, (first, returns) in calls.items():
            a = self.properties.get(attr_name)
            if not isinstance(a, FuncAttr):
                continue  # a missing required attr is reported above
            fname = a.func_name.data
            fn = SymbolTable.lookup_symbol(self, fname)
            if not isinstance(fn, FunctionOp):
                raise VerifyException(
                    f"{where}: '{attr_name}' names '{fname}', which is not a tf.Function "
                    "of the module"
                )
            n_args = len(self.operands) - first
            if len(fn.body.block.args) != n_args:
                raise VerifyException(
                    f"{where}: function '{fname}' ('{attr_name}') takes "
                    f"{len(fn.body.block.args)} arguments, the node passes {n_args}"
                )
            want = {"operands": len(self.operands), "results": len(self.results)}.get(
                returns, returns  # type: ignore[call-overload]
            )
            got = len(fn.returned_values())
            if got != want:
                raise VerifyException(
                    f"{where}: function '{fname}' ('{attr_name}') returns {got} "
                    f"value{'s' if got != 1 else ''}, the node needs {want}"
                )

    def verify_tf(self) -> None:
        """Extra checks of a subclass (called by the verifier)."""


def _py_default(spec: AttrSpec) -> Any:
    """A fresh Python copy of an OpDef default (tuples in ``ATTRS`` -> lists)."""
    d = spec.default
    if not isinstance(d, tuple):
        return d
    return [list(x) if isinstance(x, tuple) else x for x in d] if spec.kind != "shape" else list(d)


def _tensor_element(t: Attribute) -> Attribute | None:
    if isinstance(t, TensorType | UnrankedTensorType):
        return t.get_element_type()
    return None


# ---------------------------------------------------------------------------
# Generated ops: OpDef facts
# ---------------------------------------------------------------------------


class TFOp(TFNodeOp):
    """Base class of every generated ``tf`` op (one TensorFlow OpDef)."""

    INPUTS: ClassVar[tuple[Arg, ...]] = ()
    OUTPUTS: ClassVar[tuple[Arg, ...]] = ()
    INPUT_TYPES: ClassVar[tuple[TypeRule, ...]] = ()
    OUTPUT_TYPES: ClassVar[tuple[TypeRule, ...]] = ()
    IS_STATEFUL: ClassVar[bool] = False

    # -- arg structure -------------------------------------------------------
    @classmethod
    def arg_counts(
        cls, rules: Sequence[TypeRule], attrs: Mapping[str, Any]
    ) -> list[int | None]:
        """Values per arg given Python attr values (None: undetermined)."""
        out: list[int | None] = []
        for r in rules:
            if r.number_attr is not None:
                n = cls._attr_or_default(r.number_attr, attrs)
                out.append(int(n) if isinstance(n, int) else None)
            elif r.type_list_attr is not None:
                ts = cls._attr_or_default(r.type_list_attr, attrs)
                out.append(len(ts) if isinstance(ts, list | tuple) else None)
            else:
                out.append(1)
        return out

    @classmethod
    def arg_types(cls, rules: Sequence[TypeRule], attrs: Mapping[str, Any]) -> list[list[str] | str | None]:
        """Per arg: the xmo type name (single/number_attr args), the list of
        names (type_list_attr args), or None when undetermined."""
        out: list[list[str] | str | None] = []
        for r in rules:
            if r.type is not None:
                out.append(r.type)
            elif r.type_attr is not None:
                t = cls._attr_or_default(r.type_attr, attrs)
                out.append(t if isinstance(t, str) else None)
            elif r.type_list_attr is not None:
                ts = cls._attr_or_default(r.type_list_attr, attrs)
                out.append(list(ts) if isinstance(ts, list | tuple) else None)
            else:
                out.append(None)
        return out

    @classmethod
    def _attr_or_default(cls, name: str, attrs: Mapping[str, Any]) -> Any:
        if name in attrs:
            return attrs[name]
        spec = cls.attr_spec(name)
        if spec is None or name in cls.REQUIRED_ATTRS:
            return None
        return spec.default

    @classmethod
    def result_element_types(cls, attrs: Mapping[str, Any]) -> list[Attribute] | None:
        """Element types of the results given Python attr values (None when the
        number of results cannot be determined); ``!tf.unknown`` where a type
        is undetermined."""
        counts = cls.arg_counts(cls.OUTPUT_TYPES, attrs)
        types = cls.arg_types(cls.OUTPUT_TYPES, attrs)
        out: list[Attribute] = []
        for n, t in zip(counts, types):
            if n is None:
                return None
            if isinstance(t, list):
                out.extend(element_type(x) for x in t[:n])
                out.extend(UnknownType() for _ in range(n - len(t)))
            else:
                out.extend(element_type(t) if t is not None else UnknownType() for _ in range(n))
        return out

    def python_attrs(self) -> dict[str, Any]:
        """Python values of the attributes this op carries (tensors left out)."""
        out: dict[str, Any] = {}
        for k in self.attr_names():
            if self.attr_kind(k) == "tensor":
                continue
            try:
                out[k] = self.attr(k)
            except AttributeValueError:
                pass
        return out

    def _groups(self, rules: Sequence[TypeRule], n_values: int) -> list[tuple[int, int]] | None:
        counts = self.arg_counts(rules, self.python_attrs())
        unknown = [i for i, c in enumerate(counts) if c is None]
        if len(unknown) > 1:
            return None
        if unknown:
            counts[unknown[0]] = n_values - sum(c for c in counts if c is not None)
        out: list[tuple[int, int]] = []
        start = 0
        for c in counts:
            assert c is not None
            out.append((start, start + c))
            start += c
        return out if start == n_values else None

    def input_values(self, arg: str) -> list[SSAValue]:
        """Operands of OpDef input arg ``arg`` (a variadic arg may give several)."""
        groups = self._groups(self.INPUT_TYPES, len(self.operands))
        for (name, _), g in zip(self.INPUTS, groups or []):
            if name == arg:
                return list(self.operands[g[0] : g[1]])
        if all(a.name != arg for a in self.INPUTS):
            raise KeyError(f"{self.name} has no input arg '{arg}'")
        raise ValueError(f"{self.name}: operands do not match the OpDef args")

    def input_value(self, arg: str) -> SSAValue:
        """The operand of single input arg ``arg``."""
        vals = self.input_values(arg)
        if len(vals) != 1:
            raise ValueError(f"{self.name}: input arg '{arg}' has {len(vals)} values")
        return vals[0]

    def output_values(self, arg: str) -> list[SSAValue]:
        """Results of OpDef output arg ``arg``."""
        groups = self._groups(self.OUTPUT_TYPES, len(self.results))
        for (name, _), g in zip(self.OUTPUTS, groups or []):
            if name == arg:
                return list(self.results[g[0] : g[1]])
        if all(a.name != arg for a in self.OUTPUTS):
            raise KeyError(f"{self.name} has no output arg '{arg}'")
        raise ValueError(f"{self.name}: results do not match the OpDef args")

    # -- construction --------------------------------------------------------
    @classmethod
    def make(
        cls: type[_OpT],
        node_name: str,
        inputs: Sequence[SSAValue | Operation] = (),
        attrs: Mapping[str, Any] | None = None,
        control_inputs: Sequence[str] = (),
        result_types: Sequence[Attribute] | None = None,
        store: Any = None,
    ) -> _OpT:
        """Create the op from Python attr values (or attributes).

        Result types default to unranked tensors of the OpDef's element types.
        """
        props: dict[str, Attribute] = {"node_name": StringAttr(node_name)}
        if control_inputs:
            props["control_inputs"] = ArrayAttr([StringAttr(c) for c in control_inputs])
        py: dict[str, Any] = {}
        for k, v in (attrs or {}).items():
            spec = cls.attr_spec(k)
            if spec is None:
                if not isinstance(v, Attribute):
                    raise AttributeValueError(f"{cls.name}: unknown attr '{k}', pass an attribute")
                props[k] = v
                continue
            a = to_attr(spec.kind, v, store)
            props[k] = a
            py[k] = from_attr(spec.kind, a) if spec.kind != "tensor" else None
        if result_types is None:
            els = cls.result_element_types(py)
            if els is None:
                raise AttributeValueError(f"{cls.name}: cannot tell the number of results")
            result_types = [UnrankedTensorType(e) for e in els]
        return cls.create(
            operands=[SSAValue.get(v) for v in inputs],
            result_types=list(result_types),
            properties=props,
        )

    # -- verification --------------------------------------------------------
    def _verify_structure(self) -> None:
        where = f"{self.name} '{self.node_name.data}'"
        attrs = self.python_attrs()
        for what, rules, args, values in (
            ("operands", self.INPUT_TYPES, self.INPUTS, self.operands),
            ("results", self.OUTPUT_TYPES, self.OUTPUTS, self.results),
        ):
            counts = self.arg_counts(rules, attrs)
            types = self.arg_types(rules, attrs)
            if any(c is None for c in counts):
                continue
            want = sum(c for c in counts if c is not None)
            if want != len(values):
                raise VerifyException(
                    f"{where}: expected {want} {what} ({', '.join(a.name for a in args) or 'none'}), "
                    f"got {len(values)}"
                )
            i = 0
            for arg, c, t in zip(args, counts, types):
                assert c is not None
                for j in range(c):
                    expect = t[j] if isinstance(t, list) and j < len(t) else (t if isinstance(t, str) else None)
                    v = values[i]
                    i += 1
                    if expect is None or expect == dtypes.UNKNOWN:
                        continue
                    el = _tensor_element(v.type)
                    if el is None or isinstance(el, UnknownType):
                        continue
                    got = xmo_type_name(el)
                    if got is not None and got != expect:
                        raise VerifyException(
                            f"{where}: {what[:-1]} #{i - 1} ('{arg.name}') has element type "
                            f"{got}, the OpDef says {expect}"
                        )


_OpT = TypeVar("_OpT", bound=TFOp)


def _verify_tf_op(self: TFNodeOp) -> None:
    self._verify_node()
    if isinstance(self, TFOp):
        self._verify_structure()


_RESERVED_FIELDS = reserved_field_names(TFOp)


def field_name(attr_name: str) -> str:
    """Python field under which a TF attr is declared (``_`` appended on clashes)."""
    return python_field_name(attr_name, _RESERVED_FIELDS)


_NodeT = TypeVar("_NodeT", bound=TFNodeOp)


def tf_op(cls: type[_NodeT]) -> type[_NodeT]:
    """Class decorator of ``tf`` ops: declares ``ATTRS`` as optional properties
    (and the required ones in ``REQUIRED_ATTRS``) and installs the ``tf``
    verifier (which accepts TF attributes beyond the declared ones, unlike
    plain IRDL); the class is IRDL-defined on first use
    (:mod:`xmo.dialects.deferred`: an import declares the generated ops
    cheaply)."""
    for spec in cls.ATTRS:
        setattr(cls, field_name(spec.name), opt_prop_def(AnyAttr(), prop_name=spec.name))
    return defer(cls, _finish_tf_op)


def _finish_tf_op(cls: type[TFNodeOp]) -> None:
    cls.verify_ = _verify_tf_op  # type: ignore[method-assign]


# ---------------------------------------------------------------------------
# Placeholder / Const specifics (the generated classes derive from these)
# ---------------------------------------------------------------------------


class PlaceholderBase(TFOp):
    """``tf.Placeholder``: a graph input. Its one result is ranked when the
    ``shape`` attr has a rank (``?`` for -1 dims), unranked otherwise."""

    @property
    def input_shape(self) -> list[int] | None:
        """Dims (-1 unknown) of the input, None for an unknown rank."""
        t = self.results[0].type if self.results else None
        if isinstance(t, TensorType):
            return [-1 if d < 0 else d for d in t.get_shape()]
        return None

    def verify_tf(self) -> None:
        if len(self.results) != 1:
            return
        t = self.results[0].type
        shape = self.attr("shape")
        if isinstance(t, TensorType) and shape is not None:
            dims = [-1 if d < 0 else d for d in t.get_shape()]
            if len(dims) != len(shape) or any(
                s >= 0 and d >= 0 and s != d for s, d in zip(shape, dims)
            ):
                raise VerifyException(
                    f"{self.name} '{self.node_name.data}': result type {t} does not "
                    f"match shape attr {shape}"
                )


class ConstBase(TFOp):
    """``tf.Const``: ``value`` is ``dense``/``dense_resource`` (payload in the
    context weight store), ``#tf.string_tensor`` or ``#tf.opaque_tensor``; the
    result type is the value's (ranked) tensor type."""

    @property
    def array(self) -> np.ndarray:
        """The constant as numpy (``attr("value")``)."""
        return self.attr("value")

    def verify_tf(self) -> None:
        v = self.properties.get("value")
        if v is None or len(self.results) != 1:
            return
        vt = getattr(v, "type", None)
        if vt is not None and self.results[0].type != vt:
            raise VerifyException(
                f"{self.name} '{self.node_name.data}': result type "
                f"{self.results[0].type} differs from the value's type {vt}"
            )


# ---------------------------------------------------------------------------
# Hand-written ops
# ---------------------------------------------------------------------------


@tf_op
class UnknownOp(TFNodeOp):
    """``tf.Unknown``: a NodeDef whose op type has no generated class.

    ``op_type`` holds the TF op type; every NodeDef attr is a property of its
    own name (kind inferred from the attribute form; no OpDef defaults).
    Results: ``1 + `` the highest output port any consumer uses.
    """

    name = "tf.Unknown"
    op_type = prop_def(StringAttr)

    @property
    def tf_type(self) -> str:
        return self.op_type.data

    @staticmethod
    def make(
        op_type: str,
        node_name: str,
        inputs: Sequence[SSAValue | Operation],
        result_types: Sequence[Attribute],
        attrs: Mapping[str, Attribute] | None = None,
        control_inputs: Sequence[str] = (),
    ) -> UnknownOp:
        props: dict[str, Attribute] = {
            "op_type": StringAttr(op_type),
            "node_name": StringAttr(node_name),
        }
        if control_inputs:
            props["control_inputs"] = ArrayAttr([StringAttr(c) for c in control_inputs])
        for k, v in (attrs or {}).items():
            if k in RESERVED_PROPERTIES:
                raise AttributeValueError(f"tf.Unknown: attr name '{k}' is reserved")
            props[k] = v
        return UnknownOp.create(
            operands=[SSAValue.get(v) for v in inputs],
            result_types=list(result_types),
            properties=props,
        )


@irdl_op_definition
class OutputOp(IRDLOperation):
    """``tf.Output``: a graph output. ``tensor_name`` is ``"node"`` for port 0,
    ``"node:k"`` for port k. The module body ends with these, in output order."""

    name = "tf.Output"
    value = operand_def()
    tensor_name = prop_def(StringAttr)

    def __init__(self, value: SSAValue | Operation, tensor_name: str) -> None:
        super().__init__(operands=[value], properties={"tensor_name": StringAttr(tensor_name)})



# ---------------------------------------------------------------------------
# Functions (the GraphDef's FunctionDefLibrary)
# ---------------------------------------------------------------------------

#: Ops that call functions of the module through ``#tf.func`` attrs: op type
#: -> {attr: (the first operand passed to the function, what the function
#: returns: ``"operands"`` one value per operand (a loop body), ``"results"``
#: one per op result, or a number)}. The verifier checks both.
FUNCTION_CALLS: dict[str, dict[str, tuple[int, str | int]]] = {
    "While": {"cond": (0, 1), "body": (0, "operands")},
    "StatelessWhile": {"cond": (0, 1), "body": (0, "operands")},
    "If": {"then_branch": (1, "results"), "else_branch": (1, "results")},
    "StatelessIf": {"then_branch": (1, "results"), "else_branch": (1, "results")},
    "PartitionedCall": {"f": (0, "results")},
    "StatefulPartitionedCall": {"f": (0, "results")},
}


@irdl_op_definition
class FunctionOp(IRDLOperation):
    """``tf.Function``: a FunctionDef of the GraphDef's library, a symbol of the
    module that call ops (:data:`FUNCTION_CALLS`) name in their ``#tf.func``
    attrs.

    ``sym_name`` is the function's name, ``arg_names`` / ``result_names`` its
    signature's input / output arg names. The body is one block: its
    arguments are the function's inputs, its ops the FunctionDef's nodes as
    ``tf`` ops (the graph's contract: ``node_name``, ``control_inputs``, TF
    attributes), in topological order, ending with ``tf.Return`` (the ``ret``
    values in output-arg order). ``is_stateful``: the signature's flag.
    """

    name = "tf.Function"
    sym_name = prop_def(StringAttr)
    arg_names = prop_def(ArrayAttr[StringAttr])
    result_names = prop_def(ArrayAttr[StringAttr])
    is_stateful = opt_prop_def(UnitAttr)
    body = region_def("single_block")

    traits = traits_def(SymbolOpInterface(), IsolatedFromAbove())

    def __init__(
        self,
        name: str,
        arg_names: Sequence[str],
        result_names: Sequence[str],
        body: Region,
        is_stateful: bool = False,
    ) -> None:
        props: dict[str, Attribute] = {
            "sym_name": StringAttr(name),
            "arg_names": ArrayAttr([StringAttr(n) for n in arg_names]),
            "result_names": ArrayAttr([StringAttr(n) for n in result_names]),
        }
        if is_stateful:
            props["is_stateful"] = UnitAttr()
        super().__init__(properties=props, regions=[body])

    @property
    def function_name(self) -> str:
        return self.sym_name.data

    def returned_values(self) -> list[SSAValue]:
        """The values the function returns (its ``tf.Return`` operands)."""
        last = self.body.block.last_op
        return list(last.operands) if isinstance(last, ReturnOp) else []

    def verify_(self) -> None:
        where = f"tf.Function '{self.sym_name.data}'"
        block: Block = self.body.block
        if len(self.arg_names.data) != len(block.args):
            raise VerifyException(
                f"{where}: {len(self.arg_names.data)} argument names for "
                f"{len(block.args)} arguments"
            )
        last = block.last_op
        if not isinstance(last, ReturnOp):
            raise VerifyException(f"{where}: the body must end with tf.Return")
        if len(self.result_names.data) != len(last.operands):
            raise VerifyException(
                f"{where}: {len(self.result_names.data)} result names for "
                f"{len(last.operands)} returned values"
            )


@irdl_op_definition
class ReturnOp(IRDLOperation):
    """``tf.Return``: the values a ``tf.Function`` returns (its terminator)."""

    name = "tf.Return"
    values = var_operand_def()

    traits = traits_def(IsTerminator(), HasParent(FunctionOp))

    def __init__(self, values: Sequence[SSAValue | Operation]) -> None:
        super().__init__(operands=[[SSAValue.get(v) for v in values]])
