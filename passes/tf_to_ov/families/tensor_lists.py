"""TensorLists (TF2's ``TensorArray``): TensorListFromTensor / Reserve /
EmptyTensorList / GetItem / SetItem / PushBack / Gather / Stack / Length /
ElementShape.

A TensorList is a ``variant`` tensor in TensorFlow; during conversion it is a
:class:`TensorList` (a :class:`~xmo.passes.to_ov.builder.ConversionValue`,
never an ov value): its elements stacked along a new axis 0 (``items``, when
they are known) or only its length (a reserved list nothing was written to
yet). The list ops become ordinary tensor ops on ``items``: GetItem a Gather,
Stack the items themselves, Length / ElementShape parts of their shape.

Inside the body of a while loop (:mod:`.functional`) a list takes two more
forms: :class:`SlicedList`, a list the loop reads at the iteration number
(its element of the iteration is a sliced input of the ``ov.Loop``), and
:class:`WrittenList`, a list the loop writes at the iteration number (or at a
constant index): ``TensorListSetItem`` on it gives a :class:`ListWrite`, the
item of the iteration, which the loop concatenates (or keeps the last of).

A read at a constant index beyond the length known at conversion time is an
error naming the node.
"""

from __future__ import annotations

import numpy as np
from xdsl.ir import SSAValue
from xmo.dialects.ov.base import dims_of
from xmo.passes.tf_to_ov.builder import TFBuilder
from xmo.passes.tf_to_ov.registry import tf_converter
from xmo.passes.to_ov.builder import ConversionValue, ConverterNode, value_etype
from xmo.passes.to_ov.helpers import slice_axis


class TensorList(ConversionValue):
    """A TensorList during conversion (see the module docstring).

    ``items``: the elements stacked along a new axis 0 (None: nothing
    written yet); ``length``: the number of elements when ``items`` is None
    (a scalar integer value); ``element_shape``: dims (-1 unknown) or None
    (unknown rank); ``etype``: the element type.
    """

    kind = "tensor list"
    output_problem = "the output is a tensor list (TensorListStack makes it a tensor)"
    input_problem = "is a tensor list"

    def __init__(
        self,
        etype: str,
        *,
        items: SSAValue | None = None,
        length: SSAValue | None = None,
        element_shape: list[int] | None = None,
    ) -> None:
        self.etype = etype
        self.items = items
        self.length = length
        self.element_shape = element_shape

    def known_length(self, node: ConverterNode) -> int | None:
        """The number of elements when known at conversion time."""
        if self.items is not None:
            dims = dims_of(self.items.type)
            return dims[0] if dims and dims[0] >= 0 else None
        if self.length is not None and node.evaluator is not None:
            v = node.evaluator.value(self.length)
            return None if v is None else int(np.asarray(v).reshape(-1)[0])
        return None


class SlicedList(TensorList):
    """In a while-loop body: a list the loop reads at the iteration number;
    ``item`` is this iteration's element (a slice of the loop's input)."""

    kind = "tensor list read per iteration"

    def __init__(self, etype: str, item: SSAValue) -> None:
        super().__init__(etype)
        self.item = item


class WrittenList(TensorList):
    """In a while-loop body: a list the loop writes once per iteration (at the
    iteration number or at a constant index); SetItem on it gives a
    :class:`ListWrite`."""

    kind = "tensor list written per iteration"


class ListWrite(ConversionValue):
    """The item a loop body writes to a :class:`WrittenList` this iteration."""

    kind = "tensor list write"
    output_problem = "the output is a tensor list"
    input_problem = "is a tensor list (written by the loop)"

    def __init__(self, item: SSAValue) -> None:
        self.item = item


def tensor_list(node: ConverterNode, i: int) -> TensorList:
    """Input ``i``, a TensorList."""
    v = node.inputs[i] if i < node.num_inputs else None
    if not isinstance(v, TensorList):
        raise node.unsupported(f"input {i} is not a tensor list")
    return v


def _element_shape(node: ConverterNode, i: int) -> list[int] | None:
    """The ``element_shape`` input: dims (-1 unknown), None for unknown rank
    (TensorFlow's scalar -1) or when not a constant."""
    v = node.const(i)
    if v is None or np.ndim(v) == 0:
        return None
    return [int(d) for d in np.asarray(v).reshape(-1)]


def _items(node: ConverterNode, lst: TensorList, what: str) -> SSAValue:
    if isinstance(lst, SlicedList | WrittenList):
        raise node.unsupported(
            f"{what} a tensor list the loop reads or writes per iteration (only "
            "TensorListGetItem / TensorListSetItem at the iteration number are supported)"
        )
    if lst.items is None:
        raise node.unsupported(f"{what} a tensor list nothing was written to")
    return lst.items


@tf_converter("TensorListFromTensor")
def from_tensor(node: ConverterNode, b: TFBuilder):
    t = node.input(0)
    dims = dims_of(t.type)
    return TensorList(value_etype(t), items=t, element_shape=None if dims is None else dims[1:])


@tf_converter("TensorListReserve")
def reserve(node: ConverterNode, b: TFBuilder):
    return TensorList(
        str(node.attr("element_dtype")), length=node.input(1), element_shape=_element_shape(node, 0)
    )


@tf_converter("EmptyTensorList")
def empty(node: ConverterNode, b: TFBuilder):
    return TensorList(
        str(node.attr("element_dtype")), length=b.i32(0), element_shape=_element_shape(node, 0)
    )


@tf_converter("TensorListGetItem")
def get_item(node: ConverterNode, b: TFBuilder):
    lst = tensor_list(node, 0)
    if isinstance(lst, SlicedList):
        return lst.item  # the loop checked that the index is the iteration number
    items = _items(node, lst, "reads")
    index = node.const(1)
    n = lst.known_length(node)
    if index is not None and n is not None:
        k = int(np.asarray(index).reshape(-1)[0])
        if not 0 <= k < n:
            raise node.unsupported(f"reads element {k} of a tensor list of {n} elements")
    return b.gather(items, node.input(1), 0)


@tf_converter("TensorListGather")
def gather(node: ConverterNode, b: TFBuilder):
    return b.gather(_items(node, tensor_list(node, 0), "gathers from"), node.input(1), 0)


@tf_converter("TensorListSetItem")
def set_item(node: ConverterNode, b: TFBuilder):
    lst = tensor_list(node, 0)
    item = node.input(2)
    if isinstance(lst, WrittenList):
        return ListWrite(item)  # the loop checked the index
    items = _items(node, lst, "writes to")
    index = b.unsqueeze(b.convert(node.input(1), "i64"), [0])
    new = b.out("ScatterUpdate", [items, index, b.unsqueeze(item, [0]), b.i64(0)])
    return TensorList(lst.etype, items=new, element_shape=lst.element_shape)


@tf_converter("TensorListPushBack")
def push_back(node: ConverterNode, b: TFBuilder):
    lst = tensor_list(node, 0)
    item = b.unsqueeze(node.input(1), [0])
    if lst.items is None and lst.known_length(node) == 0 and not isinstance(lst, WrittenList):
        return TensorList(lst.etype, items=item, element_shape=lst.element_shape)
    items = _items(node, lst, "appends to")
    return TensorList(lst.etype, items=b.concat([items, item], 0), element_shape=lst.element_shape)


@tf_converter("TensorListStack")
def stack(node: ConverterNode, b: TFBuilder):
    return _items(node, tensor_list(node, 0), "stacks")


@tf_converter("TensorListLength")
def length(node: ConverterNode, b: TFBuilder):
    lst = tensor_list(node, 0)
    if lst.items is None and lst.length is not None and not isinstance(lst, SlicedList | WrittenList):
        return b.convert(lst.length, "i32")
    items = _items(node, lst, "measures")
    return b.squeeze(b.gather(b.shape_of(items, "i32"), [0], 0), [0])


@tf_converter("TensorListElementShape")
def element_shape(node: ConverterNode, b: TFBuilder):
    lst = tensor_list(node, 0)
    etype = str(node.attr("shape_type") or "i32")
    if isinstance(lst, SlicedList):
        return b.shape_of(lst.item, etype)
    if lst.items is None:
        shape = lst.element_shape
        if shape is None or any(d < 0 for d in shape):
            raise node.unsupported("the element shape of a tensor list nothing was written to")
        return b.const(np.asarray(shape), etype)
    items = _items(node, lst, "measures")
    rank = len(dims_of(items.type) or [])
    if not rank:
        raise node.unsupported("the items of the tensor list have an unknown rank")
    return slice_axis(b, b.shape_of(items, etype), 1, rank, 0)
