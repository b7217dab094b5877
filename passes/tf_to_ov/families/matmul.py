"""Matrix products: MatMul (transpose_a / transpose_b), BatchMatMul / V2 / V3
(adj_x / adj_y; numpy broadcasting of the batch dims), Einsum."""

from __future__ import annotations

from xmo.dialects.ov.base import tensor
from xmo.passes.tf_to_ov.builder import TFBuilder
from xmo.passes.tf_to_ov.families.elementwise import etype_attr
from xmo.passes.tf_to_ov.registry import tf_converter
from xmo.passes.to_ov.builder import ConverterNode
from xmo.passes.to_ov.helpers import einsum_shape


@tf_converter("MatMul")
def matmul(node: ConverterNode, b: TFBuilder):
    return b.out(
        "MatMul",
        [node.input(0), node.input(1)],
        {
            "transpose_a": bool(node.attr("transpose_a", False)),
            "transpose_b": bool(node.attr("transpose_b", False)),
        },
    )


@tf_converter("BatchMatMul", "BatchMatMulV2", "BatchMatMulV3")
def batch_matmul(node: ConverterNode, b: TFBuilder):
    x, y = node.input(0), node.input(1)
    if node.type == "BatchMatMulV3":
        t = etype_attr(node, "Tout")
        x, y = b.convert(x, t), b.convert(y, t)
    # adjoint == transpose for the real types OpenVINO has
    return b.out(
        "MatMul",
        [x, y],
        {"transpose_a": bool(node.attr("adj_x", False)), "transpose_b": bool(node.attr("adj_y", False))},
    )


@tf_converter("Einsum")
def einsum(node: ConverterNode, b: TFBuilder):
    eq = node.str_attr("equation").replace(" ", "")
    ins = [node.input(i) for i in range(node.num_inputs)]
    shape = einsum_shape(eq, [node.shape(i) for i in range(node.num_inputs)])
    return b.out("Einsum", ins, {"equation": eq}, result_types=[tensor(node.etype(0), shape)])
