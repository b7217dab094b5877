"""TensorLists (TF2's ``TensorArray``): TensorListFromTensor / Reserve /
EmptyTensorList / GetItem / SetItem / PushBack / Gather / Stack / Length /
ElementShape; and TF1's TensorArrays: TensorArrayV3 / ReadV3 / WriteV3 /
ScatterV3 / GatherV3 / SizeV3.

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

A TF1 TensorArray is a handle (:class:`TensorArrayHandle`, its element
type) and a *flow* value each op takes and writes gives back: the flow is
the array's state, so it is a :class:`TensorList` here and the TensorArray
ops are the list ops on it (:data:`LIST_READS` / :data:`LIST_WRITES` say
where their list, index and item operands are); a scatter at ``0..n-1`` (an
unstack) makes the list of the scattered tensor, a gather at ``0..n-1`` (a
stack) is its items.

A read at a constant index beyond the length known at conversion time is an
error naming the node.
"""

from __future__ import annotations

import numpy as np
from xdsl.ir import SSAValue
from xmo.dialects.ov.base import OVOp, constant_value_of, dims_of
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


class TensorArrayHandle(ConversionValue):
    """A TF1 TensorArray's handle: what the array holds (its contents travel
    in the flow values, :class:`TensorList` s)."""

    kind = "tensor array handle"
    output_problem = "the output is a tensor array handle"
    input_problem = "is a tensor array handle"

    def __init__(self, etype: str, element_shape: list[int] | None) -> None:
        self.etype = etype
        self.element_shape = element_shape


#: list reads: op type -> (list operand, index operand)
LIST_READS: dict[str, tuple[int, int]] = {
    "TensorListGetItem": (0, 1),
    "TensorArrayReadV3": (2, 1),
}
#: list writes: op type -> (list operand, index operand, item operand)
LIST_WRITES: dict[str, tuple[int, int, int]] = {
    "TensorListSetItem": (0, 1, 2),
    "TensorArrayWriteV3": (3, 1, 2),
}


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


@tf_converter(*LIST_READS)
def get_item(node: ConverterNode, b: TFBuilder):
    li, ii = LIST_READS[node.type]
    lst = tensor_list(node, li)
    if isinstance(lst, SlicedList):
        return lst.item  # the loop checked that the index is the iteration number
    items = _items(node, lst, "reads")
    index = node.const(ii)
    n = lst.known_length(node)
    if index is not None and n is not None:
        k = int(np.asarray(index).reshape(-1)[0])
        if not 0 <= k < n:
            raise node.unsupported(f"reads element {k} of a tensor list of {n} elements")
    return b.gather(items, node.input(ii), 0)


@tf_converter("TensorListGather")
def gather(node: ConverterNode, b: TFBuilder):
    return b.gather(_items(node, tensor_list(node, 0), "gathers from"), node.input(1), 0)


@tf_converter(*LIST_WRITES)
def set_item(node: ConverterNode, b: TFBuilder):
    li, ii, vi = LIST_WRITES[node.type]
    lst = tensor_list(node, li)
    item = node.input(vi)
    if isinstance(lst, WrittenList):
        return ListWrite(item)  # the loop checked the index
    items = _items(node, lst, "writes to")
    index = b.unsqueeze(b.convert(node.input(ii), "i64"), [0])
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


# -- TF1 TensorArrays -------------------------------------------------------------------


@tf_converter("TensorArrayV3")
def tensor_array(node: ConverterNode, b: TFBuilder):
    """Outputs: the handle and the flow (an empty array of ``size`` elements)."""
    etype = str(node.attr("dtype"))
    shape = node.attr("element_shape")
    return [
        TensorArrayHandle(etype, shape),
        TensorList(etype, length=node.input(0), element_shape=shape),
    ]


def _counting(node: ConverterNode, i: int) -> SSAValue | None:
    """When input ``i`` counts from 0 by 1 (``0, 1, 2, ...``: a constant, or a
    Range from 0 with step 1): the number of its elements (a value), else None."""
    v = node.inputs[i]
    if not isinstance(v, SSAValue):
        return None
    c = node.const(i)
    if c is not None:
        a = np.asarray(c).reshape(-1)
        return v if np.array_equal(a, np.arange(a.size)) else None
    op = v.owner
    if isinstance(op, OVOp) and op.OV_TYPE == "Range":
        start, step = (constant_value_of(op.operands[k]) for k in (0, 2))
        if start is not None and step is not None and start.size == 1 and step.size == 1:
            if int(start.reshape(-1)[0]) == 0 and int(step.reshape(-1)[0]) == 1:
                return op.operands[1]
    return None


def _rows_of(limit: SSAValue, items: SSAValue) -> bool:
    """``limit`` is the number of rows of ``items`` (its dim 0 as a constant,
    or read from its shape: Gather / Squeeze / Convert of ``ShapeOf(items)``)."""
    dims = dims_of(items.type)
    c = constant_value_of(limit)
    if c is not None:
        return c.size == 1 and bool(dims) and dims[0] == int(c.reshape(-1)[0])  # type: ignore[index]
    v = limit
    while isinstance(v.owner, OVOp) and v.owner.OV_TYPE in ("Convert", "Squeeze", "Reshape", "Gather"):
        op = v.owner
        if op.OV_TYPE == "Gather":
            index = constant_value_of(op.operands[1])
            if index is None or index.size != 1 or int(index.reshape(-1)[0]) != 0:
                return False
        v = op.operands[0]
    return isinstance(v.owner, OVOp) and v.owner.OV_TYPE == "ShapeOf" and v.owner.operands[0] is items


@tf_converter("TensorArrayScatterV3")
def tensor_array_scatter(node: ConverterNode, b: TFBuilder):
    """(handle, indices, value, flow): into an empty array at ``0, 1, ...``
    (TensorArray.unstack: as many indices as the value has rows), the
    value's rows are the elements; else the rows go into the items."""
    lst = tensor_list(node, 3)
    value = node.input(2)
    if lst.items is None and not isinstance(lst, SlicedList | WrittenList) and _counting(node, 1) is not None:
        return TensorList(lst.etype, items=value, element_shape=lst.element_shape)
    items = _items(node, lst, "scatters into")
    new = b.out("ScatterUpdate", [items, b.convert(node.input(1), "i64"), value, b.i64(0)])
    return TensorList(lst.etype, items=new, element_shape=lst.element_shape)


@tf_converter("TensorArrayGatherV3")
def tensor_array_gather(node: ConverterNode, b: TFBuilder):
    """(handle, indices, flow): the items when the indices count every
    element (TensorArray.stack), else a Gather of them."""
    items = _items(node, tensor_list(node, 2), "gathers from")
    count = _counting(node, 1)
    if count is not None and _rows_of(count, items):
        return items
    return b.gather(items, node.input(1), 0)


@tf_converter("TensorArraySizeV3")
def tensor_array_size(node: ConverterNode, b: TFBuilder):
    lst = tensor_list(node, 1)
    if lst.items is None and lst.length is not None and not isinstance(lst, SlicedList | WrittenList):
        return b.convert(lst.length, "i32")
    items = _items(node, lst, "measures")
    return b.squeeze(b.gather(b.shape_of(items, "i32"), [0], 0), [0])
