"""The ``mxnet`` dialect: the nodes of an MXNet symbol graph (``-symbol.json``) as ops.

MXNet keeps every operator attribute as a string (``kernel="(3, 3)"``,
``no_bias="True"``), and any operator of any MXNet version may appear in a
symbol file, so the dialect declares one generic node op rather than one op
per operator: every node of a file loads, known or not, and the converters
(:mod:`xmo.passes.mxnet_to_ov`) read the strings.

* ``mxnet.Node`` (:class:`NodeOp`): one operator node. Properties: ``op_type``
  (the MXNet operator, ``Convolution``), ``node_name``, ``attrs`` (a
  dictionary of string attributes, as the file has them). Operands: the
  node's inputs in order; results: ``1 +`` the highest output index any
  consumer or graph output uses (unranked tensors: MXNet files carry no
  shapes; the legalization infers them).
* ``mxnet.Var`` (:class:`VarOp`): a ``null`` node (a variable): a graph input
  when it has no ``value``, else a parameter of the ``.params`` file
  (``value``: the array, ``kind``: ``arg`` or ``aux``). Its result is typed
  (the array's type, or the input's shape and dtype). ``attrs``: the
  variable's attributes (``__shape__``, ``__dtype__``...).
* ``mxnet.Output`` (:class:`OutputOp`): a graph output (a ``heads`` entry),
  ``tensor_name`` the MXNet output name (``fc1_output``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from xdsl.dialects.builtin import DictionaryAttr, StringAttr
from xdsl.ir import Attribute, Dialect, Operation, SSAValue
from xdsl.irdl import (
    AnyAttr,
    IRDLOperation,
    irdl_op_definition,
    operand_def,
    opt_prop_def,
    prop_def,
    result_def,
    var_operand_def,
    var_result_def,
)
from xdsl.utils.exceptions import VerifyException


def _string_dict(attrs: Mapping[str, str]) -> DictionaryAttr:
    return DictionaryAttr({str(k): StringAttr(str(v)) for k, v in attrs.items()})


def _check_strings(d: DictionaryAttr, what: str) -> None:
    for k, v in d.data.items():
        if not isinstance(v, StringAttr):
            raise VerifyException(f"{what}: attribute '{k}' must be a string (MXNet attributes are)")


@irdl_op_definition
class NodeOp(IRDLOperation):
    """``mxnet.Node``: one operator node of the symbol graph (see the module docstring)."""

    name = "mxnet.Node"
    args = var_operand_def()
    outs = var_result_def()
    op_type = prop_def(StringAttr)
    node_name = prop_def(StringAttr)
    attrs = prop_def(DictionaryAttr)

    @staticmethod
    def make(
        op_type: str,
        node_name: str,
        inputs: Sequence[SSAValue | Operation],
        result_types: Sequence[Attribute],
        attrs: Mapping[str, str] | None = None,
    ) -> NodeOp:
        return NodeOp.create(
            operands=[SSAValue.get(v) for v in inputs],
            result_types=list(result_types),
            properties={
                "op_type": StringAttr(op_type),
                "node_name": StringAttr(node_name),
                "attrs": _string_dict(attrs or {}),
            },
        )

    @property
    def mx_type(self) -> str:
        return self.op_type.data

    def attr(self, name: str, default: str | None = None) -> str | None:
        """The string value of attribute ``name`` (``default`` when absent)."""
        a = self.attrs.data.get(name)
        return a.data if isinstance(a, StringAttr) else default

    def verify_(self) -> None:
        _check_strings(self.attrs, self.node_name.data)


@irdl_op_definition
class VarOp(IRDLOperation):
    """``mxnet.Var``: a variable (``null`` node): a graph input, or a parameter
    of the ``.params`` file when ``value`` is set (see the module docstring)."""

    name = "mxnet.Var"
    out = result_def()
    node_name = prop_def(StringAttr)
    attrs = prop_def(DictionaryAttr)
    value = opt_prop_def(AnyAttr())
    kind = opt_prop_def(StringAttr)

    @staticmethod
    def make(
        node_name: str,
        result_type: Attribute,
        attrs: Mapping[str, str] | None = None,
        value: Attribute | None = None,
        kind: str | None = None,
    ) -> VarOp:
        props: dict[str, Attribute] = {
            "node_name": StringAttr(node_name),
            "attrs": _string_dict(attrs or {}),
        }
        if value is not None:
            props["value"] = value
            props["kind"] = StringAttr(kind or "arg")
        return VarOp.create(result_types=[result_type], properties=props)

    @property
    def is_param(self) -> bool:
        return self.value is not None

    def verify_(self) -> None:
        _check_strings(self.attrs, self.node_name.data)
        if self.kind is not None and self.kind.data not in ("arg", "aux"):
            raise VerifyException(f"{self.node_name.data}: kind must be 'arg' or 'aux'")
        if self.value is not None and getattr(self.value, "type", None) != self.out.type:
            raise VerifyException(f"{self.node_name.data}: the value's type is not the result's")


@irdl_op_definition
class OutputOp(IRDLOperation):
    """``mxnet.Output``: a graph output (an entry of the symbol's ``heads``)."""

    name = "mxnet.Output"
    value = operand_def()
    tensor_name = prop_def(StringAttr)

    def __init__(self, value: SSAValue | Operation, tensor_name: str) -> None:
        super().__init__(operands=[value], properties={"tensor_name": StringAttr(tensor_name)})


MXNET = Dialect("mxnet", [NodeOp, VarOp, OutputOp], [])

__all__ = ["MXNET", "NodeOp", "OutputOp", "VarOp"]
