"""Reductions: Mean, Sum, Max, Min, Prod, All, Any, EuclideanNorm (axes input,
keep_dims), ArgMax / ArgMin, TopKV2, Cumsum, Cumprod."""

from __future__ import annotations

from xdsl.ir import SSAValue
from xmo.passes.tf_to_ov.builder import TFBuilder
from xmo.passes.tf_to_ov.families.elementwise import etype_attr
from xmo.passes.tf_to_ov.registry import tf_converter
from xmo.passes.to_ov.builder import ConverterNode
from xmo.passes.to_ov.helpers import cumprod as cumulative_product
from xmo.passes.to_ov.helpers import norm_axis

_REDUCE = {
    "Mean": "ReduceMean",
    "Sum": "ReduceSum",
    "Max": "ReduceMax",
    "Min": "ReduceMin",
    "Prod": "ReduceProd",
    "All": "ReduceLogicalAnd",
    "Any": "ReduceLogicalOr",
    "EuclideanNorm": "ReduceL2",
}


def axes_input(node: ConverterNode, b: TFBuilder, i: int) -> SSAValue:
    """A TF axes input (scalar or vector, i32/i64) as an i64 vector."""
    c = node.const(i)
    if c is not None:
        return b.i64([int(v) for v in c.reshape(-1)])
    v = node.input(i)
    if node.rank(i) != 1:
        v = b.reshape(v, [-1])
    return b.convert(v, "i64")


def _reduce(ov_type: str):
    def convert(node: ConverterNode, b: TFBuilder):
        keep = bool(node.attr("keep_dims", False))
        x = node.input(0)
        c = node.const(1)
        if c is not None and c.size == 0:  # no axes: nothing is reduced
            return b.out("Abs", [x]) if ov_type == "ReduceL2" else x
        return b.out(ov_type, [x, axes_input(node, b, 1)], {"keep_dims": keep})

    return convert


for _tf, _ov in _REDUCE.items():
    tf_converter(_tf)(_reduce(_ov))


def scalar_axis(node: ConverterNode, i: int, rank: int | None) -> int:
    axis = node.const_scalar_int(i, "axis")
    if rank is None:
        if axis < 0:
            raise node.unsupported("negative axis on an input of dynamic rank")
        return axis
    return norm_axis(node, axis, rank)


@tf_converter("ArgMax", "ArgMin")
def arg_extreme(node: ConverterNode, b: TFBuilder):
    x = node.input(0)
    axis = scalar_axis(node, 1, node.rank(0))
    out_t = etype_attr(node, "output_type")
    topk = b.op(
        "TopK",
        [x, b.i64(1)],
        {
            "axis": axis,
            "mode": "max" if node.type == "ArgMax" else "min",
            "sort": "value",
            "index_element_type": out_t if out_t in ("i32", "i64") else "i64",
            "stable": True,  # ties: the first index, as TF
        },
    )
    return b.convert(b.squeeze(topk.results[1], [axis]), out_t)


@tf_converter("TopKV2", "TopK")
def top_k(node: ConverterNode, b: TFBuilder):
    x = node.input(0)
    if node.type == "TopK":
        k = b.i64(int(node.attr("k")))
    else:
        k = b.reshape(b.convert(node.input(1), "i64"), [])
    r = node.rank(0)
    axis = r - 1 if r is not None else -1
    op = b.op(
        "TopK",
        [x, k],
        {
            "axis": axis,
            "mode": "max",
            "sort": "value",  # also a valid order for sorted=False
            "index_element_type": "i32",
            "stable": True,
        },
    )
    return [op.results[0], op.results[1]]


@tf_converter("Cumsum")
def cumsum(node: ConverterNode, b: TFBuilder):
    axis = node.input(1)
    if node.rank(1) != 0:
        axis = b.reshape(axis, [])
    return b.out(
        "CumSum",
        [node.input(0), axis],
        {"exclusive": bool(node.attr("exclusive", False)), "reverse": bool(node.attr("reverse", False))},
    )


@tf_converter("Cumprod")
def cumprod(node: ConverterNode, b: TFBuilder):
    """OpenVINO has no cumulative product: the helper ONNX's CumProd uses
    (same inputs and attributes)."""
    return cumulative_product(
        node, b, bool(node.attr("exclusive", False)), bool(node.attr("reverse", False))
    )


@tf_converter("L2Loss")
def l2_loss(node: ConverterNode, b: TFBuilder):
    x = node.input(0)
    r = node.rank(0)
    if r is None:
        raise node.unsupported("input of dynamic rank")
    s = b.out("ReduceSum", [b.out("Multiply", [x, x]), b.i64(list(range(r)))], {"keep_dims": False})
    return b.out("Divide", [s, b.scalar_like(2, s)])
